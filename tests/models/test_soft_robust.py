"""Soft model off its Beta assumption: the 'monotone' emission and the score check."""

import importlib.util
import pathlib
import sys

import jax.numpy as jnp
import numpy as np
import pytest
from numpyro.infer.util import log_density

from softirr_stats import models
from softirr_stats.inference import PredictiveCheckWarning, SviConfig, fit

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _study_module():
    if importlib.util.find_spec("paper_repro") is None:  # the paper_* shapes import paper_repro
        sys.path.append(str(ROOT))
    spec = importlib.util.spec_from_file_location(
        "soft_model_robustness", ROOT / "paper_repro" / "soft_model_robustness.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _monotone_params(nb: int) -> dict:
    rng = np.random.default_rng(0)
    return {"equiv_weights": rng.dirichlet(np.ones(nb)),
            "nonequiv_weights": rng.dirichlet(np.ones(nb)),
            "equiv_atoms": np.array([0.4, 0.6]), "nonequiv_atoms": np.array([0.3, 0.7])}


def test_monotone_cells_are_distributions_with_the_right_shape():
    nb = 10
    p = {k: jnp.asarray(v) for k, v in _monotone_params(nb).items()}
    probs = np.asarray(models.cell_probabilities(p, "monotone", nb))
    np.testing.assert_allclose(probs.sum(1), 1.0, rtol=1e-5)
    from softirr_stats.models._soft import _monotone_log_density

    dens = np.exp(np.asarray(_monotone_log_density(p, nb)))
    assert np.all(np.diff(dens[1, :nb]) >= -1e-6)  # equivalent: non-decreasing
    assert np.all(np.diff(dens[0, :nb]) <= 1e-6)  # non-equivalent: non-increasing
    np.testing.assert_allclose(dens[:, nb:], [[0.3, 1e-8], [1e-8, 0.4]], rtol=1e-5)
    # densities integrate to the continuous mass
    np.testing.assert_allclose(dens[:, :nb].sum(1) / nb, [0.7, 0.6], rtol=1e-5)


def test_histogram_cells_are_distributions():
    nb = 10
    rng = np.random.default_rng(2)
    w = rng.dirichlet(np.ones(nb + 2), size=2)
    p = {"nonequiv_hist": jnp.asarray(w[0]), "equiv_hist": jnp.asarray(w[1])}
    probs = np.asarray(models.cell_probabilities(p, "histogram", nb))
    np.testing.assert_allclose(probs.sum(1), 1.0, rtol=1e-5)
    # exact 0 and 1 are folded into the end cells
    np.testing.assert_allclose(probs[:, 0], w[:, 0] + w[:, nb], rtol=1e-5)
    np.testing.assert_allclose(probs[:, -1], w[:, nb - 1] + w[:, nb + 1], rtol=1e-5)


def test_monotone_model_log_density_and_validation():
    d = models.PairScores(within_scores=[0.9, 1.0, 0.2], within_raters=[[0, 1]] * 3,
                          within_items=[0, 1, 2], chance_scores=[0.0, 0.3, 0.05],
                          n_raters=2, n_items=3, gold_scores=[0.95, 0.1], gold_labels=[1, 0])
    p = {**_monotone_params(20), "pi_chance": 0.1, "intercept": 1.0, "within_share_z": 0.0}
    lp, _ = log_density(models.soft_agreement, (d,), {"rater_effects": False,
                                                      "emission": "monotone"}, p)
    assert np.isfinite(float(lp))
    # these scores separate (nothing in (0.3, 0.9)): with drop_gap_pieces the pieces across
    # the gap have no weight and the kept ones are the sites
    keep1, keep0 = models.gap_pieces(d, 20)
    pk = {**p, "equiv_weights_kept": p["equiv_weights"][keep1] / p["equiv_weights"][keep1].sum(),
          "nonequiv_weights_kept": p["nonequiv_weights"][keep0] / p["nonequiv_weights"][keep0].sum()}
    del pk["equiv_weights"], pk["nonequiv_weights"]
    lp, tr = log_density(models.soft_agreement, (d,), {"rater_effects": False,
                                                       "emission": "monotone",
                                                       "drop_gap_pieces": True}, pk)
    assert np.isfinite(float(lp))
    assert (np.asarray(tr["equiv_weights"]["value"])[~keep1] == 0).all()
    rng = np.random.default_rng(1)
    ph = {"equiv_hist": rng.dirichlet(np.ones(22)), "nonequiv_hist": rng.dirichlet(np.ones(22)),
          "pi_chance": 0.1, "intercept": 1.0, "within_share_z": 0.0}
    lp, tr = log_density(models.soft_agreement, (d,), {"rater_effects": False,
                                                       "emission": "histogram"}, ph)
    assert np.isfinite(float(lp)) and 0.0 <= float(tr["pi_within"]["value"]) <= 1.0
    no_gold = models.PairScores(within_scores=[0.9], within_raters=[[0, 1]], within_items=[0],
                                chance_scores=[0.1], n_raters=2, n_items=1)
    with pytest.raises(ValueError, match="gold pairs"):
        log_density(models.soft_agreement, (no_gold,), {"emission": "histogram"}, ph)
    with pytest.raises(ValueError, match="emission"):
        log_density(models.soft_agreement, (d,), {"emission": "gauss"}, p)
    with pytest.raises(ValueError, match="monotone_bins"):
        models.SoftAgreementPriors(monotone_bins=1)


def test_paper_shapes_score_real_populations_against_their_concept_kappa():
    """The paper_* shapes: a paper_repro population per study (two raters, 150 items on the
    HPO fixture, condition by seed), scored by a string estimator, with its concept kappa."""
    import doctest

    mod = _study_module()
    assert doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE).failed == 0
    indel = mod.simulate_study("paper_indel", seed=1003, n_gold=20)
    lev = mod.simulate_study("paper_levenshtein", seed=1003)
    d = indel["data"]
    assert indel["condition"] == "lexical" and d.n_raters == 2 and d.n_items == 150
    assert d.within_scores.shape == (150,) and d.chance_scores.shape == (1000,)
    for s in (d.within_scores, d.chance_scores, lev["data"].within_scores):
        assert np.all((s >= 0) & (s <= 1)) and np.unique(s).size > 20
    # same population for both estimators, scored differently
    assert indel["kappa"] == lev["kappa"]
    assert not np.allclose(d.within_scores, lev["data"].within_scores)
    assert -1 <= indel["kappa"] <= 1
    assert indel["kappa"] == pytest.approx((indel["p_o"] - indel["p_e"]) / (1 - indel["p_e"]))
    # the generator's Scott pi counts same-item pairs in its chance term: close, not equal
    assert abs(indel["kappa"] - indel["population_scott_pi"]) < 0.01
    assert d.gold_scores.shape == (20,) and set(d.gold_labels) <= {0, 1}
    with pytest.raises(ValueError, match="shape must be one of"):
        mod.draw_scores("paper_indel", np.array([True]), np.random.default_rng(0))


