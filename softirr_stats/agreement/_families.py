"""Chance families: one record per way of computing observed and chance agreement.

A *chance family* is everything the engine needs to evaluate a coefficient for a batch of
item / rater weights: its stage-1 and finish kernels (``_kernels.py``), how its chance term
is computed (a quadratic form over the label support, a fixed term from the category count,
or none), how chance pairs are sampled for ``MonteCarlo`` / ``SampledPairs``, the per-item
features of the matrix-product fast path, and the linearised terms of its analytic variance.
Coefficients (``_registry.py``) name their family; no code compares family names.

Examples
--------
>>> FAMILIES["pooled"].chance, FAMILIES["per_rater"].sampler is not None
('support', True)
"""

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from softirr_stats.agreement._sampling import sample_per_rater, sample_pooled, sample_values

__all__ = ["ChanceFamily", "FAMILIES", "get_family", "ItemBasics", "Indicator", "count_labels",
           "pair_sums_from_counts"]


@dataclass(frozen=True)
class ItemBasics:
    """Per-item sums every matrix-product feature builder starts from (numpy, unit rater weights)."""

    n: int
    ks: int
    nr: int
    pair_sum: np.ndarray  # (n,) sum of within-item pair similarities
    pair_count: np.ndarray  # (n,) number of within-item pairs
    r: np.ndarray  # (n,) ratings per item
    rating_item: np.ndarray  # (M,) int64
    rating_rater: np.ndarray  # (M,)
    rating_s: np.ndarray  # (M,) support code
    counts: np.ndarray | None = None  # (n, ks) label counts, when already made
    max_dense: int = 40_000_000  # entries a dense feature block may have (float64: 320 MB)

    def label_counts(self) -> np.ndarray | None:
        """Per-item label counts ``N`` (n x ks); None where that table exceeds ``max_dense``."""
        if self.counts is not None:
            return self.counts
        if self.n * self.ks > self.max_dense:
            return None
        return count_labels(self.rating_item, self.rating_s, self.n, self.ks)

    @property
    def ok(self) -> np.ndarray:
        return self.pair_count > 0

    @property
    def pa_i(self) -> np.ndarray:
        return np.where(self.ok, self.pair_sum / np.where(self.ok, self.pair_count, 1.0), 0.0)


def count_labels(rating_item: np.ndarray, rating_s: np.ndarray, n: int, ks: int) -> np.ndarray:
    """Per-item label counts ``N`` (n x ks, int64) from the rating list: ``N[i, k]`` ratings of item i with label k.

    Examples
    --------
    >>> count_labels(np.array([0, 0, 0, 1, 1]), np.array([0, 0, 1, 1, 1]), 2, 2).tolist()
    [[2, 1], [0, 2]]
    """
    key = np.asarray(rating_item, dtype=np.int64) * ks + np.asarray(rating_s, dtype=np.int64)
    return np.bincount(key, minlength=n * ks).reshape(n, ks)


def pair_sums_from_counts(N: np.ndarray, S: "np.ndarray | None") -> np.ndarray:
    """Per item, the sum of ``S[a, b]`` over its unordered within-item pairs of ratings, from
    its label counts ``N_i`` (no pair list): ``(N_i^T S N_i - sum_k N_ik S_kk) / 2`` for a
    symmetric S over the support; S None is the identity, where this is ``sum_k N_ik (N_ik - 1) / 2``.

    Examples
    --------
    >>> N = np.array([[2, 1], [0, 2]])
    >>> pair_sums_from_counts(N, None).tolist()
    [1.0, 1.0]
    >>> pair_sums_from_counts(N, np.array([[1.0, 0.5], [0.5, 1.0]])).tolist()
    [2.0, 1.0]
    """
    if S is None:  # exact in integers
        return (np.einsum("ik,ik->i", N, N) - N.sum(axis=1)) / 2.0
    Nf = N.astype(np.float64)
    return (np.einsum("ik,ik->i", Nf @ S, Nf) - Nf @ np.diag(S)) / 2.0


