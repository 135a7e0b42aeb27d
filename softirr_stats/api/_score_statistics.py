"""Public statistics of numeric scores: ``icc``, ``lin_ccc``, ``kendall_w``.

Each takes :class:`~softirr_stats.Annotations` (or a wide table: rows = items, columns = raters)
of numeric scores and returns an :class:`~softirr_stats.AgreementResult`. ``ci="analytic"``
gives the published interval (the exact F-based interval of an ICC, Fisher's z interval of
Lin's CCC); ``ci=Bootstrap(...)`` resamples items and / or raters through the one bootstrap of
the package (``softirr_stats.uncertainty``). Items with a missing rating are left out (listwise,
as R ``irr``, ``psych`` and pingouin do) with a warning that counts them.
"""

import math
import warnings
from typing import Any

import numpy as np

from softirr_stats.agreement import (
    AgreementResult,
    DegenerateWarning,
    ScoreStatistic,
    anova_terms,
    as_annotations,
    ccc_interval,
    ccc_se,
    ccc_values,
    icc_f_test,
    icc_interval,
    icc_values,
    kendall_w_values,
    numeric_table,
    resolve_icc_form,
    satterthwaite_test,
)
from softirr_stats.base._validation import user_stacklevel
from softirr_stats.uncertainty import analytic_test, attach_interval

__all__ = ["icc", "lin_ccc", "kendall_w", "SCORE_STATISTICS", "TESTS_AT_ANY_NULL", "score_statistic"]


def _analytic_level(ci: Any) -> float | None:
    """The level of ``ci="analytic"`` / ``Analytic(level=...)``; None for any other ``ci``."""
    from softirr_stats.uncertainty import Analytic

    if isinstance(ci, str) and ci == "analytic":
        return 0.95
    if isinstance(ci, Analytic):
        return float(ci.level)
    return None


def _scores(ann: Any, name: str, min_raters: int = 2) -> tuple[np.ndarray, tuple, list[str], int]:
    data = as_annotations(ann)
    if data.exchangeable_raters:
        raise ValueError(f"{name} needs to know which rater gave which score, and these annotations are rating "
                         "slots without rater identity (Annotations.from_counts), whose order is arbitrary; "
                         "icc(form='ICC1') / 'ICC1k' (one-way: raters not identified) applies to them")
    x, items, dropped = numeric_table(data, name)
    return _checked(data, x, items, dropped, name)


def _one_way_scores(ann: Any, name: str) -> tuple[np.ndarray, tuple, list[str], int]:
    """The scores of the one-way model, where each item may have its own raters.

    Rater identity plays no part in ICC1 / ICC1k, so where every rated item has the same number k of
    scores (each item scored by k of many raters, or rating slots) each row keeps its k scores. Where
    the numbers differ, items with a missing score are left out (listwise, as psych and pingouin).
    """
    data = as_annotations(ann)
    if data.kind == "numeric":
        codes = data.codes
        per_item = (codes >= 0).sum(axis=1)
        rated = per_item > 0
        k = np.unique(per_item[rated])
        if k.size == 1 and 2 <= k[0] < data.n_raters:
            vals = np.asarray(data.values(), dtype=np.float64)
            order = np.argsort(codes[rated] < 0, axis=1, kind="stable")[:, : int(k[0])]  # the rated columns
            x = vals[np.take_along_axis(codes[rated], order, axis=1)]
            items = tuple(np.asarray(data.items, dtype=object)[rated].tolist())
            unrated = int((~rated).sum())
            return _checked(data, x, items, unrated, name,
                            f"{name}: {unrated} of {data.n_items} items have no rating and were left out")
    x, items, dropped = numeric_table(data, name)
    return _checked(data, x, items, dropped, name)


