"""The soft model's NUTS coverage study (paper_repro/soft_model_nuts_study.py): its batched
NUTS program against ``inference.fit(method="nuts")`` on a tiny study, its rows, r_hat and the
NUTS / SVI table."""

from __future__ import annotations

import importlib.util
import pathlib
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

if importlib.util.find_spec("paper_repro") is None:  # top-level folder, not pip-installed
    sys.path.append(str(pathlib.Path(__file__).resolve().parents[2]))

from paper_repro import soft_model_nuts_study as study  # noqa: E402
from paper_repro.soft_model_robustness import simulate_study  # noqa: E402
from softirr_stats.inference._kinds import SoftKind  # noqa: E402

#: The SVI study's columns, which its --confusion / --calibrate read: the NUTS rows carry them all.
SVI_COLUMNS = ["shape", "emission", "seed", "truth", "kappa", "lower", "upper", "covered", "ppc_p",
               "ppc_chi2", "ppc_rep_median", "kappa_sd", "component_overlap", "separable", "leak",
               "separation_warned"]


@pytest.mark.slow  # two NUTS programs compile (the batched one and fit's): ~50 s of CPU
def test_batched_nuts_matches_the_library_fit_on_a_tiny_study():
    from numpyro.diagnostics import effective_sample_size

    from softirr_stats import models
    from softirr_stats.inference import NutsConfig, fit

    # tiny: two NUTS programs are compiled (the batched one and fit's), which is most of the time
    cfg = NutsConfig(num_warmup=50, num_samples=50, num_chains=2, max_tree_depth=4)
    sims = [simulate_study("bands", 7, n_items=24, n_chance=80)]
    res = study.fit_batch(sims, [3], models.DEFAULT_EMISSION, cfg)
    assert res["by_chain"]["kappa"].shape == (1, 2, 50)
    for i, sim in enumerate(sims):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            post = fit(models.soft_agreement, sim["data"], method="nuts", seed=3, config=cfg,
                       progress=False, check_size=False)
        lib = np.asarray(post.samples_by_chain["kappa"], np.float64)
        mine = res["by_chain"]["kappa"][i].astype(np.float64)
        # the same key, model, priors and settings; float rounding differs under vmap and
        # the chains part after a few transitions: the posterior means agree within MC error
        se = np.sqrt(sum(np.var(a) / max(float(effective_sample_size(a)), 1.0)
                         for a in (mine, lib)))
        assert abs(mine.mean() - lib.mean()) <= 4 * se, (mine.mean(), lib.mean(), se)
        assert abs(np.quantile(mine, 0.5) - np.quantile(lib, 0.5)) <= 0.1
    rows = study.study_rows("bands", models.DEFAULT_EMISSION, [7], sims, res, cfg, 1.0)
    assert set(SVI_COLUMNS) <= set(rows[0])
    for r, sim in zip(rows, sims, strict=True):
        assert r["lower"] <= r["kappa"] <= r["upper"] and r["truth"] == sim["kappa"]
        assert r["covered"] == (r["lower"] <= r["truth"] <= r["upper"])
        assert 0.0 <= r["ppc_p"] <= 1.0 and 0.0 <= r["component_overlap"] <= 1.0
        assert r["method"] == "nuts" and r["chains"] == 2 and r["samples"] == 50
        assert r["max_rhat"] >= r["kappa_rhat"] - 1e-12
        # the rule fit warns on now: strict elements at 1.01, the nuisance sites' at 1.05
        assert r["max_rhat"] == pytest.approx(max(r["max_rhat_strict"], r["max_rhat_nuisance"]))
        assert r["max_rhat_nuisance_site"] in SoftKind.nuisance_sites
        assert r["max_rhat_strict_site"] not in SoftKind.nuisance_sites
        assert not r["max_rhat_strict_site"].endswith("_gamma")  # the sampler's coordinates are not rows'
        assert not r["max_rhat_nuisance_site"].endswith("_gamma")
        assert r["convergence_warned"] == (r["divergences"] > 0 or r["max_rhat_strict"] > cfg.rhat_threshold
                                           or r["max_rhat_nuisance"] > cfg.nuisance_rhat_threshold)


