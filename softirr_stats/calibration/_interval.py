"""``calibration_error_ci``: a calibration metric with a bootstrap interval from ``ci=Bootstrap(...)``.

The metric is a statistic of item weights (:class:`CalibrationStatistic`, in ``_metrics``);
the replicates come from the uncertainty layer's one bootstrap (the same designs, generator
and chunking as the coefficients), which is why the calibration layer sits above
``uncertainty`` (docs/architecture.md). Only this module imports it: the metrics themselves
load no JAX.
"""

import math
import warnings

import numpy as np

from softirr_stats.agreement import DegenerateWarning
from softirr_stats.base._validation import SoftIRRWarning
from softirr_stats.calibration._metrics import CalibrationInterval, calibration_statistic
from softirr_stats.uncertainty import (
    BOOTSTRAP_DESIGNS,
    Bootstrap,
    FewUnitsWarning,
    bootstrap_replicates,
    check_ci,
    few_units_correction,
    jackknife_strata,
    jackknife_values,
    per_item_codes,
    replicate_interval,
    widen_interval,
)

__all__ = ["BinnedMetricWarning", "calibration_error_ci"]


class BinnedMetricWarning(SoftIRRWarning):
    """An interval of a binned plug-in metric (ECE, MCE), which is no confidence interval for its population value.

    Examples
    --------
    >>> issubclass(BinnedMetricWarning, UserWarning)
    True
    """


def binned_metric_note(metric: str) -> str:
    """Why an interval of ``metric`` is not to be read as a confidence interval ('' for the metrics it is).

    The plug-in ECE is biased upwards (its bins' absolute gaps are noise-inflated) and its bootstrap
    replicates are biased again; measured in docs/coverage.md, "Calibration metrics" (1,000 studies
    per cell). The MCE, a maximum over the same bins, shares the bias (not simulated).

    Examples
    --------
    >>> binned_metric_note("brier")
    ''
    >>> binned_metric_note("ece").split(":")[0]
    'the ece interval is the spread of a biased plug-in, not a confidence interval for the population ece'
    """
    if metric not in ("ece", "mce"):
        return ""
    return (f"the {metric} interval is the spread of a biased plug-in, not a confidence interval for the population "
            f"{metric}: simulated 95% ECE intervals covered 0-79% at 20-100 pairs and 6-88% at 300 (the plug-in is "
            "biased upwards, by +0.18 at 20 pairs for scores whose ECE is 0.024; docs/coverage.md, \"Calibration "
            "metrics\"); for inference report metric='brier' or metric='debiased_l2'")

#: The interval when ``ci=`` is not given.
DEFAULT_CI = Bootstrap(n=1000, seed=0, level=0.95)


