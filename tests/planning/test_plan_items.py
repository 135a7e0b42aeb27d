"""plan_items: published sample sizes, the variance model, every route and design, and the errors."""

import json
import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import ndtri

import softirr_stats as sis
from softirr_stats.planning import PlanningWarning, build_population, influence_variance

# --- published values ---------------------------------------------------------------------------


def _cantor_q(rate1: float, rate2: float, kappa: float) -> float:
    """Q of R irr::N.cohen.kappa (Cantor 1996; cran/irr R/N.cohen.kappa.R), written out independently."""
    pi2_, pi_2 = 1 - rate1, 1 - rate2
    pie = rate1 * rate2 + pi2_ * pi_2
    pi0 = kappa * (1 - pie) + pie
    pi22 = (pi0 - rate1 + pi_2) / 2
    pi11 = pi0 - pi22
    pi12, pi21 = rate1 - pi11, rate2 - pi11
    return (1 - pie) ** -4 * (pi11 * (1 - pie - (rate2 + rate1) * (1 - pi0)) ** 2
                              + pi22 * (1 - pie - (pi_2 + pi2_) * (1 - pi0)) ** 2
                              + (1 - pi0) ** 2 * (pi12 * (rate2 + pi2_) ** 2 + pi21 * (pi_2 + rate1) ** 2)
                              - (pi0 * pie - 2 * pie + pi0) ** 2)


@pytest.mark.parametrize("rate1,rate2,kappa", [(0.5, 0.5, 0.6), (0.4, 0.5, 0.8), (0.4, 0.5, 0.7), (0.3, 0.45, 0.5),
                                               (0.5, 0.5, 0.85), (0.2, 0.2, 0.3)])
def test_per_item_variance_is_cantors_q(rate1, rate2, kappa):
    """The enumerated population's per-item variance of Cohen's kappa is Cantor's (1996) Q (FCE 1969)."""
    plan = sis.plan_items("cohen_kappa", halfwidth=0.1,
                          assumed=dict(value=kappa, prevalence=[[rate1, 1 - rate1], [rate2, 1 - rate2]]))
    assert plan.components["a"] == pytest.approx(_cantor_q(rate1, rate2, kappa), rel=1e-8)


def test_irr_n_cohen_kappa_documented_example():
    """R irr 0.84.1 ``N.cohen.kappa(0.5, 0.5, 0.7, 0.85)`` prints 96 (rdrr.io/cran/irr/man/N.cohen.kappa.html).

    irr's example puts the true kappa (k1 = 0.7) below the null (k0 = 0.85); plan_items tests
    H0: coefficient <= null only, so the per-item SDs come from two plans and enter Cantor's formula.
    """
    s1 = math.sqrt(sis.plan_items("cohen_kappa", halfwidth=0.1, assumed=dict(value=0.7, prevalence=[0.5, 0.5]))
                   .components["a"])
    s0 = math.sqrt(sis.plan_items("cohen_kappa", halfwidth=0.1, assumed=dict(value=0.85, prevalence=[0.5, 0.5]))
                   .components["a"])
    n = ((float(ndtri(0.95)) * s0 + float(ndtri(0.8)) * s1) / (0.7 - 0.85)) ** 2
    assert math.ceil(n) == 96


@pytest.mark.parametrize("two_sided,expected", [(False, 271), (True, 349)])
def test_irr_n_cohen_kappa_pewanalytics_fixtures(two_sided, expected):
    """pewanalytics' tests of its translation of irr::N.cohen.kappa: (0.4, 0.5, k1=0.8, k0=0.7) -> 271 / 349."""
    plan = sis.plan_items("cohen_kappa", assumed=dict(value=0.8, prevalence=[[0.4, 0.6], [0.5, 0.5]]),
                          power=dict(null=0.7, test="null", two_sided=two_sided))
    assert plan.n_items == expected
    assert plan.grid["power_at_n"].iloc[0] >= 0.8


def test_wald_power_formula():
    """Wald test: the smallest n with (t_{n-1, 0.95} + t_{n-1, 0.8}) sqrt(a / n) <= value - null."""
    from scipy.special import stdtrit

    plan = sis.plan_items("fleiss_kappa", assumed=dict(value=0.6, prevalence=[0.3, 0.7], raters=3),
                          power=dict(null=0.45))
    a, n = plan.components["a"], plan.n_items
    q = lambda m: stdtrit(m - 1, 0.95) + stdtrit(m - 1, 0.8)  # noqa: E731
    assert q(n) * math.sqrt(a / n) <= 0.15 < q(n - 1) * math.sqrt(a / (n - 1))
    z = float(ndtri(0.95)) + float(ndtri(0.8))
    assert abs(n - z**2 * a / 0.15**2) < 3  # the normal formula, up to the t correction