@dataclass(frozen=True)
class Indicator:
    """A sparse 0/1 feature block, ``F[rows[j], cols[j]] += 1`` (``n x width``), kept as its
    non-zeros: one label per rating, e.g. per-rater label counts (items x raters x labels).

    Examples
    --------
    >>> F = Indicator(rows=np.array([0, 0, 1]), cols=np.array([1, 2, 1]), n=2, width=3)
    >>> F.times(np.array([[1.0, 2.0]])).tolist(), F.dense().tolist()
    ([[0.0, 3.0, 1.0]], [[0.0, 1.0, 1.0], [0.0, 1.0, 0.0]])
    """

    rows: np.ndarray  # (M,) item of each non-zero
    cols: np.ndarray  # (M,) column of each non-zero
    n: int
    width: int

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.width)

    def dense(self) -> np.ndarray:
        """The block as a dense float64 array (n x width)."""
        key = self.rows * self.width + self.cols
        return np.bincount(key, minlength=self.n * self.width).astype(np.float64).reshape(self.n, self.width)

    def times(self, C: np.ndarray) -> np.ndarray:
        """``C @ F`` for item weights C (B x n): one ``bincount`` over B x M entries."""
        b = C.shape[0]
        key = (np.arange(b)[:, None] * self.width + self.cols[None, :]).ravel()
        return np.bincount(key, weights=C[:, self.rows].ravel(), minlength=b * self.width).reshape(b, self.width)


Features = list[tuple[str, "np.ndarray | Indicator"]] | None  # None: the blocks would be too large


def _features_observed(b: ItemBasics) -> Features:
    return [("pa_num", b.pa_i), ("pa_den", b.ok.astype(np.float64))]


def _features_pooled(b: ItemBasics) -> Features:
    N = b.label_counts()
    if N is None:
        return None
    pi = N / np.where(b.r > 0, b.r, 1.0)[:, None]
    return _features_observed(b) + [("pi_num", pi), ("pi_den", (b.r > 0).astype(np.float64))]


def _features_per_rater(b: ItemBasics) -> Features:
    counts = Indicator(rows=b.rating_item, cols=b.rating_rater * b.ks + b.rating_s, n=b.n, width=b.nr * b.ks)
    return _features_observed(b) + [("counts", counts)]


def _features_alpha(b: ItemBasics) -> Features:
    ok = b.ok
    safe = np.where(ok, b.pair_count, 1.0)
    d_sum = b.pair_count - b.pair_sum  # sum of pair distances 1 - s
    N = b.label_counts()
    if N is None:
        return None
    nk = N * ok[:, None].astype(np.float64)
    return [("N", b.r * ok), ("do_num", np.where(ok, b.r * d_sum / safe, 0.0)), ("nk", nk)]


def _resolve(fn: "str | Callable[..., Any]", module: str) -> Callable[..., Any]:
    return fn if callable(fn) else getattr(importlib.import_module(module), fn)


@dataclass(frozen=True, eq=False)  # hashed by identity: a static argument of the compiled kernels
class ChanceFamily:
    """How a coefficient's observed and chance agreement are computed.

    Attributes
    ----------
    name : str
    stage1, finish : str or callable
        The family's kernels, or their names in ``softirr_stats.agreement._kernels`` (resolved on
        first use, so that the registry can be read without importing JAX).
    chance : {"none", "support", "categories", "metric"}
        Chance term: none (percent agreement), a quadratic form ``p^T S q`` over the label
        support, fixed by the declared categories (``T_w`` and ``q``: AC1, Brennan-Prediger), or
        computed inside the kernels from a data-dependent metric (ordinal alpha).
    sampler : callable or None
        Draws chance pairs for ``MonteCarlo`` / ``SampledPairs``; None = exact chance only.
    features : callable or None
        Per-item features for the ``C @ F`` fast path of fixed-rater-weight batches: named
        blocks (dense arrays or :class:`Indicator`), or None where they would be too large.
    terms : str, callable or None
        The linearised per-item terms of the analytic variance (or its name in ``_linearised.py``).
    no_analytic : str
        Why there is no analytic variance (when ``terms`` is None).
    judged : str, JudgedWeights or None
        How the observed and chance terms weigh distinct label pairs, for the prediction-powered
        estimate (``judgments=``), or its name in ``_ppi_terms.py``; None: not supported.
    width : callable
        Floats per replicate the family's stage-1 outputs hold, ``width(ks, nr, n_groups)``.

    Examples
    --------
    >>> fam = FAMILIES["pooled"]
    >>> fam.name, fam.chance
    ('pooled', 'support')
    """

    name: str
    stage1: "str | Callable[..., dict[str, Any]]"
    finish: "str | Callable[..., dict[str, Any]]"
    chance: str
    width: Callable[[int, int, int], int]
    sampler: Callable[..., Any] | None = None
    features: Callable[[ItemBasics], Features] | None = None
    terms: "str | Callable[..., Any] | None" = None
    no_analytic: str = ""
    description: str = ""
    judged: "str | Any | None" = None  # judged-pair term weights (prediction-powered); name in _ppi_terms

    def __repr__(self) -> str:
        return f"ChanceFamily({self.name!r})"

    def kernel(self, which: str) -> Callable[..., Any]:
        """The ``"stage1"`` or ``"finish"`` kernel (imports JAX on first use)."""
        return _resolve(getattr(self, which), "softirr_stats.agreement._kernels")

    def judged_weights(self) -> Any:
        """How the family's terms weigh distinct label pairs (``_ppi_terms.JudgedWeights``), or
        None where it takes no ``judgments=``."""
        return None if self.judged is None else _resolve(self.judged, "softirr_stats.agreement._ppi_terms")

    def terms_function(self) -> Callable[..., Any] | None:
        """The linearised-terms function, or None where no analytic variance exists."""
        return None if self.terms is None else _resolve(self.terms, "softirr_stats.agreement._linearised")


