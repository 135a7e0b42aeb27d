"""Public rows the peers print for categorical ratings: per-category kappa, all-agree share, tests
against a non-zero kappa0 (and Light's z), marginal homogeneity of two raters.

Examples
--------
>>> import softirr_stats as sis
>>> ann = sis.Annotations.from_table([[20, 5], [10, 15]])
>>> r = sis.marginal_homogeneity(ann, test="mcnemar")
>>> round(r.statistic, 4), r.df
(1.6667, 1.0)
"""

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from softirr_stats.agreement import (
    MARGINAL_TESTS,
    AgreementResult,
    DegenerateWarning,
    MarginalTestResult,
    all_agree_share,
    as_annotations,
    category_kappa_rows,
    get_coefficient,
    light_null_z,
)
from softirr_stats.base._validation import check_choice, user_stacklevel

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["category_kappa", "all_agree", "kappa_test", "marginal_homogeneity"]


def _counts(ann: Any) -> np.ndarray:
    k = len(ann.vocabulary)
    codes = ann.codes
    n = codes.shape[0]
    ii = np.repeat(np.arange(n), codes.shape[1])
    cc = codes.ravel()
    ok = cc >= 0
    return np.bincount(ii[ok] * k + cc[ok], minlength=n * k).reshape(n, k)


def category_kappa(ann: Any) -> "pd.DataFrame":
    """Kappa for each category against all others (Fleiss 1971), with its z test, as R
    ``irr::kappam.fleiss(detail=TRUE)``.

    ``kappa_j = 1 - sum_i n_ij (m - n_ij) / (n m (m - 1) p_j (1 - p_j))``: the Fleiss kappa of the
    data collapsed to "category j or not". Its standard error under H0 is
    ``sqrt(2 / (n m (m - 1)))`` (Fleiss, Nee & Landis 1979), ``z = kappa_j / se`` and ``p`` is
    two-sided normal. The formula needs the same number m of ratings on every item.

    Parameters
    ----------
    ann : Annotations or a wide table (DataFrame, array or nested lists)
        Rows = items; every item needs the same number of ratings (e.g. complete rows, or
        ``Annotations.from_counts`` whose rows all sum to m).

    Returns
    -------
    DataFrame
        One row per category: ``category``, ``kappa``, ``se``, ``z``, ``p_value``, ``prevalence``
        (unrounded; irr prints 3 decimals). NaN where a category is never (or always) used.

    Examples
    --------
    The 10 subjects x 14 raters x 5 categories example of Fleiss' kappa (as counts):

    >>> import softirr_stats as sis
    >>> counts = [[0,0,0,0,14],[0,2,6,4,2],[0,0,3,5,6],[0,3,9,2,0],[2,2,8,1,1],
    ...           [7,7,0,0,0],[3,2,6,3,0],[2,5,3,2,2],[6,5,2,1,0],[0,2,2,3,7]]
    >>> rows = category_kappa(sis.Annotations.from_counts(counts))
    >>> rows["kappa"].round(3).tolist()
    [0.201, 0.08, 0.172, 0.03, 0.508]
    """
    import pandas as pd

    data = as_annotations(ann)
    counts = _counts(data)
    r = counts.sum(axis=1)
    if (r != r[0]).any():
        values, freq = np.unique(r, return_counts=True)
        common = int(values[np.argmax(freq)])
        odd = np.flatnonzero(r != common)
        raise ValueError(f"category_kappa needs the same number of ratings on every item (Fleiss 1971); most items "
                         f"have {common}, but items {[data.items[i] for i in odd[:5]]} have "
                         f"{[int(r[i]) for i in odd[:5]]} (drop incomplete items or use fleiss_kappa, which "
                         "allows missing ratings)")
    if r[0] < 2:
        raise ValueError(f"category_kappa needs at least two ratings per item; got {int(r[0])}")
    rows = category_kappa_rows(counts)
    _warn_undefined_categories(list(data.vocabulary), rows["prevalence"])
    return pd.DataFrame({"category": list(data.vocabulary), **{k: rows[k] for k in
                                                                 ("kappa", "se", "z", "p_value", "prevalence")}})


def _warn_undefined_categories(categories: list, prevalence: np.ndarray) -> None:
    """A DegenerateWarning naming the categories whose kappa is undefined (used by no one, or by everyone)."""
    import warnings

    prevalence = np.asarray(prevalence, dtype=np.float64)
    never = [c for c, p in zip(categories, prevalence, strict=True) if p == 0]
    always = [c for c, p in zip(categories, prevalence, strict=True) if p == 1]
    parts = ([f"{never[:5]} used by no rater" + (f" (and {len(never) - 5} more)" if len(never) > 5 else "")]
             if never else []) + ([f"{always} used for every rating"] if always else [])
    if parts:
        warnings.warn(f"category_kappa: kappa is NaN for {' and '.join(parts)}: a category's kappa needs it to be "
                      "used on some ratings and not on others", DegenerateWarning, stacklevel=user_stacklevel())