# --- the population model -----------------------------------------------------------------------


def test_population_probabilities_sum_to_one_and_give_the_value():
    for prev, raters in [([0.2, 0.3, 0.5], 3), ([0.5, 0.5], 5), ([[0.3, 0.7], [0.4, 0.6]], 2), ([0.1, 0.9], 2)]:
        pop = build_population(prev, raters)
        for s in (0.0, 0.3, 0.9, 1.0):
            assert pop.probabilities(s).sum() == pytest.approx(1.0, abs=1e-12)
    pop = build_population([0.2, 0.3, 0.5], 3)
    res = sis.fleiss_kappa(pop.rows)  # unit weights are not the population: check through the plan instead
    assert math.isfinite(res.value)
    plan = sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=dict(value=0.6, prevalence=[0.2, 0.3, 0.5], raters=3))
    # Dirichlet-multinomial: Fleiss' kappa of the population is the intraclass correlation itself
    assert plan.components["agreement_parameter"] == pytest.approx(0.6, abs=1e-9)


def test_influence_variance_matches_the_linearised_variance_on_data():
    """On a sample, the influence variance of its empirical distribution is Gwet's linearised variance x n."""
    rng = np.random.default_rng(3)
    rows = rng.integers(0, 3, size=(200, 3))
    rows[:120, 1] = rows[:120, 0]
    from softirr_stats.api._coefficients import estimate_point

    res = sis.fleiss_kappa(rows, ci=sis.Analytic(form="table"))
    _, prep = estimate_point("fleiss_kappa", rows)
    v = influence_variance(prep, np.full(200, 1 / 200))
    assert v / 200 == pytest.approx(res.se**2, rel=1e-5)


@pytest.mark.parametrize("coef", list(sis.agreement.COEFFICIENTS))
def test_every_registered_coefficient_plans_from_assumed_values(coef):
    raters = 2 if sis.agreement.get_coefficient(coef).raters == "two" else 3
    value = 0.75 if coef == "percent_agreement" else 0.6
    plan = sis.plan_items(coef, halfwidth=[0.1, 0.05], assumed=dict(value=value, prevalence=[0.2, 0.3, 0.5],
                                                                   raters=raters))
    n1, n2 = plan.grid["n_items"]
    assert 10 < n1 < n2  # a half-width halved needs about four times the items
    assert n2 / n1 == pytest.approx(4.0, rel=0.05)
    assert (plan.grid["halfwidth_at_n"] <= plan.grid["halfwidth"] + 1e-12).all()


def test_soft_similarity_matrix_is_indexed_like_the_categories():
    sim = np.array([[1.0, 0.6, 0.0], [0.6, 1.0, 0.2], [0.0, 0.2, 1.0]])
    a = sis.plan_items("fleiss_kappa", halfwidth=0.1, similarity=sim,
                       assumed=dict(value=0.6, prevalence=[0.2, 0.3, 0.5], raters=3, categories=["b", "c", "a"]))
    order = [2, 0, 1]  # the same labels declared as a, b, c: the matrix and prevalences follow
    b = sis.plan_items("fleiss_kappa", halfwidth=0.1, similarity=sim[np.ix_(order, order)],
                       assumed=dict(value=0.6, prevalence=[0.5, 0.2, 0.3], raters=3, categories=["a", "b", "c"]))
    assert a.components["a"] == pytest.approx(b.components["a"], rel=1e-9)
    hard = sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=dict(value=0.6, prevalence=[0.2, 0.3, 0.5], raters=3))
    assert a.components["a"] != pytest.approx(hard.components["a"], rel=1e-3)


# --- pilots ---------------------------------------------------------------------------------------


def _pilot(n=80, raters=4, seed=1, acc=0.7):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, n)
    return np.where(rng.random((n, raters)) < acc, truth[:, None], rng.integers(0, 3, (n, raters)))


def test_pilot_analytic_extrapolates_variance_over_n():
    rows = _pilot()
    res = sis.fleiss_kappa(rows, ci=sis.Analytic(form="raw"))
    plan = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows)
    assert plan.components["a"] == pytest.approx(res.se**2 * 80, rel=1e-12)
    assert plan.value == pytest.approx(res.value)
    n = plan.n_items
    # at the planned n the t interval is within the target; one item fewer is not
    from scipy.special import stdtrit

    assert stdtrit(n - 1, 0.975) * math.sqrt(plan.components["a"] / n) <= 0.1
    assert stdtrit(n - 2, 0.975) * math.sqrt(plan.components["a"] / (n - 1)) > 0.1


