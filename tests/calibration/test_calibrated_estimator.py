"""CalibratedEstimator and fit_calibrator."""

import numpy as np
import pandas as pd
import pytest

from softirr_stats.calibration import (
    BetaCalibrator,
    CalibratedEstimator,
    IsotonicCalibrator,
    PlattCalibrator,
    TemperatureCalibrator,
    expected_calibration_error,
    fit_calibrator,
)


class Lookup:
    """A toy estimator: the score of pair (i, j) is a fixed table entry (i != j)."""

    name = "lookup"
    symmetric = True

    def __init__(self, table):
        self.table = np.asarray(table, dtype=float)
        self.calls = 0

    @property
    def fingerprint(self):
        return f"lookup:{self.table.size}"

    def __call__(self, a, b):
        self.calls += 1
        a = np.asarray(a)
        b = np.asarray(b)
        return np.where(a == b, 1.0, self.table[np.minimum(a, b)])


def _study(n=400, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.uniform(size=n)
    raw = truth**2.5  # systematically under-confident estimator
    y = (rng.uniform(size=n) < truth).astype(float)
    a = np.arange(n)
    b = a + n  # never identical
    table = np.concatenate([raw, raw])
    return Lookup(table), a, b, y, raw


def test_calibrated_estimator_applies_the_map_and_keeps_identity():
    est, a, b, y, raw = _study()
    cal = BetaCalibrator().fit(raw, y)
    wrapped = CalibratedEstimator(est, cal)
    out = wrapped(a[:10], b[:10])
    np.testing.assert_allclose(out, cal.predict(raw[:10]))
    # identical labels score exactly 1, even though the map sends raw 1.0 elsewhere
    same = wrapped([3, 5, 7], [3, 6, 7])
    assert same[0] == 1.0 and same[2] == 1.0 and same[1] == pytest.approx(cal.predict([raw[5]])[0])
    assert wrapped([], []).shape == (0,)


def test_identity_pairs_not_recalibrated_even_when_the_map_is_below_one():
    def const(a, b):
        return np.full(len(a), 0.9)

    cal = IsotonicCalibrator().fit([0.1, 0.9, 0.9], [0, 1, 0])  # maps 0.9 -> 0.5
    wrapped = CalibratedEstimator(const, cal)
    np.testing.assert_allclose(wrapped(["x", "x", {"a"}], ["x", "y", {"a"}]), [1.0, 0.5, 1.0])
    np.testing.assert_allclose(wrapped([("a", "b")], [("a", "b")]), [1.0])


def test_attributes_name_symmetric_fingerprint():
    est, a, b, y, raw = _study(n=200)
    c1 = CalibratedEstimator(est, BetaCalibrator().fit(raw, y))
    c2 = CalibratedEstimator(est, BetaCalibrator().fit(raw[:100], y[:100]))
    c3 = CalibratedEstimator(est, PlattCalibrator().fit(raw, y))
    assert c1.name == "lookup+beta" and c3.name == "lookup+platt"
    assert c1.symmetric is True
    assert c1.fingerprint.startswith("lookup:400+calibrated:beta:")
    assert c1.fingerprint == CalibratedEstimator(est, BetaCalibrator().fit(raw, y)).fingerprint
    assert len({c1.fingerprint, c2.fingerprint, c3.fingerprint}) == 3

    def plain(a, b):
        return np.full(len(a), 0.5)

    cp = CalibratedEstimator(plain, c1.calibrator)
    assert cp.name == "plain+beta" and cp.symmetric is False
    assert "plain" in cp.fingerprint


def test_works_with_the_equivalence_package():
    from softirr_stats.equivalence import Levenshtein, as_estimator, similarity_matrix

    lev = Levenshtein()
    s = np.array([0.2, 0.3, 0.5, 0.6, 0.8, 0.9, 0.4, 0.7])
    y = np.array([0, 0, 1, 0, 1, 1, 0, 1], dtype=float)
    wrapped = CalibratedEstimator(lev, PlattCalibrator().fit(s, y))
    assert as_estimator(wrapped) is wrapped  # satisfies the protocol as is
    assert wrapped.fingerprint.startswith(lev.fingerprint + "+calibrated:platt:")
    vocab = ["heart attack", "heart attacks", "stroke"]
    m = similarity_matrix(wrapped, vocab)
    np.testing.assert_allclose(np.diag(m), 1.0)
    raw = lev(["heart attack"], ["heart attacks"])
    assert m[0, 1] == pytest.approx(wrapped.calibrator.predict(raw)[0])
    np.testing.assert_allclose(m, m.T)


def test_constructor_errors():
    est, a, b, y, raw = _study(n=50)
    with pytest.raises(TypeError, match="estimator must be callable"):
        CalibratedEstimator("levenshtein", BetaCalibrator().fit(raw, y))
    with pytest.raises(TypeError, match="calibrator must be one of"):
        CalibratedEstimator(est, lambda s: s)
    with pytest.raises(ValueError, match="not fitted"):
        CalibratedEstimator(est, BetaCalibrator())
    wrapped = CalibratedEstimator(est, BetaCalibrator().fit(raw, y))
    with pytest.raises(ValueError, match="same length"):
        wrapped([1, 2], [3])

    def broken(a, b):
        return np.full(len(a), 1.5)

    with pytest.raises(ValueError, match="returned 1.5 for pair 0"):
        CalibratedEstimator(broken, wrapped.calibrator)([1], [2])


# ------------------------------------------------------------------- fit_calibrator
@pytest.mark.parametrize("method", ["beta", "platt", "temperature", "isotonic"])
def test_fit_calibrator_each_method_improves_calibration(method):
    est, a, b, y, raw = _study(n=600, seed=1)
    cal = fit_calibrator(est, a, b, y, method=method, cv=5)
    assert isinstance(cal, CalibratedEstimator) and cal.calibrator.method == method
    rep = cal.report
    assert isinstance(rep, pd.DataFrame)
    assert set(rep["scores"]) == {"raw", "calibrated_in_sample", "calibrated_cross_fitted"}
    assert set(rep["metric"]) == {"ece", "mce", "debiased_l2", "brier", "log_loss"}
    table = rep.pivot(index="metric", columns="scores", values="value")
    assert table.loc["ece", "raw"] == pytest.approx(
        expected_calibration_error(raw, y, 10, "quantile")
    )
    assert table.loc["ece", "calibrated_cross_fitted"] < table.loc["ece", "raw"]
    assert table.loc["brier", "calibrated_cross_fitted"] < table.loc["brier", "raw"]
    assert cal.oof_scores.shape == (600,)


def test_cross_fitting_is_honest_out_of_fold():
    est, a, b, y, raw = _study(n=300, seed=2)
    cal = fit_calibrator(est, a, b, y, method="platt", cv=3, seed=4)
    from softirr_stats.calibration._estimator import _stratified_folds

    folds = _stratified_folds(y, 3, 4)
    # stratified: both classes in every fold, folds of near-equal size
    for k in range(3):
        assert 0 < y[folds == k].mean() < 1
        assert abs((folds == k).sum() - 100) <= 1
    want = np.empty(300)
    for k in range(3):
        m = PlattCalibrator().fit(raw[folds != k], y[folds != k])
        want[folds == k] = m.predict(raw[folds == k])
    np.testing.assert_allclose(cal.oof_scores, want, atol=1e-12)
    # the returned estimator is fitted on all pairs
    full = PlattCalibrator().fit(raw, y)
    assert cal.calibrator.params == pytest.approx(full.params)
    assert not np.allclose(cal.oof_scores, full.predict(raw))


def test_fit_calibrator_without_cv_and_with_options():
    est, a, b, y, raw = _study(n=200, seed=3)
    cal = fit_calibrator(est, a, b, y)  # default: beta, no cv
    assert cal.calibrator.method == "beta" and cal.oof_scores is None
    assert set(cal.report["scores"]) == {"raw", "calibrated_in_sample"}
    smooth_off = fit_calibrator(est, a, b, y, method=PlattCalibrator(target_smoothing=False))
    assert smooth_off.calibrator.config["target_smoothing"] is False
    assert smooth_off.calibrator.params == pytest.approx(
        PlattCalibrator(target_smoothing=False).fit(raw, y).params
    )
    # fractional labels (share of judges) are accepted
    frac = np.clip(y * 0.75 + 0.1, 0, 1)
    assert fit_calibrator(est, a, b, frac, method="temperature").calibrator.is_fitted


def test_identity_pairs_are_left_out_of_the_fit():
    est, a, b, y, raw = _study(n=100, seed=5)
    a2 = np.concatenate([a, [7, 8, 9]])
    b2 = np.concatenate([b, [7, 8, 9]])
    y2 = np.concatenate([y, [1, 1, 0]])  # a (mistaken) 0 on an identical pair changes nothing
    cal = fit_calibrator(est, a2, b2, y2, method="beta")
    assert cal.calibrator.params == pytest.approx(BetaCalibrator().fit(raw, y).params)
    assert cal.report["n"].unique().tolist() == [100]


@pytest.mark.filterwarnings("ignore:.*perfectly separated")
def test_fit_calibrator_errors():
    est, a, b, y, raw = _study(n=40, seed=6)
    with pytest.raises(ValueError, match=r"method must be one of \['beta', 'isotonic', 'platt', "):
        fit_calibrator(est, a, b, y, method="sigmoid")
    with pytest.raises(ValueError, match="same length"):
        fit_calibrator(est, a, b[:-1], y)
    with pytest.raises(ValueError, match="human_labels must have one label per pair"):
        fit_calibrator(est, a, b, y[:-1])
    with pytest.raises(ValueError, match="human_labels must lie in"):
        fit_calibrator(est, a, b, y * 2)
    with pytest.raises(ValueError, match="labels are all equal"):
        fit_calibrator(est, a, b, np.ones(40))
    with pytest.raises(ValueError, match="cv must be an integer >= 2"):
        fit_calibrator(est, a, b, y, cv=1)
    with pytest.raises(ValueError, match="cv must be <="):
        fit_calibrator(est, a, b, y, cv=41)
    one_pos = np.zeros(40)
    one_pos[3] = 1
    with pytest.raises(ValueError, match="cv=4: cannot fit on the training part of fold"):
        fit_calibrator(est, a, b, one_pos, cv=4)
    with pytest.raises(TypeError, match="pairs_a must be a sequence"):
        fit_calibrator(est, "abc", b, y)


def test_all_calibrators_share_the_interface():
    est, a, b, y, raw = _study(n=150, seed=7)
    for cls in (BetaCalibrator, PlattCalibrator, TemperatureCalibrator, IsotonicCalibrator):
        c = cls()
        assert c.fit(raw, y) is c
        p = c.predict(raw)
        assert p.dtype == np.float64 and p.shape == raw.shape
        assert ((p >= 0) & (p <= 1)).all()
        assert np.all(np.diff(p[np.argsort(raw)]) >= -1e-12)  # monotone maps


def test_usable_as_similarity_in_agreement_coefficients():
    import softirr_stats as sis
    from softirr_stats.equivalence import Levenshtein

    lev = Levenshtein()
    a = ["heart attack", "stroke", "fever", "cough", "fatigue", "headache", "flu", "rash"]
    b = [
        "heart attacks",
        "brain stroke",
        "pyrexia",
        "coughing",
        "tiredness",
        "migraine",
        "influenza",
        "skin rash",
    ]
    y = [1, 1, 1, 1, 1, 0, 1, 1, 0, 0, 0]
    est = fit_calibrator(
        lev, a + ["fever", "rash", "cough"], b + ["cold", "asthma", "flu"], y, method="platt"
    )
    ann = sis.Annotations.from_wide(
        [
            ["heart attack", "heart attacks"],
            ["fever", "pyrexia"],
            ["cough", "cough"],
            ["rash", "skin rash"],
            ["flu", "stroke"],
        ]
    )
    vocab = list(ann.vocabulary)
    k = len(vocab)
    left = [vocab[i] for i in range(k) for _ in range(k)]
    right = [vocab[j] for _ in range(k) for j in range(k)]
    matrix = est(left, right).reshape(k, k)
    assert np.allclose(np.diag(matrix), 1.0)
    got = sis.cohen_kappa(ann, similarity=est).value
    want = sis.cohen_kappa(ann, similarity=matrix).value
    assert got == pytest.approx(want, abs=1e-12)
    assert got != pytest.approx(sis.cohen_kappa(ann, similarity=lev).value, abs=1e-3)
