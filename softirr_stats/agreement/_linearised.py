"""Linearised per-item terms of each coefficient: the analytic variance's building blocks.

Gwet's (2008, 2014) linearisation as coded in R ``irrCAC`` (``*.raw`` functions), missing
ratings allowed; Krippendorff's alpha in Gwet's form (``krippen.alpha.raw``), centred at
``alpha'``; with two raters and no missing rating these give the Fleiss-Cohen-Everitt (1969)
non-null variance of Cohen's (weighted) kappa. Each chance family's record
(:mod:`softirr_stats.agreement._families`) names its terms function; the interval itself is
built by :mod:`softirr_stats.uncertainty` (docs/formulas/variance.md).
"""

from dataclasses import dataclass
from typing import Any

import numpy as np

from softirr_stats.agreement._chance import BlockedQuad, DenseQuad, IdentityQuad

__all__ = ["Terms", "linearised_terms", "terms_percent", "terms_pooled", "terms_ac1", "terms_bp",
           "terms_per_rater", "terms_alpha"]

Prepared = Any  # softirr_stats.agreement._evaluator.Prepared (the engine imports this module)


# ---------------------------------------------------------------------------------------------
# similarity over the support, as matrix-vector products


def _smv(prep: Prepared, m: np.ndarray) -> np.ndarray:
    """``S_support @ m`` for m of shape (Ks,) or (Ks, c), without materialising a huge S."""
    quad = prep.quad
    if quad is None or isinstance(quad, IdentityQuad):
        if not prep.sim.is_identity and quad is None:
            quad = DenseQuad(prep.sim.block(prep.support, prep.support).values)
        else:
            return np.array(m, dtype=np.float64)
    if isinstance(quad, DenseQuad):
        return np.asarray(quad.S, dtype=np.float64) @ m
    if isinstance(quad, BlockedQuad):
        out = np.empty(np.shape(m), dtype=np.float64)
        sup = prep.support
        for r0 in range(0, len(sup), quad.block_rows):  # blocks of rows of S, never single pairs
            rows = sup[r0:r0 + quad.block_rows]
            out[r0:r0 + len(rows)] = prep.sim.block(rows, sup).values @ m
        return out
    raise TypeError(f"unknown chance operator {type(quad).__name__}")  # pragma: no cover


# ---------------------------------------------------------------------------------------------
# per-item linearised terms


@dataclass(frozen=True)
class Terms:
    """Linearised terms of one coefficient (docs/formulas/variance.md).

    Attributes
    ----------
    phi : ndarray of shape (n_items,)
        Per-item linearised terms (influence values) of the coefficient.
    center : float
        The value they are centred on.
    coef : float
        The coefficient.
    n_var : int
        Number of units in the variance (items, or pairable items).
    n_items : int
        Number of items.
    formula : str
        Which linearisation was used.
    complete_two_raters : bool
        Whether the data are two raters rating every item (the closed forms apply).

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> t = linearised_terms(prep)
    >>> t.phi.shape, t.formula, round(t.coef, 4)
    ((4,), 'gwet-linearised', 0.4667)
    """

    phi: np.ndarray  # per item used in the variance
    center: float  # coef (alpha' for Krippendorff)
    coef: float  # the coefficient recomputed from the same quantities
    n_var: int  # items in the variance sum
    n_items: int  # items with >= 1 rating (for f and the t degrees of freedom)
    formula: str
    complete_two_raters: bool


def _basics(prep: Prepared) -> dict[str, Any]:
    d = prep.layout
    r_i = d.r_i.astype(np.float64)
    item = np.asarray(d.rating_item, dtype=np.int64)
    rs = np.asarray(prep.rating_s, dtype=np.int64)  # support code of each rating
    num, _ = prep.item_pair_sums()  # per item: sum of within-item pair similarities
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


def terms_percent(prep: Prepared, b: dict[str, Any]) -> Terms:
    phi, coef, _ = _chance_corrected(b, 0.0, None)
    return Terms(phi, coef, coef, b["n"], b["n"], "gwet-linearised", b["complete2"])


def _pooled_pi(prep: Prepared, b: dict[str, Any]) -> np.ndarray:
    w = 1.0 / b["r_i"][b["item"]]
    return np.bincount(b["rs"], weights=w, minlength=prep.ks) / b["n"]


def terms_pooled(prep: Prepared, b: dict[str, Any]) -> Terms:
    pi = _pooled_pi(prep, b)
    s_pi = _smv(prep, pi)
    pe = float(pi @ s_pi)
    pe_i = _per_item_mean(b, s_pi[b["rs"]], prep.n)
    phi, coef, _ = _chance_corrected(b, pe, pe_i)
    return Terms(phi, coef, coef, b["n"], b["n"], "gwet-linearised", b["complete2"])


def terms_ac1(prep: Prepared, b: dict[str, Any]) -> Terms:
    q = prep.q_categories
    if q < 2:
        raise ValueError("AC1/AC2 needs at least 2 categories for an analytic standard error")
    pi = _pooled_pi(prep, b)
    c = prep.total_weight / (q * (q - 1.0))
    pe = float(c * np.sum(pi * (1.0 - pi)))
    pe_i = c * _per_item_mean(b, (1.0 - pi)[b["rs"]], prep.n)
    phi, coef, _ = _chance_corrected(b, pe, pe_i)
    return Terms(phi, coef, coef, b["n"], b["n"], "gwet-linearised", b["complete2"])


def terms_bp(prep: Prepared, b: dict[str, Any]) -> Terms:
    pe = prep.total_weight / prep.q_categories**2
    phi, coef, _ = _chance_corrected(b, pe, None)
    return Terms(phi, coef, coef, b["n"], b["n"], "gwet-linearised", b["complete2"])


def terms_per_rater(prep: Prepared, b: dict[str, Any]) -> Terms:
    """Conger (1980) / Cohen: irrCAC ``conger.kappa.raw``'s lambda_ig, vectorised."""
    d = prep.layout
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


def terms_alpha(prep: Prepared, b: dict[str, Any]) -> Terms:
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


def linearised_terms(prep: Prepared) -> Terms:
    """Linearised per-item terms of a prepared coefficient (ValueError where none exist).

    Parameters
    ----------
    prep : Prepared
        The prepared coefficient.

    Returns
    -------
    Terms

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> linearised_terms(prep).n_items
    4
    """
    fam = prep.family
    if fam.terms is None:
        raise ValueError(fam.no_analytic)
    if prep.chance_pairs is not None:
        raise ValueError(f"analytic standard errors need chance='exact'; this estimate used {prep.chance_label}. "
                         "A bootstrap resamples the chance pairs as well")
    b = _basics(prep)
    if b["n2"] == 0:
        raise ValueError("no item has two or more ratings: agreement is undefined")
    return fam.terms_function()(prep, b)
