"""Uncertainty: design-aware bootstraps (batches of weights), intervals, analytic SEs.

Names load on first use (JAX with the bootstrap, SciPy with the analytic forms).
"""

from typing import TYPE_CHECKING

from softirr_stats._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.uncertainty._analytic": ("ANALYTIC_FORMS", "Analytic", "attach_analytic"),
    "softirr_stats.uncertainty._bootstrap": ("DESIGNS", "Bootstrap", "attach_bootstrap", "bootstrap_replicates",
                                             "draw_weights"),
    "softirr_stats.uncertainty._intervals": ("INTERVAL_METHODS", "basic_interval", "bca_interval",
                                             "jackknife_acceleration", "percentile_interval"),
    "softirr_stats.uncertainty._sensitivity": ("coefficient_registry", "sensitivity"),
})

if TYPE_CHECKING:
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
