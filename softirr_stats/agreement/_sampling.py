"""Sampled chance populations for ``MonteCarlo`` and ``SampledPairs`` (numpy).

Each sampler returns rating-index pairs ``(a, b)`` drawn from a coefficient's chance
population, their rater-pair group, the groups' raters and (Monte Carlo only) the
permutation each pair belongs to. The chance families (``_families.py``) name their sampler.
"""

from typing import Any

import numpy as np

from softirr_stats.agreement._chance import SampledPairs

__all__ = ["sample_per_rater", "sample_pooled", "sample_values"]


def _is_sampled(plan: Any) -> bool:
    """SampledPairs draws ``plan.n`` independent pairs; MonteCarlo draws ``plan.permutations`` permutations."""
    return isinstance(plan, SampledPairs)


Draw = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, "np.ndarray | None"]


def sample_per_rater(d: Any, plan: Any) -> Draw:
    """Cohen / Conger: a rating of rater A against a rating of rater B, for every rater pair."""
    rng = np.random.default_rng(plan.seed)
    raters = np.unique(d.rating_rater)
    ga, gb = np.triu_indices(len(raters), k=1)
    groups = np.stack([raters[ga], raters[gb]], axis=1)
    by_rater = [np.flatnonzero(d.rating_rater == r) for r in raters]  # per rater, not per pair
    a_parts, b_parts, g_parts, p_parts = [], [], [], []
    if _is_sampled(plan):
        g = rng.integers(0, len(groups), plan.n)
        for gi, (ra, rb) in enumerate(zip(ga, gb, strict=True)):  # loop over rater pairs
            k = int((g == gi).sum())
            a_parts.append(rng.choice(by_rater[ra], k))
            b_parts.append(rng.choice(by_rater[rb], k))
            g_parts.append(np.full(k, gi))
        return np.concatenate(a_parts), np.concatenate(b_parts), np.concatenate(g_parts), groups, None
    for gi, (ra, rb) in enumerate(zip(ga, gb, strict=True)):
        xa, xb = by_rater[ra], by_rater[rb]
        k = min(len(xa), len(xb))
        for dd in range(plan.permutations):  # D is the user's permutation count
            a_parts.append(rng.permutation(xa)[:k])
            b_parts.append(rng.permutation(xb)[:k])
            g_parts.append(np.full(k, gi))
            p_parts.append(np.full(k, dd))
    return (np.concatenate(a_parts), np.concatenate(b_parts), np.concatenate(g_parts), groups,
            np.concatenate(p_parts))


def sample_pooled(d: Any, plan: Any) -> Draw:
    """Scott / Fleiss: two independent draws from the pooled distribution (item, then rating)."""
    rng = np.random.default_rng(plan.seed)
    items = np.flatnonzero(d.r_i >= 1)
    start = np.concatenate([[0], np.cumsum(d.r_i)[:-1]])

    def draw(k: int) -> np.ndarray:  # item uniformly, then a rating within it
        it = rng.choice(items, k)
        return start[it] + rng.integers(0, d.r_i[it])

    perm_id = None
    if _is_sampled(plan):
        a, b = draw(plan.n), draw(plan.n)
    else:
        a_list, b_list, p_list = [], [], []
        for dd in range(plan.permutations):
            a0 = draw(len(items))
            a_list.append(a0)
            # an independent partner draw: pairing a0 with a permutation of itself would pair
            # a fixed point with itself (score 1) and bias p_e upwards by about (1 - p_e) / n
            b_list.append(draw(len(items)))
            p_list.append(np.full(len(a0), dd))
        a, b, perm_id = np.concatenate(a_list), np.concatenate(b_list), np.concatenate(p_list)
    return a, b, np.zeros(len(a), dtype=int), np.zeros((1, 2), dtype=int), perm_id


def sample_values(d: Any, plan: Any) -> Draw:
    """Krippendorff: two distinct pairable values."""
    rng = np.random.default_rng(plan.seed)
    keep = np.flatnonzero(d.r_i[d.rating_item] >= 2)
    if len(keep) < 2:
        raise ValueError("no pairable values to sample chance pairs from")
    perm_id = None
    if _is_sampled(plan):
        a = rng.choice(keep, plan.n)
        off = rng.integers(1, len(keep), plan.n)
        b = keep[(np.searchsorted(keep, a) + off) % len(keep)]
    else:
        a_list, b_list, p_list = [], [], []
        for dd in range(plan.permutations):
            sh = rng.permutation(keep)
            a_list.append(sh)
            b_list.append(np.roll(sh, 1))  # a derangement of the shuffled order
            p_list.append(np.full(len(sh), dd))
        a, b, perm_id = np.concatenate(a_list), np.concatenate(b_list), np.concatenate(p_list)
    return a, b, np.zeros(len(a), dtype=int), np.zeros((1, 2), dtype=int), perm_id
