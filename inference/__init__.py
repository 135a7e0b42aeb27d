"""MCMC/SVI runners and posterior summaries (installed as ``softirr_stats.inference``).

``fit(model, data, method="nuts" | "svi", seed=0, config=...)`` returns a
:class:`Posterior`; ``annotator_agreement`` is the one-call path returning an
``AgreementResult`` with a posterior interval (also from an existing fit:
``annotator_agreement(post)``); ``diagnostics(post)`` gives r_hat, ESS, divergences, the
predictive check and caveat lines in one record. Every interval defaults to level 0.95.
"""

from softirr_stats.inference._agreement import PROFILE_MODES, annotator_agreement
from softirr_stats.inference._config import (
    DEFAULT_LEVEL,
    MAX_STEPS,
    ConvergenceWarning,
    FitWarning,
    NutsConfig,
    PredictiveCheckWarning,
    PriorDominatedWarning,
    SviConfig,
    SviDivergedError,
    interval_columns,
)
from softirr_stats.inference._diagnostics import (
    SVI_NOTE,
    FitDiagnostics,
    diagnostics,
    model_caveats,
)
from softirr_stats.inference._fit import fit
from softirr_stats.inference._gold import GOLD_COLUMNS, MIN_GOLD, GoldPairs, gold_pairs
from softirr_stats.inference._posterior import Posterior, PredictiveCheck, PriorContraction
from softirr_stats.inference._postprocess import fleiss_kappa_counts, item_counts
from softirr_stats.inference._prior_sensitivity import prior_sensitivity
from softirr_stats.inference._rater_check import rater_predictive_check
from softirr_stats.inference._size import FitSize, FitSizeError, format_seconds, open_vocabulary
from softirr_stats.inference._soft_check import score_check_statistic
from softirr_stats.inference._soft_profile import (
    PROFILE_REACH,
    ProfileInterval,
    soft_profile_interval,
)

__all__ = [
    "ConvergenceWarning",
    "DEFAULT_LEVEL",
    "FitDiagnostics",
    "FitSize",
    "FitSizeError",
    "FitWarning",
    "GOLD_COLUMNS",
    "GoldPairs",
    "MAX_STEPS",
    "MIN_GOLD",
    "NutsConfig",
    "Posterior",
    "PredictiveCheck",
    "PredictiveCheckWarning",
    "PriorContraction",
    "PriorDominatedWarning",
    "PROFILE_MODES",
    "PROFILE_REACH",
    "ProfileInterval",
    "SVI_NOTE",
    "SviConfig",
    "SviDivergedError",
    "annotator_agreement",
    "diagnostics",
    "fit",
    "fleiss_kappa_counts",
    "format_seconds",
    "gold_pairs",
    "interval_columns",
    "item_counts",
    "model_caveats",
    "open_vocabulary",
    "prior_sensitivity",
    "rater_predictive_check",
    "score_check_statistic",
    "soft_profile_interval",
]
