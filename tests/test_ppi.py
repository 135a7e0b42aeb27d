"""Prediction-powered soft agreement: exact identities, unbiasedness, plans, CSV, judges, errors."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.agreement import as_annotations, evaluate, point_estimate
from softirr_stats.agreement._judging import (
    COEFFICIENT_FAMILIES,
    plan_from_prepared,
    read_judgments,
)
from softirr_stats.agreement._ppi_terms import all_distinct_pairs, effective_df, term_weights
from softirr_stats.agreement._similarity import MatrixSimilarity
from softirr_stats.equivalence import Cached, LlmJudge
from softirr_stats.uncertainty._ppi_intervals import apply_ppi, delta_critical_value

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")

K = 9
LABELS = [f"term {i}" for i in range(K)]
SOFT = ["cohen_kappa", "scott_pi", "fleiss_kappa", "conger_kappa", "krippendorff_alpha", "gwet_ac1",
        "brennan_prediger"]


def _matrix(rng, noise=0.0, base=None):
    m = rng.uniform(0, 1, (K, K)) if base is None else np.clip(base + rng.normal(0, noise, (K, K)), 0, 1)
    m = 0.5 * (m + m.T)
    np.fill_diagonal(m, 1.0)
    return m


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(3)
    codes = rng.integers(0, K, (50, 3))
    wide = np.array([[LABELS[c] for c in row] for row in codes], dtype=object)
    wide[2, 1] = None  # a missing rating
    wide[7, 0] = None
    F = _matrix(rng)
    H = _matrix(rng, 0.25, F)
    return wide, F, H


def _ann(wide, coef):
    return as_annotations(wide[:, :2].tolist() if coef in ("cohen_kappa", "scott_pi") else wide.tolist())


def _judged(plan, M):
    table = plan.pairs.copy()
    table["judgment"] = M[plan.codes[0], plan.codes[1]]
    return table


@pytest.mark.parametrize("family", ["pooled", "per_rater", "alpha", "ac1", "bp"])
def test_term_weights_reproduce_every_soft_coefficient(data, family):
    wide, F, _ = data
    ann = as_annotations(wide.tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, prep = point_estimate(ann, family=family, coefficient=family, sim=MatrixSimilarity(F))
    a, b = all_distinct_pairs(prep)
    C = np.vstack([np.ones(prep.n), np.random.default_rng(0).integers(0, 3, prep.n)])  # plain and bootstrap-like
    tw = term_weights(prep, a, b, C)
    out = evaluate(prep, C)
    np.testing.assert_allclose(tw.const_o + tw.Wo @ F[a, b], out["pa"], rtol=0, atol=1e-14)
    np.testing.assert_allclose(tw.const_e + tw.We @ F[a, b], out["pe"], rtol=0, atol=1e-14)
    np.testing.assert_allclose(tw.Wo.sum(axis=1), tw.mass_o, atol=1e-14)
    np.testing.assert_allclose(tw.We.sum(axis=1), tw.mass_e, atol=1e-14)


@pytest.mark.parametrize("coef", SOFT)
def test_judge_equal_to_estimator_gives_the_plain_soft_coefficient(data, coef):
    wide, F, _ = data
    ann = _ann(wide, coef)
    fn = getattr(sis, coef)
    plan = sis.judging_plan(ann, similarity=F, n=60, coefficient=coef, seed=1)
    plain = fn(ann, similarity=F)
    r = fn(ann, similarity=F, judgments=_judged(plan, F))
    assert r.value == pytest.approx(plain.value, abs=1e-12)
    assert r.observed == pytest.approx(plain.observed, abs=1e-12)
    assert r.expected == pytest.approx(plain.expected, abs=1e-12)
    assert r.details["ppi"]["estimator_only"] == plain.value


@pytest.mark.parametrize("coef", SOFT)
def test_census_with_lambda_zero_is_the_coefficient_computed_with_the_judge(data, coef):
    wide, F, H = data
    ann = _ann(wide, coef)
    fn = getattr(sis, coef)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, prep = point_estimate(ann, family=COEFFICIENT_FAMILIES[coef], coefficient=coef, sim=MatrixSimilarity(F))
    a, b = all_distinct_pairs(prep)
    census = pd.DataFrame({"label_a": np.array(LABELS, dtype=object)[a], "label_b": np.array(LABELS, dtype=object)[b],
                           "q": 1.0 / len(a), "draws": 1, "judgment": H[a, b]})  # every pair once: m / (n q) = 1
    r = fn(ann, similarity=F, judgments=read_judgments(census, lam=0.0))
    assert r.value == pytest.approx(fn(ann, similarity=H).value, abs=1e-12)
    assert r.details["ppi"]["lambda"] == {"observed": 0.0, "chance": 0.0}
    assert r.details["ppi"]["judge_only"] == pytest.approx(r.value, abs=1e-15)


@pytest.mark.parametrize(("coef", "strategy"), [("fleiss_kappa", "uniform"), ("cohen_kappa", "active")])
def test_unbiased_by_simulation(data, strategy, coef):
    wide, F, H = data
    ann = _ann(wide, coef)
    fam = COEFFICIENT_FAMILIES[coef]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res, prep = point_estimate(ann, family=fam, coefficient=coef, sim=MatrixSimilarity(F))
        target = point_estimate(ann, family=fam, coefficient=coef, sim=MatrixSimilarity(H))[0]
        vals, terms = [], []
        for seed in range(250):
            plan = plan_from_prepared(prep, coef, res.observed, res.expected, n=150, strategy=strategy, seed=seed)
            table = _judged(plan, H)
            r = apply_ppi(res, prep, read_judgments(table), None, None)
            vals.append(r.value)
            f = apply_ppi(res, prep, read_judgments(table, lam=0.7), None, None)
            terms.append((f.observed, f.expected))
    vals, terms = np.array(vals), np.array(terms)
    # fixed lambda: each term is exactly unbiased (Hansen-Hurwitz)
    for j, truth in enumerate((target.observed, target.expected)):
        se = terms[:, j].std(ddof=1) / math.sqrt(len(terms))
        assert abs(terms[:, j].mean() - truth) < 3 * se + 1e-12
    # tuned lambda, the ratio: unbiased to within 3 Monte Carlo SE
    se = vals.std(ddof=1) / math.sqrt(len(vals))
    assert abs(vals.mean() - target.value) < 3 * se


def test_plan_design_is_a_probability_distribution(data):
    wide, F, _ = data
    ann = as_annotations(wide.tolist())
    for strategy in ("uniform", "active"):
        plan = sis.judging_plan(ann, similarity=F, n=5000, strategy=strategy, seed=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=MatrixSimilarity(F))
        a, b = all_distinct_pairs(prep)
        # the empirical draw frequencies match q (5000 draws over 36 pairs)
        freq = plan.pairs["draws"] / plan.n
        assert np.abs(freq - plan.pairs["q"]).max() < 0.02
        assert len(plan.pairs) <= len(a)
        assert set(plan.pairs["terms"]) <= {"observed", "chance", "observed+chance"}
        assert (plan.pairs["label_a"] != plan.pairs["label_b"]).all()
    p1 = sis.judging_plan(ann, similarity=F, n=40, seed=5)
    p2 = sis.judging_plan(ann, similarity=F, n=40, seed=5)
    pd.testing.assert_frame_equal(p1.pairs, p2.pairs)


def test_csv_round_trip(data, tmp_path):
    wide, F, H = data
    ann = as_annotations(wide.tolist())
    plan = sis.judging_plan(ann, similarity=F, n=80, seed=2, strategy="active")
    path = plan.to_csv(tmp_path / "plan.csv")
    sheet = pd.read_csv(path)
    assert list(sheet.columns) == ["label_a", "label_b", "score", "q", "terms", "draws", "coefficient", "judgment"]
    assert sheet["judgment"].isna().all()
    idx = {lab: i for i, lab in enumerate(LABELS)}
    sheet["judgment"] = H[[idx[x] for x in sheet["label_a"]], [idx[x] for x in sheet["label_b"]]]
    sheet.to_csv(path, index=False)
    judged = sis.read_judgments(path)
    np.testing.assert_array_equal(judged["q"].to_numpy(), plan.pairs["q"].to_numpy())  # 17 digits survive
    from_csv = sis.fleiss_kappa(ann, similarity=F, judgments=judged)
    from_frame = sis.fleiss_kappa(ann, similarity=F, judgments=_judged(plan, H))
    assert from_csv.value == from_frame.value
    assert from_csv.details["ppi"]["n_judged"] == len(plan.pairs)
    assert from_csv.details["ppi"]["n_draws"] == 80


def test_numeric_labels_round_trip(tmp_path):
    rng = np.random.default_rng(0)
    wide = rng.integers(1, 6, (40, 2)).tolist()
    sim = np.clip(1 - np.abs(np.subtract.outer(np.arange(5), np.arange(5))) / 4, 0, 1)
    plan = sis.judging_plan(wide, similarity=sim, n=30, coefficient="cohen_kappa", seed=0)
    path = plan.to_csv(tmp_path / "p.csv")
    sheet = pd.read_csv(path)
    sheet["judgment"] = sheet["score"]
    sheet.to_csv(path, index=False)
    r = sis.cohen_kappa(wide, similarity=sim, judgments=sis.read_judgments(path))
    assert r.value == pytest.approx(sis.cohen_kappa(wide, similarity=sim).value, abs=1e-12)


class _StubLlm(LlmJudge):
    """An LlmJudge whose model is a lookup table (no weights are loaded)."""

    def __init__(self, table):
        super().__init__("stub-model", progress=False, symmetric=True)
        self.table, self.calls = table, 0

    def _load(self):
        pass

    def _score(self, a, b):
        self.calls += len(a)
        return np.array([self.table[(x, y)] for x, y in zip(a, b, strict=True)], dtype=np.float64)


def test_judge_scores_the_planned_pairs_through_the_cache(data, tmp_path):
    wide, F, H = data
    ann = as_annotations(wide.tolist())
    table = {(LABELS[i], LABELS[j]): float(H[i, j]) for i in range(K) for j in range(K)}
    plan = sis.judging_plan(ann, similarity=F, n=100, seed=4)
    stub = _StubLlm(table)
    r = sis.fleiss_kappa(ann, similarity=F, judgments=plan, judge=Cached(stub, tmp_path / "judge.sqlite"))
    expected = sis.fleiss_kappa(ann, similarity=F, judgments=_judged(plan, H))
    assert r.value == pytest.approx(expected.value, abs=1e-12)
    assert stub.calls == len(plan.pairs)
    again = _StubLlm(table)
    r2 = sis.fleiss_kappa(ann, similarity=F, judgments=plan, judge=Cached(again, tmp_path / "judge.sqlite"))
    assert again.calls == 0 and r2.value == r.value  # served from the cache
    # any callable works, and judge= alone draws the default plan
    fn = lambda a, b: np.array([table[(x, y)] for x, y in zip(a, b, strict=True)])  # noqa: E731
    r3 = sis.krippendorff_alpha(ann, similarity=F, judge=fn)
    assert r3.details["ppi"]["n_draws"] == 200
    assert any("default plan" in w for w in r3.warnings)


def test_intervals_and_reported_fields(data):
    wide, F, H = data
    ann = as_annotations(wide.tolist())
    plan = sis.judging_plan(ann, similarity=F, n=200, seed=0)
    judged = _judged(plan, H)
    delta = sis.fleiss_kappa(ann, similarity=F, judgments=judged, ci=sis.Analytic(level=0.9))
    p = delta.details["ppi"]
    assert delta.ci_method == "ppi-delta" and delta.level == 0.9
    assert delta.ci_low < delta.value < delta.ci_high
    assert delta.se == pytest.approx(p["se_delta"])
    # Student-t critical value with the kurtosis-shrunk degrees of freedom
    assert 1.0 <= p["df"] <= p["n_draws"] - 1
    half = delta_critical_value(0.9, p["df"]) * delta.se
    assert delta.ci_high - delta.value == pytest.approx(half)
    assert half > delta_critical_value(0.9, math.inf) * delta.se
    assert p["estimand"].startswith("conditional on the items")
    assert set(p) >= {"lambda", "n_judged", "effective_sample_size", "judge_only", "estimator_only", "estimand"}
    assert 0 <= p["lambda"]["observed"] <= 1 and 0 <= p["lambda"]["chance"] <= 1
    assert p["effective_sample_size"] >= p["n_draws"] * 0.99  # tuned lambda never loses to judge-only much
    draws = sis.fleiss_kappa(ann, similarity=F, judgments=judged, ci=sis.Bootstrap(n=400, design="judged", seed=1))
    assert draws.details["ppi"]["estimand"].startswith("conditional")
    assert draws.se == pytest.approx(delta.se, rel=0.25)  # same quantity to first order
    items = sis.fleiss_kappa(ann, similarity=F, judgments=judged, ci=sis.Bootstrap(n=300, seed=1))
    assert items.details["ppi"]["estimand"].startswith("items as a sample")
    assert items.se > draws.se  # adds the items' sampling variance
    bca = sis.fleiss_kappa(ann, similarity=F, judgments=judged, ci=sis.Bootstrap(n=200, method="bca", seed=1))
    assert bca.ci_low < bca.ci_high


def test_bad_inputs_give_clear_errors(data, tmp_path):
    wide, F, H = data
    ann = as_annotations(wide.tolist())
    plan = sis.judging_plan(ann, similarity=F, n=50, seed=0)
    good = _judged(plan, H)
    bad = good.copy()
    bad.loc[0, "label_a"] = "not a label"
    with pytest.raises(ValueError, match="not in the annotations' vocabulary"):
        sis.fleiss_kappa(ann, similarity=F, judgments=bad)
    bad = good.copy()
    bad.loc[1, "judgment"] = 1.5
    with pytest.raises(ValueError, match=r"judgment must lie in \[0, 1\]"):
        sis.fleiss_kappa(ann, similarity=F, judgments=bad)
    with pytest.raises(ValueError, match="missing \\['judgment'\\]"):
        sis.fleiss_kappa(ann, similarity=F, judgments=plan.pairs)
    path = plan.to_csv(tmp_path / "empty.csv")
    with pytest.raises(ValueError, match="'judgment' must be numeric with no missing values"):
        sis.read_judgments(path)
    bad = good.copy()
    bad.loc[0, "label_b"] = bad.loc[0, "label_a"]
    with pytest.raises(ValueError, match="with itself"):
        sis.fleiss_kappa(ann, similarity=F, judgments=bad)
    bad = good.copy()
    bad.loc[0, "q"] = 0.0
    with pytest.raises(ValueError, match="'q' must lie in"):
        sis.fleiss_kappa(ann, similarity=F, judgments=bad)
    with pytest.raises(ValueError, match="lam must be"):
        sis.read_judgments(good, lam=2)
    with pytest.raises(ValueError, match="not both"):
        sis.fleiss_kappa(ann, similarity=F, judgments=good, judge=lambda a, b: np.zeros(len(a)))
    with pytest.raises(ValueError, match="chance='exact'"):
        sis.fleiss_kappa(ann, similarity=F, judgments=good, chance=sis.MonteCarlo(permutations=2))
    with pytest.raises(ValueError, match="Bootstrap design 'raters' is not supported here"):
        sis.fleiss_kappa(ann, similarity=F, judgments=good, ci=sis.Bootstrap(n=50, design="raters"))
    with pytest.raises(ValueError, match="needs judgments= or judge="):
        sis.fleiss_kappa(ann, similarity=F, ci=sis.Bootstrap(n=50, design="judged"))
    with pytest.raises(ValueError, match="strategy"):
        sis.judging_plan(ann, similarity=F, strategy="greedy")
    with pytest.raises(ValueError, match="coefficient"):
        sis.judging_plan(ann, similarity=F, coefficient="light_kappa")
    with pytest.raises(TypeError, match="judgments must be"):
        sis.fleiss_kappa(ann, similarity=F, judgments=42)
    with pytest.warns(UserWarning, match="drawn for cohen_kappa"):
        two = as_annotations(wide[:, :2].tolist())
        p2 = _judged(sis.judging_plan(two, similarity=F, n=50, coefficient="cohen_kappa"), H)
        sis.gwet_ac1(two, similarity=F, judgments=p2)


def test_estimator_without_signal_gives_judge_only(data):
    wide, _, H = data
    ann = as_annotations(wide.tolist())
    plan = sis.judging_plan(ann, similarity=None, n=120, seed=0)  # exact matching: f = 0 off the diagonal
    r = sis.fleiss_kappa(ann, judgments=_judged(plan, H), ci="analytic")
    p = r.details["ppi"]
    assert p["lambda"] == {"observed": 0.0, "chance": 0.0}
    assert r.value == pytest.approx(p["judge_only"], abs=1e-15)
    assert p["effective_sample_size"] == pytest.approx(120.0)


def test_validation_study_smoke(tmp_path):
    import importlib.util
    import pathlib
    import sys

    if importlib.util.find_spec("paper_repro") is None:  # top-level folder, not pip-installed
        sys.path.append(str(pathlib.Path(__file__).resolve().parents[1]))
    from paper_repro.__main__ import main

    assert main(["ppi", "--smoke", "--out", str(tmp_path)]) == 0
    summary = pd.read_csv(tmp_path / "ppi_summary.csv")
    results = pd.read_csv(tmp_path / "ppi_results.csv")
    assert len(results) == summary["n"].sum() == 2 * 2 * 2  # populations x draws x designs
    assert np.isfinite(summary[["bias", "mae", "cover95", "width_ratio"]].to_numpy()).all()
    assert (summary["width_ratio"] <= 1.0 + 1e-9).all()  # Indel is informative on synonym pairs
    for name in ("ppi_cover95.png", "ppi_width_ratio.png", "ppi_mae.png"):
        assert (tmp_path / name).read_bytes()[:4] == b"\x89PNG"


def test_small_sample_critical_value_improves_coverage_of_skewed_means():
    # heavy-tailed summands (a few draws carry the signal): the normal interval undercovers at
    # 50 draws; the t quantile with the kurtosis-shrunk df covers closer to the nominal level
    rng = np.random.default_rng(3)
    n, reps = 50, 2000
    x = rng.lognormal(0.0, 1.0, (reps, n))
    truth = math.exp(0.5)
    df = np.apply_along_axis(effective_df, 1, x, np.ones(n))
    se = x.std(axis=1, ddof=1) / math.sqrt(n)
    err = np.abs(x.mean(axis=1) - truth)
    normal = np.mean(err <= delta_critical_value(0.95, math.inf) * se)
    student = np.mean(err <= delta_critical_value(0.95, df) * se)
    assert np.all((df >= 1) & (df <= n - 1)) and np.median(df) < n - 1
    assert normal < student <= 0.97
    assert student - normal > 3 * math.sqrt(0.95 * 0.05 / reps)
    # summands without excess kurtosis keep n - 1 degrees of freedom
    assert effective_df(np.r_[np.zeros(25), np.ones(25)], np.ones(50)) == 49.0
    assert effective_df(np.zeros(10), np.ones(10)) == 9.0
