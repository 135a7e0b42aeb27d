"""Braylan et al. (2022) sigma and KS: docs/formulas/reference_values.md, scipy on enumerated pairs, seeds, fallbacks."""

import itertools
import warnings

import numpy as np
import pytest
from scipy.stats import gaussian_kde, ks_2samp

from softirr_stats.agreement import DegenerateWarning
from softirr_stats.agreement._distance import distance_samples, sigma_kde, weighted_quantile
from softirr_stats.agreement._similarity import resolve_similarity
from softirr_stats.api._statistics import distance_agreement
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


# ---------------------------------------------------------------------------------------------
# the statistic protocol and ci=


def _statistic(ann, **kw):
    from softirr_stats.agreement._distance import distance_statistic

    return distance_statistic(ann, resolve_similarity(ann, similarity=_abs20), **kw)


@pytest.mark.parametrize("kw", [{}, {"method": "sigma"}, {"method": "sigma", "kde": False},
                                {"method": "sigma", "kde_lower": "-inf", "threshold": 0.2},
                                {"expected_pairs": 3000, "seed": 4}])
def test_unit_weights_equal_the_point_estimate(kw):
    from softirr_stats.agreement import Statistic

    ann = _random_numeric(3, n=20, r=4)
    r = distance_agreement(ann, similarity=_abs20, **kw)
    stat = _statistic(ann, **kw)
    assert isinstance(stat, Statistic)
    out = stat.evaluate(np.ones((3, ann.n_items)), np.ones((3, ann.n_raters)))
    np.testing.assert_allclose(out["value"], r.value, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out["ks"], r.details["ks"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(out["sigma"], r.details["sigma"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(1 - out["pe"], r.details["mean_expected_distance"], rtol=0, atol=1e-12)
    assert stat.evaluate()["value"][0] == pytest.approx(r.value, abs=1e-12)


@pytest.mark.parametrize("kw", [{}, {"method": "sigma"}, {"method": "sigma", "kde": False}])
def test_item_weights_equal_resampled_items(kw):
    """Item weights are multiplicities: a batch row equals the statistic on the duplicated items."""
    ann = _random_numeric(9, n=12, r=3)
    cells = np.asarray(ann.vocabulary + (None,), dtype=object)[ann.codes]
    rng = np.random.default_rng(1)
    idx = [rng.integers(0, 12, 12) for _ in range(4)]
    C = np.stack([np.bincount(i, minlength=12) for i in idx]).astype(float)
    batch = _statistic(ann, **kw).evaluate(C)["value"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateWarning)
        direct = [distance_agreement(Annotations.from_wide(cells[i]), similarity=_abs20, **kw).value for i in idx]
    np.testing.assert_allclose(batch, direct, rtol=0, atol=1e-12)


def test_bootstrap_interval_contains_the_estimate_and_is_seeded():
    from softirr_stats import Bootstrap

    ann = _random_numeric(2, n=30, r=4)
    for method in ("ks", "sigma"):
        a = distance_agreement(ann, similarity=_abs20, method=method, ci=Bootstrap(n=300, seed=7))
        b = distance_agreement(ann, similarity=_abs20, method=method, ci=Bootstrap(n=300, seed=7))
        c = distance_agreement(ann, similarity=_abs20, method=method, ci=Bootstrap(n=300, seed=8))
        assert a.ci_low <= a.value <= a.ci_high and a.ci_low < a.ci_high
        assert (a.ci_low, a.ci_high, a.se) == (b.ci_low, b.ci_high, b.se)
        np.testing.assert_array_equal(a.details["replicates"], b.details["replicates"])
        assert not np.array_equal(a.details["replicates"], c.details["replicates"])
        other = "sigma" if method == "ks" else "ks"
        assert a.details[f"{other}_ci_low"] <= a.details[other] <= a.details[f"{other}_ci_high"]
    for cfg in (Bootstrap(n=100, design="raters"), Bootstrap(n=100, design="items+raters"),
                Bootstrap(n=100, design="bayesian"), Bootstrap(n=100, design="cluster", cluster=[i // 3 for i in range(30)]),
                Bootstrap(n=100, method="bca")):
        r = distance_agreement(ann, similarity=_abs20, ci=cfg)
        assert r.ci_low <= r.ci_high and r.details["bootstrap_design"] == cfg.design
    s = distance_agreement(ann, similarity=_abs20, expected_pairs=2000, ci=Bootstrap(n=100))
    assert any("chance-term sampling error" in w for w in s.warnings)


def test_bad_ci_is_refused_before_any_work():
    with pytest.raises(ValueError, match="ci must be None or softirr_stats.Bootstrap"):
        distance_agreement(TOY, similarity=_abs10, ci="analytic")
    with pytest.raises(ValueError, match="ci must be None, 'analytic'"):
        distance_agreement(TOY, similarity=_abs10, ci="bootstrap")
    with pytest.raises(ValueError, match="ci must be None, 'analytic'"):
        distance_agreement(TOY, similarity=_abs10, ci=500)
