"""softirr_stats: inter-rater reliability with soft agreement and honest uncertainty.

``import softirr_stats`` is cheap: it loads no third-party package. The data model
(:class:`Annotations`, NumPy), the coefficients (JAX), intervals (SciPy), plots (matplotlib),
readers (pandas), estimators (torch/transformers) and annotator models (NumPyro) are
imported when a name is first used (PEP 562 module attributes). Compiled JAX programs are
kept between processes (see :func:`compile_cache`).

>>> import softirr_stats as sis
>>> ann = sis.Annotations.from_wide([["fatigue", "asthenia"], ["fever", "fever"], ["cough", "cough"]])
>>> round(sis.cohen_kappa(ann).value, 4)
0.5714
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__version__ = "0.1.0"

_SUBMODULES = [f"softirr_stats.{m}" for m in ("agreement", "calibration", "data", "equivalence", "inference",
                                                "models", "planning", "reporting", "uncertainty")]
_EXPORTS = {
    "softirr_stats.api._coefficients": ("brennan_prediger", "cohen_kappa", "conger_kappa", "fleiss_kappa", "gwet_ac1",
                                    "krippendorff_alpha", "light_kappa", "percent_agreement", "scott_pi"),
    "softirr_stats.api._statistics": ("cross_kappa", "distance_agreement", "multilabel_agreement", "span_agreement"),
    "softirr_stats.api._permutation_test": ("permutation_test",),
    "softirr_stats.api._score_statistics": ("icc", "kendall_w", "lin_ccc"),
    "softirr_stats.api._categorical_statistics": ("all_agree", "category_kappa", "kappa_test", "marginal_homogeneity"),
    "softirr_stats.analysis._sensitivity": ("sensitivity",),
    "softirr_stats.analysis._scoring_plan": ("ScoringPlan", "scoring_plan"),
    "softirr_stats.base._jax": ("compile_cache",),
    "softirr_stats.data._annotations": ("Annotations", "UnpairableItemsWarning", "UnratedRatersWarning"),
    "softirr_stats.agreement._result": ("AgreementResult",),
    "softirr_stats.agreement._evaluator": ("DegenerateWarning",),
    "softirr_stats.agreement._chance": ("MonteCarlo", "SampledPairs"),
    "softirr_stats.ppi": ("JudgingPlan", "judging_plan", "read_judgments"),
    "softirr_stats.data._io": ("read_annotations",),
    "softirr_stats.uncertainty._analytic": ("Analytic",),
    "softirr_stats.uncertainty._bootstrap": ("Bootstrap",),
    "softirr_stats.uncertainty": ("Permutation",),
    "softirr_stats.uncertainty._few_units": ("FewUnitsWarning",),
    "softirr_stats.inference": ("annotator_agreement",),
    "softirr_stats.comparison": ("ComparisonResult", "ReferenceResult", "ReplacementResult", "against_reference",
                                 "compare", "compare_groups", "leave_one_rater_out", "replacement_test"),
    "softirr_stats.planning": ("PlanResult", "plan_items"),
    "softirr_stats.reporting._summary": ("sensitivity_summary",),
}
__getattr__, __dir__, __all__ = attach(__name__, _EXPORTS, _SUBMODULES)

if TYPE_CHECKING:  # what static tools see; at run time these load on first use
    from softirr_stats import (
        agreement,
        calibration,
        data,
        equivalence,
        inference,
        models,
        planning,
        reporting,
        uncertainty,
    )
    from softirr_stats.agreement import AgreementResult, DegenerateWarning, MonteCarlo, SampledPairs
    from softirr_stats.analysis import ScoringPlan, scoring_plan, sensitivity
    from softirr_stats.api._categorical_statistics import (
        all_agree,
        category_kappa,
        kappa_test,
        marginal_homogeneity,
    )
    from softirr_stats.api._coefficients import (
        brennan_prediger,
        cohen_kappa,
        conger_kappa,
        fleiss_kappa,
        gwet_ac1,
        krippendorff_alpha,
        light_kappa,
        percent_agreement,
        scott_pi,
    )
    from softirr_stats.api._permutation_test import permutation_test
    from softirr_stats.api._score_statistics import icc, kendall_w, lin_ccc
    from softirr_stats.api._statistics import (
        cross_kappa,
        distance_agreement,
        multilabel_agreement,
        span_agreement,
    )
    from softirr_stats.base._jax import compile_cache
    from softirr_stats.comparison import (
        ComparisonResult,
        ReferenceResult,
        ReplacementResult,
        against_reference,
        compare,
        compare_groups,
        leave_one_rater_out,
        replacement_test,
    )
    from softirr_stats.data import (
        Annotations,
        UnpairableItemsWarning,
        UnratedRatersWarning,
        read_annotations,
    )
    from softirr_stats.inference import annotator_agreement
    from softirr_stats.planning import PlanResult, plan_items
    from softirr_stats.ppi import JudgingPlan, judging_plan, read_judgments
    from softirr_stats.reporting import sensitivity_summary
    from softirr_stats.uncertainty import Analytic, Bootstrap, FewUnitsWarning, Permutation
