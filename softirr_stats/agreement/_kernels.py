"""Pure JAX kernels: every coefficient as a function of item weights ``c`` and rater weights ``v``.

A point estimate uses ``c = 1, v = 1``; bootstrap designs are batches of weights through
``jax.vmap``. Each chance family (see :mod:`softirr_stats.agreement._families`) has two kernels:

1. a *stage-1* kernel (unbatched, vmapped by the engine): observed agreement and the label
   marginals the chance term needs, from the within-item pair list and the rating list
   (segment sums);
2. a *finish* kernel (batched): the chance term - quadratic forms ``p^T S q`` over the label
   support (``ctx.quad``, see ``_chance.py``) or sampled chance pairs - and the coefficient.
   Finish kernels are written against the array namespace of their input (``xp``): the same
   source runs in NumPy (small matrix-product evaluations, no JAX import) and under ``jax.jit``.

Shapes: ``P`` within-item pairs, ``M`` ratings, ``n`` items, ``R`` raters, ``Ks`` labels in the
support of the data (codes re-indexed to ``0..Ks-1``). Definitions: docs/formulas/coefficients.md.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from softirr_stats.base._jax import lazy_module, namespace

jax = lazy_module("jax")  # imported at first use: the finish kernels also run on NumPy arrays
jnp = lazy_module("jax.numpy")

__all__ = ["KernelData", "Dims", "FinishContext", "combine", "ordinal_delta"]


class KernelData(NamedTuple):
    pair_item: jax.Array  # (P,) int32
    pair_ra: jax.Array  # (P,) int32 rater of the first rating
    pair_rb: jax.Array  # (P,) int32
    pair_sa: jax.Array  # (P,) int32 support code of the first rating
    pair_sb: jax.Array  # (P,) int32
    pair_s: jax.Array  # (P,) float similarity of the pair
    pair_group: jax.Array  # (P,) int32 rater-pair id (Light's kappa)
    rating_item: jax.Array  # (M,) int32
    rating_rater: jax.Array  # (M,) int32
    rating_s: jax.Array  # (M,) int32 support code


class Dims(NamedTuple):
    """Static sizes of the (padded) kernel inputs."""

    n: int  # items
    nr: int  # raters
    ks: int  # labels in the support
    n_groups: int = 0  # rater pairs present (Light's kappa)


class FinishContext(NamedTuple):
    """What a finish kernel reads besides the stage-1 outputs and the weights."""

    quad: Any  # p, q -> p^T S q over the support (batched), or None with sampled chance
    chance_pairs: Any  # sampled chance pairs (engine.ChancePairs) or None
    q_categories: int  # declared number of categories (AC1, Brennan-Prediger)
    total_weight: float  # sum of S over the categories (T_w)
    ordered: bool = False  # S is an asymmetric weight matrix used as given (row = earlier rater)


def _safe_div(num: jax.Array, den: jax.Array) -> jax.Array:
    xp = namespace(num)
    return xp.where(den > 0, num / xp.where(den > 0, den, 1.0), xp.nan)


def combine(pa: jax.Array, pe: jax.Array) -> jax.Array:
    """Chance-corrected coefficient ``(pa - pe) / (1 - pe)``; nan when ``pe == 1``."""
    xp = namespace(pa)
    return xp.where(pe < 1.0, (pa - pe) / xp.where(pe < 1.0, 1.0 - pe, 1.0), xp.nan)


# ---------------------------------------------------------------------------------------------
# shared stage-1 pieces


def _item_pairs(kd: KernelData, v: jax.Array, n: int) -> tuple[jax.Array, jax.Array]:
    """Per item: weighted sum of pair similarities and of pair weights (self-pairs excluded)."""
    w = v[kd.pair_ra] * v[kd.pair_rb]
    num = jax.ops.segment_sum(w * kd.pair_s, kd.pair_item, num_segments=n)
    den = jax.ops.segment_sum(w, kd.pair_item, num_segments=n)
    return num, den


def _gwet_pa(kd: KernelData, c: jax.Array, v: jax.Array, n: int) -> jax.Array:
    num, den = _item_pairs(kd, v, n)
    ok = den > 0
    pa_i = jnp.where(ok, num / jnp.where(ok, den, 1.0), 0.0)
    return _safe_div(jnp.sum(c * pa_i), jnp.sum(c * ok))


def _rating_totals(kd: KernelData, v: jax.Array, n: int) -> tuple[jax.Array, jax.Array]:
    u = v[kd.rating_rater]
    r = jax.ops.segment_sum(u, kd.rating_item, num_segments=n)
    return u, r


def _pooled_pi(kd: KernelData, c: jax.Array, v: jax.Array, n: int, ks: int) -> jax.Array:
    u, r = _rating_totals(kd, v, n)
    r_m = r[kd.rating_item]
    contrib = jnp.where(r_m > 0, c[kd.rating_item] * u / jnp.where(r_m > 0, r_m, 1.0), 0.0)
    pi = jax.ops.segment_sum(contrib, kd.rating_s, num_segments=ks)
    return pi / jnp.sum(c * (r > 0))


def _rater_marginals(kd: KernelData, c: jax.Array, v: jax.Array, nr: int, ks: int) -> tuple[jax.Array, jax.Array]:
    counts = jax.ops.segment_sum(c[kd.rating_item], kd.rating_rater * ks + kd.rating_s,
                                 num_segments=nr * ks).reshape(nr, ks)
    tot = counts.sum(axis=1)
    q = counts / jnp.where(tot > 0, tot, 1.0)[:, None]
    rv = v * (tot > 0)
    return q, rv


def ordinal_delta(nk: jax.Array) -> jax.Array:
    """Krippendorff's ordinal delta^2 from coincidence marginals (codes in rank order).

    ``nk`` is (..., ks) (a batch of marginals gives a batch of ks x ks metrics), in NumPy or JAX.

    Examples
    --------
    >>> import numpy as np
    >>> ordinal_delta(np.array([2.0, 1.0, 1.0])).tolist()
    [[0.0, 2.25, 6.25], [2.25, 0.0, 1.0], [6.25, 1.0, 0.0]]
    """
    xp = namespace(nk)
    cum = xp.cumsum(nk, axis=-1)
    lo_c, hi_c = cum[..., :, None], cum[..., None, :]
    n_lo, n_hi = nk[..., :, None], nk[..., None, :]
    d = hi_c - lo_c + (n_lo - n_hi) / 2.0  # for k >= c: sum_{g=c}^{k} n_g - (n_c + n_k)/2
    return d**2  # symmetric in (c, k)


def _alpha_common(kd: KernelData, c: jax.Array, v: jax.Array, n: int, ks: int,
                  pair_d: jax.Array) -> dict[str, jax.Array]:
    """Krippendorff's D_o numerator, N and coincidence marginals n_k for pair distances ``pair_d``."""
    _, den = _item_pairs(kd, v, n)
    ok = den > 0
    u, r = _rating_totals(kd, v, n)
    nk = jax.ops.segment_sum(c[kd.rating_item] * u * ok[kd.rating_item], kd.rating_s, num_segments=ks)
    dnum = jax.ops.segment_sum(v[kd.pair_ra] * v[kd.pair_rb] * pair_d, kd.pair_item, num_segments=n)
    dbar = jnp.where(ok, dnum / jnp.where(ok, den, 1.0), 0.0)
    return {"do_num": jnp.sum(c * r * dbar), "N": jnp.sum(c * r * ok), "nk": nk}


