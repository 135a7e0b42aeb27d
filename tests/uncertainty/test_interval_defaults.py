"""The default interval method (``method="auto"``) and the labelled tests of agreement (issue 34)."""

import numpy as np
import pytest
from scipy import stats

import softirr_stats as sis
from softirr_stats.agreement import point_estimate, resolve_similarity
from softirr_stats.uncertainty import (
    Bootstrap,
    bca_interval,
    bootstrap_replicates,
    jackknife_values,
)
from softirr_stats.uncertainty._intervals import AUTO_BCA_MAX_UNITS, resolve_method, t_level


def _rows(n, raters=3, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    noise = rng.integers(0, 3, (n, raters))
    return np.where(rng.random((n, raters)) < 0.7, truth[:, None], noise).tolist()


def test_t_level_matches_the_student_t_quantile():
    for n in (3, 5, 20, 300):
        lvl = t_level(0.95, n)
        assert stats.norm.ppf((1 + lvl) / 2) == pytest.approx(stats.t.ppf(0.975, n - 1), rel=1e-10)
    assert t_level(0.9, 1) == 0.9  # one unit: no t quantile, the level unchanged


def test_auto_rule_by_design_and_size():
    assert resolve_method("auto", "items", 20)[0] == "bca-t"
    assert resolve_method("auto", "bayesian", AUTO_BCA_MAX_UNITS)[0] == "bca-t"
    assert resolve_method("auto", "items", AUTO_BCA_MAX_UNITS + 1)[0] == "percentile"
    for design in ("raters", "items+raters", "judged"):
        assert resolve_method("auto", design, 20)[0] == "percentile"
    assert resolve_method("auto", "cluster", 8)[0] == "basic"
    assert resolve_method("bca", "items", 20) == ("bca", "")


def test_default_at_20_items_is_bca_with_t_quantiles_from_the_same_replicates():
    ann = sis.Annotations.from_wide(_rows(20))
    r = sis.fleiss_kappa(ann, ci=Bootstrap(n=300, seed=5))
    assert r.ci_method == "bootstrap-bca-t" and "BCa with t quantiles, 19 df" in r.details["interval_rule"]
    res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    cfg = Bootstrap(n=300, seed=5, method="bca")
    reps = bootstrap_replicates(prep, cfg)["value"]
    np.testing.assert_array_equal(reps, r.details["replicates"])  # the replicates do not depend on the method
    lo, hi, _ = bca_interval(reps, res.value, jackknife_values(prep, cfg), t_level(0.95, 20))
    assert (r.ci_low, r.ci_high) == (lo, hi)
    explicit = sis.fleiss_kappa(ann, ci=Bootstrap(n=300, seed=5, method="bca-t"))
    assert (explicit.ci_low, explicit.ci_high) == (lo, hi) and "interval_rule" not in explicit.details
    bca = sis.fleiss_kappa(ann, ci=cfg)
    assert bca.ci_low >= lo and bca.ci_high <= hi  # t quantiles widen BCa


def test_default_keeps_percentile_for_rater_designs_and_many_items():
    ann = sis.Annotations.from_wide(_rows(30, raters=4))
    r = sis.krippendorff_alpha(ann, ci=Bootstrap(n=100, seed=1, design="items+raters", few_units="none"))
    p = sis.krippendorff_alpha(ann, ci=Bootstrap(n=100, seed=1, design="items+raters", method="percentile",
                                                 few_units="none"))
    assert r.ci_method == "bootstrap-percentile" and (r.ci_low, r.ci_high) == (p.ci_low, p.ci_high)
    big = sis.fleiss_kappa(_rows(AUTO_BCA_MAX_UNITS + 1), ci=Bootstrap(n=50, seed=0))
    assert big.ci_method == "bootstrap-percentile"


def test_bca_ties_with_the_estimate_up_to_rounding_count_as_ties():
    reps = np.array([0.1, 0.2, 0.3 + 1e-16, 0.4, 0.5])
    a = bca_interval(reps, 0.3, np.array([0.2, 0.3, 0.4]), 0.9)
    b = bca_interval(np.where(np.isclose(reps, 0.3), 0.3, reps), 0.3, np.array([0.2, 0.3, 0.4]), 0.9)
    assert a == b


@pytest.mark.parametrize("fn", [sis.cohen_kappa, sis.fleiss_kappa, sis.krippendorff_alpha, sis.gwet_ac1])
def test_two_items_give_the_replicates_range_not_a_numpy_error(fn):
    # bca-t at 2 items takes t_1's quantile, whose level rounds to 1: the interval is the replicates' range
    # (numpy raised "Percentiles must be in the range [0, 100]" before)
    data = [["a", "b"], ["a", "a"]]
    with pytest.warns(sis.FewUnitsWarning):
        r = fn(data, ci=sis.Bootstrap(n=200, seed=0))
    assert r.ci_method == "bootstrap-bca-t"
    reps = np.asarray(r.details["replicates"])
    reps = reps[np.isfinite(reps)]
    assert (r.ci_low, r.ci_high) == (reps.min(), reps.max())


def test_analytic_test_is_labelled_and_has_a_one_sided_p_value():
    rows = _rows(40)
    r = sis.fleiss_kappa(rows, ci="analytic")  # complete data: Fleiss, Nee & Landis (1979), normal
    assert r.details["test"].startswith("analytic test of H0: coefficient = 0 (two-sided)")
    assert "not a test of 'no agreement beyond chance'" in r.details["test_hypothesis"]
    assert r.details["p_value_greater"] == pytest.approx(stats.norm.sf(r.z), rel=1e-12)
    rows[0][0] = None  # missing rating: irrCAC's convention, Student t
    m = sis.fleiss_kappa(rows, ci="analytic")
    df = int(m.details["test"].split("(")[-1].split()[0])
    assert m.details["p_value_greater"] == pytest.approx(stats.t.sf(m.z, df), rel=1e-12)


def test_permutation_test_one_sided_p_value_and_hypothesis():
    r = sis.permutation_test("fleiss_kappa", _rows(40), n=199, seed=2)
    # strong agreement: no permuted value reaches the observed one, so P_upper = (0 + 1/2) / 200
    assert r.details["p_value_greater"] == pytest.approx(0.5 / 200) and r.p_value == pytest.approx(2 * 0.5 / 200)
    assert r.details["test_hypothesis"].startswith("no agreement beyond chance")


def test_independent_raters_with_unequal_marginals_the_permutation_test_rejects_less():
    # raters who favour different categories: Fleiss' kappa is negative; the analytic two-sided test rejects
    # "coefficient = 0", the permutation test (H0: independence) does not
    rng = np.random.default_rng(0)
    m = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], [0.1, 0.1, 0.7, 0.1], [0.1, 0.1, 0.1, 0.7]])
    lab = np.stack([rng.choice(4, 400, p=p) for p in m], axis=1).tolist()
    a = sis.fleiss_kappa(lab, ci="analytic")
    p = sis.permutation_test("fleiss_kappa", lab, n=199, seed=0)
    assert a.value < 0 and a.p_value < 0.01 and a.details["p_value_greater"] > 0.5
    assert p.p_value > 0.05


