"""Statistics of numeric scores: intraclass correlations, Lin's concordance, Kendall's W.

The intraclass correlations are the six forms of Shrout & Fleiss (1979), named as in R
``psych::ICC`` and ``pingouin.intraclass_corr`` (McGraw & Wong 1996 names in brackets):

========  ===============  ===================  =======  ===================
form      McGraw-Wong      model                unit     F test
========  ===============  ===================  =======  ===================
ICC1      ICC(1)           one-way random       single   MSR / MSW
ICC2      ICC(A,1)         two-way, absolute    single   MSR / MSE
ICC3      ICC(C,1)         two-way, consistency single   MSR / MSE
ICC1k     ICC(k)           one-way random       average  MSR / MSW
ICC2k     ICC(A,k)         two-way, absolute    average  MSR / MSE
ICC3k     ICC(C,k)         two-way, consistency average  MSR / MSE
========  ===============  ===================  =======  ===================

The two-way forms read the same under random and mixed raters (McGraw & Wong 1996, Table 4);
what changes is the population they generalise to. Every statistic here is evaluated for a batch
of item weights ``C`` (B, n) and rater weights ``V`` (B, k) at once: the sums of squares of a
two-way layout with frequency weights on its rows and columns, so that integer weights equal
duplicating items or raters (the bootstrap's resampling) and unit weights give the textbook
ANOVA.

Missing cells: the ANOVA needs a complete items x raters table, so an item with any missing
rating is left out (listwise, as R ``irr``, ``psych`` and pingouin do), with a warning that
counts the items left out.

Examples
--------
>>> x = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7.]])
>>> vals = icc_values(x, np.ones((1, 6)), np.ones((1, 4)))
>>> [round(float(vals[f][0]), 2) for f in ("ICC1", "ICC2", "ICC3")]   # Shrout & Fleiss (1979), Table 4
[0.17, 0.29, 0.71]
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from softirr_stats.agreement._statistic import Statistic

__all__ = ["IccForm", "ICC_FORMS", "resolve_icc_form", "anova_terms", "icc_values", "icc_f_test",
           "satterthwaite_test", "icc_interval", "ccc_values", "ccc_interval", "ccc_se", "ccc_z", "kendall_w_values", "ScoreStatistic", "numeric_table", "check_level"]


@dataclass(frozen=True)
class IccForm:
    """One intraclass correlation form.

    Attributes
    ----------
    name : str
        Shrout & Fleiss / psych name (``"ICC2"``).
    mcgraw_wong : str
        McGraw & Wong (1996) name (``"ICC(A,1)"``).
    model, agreement, unit : str
        ``"one-way random"`` / ``"two-way"``; ``"absolute"`` / ``"consistency"``; ``"single"`` / ``"average"``.

    Examples
    --------
    >>> ICC_FORMS["ICC3k"].mcgraw_wong, ICC_FORMS["ICC3k"].coefficient
    ('ICC(C,k)', 'icc3k')
    """

    name: str
    mcgraw_wong: str
    model: str
    agreement: str
    unit: str

    @property
    def coefficient(self) -> str:
        """The name reported in results (``"icc2"``)."""
        return self.name.lower()


ICC_FORMS: dict[str, IccForm] = {f.name: f for f in (
    IccForm("ICC1", "ICC(1)", "one-way random", "absolute", "single"),
    IccForm("ICC2", "ICC(A,1)", "two-way", "absolute", "single"),
    IccForm("ICC3", "ICC(C,1)", "two-way", "consistency", "single"),
    IccForm("ICC1k", "ICC(k)", "one-way random", "absolute", "average"),
    IccForm("ICC2k", "ICC(A,k)", "two-way", "absolute", "average"),
    IccForm("ICC3k", "ICC(C,k)", "two-way", "consistency", "average"),
)}

# other spellings users bring from pingouin, irr and SPSS
_ALIASES = {"ICC(1,1)": "ICC1", "ICC(2,1)": "ICC2", "ICC(3,1)": "ICC3", "ICC(1,K)": "ICC1k", "ICC(2,K)": "ICC2k",
            "ICC(3,K)": "ICC3k", "ICC(A,1)": "ICC2", "ICC(C,1)": "ICC3", "ICC(A,K)": "ICC2k", "ICC(C,K)": "ICC3k",
            "ICC(1)": "ICC1", "ICC(K)": "ICC1k"}


def resolve_icc_form(form: "str | IccForm") -> IccForm:
    """The form record for a name: ``"ICC2"``, ``"icc2k"``, ``"ICC(A,1)"``, ``"ICC(3,1)"`` ...

    Parameters
    ----------
    form : str or IccForm
        A name of :data:`ICC_FORMS` (any case) or a McGraw-Wong / pingouin spelling.

    Returns
    -------
    IccForm

    Examples
    --------
    >>> resolve_icc_form("icc(a,1)").name, resolve_icc_form("ICC3k").mcgraw_wong
    ('ICC2', 'ICC(C,k)')
    >>> resolve_icc_form("ICC4")
    Traceback (most recent call last):
    ...
    ValueError: form must be one of ['ICC1', 'ICC2', 'ICC3', 'ICC1k', 'ICC2k', 'ICC3k'] (or ICC(A,1), ICC(C,k), ICC(2,1) ...); got 'ICC4'
    """
    if isinstance(form, IccForm):
        return form
    if isinstance(form, str):
        key = form.strip().replace(" ", "").upper()
        for name in ICC_FORMS:
            if name.upper() == key:
                return ICC_FORMS[name]
        if key in _ALIASES:
            return ICC_FORMS[_ALIASES[key]]
    raise ValueError(f"form must be one of {list(ICC_FORMS)} (or ICC(A,1), ICC(C,k), ICC(2,1) ...); got {form!r}")


def _batch(w: Any, size: int) -> np.ndarray:
    if w is None:
        return np.ones((1, size))
    w = np.atleast_2d(np.asarray(w, dtype=np.float64))
    if w.shape[1] != size:
        raise ValueError(f"weights must have {size} columns; got shape {w.shape}")
    return w


def _both(C: Any, V: Any, n: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    c, v = _batch(C, n), _batch(V, k)
    b = max(c.shape[0], v.shape[0])
    return np.broadcast_to(c, (b, n)), np.broadcast_to(v, (b, k))


def anova_terms(x: np.ndarray, C: Any = None, V: Any = None) -> dict[str, np.ndarray]:
    """Mean squares of the two-way layout ``x`` (items x raters, complete) for batches of weights.

    Item weights ``C`` (B, n) and rater weights ``V`` (B, k) are frequency weights: ``n`` and ``k``
    become their sums. Returns ``msr`` (items), ``msc`` (raters), ``mse`` (residual), ``msw``
    (within items), ``n`` and ``k``, each of shape (B,).

    Parameters
    ----------
    x : array of shape (n, k)
        Scores, complete.
    C : array of shape (B, n) or (n,), optional
        Item weights (default: ones).
    V : array of shape (B, k) or (k,), optional
        Rater weights (default: ones).

    Examples
    --------
    >>> t = anova_terms(np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 4.0]]))
    >>> [round(float(t[m][0]), 4) for m in ("msr", "msc", "mse", "msw")]
    [4.1667, 1.5, 0.5, 0.8333]
    """
    x = np.asarray(x, dtype=np.float64)
    c, v = _both(C, V, *x.shape)
    xc = x - x.mean()  # centred: the sums of squares below lose no digits to a large mean
    n, k = c.sum(axis=1), v.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        row = (xc @ v.T).T / k[:, None]  # (B, n) rater-weighted item means
        col = (c @ xc) / n[:, None]  # (B, k) item-weighted rater means
        gm = (c * row).sum(axis=1) / n
        ssr = k * (c * (row - gm[:, None]) ** 2).sum(axis=1)
        ssc = n * (v * (col - gm[:, None]) ** 2).sum(axis=1)
        raw = ((c @ (xc * xc)) * v).sum(axis=1)
        sst = raw - n * k * gm * gm
        sse = sst - ssr - ssc
        # rounding residue (e.g. a resample of identical items) is zero, not a tiny sum of squares
        tol = 1e-12 * raw
        ssr, ssc, sse = (np.where(ss > tol, ss, 0.0) for ss in (ssr, ssc, sse))
        return {"msr": ssr / (n - 1), "msc": ssc / (k - 1), "mse": sse / ((n - 1) * (k - 1)),
                "msw": (ssc + sse) / (n * (k - 1)), "n": n, "k": k}


def icc_values(x: np.ndarray, C: Any = None, V: Any = None, terms: dict[str, np.ndarray] | None = None
               ) -> dict[str, np.ndarray]:
    """The six intraclass correlations for batches of item / rater weights, each of shape (B,).

    Parameters
    ----------
    x : array of shape (n, k)
        Scores, complete.
    C, V : arrays of shape (B, n) and (B, k), optional
        Item and rater weights (default: ones).
    terms : dict, optional
        :func:`anova_terms` already computed (then ``x``, ``C``, ``V`` are not read).

    Examples
    --------
    >>> v = icc_values(np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 4.0]]))
    >>> round(float(v["ICC3"][0]), 4), round(float(v["ICC1k"][0]), 4)
    (0.7857, 0.8)
    """
    t = anova_terms(x, C, V) if terms is None else terms
    msr, msc, mse, msw, n, k = (t[m] for m in ("msr", "msc", "mse", "msw", "n", "k"))
    scale = 1e-12 * (msr + msc + mse + msw)  # a denominator below this is cancellation residue: nan, not 1e16

    def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(np.abs(den) > scale, num / den, np.nan)

    return {
        "ICC1": ratio(msr - msw, msr + (k - 1) * msw),
        "ICC2": ratio(msr - mse, msr + (k - 1) * mse + k * (msc - mse) / n),
        "ICC3": ratio(msr - mse, msr + (k - 1) * mse),
        "ICC1k": ratio(msr - msw, msr),
        "ICC2k": ratio(msr - mse, msr + (msc - mse) / n),
        "ICC3k": ratio(msr - mse, msr),
    }


def icc_f_test(form: IccForm, terms: dict[str, np.ndarray]) -> tuple[float, float, float, float]:
    """``(F, df1, df2, p)`` of H0: ICC = 0 (Shrout & Fleiss 1979; pingouin and psych report these).

    One-way forms: ``F = MSR / MSW`` on (n - 1, n (k - 1)) df; two-way forms: ``F = MSR / MSE`` on
    (n - 1, (n - 1)(k - 1)) df; ``p`` is the upper tail.

    Parameters
    ----------
    form : IccForm
    terms : dict
        :func:`anova_terms` at unit weights.

    Examples
    --------
    >>> t = anova_terms(np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 4.0]]))
    >>> [round(v, 4) for v in icc_f_test(ICC_FORMS["ICC3"], t)]
    [8.3333, 2.0, 2.0, 0.1071]
    """
    from scipy import stats

    n, k, msr = float(terms["n"][0]), float(terms["k"][0]), float(terms["msr"][0])
    df1 = n - 1.0
    if form.model.startswith("one-way"):
        denom, df2 = float(terms["msw"][0]), n * (k - 1.0)
    else:
        denom, df2 = float(terms["mse"][0]), (n - 1.0) * (k - 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = np.float64(msr) / np.float64(denom)
    p = float(stats.f.sf(f, df1, df2)) if not math.isnan(f) else math.nan
    return float(f), df1, df2, p


def satterthwaite_test(terms: dict[str, np.ndarray], value: float) -> tuple[float, float]:
    """``(df2, p)`` of R ``irr::icc``'s F test of ICC(A,1): ``F = MSR / MSE`` against Satterthwaite's
    df ``v`` evaluated at the estimate (McGraw & Wong 1996), where psych and pingouin use
    (n - 1)(k - 1).

    Parameters
    ----------
    terms : dict
        :func:`anova_terms` at unit weights.
    value : float
        The ICC(A,1) estimate.

    Examples
    --------
    >>> t = anova_terms(np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 4.0], [6.0, 6.5]]))
    >>> v = float(icc_values(None, terms=t)["ICC2"][0])
    >>> [round(x, 4) for x in satterthwaite_test(t, v)]
    [2.673, 0.0229]
    """
    from scipy import stats

    n, k = float(terms["n"][0]), float(terms["k"][0])
    # NumPy scalars: no residual and no item variance (v = 0 / 0) gives nan, not a ZeroDivisionError
    msr, msc, mse = (np.float64(terms[m][0]) for m in ("msr", "msc", "mse"))
    if not value < 1.0:  # perfect agreement: no residual, the F statistic is infinite
        return math.nan, 0.0 if value == 1.0 else math.nan
    with np.errstate(divide="ignore", invalid="ignore"):
        a = k * value / (n * (1.0 - value))
        b = 1.0 + k * value * (n - 1.0) / (n * (1.0 - value))
        v = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / (k - 1.0) + (b * mse) ** 2 / ((n - 1.0) * (k - 1.0)))
        f = np.float64(msr) / np.float64(mse)
    p = float(stats.f.sf(f, n - 1.0, v)) if math.isfinite(v) and not math.isnan(f) else math.nan
    return float(v), p


def icc_interval(form: IccForm, terms: dict[str, np.ndarray], value: float, level: float) -> tuple[float, float]:
    """The exact F-based interval of Shrout & Fleiss (1979) / McGraw & Wong (1996).

    ICC1, ICC3 and their averages from the F distribution of ``F`` itself; ICC2 and ICC2k from
    Satterthwaite's approximate df ``v`` (McGraw & Wong 1996, Table 7), as psych and pingouin
    compute them.

    Parameters
    ----------
    form : IccForm
    terms : dict
        :func:`anova_terms` at unit weights.
    value : float
        The estimate of ``form``.
    level : float
        Confidence level in (0, 1).

    Examples
    --------
    >>> t = anova_terms(np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 4.0], [6.0, 6.5]]))
    >>> [round(x, 4) for x in icc_interval(ICC_FORMS["ICC1"], t, 0.0, 0.95)]
    [0.0698, 0.9885]
    """
    from scipy import stats

    n, k = float(terms["n"][0]), float(terms["k"][0])
    # NumPy scalars: a zero residual mean square gives inf / nan (an interval the caller reports as undefined), not a
    # ZeroDivisionError
    msr, msc, mse = (np.float64(terms[m][0]) for m in ("msr", "msc", "mse"))
    q = 1.0 - (1.0 - level) / 2.0
    f, df1, df2, _ = icc_f_test(form, terms)
    with np.errstate(divide="ignore", invalid="ignore"):
        if form.agreement == "consistency" or form.model.startswith("one-way"):
            fl = f / stats.f.ppf(q, df1, df2)
            fu = f * stats.f.ppf(q, df2, df1)
            if form.unit == "single":
                return float(1.0 - k / (fl + k - 1.0)), float(1.0 - k / (fu + k - 1.0))
            return float(1.0 - 1.0 / fl), float(1.0 - 1.0 / fu)
        icc2 = float(icc_values(np.zeros((2, 2)), terms=terms)["ICC2"][0])
        fj = msc / mse
        vn = (n - 1.0) * (k - 1.0) * (k * icc2 * fj + n * (1.0 + (k - 1.0) * icc2) - k * icc2) ** 2
        vd = (n - 1.0) * k**2 * icc2**2 * fj**2 + (n * (1.0 + (k - 1.0) * icc2) - k * icc2) ** 2
        v = vn / vd
        f2u = stats.f.ppf(q, n - 1.0, v)
        f2l = stats.f.ppf(q, v, n - 1.0)
        lo = n * (msr - f2u * mse) / (f2u * (k * msc + (k * n - k - n) * mse) + n * msr)
        hi = n * (f2l * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f2l * msr)
        if form.unit == "single":
            return float(lo), float(hi)
        return float(lo * k / (1.0 + lo * (k - 1.0))), float(hi * k / (1.0 + hi * (k - 1.0)))


def ccc_values(x: np.ndarray, C: Any = None) -> dict[str, np.ndarray]:
    """Lin's (1989) concordance correlation of two raters' scores for batches of item weights.

    ``rho_c = 2 s_xy / (s_x^2 + s_y^2 + (mean_x - mean_y)^2)`` with moments divided by n (Lin's
    definition); also returns Pearson's ``r`` and the location-shift ``u`` that the interval uses.

    Parameters
    ----------
    x : array of shape (n, 2)
        The two raters' scores, complete.
    C : array of shape (B, n) or (n,), optional
        Item weights (default: ones).

    Examples
    --------
    >>> round(float(ccc_values(np.array([[1.0, 1.5], [2.0, 2.0], [3.0, 3.5]]))["value"][0]), 6)
    0.888889
    """
    x = np.asarray(x, dtype=np.float64)
    c = _batch(C, x.shape[0])
    n = c.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        m = (c @ x) / n[:, None]  # (B, 2)
        dx, dy = x[None, :, 0] - m[:, :1], x[None, :, 1] - m[:, 1:]
        sxx, syy, sxy = ((c * dx * dx).sum(1) / n, (c * dy * dy).sum(1) / n, (c * dx * dy).sum(1) / n)
        diff = m[:, 0] - m[:, 1]
        value = 2.0 * sxy / (sxx + syy + diff**2)
        r = sxy / np.sqrt(sxx * syy)
        u = diff / (sxx * syy) ** 0.25
    return {"value": value, "r": r, "u": u, "n": n}


def ccc_se(terms: dict[str, np.ndarray]) -> tuple[float, float]:
    """Lin's (1989) asymptotic SEs of rho_c at the estimate: on the original scale and on Fisher's z scale,
    ``atanh(rho_c)`` (nan with 2 items or fewer, and on the z scale for |rho_c| = 1).

    ``var(rho_c) = [(1 - r^2) rho_c^2 (1 - rho_c^2) / r^2 + 2 rho_c^3 (1 - rho_c) u^2 / r - rho_c^4 u^4 / (2 r^2)]
    / (n - 2)`` and ``var(z) = var(rho_c) / (1 - rho_c^2)^2`` with Pearson's ``r`` and the location shift ``u``
    (Lin 1989, 2000; R ``DescTools::CCC`` and ``epiR::epi.ccc``).

    Parameters
    ----------
    terms : dict
        :func:`ccc_values` at unit weights.

    Returns
    -------
    (se, se_z) : tuple of float

    Examples
    --------
    >>> t = ccc_values(np.array([[1.0, 1.5], [2.0, 2.0], [3.0, 3.5], [4.0, 4.0]]))
    >>> [round(v, 4) for v in ccc_se(t)]
    [0.0643, 0.6275]
    """
    p, r, u, n = (float(terms[m][0]) for m in ("value", "r", "u", "n"))
    with np.errstate(divide="ignore", invalid="ignore"):
        se = math.sqrt(((1 - r**2) * p**2 * (1 - p**2) / r**2 + 2 * p**3 * (1 - p) * u**2 / r
                        - 0.5 * p**4 * u**4 / r**2) / (n - 2)) if n > 2 else math.nan
        set_ = math.sqrt(((1 - r**2) * p**2 / ((1 - p**2) * r**2) + 2 * p**3 * (1 - p) * u**2 / (r * (1 - p**2) ** 2)
                          - p**4 * u**4 / (2 * r**2 * (1 - p**2) ** 2)) / (n - 2)) if n > 2 and abs(p) < 1 else math.nan
    return se, set_


def ccc_interval(terms: dict[str, np.ndarray], level: float) -> tuple[float, float, float]:
    """Lin's asymptotic SE of rho_c and the interval from Fisher's z-transform (Lin 1989, 2000;
    R DescTools ``CCC(ci="z-transform")`` and epiR ``epi.ccc``): ``(se, low, high)``.

    Parameters
    ----------
    terms : dict
        :func:`ccc_values` at unit weights.
    level : float
        Confidence level in (0, 1).

    Examples
    --------
    >>> t = ccc_values(np.array([[1.0, 1.5], [2.0, 2.0], [3.0, 3.5], [4.0, 4.0]]))
    >>> [round(v, 4) for v in ccc_interval(t, 0.95)]
    [0.0643, 0.5195, 0.9954]
    """
    from scipy import stats

    p = float(terms["value"][0])
    z = float(stats.norm.ppf(1.0 - (1.0 - level) / 2.0))
    se, set_ = ccc_se(terms)
    t = math.atanh(p) if abs(p) < 1 else math.nan
    return se, math.tanh(t - z * set_), math.tanh(t + z * set_)


def ccc_z(value: float, se_z: float, null: float) -> float:
    """Lin's z statistic of H0: rho_c = ``null``: ``(atanh(rho_c) - atanh(null)) / se_z``, with ``se_z`` the SE of
    ``atanh(rho_c)`` at the estimate (:func:`ccc_se`).

    Lin (1989) gives the asymptotic normality of ``atanh(rho_c)`` with this variance, from which he draws the
    interval; the test is that interval inverted (its variance under H0 itself is 0 at ``null = 0``, so there is
    no null-variance form): the two-sided p is below ``1 - level`` exactly when the Fisher-z interval at
    ``level`` leaves ``null`` out.

    Parameters
    ----------
    value : float
        The estimate rho_c.
    se_z : float
        Lin's SE of ``atanh(rho_c)`` at the estimate.
    null : float
        rho_c under H0, in [-1, 1).

    Returns
    -------
    float
        nan where ``se_z`` is not a positive number or ``|value| >= 1``; ``+inf`` at ``null = -1`` (the interval
        never reaches -1).

    Examples
    --------
    >>> round(ccc_z(0.5, 0.2, 0.0), 6)  # atanh(0.5) / 0.2
    2.746531
    """
    if not (se_z > 0) or not math.isfinite(value) or abs(value) >= 1:
        return math.nan
    with np.errstate(divide="ignore"):
        return float((math.atanh(value) - np.arctanh(null)) / se_z)


def _weighted_midranks(col: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mid-ranks of one rater's scores under item frequency weights (B, n), and the ties term
    ``sum_g (t_g^3 - t_g)`` over groups of tied scores (a drawn-twice item ties with itself)."""
    uniq, g = np.unique(col, return_inverse=True)
    order = np.argsort(g, kind="stable")
    ends = np.searchsorted(g[order], np.arange(len(uniq)), side="right") - 1
    cum = np.cumsum(c[:, order], axis=1)[:, ends]  # (B, groups) weight up to each group's end
    size = np.diff(np.concatenate([np.zeros((c.shape[0], 1)), cum], axis=1), axis=1)
    mid = cum - size + (size + 1.0) / 2.0
    return mid[:, g], (size**3 - size).sum(axis=1)