def calibration_error_ci(
    scores: object,
    labels: object,
    *,
    metric: str = "ece",
    bins: int = 10,
    strategy: str = "uniform",
    p: float = 1,
    ci: Bootstrap | None = None,
) -> CalibrationInterval:
    """A calibration metric with a bootstrap interval over the scored pairs.

    Each replicate is a batch row of pair weights drawn by the package's bootstrap
    (:class:`softirr_stats.Bootstrap`: the same designs, generator and chunking as the
    agreement coefficients), evaluated without a Python loop over replicates. Quantile bin
    edges are recomputed on every resample, so a replicate equals the metric applied to the
    resampled data.

    Parameters
    ----------
    scores, labels : array-like of shape (n,)
        As in :func:`softirr_stats.calibration.expected_calibration_error`.
    metric : {"ece", "mce", "debiased_l2", "brier", "log_loss"}, default "ece"
        ``"debiased_l2"`` is bootstrapped in its *squared* (unclipped, unbiased) form,
        and its estimate/limits are reported on that scale.
    bins, strategy, p
        As in :func:`softirr_stats.calibration.expected_calibration_error` (``p`` only
        matters for ``"ece"``).
    ci : Bootstrap, optional
        The interval: ``n`` replicates, ``seed``, ``level``, ``method`` and ``design``:
        ``"items"`` (pairs resampled), ``"cluster"`` (e.g. the pairs of one item together,
        ``cluster=`` one entry per pair) or ``"bayesian"`` (not with ``strategy="quantile"``,
        whose edges need whole multiplicities); ``strata=`` resamples within strata. The
        coefficients' rules apply: ``method="auto"`` is ``"bca-t"`` for the pair designs up to
        1000 pairs, ``"basic"`` for clusters and ``"percentile"`` above 1000 pairs
        (:func:`softirr_stats.uncertainty.resolve_method`; at 20-100 pairs ``bca-t`` covered the
        Brier score in 93.7-96.0% against the percentile's 91.5-94.8%, docs/coverage.md,
        "Calibration metrics"), and fewer than 10 clusters widen the interval by the Student-t
        factor with a ``FewUnitsWarning``. Default ``Bootstrap(n=1000, seed=0, level=0.95)``.

    Returns
    -------
    CalibrationInterval
        ``estimate``, ``ci_low``, ``ci_high``, ``se`` (bootstrap standard deviation, times the
        few-clusters factor), the settings (``method`` the one used: ``auto`` resolved), and the
        ``replicates``.

    Examples
    --------
    >>> from softirr_stats import Bootstrap
    >>> rng = np.random.default_rng(1)
    >>> s = rng.uniform(size=500)
    >>> y = (rng.uniform(size=500) < s).astype(float)
    >>> r = calibration_error_ci(s, y, strategy="quantile", ci=Bootstrap(n=200, seed=0))
    >>> bool(r.ci_low <= r.estimate <= r.ci_high), r.n_boot, r.method
    (True, 200, 'bca-t')
    """
    stat = calibration_statistic(scores, labels, metric=metric, bins=bins, strategy=strategy, p=p)  # type: ignore[arg-type]
    cfg = check_ci(ci, analytic=False, rater_designs="calibration resamples scored pairs, not raters",
                   judged_designs="calibration_error_ci has no judged label pairs") or DEFAULT_CI
    if BOOTSTRAP_DESIGNS[cfg.design].fractional and stat.strategy == "quantile":
        raise ValueError("Bootstrap(design='bayesian') gives fractional pair weights, and quantile bin edges need "
                         "whole multiplicities; use design='items' or strategy='uniform'")
    estimate = float(stat.evaluate()["value"][0])
    biased = binned_metric_note(stat.metric)
    if biased:
        warnings.warn(f"calibration_error_ci: {biased}", BinnedMetricWarning, stacklevel=2)
    reps = bootstrap_replicates(stat, cfg)["value"]
    # the coefficients' rules: the interval method (auto: bca-t for the item designs up to 1000 pairs, basic for
    # clusters) and the few-clusters widening
    unit_strata = jackknife_strata(stat, cfg)
    factor, few_note = few_units_correction(
        stat, cfg, reps, BOOTSTRAP_DESIGNS[cfg.design],
        n_clusters=lambda: len(np.unique(per_item_codes(cfg.cluster, stat.items, "cluster"))),
        unit_strata=unit_strata)
    if few_note:
        warnings.warn(few_note, FewUnitsWarning, stacklevel=2)
    low, high, method, note, _ = replicate_interval(reps, estimate, cfg, lambda: jackknife_values(stat, cfg),
                                                    stat.n_items, unit_strata=unit_strata, n_units_given=False)
    if note:  # BCa fell back to the percentile interval (or no replicate was finite): say so
        warnings.warn(f"calibration_error_ci ({stat.metric}): {note}", DegenerateWarning, stacklevel=2)
    low, high = widen_interval(low, high, estimate, factor)
    finite = reps[np.isfinite(reps)]
    return CalibrationInterval(
        metric=stat.metric,
        estimate=estimate,
        ci_low=float(low),
        ci_high=float(high),
        se=factor * float(np.std(finite, ddof=1)) if finite.size > 1 else math.nan,
        level=float(cfg.level),
        n_boot=cfg.n,
        n=stat.n_items,
        bins=stat.bins,
        strategy=stat.strategy,
        replicates=reps,
        method=method,
        design=cfg.design,
        few_units_factor=float(factor),
        seed=cfg.seed,
    )
