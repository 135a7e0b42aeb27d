"""Cross-replication reliability: Google's reference vector, a brute-force port of eqs. 9-11,
invariances, unmatched items, IRR against the krippendorff package, and bootstrap weights."""

import itertools
import warnings

import krippendorff
import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.agreement import DegenerateWarning
from softirr_stats.agreement._similarity import resolve_similarity
from softirr_stats.agreement._xrr import match_replications, xrr_evaluate, xrr_prepare
from softirr_stats.api._statistics import cross_kappa
from softirr_stats.data import Annotations, UnratedRatersWarning


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _rows(ann):
    """item -> list of observed labels."""
    voc = ann.vocabulary
    return {it: [voc[c] for c in ann.codes[i] if c >= 0] for i, it in enumerate(ann.items)}


def _brute_xrr(ann_x, ann_y, dist, item_weights="ratings"):
    """Loops over items and rating pairs, as Google's XrrMetrics.WITH_MISSING_DATA does."""
    x, y = _rows(ann_x), _rows(ann_y)
    matched = [i for i in x if x[i] and i in y and y[i]]
    nx = sum(len(x[i]) for i in matched)
    ny = sum(len(y[i]) for i in matched)
    num = den = 0.0
    for i in matched:
        w = len(x[i]) + len(y[i]) if item_weights == "ratings" else 1.0
        dbar = np.mean([dist(a, b) for a, b in itertools.product(x[i], y[i])])
        num += w * dbar
        den += w
    d_o = num / den
    d_e = sum(dist(a, b) for i in matched for j in matched for a in x[i] for b in y[j]) / (nx * ny)
    return 1 - d_o / d_e


def _random_pair(seed, n=12, rx=3, ry=4, vx="abc", vy="bcd", p_missing=0.25, signal=0.0):
    rng = np.random.default_rng(seed)
    truth = rng.choice(list("bc"), size=n)

    def make(r, voc):
        t = rng.choice(list(voc), size=(n, r)).astype(object)
        hit = rng.random((n, r)) < signal
        t[hit] = np.repeat(truth[:, None], r, axis=1)[hit]
        t[rng.random((n, r)) < p_missing] = None
        t[:, 0] = rng.choice(list(voc), size=n)  # at least one rating per item
        return t

    return Annotations.from_wide(make(rx, vx)), Annotations.from_wide(make(ry, vy))


def test_google_reference_vector_and_extra_items():
    x = [["B", "B", None], ["B", "B", "B"], ["A", "A", None], ["A", "A", "A"], ["A", "B", None]]
    y = [["B", "B"], ["A", "B"], ["A", "B"], ["A", "B"], ["A", "A"]]
    ax = Annotations.from_wide(x + [["A", "A", "A"], ["A", "A", "B"]], items=range(1, 8))
    ay = Annotations.from_wide(y, items=range(1, 6))
    r = _quiet(cross_kappa, ax, ay)
    assert r.value == pytest.approx(0.1818182, abs=1e-7)
    assert r.details["n_items_only_x"] == 2 and r.details["n_items_only_y"] == 0
    assert r.n_items == 5
    r5 = _quiet(cross_kappa, Annotations.from_wide(x, items=range(1, 6)), ay)
    assert r5.value == pytest.approx(r.value, abs=1e-15)


@pytest.mark.parametrize("item_weights", ["ratings", "equal"])
@pytest.mark.parametrize("seed", [0, 1])
def test_matches_brute_force_nominal_different_vocabularies(seed, item_weights):
    ax, ay = _random_pair(seed)
    r = _quiet(cross_kappa, ax, ay, item_weights=item_weights)
    assert r.details["vocabulary"] == ("a", "b", "c", "d")
    want = _brute_xrr(ax, ay, lambda a, b: float(a != b), item_weights)
    assert r.value == pytest.approx(want, abs=1e-12)
    # a soft similarity matrix over the union vocabulary, and the same as a callable
    s = np.array([[1, .5, .2, 0], [.5, 1, .4, .1], [.2, .4, 1, .3], [0, .1, .3, 1]])
    voc = {v: k for k, v in enumerate("abcd")}
    rs = _quiet(cross_kappa, ax, ay, similarity=s, item_weights=item_weights)
    want_s = _brute_xrr(ax, ay, lambda a, b: 1 - s[voc[a], voc[b]], item_weights)
    assert rs.value == pytest.approx(want_s, abs=1e-12)

    def est(a_seq, b_seq):
        return np.array([s[voc[a], voc[b]] for a, b in zip(a_seq, b_seq, strict=True)])

    rc = _quiet(cross_kappa, ax, ay, similarity=est, item_weights=item_weights)
    assert rc.value == pytest.approx(rs.value, abs=1e-12)
    assert rc.n_pairs_scored > 0


