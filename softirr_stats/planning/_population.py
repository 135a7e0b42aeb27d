"""Assumed populations for planning: every rating profile with its probability, and the per-item variance.

A population is the set of all rating profiles (one label per rater) of ``K`` categories and ``R``
raters, each with its probability under an exchangeable model with the given category
prevalences:

- two raters: the table ``p_kl = (1 - s) p1_k p2_l + s M_kl`` with ``M`` the coupling of the two
  raters' prevalences that puts the most mass on the diagonal (``M_kk = min(p1_k, p2_k)``); with
  binary labels this is the one table with those margins and that agreement (Cantor 1996), and
  with equal prevalences it is ``(1 - s) p_k p_l + s p_k [k = l]``;
- more raters: the Dirichlet-multinomial (beta-binomial for two categories, Fleiss & Cuzick's
  "common correlation" model) with intraclass correlation ``s``: ``P(profile) = prod_k
  prod_{t < n_k} (p_k (1 - s) + t s) / prod_{t < R} ((1 - s) + t s)``.

Every chance-corrected coefficient of the registry is, at a fixed margin, an increasing function of
``s``; ``s`` is found so that the population's coefficient equals the assumed value. The population
is evaluated through the coefficient's own prepared statistic (item weights = profile
probabilities), so soft coefficients, weights and every chance family are covered by one path.
The per-item variance is ``sum_i w_i IF_i^2`` with ``IF_i`` the influence of profile ``i``
(central differences of the weighted statistic), the asymptotic variance of the estimate on one
item: an estimate on ``n`` items has variance ``sigma^2 / n``.
"""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["MAX_PROFILES", "Population", "build_population", "influence_variance", "population_value"]

MAX_PROFILES = 8192  # K ** R rating profiles enumerated at most
_TOTAL = 1e9  # total item weight of the population (Krippendorff's small-sample term vanishes)
_STEP = 1e-6  # relative step of the central differences


@dataclass(frozen=True)
class Population:
    """An enumerated population of rating profiles (probabilities given by :meth:`probabilities`)."""

    rows: np.ndarray  # (P, R) category indices
    labels: tuple  # the K category labels
    prevalence: np.ndarray  # (K,) or (2, K) per rater
    model: str

    @property
    def n_categories(self) -> int:
        return len(self.labels)

    @property
    def n_raters(self) -> int:
        return int(self.rows.shape[1])

    def probabilities(self, s: float) -> np.ndarray:
        """Profile probabilities at agreement parameter ``s`` in [0, 1]."""
        if self.model == "table":
            return _table_probs(self.rows, self.prevalence, s)
        return _dm_probs(self.rows, self.prevalence, s)


def _table_probs(rows: np.ndarray, prev: np.ndarray, s: float) -> np.ndarray:
    p1, p2 = prev
    diag = np.minimum(p1, p2)
    r1, r2 = p1 - diag, p2 - diag
    rest = r1.sum()
    coupling = np.diag(diag)
    if rest > 0:
        coupling = coupling + np.outer(r1, r2) / rest  # r1_k r2_k = 0: the diagonal is untouched
    table = (1.0 - s) * np.outer(p1, p2) + s * coupling
    return table[rows[:, 0], rows[:, 1]]


def _dm_probs(rows: np.ndarray, p: np.ndarray, s: float) -> np.ndarray:
    n_raters = rows.shape[1]
    k = len(p)
    counts = (rows[:, :, None] == np.arange(k)).sum(axis=1)  # (P, K)
    if s >= 1.0:
        return np.where(counts.max(axis=1) == n_raters, p[rows[:, 0]], 0.0)
    t = np.arange(n_raters)[:, None, None]  # (R, 1, 1)
    factors = np.where(counts[None] > t, p[None, None, :] * (1.0 - s) + t * s, 1.0)  # (R, P, K)
    num = np.prod(factors, axis=(0, 2))
    den = float(np.prod((1.0 - s) + np.arange(n_raters) * s))
    return num / den