def test_pilot_bootstrap_agrees_with_analytic_and_covers_light_kappa():
    rows = _pilot()
    a = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows).n_items
    b = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, method="bootstrap", bootstrap=1000).n_items
    assert abs(a - b) / a < 0.15
    light = sis.plan_items("light_kappa", halfwidth=0.1, pilot=rows, bootstrap=300)
    assert "bootstrap" in light.components["method"] and light.n_items > 10


def test_pilot_items_plus_raters_components_and_rater_floor():
    rows = _pilot(n=60, raters=6)
    plan = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, design="items+raters", bootstrap=400, raters=12)
    comp = plan.components
    se = comp["pilot_se"]
    # the components reproduce the three pilot bootstraps' variances
    n0, r0 = 60, 6
    assert comp["a"] / n0 + comp["b"] / r0 + 3 * comp["c"] / (n0 * r0) == pytest.approx(
        max(se["items+raters"] ** 2, se["items"] ** 2 + se["raters"] ** 2), rel=1e-6, abs=1e-12) or comp["c"] == 0
    more = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, design="items+raters", bootstrap=400, raters=40)
    assert more.n_items <= plan.n_items
    with pytest.raises(ValueError, match="raters"):
        sis.plan_items("fleiss_kappa", halfwidth=0.001, pilot=rows, design="items+raters", bootstrap=400, raters=3)


def test_pilot_cluster_design_reports_clusters():
    rows = _pilot(n=90)
    plan = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, design="cluster",
                          cluster=list(np.repeat(np.arange(30), 3)), bootstrap=500)
    g = plan.grid.iloc[0]
    assert g["n_clusters"] == math.ceil(g["n_items"] / 3)


def test_pilot_with_an_assumed_design_effect():
    rows = _pilot(n=80)
    items = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows)
    cl = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, design="cluster", design_effect=1.5,
                        cluster_size=4)
    assert cl.components["a"] == pytest.approx(items.components["a"])
    assert cl.components["deff"] == 1.5 and cl.n_items > 1.4 * items.n_items
    assert cl.grid["n_clusters"].iloc[0] == math.ceil(cl.n_items / 4)


def test_assumed_cluster_design_effect():
    base = sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=dict(value=0.6, prevalence=[0.3, 0.7], raters=3))
    cl = sis.plan_items("fleiss_kappa", halfwidth=0.1, design="cluster", cluster_size=5, icc=0.25,
                        assumed=dict(value=0.6, prevalence=[0.3, 0.7], raters=3))
    assert cl.components["deff"] == pytest.approx(2.0)
    assert cl.n_items > 1.9 * base.n_items
    assert cl.grid["n_clusters"].iloc[0] == math.ceil(cl.n_items / 5)


def test_prediction_powered_plan_counts_judged_pairs():
    import pandas as pd

    rows = [["fatigue", "tiredness"], ["fever", "pyrexia"], ["cough", "cough"], ["rash", "itch"],
            ["fever", "fever"], ["pain", "ache"], ["nausea", "vomiting"], ["headache", "migraine"]] * 3
    sim = lambda a, b: np.array([0.9 if x[:2] == y[:2] else 0.3 for x, y in zip(a, b, strict=True)])  # noqa: E731
    plan = sis.judging_plan(rows, similarity=sim, n=60, coefficient="cohen_kappa", seed=0)
    table = plan.pairs.copy()
    rng = np.random.default_rng(0)
    table["judgment"] = (rng.random(len(table)) < table["score"]).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sis.cohen_kappa(rows, similarity=sim, judgments=table, ci="analytic")
        out = sis.plan_items("cohen_kappa", halfwidth=0.1, pilot=rows, similarity=sim, judgments=table)
    assert out.unit == "judged pairs" and out.n_judged == out.n and out.n_items == 24
    draws = res.details["ppi"]["n_draws"]
    assert out.components["a"] == pytest.approx(res.se**2 * draws, rel=1e-9)
    assert isinstance(pd.DataFrame(out.to_frame()), pd.DataFrame) and "n_judged" in out.grid.columns


# --- results ------------------------------------------------------------------------------------


def test_result_tables_and_reprs():
    plan = sis.plan_items("fleiss_kappa", halfwidth=[0.1, 0.05],
                          assumed=dict(value=0.6, prevalence=[0.3, 0.7], raters=3), power=dict(null=[0.4, 0.5]))
    df = plan.to_frame()
    assert len(df) == 4 and plan.n_items == df["n_items"].max()
    assert set(df["target"]) == {"halfwidth", "power"}
    md = plan.to_markdown()
    assert md.startswith("| ") and "Sample size for fleiss_kappa" in md
    tex = plan.to_latex(label="tab:plan")
    assert "\\begin{tabular}" in tex and "\\label{tab:plan}" in tex
    assert plan._repr_html_().startswith("<table>")
    json.dumps(plan.to_dict(), default=str)
    assert "PlanResult(" in repr(plan)


