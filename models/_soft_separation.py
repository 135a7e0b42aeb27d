"""Score separation: do the equivalence scores split into two groups with an empty gap?

On such scores the soft-agreement model is not honest: every pair's equivalence is decided by
its side of the gap, but the emission's components below the gap (the wide ``U[e_b, 1]``
pieces of the monotone emission, the lower tail of a Beta) are informed only by the prior, and
whatever equivalent mass they keep gives the non-equivalent pairs a small P(equivalent). That
leak is on the ridge of the mixture (a contaminated equivalent component), so it can only raise
``pi_within`` and kappa, and the posterior interval, which knows the pairs' indicators almost
exactly, is narrower than the bias (see docs/annotator_models.md, "Separable scores").
"""

from typing import Any

import numpy as np

__all__ = ["pair_scores_gap", "score_gap"]


def score_gap(scores: Any, min_gap: float = 0.1, min_share: float = 0.01
              ) -> tuple[float, float] | None:
    """The widest empty interval between the scores, if it splits them into two groups.

    Parameters
    ----------
    scores : array_like
        Equivalence scores in [0, 1] (all pair populations pooled).
    min_gap : float
        Smallest width of the empty interval that counts as a separation.
    min_share : float
        Smallest share of the scores on each side of the gap.

    Returns
    -------
    (lower, upper) or None
        The largest score below the gap and the smallest above it, or None when the scores do
        not separate (no empty interval of width ``min_gap`` with ``min_share`` of the scores
        on each side).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> s = np.r_[rng.uniform(0, 0.35, 300), rng.uniform(0.6, 1, 300)]
    >>> lo, hi = score_gap(s)
    >>> bool(0.3 < lo < 0.35 and 0.6 <= hi < 0.65)
    True
    >>> score_gap(rng.uniform(0, 1, 600)) is None
    True
    """
    s = np.sort(np.asarray(scores, dtype=np.float64).ravel())
    s = s[np.isfinite(s)]
    if s.size < 2:
        return None
    gaps = np.diff(s)
    below = np.arange(1, s.size) / s.size  # share of scores at or below each gap's lower end
    ok = (gaps >= min_gap) & (below >= min_share) & (1.0 - below >= min_share)
    if not ok.any():
        return None
    i = int(np.argmax(np.where(ok, gaps, -np.inf)))
    return float(s[i]), float(s[i + 1])


def pair_scores_gap(data: Any, min_gap: float = 0.1) -> tuple[float, float] | None:
    """:func:`score_gap` of a :class:`~softirr_stats.models.PairScores`' within-item, chance and gold
    scores pooled (the one definition of "the scores separate" for the soft model's fit and check).

    Examples
    --------
    >>> from softirr_stats.models import PairScores
    >>> d = PairScores(within_scores=[0.1, 0.2, 0.8, 0.9], within_raters=[[0, 1]] * 4,
    ...                within_items=[0, 1, 2, 3], chance_scores=[0.1, 0.3, 0.7], n_raters=2, n_items=4)
    >>> pair_scores_gap(d)
    (0.3, 0.7)
    """
    pooled = [data.within_scores, data.chance_scores]
    if data.n_gold:
        pooled.append(data.gold_scores)
    return score_gap(np.concatenate(pooled), min_gap=min_gap)
