"""Agreement weight matrices (irrCAC conventions, docs/formulas/coefficients.md) and Krippendorff metrics."""

from collections.abc import Callable

import numpy as np

__all__ = ["WEIGHT_NAMES", "weight_matrix", "krippendorff_distance"]


def _identity(x: np.ndarray) -> np.ndarray:
    return np.eye(len(x))


def _linear(x: np.ndarray) -> np.ndarray:
    d = np.abs(x[:, None] - x[None, :])
    return 1.0 - d / (x.max() - x.min())


def _quadratic(x: np.ndarray) -> np.ndarray:
    d = (x[:, None] - x[None, :]) ** 2
    return 1.0 - d / (x.max() - x.min()) ** 2


def _radical(x: np.ndarray) -> np.ndarray:
    d = np.sqrt(np.abs(x[:, None] - x[None, :]))
    return 1.0 - d / np.sqrt(x.max() - x.min())


def _ratio(x: np.ndarray) -> np.ndarray:
    if (x <= 0).any():
        raise ValueError("ratio weights need positive label values")
    lo, hi = x.min(), x.max()
    d = ((x[:, None] - x[None, :]) / (x[:, None] + x[None, :])) ** 2
    return 1.0 - d / ((hi - lo) / (hi + lo)) ** 2


def _circular(x: np.ndarray) -> np.ndarray:
    u = x.max() - x.min() + 1.0
    d = np.sin(np.pi * (x[:, None] - x[None, :]) / u) ** 2
    return 1.0 - d / d.max()


def _bipolar(x: np.ndarray) -> np.ndarray:
    lo, hi = x.min(), x.max()
    xk, xl = x[:, None], x[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        d = (xk - xl) ** 2 / ((xk + xl - 2 * lo) * (2 * hi - xk - xl))
    d = np.where(np.eye(len(x), dtype=bool), 0.0, d)
    if not np.isfinite(d).all():
        raise ValueError("bipolar weights are undefined for these label values (a denominator is 0)")
    return 1.0 - d / d.max()


def _ordinal(x: np.ndarray) -> np.ndarray:
    k = np.arange(len(x), dtype=float)
    nkl = np.abs(k[:, None] - k[None, :]) + 1.0
    d = nkl * (nkl - 1.0) / 2.0
    return 1.0 - d / d.max()


_MAKERS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "identity": _identity,
    "linear": _linear,
    "quadratic": _quadratic,
    "ordinal": _ordinal,
    "radical": _radical,
    "ratio": _ratio,
    "circular": _circular,
    "bipolar": _bipolar,
}
WEIGHT_NAMES = tuple(_MAKERS)


def weight_matrix(name: str, values: np.ndarray) -> np.ndarray:
    """Agreement weights ``w_kl`` (``w_kk = 1``) for sorted category values.

    Parameters
    ----------
    name : str
        One of ``identity, linear, quadratic, ordinal, radical, ratio, circular, bipolar``.
    values : array-like of shape (q,)
        Category values (numeric labels) or positions ``1..q``.

    Examples
    --------
    >>> weight_matrix("linear", np.arange(1, 6))[0].tolist()
    [1.0, 0.75, 0.5, 0.25, 0.0]
    >>> np.round(weight_matrix("circular", np.arange(1, 6))[0], 6).tolist()
    [1.0, 0.618034, 0.0, 0.0, 0.618034]
    """
    try:
        make = _MAKERS[name]
    except (KeyError, TypeError):
        raise ValueError(f"weights must be one of {list(_MAKERS)} or a K x K array; got {name!r}") from None
    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return np.ones((len(x), len(x)))
    if name != "identity" and x.max() == x.min():
        return np.ones((len(x), len(x)))
    return make(x)


def krippendorff_distance(level: str, values: np.ndarray) -> np.ndarray:
    """Krippendorff's squared difference delta^2 for the metric levels (not ordinal).

    See docs/formulas/coefficients.md, "Krippendorff's alpha".

    Parameters
    ----------
    level : {"nominal", "interval", "ratio"}
        The metric (ordinal alpha depends on the data and is computed elsewhere).
    values : array of float
        The K label values.

    Returns
    -------
    (K, K) array
        ``delta^2`` between every pair of values.

    Examples
    --------
    >>> krippendorff_distance("interval", np.array([1.0, 3.0]))
    array([[0., 4.],
           [4., 0.]])
    """
    x = np.asarray(values, dtype=float)
    if level == "nominal":
        return 1.0 - np.eye(len(x))
    if level == "interval":
        return (x[:, None] - x[None, :]) ** 2
    if level == "ratio":
        s = x[:, None] + x[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            d = ((x[:, None] - x[None, :]) / s) ** 2
        return np.where(s == 0, 0.0, d)
    raise ValueError(f"level must be one of ['interval', 'nominal', 'ordinal', 'ratio']; got {level!r}")
