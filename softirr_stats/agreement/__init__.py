"""Agreement coefficients: pure JAX kernels over item/rater weights, and their results.

All coefficients are higher-is-better; 1 means perfect agreement. Each coefficient is one
record of :data:`COEFFICIENTS` (``_registry.py``) naming its chance family (``_families.py``:
kernels, chance model, analytic terms). Every statistic implements the :class:`Statistic`
protocol (prepare once, evaluate for batches of weights). The public functions
(``softirr_stats.cohen_kappa`` and friends) are made from the registry one layer up, where the
uncertainty layer attaches intervals.
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.agreement._chance": ('CHANCE_SYNTAX', 'MonteCarlo', 'SampledPairs', 'resolve_chance',),
    "softirr_stats.agreement._point": ('as_annotations', 'point_estimate',),
    "softirr_stats.agreement._missing_peers": ('MISSING_RATINGS', 'MissingRatingsHandling', 'missing_ratings_note',),
    "softirr_stats.agreement._layout": ('RatingLayout', 'rating_layout',),
    "softirr_stats.agreement._evaluator": ('DegenerateWarning', 'Prepared', 'chance_standard_error', 'evaluate', 'prepare',),
    "softirr_stats.agreement._families": ('FAMILIES', 'ChanceFamily', 'get_family',),
    "softirr_stats.agreement._linearised": ('Terms', 'linearised_terms',),
    "softirr_stats.agreement._registry": ('ALPHA_LEVELS', 'COEFFICIENTS', 'Coefficient', 'Resolved', 'coefficient_table', 'default_coefficients', 'get_coefficient', 'register',),
    "softirr_stats.agreement._result": ('NOTE_PREFIXES', 'AgreementResult', 'CrossKappaResult', 'MultilabelResult',),
    "softirr_stats.agreement._similarity": ('MEASURE_NAMES', 'SIMILARITY_NAMES', 'ExactMatchSimilarity', 'LabelSimilarity', 'MatrixSimilarity', 'category_values', 'estimator_from_name', 'level_similarity', 'resolve_similarity', 'similarity_kind',),
    "softirr_stats.agreement._scores": ('ICC_FORMS', 'IccForm', 'ScoreStatistic', 'anova_terms', 'ccc_interval', 'ccc_se', 'ccc_values', 'ccc_z', 'icc_f_test', 'icc_interval', 'icc_values', 'kendall_w_values', 'numeric_table', 'resolve_icc_form', 'satterthwaite_test',),
    "softirr_stats.agreement._categorical_tests": ('MARGINAL_TESTS', 'MarginalTestResult', 'all_agree_share', 'category_kappa_rows', 'light_null_z',),
    "softirr_stats.agreement._statistic": ('Statistic',),
    "softirr_stats.agreement._weights": ('WEIGHT_NAMES', 'krippendorff_distance', 'weight_matrix',),
}, internal={  # for the library's other packages (api/_statistics.py, analysis), not in __all__
    "softirr_stats.agreement._category_weights": ('CategoryWeights', 'weights_clash',),
    "softirr_stats.agreement._kernels": ('ordinal_delta',),
    "softirr_stats.agreement._distance": ('KDE_LOWER', 'distance_samples', 'distance_statistic', 'kde_bandwidth', 'ks_greater', 'sigma_kde', 'sigma_quantile',),
    "softirr_stats.agreement._multilabel": ('BASELINES', 'MultilabelStatistic', 'multilabel_data', 'multilabel_summary',),
    "softirr_stats.agreement._registry": ('more_raters_hint', 'statistic_records',),
    "softirr_stats.agreement._result": ('count_text',),
    "softirr_stats.agreement._xrr": ('ITEM_WEIGHTS', 'match_replications', 'normalized_kappa', 'replication_alpha', 'xrr_evaluate', 'xrr_prepare',),
})

if TYPE_CHECKING:
    from softirr_stats.agreement._categorical_tests import (
        MARGINAL_TESTS,
        MarginalTestResult,
        all_agree_share,
        category_kappa_rows,
        light_null_z,
    )
    from softirr_stats.agreement._category_weights import (
        CategoryWeights,
        weights_clash,
    )
    from softirr_stats.agreement._chance import (
        CHANCE_SYNTAX,
        MonteCarlo,
        SampledPairs,
        resolve_chance,
    )
    from softirr_stats.agreement._distance import (
        KDE_LOWER,
        distance_samples,
        distance_statistic,
        kde_bandwidth,
        ks_greater,
        sigma_kde,
        sigma_quantile,
    )
    from softirr_stats.agreement._evaluator import (
        DegenerateWarning,
        Prepared,
        chance_standard_error,
        evaluate,
        prepare,
    )
    from softirr_stats.agreement._families import (
        FAMILIES,
        ChanceFamily,
        get_family,
    )
    from softirr_stats.agreement._kernels import ordinal_delta
    from softirr_stats.agreement._layout import (
        RatingLayout,
        rating_layout,
    )
    from softirr_stats.agreement._linearised import (
        Terms,
        linearised_terms,
    )
    from softirr_stats.agreement._missing_peers import (
        MISSING_RATINGS,
        MissingRatingsHandling,
        missing_ratings_note,
    )
    from softirr_stats.agreement._multilabel import (
        BASELINES,
        MultilabelStatistic,
        multilabel_data,
        multilabel_summary,
    )
    from softirr_stats.agreement._point import (
        as_annotations,
        point_estimate,
    )
    from softirr_stats.agreement._registry import (
        ALPHA_LEVELS,
        COEFFICIENTS,
        Coefficient,
        Resolved,
        coefficient_table,
        default_coefficients,
        get_coefficient,
        more_raters_hint,
        register,
        statistic_records,
    )
    from softirr_stats.agreement._result import (
        NOTE_PREFIXES,
        AgreementResult,
        CrossKappaResult,
        MultilabelResult,
        count_text,
    )
    from softirr_stats.agreement._scores import (
        ICC_FORMS,
        IccForm,
        ScoreStatistic,
        anova_terms,
        ccc_interval,
        ccc_se,
        ccc_values,
        ccc_z,
        icc_f_test,
        icc_interval,
        icc_values,
        kendall_w_values,
        numeric_table,
        resolve_icc_form,
        satterthwaite_test,
    )
    from softirr_stats.agreement._similarity import (
        MEASURE_NAMES,
        SIMILARITY_NAMES,
        ExactMatchSimilarity,
        LabelSimilarity,
        MatrixSimilarity,
        category_values,
        estimator_from_name,
        level_similarity,
        resolve_similarity,
        similarity_kind,
    )
    from softirr_stats.agreement._statistic import (
        Statistic,
    )
    from softirr_stats.agreement._weights import (
        WEIGHT_NAMES,
        krippendorff_distance,
        weight_matrix,
    )
    from softirr_stats.agreement._xrr import (
        ITEM_WEIGHTS,
        match_replications,
        normalized_kappa,
        replication_alpha,
        xrr_evaluate,
        xrr_prepare,
    )
