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
The t quantile's degrees of freedom are ``m - 1`` with ``m`` the units in the variance sum
(``Terms.n_var``): every rated item, except for Krippendorff's alpha, whose variance (and so
its df) counts only the units with two or more ratings, as R ``irrCAC``'s
``krippen.alpha.raw`` documents (``n`` is the number of rows of the agreement matrix after
units with fewer than two ratings are removed; ``qt(1 - (1 - conflev) / 2, n - 1)``).

The same call attaches a test of H0: coefficient = 0 (``result.z``, ``result.p_value``,
two-sided). Where a published variance *under H0* exists it is used: Fleiss, Cohen & Everitt
(1969) for Cohen's (weighted, or soft) kappa with two raters and no missing rating, as
statsmodels' ``cohens_kappa`` (``std_kappa0``), SAS and R ``irr::kappa2`` report it; Fleiss, Nee
& Landis (1979) for Fleiss' kappa (and Scott's pi) with the same number of ratings on every item
and no weights, as R ``irr::kappam.fleiss``; ``z`` is then compared with the normal
distribution. Elsewhere the convention of ``irrCAC``: ``z = value / se`` with the (non-null)
linearised SE and a Student t with the interval's df. ``details`` keeps irrCAC's version in
every case (``z_irrcac``, ``p_value_irrcac``).
"""

import math
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from softirr_stats.agreement import (
    AgreementResult,
    DegenerateWarning,
    Prepared,
    Terms,
    linearised_terms,
)
from softirr_stats.base._validation import check_choice, check_level, user_stacklevel
from softirr_stats.uncertainty._few_units import FewUnitsWarning, few_items_analytic_note
from softirr_stats.uncertainty._hypothesis import normal_p

__all__ = ["Analytic", "ANALYTIC_FORMS", "attach_analytic", "analytic_terms", "analytic_interval", "check_supported",
           "reinterval", "null_variance", "null_test"]

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
    if prep.family.rater_order and prep.sim.asymmetric and not _two_complete(prep):
        raise ValueError("no analytic variance is implemented for Conger's kappa with an asymmetric weights= "
                         "matrix (used as given) beyond two raters rating every item; " + _BOOTSTRAP_HINT)
    if prep.chance_pairs is not None:
        raise ValueError(f"analytic standard errors need chance='exact'; this estimate used {prep.chance_label}. "
                         "A bootstrap resamples the chance pairs as well: " + _BOOTSTRAP_HINT)


def _two_complete(prep: Prepared) -> bool:
    d = prep.layout
    return d.n_raters == 2 and bool(np.all(d.r_i == 2))


def _two_rater_codes(prep: Prepared) -> tuple[np.ndarray, np.ndarray]:
    """Support codes of rater 1 and rater 2 per item (two raters, every item rated by both)."""
    d = prep.layout
    rs, rater, item = np.asarray(prep.rating_s), np.asarray(d.rating_rater), np.asarray(d.rating_item)
    a = np.empty(d.n_items, dtype=np.int64)
    b = np.empty(d.n_items, dtype=np.int64)
    a[item[rater == 0]] = rs[rater == 0]
    b[item[rater == 1]] = rs[rater == 1]
    return a, b


def _as_given_cohen_terms(prep: Prepared) -> Terms:
    """Fleiss, Cohen & Everitt (1969) linearised terms of Cohen's kappa with weights used as given.

    ``u_i = w[a_i, b_i] - (w1[a_i] + w2[b_i]) (1 - kappa)`` with ``w1_k = sum_l p2_l w_kl`` and
    ``w2_l = sum_k p1_k w_kl``; ``Var = sum_i (u_i - mean u)^2 / (n^2 (1 - p_e)^2)`` (statsmodels'
    ``cohens_kappa`` and irrCAC's ``cohen`` table function read the matrix in this order).
    """
    a, b = _two_rater_codes(prep)
    n, ks = len(a), len(prep.support)
    W = np.asarray(prep.sim.block(prep.support, prep.support).values, dtype=np.float64)
    p1 = np.bincount(a, minlength=ks) / n
    p2 = np.bincount(b, minlength=ks) / n
    pa = float(np.mean(W[a, b]))
    pe = float(p1 @ W @ p2)
    kappa = (pa - pe) / (1.0 - pe) if pe < 1.0 else math.nan
    u = W[a, b] - ((W @ p2)[a] + (p1 @ W)[b]) * (1.0 - kappa)
    phi = kappa + (u - u.mean()) / (1.0 - pe)
    return Terms(phi, kappa, kappa, n, n, "fleiss-cohen-everitt (weights as given)", True)


def analytic_terms(prep: Prepared) -> Terms:
    """Linearised per-item terms of the prepared coefficient (raises where none exist).

    Parameters
    ----------
    prep : Prepared
        The prepared coefficient.

    Returns
    -------
    Terms
        Per-item influence values ``phi`` and their centre (``softirr_stats.compare`` differences them).

    Examples
    --------
    >>> from softirr_stats.api._coefficients import estimate_point
    >>> _, prep = estimate_point("fleiss_kappa", [["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> analytic_terms(prep).phi.shape
    (4,)
    """
    check_supported(prep)
    if prep.family.rater_order and prep.sim.asymmetric:
        return _as_given_cohen_terms(prep)
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

    Over fewer than ``FEW_ITEMS`` (20) items that can change the value (``Statistic.informative_items``, the
    bootstrap's count) the interval comes with a :class:`FewUnitsWarning`, kept in ``warnings``
    (:func:`~softirr_stats.uncertainty.few_items_analytic_note`, as ``compare(..., ci="analytic")`` gives it).

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
    n = int((prep.layout.r_i >= 1).sum())
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
    df = m - 1  # units in the variance sum - 1 (alpha: units with >= 2 ratings, as R irrCAC)
    lo, hi = analytic_interval(result.value, se, df, cfg.level)
    if math.isfinite(hi) and result.value + (result.value - lo) > 1.0:
        notes.append("analytic interval: upper limit truncated at 1 (irrCAC convention)")
    few = few_items_analytic_note(int(np.count_nonzero(prep.informative_items)), prep.unit_name) \
        if math.isfinite(lo) else ""
    if few:  # compare(..., ci="analytic")'s note, on the items that can change the value (the bootstrap's count)
        warnings.warn(few, FewUnitsWarning, stacklevel=user_stacklevel())
        notes.append(few)
    out = result.with_interval(lo, hi, se, cfg.level, "analytic", analytic_formula=terms.formula,
                               analytic_form=form, analytic_df=df, analytic_n_items=n, analytic_fpc=1.0 - f,
                               analytic_population=cfg.population)
    out = null_test(out, prep, se, df, notes)
    return replace(out, warnings=tuple(notes))


def _two_sided_t(z: float, df: int) -> float:
    from scipy.special import stdtr

    return float(2.0 * stdtr(df, -abs(z)))


_H0_MAX_LABELS = 4096  # the closed forms build a K x K similarity over the labels in use


def null_variance(prep: Prepared, coefficient: str) -> tuple[float, str] | None:
    """The published variance of the coefficient under H0 (no agreement beyond chance), where one exists.

    - Cohen's kappa (weighted, soft), two raters, no missing rating: Fleiss, Cohen & Everitt
      (1969), ``Var0 = [sum_kl p1_k p2_l (w_kl - (w1_k + w2_l))^2 - p_e^2] / (n (1 - p_e)^2)`` with
      ``w1_k = sum_l p2_l w_kl``, ``w2_l = sum_k p1_k w_kl`` and the weights used as given (row =
      first rater).
    - Fleiss' kappa / Scott's pi, exact matching, ``m`` ratings on every item: Fleiss, Nee &
      Landis (1979), ``Var0 = 2 [(sum_j p_j q_j)^2 - sum_j p_j q_j (q_j - p_j)] /
      (n m (m - 1) (sum_j p_j q_j)^2)``.

    Parameters
    ----------
    prep : Prepared
        The prepared coefficient.
    coefficient : str
        The reported coefficient name.

    Returns
    -------
    (variance, citation) or None
        None where no published H0 variance applies (irrCAC's convention is used instead).

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([[1, 1], [1, 2], [2, 2], [2, 2], [1, 1]])
    >>> _, prep = point_estimate(ann, family="per_rater", coefficient="cohen_kappa", sim=resolve_similarity(ann))
    >>> v, cite = null_variance(prep, "cohen_kappa")
    >>> round(v, 6), cite
    (0.2, 'Fleiss, Cohen & Everitt (1969)')
    """
    d = prep.layout
    h0 = prep.family.null_variance
    n = d.n_items
    if n < 2 or len(prep.support) > _H0_MAX_LABELS or prep.chance_pairs is not None:
        return None
    r = d.r_i
    if h0 == "fleiss_cohen_everitt" and d.n_raters == 2 and bool(np.all(r == 2)):
        rs = np.asarray(prep.rating_s)
        rater = np.asarray(d.rating_rater)
        item = np.asarray(d.rating_item)
        ks = len(prep.support)
        a = np.empty(n, dtype=np.int64)
        b = np.empty(n, dtype=np.int64)
        a[item[rater == 0]] = rs[rater == 0]
        b[item[rater == 1]] = rs[rater == 1]
        p1 = np.bincount(a, minlength=ks) / n
        p2 = np.bincount(b, minlength=ks) / n
        W = np.asarray(prep.sim.block(prep.support, prep.support).values, dtype=np.float64)
        pe = float(p1 @ W @ p2)
        if not pe < 1.0:
            return None
        w1 = W @ p2
        w2 = p1 @ W
        core = float(np.sum(np.outer(p1, p2) * (W - (w1[:, None] + w2[None, :])) ** 2)) - pe**2
        return core / (n * (1.0 - pe) ** 2), "Fleiss, Cohen & Everitt (1969)"
    if (h0 == "fleiss_nee_landis" and coefficient in ("fleiss_kappa", "scott_pi") and prep.sim.is_identity
            and r.size and bool(np.all(r == r[0])) and r[0] >= 2):
        m = int(r[0])
        p = np.bincount(np.asarray(prep.rating_s), minlength=len(prep.support)) / (n * m)
        q = 1.0 - p
        pq = float(np.sum(p * q))
        if pq <= 0:
            return None
        var = 2.0 * (pq**2 - float(np.sum(p * q * (q - p)))) / (n * m * (m - 1.0) * pq**2)
        return var, "Fleiss, Nee & Landis (1979)"
    return None


#: What the analytic test tests (``details["test"]`` starts with it).
WALD_LABEL = "analytic test of H0: coefficient = 0 (two-sided)"
#: ``details["test_hypothesis"]`` of the analytic test: it is not a test of independent raters.
WALD_HYPOTHESIS = ("coefficient = 0; not a test of 'no agreement beyond chance': with independent raters whose "
                   "label distributions differ, pooled-chance coefficients (Fleiss, Scott, alpha) are negative "
                   "and this test rejects too often (22-23% at the 5% level with unequal rater "
                   "marginals, 97-99% with opposed ones, in benchmarks/agreement_test_size.py); "
                   "use softirr_stats.permutation_test for that question")


def null_test(result: AgreementResult, prep: Prepared, se: float, df: int,
              notes: list[str] | None = None) -> AgreementResult:
    """``result`` with ``z`` and ``p_value`` for H0: coefficient = 0 (two-sided).

    The published H0 variance where :func:`null_variance` has one (``z`` against the normal),
    else irrCAC's convention (``z = value / se``, Student t with ``df`` degrees of freedom).
    ``details["p_value_greater"]`` is the one-sided p-value (H1: coefficient > 0). This tests the
    value 0, not independence of the raters: see :data:`WALD_HYPOTHESIS` and
    :func:`softirr_stats.permutation_test` (docs/uncertainty.md, "Tests of agreement").

    Parameters
    ----------
    result : AgreementResult
        The estimate (with its analytic SE).
    prep : Prepared
        The prepared coefficient.
    se : float
        The (non-null) analytic standard error.
    df : int
        Degrees of freedom of irrCAC's t reference distribution.
    notes : list of str, optional
        Appended to where the test is undefined (a zero SE, an undefined coefficient).

    Returns
    -------
    AgreementResult
    """
    from scipy.special import ndtr, stdtr

    v = float(result.value)
    z_t = p_t = g_t = math.nan
    zero_se = False
    if math.isfinite(v) and math.isfinite(se) and df >= 1:
        if se > 0:
            z_t = v / se
            p_t = _two_sided_t(z_t, df)
            g_t = float(stdtr(df, -z_t))
        else:
            zero_se = v != 0
    h0 = null_variance(prep, result.coefficient) if math.isfinite(v) else None
    if zero_se and notes is not None:  # what is undefined depends on whether the H0 variance gives the test
        notes.append("test of H0: coefficient = 0: the standard error is 0 (no variation between items), so "
                     + ("irrCAC's z (value / se) is undefined; the p-value uses the variance under H0"
                        if h0 is not None and h0[0] > 0 else
                        "z and the p-value are undefined (nan); irrCAC reports p = 0 here"))
    if h0 is not None and h0[0] > 0:
        se0 = math.sqrt(h0[0])
        z = v / se0
        return result.with_test(z, normal_p(z, "two-sided"), f"{WALD_LABEL}; H0 variance, {h0[1]}, normal", null_se=se0,
                                z_irrcac=z_t, p_value_irrcac=p_t, p_value_greater=float(ndtr(-z)),
                                test_hypothesis=WALD_HYPOTHESIS)
    return result.with_test(z_t, p_t, f"{WALD_LABEL}; irrCAC: value / se, Student t ({df} df)", z_irrcac=z_t,
                            p_value_irrcac=p_t, p_value_greater=g_t, test_hypothesis=WALD_HYPOTHESIS)


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
    n = int(result.details.get("analytic_n_items", int(result.details["analytic_df"]) + 1))
    df = int(result.details["analytic_df"])
    if cfg.population is not None and cfg.population < n:
        raise ValueError(f"population must be >= the number of rated items ({n}); got {cfg.population}")
    fpc_old = float(result.details.get("analytic_fpc", 1.0))
    fpc = 1.0 if cfg.population is None else 1.0 - n / cfg.population
    se = result.se * math.sqrt(fpc / fpc_old) if fpc_old > 0 else math.nan
    lo, hi = analytic_interval(result.value, se, df, cfg.level)
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
        warnings.warn(msg, DegenerateWarning, stacklevel=user_stacklevel())
        notes.append(msg)
    out = result.with_interval(lo, hi, se, cfg.level, method, analytic_df=df, **extra)
    return replace(out, warnings=tuple(notes))

