"""Analytic (linearised, non-null) standard errors and intervals (FORMULAS.md 3).

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
``S`` over the labels in the data (FORMULAS.md 6.6). The interval is
``coef +- t_{n-1, 1-(1-level)/2} * SE`` with the **upper limit truncated at 1** and the lower limit
not truncated (irrCAC's convention). A null-hypothesis variance is never used for an interval.
"""

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from softirr_stats._validation import check_choice, check_level
from softirr_stats.agreement import AgreementResult
from softirr_stats.agreement._chance import BlockedQuad, DenseQuad, IdentityQuad
from softirr_stats.agreement._engine import Prepared

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


# ---------------------------------------------------------------------------------------------
# similarity over the support, as matrix-vector products


def _smv(prep: Prepared, m: np.ndarray) -> np.ndarray:
    """``S_support @ m`` for m of shape (Ks,) or (Ks, c), without materialising a huge S."""
    quad = prep.quad
    if quad is None or isinstance(quad, IdentityQuad):
        if not prep.sim.is_identity and quad is None:
            quad = DenseQuad(prep.sim.block(prep.support, prep.support))
        else:
            return np.array(m, dtype=np.float64)
    if isinstance(quad, DenseQuad):
        return np.asarray(quad.S, dtype=np.float64) @ m
    if isinstance(quad, BlockedQuad):
        out = np.empty(np.shape(m), dtype=np.float64)
        sup = prep.support
        for r0 in range(0, len(sup), quad.block_rows):  # blocks of rows of S, never single pairs
            rows = sup[r0:r0 + quad.block_rows]
            out[r0:r0 + len(rows)] = prep.sim.block(rows, sup) @ m
        return out
    raise TypeError(f"unknown chance operator {type(quad).__name__}")  # pragma: no cover


# ---------------------------------------------------------------------------------------------
# per-item linearised terms


@dataclass(frozen=True)
class Terms:
    """Linearised terms of one coefficient (FORMULAS.md 3.3)."""

    phi: np.ndarray  # per item used in the variance
    center: float  # coef (alpha' for Krippendorff)
    coef: float  # the coefficient recomputed from the same quantities
    n_var: int  # items in the variance sum
    n_items: int  # items with >= 1 rating (for f and the t degrees of freedom)
    formula: str
    complete_two_raters: bool


def _basics(prep: Prepared) -> dict[str, Any]:
    d = prep.design
    r_i = d.r_i.astype(np.float64)
    item = np.asarray(d.rating_item, dtype=np.int64)
    rs = np.asarray(prep.kd.rating_s, dtype=np.int64)  # support code of each rating
    num = np.bincount(np.asarray(d.pair_item, dtype=np.int64), weights=np.asarray(prep.kd.pair_s, dtype=np.float64),
                      minlength=d.n_items)
    sumq = 2.0 * num  # sum over ordered within-item pairs j != j' of s(y_ij, y_ij')
    rated = r_i >= 1
    pairable = r_i >= 2
    den = np.where(pairable, r_i * (r_i - 1.0), 1.0)
    pa_i = np.where(pairable, sumq / den, 0.0)
    raters_present = np.unique(np.asarray(d.rating_rater))
    complete2 = len(raters_present) == 2 and bool(np.all(r_i[rated] == 2))
    return {"r_i": r_i, "item": item, "rs": rs, "sumq": sumq, "rated": rated, "pairable": pairable,
            "pa_i": pa_i, "n": int(rated.sum()), "n2": int(pairable.sum()), "complete2": complete2}


