"""Soft model: say so when the scores separate perfectly (see models/_soft_separation.py)."""

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from softirr_stats.inference._config import PredictiveCheckWarning

__all__ = ["score_check_statistic", "separation_leak"]

#: The separation warning fires when the leak is at least this share of the kappa interval's
#: half-width. It was 0.2 and fired on every default (monotone) fit to separable scores,
#: which covered 88-90% at 90% (leak 0.3-0.6 of the half-width, the same on the fits that
#: covered and on those that missed: it cannot tell them apart). In the simulated studies
#: (paper_repro/soft_model_check_study.py, docs/annotator_models.md) larger leaks came only
#: from the Beta emission (0.7-5.7 on its misses on bands and exact 0/1, 0.2-1.6 on its fits
#: that covered), whose predictive check failed on every one of those fits anyway.
SEPARATION_RATIO = 1.0


def score_check_statistic(probs: Any, pi_within: Any, pi_chance: Any, within_scores: Any,
                          chance_scores: Any, n_bins: int, rng: np.random.Generator
                          ) -> tuple[float, np.ndarray, np.ndarray]:
    """The soft model's score check from posterior draws: ``(p_value, d_obs, d_rep)``.

    The statistic of :meth:`Posterior.score_check`, as a function of the draws alone (so that a
    simulation fitting many studies in one vectorised program computes the same number).
    Scores are counted in ``n_bins`` equal cells (exact 0 and 1 in the end cells) separately for
    the within-item and the chance pairs; each draw's cell probabilities are
    ``p F1 + (1 - p) F0`` (``p`` = ``pi_within`` / ``pi_chance``), a replicate of the counts
    is drawn from them, and the discrepancy is Pearson's chi-square against the posterior
    predictive mean counts (plus 0.5), summed over the two populations; ``p_value = P(d_rep >=
    d_obs)``.

    Parameters
    ----------
    probs : array_like, shape (n_draws, 2, n_bins)
        Cell probabilities of [non-equivalent, equivalent] per draw
        (:func:`softirr_stats.models.cell_probabilities`).
    pi_within, pi_chance : array_like, shape (n_draws,)
    within_scores, chance_scores : array_like
        The observed scores.
    n_bins : int
    rng : numpy.random.Generator
        Draws the replicates (within-item pairs first, then chance pairs).

    Returns
    -------
    (p_value, d_obs, d_rep)
        ``d_obs`` and ``d_rep``: the observed and replicated discrepancies per draw.

    Examples
    --------
    >>> import numpy as np
    >>> probs = np.tile(np.array([[0.7, 0.3], [0.2, 0.8]]), (100, 1, 1))
    >>> p, d_obs, d_rep = score_check_statistic(probs, np.full(100, 0.5), np.full(100, 0.2),
    ...                                         [0.1, 0.9, 0.8], [0.1, 0.2], 2,
    ...                                         np.random.default_rng(0))
    >>> 0.0 <= p <= 1.0, d_obs.shape, d_rep.shape
    (True, (100,), (100,))
    """
    from softirr_stats.models import score_cells

    probs = np.clip(np.asarray(probs, np.float64), 0.0, None)
    pw = np.asarray(pi_within, np.float64)
    pc = np.asarray(pi_chance, np.float64)
    d_obs, d_rep = np.zeros(pw.size), np.zeros(pw.size)
    for scores, p in ((np.asarray(within_scores), pw), (np.asarray(chance_scores), pc)):
        cells = score_cells(scores, n_bins)
        cells = np.where(cells == n_bins, 0, np.where(cells == n_bins + 1, n_bins - 1, cells))
        obs = np.bincount(cells, minlength=n_bins).astype(np.float64)
        mix = p[:, None] * probs[:, 1] + (1 - p[:, None]) * probs[:, 0]
        mix = mix / mix.sum(axis=1, keepdims=True)
        # replicates from the posterior predictive; both compared with its mean counts
        rep = rng.multinomial(scores.size, mix)
        expect = scores.size * mix.mean(axis=0) + 0.5
        d_obs += ((obs - expect) ** 2 / expect).sum()
        d_rep += ((rep - expect) ** 2 / expect).sum(axis=1)
    return float(np.mean(d_rep >= d_obs)), d_obs, d_rep


