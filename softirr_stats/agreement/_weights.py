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
    k = np.argsort(np.argsort(x, kind="stable"), kind="stable").astype(float)  # the values' ranks, in their order
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
    """Agreement weights ``w_kl`` (``w_kk = 1``) for the category values, in the vocabulary's order.

    Parameters
    ----------
    name : str
        One of ``identity, linear, quadratic, ordinal, radical, ratio, circular, bipolar``.
    values : array-like of shape (q,)
        Category values (numeric labels) or positions ``1..q`` (text labels in their declared
        order), in any order: the distance weights are built on the values, the ordinal weights
        on their ranks.

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
        from softirr_stats.base._suggest import did_you_mean

        raise ValueError(f"weights must be one of {list(_MAKERS)} or a K x K array; got {name!r}"
                         f"{did_you_mean(name, _MAKERS)}") from None
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
        if (x < 0).any():  # (-2, 2) would get distance 0: the ratio metric measures from an absolute zero
            raise ValueError(f"level='ratio' needs values of at least 0 (the ratio metric measures from an absolute "
                             f"zero); the smallest value here is {x.min():g}. Use level='interval' for scores that "
                             "can be negative")
        s = _add(x)
        with np.errstate(divide="ignore", invalid="ignore"):
            d = (_sub(x) / s) ** 2
        return np.where(s == 0, 0.0, d)
    raise ValueError(f"level must be one of ['interval', 'nominal', 'ordinal', 'ratio']; got {level!r}")


#: Chance families whose coefficient reads a weight matrix in rater order at any number of raters
#: (Cohen, Conger: the observed term and each rater pair's chance term take rows from the earlier
#: rater), and those that do with exactly two raters (the observed term is in rater order; the chance
#: term depends on the matrix only through its total, which transposing does not change).
ORDERED_WEIGHT_COEFFICIENTS: dict[str, str] = {"per_rater": "any", "percent": "two", "ac1": "two", "bp": "two"}


def check_weight_matrix(weights: Any, k: int, *, coefficient: str, family: str, n_raters: int) -> np.ndarray:
    """A ``weights=`` K x K matrix, used as given; an asymmetric one only where a rater order exists.

    An asymmetric agreement-weight matrix ``w[k, l] != w[l, k]`` says that rater 1 saying ``k``
    while rater 2 says ``l`` is not the same as the reverse. That is meaningful only when the
    coefficient distinguishes its raters: Cohen's and Conger's kappa (row = the earlier rater in
    the table's column order, as irrCAC's contingency-table functions read it), and with exactly
    two raters percent agreement, Brennan-Prediger and Gwet's AC2. Coefficients with exchangeable
    raters (Scott / Fleiss, Krippendorff's alpha, Light's kappa, or more than two raters for the
    two-rater ones) refuse it: averaging it with its transpose silently would report a
    different coefficient from the one the matrix describes.

    Parameters
    ----------
    weights : array-like, shape (k, k)
        Agreement weights in [0, 1] with a unit diagonal.
    k : int
        Number of labels.
    coefficient, family : str
        The coefficient's name and chance family (for the decision and the message).
    n_raters : int
        Number of raters.

    Returns
    -------
    ndarray of float64, shape (k, k)
        The matrix as given.

    Examples
    --------
    >>> w = [[1.0, 0.5], [0.0, 1.0]]
    >>> check_weight_matrix(w, 2, coefficient="cohen_kappa", family="per_rater", n_raters=2).tolist()
    [[1.0, 0.5], [0.0, 1.0]]
    >>> check_weight_matrix(w, 2, coefficient="fleiss_kappa", family="pooled", n_raters=3)
    Traceback (most recent call last):
    ...
    ValueError: weights is not symmetric (w[0, 1] = 0.5, w[1, 0] = 0.0) and fleiss_kappa treats its raters as exchangeable, so there is no rater order to read it in; pass (w + w.T) / 2 if that is what you mean, or use cohen_kappa / conger_kappa, which read the matrix as given (row = the earlier rater)
    """
    from softirr_stats.equivalence import check_similarity_matrix

    check_similarity_matrix(weights, k, "weights")  # shape, range and unit diagonal, with their messages
    arr = np.asarray(weights, dtype=np.float64)
    if np.array_equal(arr, arr.T):
        return arr
    scope = ORDERED_WEIGHT_COEFFICIENTS.get(family)
    if scope == "any" or (scope == "two" and n_raters == 2):
        return arr
    i, j = (int(x[0]) for x in np.nonzero(arr != arr.T))
    why = ("treats its raters as exchangeable" if scope is None else
           f"has no rater order with {n_raters} raters (only with two)")
    raise ValueError(
        f"weights is not symmetric (w[{i}, {j}] = {float(arr[i, j])!r}, w[{j}, {i}] = {float(arr[j, i])!r}) and {coefficient} "
        f"{why}, so there is no rater order to read it in; pass (w + w.T) / 2 if that is what you mean, or use "
        "cohen_kappa / conger_kappa, which read the matrix as given (row = the earlier rater)")
