"""Set-valued labels: soft matching of element pairs (docs/formulas/coefficients.md, 'Set-valued labels').

``SetMatch(base)`` scores two sets of free-text terms by matching their elements with a
base estimator: all element pairs of all requested set pairs are scored in one
de-duplicated batch (:func:`~softirr_stats.equivalence.score_pairs` on ``base``), then each
set pair's element-similarity matrix is matched one-to-one, optimally (Hungarian,
``scipy.optimize.linear_sum_assignment``) or greedily, and the matched sum ``m`` is
normalised.

Speed: each distinct set is split into elements once, and each distinct element pair is
sent to ``base`` once. Set pairs of equal shape ``(|a|, |b|)`` with a smaller side of at
most 6 elements are matched together: greedy by ``min(|a|, |b|)`` masked ``argmax`` steps
(identical sums to the one-by-one loop), Hungarian by enumerating all injections (at most
5040) and summing the optimum in row order, as ``linear_sum_assignment`` does. When
several assignments tie to within rounding, the sum can differ from scipy's in the last
bit. Larger sets are matched one by one with scipy.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable
from functools import lru_cache
from typing import Any, Literal

import numpy as np
from scipy.optimize import linear_sum_assignment

from softirr_stats.equivalence._protocol import BaseEstimator, as_estimator, short_repr

__all__ = ["SetMatch"]

_ASSIGNMENTS = ("greedy", "hungarian")
_NORMALIZE = ("dice", "jaccard")


def _greedy_sum(M: np.ndarray) -> float:
    """Greedy one-to-one matching: repeatedly take the largest remaining entry whose row
    and column are both unused (ties broken by position, row-major)."""
    order = np.argsort(-M, axis=None, kind="stable")
    rows, cols = np.unravel_index(order, M.shape)
    used_r = np.zeros(M.shape[0], dtype=bool)
    used_c = np.zeros(M.shape[1], dtype=bool)
    total, left = 0.0, min(M.shape)
    for r, c in zip(rows.tolist(), cols.tolist(), strict=False):
        if not used_r[r] and not used_c[c]:
            used_r[r] = used_c[c] = True
            total += float(M[r, c])
            left -= 1
            if left == 0:
                break
    return total


def _hungarian_sum(M: np.ndarray) -> float:
    r, c = linear_sum_assignment(M, maximize=True)
    return float(M[r, c].sum())


# Set pairs whose smaller side has at most this many elements are matched in batches of
# equal shape (brute force over all injections for the optimum); larger ones one by one.
_BATCH_MAX_SIDE = 6
_BATCH_MAX_INJECTIONS = 5040
_BATCH_MAX_CELLS = 4_000_000  # floats per chunk of the (pairs, injections, side) array


@lru_cache(maxsize=64)
def _injections(p: int, q: int) -> np.ndarray:
    """All ordered choices of p distinct columns out of q (p <= q), shape (q!/(q-p)!, p)."""
    return np.array(list(itertools.permutations(range(q), p)), dtype=np.int64).reshape(-1, p)


def _n_injections(p: int, q: int) -> int:
    lo, hi = min(p, q), max(p, q)
    out = 1
    for k in range(hi - lo + 1, hi + 1):
        out *= k
    return out


def _greedy_batch(Ms: np.ndarray) -> np.ndarray:
    """:func:`_greedy_sum` of each matrix of a (G, p, q) batch: min(p, q) masked argmax steps.

    ``argmax`` returns the first maximum in row-major order, the tie-break of the stable
    sort in :func:`_greedy_sum`; the sum is accumulated in the same order, so the results
    are identical.
    """
    G, p, q = Ms.shape
    work = Ms.reshape(G, p * q).copy()
    total = np.zeros(G, dtype=np.float64)
    rows = np.arange(G)
    for _ in range(min(p, q)):  # at most the set size (a handful of steps)
        k = np.argmax(work, axis=1)
        total += Ms.reshape(G, p * q)[rows, k]
        r, c = k // q, k % q
        w3 = work.reshape(G, p, q)
        w3[rows, r, :] = -np.inf
        w3[rows, :, c] = -np.inf
    return total


def _hungarian_batch(Ms: np.ndarray) -> np.ndarray:
    """Optimal matched sum of each matrix of a (G, p, q) batch by enumerating injections.

    The optimum's terms are summed in increasing row order, as ``M[r, c].sum()`` does with
    ``linear_sum_assignment``'s sorted rows.
    """
    G, p, q = Ms.shape
    transpose = p > q
    A = np.swapaxes(Ms, 1, 2) if transpose else Ms
    s, t = A.shape[1], A.shape[2]  # s <= t
    inj = _injections(s, t)  # (P, s)
    out = np.empty(G, dtype=np.float64)
    step = max(1, _BATCH_MAX_CELLS // max(1, inj.size))
    ar = np.arange(s)
    for lo in range(0, G, step):  # chunks bound memory
        blk = A[lo:lo + step]
        vals = blk[:, ar[None, :], inj]  # (g, P, s)
        best = np.argmax(vals.sum(axis=2), axis=1)
        pick = vals[np.arange(len(blk)), best]  # (g, s): the optimum's terms
        if transpose:  # terms are indexed by column of Ms: reorder by their row of Ms
            order = np.argsort(inj[best], axis=1, kind="stable")
            pick = np.take_along_axis(pick, order, axis=1)
        out[lo:lo + step] = _ordered_sum(pick)
    return out


def _ordered_sum(x: np.ndarray) -> np.ndarray:
    """Left-to-right sum along axis 1 (the order ``ndarray.sum`` uses for short rows)."""
    total = x[:, 0].copy()
    for j in range(1, x.shape[1]):  # at most the set size
        total += x[:, j]
    return total


class SetMatch(BaseEstimator):
    """Soft similarity of set-valued labels through one-to-one element matching.

    Parameters
    ----------
    base : Estimator or callable
        Element similarity (e.g. ``Levenshtein()``, ``Embedding()``, ``Exact()``).
    assignment : {"hungarian", "greedy"}, default "hungarian"
        ``"hungarian"``: the matching with the largest total similarity
        (``linear_sum_assignment``). ``"greedy"``: repeatedly match the most similar
        remaining element pair (as in the seed paper); never better than Hungarian.
    normalize : {"dice", "jaccard"}, default "dice"
        With ``m`` the matched sum: ``"dice"`` gives ``2 m / (|a| + |b|)`` (seed paper
        eq. 13); ``"jaccard"`` gives ``m / (|a| + |b| - m)``, which equals set Jaccard when
        ``base`` is exact match.

    Notes
    -----
    Labels are frozensets (or tuples) of element labels; a plain string counts as a
    one-element set. Two empty sets score 1; an empty and a non-empty set score 0.

    Examples
    --------
    >>> from softirr_stats.equivalence import Exact
    >>> a, b = frozenset({"x", "y", "z"}), frozenset({"y", "z", "w", "v"})
    >>> SetMatch(Exact(), normalize="jaccard")([a], [b]).tolist()   # |a&b| / |a|b| = 2/5
    [0.4]
    >>> SetMatch(Exact())([a], [b]).round(6).tolist()               # 2*2 / (3+4)
    [0.571429]
    """

    name = "setmatch"

    def __init__(self, base: Any, *, assignment: Literal["hungarian", "greedy"] = "hungarian",
                 normalize: Literal["dice", "jaccard"] = "dice") -> None:
        if assignment not in _ASSIGNMENTS:
            raise ValueError(f"assignment must be one of {list(_ASSIGNMENTS)}; got {assignment!r}")
        if normalize not in _NORMALIZE:
            raise ValueError(f"normalize must be one of {list(_NORMALIZE)}; got {normalize!r}")
        self.base = as_estimator(base)
        self.assignment = assignment
        self.normalize = normalize
        self.symmetric = bool(self.base.symmetric)
        self.name = f"setmatch({self.base.name})"

    @property
    def fingerprint(self) -> str:
        return f"SetMatch:{self.assignment}:{self.normalize}:[{self.base.fingerprint}]"

    def _settings(self) -> dict[str, Any]:
        return {"base": self.base, "assignment": self.assignment, "normalize": self.normalize}

    @staticmethod
    def _elements(x: Any, where: str) -> tuple[Hashable, ...]:
        if isinstance(x, frozenset):
            return tuple(sorted(x, key=repr))
        if isinstance(x, tuple):
            return tuple(dict.fromkeys(x))
        if isinstance(x, str):
            return (x,)
        raise TypeError(f"SetMatch compares set-valued labels (frozenset/tuple of str); {where} is "
                        f"{type(x).__name__} ({short_repr(x)})")

    def _encode(self, x: np.ndarray, side: str, elem_ids: dict[Hashable, int]
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Codes of the distinct sets of ``x``; their element ids (CSR) and sizes."""
        table: dict[Hashable, int] = {}
        codes = np.fromiter((table.setdefault(v, len(table)) for v in x), dtype=np.int64,
                            count=len(x))
        first = np.full(len(table), -1, dtype=np.int64)
        first[codes[::-1]] = np.arange(len(x))[::-1]  # first position of each distinct set
        elements = [self._elements(v, f"{side}[{i}]") for v, i in zip(table, first.tolist(),
                                                                       strict=True)]
        sizes = np.fromiter(map(len, elements), dtype=np.int64, count=len(elements))
        offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        ids = np.fromiter((elem_ids.setdefault(e, len(elem_ids)) for t in elements for e in t),
                          dtype=np.int64, count=int(offsets[-1]))
        return codes, offsets, ids, sizes

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        from softirr_stats.equivalence._pair_scoring import score_pairs

        # each distinct set is split into elements once; elements get integer ids
        elem_ids: dict[Hashable, int] = {}
        ca, off_ua, ids_ua, nu_a = self._encode(a, "a", elem_ids)
        cb, off_ub, ids_ub, nu_b = self._encode(b, "b", elem_ids)
        na, nb = nu_a[ca], nu_b[cb]
        sizes = na * nb
        # all element pairs of all set pairs, flattened row-major per set pair
        pair_of = np.repeat(np.arange(len(ca)), sizes)
        start = np.concatenate([[0], np.cumsum(sizes)])
        local = np.arange(int(start[-1])) - start[pair_of]
        r, c = local // nb[pair_of], local % nb[pair_of]
        fa = ids_ua[off_ua[ca[pair_of]] + r]
        fb = ids_ub[off_ub[cb[pair_of]] + c]
        if fa.size:  # score each distinct element pair once, in one batch
            n_el = len(elem_ids)
            keys, inv = np.unique(fa * n_el + fb, return_inverse=True)
            elems = np.empty(n_el, dtype=object)
            elems[:] = list(elem_ids)
            scores = score_pairs(self.base, elems[keys // n_el], elems[keys % n_el])[inv.ravel()]
        else:
            scores = np.zeros(0)
        ea = ca  # one entry per set pair

        m = np.zeros(len(ea), dtype=np.float64)
        # one-element sides: the best match is the maximum (vectorised)
        one = (np.minimum(na, nb) == 1)
        if one.any() and scores.size:
            seg_max = np.maximum.reduceat(scores, start[:-1][sizes > 0]) if (sizes > 0).any() else np.zeros(0)
            full = np.zeros(len(ea))
            full[sizes > 0] = seg_max
            m[one] = full[one]
        solve = _hungarian_sum if self.assignment == "hungarian" else _greedy_sum
        batch = _hungarian_batch if self.assignment == "hungarian" else _greedy_batch
        multi = np.flatnonzero(np.minimum(na, nb) > 1)
        if multi.size:
            key = na[multi] * (int(nb.max()) + 1) + nb[multi]
            for k in np.unique(key).tolist():  # one batch per (|a|, |b|) shape
                idx = multi[key == k]
                p, q = int(na[idx[0]]), int(nb[idx[0]])
                if min(p, q) > _BATCH_MAX_SIDE or _n_injections(p, q) > _BATCH_MAX_INJECTIONS:
                    for i in idx.tolist():  # large sets: one by one
                        m[i] = solve(scores[start[i]:start[i + 1]].reshape(p, q))
                    continue
                Ms = scores[start[idx][:, None] + np.arange(p * q)].reshape(len(idx), p, q)
                m[idx] = batch(Ms)
        tot = (na + nb).astype(np.float64)
        den = tot if self.normalize == "dice" else tot - m
        num = 2.0 * m if self.normalize == "dice" else m
        out = np.ones(len(ea), dtype=np.float64)  # both empty -> 1
        np.divide(num, den, out=out, where=den > 0)
        return np.clip(out, 0.0, 1.0)
