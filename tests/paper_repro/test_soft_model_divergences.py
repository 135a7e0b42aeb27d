"""The divergence study of the soft model's NUTS fits (paper_repro/soft_model_divergences.py): its
variants, its ``gamma_ta90`` variant is what ``inference.fit`` samples, the soft model keeps its sites."""

import doctest
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

if importlib.util.find_spec("paper_repro") is None:  # top-level folder, not pip-installed
    sys.path.append(str(pathlib.Path(__file__).resolve().parents[2]))

from paper_repro import soft_model_divergences as study  # noqa: E402


def test_docstring_examples():
    assert doctest.testmod(study).failed == 0


def test_variant_names():
    assert study.variant_settings("stick_ta95") == (False, 0.95)
    assert study.variant_settings("gamma_ta90_dense") == (True, 0.9) and study.variant_dense("gamma_ta90_dense")
    assert not study.variant_dense("stick_ta95")
    for bad in ("gama", "stick_taX", "stick_ta", "dense", "stick_dense_ta90"):
        with pytest.raises(ValueError, match="unknown variant"):
            study.variant_settings(bad)


def test_gamma_variant_is_what_fit_samples():
    from softirr_stats.inference._kinds import MODEL_KINDS

    assert set(MODEL_KINDS["soft"].nuts_gamma_sites) == {
        "equiv_weights", "nonequiv_weights", "equiv_weights_kept", "nonequiv_weights_kept", "equiv_atoms",
        "nonequiv_atoms"}  # the sites the study's rows were fitted with
    assert study.variant_settings("gamma_ta90") == (True, MODEL_KINDS["soft"].nuts_target_accept)


def test_soft_model_keeps_its_sites_under_the_gamma_parametrisation():
    import numpyro

    from paper_repro.soft_model_robustness import simulate_study

    data = simulate_study("bands", 1000, n_items=20, n_chance=50)["data"]
    trace = numpyro.handlers.trace(numpyro.handlers.seed(study.soft_model(True), 0)).get_trace(data)
    for name in ("equiv_weights", "nonequiv_weights", "equiv_atoms", "nonequiv_atoms"):
        assert trace[name]["type"] == "deterministic"
        assert trace[f"{name}_gamma"]["type"] == "sample"
        assert np.isclose(float(trace[name]["value"].sum()), 1.0, atol=1e-5)
    assert "kappa" in trace
    plain = numpyro.handlers.trace(numpyro.handlers.seed(study.soft_model(False), 0)).get_trace(data)
    assert plain["equiv_weights"]["type"] == "sample"


def test_histogram_emission_cells_are_drawn_as_gammas_with_gold_pairs():
    import numpyro

    from paper_repro.soft_model_robustness import simulate_study

    data = simulate_study("bimodal", 1000, n_items=20, n_chance=50, n_gold=10)["data"]
    trace = numpyro.handlers.trace(numpyro.handlers.seed(study.soft_model(True, "histogram"), 0)).get_trace(data)
    for name in study.HISTOGRAM_SITES:
        assert trace[name]["type"] == "deterministic" and trace[f"{name}_gamma"]["type"] == "sample"
        assert np.isclose(float(trace[name]["value"].sum()), 1.0, atol=1e-5)
    assert "equiv_weights" not in trace  # the monotone sites belong to the other emission
    plain = numpyro.handlers.trace(numpyro.handlers.seed(study.soft_model(False, "histogram"), 0)).get_trace(data)
    assert plain["equiv_hist"]["type"] == "sample"


def test_rows_record_emission_and_gold(tmp_path, monkeypatch):
    out = tmp_path / "rows.csv"
    calls = []

    def fake_rows(shape, variant, seeds, seed0, warmup, samples, emission, gold, concentration):
        calls.append((shape, variant, tuple(seeds), emission, gold, concentration))
        return [dict.fromkeys(study.COLUMNS, 0) | {"shape": shape, "variant": variant, "seed": s, "warmup": warmup,
                                                    "emission": emission, "gold": gold,
                                                    "histogram_concentration": concentration} for s in seeds]

    monkeypatch.setattr(study, "fit_rows", fake_rows)
    args = ["--out", str(out), "--shapes", "bands", "--variants", "stick", "--studies", "2", "--batch", "2"]
    study.main(args + ["--emission", "histogram", "--gold", "50"])
    study.main(args + ["--emission", "histogram", "--gold", "50"])  # resumes: nothing left
    study.main(args)  # another emission and gold: fitted
    study.main(args + ["--emission", "histogram", "--gold", "50", "--histogram-concentration", "22"])  # another prior
    assert calls == [("bands", "stick", (1000, 1001), "histogram", 50, 2.0),
                     ("bands", "stick", (1000, 1001), "monotone", 0, 2.0),
                     ("bands", "stick", (1000, 1001), "histogram", 50, 22.0)]
    index = study.summary(str(out)).index
    assert list(index.get_level_values("emission")) == ["histogram", "histogram", "monotone"]
    assert list(index.get_level_values("histogram_concentration")) == [2.0, 22.0, 2.0]


def test_csv_of_another_layout_is_refused(tmp_path):
    out = tmp_path / "rows.csv"
    out.write_text("shape,seed\nbands,1000\n")
    with pytest.raises(SystemExit, match="columns"):
        study.main(["--out", str(out), "--studies", "1"])