# ---------------------------------------------------------------------------------------------
# stage 1 per family (unbatched: c (n,), v (R,))


def stage1_observed(kd: KernelData, c: jax.Array, v: jax.Array, dims: Dims) -> dict[str, jax.Array]:
    """Percent agreement and Brennan-Prediger: observed agreement only."""
    return {"pa": _gwet_pa(kd, c, v, dims.n)}


def stage1_pooled(kd: KernelData, c: jax.Array, v: jax.Array, dims: Dims) -> dict[str, jax.Array]:
    """Scott / Fleiss / AC1: observed agreement and the pooled label distribution ``pi``."""
    return {"pa": _gwet_pa(kd, c, v, dims.n), "pi": _pooled_pi(kd, c, v, dims.n, dims.ks)}


def stage1_per_rater(kd: KernelData, c: jax.Array, v: jax.Array, dims: Dims) -> dict[str, jax.Array]:
    """Cohen / Conger: observed agreement and each rater's own label distribution."""
    q, rv = _rater_marginals(kd, c, v, dims.nr, dims.ks)
    return {"pa": _gwet_pa(kd, c, v, dims.n), "q": q, "rv": rv}


def stage1_alpha(kd: KernelData, c: jax.Array, v: jax.Array, dims: Dims) -> dict[str, jax.Array]:
    """Krippendorff's alpha with distance ``1 - s``."""
    return _alpha_common(kd, c, v, dims.n, dims.ks, 1.0 - kd.pair_s)


