"""Per-rater posterior predictive check: each annotator's agreement with the others.

A global statistic (Fleiss' kappa) cannot see one annotator who departs from the model: an
adversary's disagreement is averaged with everyone else's agreement. This check computes, for
every rater, a statistic of that rater against the *other* raters on the same items, on the
observed data and on data replicated from each posterior draw on the observed design
(Gelman, Meng & Stern 1996, posterior predictive p-values), and names the raters whose observed
statistic the model does not reproduce (two-sided p below ``alpha / n_raters``, a Bonferroni
correction over raters).
"""

import warnings
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from softirr_stats.base._format import format_draw_p
from softirr_stats.base._validation import check_choice
from softirr_stats.inference._config import PredictiveCheckWarning
from softirr_stats.inference._postprocess import item_counts

__all__ = ["RATER_STATISTICS", "rater_check_message", "rater_check_records", "rater_predictive_check"]

RATER_STATISTICS = ("pairwise", "majority")


def _rater_statistic(items: jnp.ndarray, raters: jnp.ndarray, labels: jnp.ndarray,
                     n_items: int, n_raters: int, n_classes: int, kind: str) -> jnp.ndarray:
    """``(n_raters,)`` per-rater agreement with the other raters (nan: no shared item).

    ``pairwise``: mean over the rater's ratings on items with another rating of the share of
    the other ratings of the item that give the same label (mean pairwise agreement with every
    other rater, weighted by shared items). ``majority``: share of those ratings equal to the
    plurality label of the other ratings (ties shared out).
    """
    counts = item_counts(items, labels, n_items, n_classes)  # (I, K)
    n_i = counts.sum(axis=1)[items]  # ratings on the item of each observation
    others = counts[items] - jax.nn.one_hot(labels, n_classes, dtype=counts.dtype)  # (N, K)
    n_other = n_i - 1.0
    own = jnp.take_along_axis(others, labels[:, None], axis=1)[:, 0]
    if kind == "pairwise":
        score = own / jnp.maximum(n_other, 1.0)
    else:
        top = others.max(axis=1)
        n_top = (others == top[:, None]).sum(axis=1)
        score = jnp.where(own == top, 1.0 / n_top, 0.0)
    use = (n_other > 0).astype(score.dtype)
    num = jax.ops.segment_sum(score * use, raters, n_raters)
    den = jax.ops.segment_sum(use, raters, n_raters)
    return jnp.where(den > 0, num / jnp.maximum(den, 1.0), jnp.nan)


