"""Benchmark scales for agreement coefficients: the band a value falls in, and Gwet's probabilistic rule.

A benchmark scale cuts [-1, 1] into bands with a name each ("substantial agreement"). Two ways
to place a coefficient on a scale:

- ``method="point"``: the band that contains the estimate (``low < value <= high``; the lowest
  band also takes everything below it). This ignores the estimate's uncertainty.
- ``method="probabilistic"`` (Gwet 2014, *Handbook of Inter-Rater Reliability*, 4th ed., ch. 6;
  R and Python ``irrCAC``): with the estimate ``c`` and its standard error ``se``, the probability
  that the true coefficient lies in band ``(a, b]`` is, for a normal distribution truncated to
  [-1, 1],
  ``P(a, b) = [Phi((c - a)/se) - Phi((c - b)/se)] / [Phi((c + 1)/se) - Phi((c - 1)/se)]``.
  Bands are accumulated from the top of the scale down; the chosen band is the first whose
  cumulative probability reaches the threshold (0.95): a value is called "substantial" only when
  it is at least substantial with 95% probability.

The scales are those of irrCAC: Landis & Koch (1977), Fleiss (1981), Altman (1991), Cicchetti &
Sparrow (1981) and Regier et al. (2013).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["BENCHMARK_SCALES", "BENCHMARK_METHODS", "BenchmarkResult", "benchmark_value"]

#: name -> (bands from the top down as (label, low, high), citation)
BENCHMARK_SCALES: dict[str, tuple[tuple[tuple[str, float, float], ...], str]] = {
    "landis-koch": ((("almost perfect", 0.8, 1.0), ("substantial", 0.6, 0.8), ("moderate", 0.4, 0.6),
                     ("fair", 0.2, 0.4), ("slight", 0.0, 0.2), ("poor", -1.0, 0.0)), "Landis & Koch (1977)"),
    "fleiss": ((("excellent", 0.75, 1.0), ("intermediate to good", 0.4, 0.75), ("poor", -1.0, 0.4)),
               "Fleiss (1981)"),
    "altman": ((("very good", 0.8, 1.0), ("good", 0.6, 0.8), ("moderate", 0.4, 0.6), ("fair", 0.2, 0.4),
                ("poor", -1.0, 0.2)), "Altman (1991)"),
    "cicchetti-sparrow": ((("excellent", 0.75, 1.0), ("good", 0.6, 0.75), ("fair", 0.4, 0.6),
                           ("poor", 0.0, 0.4)), "Cicchetti & Sparrow (1981)"),
    "regier": ((("excellent", 0.8, 1.0), ("very good", 0.6, 0.8), ("good", 0.4, 0.6), ("questionable", 0.2, 0.4),
                ("unacceptable", 0.0, 0.2)), "Regier et al. (2013)"),
}
BENCHMARK_METHODS = ("point", "probabilistic")


@dataclass(frozen=True)
class BenchmarkResult:
    """Where a coefficient falls on a benchmark scale.

    Attributes
    ----------
    scale : str
        The scale's name (``"landis-koch"``, ...); ``citation`` is its source.
    method : {"point", "probabilistic"}
        The band containing the estimate, or Gwet's cumulative probability rule.
    band : str or None
        The chosen band ("substantial"); None when the value is nan (or, for the probabilistic
        rule, when no band's cumulative probability reaches the threshold).
    low, high : float
        The chosen band's limits (nan without a band).
    bands : tuple of (str, float, float)
        The scale, from the top band down.
    probabilities, cumulative : tuple of float
        Probabilistic method: each band's probability and the cumulative probability from the
        top down (irrCAC's ``CumProb``); empty for the point method.
    threshold : float
        The cumulative probability the chosen band must reach (probabilistic method).
    value, se : float
        The estimate and the standard error used.

    Examples
    --------
    >>> b = benchmark_value(0.67, 0.15, scale="altman", method="probabilistic")
    >>> b.band, [round(p, 5) for p in b.cumulative]
    ('moderate', [0.18168, 0.67511, 0.96356, 0.99912, 1.0])
    >>> str(b)
    'moderate agreement on the Altman (1991) scale (probability 0.964 that it is at least moderate)'
    """

    scale: str
    method: str
    band: str | None
    low: float
    high: float
    bands: tuple[tuple[str, float, float], ...]
    probabilities: tuple[float, ...]
    cumulative: tuple[float, ...]
    threshold: float
    value: float
    se: float
    citation: str

    def to_dict(self) -> dict[str, Any]:
        """The scalar fields (band, limits, method, scale) as a flat dict."""
        return {"benchmark_scale": self.scale, "benchmark_method": self.method, "benchmark_band": self.band,
                "benchmark_low": self.low, "benchmark_high": self.high}

    def __str__(self) -> str:
        if self.band is None:
            return f"no band on the {self.citation} scale (value {self.value!r})"
        text = f"{self.band} agreement on the {self.citation} scale"
        if self.method == "probabilistic":
            k = [b[0] for b in self.bands].index(self.band)
            text += f" (probability {self.cumulative[k]:.3f} that it is at least {self.band})"
        return text


def _scale(scale: Any) -> tuple[str, tuple[tuple[str, float, float], ...], str]:
    if isinstance(scale, str):
        key = scale.strip().lower().replace("_", "-").replace(" ", "-")
        if key in BENCHMARK_SCALES:
            bands, cite = BENCHMARK_SCALES[key]
            return key, bands, cite
        raise ValueError(f"scale must be one of {list(BENCHMARK_SCALES)} or 'probabilistic', or a sequence of "
                         f"(label, low, high) bands; got {scale!r}")
    try:
        bands = tuple((str(n), float(lo), float(hi)) for n, lo, hi in scale)
    except (TypeError, ValueError):
        raise ValueError(f"scale must be a scale name or a sequence of (label, low, high) bands; got {scale!r}") from None
    if not bands or any(not lo < hi for _, lo, hi in bands):
        raise ValueError(f"every band needs low < high; got {bands!r}")
    bands = tuple(sorted(bands, key=lambda b: -b[2]))
    return "custom", bands, "custom"


def _phi(x: np.ndarray) -> np.ndarray:
    from scipy.special import ndtr  # the normal CDF; scipy.stats itself costs seconds to import

    return np.asarray(ndtr(x), dtype=np.float64)


def benchmark_value(value: float, se: float = math.nan, *, scale: str | Sequence[tuple[str, float, float]] = "landis-koch",
                    method: str = "point", threshold: float = 0.95) -> BenchmarkResult:
    """Place a coefficient on a benchmark scale (the point band, or Gwet's probabilistic rule).

    Parameters
    ----------
    value : float
        The coefficient.
    se : float
        Its standard error (needed by ``method="probabilistic"``).
    scale : str or sequence of (label, low, high)
        ``"landis-koch"``, ``"fleiss"``, ``"altman"``, ``"cicchetti-sparrow"``, ``"regier"``,
        or custom bands.
    method : {"point", "probabilistic"}
        The band containing ``value``, or the highest band whose cumulative membership
        probability reaches ``threshold`` (irrCAC's rule).
    threshold : float
        In (0, 1); 0.95 as in irrCAC.

    Returns
    -------
    BenchmarkResult

    Examples
    --------
    irrCAC's benchmark tests (coefficient 0.67, standard error 0.15):

    >>> b = benchmark_value(0.67, 0.15, scale="landis-koch", method="probabilistic")
    >>> b.band, [round(p, 5) for p in b.cumulative]
    ('moderate', [0.18168, 0.67511, 0.96356, 0.99912, 1.0, 1.0])
    >>> benchmark_value(0.67, scale="landis-koch").band
    'substantial'
    """
    if method not in BENCHMARK_METHODS:
        raise ValueError(f"method must be one of {list(BENCHMARK_METHODS)}; got {method!r}")
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must be a probability in (0, 1); got {threshold!r}")
    name, bands, cite = _scale(scale)
    value, se = float(value), float(se)
    probs: tuple[float, ...] = ()
    cum: tuple[float, ...] = ()
    chosen: int | None = None
    if method == "point":
        if math.isfinite(value):
            inside = [k for k, (_, lo, hi) in enumerate(bands) if lo < value <= hi]
            if inside:
                chosen = inside[0]
            elif value > bands[0][2]:
                chosen = 0
            elif value <= bands[-1][1]:
                chosen = len(bands) - 1
    else:
        if not (math.isfinite(se) and se > 0):
            raise ValueError(f"the probabilistic benchmark needs a positive standard error; got se={se!r} "
                             "(compute the coefficient with ci='analytic' or ci=softirr_stats.Bootstrap(...))")
        if math.isfinite(value):
            lo = np.array([b[1] for b in bands])
            hi = np.array([b[2] for b in bands])
            trunc = float(_phi(np.array((value + 1.0) / se)) - _phi(np.array((value - 1.0) / se)))
            p = (_phi((value - lo) / se) - _phi((value - hi) / se)) / trunc
            c = np.cumsum(p)
            probs, cum = tuple(p.tolist()), tuple(c.tolist())
            reach = np.nonzero(c >= threshold)[0]
            chosen = int(reach[0]) if reach.size else None
    band = None if chosen is None else bands[chosen]
    return BenchmarkResult(name, method, None if band is None else band[0],
                           math.nan if band is None else band[1], math.nan if band is None else band[2],
                           bands, probs, cum, float(threshold), value, se, cite)