# --- errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs,match", [
    (dict(halfwidth=0.0), "halfwidth must be > 0"),
    (dict(halfwidth=-0.1), "halfwidth must be > 0"),
    (dict(power=dict(null=0.4, power=1.0)), r"power\['power'\] must be in \(0, 1\)"),
    (dict(power=dict(null=0.4, power=0.0)), r"power\['power'\] must be in \(0, 1\)"),
    (dict(power=dict(null=0.6)), "must be below the assumed value"),
    (dict(power=dict(null=0.7)), "must be below the assumed value"),
    (dict(power=dict(power=0.8)), "needs 'null'"),
    (dict(power=dict(null=0.4, alpha=1.5)), r"alpha'\] must be in \(0, 1\)"),
    (dict(power=dict(null=0.4, test="score")), "test"),
    (dict(), "give a target"),
    (dict(halfwidth=0.1, design="rater"), "design must be one of"),
    (dict(halfwidth=0.1, level=1.2), "level"),
])
def test_impossible_targets_fail_clearly(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        sis.plan_items("fleiss_kappa", assumed=dict(value=0.6, prevalence=[0.3, 0.7], raters=3), **kwargs)


@pytest.mark.parametrize("assumed,match", [
    (dict(value=0.6, prevalence=[0.3, 0.6], raters=3), "sum to 1"),
    (dict(value=0.6, prevalence=[1.0], raters=3), "at least 2 categories"),
    (dict(value=0.6, prevalence=[0.3, 0.7], raters=1), "raters"),
    (dict(value=1.5, prevalence=[0.3, 0.7], raters=3), "outside what these prevalences allow"),
    (dict(value=-0.5, prevalence=[0.3, 0.7], raters=3), "below what the planning population gives"),
    (dict(prevalence=[0.3, 0.7]), "needs 'value'"),
    (dict(value=0.6, prevalence=[0.3, 0.7], raters=3, colour=1), "unknown keys"),
    (dict(value=0.6, prevalence=[0.25] * 4, raters=9), "rating profiles"),
    (dict(value=0.6, prevalence=[[0.3, 0.7], [0.4, 0.6]], raters=3), "two raters only"),
    (dict(value=1.0, prevalence=[0.3, 0.7], raters=3), "per-item variance 0"),  # ZeroDivisionError before
])
def test_bad_assumed_values_fail_clearly(assumed, match):
    with pytest.raises(ValueError, match=match):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=assumed)


def test_cohen_needs_two_raters_and_margins_limit_kappa():
    with pytest.raises(ValueError, match="two raters"):
        sis.plan_items("cohen_kappa", halfwidth=0.1, assumed=dict(value=0.6, prevalence=[0.3, 0.7], raters=3))
    with pytest.raises(ValueError, match="most agreement the margins allow"):  # kappa_max = 0.8 for these margins
        sis.plan_items("cohen_kappa", halfwidth=0.1, assumed=dict(value=0.9, prevalence=[[0.4, 0.6], [0.5, 0.5]]))


def test_pilot_errors_and_small_pilot_warning():
    rows = _pilot(n=40)
    with pytest.raises(ValueError, match="exactly one of pilot"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1)
    with pytest.raises(ValueError, match="exactly one of pilot"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, assumed=dict(value=0.6, prevalence=[0.5, 0.5]))
    with pytest.raises(ValueError, match="at least 5"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows[:4])
    with pytest.warns(PlanningWarning, match="pilot of 12 items"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows[:12])
    with pytest.raises(ValueError, match="standard error of 0"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=[["a", "a"], ["b", "b"]] * 10)
    with pytest.raises(ValueError, match="below the pilot's estimate"):
        sis.plan_items("fleiss_kappa", pilot=rows, power=dict(null=0.99))
    with pytest.raises(ValueError, match="variance under H0"):
        sis.plan_items("fleiss_kappa", pilot=rows, power=dict(null=0.1, test="null"))
    with pytest.raises(ValueError, match="at least 3 raters"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows[:, :2], design="items+raters")
    with pytest.raises(ValueError, match="cluster"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, design="cluster")
    with pytest.raises(ValueError, match="ci"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, options={"ci": "analytic"})


def test_assumed_value_at_the_ceiling_fails_clearly_for_every_target():
    assumed = dict(value=1.0, prevalence=[0.3, 0.7], raters=3)
    for target in (dict(halfwidth=0.1), dict(power=dict(null=0.9)), dict(power=dict(null=0.9, test="null"))):
        with pytest.raises(ValueError, match="nothing can be planned"):
            sis.plan_items("fleiss_kappa", assumed=assumed, **target)


