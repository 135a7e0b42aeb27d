"""The profile-likelihood study of the soft model's kappa (paper_repro/soft_model_profile.py): the
library's interval (tested in tests/inference/test_soft_profile.py) gives the stored rows again,
rows resume, the tables count what they say."""

import csv
import doctest
import importlib.util
import pathlib
import sys

import pytest

if importlib.util.find_spec("paper_repro") is None:  # top-level folder, not pip-installed
    sys.path.append(str(pathlib.Path(__file__).resolve().parents[2]))

from paper_repro import soft_model_profile as prof  # noqa: E402


def test_docstring_examples():
    assert doctest.testmod(prof).failed == 0


def test_the_library_reproduces_the_stored_rows():
    """The rows in docs/ were computed by this script before its interval moved into the library
    (``inference._soft_profile``): the library gives them again, to the last digit, so the
    measured coverage is the library's (two studies per shape)."""
    from paper_repro.soft_model_robustness import simulate_study

    path = pathlib.Path(__file__).resolve().parents[2] / "docs/soft_model_robustness/profile_study.csv"
    with open(path) as fh:
        stored = {(r["shape"], int(r["seed"])): r for r in csv.DictReader(fh)}
    for shape, seed in (("bands", 1000), ("heavy_tails", 1000), ("calibrated", 1001)):
        d = simulate_study(shape, seed)["data"]
        r = prof.profile_interval(d.within_scores, d.chance_scores)
        for key in ("estimate", "lower", "upper", "set_lower", "set_upper"):
            assert r[key] == pytest.approx(float(stored[(shape, seed)][key]), rel=1e-12, abs=1e-14), (shape, key)


def test_rows_resume_and_tabulate(tmp_path):
    out = tmp_path / "rows.csv"
    first = prof.run(["bands"], 2, 1000, str(out))
    again = prof.run(["bands"], 2, 1000, str(out))
    assert len(first) == 2 and again == []
    with open(out) as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["seed"]) for r in rows] == [1000, 1001]
    assert set(rows[0]) == set(prof.COLUMNS)
    text = prof.table(rows)
    assert "| bands | 2 |" in text


def test_compare_with_the_posterior_rows():
    """Union coverage and the reach count, on two studies by hand: study 1 the posterior misses
    (truth above it) and the profile reaches 1 half-width above it; study 2 both cover."""
    rows = [{"shape": "heavy_tails", "seed": "1", "truth": "0.50", "lower": "0.44", "upper": "0.52"},
            {"shape": "heavy_tails", "seed": "2", "truth": "0.50", "lower": "0.47", "upper": "0.53"}]
    nuts = [{"shape": "heavy_tails", "seed": "1", "emission": "monotone", "lower": "0.44", "upper": "0.48"},
            {"shape": "heavy_tails", "seed": "2", "emission": "monotone", "lower": "0.46", "upper": "0.54"},
            {"shape": "heavy_tails", "seed": "1", "emission": "beta", "lower": "0.0", "upper": "1.0"},
            {"shape": "bands", "seed": "1", "emission": "monotone", "lower": "0.4", "upper": "0.6"}]
    text = prof.compare(rows, nuts)
    # study 1: the profile reaches 1 half-width above (widened); study 2: 0.25 below (not widened)
    assert text.splitlines()[-1] == ("| heavy_tails | 2 | 100.0%, 0.070 | 50.0%, 0.060 | 100.0%, 0.080 "
                                     "| 100.0% (0.0%), 0.080, 1/2 | 1/1, 0/1 |")


def test_the_warnings_table_counts_by_hand():
    """Three studies by hand: 1 widened with a note and covered; 2 widened with the two intervals
    apart (a FitWarning), the union covering; 3 not widened, missed, flagged
    by the score check and by a ConvergenceWarning."""
    rows = [{"shape": "s", "seed": "1", "truth": "0.50", "lower": "0.44", "upper": "0.52"},
            {"shape": "s", "seed": "2", "truth": "0.50", "lower": "0.49", "upper": "0.51"},
            {"shape": "s", "seed": "3", "truth": "0.50", "lower": "0.41", "upper": "0.44"}]
    nuts = [{"shape": "s", "seed": "1", "emission": "monotone", "lower": "0.44", "upper": "0.48", "kappa": "0.46",
             "warned": "False", "convergence_warned": "False"},
            {"shape": "s", "seed": "2", "emission": "monotone", "lower": "0.56", "upper": "0.60", "kappa": "0.58",
             "warned": "False", "convergence_warned": ""},
            {"shape": "s", "seed": "3", "emission": "monotone", "lower": "0.40", "upper": "0.45", "kappa": "0.42",
             "warned": "True", "convergence_warned": "True"}]
    last = prof.warnings_table(rows, nuts).splitlines()[-1]
    assert last == "| s | 3 | 66.7% | 1 | 1 | 1/1, 0/2 | 1/1, 1/2 | 1/1, 0/1 (2) |"