def test_default_cluster_interval_is_the_widened_basic_interval():
    rows = _rows(60, raters=4, seed=3)
    cluster = [i // 5 for i in range(60)]  # 12 clusters
    r = sis.fleiss_kappa(rows, ci=Bootstrap(n=200, seed=2, design="cluster", cluster=cluster))
    b = sis.fleiss_kappa(rows, ci=Bootstrap(n=200, seed=2, design="cluster", cluster=cluster, method="basic"))
    p = sis.fleiss_kappa(rows, ci=Bootstrap(n=200, seed=2, design="cluster", cluster=cluster, method="percentile"))
    assert r.ci_method == "bootstrap-basic" and (r.ci_low, r.ci_high) == (b.ci_low, b.ci_high)
    assert r.details["few_units_factor"] == p.details["few_units_factor"] > 1  # the same widening as before
    # the basic interval is the percentile one reflected about the estimate
    assert r.ci_high - r.value == pytest.approx(r.value - p.ci_low, abs=1e-12)


def test_prediction_powered_estimates_keep_the_percentile_interval_under_auto():
    ann = sis.Annotations.from_wide([["fever", "pyrexia"], ["cough", "cough"], ["rash", "skin rash"],
                                     ["fatigue", "asthenia"], ["fever", "fever"], ["rash", "eczema"]] * 3)
    synonyms = {frozenset(p) for p in [("fever", "pyrexia"), ("rash", "skin rash"), ("fatigue", "asthenia")]}

    def judge(a, b):
        return np.array([float(x == y or frozenset((x, y)) in synonyms) for x, y in zip(a, b, strict=True)])

    plan = sis.judging_plan(ann, similarity="indel", n=30, coefficient="fleiss_kappa", seed=1)
    r = sis.fleiss_kappa(ann, similarity="indel", judgments=plan, judge=judge,
                         ci=Bootstrap(n=100, design="items", seed=0))
    assert r.ci_method == "bootstrap-percentile" and "prediction-powered" in r.details["interval_rule"]


def test_stratified_dof_is_satterthwaite_between_the_smallest_stratum_and_n_minus_h():
    from softirr_stats.uncertainty import stratified_dof

    rng = np.random.default_rng(3)
    strata = np.repeat([0, 1, 2], [4, 6, 10])
    jack = rng.normal(size=20) * np.array([1.0, 3.0, 0.5])[strata]
    v = np.array([(n - 1) / n * np.sum((jack[strata == h] - jack[strata == h].mean()) ** 2)
                  for h, n in enumerate((4, 6, 10))])
    want = v.sum() ** 2 / np.sum(v**2 / np.array([3.0, 5.0, 9.0]))
    assert stratified_dof(jack, strata) == pytest.approx(want, rel=1e-12)
    assert 3.0 <= stratified_dof(jack, strata) <= 17.0  # min(n_h) - 1 .. n - H
    assert stratified_dof(jack, np.zeros(20, dtype=int)) == pytest.approx(19.0)  # no strata: n - 1
    equal = np.tile(np.array([0.0, 1.0, 2.0, 3.0, 4.0]), 4)  # four strata with the same spread: n - H
    assert stratified_dof(equal, np.repeat(np.arange(4), 5)) == pytest.approx(16.0)
    assert stratified_dof(np.ones(6), np.repeat([0, 1], 3)) == 4.0  # no stratum varies: n - H
    assert stratified_dof(np.r_[jack, np.nan], np.r_[strata, 2]) == pytest.approx(want, rel=1e-12)


def test_bca_t_with_strata_takes_the_stratified_degrees_of_freedom():
    from softirr_stats.uncertainty import jackknife_strata, stratified_dof

    rows = _rows(24)
    strata = ["a"] * 4 + ["b"] * 8 + ["c"] * 12
    ann = sis.Annotations.from_wide(rows)
    cfg = Bootstrap(n=300, seed=2, strata=dict(zip(ann.items, strata, strict=True)))
    r = sis.fleiss_kappa(ann, ci=cfg)
    res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    jack = jackknife_values(prep, cfg)
    dof = stratified_dof(jack, jackknife_strata(prep, cfg))
    assert r.details["t_dof"] == dof and dof <= 21.0  # at most n - H
    assert "Satterthwaite, 3 strata" in r.details["interval_rule"]
    lo, hi, _ = bca_interval(r.details["replicates"], res.value, jack, t_level(0.95, 24, dof=dof))
    assert (r.ci_low, r.ci_high) == (lo, hi)
    plain = sis.fleiss_kappa(ann, ci=Bootstrap(n=300, seed=2))
    assert plain.details["t_dof"] == 23 and "23 df" in plain.details["interval_rule"]


def test_cluster_bca_t_with_strata_counts_clusters_per_stratum():
    from softirr_stats.uncertainty import jackknife_strata, stratified_dof

    ann = sis.Annotations.from_wide(_rows(24, seed=4))
    cluster = {it: i // 3 for i, it in enumerate(ann.items)}  # 8 clusters of 3 items
    strata = {it: "s" if i < 12 else "t" for i, it in enumerate(ann.items)}  # 4 clusters in each stratum
    cfg = Bootstrap(n=200, seed=1, design="cluster", cluster=cluster, strata=strata, method="bca-t")
    res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    assert jackknife_strata(prep, cfg).tolist() == [0, 0, 0, 0, 1, 1, 1, 1]
    r = sis.fleiss_kappa(ann, ci=cfg)
    assert r.details["t_dof"] == stratified_dof(jackknife_values(prep, cfg), np.repeat([0, 1], 4)) <= 6.0


def test_an_interval_that_misses_its_own_estimate_is_flagged():
    """Two raters who never agree over 2,500 labels: every replicate's chance term, re-estimated on resampled
    items, is biased (duplicated items add agreeing pairs), and the interval lies below the estimate; the
    analytic interval holds it."""
    from softirr_stats.agreement import DegenerateWarning

    rng = np.random.default_rng(0)
    labels = rng.permutation(3000 * 2) % 2500
    rows = [[f"l{labels[2 * i]}", f"l{labels[2 * i + 1]}"] for i in range(3000) if labels[2 * i] != labels[2 * i + 1]]
    with pytest.warns(DegenerateWarning, match=r"^the interval \[.*\] does not contain the estimate .*: 400 of 400 "
                                              r"bootstrap replicates lie below it"):
        r = sis.krippendorff_alpha(rows, ci=sis.Bootstrap(n=400, seed=0))
    assert r.observed == 0.0 and r.ci_high < r.value
    assert any("does not contain the estimate" in w for w in r.warnings)
    a = sis.krippendorff_alpha(rows, ci="analytic")
    assert a.ci_low <= a.value <= a.ci_high


def test_a_widening_with_enough_units_for_no_warning_is_still_said():
    # 10 raters: widened x1.2 by the Student-t rule, and nothing said so (only details["few_units_factor"])
    rng = np.random.default_rng(0)
    t = rng.integers(0, 3, 60)
    x = np.where(rng.random((60, 10)) < 0.7, t[:, None], rng.integers(0, 3, (60, 10)))
    r = sis.fleiss_kappa(x, ci=Bootstrap(n=300, seed=0, design="raters", method="percentile"))
    factor = r.details["few_units_factor"]
    assert factor > 1 and any(n.startswith(f"interval widened by the Student-t factor: x{factor:.3f}") for n in r.notes)
    plain = sis.fleiss_kappa(x, ci=Bootstrap(n=300, seed=0, design="raters", method="percentile", few_units="none"))
    assert not any("Student-t factor" in n for n in plain.notes)


def test_a_replaced_interval_does_not_keep_the_bootstraps_words_and_bad_values_are_refused():
    rows = _rows(40)
    r = sis.fleiss_kappa(rows, ci=Bootstrap(n=100, seed=0))
    assert r.with_interval(0.4, 0.7, 0.05, 0.95, "analytic").interval_description() == "95% analytic"
    with pytest.raises(ValueError, match="level must lie strictly between 0 and 1"):
        r.with_interval(0.1, 0.9, 0.1, 2.0, "x")
    with pytest.raises(ValueError, match=r"p_value must lie in \[0, 1\]"):
        r.with_test(1.0, 3.0, "x")


def test_a_bca_interval_that_fell_back_to_the_percentile_is_named_so():
    rng = np.random.default_rng(0)
    r = sis.fleiss_kappa(rng.integers(0, 3, (30, 3)), ci=Bootstrap(n=2, seed=0))
    assert any("percentile interval used" in w for w in r.warnings)
    assert r.ci_method == "bootstrap-percentile"  # it said bootstrap-bca-t


@pytest.mark.parametrize(("n", "level", "noted"), [(200, 0.95, True), (400, 0.95, False), (1000, 0.99, True),
                                                   (2000, 0.99, False), (150, 0.9, True)])
def test_an_interval_from_too_few_tail_replicates_says_so(n, level, noted):
    """A bound resting on fewer than 10 replicates beyond it moves with the seed: the result says
    so, with the B that would do (every bootstrap interval goes through replicate_interval)."""
    ann = sis.Annotations.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "b", "a"], ["a", "a", "a"]] * 10)
    r = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=n, level=level, seed=0, method="percentile"))
    said = [w for w in r.warnings if "lie beyond each bound" in w]
    assert bool(said) == noted
    if noted:
        need = {0.95: 400, 0.99: 2000, 0.9: 200}[level]
        assert f"(B = {n})" in said[0] and f"use at least {need} replicates" in said[0]


