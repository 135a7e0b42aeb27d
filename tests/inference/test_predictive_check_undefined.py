"""The posterior predictive check where its statistic is undefined (Fleiss' kappa of one label).

A replicate whose Fleiss' kappa is nan is neither above nor below the observed value: it is left out of
the p-value, mean and interval and counted; where the observed kappa itself is nan the check is not run.
"""

import warnings

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats import inference
from softirr_stats.inference import (
    PredictiveCheck,
    PredictiveCheckWarning,
    PriorDominatedWarning,
    SviConfig,
)
from softirr_stats.inference._predictive_check import upper_tail_p
from softirr_stats.inference._rater_check import _two_sided

SVI = SviConfig(steps=300, num_draws=300)


def test_nan_replicates_are_left_out_of_p_mean_and_interval():
    rep = np.array([0.1, np.nan, 0.5, 0.9, np.nan, 0.7, 0.3])
    finite = rep[np.isfinite(rep)]
    p = upper_tail_p(0.5, rep)
    assert abs(p - 3 / 5) < 1e-12  # 0.5, 0.9, 0.7 of the five defined replicates
    check = PredictiveCheck("fleiss_kappa", 0.5, rep, p)
    assert check.n_undefined == 2 and abs(check.replicated_mean - finite.mean()) < 1e-12
    lo, hi = check.interval(0.9)
    np.testing.assert_allclose((lo, hi), np.quantile(finite, [0.05, 0.95]), rtol=0, atol=1e-12)
    shown = repr(check)
    assert "nan" not in shown and "mean 0.5" in shown and "2 of 7 replicated data sets" in shown
    assert "the other 5" in check.note and "2 of 7" in check._repr_html_()


def test_an_undefined_observed_statistic_is_not_a_misfit():
    check = PredictiveCheck("fleiss_kappa", float("nan"), np.array([0.2, 0.4]), upper_tail_p(np.nan, [0.2, 0.4]))
    assert np.isnan(check.p_value) and not check.failed
    assert check.note.startswith("not run: the observed fleiss_kappa is undefined on these data")
    empty = PredictiveCheck("fleiss_kappa", 0.3, np.array([np.nan, np.nan]), upper_tail_p(0.3, [np.nan] * 2))
    assert np.isnan(empty.p_value) and np.isnan(empty.interval()).all() and "every replicated" in empty.note


def test_fleiss_check_on_data_with_degenerate_replicates():
    """10 items [a, a] and one [b, b]: some replicates use one label (kappa nan); p is over the others."""
    ann = sis.Annotations.from_wide([["a", "a"]] * 10 + [["b", "b"]])
    post = inference.fit("dawid_skene", ann, method="svi", config=SVI, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check = post.predictive_check(warn=False)
    rep = np.asarray(check.replicated)
    undefined = np.isnan(rep)
    assert undefined.any() and check.n_undefined == int(undefined.sum())  # a few percent of 300
    assert abs(check.p_value - np.mean(rep[~undefined] >= check.observed)) < 1e-12
    assert abs(check.replicated_mean - rep[~undefined].mean()) < 1e-12
    assert np.isfinite(check.interval()).all()
    assert abs(inference.diagnostics(post, predictive_check=check).ppc_replicated_mean
               - rep[~undefined].mean()) < 1e-12


@pytest.fixture(scope="module")
def one_label():
    """30 items, 3 raters, every rating 'a' of the categories a, b: Fleiss' kappa is undefined."""
    ann = sis.Annotations.from_wide([["a", "a", "a"]] * 30, categories=["a", "b"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = sis.annotator_agreement(ann, method="svi", config=SVI, progress=False)
    return res, caught


def test_one_label_skips_the_check_and_says_the_kappa_is_the_priors(one_label):
    res, caught = one_label
    check = res.details["predictive_check"]
    assert np.isnan(check.observed) and np.isnan(check.p_value) and not check.failed
    assert "not run" in repr(check) and "undefined" in repr(check)
    assert not [w for w in caught if issubclass(w.category, PredictiveCheckWarning)
                and "posterior predictive check fails" in str(w.message)]
    prior = [str(w.message) for w in caught if issubclass(w.category, PriorDominatedWarning)]
    assert any("every rating has the same label ('a', one of the 2 categories)" in m
               and "kappa and its interval are its prior's" in m for m in prior), prior
    assert any("every rating has the same label" in w for w in res.warnings)
    caveats = inference.diagnostics(res).caveats
    assert any(c.startswith("Predictive check: not run, the observed fleiss_kappa is undefined") for c in caveats)
    assert not any("states agreement" in c for c in caveats)
    # the warning and the caveat say one thing: the caveat, once
    both = inference.diagnostics(res, caught=caught).caveats
    assert sum("undefined on these data" in c for c in both) == 1


def test_the_one_label_warning_comes_from_a_refit_summary_too(one_label):
    res, _ = one_label
    with pytest.warns(PriorDominatedWarning, match="every rating has the same label"):
        sis.annotator_agreement(res.details["posterior"], predictive_check=False, prior_check=False)


def test_two_labels_do_not_warn_of_one():
    ann = sis.Annotations.from_wide([["a", "a", "b"], ["b", "b", "b"]] * 10)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sis.annotator_agreement(ann, method="svi", config=SVI, progress=False, predictive_check=False,
                                prior_check=False)
    assert not [w for w in caught if "same label" in str(w.message)]


def test_rater_check_tails_leave_nan_replicates_out():
    t_obs = np.array([0.5, 0.2, np.nan])
    rep = np.array([[0.4, 0.1, 0.3], [np.nan, 0.3, 0.2], [0.6, np.nan, 0.1], [0.7, 0.4, np.nan]])
    p, mean = _two_sided(t_obs, rep)
    for j in range(2):  # independent: the finite replicates of the column
        r = rep[np.isfinite(rep[:, j]), j]
        expect = min(1.0, 2 * min(np.mean(r >= t_obs[j]), np.mean(r <= t_obs[j])))
        assert abs(p[j] - expect) < 1e-12 and abs(mean[j] - r.mean()) < 1e-12
    assert np.isnan(p[2]) and abs(mean[2] - 0.2) < 1e-12