def all_agree(ann: Any, *, tolerance: float = 0.0) -> AgreementResult:
    """Share of items on which all raters agree, as R ``irr::agree`` (which prints it in percent).

    Items with a missing rating are left out (as irr does). With numeric scores, the ratings of an
    item agree when they lie within ``tolerance`` of each other (``max - min <= tolerance``); text
    labels agree when they are identical (``tolerance`` must be 0).

    Parameters
    ----------
    ann : Annotations or a wide table (DataFrame, array or nested lists)
    tolerance : float, default 0
        The largest spread of an item's scores that still counts as agreement.

    Returns
    -------
    AgreementResult
        ``value`` in [0, 1] (irr's ``%-agree`` / 100); ``n_items`` the complete items;
        ``details["percent"]``, ``details["tolerance"]``, ``details["n_dropped"]``.

    Examples
    --------
    R irr's ``anxiety`` data: no subject gets one score from all three raters, and 35% get scores
    within one point of each other (``agree(anxiety, tolerance = 1)``):

    >>> anxiety = [[3, 3, 2], [3, 6, 1], [3, 4, 4], [4, 6, 4], [5, 2, 3], [5, 4, 2], [2, 2, 1], [3, 4, 6],
    ...            [5, 3, 1], [2, 3, 1], [2, 2, 1], [6, 3, 2], [1, 3, 3], [5, 3, 3], [2, 2, 1], [2, 2, 1],
    ...            [1, 1, 3], [2, 3, 3], [4, 3, 2], [3, 4, 2]]
    >>> all_agree(anxiety).value, all_agree(anxiety, tolerance=1).value
    (0.0, 0.35)
    """
    if not isinstance(tolerance, int | float) or isinstance(tolerance, bool) or not tolerance >= 0:
        raise ValueError(f"tolerance must be a non-negative number; got {tolerance!r}")
    data = as_annotations(ann)
    complete = (data.codes >= 0).all(axis=1)
    if data.kind == "numeric":
        x = np.asarray(data.values(), dtype=np.float64)[np.where(data.codes >= 0, data.codes, 0)]
        tol: float | None = float(tolerance)
    else:
        if tolerance:
            raise ValueError(f"tolerance applies to numeric scores; these labels are {data.kind} (got "
                             f"tolerance={tolerance!r})")
        x, tol = data.codes.astype(np.float64), None
    share, n = all_agree_share(x, complete, tol)
    dropped = int((~complete).sum())
    notes = (f"{dropped} of {data.n_items} items have a missing rating and were left out",) if dropped else ()
    return AgreementResult("all_agree", share, share, math.nan, n, data.n_raters, chance="none", similarity="identity",
                           warnings=notes, details={"percent": 100.0 * share, "tolerance": float(tolerance),
                                                    "n_dropped": dropped})


def kappa_test(ann: Any, *, coefficient: str = "cohen_kappa", null: float = 0.0, alternative: str = "two-sided",
               weights: Any = None) -> AgreementResult:
    """Test H0: coefficient = ``null`` (kappa0), with the coefficient's analytic standard error.

    For ``null=0`` and a coefficient with a published variance under H0 (Cohen's kappa: Fleiss,
    Cohen & Everitt 1969; Fleiss' kappa: Fleiss, Nee & Landis 1979) that variance is used, as R
    ``irr`` and statsmodels do. Otherwise ``z = (value - null) / se`` with the large-sample
    (linearised) SE of ``ci="analytic"``: a Wald test of the question epibasix's ``epiKappa(k0=...)``
    asks (its numbers were not available to compare; statsmodels' SE is, and equals ours).
    ``light_kappa`` has no linearised SE: its test (``null=0`` only) is R ``irr::kappam.light``'s.

    Parameters
    ----------
    ann : Annotations or a wide table (DataFrame, array or nested lists)
    coefficient : str, default "cohen_kappa"
        A registered coefficient with an analytic SE, or ``"light_kappa"``.
    null : float, default 0
        kappa0, the value under H0.
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        ``"greater"``: H1 coefficient > kappa0 (agreement better than the benchmark).
    weights : optional
        Agreement weights, for coefficients that take ``weights=``.

    Returns
    -------
    AgreementResult
        With ``se``, ``z``, ``p_value`` and ``details["test"]``, ``details["null"]``,
        ``details["alternative"]``.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> ann = sis.Annotations.from_table([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    >>> r = kappa_test(ann, null=0.6, alternative="greater")
    >>> round(r.value, 4), round(r.z, 4), round(r.p_value, 6)
    (0.7964, 3.334, 0.000428)
    """
    from softirr_stats.uncertainty import ALTERNATIVES, analytic_test, check_null

    check_choice("alternative", alternative, ALTERNATIVES)
    null = check_null(null)
    rec = get_coefficient(coefficient)
    if rec.name == "light_kappa":
        return _light_test(ann, null, alternative)
    if not rec.analytic:
        raise ValueError(f"kappa_test needs an analytic standard error; {rec.name} has none (use "
                         "softirr_stats.Bootstrap on the coefficient and read the interval)")
    from softirr_stats.api._coefficients import estimate_with_interval

    opts: dict[str, Any] = {"ci": "analytic"}
    if weights is not None:
        opts["weights"] = weights
    return analytic_test(estimate_with_interval(rec, ann, **opts), null=null, alternative=alternative)


