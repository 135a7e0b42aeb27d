"""``softirr_stats.compare`` and ``compare_groups``: paired replicates on shared weights, every design, errors."""

import math
import warnings
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.uncertainty import Bootstrap

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.FewUnitsWarning",
                                        "ignore::softirr_stats.DegenerateWarning")

LABELS = np.array(["fever", "pyrexia", "cough", "tussis"], dtype=object)


def _table(n=60, raters=4, seed=0, p=0.7):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, n)
    cols = [np.where(rng.random(n) < p, truth, rng.integers(0, 4, n)) for _ in range(raters)]
    return LABELS[np.column_stack(cols)].tolist()


def _designs(n):
    cl = [i // 4 for i in range(n)]
    return [Bootstrap(n=300, seed=3), Bootstrap(n=300, seed=3, design="cluster", cluster=cl),
            Bootstrap(n=300, seed=3, design="bayesian"), Bootstrap(n=300, seed=3, design="raters"),
            Bootstrap(n=300, seed=3, design="items+raters"), Bootstrap(n=300, seed=3, strata=[i % 3 for i in range(n)])]


@pytest.mark.parametrize("cfg", _designs(60), ids=lambda c: c.design + ("+strata" if c.strata is not None else ""))
def test_paired_replicates_are_the_inputs_own_on_every_design(cfg):
    rows = _table()
    a = sis.krippendorff_alpha(rows, similarity="indel", ci=cfg)
    b = sis.krippendorff_alpha(rows, ci=cfg)
    r = sis.compare(a, b)
    assert r.paired and r.n_common == 60 and r.design == cfg.design
    # one shared draw of weights per replicate: the difference replicate is the difference of the inputs' own
    # (to rounding: the replicates are evaluated in batches of another size)
    np.testing.assert_allclose(r.details["replicates_a"], a.details["replicates"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.details["replicates_b"], b.details["replicates"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(r.details["replicates"], a.details["replicates"] - b.details["replicates"],
                               rtol=1e-10, atol=1e-13)
    assert all("identical to the input's own interval" in c for c in r.details["weights_check"])
    assert r.difference == pytest.approx(a.value - b.value, abs=1e-15)
    assert r.ci_low <= r.difference <= r.ci_high and r.se > 0


def test_paired_interval_is_narrower_than_the_independent_one_and_methods_agree():
    rows = _table(200, seed=1)
    B = Bootstrap(n=1000, seed=0)
    a, b = sis.fleiss_kappa(rows, similarity="indel", ci=B), sis.fleiss_kappa(rows, ci=B)
    paired = sis.compare(a, b)
    assert paired.se < 0.5 * math.hypot(a.se, b.se)  # shared items: strongly correlated statistics
    with pytest.raises(ValueError, match="mismatched coefficients"):  # paired=False: two data sets, two measures
        sis.compare(a, b, paired=False)
    an = sis.compare(a, b, ci="analytic")
    assert an.method == "paired delta method" and an.se == pytest.approx(paired.se, rel=0.2)
    for method in ("basic", "bca"):
        r = sis.compare(a, b, ci=Bootstrap(n=1000, seed=0, method=method))
        assert r.ci_low < r.difference < r.ci_high
    assert paired.ratio == pytest.approx(a.value / b.value)
    assert paired.details["ratio_ci_low"] < paired.ratio < paired.details["ratio_ci_high"]


def test_a_statistic_against_itself_has_a_zero_width_interval():
    a = sis.fleiss_kappa(_table(), ci=Bootstrap(n=200))
    r = sis.compare(a, a)
    assert (r.difference, r.ci_low, r.ci_high, r.se) == (0.0, 0.0, 0.0, 0.0) and r.p_value == 1.0


def test_a_statistic_against_itself_is_the_same_under_the_analytic_interval():
    # the delta method gave se 0 with interval and p nan, no warning, where the bootstrap gives [0, 0] and p = 1
    a = sis.fleiss_kappa(_table(), ci=Bootstrap(n=200))
    boot = sis.compare(a, a)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: nothing is undefined
        r = sis.compare(sis.fleiss_kappa(_table(), ci="analytic"), sis.fleiss_kappa(_table(), ci="analytic"))
        again = sis.compare(a, a, ci="analytic")
    for x in (r, again):
        assert (x.difference, x.ci_low, x.ci_high, x.se, x.p_value) == (0.0, 0.0, 0.0, 0.0, 1.0)
        assert (x.difference, x.ci_low, x.ci_high, x.se, x.p_value) == (
            boot.difference, boot.ci_low, boot.ci_high, boot.se, boot.p_value)
        assert x.warnings == () and x.details["test"].startswith("no spread in the per-item terms")


def test_an_analytic_difference_without_a_variance_is_nan_with_a_warning_saying_why():
    one = sis.fleiss_kappa(pd.DataFrame([["x", "y", "x"]], index=["i1"]))  # one item: no delta-method variance
    more = sis.fleiss_kappa(pd.DataFrame([["x", "y", "x"], ["x", "x", "x"], ["y", "y", "x"]], index=["j1", "j2", "j3"]))
    for a, b, where in ((one, one, ""), (one, more, " in each of the two independent samples")):
        with pytest.warns(sis.DegenerateWarning, match=f"needs at least 2 items with linearised terms{where}; got 1"):
            r = sis.compare(a, b, ci="analytic")
        assert math.isnan(r.ci_low) and math.isnan(r.ci_high) and math.isnan(r.p_value)
        assert r.difference == pytest.approx(a.value - b.value, abs=1e-12)
        assert any("no analytic interval or p-value" in w for w in r.warnings)
        assert r.details["test"] == "none (no delta-method variance)"


def test_independent_analytic_adds_the_two_variances():
    a = sis.fleiss_kappa(_table(50, seed=2), ci="analytic")
    b = sis.fleiss_kappa(pd.DataFrame(_table(70, seed=3), index=[f"r2-{i}" for i in range(70)]), ci="analytic")
    r = sis.compare(a, b)
    assert r.method == "independent delta method" and not r.paired
    assert r.se == pytest.approx(math.hypot(a.se, b.se), rel=1e-12)


def test_independent_bootstrap_draws_uncorrelated_replicates():
    ci = Bootstrap(n=2000, method="percentile")  # auto: the jackknife-t at 80 items (test_compare_jackknife_t.py)
    a = sis.fleiss_kappa(_table(80, seed=4), ci=ci)
    b = sis.fleiss_kappa(pd.DataFrame(_table(80, seed=4), index=[f"b{i}" for i in range(80)]), ci=ci)
    r = sis.compare(a, b)
    assert r.method == "independent bootstrap-percentile" and r.difference == 0.0
    assert abs(np.corrcoef(r.details["replicates_a"], r.details["replicates_b"])[0, 1]) < 0.08
    assert r.se == pytest.approx(math.hypot(a.se, b.se), rel=0.1)


def test_partly_overlapping_items_are_stratified_by_overlap():
    rows = _table(80, seed=5)
    a = sis.fleiss_kappa(pd.DataFrame(rows[:60], index=range(60)))
    b = sis.fleiss_kappa(pd.DataFrame(rows[20:], index=range(20, 80)))
    r = sis.compare(a, b, ci=Bootstrap(n=300))
    assert r.details["kind"] == "partly paired" and (r.n_items_a, r.n_items_b, r.n_common) == (60, 60, 40)
    assert r.ci_low <= r.difference <= r.ci_high
    with pytest.raises(ValueError, match="share 40 of their 60 and 60 items"):
        sis.compare(a, b, ci="analytic")
    with pytest.raises(ValueError, match="items\\+raters"):
        sis.compare(a, b, ci=Bootstrap(n=50, design="items+raters"))
    with pytest.raises(ValueError, match="20 items are only in a"):
        sis.compare(a, b, paired=True)


def test_bad_inputs_get_one_clear_error():
    rows = _table()
    a = sis.fleiss_kappa(rows)
    with pytest.raises(TypeError, match="b must be an AgreementResult"):
        sis.compare(a, 0.5)
    with pytest.raises(ValueError, match="carries no prepared statistic"):
        sis.compare(a, sis.AgreementResult("fleiss_kappa", 0.5, 0.7, 0.4, 60, 4))
    other = pd.DataFrame(_table(40, seed=9), index=[f"x{i}" for i in range(40)])
    with pytest.raises(ValueError, match="mismatched coefficients: a is fleiss_kappa and b is krippendorff_alpha"):
        sis.compare(a, sis.krippendorff_alpha(other))
    with pytest.raises(ValueError, match="different intervals"):
        sis.compare(sis.fleiss_kappa(rows, ci=Bootstrap(n=50, seed=1)), sis.fleiss_kappa(rows, ci=Bootstrap(n=50)))
    with pytest.raises(ValueError, match="ci must be None"):
        sis.compare(a, a, ci="bootstrap")
    ml = sis.multilabel_agreement(np.random.default_rng(0).integers(0, 2, (30, 3, 4)))
    with pytest.raises(ValueError, match="linearised terms"):
        sis.compare(ml, ml, ci="analytic")
    # two coefficients on the same annotations are a legitimate comparison
    assert sis.compare(a, sis.krippendorff_alpha(rows), ci=Bootstrap(n=50)).paired


def test_soft_multilabel_chance_sampled_and_prediction_powered_statistics():
    rows = _table(60, seed=6)
    B = Bootstrap(n=200, seed=2)
    mc = sis.fleiss_kappa(rows, similarity="indel", chance=sis.MonteCarlo(permutations=3, seed=0), ci=B)
    with pytest.warns(sis.comparison.ComparisonWarning, match="independently for the two statistics"):
        r = sis.compare(mc, sis.fleiss_kappa(rows, similarity="indel", ci=B))
    assert r.paired and any("sampled chance pairs" in w for w in r.warnings)
    cube = np.random.default_rng(1).integers(0, 2, (40, 3, 5))
    r = sis.compare(sis.multilabel_agreement(cube, baseline="fleiss"), sis.multilabel_agreement(cube, baseline="ac1"),
                    ci=B)
    assert r.paired and np.isfinite(r.se)
    plan = sis.judging_plan(rows, similarity="indel", n=40, seed=0)
    syn = {frozenset(p) for p in [("fever", "pyrexia"), ("cough", "tussis")]}
    judged = plan.pairs.assign(judgment=[float(frozenset(p) in syn) for p in zip(plan.pairs.label_a,
                                                                                 plan.pairs.label_b, strict=True)])
    ppi = sis.fleiss_kappa(rows, similarity="indel", judgments=judged)
    with pytest.warns(sis.comparison.ComparisonWarning):  # the plain estimate has no judged draws
        r = sis.compare(ppi, sis.fleiss_kappa(rows, similarity="indel"), ci=B)
    assert r.paired and r.ci_low <= r.difference <= r.ci_high


def test_compare_groups_equals_compare_of_the_subsets_and_the_permutation_test():
    rows = _table(60, raters=6, seed=7)
    ann = sis.Annotations.from_wide(rows)
    B = Bootstrap(n=300, seed=1)
    g = sis.compare_groups(ann, [0, 1, 2], [3, 4, 5], ci=B, permutations=100)
    direct = sis.compare(sis.fleiss_kappa(ann.subset_raters([0, 1, 2])), sis.fleiss_kappa(ann.subset_raters([3, 4, 5])),
                         ci=B)
    assert (g.difference, g.ci_low, g.ci_high) == pytest.approx((direct.difference, direct.ci_low, direct.ci_high),
                                                                abs=1e-12)
    assert g.details["permutation_exact"] and g.details["n_permutations"] == 20
    d = g.details["permutation_replicates"]
    assert g.p_value == pytest.approx(np.mean(np.abs(d) >= abs(g.difference) - 1e-12))
    random = sis.compare_groups(ann, [0, 1, 2], [3, 4, 5], ci=B, permutations=10, seed=4)
    assert not random.details["permutation_exact"] and random.details["n_permutations"] == 10
    with pytest.raises(ValueError, match="are in both"):
        sis.compare_groups(ann, [0, 1, 2], [2, 3, 4], permutations=50)
    with pytest.raises(ValueError, match="raters \\[9\\] are not in the data"):
        sis.compare_groups(ann, [0, 9], [3, 4])
    overlap = sis.compare_groups(ann, [0, 1, 2], [2, 3, 4], ci=Bootstrap(n=100, design="raters"))
    assert overlap.paired and np.isfinite(overlap.se)


def test_result_tables_and_reprs():
    rows = _table()
    r = sis.compare(sis.fleiss_kappa(rows, similarity="indel"), sis.fleiss_kappa(rows), ci=Bootstrap(n=100))
    f = r.to_frame()
    for col in ("value_a", "value_b", "difference", "ratio", "ci_low", "ci_high", "se", "p_value", "method", "design",
                "paired", "n_items_a", "n_items_b", "n_common", "test"):
        assert col in f.columns, col
    assert r.to_markdown().splitlines()[0].startswith("| A | B | Value A")
    assert "\\begin{table}" in r.to_latex(caption="Measures")
    assert r._repr_html_().startswith("<table") and "fleiss_kappa (indel)" in str(r) and "paired" in repr(r)


# Gwet's pairedCAC (github.com/kgwet/pairedCAC, README, after Gwet 2016, Educational and Psychological
# Measurement 76(4)): ratings1 and ratings2, 15 subjects rated by raters A-D on two occasions; the
# ttest.*(ratings1, ratings2) outputs (coefficient 2 - coefficient 1, its SE, t, p with n - 1 df).
PAIRED_CAC_RATINGS = np.array([
    [1, 1, 1, 1, 1, 1, 1, 1], [1, 1, 2, 3, 3, 3, 3, 2], [1, 1, 2, 3, 3, 3, 3, 3], [2, 2, 2, 3, 1, 1, 2, 1],
    [1, 2, 1, 1, 1, 1, 1, 1], [2, 1, 1, 1, 1, 1, 1, 1], [2, 2, 2, 2, 2, 2, 2, 2], [2, 3, 2, 2, 2, 2, 1, 1],
    [3, 3, 3, 3, 3, 3, 3, 3], [1, 1, 1, 1, 1, 1, 1, 3], [1, 1, 2, 3, 2, 2, 2, 2], [3, 3, 3, 3, 3, 3, 3, 3],
    [3, 2, 3, 3, 3, 3, 3, 3], [1, 2, 1, 1, 1, 2, 1, 1], [2, 1, 1, 1, 3, 3, 3, 3]])
PAIRED_CAC = {  # function: (coeff.diff, std.err, p.value)
    "fleiss_kappa": (0.339184, 0.1574322, 0.04910569),
    "gwet_ac1": (0.3304628, 0.1452689, 0.03917311),
    "conger_kappa": (0.3318275, 0.1527202, 0.04745695),
    "krippendorff_alpha": (0.3335309, 0.1548083, 0.04910569),
    "brennan_prediger": (0.3333333, 0.1477342, 0.04056859),
    "percent_agreement": (0.2222222, 0.09848947, 0.04056859),
}


@pytest.mark.parametrize("name", sorted(PAIRED_CAC))
def test_analytic_paired_difference_matches_gwet_paired_cac(name):
    r1 = pd.DataFrame(PAIRED_CAC_RATINGS[:, :4], columns=list("ABCD"))
    r2 = pd.DataFrame(PAIRED_CAC_RATINGS[:, 4:], columns=list("ABCD"))
    fn = getattr(sis, name)
    opts = {"categories": [1, 2, 3]} if name in ("gwet_ac1", "brennan_prediger") else {}
    r = sis.compare(fn(r2, **opts), fn(r1, **opts), ci="analytic", paired=True)
    diff, se, p = PAIRED_CAC[name]
    assert r.difference == pytest.approx(diff, abs=5e-7)
    assert r.se == pytest.approx(se, abs=5e-7)
    assert r.p_value == pytest.approx(p, abs=5e-8)  # Student t, 14 df


def test_analytic_difference_four_against_three_raters_matches_paired_cac():
    r1 = pd.DataFrame(PAIRED_CAC_RATINGS[:, :4], columns=list("ABCD"))
    r2 = pd.DataFrame(PAIRED_CAC_RATINGS[:, 4:7], columns=list("ABC"))
    r = sis.compare(sis.fleiss_kappa(r2), sis.fleiss_kappa(r1), ci="analytic")
    assert (r.difference, r.se, r.p_value) == pytest.approx((0.4085418, 0.1612858, 0.02389035), abs=5e-7)


def test_a_difference_interval_that_excludes_its_estimate_is_warned():
    # raters who never agree over many labels: the resampled chance term is biased (duplicated items add agreeing
    # pairs), and the two studies' biases differ with their sizes, so the difference's replicates all lie above it
    many = sis.Annotations.from_wide([[f"x{2 * i}", f"x{2 * i + 1}"] for i in range(1250)])
    few = sis.Annotations.from_wide([[f"x{2 * i}", f"x{2 * i + 1}"] for i in range(300)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sis.DegenerateWarning)  # each coefficient's own interval says it too
        a = sis.fleiss_kappa(many, ci=sis.Bootstrap(n=200, seed=0))
        b = sis.fleiss_kappa(few, ci=sis.Bootstrap(n=200, seed=0))
    with pytest.warns(sis.DegenerateWarning, match=r"compare\(.*does not contain the estimate .* the interval and "
                                                   r"its p-value are not reliable"):
        cmp = sis.compare(a, b)
    assert not cmp.ci_low <= cmp.difference <= cmp.ci_high
    assert any("resampled difference is biased" in w for w in cmp.warnings)


# --- undefined coefficients, argument checks (an audit's findings) -----------------------------------------------

def _constant_pair_table(n=60, seed=0):
    """Raters 0 and 1 always say 0 (their kappa is undefined); raters 2 and 3 vary."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    noisy = np.where(rng.random(n) < 0.7, truth, rng.integers(0, 3, n))
    return [[0, 0, int(x), int(y)] for x, y in zip(truth, noisy, strict=True)]


def test_permutation_p_value_of_an_undefined_difference_is_nan_not_zero():
    table = _constant_pair_table()
    with pytest.warns(sis.DegenerateWarning, match="observed difference is undefined"):
        r = sis.compare_groups(table, [0, 1], [2, 3], ci=Bootstrap(n=100, seed=0), permutations=50)
    assert math.isnan(r.difference) and math.isnan(r.p_value)  # was p = 0.0
    assert any("no permutation p-value" in w for w in r.warnings)


def test_splits_with_an_undefined_difference_leave_the_permutation_reference():
    from softirr_stats.comparison._groups import permutation_p_value

    d = np.array([0.5, np.nan, np.nan, 0.1, -0.6, 0.05])
    p, said = permutation_p_value(d, 0.5, exact=True)
    assert p == pytest.approx(2 / 4) and said.startswith("2 of 6 splits")  # 2/6 before: nan splits in the count
    p, _ = permutation_p_value(d, 0.5, exact=False)
    assert p == pytest.approx(3 / 5)
    assert permutation_p_value(np.array([np.nan, np.nan]), 0.3, exact=True)[0] != 0.0


def test_analytic_comparison_of_an_undefined_coefficient_is_nan_with_a_warning():
    rows = [["a", "a"]] * 3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fk, pa = sis.fleiss_kappa(rows), sis.percent_agreement(rows)
    with pytest.warns(sis.DegenerateWarning, match="fleiss_kappa is undefined: no analytic interval"):
        r = sis.compare(fk, pa, ci="analytic")  # ZeroDivisionError before
    assert math.isnan(r.ci_low) and math.isnan(r.p_value) and r.paired
    with pytest.warns(sis.DegenerateWarning, match="is undefined: no analytic interval"):
        g = sis.compare_groups(_constant_pair_table(), [0, 1], [2, 3], ci="analytic")
    assert math.isnan(g.se)


def test_analytic_population_is_checked_and_applies_to_independent_samples():
    rng = np.random.default_rng(1)
    t = rng.integers(0, 3, 30)
    rows = [[x, x if rng.random() < 0.7 else 2 - x, x] for x in t]
    fk, pa = sis.fleiss_kappa(rows), sis.percent_agreement(rows)
    with pytest.raises(ValueError, match=r"population must be >= the number of rated items \(30\)"):
        sis.compare(fk, pa, ci=sis.Analytic(population=10))  # nan interval, no error before
    a = sis.fleiss_kappa(rows[:15])
    b = sis.fleiss_kappa([[f"{v}" for v in r] for r in rows[15:]])
    full = sis.compare(a, b, ci="analytic", paired=False)
    finite = sis.compare(a, b, ci=sis.Analytic(population=30), paired=False)
    va, vb = (sis.fleiss_kappa(x, ci="analytic").se ** 2 for x in (rows[:15], rows[15:]))
    assert full.se == pytest.approx(math.sqrt(va + vb), rel=1e-9)
    assert finite.se == pytest.approx(math.sqrt(0.5 * va + 0.5 * vb), rel=1e-9)  # (1 - 15/30) on each


@pytest.mark.parametrize("kwargs,match", [
    (dict(paired="yes"), "paired must be True, False or None"),
    (dict(labels=("x",)), "labels must be a pair of names"),
    (dict(labels="ab"), "labels must be a pair of names"),
])
def test_compare_arguments_are_checked(kwargs, match):
    rows = [["a", "b", "a"], ["b", "b", "b"], ["a", "a", "b"]] * 5
    with pytest.raises(TypeError, match=match):
        sis.compare(sis.fleiss_kappa(rows), sis.percent_agreement(rows), **kwargs)
    assert sis.compare(sis.fleiss_kappa(rows), sis.percent_agreement(rows), ci="analytic", paired=np.True_).paired


def test_the_same_group_in_another_order_is_refused():
    rows = _constant_pair_table()
    with pytest.raises(ValueError, match="the same raters"):
        sis.compare_groups(rows, [2, 3], [3, 2])


def test_tables_of_different_length_paired_by_row_number_are_warned_about():
    rng = np.random.default_rng(0)
    r1, r2 = rng.integers(0, 3, (80, 3)), rng.integers(0, 3, (100, 3))
    with pytest.warns(UserWarning,
                      match=r"paired by position on the 80 rows they share; .* pass paired=False"):
        r = sis.compare(sis.fleiss_kappa(r1), sis.fleiss_kappa(r2), ci=Bootstrap(n=50, seed=0))
    assert r.n_common == 80 and any("row number" in w for w in r.warnings)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said paired=False, or the same number of rows: nothing to say
        sis.compare(sis.fleiss_kappa(r1), sis.fleiss_kappa(r2), ci=Bootstrap(n=50, seed=0), paired=False)
        sis.compare(sis.fleiss_kappa(r1), sis.percent_agreement(r1), ci=Bootstrap(n=50, seed=0))


@pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")
def test_analytic_paired_difference_where_one_statistic_covers_fewer_items():
    # an item rated once by a rater the other statistic leaves out: Fleiss' terms cover it in a, not in b
    rows = [["a", "a", "a"], ["b", "b", "a"], ["a", "b", "b"], ["b", "b", "b"]] * 10 + [["a", None, None]] * 2
    ann = sis.Annotations.from_wide(rows)
    codes = np.asarray(ann.codes)
    b_ann = sis.Annotations(codes[:, 1:], ann.vocabulary, items=list(ann.items), raters=[1, 2])
    r = sis.compare(sis.fleiss_kappa(ann), sis.fleiss_kappa(b_ann), ci="analytic")  # a ValueError before
    assert r.paired and np.isfinite(r.se) and any("cover 42 items and those of b 40" in w for w in r.warnings)
    boot = sis.compare(sis.fleiss_kappa(ann), sis.fleiss_kappa(b_ann), ci=sis.Bootstrap(n=2000, seed=0))
    assert r.se == pytest.approx(boot.se, rel=0.2)


def test_one_item_only_in_b_is_resampled_with_the_shared_items():
    # round 2 = round 1 plus one item: the stratum 'only in b' had one item and the comparison refused with
    # "needs at least 2 items per stratum ... merge small strata" (strata the user never set)
    from softirr_stats.uncertainty import percentile_interval, unit_weights

    rows = [["a", "a", "a"], ["b", "b", "a"], ["a", "b", "b"], ["b", "b", "b"]] * 10
    r1 = pd.DataFrame(rows, index=[f"d{i}" for i in range(40)])
    r2 = pd.DataFrame(rows + [["a", "b", "a"]], index=[f"d{i}" for i in range(41)])
    B = sis.Bootstrap(n=400, seed=0, method="percentile")
    a, b = sis.fleiss_kappa(r1, ci=B), sis.fleiss_kappa(r2, ci=B)
    r = sis.compare(a, b)
    assert r.warnings[0].startswith("1 item only in b is resampled with the items shared by a and b")
    C = unit_weights(41, B, 0, 400)  # one stratum of the 41 items: the direct computation
    d = (a.details["statistic"].evaluate(np.ascontiguousarray(C[:, :40]))["value"]
         - b.details["statistic"].evaluate(C)["value"])
    lo, hi = percentile_interval(d, 0.95)
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    # a stratum of the user's own strata that has one item is still refused, in the user's terms
    strata = {f"d{i}": ("x" if i < 40 else "y") for i in range(41)}
    with pytest.raises(ValueError, match="needs at least 2 items per stratum"):
        sis.compare(a, b, ci=sis.Bootstrap(n=50, strata=strata))


def test_the_auto_rule_is_information_and_the_seed_is_recorded():
    # the "method='auto': ..." line was counted as "(1 warning: see .warnings)"; to_dict() had no seed
    rows = _table()
    B = sis.Bootstrap(n=400, seed=11)
    r = sis.compare(sis.fleiss_kappa(rows, similarity="indel", ci=B), sis.fleiss_kappa(rows, ci=B))
    assert not any("method='auto'" in w for w in r.warnings) and "see .warnings" not in str(r)
    assert r.details["interval_rule"].startswith("method='auto': jackknife-t, 59 df")
    assert r.to_dict()["seed"] == 11 and r.to_dict()["interval_rule"] == r.details["interval_rule"]
    assert "seed=11" in r.to_markdown() and "method='auto'" in r.to_markdown()


def test_a_prediction_powered_side_is_labelled_as_such():
    # compare(ppi_result, plain_result) labelled both sides "fleiss_kappa (indel)"
    ann = sis.Annotations.from_wide([["fever", "pyrexia"], ["cough", "cough"], ["rash", "skin rash"],
                                     ["fatigue", "asthenia"], ["fever", "fever"], ["rash", "eczema"]] * 3)

    def judge(a, b):
        return np.array([float(x == y or {x, y} == {"fever", "pyrexia"}) for x, y in zip(a, b, strict=True)])

    plan = sis.judging_plan(ann, similarity="indel", n=30, coefficient="fleiss_kappa", seed=1)
    ppi = sis.fleiss_kappa(ann, similarity="indel", judgments=plan, judge=judge)
    r = sis.compare(ppi, sis.fleiss_kappa(ann, similarity="indel"), ci=Bootstrap(n=100, seed=0))
    assert (r.label_a, r.label_b) == ("fleiss_kappa (indel, prediction-powered)", "fleiss_kappa (indel)")


@pytest.mark.parametrize("method", ["bca", "bca-t"])
def test_the_bca_p_value_inverts_the_interval(method):
    """The p-value of a BCa comparison was a normal z test on the bootstrap SE: an interval of
    [-0.0706, -0.0004] came with p = 0.318. It now inverts the interval: p < 1 - level exactly where the
    interval leaves 0 out, and p at the level where a bound touches 0."""
    from scipy.special import ndtri

    agree = disagree = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        truth = rng.integers(0, 3, 40)
        acc = rng.uniform(0.5, 0.9, 4)  # two pairs of raters on the same items: kappa of one pair against the other
        rows = np.where(rng.random((40, 4)) < acc, truth[:, None], rng.integers(0, 3, (40, 4)))
        cfg = sis.Bootstrap(n=400, seed=seed, method=method)
        r = sis.compare(sis.fleiss_kappa(rows[:, :2], ci=cfg), sis.fleiss_kappa(rows[:, 2:], ci=cfg))
        assert "inversion of the" in r.details["test"]
        excluded = not (r.ci_low <= 0 <= r.ci_high)
        agree += excluded == (r.p_value < 0.05)
        disagree += excluded != (r.p_value < 0.05)
        # at the level 1 - p the interval's bound sits on 0 (up to the replicates' discreteness)
        if 0.01 < r.p_value < 0.9:
            at = sis.compare(sis.fleiss_kappa(rows[:, :2], ci=replace(cfg, level=1 - r.p_value)),
                             sis.fleiss_kappa(rows[:, 2:], ci=replace(cfg, level=1 - r.p_value)))
            assert min(abs(at.ci_low), abs(at.ci_high)) < 0.25 * (r.ci_high - r.ci_low) / ndtri(0.975)
    assert disagree == 0 and agree == 12


def test_compare_groups_names_a_level_of_measurement_in_its_labels():
    """With level='ordinal' the groups' labels read 'krippendorff_alpha of ...', as if nominal."""
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 6, 40)
    table = np.column_stack([np.clip(truth + rng.integers(-1, 2, 40), 1, 5) for _ in range(4)]).tolist()
    r = sis.compare_groups(table, [0, 1], [2, 3], coefficient="krippendorff_alpha", level="ordinal", ci=None)
    assert (r.label_a, r.label_b) == ("krippendorff_alpha:ordinal of 0, 1", "krippendorff_alpha:ordinal of 2, 3")
    nominal = sis.compare_groups(table, [0, 1], [2, 3], coefficient="krippendorff_alpha", ci=None)
    assert nominal.label_a == "krippendorff_alpha of 0, 1"


NOISE = -1.1102230246251565e-16  # the difference compare(a, a) printed: zero met through rounding


def _built(difference, ci_low, ci_high, p_value, value_b=0.62):
    """Built directly, so the noise is there whatever the platform's arithmetic."""
    from softirr_stats.comparison import ComparisonResult

    return ComparisonResult("A", "B", 0.62, value_b, difference, 1.0, ci_low, ci_high, 0.01, 0.95, p_value,
                            "paired bootstrap-percentile", "items", True, 80, 80, 80)


def test_a_difference_zero_up_to_rounding_prints_as_zero_as_agreement_results_do():
    """compare(a, a) printed its difference as -1.1e-16 (repr) and -0.0000 (str); the zero rule of AgreementResult
    (|x| < 1e-12 is zero: base._format.zero_noise) holds for the values, the difference and its interval."""
    r = _built(NOISE, 2 * NOISE, -NOISE, 1.0)
    for text in (str(r), repr(r), r.to_markdown(), r.to_latex(), r._repr_html_()):
        assert "e-16" not in text and "e-17" not in text and "-0.000" not in text, text
    assert str(r).startswith("A - B = 0.0000, 95% CI [0.0000, 0.0000] (paired") and "p = 1.0000;" in str(r)
    assert repr(r).startswith("ComparisonResult(A - B = 0.000 [0.000, 0.000], p=1.000, ")
    assert "| A | B | 0.620 | 0.620 | 0.000 | [0.000, 0.000] | 0.010 | 1.000 | 80 |" in r.to_markdown()
    # a small difference that is no rounding error keeps its sign and its digits
    small = _built(-4e-5, -0.01, 0.01, 0.5)
    assert str(small).startswith("A - B = -0.0000,") and repr(small).startswith("ComparisonResult(A - B = -4e-05 ")


def test_a_comparison_p_too_small_for_its_decimals_is_never_zero():
    tiny, under = _built(0.3, 0.2, 0.4, 3.21e-21, value_b=0.32), _built(0.3, 0.2, 0.4, 0.0, value_b=0.32)
    assert ", p = 3.2e-21;" in str(tiny) and "p=3.2e-21," in repr(tiny) and "| 3.2e-21 |" in tiny.to_markdown()
    assert ", p < 1e-300;" in str(under) and "p<1e-300," in repr(under) and "| &lt;1e-300 |" in under.to_markdown()
    assert ">&lt;1e-300</td>" in under._repr_html_() and "& \\textless{}1e-300 &" in under.to_latex()


def _rounds(n=60, seed=0):
    """Two rounds of three raters on 3 categories (codes 0, 1, 2), on different items."""
    rng = np.random.default_rng(seed)

    def round_(k):
        truth = rng.integers(0, 3, n)
        cols = [np.where(rng.random(n) < 0.3, rng.integers(0, 3, n), truth) for _ in range(3)]
        return pd.DataFrame(np.column_stack(cols), index=[f"r{k}-{i}" for i in range(n)])

    return round_(1), round_(2)


@pytest.mark.parametrize("coefficient", ["brennan_prediger", "gwet_ac1", "gwet_ac2"])
def test_two_data_sets_whose_number_of_categories_differs_are_refused(coefficient):
    # a q-dependent coefficient (its chance term is fixed by the declared categories) on two data sets with 3 and 10
    # declared categories was compared: the difference was then mostly the change of q
    x, y = _rounds()
    fn = sis.gwet_ac1 if coefficient.startswith("gwet") else sis.brennan_prediger
    kw = {"weights": "linear"} if coefficient == "gwet_ac2" else {}
    B = Bootstrap(n=200, seed=0)
    a = fn(x, categories=[0, 1, 2], ci=B, **kw)
    with pytest.raises(ValueError, match=r"mismatched categories: .* a has q = 3 while b has q = 10 .*--categories"):
        sis.compare(a, fn(y, categories=range(10), ci=B, **kw))
    with pytest.raises(ValueError, match="a has q = 3 while b has q = 8"):  # the same item ids, paired=False
        sis.compare(a, fn(x, categories=range(8), ci=B, **kw), paired=False)
    # the same declared categories: compared, the difference the two values'
    b = fn(y, categories=[0, 1, 2], ci=B, **kw)
    r = sis.compare(a, b)
    assert not r.paired and abs(r.difference - (a.value - b.value)) < 1e-12
    # two q on the same annotations are a deliberate comparison of the two (as two chance baselines are)
    same = sis.compare(a, fn(x, categories=range(10), ci=B, **kw))
    assert same.paired and abs(same.difference - (a.value - fn(x, categories=range(10), **kw).value)) < 1e-12


def test_a_coefficient_that_does_not_depend_on_q_is_compared_across_declared_category_sets():
    x, y = _rounds(seed=1)
    B = Bootstrap(n=200, seed=0)
    a, b = sis.fleiss_kappa(x, categories=[0, 1, 2], ci=B), sis.fleiss_kappa(y, categories=range(10), ci=B)
    r = sis.compare(a, b)
    assert abs(r.value_b - sis.fleiss_kappa(y).value) < 1e-12 and abs(r.difference - (a.value - b.value)) < 1e-12


@pytest.mark.parametrize(("fn", "kw"), [(sis.gwet_ac1, {"weights": "linear"}),
                                        (sis.brennan_prediger, {"weights": "quadratic"}),
                                        (sis.percent_agreement, {"similarity": "linear"})])
def test_weights_built_on_two_other_category_lists_are_refused(fn, kw):
    # AC2, Brennan-Prediger and weighted percent agreement read the weights themselves (the chance term sums all q
    # categories' weights; the observed term is the weights): with categories [0, 1, 2] and [0, 1, 5] (q = 3 both)
    # linear weights give 0 and 1 the weight 0.5 in a and 0.8 in b, and the same ratings of a data set compared as
    # a difference of 0.19 (AC2) made by the declaration alone
    x, y = _rounds(seed=3)
    B = Bootstrap(n=200, seed=0)
    a = fn(x, categories=[0, 1, 2], ci=B, **kw)
    with pytest.raises(ValueError, match=r"mismatched categories: .* weights are built on the categories, a's "
                                         r"\[0, 1, 2\] and b's \[0, 1, 5\] .*categories=\[\.\.\.\]"):
        sis.compare(a, fn(y.replace(2, 5), categories=[0, 1, 5], ci=B, **kw))
    with pytest.raises(ValueError, match=r"\[0, 1, 2\] and b's \[0, 1, 5\]"):  # paired=False: the same refusal
        sis.compare(a, fn(x.replace(2, 5), categories=[0, 1, 5], ci=B, **kw), paired=False)
    r = sis.compare(a, fn(y, categories=[0, 1, 2], ci=B, **kw))  # the same categories: compared
    assert abs(r.difference - (a.value - fn(y, categories=[0, 1, 2], **kw).value)) < 1e-12


def test_position_weights_that_shift_with_a_missing_category_are_refused():
    # text labels are weighted by their positions in the declared categories: without 'mid', 'hi' is one step from
    # 'lo' instead of two, and the same ratings got Fleiss' linear kappa 0.0081 against 0.0145
    rng = np.random.default_rng(4)
    x = pd.DataFrame(np.array(["lo", "hi", "top"], dtype=object)[rng.integers(0, 3, (50, 3))])
    y = x.set_axis([f"y{i}" for i in range(50)])
    B = Bootstrap(n=200, seed=0)
    a = sis.fleiss_kappa(sis.Annotations.from_wide(x, categories=["lo", "mid", "hi", "top"]), weights="linear", ci=B)
    b = sis.fleiss_kappa(sis.Annotations.from_wide(y, categories=["lo", "hi", "top"]), weights="linear", ci=B)
    assert abs(a.value - b.value) > 1e-3
    with pytest.raises(ValueError, match=r"a's \['lo', 'mid', 'hi', 'top'\] and b's \['lo', 'hi', 'top'\] .* "
                                         r"other relative distances: 'hi' to 'top' is 0.333 of 'lo' to 'top' in a and "
                                         r"0.5 in b"):
        sis.compare(a, b)


def test_kappa_and_alpha_weights_on_value_scales_of_another_range_are_compared():
    # kappa and alpha are 1 - D_o / D_e: a range that rescales every distance (linear weights on 0-2 against 0-5, a
    # five-point scale whose top was never used) does not change them, so the two data sets are compared
    x, y = _rounds(seed=5)
    B = Bootstrap(n=200, seed=0)
    for fn, kw in ((sis.fleiss_kappa, {"weights": "linear"}), (sis.cohen_kappa, {"weights": "quadratic"}),
                   (sis.krippendorff_alpha, {"similarity": "linear"})):
        xs, ys = (x, y) if fn is not sis.cohen_kappa else (x.iloc[:, :2], y.iloc[:, :2])
        a = fn(xs, categories=[0, 1, 2], ci=B, **kw)
        b = fn(ys, categories=range(6), ci=B, **kw)
        assert abs(b.value - fn(ys, categories=[0, 1, 2], **kw).value) < 1e-12  # the range does not move it
        r = sis.compare(a, b)
        assert abs(r.difference - (a.value - b.value)) < 1e-12
    # categories [0, 1, 2, 3] and [0, 1, 3]: linear weights keep the distances of the values (compared), ordinal
    # weights count positions, and 3 is two steps from 1 in a but one in b (refused)
    y3 = y.replace(2, 3)
    r = sis.compare(sis.fleiss_kappa(x, categories=[0, 1, 2, 3], weights="linear", ci=B),
                    sis.fleiss_kappa(y3, categories=[0, 1, 3], weights="linear", ci=B))
    assert math.isfinite(r.difference)
    with pytest.raises(ValueError, match=r"\[0, 1, 2, 3\] and b's \[0, 1, 3\] .* 1 to 3 is 0.5 of 0 to 3 in a"):
        sis.compare(sis.fleiss_kappa(x, categories=[0, 1, 2, 3], weights="ordinal", ci=B),
                    sis.fleiss_kappa(y3, categories=[0, 1, 3], weights="ordinal", ci=B))


def test_two_rounds_without_a_shared_label_get_a_note_not_an_error():
    from softirr_stats.agreement import NOTE_PREFIXES

    x, y = _rounds(seed=2)
    letters = x.replace({0: "a", 1: "b", 2: "c"})
    B = Bootstrap(n=200, seed=0)
    a, b = sis.fleiss_kappa(letters, ci=B), sis.fleiss_kappa(y, ci=B)
    r = sis.compare(a, b)
    said = [w for w in r.warnings if w.startswith("no shared labels:")]
    assert len(said) == 1 and "'a', 'b', 'c'" in said[0] and "0, 1, 2" in said[0]
    assert said[0].startswith(NOTE_PREFIXES)  # information: a note, not a warning
    assert abs(r.difference - (a.value - b.value)) < 1e-12
    shared = sis.compare(sis.fleiss_kappa(x, ci=B), b)  # labels in common: nothing to say
    assert not any(w.startswith("no shared labels:") for w in shared.warnings)
    # the same annotations under two measures share their labels by construction
    assert not any(w.startswith("no shared labels:") for w in sis.compare(a, sis.fleiss_kappa(letters, ci=B)).warnings)
