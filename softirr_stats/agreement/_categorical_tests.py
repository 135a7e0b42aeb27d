"""Tests and per-category rows for categorical ratings: what R irr, DescTools and statsmodels print.

- per-category kappa (Fleiss 1971, eq. 20-21) with its z test under H0 (Fleiss, Nee & Landis 1979:
  ``var = 2 / (n m (m - 1))``), as ``irr::kappam.fleiss(detail=TRUE)``;
- the z test of Light's kappa as ``irr::kappam.light`` and ``DescTools::KappaM(method="Light")``
  compute it;
- the share of items on which all raters agree, with a tolerance for numeric scores (``irr::agree``);
- marginal homogeneity of two raters' K x K table: McNemar (K = 2), Stuart-Maxwell and Bhapkar.

Every function takes arrays (counts, codes, tables) and is vectorised over items and categories.
"""

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["category_kappa_rows", "light_null_z", "all_agree_share", "MarginalTestResult", "mcnemar_test",
           "stuart_maxwell_test", "bhapkar_test", "MARGINAL_TESTS"]


def category_kappa_rows(counts: np.ndarray) -> dict[str, np.ndarray]:
    """Per-category kappa of an items x categories count matrix with the same m ratings per item.

    ``kappa_j = 1 - sum_i n_ij (m - n_ij) / (n m (m - 1) p_j q_j)`` (Fleiss 1971), its H0 SE
    ``sqrt(2 / (n m (m - 1)))``, ``z`` and the two-sided normal ``p``. A category nobody used
    (or everybody always used) has ``p_j q_j = 0``: its kappa is NaN.

    Parameters
    ----------
    counts : array of shape (n_items, K)
        Ratings per item and category; every row sums to the same m >= 2.

    Examples
    --------
    >>> rows = category_kappa_rows(np.array([[2, 0], [0, 2], [1, 1], [2, 0]]))
    >>> [round(float(v), 4) for v in rows["kappa"]]
    [0.4667, 0.4667]
    """
    c = np.asarray(counts, dtype=np.float64)
    n, m = c.shape[0], float(c[0].sum())
    p = c.sum(axis=0) / (n * m)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = 1.0 - (c * (m - c)).sum(axis=0) / (n * m * (m - 1.0) * p * (1.0 - p))
    se = math.sqrt(2.0 / (n * m * (m - 1.0)))
    z = kappa / se
    from scipy import stats

    return {"kappa": kappa, "se": np.full_like(kappa, se), "z": z, "p_value": 2.0 * stats.norm.sf(np.abs(z)),
            "prevalence": p}


def light_null_z(codes: np.ndarray, value: float) -> tuple[float, float]:
    """``(se, z)`` of Light's kappa as R ``irr::kappam.light`` and ``DescTools::KappaM(method="Light")``
    compute them (complete items only).

    For each rater pair ``(a, b)``, ``d_ab = sum_{i != j} n_a(i) n_b(j)`` counts the disagreeing label
    pairs of the two raters' margins; with ``G`` pairs and ``P_c = 1 - G prod_ab d_ab / n^(2G)``, the
    variance is ``P_c / (n (1 - P_c))``. Computed in logarithms (the product overflows for
    moderate n, where R returns NaN). A negative variance (``P_c < 0``, frequent: R prints ``z = NaN``)
    gives NaN.

    Parameters
    ----------
    codes : int array of shape (n_items, n_raters)
        Complete items' label codes.
    value : float
        Light's kappa on those items.

    Returns
    -------
    (se, z) : tuple of float

    Examples
    --------
    >>> [round(v, 4) for v in light_null_z(np.array([[3, 3, 3], [1, 1, 1], [1, 2, 2]]), 2 / 3)]
    [0.2041, 3.266]
    """
    codes = np.asarray(codes)
    n, r = codes.shape
    k = int(codes.max()) + 1
    margins = np.stack([np.bincount(codes[:, j], minlength=k) for j in range(r)]).astype(np.float64)  # (r, k)
    a, b = np.triu_indices(r, 1)
    tot = margins.sum(axis=1)
    d = tot[a] * tot[b] - (margins[a] * margins[b]).sum(axis=1)  # pairs of different labels
    g = len(a)
    if (d <= 0).any():
        ratio = 0.0
    else:
        ratio = math.exp(math.log(g) + float(np.log(d).sum()) - 2.0 * g * math.log(n))
    pc = 1.0 - ratio
    var = pc / (n * (1.0 - pc)) if pc != 1.0 else math.inf
    if not var > 0 or math.isinf(var):
        return math.nan, math.nan
    se = math.sqrt(var)
    return se, value / se


