"""``compare``'s few-items count and Student-t degrees of freedom are per resampled sample, as each input's are.

An item bootstrap of a difference draws the same items for both statistics (paired), each study's items on its
own (independent), or the shared items together and the others within their own study (partly paired). Each
coefficient's interval rests on its own sample, so the few-items note (fewer than 20 items) counts the items of
each sample that can change the difference and reads the smaller count; it counted the union of the two, so two
independent studies of 12 items each (24) were said nothing. ``bca-t`` (the same items only) takes the inputs'
degrees of freedom: the items that can change the difference less one (``interval_items``), or the stratified
jackknife's Satterthwaite df with ``strata=`` (docs/coverage.md, "Items with a single rating").
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import ndtr, ndtri

import softirr_stats as sis
from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS, bca_p_value, few_items_note

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.FewUnitsWarning",
                                        "ignore::softirr_stats.DegenerateWarning",
                                        "ignore::softirr_stats.UnpairableItemsWarning")

FEW = "(fewer than 20)"


def _table(ids, seed, raters=3):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, len(ids))
    labels = np.where(rng.random((len(ids), raters)) < 0.7, truth[:, None],
                      rng.integers(0, 3, (len(ids), raters)))
    return sis.Annotations.from_wide(pd.DataFrame(labels, index=list(ids)))


def _compare(ids_a, ids_b, **kw):
    cfg = sis.Bootstrap(n=200, seed=0)
    a = sis.fleiss_kappa(_table(ids_a, 1), ci=cfg)
    b = sis.fleiss_kappa(_table(ids_b, 2), ci=cfg)
    return sis.compare(a, b, **kw)


def _few(r):
    return [w for w in r.warnings if FEW in w]


def test_paired_counts_the_shared_items_in_the_inputs_own_words():
    r = _compare(range(12), range(12))
    assert r.details["kind"] == "paired" and r.details["interval_items"] == (12, 12)
    assert _few(r) == [few_items_note(12, BOOTSTRAP_DESIGNS["items"])]  # the same text as each input's warning


@pytest.mark.parametrize(("ids_a", "ids_b", "counts", "where"), [
    (range(12), range(100, 112), (12, 12), "in each of the two independent samples (a: 12 items, b: 12;"),
    (range(12), range(100, 140), (12, 40), "in the smaller of the two independent samples (a: 12 items, b: 40;"),
    (range(40), range(100, 112), (40, 12), "in the smaller of the two independent samples (a: 40 items, b: 12;"),
    (range(19), range(100, 119), (19, 19), "in each of the two independent samples (a: 19 items, b: 19;"),
])
def test_independent_studies_count_the_smaller_study(ids_a, ids_b, counts, where):
    """12 + 12 items (24 in the union) were said nothing, though each coefficient rests on 12."""
    r = _compare(ids_a, ids_b)
    (note,) = _few(r)
    assert note.startswith(f"{min(counts)} items resampled {FEW} {where}"), note
    assert note == few_items_note(min(counts), BOOTSTRAP_DESIGNS["items"], where=note[len(
        f"{min(counts)} items resampled {FEW}"):note.index("): with so few") + 1])
    assert r.details["kind"] == "independent" and r.details["interval_items"] == counts


def test_independent_studies_of_20_items_or_more_are_not_flagged():
    r = _compare(range(20), range(100, 125))
    assert r.details["interval_items"] == (20, 25) and _few(r) == []


def test_the_same_ids_made_independent_by_paired_false():
    r = _compare(range(12), range(12), paired=False)
    assert _few(r)[0].startswith("12 items resampled (fewer than 20) in each of the two independent samples")
    assert r.details["interval_items"] == (12, 12)


def test_partly_paired_counts_each_studys_items_shared_ones_included():
    """a: items 0-15, b: 8-23 (8 shared, 24 in the union): each coefficient rests on 16 items."""
    r = _compare(range(16), range(8, 24))
    (note,) = _few(r)
    assert note.startswith("16 items resampled (fewer than 20) in each of the two partly shared samples "
                           "(a: 16 items, b: 16, 8 of them shared;"), note
    assert r.details["kind"] == "partly paired" and r.details["interval_items"] == (16, 16)
    r = _compare(range(16), range(4, 26))
    assert _few(r)[0].startswith("16 items resampled (fewer than 20) in the smaller of the two partly shared "
                                 "samples (a: 16 items, b: 22, 12 of them shared;")
    assert r.details["interval_items"] == (16, 22)


def _singles(n=22, n_single=5, seed=3):
    """n items by 3 raters; the first n_single have one rating (no unit of alpha or percent agreement)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    x = np.where(rng.random((n, 3)) < 0.7, truth[:, None], rng.integers(0, 3, (n, 3))).astype(object)
    x[:n_single, 1:] = None
    return x


