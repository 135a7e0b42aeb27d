"""``leave_one_rater_out`` and ``against_reference``: per-rater diagnostics equal the coefficients they stand for."""

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.comparison._per_rater import kappa_vs_rest

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning")


def _table(n=50, raters=4, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    cols = [np.where(rng.random(n) < 0.6 + 0.1 * j, truth, rng.integers(0, 3, n)) for j in range(raters)]
    return np.array(["cat", "dog", "cow"], dtype=object)[np.column_stack(cols)].tolist()


def test_kappa_vs_rest_with_two_raters_is_cohen_hard_and_soft():
    rows = [r[:2] for r in _table()]
    ann = sis.Annotations.from_wide(rows)
    codes = np.asarray(ann.codes)
    out = kappa_vs_rest(codes, np.eye(3))["value"][0]
    assert out == pytest.approx([sis.cohen_kappa(ann).value] * 2, abs=1e-12)
    S = np.array([[1.0, 0.4, 0.0], [0.4, 1.0, 0.2], [0.0, 0.2, 1.0]])
    soft = kappa_vs_rest(codes, S)["value"][0]
    assert soft == pytest.approx([sis.cohen_kappa(ann, similarity=S).value] * 2, abs=1e-12)


def test_kappa_vs_rest_is_vectorised_over_weights():
    codes = np.asarray(sis.Annotations.from_wide(_table()).codes)
    C = np.random.default_rng(1).multinomial(50, np.full(50, 1 / 50), size=4).astype(float)
    batch = kappa_vs_rest(codes, np.eye(3), C)["value"]
    one = np.vstack([kappa_vs_rest(codes, np.eye(3), c[None])["value"] for c in C])
    np.testing.assert_allclose(batch, one, rtol=1e-12)


def test_leave_one_rater_out_equals_the_coefficient_of_the_others():
    ann = sis.Annotations.from_wide(_table())
    t = sis.leave_one_rater_out(ann, "krippendorff_alpha", ci=sis.Bootstrap(n=200, seed=1))
    assert list(t.rater) == list(ann.raters) and t.attrs["value_all"] == pytest.approx(sis.krippendorff_alpha(ann).value)
    for rec in t.itertuples():
        others = [r for r in ann.raters if r != rec.rater]
        assert rec.value_without == pytest.approx(sis.krippendorff_alpha(ann.subset_raters(others)).value, abs=1e-12)
        assert rec.change == pytest.approx(t.attrs["value_all"] - rec.value_without, abs=1e-12)
        assert rec.vs_rest_ci_low <= rec.kappa_vs_rest <= rec.vs_rest_ci_high
        assert rec.change_ci_low <= rec.change <= rec.change_ci_high
    plain = sis.leave_one_rater_out(ann)
    assert plain[["vs_rest_ci_low", "change_ci_low"]].isna().all().all()
    with pytest.raises(ValueError, match="at least 3 raters"):
        sis.leave_one_rater_out([r[:2] for r in _table()])
    with pytest.raises(ValueError, match="item designs|resamples items"):
        sis.leave_one_rater_out(ann, ci=sis.Bootstrap(n=50, design="raters"))


def test_a_chance_setting_reaches_the_coefficients_and_kappa_vs_rest_says_its_own_is_exact():
    ann = sis.Annotations.from_wide(_table())
    mc = sis.MonteCarlo(permutations=4, seed=2)
    t = sis.leave_one_rater_out(ann, "fleiss_kappa", chance=mc)
    exact = sis.leave_one_rater_out(ann, "fleiss_kappa")
    codes = np.asarray(ann.codes)
    np.testing.assert_allclose(t["kappa_vs_rest"], kappa_vs_rest(codes, np.eye(3))["value"][0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(t["kappa_vs_rest"], exact["kappa_vs_rest"], rtol=0, atol=1e-12)
    for rec in t.itertuples():
        others = ann.subset_raters([r for r in ann.raters if r != rec.rater])
        assert rec.value_without == pytest.approx(sis.fleiss_kappa(others, chance=mc).value, abs=1e-12)
    assert t.attrs["value_all"] == pytest.approx(sis.fleiss_kappa(ann, chance=mc).value, abs=1e-12)
    assert t.attrs["vs_rest_notes"] == [
        "kappa_vs_rest: chance agreement exact (the rater's and the rest's label shares over the full label "
        "similarity); the chance setting (monte_carlo(D=4)) applies to value_all, value_without and change"]
    assert exact.attrs["vs_rest_notes"] == [] and sis.leave_one_rater_out(ann, chance="exact").attrs[
        "vs_rest_notes"] == []


@pytest.mark.filterwarnings("ignore::softirr_stats.comparison._compare.ComparisonWarning")  # independent draws
def test_leave_one_rater_out_with_sampled_chance_and_a_bootstrap():
    """Alpha's Monte Carlo chance draws a number of pairs that depends on the raters, so the coefficient without
    a rater draws its own; the comparison recomputed them on another stream and then required them to equal the
    input's own replicates, raising 'please report this' (RuntimeError)."""
    from softirr_stats.agreement import resolve_chance

    ann = sis.Annotations.from_wide(_table(60))
    chance = resolve_chance("mc:5", seed=3)
    t = sis.leave_one_rater_out(ann, "krippendorff_alpha", ci=sis.Bootstrap(n=100, seed=0), chance=chance)
    for rec in t.itertuples():
        others = [r for r in ann.raters if r != rec.rater]
        want = sis.krippendorff_alpha(ann.subset_raters(others), chance=chance).value
        assert rec.value_without == pytest.approx(want, abs=1e-12)
        assert rec.change_ci_low <= rec.change <= rec.change_ci_high


def test_against_reference_tables():
    rows = _table(60, raters=4, seed=2)
    ann = sis.Annotations.from_wide(rows)
    r = sis.against_reference(ann, reference=3, ci=sis.Bootstrap(n=200))
    assert list(r.by_rater.rater) == [0, 1, 2]
    for rec in r.by_rater.itertuples():
        assert rec.value == pytest.approx(sis.cohen_kappa(ann.subset_raters([3, rec.rater])).value, abs=1e-12)
        assert rec.ci_low <= rec.value <= rec.ci_high
    conf = r.confusion
    assert conf.groupby("rater")["count"].sum().tolist() == [60, 60, 60]
    table = pd.crosstab(pd.Series([x[3] for x in rows]), pd.Series([x[0] for x in rows]))
    got = conf[conf.rater == 0].set_index(["reference_label", "rater_label"])["count"]
    for (ref_label, rater_label), v in got.items():
        assert table.loc[ref_label, rater_label] == v
    cat = r.by_category[(r.by_category.rater == 0)].set_index("category")
    n_kk = table.loc["cat", "cat"]
    assert cat.loc["cat", "specific_agreement"] == pytest.approx(2 * n_kk / (table.loc["cat"].sum()
                                                                              + table["cat"].sum()))
    dis = r.disagreements
    assert dis.mean_similarity.is_monotonic_increasing and len(dis) == 60
    assert dis.iloc[0].n_disagreeing == 3  # every rater disagrees with the reference on the worst item
    assert "Items with the largest disagreement" in r.to_markdown() and "\\toprule" in r.to_latex()
    with pytest.raises(ValueError, match="reference 'gold' is not a rater"):
        sis.against_reference(ann, reference="gold")
    soft = sis.against_reference(ann, reference=3, similarity="levenshtein", top=5)
    assert len(soft.disagreements) == 5 and soft.similarity != "identity"


def _one_rater_items(extra):
    rows = [["a", "a", "a"], ["b", "b", "a"], ["a", "b", "b"], ["b", "b", "b"]] * 10
    return rows + [[label, None, None] for label in extra]


@pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")
def test_an_item_only_the_left_out_rater_rated_is_paired_with_the_bootstrap():
    # rater 0 (a model labelling every item) alone rated the last item: the two statistics are on the same 41
    # items (the item adds nothing to the others' kappa); this raised "needs at least 2 items per stratum"
    from softirr_stats.uncertainty import percentile_interval, unit_weights

    rows = _one_rater_items(["a"])
    ann = sis.Annotations.from_wide(rows)
    B = sis.Bootstrap(n=300, seed=0, method="percentile")
    t = sis.leave_one_rater_out(ann, "fleiss_kappa", ci=B)
    without = sis.fleiss_kappa(ann.subset_raters([1, 2]))
    assert t.value_without[0] == pytest.approx(without.value, abs=1e-12)
    C = unit_weights(41, B, 0, 300)  # the full data's item weights; the others' statistic on its 40 items
    d = (sis.fleiss_kappa(ann).details["statistic"].evaluate(C)["value"]
         - without.details["statistic"].evaluate(np.ascontiguousarray(C[:, :40]))["value"])
    lo, hi = percentile_interval(d, 0.95)
    assert (t.change_ci_low[0], t.change_ci_high[0]) == pytest.approx((lo, hi), abs=1e-12)
    assert t[["change_ci_low", "change_ci_high", "vs_rest_ci_low"]].notna().all().all()


@pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")
def test_an_item_only_the_left_out_rater_rated_is_paired_analytically():
    # the analytic comparison raised "share 40 of their 42 and 40 items"; its SE is close to the bootstrap's
    rows = _one_rater_items(["a", "b"])
    an = sis.leave_one_rater_out(rows, "fleiss_kappa", ci="analytic")
    boot = sis.leave_one_rater_out(rows, "fleiss_kappa", ci=sis.Bootstrap(n=2000, seed=1, method="percentile"))
    assert an[["change_ci_low", "change_ci_high", "change_p_value"]].notna().all().all()
    width_an = an.change_ci_high - an.change_ci_low
    width_boot = boot.change_ci_high - boot.change_ci_low
    np.testing.assert_allclose(width_an, width_boot, rtol=0.25)


def test_vs_rest_interval_follows_the_bootstrap_method_and_says_which():
    from softirr_stats.comparison._per_rater import kappa_vs_rest
    from softirr_stats.uncertainty import bca_interval

    ann = sis.Annotations.from_wide(_table(40, raters=3, seed=4))
    B = sis.Bootstrap(n=300, seed=2, method="bca")
    t = sis.leave_one_rater_out(ann, "fleiss_kappa", ci=B)
    assert t.attrs["vs_rest_method"] == "bootstrap-bca"
    codes = np.asarray(ann.codes)
    reps = sis.leave_one_rater_out(ann, "fleiss_kappa", ci=sis.Bootstrap(n=300, seed=2, method="percentile"))
    assert reps.attrs["vs_rest_method"] == "bootstrap-percentile"
    assert not np.allclose(t.vs_rest_ci_low, reps.vs_rest_ci_low)
    from softirr_stats.comparison._per_rater import _item_weights

    boot = np.concatenate([kappa_vs_rest(codes, np.eye(3), C)["value"] for C in _item_weights(ann.items, 3, B)])
    jack = kappa_vs_rest(codes, np.eye(3), 1.0 - np.eye(40))["value"]
    est = kappa_vs_rest(codes, np.eye(3))["value"][0]
    lo, hi, _ = bca_interval(boot[:, 0], est[0], jack[:, 0], 0.95)
    assert (t.vs_rest_ci_low[0], t.vs_rest_ci_high[0]) == pytest.approx((lo, hi), abs=1e-12)
    auto = sis.leave_one_rater_out(ann, "fleiss_kappa", ci=sis.Bootstrap(n=100, seed=2))
    assert auto.attrs["vs_rest_method"] == "bootstrap-bca-t" and "method='auto'" in auto.attrs["vs_rest_notes"][0]


def test_against_reference_records_how_its_intervals_were_made():
    # by_rater had a "95% CI" and no record of the method, B, design or seed
    ann = sis.Annotations.from_wide(_table(60, raters=3, seed=5))
    r = sis.against_reference(ann, reference=2, ci=sis.Bootstrap(n=200, seed=7, method="bca"))
    assert set(r.by_rater.ci_method) == {"bootstrap-bca"}
    assert r.by_rater[["bootstrap_n", "bootstrap_design", "bootstrap_seed"]].drop_duplicates().values.tolist() == [
        [200, "items", 7]]
    assert r.interval == "Intervals: 95% bootstrap-bca, B=200, design=items, seed=7."
    assert r.interval in r.to_markdown() and "seed=7" in r.to_latex(caption="Raters") and "seed=7" in r._repr_html_()
    assert sis.against_reference(ann, reference=2).interval == ""


def _scores(n=60, raters=4, seed=3):
    """Scores 1..5 with some missing ratings."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n)
    cols = [np.clip(truth + rng.integers(-1, 2, n) * (rng.random(n) < 0.5), 1, 5).astype(object) for _ in range(raters)]
    table = np.column_stack(cols)
    table[rng.random(table.shape) < 0.1] = None
    return sis.Annotations.from_wide(table.tolist())


def _level_matrix(ann, level):
    """The level's metric as a similarity, 1 - delta / max delta, written out from Krippendorff's definitions."""
    x = np.asarray(ann.vocabulary, dtype=float)
    a, b = x[:, None], x[None, :]
    if level == "ordinal":  # from the coincidence marginals: each value's count on the items with 2+ ratings
        codes = np.asarray(ann.codes)
        pairable = (codes >= 0) & ((codes >= 0).sum(axis=1) >= 2)[:, None]
        n = np.bincount(codes[pairable], minlength=len(x)).astype(float)
        lo, hi = np.minimum.outer(np.arange(len(x)), np.arange(len(x))), np.maximum.outer(np.arange(len(x)),
                                                                                          np.arange(len(x)))
        cum = np.concatenate([[0.0], np.cumsum(n)])
        delta = (cum[hi + 1] - cum[lo] - (n[lo] + n[hi]) / 2) ** 2
    else:
        delta = (a - b) ** 2 if level == "interval" else ((a - b) / (a + b)) ** 2
    return 1.0 - delta / delta.max()


@pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")
@pytest.mark.parametrize("level", ["interval", "ratio", "ordinal"])
def test_kappa_vs_rest_uses_the_level_of_alpha(level):
    """kappa_vs_rest took exact matching under level= (a nominal 0.23 beside an interval alpha of 0.77), while
    similarity= with the same metric gave the level's value: two requests for one alpha gave two vs-rest values."""
    ann = _scores()
    S = _level_matrix(ann, level)
    assert sis.krippendorff_alpha(ann, similarity=S).value == pytest.approx(
        sis.krippendorff_alpha(ann, level=level).value, abs=1e-12)  # S is the level's metric
    got = sis.leave_one_rater_out(ann, "krippendorff_alpha", level=level)
    want = sis.leave_one_rater_out(ann, "krippendorff_alpha", similarity=S)
    np.testing.assert_allclose(got.kappa_vs_rest, want.kappa_vs_rest, rtol=0, atol=1e-12)
    assert not np.allclose(got.kappa_vs_rest, sis.leave_one_rater_out(ann, "krippendorff_alpha").kappa_vs_rest)
    if level == "interval":
        quadratic = sis.leave_one_rater_out(ann, "krippendorff_alpha", similarity="quadratic")
        np.testing.assert_allclose(got.kappa_vs_rest, quadratic.kappa_vs_rest, rtol=0, atol=1e-12)


@pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")
@pytest.mark.parametrize("level", ["interval", "ordinal"])
def test_against_reference_ranks_disagreements_by_the_level(level):
    """Under level= the worst items were ranked by exact match: reference 4 and everyone else 5 ranked with
    reference 1 and everyone else 3 on an ordinal scale."""
    ann = _scores(raters=5)
    S = _level_matrix(ann, level)
    r = sis.against_reference(ann, 0, coefficient="krippendorff_alpha", level=level)
    assert r.similarity == f"{level}-distance"
    codes = np.asarray(ann.codes)
    pair = (codes[:, :1] >= 0) & (codes[:, 1:] >= 0)
    sims = np.where(pair, S[codes[:, 1:], codes[:, :1]], 0.0).sum(axis=1)
    keep = pair.any(axis=1)
    want = pd.Series(sims[keep] / pair.sum(axis=1)[keep], index=np.asarray(ann.items)[keep])
    dis = r.disagreements
    np.testing.assert_allclose(dis.mean_similarity, want.loc[dis.item].to_numpy(), rtol=0, atol=1e-12)
    assert dis.mean_similarity.is_monotonic_increasing
    explicit = sis.against_reference(ann, 0, coefficient="krippendorff_alpha", similarity=S)
    np.testing.assert_allclose(r.by_category.mean_similarity, explicit.by_category.mean_similarity, atol=1e-12)


def test_kappa_vs_rest_is_widened_like_the_coefficients_under_few_clusters():
    """Under the cluster design the kappa_vs_rest interval kept the bootstrap's quantiles while value_without
    and the coefficients were widened by the few-units rule (the same with few_units='none' or 't')."""
    ann = sis.Annotations.from_wide(_table(48, raters=4, seed=5))
    cluster = np.repeat(np.arange(12), 4).tolist()
    strata = np.repeat(np.arange(3), 16).tolist()
    for extra in ({}, {"strata": strata}):
        t = sis.leave_one_rater_out(ann, "fleiss_kappa", ci=sis.Bootstrap(n=200, seed=0, design="cluster",
                                                                          cluster=cluster, **extra))
        plain = sis.leave_one_rater_out(ann, "fleiss_kappa", ci=sis.Bootstrap(n=200, seed=0, design="cluster",
                                                                              cluster=cluster, few_units="none",
                                                                              **extra))
        wide = (t.vs_rest_ci_high - t.vs_rest_ci_low) / (plain.vs_rest_ci_high - plain.vs_rest_ci_low)
        want = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=200, seed=0, design="cluster", cluster=cluster,
                                                      **extra)).details["few_units_factor"]
        assert wide.to_numpy() == pytest.approx(want, rel=0.15)  # each rater's own replicates, the same rule
        assert (wide > 1.05).all()