def test_max_rhat_finds_the_worst_element_and_skips_constants():
    rng = np.random.default_rng(0)
    good = rng.normal(size=(2, 200, 3))
    bad = rng.normal(size=(2, 200)) + np.array([[0.0], [3.0]])  # chains apart
    const = np.ones((2, 200))
    r, site = study.max_rhat({"a": good, "b": bad, "c": const})
    assert site == "b" and r > 1.5
    r, site = study.max_rhat({"a": good, "c": const})
    assert site == "a" and 1.0 <= r < 1.05
    assert np.isnan(study.max_rhat({"a": rng.normal(size=(2, 3))})[0])


def test_compare_pairs_nuts_with_svi_on_the_same_seeds(tmp_path):
    base = {"emission": "monotone", "ppc_p": 0.5, "component_overlap": 0.1, "separable": False,
            "leak": np.nan, "separation_warned": False}
    nuts = pd.DataFrame([{**base, "shape": "bands", "seed": s, "truth": 0.5, "kappa": 0.5,
                          "lower": 0.4, "upper": 0.6, "covered": s != 1, "divergences": int(s == 2),
                          "rhat_warned": False, "kappa_rhat": 1.0 + 0.02 * (s == 0),
                          "method": "nuts"} for s in range(3)])
    nuts.loc[1, ["lower", "upper"]] = [0.55, 0.6]
    svi = pd.DataFrame([{**base, "shape": "bands", "seed": s, "truth": 0.5, "kappa": 0.5,
                         "lower": 0.45, "upper": 0.55, "covered": True} for s in range(5)])
    svi.loc[0, "ppc_p"] = 0.001  # warned on a covering fit
    n, v = tmp_path / "n.csv", tmp_path / "v.csv"
    nuts.to_csv(n, index=False)
    svi.to_csv(v, index=False)
    table = study.compare(str(n), str(v))
    lines = [ln for ln in table.splitlines() if ln.startswith("| bands")]
    # SVI restricted to NUTS's seeds (3 of 5); NUTS: 2 of 3 covered, one divergent fit
    assert "| bands | NUTS | 3 | 66.7% (27.2) |" in lines[0]
    assert "| 0/1 | 0/2 | 1/3 | 0/3 | 1/3 |" in lines[0]
    assert "| bands | SVI | 3 | 100.0% (0.0) |" in lines[1] and "| 0/0 | 1/3 |" in lines[1]
    # widths: NUTS (0.2 + 0.05 + 0.2) / 3, SVI 0.1; the paired ratio (2 + 0.5 + 2) / 3; kappas equal
    assert "| 0.150 | +0.0000 (0.0000) | 1.50 |" in lines[0]
    assert lines[0].endswith("| 1/3 | - |")  # rows without the convergence_warned column
    nuts["convergence_warned"] = nuts["divergences"] > 0
    nuts.to_csv(n, index=False)
    lines = [ln for ln in study.compare(str(n), str(v)).splitlines() if ln.startswith("| bands")]
    assert lines[0].endswith("| 1/3 | 1/3 |") and lines[1].endswith("| - | - | - | - |")
    # rows from before the column (NaN) are left out of its count, not counted as quiet
    nuts["convergence_warned"] = nuts["convergence_warned"].astype(object)
    nuts.loc[0, "convergence_warned"] = np.nan
    nuts.to_csv(n, index=False)
    lines = [ln for ln in study.compare(str(n), str(v)).splitlines() if ln.startswith("| bands")]
    assert lines[0].endswith("| 1/3 | 1/2 |")
    # a shape fitted by NUTS only (no SVI rows): its NUTS row, no paired columns, no SVI row
    extra = nuts.assign(shape="shared_floor")
    pd.concat([nuts, extra]).to_csv(n, index=False)
    lines = [ln for ln in study.compare(str(n), str(v)).splitlines() if ln.startswith("| shared_floor")]
    assert len(lines) == 1 and "| shared_floor | NUTS | 3 | 66.7% (27.2) |" in lines[0] and "| - | - |" in lines[0]


