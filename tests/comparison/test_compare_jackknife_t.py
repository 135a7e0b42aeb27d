"""compare's method="auto" for a difference on few items: the jackknife-t (difference / jackknife SE, Student's t).

The bootstrap intervals of a paired difference rejected a true H0 too often at 20-50 items (bca-t 9.8% at 20
items; docs/comparing.md, "Simulation: the size at few items"); the jackknife-t held 4.0-5.8%. Checked here by
hand: leave-one-item-out values recomputed with the coefficient functions on the data without that item.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import softirr_stats as sis


def _judges(n=30, humans=2, seed=0):
    """Humans + judge A and humans + judge B on the same n items (3 classes, 65% correct)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    lab = np.where(rng.random((n, humans + 2)) < 0.65, truth[:, None], rng.integers(0, 3, (n, humans + 2)))
    return lab[:, : humans + 1], np.column_stack([lab[:, :humans], lab[:, humans + 1]])


def _leave_one_out(x, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array([fn(sis.Annotations.from_wide(np.delete(x, i, axis=0).tolist())).value
                         for i in range(len(x))])


def _jack_var(j):
    return (len(j) - 1.0) / len(j) * np.sum((j - j.mean()) ** 2)


def test_paired_difference_on_30_items_is_the_jackknife_t_by_hand():
    """Before: paired bootstrap-bca-t (the test that rejected 8.6% at 30 items and 5 humans)."""
    xa, xb = _judges()
    B = sis.Bootstrap(n=400, seed=3)
    r = sis.compare(sis.fleiss_kappa(xa.tolist(), ci=B), sis.fleiss_kappa(xb.tolist(), ci=B))
    assert r.method == "paired jackknife-t" and r.design == "items"
    diff = sis.fleiss_kappa(xa.tolist()).value - sis.fleiss_kappa(xb.tolist()).value
    se = math.sqrt(_jack_var(_leave_one_out(xa, sis.fleiss_kappa) - _leave_one_out(xb, sis.fleiss_kappa)))
    h = stats.t.ppf(0.975, 29) * se
    assert r.difference == pytest.approx(diff, abs=1e-12)
    assert r.se == pytest.approx(se, abs=1e-12)
    assert (r.ci_low, r.ci_high) == pytest.approx((diff - h, diff + h), abs=1e-12)
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(diff) / se, 29), abs=1e-12)
    assert r.details["t_dof"] == 29 and r.details["interval_rule"].startswith("method='auto': jackknife-t, 29 df")
    # the replicates are still drawn (ratio interval, weights check) and their SE is kept beside the jackknife's
    assert r.details["bootstrap_se"] == pytest.approx(np.std(r.details["replicates"], ddof=1), abs=1e-15)
    assert r.details["weights_check"][0].startswith("a: replicates identical")
    assert "jackknife SE of the paired difference" in r.details["test"]


def test_independent_items_add_the_two_jackknife_variances_with_welch_df():
    """Disjoint items (two rounds): var_a + var_b, Welch-Satterthwaite df. Before: independent bootstrap-percentile."""
    xa, _ = _judges(n=30, seed=1)
    _, xb = _judges(n=24, seed=2)
    a = sis.fleiss_kappa(xa.tolist())
    b = sis.fleiss_kappa(sis.Annotations.from_wide(xb.tolist(), items=range(100, 124)))
    r = sis.compare(a, b, ci=sis.Bootstrap(n=300, seed=0))
    assert r.method == "independent jackknife-t"
    va, vb = _jack_var(_leave_one_out(xa, sis.fleiss_kappa)), _jack_var(_leave_one_out(xb, sis.fleiss_kappa))
    dof = (va + vb) ** 2 / (va**2 / 29 + vb**2 / 23)
    se = math.sqrt(va + vb)
    diff = a.value - b.value
    assert r.se == pytest.approx(se, abs=1e-12) and r.details["t_dof"] == pytest.approx(dof, rel=1e-12)
    h = stats.t.ppf(0.975, dof) * se
    assert (r.ci_low, r.ci_high) == pytest.approx((diff - h, diff + h), abs=1e-12)
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(diff) / se, dof), abs=1e-12)