def kendall_w_values(x: np.ndarray, C: Any = None, V: Any = None, *, correct: bool = True) -> dict[str, np.ndarray]:
    """Kendall's W of raters (columns) ranking items (rows), for batches of item / rater weights.

    ``W = 12 S / (m^2 (n^3 - n) - m sum_j T_j)`` with ``S`` the sum of squared deviations of the
    items' rank sums, ``T_j = sum (t^3 - t)`` over rater j's groups of ties (``correct=True``;
    without it, R ``irr::kendall``'s default, the ties term is left out).

    Parameters
    ----------
    x : array of shape (n, m)
        Scores (items x raters), complete.
    C, V : arrays of shape (B, n) and (B, m), optional
        Item and rater weights (default: ones); a weight w counts an item or rater w times.
    correct : bool, default True
        Correct for ties.

    Examples
    --------
    >>> round(float(kendall_w_values(np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 3.0]]))["value"][0]), 4)
    0.75
    """
    x = np.asarray(x, dtype=np.float64)
    c, v = _both(C, V, *x.shape)
    n, m = c.sum(axis=1), v.sum(axis=1)
    rank_sum = np.zeros(c.shape)
    ties = np.zeros(c.shape[0])
    for j in range(x.shape[1]):  # one pass per rater; items and replicates are vectorised
        ranks, t = _weighted_midranks(x[:, j], c)
        rank_sum += v[:, j:j + 1] * ranks
        ties += v[:, j] * t
    s = (c * (rank_sum - (m * (n + 1.0) / 2.0)[:, None]) ** 2).sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = 12.0 * s / (m**2 * (n**3 - n) - (m * ties if correct else 0.0))
    return {"value": w, "chi2": m * (n - 1.0) * w, "n": n, "m": m}