def all_agree_share(x: np.ndarray, complete: np.ndarray, tolerance: float | None) -> tuple[float, int]:
    """Share of complete items whose ratings all agree (``irr::agree``): numeric scores within
    ``tolerance`` of each other (max - min <= tolerance), or identical codes when ``tolerance`` is None.

    Parameters
    ----------
    x : float array of shape (n_items, n_raters)
        Scores (or codes); cells of incomplete items are not read.
    complete : bool array of shape (n_items,)
        Items every rater rated.
    tolerance : float or None

    Returns
    -------
    (share, n_complete) : tuple

    Examples
    --------
    >>> all_agree_share(np.array([[1.0, 2.0], [3.0, 3.0], [0.0, 5.0]]), np.array([True, True, False]), 1.0)
    (1.0, 2)
    """
    rows = x[complete]
    if rows.shape[0] == 0:
        return math.nan, 0
    spread = rows.max(axis=1) - rows.min(axis=1)
    ok = spread <= (0.0 if tolerance is None else tolerance) + 1e-12 * max(1.0, float(np.abs(rows).max()))
    return float(ok.mean()), int(rows.shape[0])


@dataclass(frozen=True)
class MarginalTestResult:
    """A test of marginal homogeneity of two raters' K x K table.

    Attributes
    ----------
    test : str
        ``"mcnemar"``, ``"stuart_maxwell"`` or ``"bhapkar"``.
    statistic, df, p_value : float
        Chi-square statistic, its degrees of freedom and the upper-tail p-value.
    n_items : int
        Items both raters rated.
    details : dict
        The table, the marginal differences, the continuity correction.

    Examples
    --------
    >>> r = MarginalTestResult("mcnemar", 4.0, 1.0, 0.0455, 30)
    >>> r.to_dict()["test"]
    'mcnemar'
    """

    test: str
    statistic: float
    df: float
    p_value: float
    n_items: int
    warnings: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """The scalar fields as a flat dict."""
        return {"test": self.test, "statistic": self.statistic, "df": self.df, "p_value": self.p_value,
                "n_items": self.n_items, "warnings": "; ".join(self.warnings)}

    def to_frame(self) -> "pd.DataFrame":
        """One-row tidy DataFrame of :meth:`to_dict`."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])

    def __str__(self) -> str:
        return (f"{self.test}: chi2 = {self.statistic:.4g} on {self.df:g} df, p = {self.p_value:.4g} "
                f"({self.n_items} items)")


def _chi2(stat: float, df: float) -> float:
    from scipy import stats

    return float(stats.chi2.sf(stat, df)) if math.isfinite(stat) else math.nan


def mcnemar_test(table: np.ndarray, *, correction: bool = False) -> tuple[float, float, float, dict[str, Any]]:
    """McNemar's chi-square for a 2 x 2 table: ``(b - c)^2 / (b + c)`` (``(|b - c| - 1)^2 / (b + c)``
    with ``correction``, R ``mcnemar.test``'s default)."""
    t = np.asarray(table, dtype=np.float64)
    if t.shape != (2, 2):
        raise ValueError(f"McNemar's test needs two categories (a 2 x 2 table); got {t.shape[0]} categories "
                         "(use test='stuart_maxwell' or 'bhapkar')")
    b, c = t[0, 1], t[1, 0]
    num = (abs(b - c) - 1.0) ** 2 if correction else (b - c) ** 2
    stat = num / (b + c) if b + c > 0 else math.nan
    return float(stat), 1.0, _chi2(stat, 1.0), {"discordant": (int(b), int(c)), "correction": correction}


