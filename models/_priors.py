"""Prior configurations for the annotator models (frozen dataclasses).

Default choice: *diagonal-favouring* priors whose prior mean accuracy and strength do not
depend on the number of classes K. Each confusion row ``R(. | c)`` is
``Dir(alpha_c)`` with ``alpha_cc = 0.75 * 4`` and ``alpha_ck = 0.25 * 4 / (K - 1)``: prior
mean accuracy 0.75 and the weight of 4 ratings, for every K. The logistic models centre
the wrong-label logits at ``-log(0.75 (K - 1) / 0.25)``, the same prior mean accuracy.

Why: a uniform ``Dir(1)`` row pulls every accuracy towards 1/K and deflates the implied
agreement (on Dawid & Skene's 1979 data: model kappa 0.36 against an observed 0.58). The
earlier fix, ``Dir(1 + 9 I)``, has prior mean accuracy ``10 / (K + 9)`` and ``K + 9``
pseudo-ratings per row: 0.71 at K = 5 but 0.53 at K = 10, and with 30 items x 3 raters x
10 classes (about three ratings per row) it dominated the data (model kappa 0.25 against
Fleiss' 0.57). A fixed mean and a fixed, weak concentration keep the prior's say the same
whatever K. The diagonal mean still breaks the label-switching symmetry: a sampler started
at the prior mean stays in the mode where latent class c means label c.

Why 4 pseudo-ratings and not fewer (a trade-off, measured; ``paper_repro/ds_prior_study.py``
and ``paper_repro/adversary_study.py``, table in docs/annotator_models.md, "The default
Dawid-Skene prior: a sweep of its weight"): a weaker row (``concentration`` 1 or 2, the same
prior mean 0.75) pulls an adversarial annotator's accuracy less (60 items x 5 raters, true
accuracy 0.25: bias +0.05 / +0.07 against +0.11 by default, model kappa +0.00 / +0.01
against +0.04; 40 fits each), but on the small many-class study above (30 items x 3 raters x
10 classes, 50 studies) it leaves model kappa lower and the rater accuracies worse (kappa bias
-0.129 / -0.121 against -0.113; accuracy error 0.071 / 0.065 against 0.059) and, on 20-item
studies with weak raters, lets NUTS chains visit permuted labellings far more often (3-9% /
0.5-3.5% of the draws against under 1%). So the default stays;
pass ``DawidSkenePriors(concentration=1.0)`` when an annotator may answer against the truth.
"""

import math
from dataclasses import dataclass, fields

import numpy as np

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
        if isinstance(value, int | float) and f.name not in ("diagonal_logit", "accuracy"):
            if not (math.isfinite(value) and value > 0):
                raise ValueError(f"{type(obj).__name__}.{f.name} must be a positive finite "
                                 f"number; got {value!r}")


def _check_accuracy(obj: object) -> None:
    acc = obj.accuracy  # type: ignore[attr-defined]
    if isinstance(acc, bool) or not isinstance(acc, int | float) or not 0.0 < acc < 1.0:
        raise ValueError(f"{type(obj).__name__}.accuracy must be a number in (0, 1); got "
                         f"{acc!r}")


