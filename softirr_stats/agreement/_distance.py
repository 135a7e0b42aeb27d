"""Distance-distribution agreement (Braylan, Alonso & Lease 2022): sigma and KS.

Observed distances ``D_o`` are the within-item pairs, expected distances ``D_e`` the
cross-item pairs, with ``d = 1 - s``. Both samples are held as (value, count) arrays: with
``expected_pairs="all"`` the counts of every cross-item rating pair come from the label
totals (``t t^T - sum_i n_i n_i^T`` over label pairs), so no rating pair is enumerated and
the ECDFs are exact.

- ``KS = max_x [F_o(x) - F_e(x)]`` = ``scipy.stats.ks_2samp(D_o, D_e, alternative="greater")``.
- ``sigma`` = share of observed pairs whose distance is "significantly small" under chance:
  ``p(d) < threshold`` with ``p(d) = int_lo^d kde_e`` (``gaussian_kde`` with Scott's
  bandwidth; ``lo = 0`` as in the reference code, or ``-inf``), or without a KDE
  ``d < quantile(D_e, threshold)`` (linear interpolation, strict inequality).
- the reference code's flat "alpha" ``1 - mean(D_o) / mean(D_e)`` (not Krippendorff's).
"""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from softirr_stats.agreement._layout import rating_layout
from softirr_stats.agreement._statistic import Statistic
from softirr_stats.base._batching import rows_per_chunk
from softirr_stats.data import Annotations
from softirr_stats.equivalence import LabelSimilarity

__all__ = [
    "DistanceSamples", "distance_samples", "ks_greater", "weighted_quantile", "sigma_quantile",
    "kde_bandwidth", "kde_cdf", "sigma_kde", "KDE_LOWER", "MAX_LABEL_PAIRS", "DistanceStatistic",
    "distance_statistic",
]

KDE_LOWER = ("zero", "-inf")
MAX_LABEL_PAIRS = 4_000_000  # label pairs "all" materialises before it falls back to sampling
FALLBACK_SAMPLE = 200_000


@dataclass(frozen=True)
class DistanceSamples:
    """Observed and expected distances as sorted values with (frequency) weights."""

    obs: np.ndarray
    obs_w: np.ndarray
    exp: np.ndarray
    exp_w: np.ndarray
    expected_label: str  # "all" or "sampled(n=..., seed=...)"
    notes: tuple[str, ...] = ()
    n_scored: int = 0  # label pairs newly scored (counts returned by the similarity)

    @property
    def n_obs(self) -> float:
        return float(self.obs_w.sum())

    @property
    def n_exp(self) -> float:
        return float(self.exp_w.sum())