def test_raters_of_the_planned_study_are_used_or_refused():
    # raters= was ignored outside design="items+raters": 177 items planned for 10 raters, the 3-rater answer
    assumed = dict(value=0.6, prevalence=[0.3, 0.7], raters=3)
    three = sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=assumed)
    ten = sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=assumed, raters=10)
    same = sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed={**assumed, "raters": 10})
    assert three.grid["raters"].tolist() == [3] and ten.grid["raters"].tolist() == [10]
    assert ten.n_items == same.n_items < three.n_items
    rows = _pilot(n=40)
    plan = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows)
    assert plan.grid["raters"].tolist() == [rows.shape[1]]
    assert sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, raters=rows.shape[1]).n_items == plan.n_items
    with pytest.raises(ValueError, match="differs from the pilot's"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, raters=rows.shape[1] + 2)
    with pytest.raises(ValueError, match="two raters; got raters = 3"):
        sis.plan_items("cohen_kappa", halfwidth=0.1, assumed=dict(value=0.6, prevalence=[0.3, 0.7]), raters=3)


def test_too_few_sampled_raters_names_the_fewest_that_reach_the_target():
    assumed = dict(value=0.6, prevalence=[0.3, 0.7], raters=3, rater_variance=0.02)
    with pytest.raises(ValueError, match="plan at least 4 raters"):  # said 5 (one too many) before
        sis.plan_items("fleiss_kappa", halfwidth=0.15, assumed=assumed, design="items+raters", raters=3)
    assert sis.plan_items("fleiss_kappa", halfwidth=0.15, assumed=assumed, design="items+raters", raters=4).n_items


def test_power_n_is_monotone_in_the_gap():
    plan = sis.plan_items("fleiss_kappa", assumed=dict(value=0.6, prevalence=[0.3, 0.7], raters=3),
                          power=dict(null=[0.3, 0.4, 0.5], power=[0.8, 0.9]))
    g = plan.grid
    for p in (0.8, 0.9):
        ns = g[g["power"] == p].sort_values("null")["n_items"].tolist()
        assert ns == sorted(ns)
    assert (g["power_at_n"] >= g["power"] - 1e-12).all()


def _t(p, df):
    from scipy.stats import t
    return float(t.ppf(p, df))


@settings(max_examples=40, deadline=None)
@given(design=st.sampled_from(["items", "cluster"]), cluster_size=st.integers(2, 80), icc=st.floats(0.0, 0.3),
       halfwidth=st.floats(0.05, 0.6), null=st.floats(0.0, 0.55), power=st.floats(0.5, 0.95))
def test_planned_n_is_the_smallest_that_reaches_the_target(design, cluster_size, icc, halfwidth, null, power):
    # the t quantile's degrees of freedom (clusters - 1) fall with n: a fixed-point search stopped early or
    # cycled (146 items planned where 188 give the power; 68 where 171 give the half-width)
    assumed = dict(value=0.6, prevalence=[0.3, 0.7], raters=3)
    kw = dict(design="cluster", cluster_size=cluster_size, icc=icc) if design == "cluster" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = sis.plan_items("fleiss_kappa", halfwidth=halfwidth, power=dict(null=null, power=power),
                              assumed=assumed, **kw)
    comp = plan.components

    def se(n):
        return math.sqrt(comp["deff"] * comp["a"] / n)

    def df(n):
        return max(1.0, math.ceil(n / cluster_size) - 1.0) if design == "cluster" else n - 1.0

    def halfwidth_at(n):
        return _t(0.975, df(n)) * se(n)

    def power_term(n):  # t_{1-alpha} + t_power, in SEs, must fit in the gap to the null
        return (_t(0.95, df(n)) + _t(power, df(n))) * se(n)

    hw, pw = plan.grid.iloc[0], plan.grid.iloc[1]
    n = int(hw["n_items"])
    assert halfwidth_at(n) <= halfwidth * (1 + 1e-9) and hw["halfwidth_at_n"] <= halfwidth * (1 + 1e-9)
    assert n == 2 or halfwidth_at(n - 1) > halfwidth
    n = int(pw["n_items"])
    assert power_term(n) <= (0.6 - null) * (1 + 1e-9) and pw["power_at_n"] >= power - 1e-9
    assert n == 2 or power_term(n - 1) > 0.6 - null


# --- the command line -----------------------------------------------------------------------------


