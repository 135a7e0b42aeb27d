"""Confidence intervals from bootstrap replicates: percentile, basic, BCa (scipy's conventions), and
BCa with Student-t quantiles (``bca-t``), the small-sample default of ``method="auto"``."""

import math

import numpy as np

__all__ = ["AUTO_BCA_DESIGNS", "AUTO_BCA_MAX_UNITS", "INTERVAL_METHODS", "percentile_interval", "basic_interval",
           "bca_interval", "bca_p_value", "jackknife_acceleration", "resolve_method", "stratified_dof", "t_level"]

INTERVAL_METHODS = ("auto", "percentile", "basic", "bca", "bca-t")

#: ``method="auto"`` uses BCa for these designs (items resampled, raters fixed) ...
AUTO_BCA_DESIGNS = ("items", "bayesian")
#: Designs whose ``method="auto"`` is the basic (reflected percentile) interval: the resampled units are
#: clusters of unequal size (docs/coverage.md, "Unequal clusters").
AUTO_BASIC_DESIGNS = ("cluster",)
#: ... when they have at most this many items (the jackknife costs one evaluation per item; above a
#: few hundred items the percentile and BCa intervals coincide to within Monte Carlo error).
AUTO_BCA_MAX_UNITS = 1000


def t_level(level: float, n_units: int, *, dof: float | None = None) -> float:
    """The normal-theory level whose two-sided quantile is Student's ``t_{n-1}`` quantile at ``level``.

    ``bca-t`` is the BCa interval at this level: its ``z_{alpha/2}`` is replaced by the ``t_{n-1}``
    quantile, the small-sample widening of a t interval (Hesterberg 2015, "What teachers should know
    about the bootstrap", The American Statistician 69(4), uses the same quantile, times
    ``sqrt(n / (n - 1))``, for his expanded percentile interval).

    Parameters
    ----------
    level : float
        The interval's confidence level, in (0, 1).
    n_units : int
        Units resampled (items); below 2, ``level`` is returned unchanged.
    dof : float, optional
        Degrees of freedom to use instead of ``n_units - 1`` (a stratified design's,
        :func:`stratified_dof`); below 1, ``level`` is returned unchanged.

    Returns
    -------
    float
        The level to give the normal-theory (BCa) interval.

    Examples
    --------
    >>> round(t_level(0.95, 20), 4), round(t_level(0.95, 10**6), 4)
    (0.9637, 0.95)
    >>> t_level(0.95, 20, dof=19.0) == t_level(0.95, 20)
    True
    """
    from scipy.special import ndtr, stdtrit

    df = float(n_units - 1) if dof is None else float(dof)
    if not df >= 1.0:  # also nan
        return level
    z = stdtrit(df, (1.0 + level) / 2.0)  # scipy.special, not scipy.stats: a tenth of the import
    return float(1.0 - 2.0 * ndtr(-z))


