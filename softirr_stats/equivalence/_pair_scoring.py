"""Scoring engine: score only the pairs a statistic needs, each once.

``score_pairs`` scores element-wise pairs with de-duplication (each distinct pair once;
``(a, b)`` and ``(b, a)`` once for symmetric estimators; identical labels score 1 with no
estimator call) and output validation. ``similarity_matrix`` builds a dense vocabulary
similarity, through the estimator's own vectorised ``matrix`` method when it has one
(rapidfuzz ``cdist``, sparse set products, one embedding matrix product), else through
de-duplicated pair scoring in blocks.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import asdict, dataclass
from typing import Any, Literal, overload

import numpy as np

from softirr_stats.equivalence._protocol import (
    Labels,
    as_estimator,
    as_label_array,
    check_pair_inputs,
    check_scores,
    short_repr,
)

__all__ = ["ScoreStats", "score_pairs", "similarity_matrix"]


@dataclass(frozen=True)
class ScoreStats:
    """Bookkeeping of one :func:`score_pairs` call.

    Attributes
    ----------
    n_requested : int
        Number of element-wise pairs asked for.
    n_identical : int
        Requested pairs with identical labels (scored 1, no estimator call).
    n_unique : int
        Distinct pairs among the requested ones (symmetric pairs merged for symmetric
        estimators), identical ones included.
    n_scored : int
        Distinct non-identical pairs passed to the estimator.

    Examples
    --------
    >>> from softirr_stats.equivalence import Jaccard
    >>> scores, stats = score_pairs(Jaccard(), ["a b", "a b", "c"], ["a", "a", "c"], return_stats=True)
    >>> scores.tolist(), stats
    ([0.5, 0.5, 1.0], ScoreStats(n_requested=3, n_identical=1, n_unique=2, n_scored=1))
    """

    n_requested: int
    n_identical: int
    n_unique: int
    n_scored: int

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


def _ids(labels: np.ndarray, table: dict[Hashable, int]) -> np.ndarray:
    return np.fromiter((table.setdefault(x, len(table)) for x in labels), dtype=np.int64,
                       count=labels.shape[0])


def _table_labels(table: dict[Hashable, int]) -> np.ndarray:
    return np.fromiter(table.keys(), dtype=object, count=len(table))


@overload
def score_pairs(estimator: Any, a: Labels, b: Labels, *,
                return_stats: Literal[False] = ...) -> np.ndarray: ...


@overload
def score_pairs(estimator: Any, a: Labels, b: Labels, *,
                return_stats: Literal[True]) -> tuple[np.ndarray, ScoreStats]: ...


def score_pairs(estimator: Any, a: Labels, b: Labels, *,
                return_stats: bool = False) -> np.ndarray | tuple[np.ndarray, ScoreStats]:
    """Score element-wise pairs ``(a_i, b_i)``, each distinct pair once.

    Parameters
    ----------
    estimator : Estimator or callable
        An equivalence estimator, or any callable ``(a_seq, b_seq) -> array`` (wrapped
        with :func:`as_estimator`, not symmetric).
    a, b : sequence of labels, same length
        Labels: str, numbers, or set-valued (frozenset / tuple of str). ``None`` and
        NaN are rejected with an error naming the position.
    return_stats : bool, default False
        Also return a :class:`ScoreStats`.

    Returns
    -------
    scores : ndarray of float64, shape (n,)
        ``P(a_i == b_i)`` in [0, 1]; identical labels score exactly 1.
    stats : ScoreStats
        Only when ``return_stats`` is True.

    Examples
    --------
    >>> from softirr_stats.equivalence import Levenshtein
    >>> s, st = score_pairs(Levenshtein(), ["abc", "abd", "abc", "x"], ["abd", "abc", "abc", "y"],
    ...                     return_stats=True)
    >>> s.round(4).tolist(), st.n_scored, st.n_identical
    ([0.6667, 0.6667, 1.0, 0.0], 2, 1)
    """
    est = as_estimator(estimator)
    aa, bb = check_pair_inputs(a, b)
    n = aa.shape[0]
    table: dict[Hashable, int] = {}
    ia, ib = _ids(aa, table), _ids(bb, table)
    K = max(len(table), 1)
    ident = ia == ib
    x, y = ia[~ident], ib[~ident]
    if est.symmetric:
        x, y = np.minimum(x, y), np.maximum(x, y)
    keys = x * K + y
    uniq, inv = np.unique(keys, return_inverse=True)
    out = np.ones(n, dtype=np.float64)
    if uniq.size:
        labs = _table_labels(table)
        ua, ub = labs[uniq // K], labs[uniq % K]
        scores = check_scores(est(ua, ub), ua, ub, est.name)
        out[~ident] = scores[inv.ravel()]
    if not return_stats:
        return out
    n_ident_unique = int(np.unique(ia[ident]).size)
    stats = ScoreStats(n_requested=n, n_identical=int(ident.sum()),
                       n_unique=int(uniq.size) + n_ident_unique, n_scored=int(uniq.size))
    return out, stats


def _check_matrix(S: Any, la: np.ndarray, lb: np.ndarray, name: str) -> np.ndarray:
    S = np.asarray(S, dtype=np.float64)
    if S.shape != (la.shape[0], lb.shape[0]):
        raise ValueError(f"estimator {name!r} matrix() returned shape {S.shape}; "
                         f"expected {(la.shape[0], lb.shape[0])}")
    bad = ~np.isfinite(S) | (S < -1e-6) | (S > 1.0 + 1e-6)
    if bad.any():
        i, j = (int(v[0]) for v in np.nonzero(bad))
        raise ValueError(f"estimator {name!r} returned {float(S[i, j])!r} for pair ({short_repr(la[i])}, "
                         f"{short_repr(lb[j])}); scores must be finite and in [0, 1]")
    return np.clip(S, 0.0, 1.0, out=S)


def similarity_matrix(estimator: Any, labels_a: Labels, labels_b: Labels | None = None,
                      *, block_size: int = 65_536, symmetrize: bool = False,
                      progress: bool | None = None) -> np.ndarray:
    """Dense similarity ``S[i, j] = P(labels_a[i] == labels_b[j])`` (K_a x K_b, float64).

    Parameters
    ----------
    estimator : Estimator or callable
        Scored through its vectorised ``matrix(labels_a, labels_b)`` method when it has
        one, else through de-duplicated pairs (see :func:`score_pairs`).
    labels_a : sequence of labels, length K_a
    labels_b : sequence of labels, length K_b, optional
        Default ``labels_a`` (square case: for a symmetric estimator only the upper
        triangle is scored; equal labels, including the diagonal, are exactly 1).
    block_size : int, default 65536
        Pairs per estimator call on the pair path (bounds memory; one progress step each).
    symmetrize : bool, default False
        For a non-symmetric estimator, return ``(s(a, b) + s(b, a)) / 2``.
    progress : bool or None
        Show a tqdm bar over blocks; None shows one only for more than one block, as every bar of the
        package decides (:func:`softirr_stats.base._bars.bars_wanted`: on a terminal, not with
        ``SOFTIRR_PROGRESS=0``).

    Returns
    -------
    ndarray of float64, shape (K_a, K_b)

    Examples
    --------
    >>> from softirr_stats.equivalence import Levenshtein
    >>> similarity_matrix(Levenshtein(), ["abc", "abd", "xyz"]).round(4)
    array([[1.    , 0.6667, 0.    ],
           [0.6667, 1.    , 0.    ],
           [0.    , 0.    , 1.    ]])
    """
    est = as_estimator(estimator)
    if not isinstance(block_size, (int, np.integer)) or block_size < 1:
        raise ValueError(f"block_size must be a positive integer; got {block_size!r}")
    square = labels_b is None
    la = as_label_array(labels_a, "labels_a")
    lb = la if square else as_label_array(labels_b, "labels_b")
    table: dict[Hashable, int] = {}
    ia = _ids(la, table)
    ib = ia if square else _ids(lb, table)
    Ka = la.shape[0]

    fast = getattr(est, "matrix", None)
    if callable(fast):
        S = _check_matrix(fast(la, lb), la, lb, est.name)
    else:
        S = _pair_path(est, table, ia, ib, square, block_size, progress)
    if square and len(table) == Ka:
        np.fill_diagonal(S, 1.0)
    else:
        S[ia[:, None] == ib[None, :]] = 1.0
    if symmetrize and not est.symmetric:
        if square:
            S = 0.5 * (S + S.T)
        else:
            S = 0.5 * (S + similarity_matrix(est, lb, la, block_size=block_size, progress=progress).T)
    return S


def _pair_path(est: Any, table: dict[Hashable, int], ia: np.ndarray, ib: np.ndarray, square: bool,
               block_size: int, progress: bool | None) -> np.ndarray:
    Ka, Kb = ia.shape[0], ib.shape[0]
    K = max(len(table), 1)
    if square and est.symmetric:
        rows, cols = np.triu_indices(Ka, k=1)
    else:
        rows = np.repeat(np.arange(Ka), Kb)
        cols = np.tile(np.arange(Kb), Ka)
    x, y = ia[rows], ib[cols]
    keep = x != y
    rows, cols, x, y = rows[keep], cols[keep], x[keep], y[keep]
    if est.symmetric:
        x, y = np.minimum(x, y), np.maximum(x, y)
    uniq, inv = np.unique(x * K + y, return_inverse=True)
    labs = _table_labels(table)
    ua, ub = uniq // K, uniq % K
    scores = np.empty(uniq.size, dtype=np.float64)
    starts = range(0, uniq.size, block_size)
    if len(starts) > 1 and progress is not False:
        from softirr_stats.base._bars import progress_bar

        starts = progress_bar(desc=f"scoring {est.name}", unit="block", show=progress, iterable=starts, leave=True)
    for s in starts:
        pa, pb = labs[ua[s:s + block_size]], labs[ub[s:s + block_size]]
        scores[s:s + block_size] = check_scores(est(pa, pb), pa, pb, est.name)
    S = np.ones((Ka, Kb), dtype=np.float64)
    S[rows, cols] = scores[inv.ravel()]
    if square and est.symmetric:
        S[cols, rows] = S[rows, cols]
    return S


def _unwrap(estimator: Any) -> Any:
    """The estimator under :class:`Cached` wrappers (caching never changes scores)."""
    from softirr_stats.equivalence._cache import Cached

    while isinstance(estimator, Cached):
        estimator = estimator.base
    return estimator


def is_identity(estimator: Any) -> bool:
    """True when ``estimator`` is exact match (possibly cached): soft == hard agreement.

    Parameters
    ----------
    estimator : estimator
        Any equivalence estimator, possibly wrapped in :class:`Cached`.

    Examples
    --------
    >>> from softirr_stats.equivalence import Exact, Levenshtein
    >>> is_identity(Exact()), is_identity(Levenshtein())
    (True, False)
    """
    from softirr_stats.equivalence._string import Exact

    return isinstance(_unwrap(estimator), Exact)


def low_rank_factor(estimator: Any, labels: Labels) -> np.ndarray | None:
    """Exact factor ``F`` (K, r) with ``similarity_matrix(estimator, labels) == F @ F.T``,
    or None when the estimator has no exact low-rank form.

    Only ``Embedding(rescale="affine")`` (possibly cached) has one: ``r = d + 1``. Chance
    agreement ``p1^T S p2`` is then ``(F^T p1) . (F^T p2)``.

    Parameters
    ----------
    estimator : estimator
        Any equivalence estimator, possibly wrapped in :class:`Cached`.
    labels : sequence
        The K labels (the rows of ``F``).

    Examples
    --------
    >>> from softirr_stats.equivalence import Levenshtein
    >>> low_rank_factor(Levenshtein(), ["a", "b"]) is None
    True
    """
    base = _unwrap(estimator)
    if getattr(base, "is_low_rank", False) and callable(getattr(base, "low_rank", None)):
        return np.asarray(base.low_rank(labels), dtype=np.float64)
    return None