@dataclass(frozen=True)
class MultinomialPriors:
    """Priors of the pooled multinomial model.

    ``pi ~ Dir(class_concentration)``; each confusion row ``zeta_c ~ Dir(alpha_c)`` with

    * default: ``alpha_cc = accuracy * concentration`` and ``alpha_ck = (1 - accuracy)
      * concentration / (K - 1)`` for ``k != c``: the prior mean accuracy is ``accuracy``
      and the prior weighs ``concentration`` pseudo-ratings per row, *whatever K*;
    * explicit: ``confusion_diagonal`` and/or ``confusion_off_diagonal`` given, then
      ``alpha_c = off + (diag - off) e_c`` (the missing one defaults to 1), e.g.
      ``confusion_diagonal=1.0`` for the uniform ``Dir(1)`` rows.

    Parameters
    ----------
    class_concentration : float
        Dirichlet concentration of the prevalences ``pi``.
    accuracy : float
        Prior mean of the correct label's probability (default rows).
    concentration : float
        Pseudo-ratings per confusion row (default rows).
    confusion_diagonal, confusion_off_diagonal : float, optional
        Explicit Dirichlet parameters of the rows instead.

    Examples
    --------
    >>> p = MultinomialPriors()
    >>> p.accuracy, p.concentration
    (0.75, 4.0)
    >>> [round(float(x), 4) for x in p.row_concentration(10)[0, :3]]
    [3.0, 0.1111, 0.1111]
    >>> MultinomialPriors(confusion_diagonal=10.0).row_concentration(3)[0].tolist()
    [10.0, 1.0, 1.0]
    """

    class_concentration: float = 1.0
    accuracy: float = 0.75
    concentration: float = 4.0
    confusion_diagonal: float | None = None
    confusion_off_diagonal: float | None = None

    def __post_init__(self) -> None:
        _check_positive(self)
        _check_accuracy(self)

    @property
    def explicit(self) -> bool:
        """True when the rows are set by ``confusion_diagonal`` / ``confusion_off_diagonal``."""
        return self.confusion_diagonal is not None or self.confusion_off_diagonal is not None

    def row_concentration(self, n_classes: int) -> "np.ndarray":
        """``(K, K)`` Dirichlet concentrations of the confusion rows (row c = true class c)."""
        k = int(n_classes)
        eye = np.eye(k)
        if self.explicit:
            diag = 1.0 if self.confusion_diagonal is None else float(self.confusion_diagonal)
            off = 1.0 if self.confusion_off_diagonal is None else float(self.confusion_off_diagonal)
        else:
            diag = self.accuracy * self.concentration
            off = (1.0 - self.accuracy) * self.concentration / (k - 1)
        return off + (diag - off) * eye

    def prior_mean_accuracy(self, n_classes: int) -> float:
        """Prior mean of ``R(c | c)`` for K = ``n_classes``.

        Examples
        --------
        >>> [round(MultinomialPriors().prior_mean_accuracy(k), 2) for k in (2, 5, 10, 50)]
        [0.75, 0.75, 0.75, 0.75]
        >>> round(MultinomialPriors(confusion_diagonal=10.0).prior_mean_accuracy(10), 2)
        0.53
        """
        row = self.row_concentration(n_classes)[0]
        return float(row[0] / row.sum())


@dataclass(frozen=True)
class DawidSkenePriors(MultinomialPriors):
    """Priors of Dawid-Skene: ``beta[j, c] ~ Dir(alpha_c)`` per rater and true class.

    The rows are those of :class:`MultinomialPriors` (prior mean accuracy 0.75 and 4
    pseudo-ratings per row for every K by default). The weight of 4 is a measured
    trade-off (module docstring): ``concentration=1.0`` halves the pull on an adversarial
    annotator's accuracy but does worse on small many-class studies.

    Parameters
    ----------
    class_concentration, accuracy, concentration, confusion_diagonal, confusion_off_diagonal
        As in :class:`MultinomialPriors` (one confusion row per rater and true class).

    Examples
    --------
    >>> DawidSkenePriors(confusion_diagonal=1.0).row_concentration(3).tolist()  # Dir(1)
    [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    """