def numeric_table(ann: Any, name: str) -> tuple[np.ndarray, tuple, int]:
    """The complete items x raters table of numeric scores (items with a missing rating left out).

    Returns ``(x, items, n_dropped)``; raises TypeError for labels that are not numbers.

    Parameters
    ----------
    ann : Annotations
    name : str
        The statistic's name, for the error message.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> x, items, dropped = numeric_table(Annotations.from_wide([[1, 2], [3, None], [2, 2]]), "icc")
    >>> x.tolist(), items, dropped
    ([[1.0, 2.0], [2.0, 2.0]], (0, 2), 1)
    """
    if ann.kind != "numeric":
        example = ann.vocabulary[0] if ann.vocabulary else None
        raise TypeError(f"{name} needs numeric ratings (scores); these labels are {ann.kind} (e.g. {example!r})")
    vals = np.asarray(ann.values(), dtype=np.float64)
    codes = ann.codes
    complete = (codes >= 0).all(axis=1)
    x = vals[np.where(codes >= 0, codes, 0)][complete]
    items = tuple(np.asarray(ann.items, dtype=object)[complete].tolist())
    return x, items, int((~complete).sum())


@dataclass(frozen=True)
class ScoreStatistic(Statistic):
    """A statistic of a complete score table, prepared for the uncertainty layer (``Statistic``).

    ``kernel(x, C, V)`` returns the values (B,) for item weights C (B, n) and rater weights V (B, k).

    Parameters
    ----------
    x : array of shape (n, k)
        The complete score table.
    item_ids : tuple
        Item ids in row order (for cluster and strata designs).
    kernel : callable
        ``kernel(x, C, V) -> values``.
    rater_designs : bool, default True
        Whether raters may be resampled.
    no_rater_designs : str
        Why not, when they may not.

    Examples
    --------
    >>> stat = ScoreStatistic(np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 4.0]]), (0, 1, 2),
    ...                       lambda x, c, v: icc_values(x, c, v)["ICC3"])
    >>> stat.evaluate(np.array([[1.0, 1.0, 1.0], [2.0, 1.0, 0.0]]))["value"].round(4).tolist()
    [0.7857, 0.9231]
    """

    x: np.ndarray
    item_ids: tuple
    kernel: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] = field(repr=False)
    rater_designs: bool = True
    no_rater_designs: str = ""
    supports_analytic = False
    n_chance_pairs = 0
    no_analytic: str = ("this statistic's published interval is ci='analytic' on its own function; use "
                        "softirr_stats.Bootstrap(...) here")

    @property
    def items(self) -> tuple:
        return self.item_ids

    @property
    def n_items(self) -> int:
        return int(self.x.shape[0])

    @property
    def n_raters(self) -> int:
        return int(self.x.shape[1])

    def evaluate(self, C: Any = None, V: Any = None, W: Any = None) -> dict[str, np.ndarray]:
        c, v = _both(C, V, *self.x.shape)
        return {"value": np.asarray(self.kernel(self.x, c, v), dtype=np.float64)}


def check_level(level: float) -> float:
    """``level`` as a float in (0, 1), or a ValueError naming it."""
    if not isinstance(level, int | float) or not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be a number in (0, 1); got {level!r}")
    return float(level)
