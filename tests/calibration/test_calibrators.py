"""Calibration maps: parity with scikit-learn, invariances, identity recovery, errors."""

import warnings

import numpy as np
import pytest
from sklearn.calibration import _sigmoid_calibration
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from softirr_stats.calibration import (
    BetaCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    TemperatureCalibrator,
)

EPS = np.finfo(np.float64).eps


def _lr(X, y, w=None, intercept=True):
    return LogisticRegression(
        C=1e12, tol=1e-13, max_iter=100_000, solver="newton-cholesky", fit_intercept=intercept
    ).fit(X, y, sample_weight=w)


def _logit(s):
    s = np.clip(s, EPS, 1 - EPS)
    return np.log(s) - np.log1p(-s)


def _miscalibrated(n=600, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.beta(1.2, 1.5, n)
    truth = 1 / (1 + np.exp(-(1.7 * np.log(s) + 0.6 * np.log1p(-s) * -1 + 0.4)))
    y = (rng.uniform(size=n) < truth).astype(float)
    return s, y


# ---------------------------------------------------------------------------- Platt
@pytest.mark.parametrize("weighted", [False, True])
def test_platt_matches_sklearn_logistic_regression(weighted):
    s, y = _miscalibrated(seed=1)
    w = np.random.default_rng(2).uniform(0.2, 3, s.size) if weighted else None
    cal = PlattCalibrator(target_smoothing=False).fit(s, y, sample_weight=w)
    lr = _lr(_logit(s)[:, None], y, w)
    assert cal.params["A"] == pytest.approx(lr.coef_[0, 0], abs=1e-6)
    assert cal.params["B"] == pytest.approx(lr.intercept_[0], abs=1e-6)
    np.testing.assert_allclose(
        cal.predict(s), lr.predict_proba(_logit(s)[:, None])[:, 1], atol=1e-7
    )


def test_platt_target_smoothing_matches_sklearn_sigmoid_calibration():
    s, y = _miscalibrated(n=300, seed=3)
    cal = PlattCalibrator(target_smoothing=True).fit(s, y)
    a_sk, b_sk = _sigmoid_calibration(_logit(s), y)  # p = 1 / (1 + exp(a f + b))
    assert cal.params["A"] == pytest.approx(-a_sk, abs=1e-4)
    assert cal.params["B"] == pytest.approx(-b_sk, abs=1e-4)
    # and it is a different fit from plain maximum likelihood
    plain = PlattCalibrator(target_smoothing=False).fit(s, y)
    assert abs(plain.params["A"] - cal.params["A"]) > 1e-4


def test_platt_smoothing_keeps_separable_data_finite():
    s = np.array([0.1, 0.2, 0.3, 0.6, 0.7, 0.9])
    y = np.array([0, 0, 0, 1, 1, 1.0])
    with pytest.warns(RuntimeWarning, match="perfectly separated"):
        PlattCalibrator(target_smoothing=False).fit(s, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cal = PlattCalibrator().fit(s, y)
    p = cal.predict(s)
    # smoothed targets: t+ = 4/5, t- = 1/5 bound the fitted probabilities
    assert np.all(p > 0.05) and np.all(p < 0.95)
    assert np.all(np.diff(p) > 0)


def test_fractional_labels_equal_weighted_binary_expansion():
    rng = np.random.default_rng(4)
    s = rng.uniform(0.05, 0.95, 50)
    k = rng.binomial(4, s**1.5)  # k of 4 judges said "equivalent"
    frac = k / 4
    s2 = np.concatenate([s, s])
    y2 = np.concatenate([np.ones(50), np.zeros(50)])
    w2 = np.concatenate([k, 4 - k]).astype(float)
    # (Platt's target smoothing depends on the absolute counts N+, N-, so it is left out)
    for make in (
        lambda: PlattCalibrator(target_smoothing=False),
        TemperatureCalibrator,
        BetaCalibrator,
    ):
        a = make().fit(s, frac).params
        b = make().fit(s2, y2, sample_weight=w2).params
        for key in a:
            assert a[key] == pytest.approx(b[key], abs=1e-7, nan_ok=True), (make, key)


# ---------------------------------------------------------------------- temperature
def test_temperature_matches_sklearn_without_intercept():
    s, y = _miscalibrated(seed=5)
    cal = TemperatureCalibrator().fit(s, y)
    lr = _lr(_logit(s)[:, None], y, intercept=False)
    assert cal.params["inverse_temperature"] == pytest.approx(lr.coef_[0, 0], abs=1e-6)
    assert cal.params["temperature"] == pytest.approx(1 / lr.coef_[0, 0], rel=1e-6)
    np.testing.assert_allclose(cal.predict([0.5]), [0.5])  # no shift


def test_temperature_recovers_a_known_temperature_and_clips_anticorrelation():
    rng = np.random.default_rng(6)
    p_true = rng.uniform(0.02, 0.98, 20_000)
    y = (rng.uniform(size=p_true.size) < p_true).astype(float)
    sharp = 1 / (1 + np.exp(-2.5 * _logit(p_true)))
    cal = TemperatureCalibrator().fit(sharp, y)
    assert cal.params["temperature"] == pytest.approx(2.5, rel=0.05)
    with pytest.warns(RuntimeWarning, match="anti-correlated"):
        bad = TemperatureCalibrator().fit(1 - p_true, y)
    assert bad.params["temperature"] == np.inf
    np.testing.assert_array_equal(bad.predict([0.1, 0.9]), [0.5, 0.5])


# ----------------------------------------------------------------------------- beta
@pytest.mark.parametrize("weighted", [False, True])
def test_beta_matches_sklearn_on_betacal_features(weighted):
    s, y = _miscalibrated(seed=7)
    w = np.random.default_rng(8).uniform(0.2, 3, s.size) if weighted else None
    cal = BetaCalibrator().fit(s, y, sample_weight=w)
    X = np.column_stack([np.log(s), -np.log1p(-s)])
    lr = _lr(X, y, w)
    assert lr.coef_.min() > 0  # the unconstrained branch
    p = cal.params
    np.testing.assert_allclose(
        [p["a"], p["b"], p["c"]], [*lr.coef_[0], lr.intercept_[0]], atol=1e-6
    )
    np.testing.assert_allclose(cal.predict(s), lr.predict_proba(X)[:, 1], atol=1e-7)
    # m is the score mapped to 1/2
    assert cal.predict([p["m"]])[0] == pytest.approx(0.5, abs=1e-9)


def test_beta_refits_when_a_coefficient_is_negative():
    rng = np.random.default_rng(9)
    s = rng.uniform(0.01, 0.99, 800)
    # P(y) rises with s at the top but also at the very bottom -> unconstrained a < 0
    logit_true = -0.8 * np.log(s) - 2.0 * np.log1p(-s) - 2.5
    y = (rng.uniform(size=s.size) < 1 / (1 + np.exp(-logit_true))).astype(float)
    X = np.column_stack([np.log(s), -np.log1p(-s)])
    assert _lr(X, y).coef_[0, 0] < 0
    cal = BetaCalibrator().fit(s, y)
    lr = _lr(X[:, 1:], y)
    assert cal.params["a"] == 0.0
    assert cal.params["b"] == pytest.approx(lr.coef_[0, 0], abs=1e-6)
    assert cal.params["c"] == pytest.approx(lr.intercept_[0], abs=1e-6)
    # mirror image (scores and labels flipped): b < 0 -> refit on ln s alone
    cal2 = BetaCalibrator().fit(1 - s, 1 - y)
    lr2 = _lr(np.log(1 - s)[:, None], 1 - y)
    assert cal2.params["b"] == 0.0
    assert cal2.params["a"] == pytest.approx(lr2.coef_[0, 0], abs=1e-6)


def test_beta_is_near_identity_on_calibrated_data():
    rng = np.random.default_rng(10)
    s = rng.uniform(size=20_000)
    y = (rng.uniform(size=s.size) < s).astype(float)
    cal = BetaCalibrator().fit(s, y)
    p = cal.params
    assert p["a"] == pytest.approx(1, abs=0.1)
    assert p["b"] == pytest.approx(1, abs=0.1)
    assert p["c"] == pytest.approx(0, abs=0.1)
    assert p["m"] == pytest.approx(0.5, abs=0.02)
    grid = np.linspace(0.01, 0.99, 99)
    assert np.max(np.abs(cal.predict(grid) - grid)) < 0.03


def test_beta_handles_scores_of_exactly_zero_and_one():
    s = np.array([0.0, 0.0, 0.2, 0.4, 0.5, 0.7, 1.0, 1.0, 0.3, 0.8])
    y = np.array([0, 0, 0, 1, 0, 1, 1, 1, 1, 0], dtype=float)
    cal = BetaCalibrator().fit(s, y)
    out = cal.predict(s)
    assert np.isfinite(out).all() and (out >= 0).all() and (out <= 1).all()


def test_weights_equal_replication():
    s, y = _miscalibrated(n=120, seed=11)
    w = np.random.default_rng(12).integers(0, 4, s.size)
    idx = np.repeat(np.arange(s.size), w)
    for cls in (BetaCalibrator, PlattCalibrator, TemperatureCalibrator, IsotonicCalibrator):
        a = cls().fit(s, y, sample_weight=w)
        b = cls().fit(s[idx], y[idx])
        grid = np.linspace(0, 1, 41)
        np.testing.assert_allclose(
            a.predict(grid), b.predict(grid), atol=1e-8, err_msg=cls.__name__
        )


# ------------------------------------------------------------------------- isotonic
@pytest.mark.parametrize("weighted", [False, True])
def test_isotonic_matches_sklearn(weighted):
    rng = np.random.default_rng(13)
    s = np.round(rng.uniform(0.1, 0.9, 300), 2)  # many ties
    y = (rng.uniform(size=300) < s).astype(float)
    y[:20] = rng.uniform(size=20)  # some fractional labels
    w = rng.uniform(0.1, 2, 300) if weighted else None
    cal = IsotonicCalibrator().fit(s, y, sample_weight=w)
    ref = IsotonicRegression(out_of_bounds="clip", y_min=0, y_max=1).fit(s, y, sample_weight=w)
    grid = np.concatenate([np.linspace(0, 1, 501), s])  # includes out-of-range scores
    np.testing.assert_allclose(cal.predict(grid), ref.predict(grid), atol=1e-12)


def test_isotonic_hand_example_and_monotone():
    cal = IsotonicCalibrator().fit([0.2, 0.2, 0.4, 0.6, 0.8], [1, 0, 0, 1, 1])
    # ties averaged: (0.2 -> .5, w 2), 0.4 -> 0 violates: pooled (1 + 0) / 3 = 1/3
    np.testing.assert_allclose(
        cal.predict([0.0, 0.2, 0.4, 0.5, 0.6, 1.0]), [1 / 3, 1 / 3, 1 / 3, 2 / 3, 1, 1]
    )
    assert cal.params["x_thresholds"] == [0.2, 0.4, 0.6, 0.8]


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "cls", [PlattCalibrator, TemperatureCalibrator, BetaCalibrator, IsotonicCalibrator]
)
def test_fit_errors(cls):
    with pytest.raises(ValueError, match="labels are all equal to 1.0"):
        cls().fit([0.2, 0.5, 0.9], [1, 1, 1])
    with pytest.raises(ValueError, match="at least 2 scored pairs; got 1"):
        cls().fit([0.2], [1])
    with pytest.raises(ValueError, match="scores must lie in"):
        cls().fit([0.2, 1.5], [0, 1])
    with pytest.raises(ValueError, match="same length"):
        cls().fit([0.2, 0.5], [0, 1, 1])
    with pytest.raises(ValueError, match="sample_weight must have shape"):
        cls().fit([0.2, 0.5], [0, 1], sample_weight=[1.0])
    with pytest.raises(RuntimeError, match="not fitted"):
        cls().predict([0.5])
    fitted = cls().fit([0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="scores must be finite"):
        fitted.predict([0.5, np.nan])
    assert fitted.predict(0.5).shape == (1,)
    assert fitted.is_fitted and isinstance(fitted.params, dict) and isinstance(fitted.config, dict)


def test_config_is_fixed_by_the_constructor():
    cal = PlattCalibrator(target_smoothing=False, eps=1e-9)
    assert cal.config == {"target_smoothing": False, "eps": 1e-9}
    with pytest.raises(AttributeError):
        cal.target_smoothing = True  # read-only
    with pytest.raises(ValueError, match="eps must be a number in"):
        BetaCalibrator(eps=0.7)
    with pytest.raises(TypeError):
        PlattCalibrator(True)  # options are keyword-only
    assert repr(cal) == "PlattCalibrator(target_smoothing=False, eps=1e-09)"
