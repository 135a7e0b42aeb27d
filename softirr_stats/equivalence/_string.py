"""String and set equivalence estimators: exact match, edit-distance and set overlap.

Edit measures (``Levenshtein``, ``Indel``, ``Lcs``) use rapidfuzz's batched, multi-threaded
scorers (``process.cpdist`` element-wise, ``process.cdist`` for matrices). Set measures
(``Jaccard``, ``Masi``, ``Dice``) are vectorised through sparse 0/1 token-indicator matrices:
intersections are row-wise products (pairs) or one sparse matrix product (matrices).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from softirr_stats.base._long_calls import interruptible, say_before
from softirr_stats.equivalence._protocol import BaseEstimator, check_strings, short_repr

__all__ = ["Exact", "Levenshtein", "Indel", "Lcs", "Jaccard", "Masi", "Dice"]

#: Edit-distance cells (characters of a times characters of b) rapidfuzz's bit-parallel kernels
#: get through per second on one core, rounded down (measured 1.1e10-2.2e10 on random text;
#: near-identical texts are much faster): the estimate below is an upper bound of the time.
EDIT_CELLS_PER_SECOND = 1e10
#: An edit-distance call estimated to take longer than this is announced on stderr before it starts.
SAY_AFTER_SECONDS = 10.0
#: Labels longer than this are kept out of the dense ``cdist`` block (which would also compare
#: each with itself, O(length^2) for nothing): their pairs go through ``cpdist``, equal ones skipped.
LONG_LABEL = 2_000
#: Above this many estimated cells a call runs where Ctrl-C can stop it (:func:`interruptible`).
_INTERRUPTIBLE_CELLS = 2e8


def _ids(labels: np.ndarray, table: dict[Hashable, int]) -> np.ndarray:
    """Integer id of each label in a shared ``table`` (grown in place)."""
    return np.fromiter((table.setdefault(x, len(table)) for x in labels), dtype=np.int64,
                       count=labels.shape[0])


class Exact(BaseEstimator):
    """Exact match: ``P(a == b) = 1[a == b]``; works on any hashable label.

    ``isinstance(sim, Exact)`` identifies identity similarity (hard agreement).

    Examples
    --------
    >>> Exact()(["a", "b", 1], ["a", "c", 1.0]).tolist()
    [1.0, 0.0, 1.0]
    """

    name = "exact"
    symmetric = True

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return np.zeros(a.shape[0], dtype=np.float64)  # BaseEstimator already set equal pairs

    def matrix(self, labels_a: np.ndarray, labels_b: np.ndarray) -> np.ndarray:
        """Identity matrix ``1[a_i == b_j]`` (K_a x K_b)."""
        table: dict[Hashable, int] = {}
        ia, ib = _ids(labels_a, table), _ids(labels_b, table)
        return (ia[:, None] == ib[None, :]).astype(np.float64)


# --------------------------------------------------------------------------------------
# edit-distance similarities (seed paper eqs. 23-28)
# --------------------------------------------------------------------------------------
def _check_strings(arr: np.ndarray, argname: str, name: str) -> None:
    check_strings(arr, argname, name, f". Use SetMatch({type_name(name)}()) for set-valued labels "
                  "or Exact() for other labels")


def type_name(name: str) -> str:
    return {"levenshtein": "Levenshtein", "indel": "Indel", "lcs": "Lcs"}.get(name, name)


class _RapidfuzzEstimator(BaseEstimator):
    _scorer_name = ""
    symmetric = True
    #: what long labels cost (the long-labels CostWarning)
    long_label_cost: str | None = "edit distances cost O(length^2) per pair"

    def __init__(self, *, processor: Callable[[str], str] | None = None, workers: int = -1) -> None:
        self.processor = processor
        self.workers = int(workers)

    def _scorer(self) -> Callable[..., float]:  # pragma: no cover - overridden
        raise NotImplementedError

    def _settings(self) -> dict[str, Any]:
        return {"processor": self.processor}  # a callable is described in full by the fingerprint

    def _check_inputs(self, a: np.ndarray, b: np.ndarray) -> None:
        _check_strings(a, "a", self.name)
        _check_strings(b, "b", self.name)

    def _announce(self, cells: float, n_pairs: int, longest: int) -> None:
        """Say the estimate before a long call; return nothing (the work is not refused)."""
        seconds = cells / EDIT_CELLS_PER_SECOND
        if seconds > SAY_AFTER_SECONDS:
            say_before(f"{self.name}: scoring {n_pairs} label pair(s) with labels up to {longest} characters "
                       f"takes up to about {_human(seconds)} ({cells:.3g} edit-distance cells, O(length^2) per "
                       f"pair); Ctrl-C stops it. Shorten or summarise long labels to go faster")

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        from rapidfuzz import process

        la, lb = _lengths(a), _lengths(b)
        cells = float(np.dot(la, lb))
        self._announce(cells, len(a), int(max(la.max(initial=0), lb.max(initial=0))))
        call = interruptible if cells > _INTERRUPTIBLE_CELLS else _direct
        return call(process.cpdist, a.tolist(), b.tolist(), scorer=self._scorer(), processor=self.processor,
                    dtype=np.float64, workers=self.workers)

    def matrix(self, labels_a: np.ndarray, labels_b: np.ndarray) -> np.ndarray:
        """All-pairs similarity (K_a x K_b) through ``rapidfuzz.process.cdist``.

        Pairs with a label longer than :data:`LONG_LABEL` go through ``cpdist`` instead, and
        equal labels are 1 without being compared (``cdist`` would compare a long label with
        itself, O(length^2) for a known answer).
        """
        from rapidfuzz import process

        _check_strings(labels_a, "labels_a", self.name)
        _check_strings(labels_b, "labels_b", self.name)
        a, b = np.asarray(labels_a, dtype=object), np.asarray(labels_b, dtype=object)
        la, lb = _lengths(a), _lengths(b)
        long_a, long_b = la > LONG_LABEL, lb > LONG_LABEL
        if not (long_a.any() or long_b.any()):  # the usual case: one cdist, its matrix returned as it is
            cells = float(la.sum()) * float(lb.sum())
            self._announce(cells, len(a) * len(b), int(max(la.max(initial=0), lb.max(initial=0))))
            call = interruptible if cells > _INTERRUPTIBLE_CELLS else _direct
            return call(process.cdist, a.tolist(), b.tolist(), scorer=self._scorer(), processor=self.processor,
                        dtype=np.float64, workers=self.workers)
        out = np.empty((len(a), len(b)), dtype=np.float64)
        sa, sb = np.flatnonzero(~long_a), np.flatnonzero(~long_b)
        ii, jj = np.nonzero(long_a[:, None] | long_b[None, :])
        same = a[ii] == b[jj]
        out[ii[same], jj[same]] = 1.0
        ii, jj = ii[~same], jj[~same]
        cells = float(la[sa].sum()) * float(lb[sb].sum()) + float(np.dot(la[ii], lb[jj]))
        self._announce(cells, len(sa) * len(sb) + len(ii), int(max(la.max(initial=0), lb.max(initial=0))))
        call = interruptible if cells > _INTERRUPTIBLE_CELLS else _direct
        if sa.size and sb.size:
            out[np.ix_(sa, sb)] = call(process.cdist, a[sa].tolist(), b[sb].tolist(), scorer=self._scorer(),
                                       processor=self.processor, dtype=np.float64, workers=self.workers)
        if ii.size:
            out[ii, jj] = call(process.cpdist, a[ii].tolist(), b[jj].tolist(), scorer=self._scorer(),
                               processor=self.processor, dtype=np.float64, workers=self.workers)
        return out


def _direct(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return fn(*args, **kwargs)


def _lengths(labels: np.ndarray) -> np.ndarray:
    return np.fromiter((len(x) for x in labels), dtype=np.float64, count=len(labels))


def _human(seconds: float) -> str:
    for unit, size in (("days", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.2g} s"


class Levenshtein(_RapidfuzzEstimator):
    """Normalised Levenshtein similarity ``1 - lev(a, b) / max(|a|, |b|)``.

    Case-sensitive, no preprocessing unless ``processor`` is given (e.g.
    ``rapidfuzz.utils.default_process``). Two empty strings score 1.

    Parameters
    ----------
    processor : callable, optional
        Applied to each string before comparison (e.g. ``rapidfuzz.utils.default_process``
        for lower-casing and stripping punctuation). None compares the strings as given.
    workers : int, default -1
        Threads used by rapidfuzz for a batch (-1: all cores).

    Examples
    --------
    >>> Levenshtein()(["kitten"], ["sitting"]).round(6).tolist()
    [0.571429]
    """

    name = "levenshtein"

    def _scorer(self) -> Callable[..., float]:
        from rapidfuzz.distance import Levenshtein as _L

        return _L.normalized_similarity


class Indel(_RapidfuzzEstimator):
    """Normalised Indel similarity ``1 - indel(a, b) / (|a| + |b|)`` (insertions/deletions only).

    Parameters
    ----------
    processor : callable, optional
        Applied to each string before comparison (e.g. ``rapidfuzz.utils.default_process``
        for lower-casing and stripping punctuation). None compares the strings as given.
    workers : int, default -1
        Threads used by rapidfuzz for a batch (-1: all cores).

    Examples
    --------
    >>> Indel()(["kitten"], ["sitting"]).round(6).tolist()
    [0.615385]
    """

    name = "indel"

    def _scorer(self) -> Callable[..., float]:
        from rapidfuzz.distance import Indel as _I

        return _I.normalized_similarity


class Lcs(_RapidfuzzEstimator):
    """Normalised longest-common-subsequence similarity ``lcs(a, b) / max(|a|, |b|)``.

    Parameters
    ----------
    processor : callable, optional
        Applied to each string before comparison (e.g. ``rapidfuzz.utils.default_process``
        for lower-casing and stripping punctuation). None compares the strings as given.
    workers : int, default -1
        Threads used by rapidfuzz for a batch (-1: all cores).

    Examples
    --------
    >>> Lcs()(["kitten"], ["sitting"]).round(6).tolist()
    [0.571429]
    """

    name = "lcs"

    def _scorer(self) -> Callable[..., float]:
        from rapidfuzz.distance import LCSseq

        return LCSseq.normalized_similarity


# --------------------------------------------------------------------------------------
# set overlap (docs/formulas/coefficients.md, 'Set-valued labels')
# --------------------------------------------------------------------------------------
def whitespace_tokens(text: str) -> frozenset[str]:
    """Lower-cased whitespace tokens of ``text`` (the default string tokeniser)."""
    return frozenset(text.lower().split())


class _SetEstimator(BaseEstimator):
    symmetric = True
    #: what long labels cost (the long-labels CostWarning): nothing worth a warning, tokens are counted once
    long_label_cost: str | None = None

    def __init__(self, *, tokenizer: Callable[[str], Any] | None = None) -> None:
        self.tokenizer = tokenizer

    def _settings(self) -> dict[str, Any]:
        return {"tokenizer": "whitespace-lower" if self.tokenizer is None else self.tokenizer}

    def _as_set(self, x: Any, where: str) -> frozenset:
        if isinstance(x, str):
            return frozenset(self.tokenizer(x)) if self.tokenizer is not None else whitespace_tokens(x)
        if isinstance(x, (frozenset, tuple)):
            return frozenset(x)
        raise TypeError(
            f"{self.name} compares strings (token sets) or set-valued labels (frozenset/tuple); "
            f"{where} is {type(x).__name__} ({short_repr(x)})"
        )

    def _indicator(self, labels: list[Hashable], vocab: dict[Hashable, int],
                   argname: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        sets = [self._as_set(x, f"{argname}[{i}]") for i, x in enumerate(labels)]
        indptr = np.zeros(len(sets) + 1, dtype=np.int64)
        np.cumsum([len(s) for s in sets], out=indptr[1:])
        cols = np.fromiter((vocab.setdefault(t, len(vocab)) for s in sets for t in s), dtype=np.int64,
                           count=int(indptr[-1]))
        data = np.ones(cols.shape[0], dtype=np.float64)
        return indptr, cols, data

    def _matrices(self, la: np.ndarray, lb: np.ndarray):
        import scipy.sparse as sp  # on first use: importing scipy.sparse takes ~0.3 s

        vocab: dict[Hashable, int] = {}
        pa = self._indicator(la.tolist(), vocab, "a")
        pb = self._indicator(lb.tolist(), vocab, "b")
        V = max(len(vocab), 1)
        A = sp.csr_matrix((pa[2], pa[1], pa[0]), shape=(la.shape[0], V))
        B = sp.csr_matrix((pb[2], pb[1], pb[0]), shape=(lb.shape[0], V))
        return A, B

    def _counts_pairs(self, a: np.ndarray, b: np.ndarray):
        A, B = self._matrices(a, b)
        inter = np.asarray(A.multiply(B).sum(axis=1)).ravel()
        na = np.diff(A.indptr).astype(np.float64)
        nb = np.diff(B.indptr).astype(np.float64)
        return inter, na, nb

    def _counts_matrix(self, la: np.ndarray, lb: np.ndarray):
        A, B = self._matrices(la, lb)
        inter = (A @ B.T).toarray()
        na = np.diff(A.indptr).astype(np.float64)[:, None]
        nb = np.diff(B.indptr).astype(np.float64)[None, :]
        return inter, na, nb

    def _formula(self, inter, na, nb):  # pragma: no cover - overridden
        raise NotImplementedError

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self._formula(*self._counts_pairs(a, b))

    def matrix(self, labels_a: np.ndarray, labels_b: np.ndarray) -> np.ndarray:
        """All-pairs similarity with one sparse matrix product (K_a x K_b)."""
        inter, na, nb = self._counts_matrix(labels_a, labels_b)
        return np.broadcast_to(self._formula(inter, na, nb), inter.shape).astype(np.float64)


def _safe_div(num, den, empty_value: float = 1.0):
    num, den = np.broadcast_arrays(np.asarray(num, np.float64), np.asarray(den, np.float64))
    out = np.full(num.shape, empty_value)
    np.divide(num, den, out=out, where=den > 0)
    return out


class Jaccard(_SetEstimator):
    """Jaccard similarity ``|A & B| / |A | B|`` of sets.

    Strings are compared as sets of lower-cased whitespace tokens (or ``tokenizer(s)``);
    set-valued labels (frozenset or tuple of str) as the sets themselves. Two empty sets
    score 1.

    Parameters
    ----------
    tokenizer : callable, optional
        ``str -> iterable`` turning a string label into a set of tokens (default: lower-cased
        whitespace tokens). Set-valued labels are used as they are.

    Examples
    --------
    >>> Jaccard()([frozenset({"a", "b"}), "heart attack"], [frozenset({"b", "c"}), "Heart failure"]).tolist()
    [0.3333333333333333, 0.3333333333333333]
    """

    name = "jaccard"

    def _formula(self, inter, na, nb):
        return _safe_div(inter, na + nb - inter)


class Dice(_SetEstimator):
    """Dice (Sorensen) similarity ``2 |A & B| / (|A| + |B|)``; tokens as in :class:`Jaccard`.

    Parameters
    ----------
    tokenizer : callable, optional
        ``str -> iterable`` turning a string label into a set of tokens (default: lower-cased
        whitespace tokens). Set-valued labels are used as they are.

    Examples
    --------
    >>> Dice()([frozenset({"a", "b"})], [frozenset({"b", "c"})]).tolist()
    [0.5]
    """

    name = "dice"

    def _formula(self, inter, na, nb):
        return _safe_div(2.0 * inter, na + nb)


class Masi(_SetEstimator):
    """MASI similarity ``J * M`` (Passonneau 2006); tokens as in :class:`Jaccard`.

    ``M`` is 1 for equal sets, 2/3 when one is a subset of the other, 1/3 for other
    overlapping sets, 0 for disjoint ones (Passonneau 2006; the constants current NLTK uses,
    so ``1 - Masi() == nltk.metrics.masi_distance``). ``exact=False`` uses the rounded
    constants 0.67 / 0.33 that NLTK's ``masi_distance`` used for years, to reproduce values
    published with those releases.

    Parameters
    ----------
    exact : bool, default True
        Use the exact constants 2/3 and 1/3 instead of the rounded 0.67 and 0.33.
    tokenizer : callable, optional
        As in :class:`Jaccard`.

    Examples
    --------
    >>> round(float(Masi()([frozenset({1, 2})], [frozenset({1, 2, 3, 4})])[0]), 6)
    0.333333
    >>> Masi(exact=False)([frozenset({1, 2})], [frozenset({1, 2, 3, 4})]).tolist()
    [0.335]
    """

    name = "masi"

    def __init__(self, *, exact: bool = True, tokenizer: Callable[[str], Any] | None = None) -> None:
        super().__init__(tokenizer=tokenizer)
        self.exact = bool(exact)

    def _settings(self) -> dict[str, Any]:
        return {**super()._settings(), "exact": self.exact}

    def _as_set(self, x: Any, where: str) -> frozenset:
        if isinstance(x, frozenset):  # set labels may hold any hashable elements
            return x
        return super()._as_set(x, where)

    def _formula(self, inter, na, nb):
        sub, over = (2.0 / 3.0, 1.0 / 3.0) if self.exact else (0.67, 0.33)
        inter, na, nb = np.broadcast_arrays(inter, na, nb)
        m = np.where((na == nb) & (inter == na), 1.0,
                     np.where(inter == np.minimum(na, nb), sub, np.where(inter > 0, over, 0.0)))
        return _safe_div(inter, na + nb - inter) * m
