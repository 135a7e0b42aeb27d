"""Prior configurations for the annotator models (frozen dataclasses).

Default choice: *diagonal-favouring* priors. With few items per confusion row, a uniform
Dirichlet(1) prior on each row pulls every rater's accuracy towards 1/K, so the implied
agreement is deflated: on Dawid & Skene's (1979) 45 items the model-implied Fleiss kappa
is 0.36 with Dir(1) rows, 0.52 with Dir(1 + 9 I) rows, against an observed 0.58
(docs/formulas/annotator_models.md). ``Dir(1 + 9 I)`` puts prior mean accuracy 10 / (K + 9) on the
correct label (0.71 for K = 5) while leaving every confusion possible, and it breaks the
label-switching symmetry so that samplers started from the prior stay in the mode where
latent class c means label c. The logistic models use the matching logit offset
``log(10)`` between the correct and each wrong label (the same prior mean).
"""

import math
from dataclasses import dataclass, fields

__all__ = [
    "DawidSkenePriors",
    "HierarchicalPriors",
    "MacePriors",
    "MultinomialPriors",
    "SoftAgreementPriors",
]


def _check_positive(obj: object) -> None:
    for f in fields(obj):  # type: ignore[arg-type]
        value = getattr(obj, f.name)
        if isinstance(value, bool):
            continue
        if isinstance(value, int | float) and f.name not in ("diagonal_logit",):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{type(obj).__name__}.{f.name} must be a positive finite "
                                 f"number; got {value!r}")


@dataclass(frozen=True)
class MultinomialPriors:
    """Priors of the pooled multinomial model.

    ``pi ~ Dir(class_concentration)``, each row ``zeta_c ~ Dir(off + (diag - off) e_c)``.

    Examples
    --------
    >>> MultinomialPriors().confusion_diagonal
    10.0
    """

    class_concentration: float = 1.0
    confusion_diagonal: float = 10.0
    confusion_off_diagonal: float = 1.0

    def __post_init__(self) -> None:
        _check_positive(self)


@dataclass(frozen=True)
class DawidSkenePriors(MultinomialPriors):
    """Priors of Dawid-Skene: ``beta[j, c] ~ Dir(off + (diag - off) e_c)`` per rater/class.

    Examples
    --------
    >>> DawidSkenePriors(confusion_diagonal=1.0).confusion_diagonal  # the uniform Dir(1)
    1.0
    """


@dataclass(frozen=True)
class MacePriors:
    """Priors of MACE (Hovy et al. 2013).

    ``theta_j ~ Beta(competence_a, competence_b)`` is P(rater j is not spamming);
    ``epsilon_j ~ Dir(spam_concentration)`` is the spamming distribution. The default
    ``Beta(2, 1)`` (prior mean 2/3) favours competence (MACE's original ``Beta(0.5, 0.5)``
    can be set explicitly).

    Examples
    --------
    >>> MacePriors().competence_a
    2.0
    """

    competence_a: float = 2.0
    competence_b: float = 1.0
    spam_concentration: float = 10.0

    def __post_init__(self) -> None:
        _check_positive(self)


@dataclass(frozen=True)
class HierarchicalPriors:
    """Priors of the logistic models (HDS, item difficulty, logistic random effects).

    The logit of the correct label is fixed at 0 and each wrong label's logit has a
    population mean ``zeta[c, k] ~ N(-diagonal_logit, location_scale)``; rater (and item)
    deviations are ``N(0, scale)`` with ``scale ~ HalfNormal(scale_scale)``, non-centred.

    Examples
    --------
    >>> round(HierarchicalPriors().diagonal_logit, 4)
    2.3026
    """

    class_concentration: float = 1.0
    diagonal_logit: float = math.log(10.0)
    location_scale: float = 1.0
    scale_scale: float = 1.0

    def __post_init__(self) -> None:
        _check_positive(self)
        if not math.isfinite(self.diagonal_logit):
            raise ValueError(f"diagonal_logit must be finite; got {self.diagonal_logit!r}")


@dataclass(frozen=True)
class SoftAgreementPriors:
    """Priors of the soft-agreement (Beta mixture) model.

    Component means: ``mu0 = sigmoid(m0)``, ``mu1 = mu0 + (1 - mu0) sigmoid(d)`` (so the
    equivalent component always has the larger mean), ``m0, d ~ N(0, mean_logit_scale)``;
    concentrations ``~ LogNormal(log(concentration_loc), concentration_scale)``; the within
    logit intercept ``~ N(0, intercept_scale)``; random-effect scales
    ``~ HalfNormal(effect_scale)``; ``pi_chance ~ Beta(1, 1)``. Scores are clipped to
    ``[score_eps, 1 - score_eps]`` before the Beta densities (scores of exactly 0 or 1
    are common, e.g. exact match).

    Examples
    --------
    >>> SoftAgreementPriors().score_eps
    0.001
    """

    mean_logit_scale: float = 1.5
    concentration_loc: float = 5.0
    concentration_scale: float = 1.0
    intercept_scale: float = 1.5
    effect_scale: float = 1.0
    score_eps: float = 1e-3

    def __post_init__(self) -> None:
        _check_positive(self)
        if not self.score_eps < 0.5:
            raise ValueError(f"score_eps must be in (0, 0.5); got {self.score_eps!r}")
