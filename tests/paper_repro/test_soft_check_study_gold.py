"""paper_repro/soft_model_check_study.py with gold pairs: traced gold pairs, the resume key, the gold table."""

import copy
import importlib.util
import pathlib
import sys

import jax.numpy as jnp
import numpy as np
import pandas as pd
import pytest
from numpyro.infer.util import log_density

from softirr_stats import models

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _load(name):
    if importlib.util.find_spec("paper_repro") is None:
        sys.path.append(str(ROOT))
    spec = importlib.util.spec_from_file_location(name, ROOT / "paper_repro" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def study():
    return _load("soft_model_check_study")


def test_gold_pairs_of_a_study_are_drawn_after_its_scores_and_keep_their_truth():
    robust = _load("soft_model_robustness")
    plain = robust.simulate_study("calibrated", 5, n_items=40, n_chance=200)
    gold = robust.simulate_study("calibrated", 5, n_items=40, n_chance=200, n_gold=30)
    np.testing.assert_array_equal(plain["data"].within_scores, gold["data"].within_scores)
    np.testing.assert_array_equal(plain["data"].chance_scores, gold["data"].chance_scores)
    assert plain["kappa"] == gold["kappa"] and gold["data"].n_gold == 30
    within, jw, _ = gold["judged"]["within"]
    chance, jc, _ = gold["judged"]["chance"]
    assert jw.size == 15 and jc.size == 15 and np.unique(jw).size == 15  # without replacement
    np.testing.assert_array_equal(gold["data"].gold_scores, np.r_[within[jw], chance[jc]])


def test_traced_gold_pairs_give_the_model_the_same_log_density(study):
    d = models.PairScores(within_scores=[0.9, 1.0, 0.2], within_raters=[[0, 1]] * 3, within_items=[0, 1, 2],
                          chance_scores=[0.0, 0.3, 0.05], n_raters=2, n_items=3, gold_scores=[0.95, 0.1, 0.4],
                          gold_labels=[1, 0, 0])
    t = study._shim(d, jnp.asarray(d.within_scores, jnp.float32), jnp.asarray(d.chance_scores, jnp.float32),
                    jnp.asarray(d.gold_scores, jnp.float32), jnp.asarray(d.gold_labels, jnp.int32))
    rng = np.random.default_rng(0)
    p = {"equiv_weights": rng.dirichlet(np.ones(20)), "nonequiv_weights": rng.dirichlet(np.ones(20)),
         "equiv_atoms": np.array([0.4, 0.6]), "nonequiv_atoms": np.array([0.3, 0.7]), "pi_chance": 0.1,
         "intercept": 1.0, "within_share_z": 0.0}
    kw = {"rater_effects": False, "emission": "monotone"}
    lp_np, _ = log_density(models.soft_agreement, (d,), kw, p)
    lp_jx, _ = log_density(models.soft_agreement, (t,), kw, p)
    np.testing.assert_allclose(float(lp_jx), float(lp_np), rtol=1e-5)
    # the gold term is in it: other labels, another density
    flipped = study._shim(d, t.within_scores, t.chance_scores, t.gold_scores, 1 - t.gold_labels)
    assert float(log_density(models.soft_agreement, (flipped,), kw, p)[0]) != pytest.approx(float(lp_np))
    assert study._shim(d, t.within_scores, t.chance_scores).gold_scores is d.gold_scores  # no gold given: kept
    assert copy.copy(d).n_gold == 3


def _rows(path, **extra):
    base = {"shape": "calibrated", "emission": "monotone", "truth": 0.5, "ppc_p": 0.5, "ppc_chi2": 1.0,
            "ppc_rep_median": 1.0, "kappa_sd": 0.05, "component_overlap": 0.3, "separable": False, "leak": np.nan,
            "separation_warned": False, "final_loss": 0.0, "seconds_per_fit": 0.2, "steps": 1000}
    rows = []
    for i in range(10):  # 8 cover, 2 miss (above the truth); one miss warned through the overlap
        lo, hi = (0.45, 0.55) if i < 8 else (0.56, 0.66)
        rows.append({**base, "seed": 1000 + i, "kappa": (lo + hi) / 2, "lower": lo, "upper": hi,
                     "covered": lo <= 0.5 <= hi, "component_overlap": 0.6 if i == 9 else 0.3, **extra})
    pd.DataFrame(rows).to_csv(path, index=False)


def test_gold_table_and_resume_key(study, tmp_path):
    path = tmp_path / "rows.csv"
    _rows(path, gold_n=50)
    with open(path, "a") as fh:  # a row of the study before gold pairs: no gold_n, read as 0
        pd.DataFrame([{"shape": "calibrated", "emission": "monotone", "seed": 1000}]).reindex(
            columns=pd.read_csv(path).columns).to_csv(fh, header=False, index=False)
    done = study._done(str(path))
    assert ("calibrated", "monotone", 1000, 50) in done and ("calibrated", "monotone", 1009, 50) in done
    assert ("calibrated", "monotone", 1000, 0) in done and ("calibrated", "monotone", 1001, 0) not in done
    _rows(path, gold_n=50)
    table = study.gold_table(str(path))
    row = next(line for line in table.splitlines() if line.startswith("| calibrated | monotone | 50 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[3] == "10" and cells[4] == "80.0% (12.6)"  # sqrt(0.8 * 0.2 / 10) = 12.6 points
    assert cells[5].startswith("+0.0220")  # two of ten 0.11 above the truth
    assert cells[7] == "10%" and cells[8] == "1/2"  # the library's COMPONENT_OVERLAP (0.5) flags the one