def _chance_corrected(b: dict[str, Any], pe: float, pe_i: np.ndarray | None) -> tuple[np.ndarray, float, float]:
    """Gwet's kappa*_i for coefficients of the form (pa - pe) / (1 - pe)."""
    n, n2 = b["n"], b["n2"]
    rated, pairable, pa_i = b["rated"], b["pairable"], b["pa_i"]
    pa = float(pa_i[pairable].sum() / n2)
    coef = (pa - pe) / (1.0 - pe)
    k_i = (n / n2) * (pa_i - pe * pairable) / (1.0 - pe)
    if pe_i is not None:
        k_i = k_i - 2.0 * (1.0 - coef) * (pe_i - pe) / (1.0 - pe)
    return k_i[rated], coef, pa


def _per_item_mean(b: dict[str, Any], values_per_rating: np.ndarray, n_items: int) -> np.ndarray:
    tot = np.bincount(b["item"], weights=values_per_rating, minlength=n_items)
    return np.where(b["rated"], tot / np.where(b["rated"], b["r_i"], 1.0), 0.0)


def _terms_percent(prep: Prepared, b: dict[str, Any]) -> Terms:
    phi, coef, _ = _chance_corrected(b, 0.0, None)
    return Terms(phi, coef, coef, b["n"], b["n"], "gwet-linearised", b["complete2"])


def _pooled_pi(prep: Prepared, b: dict[str, Any]) -> np.ndarray:
    w = 1.0 / b["r_i"][b["item"]]
    return np.bincount(b["rs"], weights=w, minlength=prep.ks) / b["n"]


def _terms_pooled(prep: Prepared, b: dict[str, Any]) -> Terms:
    pi = _pooled_pi(prep, b)
    s_pi = _smv(prep, pi)
    pe = float(pi @ s_pi)
    pe_i = _per_item_mean(b, s_pi[b["rs"]], prep.n)
    phi, coef, _ = _chance_corrected(b, pe, pe_i)
    return Terms(phi, coef, coef, b["n"], b["n"], "gwet-linearised", b["complete2"])


def _terms_ac1(prep: Prepared, b: dict[str, Any]) -> Terms:
    q = prep.q_categories
    if q < 2:
        raise ValueError("AC1/AC2 needs at least 2 categories for an analytic standard error")
    pi = _pooled_pi(prep, b)
    c = prep.total_weight / (q * (q - 1.0))
    pe = float(c * np.sum(pi * (1.0 - pi)))
    pe_i = c * _per_item_mean(b, (1.0 - pi)[b["rs"]], prep.n)
    phi, coef, _ = _chance_corrected(b, pe, pe_i)
    return Terms(phi, coef, coef, b["n"], b["n"], "gwet-linearised", b["complete2"])


def _terms_bp(prep: Prepared, b: dict[str, Any]) -> Terms:
    pe = prep.total_weight / prep.q_categories**2
    phi, coef, _ = _chance_corrected(b, pe, None)
    return Terms(phi, coef, coef, b["n"], b["n"], "gwet-linearised", b["complete2"])


def _terms_conger(prep: Prepared, b: dict[str, Any]) -> Terms:
    """Conger (1980) / Cohen: irrCAC ``conger.kappa.raw``'s lambda_ig, vectorised."""
    d = prep.design
    n, ks = b["n"], prep.ks
    rater = np.asarray(d.rating_rater, dtype=np.int64)
    n_g = np.bincount(rater, minlength=prep.nr).astype(np.float64)
    present = np.flatnonzero(n_g > 0)
    r = len(present)
    if r < 2:
        raise ValueError("Conger/Cohen kappa needs at least two raters with ratings")
    counts = np.bincount(rater * ks + b["rs"], minlength=prep.nr * ks).reshape(prep.nr, ks)
    p = counts[present] / n_g[present, None]  # (r, Ks) each rater's label distribution
    p_bar = p.mean(axis=0)
    sp = _smv(prep, np.column_stack([p_bar, p.T]))  # (Ks, 1 + r)
    s_pbar, s_p = sp[:, 0], sp[:, 1:]
    pe = float((r * r * (p_bar @ s_pbar) - np.einsum("gk,kg->", p, s_p)) / (r * (r - 1.0)))
    bmat = r * s_pbar[:, None] - s_p  # (Ks, r): B_g = S (r p_bar - p_g)
    c_g = np.einsum("gk,kg->g", p, bmat)
    pos = np.full(prep.nr, -1, dtype=np.int64)
    pos[present] = np.arange(r)
    g = pos[rater]
    contrib = (n / n_g[rater]) * (bmat[b["rs"], g] - c_g[g])
    pe_i = (c_g.sum() + np.bincount(b["item"], weights=contrib, minlength=prep.n)) / (r * (r - 1.0))
    phi, coef, _ = _chance_corrected(b, pe, pe_i)
    return Terms(phi, coef, coef, n, n, "gwet-linearised (conger)", b["complete2"])