def _checked(data: Any, x: np.ndarray, items: tuple, dropped: int, name: str, why: str | None = None,
             ) -> tuple[np.ndarray, tuple, list[str], int]:
    notes = []
    if dropped:
        msg = why or (f"{name}: {dropped} of {data.n_items} items have a missing rating and were left out (the ANOVA "
                      "and rank statistics need every rater's score on an item; listwise, as R irr / psych and "
                      "pingouin)")
        warnings.warn(msg, DegenerateWarning, stacklevel=user_stacklevel())
        notes.append(msg)
    if x.shape[0] < 2:
        raise ValueError(f"{name} needs at least two items with every rater's score; got {x.shape[0]}"
                         + (" (ICC1 / ICC1k keep each item's own scores where every item has the same number of "
                            "them)" if name == "icc" and dropped else ""))
    return x, items, notes, dropped


def _nan_note(name: str, value: float, why: str) -> list[str]:
    if math.isnan(value):
        msg = f"{name} is undefined here: {why}"
        warnings.warn(msg, DegenerateWarning, stacklevel=3)
        return [msg]
    return []


def icc(ann: Any, *, form: str = "ICC2", ci: Any = None) -> AgreementResult:
    """Intraclass correlation of numeric scores: the six Shrout & Fleiss (1979) / McGraw & Wong (1996) forms.

    ``ICC1`` / ``ICC1k``: one-way random (each item may have its own raters); ``ICC2`` /
    ``ICC2k``: two-way, absolute agreement (McGraw & Wong's ICC(A,1) / ICC(A,k)); ``ICC3`` /
    ``ICC3k``: two-way, consistency (ICC(C,1) / ICC(C,k)); the ``k`` forms are the reliability of
    the mean of the k raters. Random and mixed raters give the same estimate; they differ in the
    raters the value generalises to. Values, F tests and intervals equal R ``psych::ICC`` and
    ``pingouin.intraclass_corr``.

    Parameters
    ----------
    ann : Annotations or a wide table (DataFrame, array or nested lists)
        Rows = items, columns = raters, numeric scores; an item with a missing score is left out
        (listwise) with a warning. ICC1 / ICC1k need no rater identity: where every item has the
        same number k of scores (each item scored by k of many raters, or ``from_counts`` slots),
        each item keeps its own k scores. The two-way forms refuse ``from_counts`` slots.
    form : str, default "ICC2"
        ``"ICC1"``, ``"ICC2"``, ``"ICC3"``, ``"ICC1k"``, ``"ICC2k"``, ``"ICC3k"`` (any case), or the
        McGraw-Wong / pingouin spellings ``"ICC(A,1)"``, ``"ICC(C,k)"``, ``"ICC(2,1)"`` ...
    ci : None, "analytic", Analytic or Bootstrap, default None
        ``"analytic"`` / ``Analytic(level=...)``: the exact F-based interval (Satterthwaite's df
        for ICC2 / ICC2k, whose raters are random); ``Bootstrap(...)``: resampled items (or
        clusters); the rater designs are refused (a rater drawn twice would agree with its copy).

    Returns
    -------
    AgreementResult
        ``value``; ``p_value`` of the F test of H0: ICC = 0, its upper tail (H1: ICC > 0, recorded as
        ``details["alternative"] = "greater"``); ``details``: ``test``, ``alternative``, ``F``, ``df1``,
        ``df2``, ``form``, ``mcgraw_wong``, ``model``, ``agreement``, ``unit``, the mean squares
        (``msr``, ``msc``, ``mse``, ``msw``) and ``n_dropped``; for ICC2 also R ``irr::icc``'s test,
        ``df2_satterthwaite`` and ``p_value_satterthwaite`` (Satterthwaite's df at the estimate).
        ``observed`` / ``expected`` are NaN.

    Examples
    --------
    Shrout & Fleiss (1979), Table 2: 6 targets rated by 4 judges (their Table 4 prints .29 and .91).

    >>> sf = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]
    >>> r = icc(sf, form="ICC2", ci="analytic")
    >>> round(r.value, 4), round(r.details["F"], 4), (r.details["df1"], r.details["df2"])
    (0.2898, 11.0272, (5.0, 15.0))
    >>> round(r.ci_low, 3), round(r.ci_high, 3)
    (0.019, 0.761)
    >>> round(icc(sf, form="ICC3k").value, 4)
    0.9093
    """
    spec = resolve_icc_form(form)
    one_way = spec.model == "one-way random"
    x, items, notes, dropped = _one_way_scores(ann, "icc") if one_way else _scores(ann, "icc")
    terms = anova_terms(x)
    value = float(icc_values(x, terms=terms)[spec.name][0])
    notes += _nan_note(spec.coefficient, value, _icc_undefined_reason(terms))
    f, df1, df2, p = icc_f_test(spec, terms)
    details: dict[str, Any] = {"form": spec.name, "mcgraw_wong": spec.mcgraw_wong, "model": spec.model,
                               "agreement": spec.agreement, "unit": spec.unit, "F": f, "df1": df1, "df2": df2,
                               "n_dropped": dropped, "test": "F test of H0: ICC = 0 (Shrout & Fleiss 1979)",
                               "alternative": "greater",
                               **{m: float(terms[m][0]) for m in ("msr", "msc", "mse", "msw")}}
    if spec.name == "ICC2":  # R irr::icc(model="twoway", type="agreement")'s df and p
        details["df2_satterthwaite"], details["p_value_satterthwaite"] = satterthwaite_test(terms, value)
    result = AgreementResult(spec.coefficient, value, math.nan, math.nan, x.shape[0], x.shape[1], p_value=p,
                             similarity="scores", chance="none", warnings=tuple(notes), details=details)
    level = _analytic_level(ci)
    if level is not None:
        lo, hi = icc_interval(spec, terms, value, level) if not math.isnan(value) else (math.nan, math.nan)
        from dataclasses import replace

        said = _undefined_interval(value, lo, hi,
                                   f"{spec.coefficient}'s analytic interval is undefined here: no residual variance "
                                   "(each rater's scores differ from the others' by a constant, or not at all), so its "
                                   "F statistic and Satterthwaite's df are not numbers; a Bootstrap interval or more "
                                   "varied data give one")
        return replace(result, ci_low=lo, ci_high=hi, level=level, ci_method="exact-F",
                       warnings=(*result.warnings, *said))
    name = spec.name
    stat = ScoreStatistic(x, items, lambda x_, c, v: icc_values(x_, c, v)[name], rater_designs=False,
                          no_rater_designs=_NO_RATER_DESIGNS.format(what=f"{spec.coefficient}'s ANOVA")
                          + (f"; for raters drawn from a population, {spec.coefficient}'s exact-F interval "
                             "(ci='analytic') counts their variance" if spec.name in ("ICC2", "ICC2k") else ""))
    return attach_interval(result, stat, ci)


