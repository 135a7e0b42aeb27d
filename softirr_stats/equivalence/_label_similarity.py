"""Similarity over a label vocabulary: the one path from ``similarity=`` to scores of label pairs.

A similarity here is ``S[k, l] = P(vocabulary[k] == vocabulary[l])``, symmetric with a unit
diagonal, indexed by label codes. :func:`resolve_label_similarity` turns every accepted form of
``similarity=`` (None, a measure name, an estimator or callable, a K x K matrix, or an object
this function returned before) into one of the three kinds of :class:`LabelSimilarity` (the
abstract base):

- :class:`ExactMatchSimilarity`: exact matching (the identity kind);
- :class:`MatrixSimilarity`: a given K x K matrix (the matrix kind);
- :class:`ScoredSimilarity`: an estimator over the vocabulary with one memo of scored label
  pairs (the scored kind). A directional estimator is symmetrised by this object,
  ``(s(a, b) + s(b, a)) / 2`` (its matrix path through ``similarity_matrix(symmetrize=True)``),
  and by no other statistic, so coefficients, the sensitivity table and the soft annotator model see the same scores.

Statistics ask for the pairs they need (``pairs``) or for a block over a support (``block``);
both return :class:`Scores`: the values and the number of label pairs newly sent to the
estimator by that call. Counts travel by value; nothing outside this module writes an
attribute of these objects (assigning one raises ``AttributeError``). Passing the same object
as ``similarity=`` to several statistics shares its memo: a pair scored for one is not scored
again for the next.
"""

import importlib
import inspect
import logging
import time
import warnings
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from softirr_stats.base._validation import ModelRequiredError, SoftIRRWarning
from softirr_stats.equivalence._measures import MEASURES

__all__ = ["MEASURES", "MEASURE_NAMES", "LabelSimilarity", "ExactMatchSimilarity", "MatrixSimilarity", "ScoredSimilarity", "Scores",
           "check_similarity_matrix", "estimator_from_name", "is_matrix_like", "resolve_label_similarity",
           "split_measure_name"]

#: Short names of the built-in measures accepted as ``similarity="..."`` (the keys of :data:`MEASURES`).
MEASURE_NAMES = tuple(MEASURES)

#: Pairs per estimator call while a progress callback is given.
SCORE_CHUNK = 2048

Progress = Callable[[int], None] | None


class Scores(NamedTuple):
    """Scores of label pairs and how many pairs the estimator newly scored to get them.

    ``n_scored`` counts each direction of a directional estimator; pairs found in the memo, equal
    labels and matrix look-ups count 0.

    Parameters
    ----------
    values : numpy.ndarray
        The scores in [0, 1], in the shape of the request.
    n_scored : int
        Label pairs sent to the estimator for this request (not found in the memo).

    Examples
    --------
    >>> s = Scores(np.array([1.0, 0.25]), 1)
    >>> s.values.tolist(), s.n_scored
    ([1.0, 0.25], 1)
    """

    values: np.ndarray
    n_scored: int