FAMILIES: dict[str, ChanceFamily] = {f.name: f for f in (
    ChanceFamily("percent", "stage1_observed", "finish_percent", "none", lambda ks, nr, g: 1,
                 features=_features_observed, terms="terms_percent",
                 description="mean within-item agreement, no chance correction"),
    ChanceFamily("pooled", "stage1_pooled", "finish_pooled", "support", lambda ks, nr, g: 2 + ks,
                 sampler=sample_pooled, features=_features_pooled, terms="terms_pooled",
                 judged="POOLED",
                 description="chance from the label distribution pooled over raters (Scott, Fleiss)"),
    ChanceFamily("per_rater", "stage1_per_rater", "finish_per_rater", "support",
                 lambda ks, nr, g: 2 + 4 * nr * ks, sampler=sample_per_rater, features=_features_per_rater,
                 terms="terms_per_rater",
                 judged="PER_RATER",
                 description="chance from each rater's own label distribution (Cohen, Conger)"),
    ChanceFamily("ac1", "stage1_pooled", "finish_ac1", "categories", lambda ks, nr, g: 2 + ks,
                 features=_features_pooled, terms="terms_ac1",
                 judged="AC1",
                 description="Gwet's chance T_w / (q (q - 1)) sum_k pi_k (1 - pi_k)"),
    ChanceFamily("bp", "stage1_observed", "finish_bp", "categories", lambda ks, nr, g: 1,
                 features=_features_observed, terms="terms_bp",
                 judged="BP",
                 description="uniform chance T_w / q^2 (Brennan-Prediger, PABAK)"),
    ChanceFamily("alpha", "stage1_alpha", "finish_alpha", "support", lambda ks, nr, g: 2 + ks,
                 sampler=sample_values, features=_features_alpha, terms="terms_alpha",
                 judged="ALPHA",
                 description="Krippendorff's D_o / D_e over pairable values, distance 1 - s"),
    ChanceFamily("alpha_ordinal", "stage1_alpha_ordinal", "finish_alpha_ordinal", "metric",
                 lambda ks, nr, g: 3 + ks * (ks + 1),
                 no_analytic="ordinal alpha's metric depends on the data, so no published linearised "
                             "variance applies",
                 description="Krippendorff's ordinal metric from the coincidence marginals"),
    ChanceFamily("light", "stage1_light", "finish_light", "support", lambda ks, nr, g: g * (2 * ks + 2),
                 no_analytic="Light's kappa has no analytic (linearised) variance here",
                 description="mean of Cohen's kappa over rater pairs"),
)}


def get_family(family: "str | ChanceFamily") -> ChanceFamily:
    """The family record for a name (or the record itself).

    Parameters
    ----------
    family : str or ChanceFamily
        A name of ``FAMILIES`` or a record (returned as is).

    Returns
    -------
    ChanceFamily

    Examples
    --------
    >>> get_family("alpha").chance
    'support'
    >>> get_family("conger")
    Traceback (most recent call last):
    ...
    ValueError: family must be one of ['ac1', 'alpha', 'alpha_ordinal', 'bp', 'light', 'per_rater', 'percent', 'pooled'] or a ChanceFamily; got 'conger'
    """
    if isinstance(family, ChanceFamily):
        return family
    try:
        return FAMILIES[family]
    except (KeyError, TypeError):
        raise ValueError(f"family must be one of {sorted(FAMILIES)} or a ChanceFamily; got {family!r}") from None
