"""Multi-label agreement: Hamming agreement with pooled (Fleiss), AC1 and PABAK baselines.

Data are binary label vectors ``X[item, rater, label]``. Everything is a function of item
weights ``c`` (n_items,) and rater weights ``v`` (n_raters,): a point estimate uses ones,
bootstrap designs are batches of weights through ``jax.vmap`` (see ``evaluate_multilabel``).

Definitions (docs/multilabel.md derives them):

- per item i and label j, with the item's observed raters weighted by ``v``,
  ``a_ij = sum_{a != b} v_a v_b 1[x_aj == x_bj] / sum_{a != b} v_a v_b`` (within-item pairs);
- ``A_o,j = sum_i c_i a_ij / sum_i c_i`` over pairable items; ``A_o = mean_j A_o,j``;
- ``p_j`` = label-j prevalence pooled as Gwet does with missing ratings: the mean over items
  (with a rating) of the share of the item's ratings that select label j;
- chance per label: fleiss ``p_j^2 + (1 - p_j)^2``, ac1 ``2 p_j (1 - p_j)``, pabak ``1/2``;
  ``A_e = mean_j A_e,j``; the coefficient ``(A_o - A_e) / (1 - A_e)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from softirr_stats.agreement._statistic import Statistic
from softirr_stats.base._batching import rows_per_chunk
from softirr_stats.base._jax import jit, lazy_module, x64
from softirr_stats.data import Annotations

jax = lazy_module("jax")  # imported at the first batch: a point estimate runs on NumPy
jnp = lazy_module("jax.numpy")

__all__ = [
    "BASELINES", "MultilabelData", "multilabel_data", "evaluate_multilabel", "label_floor",
    "multilabel_summary", "minimum_agreement", "MultilabelStatistic",
]

BASELINES = ("fleiss", "ac1", "pabak")


class MultilabelData:
    """Binary label vectors of an annotation set, encoded once.

    Attributes
    ----------
    X : ndarray (n_items, n_raters, n_labels) of float64, 0 where a rating is missing
    mask : ndarray (n_items, n_raters) of bool, True where a rating is observed
    labels : tuple of str, the label universe (never-selected labels included)
    """

    def __init__(self, X: np.ndarray, mask: np.ndarray, labels: tuple, ann: Annotations) -> None:
        self.X = X
        self.mask = mask
        self.labels = labels
        self.ann = ann

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def nr(self) -> int:
        return int(self.X.shape[1])

    @property
    def n_labels(self) -> int:
        return int(self.X.shape[2])


def multilabel_data(ann: Annotations, labels: Any = None) -> MultilabelData:
    """Encode set-valued annotations as binary label vectors over the label universe."""
    if ann.kind != "set":
        from softirr_stats.data import set_cells_hint

        hint = f"; {set_cells_hint(ann.vocabulary)}" if ann.kind == "categorical" else ""
        raise TypeError(f"multi-label agreement needs set-valued labels (Annotations.from_multilabel or sets of "
                        f"str in the cells); these labels are {ann.kind}{hint}")
    if labels is not None:
        if isinstance(labels, str) or not hasattr(labels, "__iter__"):
            raise TypeError(f"labels must be a sequence of label names; got {labels!r}")
        labels = [str(x) for x in labels]
        if len(set(labels)) != len(labels):
            raise ValueError("labels must be distinct")
        if not labels:
            raise ValueError("labels must name at least one label")
    arr = ann.multilabel_array(labels)
    universe = tuple(labels or ann.label_universe or sorted(set().union(*ann.vocabulary)))
    if arr.shape[2] == 0:
        raise ValueError("the label universe is empty: no rating selects a label; pass labels= to declare it")
    mask = ann.codes >= 0
    X = np.where(mask[:, :, None], arr, 0.0)
    return MultilabelData(np.ascontiguousarray(X, dtype=np.float64), mask, universe, ann)


# ---------------------------------------------------------------------------------------------
# the pure kernel (unbatched) and its vmapped batch form


def _chance(p: Any, baseline: str, xp: Any) -> Any:
    if baseline == "fleiss":
        return p**2 + (1.0 - p) ** 2
    if baseline == "ac1":
        return 2.0 * p * (1.0 - p)
    return xp.full_like(p, 0.5)


def multilabel_kernel(X: Any, M: Any, c: Any, v: Any, *, baseline: str, xp: Any = jnp) -> dict[str, Any]:
    """Per-label observed/chance agreement and the coefficient for one (c, v) pair.

    ``X`` (n, R, L) binary with zeros at missing ratings, ``M`` (n, R) observed mask,
    ``c`` (n,) item weights, ``v`` (R,) rater weights. Pairs of copies of one rater (a rater
    drawn twice by a rater bootstrap) are excluded, as in the engine's kernels. ``xp`` is
    ``jax.numpy`` (vmapped batches) or ``numpy`` (the point estimate, no compilation).
    """
    u = M * v[None, :]
    r = xp.sum(u, axis=1)
    r2 = xp.sum(u * u, axis=1)
    w1 = xp.einsum("ir,irl->il", u, X)
    s1 = xp.einsum("ir,irl->il", u * u, X)
    w0 = r[:, None] - w1
    s0 = r2[:, None] - s1
    pair_w = r * r - r2
    ok = pair_w > 1e-12 * xp.maximum(r * r, 1.0)
    agree = (w1 * w1 - s1) + (w0 * w0 - s0)
    a = xp.where(ok[:, None], agree / xp.where(ok, pair_w, 1.0)[:, None], 0.0)
    has = r > 0
    share = xp.where(has[:, None], w1 / xp.where(has, r, 1.0)[:, None], 0.0)
    cok = c * ok
    ch = c * has
    den_o = xp.sum(cok)
    ao_j = xp.where(den_o > 0, (cok @ a) / xp.where(den_o > 0, den_o, 1.0), xp.nan)
    p = (ch @ share) / xp.sum(ch)
    ae_j = _chance(p, baseline, xp)
    ao = xp.mean(ao_j)
    ae = xp.mean(ae_j)
    value = xp.where(ae < 1.0, (ao - ae) / xp.where(ae < 1.0, 1.0 - ae, 1.0), xp.nan)
    return {"pa": ao, "pe": ae, "value": value, "ao_j": ao_j, "ae_j": ae_j, "p": p}


@partial(jit, static_argnames=("baseline", "batch_c", "batch_v"))
def _batch(X: jax.Array, M: jax.Array, C: jax.Array, V: jax.Array, *, baseline: str, batch_c: bool,
           batch_v: bool) -> dict[str, jax.Array]:
    fn = partial(multilabel_kernel, X, M, baseline=baseline)
    out = jax.vmap(fn, in_axes=(0 if batch_c else None, 0 if batch_v else None))(C, V)
    return {k: out[k] for k in ("pa", "pe", "value")}


def evaluate_multilabel(data: MultilabelData, baseline: str, C: Any = None, V: Any = None, *,
                        chunk_size: int | None = None) -> dict[str, np.ndarray]:
    """The coefficient for a batch of item weights ``C`` (B, n) and/or rater weights ``V`` (B, R).

    1-D (or None) weights are held fixed; returns float64 arrays ``value``, ``pa``, ``pe`` (B,).
    """
    with x64():
        X = jnp.asarray(data.X)
        M = jnp.asarray(data.mask, dtype=jnp.float64)
        C = jnp.ones(data.n) if C is None else jnp.asarray(C, dtype=jnp.float64)
        V = jnp.ones(data.nr) if V is None else jnp.asarray(V, dtype=jnp.float64)
        if C.ndim == 1 and V.ndim == 1:
            C = C[None, :]
        batch_c, batch_v = C.ndim == 2, V.ndim == 2
        if batch_c and batch_v and C.shape[0] != V.shape[0]:
            raise ValueError(f"C and V must have the same number of replicates; got {C.shape[0]} and {V.shape[0]}")
        b = C.shape[0] if batch_c else V.shape[0]
        per = (6 * data.n * data.n_labels + 2 * data.n * data.nr) if batch_v else (2 * data.n + 4 * data.n_labels)
        chunk = chunk_size or rows_per_chunk(per)
        outs = []
        for b0 in range(0, b, chunk):  # chunks of replicates bound memory
            Cb = C[b0:b0 + chunk] if batch_c else C
            Vb = V[b0:b0 + chunk] if batch_v else V
            res = _batch(X, M, Cb, Vb, baseline=baseline, batch_c=batch_c, batch_v=batch_v)
            outs.append({k: np.asarray(val) for k, val in res.items()})
        return {k: np.concatenate([o[k] for o in outs]) for k in outs[0]}


# ---------------------------------------------------------------------------------------------
# the conditional minimum feasible agreement


def label_floor(positives: np.ndarray, r_items: np.ndarray) -> np.ndarray:
    """Minimum mean per-item agreement of each label given its number of positive ratings.

    Parameters
    ----------
    positives : int array (L,)
        ``T_j``: how many ratings (on the pairable items) select label j.
    r_items : int array (n_p,)
        Number of ratings on each pairable item (>= 2).

    Returns
    -------
    ndarray (L,): ``min (1/n_p) sum_i g_i(k_i)`` over placements ``k_i`` (positives on item i,
    ``0 <= k_i <= r_i``, ``sum_i k_i = T_j``), with ``g_i(k) = (C(k,2) + C(r_i-k,2)) / C(r_i,2)``
    the item's pairwise agreement on the label. ``g_i`` is convex in k, so the minimum takes
    the ``T_j`` smallest marginal increments ``(2k + 1 - r_i) / C(r_i, 2)``, k = 0..r_i-1,
    over all items (for equal r_i: spread the positives as evenly as possible).

    Examples
    --------
    Three raters on four items, label chosen 5 times: (2,1,1,1) is the most even spread.

    >>> round(float(label_floor(np.array([5]), np.array([3, 3, 3, 3]))[0]), 12)
    0.333333333333
    """
    r = np.asarray(r_items, dtype=np.int64)
    t = np.asarray(positives, dtype=np.int64)
    if len(r) == 0:
        return np.full(len(t), np.nan)
    if (t < 0).any() or (t > r.sum()).any():
        raise ValueError(f"positives must lie in [0, {int(r.sum())}]; got {t.tolist()}")
    item = np.repeat(np.arange(len(r)), r)
    k = np.arange(len(item)) - np.repeat(np.cumsum(r) - r, r)
    rr = r[item]
    inc = (2.0 * k + 1.0 - rr) / (rr * (rr - 1) / 2.0)
    csum = np.concatenate([[0.0], np.cumsum(np.sort(inc))])
    return (len(r) + csum[t]) / len(r)


def minimum_agreement(data: MultilabelData) -> tuple[float, np.ndarray]:
    """Minimum feasible Hamming agreement ``A_o,min`` and its per-label parts.

    Each label's positives on the pairable items are held fixed and re-placed to minimise
    agreement; the labels are independent columns, so the minima add up.
    """
    r = data.mask.sum(axis=1)
    pairable = r >= 2
    t = np.rint(data.X[pairable].sum(axis=(0, 1))).astype(np.int64)
    per_label = label_floor(t, r[pairable])
    return float(np.mean(per_label)), per_label


# ---------------------------------------------------------------------------------------------
# the point estimate with its tables


def multilabel_summary(data: MultilabelData, baseline: str) -> dict[str, Any]:
    """Point estimate and every diagnostic (plain numpy arrays; the API layer builds tables)."""
    out = multilabel_kernel(data.X, data.mask.astype(np.float64), np.ones(data.n), np.ones(data.nr),
                            baseline=baseline, xp=np)
    out = {k: np.asarray(val, dtype=np.float64) for k, val in out.items()}
    X, mask = data.X, data.mask
    r = mask.sum(axis=1)
    pairable = r >= 2
    ones = X.sum(axis=1)  # (n, L) positives per item and label
    pairs = r * (r - 1) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        agree_il = (ones * (ones - 1) / 2.0 + (r[:, None] - ones) * (r[:, None] - ones - 1) / 2.0) / pairs[:, None]
    hamming = np.where(pairable, np.nanmean(np.where(pairable[:, None], agree_il, 0.0), axis=1), np.nan)
    n_dis = ((ones > 0) & (ones < r[:, None])).sum(axis=1)
    ao_j, ae_j = out["ao_j"], out["ae_j"]
    pa, pe, value = float(out["pa"]), float(out["pe"]), float(out["value"])
    slack = 1.0 - ae_j
    degenerate = slack <= 1e-15
    with np.errstate(invalid="ignore", divide="ignore"):
        kappa_j = np.where(degenerate, np.nan, (ao_j - ae_j) / np.where(degenerate, 1.0, slack))
    total_slack = slack[~degenerate].sum()
    weight = np.where(degenerate, 0.0, slack / total_slack) if total_slack > 0 else np.zeros_like(slack)
    ao_min, floor_j = minimum_agreement(data)
    floor = (ao_min - pe) / (1.0 - pe) if pe < 1.0 else math.nan
    n_ratings = int(mask.sum())
    raw_prevalence = float(X.sum() / (n_ratings * data.n_labels))
    with np.errstate(invalid="ignore", divide="ignore"):
        item_coef = (hamming - pe) / (1.0 - pe) if pe < 1.0 else np.full(data.n, np.nan)
    return {
        "value": value, "pa": pa, "pe": pe, "prevalence": out["p"], "ao_j": ao_j, "ae_j": ae_j,
        "kappa_j": kappa_j, "weight": weight, "degenerate_labels": np.flatnonzero(degenerate),
        "floor": floor, "ao_min": ao_min, "floor_j": floor_j, "raw_prevalence": raw_prevalence,
        "r_items": r, "hamming_items": hamming, "n_disagreeing": n_dis, "item_coefficient": item_coef,
        "n_pairable_items": int(pairable.sum()), "n_ratings": n_ratings,
        **_hamming_alpha(X, mask),
    }


def _hamming_alpha(X: np.ndarray, mask: np.ndarray) -> dict[str, float]:
    """Krippendorff's alpha with distance = normalised Hamming, and its Fleiss-form twin.

    ``alpha = kappa_w + (1 - kappa_w) / N`` exactly, where N counts pairable ratings and
    ``kappa_w`` is the pooled-baseline coefficient with items weighted by their number of
    ratings and prevalence pooled over pairable ratings (both as alpha weights them). With
    complete data ``kappa_w`` is the fleiss-baseline multi-label coefficient.
    """
    r = mask.sum(axis=1)
    pairable = r >= 2
    big_n = float(r[pairable].sum())
    ones = X[pairable].sum(axis=1)
    rp = r[pairable][:, None]
    pairs = rp * (rp - 1) / 2.0
    agree = (ones * (ones - 1) / 2.0 + (rp - ones) * (rp - ones - 1) / 2.0) / pairs
    a_i = agree.mean(axis=1)
    ao_w = float(np.sum(r[pairable] * a_i) / big_n)
    p = ones.sum(axis=0) / big_n
    de_w = float(np.mean(2.0 * p * (1.0 - p)))
    kappa_w = 1.0 - (1.0 - ao_w) / de_w if de_w > 0 else math.nan
    d_e = de_w * big_n / (big_n - 1.0) if big_n > 1 else math.nan
    alpha = 1.0 - (1.0 - ao_w) / d_e if d_e and d_e > 0 else math.nan
    return {"hamming_alpha": alpha, "kappa_rating_weighted": kappa_w, "n_pairable_ratings": int(big_n)}


@dataclass(frozen=True)
class MultilabelStatistic(Statistic):
    """Multi-label agreement with one baseline, prepared for the uncertainty layer (``Statistic``)."""

    data: MultilabelData
    baseline: str
    rater_designs = True
    supports_analytic = False
    n_chance_pairs = 0

    @property
    def items(self) -> tuple:
        return self.data.ann.items

    @property
    def n_items(self) -> int:
        return self.data.n

    @property
    def n_raters(self) -> int:
        return self.data.nr

    @property
    def rater_ids(self) -> tuple:
        return tuple(self.data.ann.raters)

    def evaluate(self, C: Any = None, V: Any = None, W: Any = None) -> dict[str, np.ndarray]:
        return evaluate_multilabel(self.data, self.baseline, C, V)
