"""Agreement weight matrices (irrCAC conventions, docs/formulas/coefficients.md) and Krippendorff metrics."""

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["WEIGHT_NAMES", "weight_matrix", "krippendorff_distance", "label_values",
           "check_weight_matrix", "ORDERED_WEIGHT_COEFFICIENTS"]


def _exact(x: np.ndarray) -> bool:
    """Whether ``x`` holds exact integers that float64 cannot represent (an object array)."""
    return x.dtype == object


def _sub(x: np.ndarray) -> np.ndarray:
    """``x_k - x_l`` as float64, computed on exact integers first when ``x`` holds them."""
    d = x[:, None] - x[None, :]
    return d.astype(float) if _exact(x) else d


def _add(x: np.ndarray, c: Any = 0) -> np.ndarray:
    """``x_k + x_l - c`` as float64 (exact integer arithmetic first for exact labels)."""
    s = x[:, None] + x[None, :] - c
    return s.astype(float) if _exact(x) else s


def _range(x: np.ndarray) -> float:
    return float(x.max() - x.min())


def _identity(x: np.ndarray) -> np.ndarray:
    return np.eye(len(x))


def _linear(x: np.ndarray) -> np.ndarray:
    d = np.abs(_sub(x))
    return 1.0 - d / _range(x)


def _quadratic(x: np.ndarray) -> np.ndarray:
    d = _sub(x) ** 2
    return 1.0 - d / _range(x) ** 2


def _radical(x: np.ndarray) -> np.ndarray:
    d = np.sqrt(np.abs(_sub(x)))
    return 1.0 - d / np.sqrt(_range(x))


def _ratio(x: np.ndarray) -> np.ndarray:
    if (x <= 0).any():
        raise ValueError("ratio weights need positive label values")
    lo, hi = x.min(), x.max()
    d = (_sub(x) / _add(x)) ** 2
    return 1.0 - d / (float(hi - lo) / float(hi + lo)) ** 2


def _circular(x: np.ndarray) -> np.ndarray:
    u = _range(x) + 1.0
    d = np.sin(np.pi * _sub(x) / u) ** 2
    return 1.0 - d / d.max()


def _bipolar(x: np.ndarray) -> np.ndarray:
    lo, hi = x.min(), x.max()
    with np.errstate(divide="ignore", invalid="ignore"):
        if _exact(x):
            d = _sub(x) ** 2 / (_add(x, 2 * lo) * -_add(x, 2 * hi))
        else:
            xk, xl = x[:, None], x[None, :]
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


def label_values(values: Any) -> np.ndarray:
    """Numeric label values as float64, or as exact Python integers where float64 would merge them.

    Integer labels beyond 2**53 (hashes, database ids) are not all representable in float64:
    ``float(2**53 + 1) == float(2**53)``. Distances between such labels are computed on the
    exact integers (differences first, then float64), so two distinct labels never get
    distance 0.

    Parameters
    ----------
    values : sequence of numbers
        The K label values (``ann.vocabulary`` of numeric labels).

    Returns
    -------
    ndarray
        float64 when every value round-trips through float64, else an object array of the
        exact values.

    Examples
    --------
    >>> label_values([1, 2.5]).dtype
    dtype('float64')
    >>> label_values([2**53, 2**53 + 1]).dtype
    dtype('O')
    """
    if isinstance(values, np.ndarray) and values.dtype != object:
        return values.astype(float, copy=False)
    vals = list(values)
    exact = all(not isinstance(v, numbers.Integral) or int(float(v)) == v for v in vals)
    if exact:
        return np.asarray(vals, dtype=float)
    return np.asarray([int(v) if isinstance(v, numbers.Integral) else v for v in vals], dtype=object)


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
    x = label_values(values)
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
    x = label_values(values)
    if level == "nominal":
        return 1.0 - np.eye(len(x))
    if level == "interval":
        return _sub(x) ** 2
    if level == "ratio":
        s = _add(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            d = (_sub(x) / s) ** 2
        return np.where(s == 0, 0.0, d)
    raise ValueError(f"level must be one of ['interval', 'nominal', 'ordinal', 'ratio']; got {level!r}")
