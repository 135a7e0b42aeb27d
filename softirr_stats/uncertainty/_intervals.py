"""Confidence intervals from bootstrap replicates: percentile, basic, BCa (scipy's conventions)."""

import math

import numpy as np

__all__ = ["INTERVAL_METHODS", "percentile_interval", "basic_interval", "bca_interval", "jackknife_acceleration"]

INTERVAL_METHODS = ("percentile", "basic", "bca")


def percentile_interval(reps: np.ndarray, level: float) -> tuple[float, float]:
    """Quantiles ``(1 -+ level) / 2`` of the finite replicates (linear interpolation).

    Parameters
    ----------
    reps : array
        Bootstrap replicates; non-finite ones are ignored.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    (low, high) : tuple of float
        ``nan`` when no replicate is finite.

    Examples
    --------
    >>> lo, hi = percentile_interval(np.arange(101.0), 0.9)
    >>> round(lo, 6), round(hi, 6)
    (5.0, 95.0)
    """
    r = reps[np.isfinite(reps)]
    if len(r) == 0:
        return math.nan, math.nan
    alpha = (1.0 - level) / 2.0
    lo, hi = np.percentile(r, [100 * alpha, 100 * (1 - alpha)])
    return float(lo), float(hi)


def basic_interval(reps: np.ndarray, estimate: float, level: float) -> tuple[float, float]:
    """Basic (reverse percentile) interval ``2 theta - q_hi, 2 theta - q_lo``.

    Parameters
    ----------
    reps : array
        Bootstrap replicates; non-finite ones are ignored.
    estimate : float
        The point estimate ``theta``.
    level : float
        Confidence level in (0, 1).

    Examples
    --------
    >>> basic_interval(np.arange(101.0), 60.0, 0.9)
    (25.0, 115.0)
    """
    lo, hi = percentile_interval(reps, level)
    return 2 * estimate - hi, 2 * estimate - lo


def jackknife_acceleration(jack: np.ndarray) -> float:
    """BCa acceleration from leave-one-out values: ``sum d^3 / (6 (sum d^2)^1.5)``; 0 if constant.

    Parameters
    ----------
    jack : array
        Leave-one-out (jackknife) values of the statistic; non-finite ones are ignored.

    Examples
    --------
    >>> jackknife_acceleration(np.array([1.0, 1.0, 1.0]))
    0.0
    >>> round(jackknife_acceleration(np.array([0.0, 0.0, 3.0])), 4)
    -0.068
    """
    j = jack[np.isfinite(jack)]
    if len(j) < 2:
        return 0.0
    d = j.mean() - j
    den = 6.0 * np.sum(d**2) ** 1.5
    return float(np.sum(d**3) / den) if den > 0 else 0.0


def bca_interval(reps: np.ndarray, estimate: float, jack: np.ndarray, level: float) -> tuple[float, float, str]:
    """Bias-corrected and accelerated interval, following ``scipy.stats.bootstrap``.

    Parameters
    ----------
    reps : array
        Bootstrap replicates; non-finite ones are ignored.
    estimate : float
        The point estimate.
    jack : array
        Leave-one-out values, for the acceleration.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    (low, high, note) : tuple
        ``note`` is non-empty when BCa fell back to the percentile interval (replicates all
        on one side of the estimate).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> lo, hi, note = bca_interval(rng.normal(size=2000), 0.0, rng.normal(size=50), 0.95)
    >>> round(lo, 2), round(hi, 2), note
    (-1.89, 1.98, '')
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
