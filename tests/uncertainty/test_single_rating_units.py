"""Items that cannot change a coefficient are no units of its bootstrap interval's few-items rule.

An item with a single rating adds nothing to Krippendorff's alpha (its coincidence matrix holds pairable values
only), to Brennan-Prediger, percent agreement or Light's kappa; Fleiss' / Scott's, Cohen's / Conger's and AC1's
chance terms count it. Counted as units, 8 single-rating items beside 12 pairable ones took alpha's default
interval from 11 to 19 degrees of freedom and lifted it over the few-items warning. The bootstrap still draws
every item (benchmarks/single_rating_coverage.py, docs/coverage.md "Items with a single rating").
"""

import warnings

import numpy as np
import pytest
from scipy import stats
from scipy.special import ndtr, ndtri

import softirr_stats as sis
from softirr_stats.agreement import NOTE_PREFIXES, point_estimate, resolve_similarity
from softirr_stats.agreement._families import FAMILIES
from softirr_stats.uncertainty import FewUnitsWarning, interval_items, unit_weights
from softirr_stats.uncertainty._bootstrap import UNITS_NOTE

_PAIRED = [["0", "0", "1"], ["1", "1", "1"], ["2", "0", "2"], ["0", "0", "0"], ["1", "2", "1"], ["2", "2", None],
           ["0", None, "0"], ["1", "1", "0"], ["2", "2", "2"], [None, "1", "1"], ["0", "1", "0"], ["2", "1", "2"]]
_SINGLE = [["0", None, None], [None, "1", None], [None, None, "2"], ["2", None, None], [None, "0", None],
           ["1", None, None], [None, None, "0"], [None, "2", None]]


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _bca_t_by_hand(reps: np.ndarray, estimate: float, jack: np.ndarray, dof: int, level: float = 0.95):
    """BCa (scipy's form, ties counted half) with the Student-t quantile of ``dof`` degrees of freedom."""
    z0 = ndtri((np.sum(reps < estimate - 1e-12) + np.sum(reps <= estimate + 1e-12)) / (2.0 * reps.size))
    d = jack.mean() - jack
    a = np.sum(d**3) / (6.0 * np.sum(d**2) ** 1.5)
    t = stats.t.ppf((1 + level) / 2, dof)
    q = [ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))) for z in (-t, t)]
    return tuple(np.percentile(reps, [100 * q[0], 100 * q[1]]))


def test_single_rating_items_are_no_units_of_alphas_interval():
    """12 pairable items and 8 with one rating: the default interval has 11 df (it had 19), the few-items
    warning counts 12 items (20 gave none), the value and the draws are those of all 20 items."""
    rows = _PAIRED + _SINGLE
    cfg = sis.Bootstrap(n=2000, seed=0)
    with pytest.warns(FewUnitsWarning, match=r"^12 items resampled \(fewer than 20\)"):
        r = sis.krippendorff_alpha(rows, ci=cfg)
    assert r.value == pytest.approx(_quiet(sis.krippendorff_alpha, _PAIRED).value, abs=1e-15)
    assert r.n_items == 20 and r.details["n_pairable_items"] == 12 and r.details["n_uninformative_items"] == 8
    assert r.details["t_dof"] == 11 and r.ci_method == "bootstrap-bca-t"
    assert "11 df (items design, 12 <= 1000 items)" in r.details["interval_rule"]
    assert ("interval units: 8 of 20 items (items with a single rating or none) cannot change krippendorff_alpha "
            "and are no units of the interval: its few-items count and Student-t degrees of freedom are those of "
            "the other 12 (the bootstrap still draws all 20)") in r.notes  # a note: nothing went wrong
    assert UNITS_NOTE in NOTE_PREFIXES
    # the draws are over all 20 items: replicate b is alpha of the rows repeated by the b-th multinomial counts
    counts = unit_weights(20, cfg, 0, 3).astype(int)
    for b in range(3):
        drawn = [row for row, k in zip(rows, counts[b], strict=True) for _ in range(k)]
        assert r.details["replicates"][b] == pytest.approx(_quiet(sis.krippendorff_alpha, drawn).value, abs=1e-12)
    # the interval: BCa with t_11, the acceleration from leave-one-item-out alphas (a single item's is alpha)
    jack = np.array([_quiet(sis.krippendorff_alpha, rows[:i] + rows[i + 1:]).value for i in range(20)])
    assert np.all(jack[12:] == pytest.approx(r.value, abs=1e-15))
    lo, hi = _bca_t_by_hand(r.details["replicates"], r.value, jack, 11)
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    assert r.ci_low < _bca_t_by_hand(r.details["replicates"], r.value, jack, 19)[0]  # wider than with 19 df


