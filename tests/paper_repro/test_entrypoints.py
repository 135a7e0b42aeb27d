"""paper_repro entry points at smoke size (numpyro's test_examples pattern): each subcommand
runs through ``main([...])`` into a tmp folder; files exist and the key numbers are sane."""

from __future__ import annotations

import importlib.util
import itertools
import pathlib
import sys

import numpy as np
import pandas as pd
import pytest

if importlib.util.find_spec("paper_repro") is None:  # top-level folder, not pip-installed
    sys.path.append(str(pathlib.Path(__file__).resolve().parents[2]))

from paper_repro.__main__ import main  # noqa: E402
from paper_repro.figures import paired_permutation_test  # noqa: E402
from paper_repro.studies import PUBLISHED_MULTILABEL  # noqa: E402


def _png(path: pathlib.Path) -> None:
    assert path.exists(), path
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert 2_000 < path.stat().st_size < 200_000


def test_paired_permutation_test_matches_exhaustive_enumeration() -> None:
    rng = np.random.default_rng(3)
    diff = rng.normal(0.3, 1.0, size=(4, 8))
    signs = np.array(list(itertools.product([-1.0, 1.0], repeat=8)))  # all 256 sign vectors
    obs = np.abs(diff.mean(axis=1))
    null = np.abs(diff @ signs.T) / 8
    exact = (null >= obs[:, None] - 1e-12).mean(axis=1)
    p = paired_permutation_test(diff, n_permutations=40_000, seed=1)
    np.testing.assert_allclose(p, exact, atol=0.01)
    assert np.array_equal(p, paired_permutation_test(diff, n_permutations=40_000, seed=1))
    assert paired_permutation_test(np.zeros(5), 100).item() == 1.0
    with pytest.raises(ValueError, match="n_permutations"):
        paired_permutation_test(diff, n_permutations=0)


def test_dice_jaccard_entry_point(tmp_path) -> None:
    assert main(["dice-jaccard", "--smoke", "--out", str(tmp_path)]) == 0
    _png(tmp_path / "fig_dice_jaccard.png")
    s = pd.read_csv(tmp_path / "dice_jaccard_summary.csv")
    allc = s[s.condition == "all"].set_index(["coefficient", "measure", "truth"])
    for coef in ("cohen", "scott"):
        # each normalisation recovers its own ground truth exactly ...
        assert allc.loc[(coef, "oracle-jaccard", "jaccard"), "mae"] < 1e-9
        assert allc.loc[(coef, "oracle-dice", "dice"), "mae"] < 1e-9
        # ... and the paper's Dice normalisation misses the Jaccard truth
        assert allc.loc[(coef, "oracle-dice", "jaccard"), "mae"] > 0.01
    res = pd.read_csv(tmp_path / "dice_jaccard_results.csv")
    assert set(res.measure) == {"oracle-dice", "oracle-jaccard"}


def test_dperm_entry_point(tmp_path) -> None:
    import softirr_stats as sis

    assert main(["dperm", "--smoke", "--out", str(tmp_path)]) == 0
    _png(tmp_path / "fig_permutation_study.png")
    s = pd.read_csv(tmp_path / "permutation_study.csv")
    draws = pd.read_csv(tmp_path / "permutation_study_draws.csv")
    assert set(s.D) == {2, 3, 10} and set(s.method) == {"monte_carlo", "sampled_pairs"}
    assert len(draws) == 2 * 2 * 3 * 2 * 5  # measures x coefficients x D x methods x seeds
    cohen = s[s.coefficient == "cohen"]
    assert (cohen.pairs_scored == cohen.D * 30).all()
    assert (s.pe_sd > 0).all() and np.isfinite(s.chance_se_mean).all()
    # the summary is the spread of the draws
    g = draws[(draws.measure == "indel") & (draws.coefficient == "cohen")
              & (draws.method == "monte_carlo") & (draws.D == 3)]
    row = s[(s.measure == "indel") & (s.coefficient == "cohen") & (s.method == "monte_carlo")
            & (s.D == 3)].iloc[0]
    assert row.pe_sd == pytest.approx(g.pe.std(ddof=1))
    assert row.chance_se_mean == pytest.approx(g.chance_se.mean())
    # the exact column is the library's exact-chance coefficient; draws scatter around it
    from paper_repro.studies import _dperm_data

    ann, mats = _dperm_data("fixture-hpo", 30, 0.5, 0)
    k = sis.cohen_kappa(ann, similarity=mats["indel"]).value
    assert row.kappa_exact == pytest.approx(k, abs=1e-12)
    assert abs(row.kappa_mean - k) < 0.1