def _icc_undefined_reason(terms: dict[str, np.ndarray]) -> str:
    """Why an ICC is undefined (its denominator 0), read from the mean squares that vanish.

    Examples
    --------
    >>> from softirr_stats.agreement import anova_terms
    >>> _icc_undefined_reason(anova_terms(np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]])))[:40]
    'no variance between items and no residua'
    """
    msr, mse, msw = (float(terms[m][0]) for m in ("msr", "mse", "msw"))
    if msr == 0.0 and msw == 0.0:
        return "every score is the same (no variance between or within items)"
    if msr == 0.0 and mse == 0.0:
        return ("no variance between items and no residual variance: every item got the same scores, the raters "
                "differing only by constants")
    return ("no variance between items: every item has the same mean score, so the mean square between items "
            "(the form's denominator) is 0")


#: Why the rater designs are refused: a rater drawn twice would agree perfectly with its copy.
_NO_RATER_DESIGNS = ("{what} has no form that leaves out the pairs of a rater drawn twice with its own copy, "
                     "which agree perfectly and pull every replicate up (a rater drawn three times gives 1), so "
                     "raters are not resampled")  # the caller goes on: "...; use design='items' ..."


def _undefined_interval(value: float, lo: float, hi: float, why: str) -> tuple[str, ...]:
    """``(why,)``, warned, where a defined value got an undefined analytic interval; ``()`` otherwise.

    ``why`` names the statistic itself: the warning and the note are one text, said once.
    """
    if not math.isfinite(value) or (math.isfinite(lo) and math.isfinite(hi)):
        return ()
    warnings.warn(why, DegenerateWarning, stacklevel=user_stacklevel())
    return (why,)