def test_cli_plan_assumed_and_pilot(tmp_path, capsys):
    from softirr_stats.cli import main

    with pytest.raises(SystemExit) as e:
        main(["plan", "--value", "0.8", "--prevalence", "0.4,0.6;0.5,0.5", "--null", "0.7", "--test", "null",
              "-c", "cohen_kappa", "-f", "csv"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].split(",")[out.splitlines()[0].split(",").index("n_items")] == "271"
    rows = _pilot(n=50)
    long = tmp_path / "pilot.csv"
    long.write_text("item,rater,label\n" + "".join(f"{i},{r},{rows[i, r]}\n" for i in range(50) for r in range(4)))
    for fmt in ("table", "json", "markdown", "latex", "csv"):
        with pytest.raises(SystemExit) as e:
            main(["plan", str(long), "--halfwidth", "0.1,0.05", "--null", "0.2", "-f", fmt])
        assert e.value.code == 0, capsys.readouterr()
        text = capsys.readouterr().out
        assert "fleiss" in text
    with pytest.raises(SystemExit) as e:
        main(["plan", "--value", "0.6", "--prevalence", "0.3,0.7", "--halfwidth", "0"])
    assert e.value.code == 2 and "--halfwidth must be positive" in capsys.readouterr().err  # named as typed
    with pytest.raises(SystemExit) as e:
        main(["plan", "--halfwidth", "0.1"])
    assert e.value.code == 2 and "pilot FILE" in capsys.readouterr().err


# --- properties ---------------------------------------------------------------------------------

@settings(max_examples=12, deadline=None)
@given(weights=st.lists(st.floats(0.15, 1.0), min_size=2, max_size=3), value=st.floats(0.2, 0.8),
       raters=st.integers(2, 4), coef=st.sampled_from(["fleiss_kappa", "krippendorff_alpha", "conger_kappa"]),
       data=st.data())
def test_plan_is_invariant_to_relabelling_and_scales_with_the_halfwidth(weights, value, raters, coef, data):
    prev = list(np.asarray(weights) / np.sum(weights))
    perm = data.draw(st.permutations(range(len(prev))))
    a = sis.plan_items(coef, halfwidth=[0.1, 0.05], assumed=dict(value=value, prevalence=prev, raters=raters))
    b = sis.plan_items(coef, halfwidth=[0.1, 0.05],
                       assumed=dict(value=value, prevalence=[prev[i] for i in perm], raters=raters))
    assert a.components["a"] == pytest.approx(b.components["a"], rel=1e-7)
    n1, n2 = a.grid["n_items"]
    assert n2 >= n1 and abs(n2 - 4 * n1) <= 12  # a half-width halved: about four times the items (t, rounding)


def test_to_json_is_strict_json():
    """to_dict keeps nan (the grid's unused columns); to_json writes null, which strict parsers accept."""
    import json

    plan = sis.plan_items("cohen_kappa", halfwidth=0.1, assumed=dict(value=0.7, prevalence=[0.5, 0.5]))
    assert any(v != v for v in plan.to_dict()["grid"][0].values())

    def refuse(token):
        raise ValueError(token)

    doc = json.loads(plan.to_json(), parse_constant=refuse)
    assert doc["n"] == plan.n and doc["grid"][0]["power"] is None


def test_method_with_assumed_values_is_refused_not_ignored():
    """plan_items(assumed=..., method='bootstrap') returned the assumed population's plan without a word; the CLI
    refused the same request."""
    with pytest.raises(ValueError, match="method='bootstrap' is how a pilot's variance is estimated; assumed="):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=dict(value=0.5, prevalence=[0.5, 0.5]),
                       method="bootstrap")
    auto = sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=dict(value=0.5, prevalence=[0.5, 0.5]))
    assert auto.n_items > 0


# --- options a plan would not use, and the population model's limits ------------------------------

_A3 = dict(value=0.6, prevalence=[0.3, 0.7], raters=3)


@pytest.mark.parametrize("design,extra", [("items", {}), ("items", dict(raters=10)),
                                          ("cluster", dict(design_effect=1.5))])
@pytest.mark.parametrize("rater_variance", [0.001, 0.01, 0.0])
def test_rater_variance_is_refused_where_raters_are_fixed(design, extra, rater_variance):
    """design='items' added b whole (b / 1: 287 items for 177, with 0.001), or said "cannot be reached with None
    raters ... plan at least 4 raters" even with raters=10."""
    with pytest.raises(ValueError, match=r"assumed\['rater_variance'\] is the between-rater variance") as err:
        sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=dict(_A3, rater_variance=rater_variance),
                       design=design, **extra)
    assert "None" not in str(err.value) and f"design={design!r} keeps the raters fixed" in str(err.value)


