"""Chance families: one record per way of computing observed and chance agreement.

A *chance family* is everything the engine needs to evaluate a coefficient for a batch of
item / rater weights: its stage-1 and finish kernels (``_kernels.py``), how its chance term
is computed (a quadratic form over the label support, a fixed term from the category count,
or none), how chance pairs are sampled for ``MonteCarlo`` / ``SampledPairs``, the per-item
features of the matrix-product fast path, and the linearised terms of its analytic variance.
Coefficients (``_registry.py``) name their family; no code compares family names.

Examples
--------
>>> FAMILIES["pooled"].chance, FAMILIES["per_rater"].sampler is not None
('support', True)
"""

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from softirr_stats.agreement._sampling import sample_per_rater, sample_pooled, sample_values
from softirr_stats.base._jax import namespace

__all__ = ["ChanceFamily", "FAMILIES", "get_family", "ItemBasics", "Indicator", "count_labels",
           "count_table", "pair_sums_from_counts", "coincidence_block", "rater_pair_groups", "pair_confusion_block"]


@dataclass(frozen=True)
class ItemBasics:
    """Per-item sums every matrix-product feature builder starts from (numpy, unit rater weights).

    The per-item pair sums, the rating list (``rating_item``, ``rating_rater``, ``rating_s``,
    int64) and the label counts are made on first use: ``pair_sums()`` returns the sums of
    within-item pair similarities and the numbers of pairs, ``ratings()`` the list,
    ``counts(max_dense)`` the table (as :meth:`label_counts` describes); most families read
    only some of them. ``rater_pairs()`` gives the rater pairs that share an item (as
    :func:`rater_pair_groups`; None: from the rating list) and ``similarity_known`` whether the
    similarity over the support is known without scoring a pair (identity, a given matrix, or a
    dense chance operator).
    """

    n: int
    ks: int
    nr: int
    pair_sums: Callable[[], tuple[np.ndarray, np.ndarray]]  # (n,) pair-similarity sums, (n,) pair counts
    r: np.ndarray  # (n,) ratings per item
    ratings: Callable[[], tuple[np.ndarray, np.ndarray, np.ndarray]]  # (item, rater, support code) of each rating
    counts: "Callable[[int], np.ndarray | Indicator] | None" = None  # None: one bincount over the rating list
    max_dense: int = 40_000_000  # entries a dense feature block may have (float64: 320 MB)
    rater_pairs: "Callable[[], tuple[np.ndarray, int]] | None" = None  # None: from the rating list
    similarity_known: bool = True

    @cached_property
    def _pair_sums(self) -> tuple[np.ndarray, np.ndarray]:
        return self.pair_sums()

    @property
    def pair_sum(self) -> np.ndarray:
        """(n,) sum of within-item pair similarities."""
        return self._pair_sums[0]

    @property
    def pair_count(self) -> np.ndarray:
        """(n,) number of within-item pairs."""
        return self._pair_sums[1]

    @cached_property
    def _rating_list(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        return self.ratings()

    @property
    def rating_item(self) -> np.ndarray:
        return self._rating_list[0]

    @property
    def rating_rater(self) -> np.ndarray:
        return self._rating_list[1]

    @property
    def rating_s(self) -> np.ndarray:
        return self._rating_list[2]

    def label_counts(self) -> "np.ndarray | Indicator":
        """Per-item label counts ``N`` (n x ks): dense, or its non-zeros (an :class:`Indicator`
        with values) where the dense table would exceed ``max_dense`` entries."""
        if self.counts is not None:
            return self.counts(self.max_dense)
        return count_table(self.rating_item, self.rating_s, self.n, self.ks, self.max_dense)

    @property
    def ok(self) -> np.ndarray:
        return self.pair_count > 0

    @property
    def pa_i(self) -> np.ndarray:
        return np.where(self.ok, self.pair_sum / np.where(self.ok, self.pair_count, 1.0), 0.0)


def count_labels(rating_item: np.ndarray, rating_s: np.ndarray, n: int, ks: int) -> np.ndarray:
    """Per-item label counts ``N`` (n x ks, int64) from the rating list: ``N[i, k]`` ratings of item i with label k.

    Examples
    --------
    >>> count_labels(np.array([0, 0, 0, 1, 1]), np.array([0, 0, 1, 1, 1]), 2, 2).tolist()
    [[2, 1], [0, 2]]
    """
    key = np.asarray(rating_item, dtype=np.int64) * ks + np.asarray(rating_s, dtype=np.int64)
    return np.bincount(key, minlength=n * ks).reshape(n, ks)


#: Keys (items x labels) one ``bincount`` of the sparse count table covers (int64: 16 MiB, cache-sized).
_BLOCK_KEYS = 2**21


def count_table(rating_item: np.ndarray, rating_s: np.ndarray, n: int, ks: int,
                max_dense: int = 40_000_000) -> "np.ndarray | Indicator":
    """Per-item label counts ``N`` (n x ks): a dense int64 table up to ``max_dense`` entries,
    else its non-zeros as an :class:`Indicator` with values (sorted by item, then label), made
    by one ``bincount`` over the rating keys per cache-sized block of items (sparse when labels
    are many; in rating order, so sorted by item when the ratings are).

    Examples
    --------
    >>> item, lab = np.array([0, 0, 0, 1, 1]), np.array([0, 0, 1, 1, 1])
    >>> count_table(item, lab, 2, 2).tolist()
    [[2, 1], [0, 2]]
    >>> T = count_table(item, lab, 2, 2, max_dense=1)
    >>> T.rows.tolist(), T.cols.tolist(), T.values.tolist(), T.dense().tolist()
    ([0, 0, 1], [0, 1, 1], [2.0, 1.0, 2.0], [[2.0, 1.0], [0.0, 2.0]])
    >>> count_table(item, np.array([1, 0, 1, 1, 1]), 2, 2, max_dense=1).values.tolist()  # any order within an item
    [1.0, 2.0, 2.0]
    """
    if n * ks <= max_dense:
        return count_labels(rating_item, rating_s, n, ks)
    item = np.asarray(rating_item)
    key = item.astype(np.int64) * ks + np.asarray(rating_s, dtype=np.int64)
    if bool(np.all(item[1:] >= item[:-1])):  # ratings sorted by item (as the design lists them)
        # one bincount per block of items over a cache-sized key range (no n x ks table at all)
        per = max(1, _BLOCK_KEYS // ks)
        bounds = np.searchsorted(item, np.arange(0, n + per, per))
        first = np.empty(len(key), dtype=bool)
        counts = np.empty(len(key), dtype=np.int64)
        last = np.empty(per * ks, dtype=np.int64)
        for j, i0 in enumerate(range(0, n, per)):
            lo, hi = bounds[j], bounds[j + 1]
            k = key[lo:hi] - i0 * ks
            counts[lo:hi] = np.bincount(k, minlength=min(per, n - i0) * ks)[k]
            at = np.arange(hi - lo)
            last[k] = at  # the last rating of each (item, label) keeps it: one entry per cell
            first[lo:hi] = last[k] == at
        nz, vals = key[first], counts[first]
    else:
        nz, vals = np.unique(key, return_counts=True)
    rows = nz // ks
    return Indicator(rows=rows, cols=nz - rows * ks, n=n, width=ks, values=vals.astype(np.float64), unique=True)


def _sparse_pair_sums(N: "Indicator", S: "np.ndarray | None", block: int = 1 << 16) -> np.ndarray:
    """:func:`pair_sums_from_counts` for a sparse count table (blocks of items, dense within a block)."""
    v = N.values
    if S is None:  # exact in integers
        w = v - 1.0
        w *= v
        return np.bincount(N.rows, weights=w, minlength=N.n) / 2.0
    out = np.empty(N.n)
    bounds = np.searchsorted(N.rows, np.arange(0, N.n + block, block))
    diag = np.diag(S)
    for j, i0 in enumerate(range(0, N.n, block)):  # blocks of items bound the dense work array
        lo, hi = bounds[j], bounds[j + 1]
        m = min(block, N.n - i0)
        Nf = np.bincount((N.rows[lo:hi] - i0) * N.width + N.cols[lo:hi], weights=v[lo:hi],
                         minlength=m * N.width).reshape(m, N.width)
        out[i0:i0 + m] = (np.einsum("ik,ik->i", Nf @ S, Nf) - Nf @ diag) / 2.0
    return out


def pair_sums_from_counts(N: "np.ndarray | Indicator", S: "np.ndarray | None") -> np.ndarray:
    """Per item, the sum of ``S[a, b]`` over its unordered within-item pairs of ratings, from
    its label counts ``N_i`` (no pair list): ``(N_i^T S N_i - sum_k N_ik S_kk) / 2`` for a
    symmetric S over the support; S None is the identity, where this is ``sum_k N_ik (N_ik - 1) / 2``.

    Examples
    --------
    >>> N = np.array([[2, 1], [0, 2]])
    >>> pair_sums_from_counts(N, None).tolist()
    [1.0, 1.0]
    >>> pair_sums_from_counts(N, np.array([[1.0, 0.5], [0.5, 1.0]])).tolist()
    [2.0, 1.0]
    """
    if isinstance(N, Indicator):
        return _sparse_pair_sums(N, S)
    if S is None:  # exact in integers
        return (np.einsum("ik,ik->i", N, N) - N.sum(axis=1)) / 2.0
    Nf = N.astype(np.float64)
    return (np.einsum("ik,ik->i", Nf @ S, Nf) - Nf @ np.diag(S)) / 2.0


@dataclass(frozen=True)
class Indicator:
    """A sparse feature block, ``F[rows[j], cols[j]] += values[j]`` (``n x width``; values 1
    when None), kept as its non-zeros: one label per rating, e.g. per-rater label counts (items
    x raters x labels), or a sparse per-item label-count table.

    Examples
    --------
    >>> F = Indicator(rows=np.array([0, 0, 1]), cols=np.array([1, 2, 1]), n=2, width=3)
    >>> F.times(np.array([[1.0, 2.0]])).tolist(), F.dense().tolist()
    ([[0.0, 3.0, 1.0]], [[0.0, 1.0, 1.0], [0.0, 1.0, 0.0]])
    """

    rows: np.ndarray  # (M,) item of each non-zero
    cols: np.ndarray  # (M,) column of each non-zero
    n: int
    width: int
    values: np.ndarray | None = None  # (M,) float64 value of each non-zero; None: all 1
    unique: bool = False  # True: no (row, col) occurs twice (a scatter may assign instead of add)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.width)

    @property
    def nnz(self) -> int:
        return len(self.rows)

    def scaled(self, factor: np.ndarray) -> "Indicator":
        """The block with row ``i`` multiplied by ``factor[i]`` (same non-zeros)."""
        v = factor[self.rows]
        if self.values is not None:
            v = v.astype(np.result_type(v, self.values), copy=False)
            v *= self.values  # in place: one array of the non-zeros, not two
        return Indicator(rows=self.rows, cols=self.cols, n=self.n, width=self.width, values=v, unique=self.unique)

    def dense(self, out: np.ndarray | None = None) -> np.ndarray:
        """The block as a dense float64 array (n x width), written into ``out`` when given."""
        key = self.rows.astype(np.int64) * self.width + self.cols  # int64: rows may be int32
        full = np.bincount(key, weights=self.values, minlength=self.n * self.width).reshape(self.n, self.width)
        if out is None:
            return full.astype(np.float64, copy=False)
        out[...] = full
        return out

    def times(self, C: np.ndarray) -> np.ndarray:
        """``C @ F`` for item weights C (B x n): one ``bincount`` over B x M entries."""
        b = C.shape[0]
        if b == 1 and self.values is not None and bool(np.all(C == 1.0)):  # unit weights (a point estimate)
            w = self.values[None, :]
        else:
            w = C[:, self.rows]
            if self.values is not None:
                w *= self.values  # in place: one (B, M) array, not two
        if b == 1:
            return np.bincount(self.cols, weights=w[0], minlength=self.width)[None, :]
        key = (np.arange(b)[:, None] * self.width + self.cols[None, :]).ravel()
        return np.bincount(key, weights=w.ravel(), minlength=b * self.width).reshape(b, self.width)


Features = list[tuple[str, "np.ndarray | Indicator"]] | None  # None: the blocks would be too large


def _features_observed(b: ItemBasics) -> Features:
    return [("pa_num", b.pa_i), ("pa_den", b.ok.astype(np.float64))]


def _row_scaled(N: "np.ndarray | Indicator", factor: np.ndarray) -> "np.ndarray | Indicator":
    return N.scaled(factor) if isinstance(N, Indicator) else N * factor[:, None]


def _features_pooled(b: ItemBasics) -> Features:
    N = b.label_counts()
    if isinstance(N, Indicator):
        r = np.where(b.r > 0, b.r, 1.0)  # divided, as the dense block is (bit-for-bit the same entries)
        v = r[N.rows]
        np.divide(N.values, v, out=v)  # in place: one array of the non-zeros, not two
        pi: np.ndarray | Indicator = Indicator(rows=N.rows, cols=N.cols, n=N.n, width=N.width,
                                               values=v, unique=N.unique)
    else:
        pi = N / np.where(b.r > 0, b.r, 1.0)[:, None]
    return _features_observed(b) + [("pi_num", pi), ("pi_den", (b.r > 0).astype(np.float64))]


def _features_per_rater(b: ItemBasics) -> Features:
    counts = Indicator(rows=b.rating_item, cols=b.rating_rater * b.ks + b.rating_s, n=b.n, width=b.nr * b.ks,
                       unique=True)  # one rating per (item, rater)
    return _features_observed(b) + [("counts", counts)]


def _features_alpha(b: ItemBasics) -> Features:
    ok = b.ok
    safe = np.where(ok, b.pair_count, 1.0)
    d_sum = b.pair_count - b.pair_sum  # sum of pair distances 1 - s
    nk = _row_scaled(b.label_counts(), ok.astype(np.float64))
    return [("N", b.r * ok), ("do_num", np.where(ok, b.r * d_sum / safe, 0.0)), ("nk", nk)]


def _count_nonzeros(N: "np.ndarray | Indicator") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(item, label, count) of each non-zero of a count table, sorted by item, then label."""
    if isinstance(N, Indicator):
        return N.rows, N.cols, N.values
    rows, cols = np.nonzero(N)
    return rows, cols, N[rows, cols].astype(np.float64)


def coincidence_block(N: "np.ndarray | Indicator", weight: np.ndarray) -> Indicator:
    """Per item the upper triangle of ``2 w_i N_i N_i^T`` (``k < l``, width ``ks * ks``, column ``k ks + l``):
    summed with item weights, it is the off-diagonal half of Krippendorff's coincidence matrix when
    ``w_i = 1 / (r_i - 1)``. One non-zero per pair of distinct labels within an item (no pair list of ratings).

    Examples
    --------
    >>> F = coincidence_block(np.array([[2, 1, 0], [0, 1, 1]]), np.array([0.5, 1.0]))
    >>> F.dense().reshape(2, 3, 3)[0].tolist()
    [[0.0, 2.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    """
    from softirr_stats.agreement._layout import _within_item_pairs

    rows, cols, vals = _count_nonzeros(N)
    ks = N.shape[1]
    first, second = _within_item_pairs(rows, np.bincount(rows, minlength=N.shape[0]))
    item = rows[first]
    return Indicator(rows=item, cols=cols[first] * ks + cols[second], n=N.shape[0], width=ks * ks,
                     values=2.0 * weight[item] * vals[first] * vals[second], unique=True)


#: Largest ks x ks block of ordinal alpha's coincidences per replicate that needs no comparison with the pair list.
ORDINAL_SMALL_BLOCK = 4096


def _features_alpha_ordinal(b: ItemBasics) -> Features:
    """Ordinal alpha's features, or None (the pair list) where a replicate's ks x ks coincidence block
    would outgrow the within-item pairs themselves: many distinct values (scores with decimals: 760
    values on 1,000 items x 5 raters made 578k entries per replicate and 13.6 GB for B = 200, against
    10,000 pairs)."""
    if b.ks * b.ks > max(ORDINAL_SMALL_BLOCK, float(b.pair_count.sum())):
        return None
    ok = b.ok
    weight = np.where(ok, b.r / (2.0 * np.where(ok, b.pair_count, 1.0)), 0.0)  # r_i / (2 pairs_i) = 1 / (r_i - 1)
    N = b.label_counts()
    return [("N", b.r * ok), ("nk", _row_scaled(N, ok.astype(np.float64))), ("coinc", coincidence_block(N, weight))]


def rater_pair_groups(rating_item: np.ndarray, rating_rater: np.ndarray, n: int, nr: int) -> tuple[np.ndarray, int]:
    """The rater pairs that share an item, numbered as the pair list's ``pair_group`` (in the order
    of ``j nr + k`` for raters ``j < k``): an (nr * nr,) int64 array with each pair's number at
    ``j nr + k`` (-1 where the two share no item), and the number of pairs that share one. One
    sparse product of the items x raters table with itself (no within-item pair list).

    Examples
    --------
    >>> group_of, n_groups = rater_pair_groups(np.array([0, 0, 1, 1]), np.array([0, 2, 1, 2]), 2, 3)
    >>> group_of.reshape(3, 3).tolist(), n_groups
    ([[-1, -1, 0], [-1, -1, 1], [-1, -1, -1]], 2)
    """
    import scipy.sparse as sparse

    rated = sparse.csr_matrix((np.ones(len(rating_item), dtype=np.float32), (rating_item, rating_rater)),
                              shape=(n, nr))
    both = (rated.T @ rated).tocoo()  # items two raters share (> 0 however large, in float32)
    j, k = both.row.astype(np.int64), both.col.astype(np.int64)
    keep = (j < k) & (both.data > 0)
    present = np.zeros(nr * nr, dtype=bool)
    present[j[keep] * nr + k[keep]] = True
    group_of = np.where(present, np.cumsum(present) - 1, -1)
    return group_of, int(present.sum())


#: Within-item pairs per block while :func:`pair_confusion_block` lists them (int64 temporaries: ~100 MB).
_PAIR_BLOCK = 1 << 22


def pair_confusion_block(rating_item: np.ndarray, rating_rater: np.ndarray, rating_s: np.ndarray, r: np.ndarray,
                         nr: int, ks: int, group_of: np.ndarray, n_groups: int) -> Indicator:
    """Per item, one non-zero per within-item pair of ratings (raters ``j < k``, labels ``a``, ``b``)
    at column ``(g ks + a) ks + b``, ``g = group_of[j nr + k]`` (width ``n_groups ks^2``): summed
    with item weights, group g's ``ks x ks`` block is its rater pair's confusion matrix over the
    items both rated (rows: the label of the earlier rater). The ratings are sorted by item, then
    rater (as the rating list); the pairs are listed a block of items at a time and kept as their
    item and column only (int32 where they fit).

    Examples
    --------
    >>> group_of, g = rater_pair_groups(np.array([0, 0, 1, 1, 1]), np.array([0, 1, 0, 1, 2]), 2, 3)
    >>> F = pair_confusion_block(np.array([0, 0, 1, 1, 1]), np.array([0, 1, 0, 1, 2]), np.array([0, 1, 1, 1, 0]),
    ...                          np.array([2, 3]), 3, 2, group_of, g)
    >>> F.times(np.array([[1.0, 1.0]])).reshape(g, 2, 2).tolist()  # raters (0, 1), (0, 2), (1, 2)
    [[[0.0, 1.0], [0.0, 1.0]], [[0.0, 0.0], [1.0, 0.0]], [[0.0, 0.0], [1.0, 0.0]]]
    """
    from softirr_stats.agreement._layout import _within_item_pairs

    r = np.asarray(r, dtype=np.int64)
    n, width = len(r), n_groups * ks * ks
    per_item = r * (r - 1) // 2
    ends = np.cumsum(per_item)
    total = int(ends[-1]) if n else 0
    rows = np.empty(total, dtype=np.int32 if n < 2**31 else np.int64)
    cols = np.empty(total, dtype=np.int32 if width < 2**31 else np.int64)
    cut = np.unique(np.concatenate([[0], np.searchsorted(ends, np.arange(_PAIR_BLOCK, total, _PAIR_BLOCK),
                                                         side="right"), [n]]))
    at = np.concatenate([[0], np.cumsum(r)])  # first rating of each item
    for i0, i1 in zip(cut[:-1], cut[1:], strict=True):  # blocks of items bound the temporaries
        lo, hi = at[i0], at[i1]
        first, second = _within_item_pairs(np.asarray(rating_item[lo:hi], dtype=np.int64) - i0, r[i0:i1])
        first += lo
        second += lo
        p0, p1 = int(ends[i0 - 1]) if i0 else 0, int(ends[i1 - 1])  # the block's pairs
        rows[p0:p1] = rating_item[first]
        g = group_of[np.asarray(rating_rater[first], dtype=np.int64) * nr + rating_rater[second]]
        cols[p0:p1] = (g * ks + rating_s[first]) * ks + rating_s[second]
    return Indicator(rows=rows, cols=cols, n=n, width=width, unique=True)


#: Largest block of Light's confusion matrices (rater pairs x ks x ks) per replicate that needs no
#: comparison with the pair list.
LIGHT_SMALL_BLOCK = 4096


def _features_light(b: ItemBasics) -> Features:
    """Light's kappa: every rater pair's confusion matrix over the items both rated (one non-zero per
    within-item pair, :func:`pair_confusion_block`), or None (the pair list) where the similarity over
    the support is not known without scoring pairs, or where a replicate's rater pairs x ks x ks block
    would outgrow the within-item pairs themselves (many distinct labels)."""
    if not b.similarity_known:
        return None
    group_of, n_groups = b.rater_pairs() if b.rater_pairs is not None else rater_pair_groups(
        b.rating_item, b.rating_rater, b.n, b.nr)
    n_pairs = float(np.sum(b.r * (b.r - 1.0) / 2.0))
    if n_groups * b.ks * b.ks > max(LIGHT_SMALL_BLOCK, n_pairs):
        return None
    return [("conf", pair_confusion_block(b.rating_item, b.rating_rater, b.rating_s, b.r, b.nr, b.ks,
                                          group_of, n_groups))]


# Stage 1 from the matrix products G[name] = C @ F[name] (B rows), in the namespace of G: the
# same quantities the family's segment-sum stage-1 kernel computes with unit rater weights
# (tests/agreement/test_scale.py pins them equal on every family and route).


def _products_observed(G: dict[str, Any], nr: int, ks: int) -> dict[str, Any]:
    return {"pa": G["pa_num"][:, 0] / G["pa_den"][:, 0]}


def _products_pooled(G: dict[str, Any], nr: int, ks: int) -> dict[str, Any]:
    return {**_products_observed(G, nr, ks), "pi": G["pi_num"] / G["pi_den"]}


def _products_per_rater(G: dict[str, Any], nr: int, ks: int) -> dict[str, Any]:
    counts = G["counts"].reshape(G["counts"].shape[0], nr, ks)
    xp = namespace(counts)
    tot = counts.sum(axis=-1)
    return {**_products_observed(G, nr, ks), "q": counts / xp.where(tot > 0, tot, 1.0)[..., None],
            "rv": (tot > 0).astype(counts.dtype)}


def _products_alpha(G: dict[str, Any], nr: int, ks: int) -> dict[str, Any]:
    return {"N": G["N"][:, 0], "do_num": G["do_num"][:, 0], "nk": G["nk"]}


def _products_alpha_ordinal(G: dict[str, Any], nr: int, ks: int) -> dict[str, Any]:
    from softirr_stats.agreement._kernels import ordinal_delta

    xp = namespace(G["nk"])
    nk = G["nk"]
    delta = ordinal_delta(nk)  # (B, ks, ks): the replicate's metric from its own marginals
    coinc = G["coinc"].reshape(G["coinc"].shape[0], ks, ks)  # upper triangle; delta is symmetric
    return {"N": G["N"][:, 0], "do_num": xp.sum(delta * coinc, axis=(1, 2)),
            "de_num": xp.einsum("bk,bkl,bl->b", nk, delta, nk), "nk": nk}


def _products_light(G: dict[str, Any], nr: int, ks: int) -> dict[str, Any]:
    conf = G["conf"]
    conf = conf.reshape(conf.shape[0], -1, ks, ks)  # (B, rater pairs, ks, ks)
    xp = namespace(conf)
    tot = xp.sum(conf, axis=(2, 3))
    safe = xp.where(tot > 0, tot, 1.0)[..., None]
    # observed agreement sum_ab C[a, b] S[a, b] / tot needs S: finish_light reads it through the chance operator
    return {"conf_g": conf, "tot_g": tot, "qa_g": xp.sum(conf, axis=3) / safe, "qb_g": xp.sum(conf, axis=2) / safe}


def _resolve(fn: "str | Callable[..., Any]", module: str) -> Callable[..., Any]:
    return fn if callable(fn) else getattr(importlib.import_module(module), fn)


@dataclass(frozen=True, eq=False)  # hashed by identity: a static argument of the compiled kernels
class ChanceFamily:
    """How a coefficient's observed and chance agreement are computed.

    Attributes
    ----------
    name : str
    stage1, finish : str or callable
        The family's kernels, or their names in ``softirr_stats.agreement._kernels`` (resolved on
        first use, so that the registry can be read without importing JAX).
    chance : {"none", "support", "categories", "metric"}
        Chance term: none (percent agreement), a quadratic form ``p^T S q`` over the label
        support, fixed by the declared categories (``T_w`` and ``q``: AC1, Brennan-Prediger), or
        computed inside the kernels from a data-dependent metric (ordinal alpha).
    sampler : callable or None
        Draws chance pairs for ``MonteCarlo`` / ``SampledPairs``; None = exact chance only.
    features : callable or None
        Per-item features for the ``C @ F`` fast path of fixed-rater-weight batches: named
        blocks (dense arrays or :class:`Indicator`), or None where they would be too large.
    from_products : callable or None
        The stage-1 outputs from the products ``G[name] = C @ F[name]`` of those blocks,
        ``from_products(G, nr, ks)`` (any array namespace); set with ``features``.
    terms : str, callable or None
        The linearised per-item terms of the analytic variance (or its name in ``_linearised.py``).
    no_analytic : str
        Why there is no analytic variance (when ``terms`` is None).
    judged : str, JudgedWeights or None
        How the observed and chance terms weigh distinct label pairs, for the prediction-powered
        estimate (``judgments=``), or its name in ``softirr_stats/ppi/_ppi_terms.py`` (read there by
        ``judged_weights``); None: not supported.
    width : callable
        Floats per replicate the family's stage-1 outputs hold, ``width(ks, nr, n_groups)``.
    rater_order : bool
        Whether chance depends on which rater gave which label (each rater's own distribution), so
        an asymmetric ``weights=`` matrix can be used as given (Cohen, Conger).
    null_variance : str or None
        The published variance under H0 (coefficient = 0) the family has, for ``result.p_value``:
        ``"fleiss_cohen_everitt"`` (two raters, Fleiss, Cohen & Everitt 1969), ``"fleiss_nee_landis"``
        (equal ratings per item, Fleiss, Nee & Landis 1979), or None (irrCAC's convention).
    single_ratings : bool
        Whether an item with a single rating changes the coefficient: True where the chance term counts
        every rating (Scott / Fleiss, Cohen / Conger, AC1); False where only items with two ratings or more
        enter it (percent agreement, Brennan-Prediger, Krippendorff's alpha, Light's kappa). Such items are
        then no units of a bootstrap interval's few-items count and degrees of freedom
        (``Statistic.informative_items``).

    Examples
    --------
    >>> fam = FAMILIES["pooled"]
    >>> fam.name, fam.chance
    ('pooled', 'support')
    """

    name: str
    stage1: "str | Callable[..., dict[str, Any]]"
    finish: "str | Callable[..., dict[str, Any]]"
    chance: str
    width: Callable[[int, int, int], int]
    sampler: Callable[..., Any] | None = None
    features: Callable[[ItemBasics], Features] | None = None
    from_products: Callable[[dict[str, Any], int, int], dict[str, Any]] | None = None
    terms: "str | Callable[..., Any] | None" = None
    no_analytic: str = ""
    description: str = ""
    judged: "str | Any | None" = None  # judged-pair term weights (prediction-powered); name in ppi/_ppi_terms
    rater_order: bool = False
    null_variance: str | None = None
    single_ratings: bool = True

    def __post_init__(self) -> None:
        if (self.features is None) != (self.from_products is None):
            raise ValueError(f"ChanceFamily {self.name!r}: features and from_products come together (the "
                             "matrix-product blocks and the stage 1 read from their products)")

    def __repr__(self) -> str:
        return f"ChanceFamily({self.name!r})"

    def kernel(self, which: str) -> Callable[..., Any]:
        """The ``"stage1"`` or ``"finish"`` kernel (imports JAX on first use)."""
        return _resolve(getattr(self, which), "softirr_stats.agreement._kernels")

    @property
    def supports_analytic(self) -> bool:
        """Whether the family has linearised terms (an analytic variance)."""
        return self.terms is not None

    def terms_function(self) -> Callable[..., Any] | None:
        """The linearised-terms function, or None where no analytic variance exists."""
        return None if self.terms is None else _resolve(self.terms, "softirr_stats.agreement._linearised")


FAMILIES: dict[str, ChanceFamily] = {f.name: f for f in (
    ChanceFamily("percent", "stage1_observed", "finish_percent", "none", lambda ks, nr, g: 1,
                 features=_features_observed, from_products=_products_observed, terms="terms_percent",
                 single_ratings=False, description="mean within-item agreement, no chance correction"),
    ChanceFamily("pooled", "stage1_pooled", "finish_pooled", "support", lambda ks, nr, g: 2 + ks,
                 sampler=sample_pooled, features=_features_pooled, from_products=_products_pooled,
                 terms="terms_pooled", judged="POOLED",
                 null_variance="fleiss_nee_landis",
                 description="chance from the label distribution pooled over raters (Scott, Fleiss)"),
    ChanceFamily("per_rater", "stage1_per_rater", "finish_per_rater", "support",
                 lambda ks, nr, g: 2 + 4 * nr * ks, sampler=sample_per_rater, features=_features_per_rater,
                 from_products=_products_per_rater, terms="terms_per_rater", judged="PER_RATER",
                 rater_order=True, null_variance="fleiss_cohen_everitt",
                 description="chance from each rater's own label distribution (Cohen, Conger)"),
    ChanceFamily("ac1", "stage1_pooled", "finish_ac1", "categories", lambda ks, nr, g: 2 + ks,
                 features=_features_pooled, from_products=_products_pooled, terms="terms_ac1", judged="AC1",
                 description="Gwet's chance T_w / (q (q - 1)) sum_k pi_k (1 - pi_k)"),
    ChanceFamily("bp", "stage1_observed", "finish_bp", "categories", lambda ks, nr, g: 1,
                 features=_features_observed, from_products=_products_observed, terms="terms_bp", judged="BP",
                 single_ratings=False, description="uniform chance T_w / q^2 (Brennan-Prediger, PABAK)"),
    ChanceFamily("alpha", "stage1_alpha", "finish_alpha", "support", lambda ks, nr, g: 2 + ks,
                 sampler=sample_values, features=_features_alpha, from_products=_products_alpha,
                 terms="terms_alpha", judged="ALPHA", single_ratings=False,
                 description="Krippendorff's D_o / D_e over pairable values, distance 1 - s"),
    ChanceFamily("alpha_ordinal", "stage1_alpha_ordinal", "finish_alpha_ordinal", "metric",
                 lambda ks, nr, g: 3 + ks * (ks + 1),
                 features=_features_alpha_ordinal, from_products=_products_alpha_ordinal,
                 no_analytic="ordinal alpha's metric depends on the data, so no published linearised "
                             "variance applies",
                 single_ratings=False, description="Krippendorff's ordinal metric from the coincidence marginals"),
    ChanceFamily("light", "stage1_light", "finish_light", "support", lambda ks, nr, g: g * (2 * ks + 2),
                 features=_features_light, from_products=_products_light,
                 no_analytic="Light's kappa has no analytic (linearised) variance here",
                 single_ratings=False, description="mean of Cohen's kappa over rater pairs"),
)}


def get_family(family: "str | ChanceFamily") -> ChanceFamily:
    """The family record for a name (or the record itself).

    Parameters
    ----------
    family : str or ChanceFamily
        A name of ``FAMILIES`` or a record (returned as is).

    Returns
    -------
    ChanceFamily

    Examples
    --------
    >>> get_family("alpha").chance
    'support'
    >>> get_family("conger")
    Traceback (most recent call last):
    ...
    ValueError: family must be one of ['ac1', 'alpha', 'alpha_ordinal', 'bp', 'light', 'per_rater', 'percent', 'pooled'] or a ChanceFamily; got 'conger'
    """
    if isinstance(family, ChanceFamily):
        return family
    try:
        return FAMILIES[family]
    except (KeyError, TypeError):
        raise ValueError(f"family must be one of {sorted(FAMILIES)} or a ChanceFamily; got {family!r}") from None
