"""Analytic (linearised, non-null) standard errors and intervals (docs/formulas/variance.md).

Every supported coefficient gets a per-item *linearised term* ``phi_i`` whose spread is the
variance of the coefficient:

- percent agreement, Fleiss / Scott (pooled chance), Conger / Cohen (per-rater chance),
  Gwet's AC1/AC2 and Brennan-Prediger: Gwet's (2008, 2014) linearisation as coded in R
  ``irrCAC`` (``*.raw`` functions), missing ratings allowed;
- Krippendorff's alpha: Gwet's form (``krippen.alpha.raw``), centred at ``alpha'`` (the
  coefficient without the ``1/sum(r_i)`` small-sample term);
- with two raters and no missing rating the same terms give the Fleiss-Cohen-Everitt (1969)
  non-null variance of Cohen's (weighted) kappa and irrCAC's contingency-table variances
  (Scott, AC1, Brennan-Prediger, percent agreement, alpha), as used by statsmodels'
  ``cohens_kappa`` (``std_kappa``).

``Var = (1 - f) / (n * d) * sum_i (phi_i - coef)^2`` with ``f = n / N_pop`` (finite-population
correction) and ``d = n - 1`` (``form="raw"``, irrCAC's raw-data functions) or ``d = n``
(``form="table"``: the 2 x 2-rater contingency-table formulas of FCE 1969, statsmodels and irrCAC).
``form="auto"`` picks ``"table"`` for exactly two raters with no missing rating, else ``"raw"``.

Soft coefficients are the weighted formulas with the weight matrix replaced by the similarity
``S`` over the labels in the data (docs/formulas/coefficients.md). The interval is
``coef +- t_{n-1, 1-(1-level)/2} * SE`` with the **upper limit truncated at 1** and the lower limit
not truncated (irrCAC's convention). A null-hypothesis variance is never used for an interval.
"""

import math
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from softirr_stats._validation import check_choice, check_level
from softirr_stats.agreement import AgreementResult, DegenerateWarning, Prepared, Terms, linearised_terms

__all__ = ["Analytic", "ANALYTIC_FORMS", "attach_analytic", "analytic_terms", "analytic_interval", "check_supported",
           "reinterval"]

ANALYTIC_FORMS = ("auto", "raw", "table")
_BOOTSTRAP_HINT = "use ci=softirr_stats.Bootstrap(...) instead"


@dataclass(frozen=True)
class Analytic:
    """An analytic (linearised) interval request.

    Parameters
    ----------
    level : float
        Confidence level in (0, 1).
    population : int, optional
        Size ``N_pop`` of the finite population of items the items were drawn from; the
        variance is multiplied by ``1 - n_items / N_pop``. None = infinite population.
    form : {"auto", "raw", "table"}
        Divisor of the variance: ``"raw"`` uses ``n (n - 1)`` (irrCAC's raw-data functions),
        ``"table"`` uses ``n^2`` (Fleiss-Cohen-Everitt 1969, statsmodels, irrCAC's 2-rater
        table functions); ``"auto"`` is ``"table"`` for two raters without missing ratings and
        ``"raw"`` otherwise.

    Examples
    --------
    >>> Analytic(level=0.9, population=500)
    Analytic(level=0.9, population=500, form='auto')
    """

    level: float = 0.95
    population: int | None = None
    form: str = "auto"

    def __post_init__(self) -> None:
        check_level(self.level)
        check_choice("form", self.form, ANALYTIC_FORMS)
        p = self.population
        if p is not None:
            if isinstance(p, bool) or not isinstance(p, int | np.integer):
                raise TypeError(f"population must be None or an integer number of items; got {p!r}")
            if p < 1:
                raise ValueError(f"population must be >= 1; got {p}")


def check_supported(prep: Prepared) -> None:
    """Raise a ValueError (pointing to the bootstrap) where no analytic variance exists."""
    if prep.family.terms is None:
        raise ValueError(prep.family.no_analytic + "; " + _BOOTSTRAP_HINT)
    if prep.chance_pairs is not None:
        raise ValueError(f"analytic standard errors need chance='exact'; this estimate used {prep.chance_label}. "
                         "A bootstrap resamples the chance pairs as well: " + _BOOTSTRAP_HINT)


