"""The Dawid-Skene prior studies (paper_repro/ds_prior_study.py, paper_repro/adversary_study.py)
at smoke size: their helpers by hand, one fit of each kind, the summary tables."""

import doctest
import importlib.util
import pathlib

import numpy as np
import pandas as pd
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _module(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "paper_repro" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_population_kappa_and_majority_disagreement_by_hand():
    mod = _module("ds_prior_study")
    assert doctest.testmod(mod).failed == 0
    # K = 2, accuracy 0.75: P_o = 0.625, P_e = 0.5 -> kappa 0.25
    assert mod.population_kappa(0.75, 2) == pytest.approx(0.25)
    # the population kappa is what a large simulated study's Fleiss kappa converges to
    from softirr_stats import models

    codes = models.simulate_dawid_skene(40_000, 3, 3, accuracy=0.6, seed=0)["codes"]
    counts = np.stack([(codes == c).sum(1) for c in range(3)], 1)
    po = ((counts * (counts - 1)).sum(1) / 6).mean()
    pe = ((counts.sum(0) / counts.sum()) ** 2).sum()
    assert (po - pe) / (1 - pe) == pytest.approx(mod.population_kappa(0.6, 3), abs=0.01)
    codes = np.array([[0, 0, 1], [1, 1, 0], [2, 1, 0], [1, 1, 1]])
    # item 2 is a three-way tie (any label agrees); items 0, 1, 3 have one mode
    assert mod.majority_disagreement(codes, np.array([0, 1, 2, 1]), 3) == 0.0
    assert mod.majority_disagreement(codes, np.array([1, 0, 2, 0]), 3) == pytest.approx(0.75)


def test_switching_fit_reports_alignment_and_disagreement():
    mod = _module("ds_prior_study")
    row = mod.switching_fit(3, 1.0, "svi", 20, 2, 0.75)
    assert row["concentration"] == 1.0 and row["num_chains"] == 1
    assert 0.0 <= row["permuted_draws"] <= 1.0
    assert 0.0 <= row["mv_disagreement"] <= 1.0 and row["switched"] == (row["mv_disagreement"] > 0.5)
    assert row["kappa_lo"] <= row["kappa"] <= row["kappa_hi"]
    assert row["kappa_true"] == pytest.approx(0.25)


def test_adversary_study_weak_prior_models(tmp_path, capsys):
    mod = _module("adversary_study")
    assert set(mod.WEAK_PRIORS) == {"dawid_skene_c1", "dawid_skene_c2"} <= set(mod.MODELS)
    assert mod.WEAK_PRIORS["dawid_skene_c2"] == 2.0
    codes, truth = mod.simulate(5, 60, 5)
    assert codes.shape == (60, 5)
    # the adversary answers (c + 1) mod 3 three times in four
    assert 0.6 < np.mean(codes[:, 4] == (truth + 1) % 3) < 0.9
    row = mod.one_fit(5, "dawid_skene_c2", "svi", 60, 5, 300, 0.14)
    assert row["model"] == "dawid_skene_c2" and 0 <= row["adv_acc"] <= 1
    path = tmp_path / "adv.csv"
    pd.DataFrame([row, {**row, "model": "dawid_skene"}]).to_csv(path, index=False)
    mod.summarise([str(path)])
    out = capsys.readouterr().out
    assert "| dawid_skene_c2 | svi | 1 |" in out and "| dawid_skene | svi | 1 |" in out


def test_ds_prior_study_summary_tables(tmp_path, capsys):
    mod = _module("ds_prior_study")
    small = {"study": "small", "seed": 0, "concentration": 4.0, "method": "svi", "n_items": 30,
             "k": 10, "accuracy": 0.82, "seconds": 1.0, "kappa_true": 0.64, "fleiss": 0.6,
             "kappa": 0.5, "kappa_lo": 0.4, "kappa_hi": 0.62, "acc_mae": 0.05,
             "acc_cover90": 1.0}
    sw = {"study": "switching", "seed": 0, "concentration": 1.0, "method": "nuts",
          "n_items": 20, "k": 3, "accuracy": 0.6, "seconds": 1.0, "kappa_true": 0.2,
          "kappa": 0.25, "kappa_lo": 0.1, "kappa_hi": 0.4, "permuted_draws": 0.5,
          "chains_permuted": 1, "num_chains": 2, "mv_disagreement": 0.7, "switched": True,
          "truth_disagreement": 0.7, "mv_truth_disagreement": 0.2,
          "convergence_warned": False}
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    pd.DataFrame([small, {**small, "seed": 1, "kappa": 0.7, "kappa_hi": 0.8}]).to_csv(a, index=False)
    pd.DataFrame([sw, {**sw, "seed": 1, "switched": False, "permuted_draws": 0.0}]).to_csv(
        b, index=False)
    mod.summarise([str(a), str(b)])
    out = capsys.readouterr().out
    # small: bias (0.5 + 0.7) / 2 - 0.64 = -0.04; the population kappa is covered once
    assert "| 4 | 2 | -0.040 ± 0.100 |" in out and "0.50 ± 0.35" in out
    # switching: one of two fits switched, one had permuted draws
    assert "| 3 | 0.6 | 20 | nuts | 1 | 2 | 1 |" in out