@pytest.mark.parametrize("name, kw", [("brennan_prediger", {}), ("percent_agreement", {}), ("light_kappa", {}),
                                      ("krippendorff_alpha", {"level": "ordinal"}),
                                      ("krippendorff_alpha", {"level": "interval"})])
def test_every_coefficient_single_ratings_do_not_change_counts_the_pairable_items(name, kw):
    def data(rows):  # numbers for the interval metric
        return [[None if x is None else float(x) for x in row] for row in rows] if kw else rows

    with pytest.warns(FewUnitsWarning, match=r"^12 items resampled"):
        r = getattr(sis, name)(data(_PAIRED + _SINGLE), ci=sis.Bootstrap(n=400, seed=1), **kw)
    assert r.details["t_dof"] == 11 and r.details["n_uninformative_items"] == 8
    assert r.value == pytest.approx(_quiet(getattr(sis, name), data(_PAIRED), **kw).value, abs=1e-14)


@pytest.mark.parametrize("name", ["fleiss_kappa", "gwet_ac1", "conger_kappa"])
def test_single_ratings_in_the_chance_term_keep_their_items_as_units(name):
    """Fleiss', AC1's and Conger's chance terms count single ratings: all 20 items stay units (19 df)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewUnitsWarning)
        r = _quiet(getattr(sis, name), _PAIRED + _SINGLE, ci=sis.Bootstrap(n=400, seed=1))
    assert r.details["t_dof"] == 19 and r.details["n_uninformative_items"] == 0
    assert not any("no units of the interval" in w for w in r.warnings)
    assert r.value != pytest.approx(_quiet(getattr(sis, name), _PAIRED).value, abs=1e-6)  # they move the value


def test_items_without_a_rating_are_no_units_and_the_rule_and_the_interval_agree():
    """Two items nobody rated beside 12 rated ones: the interval rule said 11 df while BCa-t took 13 (one per
    jackknife value) and the few-items warning said 14 items; now 11 df and 12 items throughout."""
    rows = _PAIRED + [[None, None, None]] * 2
    cfg = sis.Bootstrap(n=1000, seed=2)
    with pytest.warns(FewUnitsWarning, match=r"^12 items resampled"):
        r = sis.fleiss_kappa(rows, ci=cfg)
    assert r.details["t_dof"] == 11 and "11 df" in r.details["interval_rule"]
    assert r.details["n_uninformative_items"] == 2
    assert any(w.startswith("interval units: 2 of 14 items (items with no rating) cannot change fleiss_kappa")
               for w in r.notes)
    jack = np.array([_quiet(sis.fleiss_kappa, _PAIRED[:i] + _PAIRED[i + 1:]).value for i in range(12)]
                    + [r.value, r.value])
    lo, hi = _bca_t_by_hand(r.details["replicates"], r.value, jack, 11)
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)


def test_the_bayesian_design_counts_the_pairable_items_too():
    with pytest.warns(FewUnitsWarning, match=r"^12 items resampled"):
        r = sis.krippendorff_alpha(_PAIRED + _SINGLE, ci=sis.Bootstrap(n=400, seed=0, design="bayesian"))
    assert r.details["t_dof"] == 11


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_familys_single_ratings_flag_is_what_its_value_does(family):
    """``ChanceFamily.single_ratings`` says whether weighting the single-rating items moves the value."""
    ann = sis.Annotations.from_wide(_PAIRED + _SINGLE + [[None, None, None]])
    res, prep = _quiet(point_estimate, ann, family=family, coefficient="x", sim=resolve_similarity(ann))
    C = np.ones((3, prep.n_items))
    C[1, 12:] = 0.0
    C[2, 12:] = 2.5
    value = prep.evaluate(C)["value"]
    moved = not np.allclose(value, value[0], rtol=0.0, atol=1e-13)
    assert moved == FAMILIES[family].single_ratings
    expected = (12 + 8) if FAMILIES[family].single_ratings else 12
    assert interval_items(prep) == (expected, 21 - expected)


def test_clusters_of_single_ratings_are_no_units_of_a_cluster_interval():
    """6 clusters of pairable items and 3 whose items carry one rating each: alpha's cluster interval is widened
    by t_5 / z * sqrt(6 / 5), the factor of 6 clusters, and warns of 6 (it counted 9 and used t_8)."""
    from softirr_stats.uncertainty import few_units_factor
    from softirr_stats.uncertainty._bootstrap import informative_clusters

    rows = _PAIRED + _SINGLE[:6]
    cluster = [i // 2 for i in range(12)] + [6, 6, 7, 7, 8, 8]
    cfg = sis.Bootstrap(n=500, seed=3, design="cluster", cluster=cluster, method="percentile")
    with pytest.warns(FewUnitsWarning, match=r"^6 clusters resampled \(fewer than 10\)"):
        r = sis.krippendorff_alpha(rows, ci=cfg)
    _, prep = _quiet(point_estimate, sis.Annotations.from_wide(rows), family="alpha",
                     coefficient="krippendorff_alpha", sim=resolve_similarity(sis.Annotations.from_wide(rows)))
    assert informative_clusters(prep, cfg) == 6
    raw = _quiet(sis.krippendorff_alpha, rows, ci=sis.Bootstrap(n=500, seed=3, design="cluster", cluster=cluster,
                                                                  method="percentile", few_units="none"))
    from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS, bootstrap_replicates

    reps = bootstrap_replicates(prep, cfg)["value"]
    factor = few_units_factor(reps, BOOTSTRAP_DESIGNS["cluster"], 6, 0.95)
    assert factor == pytest.approx(stats.t.ppf(0.975, 5) / ndtri(0.975) * np.sqrt(6 / 5), rel=1e-12)
    # the widened interval: the raw percentile interval scaled about the estimate by the 6-cluster factor
    assert (r.ci_low, r.ci_high) == pytest.approx((r.value - factor * (r.value - raw.ci_low),
                                                   r.value + factor * (raw.ci_high - r.value)), abs=1e-12)
    fleiss = _quiet(sis.fleiss_kappa, rows, ci=cfg)  # single ratings enter Fleiss' chance term: 9 clusters
    assert any(n.startswith("9 clusters resampled") for n in fleiss.warnings), fleiss.warnings


def _leave_out(rows, units, fn=sis.krippendorff_alpha):
    """``fn`` of ``rows`` without each unit's rows (a unit: a list of row numbers), by hand."""
    return np.array([_quiet(fn, [row for k, row in enumerate(rows) if k not in set(u)]).value for u in units])


