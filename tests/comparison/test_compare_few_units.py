"""``compare`` widens the difference over few raters or clusters by the coefficients' own rule.

The rule is ``uncertainty.few_units_factor`` (docs/coverage.md, "Few raters"): for ``items+raters`` the rater
share of the variance (leave-one-rater-out jackknife) is widened by ``t_{R-1} / z`` after the item share has
lost the item x rater interaction the two-way bootstrap counts again. ``compare`` applies it to the
*difference*: its replicates, its leave-one-rater-out values and its item-only replicates at the same seed.
"""

import math
import warnings
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

import softirr_stats as sis
from softirr_stats.uncertainty import Bootstrap

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.FewUnitsWarning",
                                        "ignore::softirr_stats.DegenerateWarning")


def _labels(n_items=60, raters=3, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n_items)
    acc = rng.uniform(0.4, 0.9, raters)
    return np.where(rng.random((n_items, raters)) < acc, truth[:, None], rng.integers(0, 3, (n_items, raters)))


def _t(units, level=0.95):
    q = (1 + level) / 2
    return stats.t.ppf(q, units - 1) / stats.norm.ppf(q)


@pytest.mark.parametrize("design", ["items+raters", "raters", "cluster"])
def test_difference_with_a_constant_gets_the_coefficients_own_widening(design):
    """b is constant (percent agreement of identical ratings, same items and raters): the difference's
    replicates, rater jackknife and item-only replicates are a's shifted by 1, so the widening factor and
    the interval must be a's own (shifted). Before the shared rule, items+raters got t * sqrt(R / (R - 1))."""
    labels = _labels(60, 3, seed=0)
    ann = sis.Annotations.from_wide(labels)
    const = sis.Annotations.from_wide(np.zeros_like(labels))
    cluster = None if design != "cluster" else dict(zip(ann.items, np.repeat(np.arange(6), 10).tolist(), strict=True))
    cfg = Bootstrap(n=300, seed=4, design=design, cluster=cluster)
    a = sis.fleiss_kappa(ann, ci=cfg)
    b = sis.percent_agreement(const, ci=cfg)
    assert b.value == 1.0 and a.ci_high < 1.0  # no clipping at 1 on a's side
    r = sis.compare(a, b)
    assert r.details["few_units_factor"] == pytest.approx(a.details["few_units_factor"], rel=1e-12)
    assert (r.ci_low, r.ci_high) == pytest.approx((a.ci_low - 1.0, a.ci_high - 1.0), abs=1e-12)
    assert r.se == pytest.approx(a.se, rel=1e-12)
    units = 3 if design != "cluster" else 6
    whole = _t(units) * math.sqrt(units / (units - 1))
    if design == "items+raters":
        assert 1.0 < r.details["few_units_factor"] < whole  # only the rater share is widened
    else:
        assert r.details["few_units_factor"] == pytest.approx(whole, rel=1e-12)
    assert any(f"{units} {'raters' if design != 'cluster' else 'clusters'} resampled" in w for w in r.warnings)


def test_two_coefficients_on_the_same_data_widen_by_the_difference_components():
    """The factor recomputed from public results: the difference's two-way replicates, its leave-one-rater-out
    values (each coefficient on the data without rater j) and its item-only replicates (compare with
    design='items' at the same seed: the same item weights)."""
    labels = _labels(80, 4, seed=3)
    ann = sis.Annotations.from_wide(labels)
    cfg = Bootstrap(n=400, seed=2, design="items+raters")
    a = sis.fleiss_kappa(ann, ci=cfg)
    b = sis.krippendorff_alpha(ann, level="nominal", ci=cfg)
    r = sis.compare(a, b)
    d = r.details["replicates"]
    v = float(np.var(d[np.isfinite(d)], ddof=1))
    n, raters = labels.shape
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jack = np.array([sis.fleiss_kappa(sis.Annotations.from_wide(np.delete(labels, j, axis=1))).value
                         - sis.krippendorff_alpha(sis.Annotations.from_wide(np.delete(labels, j, axis=1)),
                                                  level="nominal").value for j in range(raters)])
        items = Bootstrap(n=400, seed=2, design="items", method="percentile")
        item = sis.compare(sis.fleiss_kappa(ann, ci=items), sis.krippendorff_alpha(ann, level="nominal", ci=items))
    v_r = min((raters - 1) / raters * np.sum((jack - jack.mean()) ** 2), v * raters / (raters - 1))
    v_i = float(np.var(item.details["replicates"], ddof=1))
    e = n * raters / ((n - 1) * (raters - 1)) * (v - v_i - (raters - 1) / raters * v_r)
    e = min(max(e, 0.0), n / (n - 1) * v_i, v_r)
    share = max(v - (raters - 1) / raters * v_r - (n - 1) / n * (1 + (raters - 1) / raters) * e, 0.0)
    want = math.sqrt((share + _t(raters) ** 2 * v_r) / v)
    assert r.details["few_units_factor"] == pytest.approx(want, rel=1e-9)
    assert want < _t(raters) * math.sqrt(raters / (raters - 1))  # not the whole-variance widening
    est = r.difference
    plain = sis.compare(a, b, ci=Bootstrap(n=400, seed=2, design="items+raters", few_units="none"))
    assert plain.details["few_units_factor"] == 1.0
    assert r.ci_low == pytest.approx(est - want * (est - plain.ci_low), abs=1e-12)
    assert r.ci_high == pytest.approx(est + want * (plain.ci_high - est), abs=1e-12)