@pytest.mark.slow
def test_bands_failure_is_flagged_and_fixed():
    """3 raters, 150 items, 40 concepts; scores U[0.6, 1] / U[0, 0.35] (the issue's case).

    The Beta emission does not fit uniform bands: its score check must warn. The monotone
    emission must cover the concept-level kappa with its 90% interval.
    """
    study = _study_module().simulate_study("bands", seed=1000)
    cfg = SviConfig(steps=1000, num_draws=400, guide="multivariate_normal", learning_rate=0.05)
    beta = fit("soft", study["data"], method="svi", seed=0, config=cfg, progress=False,
               emission="beta")
    with pytest.warns(PredictiveCheckWarning, match="score distribution"):
        assert beta.score_check().p_value <= 0.01
    mono = fit("soft", study["data"], method="svi", seed=0, config=cfg, progress=False,
               emission="monotone")
    lo, hi = mono.interval("kappa", level=0.9)
    assert lo <= study["kappa"] <= hi, (lo, hi, study["kappa"])
    assert abs(mono.kappa.mean() - study["kappa"]) < 0.05
    cal = mono.calibration_map([0.1, 0.5, 0.9])
    assert cal["probability"].iloc[0] < 0.2 and cal["probability"].iloc[2] > 0.8
    mono_check = mono.score_check(warn=False)
    assert np.isfinite(mono_check.observed) and mono_check.replicated.shape == (400,)


@pytest.mark.slow
def test_bimodal_scores_warn_and_gold_pairs_with_a_histogram_fix_them():
    """Bimodal scores break the monotone shape: its score check must warn. With 200 judged
    pairs as gold, the histogram emission (NUTS) must cover this study's kappa."""
    from softirr_stats.inference import NutsConfig

    study = _study_module().simulate_study("bimodal", seed=1000, n_gold=200)
    cfg = SviConfig(steps=1000, num_draws=400, guide="multivariate_normal", learning_rate=0.05)
    mono = fit("soft", study["data"], method="svi", seed=0, config=cfg, progress=False,
               emission="monotone")
    with pytest.warns(PredictiveCheckWarning, match="score distribution"):
        assert mono.score_check().p_value <= 0.01
    hist = fit("soft", study["data"], method="nuts", seed=0, progress=False, emission="histogram",
               config=NutsConfig(num_warmup=300, num_samples=300, num_chains=1,
                                 target_accept=0.95))
    lo, hi = hist.interval("kappa", level=0.9)
    assert lo <= study["kappa"] <= hi, (lo, hi, study["kappa"])
    assert abs(hist.kappa.mean() - study["kappa"]) < 0.02


