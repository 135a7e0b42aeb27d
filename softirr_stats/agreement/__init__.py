"""Agreement coefficients: pure JAX kernels over item/rater weights, and their results.

All coefficients are higher-is-better; 1 means perfect agreement. The public functions
(``softirr_stats.cohen_kappa`` and friends) live in :mod:`softirr_stats._api` because they
also attach intervals from the uncertainty layer.
"""

from softirr_stats.agreement._chance import MonteCarlo, SampledPairs
from softirr_stats.agreement._core import as_annotations, point_estimate
from softirr_stats.agreement._engine import DegenerateWarning, Prepared, evaluate, prepare
from softirr_stats.agreement._result import AgreementResult, CrossKappaResult, MultilabelResult
from softirr_stats.agreement._similarity import VocabSimilarity, resolve_similarity
from softirr_stats.agreement._weights import WEIGHT_NAMES, krippendorff_distance, weight_matrix

__all__ = [
    "AgreementResult", "CrossKappaResult", "MultilabelResult", "DegenerateWarning", "MonteCarlo",
    "SampledPairs", "Prepared", "VocabSimilarity", "WEIGHT_NAMES", "as_annotations", "evaluate",
    "krippendorff_distance", "point_estimate", "prepare", "resolve_similarity", "weight_matrix",
]
