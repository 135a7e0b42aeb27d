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
    for bad in ("gama", "stick_taX", "stick_ta"):
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


def test_csv_of_another_layout_is_refused(tmp_path):
    out = tmp_path / "rows.csv"
    out.write_text("shape,seed\nbands,1000\n")
    with pytest.raises(SystemExit, match="columns"):
        study.main(["--out", str(out), "--studies", "1"])
