"""Calibration metrics: sklearn parity, hand computations, bootstrap = loop reference."""

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss

import softirr_stats.calibration._metrics as metrics_mod
from softirr_stats import Bootstrap
from softirr_stats.calibration import (
    CalibrationInterval,
    CalibrationStatistic,
    brier_score,
    calibration_error_ci,
    debiased_l2_calibration_error,
    expected_calibration_error,
    log_loss,
    maximum_calibration_error,
    plot_reliability_diagram,
    reliability_diagram,
)
from softirr_stats.uncertainty import resolve_method

S9 = np.array([0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0])
Y9 = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1], dtype=float)


def _data(n=400, seed=0, ties=False):
    rng = np.random.default_rng(seed)
    s = rng.beta(0.7, 0.9, n)
    if ties:  # scores on a coarse grid, plus exact bin edges and the interval ends
        s = np.round(s, 1)
        s[:5] = [0.0, 0.1, 0.5, 0.9, 1.0]
    y = (rng.uniform(size=n) < s**1.3).astype(float)
    return s, y


# --------------------------------------------------------------------- sklearn parity
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("bins", [1, 3, 10, 15])
@pytest.mark.parametrize("ties", [False, True])
def test_bin_means_match_sklearn_exactly(strategy, bins, ties):
    s, y = _data(ties=ties, seed=bins)
    prob_true, prob_pred = calibration_curve(y, s, n_bins=bins, strategy=strategy)
    table = reliability_diagram(s, y, bins=bins, strategy=strategy)
    np.testing.assert_array_equal(table["mean_label"].to_numpy(), prob_true)
    np.testing.assert_array_equal(table["mean_score"].to_numpy(), prob_pred)
    assert table["count"].sum() == s.size


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_ece_equals_weighted_gap_of_sklearn_curve(strategy):
    s, y = _data(n=1000, seed=3, ties=True)
    prob_true, prob_pred = calibration_curve(y, s, n_bins=10, strategy=strategy)
    counts = reliability_diagram(s, y, 10, strategy)["count"].to_numpy()
    gaps = np.abs(prob_true - prob_pred)
    ece = expected_calibration_error(s, y, 10, strategy)
    assert ece == pytest.approx(np.sum(counts * gaps) / s.size, abs=1e-15)
    ece2 = expected_calibration_error(s, y, 10, strategy, p=2)
    assert ece2 == pytest.approx(np.sqrt(np.sum(counts * gaps**2) / s.size), abs=1e-15)
    mce = maximum_calibration_error(s, y, 10, strategy)
    assert mce == pytest.approx(gaps.max(), abs=1e-15)
    assert expected_calibration_error(s, y, 10, strategy, p=np.inf) == mce


def test_hand_computed_values():
    # bins [0,1/3], (1/3,2/3], (2/3,1]: {.1,.2,.3} {.4,.65} {.7,.8,.9,1}
    assert expected_calibration_error(S9, Y9, bins=3) == pytest.approx(1.25 / 9, abs=1e-15)
    assert maximum_calibration_error(S9, Y9, bins=3) == pytest.approx(0.2, abs=1e-15)
    # debiased: bin 2 has ybar=.5, n=2 -> variance .25 / 1
    sq = (3 * 0.04 + 2 * (0.025**2 - 0.25) + 4 * 0.15**2) / 9
    got = debiased_l2_calibration_error(S9, Y9, bins=3, strategy="uniform", squared=True)
    assert got == pytest.approx(sq, abs=1e-15)
    assert debiased_l2_calibration_error(S9, Y9, bins=3, strategy="uniform") == 0.0  # clipped
    # the lowest bin is closed on the left, the others on the right: 1/3 goes to bin 0
    t = reliability_diagram([0.0, 1 / 3, 0.5, 1.0], [0, 0, 1, 1], bins=3)
    assert t["bin"].tolist() == [0, 1, 2] and t["count"].tolist() == [2, 1, 1]