def _satterthwaite(jack, strata):
    """Satterthwaite df of the stratified jackknife variance, written out stratum by stratum."""
    shares, dfs = [], []
    for h in sorted(set(strata)):
        x = np.array([j for j, s in zip(jack, strata, strict=True) if s == h])
        if len(x) > 1:
            shares.append((len(x) - 1) / len(x) * np.sum((x - x.mean()) ** 2))
            dfs.append(len(x) - 1)
    shares, dfs = np.array(shares), np.array(dfs, dtype=float)
    return float(shares.sum() ** 2 / np.sum(shares**2 / dfs))


@pytest.mark.parametrize(("strata", "before"), [
    (["x"] * 6 + ["y"] * 6 + ["x"] * 4 + ["y"] * 4, 17.980040342387674),  # 6 + 4 and 6 + 4
    (["x"] * 12 + ["y"] * 4 + ["x"] * 4, 15.0),  # y holds single ratings only: no stratum of the interval
])
def test_stratified_bca_t_counts_the_informative_items_per_stratum(strata, before):
    """With strata=, the Satterthwaite df of bca-t counts in each stratum the items that can change alpha: with 12
    pairable items in 2 strata they were 17.98 (above the 11 of the unstratified rule), counting 8 single-rating
    items whose leave-one-out value is alpha itself; and a stratum of single ratings only took the df from 11 to 15.
    The acceleration keeps every item's leave-one-out value, as without strata."""
    rows = _PAIRED + _SINGLE
    cfg = sis.Bootstrap(n=1000, seed=0, strata=strata)
    r = _quiet(sis.krippendorff_alpha, rows, ci=cfg)
    jack = _leave_out(rows, [[i] for i in range(20)])
    assert np.all(jack[12:] == pytest.approx(r.value, abs=1e-15))
    dof = _satterthwaite(jack[:12], strata[:12])
    assert r.details["t_dof"] == pytest.approx(dof, abs=1e-12)
    assert dof <= 11 < before and abs(r.details["t_dof"] - before) > 1  # the old count, for the record
    assert f"{dof:.3g} df (Satterthwaite, {len(set(strata[:12]))} strata)" in r.details["interval_rule"]
    lo, hi = _bca_t_by_hand(r.details["replicates"], r.value, jack, dof)
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    assert any("its few-items count, its strata's sizes and Student-t degrees of freedom are those of the other 12"
               in w for w in r.notes)
    assert not any("strata have fewer than" in w for w in r.warnings)  # 6 + 6 or 12 pairable items per stratum


