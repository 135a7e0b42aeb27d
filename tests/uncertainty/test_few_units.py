"""Bootstraps over few raters or few clusters: the Student-t correction and its warning.

The correction and its thresholds were chosen by simulation (benchmarks/few_units_coverage.py,
docs/coverage.md "Few raters, few clusters"); these tests pin what the library computes against an
independent computation through the public API, and that a user cannot miss the warning.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import softirr_stats as sis
from softirr_stats.uncertainty import Bootstrap


def _ratings(n_items: int, n_raters: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    correct = rng.random((n_items, n_raters)) < rng.uniform(0.4, 0.9, n_raters)
    return np.where(correct, truth[:, None], rng.integers(0, 3, (n_items, n_raters)))


def _t_factor(units: int, level: float = 0.95) -> float:
    q = (1 + level) / 2
    return stats.t.ppf(q, units - 1) / stats.norm.ppf(q)


def _fit(labels, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sis.fleiss_kappa(sis.Annotations.from_wide(labels), ci=Bootstrap(n=300, seed=3, **kw))


def test_few_raters_warns_and_says_what_the_interval_covers():
    labels = _ratings(80, 6)
    with pytest.warns(sis.FewUnitsWarning, match=r"6 raters resampled \(fewer than 8\).*population of raters.*"
                                                  r"Student-t correction with 5 df"):
        r = sis.fleiss_kappa(sis.Annotations.from_wide(labels), ci=Bootstrap(n=200, design="items+raters", seed=0))
    assert any("6 raters resampled" in w for w in r.warnings)


def test_enough_raters_and_item_designs_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error", sis.FewUnitsWarning)
        sis.fleiss_kappa(sis.Annotations.from_wide(_ratings(60, 8)), ci=Bootstrap(n=100, design="items+raters"))
        r = sis.fleiss_kappa(sis.Annotations.from_wide(_ratings(60, 3)), ci=Bootstrap(n=100, design="items"))
    assert "few_units_factor" not in r.details


def _interaction(labels, v, v_r):
    """The interaction the two-way bootstrap's item share counts again, from the item-only replicates at the
    same seed (the same item weights): (n-1)/n (1 + (R-1)/R) E_hat (docs/coverage.md, "Few raters")."""
    n, r = labels.shape
    item = _fit(labels, design="items", method="percentile").details["replicates"]
    v_i = np.var(item, ddof=1)
    e = n * r / ((n - 1) * (r - 1)) * (v - v_i - (r - 1) / r * v_r)
    e = min(max(e, 0.0), n / (n - 1) * v_i, v_r)
    return (n - 1) / n * (1 + (r - 1) / r) * e


@pytest.mark.parametrize(("n_items", "raters", "seed"), [(120, 5, 1), (40, 3, 4)])
def test_items_plus_raters_widens_only_the_rater_share(n_items, raters, seed):
    """factor = sqrt((v_i + f^2 v_r) / v), v_r from leave-one-rater-out values computed independently, v_i the
    two-way variance less the rater share and the interaction it counts again."""
    labels = _ratings(n_items, raters, seed=seed)
    plain = _fit(labels, design="items+raters", few_units="none")
    corrected = _fit(labels, design="items+raters")
    est = plain.value
    reps = plain.details["replicates"]
    v = np.var(reps[np.isfinite(reps)], ddof=1)
    r = labels.shape[1]
    jack = np.array([sis.fleiss_kappa(sis.Annotations.from_wide(np.delete(labels, j, axis=1))).value for j in range(r)])
    v_r = min((r - 1) / r * np.sum((jack - jack.mean()) ** 2), v * r / (r - 1))
    v_i = max(v - (r - 1) / r * v_r - _interaction(labels, v, v_r), 0.0)
    factor = math.sqrt((v_i + _t_factor(r) ** 2 * v_r) / v)
    previous = math.sqrt((max(v - (r - 1) / r * v_r, 0.0) + _t_factor(r) ** 2 * v_r) / v)
    assert factor <= previous  # never wider than the rule that ignored the interaction
    if (n_items, raters) == (120, 5):
        assert factor < previous  # here the interaction is estimated above 0
    assert corrected.details["few_units_factor"] == pytest.approx(factor, rel=1e-9)
    assert corrected.ci_low == pytest.approx(est - factor * (est - plain.ci_low), abs=1e-12)
    assert corrected.ci_high == pytest.approx(min(1.0, est + factor * (plain.ci_high - est)), abs=1e-12)
    assert corrected.se == pytest.approx(factor * plain.se, rel=1e-12)
    assert 1.0 < factor < _t_factor(r) * math.sqrt(r / (r - 1))


def test_cluster_design_widens_by_t_and_the_plugin_factor():
    labels = _ratings(90, 3, seed=2)
    cluster = np.repeat(np.arange(9), 10)
    ann = sis.Annotations.from_wide(labels)
    cl = dict(zip(ann.items, cluster.tolist(), strict=True))
    with pytest.warns(sis.FewUnitsWarning, match="9 clusters resampled"):
        corrected = sis.fleiss_kappa(ann, ci=Bootstrap(n=300, design="cluster", cluster=cl, seed=3))
    plain = _fit(labels, design="cluster", cluster=cl, few_units="none")
    factor = _t_factor(9) * math.sqrt(9 / 8)
    assert corrected.details["few_units_factor"] == pytest.approx(factor, rel=1e-12)
    assert corrected.ci_low == pytest.approx(plain.value - factor * (plain.value - plain.ci_low), abs=1e-12)


def test_few_units_none_keeps_the_plain_interval_and_the_warning():
    labels = _ratings(60, 4)
    with pytest.warns(sis.FewUnitsWarning, match="4 raters resampled.*approximate$"):
        r = sis.fleiss_kappa(sis.Annotations.from_wide(labels),
                             ci=Bootstrap(n=200, design="raters", seed=0, few_units="none"))
    reps = r.details["replicates"]
    lo, hi = np.percentile(reps[np.isfinite(reps)], [2.5, 97.5])
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)


def test_few_units_option_is_validated():
    with pytest.raises(ValueError, match="few_units"):
        Bootstrap(n=100, few_units="student")


def test_correction_lifts_coverage_with_few_raters():
    """A small paired coverage check (the full study is benchmarks/few_units_coverage.py)."""
    prevalence = np.array([0.5, 0.3, 0.2])
    mu = 0.6  # acc ~ U(0.3, 0.9): the population kappa is that of two raters with accuracy 0.6
    resp = mu * np.eye(3) + (1 - mu) / 3
    p_o = float(prevalence @ (resp**2).sum(axis=1))
    q = prevalence @ resp
    truth = (p_o - q @ q) / (1 - q @ q)
    hits = {"none": 0, "t": 0}
    n_studies = 60
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in range(n_studies):
            rng = np.random.default_rng([7, s])
            c = rng.choice(3, 150, p=prevalence)
            acc = rng.uniform(0.3, 0.9, 4)
            labels = np.where(rng.random((150, 4)) < acc, c[:, None], rng.integers(0, 3, (150, 4)))
            ann = sis.Annotations.from_wide(labels)
            for mode in hits:
                r = sis.fleiss_kappa(ann, ci=Bootstrap(n=200, design="items+raters", seed=s, few_units=mode))
                hits[mode] += r.ci_low <= truth <= r.ci_high
    assert hits["t"] > hits["none"]
    assert hits["t"] / n_studies >= 0.88


def test_one_rule_for_every_caller():
    """few_units_correction is few_units_factor on the statistic's own ingredients (compare and
    calibration_error_ci call the same function), and its edge cases: no spread, no jackknife, item designs."""
    from softirr_stats.agreement import point_estimate, resolve_similarity
    from softirr_stats.uncertainty import (
        BOOTSTRAP_DESIGNS,
        bootstrap_replicates,
        few_units_correction,
        few_units_factor,
        jackknife_values,
    )

    ann = sis.Annotations.from_wide(_ratings(50, 4, seed=9))
    _, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    cfg = Bootstrap(n=200, seed=1, design="items+raters")
    rec = BOOTSTRAP_DESIGNS["items+raters"]
    reps = bootstrap_replicates(prep, cfg)["value"]
    jack = jackknife_values(prep, Bootstrap(n=200, seed=1, design="raters"))
    item = bootstrap_replicates(prep, Bootstrap(n=200, seed=1, design="items"))["value"]
    got, note = few_units_correction(prep, cfg, reps, rec, rater_jackknife=lambda: jack, item_replicates=lambda: item)
    assert got == few_units_factor(reps, rec, 4, 0.95, n_items=50, rater_jackknife=lambda: jack,
                                   item_replicates=lambda: item)
    assert note.startswith("4 raters resampled (fewer than 8)")
    whole = _t_factor(4) * math.sqrt(4 / 3)
    assert 1.0 < got < whole
    assert few_units_factor(reps, rec, 4, 0.95, n_items=50) == pytest.approx(whole, rel=1e-12)  # no jackknife
    assert few_units_factor(np.full(200, 0.5), rec, 4, 0.95) == 1.0  # no spread: nothing to widen
    assert few_units_factor(reps, BOOTSTRAP_DESIGNS["items"], 4, 0.95) == 1.0
    assert few_units_factor(reps, BOOTSTRAP_DESIGNS["raters"], 1, 0.95) == 1.0


@pytest.mark.parametrize("method", ["auto", "percentile", "basic", "bca", "bca-t"])
def test_replicate_interval_is_the_coefficients_interval(method):
    """The interval rule compare and calibration_error_ci share gives the coefficient's own interval."""
    from softirr_stats.agreement import point_estimate, resolve_similarity
    from softirr_stats.uncertainty import jackknife_values, replicate_interval

    ann = sis.Annotations.from_wide(_ratings(40, 3, seed=2))
    _, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    cfg = Bootstrap(n=300, seed=5, method=method)
    r = sis.fleiss_kappa(ann, ci=cfg)
    lo, hi, used, _, _ = replicate_interval(r.details["replicates"], r.value, cfg, lambda: jackknife_values(prep, cfg),
                                            40, n_units_given=False)
    assert (lo, hi) == (r.ci_low, r.ci_high)
    assert r.ci_method == f"bootstrap-{used}" and used == ("bca-t" if method == "auto" else method)


