"""Chance agreement: exact (dense, blocked), Monte Carlo permutations, sampled pairs, auto."""

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.agreement import _chance
from softirr_stats.equivalence import Levenshtein

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")


def _text_table(seed=0, n=60, r=3):
    rng = np.random.default_rng(seed)
    words = ["fatigue", "fatigued", "asthenia", "fever", "feverish", "pyrexia", "cough", "coughing"]
    truth = rng.integers(0, len(words), n)
    x = np.where(rng.random((n, r)) < 0.6, truth[:, None], rng.integers(0, len(words), (n, r)))
    return [[words[k] for k in row] for row in x]


def test_blocked_exact_chance_equals_dense(monkeypatch):
    cells = _text_table()
    dense = sis.fleiss_kappa(cells, similarity=Levenshtein())
    monkeypatch.setattr(_chance, "DENSE_SUPPORT_LIMIT", 2)  # force the blocked path
    blocked = sis.fleiss_kappa(cells, similarity=Levenshtein())
    assert blocked.value == pytest.approx(dense.value, abs=1e-12)
    assert sis.cohen_kappa([r[:2] for r in cells], similarity=Levenshtein()).value == pytest.approx(
        sis.cohen_kappa([r[:2] for r in cells], similarity=Levenshtein(), chance="exact").value, abs=1e-12)


@pytest.mark.parametrize("fn", [sis.fleiss_kappa, sis.conger_kappa, sis.krippendorff_alpha])
def test_sampled_pairs_is_unbiased_and_reports_se(fn):
    cells = _text_table(seed=1)
    exact = fn(cells, similarity=Levenshtein())
    est = fn(cells, similarity=Levenshtein(), chance=sis.SampledPairs(n=40_000, seed=3))
    assert est.chance.startswith("sampled_pairs")
    assert 0 < est.chance_se < 0.01
    assert abs(est.expected - exact.expected) < 4 * est.chance_se + 1e-9


@pytest.mark.parametrize("fn", [sis.fleiss_kappa, sis.cohen_kappa, sis.krippendorff_alpha])
def test_monte_carlo_permutations(fn):
    cells = [r[:2] for r in _text_table(seed=2)] if fn is sis.cohen_kappa else _text_table(seed=2)
    exact = fn(cells, similarity=Levenshtein())
    mc = fn(cells, similarity=Levenshtein(), chance=sis.MonteCarlo(permutations=50, seed=0))
    assert mc.chance == "monte_carlo(D=50)"
    assert abs(mc.expected - exact.expected) < 0.05
    assert mc.chance_se > 0


def test_sampled_chance_error_enters_bootstrap():
    cells = _text_table(seed=4)
    r = sis.fleiss_kappa(cells, similarity=Levenshtein(), chance=sis.SampledPairs(n=500, seed=0),
                         ci=sis.Bootstrap(n=200, seed=0))
    assert any("chance pairs are resampled" in w for w in r.warnings)
    assert r.ci_low < r.value < r.ci_high


def test_auto_picks_and_says_which():
    cells = _text_table(seed=5)
    r = sis.fleiss_kappa(cells, similarity=Levenshtein(), chance="auto")
    assert r.chance == "exact"
    assert any("chose exact" in w for w in r.warnings)


def test_pairs_scored_are_counted_once():
    cells = _text_table(seed=6)
    r = sis.fleiss_kappa(cells, similarity=Levenshtein())
    k = len({w for row in cells for w in row})
    assert r.n_pairs_scored == k * (k - 1) // 2  # every off-diagonal vocabulary pair once


def test_bad_chance_lists_options():
    with pytest.raises(ValueError, match="chance must be one of"):
        sis.fleiss_kappa(_text_table(), chance="permute")
    with pytest.raises(ValueError, match="permutations must be >= 1"):
        sis.MonteCarlo(permutations=0)
    from softirr_stats.agreement import prepare, resolve_similarity

    ann = sis.Annotations.from_wide(_text_table())
    with pytest.raises(ValueError, match="needs chance='exact'"):
        prepare(ann, "light", resolve_similarity(ann), chance=sis.SampledPairs(n=10))


def test_degenerate_expected_one_gives_nan_with_reason():
    with pytest.warns(sis.DegenerateWarning, match="expected \\(chance\\) agreement is 1"):
        r = sis.fleiss_kappa([["a", "a"], ["a", "a"], ["a", "a"]])
    assert np.isnan(r.value) and any("undefined" in w for w in r.warnings)
    with pytest.warns(sis.DegenerateWarning):
        assert np.isnan(sis.krippendorff_alpha([["a", "a"], ["a", "a"]]).value)


def test_no_pairable_item_and_bad_similarity_raise():
    with pytest.raises(ValueError, match="no pairable item"):
        sis.fleiss_kappa([["a", None], [None, "b"]])
    with pytest.raises(ValueError, match=r"scores must be finite and in \[0, 1\]|not in \[0, 1\]|outside"):
        sis.fleiss_kappa(_text_table(), similarity=lambda a, b: np.full(len(a), 1.5))
    with pytest.raises(ValueError, match="unit diagonal"):
        sis.fleiss_kappa([["a", "b"], ["a", "a"]], similarity=np.array([[0.5, 0.2], [0.2, 1.0]]))
    with pytest.raises(ValueError, match="exactly two raters"):
        sis.cohen_kappa(_text_table(r=3))
    with pytest.raises(ValueError, match="give weights= .* or similarity="):
        sis.fleiss_kappa(_text_table(), weights="linear", similarity=Levenshtein())
    with pytest.raises(ValueError, match="weights must be one of"):
        sis.fleiss_kappa([[1, 2], [2, 2]], weights="quadratik")
    with pytest.raises(ValueError, match="level must be one of"):
        sis.krippendorff_alpha([[1, 2], [2, 2]], level="nominl")


def test_pooled_monte_carlo_is_unbiased_across_seeds():
    """Regression: permuting the pooled draws against themselves paired fixed points with
    themselves and biased p_e upwards by about (1 - p_e) / n (found by the D-permutation study)."""
    cells = [[f"t{(3 * i + j) % 40}" for j in range(2)] for i in range(40)]  # every item disagrees
    exact = sis.scott_pi(cells).expected
    draws = [sis.scott_pi(cells, chance=sis.MonteCarlo(permutations=10, seed=s)).expected for s in range(60)]
    assert abs(np.mean(draws) - exact) < 3 * np.std(draws) / np.sqrt(len(draws)) + 1e-4