def lin_ccc(ann: Any, *, null: float = 0.0, alternative: str = "two-sided", ci: Any = None) -> AgreementResult:
    """Lin's (1989) concordance correlation coefficient of two raters' numeric scores.

    With its z test of H0: rho_c = ``null``.

    ``rho_c = 2 s_xy / (s_x^2 + s_y^2 + (mean_x - mean_y)^2)`` (moments divided by n, as Lin,
    R ``DescTools::CCC`` and ``epiR::epi.ccc`` define it): Pearson's r times the bias correction
    ``C_b``. The analytic interval is Lin's asymptotic variance on Fisher's z scale (``ci="z-transform"``
    of DescTools and epiR); ``se`` is Lin's SE on the original scale. The test of H0: rho_c = ``null`` is on
    the same scale, ``z = (atanh(rho_c) - atanh(null)) / se_z`` against the normal with Lin's SE of
    ``atanh(rho_c)`` at the estimate (``uncertainty.analytic_test``): the Fisher-z interval inverted, so its
    two-sided p is below ``1 - level`` exactly when that interval leaves ``null`` out. It is Lin's large-sample
    normality; with few items read it as approximate.

    Parameters
    ----------
    ann : Annotations or a wide table (DataFrame, array or nested lists)
        Two columns (raters, methods) of numeric scores; an item with a missing score is left out.
    null : float, default 0
        rho_c under H0, in [-1, 1) (a threshold of acceptable concordance, e.g. 0.9, with
        ``alternative="greater"``).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        H1: rho_c != ``null``, > ``null`` or < ``null``.
    ci : None, "analytic", Analytic or Bootstrap, default None
        ``"analytic"``: Fisher's z interval; ``Bootstrap(design="items", ...)``: resampled items.

    Returns
    -------
    AgreementResult
        ``value``, ``se``, the interval; ``z`` and ``p_value`` of the test (whatever ``ci`` is: the test uses
        Lin's analytic SE); ``details``: ``pearson_r``, ``bias_correction`` (C_b), ``location_shift`` (u),
        ``se_fisher_z`` (Lin's SE of ``atanh(rho_c)``), ``n_dropped``, and the test's ``test``, ``null``,
        ``alternative``, ``p_value_greater``, ``p_value_less``.

    Examples
    --------
    >>> r = lin_ccc([[1.0, 1.5], [2.0, 2.0], [3.0, 3.5], [4.0, 4.0]], ci="analytic")
    >>> round(r.value, 6), round(r.details["pearson_r"], 6)
    (0.947368, 0.976187)
    >>> round(r.z, 6), round(r.p_value, 6)  # atanh(0.947368) / 0.627470, two-sided
    (2.877365, 0.00401)
    """
    data = as_annotations(ann)
    if data.n_raters != 2:
        raise ValueError(f"lin_ccc is defined for exactly two raters (two methods); got {data.n_raters} "
                         "(use icc for more)")
    x, items, notes, dropped = _scores(data, "lin_ccc")
    terms = ccc_values(x)
    value, r = float(terms["value"][0]), float(terms["r"][0])
    notes += _nan_note("lin_ccc", value, "both raters give one constant score")
    details = {"pearson_r": r, "bias_correction": value / r if r else math.nan,
               "location_shift": float(terms["u"][0]), "se_fisher_z": ccc_se(terms)[1], "n_dropped": dropped}
    result = AgreementResult("lin_ccc", value, math.nan, math.nan, x.shape[0], 2, similarity="scores", chance="none",
                             warnings=tuple(notes), details=details)
    result = analytic_test(result, null=null, alternative=alternative)
    if math.isfinite(value) and math.isnan(result.z):
        result.details["no_test"] = _why_no_ccc_interval(value, r, x.shape[0])
    level = _analytic_level(ci)
    if level is not None:
        se, lo, hi = ccc_interval(terms, level)
        from dataclasses import replace

        said = _undefined_interval(value, lo, hi, "lin_ccc's Fisher-z interval is undefined here: "
                                   + _why_no_ccc_interval(value, r, x.shape[0]))
        return replace(result, se=se, ci_low=lo, ci_high=hi, level=level, ci_method="fisher-z",
                       warnings=(*result.warnings, *said))
    stat = ScoreStatistic(x, items, lambda x_, c, v: ccc_values(x_, c)["value"], rater_designs=False,
                          no_rater_designs="Lin's CCC compares two given raters (methods)")
    return attach_interval(result, stat, ci)


