"""MCMC/SVI runners and posterior summaries (installed as ``softirr_stats.inference``).

``fit(model, data, method="nuts" | "svi", seed=0, config=...)`` returns a
:class:`Posterior`; ``annotator_agreement`` is the one-call path returning an
``AgreementResult`` with a posterior interval.
"""

from softirr_stats.inference._config import (
    ConvergenceWarning,
    FitWarning,
    NutsConfig,
    PredictiveCheckWarning,
    PriorDominatedWarning,
    SviConfig,
)
from softirr_stats.inference._fit import fit
from softirr_stats.inference._kernels import fleiss_kappa_counts, item_counts
from softirr_stats.inference._one_call import annotator_agreement
from softirr_stats.inference._posterior import Posterior, PredictiveCheck, PriorContraction

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
]