def test_run_passes_other_priors_to_the_fit_and_records_them(tmp_path, monkeypatch):
    from softirr_stats.models import SoftAgreementPriors

    seen = []

    def fake_fit(sims, indices, emission, cfg, priors=None):
        seen.append((list(indices), priors))
        return {"n": len(sims)}

    def fake_rows(shape, emission, seeds, sims, res, cfg, sec):
        return [{"shape": shape, "emission": emission, "seed": s, "covered": True,
                 "divergences": 0} for s in seeds]

    monkeypatch.setattr(study, "fit_batch", fake_fit)
    monkeypatch.setattr(study, "study_rows", fake_rows)
    monkeypatch.setattr("paper_repro.soft_model_robustness.simulate_study",
                        lambda shape, seed: {"seed": seed})
    out = tmp_path / "rows.csv"
    priors = SoftAgreementPriors(monotone_concentration=20.0)
    study.run(["bands"], "monotone", 3, 1000, 2, str(out), float("inf"), study._nuts_config(
        10, 10, None), priors)
    assert seen == [([0, 1], priors), ([2], priors)]  # key index = seed - --seed, in batches
    rows = pd.read_csv(out)
    assert rows["seed"].tolist() == [1000, 1001, 1002]
    assert (rows["monotone_concentration"] == 20.0).all()
    study.run(["bands"], "monotone", 4, 1000, 2, str(out), float("inf"), study._nuts_config(
        10, 10, None), priors)  # resumes: only seed 1003 is new
    assert seen[-1] == ([3], priors) and len(pd.read_csv(out)) == 4
    with pytest.raises(SystemExit, match="rows of other priors"):  # the default priors' rows
        study.run(["bands"], "monotone", 5, 1000, 2, str(out), float("inf"),
                  study._nuts_config(10, 10, None))
    # the start-up check fits the default priors: other priors need --no-check
    monkeypatch.setattr(sys, "argv", ["x", "--monotone-concentration", "20", "--out", str(out)])
    with pytest.raises(SystemExit, match="--no-check"):
        study.main()


def test_append_csv_writes_in_the_files_column_order(tmp_path):
    """A row appended to an existing CSV lands under the file's header whatever its own key
    order (a resumed run whose rows list the columns in another order once shifted them)."""
    from paper_repro.soft_model_robustness import _append_csv

    out = tmp_path / "rows.csv"
    pd.DataFrame([{"seed": 1, "kappa": 0.5, "covered": True}]).to_csv(out, index=False)
    _append_csv(str(out), {"covered": False, "kappa": 0.25, "seed": 2})
    rows = pd.read_csv(out)
    assert rows.to_dict("records")[1] == {"seed": 2, "kappa": 0.25, "covered": False}
    with pytest.raises(ValueError, match="missing \\['covered'\\], new \\['extra'\\]"):
        _append_csv(str(out), {"seed": 3, "kappa": 0.1, "extra": 1})
    _append_csv(str(tmp_path / "new.csv"), {"b": 1, "a": 2})
    assert pd.read_csv(tmp_path / "new.csv").columns.tolist() == ["b", "a"]


def test_two_samplers_are_compared_pair_by_pair(tmp_path):
    base = {"emission": "monotone", "warmup": 250, "samples": 250, "truth": 0.5}

    def rows(covered, divergences, rhat_warned, kappa_rhat, steps, warned_now=None):
        out = []
        for i, (c, d, r, k, st) in enumerate(zip(covered, divergences, rhat_warned, kappa_rhat, steps, strict=True)):
            row = base | {"shape": "bands", "seed": 1000 + i, "covered": c, "divergences": d, "rhat_warned": r,
                          "kappa_rhat": k, "mean_tree_steps": st}
            row["convergence_warned"] = None if warned_now is None else warned_now[i]
            out.append(row)
        return out

    before = tmp_path / "before.csv"
    after = tmp_path / "after.csv"
    # the old rows lack the rule of now (empty), and one study the other run does not have is left out
    pd.DataFrame(rows([True, True, False, True], [0, 3, 1, 0], [True, False, False, False],
                      [1.0, 1.02, 1.0, 1.0], [40, 50, 60, 70])).to_csv(before, index=False)
    pd.DataFrame(rows([True, False, False], [0, 0, 2], [False, True, False], [1.0, 1.0, 1.0], [80, 90, 100],
                      [False, True, True])).to_csv(after, index=False)
    table = study.compare_samplers(str(before), str(after)).splitlines()
    assert table[2] == "| bands | 3 | 2 / 1 | 1 | 2 (4) / 1 (2) | 3 / 2 | 2 | 1 / 0 | 50.0 / 90.0 |"
    other = tmp_path / "other.csv"
    pd.DataFrame(rows([True], [0], [False], [1.0], [1])).assign(warmup=500).to_csv(other, index=False)
    with pytest.raises(ValueError, match="share no study"):
        study.compare_samplers(str(before), str(other))