def stratified_dof(jack: np.ndarray, unit_strata: np.ndarray) -> float:
    """Satterthwaite degrees of freedom of a stratified jackknife variance.

    With ``V_h = (n_h - 1) / n_h * sum_{i in h} (theta_(-i) - mean_h)^2``, the stratum ``h``'s share of the
    jackknife variance (``n_h`` units, ``n_h - 1`` degrees of freedom each), the variance ``sum_h V_h`` has
    about ``(sum_h V_h)^2 / sum_h V_h^2 / (n_h - 1)`` degrees of freedom (Satterthwaite 1946; the same rule
    as Welch's test and survey software's stratified variances). It lies between the smallest ``n_h - 1``
    (one stratum carries the variance) and ``sum_h (n_h - 1) = n - H`` (equal shares of equal strata);
    without strata it is ``n - 1``. Strata with one unit (no variance) are left out; when no stratum varies the
    result is ``n - H``.

    Parameters
    ----------
    jack : array of shape (n,)
        Leave-one-unit-out values; non-finite ones are left out.
    unit_strata : int array of shape (n,)
        Each unit's stratum.

    Returns
    -------
    float

    Examples
    --------
    Two strata of 10 units, one of them constant: the other's 9 degrees of freedom.

    >>> jack = np.concatenate([np.linspace(0, 1, 10), np.zeros(10)])
    >>> round(stratified_dof(jack, np.repeat([0, 1], 10)), 6)
    9.0
    >>> round(stratified_dof(np.arange(20.0) % 7, np.zeros(20, dtype=int)), 6)
    19.0
    """
    ok = np.isfinite(jack)
    j, st = np.asarray(jack, dtype=np.float64)[ok], np.asarray(unit_strata)[ok]
    _, st = np.unique(st, return_inverse=True)
    size = np.bincount(st).astype(np.float64)
    mean = np.bincount(st, weights=j) / size
    ss = np.bincount(st, weights=(j - mean[st]) ** 2)
    keep = size > 1
    v = (size[keep] - 1.0) / size[keep] * ss[keep]
    denom = float(np.sum(v * v / (size[keep] - 1.0)))
    if not denom > 0.0:
        return float(np.sum(size[keep] - 1.0))
    return float(np.sum(v) ** 2 / denom)


def resolve_method(method: str, design: str, n_units: int) -> tuple[str, str]:
    """The interval method ``method="auto"`` stands for, and why (``""`` for an explicit method).

    ``auto`` is ``bca-t`` (BCa with Student-t quantiles, :func:`t_level`) for the item designs
    (``items``, ``bayesian``) with at most :data:`AUTO_BCA_MAX_UNITS` items, and the percentile
    interval otherwise. At 20 items the item bootstrap's percentile interval covered 88-94% at the
    95% level (the sampling distribution of a chance-corrected coefficient is skewed and the estimate
    biased low; the misses fall on the side where the truth is above the interval), plain BCa 92-96%,
    ``bca-t`` 93.7-97.7% (docs/coverage.md, "Small studies"). The ``cluster`` design uses the basic
    (reflected percentile) interval, widened by its small-sample correction (``few_units="t"``) as the
    percentile one was: with 8-15 clusters of unequal size the bootstrap distribution of a ratio
    coefficient lies below the estimate (the estimate is biased low and the replicates are biased again),
    so the percentile interval missed with the truth above it (89-94%); the reflection undoes that
    (93-95%, docs/coverage.md, "Unequal clusters"). The rater designs keep the percentile interval.

    Parameters
    ----------
    method : str
        ``"auto"`` or an explicit method (returned unchanged).
    design : str
        The bootstrap design.
    n_units : int
        Number of items.

    Returns
    -------
    (method, reason) : tuple of str

    Examples
    --------
    >>> resolve_method("auto", "items", 20)[0], resolve_method("auto", "items", 5000)[0]
    ('bca-t', 'percentile')
    >>> resolve_method("auto", "items+raters", 20)[0], resolve_method("auto", "cluster", 8)[0]
    ('percentile', 'basic')
    >>> resolve_method("basic", "items", 20)
    ('basic', '')
    """
    if method != "auto":
        return method, ""
    if design in AUTO_BCA_DESIGNS and n_units <= AUTO_BCA_MAX_UNITS:
        return "bca-t", (f"method='auto': BCa with t quantiles, {n_units - 1} df ({design} design, {n_units} <= "
                         f"{AUTO_BCA_MAX_UNITS} items)")
    if design in AUTO_BCA_DESIGNS:
        return "percentile", f"method='auto': percentile ({design} design, {n_units} > {AUTO_BCA_MAX_UNITS} items)"
    if design in AUTO_BASIC_DESIGNS:
        return "basic", "method='auto': basic (cluster design: the reflection undoes the ratio bias)"
    return "percentile", f"method='auto': percentile ({design} design)"


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