def _light_test(ann: Any, null: float, alternative: str) -> AgreementResult:
    from softirr_stats.api._coefficients import estimate_with_interval
    from softirr_stats.uncertainty import normal_p

    if null != 0.0:
        raise ValueError(f"light_kappa's z test is R irr's test of H0: kappa = 0; got null={null!r} (use a "
                         "Bootstrap interval of light_kappa for other benchmarks)")
    data = as_annotations(ann)
    complete = data.codes[(data.codes >= 0).all(axis=1)]
    if complete.shape[0] < 2:
        raise ValueError("light_kappa's test needs at least two items rated by every rater")
    # irr::kappam.light drops incomplete items first (na.omit): kappa on the complete items
    res = estimate_with_interval("light_kappa", data.codes[(data.codes >= 0).all(axis=1)].tolist())
    se, z = light_null_z(complete, res.value)
    notes = res.warnings
    if math.isnan(z):
        notes = notes + ("irr's variance for Light's kappa is negative on these data (R prints z = NaN); no "
                         "test",)
    method = "Light's kappa z test of H0: kappa = 0 (R irr::kappam.light / DescTools::KappaM)"
    out = res.with_test(z, normal_p(z, alternative), method, null=0.0, alternative=alternative,
                        n_dropped=int(data.n_items - complete.shape[0]))
    return replace(out, se=se, warnings=notes)


def marginal_homogeneity(ann: Any, *, test: str = "stuart_maxwell", correction: bool = False) -> MarginalTestResult:
    """Test that two raters use the categories equally often (rater bias): McNemar, Stuart-Maxwell, Bhapkar.

    From the two raters' K x K table over the items both rated: ``"mcnemar"`` (K = 2,
    ``(b - c)^2 / (b + c)``; ``correction=True`` for Edwards' continuity correction, R
    ``mcnemar.test``'s default), ``"stuart_maxwell"`` (Stuart 1955, Maxwell 1970) or ``"bhapkar"``
    (Bhapkar 1966, the Wald form: somewhat more powerful), each chi-square on K - 1 df (categories
    neither rater used are dropped), as statsmodels ``SquareTable.homogeneity``.

    Parameters
    ----------
    ann : Annotations or a wide table (DataFrame, array or nested lists)
        Exactly two raters with rater identity (e.g. ``Annotations.from_table``).
    test : {"stuart_maxwell", "bhapkar", "mcnemar"}, default "stuart_maxwell"
    correction : bool, default False
        Continuity correction (McNemar only).

    Returns
    -------
    MarginalTestResult
        ``statistic``, ``df``, ``p_value``, ``n_items``; ``details["table"]``.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> ann = sis.Annotations.from_table([[10, 4, 1], [2, 12, 6], [3, 1, 9]])
    >>> r = marginal_homogeneity(ann)
    >>> round(r.statistic, 4), r.df, round(r.p_value, 4)
    (0.9574, 2.0, 0.6196)
    """
    check_choice("test", test, tuple(MARGINAL_TESTS))
    if not isinstance(correction, bool):
        raise TypeError(f"correction must be True or False; got {correction!r}")
    if correction and test != "mcnemar":
        raise ValueError(f"correction applies to test='mcnemar' only; got test={test!r}")
    data = as_annotations(ann)
    if data.n_raters != 2:
        raise ValueError(f"marginal_homogeneity compares exactly two raters; got {data.n_raters}")
    if data.exchangeable_raters:
        raise ValueError("marginal_homogeneity compares two raters' marginals, and these annotations are rating "
                         "slots without rater identity (Annotations.from_counts); use Annotations.from_table")
    codes = data.codes[(data.codes >= 0).all(axis=1)]
    k = len(data.vocabulary)
    table = np.bincount(codes[:, 0] * k + codes[:, 1], minlength=k * k).reshape(k, k)
    if test == "mcnemar":
        stat, df, p, details = MARGINAL_TESTS[test](table, correction=correction)
    else:
        stat, df, p, details = MARGINAL_TESTS[test](table)
    notes: tuple[str, ...] = ()
    if math.isnan(stat):
        notes = ("the test is undefined here: no off-diagonal (disagreeing) items",)
    elif details.get("singular"):
        k_used = int(details["n_categories_used"])
        notes = (f"the marginal differences' covariance is singular: some categories are never confused with the "
                 f"others (e.g. a category used only where both raters agree), so the statistic uses its generalised "
                 f"inverse on {df:g} df instead of {k_used - 1} "
                 + ("(statsmodels gives nan)" if test == "stuart_maxwell" else
                    f"(statsmodels and R irr give this statistic on {k_used - 1} df)"),)
    return MarginalTestResult(test, stat, df, p, int(codes.shape[0]), notes, {**details, "table": table})