def test_weightings_coincide_for_balanced_designs():
    ax, ay = _random_pair(5, p_missing=0.0)
    a = _quiet(cross_kappa, ax, ay, item_weights="ratings").value
    b = _quiet(cross_kappa, ax, ay, item_weights="equal").value
    assert a == pytest.approx(b, abs=1e-14)


@pytest.mark.parametrize("level", ["interval", "ratio"])
def test_numeric_levels_match_brute_force(level):
    rng = np.random.default_rng(3)
    tx = rng.integers(1, 6, size=(10, 3)).astype(object)
    ty = rng.integers(1, 8, size=(10, 2)).astype(object)
    tx[1, 2] = None
    ax, ay = Annotations.from_wide(tx), Annotations.from_wide(ty)
    r = _quiet(cross_kappa, ax, ay, level=level)
    dist = (lambda a, b: (a - b) ** 2) if level == "interval" else (lambda a, b: ((a - b) / (a + b)) ** 2)
    assert r.value == pytest.approx(_brute_xrr(ax, ay, dist), abs=1e-12)
    assert r.irr_x == pytest.approx(krippendorff.alpha(reliability_data=np.asarray(
        np.where(tx == None, np.nan, tx), dtype=float).T, level_of_measurement=level), abs=1e-12)  # noqa: E711


def test_swap_invariance_and_irr_against_krippendorff():
    ax, ay = _random_pair(7, n=15, signal=0.7)
    r = _quiet(cross_kappa, ax, ay)
    assert r.irr_x > 0 and r.irr_y > 0 and r.value > 0
    s = _quiet(cross_kappa, ay, ax)
    assert s.value == pytest.approx(r.value, abs=1e-14)
    assert (s.irr_x, s.irr_y) == pytest.approx((r.irr_y, r.irr_x), abs=1e-14)
    assert s.normalized == pytest.approx(r.normalized, abs=1e-14)
    for ann, irr in ((ax, r.irr_x), (ay, r.irr_y)):
        voc = {v: k for k, v in enumerate(ann.vocabulary)}
        data = np.array([[np.nan if c < 0 else float(voc[ann.vocabulary[c]]) for c in col] for col in ann.codes.T])
        assert irr == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"),
                                    abs=1e-12)
    assert r.normalized == pytest.approx(r.value / np.sqrt(r.irr_x * r.irr_y), abs=1e-14)


def test_identical_perfectly_reliable_replications():
    rng = np.random.default_rng(0)
    labels = rng.choice(list("pqrs"), size=12)
    x = np.repeat(labels[:, None], 3, axis=1).astype(object)
    y = np.repeat(labels[:, None], 2, axis=1).astype(object)
    r = cross_kappa(Annotations.from_wide(x), Annotations.from_wide(y))
    assert r.value == pytest.approx(1.0) and r.observed == pytest.approx(1.0)
    assert r.irr_x == pytest.approx(1.0) and r.irr_y == pytest.approx(1.0)
    assert r.normalized == pytest.approx(1.0)


def test_unmatched_items_are_ignored():
    ax, ay = _random_pair(11, n=10)
    base = _quiet(cross_kappa, ax, ay)
    extra = ay.to_long()
    more = Annotations.from_long(
        __import__("pandas").concat([extra, extra.assign(item=extra["item"] + 100)], ignore_index=True))
    r = _quiet(cross_kappa, ax, more)
    assert r.value == pytest.approx(base.value, abs=1e-15)
    assert r.details["n_items_only_y"] == 10 and r.n_items == 10
    assert any("one replication only" in w for w in r.warnings)