def test_a_stratum_left_with_one_informative_item_is_a_small_stratum():
    """y: 1 pairable item beside 4 single ratings (5 items: no note before). It has no variance to resample: the
    df are those of x alone (11 pairable items: 10), and the small-strata note counts it as a stratum of 1."""
    rows = _PAIRED + _SINGLE
    strata = ["x"] * 11 + ["y"] + ["x"] * 4 + ["y"] * 4
    with pytest.warns(FewUnitsWarning, match=r"^1 of 2 strata have fewer than 5 items that can change the value "
                                             r"\(smallest 1\): .* \(none of it in a stratum of 1\)"):
        r = sis.krippendorff_alpha(rows, ci=sis.Bootstrap(n=1000, seed=0, strata=strata))
    jack = _leave_out(rows, [[i] for i in range(20)])
    assert _satterthwaite(jack[:12], strata[:12]) == pytest.approx(10.0, abs=1e-12)  # one varying stratum: n_x - 1
    assert r.details["t_dof"] == pytest.approx(10.0, abs=1e-12)
    lo, hi = _bca_t_by_hand(r.details["replicates"], r.value, jack, 10)
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    with warnings.catch_warnings():  # Fleiss' chance term counts single ratings: y has 5 items that count
        warnings.simplefilter("error", FewUnitsWarning)
        f = _quiet(sis.fleiss_kappa, rows, ci=sis.Bootstrap(n=200, seed=0, strata=strata))
    assert not any("strata have fewer than" in w for w in f.warnings)


_CLUSTERS = [[2 * c, 2 * c + 1] for c in range(6)] + [[12, 13], [14, 15], [16, 17]]  # 6 pairable, 3 single


