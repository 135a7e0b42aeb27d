"""Prediction-powered soft agreement: the estimate (``_ppi_statistic.py``) with the interval ``ci`` asks for.

Two estimands. *Conditional on the items*: this study's coefficient computed with the judge
``h``; the only randomness is which pairs were judged, so the delta method over the draws'
covariance (``ci="analytic"``) or a bootstrap of the draws (``Bootstrap(design="judged")``)
gives the interval. *Items as a sample*: the coefficient of the population the items were
drawn from; each replicate reweights the items (the item, cluster or Bayesian bootstrap's
weights), which changes the pair weights ``W_o, W_e``, and independently resamples the
draws; the Hansen-Hurwitz form keeps the original design ``q`` because ``q`` produced the
draws (``Bootstrap(design="items" | "cluster" | "bayesian")``).

The estimate is :class:`softirr_stats.ppi.PpiStatistic`, a statistic
like every coefficient: its intervals come from :func:`attach_interval` (the one ``ci``
check, the one bootstrap loop and interval summary, the analytic interval of a statistic's
own linearised variance). Nothing here draws a replicate.
"""

from typing import Any

import numpy as np

from softirr_stats.agreement import AgreementResult, Prepared
from softirr_stats.ppi._ppi_statistic import ppi_result, superpopulation_estimand
from softirr_stats.uncertainty import attach_interval

__all__ = ["apply_ppi", "delta_critical_value"]


def delta_critical_value(level: float, df: Any) -> Any:
    """Two-sided critical value of the delta-method interval: Student-t with ``df`` degrees of freedom.

    ``df`` is :func:`softirr_stats.ppi._ppi_terms.effective_df` of the judged draws (``n - 1``
    shrunk by the kurtosis of the summands); the normal quantile where ``df`` is infinite or
    nan. An array of ``df`` gives an array. (The analytic interval itself is
    :func:`softirr_stats.uncertainty._analytic.analytic_interval`, the same quantile.)

    Examples
    --------
    >>> round(delta_critical_value(0.95, float("inf")), 3), round(delta_critical_value(0.95, 10.0), 3)
    (1.96, 2.228)
    """
    from scipy.special import ndtri, stdtrit

    p = 0.5 + level / 2.0
    d = np.asarray(df, dtype=np.float64)
    ok = np.isfinite(d)
    out = np.where(ok, stdtrit(np.where(ok, d, 1.0), p), ndtri(p))
    return float(out) if out.ndim == 0 else out


def apply_ppi(result: AgreementResult, prep: Prepared, judgments: Any, judge: Any, ci: Any) -> AgreementResult:
    """The prediction-powered estimate of ``result``'s coefficient computed with the judge, with ``ci``.

    ``result`` and ``prep`` are the plain soft coefficient with the cheap estimator; the
    returned result carries the prediction-powered value, its observed/expected terms and
    ``details["ppi"]``. ``ci``: None, ``"analytic"`` / ``Analytic`` (delta method, conditional
    on the items), ``Bootstrap(design="judged")`` (bootstrap of the judged draws, conditional)
    or ``Bootstrap(design="items" | "cluster" | "bayesian")`` (items as a sample).

    Examples
    --------
    >>> import softirr_stats as sis
    >>> ann = [["fever", "pyrexia"], ["cough", "cough"], ["rash", "fever"], ["cough", "tussis"]] * 5
    >>> plan = sis.judging_plan(ann, similarity="indel", n=40, seed=0)
    >>> syn = {frozenset(p) for p in [("fever", "pyrexia"), ("cough", "tussis")]}
    >>> judged = plan.pairs.assign(judgment=[float(frozenset(p) in syn) for p in zip(plan.pairs.label_a,
    ...                                                                              plan.pairs.label_b)])
    >>> r = sis.fleiss_kappa(ann, similarity="indel", judgments=judged, ci="analytic")
    >>> r.ci_method, r.details["ppi"]["n_draws"]
    ('ppi-delta', 40)
    """
    out, stat = ppi_result(result, prep, judgments, judge)
    res = attach_interval(out, stat, ci)
    design = res.details.get("bootstrap_design")
    if design is not None:  # a bootstrap ran: its design record says whether the items were resampled
        from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS

    if design is not None and not BOOTSTRAP_DESIGNS[design].resamples_judged:
        res.details["ppi"] = {**res.details["ppi"], "estimand": superpopulation_estimand(stat.gold)}
    return res
