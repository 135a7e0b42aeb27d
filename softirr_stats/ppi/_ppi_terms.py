"""Prediction-powered soft agreement: a cheap estimator on every pair, a trusted judge on a sample.

Every soft coefficient handled here is ``combine(P_o, P_e)`` where each term is a weighted sum
of the similarity over label pairs,

    P_T(s) = const_T + sum_{a < b} W_T(a, b) s(a, b),

``const_T`` being the weight of identical pairs (which score 1). :func:`term_weights` gives,
for a batch of item weights, ``W_T`` at any list of distinct unordered label pairs plus
``const_T`` and the distinct-pair mass, for the observed (``o``) and chance (``e``) term of
Scott/Fleiss (``pooled``), Cohen/Conger (``conger``), Krippendorff's alpha (``alpha``), Gwet's
AC1/AC2 (``ac1``: ``P_e = T_w sum pi (1 - pi) / (q (q - 1))`` with ``T_w = sum_{a,b} s``) and
Brennan-Prediger (``bp``: ``P_e = T_w / q^2``).

With judged draws ``p_1..p_n`` from a known design ``q``, the difference (Hansen-Hurwitz)
estimator of each term is

    P_T = const_T + lambda_T (P_T(f) - const_T) + (1/n) sum_k W_T(p_k) (h - lambda_T f)(p_k) / q(p_k),

unbiased for ``P_T(h)`` at any fixed ``lambda_T``; ``lambda_T = Cov(z, g) / Var(g)`` with
``z = W_T h / q`` and ``g = W_T f / q`` minimises its variance (power tuning, Angelopoulos,
Duchi & Zrnic 2023, arXiv:2311.01453). Angelopoulos et al. (2023, Science 382:669) and Zrnic &
Candes (2024, PNAS 121:e2322891121) give the mean case and the active design.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from softirr_stats.agreement import Prepared

__all__ = ["JudgedWeights", "judged_weights", "design_codes", "chance_components", "observed_factor", "TermWeights", "term_weights", "PpiTerms", "ppi_terms", "tune_lambda",
           "ppi_estimate", "delta_variance", "kappa_gradient", "canonical_pairs", "delta_influence",
           "effective_df", "DeltaVariance", "floored_delta", "binomial_floor", "PSEUDO_COUNT"]

#: Pseudo-draws of each judgment added to each term's equivalent share in the variance (Laplace's
#: rule of succession, ``(k + 1) / (n + 2)``; see :func:`binomial_floor`).
PSEUDO_COUNT = 1.0

@dataclass(frozen=True)
class TermWeights:
    """Weights of the observed (``o``) and chance (``e``) terms, per replicate of item weights.

    ``Wo``, ``We``: (B, J) weights of the J requested distinct unordered label pairs;
    ``const_o``, ``const_e``: (B,) weight of identical pairs; ``mass_o``, ``mass_e``: (B,)
    total weight of distinct pairs.
    """

    Wo: np.ndarray
    We: np.ndarray
    const_o: np.ndarray
    const_e: np.ndarray
    mass_o: np.ndarray
    mass_e: np.ndarray


def canonical_pairs(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """Key ``min * k + max`` of unordered code pairs.

    >>> canonical_pairs(np.array([2, 0]), np.array([1, 3]), 5).tolist()
    [7, 3]
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    return np.minimum(a, b) * k + np.maximum(a, b)


def judged_weights(family: Any) -> "JudgedWeights | None":
    """How a chance family's terms weigh distinct label pairs: its ``judged`` field (a
    :class:`JudgedWeights` or the name of one in this module), or None where it takes no ``judgments=``.

    Examples
    --------
    >>> from softirr_stats.agreement import FAMILIES
    >>> judged_weights(FAMILIES["pooled"]) is POOLED, judged_weights(FAMILIES["percent"])
    (True, None)
    """
    judged = family.judged
    return judged if judged is None or isinstance(judged, JudgedWeights) else globals()[judged]