def _bias_correction(r: np.ndarray, estimate: float) -> float:
    """BCa's ``z0``: the normal quantile of the share of the finite replicates ``r`` below the estimate.

    Replicates equal to the estimate up to rounding are ties, counted half (a replicate that redraws the
    data of the estimate is computed along another path and may differ from it in the last bits).
    """
    from scipy.special import ndtri

    tol = 1e-12 * max(1.0, abs(estimate))
    return float(ndtri((np.sum(r < estimate - tol) + np.sum(r <= estimate + tol)) / (2.0 * len(r))))


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
    z0 = _bias_correction(r, estimate)
    if not np.isfinite(z0):
        lo, hi = percentile_interval(r, level)
        return lo, hi, "BCa undefined (all replicates on one side of the estimate): percentile interval used"
    a = jackknife_acceleration(jack)
    # a level that rounds to 1 (bca-t's t_1 quantile at 2 items) keeps a finite quantile: the interval is
    # then the replicates' range
    alpha = max((1.0 - level) / 2.0, 1e-300)
    za = ndtri(alpha)
    zb = ndtri(1.0 - alpha) if alpha > 1e-12 else -za
    a1 = ndtr(z0 + (z0 + za) / (1 - a * (z0 + za)))
    a2 = ndtr(z0 + (z0 + zb) / (1 - a * (z0 + zb)))
    if not (np.isfinite(a1) and np.isfinite(a2)):
        lo, hi = percentile_interval(r, level)
        return lo, hi, "BCa undefined (its adjusted levels are not numbers): percentile interval used"
    lo, hi = np.percentile(r, [100 * a1, 100 * a2])
    return float(lo), float(hi), ""


def bca_p_value(reps: np.ndarray, estimate: float, jack: np.ndarray, null: float,
                dof: float | None = None) -> float:
    """Two-sided p-value of H0: theta = ``null`` that inverts the BCa interval of :func:`bca_interval`.

    The smallest ``1 - level`` at which the interval leaves ``null`` out: with ``q`` the share of the
    replicates below ``null`` (ties counted half), BCa's adjusted level ``Phi(z0 + u / (1 - a u))``, ``u =
    z0 + z``, is solved for ``z`` (``u = w / (1 + a w)``, ``w = Phi^-1(q) - z0``), and ``z`` is the tail's
    normal quantile, or Student's ``t_dof`` quantile for ``bca-t``. So the interval at ``level`` excludes
    ``null`` exactly when ``p < 1 - level`` (up to the replicates' discreteness). ``nan`` where BCa is
    undefined (all replicates on one side of the estimate: its interval falls back to the percentile).

    Parameters
    ----------
    reps : array
        Bootstrap replicates; non-finite ones are ignored.
    estimate : float
        The point estimate.
    jack : array
        Leave-one-out values, for the acceleration.
    null : float
        The value tested.
    dof : float, optional
        Degrees of freedom of ``bca-t`` (None: BCa's normal quantiles).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> reps = rng.normal(0.3, 0.1, 4000)
    >>> round(bca_p_value(reps, 0.3, np.zeros(20), 0.0), 3)  # little bias, no acceleration: about 2 P(reps < 0)
    0.002
    """
    from scipy.special import ndtr, ndtri, stdtr

    r = reps[np.isfinite(reps)]
    if len(r) == 0 or not (math.isfinite(estimate) and math.isfinite(null)):
        return math.nan
    b = len(r)
    z0 = _bias_correction(r, estimate)
    if not np.isfinite(z0):
        return math.nan
    a = jackknife_acceleration(jack)
    q = (np.sum(r < null) + np.sum(r <= null)) / (2.0 * b)
    q = min(max(q, 0.5 / b), 1.0 - 0.5 / b)  # a null beyond every replicate: the last replicate's tail
    w = float(ndtri(q) - z0)
    den = 1.0 + a * w
    z = (w / den - z0) if den > 0 else (-math.inf if w < 0 else math.inf)
    tail = float(ndtr(z)) if dof is None else float(stdtr(dof, z))
    return float(min(1.0, 2.0 * min(tail, 1.0 - tail)))