def test_identical_inputs_have_no_spread_and_no_widening():
    """a - a is 0 in every replicate: nothing to widen (the factor is 1, the interval a point)."""
    ann = sis.Annotations.from_wide(_labels(40, 3, seed=5))
    a = sis.fleiss_kappa(ann, ci=Bootstrap(n=200, seed=1, design="items+raters"))
    r = sis.compare(a, a)
    assert r.details["few_units_factor"] == 1.0 and r.ci_low == r.ci_high == 0.0


def test_other_raters_widen_the_whole_variance():
    """Partly different raters (r4 in a, r5 in b): no leave-one-rater-out values line up, so the whole variance
    is widened, t_{R-1} / z * sqrt(R / (R - 1)) with R the smaller rater count (the rule without a jackknife)."""
    import pandas as pd

    labels = _labels(60, 5, seed=6)
    a_ann = sis.Annotations.from_wide(pd.DataFrame(labels[:, :4], columns=["r1", "r2", "r3", "r4"]))
    b_ann = sis.Annotations.from_wide(pd.DataFrame(labels[:, [0, 1, 2, 4]], columns=["r1", "r2", "r3", "r5"]))
    cfg = Bootstrap(n=200, seed=1, design="items+raters")
    r = sis.compare(sis.fleiss_kappa(a_ann, ci=cfg), sis.fleiss_kappa(b_ann, ci=cfg))
    assert r.details["few_units_factor"] == pytest.approx(_t(4) * math.sqrt(4 / 3), rel=1e-12)
    assert any("4 raters resampled" in w for w in r.warnings)


def test_stratified_clusters_widen_by_the_inputs_strata_rule():
    """Clusters drawn within strata (8 clusters, 4 strata of 2): the difference is widened as each input is,
    t_{U-H} / z * sqrt(U / (U - H)), not by the rule that ignored the strata (t_{U-1} / z * sqrt(U / (U - 1)))."""
    labels = _labels(48, 4, seed=7)
    cluster, strata = np.repeat(np.arange(8), 6).tolist(), np.repeat(np.arange(4), 12).tolist()
    cfg = Bootstrap(n=200, seed=1, design="cluster", cluster=cluster, strata=strata)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = sis.fleiss_kappa(sis.Annotations.from_wide(labels[:, :3]), ci=cfg)
        b = sis.fleiss_kappa(sis.Annotations.from_wide(labels[:, 1:]), ci=cfg)
        r = sis.compare(a, b)
    assert r.details["few_units_factor"] == pytest.approx(_t(5) * math.sqrt(2), rel=1e-12)
    assert r.details["few_units_factor"] == pytest.approx(a.details["few_units_factor"], rel=1e-12)
    assert any("8 clusters resampled within 4 strata" in w and "4 df" in w for w in r.warnings)


