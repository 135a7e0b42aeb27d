"""Uncertainty: design-aware bootstraps (batches of weights), intervals, analytic SEs."""

from softirr_stats.uncertainty._analytic import ANALYTIC_FORMS, Analytic, attach_analytic
from softirr_stats.uncertainty._bootstrap import (
    DESIGNS,
    Bootstrap,
    attach_bootstrap,
    bootstrap_replicates,
    draw_weights,
)
from softirr_stats.uncertainty._intervals import (
    INTERVAL_METHODS,
    basic_interval,
    bca_interval,
    jackknife_acceleration,
    percentile_interval,
)
from softirr_stats.uncertainty._sensitivity import coefficient_registry, sensitivity

__all__ = [
    "ANALYTIC_FORMS", "Analytic", "attach_analytic", "coefficient_registry", "sensitivity",
    "Bootstrap", "DESIGNS", "INTERVAL_METHODS", "attach_bootstrap", "basic_interval", "bca_interval",
    "bootstrap_replicates", "draw_weights", "jackknife_acceleration", "percentile_interval",
]