def check_family(prep: Prepared) -> None:
    """Raise unless the prepared coefficient is one the prediction-powered estimator handles."""
    jw = judged_weights(prep.family)
    if jw is None:
        raise ValueError(f"judgments= applies to Cohen, Scott, Fleiss, Conger, Krippendorff (nominal/soft), "
                         f"Gwet AC1 and Brennan-Prediger; got the {prep.family.name!r} family")
    if prep.chance_pairs is not None:
        raise ValueError(f"judgments= needs chance='exact' (the estimator's chance term is summed over every "
                         f"label pair); got chance={prep.chance_label!r}")
    if jw.categories and prep.q_categories < 2:
        raise ValueError("judgments= with AC1/Brennan-Prediger needs at least 2 categories")


def _weights(prep: Prepared) -> "JudgedWeights":
    jw = judged_weights(prep.family)
    if jw is None:  # pragma: no cover - check_family runs first
        raise ValueError(f"the {prep.family.name!r} family has no judged-pair weights")
    return jw


def _pair_factor(r: np.ndarray, den: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each item's pairs weigh ``1 / (r (r - 1) / 2)``; items count equally (Cohen, Scott, Fleiss, AC1, BP)."""
    return np.where(ok, 1.0 / den, 0.0), ok.astype(np.float64)


def _pairable_factor(r: np.ndarray, den: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each item's pairs weigh ``r / (r (r - 1) / 2)``; items count by their pairable values (alpha)."""
    return np.where(ok, r / den, 0.0), r * ok


def _item_factor(prep: Prepared) -> tuple[np.ndarray, np.ndarray]:
    """Per item: weight of each within-item pair (before normalising) and the normaliser's row."""
    r = prep.layout.r_i.astype(np.float64)
    ok = r >= 2
    den = np.where(ok, r * (r - 1) / 2.0, 1.0)
    return _weights(prep).observed(r, den, ok)


def _observed(prep: Prepared, C: np.ndarray, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Observed-term weights at ``keys`` (B, J) and the identical-pair constant (B,)."""
    d, k = prep.layout, prep.layout.n_codes
    import scipy.sparse as sp

    fac, norm_row = _item_factor(prep)
    norm = C @ norm_row
    inst_key = canonical_pairs(d.pair_ca, d.pair_cb, k)
    same = d.pair_ca == d.pair_cb
    ident = np.bincount(d.pair_item[same], weights=fac[d.pair_item[same]], minlength=prep.n)
    const = (C @ ident) / norm
    W = np.zeros((C.shape[0], len(keys)))
    if len(keys):
        order = np.argsort(keys)
        pos = np.searchsorted(keys[order], inst_key)
        pos = np.minimum(pos, len(keys) - 1)
        hit = (keys[order][pos] == inst_key) & ~same
        A = sp.csr_matrix((fac[d.pair_item[hit]], (d.pair_item[hit], order[pos[hit]])),
                          shape=(prep.n, len(keys)))
        W = np.asarray((A.T @ C.T).T) / norm[:, None]
    return W, const


def _rating_matrix(prep: Prepared, per_item: np.ndarray, cols: np.ndarray, n_cols: int) -> Any:
    """Sparse (n_items x n_cols) sum of ``per_item`` over each item's ratings, cached on ``prep``."""
    import scipy.sparse as sp

    cache = prep.__dict__.setdefault("_ppi_matrices", {})
    if n_cols not in cache:  # one matrix per family and shape: the same data every call
        d = prep.layout
        cache[n_cols] = sp.csr_matrix((per_item[d.rating_item], (d.rating_item, cols)), shape=(prep.n, n_cols))
    return cache[n_cols]


def _chance_bp(prep: Prepared, C: np.ndarray, a: np.ndarray, b: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Brennan-Prediger: ``P_e = T_w / q^2``, every pair of categories weighs ``2 / q^2``."""
    B, q = C.shape[0], prep.q_categories
    return np.full((B, len(a)), 2.0 / q**2), np.full(B, 1.0 / q), np.full(B, (q - 1.0) / q)


def _pooled_pi(prep: Prepared, C: np.ndarray) -> np.ndarray:
    d = prep.layout
    r = d.r_i.astype(np.float64)
    Pi = _rating_matrix(prep, np.where(r > 0, 1.0 / np.maximum(r, 1.0), 0.0), d.rating_code, d.n_codes)
    return np.asarray((Pi.T @ C.T).T) / (C @ (r > 0))[:, None]


def _chance_pooled(prep: Prepared, C: np.ndarray, a: np.ndarray, b: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scott / Fleiss: ``2 pi_a pi_b`` with the pooled label distribution ``pi``."""
    pi = _pooled_pi(prep, C)
    const = np.sum(pi**2, axis=1)
    return 2.0 * pi[:, a] * pi[:, b], const, 1.0 - const


def _chance_ac1(prep: Prepared, C: np.ndarray, a: np.ndarray, b: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gwet's AC1: every pair of categories weighs ``2 sum pi (1 - pi) / (q (q - 1))``."""
    pi = _pooled_pi(prep, C)
    q = prep.q_categories
    cst = np.sum(pi * (1.0 - pi), axis=1) / (q * (q - 1.0))
    return np.repeat(2.0 * cst[:, None], len(a), axis=1), cst * q, cst * q * (q - 1.0)


def _chance_alpha(prep: Prepared, C: np.ndarray, a: np.ndarray, b: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Krippendorff's alpha: ``2 n_a n_b / (N (N - 1))`` over pairable values."""
    d = prep.layout
    ok = (d.r_i >= 2).astype(np.float64)
    NK = _rating_matrix(prep, ok, d.rating_code, d.n_codes)
    nk = np.asarray((NK.T @ C.T).T)
    big = nk.sum(axis=1)
    nn = big * (big - 1.0)
    const = (np.sum(nk**2, axis=1) - big) / nn
    return 2.0 * nk[:, a] * nk[:, b] / nn[:, None], const, 1.0 - const


def _chance_per_rater(prep: Prepared, C: np.ndarray, a: np.ndarray, b: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cohen / Conger: sum over ordered pairs of distinct raters of ``q_r(a) q_r'(b)``, over their number."""
    d, k, nr, B = prep.layout, prep.layout.n_codes, prep.nr, C.shape[0]
    X = _rating_matrix(prep, np.ones(prep.n), d.rating_rater.astype(np.int64) * k + d.rating_code, nr * k)
    counts = np.asarray((X.T @ C.T).T).reshape(B, nr, k)
    tot = counts.sum(axis=2)
    Q = counts / np.where(tot > 0, tot, 1.0)[:, :, None]
    rv = (tot > 0).astype(np.float64)
    den = rv.sum(axis=1) ** 2 - rv.sum(axis=1)
    T = np.einsum("br,brk->bk", rv, Q)
    own = np.einsum("br,brk,brk->bk", rv, Q, Q)  # diagonal of sum_r q_r q_r^T
    const = (np.sum(T**2, axis=1) - own.sum(axis=1)) / den
    cross = np.einsum("br,brj,brj->bj", rv, Q[:, :, a], Q[:, :, b])
    W = 2.0 * (T[:, a] * T[:, b] - cross) / den[:, None]
    return W, const, 1.0 - const


def _components_uniform(prep: Prepared) -> tuple[np.ndarray, np.ndarray]:
    k = prep.layout.n_codes
    u = np.full((1, k), 1.0 / k)
    return u, u


def _components_pooled(prep: Prepared) -> tuple[np.ndarray, np.ndarray]:
    d, k = prep.layout, prep.layout.n_codes
    r = d.r_i.astype(np.float64)
    pi = np.bincount(d.rating_code, weights=1.0 / r[d.rating_item], minlength=k)
    return (pi / pi.sum())[None], (pi / pi.sum())[None]


def _components_alpha(prep: Prepared) -> tuple[np.ndarray, np.ndarray]:
    d, k = prep.layout, prep.layout.n_codes
    r = d.r_i.astype(np.float64)
    nk = np.bincount(d.rating_code, weights=(r[d.rating_item] >= 2).astype(float), minlength=k)
    return (nk / nk.sum())[None], (nk / nk.sum())[None]


def _components_per_rater(prep: Prepared) -> tuple[np.ndarray, np.ndarray]:
    d, k = prep.layout, prep.layout.n_codes
    counts = np.bincount(d.rating_rater.astype(np.int64) * k + d.rating_code, minlength=prep.nr * k)
    counts = counts.reshape(prep.nr, k).astype(np.float64)
    rated = np.flatnonzero(counts.sum(axis=1) > 0)
    Q = counts[rated] / counts[rated].sum(axis=1, keepdims=True)
    ra, rb = np.nonzero(~np.eye(len(rated), dtype=bool))
    return Q[ra], Q[rb]


def _codes_all(prep: Prepared) -> np.ndarray:
    return np.arange(prep.layout.n_codes)


def _codes_rated(prep: Prepared) -> np.ndarray:
    return np.unique(prep.layout.rating_code)


def _codes_pairable(prep: Prepared) -> np.ndarray:
    d = prep.layout
    return np.unique(d.rating_code[d.r_i[d.rating_item] >= 2])


@dataclass(frozen=True)
class JudgedWeights:
    """How a chance family's observed and chance terms weigh distinct label pairs.

    The field ``judged`` of :class:`softirr_stats.agreement.ChanceFamily` names one of
    these records (None: the family takes no ``judgments=``); the prediction-powered code
    only looks them up, it never compares family names.

    Attributes
    ----------
    observed : callable
        ``(r, r (r - 1) / 2, r >= 2) -> (pair weight per item, normaliser row)``.
    chance : callable
        ``(prep, C, a, b) -> (W_e (B, J), const_e (B,), distinct mass (B,))``.
    components : callable
        ``prep -> (X, Y)``: (J, K) distributions with the chance weight of an ordered distinct
        pair proportional to ``sum_j X_j(a) Y_j(b)`` (how judging plans draw chance pairs).
    codes : callable
        ``prep -> codes`` every term can weigh (the pairs the active design enumerates).
    categories : bool
        Chance weighs every pair of declared categories, used or not (AC1, Brennan-Prediger).

    Examples
    --------
    >>> POOLED.categories, BP.categories
    (False, True)
    """

    observed: Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
    chance: Callable[..., tuple[np.ndarray, np.ndarray, np.ndarray]]
    components: Callable[[Prepared], tuple[np.ndarray, np.ndarray]]
    codes: Callable[[Prepared], np.ndarray]
    categories: bool = False


POOLED = JudgedWeights(_pair_factor, _chance_pooled, _components_pooled, _codes_rated)
PER_RATER = JudgedWeights(_pair_factor, _chance_per_rater, _components_per_rater, _codes_rated)
ALPHA = JudgedWeights(_pairable_factor, _chance_alpha, _components_alpha, _codes_pairable)
AC1 = JudgedWeights(_pair_factor, _chance_ac1, _components_uniform, _codes_all, categories=True)
BP = JudgedWeights(_pair_factor, _chance_bp, _components_uniform, _codes_all, categories=True)


def chance_components(prep: Prepared) -> tuple[np.ndarray, np.ndarray]:
    """(J, K) distributions X, Y with the chance weight of an ordered distinct pair ``(a, b)``
    proportional to ``sum_j X_j(a) Y_j(b)``."""
    return _weights(prep).components(prep)


def observed_factor(prep: Prepared) -> np.ndarray:
    """Per item, the weight of each of its within-item pairs (before normalising)."""
    return _item_factor(prep)[0]


def term_weights(prep: Prepared, a: np.ndarray, b: np.ndarray, C: np.ndarray | None = None) -> TermWeights:
    """Observed and chance weights of the distinct label pairs ``(a, b)`` (vocabulary codes, a != b).

    ``C`` is a (B, n_items) batch of item weights (default: one row of ones, the data as
    observed). With ``s`` any similarity with a unit diagonal, ``const_o + sum W_o s`` over
    all distinct pairs is the coefficient's observed agreement and ``const_e + sum W_e s``
    its chance agreement, exactly.

    Examples
    --------
    >>> from softirr_stats.agreement import as_annotations, prepare
    >>> from softirr_stats.equivalence import ExactMatchSimilarity
    >>> ann = as_annotations([["a", "b"], ["a", "a"], ["b", "b"]])
    >>> tw = term_weights(prepare(ann, "pooled", ExactMatchSimilarity(2)), np.array([0]), np.array([1]))
    >>> round(float(tw.Wo[0, 0]), 4), round(float(tw.const_o[0]), 4), round(float(tw.We[0, 0]), 4)
    (0.3333, 0.6667, 0.5)
    """
    check_family(prep)
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    if np.any(a == b):
        raise ValueError("term_weights takes distinct label pairs (a != b); identical pairs are in const_o/const_e")
    C = np.ones((1, prep.n)) if C is None else np.atleast_2d(np.asarray(C, dtype=np.float64))
    keys = canonical_pairs(a, b, prep.layout.n_codes)
    Wo, const_o = _observed(prep, C, keys)
    We, const_e, mass_e = _weights(prep).chance(prep, C, a, b)
    return TermWeights(Wo=Wo, We=We, const_o=const_o, const_e=const_e, mass_o=1.0 - const_o, mass_e=mass_e)


def design_codes(prep: Prepared) -> np.ndarray:
    """The label codes a judging design draws pairs among: every code either term can weigh."""
    return np.asarray(_weights(prep).codes(prep), dtype=np.int64)


def all_distinct_pairs(prep: Prepared, limit: int = 5_000_000) -> tuple[np.ndarray, np.ndarray]:
    """Every distinct unordered label pair either term can weigh (codes ``a < b``)."""
    codes = design_codes(prep)
    m = len(codes)
    if m * (m - 1) // 2 > limit:
        raise ValueError(f"{m} labels give {m * (m - 1) // 2} label pairs, more than {limit} to enumerate; "
                         "use strategy='uniform', which needs no enumeration")
    i, j = np.triu_indices(m, k=1)
    return codes[i], codes[j]


@dataclass(frozen=True)
class PpiTerms:
    """Per judged row: the term weights over ``q`` of the observed and chance terms, h and f."""

    zo: np.ndarray  # W_o h / q
    go: np.ndarray  # W_o f / q
    ze: np.ndarray
    ge: np.ndarray
    m: np.ndarray  # draws per row (multiplicity)
    wo_q: np.ndarray | None = None  # W_o / q, W_e / q, h and f themselves (the variance floor)
    we_q: np.ndarray | None = None
    h: np.ndarray | None = None
    f: np.ndarray | None = None


def ppi_terms(tw: TermWeights, h: np.ndarray, f: np.ndarray, q: np.ndarray, m: np.ndarray, row: int = 0) -> PpiTerms:
    """The Hansen-Hurwitz summands of one replicate ``row`` of ``tw``."""
    wo, we = tw.Wo[row] / q, tw.We[row] / q
    return PpiTerms(zo=wo * h, go=wo * f, ze=we * h, ge=we * f, m=np.asarray(m, dtype=np.float64),
                    wo_q=wo, we_q=we, h=np.asarray(h, dtype=np.float64), f=np.asarray(f, dtype=np.float64))


def _wcov(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted covariance along the last axis, with ``n = sum w`` and the ddof=1 correction."""
    n = w.sum(axis=-1)
    mx = (w * x).sum(axis=-1) / n
    my = (w * y).sum(axis=-1) / n
    return (w * (x - mx[..., None]) * (y - my[..., None])).sum(axis=-1) / np.maximum(n - 1.0, 1.0)


def tune_lambda(z: np.ndarray, g: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Variance-optimal ``lambda = Cov(z, g) / Var(g)`` clipped to [0, 1] (0 when g is constant).

    ``w`` are draw multiplicities; leading axes are replicates.

    >>> float(tune_lambda(np.array([1., 2., 3.]), np.array([1., 2., 3.]), np.ones(3)))
    1.0
    """
    vg = _wcov(g, g, w)
    cg = _wcov(z, g, w)
    lam = np.where(vg > 1e-300, cg / np.where(vg > 1e-300, vg, 1.0), 0.0)
    return np.clip(lam, 0.0, 1.0)


def ppi_estimate(t: PpiTerms, w: np.ndarray, lam_o: np.ndarray | float, lam_e: np.ndarray | float,
                 pf_o: np.ndarray | float, pf_e: np.ndarray | float, const_o: np.ndarray | float,
                 const_e: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """``(P_o, P_e)`` estimates for draw weights ``w`` (leading axes: replicates).

    ``pf_*`` are the estimator's own terms ``P_T(f)``; ``w`` counts each row's draws and
    ``sum w`` is the number of draws.
    """
    n = w.sum(axis=-1)
    lam_o, lam_e = np.asarray(lam_o), np.asarray(lam_e)
    po = const_o + lam_o * (pf_o - const_o) + (w * (t.zo - lam_o[..., None] * t.go)).sum(axis=-1) / n
    pe = const_e + lam_e * (pf_e - const_e) + (w * (t.ze - lam_e[..., None] * t.ge)).sum(axis=-1) / n
    return po, pe


def combine_np(po: np.ndarray, pe: np.ndarray) -> np.ndarray:
    """``(P_o - P_e) / (1 - P_e)``; nan where ``P_e >= 1``."""
    po, pe = np.asarray(po, dtype=np.float64), np.asarray(pe, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(pe < 1.0, (po - pe) / (1.0 - pe), np.nan)


def kappa_gradient(po: float, pe: float) -> np.ndarray:
    """``(d kappa / d P_o, d kappa / d P_e)`` of ``(P_o - P_e) / (1 - P_e)``."""
    return np.array([1.0 / (1.0 - pe), (po - 1.0) / (1.0 - pe) ** 2])


def delta_influence(t: PpiTerms, lam_o: float, lam_e: float, po: float, pe: float) -> np.ndarray:
    """Per judged row, the coefficient's linearised summand ``g . (W_o (h - lambda_o f), W_e (h - lambda_e f)) / q``.

    Its weighted variance over the draws, divided by the number of draws, is
    :func:`delta_variance`.
    """
    g = kappa_gradient(po, pe)
    return g[0] * (t.zo - lam_o * t.go) + g[1] * (t.ze - lam_e * t.ge)


def effective_df(d: np.ndarray, m: np.ndarray) -> float:
    """Degrees of freedom of the delta-method variance: ``n - 1`` shrunk by the summands' kurtosis.

    The variance of the sample variance of ``n`` draws is ``sigma^4 (2 / (n - 1) + kappa / n)``
    (``kappa`` the excess kurtosis); matching it to a scaled chi-square gives
    ``df = 2 / (2 / (n - 1) + kappa / n)`` (Satterthwaite's moment match). The Hansen-Hurwitz
    summands are heavy-tailed when a few judged pairs carry most of the signal (rare synonyms
    drawn with small ``q``), and then the normal interval undercovers at small budgets; a
    Student-t quantile with this ``df`` widens it by what the variance estimate's noise costs.
    Clipped to ``[1, n - 1]``; ``n - 1`` when the summands have no spread.

    Examples
    --------
    >>> round(effective_df(np.array([0.0, 1.0]), np.array([25.0, 25.0])), 1)  # kappa = -2
    49.0
    >>> round(effective_df(np.r_[1.0, np.zeros(49)], np.ones(50)), 1)  # one hit in 50 draws
    2.1
    >>> round(effective_df(np.r_[np.ones(5), np.zeros(45)], np.ones(50)), 1)  # five hits
    14.0
    """
    m = np.asarray(m, dtype=np.float64)
    n = float(m.sum())
    if n < 2:
        return math.nan
    mean = float((m * d).sum() / n)
    c2 = float((m * (d - mean) ** 2).sum() / n)
    if not c2 > 0:
        return n - 1.0
    excess = float((m * (d - mean) ** 4).sum() / n) / c2**2 - 3.0
    df = 2.0 / (2.0 / (n - 1.0) + max(excess, 0.0) / n)
    return float(min(max(df, 1.0), n - 1.0))


def delta_variance(t: PpiTerms, lam_o: float, lam_e: float, po: float, pe: float) -> float:
    """Delta-method variance of the coefficient, conditional on the items (the draws' covariance / n)."""
    do = t.zo - lam_o * t.go
    de = t.ze - lam_e * t.ge
    n = t.m.sum()
    cov = np.array([[_wcov(do, do, t.m), _wcov(do, de, t.m)], [_wcov(de, do, t.m), _wcov(de, de, t.m)]]) / n
    g = kappa_gradient(po, pe)
    v = float(g @ cov @ g)
    return v if math.isfinite(v) else math.nan


@dataclass(frozen=True)
class DeltaVariance:
    """The delta-method variance of a prediction-powered coefficient, with its degrees of freedom.

    ``var`` is the sample (delta-method) variance ``raw_var`` plus the binomial floor ``floor``
    of :func:`binomial_floor` (the equivalent shares' variance at Laplace's ``(k + 1) / (n + 2)``
    instead of ``k / n``). ``floored`` is True when the judged summands were all equal (e.g. no
    judged pair equivalent: tuned lambda 0 and every summand 0), so that ``raw_var`` is 0 and
    the variance is the floor alone; ``df`` is then that of the pseudo-sample (see
    :func:`floored_delta`).
    """

    var: float
    df: float
    floored: bool
    raw_var: float
    skewness: float = 0.0  # of the linearised summands over the draws (0 without spread)
    floor: float = 0.0  # the binomial floor added to raw_var


def binomial_floor(t: PpiTerms, lam_o: float, lam_e: float, po: float, pe: float,
                   pseudo: float = PSEUDO_COUNT) -> float:
    """Variance added to the delta method so that few equivalent judged draws widen the interval.

    Per term ``T`` (observed, chance), over the ``n_T`` draws that serve it (``W_T > 0``), the
    linearised summand ``t = g_T W_T (h - lambda_T f) / q`` of an equivalent draw differs on
    average by ``Delta_T`` from that of a non-equivalent one. By the law of total variance the
    summands' variance holds the between-group part ``(n_T / n) p (1 - p) Delta_T^2`` with ``p``
    the term's equivalent share, which the delta method evaluates at the sample share
    ``p^ = k_T / n_T`` (``k_T = sum h`` over those draws, graded judgments clipped to [0, 1]).
    When ``k_T`` is small, ``p^`` is small exactly when the estimate is low, so the variance
    and the estimate err together and the interval misses on one side (the Wald interval's
    failure for a binomial proportion, Brown, Cai & DasGupta 2001). The floor re-evaluates that
    part at ``p~ = (k_T + c) / (n_T + 2 c)`` (``c = pseudo`` draws of each judgment; ``c = 1``
    is Laplace's rule of succession, ``c = z^2 / 2`` Agresti & Coull's centre) and adds the
    difference,

        floor = sum_T (n_T / n) Delta_T^2 max(p~ (1 - p~) - p^ (1 - p^), 0) / n,

    which is ``O(1 / (k_T n))`` when ``k_T`` is large: it only matters when few draws were judged
    equivalent (or few not). Without a draw of one kind, ``Delta_T`` is the move of a judged 1
    instead of 0, ``g_T W_T / q`` averaged over the term's draws. The terms' floors are added
    (never netted against each other through the gradient's opposite signs).

    Examples
    --------
    >>> w = np.full(30, 0.5)
    >>> h, f = np.r_[1.0, np.zeros(29)], np.full(30, 0.2)  # one equivalent draw in 30
    >>> t = PpiTerms(zo=w * h, go=w * f, ze=0 * w, ge=0 * w, m=np.ones(30), wo_q=w, we_q=0 * w, h=h, f=f)
    >>> fl = binomial_floor(t, 0.0, 0.0, 0.6, 0.3)
    >>> g = 1 / (1 - 0.3)  # d kappa / d P_o;  Delta = 0.5 g, p^ = 1/30, p~ = 2/32
    >>> bool(np.isclose(fl, (0.5 * g) ** 2 * (2 / 32 * 30 / 32 - 1 / 30 * 29 / 30) / 30))
    True
    """
    if t.wo_q is None or t.we_q is None or t.h is None or t.f is None:
        return 0.0
    g = kappa_gradient(po, pe)
    m = t.m
    n = float(m.sum())
    if not (n >= 1 and np.all(np.isfinite(g))):
        return 0.0
    u = np.clip(t.h, 0.0, 1.0)  # equivalent share of each judged value
    out = 0.0
    for gT, wq, lam in ((g[0], t.wo_q, lam_o), (g[1], t.we_q, lam_e)):
        serve = wq > 0
        if not serve.any():
            continue
        ms, us = m[serve], u[serve]
        ts = gT * wq[serve] * (t.h[serve] - lam * t.f[serve])
        n_t = float(ms.sum())
        k = float((ms * us).sum())
        if k > 0 and n_t - k > 0:
            delta = float((ms * us * ts).sum() / k - (ms * (1.0 - us) * ts).sum() / (n_t - k))
        else:  # one kind never judged: a judged 1 instead of 0 moves the summand by g_T W_T / q
            delta = float(gT * (ms * wq[serve]).sum() / n_t)
        p_hat = k / n_t
        p_til = (k + pseudo) / (n_t + 2.0 * pseudo)
        out += (n_t / n) * delta**2 * max(p_til * (1.0 - p_til) - p_hat * (1.0 - p_hat), 0.0) / n
    return float(out) if math.isfinite(out) else 0.0


def floored_delta(t: PpiTerms, lam_o: float, lam_e: float, po: float, pe: float) -> DeltaVariance:
    """Delta-method variance and degrees of freedom, with the binomial floor of few equivalent draws.

    The variance is the sample (delta-method) variance plus :func:`binomial_floor`: each term's
    equivalent share enters at Laplace's ``(k + 1) / (n + 2)`` rather than ``k / n``, which
    widens the interval smoothly as the judged equivalent draws get few, and keeps it open when
    there are none. ``df`` is :func:`effective_df` of the judged summands. When every judged
    draw has the same judgment and the same linearised summand (the usual case: no judged pair
    is equivalent, so the tuned ``lambda`` is 0 and every summand is 0) the sample variance is
    exactly 0 and has no degrees of freedom to give: ``floored`` is set and ``df`` is that of
    the pseudo-sample (whose variance is the floor when the common judgment is graded, so that
    there is no 0/1 share to floor) with, for each term, one pseudo-draw of the opposite judgment on a pair
    of that term's average weight (about 3 with two deviating summands, so the 95% half-width
    is about ``3 Delta / n_T``, of the order of the exact binomial bound, the rule of three's
    ``3.7 / n``, on a share none of the draws has shown).

    Examples
    --------
    >>> w = np.full(30, 0.5)
    >>> h, f = np.zeros(30), np.full(30, 0.2)
    >>> t = PpiTerms(zo=w * h, go=w * f, ze=w * h, ge=w * f, m=np.ones(30), wo_q=w, we_q=w, h=h, f=f)
    >>> dv = floored_delta(t, 0.0, 0.0, 0.6, 0.3)  # no judged pair equivalent
    >>> dv.raw_var, dv.floored, dv.var > 0, dv.var == dv.floor, round(dv.df, 1)
    (0.0, True, True, True, 3.4)
    """
    var = delta_variance(t, lam_o, lam_e, po, pe)
    d = delta_influence(t, lam_o, lam_e, po, pe)
    n = float(t.m.sum())
    df = effective_df(d, t.m) if n >= 2 else math.nan
    floor = binomial_floor(t, lam_o, lam_e, po, pe) if math.isfinite(var) else 0.0
    scale = max(1.0, float(np.max(np.abs(d)))) if d.size else 1.0
    equal = d.size > 0 and float(np.max(d) - np.min(d)) <= 1e-12 * scale
    same_h = t.h is not None and t.h.size > 0 and float(np.ptp(t.h)) == 0.0  # every judged value equal
    if not (equal and same_h and math.isfinite(var) and n >= 1 and t.wo_q is not None):
        return DeltaVariance(var + floor, df, False, var, summand_skewness(d, t.m), floor)
    m = t.m
    mean = lambda x: float((m * x).sum() / n)  # noqa: E731
    wo, we, f_bar, h_p = mean(t.wo_q), mean(t.we_q), mean(t.f), 1.0 - mean(t.h)
    # the degrees of freedom of a pseudo-sample with one draw of the opposite judgment per term
    # (a pair of average weight in that term only, so that the terms do not cancel in the gradient)
    pseudo = PpiTerms(zo=np.r_[t.zo, wo * h_p, 0.0], go=np.r_[t.go, wo * f_bar, 0.0],
                      ze=np.r_[t.ze, 0.0, we * h_p], ge=np.r_[t.ge, 0.0, we * f_bar], m=np.r_[m, 1.0, 1.0])
    dp = delta_influence(pseudo, lam_o, lam_e, po, pe)
    if not floor > 0:  # judged values all equal but graded (no 0/1 share to floor): the pseudo-sample's own
        floor = delta_variance(pseudo, lam_o, lam_e, po, pe)
    return DeltaVariance(var + floor, effective_df(dp, pseudo.m), True, var, summand_skewness(dp, pseudo.m), floor)


def summand_skewness(d: np.ndarray, m: np.ndarray) -> float:
    """Skewness ``m3 / m2^1.5`` of the per-draw summands (draw multiplicities ``m``); 0 without spread.

    >>> round(summand_skewness(np.r_[1.0, np.zeros(9)], np.ones(10)), 3)
    2.667
    """
    m = np.asarray(m, dtype=np.float64)
    n = float(m.sum())
    if n < 2:
        return 0.0
    mean = float((m * d).sum() / n)
    c2 = float((m * (d - mean) ** 2).sum() / n)
    if not c2 > 0:
        return 0.0
    return float((m * (d - mean) ** 3).sum() / n) / c2**1.5