def test_fractional_labels_hand_computed():
    s = np.array([0.2, 0.3, 0.7, 0.8])
    y = np.array([0.5, 0.0, 1.0, 0.75])
    # 2 uniform bins: {.2,.3} mean .25 ybar .25 ; {.7,.8} mean .75 ybar .875
    assert expected_calibration_error(s, y, bins=2) == pytest.approx(0.5 * 0 + 0.5 * 0.125)
    # debiased: bin variance of the mean = sample var (ddof=1) / n_b
    v1 = np.var([0.5, 0.0], ddof=1) / 2
    v2 = np.var([1.0, 0.75], ddof=1) / 2
    want = 0.5 * (0.0 - v1) + 0.5 * (0.125**2 - v2)
    got = debiased_l2_calibration_error(s, y, bins=2, strategy="uniform", squared=True)
    assert got == pytest.approx(want, abs=1e-15)


def _kumar_unbiased_square_ce(binned):
    """Port of unbiased_square_ce from p-lambda/verified_calibration (calibration/utils.py)."""
    n = sum(len(b) for b in binned)
    total = 0.0
    for data in binned:
        if len(data) < 2:
            continue
        data = np.asarray(data)
        biased = abs(data[:, 0].mean() - data[:, 1].mean()) ** 2
        m = data[:, 1].mean()
        total += len(data) / n * (biased - m * (1.0 - m) / (len(data) - 1.0))
    return total


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_debiased_matches_kumar_reference(strategy):
    s, y = _data(n=300, seed=7)
    edges = metrics_mod.bin_edges(s, 15, strategy)
    ids = np.searchsorted(edges[1:-1], s)
    binned = [list(zip(s[ids == b], y[ids == b], strict=True)) for b in range(15)]
    want = _kumar_unbiased_square_ce(binned)
    got = debiased_l2_calibration_error(s, y, 15, strategy, squared=True)
    assert got == pytest.approx(want, abs=1e-14)
    assert debiased_l2_calibration_error(s, y, 15, strategy) == pytest.approx(
        np.sqrt(max(want, 0.0)), abs=1e-12
    )


def test_debiased_is_less_biased_than_plugin_on_calibrated_data():
    rng = np.random.default_rng(11)
    s = rng.uniform(size=(200, 100))
    y = (rng.uniform(size=s.shape) < s).astype(float)
    plug = [
        expected_calibration_error(a, b, 10, "quantile", p=2) ** 2
        for a, b in zip(s, y, strict=True)
    ]
    deb = [
        debiased_l2_calibration_error(a, b, 10, "quantile", squared=True)
        for a, b in zip(s, y, strict=True)
    ]
    # the truth is 0: the plug-in squared CE is biased upwards by ~ E[var]/n_b, the debiased one is not
    assert np.mean(plug) > 0.01
    assert abs(np.mean(deb)) < 3 * np.std(deb) / np.sqrt(len(deb)) + 1e-3


def test_brier_and_log_loss_match_sklearn():
    s, y = _data(n=200, seed=5)
    assert brier_score(s, y) == pytest.approx(brier_score_loss(y, s), abs=1e-15)
    s2 = np.clip(s, 1e-6, 1 - 1e-6)
    assert log_loss(s2, y) == pytest.approx(sk_log_loss(y, s2), rel=1e-12)
    assert brier_score([1.0, 0.0], [1, 0]) == 0.0


def test_reliability_diagram_table():
    s, y = _data(n=500, seed=2)
    t = reliability_diagram(s, y, bins=7, strategy="quantile")
    assert list(t.columns) == ["bin", "lower", "upper", "count", "mean_score", "mean_label"]
    assert isinstance(t, pd.DataFrame)
    assert (t["lower"] <= t["mean_score"] + 1e-15).all()
    assert (t["mean_score"] <= t["upper"] + 1e-15).all()
    assert t["count"].sum() == 500
    np.testing.assert_allclose(t["lower"].iloc[0], s.min())
    np.testing.assert_allclose(t["upper"].iloc[-1], s.max())