def _why_no_ccc_interval(value: float, r: float, n: int) -> str:
    """The reason Lin's SE or its Fisher z is not a number, for a defined concordance ``value``."""
    if n <= 2:
        return f"Lin's variance divides by n - 2 and there are {n} items"
    if not math.isfinite(r) or r == 0:
        return ("one rater's scores are constant, so Pearson's r is 0/0 and Lin's SE, which divides by r, is "
                "not a number" if not math.isfinite(r) else "Pearson's r is 0 and Lin's SE divides by it")
    if abs(value) >= 1:
        return ("the concordance is perfect (|rho_c| = 1: the two raters' scores are identical), where Fisher's z "
                "is infinite and Lin's SE is 0")
    return "Lin's variance is not a number on these scores"


def kendall_w(ann: Any, *, correct: bool = True, ci: Any = None) -> AgreementResult:
    """Kendall's coefficient of concordance W of raters ranking items, with the Friedman test.

    Each rater's scores are ranked over the items (mid-ranks for ties);
    ``W = 12 S / (m^2 (n^3 - n) - m sum_j T_j)`` with ``S`` the squared deviations of the items'
    rank sums and ``T_j = sum (t^3 - t)`` over rater j's tied groups (``correct=True``; R
    ``irr::kendall(ratings, correct=TRUE)``). The Friedman statistic ``m (n - 1) W`` is
    chi-square on ``n - 1`` df (``scipy.stats.friedmanchisquare`` with raters as blocks).

    Parameters
    ----------
    ann : Annotations or a wide table (DataFrame, array or nested lists)
        Rows = items, columns = raters, numeric (or ordinal numeric) scores; an item with a
        missing score is left out.
    correct : bool, default True
        Correct for ties within raters (False: R irr's default, W without the ties term).
    ci : Bootstrap or None, default None
        An interval from resampled items and / or raters (no analytic interval is published).

    Returns
    -------
    AgreementResult
        ``value`` (W), ``p_value`` of the Friedman test, its upper tail (H1: W > 0, recorded as
        ``details["alternative"] = "greater"``); ``details``: ``test``, ``alternative``, ``chi2``,
        ``df``, ``correct``, ``n_dropped``.

    Examples
    --------
    R irr's ``anxiety`` data (20 subjects, 3 raters): ``kendall(anxiety, TRUE)`` gives W = 0.54.

    >>> anxiety = [[3, 3, 2], [3, 6, 1], [3, 4, 4], [4, 6, 4], [5, 2, 3], [5, 4, 2], [2, 2, 1], [3, 4, 6],
    ...            [5, 3, 1], [2, 3, 1], [2, 2, 1], [6, 3, 2], [1, 3, 3], [5, 3, 3], [2, 2, 1], [2, 2, 1],
    ...            [1, 1, 3], [2, 3, 3], [4, 3, 2], [3, 4, 2]]
    >>> r = kendall_w(anxiety)
    >>> round(r.value, 4), round(r.details["chi2"], 2), r.details["df"], round(r.p_value, 4)
    (0.5397, 30.76, 19.0, 0.0429)
    """
    from scipy import stats

    if not isinstance(correct, bool):
        raise TypeError(f"correct must be True or False; got {correct!r}")
    x, items, notes, dropped = _scores(ann, "kendall_w")
    out = kendall_w_values(x, correct=correct)
    value, chi2 = float(out["value"][0]), float(out["chi2"][0])
    notes += _nan_note("kendall_w", value, "every rater ties every item")
    df = float(x.shape[0] - 1)
    p = float(stats.chi2.sf(chi2, df)) if not math.isnan(chi2) else math.nan
    details = {"chi2": chi2, "df": df, "correct": correct, "n_dropped": dropped,
               "test": "Friedman chi-square test of H0: W = 0", "alternative": "greater"}
    result = AgreementResult("kendall_w", value, math.nan, math.nan, x.shape[0], x.shape[1], p_value=p,
                             similarity="ranks", chance="none", warnings=tuple(notes), details=details)
    stat = ScoreStatistic(x, items, lambda x_, c, v: kendall_w_values(x_, c, v, correct=correct)["value"],
                          rater_designs=False, no_rater_designs=_NO_RATER_DESIGNS.format(what="Kendall's W"),
                          no_analytic="Kendall's W has no published analytic interval (its Friedman chi-square "
                                      "test is in p_value)")
    return attach_interval(result, stat, ci)


