"""Agreement coefficients: pure JAX kernels over item/rater weights, and their results.

All coefficients are higher-is-better; 1 means perfect agreement. The public functions
(``softirr_stats.cohen_kappa`` and friends) live in :mod:`softirr_stats._api` because they
also attach intervals from the uncertainty layer. Names load on first use (JAX with the
kernels), so importing a light submodule such as ``_weights`` does not import JAX.
"""

from typing import TYPE_CHECKING

from softirr_stats._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.agreement._chance": ("MonteCarlo", "SampledPairs"),
    "softirr_stats.agreement._core": ("as_annotations", "point_estimate"),
    "softirr_stats.agreement._engine": ("DegenerateWarning", "Prepared", "evaluate", "prepare"),
    "softirr_stats.agreement._result": ("AgreementResult", "CrossKappaResult", "MultilabelResult"),
    "softirr_stats.agreement._similarity": ("VocabSimilarity", "resolve_similarity"),
    "softirr_stats.agreement._weights": ("WEIGHT_NAMES", "krippendorff_distance", "weight_matrix"),
})

if TYPE_CHECKING:
    from softirr_stats.agreement._chance import MonteCarlo, SampledPairs
    from softirr_stats.agreement._core import as_annotations, point_estimate
    from softirr_stats.agreement._engine import DegenerateWarning, Prepared, evaluate, prepare
    from softirr_stats.agreement._result import AgreementResult, CrossKappaResult, MultilabelResult
    from softirr_stats.agreement._similarity import VocabSimilarity, resolve_similarity
    from softirr_stats.agreement._weights import WEIGHT_NAMES, krippendorff_distance, weight_matrix