def analytic_terms(prep: Prepared) -> Terms:
    """Linearised per-item terms of the prepared coefficient (raises where none exist)."""
    check_supported(prep)
    return linearised_terms(prep)


def analytic_interval(value: float, se: float, df: int, level: float) -> tuple[float, float]:
    """``value +- t_{df, 1-(1-level)/2} * se``, upper limit truncated at 1 (irrCAC).

    Examples
    --------
    >>> lo, hi = analytic_interval(0.7964094022, 0.0589107183, 99, 0.95)
    >>> round(lo, 3), round(hi, 3)
    (0.68, 0.913)
    """
    if not (math.isfinite(value) and math.isfinite(se)) or df < 1:
        return math.nan, math.nan
    from scipy.special import (
        stdtrit,  # Student t quantile; scipy.stats itself costs seconds to import
    )

    h = float(stdtrit(df, 0.5 + level / 2.0)) * se
    return value - h, min(1.0, value + h)


def attach_analytic(result: AgreementResult, prep: Prepared, cfg: Analytic | None = None) -> AgreementResult:
    """Return ``result`` carrying an analytic standard error and interval.

    Parameters
    ----------
    result : AgreementResult
        The point estimate (from the public coefficient function).
    prep : Prepared
        The prepared coefficient behind ``result``.
    cfg : Analytic, optional
        Level, finite population and variance form (default ``Analytic()``).

    Raises
    ------
    ValueError
        For coefficients without an analytic variance (Light's kappa, ordinal alpha), for
        sampled / Monte Carlo chance, and for ``population`` smaller than the number of items.

    Examples
    --------
    irrCAC's ``cont3x3abstractors`` (Cohen's kappa SE 0.0589107183, FCE 1969):

    >>> import numpy as np, softirr_stats as sis
    >>> table = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    >>> a, b = np.nonzero(table)
    >>> rows = [[i, j] for i, j in zip(a, b) for _ in range(table[i, j])]
    >>> r = sis.cohen_kappa(rows, ci="analytic")
    >>> round(r.se, 10), round(r.ci_low, 3), round(r.ci_high, 3)
    (0.0589107183, 0.68, 0.913)
    """
    cfg = Analytic() if cfg is None else cfg
    if not isinstance(cfg, Analytic):
        raise TypeError(f"cfg must be softirr_stats.uncertainty.Analytic; got {type(cfg).__name__}")
    check_supported(prep)
    n = int((prep.design.r_i >= 1).sum())
    if cfg.population is not None and cfg.population < n:
        raise ValueError(f"population must be >= the number of rated items ({n}); got {cfg.population}")
    f = 0.0 if cfg.population is None else n / cfg.population
    if not math.isfinite(result.value):
        note = "analytic standard error undefined: the coefficient is undefined (nan)"
        out = result.with_interval(math.nan, math.nan, math.nan, cfg.level, "analytic", analytic_df=n - 1,
                                   analytic_fpc=1.0 - f, analytic_population=cfg.population)
        return replace(out, warnings=(*result.warnings, note))
    terms = analytic_terms(prep)
    form = cfg.form
    if form == "auto":
        form = "table" if terms.complete_two_raters else "raw"
    m = terms.n_var
    notes = list(result.warnings)
    se = math.nan
    if m >= 2 and np.all(np.isfinite(terms.phi)) and math.isfinite(terms.center):
        div = m * (m - 1.0) if form == "raw" else float(m) * m
        se = math.sqrt(max(0.0, (1.0 - f) * float(np.sum((terms.phi - terms.center) ** 2)) / div))
    else:
        notes.append("analytic standard error undefined (fewer than 2 items, or the coefficient is undefined)")
    if math.isfinite(result.value) and abs(terms.coef - result.value) > 1e-8 * max(1.0, abs(result.value)):
        notes.append(f"analytic SE: the linearised coefficient {terms.coef!r} differs from the estimate "
                     f"{result.value!r}; the SE may not match it")  # pragma: no cover - consistency guard
    lo, hi = analytic_interval(result.value, se, n - 1, cfg.level)
    if math.isfinite(hi) and result.value + (result.value - lo) > 1.0:
        notes.append("analytic interval: upper limit truncated at 1 (irrCAC convention)")
    out = result.with_interval(lo, hi, se, cfg.level, "analytic", analytic_formula=terms.formula,
                               analytic_form=form, analytic_df=n - 1, analytic_fpc=1.0 - f,
                               analytic_population=cfg.population)
    return replace(out, warnings=tuple(notes))