def test_empty_bins_are_dropped_and_ties_collapse_quantile_bins():
    s = np.array([0.05] * 6 + [0.95] * 4)
    y = np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 0], dtype=float)
    t = reliability_diagram(s, y, bins=10)
    assert t["bin"].tolist() == [0, 9]
    q = reliability_diagram(s, y, bins=4, strategy="quantile")
    assert q["count"].sum() == 10 and len(q) == 2
    want = (6 * abs(1 / 6 - 0.05) + 4 * abs(0.75 - 0.95)) / 10
    assert expected_calibration_error(s, y, 4, "quantile") == pytest.approx(want)


def test_plot_returns_axes_with_the_table():
    import matplotlib.pyplot as plt

    s, y = _data(n=300, seed=9)
    ax = plot_reliability_diagram(s, y, bins=8, strategy="quantile", label="raw")
    t = reliability_diagram(s, y, bins=8, strategy="quantile")
    curve = ax.get_lines()[1]
    np.testing.assert_array_equal(curve.get_xdata(), t["mean_score"].to_numpy())
    np.testing.assert_array_equal(curve.get_ydata(), t["mean_label"].to_numpy())
    assert "ECE" in curve.get_label()
    fig, ax2 = plt.subplots()
    assert plot_reliability_diagram(s, y, ax=ax2, show_counts=False) is ax2
    plt.close("all")


# ------------------------------------------------------------------------ validation
@pytest.mark.parametrize(
    ("scores", "labels", "match"),
    [
        ([0.1, 1.2], [0, 1], "scores must lie in \\[0, 1\\]"),
        ([0.1, -0.01], [0, 1], "scores must lie in \\[0, 1\\]"),
        ([0.1, np.nan], [0, 1], "scores must be finite"),
        ([0.1, 0.2], [0, 2], "labels must lie in \\[0, 1\\]"),
        ([0.1, 0.2], [0, np.nan], "labels must be finite"),
        ([0.1, 0.2, 0.3], [0, 1], "same length; got 3 and 2"),
        ([], [], "scores must not be empty"),
        ([[0.1, 0.2]], [[0, 1]], "scores must be 1-D"),
    ],
)
def test_bad_inputs_raise_naming_the_argument(scores, labels, match):
    with pytest.raises(ValueError, match=match):
        expected_calibration_error(scores, labels)


def test_bad_options_raise():
    with pytest.raises(ValueError, match=r"strategy must be one of \['quantile', 'uniform'\]"):
        expected_calibration_error([0.1], [0], strategy="equal")
    with pytest.raises(ValueError, match="bins must be an integer >= 1"):
        expected_calibration_error([0.1], [0], bins=0)
    with pytest.raises(TypeError, match="bins"):
        reliability_diagram([0.1], [0], bins=2.5)
    with pytest.raises(ValueError, match="p must be"):
        expected_calibration_error([0.1], [0], p=0.5)
    with pytest.raises(ValueError, match=r"metric must be one of \['brier', 'debiased_l2'"):
        calibration_error_ci([0.1, 0.2], [0, 1], metric="ace")
    with pytest.raises(ValueError, match="level"):
        calibration_error_ci([0.1, 0.2], [0, 1], ci=Bootstrap(level=95))
    with pytest.raises(TypeError, match="scores"):
        brier_score(["a", "b"], [0, 1])


# ------------------------------------------------------------------------- bootstrap
def _loop_reference(s, y, weights, metric, bins, strategy, p):
    """The point function on each explicitly resampled data set."""
    out = []
    for w in weights:
        idx = np.repeat(np.arange(s.size), w)
        ss, yy = s[idx], y[idx]
        if metric == "ece":
            out.append(expected_calibration_error(ss, yy, bins, strategy, p=p))
        elif metric == "mce":
            out.append(maximum_calibration_error(ss, yy, bins, strategy))
        elif metric == "debiased_l2":
            out.append(debiased_l2_calibration_error(ss, yy, bins, strategy, squared=True))
        elif metric == "brier":
            out.append(brier_score(ss, yy))
        else:
            out.append(log_loss(ss, yy))
    return np.array(out)


