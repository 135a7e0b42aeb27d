"""Pure JAX kernels: every coefficient as a function of item weights ``c`` and rater weights ``v``.

A point estimate uses ``c = 1, v = 1``; bootstrap designs are batches of weights through
``jax.vmap``. The computation has three stages:

1. ``stage1`` (JAX, vmapped): observed agreement and the label marginals the chance term
   needs, from the within-item pair list and the rating list (segment sums).
2. ``quad`` forms ``p^T S q`` over the label support (dense einsum, or blocked over rows of S
   when the support is large and S is scored on demand) - see ``_chance.py``.
3. ``combine``: the coefficient from the observed term and the chance term.

Shapes: ``P`` within-item pairs, ``M`` ratings, ``n`` items, ``R`` raters, ``Ks`` labels in the
support of the data (codes re-indexed to ``0..Ks-1``).
"""

from typing import NamedTuple

import jax
import jax.numpy as jnp

__all__ = ["KernelData", "FAMILIES", "stage1", "combine"]

FAMILIES = ("percent", "pooled", "conger", "ac1", "bp", "alpha", "alpha_ordinal", "light")


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


def _safe_div(num: jax.Array, den: jax.Array) -> jax.Array:
    return jnp.where(den > 0, num / jnp.where(den > 0, den, 1.0), jnp.nan)


def _item_pairs(kd: KernelData, v: jax.Array, n: int) -> tuple[jax.Array, jax.Array]:
    """Per item: weighted sum of pair similarities and of pair weights (self-pairs excluded)."""
    w = v[kd.pair_ra] * v[kd.pair_rb]
    num = jax.ops.segment_sum(w * kd.pair_s, kd.pair_item, num_segments=n)
    den = jax.ops.segment_sum(w, kd.pair_item, num_segments=n)
    return num, den


def _gwet_pa(num: jax.Array, den: jax.Array, c: jax.Array) -> jax.Array:
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


def _ordinal_delta(nk: jax.Array) -> jax.Array:
    """Krippendorff's ordinal delta^2 from coincidence marginals (codes in rank order)."""
    cum = jnp.cumsum(nk)
    lo_c, hi_c = cum[:, None], cum[None, :]
    n_lo, n_hi = nk[:, None], nk[None, :]
    d = hi_c - lo_c + (n_lo - n_hi) / 2.0  # for k >= c: sum_{g=c}^{k} n_g - (n_c + n_k)/2
    return d**2  # symmetric in (c, k)


def stage1(kd: KernelData, c: jax.Array, v: jax.Array, *, family: str, n: int, nr: int, ks: int,
           n_groups: int = 0) -> dict[str, jax.Array]:
    """Observed agreement and chance-term inputs for one weight vector pair (unbatched)."""
    num, den = _item_pairs(kd, v, n)
    out: dict[str, jax.Array] = {}
    if family in ("percent", "pooled", "conger", "ac1", "bp"):
        out["pa"] = _gwet_pa(num, den, c)
    if family in ("pooled", "ac1"):
        out["pi"] = _pooled_pi(kd, c, v, n, ks)
    if family == "conger":
        out["q"], out["rv"] = _rater_marginals(kd, c, v, nr, ks)
    if family in ("alpha", "alpha_ordinal"):
        ok = den > 0
        u, r = _rating_totals(kd, v, n)
        big_n = jnp.sum(c * r * ok)
        nk = jax.ops.segment_sum(c[kd.rating_item] * u * ok[kd.rating_item], kd.rating_s, num_segments=ks)
        if family == "alpha":
            dnum = jax.ops.segment_sum(v[kd.pair_ra] * v[kd.pair_rb] * (1.0 - kd.pair_s), kd.pair_item,
                                       num_segments=n)
        else:
            delta = _ordinal_delta(nk)
            pd_ = delta[kd.pair_sa, kd.pair_sb]
            dnum = jax.ops.segment_sum(v[kd.pair_ra] * v[kd.pair_rb] * pd_, kd.pair_item, num_segments=n)
            out["de_num"] = nk @ delta @ nk
        dbar = jnp.where(ok, dnum / jnp.where(ok, den, 1.0), 0.0)
        out["do_num"] = jnp.sum(c * r * dbar)
        out["N"] = big_n
        out["nk"] = nk
    if family == "light":
        g = kd.pair_group
        cw = c[kd.pair_item] * v[kd.pair_ra] * v[kd.pair_rb]
        tot = jax.ops.segment_sum(cw, g, num_segments=n_groups)
        out["po_g"] = _safe_div(jax.ops.segment_sum(cw * kd.pair_s, g, num_segments=n_groups), tot)
        qa = jax.ops.segment_sum(cw, g * ks + kd.pair_sa, num_segments=n_groups * ks).reshape(n_groups, ks)
        qb = jax.ops.segment_sum(cw, g * ks + kd.pair_sb, num_segments=n_groups * ks).reshape(n_groups, ks)
        safe = jnp.where(tot > 0, tot, 1.0)[:, None]
        out["qa_g"], out["qb_g"], out["tot_g"] = qa / safe, qb / safe, tot
    return out


def combine(pa: jax.Array, pe: jax.Array) -> jax.Array:
    """Chance-corrected coefficient ``(pa - pe) / (1 - pe)``; nan when ``pe == 1``."""
    return jnp.where(pe < 1.0, (pa - pe) / jnp.where(pe < 1.0, 1.0 - pe, 1.0), jnp.nan)