def build_population(prevalence: Any, raters: int, categories: Any = None) -> Population:
    """All rating profiles of ``raters`` raters over the categories of ``prevalence``.

    Parameters
    ----------
    prevalence : sequence of K floats, or two sequences (one per rater, two raters only)
        Category prevalences, each summing to 1.
    raters : int
        Number of raters (>= 2).
    categories : sequence, optional
        The K category labels (default ``0 .. K - 1``).

    Returns
    -------
    Population

    Examples
    --------
    >>> pop = build_population([0.5, 0.5], raters=2)
    >>> pop.rows.shape, pop.model
    ((4, 2), 'table')
    >>> pop.probabilities(0.6).round(3).tolist()
    [0.4, 0.1, 0.1, 0.4]
    """
    p = np.asarray(prevalence, dtype=np.float64)
    if isinstance(raters, bool) or not isinstance(raters, int | np.integer) or raters < 2:
        raise ValueError(f"assumed['raters'] must be an integer >= 2; got {raters!r}")
    if p.ndim == 2:
        if p.shape[0] != 2 or raters != 2:
            raise ValueError("assumed['prevalence'] as one list per rater is supported for two raters only; got "
                             f"{p.shape[0]} lists for {raters} raters (give one common prevalence list)")
    elif p.ndim != 1:
        raise ValueError(f"assumed['prevalence'] must be a list of K category prevalences; got shape {p.shape}")
    k = p.shape[-1]
    if k < 2:
        raise ValueError(f"assumed['prevalence'] needs at least 2 categories; got {k}")
    if not np.all(np.isfinite(p)) or np.any(p < 0):
        raise ValueError(f"assumed['prevalence'] must be non-negative numbers; got {p.tolist()}")
    sums = np.atleast_1d(p.sum(axis=-1))
    if np.any(np.abs(sums - 1.0) > 1e-9):
        raise ValueError(f"assumed['prevalence'] must sum to 1; sums to {sums.tolist()}")
    if k**raters > MAX_PROFILES:
        raise ValueError(f"assumed values with {k} categories and {raters} raters give {k}**{raters} rating profiles, "
                         f"more than the {MAX_PROFILES} enumerated; plan from a pilot data set instead (pilot=)")
    labels = tuple(range(k)) if categories is None else tuple(categories)
    if len(labels) != k or len(set(labels)) != k:
        raise ValueError(f"assumed['categories'] must be {k} distinct labels (one per prevalence); got {list(labels)}")
    rows = np.indices((k,) * int(raters)).reshape(int(raters), -1).T
    if raters == 2:
        prev = p if p.ndim == 2 else np.stack([p, p])
        return Population(rows, labels, prev, "table")
    return Population(rows, labels, p, "dirichlet-multinomial")


def _values(prep: Any, weights: np.ndarray) -> np.ndarray:
    out = prep.evaluate(np.atleast_2d(weights))
    return np.asarray(out["value"], dtype=np.float64)


def population_value(prep: Any, pop: Population, s: float) -> float:
    """The coefficient of the population at agreement parameter ``s`` (its prepared statistic ``prep``)."""
    return float(_values(prep, _TOTAL * pop.probabilities(s))[0])


def solve_agreement(prep: Any, pop: Population, value: float, name: str) -> float:
    """The agreement parameter ``s`` in [0, 1] at which the population's coefficient equals ``value``."""
    from scipy.optimize import brentq

    lo, hi = population_value(prep, pop, 0.0), population_value(prep, pop, 1.0)
    tol = 1e-12
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        raise ValueError(f"{name} is not defined or does not increase with agreement in the assumed population "
                         f"(value {lo!r} at chance, {hi!r} at the most agreement these prevalences allow)")
    if value < lo - tol:
        raise ValueError(f"assumed['value'] = {value!r} is below what the planning population gives for {name}: "
                         f"its rating profiles run from raters rating independently ({lo:.6g}, chance agreement) to "
                         f"the most agreement these prevalences allow ({hi:.6g}), and the model has no agreement below "
                         "chance (data with these prevalences may); assume a value in that range, or plan from a "
                         "pilot data set (pilot=)")
    if value > hi + tol:
        raise ValueError(f"assumed['value'] = {value!r} is outside what these prevalences allow for {name}: "
                         f"[{lo:.6g} (chance agreement), {hi:.6g} (the most agreement the margins allow)]")
    if value >= hi - tol:
        return 1.0
    if value <= lo + tol:
        return 0.0
    return float(brentq(lambda s: population_value(prep, pop, s) - value, 0.0, 1.0, xtol=1e-15, rtol=1e-15))


def influence_variance(prep: Any, probs: np.ndarray, chunk: int = 1024) -> float:
    """``sum_i w_i (IF_i - mean)^2``: the asymptotic variance of the coefficient on one item.

    ``IF_i`` is the influence of profile ``i`` on the coefficient of the population with profile
    probabilities ``probs`` (central differences of the weighted statistic, relative step 1e-6).

    Examples
    --------
    >>> from softirr_stats.api._coefficients import estimate_point
    >>> pop = build_population([0.5, 0.5], raters=2)
    >>> _, prep = estimate_point("cohen_kappa", pop.rows)
    >>> round(influence_variance(prep, pop.probabilities(0.6)), 6)  # Cantor's (1996) Q at kappa = 0.6
    0.64
    """
    w = np.asarray(probs, dtype=np.float64)
    pos = np.flatnonzero(w > 0)
    base = _TOTAL * w
    infl = np.empty(len(pos))
    for start in range(0, len(pos), chunk):
        idx = pos[start:start + chunk]
        m = len(idx)
        step = np.minimum(_STEP, w[idx] / 2.0)
        rows = np.tile(base, (2 * m, 1))
        rows[np.arange(m), idx] += _TOTAL * step
        rows[m + np.arange(m), idx] -= _TOTAL * step
        v = _values(prep, rows)
        infl[start:start + m] = (v[:m] - v[m:]) / (2.0 * step)
    wp = w[pos] / w[pos].sum()
    mean = float(wp @ infl)
    return float(wp @ (infl - mean) ** 2)