# ---- few items: the warning below 20 items quotes the measured coverage -------------------------------------

def _rows(n_items):
    base = [["a", "a", "b"], ["b", "b", "b"], ["a", "b", "a"], ["a", "a", "a"], ["b", "b", "a"]]
    return [base[k % 5] for k in range(n_items)]


def test_fewer_than_20_items_warn_with_the_measured_coverage():
    from softirr_stats.uncertainty import FewUnitsWarning

    with pytest.warns(FewUnitsWarning, match=r"^10 items resampled \(fewer than 20\): .* covered 51-79% at 5, "
                                             r"74-95% at 8, 83-97% at 10, 91-98% at 15 items"):
        r = sis.fleiss_kappa(_rows(10), ci=sis.Bootstrap(n=100, seed=0))
    assert any(w.startswith("10 items resampled") for w in r.warnings)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewUnitsWarning)
        r = sis.fleiss_kappa(_rows(20), ci=sis.Bootstrap(n=100, seed=0))  # 20 items: measured to hold
    assert not any("items resampled" in w for w in r.warnings)
    # no bootstrap, no bootstrap note: the delta method's own (it said nothing, where compare(ci="analytic") did)
    with pytest.warns(FewUnitsWarning, match=r"^10 items behind the delta-method interval \(fewer than 20\)"):
        a = sis.fleiss_kappa(_rows(10), ci="analytic")
    assert not any("items resampled" in w for w in a.warnings)
    with pytest.warns(FewUnitsWarning) as seen:  # clusters are counted by their own rule, not as items
        sis.fleiss_kappa(_rows(12), ci=sis.Bootstrap(n=100, seed=0, design="cluster", cluster=[k // 2 for k in range(12)]))
    assert not any("items resampled" in str(w.message) for w in seen)


def test_the_quoted_coverage_is_the_measured_one():
    """FEW_ITEMS_COVERAGE is the range of the default interval's coverage in the kept summary of the study."""
    import pathlib

    import pandas as pd

    from softirr_stats.uncertainty._few_units import FEW_ITEMS, FEW_ITEMS_COVERAGE

    root = pathlib.Path(__file__).resolve().parents[2] / "docs" / "coverage_results"
    below = pd.read_csv(root / "small_studies_below20" / "summary.csv")
    auto = below[below["method"] == "auto"]
    for n, lo, hi in FEW_ITEMS_COVERAGE:
        cov = auto.loc[auto["n_items"] == n, "coverage"]
        assert len(cov) == 8 and (round(100 * cov.min()), round(100 * cov.max())) == (lo, hi)
    at20 = pd.read_csv(root / "small_studies" / "summary.csv")
    at20 = at20[(at20["method"] == "auto") & (at20["n_items"] == FEW_ITEMS)]["coverage"]
    assert 0.93 <= at20.min() and at20.max() <= 0.98


_FEW = [["a", "a", "a"], ["b", "b", "a"], ["b", "b", "b"], ["c", "c", "c"], ["a", "b", "a"],
        ["c", "c", "b"], ["a", "a", "a"], ["b", "c", "b"], ["c", "c", "c"], ["a", "a", "b"]]


@pytest.mark.parametrize("call", [
    lambda: sis.fleiss_kappa(_FEW, ci=Bootstrap(n=200, seed=0)),
    lambda: sis.krippendorff_alpha(_FEW, ci=Bootstrap(n=200, seed=0)),
    lambda: sis.cohen_kappa([["a", "a"], ["b", "b"], ["a", "b"]], ci=Bootstrap(n=200, seed=0)),
    lambda: sis.sensitivity(_FEW, coefficients=["fleiss_kappa"], similarities=[None], ci=Bootstrap(n=200, seed=0)),
], ids=["fleiss", "alpha", "cohen-degenerate-replicates", "sensitivity"])
def test_bootstrap_warnings_point_at_the_users_call(call):
    """FewUnitsWarning and the degenerate-replicates DegenerateWarning name the caller's line, not the library's."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    ours = [w for w in caught if w.category.__module__.startswith("softirr_stats")]
    assert ours and all(w.filename == __file__ for w in ours), [(w.filename, w.lineno) for w in ours]


def _stratified_clusters(seed: int, **kw):
    """60 items in 10 clusters of 6, the clusters in 5 strata of 2 (strata without an effect)."""
    ann = sis.Annotations.from_wide(_ratings(60, 4, seed))
    cluster = np.repeat(np.arange(10), 6).tolist()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return sis.fleiss_kappa(ann, ci=Bootstrap(n=1000, design="cluster", cluster=cluster, seed=seed, **kw))


def test_stratified_cluster_widening_accounts_for_the_strata():
    # drawing 2 clusters within each stratum halves the bootstrap variance ((n_h - 1) / n_h), where the
    # unstratified one keeps 9/10 of it: the widening was t_9 / z * sqrt(10 / 9) either way, so the stratified
    # interval was about sqrt(0.556) of the unstratified one; now t_5 / z * sqrt(10 / 5) undoes the deflation
    strata = np.repeat(np.arange(5), 12).tolist()
    ratios = []
    for seed in range(6):
        s, u = _stratified_clusters(seed, strata=strata), _stratified_clusters(seed)
        assert u.details["few_units_factor"] == pytest.approx(_t_factor(10) * math.sqrt(10 / 9), rel=1e-12)
        assert s.details["few_units_factor"] == pytest.approx(_t_factor(6) * math.sqrt(2), rel=1e-12)
        ratios.append((s.ci_high - s.ci_low) / (u.ci_high - u.ci_low))
    assert 0.9 < np.mean(ratios) < 1.25
    assert any("within 5 strata" in n for n in s.notes)


def test_stratified_few_units_rule():
    from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS, few_units_factor, stratified_few_units

    # Satterthwaite with equal per-unit shares: U^2 / sum n_h^2 / (n_h - 1); variance ratio U / (U - H)
    dof, ratio = stratified_few_units(np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 2]))
    assert dof == pytest.approx(100 / (4 / 1 + 9 / 2 + 25 / 4), rel=1e-12) and ratio == pytest.approx(10 / 7)
    reps = np.random.default_rng(0).normal(size=300)
    rec = BOOTSTRAP_DESIGNS["cluster"]
    q = stats.norm.ppf(0.975)
    got = few_units_factor(reps, rec, 10, 0.95, unit_strata=np.array([0, 0, 1, 1, 1, 2, 2, 2, 2, 2]))
    assert got == pytest.approx(stats.t.ppf(0.975, dof) / q * math.sqrt(10 / 7), rel=1e-12)
    one = few_units_factor(reps, rec, 10, 0.95, unit_strata=np.zeros(10, dtype=int))  # one stratum: unchanged
    assert one == few_units_factor(reps, rec, 10, 0.95) == _t_factor(10) * math.sqrt(10 / 9)


def test_few_stratified_clusters_warn_with_the_strata_rule():
    ann = sis.Annotations.from_wide(_ratings(48, 3, seed=4))
    cluster, strata = np.repeat(np.arange(8), 6).tolist(), np.repeat(np.arange(4), 12).tolist()
    with pytest.warns(sis.FewUnitsWarning, match=r"8 clusters resampled.*Student-t correction with 4 df and the "
                                                  r"variance ratio U / \(U - H\) = 2 of 4 strata applied"):
        r = sis.fleiss_kappa(ann, ci=Bootstrap(n=200, design="cluster", cluster=cluster, strata=strata, seed=0))
    assert r.details["few_units_factor"] == pytest.approx(_t_factor(5) * math.sqrt(2), rel=1e-12)


def test_item_bootstrap_with_small_strata_says_it_is_too_narrow():
    ann = sis.Annotations.from_wide(_ratings(30, 3, seed=5))
    with pytest.warns(sis.FewUnitsWarning, match=r"15 of 15 strata have fewer than 5 items \(smallest 2\).*1/2 of"):
        r = sis.fleiss_kappa(ann, ci=Bootstrap(n=200, strata=np.repeat(np.arange(15), 2).tolist(), seed=0))
    assert "few_units_factor" not in r.details  # said, not widened
    with pytest.warns(sis.FewUnitsWarning, match=r"1/3 of it in a stratum of 2"):  # Dirichlet weights: (n-1)/(n+1)
        sis.fleiss_kappa(ann, ci=Bootstrap(n=200, design="bayesian", strata=np.repeat(np.arange(15), 2).tolist()))
    with warnings.catch_warnings():
        warnings.simplefilter("error", sis.FewUnitsWarning)  # strata of 10 items: nothing to say
        sis.fleiss_kappa(ann, ci=Bootstrap(n=200, strata=np.repeat(np.arange(3), 10).tolist(), seed=0))
