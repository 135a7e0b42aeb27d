"""``calibration_error_ci`` takes the coefficients' interval rules: ``method="auto"`` and the few-clusters widening.

One rule for every bootstrap interval of the package (``uncertainty.replicate_interval`` and
``uncertainty.few_units_correction``); the calibration check behind ``auto`` is
benchmarks/calibration_interval_coverage.py (docs/coverage.md, "Calibration metrics").
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import softirr_stats as sis
from softirr_stats import Bootstrap
from softirr_stats.calibration import BinnedMetricWarning, calibration_error_ci


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(size=n)
    return s, (rng.uniform(size=n) < s**1.5).astype(float)


@pytest.mark.parametrize("metric", ["brier", "ece"])
def test_auto_is_the_coefficients_rule(metric):
    s, y = _data(150, seed=1)
    auto = calibration_error_ci(s, y, metric=metric, ci=Bootstrap(n=300, seed=2))
    bca_t = calibration_error_ci(s, y, metric=metric, ci=Bootstrap(n=300, seed=2, method="bca-t"))
    assert auto.method == "bca-t"
    assert (auto.ci_low, auto.ci_high) == (bca_t.ci_low, bca_t.ci_high)
    pct = calibration_error_ci(s, y, metric=metric, ci=Bootstrap(n=300, seed=2, method="percentile"))
    assert (auto.ci_low, auto.ci_high) != (pct.ci_low, pct.ci_high)
    big = calibration_error_ci(*_data(1200, seed=3), metric=metric, ci=Bootstrap(n=100, seed=2))
    assert big.method == "percentile"  # above 1000 pairs: the jackknife is skipped, as for the coefficients
    assert big.ci_low == pytest.approx(np.percentile(big.replicates, 2.5))


def test_few_clusters_widen_the_interval_and_warn():
    s, y = _data(120, seed=4)
    cluster = np.repeat(np.arange(6), 20).tolist()
    with pytest.warns(sis.FewUnitsWarning, match=r"6 clusters resampled \(fewer than 10\).*5 df"):
        r = calibration_error_ci(s, y, metric="brier", ci=Bootstrap(n=400, seed=1, design="cluster", cluster=cluster))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sis.FewUnitsWarning)
        plain = calibration_error_ci(s, y, metric="brier", ci=Bootstrap(n=400, seed=1, design="cluster",
                                                                          cluster=cluster, few_units="none"))
    assert r.method == plain.method == "basic"
    factor = stats.t.ppf(0.975, 5) / stats.norm.ppf(0.975) * math.sqrt(6 / 5)
    est = r.estimate
    assert r.ci_low == pytest.approx(est - factor * (est - plain.ci_low), abs=1e-12)
    assert r.ci_high == pytest.approx(est + factor * (plain.ci_high - est), abs=1e-12)
    assert r.se == pytest.approx(factor * plain.se, rel=1e-12)
    # the factor is on the result, as details["few_units_factor"] is on a coefficient's
    assert r.few_units_factor == pytest.approx(factor, rel=1e-12) and plain.few_units_factor == 1.0
    assert r.to_dict()["few_units_factor"] == r.few_units_factor
    # ten clusters or more: no widening, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", sis.FewUnitsWarning)
        many = calibration_error_ci(s, y, metric="brier",
                                    ci=Bootstrap(n=400, seed=1, design="cluster", cluster=[i // 10 for i in range(120)]))
    assert many.method == "basic"


def test_a_bca_fallback_is_said_not_dropped(monkeypatch):
    """replicate_interval's note (BCa undefined: the percentile interval used) becomes a warning."""
    from softirr_stats.calibration import _interval

    real = _interval.replicate_interval

    def fallback(*args, **kwargs):
        lo, hi, method, _, details = real(*args, **kwargs)
        return lo, hi, method, "BCa undefined (all replicates on one side of the estimate): percentile interval used", \
            details

    monkeypatch.setattr(_interval, "replicate_interval", fallback)
    s, y = _data(60, seed=3)
    with pytest.warns(sis.DegenerateWarning, match=r"calibration_error_ci \(brier\): BCa undefined"):
        calibration_error_ci(s, y, metric="brier", ci=Bootstrap(n=200, seed=0))


@pytest.mark.parametrize("metric", ["ece", "mce"])
def test_a_binned_metric_interval_warns_that_it_is_no_confidence_interval(metric):
    rng = np.random.default_rng(3)
    s = rng.uniform(size=60)
    y = (rng.uniform(size=60) < s).astype(float)
    with pytest.warns(BinnedMetricWarning, match=rf"the {metric} interval is the spread of a biased plug-in.*"
                                                 r"covered 0-79% at 20-100 pairs.*metric='brier'"):
        calibration_error_ci(s, y, metric=metric, ci=Bootstrap(n=50, seed=0))


@pytest.mark.parametrize("metric", ["brier", "log_loss", "debiased_l2"])
def test_the_other_metrics_intervals_do_not_warn_so(metric):
    rng = np.random.default_rng(3)
    s = rng.uniform(0.05, 0.95, size=60)
    y = (rng.uniform(size=60) < s).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("error", BinnedMetricWarning)
        calibration_error_ci(s, y, metric=metric, ci=Bootstrap(n=50, seed=0))