def test_stratified_cluster_factor_counts_the_informative_clusters_per_stratum():
    """6 clusters of pairable items and 3 of single ratings in 2 strata (x: 3 + 2, y: 3 + 1): the Student-t factor
    takes the 6 informative clusters' strata, 3 and 3: d = 36 / (9/2 + 9/2) = 4 df and U / (U - H) = 6 / 4 (it took
    d = 81 / (25/4 + 16/3) and 9 / 7 from all 9 clusters)."""
    rows = _PAIRED + _SINGLE[:6]
    cluster = [c for c, items in enumerate(_CLUSTERS) for _ in items]
    cl_strata = ["x", "x", "x", "y", "y", "y", "x", "x", "y"]
    strata = [cl_strata[c] for c in cluster]
    kw = dict(n=500, seed=3, design="cluster", cluster=cluster, strata=strata, method="basic")
    with pytest.warns(FewUnitsWarning, match=r"^6 clusters resampled .* \(Student-t correction with 4 df and the "
                                             r"variance ratio U / \(U - H\) = 1\.5 of 2 strata applied\)"):
        r = sis.krippendorff_alpha(rows, ci=sis.Bootstrap(**kw))
    raw = _quiet(sis.krippendorff_alpha, rows, ci=sis.Bootstrap(**kw, few_units="none"))
    factor = stats.t.ppf(0.975, 4) / ndtri(0.975) * np.sqrt(6 / 4)
    assert r.details["few_units_factor"] == pytest.approx(factor, rel=1e-12)
    assert (r.ci_low, r.ci_high) == pytest.approx((r.value - factor * (r.value - raw.ci_low),
                                                   r.value + factor * (raw.ci_high - r.value)), abs=1e-12)


def test_the_cluster_jackknife_leaves_out_clusters_that_cannot_change_alpha():
    """BCa's acceleration and bca-t's df over the 6 clusters of pairable items: the 3 clusters of single ratings
    have alpha itself as their leave-one-out value and were units of the acceleration (-0.00471 with them,
    -0.00671 without) and of the df (8, now 5, the few-clusters rule's count)."""
    rows = _PAIRED + _SINGLE[:6]
    cluster = [c for c, items in enumerate(_CLUSTERS) for _ in items]
    jack = _leave_out(rows, _CLUSTERS)
    for method, dof in (("bca-t", 5), ("bca", None)):
        cfg = sis.Bootstrap(n=1000, seed=4, design="cluster", cluster=cluster, method=method, few_units="none")
        r = _quiet(sis.krippendorff_alpha, rows, ci=cfg)
        assert np.all(jack[6:] == pytest.approx(r.value, abs=1e-15))
        reps = r.details["replicates"]
        lo, hi = _bca_t_by_hand(reps, r.value, jack[:6], dof if dof else np.inf)
        assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)
        assert abs(_bca_t_by_hand(reps, r.value, jack, dof if dof else np.inf)[0] - lo) > 1e-6  # with all 9
        assert r.details.get("t_dof") == dof
    d6, d9 = jack[:6].mean() - jack[:6], jack.mean() - jack
    assert np.sum(d6**3) / (6 * np.sum(d6**2) ** 1.5) == pytest.approx(-0.006710158258612, abs=1e-12)
    assert np.sum(d9**3) / (6 * np.sum(d9**2) ** 1.5) == pytest.approx(-0.004712456883829, abs=1e-12)


def test_fleiss_keeps_its_clusters_of_single_ratings_in_the_jackknife_and_leaves_out_unrated_ones():
    """Fleiss' chance term counts single ratings: their clusters move kappa (leave-one-out values differ from it) and
    stay units (9 clusters, t_8). Two clusters of unrated items cannot move it and are left out (they gave 10 df)."""
    rows = _PAIRED + _SINGLE[:6] + [[None, None, None]] * 4
    units = _CLUSTERS + [[18, 19], [20, 21]]
    cluster = [c for c, items in enumerate(units) for _ in items]
    jack = _leave_out(rows, units, sis.fleiss_kappa)
    cfg = sis.Bootstrap(n=1000, seed=5, design="cluster", cluster=cluster, method="bca-t", few_units="none")
    r = _quiet(sis.fleiss_kappa, rows, ci=cfg)
    assert np.all(np.abs(jack[6:9] - r.value) > 1e-4) and np.all(jack[9:] == pytest.approx(r.value, abs=1e-15))
    assert r.details["t_dof"] == 8
    lo, hi = _bca_t_by_hand(r.details["replicates"], r.value, jack[:9], 8)
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)