def separation_leak(posterior: Any, *, warn: bool = True, min_gap: float = 0.1,
                    min_ratio: float = SEPARATION_RATIO, stacklevel: int = 3) -> dict | None:
    """Soft model on separable scores: the gap and the equivalent share leaked below it.

    When the pooled within-item, chance and gold scores split into two groups with an empty
    interval of width ``min_gap`` between them (:func:`softirr_stats.models._soft_separation.
    score_gap`), every pair's equivalence is decided by its side of the gap, yet the model
    gives the pairs below the gap a small P(equivalent) that only the prior informs. Returns
    ``{"gap": (lower, upper), "leak": ..., "half_width": ...}`` (``leak``: posterior mean of
    the share of within-item pairs counted equivalent although they score below the gap, i.e.
    the upward bias of ``pi_within``; ``half_width``: half the 90% interval of kappa), or None
    when the scores do not separate. It warns when ``leak >= min_ratio * half_width``
    (:data:`SEPARATION_RATIO`, 1: a bias as large as the half-width; smaller leaks, 0.3-0.6
    of it with the default emission, left the 90% interval at 88-90% in simulations).
    ``stacklevel`` is passed to :func:`warnings.warn` (3: the caller of ``score_check``).

    Warns
    -----
    PredictiveCheckWarning
        On a fit to separable scores whose leak is at least ``min_ratio`` of the interval's
        half-width: the interval is too narrow for the model's own bias on this shape (90%
        coverage fell below nominal in the robustness study).
    """
    from softirr_stats.inference._gold import GOLD_HOW
    from softirr_stats.models import pair_scores_gap, within_responsibilities

    data = posterior.data
    gap = pair_scores_gap(data, min_gap=min_gap)
    if gap is None:
        return None
    below = jnp.asarray(data.within_scores <= gap[0])
    emission, priors = posterior.model_kind.emission, posterior.model_kind.priors
    names = ("intercept", "rater_scale", "rater_z", "item_scale", "item_z", "mean_logit0",
             "mean_gap_logit", "concentration", "equiv_weights", "nonequiv_weights",
             "equiv_atoms", "nonequiv_atoms", "equiv_hist", "nonequiv_hist")
    params = {k: v for k, v in posterior._params().items() if k in names}

    def one(p: dict) -> jnp.ndarray:
        r = within_responsibilities(p, data, emission, priors)
        return jnp.where(below, r, 0.0).sum() / data.n_within

    leak = float(np.mean(np.asarray(jax.lax.map(one, params, batch_size=64))))
    kappa = np.asarray(posterior.samples["kappa"], np.float64)
    lo, hi = np.quantile(kappa, [0.05, 0.95])
    out = {"gap": gap, "leak": leak, "half_width": float((hi - lo) / 2)}
    dropped = bool(posterior.model_kwargs.get("drop_gap_pieces", False)) and emission == "monotone"
    out["pieces_dropped"] = dropped
    if warn and dropped:
        warnings.warn(
            f"the equivalence scores separate perfectly (no score in ({gap[0]:.3f}, "
            f"{gap[1]:.3f})) and the fit gave the pieces across the gap no weight "
            "(drop_gap_pieces=True): pi_within is the share of pairs above the gap, unbiased, "
            "but the kappa interval (only the chance rate's uncertainty is left) covered the "
            "study's kappa in about 77% of simulated studies at 90% under SVI. Count the pairs above "
            "the gap as equivalent (the plain soft coefficient with a bootstrap interval) "
            "instead", PredictiveCheckWarning, stacklevel=3)
    elif warn and leak >= min_ratio * out["half_width"]:
        warnings.warn(
            f"the equivalence scores separate perfectly (no score in ({gap[0]:.3f}, "
            f"{gap[1]:.3f})): the {emission!r} emission still gives the within-item pairs "
            f"below the gap P(equivalent) > 0 (from its shape and prior: no observed score "
            f"informs it), raising pi_within by "
            f"{leak:.4f} (kappa 90% half-width {out['half_width']:.4f}); on such scores the "
            "interval is too narrow to trust (it missed the study's kappa more often than "
            "stated in simulations). Count the pairs above the gap as equivalent (the plain "
            "soft coefficient with a bootstrap interval) instead"
            + ("" if data.n_gold else f", or pass judged pairs as gold pairs ({GOLD_HOW})"),
            PredictiveCheckWarning, stacklevel=stacklevel)
    return out