def _compress(values: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = weights > 0
    u, inv = np.unique(values[keep], return_inverse=True)
    return u, np.bincount(inv, weights=weights[keep], minlength=len(u))


def _all_cross_pairs(ann: Annotations, sim: LabelSimilarity) -> tuple[np.ndarray, np.ndarray, int]:
    """Distances and counts of every unordered cross-item rating pair, by label pair."""
    d = rating_layout(ann)
    support, code = np.unique(d.rating_code, return_inverse=True)
    ks = len(support)
    t = np.bincount(code, minlength=ks).astype(np.float64)
    pos = np.searchsorted(support, d.pair_ca), np.searchsorted(support, d.pair_cb)
    same = np.zeros((ks, ks))
    np.add.at(same, pos, 1.0)  # within-item ordered pairs: both orders plus self pairs
    same = same + same.T + np.diag(t)
    ordered = np.outer(t, t) - same  # ordered cross-item pairs with labels (k, l)
    iu, ju = np.triu_indices(ks)
    counts = np.where(iu == ju, ordered[iu, ju] / 2.0, ordered[iu, ju])
    keep = counts > 0
    iu, ju, counts = iu[keep], ju[keep], counts[keep]
    s = sim.pairs(support[iu], support[ju])
    return 1.0 - s.values, counts, s.n_scored


def _sample_cross_indices(ann: Annotations, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rating indices (into the design's rating list) of ``n`` cross-item pairs, drawn
    uniformly with replacement (seeded)."""
    d = rating_layout(ann)
    m = len(d.rating_item)
    if (d.r_i > 0).sum() < 2:
        raise ValueError("expected distances need ratings on at least two items")
    rng = np.random.default_rng(seed)
    a = rng.integers(0, m, n)
    b = rng.integers(0, m, n)
    bad = d.rating_item[a] == d.rating_item[b]
    while bad.any():  # rejection: redraw only the same-item pairs (few rounds)
        k = int(bad.sum())
        a[bad] = rng.integers(0, m, k)
        b[bad] = rng.integers(0, m, k)
        bad = d.rating_item[a] == d.rating_item[b]
    return a, b


def _sampled_cross_pairs(ann: Annotations, sim: LabelSimilarity, n: int,
                         seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``n`` cross-item rating pairs drawn uniformly with replacement (seeded)."""
    d = rating_layout(ann)
    a, b = _sample_cross_indices(ann, n, seed)
    s = sim.pairs(d.rating_code[a], d.rating_code[b])
    return 1.0 - s.values, np.ones(n), s.n_scored


def distance_samples(ann: Annotations, sim: LabelSimilarity, expected_pairs: Any = "all", seed: int = 0,
                     max_label_pairs: int = MAX_LABEL_PAIRS) -> DistanceSamples:
    """Within-item (observed) and cross-item (expected) distances of ``ann`` under ``sim``."""
    d = rating_layout(ann)
    if d.n_pairs == 0:
        raise ValueError("no item has two or more ratings: there are no observed (within-item) distances")
    notes: list[str] = []
    within = sim.pairs(d.pair_ca, d.pair_cb)
    d_obs = 1.0 - within.values
    ks = len(np.unique(d.rating_code))
    if expected_pairs == "all":
        if ks * (ks + 1) // 2 <= max_label_pairs:
            de, we, n_cross = _all_cross_pairs(ann, sim)
            label = "all"
        else:
            n = FALLBACK_SAMPLE
            de, we, n_cross = _sampled_cross_pairs(ann, sim, n, seed)
            label = f"sampled(n={n}, seed={seed})"
            notes.append(f"expected_pairs='all' would need {ks * (ks + 1) // 2} label pairs (more than "
                         f"{max_label_pairs}); used {n} cross-item pairs sampled with seed={seed}")
    else:
        de, we, n_cross = _sampled_cross_pairs(ann, sim, int(expected_pairs), seed)
        label = f"sampled(n={int(expected_pairs)}, seed={seed})"
    if len(de) == 0 or we.sum() == 0:
        raise ValueError("there are no cross-item pairs (every rating is on one item)")
    for arr, what in ((d_obs, "observed"), (de, "expected")):
        if not np.isfinite(arr).all() or (arr < -1e-12).any() or (arr > 1 + 1e-12).any():
            raise ValueError(f"{what} distances must be finite and in [0, 1]; check the similarity")
    ov, ow = _compress(d_obs, np.ones(len(d_obs)))
    ev, ew = _compress(de, we)
    return DistanceSamples(ov, ow, ev, ew, label, tuple(notes), within.n_scored + n_cross)


# ---------------------------------------------------------------------------------------------
# statistics on weighted samples


def _cdf_at(values: np.ndarray, weights: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Right-continuous ECDF of sorted ``values`` with ``weights`` at points ``x``."""
    cum = np.concatenate([[0.0], np.cumsum(weights)])
    return cum[np.searchsorted(values, x, side="right")] / cum[-1]


def ks_greater(obs: np.ndarray, obs_w: np.ndarray, exp: np.ndarray, exp_w: np.ndarray) -> float:
    """``max_x [F_o(x) - F_e(x)]`` over the pooled points (exact, weighted ECDFs).

    Examples
    --------
    >>> ks_greater(np.array([0.1, 0.2]), np.ones(2), np.array([0.5, 0.6]), np.ones(2))
    1.0
    """
    z = np.union1d(obs, exp)
    return float(max(0.0, np.max(_cdf_at(obs, obs_w, z) - _cdf_at(exp, exp_w, z))))


def weighted_quantile(values: np.ndarray, counts: np.ndarray, q: float) -> float:
    """``np.quantile`` (linear method) of the sample in which ``values[k]`` occurs ``counts[k]`` times."""
    cum = np.cumsum(counts)
    n = cum[-1]
    h = (n - 1) * q
    lo = math.floor(h)
    frac = h - lo
    a = values[np.searchsorted(cum, lo, side="right")]
    b = values[np.searchsorted(cum, min(lo + 1, n - 1), side="right")]
    diff = b - a
    return float(b - diff * (1 - frac)) if frac >= 0.5 else float(a + diff * frac)  # numpy's _lerp


def sigma_quantile(s: DistanceSamples, threshold: float) -> tuple[float, float]:
    """``mean 1[d < t]`` over observed pairs, ``t = quantile(D_e, threshold)``; returns (sigma, t)."""
    t = weighted_quantile(s.exp, s.exp_w, threshold)
    return float(s.obs_w[s.obs < t].sum() / s.n_obs), t


def kde_bandwidth(values: np.ndarray, counts: np.ndarray) -> float:
    """Standard deviation of ``gaussian_kde``'s kernel (Scott's rule) on the expanded sample."""
    n = counts.sum()
    mean = np.sum(counts * values) / n
    var = np.sum(counts * (values - mean) ** 2) / (n - 1.0) if n > 1 else 0.0
    return float(math.sqrt(max(var, 0.0)) * n ** (-1.0 / 5.0))


def kde_cdf(x: np.ndarray, values: np.ndarray, counts: np.ndarray, h: float, lower: str = "zero",
            block: int = 2**22) -> np.ndarray:
    """``int_lo^x kde`` at points ``x``, as ``gaussian_kde.integrate_box_1d`` (blocked over x)."""
    from scipy.special import ndtr  # on first use: scipy.special costs ~50 ms to import

    x = np.asarray(x, dtype=np.float64)
    w = counts / counts.sum()
    base = ndtr((0.0 - values) / h) if lower == "zero" else np.zeros_like(values)
    out = np.empty(len(x))
    step = max(1, block // max(len(values), 1))
    for i in range(0, len(x), step):  # blocks of evaluation points bound memory
        xs = x[i:i + step]
        out[i:i + step] = (ndtr((xs[:, None] - values[None, :]) / h) - base[None, :]) @ w
    return out


def sigma_kde(s: DistanceSamples, threshold: float, lower: str = "zero", h: float | None = None,
              max_direct: int = 4_000_000) -> float:
    """Share of observed pairs with ``p(d) < threshold`` under the KDE of the expected distances.

    ``p`` is non-decreasing in d, so when evaluating it at every distinct observed distance
    would be large, a binary search over the sorted distinct distances finds the first one
    with ``p >= threshold`` (exact, ``O(log U_o)`` evaluations).
    """
    h = kde_bandwidth(s.exp, s.exp_w) if h is None else h
    u, w = s.obs, s.obs_w
    if len(u) * len(s.exp) <= max_direct:
        p = kde_cdf(u, s.exp, s.exp_w, h, lower)
        return float(w[p < threshold].sum() / s.n_obs)
    lo, hi = 0, len(u)  # first index with p >= threshold lies in [lo, hi]
    while lo < hi:  # binary search: O(log U_o) evaluations of p
        mid = (lo + hi) // 2
        if kde_cdf(u[mid:mid + 1], s.exp, s.exp_w, h, lower)[0] < threshold:
            lo = mid + 1
        else:
            hi = mid
    return float(w[:lo].sum() / s.n_obs)


# ---------------------------------------------------------------------------------------------
# the statistic protocol: KS and sigma for batches of item / rater (/ chance-pair) weights
#
# Item weights c_i and rater weights v_r act as multiplicities (a bootstrap replicate draws
# item i c_i times and rater r v_r times). A within-item pair (i, r, s) then occurs
# c_i v_r v_s times; a rating (i, r) c_i v_r times. With n_i = sum_r v_r e_{label(i, r)} and
# t = sum_i c_i n_i, the ordered cross-item pairs with labels (k, l) number
# ``t_k t_l - sum_i c_i n_ik n_il`` (every ordered pair of rating copies minus those inside one
# item copy); the second term is a sum over the within-item pairs (both orders) and the
# self pairs ``c_i v_r^2``. Nothing is enumerated per replicate; the distances live on two
# fixed grids (the distinct observed and expected distances) and only their weights change.


def _grid(values: np.ndarray) -> tuple[np.ndarray, Any]:
    """Sorted distinct values and the sparse one-hot map (len(values), n_distinct) onto them."""
    import scipy.sparse as sp  # on first use: scipy.sparse costs ~0.1 s to import

    grid, inv = np.unique(values, return_inverse=True)
    onehot = sp.csr_matrix((np.ones(len(values)), (np.arange(len(values)), inv)), shape=(len(values), len(grid)))
    return grid, onehot


def _times(dense: np.ndarray, onehot: Any) -> np.ndarray:
    """``dense @ onehot`` for a (B, n) array and a sparse (n, m) matrix, as a dense (B, m) array."""
    return np.asarray((onehot.T @ dense.T).T)


def _as_rows(w: Any, n: int, name: str) -> np.ndarray:
    if w is None:
        return np.ones((1, n))
    w = np.atleast_2d(np.asarray(w, dtype=np.float64))
    if w.shape[1] != n:
        raise ValueError(f"{name} must have {n} columns; got shape {w.shape}")
    return w


@dataclass(frozen=True, eq=False)
class DistanceStatistic(Statistic):
    """Braylan's KS and sigma prepared for batches of weights (the :class:`Statistic` protocol).

    Built by :func:`distance_statistic`; ``evaluate(C, V, W)`` returns ``value`` (KS or
    sigma, as ``method``), ``ks``, ``sigma``, ``pa`` = ``1 - mean(D_o)`` and ``pe`` =
    ``1 - mean(D_e)`` for every row of item weights ``C``, rater weights ``V`` and, when the
    expected pairs are a sample, weights ``W`` of the sampled pairs. Unit weights give the
    point estimate of :func:`softirr_stats.distance_agreement`.

    Parameters
    ----------
    items : tuple
        Item ids (the columns of ``C``).
    n_raters : int
        Number of raters (the columns of ``V``).
    method : {"ks", "sigma"}
        Which measure is ``value``.
    threshold, kde, kde_lower
        As in :func:`softirr_stats.distance_agreement`.
    pair_item, pair_ra, pair_rb : ndarray
        Item and raters of each within-item pair.
    obs_grid : ndarray
        Distinct observed distances, sorted.
    pair_obs : sparse matrix
        Within-item pair -> observed grid point.
    exp_grid : ndarray
        Distinct expected distances, sorted.
    exact : tuple or None
        ``(rating_item, rating_rater, rating_label, pair_labelpair, diag, iu, ju, labelpair_exp)``
        for all cross-item pairs, counted from label totals; None when sampled.
    sampled : tuple or None
        ``(item_a, rater_a, item_b, rater_b, sample_exp)`` of the sampled cross-item pairs.

    Examples
    --------
    >>> from softirr_stats.agreement import resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["c", "c"]])
    >>> stat = distance_statistic(ann, resolve_similarity(ann))
    >>> out = stat.evaluate(np.array([[1.0, 1, 1, 1], [2, 0, 1, 1]]))
    >>> out["value"].round(4).tolist()
    [0.5833, 0.8333]
    """

    items: tuple
    n_raters: int
    method: str
    threshold: float
    kde: bool
    kde_lower: str
    pair_item: np.ndarray
    pair_ra: np.ndarray
    pair_rb: np.ndarray
    obs_grid: np.ndarray
    pair_obs: Any
    exp_grid: np.ndarray
    exact: tuple | None = None
    sampled: tuple | None = None

    rater_designs = True
    supports_analytic = False

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_chance_pairs(self) -> int:
        return 0 if self.sampled is None else len(self.sampled[0])

    @property
    def extra_outputs(self) -> tuple[str, ...]:
        return ("sigma",) if self.method == "ks" else ("ks",)

    def _width(self) -> int:
        """float64 values of work per replicate (sizes the row blocks)."""
        width = 2 * len(self.pair_item) + 2 * len(self.obs_grid) + 4 * len(self.exp_grid)
        if self.exact is not None:
            width += 3 * len(self.exact[0]) + 4 * len(self.exact[5])
        if self.sampled is not None:
            width += 2 * len(self.sampled[0])
        return width

    def evaluate(self, C: Any = None, V: Any = None, W: Any = None) -> dict[str, np.ndarray]:
        """``value``, ``ks``, ``sigma``, ``pa``, ``pe`` for each row of the weights, shape (B,)."""
        c = _as_rows(C, self.n_items, "C")
        v = _as_rows(V, self.n_raters, "V")
        w = None if W is None or self.sampled is None else _as_rows(W, self.n_chance_pairs, "W")
        rows = max(len(c), len(v), 1 if w is None else len(w))
        c = np.broadcast_to(c, (rows, c.shape[1]))
        v = np.broadcast_to(v, (rows, v.shape[1]))
        w = None if w is None else np.broadcast_to(w, (rows, w.shape[1]))
        step = rows_per_chunk(self._width())
        parts = [self._block(c[b:b + step], v[b:b + step], None if w is None else w[b:b + step])
                 for b in range(0, rows, step)]  # blocks of rows bound memory
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}

    def _expected_weights(self, c: np.ndarray, v: np.ndarray, w: np.ndarray | None, pw: np.ndarray) -> np.ndarray:
        if self.sampled is not None:
            ia, ra, ib, rb, sample_exp = self.sampled
            sw = c[:, ia] * c[:, ib] * v[:, ra] * v[:, rb]
            return _times(sw if w is None else sw * w, sample_exp)
        r_item, r_rater, r_label, pair_lp, diag, iu, ju, lp_exp = self.exact  # type: ignore[misc]
        rw = c[:, r_item] * v[:, r_rater]
        t = _times(rw, r_label)  # (B, K) weighted label totals
        own = _times(rw * v[:, r_rater], r_label)  # self pairs c_i v_r^2
        within = _times(pw, pair_lp)  # (B, P) within-item pairs by label pair
        same = np.where(diag, 2.0 * within + own[:, iu], within)
        cross = t[:, iu] * t[:, ju] - same
        cross = np.maximum(np.where(diag, cross / 2.0, cross), 0.0)
        return _times(cross, lp_exp)

    def _block(self, c: np.ndarray, v: np.ndarray, w: np.ndarray | None) -> dict[str, np.ndarray]:
        pw = c[:, self.pair_item] * v[:, self.pair_ra] * v[:, self.pair_rb]
        ow = _times(pw, self.pair_obs)
        ew = self._expected_weights(c, v, w, pw)
        uo, ue = self.obs_grid, self.exp_grid
        n_o, n_e = ow.sum(axis=1), ew.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean_o = ow @ uo / n_o
            mean_e = ew @ ue / n_e
            z = np.union1d(uo, ue)
            cum_o = np.concatenate([np.zeros((len(ow), 1)), np.cumsum(ow, axis=1)], axis=1)
            cum_e = np.concatenate([np.zeros((len(ew), 1)), np.cumsum(ew, axis=1)], axis=1)
            f_o = cum_o[:, np.searchsorted(uo, z, side="right")] / n_o[:, None]
            f_e = cum_e[:, np.searchsorted(ue, z, side="right")] / n_e[:, None]
            ks = np.maximum(0.0, np.max(f_o - f_e, axis=1))
            t_q = _quantile_rows(ue, ew, self.threshold)
            sigma = (ow * (uo[None, :] < t_q[:, None])).sum(axis=1) / n_o
            if self.kde:
                h = _bandwidth_rows(ue, ew)
                ok = np.isfinite(h) & (h > 0)
                if ok.any():
                    first = _first_at_least(uo, ue, ew, np.where(ok, h, 1.0), self.threshold, self.kde_lower)
                    sigma_k = cum_o[np.arange(len(ow)), first] / n_o
                    sigma = np.where(ok, sigma_k, sigma)
        bad = (n_o <= 0) | (n_e <= 0)
        ks, sigma = np.where(bad, np.nan, ks), np.where(bad, np.nan, sigma)
        value = ks if self.method == "ks" else sigma
        return {"value": value, "ks": ks, "sigma": sigma, "pa": 1.0 - mean_o, "pe": 1.0 - mean_e}


def _quantile_rows(grid: np.ndarray, w: np.ndarray, q: float) -> np.ndarray:
    """:func:`weighted_quantile` of each row of weights ``w`` over the sorted ``grid``."""
    cum = np.cumsum(w, axis=1)
    n = cum[:, -1]
    h = (n - 1.0) * q
    lo = np.floor(h)
    frac = h - lo
    last = len(grid) - 1
    ia = np.minimum((cum <= lo[:, None]).sum(axis=1), last)
    ib = np.minimum((cum <= np.minimum(lo + 1.0, n - 1.0)[:, None]).sum(axis=1), last)
    a, b = grid[ia], grid[ib]
    diff = b - a
    return np.where(frac >= 0.5, b - diff * (1.0 - frac), a + diff * frac)  # numpy's _lerp


def _bandwidth_rows(grid: np.ndarray, w: np.ndarray) -> np.ndarray:
    """:func:`kde_bandwidth` of each row of weights ``w`` (nan when a row has one pair or none)."""
    n = w.sum(axis=1)
    mean = w @ grid / n
    var = (w * (grid[None, :] - mean[:, None]) ** 2).sum(axis=1) / (n - 1.0)
    return np.where(n > 1, np.sqrt(np.maximum(var, 0.0)) * n ** (-1.0 / 5.0), np.nan)


def _first_at_least(points: np.ndarray, grid: np.ndarray, w: np.ndarray, h: np.ndarray, threshold: float,
                    lower: str) -> np.ndarray:
    """For each row, the number of sorted ``points`` whose KDE probability ``p(d)`` is below
    ``threshold`` (``p`` is non-decreasing: a bisection over the points, all rows at once)."""
    from scipy.special import ndtr

    rows = len(w)
    wn = w / w.sum(axis=1, keepdims=True)
    base = ndtr(-grid[None, :] / h[:, None]) if lower == "zero" else np.zeros((1, len(grid)))
    lo = np.zeros(rows, dtype=np.int64)
    hi = np.full(rows, len(points), dtype=np.int64)
    while (lo < hi).any():  # bisection steps (log2 of the number of points), every row at once
        active = lo < hi
        mid = np.minimum((lo + hi) // 2, len(points) - 1)
        p = ((ndtr((points[mid][:, None] - grid[None, :]) / h[:, None]) - base) * wn).sum(axis=1)
        right = active & (p < threshold)
        lo = np.where(right, mid + 1, lo)
        hi = np.where(active & ~right, mid, hi)
    return lo


def distance_statistic(ann: Annotations, sim: LabelSimilarity, *, method: str = "ks", threshold: float = 0.05,
                       kde: bool = True, kde_lower: str = "zero", expected_pairs: Any = "all", seed: int = 0,
                       max_label_pairs: int = MAX_LABEL_PAIRS) -> DistanceStatistic:
    """Prepare Braylan's KS / sigma of ``ann`` under ``sim`` for batches of weights.

    The expected pairs follow :func:`distance_samples`: all cross-item pairs (counted from
    label totals; every label pair is kept, since a resample can pair labels the data never
    paired across items) or the same seeded sample (falling back to it when the label pairs
    exceed ``max_label_pairs``).

    Parameters
    ----------
    ann : Annotations
    sim : LabelSimilarity
        The resolved similarity (distance ``1 - s``; its pairs are already memoised by
        :func:`distance_samples`).
    method, threshold, kde, kde_lower, expected_pairs, seed
        As in :func:`softirr_stats.distance_agreement` (validated there).
    max_label_pairs : int
        Label pairs ``expected_pairs="all"`` may hold before it samples.

    Returns
    -------
    DistanceStatistic

    Examples
    --------
    >>> from softirr_stats.agreement import resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["c", "c"]])
    >>> stat = distance_statistic(ann, resolve_similarity(ann))
    >>> stat.evaluate()["value"].round(4).tolist(), stat.n_chance_pairs
    ([0.5833], 0)
    """
    import scipy.sparse as sp

    d = rating_layout(ann)
    if d.n_pairs == 0:
        raise ValueError("no item has two or more ratings: there are no observed (within-item) distances")
    obs_grid, pair_obs = _grid(1.0 - sim.pairs(d.pair_ca, d.pair_cb).values)
    support, label = np.unique(d.rating_code, return_inverse=True)
    ks = len(support)
    n_lp = ks * (ks + 1) // 2
    exact = sampled = None
    if expected_pairs == "all" and n_lp <= max_label_pairs:
        iu, ju = np.triu_indices(ks)
        exp_grid, lp_exp = _grid(1.0 - sim.pairs(support[iu], support[ju]).values)
        m = len(d.rating_item)
        r_label = sp.csr_matrix((np.ones(m), (np.arange(m), label)), shape=(m, ks))
        a = np.searchsorted(support, d.pair_ca)
        b = np.searchsorted(support, d.pair_cb)
        k, l_ = np.minimum(a, b), np.maximum(a, b)
        lp = k * ks - k * (k - 1) // 2 + (l_ - k)  # index of (k, l) in np.triu_indices(ks)
        pair_lp = sp.csr_matrix((np.ones(d.n_pairs), (np.arange(d.n_pairs), lp)), shape=(d.n_pairs, n_lp))
        exact = (d.rating_item, d.rating_rater, r_label, pair_lp, iu == ju, iu, ju, lp_exp)
    else:
        n = FALLBACK_SAMPLE if expected_pairs == "all" else int(expected_pairs)
        ia, ib = _sample_cross_indices(ann, n, seed)
        exp_grid, sample_exp = _grid(1.0 - sim.pairs(d.rating_code[ia], d.rating_code[ib]).values)
        sampled = (d.rating_item[ia], d.rating_rater[ia], d.rating_item[ib], d.rating_rater[ib], sample_exp)
    return DistanceStatistic(tuple(ann.items), ann.n_raters, method, float(threshold), kde, kde_lower,
                             d.pair_item, d.pair_ra, d.pair_rb, obs_grid, pair_obs, exp_grid, exact, sampled)