def test_item_weights_equal_duplicated_items_and_bootstrap():
    ax, ay = _random_pair(13, n=20)
    data = match_replications(ax, ay)
    prep = xrr_prepare(data, resolve_similarity(data.union))
    counts = np.random.default_rng(0).integers(0, 3, size=20)
    keep = np.repeat(np.arange(20), counts)
    dup_x = Annotations(ax.codes[keep], ax.vocabulary)
    dup_y = Annotations(ay.codes[keep], ay.vocabulary)
    want = _quiet(cross_kappa, dup_x, dup_y).value
    assert xrr_evaluate(prep, counts[None, :].astype(float))["value"][0] == pytest.approx(want, abs=1e-12)
    r = _quiet(cross_kappa, ax, ay, ci=sis.Bootstrap(n=200, seed=2))
    assert r.ci_low <= r.value <= r.ci_high and r.se > 0
    assert len(r.details["normalized_replicates"]) == 200
    with pytest.raises(ValueError, match="different raters"):
        cross_kappa(ax, ay, ci=sis.Bootstrap(n=20, design="raters"))


def test_bad_input():
    ax, ay = _random_pair(0)
    with pytest.raises(ValueError, match="share no rated item"):
        cross_kappa(ax, Annotations.from_wide([["a", "b"]], items=["zz"]))
    with pytest.raises(TypeError, match="same kind"):
        cross_kappa(ax, Annotations.from_wide([[1, 2], [2, 2]]))
    with pytest.raises(ValueError, match="level must be one of"):
        cross_kappa(ax, ay, level="ordinal")
    with pytest.raises(ValueError, match="item_weights must be one of"):
        cross_kappa(ax, ay, item_weights="items")
    with pytest.raises(ValueError, match="needs numeric labels"):
        cross_kappa(ax, ay, level="interval")


def test_normalized_needs_positive_irrs_and_single_rater_replication():
    x = Annotations.from_wide([["a", "b"], ["b", "a"], ["a", "b"], ["b", "a"]])
    with pytest.warns(DegenerateWarning, match="IRR_X > 0 and IRR_Y > 0"):
        r = cross_kappa(x, x)
    assert r.irr_x < 0 and r.irr_y < 0 and r.value == pytest.approx(0.0, abs=1e-15)
    assert np.isnan(r.normalized)
    one = Annotations.from_wide([["a", None], [None, "b"], ["b", None], [None, "b"]])  # one rating per item
    with pytest.warns(DegenerateWarning) as rec:
        r1 = cross_kappa(one, x)
    messages = [str(w.message) for w in rec]
    assert any("IRR_X is undefined" in m for m in messages)
    assert any("normalized kappa_x is undefined" in m for m in messages)
    assert np.isnan(r1.irr_x) and np.isnan(r1.normalized) and np.isfinite(r1.value)


# one replication of a single rater (one expert against a crowd): kappa_x is defined, IRR_Y and normalized are not
_CROWD = [["A", "A"], ["B", "B"], ["A", "B"], ["A", "A"], ["B", "A"]]
_EXPERT = ["A", "B", "B", "A", "A"]


def test_single_rater_replication_as_a_one_column_wide_table():
    import pandas as pd

    ax = Annotations.from_wide(_CROWD, items=range(1, 6), raters=["a", "b"])
    long = pd.DataFrame({"item": range(1, 6), "rater": "expert", "label": _EXPERT})
    wide = long.pivot(index="item", columns="rater", values="label")  # the way the refusal names
    with pytest.warns(DegenerateWarning, match="IRR_Y is undefined: replication Y has a single rater"):
        r = cross_kappa(ax, wide)
    # by hand: d_o = mean of (0, 0, 1/2, 0, 1/2) (3 ratings per item: equal weights) = 1/5; d_e = (6 A x 2 B +
    # 4 B x 3 A) / (10 x 5) = 24/50; kappa_x = 1 - (1/5) / (24/50) = 7/12
    assert r.value == pytest.approx(7 / 12, abs=1e-12)
    assert r.details["d_o"] == pytest.approx(0.2, abs=1e-12) and r.details["d_e"] == pytest.approx(0.48, abs=1e-12)
    assert np.isnan(r.irr_y) and np.isnan(r.normalized) and r.irr_x == pytest.approx(0.25, abs=1e-12)
    # the same expert beside an empty column (accepted before): the column is left out, with a warning naming it
    padded_table = pd.DataFrame({"expert": _EXPERT, "pad": None}, index=range(1, 6))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        padded = cross_kappa(ax, padded_table)
    assert any(issubclass(w.category, UnratedRatersWarning) and "'pad' has no rating" in str(w.message) for w in rec)
    assert padded.value == pytest.approx(r.value, abs=1e-12)
    with pytest.raises(ValueError, match="'pad' has no rating.*give its table to sis.cross_kappa"):
        Annotations.from_wide(padded_table)  # outside cross_kappa: a single rater, refused saying the way
    # swapping the replications: the single rater is X
    assert _quiet(cross_kappa, wide, ax).value == pytest.approx(7 / 12, abs=1e-12)


