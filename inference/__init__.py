"""MCMC/SVI runners and posterior summaries (installed as ``softirr_stats.inference``).

``fit(model, data, method="nuts" | "svi", seed=0, config=...)`` returns a
:class:`Posterior`; ``annotator_agreement`` is the one-call path returning an
``AgreementResult`` with a posterior interval.
"""

from softirr_stats.inference._agreement import annotator_agreement
from softirr_stats.inference._config import (
    ConvergenceWarning,
    FitWarning,
    NutsConfig,
    PredictiveCheckWarning,
    PriorDominatedWarning,
    SviConfig,
)
from softirr_stats.inference._fit import fit
from softirr_stats.inference._posterior import Posterior, PredictiveCheck, PriorContraction
from softirr_stats.inference._postprocess import fleiss_kappa_counts, item_counts
from softirr_stats.inference._rater_check import rater_predictive_check

__all__ = [
    "ConvergenceWarning",
    "FitWarning",
    "NutsConfig",
    "Posterior",
    "PredictiveCheck",
    "PredictiveCheckWarning",
    "PriorContraction",
    "PriorDominatedWarning",
    "SviConfig",
    "annotator_agreement",
    "fit",
    "fleiss_kappa_counts",
    "item_counts",
    "rater_predictive_check",
]