class LabelSimilarity(ABC):
    """A similarity over a vocabulary of ``n`` labels: the abstract base of the three kinds.

    ``S[k, l] = P(vocabulary[k] == vocabulary[l])``, symmetric with a unit diagonal. The kinds
    are :class:`ExactMatchSimilarity` (the identity), :class:`MatrixSimilarity` (a given
    matrix) and :class:`ScoredSimilarity` (an estimator, scored lazily through one memo). The
    objects are read-only from outside: assigning an attribute raises ``AttributeError``.

    Attributes
    ----------
    n : int
        Number of labels.
    name : str
        Shown in results and tables.
    is_identity : bool
        ``S`` is the identity (exact matching).
    is_matrix : bool
        Every entry of ``S`` is known without calling an estimator.
    symmetric : bool
        The underlying estimator is symmetric (a directional one is symmetrised here).
    vectorised_matrix : bool
        The estimator has a vectorised ``matrix`` method, so a block is one estimator call.
    asymmetric : bool
        ``S`` is an asymmetric weight matrix used as given (``weights=`` of Cohen / Conger);
        False for every similarity, which is symmetric.

    Examples
    --------
    >>> [isinstance(s, LabelSimilarity) for s in (ExactMatchSimilarity(2), MatrixSimilarity(np.eye(2)))]
    [True, True]
    """

    name = "similarity"
    is_identity = False
    is_matrix = False
    symmetric = True
    vectorised_matrix = False
    asymmetric = False

    def __init__(self, n: int) -> None:
        object.__setattr__(self, "n", int(n))

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is read-only: {key!r} cannot be set from outside "
                             "(scores and counts come back from pairs() and block())")

    @abstractmethod
    def pairs(self, i: np.ndarray, j: np.ndarray, progress: Progress = None) -> Scores:
        """Elementwise ``S[i, j]`` for code arrays ``i``, ``j``."""

    @abstractmethod
    def block(self, rows: np.ndarray, cols: np.ndarray, progress: Progress = None) -> Scores:
        """Dense ``S[rows][:, cols]``."""

    @abstractmethod
    def total(self) -> Scores:
        """Sum of all entries of S (``T_w`` in Gwet's notation), as ``Scores(array(sum), n_scored)``."""

    def _same_vocabulary(self, vocabulary: tuple) -> bool:
        return self.n == len(vocabulary)


class ExactMatchSimilarity(LabelSimilarity):
    """Exact matching over a vocabulary of ``n`` labels: ``S`` is the identity (the identity kind).

    Parameters
    ----------
    n : int
        Number of labels in the vocabulary.

    Examples
    --------
    >>> sim = ExactMatchSimilarity(3)
    >>> sim.pairs(np.array([0, 1]), np.array([0, 2])).values.tolist(), float(sim.total().values)
    ([1.0, 0.0], 3.0)
    """

    name = "identity"
    is_identity = True
    is_matrix = True

    def pairs(self, i: np.ndarray, j: np.ndarray, progress: Progress = None) -> Scores:
        """Elementwise ``S[i, j]`` for code arrays ``i``, ``j``."""
        return Scores((np.asarray(i) == np.asarray(j)).astype(np.float64), 0)

    def block(self, rows: np.ndarray, cols: np.ndarray, progress: Progress = None) -> Scores:
        """Dense ``S[rows][:, cols]``."""
        return Scores((np.asarray(rows)[:, None] == np.asarray(cols)[None, :]).astype(np.float64), 0)

    def total(self) -> Scores:
        """Sum of all entries of S (``T_w`` in Gwet's notation), as ``Scores(array(sum), n)``."""
        return Scores(np.asarray(float(self.n)), 0)


class MatrixSimilarity(LabelSimilarity):
    """A K x K matrix given by the user or built from named weights (validated by the caller).

    Parameters
    ----------
    matrix : numpy.ndarray
        (K, K) similarities in [0, 1] with a unit diagonal (see :func:`check_similarity_matrix`);
        kept as a read-only copy.
    name : str
        Shown in results and tables.

    Examples
    --------
    >>> sim = MatrixSimilarity(np.array([[1.0, 0.5], [0.5, 1.0]]), name="half")
    >>> sim.block(np.arange(2), np.arange(2)).values.tolist(), sim.is_identity
    ([[1.0, 0.5], [0.5, 1.0]], False)
    """

    is_matrix = True

    def __init__(self, matrix: np.ndarray, name: str = "matrix") -> None:
        super().__init__(matrix.shape[0])
        m = np.array(matrix, dtype=np.float64)
        m.setflags(write=False)
        object.__setattr__(self, "matrix", m)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "is_identity", bool(np.array_equal(m, np.eye(self.n))))

    def pairs(self, i: np.ndarray, j: np.ndarray, progress: Progress = None) -> Scores:
        return Scores(self.matrix[np.asarray(i), np.asarray(j)], 0)

    def block(self, rows: np.ndarray, cols: np.ndarray, progress: Progress = None) -> Scores:
        return Scores(self.matrix[np.ix_(np.asarray(rows), np.asarray(cols))], 0)

    def total(self) -> Scores:
        return Scores(np.asarray(float(self.matrix.sum())), 0)


