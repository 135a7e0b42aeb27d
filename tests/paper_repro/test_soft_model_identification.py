"""The population range of kappa that the monotone emission leaves open
(paper_repro/soft_model_identification.py): the range by hand, its ends as exact alternative
decompositions, the exact cell masses against the study's own score generator."""

import doctest
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

if importlib.util.find_spec("paper_repro") is None:  # top-level folder, not pip-installed
    sys.path.append(str(pathlib.Path(__file__).resolve().parents[2]))

from paper_repro import soft_model_identification  # noqa: E402


@pytest.fixture(scope="module")
def ident():
    return soft_model_identification


def test_docstring_examples(ident):
    assert doctest.testmod(ident).failed == 0


def test_heavy_tails_range_by_hand(ident):
    # 20 cells: below 0.4 the equivalent density is the tail's 0.15 (0.0075 per cell), the
    # non-equivalent one 0.85 / 0.4 + 0.15 (0.11375 per cell). a < 1 would make F1' fall at
    # 0.4 (the non-equivalent band ends there); a > 1 ends where F1' reaches 0 below 0.4
    f1, f0 = ident.shape_cells("heavy_tails", 20)
    np.testing.assert_allclose(f1[:8], 0.0075)
    np.testing.assert_allclose(f0[:8], 0.11375)
    a_hi = 1 + 0.0075 / (0.11375 - 0.0075)
    kappa, q = 0.45, 0.03
    lo, hi = ident.identified_range(f1, f0, kappa, q)
    assert hi == pytest.approx(kappa, abs=1e-9)
    assert lo == pytest.approx(kappa * (1 - q) / (a_hi - q), rel=1e-9)


@pytest.mark.parametrize("shape", ["heavy_tails", "calibrated"])
def test_range_ends_are_exact_alternative_decompositions(ident, shape):
    """At either end, F1' = a F1 + (1 - a) F0 with p / a, q / a reproduces the within-item and
    chance score distributions exactly, lies in the monotone family, and has the end's kappa;
    a step past the end leaves the family."""
    f1, f0 = ident.shape_cells(shape, 20)
    p, q = ident.population_rates()
    kappa = (p - q) / (1 - q)
    g, h = p * f1 + (1 - p) * f0, q * f1 + (1 - q) * f0
    lo, hi = ident.identified_range(f1, f0, kappa, q)
    assert lo < kappa - 0.01 or hi > kappa + 0.01  # both shapes leave a range open
    for end in (lo, hi):
        # kappa' = (p - q) / (a - q)  <=>  a = q + (p - q) / kappa'
        a = q + (p - q) / end
        f1a = a * f1 + (1 - a) * f0
        pa, qa = p / a, q / a
        np.testing.assert_allclose(pa * f1a + (1 - pa) * f0, g, atol=1e-12)
        np.testing.assert_allclose(qa * f1a + (1 - qa) * f0, h, atol=1e-12)
        assert ident.monotone(f1a, f0, 20) and f1a.min() >= -1e-9
        assert (pa - qa) / (1 - qa) == pytest.approx(end, rel=1e-9)
    outside = [q + (p - q) / (lo - 0.002), q + (p - q) / (hi + 0.002)]
    for a in outside:
        f1a = a * f1 + (1 - a) * f0
        assert not (ident.monotone(f1a, f0, 20) and f1a.min() >= -1e-9)


def test_separated_shapes_are_point_identified(ident):
    p, q = ident.population_rates()
    kappa = (p - q) / (1 - q)
    for shape in ("bands", "point_masses"):
        f1, f0 = ident.shape_cells(shape, 20)
        lo, hi = ident.identified_range(f1, f0, kappa, q, zero_mass=bool(f0[20] > 0))
        assert hi - lo < 1e-9, shape
    # exact zeros pin a at 1 even where the continuous cells alone would not
    band = np.r_[np.zeros(5), np.full(5, 0.2), 0.0, 0.0]
    flip = [*range(9, -1, -1), 10, 11]
    lo, hi = ident.identified_range(band, band[flip], 0.5, 0.1)  # abutting bands: open
    assert hi - lo > 0.1
    f0 = 0.5 * band[flip] + 0.5 * np.r_[np.zeros(10), 1.0, 0.0]
    lo, hi = ident.identified_range(band, f0, 0.5, 0.1, zero_mass=True)
    assert hi - lo < 1e-9


def test_exact_cells_match_the_study_generator(ident):
    from paper_repro.soft_model_robustness import FRESH_SHAPES, SIMULATED_SHAPES, draw_scores
    from softirr_stats.models import score_cells

    rng = np.random.default_rng(7)
    n = 400_000
    for shape in (*SIMULATED_SHAPES, *FRESH_SHAPES):
        for cls, exact in zip((True, False), ident.shape_cells(shape, 20), strict=True):
            counts = np.bincount(score_cells(draw_scores(shape, np.full(n, cls), rng), 20),
                                 minlength=22) / n
            se = np.sqrt(exact * (1 - exact) / n) + 1e-12
            assert np.max(np.abs(counts - exact) / se) < 5.5, (shape, cls)


def test_population_rates_match_a_large_study(ident):
    from paper_repro.soft_model_robustness import simulate_study

    p, q = ident.population_rates()
    sim = simulate_study("bands", 3, n_items=20_000)
    assert sim["p_o"] == pytest.approx(p, abs=0.01)
    assert sim["p_e"] == pytest.approx(q, abs=0.002)


def test_table(ident):
    rows = {line.split(" | ")[0].strip("| "): line for line in ident.table().splitlines()[2:]}
    assert set(rows) == {"bands", "point_masses", "bimodal", "heavy_tails", "overlap",
                         "calibrated", "shared_floor"}
    assert "the upper end" in rows["heavy_tails"] and "the point" in rows["bands"]
    # the shape written for the profile-likelihood widening: a range with the truth inside it
    assert "| [0.4461, 0.5130] | 0.0668 | 61% of the way up |" in rows["shared_floor"]
    assert "| no |" in rows["bimodal"] and "| no |" in rows["overlap"]
    with pytest.raises(ValueError, match="shape must be one of"):
        ident.shape_cells("nope")
    with pytest.raises(ValueError, match="f1 and f0"):
        ident.identified_range([0.5, 0.5], [0.5, 0.5], 0.5, 0.1)