def test_items_with_one_rating_are_no_units_of_the_df():
    """Alpha - percent agreement on 22 items, 5 with one rating: 17 items can change the difference, 16 df (the
    inputs' own count, as bca-t's); the jackknife leaves out all 22 (a single-rating item leaves both unchanged)."""
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 22)
    x = np.where(rng.random((22, 3)) < 0.7, truth[:, None], rng.integers(0, 3, (22, 3))).astype(object)
    x[:5, 1:] = None
    ann = sis.Annotations.from_wide(x.tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = sis.compare(sis.krippendorff_alpha(ann), sis.percent_agreement(ann), ci=sis.Bootstrap(n=200, seed=1))
    jack = _leave_one_out(x, sis.krippendorff_alpha) - _leave_one_out(x, sis.percent_agreement)
    se = math.sqrt(_jack_var(jack))
    assert r.method == "paired jackknife-t" and r.details["t_dof"] == 16
    assert r.se == pytest.approx(se, abs=1e-12)
    assert r.p_value == pytest.approx(2 * stats.t.sf(abs(r.difference) / se, 16), abs=1e-12)


def test_explicit_methods_strata_and_partly_shared_items_keep_the_bootstrap():
    xa, xb = _judges(n=24, seed=4)
    for method in ("bca-t", "percentile", "basic", "bca"):
        B = sis.Bootstrap(n=300, seed=0, method=method)
        r = sis.compare(sis.fleiss_kappa(xa.tolist()), sis.fleiss_kappa(xb.tolist()), ci=B)
        assert r.method == f"paired bootstrap-{method}"
    B = sis.Bootstrap(n=300, seed=0, strata=(np.arange(24) % 2).tolist())
    r = sis.compare(sis.fleiss_kappa(xa.tolist()), sis.fleiss_kappa(xb.tolist()), ci=B)
    assert r.method == "paired bootstrap-bca-t"
    a = sis.fleiss_kappa(sis.Annotations.from_wide(xa[:18].tolist(), items=range(18)))
    b = sis.fleiss_kappa(sis.Annotations.from_wide(xb[6:].tolist(), items=range(6, 24)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert sis.compare(a, b, ci=sis.Bootstrap(n=300, seed=0)).method == "partly paired bootstrap-percentile"
    r = sis.compare(sis.fleiss_kappa(xa.tolist()), sis.fleiss_kappa(xb.tolist()), ci=sis.Bootstrap(n=300,
                                                                                                    design="raters"))
    assert r.method == "paired bootstrap-percentile"


def test_the_same_statistic_twice_has_p_one_and_a_zero_interval():
    xa, _ = _judges(n=25, seed=5)
    a = sis.fleiss_kappa(xa.tolist())
    r = sis.compare(a, a, ci=sis.Bootstrap(n=200, seed=0))
    assert r.method == "paired jackknife-t" and (r.ci_low, r.ci_high, r.se, r.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_no_jackknife_spread_under_a_difference_falls_back_to_the_bootstrap_and_says_so():
    """Percent agreement 1 on every item of a and 0 on every item of b (disjoint items): no jackknife variance,
    difference 1; the bootstrap's interval is given, with a note (not a silent nan)."""
    a = sis.percent_agreement(sis.Annotations.from_wide([["x", "x"]] * 12))
    b = sis.percent_agreement(sis.Annotations.from_wide([["x", "y"]] * 12, items=range(50, 62)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = sis.compare(a, b, ci=sis.Bootstrap(n=200, seed=0))
    assert r.method == "independent bootstrap-percentile" and r.difference == 1.0
    assert any("no jackknife SE of the difference" in w for w in r.warnings)