def test_items_no_statistic_can_use_are_no_units_of_the_difference():
    """Alpha and percent agreement ignore the 5 single-rating items: 17 units (the inputs' own warning), not 22;
    Fleiss' kappa counts single ratings, so beside it every item can change the difference."""
    ann = sis.Annotations.from_wide(_singles().tolist())
    cfg = sis.Bootstrap(n=200, seed=0)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        a = sis.krippendorff_alpha(ann, ci=cfg)
    own = [str(w.message) for w in seen if FEW in str(w.message)]
    assert own and own[0].startswith("17 items resampled")
    r = sis.compare(a, sis.percent_agreement(ann, ci=cfg))
    assert _few(r) == own and r.details["interval_items"] == (17, 17)
    r = sis.compare(a, sis.fleiss_kappa(ann, ci=cfg))
    assert _few(r) == [] and r.details["interval_items"] == (22, 22)


def _leave_one_out(x, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array([fn(sis.Annotations.from_wide(np.delete(x, i, axis=0).tolist())).value
                         for i in range(len(x))])


def test_bca_t_of_the_difference_takes_the_inputs_degrees_of_freedom_by_hand():
    """The bca-t interval of alpha - percent agreement (paired, 22 items, 5 with one rating) by hand: BCa of the
    replicates of the difference with its leave-one-item-out values, at the level whose normal quantile is
    t_16's (17 items that can change either statistic), not t_21's."""
    x = _singles()
    ann = sis.Annotations.from_wide(x.tolist())
    cfg = sis.Bootstrap(n=400, seed=2, method="bca-t")  # auto: the jackknife-t (test_compare_jackknife_t.py)
    r = sis.compare(sis.krippendorff_alpha(ann, ci=cfg), sis.percent_agreement(ann, ci=cfg))
    assert r.method == "paired bootstrap-bca-t"
    d, diff = r.details["replicates"], r.difference
    jack = _leave_one_out(x, sis.krippendorff_alpha) - _leave_one_out(x, sis.percent_agreement)
    z0 = ndtri((np.sum(d < diff - 1e-12) + np.sum(d <= diff + 1e-12)) / (2.0 * len(d)))
    dev = jack.mean() - jack
    acc = np.sum(dev**3) / (6.0 * np.sum(dev**2) ** 1.5)

    def bca_t(dof):
        z = stats.t.ppf(0.975, dof)
        q = [ndtr(z0 + (z0 + s) / (1 - acc * (z0 + s))) for s in (-z, z)]
        return np.percentile(d, [100 * q[0], 100 * q[1]])

    assert (r.ci_low, r.ci_high) == pytest.approx(tuple(bca_t(16)), abs=1e-12)
    assert abs(bca_t(21)[0] - r.ci_low) > 1e-6  # the union's 22 items gave another interval
    assert r.p_value == pytest.approx(bca_p_value(d, diff, jack, 0.0, 16.0), abs=1e-12)
    assert r.details["t_dof"] == 16


def test_a_constant_b_gives_as_own_interval_shifted_with_single_ratings_and_with_strata():
    """b = percent agreement of constant ratings (1 in every replicate, same missing cells): the difference's
    interval is a's own minus 1, with a's Student-t df: its informative items, or with strata= the stratified
    jackknife's Satterthwaite df (before: n - 1 on all items in both cases)."""
    x = _singles(n=16)
    const = np.where(x == None, None, 0).astype(object)  # noqa: E711 - elementwise test for missing cells
    # bca-t asked for (auto gives the jackknife-t without strata=); with strata= auto is bca-t
    for cfg in (sis.Bootstrap(n=300, seed=0, method="bca-t"),
                sis.Bootstrap(n=300, seed=0, strata=(np.arange(16) % 4).tolist())):
        a = sis.krippendorff_alpha(sis.Annotations.from_wide(x.tolist()), ci=cfg)
        b = sis.percent_agreement(sis.Annotations.from_wide(const.tolist()), ci=cfg)
        assert b.value == 1.0 and a.ci_method == "bootstrap-bca-t"
        r = sis.compare(a, b)
        assert (r.ci_low, r.ci_high) == pytest.approx((a.ci_low - 1.0, a.ci_high - 1.0), abs=1e-12)
        assert r.details["t_dof"] == pytest.approx(a.details["t_dof"], rel=1e-12)
    assert "Satterthwaite, 4 strata" in r.details["interval_rule"]


def _analytic(ids_a, ids_b, **kw):
    return sis.compare(sis.fleiss_kappa(_table(ids_a, 1)), sis.fleiss_kappa(_table(ids_b, 2)), ci="analytic", **kw)


@pytest.mark.parametrize(("ids_a", "ids_b", "counts", "where"), [
    (range(12), range(12), (12, 12), ""),
    (range(12), range(100, 112), (12, 12), " in each of the two independent samples (a: 12 items, b: 12;"),
    (range(12), range(100, 140), (12, 40), " in the smaller of the two independent samples (a: 12 items, b: 40;"),
])
def test_the_analytic_comparison_says_it_rests_on_few_items_as_the_bootstrap_does(ids_a, ids_b, counts, where):
    """ci="analytic" said nothing below 20 items while the bootstrap comparison of the same inputs did: the same
    count per sample and the same wording, for an interval that resamples nothing; the interval is unchanged."""
    with pytest.warns(sis.FewUnitsWarning, match=r"behind the delta-method interval"):
        r = _analytic(ids_a, ids_b)
    boot = _compare(ids_a, ids_b)
    (note,) = _few(r)
    head = f"{min(counts)} items behind the delta-method interval {FEW}{where}"
    assert note.startswith(head), note
    (boot_note,) = _few(boot)  # the bootstrap's note, "resampled" for "behind the delta-method interval"
    assert boot_note.split("): with so few")[0] == note.split("): its variance")[0].replace(
        "behind the delta-method interval", "resampled")
    assert r.details["interval_items"] == boot.details["interval_items"] == counts
    assert note.endswith("read it as rough, and rate more items where a conclusion rests on it")


def test_the_analytic_note_counts_the_items_that_can_change_the_difference():
    """Alpha and percent agreement on 22 items, 5 with one rating: 17 items can change either (the bootstrap
    comparison's count: the items with two ratings or more, counted from the table)."""
    x = _singles()
    assert int(np.sum((x != None).sum(axis=1) >= 2)) == 17  # noqa: E711 - elementwise test for missing cells
    ann = sis.Annotations.from_wide(x.tolist())
    a, b = sis.krippendorff_alpha(ann), sis.percent_agreement(ann)
    with pytest.warns(sis.FewUnitsWarning, match=r"^17 items behind the delta-method interval \(fewer than 20\):"):
        r = sis.compare(a, b, ci="analytic")
    assert r.details["interval_items"] == (17, 17)
    with warnings.catch_warnings():  # 22 items that can change Fleiss' kappa beside alpha: no note
        warnings.simplefilter("error", sis.FewUnitsWarning)
        f = sis.compare(a, sis.fleiss_kappa(ann), ci="analytic")
    assert f.details["interval_items"] == (22, 22) and _few(f) == []


def test_twenty_items_or_more_and_no_interval_give_no_analytic_note():
    assert _few(_analytic(range(20), range(100, 125))) == []
    one = sis.compare(sis.fleiss_kappa(_table(range(1), 1)), sis.fleiss_kappa(_table(range(100, 130), 2)),
                      ci="analytic")
    assert math.isnan(one.ci_low) and _few(one) == []  # no interval to read as rough


def test_stratified_bca_t_of_the_difference_counts_the_items_that_can_change_it():
    """With strata=, the difference's Satterthwaite df are those of the 11 items that can change alpha (5 of 16
    have one rating), written out stratum by stratum from the leave-one-item-out values: it took all 16."""
    x = _singles(n=16)
    const = np.where(x == None, None, 0).astype(object)  # noqa: E711 - elementwise test for missing cells
    strata = (np.arange(16) % 4).tolist()
    cfg = sis.Bootstrap(n=300, seed=0, strata=strata)
    r = sis.compare(sis.krippendorff_alpha(sis.Annotations.from_wide(x.tolist()), ci=cfg),
                    sis.percent_agreement(sis.Annotations.from_wide(const.tolist()), ci=cfg))
    jack = _leave_one_out(x, sis.krippendorff_alpha)[5:]  # percent agreement of b is 1 without any item
    shares = [(len(j) - 1) / len(j) * np.sum((j - j.mean()) ** 2)
              for j in (jack[[k for k, s in enumerate(strata[5:]) if s == h]] for h in range(4))]
    sizes = [sum(1 for s in strata[5:] if s == h) for h in range(4)]
    dof = sum(shares) ** 2 / sum(v * v / (n - 1) for v, n in zip(shares, sizes, strict=True))
    assert r.details["t_dof"] == pytest.approx(dof, abs=1e-12)