def reinterval(result: AgreementResult, cfg: Analytic) -> AgreementResult:
    """Re-derive an analytic interval for another level / population from ``result.se``.

    ``result`` must carry an analytic interval made with ``Analytic()`` defaults.

    Parameters
    ----------
    result : AgreementResult
        A result with an analytic interval (``ci="analytic"``).
    cfg : Analytic
        The new level and/or population (finite-population correction).

    Returns
    -------
    AgreementResult
        The same estimate and SE with the interval of ``cfg``.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> a = sis.fleiss_kappa([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]], ci="analytic")
    >>> b = reinterval(a, Analytic(level=0.9))
    >>> b.level, bool(b.ci_high - b.ci_low < a.ci_high - a.ci_low), b.se == a.se
    (0.9, True, True)
    """
    if result.ci_method != "analytic" or "analytic_df" not in result.details:
        raise ValueError("reinterval needs a result with an analytic interval")
    if cfg.form not in ("auto", result.details.get("analytic_form")):
        raise ValueError("reinterval cannot change the variance form; call attach_analytic")
    n = int(result.details["analytic_df"]) + 1
    if cfg.population is not None and cfg.population < n:
        raise ValueError(f"population must be >= the number of rated items ({n}); got {cfg.population}")
    fpc_old = float(result.details.get("analytic_fpc", 1.0))
    fpc = 1.0 if cfg.population is None else 1.0 - n / cfg.population
    se = result.se * math.sqrt(fpc / fpc_old) if fpc_old > 0 else math.nan
    lo, hi = analytic_interval(result.value, se, n - 1, cfg.level)
    return result.with_interval(lo, hi, se, cfg.level, "analytic", analytic_fpc=fpc,
                                analytic_population=cfg.population)


def attach_own_variance(result: AgreementResult, stat: Any, cfg: Analytic) -> AgreementResult:
    """The analytic interval of a statistic that carries its own linearised variance.

    ``stat.analytic_variance()`` returns ``(se, df, notes, details)`` (e.g. the delta method of
    the prediction-powered estimate over its judged draws, with a Student-t ``df``); the interval
    is :func:`analytic_interval`'s, with the same truncation at 1, and a zero-width interval
    always comes with a warning saying why.

    Parameters
    ----------
    result : AgreementResult
        The point estimate.
    stat : Any
        A statistic with ``analytic_variance()``.
    cfg : Analytic
        The level (``population`` does not apply).

    Returns
    -------
    AgreementResult

    Examples
    --------
    >>> class Own:
    ...     def analytic_variance(self):
    ...         return 0.0, 9.0, [], {}
    >>> r = AgreementResult("fleiss_kappa", 0.5, 0.75, 0.5, 10, 2)
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     out = attach_own_variance(r, Own(), Analytic())
    >>> out.ci_low == out.ci_high, "zero width" in out.warnings[-1]
    (True, True)
    """
    if cfg.population is not None:
        raise ValueError("Analytic(population=...) does not apply here: this statistic's variance is "
                         "conditional on the items (no finite-population correction)")
    se, df, own_notes, extra = stat.analytic_variance()
    extra = dict(extra)
    method = extra.pop("ci_method", "analytic")
    notes = [*result.warnings, *own_notes]
    lo, hi = analytic_interval(result.value, se, df if math.isfinite(df) else math.inf, cfg.level)
    if math.isfinite(lo) and math.isfinite(hi) and lo > hi:  # the estimate itself is above 1
        lo = hi
    if math.isfinite(hi) and math.isfinite(se) and result.value + (result.value - lo) > 1.0 + 1e-15:
        notes.append("analytic interval: upper limit truncated at 1 (irrCAC convention)")
    if math.isfinite(lo) and lo == hi:
        why = ("the standard error is 0" if se == 0 else "the estimate lies above the largest possible value 1")
        msg = f"{method} interval of zero width: {why}; it does not describe the uncertainty"
        warnings.warn(msg, DegenerateWarning, stacklevel=4)
        notes.append(msg)
    out = result.with_interval(lo, hi, se, cfg.level, method, analytic_df=df, **extra)
    return replace(out, warnings=tuple(notes))