def stage1_alpha_ordinal(kd: KernelData, c: jax.Array, v: jax.Array, dims: Dims) -> dict[str, jax.Array]:
    """Ordinal alpha: the metric depends on the (weighted) coincidence marginals."""
    _, den = _item_pairs(kd, v, dims.n)
    ok = den > 0
    u, _ = _rating_totals(kd, v, dims.n)
    nk = jax.ops.segment_sum(c[kd.rating_item] * u * ok[kd.rating_item], kd.rating_s, num_segments=dims.ks)
    delta = ordinal_delta(nk)
    out = _alpha_common(kd, c, v, dims.n, dims.ks, delta[kd.pair_sa, kd.pair_sb])
    out["de_num"] = nk @ delta @ nk
    return out


def stage1_light(kd: KernelData, c: jax.Array, v: jax.Array, dims: Dims) -> dict[str, jax.Array]:
    """Light's kappa: observed agreement and both raters' marginals per rater pair."""
    g, ks, n_groups = kd.pair_group, dims.ks, dims.n_groups
    cw = c[kd.pair_item] * v[kd.pair_ra] * v[kd.pair_rb]
    tot = jax.ops.segment_sum(cw, g, num_segments=n_groups)
    qa = jax.ops.segment_sum(cw, g * ks + kd.pair_sa, num_segments=n_groups * ks).reshape(n_groups, ks)
    qb = jax.ops.segment_sum(cw, g * ks + kd.pair_sb, num_segments=n_groups * ks).reshape(n_groups, ks)
    safe = jnp.where(tot > 0, tot, 1.0)[:, None]
    return {"po_g": _safe_div(jax.ops.segment_sum(cw * kd.pair_s, g, num_segments=n_groups), tot),
            "qa_g": qa / safe, "qb_g": qb / safe, "tot_g": tot}


# ---------------------------------------------------------------------------------------------
# finish per family (batched: leading axis B)


def chance_from_pairs(cp: Any, C: jax.Array, rv: jax.Array | None, W: jax.Array | None) -> jax.Array:
    """Weighted ratio estimate of chance agreement from sampled pairs, per replicate."""
    s = jnp.asarray(cp.s)
    w = C[:, cp.item_a] * C[:, cp.item_b]
    if W is not None:
        w = w * W
    if cp.n_groups == 1 or rv is None:
        return jnp.sum(w * s, axis=1) / jnp.sum(w, axis=1)
    g = jnp.asarray(cp.group)
    num = jax.vmap(lambda x: jax.ops.segment_sum(x, g, num_segments=cp.n_groups))(w * s)
    den = jax.vmap(lambda x: jax.ops.segment_sum(x, g, num_segments=cp.n_groups))(w)
    pe_g = num / jnp.where(den > 0, den, 1.0)
    gw = rv[:, cp.group_rv[:, 0]] * rv[:, cp.group_rv[:, 1]] * (den > 0)
    return jnp.sum(gw * pe_g, axis=1) / jnp.sum(gw, axis=1)


def _coefficient(pa: jax.Array, pe: jax.Array) -> dict[str, jax.Array]:
    return {"pa": pa, "pe": pe, "value": combine(pa, pe)}


def finish_percent(s1: dict[str, jax.Array], C: jax.Array, W: Any, ctx: FinishContext) -> dict[str, jax.Array]:
    xp = namespace(s1["pa"])
    pa = s1["pa"]
    return {"pa": pa, "pe": xp.zeros_like(pa), "value": pa}


def finish_bp(s1: dict[str, jax.Array], C: jax.Array, W: Any, ctx: FinishContext) -> dict[str, jax.Array]:
    xp = namespace(s1["pa"])
    return _coefficient(s1["pa"], xp.full_like(s1["pa"], ctx.total_weight / ctx.q_categories**2))


def finish_ac1(s1: dict[str, jax.Array], C: jax.Array, W: Any, ctx: FinishContext) -> dict[str, jax.Array]:
    xp = namespace(s1["pa"])
    q, pi = ctx.q_categories, s1["pi"]
    if q > 1:
        pe = ctx.total_weight / (q * (q - 1)) * xp.sum(pi * (1.0 - pi), axis=-1)
    else:
        pe = xp.ones_like(s1["pa"])
    return _coefficient(s1["pa"], pe)


def finish_pooled(s1: dict[str, jax.Array], C: jax.Array, W: Any, ctx: FinishContext) -> dict[str, jax.Array]:
    if ctx.chance_pairs is not None:
        pe = chance_from_pairs(ctx.chance_pairs, C, None, W)
    else:
        pe = ctx.quad(s1["pi"], s1["pi"])
    return _coefficient(s1["pa"], pe)


