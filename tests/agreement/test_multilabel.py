"""Multi-label agreement: ml-agreement parity, exact decomposition, floor by brute force,
the seed paper's derived numbers, the Hamming-alpha relation, and bootstrap weights."""

import copy
import itertools
import warnings

import ml_agreement as mla
import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.agreement import DegenerateWarning
from softirr_stats.agreement._multilabel import evaluate_multilabel, label_floor, multilabel_data
from softirr_stats.api._statistics import multilabel_agreement
from softirr_stats.data import Annotations

MLA = {"fleiss": "k", "ac1": "ac1", "pabak": "pabak"}


def _random(seed, n=8, r=4, n_labels=6, p=0.3):
    rng = np.random.default_rng(seed)
    return (rng.random((n, r, n_labels)) < p).astype(float)


def _mla_layout(x):
    """data[annotator][item][label] as ml-agreement expects (a fresh copy: it mutates input)."""
    return [[[int(v) for v in x[i, a]] for i in range(x.shape[0])] for a in range(x.shape[1])]


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


# ------------------------------------------------------------------ peer package


@pytest.mark.parametrize("baseline", ["fleiss", "ac1", "pabak"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_ml_agreement(baseline, seed):
    x = _random(seed)
    r = _quiet(multilabel_agreement, x, baseline=baseline)
    m = MLA[baseline]
    data = _mla_layout(x)
    assert r.value == pytest.approx(mla.calculate_total_multi_label_agreement(copy.deepcopy(data), m), abs=1e-12)
    assert r.expected == pytest.approx(mla.calculate_total_expected_agreement(copy.deepcopy(data), m), abs=1e-12)
    assert r.raw_prevalence == pytest.approx(mla.calculate_raw_prevalence(copy.deepcopy(data)), abs=1e-12)
    bl = r.by_label
    for j in range(x.shape[2]):
        assert bl.prevalence[j] == pytest.approx(mla.calculate_label_prevalence(data, j), abs=1e-12)
        assert bl.observed[j] == pytest.approx(mla.calculate_observed_label_agreement(data, j), abs=1e-12)
        if 0 < bl.prevalence[j] < 1 or baseline != "fleiss":
            assert bl.coefficient[j] == pytest.approx(mla.calculate_label_agreement(data, j, m), abs=1e-12)
    for i in range(x.shape[0]):
        assert r.by_item.hamming_agreement[i] == pytest.approx(mla.calculate_observed_item_agreement(data, i),
                                                               abs=1e-12)
        assert r.by_item.coefficient[i] == pytest.approx(
            mla.calculate_item_multi_label_agreement(copy.deepcopy(data), i, m), abs=1e-12)
    if baseline != "pabak":  # ml-agreement's pabak floor is the unconditional one (see docs)
        assert r.floor == pytest.approx(mla.calculate_minimum_prevalence_agreement(copy.deepcopy(data), m), abs=1e-12)


def test_pabak_floor_is_conditional_unlike_ml_agreement():
    x = _random(3, n=10, r=3, n_labels=5, p=0.1)
    r = _quiet(multilabel_agreement, x, baseline="pabak")
    unconditional = mla.calculate_minimum_prevalence_agreement(_mla_layout(x), "pabak")
    assert unconditional == pytest.approx(2 * (3 - 1) / (2 * 3) - 1)  # (n-1)/(2n) for odd n
    assert r.floor > unconditional  # rare labels cannot disagree that much
    assert r.floor == pytest.approx(2 * r.details["minimum_observed"] - 1, abs=1e-12)


# ------------------------------------------------------------------ decomposition


@pytest.mark.parametrize("baseline", ["fleiss", "ac1", "pabak"])
def test_labelwise_decomposition_is_exact(baseline):
    x = _random(5, n=12, r=3, n_labels=7, p=0.25)
    x[:, :, 6] = 0.0  # a never-selected label: A_e,j = 1 under fleiss
    x[2, 1] = np.nan  # a missing rating
    ann = Annotations.from_multilabel(x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = multilabel_agreement(ann, baseline=baseline)
    bl = r.by_label
    total = np.nansum(bl.weight * bl.coefficient)
    assert total == pytest.approx(r.value, abs=1e-12)
    assert bl.weight.sum() == pytest.approx(1.0, abs=1e-12)
    assert r.observed == pytest.approx(bl.observed.mean(), abs=1e-15)
    assert r.expected == pytest.approx(bl.expected.mean(), abs=1e-15)
    if baseline == "fleiss":
        assert np.isnan(bl.coefficient[6]) and bl.weight[6] == 0.0
        assert any(issubclass(w.category, DegenerateWarning) for w in caught)
    else:
        assert np.isfinite(bl.coefficient).all()
    expected_w = (1 - bl.expected) / (1 - bl.expected)[np.isfinite(bl.coefficient)].sum()
    np.testing.assert_allclose(bl.weight[np.isfinite(bl.coefficient)], expected_w[np.isfinite(bl.coefficient)],
                               atol=1e-14)


def test_missing_data_prevalence_is_gwet_pooled_by_hand():
    x = np.array([[[1, 0], [1, 1], [np.nan, np.nan]],
                  [[0, 0], [1, 0], [1, 0]],
                  [[0, 1], [np.nan, np.nan], [0, 1]]], dtype=float)
    r = multilabel_agreement(x, baseline="fleiss")
    p0 = np.mean([2 / 2, 2 / 3, 0 / 2])
    p1 = np.mean([1 / 2, 0 / 3, 2 / 2])
    np.testing.assert_allclose(r.by_label.prevalence, [p0, p1], atol=1e-15)
    # observed: item 0 pair agrees on label 0, not 1; item 1: 3 pairs, label0 1/3 agree, label1 all
    a0 = np.mean([1.0, 1 / 3, 1.0])
    a1 = np.mean([0.0, 1.0, 1.0])
    np.testing.assert_allclose(r.by_label.observed, [a0, a1], atol=1e-15)
    ae = np.mean([p0**2 + (1 - p0) ** 2, p1**2 + (1 - p1) ** 2])
    assert r.value == pytest.approx(((a0 + a1) / 2 - ae) / (1 - ae), abs=1e-14)
    assert r.raw_prevalence == pytest.approx(7 / 14)
    assert r.by_item.n_disagreeing_labels.tolist() == [1, 1, 0]
    assert r.by_item.n_raters.tolist() == [2, 3, 2]


def test_perfect_agreement_and_invariances():
    x = _random(7, n=9, r=4, n_labels=5, p=0.4)
    perfect = np.repeat(x[:, :1], 4, axis=1)
    for b in ("fleiss", "ac1", "pabak"):
        assert _quiet(multilabel_agreement, perfect, baseline=b).value == pytest.approx(1.0)
    base = _quiet(multilabel_agreement, x)
    rng = np.random.default_rng(0)
    for perm_axis in (0, 1, 2):
        p = rng.permutation(x.shape[perm_axis])
        other = _quiet(multilabel_agreement, np.take(x, p, axis=perm_axis))
        assert other.value == pytest.approx(base.value, abs=1e-12)
        assert other.floor == pytest.approx(base.floor, abs=1e-12)


def test_declared_labels_keep_never_selected_ones():
    x = _random(8, n=6, r=3, n_labels=3, p=0.5)
    ann = Annotations.from_multilabel(x, labels=["a", "b", "c"])
    r1 = _quiet(multilabel_agreement, ann, baseline="ac1")
    r2 = _quiet(multilabel_agreement, ann, baseline="ac1", labels=["a", "b", "c", "zzz"])
    assert r2.by_label.label.tolist() == ["a", "b", "c", "zzz"]
    assert r2.by_label.observed.iloc[-1] == 1.0 and r2.by_label.expected.iloc[-1] == 0.0
    assert r2.observed == pytest.approx((3 * r1.observed + 1) / 4)
    # set-valued wide tables work too (label universe = labels seen)
    wide = [[{"a"}, {"a", "b"}], [set(), {"b"}], [{"b"}, {"b"}]]
    r3 = multilabel_agreement(Annotations.from_wide(wide), baseline="pabak")
    assert r3.by_label.label.tolist() == ["a", "b"]
    assert r3.observed == pytest.approx(np.mean([0.5, 0.5, 1.0]))


# ------------------------------------------------------------------ floor


def _brute_floor(r_items, t):
    cells = [(i, k) for i, r in enumerate(r_items) for k in range(r)]
    best = np.inf
    for chosen in itertools.combinations(range(len(cells)), t):
        kk = np.zeros(len(r_items))
        for c in chosen:
            kk[cells[c][0]] += 1
        r = np.asarray(r_items, dtype=float)
        g = (kk * (kk - 1) / 2 + (r - kk) * (r - kk - 1) / 2) / (r * (r - 1) / 2)
        best = min(best, g.mean())
    return best


@pytest.mark.parametrize("r_items", [[3, 3, 3, 3], [2, 2, 2], [4, 4], [2, 3, 4], [5, 2]])
def test_label_floor_matches_brute_force(r_items):
    ts = np.arange(sum(r_items) + 1)
    ours = label_floor(ts, np.asarray(r_items))
    for t in ts:
        assert ours[t] == pytest.approx(_brute_floor(r_items, int(t)), abs=1e-12)


def test_floor_brute_force_over_whole_datasets():
    # the floor's A_o,min is the minimum Hamming agreement over all data sets with the same
    # per-label positive counts on the pairable items: enumerate them for a tiny design
    x = np.zeros((3, 2, 2))
    x[0, 0, 0] = x[1, 1, 0] = x[2, 0, 1] = x[2, 1, 1] = 1
    x[1, 0] = np.nan  # item 1 has one rating: unpairable
    d = multilabel_data(Annotations.from_multilabel(x))
    s = _quiet(multilabel_agreement, x)
    # pairable items 0 and 2 (2 raters each); label 0 has 1 positive, label 1 has 2
    best = np.mean([_brute_floor([2, 2], 1), _brute_floor([2, 2], 2)])
    assert s.details["minimum_observed"] == pytest.approx(best, abs=1e-12)
    assert d.n_labels == 2
    assert s.floor == pytest.approx((best - s.expected) / (1 - s.expected), abs=1e-12)
    assert s.floor <= s.value + 1e-12


def _seed_paper_like_example():
    """3 raters x 4 items x 31 labels with the sufficient statistics of the seed paper's example.

    The paper's vectors are not published; its derived numbers depend on the data only through
    the label counts (sum 28, sum of squares 86), the 32 disagreeing (pair, label) slots and the
    evenly spread maximum (56). This construction has all of them.
    """
    x = np.zeros((4, 3, 31))
    x[:, 0, 0] = 1  # label 0: one positive per item
    x[:, 1, 1] = 1  # label 1: one positive per item
    x[0, :2, 2] = 1  # label 2: (2, 1, 1, 0)
    x[1, 0, 2] = x[2, 0, 2] = 1
    x[0, :, 3:6] = 1  # labels 3-5: three positives on one item
    x[1, :2, 6:8] = 1  # labels 6-7: two positives on one item
    x[2, 0, 8:11] = 1  # labels 8-10: one positive
    return x


def test_seed_paper_derived_numbers():
    x = _seed_paper_like_example()
    out = {b: _quiet(multilabel_agreement, x, baseline=b) for b in ("fleiss", "ac1", "pabak")}
    assert out["fleiss"].raw_prevalence == pytest.approx(7 / 93, abs=1e-15)
    assert [round(out[b].value, 4) for b in ("fleiss", "ac1", "pabak")] == [0.2320, 0.9031, 0.8280]
    assert [round(out[b].floor, 4) for b in ("fleiss", "ac1", "pabak")] == [-0.3440, 0.8305, 0.6989]
    # sensible behaviour at 7/93 prevalence: AC1 and PABAK >> fleiss; floors below values
    for b in out:
        assert out[b].floor < out[b].value
    assert out["fleiss"].value < out["pabak"].value < out["ac1"].value


# ------------------------------------------------------------------ relation to Hamming alpha


def _hamming_similarity(ann, n_labels):
    voc = ann.vocabulary
    return np.array([[1 - len(a ^ b) / n_labels for b in voc] for a in voc])


def test_relation_to_krippendorff_alpha_complete_data():
    for seed in range(2):
        x = _random(seed + 10, n=15, r=3, n_labels=5, p=0.3)
        ann = Annotations.from_multilabel(x)
        r = _quiet(multilabel_agreement, ann, baseline="fleiss")
        alpha = _quiet(sis.krippendorff_alpha, ann, similarity=_hamming_similarity(ann, 5)).value
        n = 15 * 3
        assert alpha == pytest.approx(r.value + (1 - r.value) / n, abs=1e-12)
        assert r.details["hamming_alpha"] == pytest.approx(alpha, abs=1e-12)


def test_relation_to_krippendorff_alpha_missing_data():
    x = _random(21, n=20, r=4, n_labels=6, p=0.35)
    rng = np.random.default_rng(1)
    x[rng.random((20, 4)) < 0.3] = np.nan
    ann = Annotations.from_multilabel(x)
    r = _quiet(multilabel_agreement, ann, baseline="fleiss")
    alpha = _quiet(sis.krippendorff_alpha, ann, similarity=_hamming_similarity(ann, 6)).value
    n = r.details["n_pairable_ratings"]
    kw = r.details["kappa_rating_weighted"]
    assert alpha == pytest.approx(kw + (1 - kw) / n, abs=1e-12)  # exact, with alpha's own weights
    assert r.details["hamming_alpha"] == pytest.approx(alpha, abs=1e-12)
    assert abs(kw - r.value) < 0.05  # the two weightings differ only through the missing ratings


# ------------------------------------------------------------------ bootstrap


def test_item_weights_equal_duplicated_items_and_rater_weights_drop_raters():
    x = _random(30, n=8, r=4, n_labels=6, p=0.4)
    x[1, 2] = np.nan
    d = multilabel_data(Annotations.from_multilabel(x))
    counts = np.array([2, 0, 1, 3, 1, 0, 0, 1], dtype=float)
    v = np.array([1.0, 0.0, 1.0, 1.0])
    C = np.stack([counts, np.ones(8)])
    V = np.stack([np.ones(4), v])  # replicate 0 re-weights items, replicate 1 drops rater 1
    dup = np.repeat(x, counts.astype(int), axis=0)
    for b in ("fleiss", "ac1", "pabak"):
        got = evaluate_multilabel(d, b, C, V)["value"]
        assert got[0] == pytest.approx(_quiet(multilabel_agreement, dup, baseline=b).value, abs=1e-12)
        assert got[1] == pytest.approx(_quiet(multilabel_agreement, x[:, [0, 2, 3]], baseline=b).value, abs=1e-12)


def test_vmap_matches_loop_and_numpy_kernel():
    from softirr_stats.agreement._multilabel import multilabel_kernel

    x = _random(31, n=8, r=4, n_labels=6)
    d = multilabel_data(Annotations.from_multilabel(x))
    rng = np.random.default_rng(0)
    C = rng.dirichlet(np.ones(8), size=2) * 8
    V = rng.integers(0, 3, size=(2, 4)).astype(float) + np.eye(4)[[0, 1]]
    batch = evaluate_multilabel(d, "ac1", C, V)["value"]
    loop = [multilabel_kernel(d.X, d.mask.astype(float), C[b], V[b], baseline="ac1", xp=np)["value"]
            for b in range(2)]
    np.testing.assert_allclose(batch, loop, atol=1e-13)


N_BOOT_ITEMS = 20  # one data shape for every bootstrap test: jit compiles once per shape


@pytest.fixture(scope="module")
def boot_data():
    return _random(40, n=N_BOOT_ITEMS, r=4, n_labels=5, p=0.3)


@pytest.mark.parametrize("design", ["items", "raters", "bayesian", "cluster"])
def test_bootstrap_designs(design, boot_data):
    kw = {"cluster": [i // 2 for i in range(N_BOOT_ITEMS)]} if design == "cluster" else {}
    cfg = sis.Bootstrap(n=200, design=design, seed=3, **kw)
    r = _quiet(multilabel_agreement, boot_data, baseline="fleiss", ci=cfg)
    assert r.ci_low <= r.value <= r.ci_high
    assert r.se > 0 and r.details["bootstrap_design"] == design
    r2 = _quiet(multilabel_agreement, boot_data, baseline="fleiss", ci=cfg)
    assert (r2.ci_low, r2.ci_high) == (r.ci_low, r.ci_high)


def test_bootstrap_bca_and_identical_items(boot_data):
    r = _quiet(multilabel_agreement, boot_data, baseline="fleiss", ci=sis.Bootstrap(n=200, method="bca", seed=1))
    assert r.ci_low < r.ci_high
    plain = _quiet(multilabel_agreement, boot_data, baseline="fleiss", ci=sis.Bootstrap(n=200, seed=1))
    assert (r.ci_low, r.ci_high) != (plain.ci_low, plain.ci_high)
    same = np.repeat(boot_data[:1], N_BOOT_ITEMS, axis=0)  # identical items: resampling changes nothing
    same[0, 0, 0] = 1 - same[0, 0, 0]
    same[1:] = same[:1]
    r0 = _quiet(multilabel_agreement, same, baseline="fleiss", ci=sis.Bootstrap(n=200, seed=0))
    assert r0.ci_low == pytest.approx(r0.value) and r0.ci_high == pytest.approx(r0.value)


# ------------------------------------------------------------------ errors


def test_bad_input():
    x = _random(0)
    with pytest.raises(ValueError, match="baseline must be one of"):
        multilabel_agreement(x, baseline="kappa")
    with pytest.raises(TypeError, match="set-valued"):
        multilabel_agreement([["a", "b"], ["a", "a"]])
    with pytest.raises(ValueError, match="Bootstrap"):
        multilabel_agreement(x, ci="analytic")
    with pytest.raises(ValueError, match="not in the label universe"):
        multilabel_agreement(Annotations.from_multilabel(x), labels=["0", "1"])
    one = np.full((3, 2, 2), np.nan)
    one[:, 0] = 1
    with pytest.raises(ValueError, match="rater 1 has no rating"):  # a rater with no rating is no rater
        multilabel_agreement(one)
    one[0, 1] = 1  # one rating of the second rater, on an item of its own: still no pairable item
    one[0, 0] = np.nan
    with pytest.raises(ValueError, match="no pairable item"):
        multilabel_agreement(one)


def test_nested_lists_of_numbers_are_the_0_1_array():
    """The docstring's example as nested lists (it was read as a wide table of set labels and refused: 'set-valued
    labels must contain only strings; got element 1 of type int')."""
    x = [[[1, 0, 0], [1, 0, 0]], [[0, 1, 0], [0, 1, 1]], [[1, 1, 0], [0, 1, 0]]]
    r = sis.multilabel_agreement(x, baseline="pabak")
    # by hand: Hamming agreement 1, 2/3, 2/3 -> A_o = 7/9; PABAK A_e = 1/2 -> (7/9 - 1/2) / (1/2) = 5/9
    assert r.value == pytest.approx(5 / 9, abs=1e-12) and r.observed == pytest.approx(7 / 9, abs=1e-12)
    assert r.value == pytest.approx(sis.multilabel_agreement(np.array(x), baseline="pabak").value, abs=1e-15)
    as_tuples = tuple(tuple(tuple(float(v) for v in rating) for rating in item) for item in x)
    assert sis.multilabel_agreement(as_tuples, baseline="pabak").value == pytest.approx(5 / 9, abs=1e-12)
    # None for a missing rating, as from_multilabel reads NaN
    missing = [[[1, 0, 0], [None, None, None]], *x[1:]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = sis.multilabel_agreement(missing, baseline="pabak", labels=["a", "b", "c"])
    arr = np.array([[[1, 0, 0], [np.nan] * 3], *x[1:]], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert r.value == pytest.approx(sis.multilabel_agreement(arr, baseline="pabak").value, abs=1e-15)
    assert r.value == pytest.approx(1 / 3, abs=1e-12)  # items 2 and 3 only: A_o = 2/3 -> (2/3 - 1/2) / (1/2)
    # a wide table of label lists is still one: text stays labels, never numbers
    assert sis.multilabel_agreement([[["a"], ["a", "b"]], [["b"], ["b"]]]).value == pytest.approx(
        sis.multilabel_agreement(sis.Annotations.from_wide([[{"a"}, {"a", "b"}], [{"b"}, {"b"}]])).value, abs=1e-15)
    with pytest.raises(ValueError, match="only 0/1"):
        sis.multilabel_agreement([[[2, 0], [1, 0]], [[0, 1], [0, 1]]])