def test_a_widening_at_ten_or_more_clusters_is_noted_too():
    """At 10 or more units the difference's interval was widened without a word (the inputs' own intervals say
    'interval widened by the Student-t factor'); 20 clusters in 10 strata of 2 widened it by 1.6."""
    labels = _labels(60, 4, seed=3)
    cluster, strata = np.repeat(np.arange(20), 3).tolist(), np.repeat(np.arange(10), 6).tolist()
    for cfg in (Bootstrap(n=200, seed=1, design="cluster", cluster=cluster),
                Bootstrap(n=200, seed=1, design="cluster", cluster=cluster, strata=strata)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = sis.fleiss_kappa(sis.Annotations.from_wide(labels[:, :3]), ci=cfg)
            b = sis.fleiss_kappa(sis.Annotations.from_wide(labels[:, 1:]), ci=cfg)
            r = sis.compare(a, b)
        factor = r.details["few_units_factor"]
        assert factor > 1.0
        assert any(f"widened by the factor {factor:.3f}" in w for w in r.warnings), r.warnings


def test_the_independent_chance_draws_are_said_once_in_one_wording():
    labels = _labels(40, 3, seed=5)
    ann = sis.Annotations.from_wide(labels)
    mc = sis.fleiss_kappa(ann, chance=sis.MonteCarlo(permutations=3, seed=0))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = sis.compare(mc, sis.krippendorff_alpha(ann, chance=sis.MonteCarlo(permutations=3, seed=0)),
                        ci=Bootstrap(n=100))
    said = [str(w.message) for w in caught if "independently" in str(w.message)]
    noted = [w for w in r.warnings if "independently" in w]
    assert said == noted and len(noted) == 1, (said, noted)


def _with_single_rating_clusters(n_pairable=30, n_single=15, size=5, seed=8, prefix="a"):
    """A table whose last ``n_single`` items carry one rating each, in clusters of ``size`` items: the first
    clusters hold pairable items, the last ones single ratings only (no unit of alpha's interval)."""
    import pandas as pd  # as test_other_raters_widen_the_whole_variance

    labels = _labels(n_pairable + n_single, 3, seed=seed).astype(object)
    labels[n_pairable:, 1:] = None
    ids = [f"{prefix}{i}" for i in range(len(labels))]
    clusters = {it: f"{prefix}c{k // size}" for k, it in enumerate(ids)}
    return sis.Annotations.from_wide(pd.DataFrame(labels, index=ids)), clusters


def test_clusters_of_single_ratings_are_no_units_of_the_difference():
    """alpha (nominal) against alpha (interval) on 6 clusters of pairable items and 3 of single ratings: a
    single-rating cluster changes neither, so the difference's few-clusters factor, note and bca-t degrees of
    freedom count the 6 clusters, as each input's own interval does (``informative_clusters``); they counted 9
    (factor 1.248 against the inputs' 1.437)."""
    ann, clusters = _with_single_rating_clusters()
    cfg = Bootstrap(n=300, seed=0, design="cluster", cluster=[clusters[i] for i in ann.items])
    a = sis.krippendorff_alpha(ann, ci=cfg)
    b = sis.krippendorff_alpha(ann, level="interval", ci=cfg)
    r = sis.compare(a, b)
    assert r.details["few_units_factor"] == pytest.approx(a.details["few_units_factor"], rel=1e-12)
    assert r.details["few_units_factor"] == pytest.approx(_t(6) * math.sqrt(6 / 5), rel=1e-12)
    assert any(w.startswith("6 clusters resampled:") for w in r.warnings), r.warnings
    bca = replace(cfg, method="bca-t")  # the jackknife's units: 6 clusters, 5 df (8 before)
    own = sis.krippendorff_alpha(ann, ci=bca)
    rt = sis.compare(own, sis.krippendorff_alpha(ann, level="interval", ci=bca))
    assert own.details["t_dof"] == rt.details["t_dof"] == 5


def test_a_study_with_clusters_of_single_ratings_against_one_without():
    """Two studies, independent: a has 6 clusters of pairable items and 3 of single ratings, b 6 clusters of
    pairable items. The clusters resampled within the two studies' strata are the 12 that can change alpha:
    t_{12-2} / z * sqrt(12 / 10); the 3 clusters of single ratings made it 15 (t_13 / z * sqrt(15 / 13))."""
    ann_a, cl_a = _with_single_rating_clusters(prefix="a")
    ann_b, cl_b = _with_single_rating_clusters(n_single=0, seed=9, prefix="b")
    cfg = Bootstrap(n=300, seed=0, design="cluster", cluster=cl_a | cl_b)
    r = sis.compare(sis.krippendorff_alpha(ann_a, ci=cfg), sis.krippendorff_alpha(ann_b, ci=cfg))
    assert r.details["few_units_factor"] == pytest.approx(
        stats.t.ppf(0.975, 10) / stats.norm.ppf(0.975) * math.sqrt(12 / 10), rel=1e-12)
    assert any(w.startswith("12 clusters resampled within 2 strata:") for w in r.warnings), r.warnings