def test_traced_scores_give_the_same_cells_and_log_density_as_numpy():
    # the vectorised coverage study (paper_repro/soft_model_check_study.py) passes the
    # scores as jax arrays: cells and the model's log density must not change
    import jax

    from softirr_stats.models._soft import _log_scores, score_cells

    s = np.array([0.0, 1e-4, 0.05, 0.5, 0.9999, 1.0, 0.35, 0.6])
    np.testing.assert_array_equal(np.asarray(score_cells(jnp.asarray(s), 20)),
                                  score_cells(s, 20))
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda x: score_cells(x, 20))(
        jnp.asarray(s))), score_cells(s, 20))
    for a, b in zip(_log_scores(jnp.asarray(s, jnp.float32), 1e-3), _log_scores(s, 1e-3),
                    strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-5, atol=1e-7)  # float32
    d = models.PairScores(within_scores=[0.9, 1.0, 0.2], within_raters=[[0, 1]] * 3,
                          within_items=[0, 1, 2], chance_scores=[0.0, 0.3, 0.05],
                          n_raters=2, n_items=3)
    import copy

    t = copy.copy(d)
    object.__setattr__(t, "within_scores", jnp.asarray(d.within_scores, jnp.float32))
    object.__setattr__(t, "chance_scores", jnp.asarray(d.chance_scores, jnp.float32))
    for emission, p in (("monotone", _monotone_params(20)),
                        ("beta", {"mean_logit0": -1.0, "mean_gap_logit": 0.5,
                                  "concentration": np.array([4.0, 6.0])})):
        p = {**p, "pi_chance": 0.1, "intercept": 1.0, "within_share_z": 0.0}
        kw = {"rater_effects": False, "emission": emission}
        lp_np, _ = log_density(models.soft_agreement, (d,), kw, p)
        lp_jx, _ = log_density(models.soft_agreement, (t,), kw, p)
        np.testing.assert_allclose(float(lp_jx), float(lp_np), rtol=1e-5)


def test_fresh_shapes_overlap_and_calibrated():
    mod = _study_module()
    rng = np.random.default_rng(0)
    eq = np.r_[np.ones(200_000, bool), np.zeros(200_000, bool)]
    for shape in mod.FRESH_SHAPES:
        s = mod.draw_scores(shape, eq, rng)
        assert s.shape == eq.shape and np.all((s >= 0) & (s <= 1))
    # calibrated: at an equivalence rate of 1/2, P(equivalent | score) = score
    s = mod.draw_scores("calibrated", eq, rng)
    cells = np.minimum((s * 10).astype(int), 9)
    rate = np.bincount(cells, weights=eq, minlength=10) / np.bincount(cells, minlength=10)
    np.testing.assert_allclose(rate, (np.arange(10) + 0.5) / 10, atol=0.02)
    # overlap: interior modes (not monotone), equivalent above non-equivalent on average
    s = mod.draw_scores("overlap", eq, rng)
    assert abs(s[eq].mean() - 6 / 9) < 0.005 and abs(s[~eq].mean() - 3 / 9) < 0.005


def test_check_study_recomputes_the_library_score_check():
    # paper_repro/soft_model_check_study.py calibrates the score check's threshold from its
    # own recomputation of the statistic: it must be the library's, draw for draw
    spec = importlib.util.spec_from_file_location(
        "soft_model_check_study", ROOT / "paper_repro" / "soft_model_check_study.py")
    study = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(study)
    data = _study_module().simulate_study("calibrated", seed=3, n_items=40, n_chance=200)["data"]
    post = fit("soft", data, method="svi", seed=0, progress=False,
               config=SviConfig(steps=50, num_draws=100, guide="multivariate_normal"))
    nb = models.SoftAgreementPriors().monotone_bins
    lib = post.score_check(warn=False)
    p, obs, rep = study.score_check_stat(post.model_kind._cell_probabilities(nb),
                                         post.draws("pi_within"), post.draws("pi_chance"),
                                         data.within_scores, data.chance_scores, nb)
    assert p == lib.p_value
    np.testing.assert_allclose([obs, rep], [lib.observed, np.median(lib.replicated)], rtol=1e-12)