def _two_sided(t_obs: np.ndarray, rep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column: the two-sided predictive p-value ``2 min(P(T_rep >= T_obs), P(T_rep <= T_obs))``
    and the replicates' mean, both over the replicates where the statistic is defined (nan ones
    left out, not counted on either side); nan where the observed value or every replicate is nan.

    Examples
    --------
    >>> p, m = _two_sided(np.array([0.5, np.nan]), np.array([[0.4, 0.1], [np.nan, 0.2], [0.6, 0.3]]))
    >>> p.tolist(), m.tolist()
    ([1.0, nan], [0.5, 0.2])
    """
    rep = np.asarray(rep, np.float64)
    finite = np.isfinite(rep)
    n = finite.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        upper_tail = (finite & (rep >= t_obs)).sum(axis=0) / n
        lower_tail = (finite & (rep <= t_obs)).sum(axis=0) / n
        mean = np.where(finite, rep, 0.0).sum(axis=0) / n
    p_value = np.minimum(1.0, 2.0 * np.minimum(upper_tail, lower_tail))
    ok = np.isfinite(t_obs) & (n > 0)
    return np.where(ok, p_value, np.nan), np.where(n > 0, mean, np.nan)


def rater_predictive_check(posterior: Any, ann_or_data: Any = None, *,
                           statistic: str = "pairwise", n_draws: int | None = None,
                           alpha: float = 0.05, warn: bool = True) -> pd.DataFrame:
    """Per-rater posterior predictive check of each annotator's agreement with the others.

    For each posterior draw a replicate data set is simulated on the observed design (true
    classes from ``pi``, ratings from the rater responses, item effects at their posterior
    values), as in :meth:`Posterior.predictive_check`. For every rater the statistic is the
    agreement of that rater with the other raters of the same items (``statistic``), observed
    and replicated. A rater fails when the two-sided predictive p-value
    ``2 min(P(T_rep >= T_obs), P(T_rep <= T_obs))`` is below ``alpha / n_raters``
    (Bonferroni over raters).

    Parameters
    ----------
    posterior : Posterior
        A fit of a categorical annotator model (:func:`softirr_stats.inference.fit`).
    ann_or_data : Annotations, AnnotationData or codes, optional
        Data for the observed statistic, with the fitted design. Default: the fitted data.
    statistic : {"pairwise", "majority"}
        ``pairwise``: mean share of the other ratings of an item that agree with the rater;
        ``majority``: share of the rater's ratings equal to the plurality of the others.
    n_draws : int, optional
        Use only the first ``n_draws`` posterior draws.
    alpha : float
        Family-wise level of the test over raters (default 0.05).
    warn : bool
        Warn (:class:`PredictiveCheckWarning`) naming every rater that fails.

    Returns
    -------
    DataFrame
        One row per rater: ``rater``, ``n_ratings``, ``observed``, ``replicated_mean``,
        ``lower``, ``upper`` (central ``1 - alpha`` interval of the replicates, unadjusted),
        ``p_value`` (two-sided: the plain share of ``n_draws`` draws, doubled), ``n_draws`` (the
        replicates the p-value is over), ``failed`` (``p_value < alpha / n_raters``). Replicates on which a
        rater's statistic is undefined (nan: no other rating on the rater's items) are left out of
        the p-value, mean and interval (and of ``n_draws``); a rater whose observed statistic is undefined
        has nan ones. A ``p_value`` of 0 is below ``2 / n_draws``, not zero: the warning says so
        (:func:`~softirr_stats.base._format.format_draw_p`).

    Warns
    -----
    PredictiveCheckWarning
        A rater's agreement with the others is not what the model reproduces: the model's
        account of that rater (and the agreement estimates that rest on it) is not to be
        trusted.

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats import models
    >>> from softirr_stats.inference import SviConfig, fit, rater_predictive_check
    >>> sim = models.simulate_dawid_skene(60, 4, 3, accuracy=0.8, seed=0)
    >>> post = fit(models.item_difficulty, sim["codes"], method="svi", seed=0,
    ...            config=SviConfig(steps=200, num_draws=200), progress=False)
    >>> table = rater_predictive_check(post)
    >>> list(table.columns[:4])
    ['rater', 'n_ratings', 'observed', 'replicated_mean']
    >>> bool(table["failed"].any())
    False
    """
    if not callable(getattr(getattr(posterior, "model_kind", None), "replicated", None)):  # labels to replicate
        raise ValueError("rater_predictive_check needs a Posterior of a categorical annotator "
                         f"model; got {type(posterior).__name__} of kind "
                         f"{getattr(posterior, 'kind', None)!r}")
    statistic = check_choice("statistic", statistic, RATER_STATISTICS)
    if not isinstance(alpha, (int, float)) or not 0 < float(alpha) < 1:
        raise ValueError(f"alpha must be a number in (0, 1); got {alpha!r}")
    data = posterior.data
    from softirr_stats.inference._predictive_check import observed_on_fitted_design

    obs = observed_on_fitted_design(data, ann_or_data)
    n_items, j, k = data.n_items, data.n_raters, data.n_classes
    items, raters = jnp.asarray(data.items), jnp.asarray(data.raters)
    t_obs = np.asarray(_rater_statistic(items, raters, jnp.asarray(obs.labels), n_items, j, k,
                                        statistic), np.float64)
    rep = posterior.replicated(lambda y: _rater_statistic(items, raters, y, n_items, j, k, statistic),
                               n_draws, salt=17)  # (S, J)
    p_value, rep_mean = _two_sided(t_obs, rep)
    defined = np.isfinite(t_obs) & np.isfinite(p_value)
    q = [alpha / 2, 1 - alpha / 2]
    lo, hi = np.full(j, np.nan), np.full(j, np.nan)
    if defined.any():
        lo[defined], hi[defined] = np.nanquantile(rep[:, defined], q, axis=0)
    failed = defined & (p_value < alpha / j)
    names = data.rater_names or tuple(range(j))
    n_ratings = np.bincount(data.raters, minlength=j)
    table = pd.DataFrame({"rater": list(names), "n_ratings": n_ratings.astype(int),
                          "observed": t_obs, "replicated_mean": rep_mean,
                          "lower": lo, "upper": hi, "p_value": p_value,
                          "n_draws": np.isfinite(rep).sum(axis=0).astype(int), "failed": failed})
    table.attrs.update(statistic=statistic, alpha=float(alpha))
    if warn and failed.any():
        warnings.warn(rater_check_message(rater_check_records(table), statistic, posterior.model_name, alpha),
                      PredictiveCheckWarning, stacklevel=2)
    return table


def rater_check_records(table: pd.DataFrame) -> tuple[dict[str, Any], ...]:
    """The rows of a :func:`rater_predictive_check` table as plain records (Python numbers, for JSON).

    Examples
    --------
    >>> t = pd.DataFrame({"rater": ["a"], "n_ratings": [3], "observed": [0.5], "replicated_mean": [0.6],
    ...                   "lower": [0.4], "upper": [0.8], "p_value": [0.5], "n_draws": [400], "failed": [False]})
    >>> rater_check_records(t)
    ({'rater': 'a', 'n_ratings': 3, 'observed': 0.5, 'replicated_mean': 0.6, 'lower': 0.4, 'upper': 0.8, 'p_value': 0.5, 'n_draws': 400, 'failed': False},)
    """
    def native(v: Any) -> Any:
        return v.item() if isinstance(v, np.generic) else v

    return tuple({k: native(v) for k, v in row.items()} for row in table.to_dict("records"))


def rater_check_message(records: Any, statistic: str, model_name: str, alpha: float) -> str:
    """The ``PredictiveCheckWarning`` text of a per-rater check naming each failed rater ("" when none failed).

    ``records`` are the rows of :func:`rater_predictive_check` (:func:`rater_check_records`);
    the warning, the diagnostics' caveat line and the command line all say this text. Each p-value is
    a share of the record's ``n_draws`` draws (:func:`~softirr_stats.base._format.format_draw_p`): 0
    prints as the bound ``p < 2/n_draws`` (two-sided), not ``p = 0.0000``; a record without ``n_draws``
    (built by hand) prints its p with 4 decimals.

    Examples
    --------
    >>> rows = [{"rater": "r1", "observed": 0.161, "lower": 0.405, "upper": 0.594, "p_value": 0.0, "n_draws": 1000,
    ...          "failed": True},
    ...         {"rater": "r2", "observed": 0.5, "lower": 0.4, "upper": 0.6, "p_value": 0.5, "n_draws": 1000,
    ...          "failed": False}]
    >>> m = rater_check_message(rows, "pairwise", "item_difficulty", 0.05)
    >>> m[:m.index(" at family-wise")]
    'per-rater predictive check (pairwise agreement with the other raters) fails for item_difficulty'
    >>> m[m.index("rater 'r1'"):m.index(". The")]
    "rater 'r1': observed 0.161, replicated 95% [0.405, 0.594], p < 0.002 (none of 1000 draws)"
    >>> rater_check_message(rows[1:], "pairwise", "item_difficulty", 0.05)
    ''
    """
    records = list(records)
    parts = [f"rater {r['rater']!r}: observed {r['observed']:.3f}, replicated {100 * (1 - alpha):.0f}% "
             f"[{r['lower']:.3f}, {r['upper']:.3f}], "
             f"{format_draw_p(r['p_value'], r.get('n_draws'), 4, two_sided=True)}" for r in records if r["failed"]]
    if not parts:
        return ""
    return (f"per-rater predictive check ({statistic} agreement with the other raters) fails "
            f"for {model_name} at family-wise level {alpha} over {len(records)} raters: "
            + "; ".join(parts) + ". The model does not reproduce how these raters agree with "
            "the others (an adversarial or spamming annotator?), so its estimates for them "
            "and the agreement built on them are not to be trusted")
