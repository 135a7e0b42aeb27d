"""Set-valued labels: soft matching of element pairs (DESIGN.md section 4).

``SetMatch(base)`` scores two sets of free-text terms by matching their elements with a
base estimator: all element pairs of all requested set pairs are scored in one
de-duplicated batch (:func:`~softirr_stats.equivalence.score_pairs` on ``base``), then each
set pair's element-similarity matrix is matched one-to-one, optimally (Hungarian,
``scipy.optimize.linear_sum_assignment``) or greedily, and the matched sum ``m`` is
normalised.
"""

from __future__ import annotations

from collections.abc import Hashable
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

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        from softirr_stats.equivalence._engine import score_pairs

        ea = [self._elements(x, f"a[{i}]") for i, x in enumerate(a)]
        eb = [self._elements(x, f"b[{i}]") for i, x in enumerate(b)]
        na = np.fromiter(map(len, ea), dtype=np.int64, count=len(ea))
        nb = np.fromiter(map(len, eb), dtype=np.int64, count=len(eb))
        sizes = na * nb
        # all element pairs of all set pairs, flattened row-major per set pair
        pair_of = np.repeat(np.arange(len(ea)), sizes)
        start = np.concatenate([[0], np.cumsum(sizes)])
        local = np.arange(int(start[-1])) - start[pair_of]
        r, c = local // nb[pair_of], local % nb[pair_of]
        flat_a = np.empty(int(start[-1]), dtype=object)
        flat_b = np.empty(int(start[-1]), dtype=object)
        off_a = np.concatenate([[0], np.cumsum(na)])
        off_b = np.concatenate([[0], np.cumsum(nb)])
        all_a = np.fromiter((e for t in ea for e in t), dtype=object, count=int(off_a[-1]))
        all_b = np.fromiter((e for t in eb for e in t), dtype=object, count=int(off_b[-1]))
        flat_a[:] = all_a[off_a[pair_of] + r]
        flat_b[:] = all_b[off_b[pair_of] + c]
        scores = score_pairs(self.base, flat_a, flat_b) if flat_a.size else np.zeros(0)

        m = np.zeros(len(ea), dtype=np.float64)
        # one-element sides: the best match is the maximum (vectorised)
        one = (np.minimum(na, nb) == 1)
        if one.any() and scores.size:
            seg_max = np.maximum.reduceat(scores, start[:-1][sizes > 0]) if (sizes > 0).any() else np.zeros(0)
            full = np.zeros(len(ea))
            full[sizes > 0] = seg_max
            m[one] = full[one]
        solve = _hungarian_sum if self.assignment == "hungarian" else _greedy_sum
        for i in np.flatnonzero(np.minimum(na, nb) > 1).tolist():
            M = scores[start[i]:start[i + 1]].reshape(na[i], nb[i])
            m[i] = solve(M)
        tot = (na + nb).astype(np.float64)
        den = tot if self.normalize == "dice" else tot - m
        num = 2.0 * m if self.normalize == "dice" else m
        out = np.ones(len(ea), dtype=np.float64)  # both empty -> 1
        np.divide(num, den, out=out, where=den > 0)
        return np.clip(out, 0.0, 1.0)