def test_single_rater_is_still_refused_outside_cross_kappa():
    import pandas as pd

    long = pd.DataFrame({"item": range(1, 6), "rater": "expert", "label": _EXPERT})
    with pytest.raises(ValueError, match=r"at least two raters; got 1 \(\['expert'\]\); one replication .*cross_kappa"):
        Annotations.from_long(long)
    with pytest.raises(ValueError, match="at least two raters; got 1"):
        sis.fleiss_kappa(long.pivot(index="item", columns="rater", values="label"))
    with pytest.raises(ValueError, match="at least two raters; got 1"):
        Annotations.from_wide([[e] for e in _EXPERT])
    from softirr_stats.data import single_rater_replication

    with single_rater_replication():
        one = Annotations.from_long(long)
    assert one.n_raters == 1
    with pytest.raises(ValueError, match=r"single rater \('expert'\): agreement needs two or more"):
        sis.krippendorff_alpha(one)
    with single_rater_replication():  # the block does not outlive itself
        pass
    with pytest.raises(ValueError, match="at least two raters"):
        Annotations.from_long(long)


def _noisy_replications():
    """X (3 raters) and Y (2 noisy raters) of 20 items, a fifth of the ratings missing: Y's IRR is often <= 0 on a
    resample, so the normalised kappa_x is undefined there."""
    import pandas as pd

    rng = np.random.default_rng(11)
    truth = rng.integers(1, 6, size=20)

    def rep(raters, shift):
        rows = [(f"it{i}", r, int(np.clip(truth[i] + rng.integers(-shift, shift + 1), 1, 5)))
                for i in range(20) for r in raters if rng.random() > 0.2]
        return Annotations.from_long(pd.DataFrame(rows, columns=["item", "rater", "label"]))

    return rep(["x1", "x2", "x3"], 1), rep(["y1", "y2"], 2)


def test_normalized_interval_counts_and_warns_about_the_replicates_it_leaves_out():
    ax, ay = _noisy_replications()
    with pytest.warns(DegenerateWarning, match=r"normalized kappa_x interval: \d+ of 1000 bootstrap replicates") as rec:
        r = cross_kappa(ax, ay, ci=sis.Bootstrap(n=1000, seed=1, method="percentile"))
    reps = r.details["normalized_replicates"]
    n_nan = int(np.isnan(reps).sum())
    assert r.details["normalized_n_nan_replicates"] == n_nan and n_nan > 100  # about 31% of them
    kappa_reps = r.details["replicates"]
    assert np.isfinite(kappa_reps).all() and r.details["n_nan_replicates"] == 0  # kappa_x itself is always defined
    kept = np.isfinite(reps)  # the interval is the percentile interval of the replicates left in
    lo, hi = np.percentile(reps[kept], [2.5, 97.5])
    assert (r.details["normalized_ci_low"], r.details["normalized_ci_high"]) == (
        pytest.approx(lo, abs=1e-12), pytest.approx(hi, abs=1e-12))
    said = [str(w.message) for w in rec if "normalized kappa_x interval" in str(w.message)]
    assert len(said) == 1 and f"{n_nan} of 1000" in said[0] and f"({n_nan / 1000:.1%})" in said[0]
    assert "conditional on both IRRs being positive" in said[0] and "not reliable" in said[0]
    assert said[0] in r.warnings


def test_normalized_interval_without_left_out_replicates_says_nothing():
    x = Annotations.from_wide([["a", "a", "a"], ["b", "b", "b"], ["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"],
                               ["b", "a", "b"]] * 4)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        r = cross_kappa(x, x, ci=sis.Bootstrap(n=200, seed=0))
    assert r.details["normalized_n_nan_replicates"] == 0
    assert not any("normalized kappa_x interval" in str(w.message) for w in rec)