def test_rater_variance_enters_as_b_over_r_with_raters_sampled():
    """items+raters: the smallest n with z sqrt(a / n + b / R) <= h (normal quantile), R the assumed raters."""
    b, h, z = 0.001, 0.1, float(ndtri(0.975))
    plan = sis.plan_items("fleiss_kappa", halfwidth=h, assumed=dict(_A3, rater_variance=b), design="items+raters")
    a, n = plan.components["a"], plan.n_items
    fixed = sis.plan_items("fleiss_kappa", halfwidth=h, assumed=_A3)
    assert a == fixed.components["a"] and fixed.n_items == 177
    assert plan.components["b"] == b and plan.grid["raters"].tolist() == [3]
    assert z * math.sqrt(a / n + b / 3) <= h < z * math.sqrt(a / (n - 1) + b / 3)
    assert n == math.ceil(z * z * a / (h * h - z * z * b / 3))
    assert plan.grid["se_at_n"].iloc[0] == pytest.approx(math.sqrt(a / n + b / 3), abs=1e-12, rel=0)
    assert fixed.grid["se_at_n"].iloc[0] == pytest.approx(math.sqrt(a / 177), abs=1e-12, rel=0)


def test_fixed_raters_carry_no_rater_term():
    """The variance model's b / R and k c / R apply with raters sampled only (raters None): no 'None raters'."""
    from scipy.special import stdtrit

    from softirr_stats.planning._plan import _Components, _quantile, _solve

    comp = _Components(a=0.5, b=0.3, c=0.2)
    assert comp.var(100, None) == 0.5 / 100
    n = _solve(comp, None, 0.1, lambda df: _quantile(0.975, df), "items", "halfwidth 0.1")
    assert stdtrit(n - 1, 0.975) * math.sqrt(0.5 / n) <= 0.1 < stdtrit(n - 2, 0.975) * math.sqrt(0.5 / (n - 1))


@pytest.mark.parametrize("kwargs,said", [
    (dict(bootstrap=5), "bootstrap=5 sets the pilot's bootstraps; assumed= plans from the assumed population's"),
    (dict(seed=9), "seed=9 sets the pilot's bootstraps; assumed="),
    (dict(bootstrap=5, seed=9), "bootstrap=5 and seed=9 set the pilot's bootstraps; assumed="),
    # the defaults' own values given explicitly are given too (they were compared against the defaults and passed)
    (dict(bootstrap=2000), "bootstrap=2000 sets the pilot's bootstraps; assumed="),
    (dict(seed=0), "seed=0 sets the pilot's bootstraps; assumed="),
    (dict(level=0.9, halfwidth=None, power=dict(null=0.4)), "level=0.9 is the level of the interval"),
    (dict(level=0.95, halfwidth=None, power=dict(null=0.4)), "level=0.95 is the level of the interval"),
    (dict(cluster_size=5), "cluster_size= applies to design='cluster'"),
    (dict(icc=0.1, cluster_size=5, design="items+raters"), "icc= and cluster_size= apply to design='cluster'"),
    (dict(design="cluster", design_effect=2.0, icc=0.1, cluster_size=5), "not both: one of them would go unused"),
    (dict(similarity="exact", options=dict(similarity="exact")), "similarity= or options"),
])
def test_options_a_plan_from_assumed_values_would_not_use_are_refused(kwargs, said):
    """bootstrap=, seed=, level= without halfwidth=, cluster_size= outside design='cluster', icc= beside
    design_effect= and similarity= beside options['similarity'] were ignored without a word."""
    kwargs = {"halfwidth": 0.1, **kwargs}
    with pytest.raises(ValueError, match=re.escape(said)):
        sis.plan_items("fleiss_kappa", assumed=_A3, **kwargs)


def test_resampling_options_a_pilot_plan_would_not_use_are_refused_or_noted():
    rows = _pilot(n=40)
    with pytest.raises(ValueError, match="seed=3 sets the pilot's bootstraps; method='analytic' takes the linearised"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, method="analytic", seed=3)
    clusters = np.repeat(np.arange(8), 5)
    for extra, said in ((dict(design="items"), "cluster= applies to design='cluster'"),
                        (dict(design="cluster", design_effect=2.0), "cluster= measures the pilot's clustering"),
                        (dict(design="cluster", cluster_size=4), "cluster= measures the pilot's clustering")):
        with pytest.raises(ValueError, match=re.escape(said)):
            sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, cluster=clusters, **extra)
    auto = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, bootstrap=300)
    analytic = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=rows, method="analytic")
    assert auto.n_items == analytic.n_items and auto.components["a"] == analytic.components["a"]
    assert auto.notes[0].startswith("bootstrap=300 unused: method='auto' took the linearised terms")
    assert not any("unused" in n for n in analytic.notes)