def _terms_alpha(prep: Prepared, b: dict[str, Any]) -> Terms:
    """Krippendorff's alpha in Gwet's form (irrCAC ``krippen.alpha.raw``)."""
    keep = b["pairable"]
    r_k = b["r_i"][keep]
    n1 = int(keep.sum())
    r_bar = float(r_k.mean())
    eps = 1.0 / float(r_k.sum())
    sq = b["sumq"][keep] / (r_bar * (r_k - 1.0))
    pa_p = float(sq.mean())
    pa = (1.0 - eps) * pa_p + eps
    in_keep = keep[b["item"]]
    pi = np.bincount(b["rs"][in_keep], minlength=prep.ks) / (n1 * r_bar)
    s_pi = _smv(prep, pi)
    pe = float(pi @ s_pi)
    coef = (pa - pe) / (1.0 - pe)
    coef_p = (pa_p - pe) / (1.0 - pe)
    pa_i = sq - pa * (r_k - r_bar) / r_bar  # irrCAC 1.0 uses the eps-corrected pa here
    a_i = (pa_i - pe) / (1.0 - pe)
    tot = np.bincount(b["item"], weights=s_pi[b["rs"]] * in_keep, minlength=prep.n)[keep]
    pe_i = tot / r_bar - pe * (r_k - r_bar) / r_bar
    phi = a_i - 2.0 * (1.0 - coef_p) * (pe_i - pe) / (1.0 - pe)
    return Terms(phi, coef_p, coef, n1, b["n"], "gwet-linearised (krippendorff)", b["complete2"])


_TERMS = {
    "percent": _terms_percent,
    "pooled": _terms_pooled,
    "ac1": _terms_ac1,
    "bp": _terms_bp,
    "conger": _terms_conger,
    "alpha": _terms_alpha,
}


def check_supported(prep: Prepared) -> None:
    """Raise a ValueError (pointing to the bootstrap) where no analytic variance exists."""
    fam = prep.family
    if fam == "light":
        raise ValueError("Light's kappa has no analytic (linearised) variance here; " + _BOOTSTRAP_HINT)
    if fam == "alpha_ordinal":
        raise ValueError("ordinal alpha's metric depends on the data, so no published linearised variance "
                         "applies; " + _BOOTSTRAP_HINT)
    if prep.chance_pairs is not None:
        raise ValueError(f"analytic standard errors need chance='exact'; this estimate used {prep.chance_label}. "
                         "A bootstrap resamples the chance pairs as well: " + _BOOTSTRAP_HINT)
    if fam not in _TERMS:  # pragma: no cover - FAMILIES is closed
        raise ValueError(f"no analytic variance for family {fam!r}; " + _BOOTSTRAP_HINT)


def analytic_terms(prep: Prepared) -> Terms:
    """Linearised per-item terms of the prepared coefficient (raises where none exist)."""
    check_supported(prep)
    b = _basics(prep)
    if b["n2"] == 0:
        raise ValueError("no item has two or more ratings: agreement is undefined")
    return _TERMS[prep.family](prep, b)


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
    from scipy.special import stdtrit  # Student t quantile; scipy.stats itself costs seconds to import

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
