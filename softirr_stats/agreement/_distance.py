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
from scipy.special import ndtr

from softirr_stats.agreement._design import build_design
from softirr_stats.data import Annotations
from softirr_stats.equivalence import ExactMatchSimilarity

__all__ = [
    "DistanceSamples", "distance_samples", "ks_greater", "weighted_quantile", "sigma_quantile",
    "kde_bandwidth", "kde_cdf", "sigma_kde", "KDE_LOWER", "MAX_LABEL_PAIRS",
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


def _all_cross_pairs(ann: Annotations, sim: ExactMatchSimilarity) -> tuple[np.ndarray, np.ndarray, int]:
    """Distances and counts of every unordered cross-item rating pair, by label pair."""
    d = build_design(ann)
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


def _sampled_cross_pairs(ann: Annotations, sim: ExactMatchSimilarity, n: int,
                         seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """``n`` cross-item rating pairs drawn uniformly with replacement (seeded)."""
    d = build_design(ann)
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
    s = sim.pairs(d.rating_code[a], d.rating_code[b])
    return 1.0 - s.values, np.ones(n), s.n_scored


def distance_samples(ann: Annotations, sim: ExactMatchSimilarity, expected_pairs: Any = "all", seed: int = 0,
                     max_label_pairs: int = MAX_LABEL_PAIRS) -> DistanceSamples:
    """Within-item (observed) and cross-item (expected) distances of ``ann`` under ``sim``."""
    d = build_design(ann)
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
