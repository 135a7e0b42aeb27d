"""Calibration maps from estimator scores in [0, 1] to P(equivalent) (docs/formulas/calibration.md, 'Calibration maps').

All parametric maps are logistic models fitted by maximum likelihood (weighted, with
fractional targets allowed) with ``scipy.optimize.minimize`` (Newton trust region, exact
Hessian); isotonic regression uses ``scipy.optimize.isotonic_regression`` (PAV).

Common interface: ``fit(scores, labels, sample_weight=None) -> self``,
``predict(scores) -> ndarray``, ``params`` (dict of fitted values), ``config`` (dict of
the constructor settings, fixed once built), ``method`` (short name).
"""

import warnings
from typing import Any, ClassVar, Self, cast

import numpy as np
from scipy.optimize import brentq, isotonic_regression, minimize
from scipy.special import expit, log_expit

from softirr_stats.calibration._checks import (
    check_fit_data,
    check_sample_weight,
    check_scores_labels,
    check_unit_interval,
)

_EPS = float(np.finfo(np.float64).eps)


def _logit(s: np.ndarray, eps: float) -> np.ndarray:
    s = np.clip(s, eps, 1.0 - eps)
    return np.log(s) - np.log1p(-s)


def _fit_logistic(
    features: np.ndarray,
    targets: np.ndarray,
    weights: np.ndarray,
    x0: np.ndarray,
    *,
    fit_intercept: bool,
    what: str,
) -> np.ndarray:
    """Unpenalised weighted logistic regression with fractional targets.

    Minimises ``sum_i w_i [log(1 + e^{z_i}) - t_i z_i] / sum_i w_i`` with
    ``z = features @ beta (+ intercept)``; returns ``beta`` (intercept last).
    """
    design = features
    if fit_intercept:
        design = np.column_stack([features, np.ones(features.shape[0])])
    wn = weights / weights.sum()

    def fun(beta: np.ndarray) -> tuple[float, np.ndarray]:
        z = design @ beta
        loss = float(np.sum(wn * (-log_expit(-z) - targets * z)))  # softplus(z) - t z
        grad = design.T @ (wn * (expit(z) - targets))
        return loss, grad

    def hess(beta: np.ndarray) -> np.ndarray:
        q = expit(design @ beta)
        return design.T @ (design * (wn * q * (1.0 - q))[:, None])

    res = minimize(
        fun,
        x0,
        jac=True,
        hess=hess,
        method="trust-exact",
        options={"gtol": 1e-11, "maxiter": 500},
    )
    beta = np.asarray(res.x, dtype=np.float64)
    fitted = expit(design @ beta)
    binary = np.all((targets == 0) | (targets == 1))
    if binary and np.max(np.abs(fitted - targets)) < 1e-4:
        warnings.warn(
            f"{what}: the labels are perfectly separated by the scores, so the maximum "
            "likelihood map does not exist and the fit is a near step function; use more "
            "(or noisier) calibration pairs, or PlattCalibrator(target_smoothing=True)",
            RuntimeWarning,
            stacklevel=4,
        )
    elif not res.success and np.linalg.norm(res.jac) > 1e-6:
        warnings.warn(
            f"{what}: the optimiser stopped without converging ({res.message})",
            RuntimeWarning,
            stacklevel=4,
        )
    return beta


