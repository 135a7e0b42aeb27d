"""Confidence intervals from bootstrap replicates: percentile, basic, BCa (scipy's conventions)."""

import math

import numpy as np

__all__ = ["INTERVAL_METHODS", "percentile_interval", "basic_interval", "bca_interval", "jackknife_acceleration"]

INTERVAL_METHODS = ("percentile", "basic", "bca")


def percentile_interval(reps: np.ndarray, level: float) -> tuple[float, float]:
    """Quantiles ``(1 -+ level) / 2`` of the finite replicates (linear interpolation).

    Examples
    --------
    >>> percentile_interval(np.arange(101.0), 0.9)
    (5.0, 95.0)
    """
    r = reps[np.isfinite(reps)]
    if len(r) == 0:
        return math.nan, math.nan
    alpha = (1.0 - level) / 2.0
    lo, hi = np.percentile(r, [100 * alpha, 100 * (1 - alpha)])
    return float(lo), float(hi)


def basic_interval(reps: np.ndarray, estimate: float, level: float) -> tuple[float, float]:
    """Basic (reverse percentile) interval ``2 theta - q_hi, 2 theta - q_lo``."""
    lo, hi = percentile_interval(reps, level)
    return 2 * estimate - hi, 2 * estimate - lo


def jackknife_acceleration(jack: np.ndarray) -> float:
    """BCa acceleration from leave-one-out values: ``sum d^3 / (6 (sum d^2)^1.5)``; 0 if constant."""
    j = jack[np.isfinite(jack)]
    if len(j) < 2:
        return 0.0
    d = j.mean() - j
    den = 6.0 * np.sum(d**2) ** 1.5
    return float(np.sum(d**3) / den) if den > 0 else 0.0


def bca_interval(reps: np.ndarray, estimate: float, jack: np.ndarray, level: float) -> tuple[float, float, str]:
    """Bias-corrected and accelerated interval, following ``scipy.stats.bootstrap``.

    Returns ``(low, high, note)``; ``note`` is non-empty when BCa fell back to the
    percentile interval (replicates all on one side of the estimate).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> lo, hi, note = bca_interval(rng.normal(size=2000), 0.0, rng.normal(size=50), 0.95)
    >>> round(lo, 1), round(hi, 1), note
    (-2.0, 2.0, '')
    """
    from scipy.special import ndtr, ndtri  # on first use: importing scipy.special takes ~0.5 s

    r = reps[np.isfinite(reps)]
    if len(r) == 0 or not math.isfinite(estimate):
        return math.nan, math.nan, "no finite replicates"
    b = len(r)
    prop = (np.sum(r < estimate) + np.sum(r <= estimate)) / (2.0 * b)
    z0 = ndtri(prop)
    if not np.isfinite(z0):
        lo, hi = percentile_interval(r, level)
        return lo, hi, "BCa undefined (all replicates on one side of the estimate): percentile interval used"
    a = jackknife_acceleration(jack)
    alpha = (1.0 - level) / 2.0
    za, zb = ndtri(alpha), ndtri(1.0 - alpha)
    a1 = ndtr(z0 + (z0 + za) / (1 - a * (z0 + za)))
    a2 = ndtr(z0 + (z0 + zb) / (1 - a * (z0 + zb)))
    lo, hi = np.percentile(r, [100 * a1, 100 * a2])
    return float(lo), float(hi), ""
