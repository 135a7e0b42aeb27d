"""A posterior predictive check where no replicated draw is as extreme as the observed statistic: its p-value is a
share of 0 of N draws, which every message and table shows as the bound ``p < 1/N`` (``2/N`` two-sided), not as
``p = 0.000`` ("p is zero").

The posterior is built from fixed draws (no fit): three raters who always agree, and a model whose raters answer
at random, so that no replicate reaches the observed agreement.
"""

import warnings

import jax
import numpy as np
import pytest

from softirr_stats import inference, models
from softirr_stats.inference import Posterior, PredictiveCheckWarning, rater_predictive_check

S = 200  # draws


@pytest.fixture(scope="module")
def random_raters():
    codes = np.repeat(np.arange(40) % 2, 3).reshape(40, 3)  # 40 items, 3 raters who always agree
    data = models.encode_annotations(codes, n_classes=2)
    draws = {"pi": np.full((S, 2), 0.5), "beta": np.full((S, 3, 2, 2), 0.5)}  # every rater at chance
    return Posterior(model_name="dawid_skene", kind="categorical", samples_by_chain={k: v[None] for k, v in draws.items()},
                     data=data, method="svi", priors=None, model_kwargs={}, extra={}, key=jax.random.key(0))


def test_the_kappa_check_says_p_below_one_over_n(random_raters):
    with pytest.warns(PredictiveCheckWarning) as rec:
        check = random_raters.predictive_check()
    rep = np.asarray(check.replicated)
    assert check.observed == 1.0 and check.n_draws == S == int(np.isfinite(rep).sum())
    assert check.p_value == float(np.mean(rep[np.isfinite(rep)] >= check.observed)) == 0.0
    said = " ".join(str(w.message) for w in rec)
    assert "p < 0.005 (none of 200 draws)" in said and "p = 0.000" not in said
    assert check.p_text == "p < 0.005 (none of 200 draws)"
    assert "&lt; 0.005 (none of 200 draws)" in check._repr_html_()


def test_the_repr_reads_a_share_of_zero_as_the_bound_not_p_value_0(random_raters):
    """The repr showed ``p_value=0`` beside ``200 draws``; it reads the share as format_draw_p does (p < 1/N),
    as p_text and the notebook table do, and keeps the other shares' decimals."""
    from softirr_stats.inference import PredictiveCheck

    with pytest.warns(PredictiveCheckWarning):
        check = random_raters.predictive_check()
    shown = repr(check)
    assert shown.startswith("PredictiveCheck(statistic='fleiss_kappa', observed=1, p < 0.005, replicated: 200 draws, ")
    assert "p_value=0" not in shown and check.p_text == "p < 0.005 (none of 200 draws)"
    rep = np.linspace(0.3, 0.5, 201)
    half = PredictiveCheck("fleiss_kappa", 0.4, rep, float(np.mean(rep >= 0.4)))
    assert abs(half.p_value - 101 / 201) < 1e-12 and ", p = 0.502, replicated: 201 draws" in repr(half)
    top = PredictiveCheck("fleiss_kappa", 0.1, rep, 1.0)  # an upper tail of 1 is a bound too
    assert ", p > 0.995, replicated: 201 draws" in repr(top)  # 1 - 1/201 = 0.99502, rounded down
    assert ", p = nan, replicated: 0 draws; not run" in repr(PredictiveCheck("fleiss_kappa", 0.3, np.full(2, np.nan),
                                                                            float("nan")))


def test_the_rater_check_says_p_below_two_over_n(random_raters):
    with pytest.warns(PredictiveCheckWarning) as rec:
        table = rater_predictive_check(random_raters)
    assert table["n_draws"].tolist() == [S] * 3 and (table["p_value"] == 0.0).all() and table["failed"].all()
    said = " ".join(str(w.message) for w in rec)
    for j in range(3):  # two-sided: the smallest nonzero p of 200 draws is 2/200
        assert f"rater {j}: observed 1.000, replicated 95% " in said
    assert said.count("p < 0.01 (none of 200 draws)") == 3 and "p = 0.0000" not in said


def test_diagnostics_carry_the_draws_into_caveats_tables_and_json(random_raters):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = inference.diagnostics(random_raters)
    assert d.ppc_p_value == 0.0 and d.ppc_n_draws == S
    assert [r["n_draws"] for r in d.to_dict()["rater_check"]] == [S] * 3 and d.to_dict()["ppc_n_draws"] == S
    kappa = next(c for c in d.caveats if c.startswith("Predictive check:"))
    assert "is below the observed 1.000 in 200 of 200 draws (p < 0.005): the model under-states" in kappa
    rater = next(c for c in d.caveats if c.startswith("Per-rater"))
    assert rater.count("p < 0.01 (none of 200 draws)") == 3
    assert d.p_value_texts() == {"predictive check p (fleiss_kappa)": "< 0.005 (none of 200 draws)",
                                 "per-rater check p (lowest: rater 0)": "< 0.01 (none of 200 draws)"}
    frame = d.to_frame().set_index("diagnostic")["value"]  # the frame keeps the numbers
    assert frame["predictive check p (fleiss_kappa)"] == 0.0 and frame["per-rater check p (lowest: rater 0)"] == 0.0
    page = d._repr_html_()
    assert "&lt; 0.005 (none of 200 draws)" in page and "&lt; 0.01 (none of 200 draws)" in page


def test_an_upper_tail_of_one_and_the_score_check_from_a_record():
    """The caveat lines from a record: p = 1 of N draws is above 1 - 1/N; the score check's p is a share of
    replicated chi-square discrepancies (not a chi-square tail), so 0 is a bound there too."""
    from softirr_stats.inference import FitDiagnostics, model_caveats

    above = FitDiagnostics("mace", "svi", 1, 300, ppc_statistic="fleiss_kappa", ppc_observed=-0.006,
                           ppc_replicated_mean=0.368, ppc_p_value=1.0, ppc_n_draws=300)
    assert model_caveats(above)[0] == ("Predictive check: the model's replicated fleiss_kappa (mean 0.368) is above "
                                       "the observed -0.006 in 300 of 300 draws (p > 0.9966): the model over-states "
                                       "agreement on these data.")
    assert above.p_value_texts(4) == {"predictive check p (fleiss_kappa)": "> 0.9966 (all 300 draws)"}
    score = FitDiagnostics("soft", "svi", 1, 1000, ppc_statistic="score_chi2", ppc_observed=841.5,
                           ppc_replicated_mean=50.9, ppc_p_value=0.0, ppc_n_draws=1000)
    assert model_caveats(score)[0].startswith("Predictive check: the score distribution does not fit, chi-square "
                                              "discrepancy p < 0.001 (none of 1000 draws); the soft kappa")