#: The names the sensitivity table and ``softirr agree -c`` accept for these statistics (one per ICC form).
SCORE_STATISTICS = (*(f.lower() for f in ("ICC1", "ICC2", "ICC3", "ICC1k", "ICC2k", "ICC3k")), "lin_ccc", "kendall_w")


#: The statistics of scores whose test takes ``null=`` and ``alternative=`` (Lin's Fisher z test); the others'
#: published tests are of H0: 0 on their one side (ICC's F test, Kendall's chi-square: ``details["alternative"]``).
TESTS_AT_ANY_NULL = ("lin_ccc",)


def score_statistic(name: str, ann: Any, ci: Any = None, *, null: float | None = None,
                    alternative: str | None = None) -> AgreementResult:
    """The statistic of numeric scores named in :data:`SCORE_STATISTICS` (``"icc2"``, ``"kendall_w"`` ...).

    ``null`` / ``alternative``: its test's H0 value and side, for the statistics of :data:`TESTS_AT_ANY_NULL`
    (a ValueError for the others, whose published tests have one H0 and one side).

    Examples
    --------
    >>> round(score_statistic("icc3k", [[1, 2], [3, 5], [4, 4]]).value, 4)
    0.88
    >>> round(score_statistic("lin_ccc", [[1, 2], [3, 5], [4, 4], [6, 7]], null=0.5, alternative="greater").z, 4)
    0.9564
    """
    test = {k: v for k, v in (("null", null), ("alternative", alternative)) if v is not None}
    if test and name not in TESTS_AT_ANY_NULL:
        raise ValueError(f"{name}'s published test is of H0: 0 on one side; null= and alternative= apply to "
                         f"{', '.join(TESTS_AT_ANY_NULL)} only")
    if name == "lin_ccc":
        return lin_ccc(ann, ci=ci, **test)
    if name == "kendall_w":
        return kendall_w(ann, ci=ci)
    if name not in SCORE_STATISTICS:
        raise ValueError(f"name must be one of {list(SCORE_STATISTICS)}; got {name!r}")
    return icc(ann, form=name, ci=ci)
