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
