"""Uncertainty: design-aware bootstraps (batches of weights), intervals, analytic SEs.

Everything here is written once against the statistic protocol
(:class:`softirr_stats.agreement.Statistic`): ``attach_interval(result, statistic, ci)``.
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.uncertainty._analytic": ('ANALYTIC_FORMS', 'Analytic', 'analytic_terms', 'attach_analytic', 'reinterval',),
    "softirr_stats.uncertainty._bootstrap": ('BOOTSTRAP_DESIGNS', 'DESIGNS', 'WIDENED_NOTE', 'BootstrapDesign', 'Bootstrap', 'attach_bootstrap', 'bootstrap_replicates', 'draw_weights', 'jackknife_strata', 'jackknife_values', 'leave_one_out_weights', 'summarize_replicates', 'unit_weights',),
    "softirr_stats.uncertainty._few_units": ('FewUnitsWarning',),
    "softirr_stats.uncertainty._hypothesis": ('ALTERNATIVES', 'analytic_test', 'check_null', 'normal_p', 'one_sided',),
    "softirr_stats.uncertainty._intervals": ('INTERVAL_METHODS', 'basic_interval', 'bca_interval', 'bca_p_value', 'jackknife_acceleration', 'percentile_interval', 'resolve_method', 'stratified_dof', 't_level',),
    "softirr_stats.uncertainty._request": ('attach_interval', 'check_ci',),
    "softirr_stats.uncertainty._permutation": ('Permutation', 'attach_permutation', 'permutation_values',),
}, internal={  # interval and few-units rules for compare, calibration and span F1; not in __all__
    "softirr_stats.uncertainty._bootstrap": ('TOO_FEW_UNITS_POINT', 'excluded_estimate', 'few_units_handling',
                                             'interval_items', 'per_item_codes',
                                             'replicate_interval', 'too_few_units_advice',),
    "softirr_stats.uncertainty._few_units": ('FEW_CLUSTERS', 'FEW_ITEMS', 'FEW_RATERS', 'few_items_analytic_note',
                                             'few_items_note', 'few_items_posterior_note',
                                             'few_units_correction', 'few_units_factor', 'few_units_note',
                                             'stratified_few_units', 'widen_interval',),
    "softirr_stats.uncertainty._logit_jackknife": ('LOGIT_JACKKNIFE_T', 'logit_jackknife_t_interval',),
})

if TYPE_CHECKING:
    from softirr_stats.uncertainty._analytic import (
        ANALYTIC_FORMS,
        Analytic,
        analytic_terms,
        attach_analytic,
        reinterval,
    )
    from softirr_stats.uncertainty._bootstrap import (
        BOOTSTRAP_DESIGNS,
        DESIGNS,
        TOO_FEW_UNITS_POINT,
        WIDENED_NOTE,
        Bootstrap,
        BootstrapDesign,
        attach_bootstrap,
        bootstrap_replicates,
        draw_weights,
        excluded_estimate,
        few_units_handling,
        interval_items,
        jackknife_strata,
        jackknife_values,
        leave_one_out_weights,
        per_item_codes,
        replicate_interval,
        summarize_replicates,
        too_few_units_advice,
        unit_weights,
    )
    from softirr_stats.uncertainty._few_units import (
        FEW_CLUSTERS,
        FEW_ITEMS,
        FEW_RATERS,
        FewUnitsWarning,
        few_items_analytic_note,
        few_items_note,
        few_items_posterior_note,
        few_units_correction,
        few_units_factor,
        few_units_note,
        stratified_few_units,
        widen_interval,
    )
    from softirr_stats.uncertainty._hypothesis import (
        ALTERNATIVES,
        analytic_test,
        check_null,
        normal_p,
        one_sided,
    )
    from softirr_stats.uncertainty._intervals import (
        INTERVAL_METHODS,
        basic_interval,
        bca_interval,
        bca_p_value,
        jackknife_acceleration,
        percentile_interval,
        resolve_method,
        stratified_dof,
        t_level,
    )
    from softirr_stats.uncertainty._logit_jackknife import (
        LOGIT_JACKKNIFE_T,
        logit_jackknife_t_interval,
    )
    from softirr_stats.uncertainty._permutation import (
        Permutation,
        attach_permutation,
        permutation_values,
    )
    from softirr_stats.uncertainty._request import (
        attach_interval,
        check_ci,
    )
