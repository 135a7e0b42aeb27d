"""The alternative of a test and the analytic test of H0: coefficient = ``null``.

One computation of ``z`` and the p-value from an estimate that carries its analytic SE, shared by
:func:`softirr_stats.kappa_test` and ``softirr agree --test --test-method analytic``
(docs/uncertainty.md, "Tests of agreement").
"""

import math
from typing import Any

from softirr_stats.agreement import AgreementResult, ccc_z
from softirr_stats.base._validation import check_choice

__all__ = ["ALTERNATIVES", "analytic_test", "check_null", "normal_p", "one_sided"]

#: ``alternative=`` of the tests: H1 coefficient != H0, > H0 ("greater": more agreement) or < H0.
ALTERNATIVES = ("two-sided", "greater", "less")


def check_null(null: Any) -> float:
    """``null`` (the coefficient's value under H0) as a float; a ValueError unless it is a number in [-1, 1).

    Parameters
    ----------
    null : float
        The coefficient's value under H0.

    Returns
    -------
    float

    Examples
    --------
    >>> check_null(0.4)
    0.4
    """
    if not isinstance(null, int | float) or isinstance(null, bool) or not -1.0 <= float(null) < 1.0:
        raise ValueError(f"null must be a number in [-1, 1); got {null!r}")
    return float(null)


def normal_p(z: float, alternative: str) -> float:
    """The p-value of ``z`` against the standard normal: ``greater`` ``P(Z >= z)``, ``less`` ``P(Z <= z)``,
    ``two-sided`` ``2 P(Z >= |z|)``; nan for a nan ``z``.

    Parameters
    ----------
    z : float
        The test statistic.
    alternative : {"two-sided", "greater", "less"}
        H1.

    Returns
    -------
    float

    Examples
    --------
    >>> round(normal_p(1.959963984540054, "two-sided"), 12), round(normal_p(2.0, "less"), 6)
    (0.05, 0.97725)
    """
    from scipy.special import ndtr

    check_choice("alternative", alternative, ALTERNATIVES)
    if alternative == "greater":
        return float(ndtr(-z))
    if alternative == "less":
        return float(ndtr(z))
    return float(2.0 * ndtr(-abs(z)))


def one_sided(alternative: str, null: float = 0.0) -> str:
    """The alternative in words for a test's name (``""`` for two-sided).

    Parameters
    ----------
    alternative : {"two-sided", "greater", "less"}
        H1.
    null : float, default 0
        The coefficient's value under H0.

    Returns
    -------
    str

    Examples
    --------
    >>> one_sided("greater", 0.4)
    'one-sided, H1: coefficient > 0.4'
    """
    if alternative == "two-sided":
        return ""
    return f"one-sided, H1: coefficient {'>' if alternative == 'greater' else '<'} {null:g}"


def analytic_test(result: AgreementResult, *, null: float = 0.0, alternative: str = "two-sided") -> AgreementResult:
    """``result`` (an estimate with ``ci="analytic"``) with its test of H0: coefficient = ``null``.

    - ``null == 0`` and a finite ``result.z``: the test the analytic interval attached (the
      published variance under H0 and the normal, or irrCAC's value / SE and Student t); a
      one-sided p-value is half the two-sided one on the side of ``z`` (``1 -`` half on the other
      side), as the reference distribution is symmetric.
    - otherwise the Wald test ``z = (value - null) / se`` with the large-sample SE against the
      normal: ``greater`` ``P(Z >= z)``, ``less`` ``P(Z <= z)``, ``two-sided`` ``2 P(Z >= |z|)``.
    - a statistic whose analytic interval is on Fisher's z scale (Lin's concordance correlation: it records
      ``details["se_fisher_z"]``, the SE of ``atanh(value)``) takes the same Wald test on that scale at any
      ``null``, ``z = (atanh(value) - atanh(null)) / se_z`` (``agreement.ccc_z``): its interval inverted.

    Parameters
    ----------
    result : AgreementResult
        The estimate with its analytic SE (and the analytic test of H0: 0).
    null : float, default 0
        The coefficient's value under H0, in [-1, 1).
    alternative : {"two-sided", "greater", "less"}, default "two-sided"
        H1: coefficient != null, > null or < null.

    Returns
    -------
    AgreementResult
        ``z``, ``p_value`` (of ``alternative``); ``details``: ``test``, ``null``, ``alternative``,
        ``p_value_greater``, ``p_value_less``.

    Examples
    --------
    Value 0.5 with SE 0.1 against H0: 0.3: ``z = 2`` and ``P(Z >= 2) = 0.02275``.

    >>> r = AgreementResult("fleiss_kappa", 0.5, 0.6, 0.2, 50, 3, se=0.1)
    >>> t = analytic_test(r, null=0.3, alternative="greater")
    >>> round(t.z, 12), round(t.p_value, 6), round(t.details["p_value_less"], 6)
    (2.0, 0.02275, 0.97725)
    """
    null = check_null(null)
    check_choice("alternative", alternative, ALTERNATIVES)
    details: dict[str, Any] = {}
    se_z = result.details.get("se_fisher_z")
    if se_z is not None and null == -1.0:  # atanh(-1) = -inf: every estimate would be infinitely far from H0
        raise ValueError(f"null must be in (-1, 1) for {result.coefficient}'s Fisher z test (atanh(null) is -inf at "
                         "-1, which would give z = inf and p = 0 for any data); got -1.0")
    if se_z is not None:  # tested on Fisher's z scale, where its interval is (Lin 1989), at any null
        z = ccc_z(float(result.value), float(se_z), null)
        method = (f"Fisher z test of H0: {result.coefficient} = {null:g}: (atanh(value) - atanh({null:g})) / SE of "
                  "atanh(value) at the estimate (Lin 1989), normal")
        two_sided, greater, less = (normal_p(z, a) for a in ALTERNATIVES)
    elif null == 0.0 and math.isfinite(result.z):  # the coefficient's own test of H0: 0 (details["test"] names it)
        z, method, two_sided = float(result.z), str(result.details.get("test", "")), float(result.p_value)
        half = two_sided / 2.0
        greater, less = (half, 1.0 - half) if z > 0 else (1.0 - half, half)
    else:
        se = float(result.se)
        z = (float(result.value) - null) / se if se > 0 else math.nan
        method = f"Wald z test of H0: {result.coefficient} = {null:g} with the large-sample SE, normal"
        two_sided, greater, less = (normal_p(z, a) for a in ALTERNATIVES)
    if null != 0.0:
        details["test_hypothesis"] = f"coefficient = {null:g}"
    p = {"two-sided": two_sided, "greater": greater, "less": less}[alternative]
    if alternative != "two-sided":  # the H0: 0 test's name says "(two-sided)": say the side instead
        method = f"{method.replace(' (two-sided)', '')}; {one_sided(alternative, null)}"
    return result.with_test(z, p, method, null=null, alternative=alternative, p_value_greater=greater,
                            p_value_less=less, **details)