def _marginal_parts(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    t = np.asarray(table, dtype=np.float64)
    used = (t.sum(axis=0) + t.sum(axis=1)) > 0  # a category neither rater used carries no information
    t = t[np.ix_(used, used)]
    d = (t.sum(axis=1) - t.sum(axis=0))[:-1]
    s = -(t + t.T)[:-1, :-1]
    np.fill_diagonal(s, (t.sum(axis=1) + t.sum(axis=0) - 2.0 * np.diag(t))[:-1])
    return t, d, s, used


def _quadratic(d: np.ndarray, s: np.ndarray) -> tuple[float, float]:
    """``d' S^- d`` and its degrees of freedom, the rank of ``S``.

    ``S`` is singular when the categories split into blocks the two raters never confuse with each
    other (e.g. a category used only where both agree): every block's marginal differences sum to 0,
    ``d`` lies in the range of ``S``, and the Wald statistic is the generalised-inverse form on
    ``rank(S)`` degrees of freedom (invariant to the choice of the generalised inverse). Without
    discordant pairs (``S = 0``) it is undefined (nan).
    """
    if d.size == 0:
        return math.nan, 0.0
    scale = float(np.abs(s).max()) if s.size else 0.0
    if scale == 0.0:
        return math.nan, float(d.size)
    rank = int(np.linalg.matrix_rank(s, tol=1e-10 * scale * len(d)))
    if rank == len(d):
        return float(d @ np.linalg.solve(s, d)), float(rank)
    pinv = np.linalg.pinv(s, rcond=1e-10, hermitian=True)
    if np.abs(s @ (pinv @ d) - d).max() > 1e-8 * max(1.0, float(np.abs(d).max())):
        return math.nan, float(rank)  # d outside the range of S: not a covariance of these differences
    return float(d @ pinv @ d), float(rank)


def stuart_maxwell_test(table: np.ndarray) -> tuple[float, float, float, dict[str, Any]]:
    """Stuart (1955) / Maxwell (1970): ``d' S^-1 d`` on K - 1 df, ``d`` the first K - 1 marginal
    differences and ``S`` their covariance under homogeneity (as statsmodels
    ``SquareTable.homogeneity("stuart_maxwell")``); categories neither rater used are dropped. Where
    ``S`` is singular (categories the raters never confuse with the others) the generalised inverse
    on ``rank(S)`` df (statsmodels gives nan)."""
    t, d, s, used = _marginal_parts(table)
    stat, df = _quadratic(d, s)
    return stat, df, _chi2(stat, df), {"marginal_differences": d, "n_categories_used": int(used.sum()),
                                       "singular": df < t.shape[0] - 1}


def bhapkar_test(table: np.ndarray) -> tuple[float, float, float, dict[str, Any]]:
    """Bhapkar (1966): the Wald form, ``S`` minus ``d d' / n`` (as statsmodels
    ``SquareTable.homogeneity("bhapkar")`` and R ``irr::bhapkar``); equals ``Q_SM / (1 - Q_SM / n)``.
    Where ``S`` is singular, the generalised inverse on ``rank(S)`` df (the peers' statistic, on K - 1 df)."""
    t, d, s, used = _marginal_parts(table)
    n = t.sum()
    stat, df = _quadratic(d, s - np.outer(d, d) / n)
    return stat, df, _chi2(stat, df), {"marginal_differences": d, "n_categories_used": int(used.sum()),
                                       "singular": df < t.shape[0] - 1}


#: test name -> function(table) -> (statistic, df, p, details)
MARGINAL_TESTS = {"mcnemar": mcnemar_test, "stuart_maxwell": stuart_maxwell_test, "bhapkar": bhapkar_test}
