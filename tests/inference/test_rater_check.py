"""Per-rater posterior predictive check: it names an adversarial annotator, is silent on clean data."""

import warnings

import numpy as np
import pandas as pd
import pytest

from softirr_stats import models
from softirr_stats.inference import (
    PredictiveCheckWarning,
    SviConfig,
    fit,
    model_caveats,
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
                                   "upper", "p_value", "n_draws", "failed"]
    assert table["failed"].tolist() == [False, False, False, False, True]
    adv = table.iloc[4]
    assert adv["observed"] < adv["lower"] and adv["p_value"] < 0.05 / 5
    assert not any("rater 0" in str(w.message) for w in rec)
    # no replicate of 400 was as far from the adversary's agreement: p < 2/400 (two-sided), not "p = 0.0000"
    assert table["n_draws"].tolist() == [CFG.num_draws] * 5 and adv["p_value"] == 0.0
    said = " ".join(str(w.message) for w in rec)
    assert "rater 4: observed 0.275, replicated 95% [0.470, 0.615], p < 0.005 (none of 400 draws)" in said


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


def test_diagnostics_carry_the_per_rater_check(adversarial_fit):
    """inference.diagnostics (under softirr model and the report) runs the same check as annotator_agreement:
    the same numbers, its warning's text as the caveat line, one row of the table."""
    from softirr_stats.inference import diagnostics

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        want = rater_predictive_check(adversarial_fit)
    d = diagnostics(adversarial_fit)
    got = pd.DataFrame(list(d.rater_check))
    pd.testing.assert_frame_equal(got, want.reset_index(drop=True), check_dtype=False, rtol=0, atol=1e-12)
    assert d.rater_statistic == "pairwise" and d.rater_alpha == 0.05 and not d.ok
    message = next(str(w.message) for w in caught if issubclass(w.category, PredictiveCheckWarning))
    assert f"{message[0].upper()}{message[1:]}." in d.caveats
    row = d.to_frame().set_index("diagnostic").filter(like="per-rater", axis=0)
    assert row.index.tolist() == ["per-rater check p (lowest: rater 4)"]
    assert row["value"].iloc[0] == want["p_value"].min() and row["status"].iloc[0] == "check"
    assert row["target"].iloc[0] == ">= 0.05/5"
    assert d.to_dict()["rater_check"][4]["failed"] is True
    off = diagnostics(adversarial_fit, predictive_check=False)
    assert off.rater_check == () and off.rater_statistic == "" and off.ok


def test_a_rater_warning_is_kept_beside_a_failed_global_check():
    """A per-rater warning caught while fitting was dropped as 'said' whenever the global check failed too."""
    from softirr_stats.inference import FitDiagnostics

    msg = ("per-rater predictive check (pairwise agreement with the other raters) fails for mace at family-wise "
           "level 0.05 over 3 raters: rater 'c': observed 0.100, replicated 95% [0.400, 0.600], "
           "p < 0.005 (none of 400 draws)")
    glob = "posterior predictive check fails for mace: observed fleiss_kappa 0.1"
    d = FitDiagnostics("mace", "svi", 1, 100, ppc_statistic="fleiss_kappa", ppc_observed=0.1,
                       ppc_replicated_mean=0.4, ppc_p_value=1.0, sampler_warnings=(glob, msg))
    caveats = model_caveats(d)
    assert caveats[0].startswith("Predictive check: the model's replicated fleiss_kappa")
    assert caveats[1:] == [f"Fit warning: {msg}"]  # the global warning is the line above; the rater's is not
    rows = pd.DataFrame({"rater": ["a", "b", "c"], "n_ratings": [5, 5, 5], "observed": [0.5, 0.5, 0.1],
                         "replicated_mean": [0.5, 0.5, 0.5], "lower": [0.4, 0.4, 0.4], "upper": [0.6, 0.6, 0.6],
                         "p_value": [0.5, 0.5, 0.0], "n_draws": [400, 400, 400], "failed": [False, False, True]})
    from softirr_stats.inference._rater_check import rater_check_records

    both = FitDiagnostics("mace", "svi", 1, 100, rater_statistic="pairwise", rater_alpha=0.05,
                          rater_check=rater_check_records(rows), sampler_warnings=(msg,))
    assert model_caveats(both) == [f"{msg[0].upper()}{msg[1:]}. The model does not reproduce how these raters "
                                   "agree with the others (an adversarial or spamming annotator?), so its estimates "
                                   "for them and the agreement built on them are not to be trusted."]


def test_a_summary_of_a_fit_carries_the_per_rater_check(adversarial_fit):
    """annotator_agreement(posterior) runs the checks a fresh fit runs: the per-rater check too (it ran only in
    inference.diagnostics), with its warning kept in the result's warnings."""
    from softirr_stats.inference import annotator_agreement, diagnostics

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = annotator_agreement(adversarial_fit, prior_check=False)
    want = rater_predictive_check(adversarial_fit, warn=False)
    pd.testing.assert_frame_equal(res.details["rater_check"], want, check_exact=False, rtol=0, atol=1e-12)
    said = [str(w.message) for w in caught if str(w.message).startswith("per-rater")]
    assert len(said) == 1 and "rater 4" in said[0] and said[0] in res.warnings
    d = diagnostics(res)  # takes the result's table
    pd.testing.assert_frame_equal(pd.DataFrame(list(d.rater_check)), want, check_dtype=False, rtol=0, atol=1e-12)
    off = annotator_agreement(adversarial_fit, predictive_check=False, prior_check=False)
    assert "rater_check" not in off.details and "predictive_check" not in off.details


def test_the_message_bounds_a_p_of_zero_by_the_draws():
    """A share of 0 of N draws is below 2/N (two-sided), not zero; other p-values keep 4 decimals."""
    from softirr_stats.inference._rater_check import rater_check_message

    rows = [{"rater": "a", "observed": 0.1, "lower": 0.4, "upper": 0.6, "p_value": 0.0, "n_draws": 300, "failed": True},
            {"rater": "b", "observed": 0.39, "lower": 0.4, "upper": 0.6, "p_value": 0.006, "n_draws": 500,
             "failed": True},
            {"rater": "c", "observed": 0.5, "lower": 0.4, "upper": 0.6, "p_value": 0.5, "n_draws": 300, "failed": False}]
    m = rater_check_message(rows, "pairwise", "mace", 0.05)
    assert "rater 'a': observed 0.100, replicated 95% [0.400, 0.600], p < 0.0067 (none of 300 draws); " in m
    assert "rater 'b': observed 0.390, replicated 95% [0.400, 0.600], p = 0.0060. The model" in m
    assert "p = 0.0000" not in m and "rater 'c'" not in m
