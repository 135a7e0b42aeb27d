"""Resolve ``similarity=`` / ``weights=`` into a similarity over the vocabulary.

A similarity here is ``S[k, l] = P(vocabulary[k] == vocabulary[l])``, symmetric with a unit
diagonal. It is never materialised for the whole vocabulary unless asked: statistics ask for
the pairs they need (``pairs``) or for a block over a support (``block``).
"""

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from softirr_stats.agreement._weights import WEIGHT_NAMES, krippendorff_distance, weight_matrix
from softirr_stats.data import Annotations

__all__ = ["VocabSimilarity", "MatrixSimilarity", "resolve_similarity", "level_similarity", "category_values",
           "estimator_from_name", "MEASURE_NAMES"]


class VocabSimilarity:
    """Similarity over an annotation vocabulary (base class: identity)."""

    name = "identity"
    is_identity = True
    is_matrix = True

    def __init__(self, n: int) -> None:
        self.n = int(n)
        self.n_scored = 0

    def pairs(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        """Elementwise ``S[i, j]`` for code arrays ``i``, ``j``."""
        return (np.asarray(i) == np.asarray(j)).astype(np.float64)

    def block(self, rows: np.ndarray, cols: np.ndarray, count: bool = True) -> np.ndarray:
        """Dense ``S[rows][:, cols]`` (``count=False``: the caller accounts for scored pairs)."""
        return (np.asarray(rows)[:, None] == np.asarray(cols)[None, :]).astype(np.float64)

    def total(self) -> float:
        """Sum of all entries of S (``T_w`` in Gwet's notation)."""
        return float(self.n)


class MatrixSimilarity(VocabSimilarity):
    """A K x K matrix given by the user or built from named weights."""

    is_identity = False

    def __init__(self, matrix: np.ndarray, name: str = "matrix") -> None:
        super().__init__(matrix.shape[0])
        self.matrix = matrix
        self.name = name
        self.is_identity = bool(np.array_equal(matrix, np.eye(self.n)))

    def pairs(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        return self.matrix[np.asarray(i), np.asarray(j)]

    def block(self, rows: np.ndarray, cols: np.ndarray, count: bool = True) -> np.ndarray:
        return self.matrix[np.ix_(np.asarray(rows), np.asarray(cols))]

    def total(self) -> float:
        return float(self.matrix.sum())


#: Pairs per estimator call while a progress bar is shown.
SCORE_CHUNK = 2048


class ScoredSimilarity(VocabSimilarity):
    """Similarity from an equivalence estimator, scored lazily (each pair at most once)."""

    is_identity = False
    is_matrix = False

    def __init__(self, estimator: Any, vocabulary: tuple) -> None:
        super().__init__(len(vocabulary))
        self.estimator = estimator
        self.vocabulary = np.empty(len(vocabulary), dtype=object)
        self.vocabulary[:] = list(vocabulary)
        self.name = str(getattr(estimator, "name", getattr(estimator, "__name__", type(estimator).__name__)))
        self.symmetric = bool(getattr(estimator, "symmetric", False))
        self._known_keys = np.empty(0, dtype=np.int64)
        self._known_vals = np.empty(0, dtype=np.float64)

    # memo over canonical code pairs (i <= j), vectorised with searchsorted
    def _lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pos = np.searchsorted(self._known_keys, keys)
        pos = np.minimum(pos, max(len(self._known_keys) - 1, 0))
        hit = (self._known_keys[pos] == keys) if len(self._known_keys) else np.zeros(len(keys), bool)
        vals = self._known_vals[pos] if len(self._known_keys) else np.zeros(len(keys))
        return hit, vals

    def _remember(self, keys: np.ndarray, vals: np.ndarray) -> None:
        allk = np.concatenate([self._known_keys, keys])
        allv = np.concatenate([self._known_vals, vals])
        order = np.argsort(allk, kind="stable")
        self._known_keys, self._known_vals = allk[order], allv[order]

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Score code pairs (a < b, unique) through the estimator; symmetrised.

        Under a progress bar (a long exact chance pass) the pairs go in chunks, each counted.
        """
        from softirr_stats.agreement._cost import advance, bar_active

        if bar_active() and len(a) > SCORE_CHUNK:
            parts = []
            for k in range(0, len(a), SCORE_CHUNK):  # chunks of pairs, each one estimator call
                parts.append(self._score_once(a[k:k + SCORE_CHUNK], b[k:k + SCORE_CHUNK]))
                advance(len(parts[-1]) * (1 if self.symmetric else 2))
            return np.concatenate(parts)
        out = self._score_once(a, b)
        advance(len(out) * (1 if self.symmetric else 2))
        return out

    def _score_once(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        from softirr_stats.equivalence import score_pairs

        la, lb = self.vocabulary[a], self.vocabulary[b]
        if self.symmetric:
            s = score_pairs(self.estimator, list(la), list(lb))
            self.n_scored += len(a)
        else:
            s2 = score_pairs(self.estimator, list(la) + list(lb), list(lb) + list(la))
            s = 0.5 * (s2[: len(a)] + s2[len(a):])
            self.n_scored += 2 * len(a)
        s = np.asarray(s, dtype=np.float64)
        bad = ~np.isfinite(s) | (s < 0) | (s > 1)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"similarity {self.name!r} returned {s[k]!r} for the pair ({la[k]!r}, {lb[k]!r}); "
                "scores must be finite and in [0, 1]"
            )
        return s

    @property
    def cheap(self) -> bool:
        """True when the estimator scores whole matrices in one vectorised call (string/set
        measures via rapidfuzz, embeddings via one matrix product)."""
        return hasattr(self.estimator, "matrix") or hasattr(getattr(self.estimator, "estimator", None), "matrix")

    def pairs(self, i: np.ndarray, j: np.ndarray) -> np.ndarray:
        i = np.asarray(i, dtype=np.int64)
        j = np.asarray(j, dtype=np.int64)
        if self._square is not None:
            pos = self._square_pos
            if (pos[i] >= 0).all() and (pos[j] >= 0).all():
                return self._square[pos[i], pos[j]]
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        out = np.ones(len(i), dtype=np.float64)
        off = lo != hi
        if not off.any():
            return out
        keys = lo[off] * self.n + hi[off]
        uniq, inverse = np.unique(keys, return_inverse=True)
        hit, vals = self._lookup(uniq)
        if (~hit).any():
            new = uniq[~hit]
            vals[~hit] = self._score(new // self.n, new % self.n)
            self._remember(new, vals[~hit])
        out[off] = vals[inverse]
        return out

    _square: np.ndarray | None = None
    _square_pos: np.ndarray

    def _matrix(self, rows: np.ndarray, cols: np.ndarray, count: bool = True) -> np.ndarray:
        """Dense block through the estimator's vectorised matrix path, symmetrised."""
        from softirr_stats.equivalence import similarity_matrix

        la, lb = list(self.vocabulary[rows]), list(self.vocabulary[cols])
        m = similarity_matrix(self.estimator, la, lb)
        if not self.symmetric:
            m = 0.5 * (m + similarity_matrix(self.estimator, lb, la).T)
        m = np.asarray(m, dtype=np.float64)
        m[rows[:, None] == cols[None, :]] = 1.0
        if count:
            same = int((rows[:, None] == cols[None, :]).sum())
            n_off = len(rows) * len(cols) - same
            self.n_scored += n_off // 2 if (self.symmetric and np.array_equal(rows, cols)) else n_off
        return m

    def block(self, rows: np.ndarray, cols: np.ndarray, count: bool = True) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        if self._square is not None:
            pos = self._square_pos
            if (pos[rows] >= 0).all() and (pos[cols] >= 0).all():
                return self._square[np.ix_(pos[rows], pos[cols])]
        if self.cheap:
            m = self._matrix(rows, cols, count)
            if np.array_equal(rows, cols):  # a square support block: later pair look-ups use it
                self._square = m
                self._square_pos = np.full(self.n, -1, dtype=np.int64)
                self._square_pos[rows] = np.arange(len(rows))
            return m
        ii, jj = np.meshgrid(rows, cols, indexing="ij")
        return self.pairs(ii.ravel(), jj.ravel()).reshape(len(rows), len(cols))

    def total(self) -> float:
        idx = np.arange(self.n)
        return float(self.block(idx, idx).sum())


MEASURE_NAMES = ("exact", "levenshtein", "indel", "lcs", "jaccard", "masi", "dice", "embedding")


def estimator_from_name(name: str) -> Any:
    """An equivalence estimator from its short name (``"levenshtein"``, ``"embedding"``, ...).

    Examples
    --------
    >>> estimator_from_name("indel").name
    'indel'
    """
    from softirr_stats import equivalence as eq

    makers: dict[str, Callable[[], Any]] = {
        "exact": lambda: eq.Exact(), "levenshtein": lambda: eq.Levenshtein(), "indel": lambda: eq.Indel(),
        "lcs": lambda: eq.Lcs(), "jaccard": lambda: eq.Jaccard(), "masi": lambda: eq.Masi(),
        "dice": lambda: eq.Dice(), "embedding": lambda: eq.Embedding(),
    }
    if not isinstance(name, str) or name.strip().lower() not in makers:
        raise ValueError(f"measure must be one of {list(MEASURE_NAMES)}; got {name!r}")
    return makers[name.strip().lower()]()


def category_values(ann: Annotations) -> np.ndarray:
    """Values on which weights are built: numeric labels, else positions 1..K."""
    if ann.kind == "numeric":
        return ann.values()
    return np.arange(1, len(ann.vocabulary) + 1, dtype=float)


def _check_matrix(m: Any, k: int, name: str) -> np.ndarray:
    arr = np.asarray(m, dtype=np.float64)
    if arr.shape != (k, k):
        raise ValueError(f"{name} must be a {k} x {k} array (len(ann.vocabulary)); got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} has non-finite entries")
    if (arr < 0).any() or (arr > 1).any():
        raise ValueError(f"{name} entries must lie in [0, 1]; got range [{arr.min()}, {arr.max()}]")
    if not np.allclose(np.diag(arr), 1.0, atol=1e-12):
        raise ValueError(f"{name} must have a unit diagonal (a label always matches itself)")
    return 0.5 * (arr + arr.T)


def _is_exact(obj: Any) -> bool:
    try:
        from softirr_stats.equivalence import Exact
    except ImportError:  # pragma: no cover - equivalence always ships Exact
        return False
    return isinstance(obj, Exact)


def check_weight_order(ann: Annotations, weights: str) -> None:
    """Named ordered weights need an order: numeric labels or declared ``categories=``.

    Text labels ("low", "medium", "high") have no order of their own; sorting them
    alphabetically would silently weight "high" next to "low".
    """
    if weights == "identity" or ann.kind != "categorical" or ann.categories is not None:
        return
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in ann.vocabulary):
        return
    shown = ", ".join(repr(v) for v in ann.vocabulary[:6]) + (", ..." if len(ann.vocabulary) > 6 else "")
    raise ValueError(
        f"weights={weights!r} orders the labels, but these are text labels with no declared order "
        f"({shown}); pass categories=[...] listing them in order (e.g. categories=['low', 'medium', "
        f"'high']), or use numeric labels")


def resolve_similarity(
    ann: Annotations,
    *,
    similarity: Any = None,
    weights: Any = None,
    allow_weights: bool = True,
    allow_similarity: bool = True,
) -> VocabSimilarity:
    """Turn the ``similarity=`` / ``weights=`` arguments into a :class:`VocabSimilarity`."""
    k = len(ann.vocabulary)
    if similarity is not None and weights is not None:
        raise ValueError("give weights= (categorical agreement weights) or similarity= (soft), not both")
    if weights is not None:
        if not allow_weights:
            raise ValueError("this coefficient takes no weights=")
        if isinstance(weights, str):
            if weights not in WEIGHT_NAMES:
                raise ValueError(f"weights must be one of {list(WEIGHT_NAMES)} or a K x K array; got {weights!r}")
            if ann.kind == "set":
                raise ValueError("named weights need categorical or numeric labels; use similarity= for sets")
            check_weight_order(ann, weights)
            m = weight_matrix(weights, category_values(ann))
            sim = MatrixSimilarity(m, name=weights)
            return sim if weights != "identity" else VocabSimilarity(k)
        return MatrixSimilarity(_check_matrix(weights, k, "weights"), name="weights-matrix")
    if similarity is None:
        return VocabSimilarity(k)
    if not allow_similarity:
        raise ValueError("this coefficient takes no similarity=")
    if _is_exact(similarity):
        return VocabSimilarity(k)
    if isinstance(similarity, np.ndarray) or (
        isinstance(similarity, list | tuple) and len(similarity) and isinstance(similarity[0], list | tuple | np.ndarray)
    ):
        return MatrixSimilarity(_check_matrix(similarity, k, "similarity"), name="similarity-matrix")
    if isinstance(similarity, str):
        est = estimator_from_name(similarity)
        return VocabSimilarity(k) if _is_exact(est) else ScoredSimilarity(est, ann.vocabulary)
    if callable(similarity):
        return ScoredSimilarity(similarity, ann.vocabulary)
    raise TypeError(
        "similarity must be None, an equivalence estimator, a callable (a_seq, b_seq) -> scores, "
        f"a measure name, or a K x K array; got {type(similarity).__name__}"
    )


SimilarityLike = VocabSimilarity | Callable[..., Any] | np.ndarray | None


def level_similarity(ann: Annotations, level: str, similarity: Any = None) -> VocabSimilarity:
    """Krippendorff's metric as a similarity: nominal (or ``similarity=``), interval or ratio.

    ``1 - delta / max(delta)``: alpha is invariant to rescaling the distance. Ordinal is not
    a fixed similarity (its metric depends on the data) and is handled by its own family.

    Examples
    --------
    >>> ann = Annotations.from_wide([[1, 2], [2, 3], [3, 3]])
    >>> level_similarity(ann, "interval").block(np.arange(3), np.arange(3))[0].tolist()
    [1.0, 0.75, 0.0]
    """
    if level == "nominal":
        return resolve_similarity(ann, similarity=similarity)
    if similarity is not None:
        raise ValueError(f"similarity= replaces the level's distance; use level='nominal' with a similarity "
                         f"(got level={level!r})")
    if level not in ("interval", "ratio"):
        raise ValueError(f"level must be one of ['nominal', 'interval', 'ratio'] here; got {level!r}")
    if ann.kind != "numeric":
        raise ValueError(f"level={level!r} needs numeric labels; these are {ann.kind}")
    delta = krippendorff_distance(level, ann.values())
    top = delta.max()
    return MatrixSimilarity(1.0 - delta / top if top > 0 else 1.0 - delta, name=f"{level}-distance")
