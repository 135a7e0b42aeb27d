"""Uncertainty: design-aware bootstraps (batches of weights), intervals, analytic SEs.

Everything here is written once against the statistic protocol
(:class:`softirr_stats.agreement.Statistic`): ``attach_interval(result, statistic, ci)``.
"""

from softirr_stats.uncertainty._analytic import (
    ANALYTIC_FORMS,
    Analytic,
    attach_analytic,
    reinterval,
)
from softirr_stats.uncertainty._bootstrap import (
    DESIGNS,
    Bootstrap,
    attach_bootstrap,
    bootstrap_replicates,
    draw_weights,
    jackknife_values,
    leave_one_out_weights,
    summarize_replicates,
)
from softirr_stats.uncertainty._intervals import (
    INTERVAL_METHODS,
    basic_interval,
    bca_interval,
    jackknife_acceleration,
    percentile_interval,
)
from softirr_stats.uncertainty._request import attach_interval, check_ci

__all__ = [
    "ANALYTIC_FORMS", "Analytic", "attach_analytic", "attach_interval", "check_ci", "reinterval",
    "Bootstrap", "DESIGNS", "INTERVAL_METHODS", "attach_bootstrap", "basic_interval", "bca_interval",
    "bootstrap_replicates", "draw_weights", "jackknife_acceleration", "jackknife_values", "leave_one_out_weights",
    "percentile_interval", "summarize_replicates",
]
