"""softirr_stats: inter-rater reliability with soft agreement and honest uncertainty.

>>> import softirr_stats as sis
>>> ann = sis.Annotations.from_wide([["fatigue", "asthenia"], ["fever", "fever"], ["cough", "cough"]])
>>> round(sis.cohen_kappa(ann).value, 4)
0.5714
"""

from softirr_stats import agreement, calibration, data, equivalence, reporting, uncertainty
from softirr_stats._coefficients import (
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
from softirr_stats._scoring_plan import ScoringPlan, scoring_plan
from softirr_stats._sensitivity import sensitivity
from softirr_stats._statistics import cross_kappa, distance_agreement, multilabel_agreement
from softirr_stats.agreement import AgreementResult, DegenerateWarning, MonteCarlo, SampledPairs
from softirr_stats.agreement._judging import JudgingPlan, judging_plan, read_judgments
from softirr_stats.data import Annotations, UnpairableItemsWarning, read_annotations
from softirr_stats.uncertainty import Analytic, Bootstrap

__version__ = "0.1.0"

_LAZY = {"annotator_agreement": ("softirr_stats.inference", "annotator_agreement"),
         "models": ("softirr_stats.models", None), "inference": ("softirr_stats.inference", None)}


def __getattr__(name: str):  # PEP 562: NumPyro is imported only when the annotator models are used
    if name in _LAZY:
        import importlib

        module, attr = _LAZY[name]
        mod = importlib.import_module(module)
        value = mod if attr is None else getattr(mod, attr)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'softirr_stats' has no attribute {name!r}")

__all__ = [
    "Analytic", "reporting", "sensitivity", "annotator_agreement", "models", "inference",
    "AgreementResult", "Annotations", "Bootstrap", "DegenerateWarning", "MonteCarlo", "SampledPairs",
    "UnpairableItemsWarning", "agreement", "calibration", "brennan_prediger", "cohen_kappa", "conger_kappa", "cross_kappa", "data", "distance_agreement", "multilabel_agreement",
    "equivalence", "fleiss_kappa", "gwet_ac1", "krippendorff_alpha", "light_kappa", "percent_agreement",
    "read_annotations", "scott_pi", "uncertainty", "ScoringPlan", "scoring_plan", "JudgingPlan", "judging_plan", "read_judgments",
]