@pytest.mark.parametrize("metric", ["ece", "mce", "debiased_l2", "brier", "log_loss"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_vectorised_bootstrap_equals_loop_over_resamples(metric, strategy):
    from softirr_stats.uncertainty import draw_weights

    s, y = _data(n=120, seed=4, ties=True)
    cfg = Bootstrap(n=60, seed=3)
    r = calibration_error_ci(s, y, metric=metric, bins=6, strategy=strategy, p=1, ci=cfg)
    stat = CalibrationStatistic(metric, s, y, 6, strategy, 1.0)
    weights, _, _ = draw_weights(stat, cfg, 0, cfg.n)  # the package's bootstrap: column j = item j
    want = _loop_reference(s, y, weights.astype(int), metric, 6, strategy, 1.0)
    np.testing.assert_allclose(r.replicates, want, rtol=1e-10, atol=1e-13)
    assert r.estimate == pytest.approx(
        _loop_reference(s, y, [np.ones(s.size, int)], metric, 6, strategy, 1.0)[0], abs=1e-15
    )


@pytest.mark.parametrize("metric", ["ece", "mce", "debiased_l2", "brier", "log_loss"])
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
def test_cluster_bootstrap_equals_loop_over_resamples(metric, strategy):
    """Clusters of unequal size: a resample's size varies, and every replicate still equals the
    metric on the explicitly resampled pairs (quantile edges, means and sums per resample)."""
    from softirr_stats.uncertainty import draw_weights

    s, y = _data(n=90, seed=5, ties=True)
    cluster = np.repeat(np.arange(30), np.tile([1, 3, 5], 10))[:90]
    cfg = Bootstrap(n=40, seed=2, design="cluster", cluster=cluster.tolist())
    r = calibration_error_ci(s, y, metric=metric, bins=5, strategy=strategy, ci=cfg)
    weights, _, _ = draw_weights(CalibrationStatistic(metric, s, y, 5, strategy, 1.0), cfg, 0, cfg.n)
    assert len(set(weights.sum(axis=1))) > 1  # resample sizes differ
    want = _loop_reference(s, y, weights.astype(int), metric, 5, strategy, 1.0)
    np.testing.assert_allclose(r.replicates, want, rtol=1e-10, atol=1e-13)


def test_bootstrap_is_chunk_invariant_and_seeded():
    s, y = _data(n=150, seed=8)
    a = calibration_error_ci(s, y, strategy="quantile", ci=Bootstrap(n=100, seed=5))
    b = calibration_error_ci(s, y, strategy="quantile", ci=Bootstrap(n=100, seed=5, chunk_size=7))
    np.testing.assert_array_equal(a.replicates, b.replicates)
    c = calibration_error_ci(s, y, strategy="quantile", ci=Bootstrap(n=100, seed=6))
    assert not np.array_equal(a.replicates, c.replicates)


def test_bootstrap_interval_fields_and_coverage_sanity():
    s, y = _data(n=800, seed=12)
    r = calibration_error_ci(s, y, strategy="quantile", ci=Bootstrap(n=1000, seed=0, level=0.9, method="percentile"))
    assert isinstance(r, CalibrationInterval)
    assert r.ci_low <= r.estimate <= r.ci_high
    assert r.level == 0.9 and r.n_boot == 1000 and r.n == 800
    assert r.ci_low == pytest.approx(np.quantile(r.replicates, 0.05))
    assert r.se == pytest.approx(np.std(r.replicates, ddof=1))
    frame = r.to_frame()
    assert list(frame.columns) == [
        "metric",
        "estimate",
        "ci_low",
        "ci_high",
        "se",
        "level",
        "n_boot",
        "n",
        "bins",
        "strategy",
        "method",
        "design",
        "seed",
        "few_units_factor",
    ]
    # identical items: every resample is the data itself -> a zero-width interval
    z = calibration_error_ci([0.3] * 20, [0.5] * 20, ci=Bootstrap(n=50))
    assert z.ci_high - z.ci_low < 1e-12 and z.ci_low == pytest.approx(0.2)


def test_the_default_interval_and_no_old_arguments():
    s, y = _data(n=100, seed=2)
    default = calibration_error_ci(s, y)
    assert (default.n_boot, default.seed, default.level, default.method) == (1000, 0, 0.95, "bca-t")  # <= 1000 pairs
    with pytest.raises(TypeError, match="n_boot"):  # the unreleased n_boot= / seed= / level= are gone
        calibration_error_ci(s, y, n_boot=80)


def test_ci_designs_methods_and_bad_requests():
    s, y = _data(n=120, seed=6)
    for cfg in (Bootstrap(n=100, method="bca"), Bootstrap(n=100, method="basic"),
                Bootstrap(n=100, design="cluster", cluster=[i // 3 for i in range(120)]),
                Bootstrap(n=100, design="bayesian"), Bootstrap(n=100, strata=[i % 2 for i in range(120)])):
        r = calibration_error_ci(s, y, ci=cfg)
        used = resolve_method(cfg.method, cfg.design, 120)[0]  # the coefficients' rule: bca-t, basic for clusters
        assert r.ci_low <= r.ci_high and (r.method, r.design) == (used, cfg.design)
    with pytest.raises(ValueError, match="no judged label pairs"):
        calibration_error_ci(s, y, ci=Bootstrap(n=100, design="judged"))
    t = calibration_error_ci(s, y, ci=Bootstrap(n=100, method="bca-t"))
    b = calibration_error_ci(s, y, ci=Bootstrap(n=100, method="bca"))
    assert t.method == "bca-t" and t.ci_low <= b.ci_low and t.ci_high >= b.ci_high  # t quantiles widen BCa
    with pytest.raises(ValueError, match="ci must be None or softirr_stats.Bootstrap"):
        calibration_error_ci(s, y, ci="analytic")
    with pytest.raises(ValueError, match="ci must be None"):
        calibration_error_ci(s, y, ci=1000)
    with pytest.raises(ValueError, match="not supported here: calibration resamples scored pairs"):
        calibration_error_ci(s, y, ci=Bootstrap(n=100, design="raters"))
    with pytest.raises(ValueError, match="whole multiplicities"):
        calibration_error_ci(s, y, strategy="quantile", ci=Bootstrap(n=100, design="bayesian"))
    with pytest.raises(ValueError, match="judged"):
        calibration_error_ci(s, y, ci=Bootstrap(n=100, design="judged"))


# ----------------------------------------------------------------- property-based
_unit = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.7, 0.9, 1.0]) | st.floats(0, 1)


@given(
    pairs=st.lists(st.tuples(_unit, st.sampled_from([0.0, 1.0])), min_size=1, max_size=60),
    bins=st.integers(1, 12),
    strategy=st.sampled_from(["uniform", "quantile"]),
    seed=st.integers(0, 2**16),
)
def test_property_sklearn_parity_and_order_invariance(pairs, bins, strategy, seed):
    s = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    prob_true, prob_pred = calibration_curve(y, s, n_bins=bins, strategy=strategy)
    t = reliability_diagram(s, y, bins, strategy)
    np.testing.assert_array_equal(t["mean_label"].to_numpy(), prob_true)
    np.testing.assert_array_equal(t["mean_score"].to_numpy(), prob_pred)
    perm = np.random.default_rng(seed).permutation(s.size)
    e1 = expected_calibration_error(s, y, bins, strategy)
    assert 0.0 <= e1 <= maximum_calibration_error(s, y, bins, strategy) + 1e-15
    assert expected_calibration_error(s[perm], y[perm], bins, strategy) == pytest.approx(
        e1, abs=1e-12
    )