@dataclass(frozen=True)
class MacePriors:
    """Priors of MACE (Hovy et al. 2013).

    ``theta_j ~ Beta(competence_a, competence_b)`` is P(rater j is not spamming);
    ``epsilon_j ~ Dir(spam_concentration)`` is the spamming distribution. The default
    ``Beta(2, 1)`` (prior mean 2/3) favours competence (MACE's original ``Beta(0.5, 0.5)``
    can be set explicitly).

    Parameters
    ----------
    competence_a, competence_b : float
        Beta prior of each rater's competence ``theta_j``.
    spam_concentration : float
        Dirichlet concentration of each rater's spamming distribution.

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
    population mean ``zeta[c, k] ~ N(-d_K, location_scale)`` with ``d_K =
    log(accuracy (K - 1) / (1 - accuracy))``, the offset at which the correct label has
    probability ``accuracy`` for every K (or ``d_K = diagonal_logit`` when given); rater
    (and item) deviations are ``N(0, scale)`` with ``scale ~ HalfNormal(scale_scale)``,
    non-centred.

    Parameters
    ----------
    class_concentration : float
        Dirichlet concentration of the prevalences.
    accuracy : float
        Prior probability of the correct label (sets ``d_K``).
    diagonal_logit : float, optional
        ``d_K`` itself, for every K.
    location_scale : float
        Standard deviation of the population logits.
    scale_scale : float
        Scale of the half-normal prior of the rater (and item) deviation scales.

    Examples
    --------
    >>> p = HierarchicalPriors()
    >>> [round(p.offdiag_logit(k), 3) for k in (2, 10)]
    [-1.099, -3.296]
    >>> HierarchicalPriors(diagonal_logit=2.0).offdiag_logit(10)
    -2.0
    """

    class_concentration: float = 1.0
    accuracy: float = 0.75
    diagonal_logit: float | None = None
    location_scale: float = 1.0
    scale_scale: float = 1.0

    def __post_init__(self) -> None:
        _check_positive(self)
        _check_accuracy(self)
        if self.diagonal_logit is not None and not math.isfinite(self.diagonal_logit):
            raise ValueError(f"diagonal_logit must be finite; got {self.diagonal_logit!r}")

    def offdiag_logit(self, n_classes: int) -> float:
        """Prior mean of each wrong label's logit (the correct label's logit is 0)."""
        if self.diagonal_logit is not None:
            return -float(self.diagonal_logit)
        k = int(n_classes)
        return -math.log(self.accuracy * (k - 1) / (1.0 - self.accuracy))


@dataclass(frozen=True)
class SoftAgreementPriors:
    """Priors of the soft-agreement (Beta mixture) model.

    Component means: ``mu0 = sigmoid(m0)``, ``mu1 = mu0 + (1 - mu0) sigmoid(d)`` (so the
    equivalent component always has the larger mean), ``m0, d ~ N(0, mean_logit_scale)``;
    concentrations ``~ LogNormal(log(concentration_loc), concentration_scale)``; the within
    logit intercept ``~ N(0, intercept_scale)``; random-effect scales
    ``~ HalfNormal(effect_scale)``; ``pi_chance ~ Beta(1, 1)``. Scores are clipped to
    ``[score_eps, 1 - score_eps]`` before the Beta densities (scores of exactly 0 or 1
    are common, e.g. exact match). ``emission="monotone"`` uses ``monotone_bins`` equal
    cells on [0, 1] with symmetric Dirichlet weights of total concentration
    ``monotone_concentration`` (see :func:`softirr_stats.models.soft_agreement`);
    ``emission="histogram"`` the same cells plus the two atoms with a symmetric Dirichlet of
    total concentration ``histogram_concentration`` (2: two pseudo-counts in all, so that
    the prior does not spread the equivalent component over the low scores, which would
    raise kappa; sparser makes NUTS diverge at the simplex's edges; see
    docs/annotator_models.md).

    Parameters
    ----------
    mean_logit_scale : float
        Scale of the normal priors of ``m0`` and ``d``.
    concentration_loc, concentration_scale : float
        Log-normal prior of the Beta concentrations.
    intercept_scale : float
        Scale of the normal prior of the within logit intercept.
    effect_scale : float
        Scale of the half-normal priors of the random-effect scales.
    score_eps : float
        Scores are clipped to ``[score_eps, 1 - score_eps]``.
    monotone_bins : int
        Cells of the monotone emission.

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
    monotone_bins: int = 20
    monotone_concentration: float = 4.0
    histogram_concentration: float = 2.0

    def __post_init__(self) -> None:
        _check_positive(self)
        if not self.score_eps < 0.5:
            raise ValueError(f"score_eps must be in (0, 0.5); got {self.score_eps!r}")
        if not isinstance(self.monotone_bins, int) or self.monotone_bins < 2:
            raise ValueError(f"monotone_bins must be an int >= 2; got {self.monotone_bins!r}")