def test_the_few_replicates_note_counts_the_usable_replicates_beside_b():
    from softirr_stats.uncertainty._bootstrap import few_replicates_note

    assert "(96 usable of B = 100)" in few_replicates_note(96, 0.95, n_drawn=100)
    assert "(B = 100)" in few_replicates_note(100, 0.95, n_drawn=100)


def test_the_few_replicates_note_counts_whole_replicates_beyond_the_bound():
    """B = 300 at 95% read 'only 7.5 bootstrap replicates lie beyond each bound': the count is of the replicates
    below NumPy's interpolated 2.5% quantile, a whole number."""
    from softirr_stats.uncertainty._bootstrap import few_replicates_note

    for b in (100, 200, 300, 333):
        reps = np.random.default_rng(b).random(b)
        below = int((reps < np.quantile(reps, 0.025)).sum())
        assert f"only {below} bootstrap replicates lie beyond" in few_replicates_note(b, 0.95), b


def test_the_few_replicates_note_never_says_ten_and_its_advice_counts_the_undefined():
    """B = 1999 at 99% said 'only 10 bootstrap replicates' (9.995 rounded) while firing for fewer than 10; with
    11% of the replicates undefined it advised 400, which gives about 356 usable ones and the note again."""
    from softirr_stats.uncertainty._bootstrap import few_replicates_note

    assert few_replicates_note(1999, 0.99) == ""  # 10 replicates lie below the interpolated 0.5% quantile
    assert "only 9 " in few_replicates_note(1800, 0.99)
    advice = few_replicates_note(267, 0.95, n_drawn=300)
    assert "(267 usable of B = 300)" in advice and advice.endswith("use at least 450 replicates")
    assert few_replicates_note(400, 0.95) == "" and few_replicates_note(2000, 0.99) == ""
