"""Braylan et al. (2022) sigma and KS: docs/formulas/reference_values.md, scipy on enumerated pairs, seeds, fallbacks."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.stats import gaussian_kde, ks_2samp

from softirr_stats._statistics import distance_agreement
from softirr_stats.agreement import DegenerateWarning
from softirr_stats.agreement._distance import distance_samples, sigma_kde, weighted_quantile
from softirr_stats.agreement._similarity import resolve_similarity
from softirr_stats.data import Annotations

TOY = [[1.0, 2.0, 1.5], [5.0, 5.5, None], [9.0, 7.0, 8.0]]


def _abs10(a, b):
    return 1 - np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)) / 10


def _abs20(a, b):
    return 1 - np.abs(np.asarray(a, dtype=float) - np.asarray(b, dtype=float)) / 20


def _enumerate(ann, sim_fn):
    """D_o and D_e by enumerating every rating pair (the reference code's setup, no subsampling)."""
    voc = ann.vocabulary
    ii, jj = np.nonzero(ann.codes >= 0)
    labels = [voc[ann.codes[i, j]] for i, j in zip(ii, jj, strict=True)]
    d_o, d_e = [], []
    for a, b in itertools.combinations(range(len(ii)), 2):
        d = 1 - float(sim_fn([labels[a]], [labels[b]])[0])
        (d_o if ii[a] == ii[b] else d_e).append(d)
    return np.array(d_o), np.array(d_e)


def test_braylan_toy_formulas_8_1():
    r = distance_agreement(TOY, similarity=_abs10)
    d = r.details
    assert d["n_observed_pairs"] == 7 and d["n_expected_pairs"] == 21
    assert d["flat_alpha"] == pytest.approx(0.8, abs=1e-12)
    assert r.value == pytest.approx(0.9047619048, abs=1e-10)
    assert d["quantile"] == pytest.approx(0.2, abs=1e-12)
    assert d["sigma"] == pytest.approx(6 / 7, abs=1e-12) and d["sigma_method"] == "kde(lower=zero)"
    assert d["sigma_quantile"] == pytest.approx(6 / 7, abs=1e-12)
    rq = distance_agreement(TOY, similarity=_abs10, method="sigma", kde=False)
    assert rq.value == pytest.approx(6 / 7, abs=1e-12) and rq.coefficient == "braylan_sigma"


def _random_numeric(seed, n=15, r=4):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 10, size=n)
    t = (truth[:, None] + rng.integers(-2, 3, size=(n, r))).astype(object)
    t[rng.random((n, r)) < 0.2] = None
    t[:, 0] = truth
    return Annotations.from_wide(t)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_scipy_on_enumerated_pairs(seed):
    ann = _random_numeric(seed)
    d_o, d_e = _enumerate(ann, _abs20)
    r = distance_agreement(ann, similarity=_abs20)
    assert r.value == pytest.approx(ks_2samp(d_o, d_e, alternative="greater").statistic, abs=1e-12)
    assert r.details["flat_alpha"] == pytest.approx(1 - d_o.mean() / d_e.mean(), abs=1e-12)
    kde = gaussian_kde(d_e)
    for lower, lo in (("zero", 0.0), ("-inf", -np.inf)):
        want = np.mean([kde.integrate_box_1d(lo, d) < 0.05 for d in d_o])
        got = distance_agreement(ann, similarity=_abs20, method="sigma", kde_lower=lower)
        assert got.value == pytest.approx(want, abs=1e-12)
        assert got.details["bandwidth"] == pytest.approx(np.sqrt(kde.covariance[0, 0]), rel=1e-12)
    t = np.quantile(d_e, 0.1)
    rq = distance_agreement(ann, similarity=_abs20, kde=False, threshold=0.1)
    assert rq.details["quantile"] == t
    assert rq.details["sigma"] == pytest.approx(np.mean(d_o < t), abs=1e-12)


def test_identity_similarity_and_exact_ties():
    rng = np.random.default_rng(4)
    t = rng.choice(list("abcd"), size=(12, 3)).astype(object)
    ann = Annotations.from_wide(t)
    d_o, d_e = _enumerate(ann, lambda a, b: np.array([float(a[0] == b[0])]))
    r = distance_agreement(ann)
    assert r.value == pytest.approx(ks_2samp(d_o, d_e, alternative="greater").statistic, abs=1e-12)


def test_weighted_quantile_equals_numpy():
    rng = np.random.default_rng(0)
    for _ in range(20):
        vals = np.sort(rng.choice(rng.random(6), size=6, replace=False))
        counts = rng.integers(1, 5, size=6).astype(float)
        expanded = np.repeat(vals, counts.astype(int))
        for q in (0.0, 0.05, 0.3, 0.5, 0.77, 1.0):
            assert weighted_quantile(vals, counts, q) == np.quantile(expanded, q)


def test_binary_search_equals_direct_evaluation():
    ann = _random_numeric(5, n=30, r=5)
    s = distance_samples(ann, resolve_similarity(ann, similarity=_abs20))
    for th in (0.01, 0.05, 0.3):
        for lower in ("zero", "-inf"):
            assert sigma_kde(s, th, lower, max_direct=0) == sigma_kde(s, th, lower)


def test_sampled_expected_pairs_are_seeded():
    ann = _random_numeric(6, n=40, r=4)
    a = distance_agreement(ann, similarity=_abs20, expected_pairs=5000, seed=1)
    b = distance_agreement(ann, similarity=_abs20, expected_pairs=5000, seed=1)
    c = distance_agreement(ann, similarity=_abs20, expected_pairs=5000, seed=2)
    full = distance_agreement(ann, similarity=_abs20)
    assert a.value == b.value and a.details["sigma"] == b.details["sigma"]
    assert a.details["n_expected_pairs"] == 5000 and a.details["expected_pairs"] == "sampled(n=5000, seed=1)"
    assert a.details["mean_expected_distance"] != c.details["mean_expected_distance"]
    assert abs(a.value - full.value) < 0.05


def test_all_pairs_falls_back_to_sampling_when_too_many_label_pairs():
    ann = _random_numeric(7, n=30, r=4)
    sim = resolve_similarity(ann, similarity=_abs20)
    s = distance_samples(ann, sim, "all", seed=0, max_label_pairs=10)
    assert s.expected_label.startswith("sampled(") and s.notes


def test_constant_expected_distances_fall_back_to_quantile():
    ann = Annotations.from_wide([["a", "a"], ["b", "b"], ["c", "c"]])  # every cross pair differs
    with pytest.warns(DegenerateWarning, match="quantile"):
        r = distance_agreement(ann, method="sigma")
    assert r.details["sigma_method"] == "quantile" and r.value == 1.0
    assert r.details["ks"] == 1.0


def test_bad_input():
    with pytest.raises(ValueError, match="method must be one of"):
        distance_agreement(TOY, similarity=_abs10, method="alpha")
    with pytest.raises(ValueError, match="threshold"):
        distance_agreement(TOY, similarity=_abs10, threshold=1.5)
    with pytest.raises(ValueError, match="expected_pairs"):
        distance_agreement(TOY, similarity=_abs10, expected_pairs="some")
    with pytest.raises(ValueError, match="kde_lower must be one of"):
        distance_agreement(TOY, similarity=_abs10, kde_lower="0")
    with pytest.raises(ValueError, match="no item has two or more ratings"):
        distance_agreement([["a", None], [None, "b"]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="in \\[0, 1\\]"):
            distance_agreement(TOY, similarity=lambda a, b: np.full(len(a), 2.0))