def test_resampling_options_with_judgments_are_refused():
    rows = [["fever", "pyrexia"], ["cough", "cough"], ["rash", "itch"], ["pain", "ache"]] * 6
    sim = lambda a, b: np.array([0.9 if x[:2] == y[:2] else 0.3 for x, y in zip(a, b, strict=True)])  # noqa: E731
    table = sis.judging_plan(rows, similarity=sim, n=30, coefficient="cohen_kappa", seed=0).pairs.assign(judgment=1.0)
    with pytest.raises(ValueError, match="bootstrap=50 sets the pilot's bootstraps; judgments= plans from the delta"):
        sis.plan_items("cohen_kappa", halfwidth=0.1, pilot=rows, similarity=sim, judgments=table, bootstrap=50)


@pytest.mark.parametrize("chance", ["mc:100", "mc:10", "sampled:20000", "montecarlo:5"])
def test_sampled_chance_is_refused_with_assumed_values(chance):
    """Monte Carlo or sampled chance on the weighted profiles planned simulation noise (169 or 174 for 177; mc:10
    failed with 'not defined or does not increase with agreement')."""
    with pytest.raises(ValueError, match=r"samples the chance term .* use chance='exact'"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=_A3, options=dict(chance=chance))
    with pytest.raises(ValueError, match="samples the chance term"):
        sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=_A3,
                       options=dict(chance=sis.SampledPairs(n=5000)))
    exact = sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=_A3, options=dict(chance="exact"))
    auto = sis.plan_items("fleiss_kappa", halfwidth=0.1, assumed=_A3, options=dict(chance="auto"))
    assert exact.n_items == auto.n_items == 177 and exact.components["a"] == auto.components["a"]


def test_a_value_below_chance_is_the_population_models_limit_not_the_margins():
    """kappa -0.2 was 'outside what these prevalences allow ... [0 (chance agreement), 1]'; margins 0.3 / 0.7 do
    allow it (the table below), the planning population has no agreement below chance."""
    with pytest.raises(ValueError) as err:
        sis.plan_items("cohen_kappa", halfwidth=0.1, assumed=dict(value=-0.2, prevalence=[0.3, 0.7]))
    text = str(err.value)
    assert "below what the planning population gives" in text and "no agreement below chance" in text
    assert "outside what these prevalences allow" not in text and "pilot=" in text
    # 100 items with margins 0.3 / 0.7 for both raters and kappa below -0.2: p_o = 0.4, p_e = 0.58
    table = [["a", "b"]] * 30 + [["b", "a"]] * 30 + [["b", "b"]] * 40
    low = sis.cohen_kappa(table).value
    assert low == pytest.approx((0.4 - 0.58) / (1 - 0.58), abs=1e-12) and low < -0.2
    with pytest.raises(ValueError, match="outside what these prevalences allow .* most agreement the margins allow"):
        sis.plan_items("cohen_kappa", halfwidth=0.1, assumed=dict(value=0.95, prevalence=[[0.3, 0.7], [0.5, 0.5]]))


def test_the_power_note_states_the_largest_simulated_shortfall_of_an_items_cell():
    """The note said "up to 3.6 points below the target"; at prevalences 0.1 / 0.9 the simulated power was 4.3 and
    5.9 points below (benchmarks/plan_validation.csv). The note's bound and numbers are the CSV's."""
    import csv
    import pathlib

    rows = list(csv.DictReader((pathlib.Path(__file__).resolve().parents[2] / "benchmarks" /
                                "plan_validation.csv").open()))
    power = [r for r in rows if r["design"] == "items" and r["target"] == "power"]
    short = {r["cell"]: 100 * (float(r["planned_power"]) - float(r["simulated_power"])) for r in power}
    plan = sis.plan_items("fleiss_kappa", power=dict(null=0.4, power=0.8),
                          assumed=dict(value=0.6, prevalence=[0.1, 0.9], raters=3))
    note = next(n for n in plan.notes if n.startswith("power is first-order"))
    bound = float(re.search(r"up to (\d+(?:\.\d+)?) points below", note).group(1))
    assert bound >= max(short.values()) and bound - max(short.values()) < 0.5
    skewed = next(r for r in power if r["cell"] == "fleiss_kappa_skewed_null_0.4")
    assert int(plan.grid["n_items"].iloc[0]) == int(skewed["planned_n"]) == 174
    assert f"{short['fleiss_kappa_skewed_null_0.4']:.1f} with prevalences 0.1 / 0.9 at 174 items" in note
    assert f"still {short['fleiss_kappa_skewed']:.1f} at 308 items" in note
