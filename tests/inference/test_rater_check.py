"""Per-rater posterior predictive check: it names an adversarial annotator, is silent on clean data."""

import warnings

import numpy as np
import pytest

from softirr_stats import models
from softirr_stats.inference import (
    PredictiveCheckWarning,
    SviConfig,
    fit,
    rater_predictive_check,
)
from softirr_stats.inference._rater_check import _rater_statistic

CFG = SviConfig(steps=600, num_draws=400)


def _adversarial(seed: int, n_items: int = 100, n_raters: int = 5) -> np.ndarray:
    """Four raters of accuracy 0.8; the last answers (c + 1) mod 3 three times in four."""
    sim = models.simulate_dawid_skene(n_items, n_raters, 3, accuracy=0.8, seed=seed)
    rng = np.random.default_rng(seed + 1)
    c = sim["truth"]
    codes = sim["codes"].copy()
    codes[:, -1] = np.where(rng.random(n_items) < 0.75, (c + 1) % 3, c)
    return codes


@pytest.fixture(scope="module")
def adversarial_fit():
    codes = _adversarial(1)
    return fit(models.item_difficulty, codes, method="svi", seed=0, config=CFG, progress=False)


def test_statistic_by_hand():
    # item 0: labels 0, 0, 1; item 1: 2, 2 (rater 2 missing); item 2: rater 0 alone
    items = np.array([0, 0, 0, 1, 1, 2])
    raters = np.array([0, 1, 2, 0, 1, 0])
    labels = np.array([0, 0, 1, 2, 2, 1])
    pw = np.asarray(_rater_statistic(items, raters, labels, 3, 3, 3, "pairwise"))
    # rater 0: item 0 -> 1/2, item 1 -> 1/1 (item 2 has no other rating): mean 0.75
    np.testing.assert_allclose(pw, [0.75, 0.75, 0.0])
    mj = np.asarray(_rater_statistic(items, raters, labels, 3, 3, 3, "majority"))
    # rater 0 on item 0: others 0 and 1 tie -> 1/2; item 1 -> 1
    np.testing.assert_allclose(mj, [0.75, 0.75, 0.0])


def test_names_the_adversary(adversarial_fit):
    with pytest.warns(PredictiveCheckWarning, match=r"rater 4") as rec:
        table = rater_predictive_check(adversarial_fit)
    assert list(table.columns) == ["rater", "n_ratings", "observed", "replicated_mean", "lower",
                                   "upper", "p_value", "failed"]
    assert table["failed"].tolist() == [False, False, False, False, True]
    adv = table.iloc[4]
    assert adv["observed"] < adv["lower"] and adv["p_value"] < 0.05 / 5
    assert not any("rater 0" in str(w.message) for w in rec)


def test_silent_on_clean_data():
    codes = models.simulate_dawid_skene(100, 5, 3, accuracy=0.8, seed=2)["codes"]
    post = fit(models.item_difficulty, codes, method="svi", seed=0, config=CFG, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredictiveCheckWarning)
        table = rater_predictive_check(post)
    assert not table["failed"].any()
    assert ((table["lower"] <= table["observed"]) & (table["observed"] <= table["upper"])).all()


def test_warn_false_and_bad_input(adversarial_fit):
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredictiveCheckWarning)
        table = rater_predictive_check(adversarial_fit, warn=False, n_draws=100)
    assert bool(table["failed"].iloc[4])
    with pytest.raises(ValueError, match="statistic"):
        rater_predictive_check(adversarial_fit, statistic="kappa")
    with pytest.raises(ValueError, match="alpha"):
        rater_predictive_check(adversarial_fit, alpha=1.5)
    with pytest.raises(ValueError, match="fitted design"):
        rater_predictive_check(adversarial_fit, np.zeros((3, 5), dtype=int))
    with pytest.raises(ValueError, match="categorical"):
        rater_predictive_check(object())