def finish_per_rater(s1: dict[str, jax.Array], C: jax.Array, W: Any, ctx: FinishContext) -> dict[str, jax.Array]:
    xp = namespace(s1["pa"])
    rv = s1["rv"]
    if ctx.chance_pairs is not None:
        return _coefficient(s1["pa"], chance_from_pairs(ctx.chance_pairs, C, rv, W))
    q = s1["q"]  # (B, R, Ks)
    if ctx.ordered:  # weights as given: mean over rater pairs j < k of q_j^T S q_k (irrCAC's row = rater 1)
        wq = rv[..., None] * q
        before = xp.cumsum(wq, axis=1) - wq  # sum over the raters before each rater
        num = xp.sum(ctx.quad(before, wq), axis=1)
        den = (xp.sum(rv, axis=1) ** 2 - xp.sum(rv**2, axis=1)) / 2.0
        return _coefficient(s1["pa"], num / den)
    tot = xp.sum(rv[..., None] * q, axis=1)
    both = xp.concatenate([q, tot[:, None, :]], axis=1)  # one pass over S for all forms
    forms = ctx.quad(both, both)  # (B, R + 1)
    own, tot_form = forms[:, :-1], forms[:, -1]
    num = tot_form - xp.sum(rv**2 * own, axis=1)
    den = xp.sum(rv, axis=1) ** 2 - xp.sum(rv**2, axis=1)
    return _coefficient(s1["pa"], num / den)


def _alpha_value(d_o: jax.Array, d_e: jax.Array) -> dict[str, jax.Array]:
    xp = namespace(d_o)
    value = xp.where(d_e > 0, 1.0 - d_o / xp.where(d_e > 0, d_e, 1.0), xp.nan)
    return {"pa": 1.0 - d_o, "pe": 1.0 - d_e, "value": value}


def finish_alpha(s1: dict[str, jax.Array], C: jax.Array, W: Any, ctx: FinishContext) -> dict[str, jax.Array]:
    big_n = s1["N"]
    if ctx.chance_pairs is not None:
        d_e = 1.0 - chance_from_pairs(ctx.chance_pairs, C, None, W)
    else:
        d_e = (big_n**2 - ctx.quad(s1["nk"], s1["nk"])) / (big_n * (big_n - 1.0))
    return _alpha_value(s1["do_num"] / big_n, d_e)


def finish_alpha_ordinal(s1: dict[str, jax.Array], C: jax.Array, W: Any, ctx: FinishContext) -> dict[str, jax.Array]:
    """Ordinal alpha = 1 - D_o / D_e. Its metric is in squared rank counts (thousands on a few
    hundred ratings), so the observed and expected agreement are given as ``1 - D / delta_max``,
    with ``delta_max`` the largest distance of the metric between two ranks the ratings used:
    in [0, 1] like every other coefficient's, and alpha = (po - pe) / (1 - pe) still holds."""
    big_n = s1["N"]
    xp = namespace(big_n)
    used = s1["nk"] > 0  # categories no rating took (or padding) are no extreme rank
    top = xp.max(ordinal_delta(s1["nk"]) * (used[..., :, None] & used[..., None, :]), axis=(-2, -1))
    top = xp.where(top > 0, top, 1.0)
    return _alpha_value(s1["do_num"] / big_n / top, s1["de_num"] / (big_n * (big_n - 1.0)) / top)


def _pair_observed(conf: jax.Array, tot: jax.Array, quad: Any) -> jax.Array:
    """Each rater pair's observed agreement ``sum_ab C[a, b] S[a, b] / tot`` from its confusion
    matrix ``C`` (..., ks, ks) (rows: the earlier rater's label), S applied by the chance operator."""
    xp = namespace(conf)
    per_label = quad(xp.eye(conf.shape[-1], dtype=conf.dtype), conf)  # (..., ks): sum_b S[a, b] C[a, b]
    return _safe_div(xp.sum(per_label, axis=-1), tot)


def finish_light(s1: dict[str, jax.Array], C: jax.Array, W: Any, ctx: FinishContext) -> dict[str, jax.Array]:
    """Light's kappa from each rater pair's observed agreement and marginals: the pair list's stage 1
    gives ``po_g``, the matrix-product route the pairs' confusion matrices ``conf_g``."""
    xp = namespace(s1["tot_g"])
    po_g = s1["po_g"] if "po_g" in s1 else _pair_observed(s1["conf_g"], s1["tot_g"], ctx.quad)
    pe_g = ctx.quad(s1["qa_g"], s1["qb_g"])
    k_g = combine(po_g, pe_g)
    ok = s1["tot_g"] > 0
    n_ok = xp.sum(ok, axis=1)
    return {"pa": xp.sum(xp.where(ok, po_g, 0.0), axis=1) / n_ok,
            "pe": xp.sum(xp.where(ok, pe_g, 0.0), axis=1) / n_ok,
            "value": xp.sum(xp.where(ok, k_g, 0.0), axis=1) / n_ok, "kappa_g": k_g}