def test_multilabel_entry_point(tmp_path, capsys) -> None:
    assert main(["multilabel", "--out", str(tmp_path)]) == 0
    assert "0.232" in capsys.readouterr().out
    t = pd.read_csv(tmp_path / "multilabel_example.csv").set_index("baseline")
    for b in ("fleiss", "ac1", "pabak"):
        assert round(t.loc[b, "value"], 4) == PUBLISHED_MULTILABEL[b]["value"]
        assert round(t.loc[b, "floor"], 4) == PUBLISHED_MULTILABEL[b]["floor"]
        assert t.loc[b, "raw_prevalence"] == pytest.approx(7 / 93, abs=1e-15)


def test_xrr_entry_point(tmp_path) -> None:
    assert main(["xrr", "--smoke", "--out", str(tmp_path)]) == 0
    _png(tmp_path / "fig_xrr.png")
    t = pd.read_csv(tmp_path / "xrr_example.csv")
    assert len(t) == 8
    assert set(t.statistic) == {"kappa_x", "normalized", "irr_x", "irr_y"}
    ok = t.dropna(subset=["ci_low"])
    assert (ok.ci_low <= ok.value + 1e-12).all() and (ok.value <= ok.ci_high + 1e-12).all()
    irr = t[t.statistic.str.startswith("irr")]
    # cross_kappa's IRRs are Krippendorff's alpha of each replication
    np.testing.assert_allclose(irr.value, irr.check_alpha, atol=1e-9)
    v = t.set_index(["similarity", "statistic"]).value
    # synonyms count as agreement under the oracle: every statistic rises
    assert v[("oracle", "kappa_x")] > v[("exact", "kappa_x")]
    assert v[("oracle", "irr_x")] > v[("exact", "irr_x")]
    # rater pool X is more accurate than pool Y
    assert v[("oracle", "irr_x")] > v[("oracle", "irr_y")]


def test_ppi_coverage_seeds_do_not_depend_on_which_cells_run(tmp_path) -> None:
    """A cell's studies are the same run alone or with others, and a rerun resumes them."""
    import pandas as pd

    from paper_repro import ppi_coverage

    alone, together = tmp_path / "alone", tmp_path / "together"
    ppi_coverage.run(alone, 2, budgets=(100,), skews=("heavy",))
    ppi_coverage.run(together, 2, budgets=(30, 100), skews=("moderate", "heavy"))
    a = pd.read_csv(alone / "ppi_coverage_heavy_100.csv")
    b = pd.read_csv(together / "ppi_coverage_heavy_100.csv")
    pd.testing.assert_frame_equal(a, b)
    assert a["cell"].tolist() == [ppi_coverage.cell_id("heavy", 100)] * 2 == [201, 201]
    ppi_coverage.run(alone, 3, budgets=(100,), skews=("heavy",))  # resumes: one more study
    c = pd.read_csv(alone / "ppi_coverage_heavy_100.csv")
    assert c["study"].tolist() == [0, 1, 2]
    pd.testing.assert_frame_equal(c.iloc[:2], a)
    assert not list(alone.glob("*.part"))
    s = ppi_coverage.summary(together)
    assert len(s) == 4 and s["studies"].tolist() == [2, 2, 2, 2] and s["cover95_fresh"].isna().all()
    assert (s["zero_width_unwarned"] == 0).all()