class _Calibrator:
    """Shared plumbing: validation, fitted-state checks, params/config accessors."""

    method: ClassVar[str] = ""

    def __init__(self) -> None:
        self._params: dict[str, Any] | None = None

    # -- public interface ------------------------------------------------------------
    def fit(self, scores: object, labels: object, sample_weight: object = None) -> Self:
        """Fit the map on scored pairs and their human labels (0/1 or fractions)."""
        s, y = check_scores_labels(scores, labels)
        w = check_sample_weight(sample_weight, s.size)
        keep = w > 0
        s, y, w = s[keep], y[keep], w[keep]
        check_fit_data(s, y, min_points=2)
        self._params = self._fit(s, y, w)
        return self

    def predict(self, scores: object) -> np.ndarray:
        """Calibrated probabilities ``P(equivalent | score)`` for scores in [0, 1]."""
        if self._params is None:
            raise RuntimeError(
                f"{type(self).__name__} is not fitted; call .fit(scores, labels) first"
            )
        s = check_unit_interval(scores if np.ndim(cast(Any, scores)) else [scores], "scores")
        return self._predict(s)

    @property
    def params(self) -> dict[str, Any]:
        """Fitted parameters (a copy); empty before :meth:`fit`."""
        return {} if self._params is None else dict(self._params)

    @property
    def config(self) -> dict[str, Any]:
        """Constructor settings (a copy)."""
        return dict(self._config())

    @property
    def is_fitted(self) -> bool:
        return self._params is not None

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._config().items())
        return f"{type(self).__name__}({args})"

    # -- to implement ------------------------------------------------------------------
    def _config(self) -> dict[str, Any]:
        raise NotImplementedError

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict[str, Any]:
        raise NotImplementedError

    def _predict(self, s: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class PlattCalibrator(_Calibrator):
    """Platt scaling on the logit of the score: ``p = sigmoid(A * logit(s) + B)``.

    The identity map is ``A = 1, B = 0`` (Platt on ``s`` itself cannot represent it).
    Note the sign convention: Platt (1999) and sklearn write ``1 / (1 + exp(A f + B))``,
    whose ``A`` and ``B`` are the negatives of these.

    Parameters
    ----------
    target_smoothing : bool, default True
        Platt's targets ``t+ = (N+ + 1) / (N+ + 2)`` and ``t- = 1 / (N- + 2)`` instead of
        1 and 0 (a fractional label ``y`` gets ``y t+ + (1 - y) t-``, with ``N+`` and
        ``N-`` the weighted sums of ``y`` and ``1 - y``). Keeps the fit finite when the
        scores separate the labels perfectly, which small calibration sets often do.
        ``False`` gives the plain maximum-likelihood fit.
    eps : float, default machine epsilon
        Scores are clipped to ``[eps, 1 - eps]`` before the logit.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.01, 0.99, 4000)
    >>> y = (rng.uniform(size=4000) < s).astype(float)       # calibrated already
    >>> cal = PlattCalibrator(target_smoothing=False).fit(s, y)
    >>> {k: round(v, 1) for k, v in cal.params.items()}
    {'A': 1.0, 'B': 0.0}
    """

    method: ClassVar[str] = "platt"

    def __init__(self, *, target_smoothing: bool = True, eps: float = _EPS) -> None:
        super().__init__()
        self._target_smoothing = bool(target_smoothing)
        self._eps = _check_eps(eps)

    @property
    def target_smoothing(self) -> bool:
        return self._target_smoothing

    @property
    def eps(self) -> float:
        return self._eps

    def _config(self) -> dict[str, Any]:
        return {"target_smoothing": self._target_smoothing, "eps": self._eps}

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict[str, Any]:
        t = y
        if self._target_smoothing:
            n_pos = float(np.sum(w * y))
            n_neg = float(np.sum(w * (1.0 - y)))
            t_pos = (n_pos + 1.0) / (n_pos + 2.0)
            t_neg = 1.0 / (n_neg + 2.0)
            t = y * t_pos + (1.0 - y) * t_neg
        g = _logit(s, self._eps)
        beta = _fit_logistic(
            g[:, None], t, w, np.array([1.0, 0.0]), fit_intercept=True, what="Platt scaling"
        )
        return {"A": float(beta[0]), "B": float(beta[1])}

    def _predict(self, s: np.ndarray) -> np.ndarray:
        p = self._params
        assert p is not None
        return expit(p["A"] * _logit(s, self._eps) + p["B"])


class TemperatureCalibrator(_Calibrator):
    """Temperature scaling ``p = sigmoid(logit(s) / T)`` (Guo et al. 2017).

    One parameter, no intercept: it sharpens (``T < 1``) or softens (``T > 1``) the scores
    but cannot correct a shift. If the scores are anti-correlated with the labels the
    best ``1/T`` is clipped at 0 (every score maps to 0.5, ``T = inf``) with a warning.

    Parameters
    ----------
    eps : float, default machine epsilon
        Scores are clipped to ``[eps, 1 - eps]`` before the logit.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.01, 0.99, 4000)
    >>> y = (rng.uniform(size=4000) < s).astype(float)
    >>> sharp = 1 / (1 + np.exp(-3 * np.log(s / (1 - s))))   # over-confident scores
    >>> round(TemperatureCalibrator().fit(sharp, y).params["temperature"], 1)  # true T: 3
    3.1
    """

    method: ClassVar[str] = "temperature"

    def __init__(self, *, eps: float = _EPS) -> None:
        super().__init__()
        self._eps = _check_eps(eps)

    @property
    def eps(self) -> float:
        return self._eps

    def _config(self) -> dict[str, Any]:
        return {"eps": self._eps}

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict[str, Any]:
        g = _logit(s, self._eps)
        (inv_t,) = _fit_logistic(
            g[:, None], y, w, np.array([1.0]), fit_intercept=False, what="temperature scaling"
        )
        if inv_t <= 0.0:
            warnings.warn(
                "temperature scaling: the scores are anti-correlated with the labels "
                f"(best 1/T = {inv_t:.3g}); 1/T is clipped to 0 and every score maps to 0.5",
                RuntimeWarning,
                stacklevel=3,
            )
            inv_t = 0.0
        temperature = np.inf if inv_t == 0.0 else 1.0 / inv_t
        return {"temperature": float(temperature), "inverse_temperature": float(inv_t)}

    def _predict(self, s: np.ndarray) -> np.ndarray:
        p = self._params
        assert p is not None
        return expit(p["inverse_temperature"] * _logit(s, self._eps))


class BetaCalibrator(_Calibrator):
    """Beta calibration (Kull, Silva Filho & Flach 2017), parameter set "abm".

    ``logit p = a ln s - b ln(1 - s) + c`` with ``a, b >= 0``; the identity is
    ``a = b = 1, c = 0``. Fitted as ``betacal`` does: clip ``s`` to ``[eps, 1 - eps]``,
    logistic regression on ``(ln s, -ln(1 - s))`` with an intercept; if ``a < 0`` refit on
    ``-ln(1 - s)`` alone with ``a = 0``, else if ``b < 0`` refit on ``ln s`` alone with
    ``b = 0``. ``m`` is the score mapped to 1/2 (``c = b ln(1 - m) - a ln m``), NaN when
    no such score exists. Unlike the packaged Python ``betacal``, ``sample_weight`` is used.

    Parameters
    ----------
    eps : float, default machine epsilon
        Clipping of the scores (betacal's Python default).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> s = rng.uniform(0.01, 0.99, 4000)
    >>> y = (rng.uniform(size=4000) < s).astype(float)       # calibrated already
    >>> p = BetaCalibrator().fit(s, y).params
    >>> [round(p[k], 1) for k in ("a", "b", "c", "m")]
    [1.0, 1.0, 0.0, 0.5]
    """

    method: ClassVar[str] = "beta"

    def __init__(self, *, eps: float = _EPS) -> None:
        super().__init__()
        self._eps = _check_eps(eps)

    @property
    def eps(self) -> float:
        return self._eps

    def _config(self) -> dict[str, Any]:
        return {"parameters": "abm", "eps": self._eps}

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict[str, Any]:
        sc = np.clip(s, self._eps, 1.0 - self._eps)
        f1, f2 = np.log(sc), -np.log1p(-sc)
        what = "beta calibration"
        a, b, c = _fit_logistic(
            np.column_stack([f1, f2]),
            y,
            w,
            np.array([1.0, 1.0, 0.0]),
            fit_intercept=True,
            what=what,
        )
        if a < 0:
            b, c = _fit_logistic(
                f2[:, None], y, w, np.array([1.0, 0.0]), fit_intercept=True, what=what
            )
            a = 0.0
        elif b < 0:
            a, c = _fit_logistic(
                f1[:, None], y, w, np.array([1.0, 0.0]), fit_intercept=True, what=what
            )
            b = 0.0
        return {"a": float(a), "b": float(b), "c": float(c), "m": _beta_midpoint(a, b, c)}

    def _predict(self, s: np.ndarray) -> np.ndarray:
        p = self._params
        assert p is not None
        sc = np.clip(s, self._eps, 1.0 - self._eps)
        return expit(p["a"] * np.log(sc) - p["b"] * np.log1p(-sc) + p["c"])


def _beta_midpoint(a: float, b: float, c: float) -> float:
    """Root in (0, 1) of ``b ln(1 - m) - a ln m - c`` (decreasing in m), else NaN."""
    if a <= 0 and b <= 0:
        return float("nan")

    def f(m: float) -> float:
        return b * np.log1p(-m) - a * np.log(m) - c

    lo, hi = 1e-300, 1.0 - 1e-16
    f_lo, f_hi = f(lo), f(hi)
    if not (f_lo > 0 > f_hi):
        return float("nan")
    return float(brentq(f, lo, hi, xtol=1e-15, rtol=4 * _EPS, maxiter=500))


class IsotonicCalibrator(_Calibrator):
    """Isotonic regression (pool adjacent violators), with sklearn's semantics.

    Tied scores are merged first (weighted mean label, summed weight); the fitted map is
    non-decreasing, interpolated linearly between the fitted points and clipped outside
    the range of the training scores (``out_of_bounds="clip"``), with values in [0, 1].
    It is flexible but overfits small calibration sets and collapses ties; prefer it with
    roughly 1000+ calibration pairs.

    Examples
    --------
    >>> cal = IsotonicCalibrator().fit([0.1, 0.3, 0.5, 0.7, 0.9], [0, 1, 0, 1, 1])
    >>> cal.predict([0.1, 0.4, 0.5, 0.95]).round(3).tolist()
    [0.0, 0.5, 0.5, 1.0]
    """

    method: ClassVar[str] = "isotonic"

    def __init__(self) -> None:
        super().__init__()

    def _config(self) -> dict[str, Any]:
        return {"increasing": True, "out_of_bounds": "clip"}

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> dict[str, Any]:
        xs, inverse = np.unique(s, return_inverse=True)
        wsum = np.bincount(inverse, weights=w)
        ymean = np.bincount(inverse, weights=w * y) / wsum
        fitted = isotonic_regression(ymean, weights=wsum, increasing=True).x
        fitted = np.clip(fitted, 0.0, 1.0)
        return {"x_thresholds": xs.tolist(), "y_thresholds": fitted.tolist()}

    def _predict(self, s: np.ndarray) -> np.ndarray:
        p = self._params
        assert p is not None
        return np.interp(s, p["x_thresholds"], p["y_thresholds"])


def _check_eps(eps: object) -> float:
    if isinstance(eps, bool) or not isinstance(eps, float | int) or not 0.0 < eps < 0.5:
        raise ValueError(f"eps must be a number in (0, 0.5); got {eps!r}")
    return float(eps)


CALIBRATORS: dict[str, type[_Calibrator]] = {
    "beta": BetaCalibrator,
    "isotonic": IsotonicCalibrator,
    "platt": PlattCalibrator,
    "temperature": TemperatureCalibrator,
}