class ScoredSimilarity(LabelSimilarity):
    """An estimator over a vocabulary, scored lazily: each label pair at most once (one memo).

    The memo holds canonical code pairs ``(k, l)``, ``k < l``, sorted, searched vectorised. A
    directional estimator (``symmetric`` false or absent) is scored both ways and averaged.

    Parameters
    ----------
    estimator : equivalence estimator or callable ``(a_seq, b_seq) -> scores``
    vocabulary : sequence of labels, indexed by the codes passed to ``pairs`` / ``block``

    Examples
    --------
    >>> from softirr_stats.equivalence import Levenshtein
    >>> sim = ScoredSimilarity(Levenshtein(), ("abc", "abd", "xyz"))
    >>> s = sim.pairs(np.array([0, 0, 1]), np.array([1, 1, 0]))
    >>> s.values.round(4).tolist(), s.n_scored, sim.pairs(np.array([1]), np.array([0])).n_scored
    ([0.6667, 0.6667, 0.6667], 1, 0)
    """

    def __init__(self, estimator: Any, vocabulary: tuple) -> None:
        super().__init__(len(vocabulary))
        labels = np.empty(len(vocabulary), dtype=object)
        labels[:] = list(vocabulary)
        labels.setflags(write=False)
        set_ = object.__setattr__
        set_(self, "estimator", estimator)
        set_(self, "vocabulary", labels)
        set_(self, "_labels", vocabulary)
        set_(self, "name", str(getattr(estimator, "name", getattr(estimator, "__name__", type(estimator).__name__))))
        set_(self, "symmetric", bool(getattr(estimator, "symmetric", False)))
        set_(self, "vectorised_matrix", hasattr(estimator, "matrix") or hasattr(getattr(estimator, "estimator", None), "matrix"))
        self._store(np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float64))

    def _same_vocabulary(self, vocabulary: tuple) -> bool:
        if vocabulary is self._labels:  # the same Annotations' vocabulary: no comparison needed
            return True
        return self.n == len(vocabulary) and all(a == b for a, b in zip(self.vocabulary, vocabulary, strict=True))

    @property
    def n_known(self) -> int:
        """Distinct label pairs in the memo."""
        return int(self._keys.size)

    # the memo: sorted canonical keys lo * n + hi with their scores, replaced (never edited) on growth
    def _store(self, keys: np.ndarray, vals: np.ndarray) -> None:
        keys.setflags(write=False)
        vals.setflags(write=False)
        object.__setattr__(self, "_keys", keys)
        object.__setattr__(self, "_vals", vals)

    def _lookup(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if not self._keys.size:
            return np.zeros(len(keys), bool), np.zeros(len(keys))
        pos = np.minimum(np.searchsorted(self._keys, keys), self._keys.size - 1)
        return self._keys[pos] == keys, self._vals[pos]

    def _remember(self, keys: np.ndarray, vals: np.ndarray) -> None:
        """Add new (sorted, unique, unknown) keys with their scores."""
        if not self._keys.size:  # the callers pass arrays of their own: kept without a copy
            self._store(np.asarray(keys, dtype=np.int64), np.asarray(vals, dtype=np.float64))
            return
        allk = np.concatenate([self._keys, keys])
        allv = np.concatenate([self._vals, vals])
        order = np.argsort(allk, kind="stable")  # two sorted runs: a linear merge
        self._store(allk[order], allv[order])

    def _directions(self) -> int:
        return 1 if self.symmetric else 2

    def _score(self, a: np.ndarray, b: np.ndarray, progress: Progress) -> np.ndarray:
        """Score code pairs (a < b, unique) through the estimator; in chunks under a progress callback."""
        if progress is None or len(a) <= SCORE_CHUNK:
            out = self._score_once(a, b)
            if progress is not None:
                progress(len(out) * self._directions())
            return out
        parts = []
        for k in range(0, len(a), SCORE_CHUNK):  # chunks of pairs, each one estimator call
            parts.append(self._score_once(a[k:k + SCORE_CHUNK], b[k:k + SCORE_CHUNK]))
            progress(len(parts[-1]) * self._directions())
        return np.concatenate(parts)

    def _score_once(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        from softirr_stats.equivalence._pair_scoring import score_pairs

        la, lb = self.vocabulary[a], self.vocabulary[b]
        if self.symmetric:
            s = np.asarray(score_pairs(self.estimator, list(la), list(lb)), dtype=np.float64)
        else:  # the one place a directional estimator is symmetrised
            s2 = np.asarray(score_pairs(self.estimator, list(la) + list(lb), list(lb) + list(la)), dtype=np.float64)
            s = 0.5 * (s2[: len(a)] + s2[len(a):])
        bad = ~np.isfinite(s) | (s < 0) | (s > 1)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"similarity {self.name!r} returned {s[k]!r} for the pair ({la[k]!r}, {lb[k]!r}); "
                "scores must be finite and in [0, 1]"
            )
        return s

    def pairs(self, i: np.ndarray, j: np.ndarray, progress: Progress = None) -> Scores:
        """``S[i, j]`` elementwise; pairs missing from the memo are scored (once) and remembered."""
        i = np.asarray(i, dtype=np.int64)
        j = np.asarray(j, dtype=np.int64)
        lo, hi = np.minimum(i, j), np.maximum(i, j)
        out = np.ones(len(i), dtype=np.float64)
        off = lo != hi
        if not off.any():
            return Scores(out, 0)
        uniq, inverse = np.unique(lo[off] * self.n + hi[off], return_inverse=True)
        hit, vals = self._lookup(uniq)
        vals = np.array(vals)
        n_new = int((~hit).sum())
        if n_new:
            new = uniq[~hit]
            t0 = time.perf_counter()
            vals[~hit] = self._score(new // self.n, new % self.n, progress)
            self._remember(new, vals[~hit])
            logging.getLogger(__name__).info("scored %d label pairs with %s (%d already known), %.2f s",
                                             n_new * self._directions(), self.name, int(hit.sum()),
                                             time.perf_counter() - t0)
        out[off] = vals[inverse]
        return Scores(out, n_new * self._directions())

    def _matrix(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        """Dense block through the estimator's vectorised matrix path, symmetrised."""
        from softirr_stats.equivalence._pair_scoring import similarity_matrix

        t0 = time.perf_counter()
        if np.array_equal(rows, cols):  # square: the labels are distinct, so only the diagonal is 1
            m = np.asarray(similarity_matrix(self.estimator, list(self.vocabulary[rows]),
                                             symmetrize=not self.symmetric), dtype=np.float64)
        else:
            la, lb = list(self.vocabulary[rows]), list(self.vocabulary[cols])
            m = np.asarray(similarity_matrix(self.estimator, la, lb, symmetrize=not self.symmetric), dtype=np.float64)
            m[rows[:, None] == cols[None, :]] = 1.0
        logging.getLogger(__name__).info("scored a %d x %d block of label pairs with %s, %.2f s", len(rows),
                                         len(cols), self.name, time.perf_counter() - t0)
        return m

    def block(self, rows: np.ndarray, cols: np.ndarray, progress: Progress = None) -> Scores:
        """Dense ``S[rows][:, cols]``.

        A vectorised estimator (``vectorised_matrix``) scores the block in one call; a square block over a
        support (``rows`` equal to ``cols``) is remembered in the memo, a rectangular one (a row
        block of a streamed pass) is not. Other estimators go pair by pair through the memo.
        """
        rows = np.asarray(rows, dtype=np.int64)
        cols = np.asarray(cols, dtype=np.int64)
        if not self.vectorised_matrix:
            ii, jj = np.meshgrid(rows, cols, indexing="ij")
            s = self.pairs(ii.ravel(), jj.ravel(), progress)
            return Scores(s.values.reshape(len(rows), len(cols)), s.n_scored)
        square = np.array_equal(rows, cols)
        if square:
            iu, ju = np.triu_indices(len(rows), 1)
            increasing = bool(np.all(rows[1:] > rows[:-1]))
            if increasing:  # a strictly increasing support (the usual case): rows[iu] < rows[ju]
                keys = (iu if rows[-1] == len(rows) - 1 else rows[iu]) * self.n  # rows == arange: no gather
                keys += ju if rows[-1] == len(rows) - 1 else rows[ju]  # sorted, unique
            else:
                lo, hi = np.minimum(rows[iu], rows[ju]), np.maximum(rows[iu], rows[ju])
                keys = lo * self.n + hi
            if self._keys.size >= len(iu):  # perhaps scored already (a shared memo)
                hit, vals = self._lookup(keys)
                if hit.all():
                    m = np.eye(len(rows))
                    m[iu, ju] = m[ju, iu] = vals
                    m[rows[:, None] == rows[None, :]] = 1.0
                    return Scores(m, 0)
        m = self._matrix(rows, cols)
        if square:  # each distinct label pair scored once (per direction), remembered
            if increasing:
                vals = m[iu, ju]
            else:
                off = lo != hi  # lo, hi: set above for a support that is not increasing
                keys, first = np.unique(keys[off], return_index=True)
                vals = m[iu[off][first], ju[off][first]]
            if self._keys.size:
                hit, _ = self._lookup(keys)
                keys, vals, n_new = keys[~hit], vals[~hit], len(hit)
            else:
                n_new = len(keys)
            self._remember(keys, vals)
            n_new *= self._directions()
        else:  # a row block of a streamed pass: every off-diagonal cell, both ways for a directional one
            n_new = int((rows[:, None] != cols[None, :]).sum()) * self._directions()
        if progress is not None:
            progress(n_new)
        return Scores(m, n_new)

    def total(self) -> Scores:
        idx = np.arange(self.n)
        s = self.block(idx, idx)
        return Scores(np.asarray(float(s.values.sum())), s.n_scored)


def split_measure_name(text: str) -> tuple[str, str | None]:
    """``(name, model)`` of a measure name: ``"nli:cross-encoder/x"`` -> ``("nli", "cross-encoder/x")``.

    The name is lower-cased and stripped; the text after the first ``:`` is the model (None when
    there is none). Nothing is checked against :data:`MEASURES` here.

    Parameters
    ----------
    text : str
        A measure name, optionally ``"<name>:<model>"``.

    Examples
    --------
    >>> split_measure_name(" Indel "), split_measure_name("nli:models/tiny-nli")
    (('indel', None), ('nli', 'models/tiny-nli'))
    """
    name, sep, model = text.strip().partition(":")
    return name.strip().lower(), (model.strip() or None) if sep else None


def _read_spec(text: str) -> str:
    from pathlib import Path

    path = Path(text[1:])
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(f"cannot read the estimator spec {path}: {getattr(err, 'strerror', None) or err}") from None


def estimator_from_name(name: str, model: str | None = None, *, progress: bool | None = None) -> Any:
    """The estimator a measure name names: the one reader of :data:`MEASURES` (and of estimator specs).

    Parameters
    ----------
    name : str
        A key of :data:`MEASURES` (case and surrounding spaces ignored), optionally with its model
        as ``"<name>:<model>"`` (``"nli:cross-encoder/nli-deberta-v3-small"``); a JSON estimator
        spec ``{"cls": ..., "params": ...}`` (:func:`~softirr_stats.equivalence.from_spec`'s
        allow-list applies); or ``"@path"`` to a file holding one.
    model : str, optional
        Model directory or hub name for the measures whose class takes one (``embedding``: optional,
        ``nli`` and ``llm_judge``: required), when the name does not carry it (the command line's
        ``--model``); ignored by the other measures.
    progress : bool, optional
        Passed to a model-backed estimator (its progress bar); None leaves its default.

    Returns
    -------
    An estimator (``Exact()`` for ``"exact"``); ``ValueError`` for an unknown name or a missing model.

    Examples
    --------
    >>> estimator_from_name("indel").name
    'indel'
    >>> estimator_from_name("nli")
    Traceback (most recent call last):
    ...
    softirr_stats.base._validation.ModelRequiredError: similarity 'nli' needs a model: write 'nli:<model directory or hub name>' (on the command line: --model), or pass softirr_stats.equivalence.Nli(model=...)
    """
    if not isinstance(name, str):
        raise ValueError(f"similarity must be one of {list(MEASURES)}; got {name!r}")
    text = name.strip()
    if text.startswith("@"):
        text = _read_spec(text)
    if text.lstrip().startswith("{"):
        from softirr_stats.equivalence._spec import (
            from_spec,  # on use: the spec module (and its fingerprints)
        )

        return from_spec(text)
    key, given = split_measure_name(text)
    if key not in MEASURES:
        from softirr_stats.base._suggest import did_you_mean

        raise ValueError(f"similarity must be one of {list(MEASURES)}, '<name>:<model>', a JSON estimator spec or "
                         f"@spec.json; got {name!r}{did_you_mean(key, MEASURES)}")
    module, cls_name = MEASURES[key].split(":")
    cls = getattr(importlib.import_module(module), cls_name)
    params = inspect.signature(cls).parameters
    takes = params.get("model")
    model = given or model
    if takes is None:
        if given:
            raise ValueError(f"similarity {key!r} takes no model; got {name!r}")
        return cls()
    kwargs: dict[str, Any] = {}
    if progress is not None and "progress" in params:
        kwargs["progress"] = progress
    if model:
        return cls(model, **kwargs)
    if takes.default is inspect.Parameter.empty:
        raise ModelRequiredError(f"similarity {key!r} needs a model: write '{key}:<model directory or hub name>' (on the "
                         f"command line: --model), or pass softirr_stats.equivalence.{cls_name}(model=...)")
    return cls(**kwargs)


def check_similarity_matrix(m: Any, k: int, name: str, *, warn_asymmetric: bool = False) -> np.ndarray:
    """A K x K matrix in [0, 1] with a unit diagonal, symmetrised; ValueError naming the problem.

    Parameters
    ----------
    m : array-like, shape (k, k)
    k : int
        Number of labels.
    name : str
        The argument's name in messages (``"similarity"``, ``"weights"``).
    warn_asymmetric : bool, default False
        Give a :class:`~softirr_stats.SoftIRRWarning` (a ``UserWarning``) naming
        ``max |S - S.T|`` when the matrix is not symmetric (beyond 1e-12): the coefficients
        that take ``similarity=`` need a symmetric one, so it is replaced by ``(S + S.T) / 2``.

    Returns
    -------
    ndarray of float64, shape (k, k)
        ``(m + m.T) / 2``.

    Examples
    --------
    >>> check_similarity_matrix([[1, 0.2], [0.4, 1]], 2, "similarity").tolist()
    [[1.0, 0.30000000000000004], [0.30000000000000004, 1.0]]
    """
    arr = np.asarray(m, dtype=np.float64)
    if arr.shape != (k, k):
        raise ValueError(f"{name} must be a {k} x {k} array (len(ann.vocabulary)); got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} has non-finite entries")
    if (arr < 0).any() or (arr > 1).any():
        raise ValueError(f"{name} entries must lie in [0, 1]; got range [{arr.min()}, {arr.max()}]")
    if not np.allclose(np.diag(arr), 1.0, atol=1e-12):
        raise ValueError(f"{name} must have a unit diagonal (a label always matches itself)")
    if warn_asymmetric:
        diff = np.abs(arr - arr.T)
        worst = float(diff.max()) if diff.size else 0.0
        if worst > 1e-12:
            i, j = np.unravel_index(int(np.argmax(diff)), diff.shape)
            warnings.warn(
                f"{name} matrix is not symmetric: max |S - S.T| = {worst:.6g} (S[{i}, {j}] = {arr[i, j]:.6g}, "
                f"S[{j}, {i}] = {arr[j, i]:.6g}); these coefficients need a symmetric similarity, so it is "
                f"symmetrised as (S + S.T) / 2. Pass a symmetric matrix to silence this",
                SoftIRRWarning, stacklevel=3)
    return 0.5 * (arr + arr.T)


def is_matrix_like(obj: Any) -> bool:
    """A K x K array or nested sequence (rather than a name, an estimator or a callable).

    Parameters
    ----------
    obj : Any
        A value given as ``similarity=``.

    Examples
    --------
    >>> is_matrix_like([[1, 0], [0, 1]]), is_matrix_like("levenshtein")
    (True, False)
    """
    return isinstance(obj, np.ndarray) or (
        isinstance(obj, list | tuple) and len(obj) > 0 and isinstance(obj[0], list | tuple | np.ndarray))


def _is_exact(obj: Any) -> bool:
    from softirr_stats.equivalence._string import Exact

    return isinstance(obj, Exact)


def resolve_label_similarity(vocabulary: Any, similarity: Any = None) -> LabelSimilarity:
    """The similarity object for ``similarity=`` over ``vocabulary`` (the one resolver).

    Parameters
    ----------
    vocabulary : sequence of labels
        The labels the codes index (``ann.vocabulary``).
    similarity : None, str, estimator, callable, K x K array or a resolved similarity
        None or :class:`~softirr_stats.equivalence.Exact`: exact matching; a measure name from
        :data:`MEASURES`; an equivalence estimator or any callable ``(a_seq, b_seq) ->
        scores`` (directional ones are symmetrised); a K x K array in [0, 1] with a unit
        diagonal; or an object returned by this function, returned as it is when it is over the
        same vocabulary, so that its memo is shared (a scored one over another vocabulary gets a
        new memo for the same estimator).

    Returns
    -------
    LabelSimilarity
        An ExactMatchSimilarity, MatrixSimilarity or ScoredSimilarity.

    Examples
    --------
    >>> sim = resolve_label_similarity(("abc", "abd"), "levenshtein")
    >>> type(sim).__name__, resolve_label_similarity(("abc", "abd"), sim) is sim
    ('ScoredSimilarity', True)
    >>> type(resolve_label_similarity(("a", "b"))).__name__
    'ExactMatchSimilarity'
    """
    vocabulary = tuple(vocabulary)
    k = len(vocabulary)
    if similarity is None or _is_exact(similarity):
        return ExactMatchSimilarity(k)
    if isinstance(similarity, LabelSimilarity):
        if similarity._same_vocabulary(vocabulary):
            return similarity
        if isinstance(similarity, ScoredSimilarity):
            return ScoredSimilarity(similarity.estimator, vocabulary)
        if isinstance(similarity, ExactMatchSimilarity):
            return ExactMatchSimilarity(k)
        raise ValueError(f"similarity is a {similarity.n} x {similarity.n} matrix similarity; these labels "
                         f"need {k} x {k}")
    if is_matrix_like(similarity):
        return MatrixSimilarity(check_similarity_matrix(similarity, k, "similarity", warn_asymmetric=True),
                                name="similarity-matrix")
    if isinstance(similarity, str):
        est = estimator_from_name(similarity)
        return ExactMatchSimilarity(k) if _is_exact(est) else ScoredSimilarity(est, vocabulary)
    if callable(similarity):
        return ScoredSimilarity(similarity, vocabulary)
    raise TypeError(
        "similarity must be None, an equivalence estimator, a callable (a_seq, b_seq) -> scores, "
        f"a measure name, or a K x K array; got {type(similarity).__name__}"
    )
