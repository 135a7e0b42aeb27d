"""The fit says when it cannot be trusted: warnings, progress bars, short reprs."""

import warnings

import numpy as np
import pytest

from softirr_stats import models
from softirr_stats.base._validation import SoftIRRWarning
from softirr_stats.inference import (
    ConvergenceWarning,
    FitWarning,
    NutsConfig,
    PredictiveCheckWarning,
    PriorDominatedWarning,
    SviConfig,
    fit,
)
from softirr_stats.inference._fit import resolve_progress, warn_divergences

FAST = SviConfig(steps=300, num_draws=300, learning_rate=0.05)


@pytest.fixture(scope="module")
def sim():
    return models.simulate_dawid_skene(60, 3, 3, accuracy=0.6, seed=4)


@pytest.fixture(scope="module")
def post(sim):
    return fit(models.dawid_skene, sim["codes"], method="svi", seed=0, config=FAST,
               progress=False)


def test_warning_classes_are_softirr_warnings():
    for cls in (ConvergenceWarning, PredictiveCheckWarning, PriorDominatedWarning):
        assert issubclass(cls, FitWarning) and issubclass(cls, SoftIRRWarning)


def test_failed_predictive_check_warns(post, sim):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredictiveCheckWarning)
        ok = post.predictive_check()  # the model is true: no warning
    assert not ok.failed
    # same design, but every rater gives the same label: far more agreement than the fit
    codes = sim["codes"].copy()
    first = np.where(codes[:, 0] >= 0, codes[:, 0], codes.max(1))
    perfect = np.where(codes >= 0, first[:, None], -1)
    with pytest.warns(PredictiveCheckWarning, match="predictive check fails"):
        bad = post.predictive_check(perfect)
    assert bad.failed and bad.p_value == 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredictiveCheckWarning)
        post.predictive_check(perfect, warn=False)


def test_prior_dominated_kappa_warns():
    tiny = np.array([[0, 1], [1, 1], [2, 0]])  # 3 items, 2 raters, 3 classes
    p = fit(models.dawid_skene, tiny, method="svi", seed=0, config=FAST, progress=False)
    with pytest.warns(PriorDominatedWarning, match="barely moved"):
        c = p.prior_contraction("kappa", num_draws=300)
    assert c.barely_moved and c.contraction < 0.25


def test_informative_data_do_not_warn(post):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PriorDominatedWarning)
        c = post.prior_contraction("kappa", num_draws=300)
    assert c.contraction > 0.5 and not c.barely_moved


def test_divergence_warning():
    with pytest.warns(ConvergenceWarning, match="divergent"):
        assert warn_divergences(np.array([[False, True], [True, False]])) == 2


@pytest.mark.slow
def test_unadapted_nuts_warns_on_divergences_or_rhat():
    sim = models.simulate_dawid_skene(40, 3, 3, accuracy=0.8, seed=1)
    with pytest.warns(ConvergenceWarning) as rec:  # no adaptation: step size 1, 2 chains
        fit(models.dawid_skene, sim["codes"], method="nuts", seed=0, progress=False,
            config=NutsConfig(num_warmup=0, num_samples=40, num_chains=2))
    text = " ".join(str(w.message) for w in rec)
    assert "r_hat" in text or "divergent" in text


def test_progress_bars(capsys):
    assert resolve_progress(None) is False  # pytest's stderr is not a terminal
    with pytest.raises(TypeError, match="progress"):
        resolve_progress("yes")
    codes = np.array([[0, 0, 1], [1, 1, 1], [0, 1, 0], [1, 0, 0]] * 3)
    fit(models.dawid_skene, codes, method="svi", config=SviConfig(steps=50, num_draws=20),
        progress=True)
    shown = capsys.readouterr().err
    assert "SVI steps" in shown and "/50" in shown  # the bar of the 50 steps (cleared when the fit ends)
    fit(models.dawid_skene, codes, method="svi", config=SviConfig(steps=50, num_draws=20),
        progress=False)
    assert capsys.readouterr().err == ""


def test_reprs_summarise(post):
    text = repr(post)
    assert "dawid_skene" in text and "beta (3, 3, 3)" in text and len(text) < 400
    kappa = post.kappa  # once computed, the repr shows it
    assert kappa.ndim == 1 and np.isfinite(kappa).all()
    assert "kappa" in repr(post)
    pc = post.predictive_check(warn=False)
    r = repr(pc)
    assert "300 draws" in r and len(r) < 250 and "[" in r
