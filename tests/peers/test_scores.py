"""ICC, Lin's CCC and Kendall's W against their peers' documented outputs, and their invariances.

Sources (each case names its own):
- ``tests/fixtures/peer_scores.json``: outputs of pingouin 0.7.0 ``intraclass_corr`` and of pyirr
  0.84.1.2 (a line-by-line port of R ``irr`` 0.84.1: ``icc``, ``kendall``, ``kappam_fleiss``,
  ``kappam_light``, ``agree``), written by ``tests/fixtures/make_peer_scores.py`` on published data sets.
- Printed R output: ``psych::ICC`` and ``DescTools::ICC`` on Shrout & Fleiss (1979)'s Table 2 (the
  RExRepos ``interRaterICC`` page), ``psych::ICC`` on McGraw & Wong (1996)'s Table 6 (quoted as
  "Verification from R" in ``f_ICC.m``), ``irr::icc(anxiety, model = "twoway", type = "agreement")``.
- Live peers: ``scipy.stats.friedmanchisquare`` (the Friedman test of Kendall's W).

pingouin rounds its intervals to 2 decimals, so intervals are compared to that precision; values,
F, df and p to 1e-9.
"""

import json
import math
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import softirr_stats as sis
from softirr_stats.agreement import ICC_FORMS, ScoreStatistic, icc_values, kendall_w_values
from softirr_stats.agreement._scores import ccc_values

DOC = json.loads((pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "peer_scores.json").read_text())
DATA, CASES = DOC["data"], DOC["cases"]
FORMS = list(ICC_FORMS)


def _round_half_up(x, digits):
    return math.floor(x * 10**digits + 0.5) / 10**digits


# --- pingouin.intraclass_corr: every form on four published data sets (24 cases) --------------------
PINGOUIN = [(data, form) for data in CASES["pingouin.intraclass_corr"] for form in FORMS]


@pytest.mark.parametrize(("data", "form"), PINGOUIN)
def test_icc_equals_pingouin(data, form):
    """pingouin 0.7.0 intraclass_corr (tests/fixtures/peer_scores.json) on the named data set."""
    ref = CASES["pingouin.intraclass_corr"][data][form]
    r = sis.icc(DATA[data], form=form, ci="analytic")
    assert r.value == pytest.approx(ref["icc"], abs=1e-9)
    assert r.details["F"] == pytest.approx(ref["F"], rel=1e-9)
    assert (r.details["df1"], r.details["df2"]) == (ref["df1"], ref["df2"])
    assert r.p_value == pytest.approx(ref["p"], rel=1e-9, abs=1e-15)
    assert [round(r.ci_low, 2), round(r.ci_high, 2)] == pytest.approx(ref["ci95"], abs=1e-12)


# --- printed R output on Shrout & Fleiss (1979) Table 2 (12 cases) ----------------------------------
# psych::ICC(ratings): type, ICC (2 dp), F (1 dp), df1, df2, p (5 dp), lower (3 dp), upper (2 dp)
PSYCH_SF = {"ICC1": (0.17, 1.8, 5, 18, 0.16477, -0.133, 0.72), "ICC2": (0.29, 11.0, 5, 15, 0.00013, 0.019, 0.76),
            "ICC3": (0.71, 11.0, 5, 15, 0.00013, 0.342, 0.95), "ICC1k": (0.44, 1.8, 5, 18, 0.16477, -0.884, 0.91),
            "ICC2k": (0.62, 11.0, 5, 15, 0.00013, 0.071, 0.93), "ICC3k": (0.91, 11.0, 5, 15, 0.00013, 0.676, 0.99)}
# DescTools::ICC(ratings): est (3 dp), F-val (2 dp), df1, df2, p-val (6 dp)
DESCTOOLS_SF = {"ICC1": (0.166, 1.79, 5, 18, 0.164769), "ICC2": (0.290, 11.03, 5, 15, 0.000135),
                "ICC3": (0.715, 11.03, 5, 15, 0.000135), "ICC1k": (0.443, 1.79, 5, 18, 0.164769),
                "ICC2k": (0.620, 11.03, 5, 15, 0.000135), "ICC3k": (0.909, 11.03, 5, 15, 0.000135)}


@pytest.mark.parametrize("form", FORMS)
def test_icc_shrout_fleiss_psych_printed(form):
    """R psych::ICC on Shrout & Fleiss (1979) Table 2, as printed (RExRepos interRaterICC)."""
    icc_, f, df1, df2, p, lo, hi = PSYCH_SF[form]
    r = sis.icc(DATA["shrout_fleiss"], form=form, ci="analytic")
    assert round(r.value, 2) == icc_ and round(r.details["F"], 1) == f
    assert (r.details["df1"], r.details["df2"]) == (df1, df2)
    assert round(r.p_value, 5) == p and round(r.ci_low, 3) == lo and round(r.ci_high, 2) == hi


@pytest.mark.parametrize("form", FORMS)
def test_icc_shrout_fleiss_desctools_printed(form):
    """R DescTools::ICC on Shrout & Fleiss (1979) Table 2, as printed (RExRepos interRaterICC)."""
    est, f, df1, df2, p = DESCTOOLS_SF[form]
    r = sis.icc(DATA["shrout_fleiss"], form=form)
    assert round(r.value, 3) == est and round(r.details["F"], 2) == f
    assert (r.details["df1"], r.details["df2"]) == (df1, df2) and round(r.p_value, 6) == p


# psych::ICC on McGraw & Wong (1996) Table 6 ("Verification from R" in f_ICC.m): est, F, df1, df2, p, lwr, upr
PSYCH_MW6 = {"ICC1": (0.722, 6.18, 9, 10, 0.00437, 0.241, 0.922), "ICC2": (0.720, 6.00, 9, 9, 0.00677, 0.228, 0.922),
             "ICC3": (0.714, 6.00, 9, 9, 0.00677, 0.197, 0.920), "ICC1k": (0.838, 6.18, 9, 10, 0.00437, 0.389, 0.959),
             "ICC2k": (0.837, 6.00, 9, 9, 0.00677, 0.371, 0.959), "ICC3k": (0.833, 6.00, 9, 9, 0.00677, 0.329, 0.959)}


@pytest.mark.parametrize("form", FORMS)
def test_icc_mcgraw_wong_table6_printed(form):
    """R psych::ICC on McGraw & Wong (1996) Table 6 (10 x 2), as printed to 3 digits."""
    est, f, df1, df2, p, lo, hi = PSYCH_MW6[form]
    r = sis.icc(DATA["mcgraw_wong_t6"], form=form, ci="analytic")
    assert round(r.value, 3) == est and round(r.details["F"], 2) == f
    assert (r.details["df1"], r.details["df2"]) == (df1, df2)
    assert round(r.p_value, 5) == p and round(r.ci_low, 3) == lo and round(r.ci_high, 3) == hi


# --- R irr::icc (pyirr port) on anxiety and Shrout & Fleiss: values, F, df, p, interval ------------
IRR = [(data, form) for data in CASES["irr.icc"] for form in CASES["irr.icc"][data]]


@pytest.mark.parametrize(("data", "form"), IRR)
def test_icc_equals_irr(data, form):
    """R irr::icc (pyirr 0.84.1.2 port): the F test of ICC(A,1) uses Satterthwaite's df (details);
    irr's ICC(A,k) interval is its own (irrNA's icc_corr corrects it), so only its value, F and p."""
    ref = CASES["irr.icc"][data][form]
    r = sis.icc(DATA[data], form=form, ci="analytic")
    assert r.value == pytest.approx(ref["icc"], abs=1e-9)
    assert r.details["F"] == pytest.approx(ref["F"], rel=1e-9)
    if form == "ICC2":
        assert r.details["df2_satterthwaite"] == pytest.approx(ref["df2"], rel=1e-9)
        assert r.details["p_value_satterthwaite"] == pytest.approx(ref["p"], rel=1e-9)
    else:
        assert r.details["df2"] == pytest.approx(ref["df2"], rel=1e-12)
        assert r.p_value == pytest.approx(ref["p"], rel=1e-9)
    if form != "ICC2k":
        assert (r.ci_low, r.ci_high) == pytest.approx(tuple(ref["ci95"]), abs=1e-9)


def test_icc_irr_anxiety_printed():
    """R irr docs: icc(anxiety, model="twoway", type="agreement") prints ICC(A,1) = 0.198,
    F(19,39.7) = 1.83, p = 0.0543, -0.039 < ICC < 0.494."""
    r = sis.icc(DATA["anxiety"], form="ICC(A,1)", ci="analytic")
    assert round(r.value, 3) == 0.198 and round(r.details["F"], 2) == 1.83
    assert round(r.details["df2_satterthwaite"], 1) == 39.7 and round(r.details["p_value_satterthwaite"], 4) == 0.0543
    assert (round(r.ci_low, 3), round(r.ci_high, 3)) == (-0.039, 0.494)


# --- Kendall's W: irr::kendall (pyirr port) and scipy's Friedman test ------------------------------
@pytest.mark.parametrize("key", sorted(CASES["irr.kendall"]))
def test_kendall_w_equals_irr(key):
    """R irr::kendall(ratings, correct) (pyirr 0.84.1.2 port)."""
    data, correct = key.split(":correct=")
    ref = CASES["irr.kendall"][key]
    r = sis.kendall_w(DATA[data], correct=correct == "True")
    assert r.value == pytest.approx(ref["W"], abs=1e-12)
    assert r.details["chi2"] == pytest.approx(ref["chi2"], rel=1e-12)
    assert r.p_value == pytest.approx(ref["p"], rel=1e-9)


@pytest.mark.parametrize("data", ["anxiety", "shrout_fleiss", "pingouin_wine"])
def test_kendall_w_friedman_equals_scipy(data):
    """scipy.stats.friedmanchisquare with raters as blocks (its ties correction) is m (n - 1) W."""
    x = np.asarray(DATA[data], dtype=float)
    ref = stats.friedmanchisquare(*x)
    r = sis.kendall_w(x)
    assert r.details["chi2"] == pytest.approx(ref.statistic, rel=1e-12)
    assert r.p_value == pytest.approx(ref.pvalue, rel=1e-9)


# --- Lin's CCC: definitions and the identities peers rely on --------------------------------------
def test_lin_ccc_definition_and_pearson_times_bias_correction():
    """Lin (1989): rho_c = r * C_b with C_b = 2 / (v + 1/v + u^2), n-divisor moments (DescTools CCC)."""
    x = np.asarray(DATA["mcgraw_wong_t6"], dtype=float)
    r = sis.lin_ccc(x, ci="analytic")
    a, b = x[:, 0], x[:, 1]
    sa, sb = a.std(), b.std()
    pearson = np.corrcoef(a, b)[0, 1]
    v, u = sa / sb, (a.mean() - b.mean()) / math.sqrt(sa * sb)
    assert r.value == pytest.approx(pearson * 2.0 / (v + 1.0 / v + u * u), abs=1e-12)
    assert r.details["pearson_r"] == pytest.approx(pearson, abs=1e-12)
    assert r.ci_low < r.value < r.ci_high and r.se > 0


def test_lin_ccc_equals_the_anova_form():
    """Lin's CCC in two-way ANOVA mean squares (the variance-components form of Carrasco & Jover 2003,
    derived from the sums of squares with k = 2): (MSR - MSE) / (MSR + MSE + 2 MSC / (n - 1))."""
    from softirr_stats.agreement import anova_terms

    for name in ("mcgraw_wong_t6",):
        x = np.asarray(DATA[name], dtype=float)
        t = {k: float(v[0]) for k, v in anova_terms(x).items()}
        n = t["n"]
        expect = (t["msr"] - t["mse"]) / (t["msr"] + t["mse"] + 2 * t["msc"] / (n - 1))
        assert sis.lin_ccc(x).value == pytest.approx(expect, abs=1e-12)
    x = np.asarray(DATA["anxiety"], dtype=float)[:, :2]
    t = {k: float(v[0]) for k, v in anova_terms(x).items()}
    n = t["n"]
    expect = (t["msr"] - t["mse"]) / (t["msr"] + t["mse"] + 2 * t["msc"] / (n - 1))
    assert sis.lin_ccc(x).value == pytest.approx(expect, abs=1e-12)


def test_lin_ccc_interval_is_fisher_z_of_lins_variance():
    """The z-transform interval of DescTools / epiR: tanh(atanh(rho_c) -+ z * se_z)."""
    x = np.asarray(DATA["anxiety"], dtype=float)[:, [0, 2]]
    r = sis.lin_ccc(x, ci=sis.Analytic(level=0.9))
    p, pr, n = r.value, r.details["pearson_r"], x.shape[0]
    u = r.details["location_shift"]
    se_z = math.sqrt(((1 - pr**2) * p**2 / ((1 - p**2) * pr**2) + 2 * p**3 * (1 - p) * u**2 / (pr * (1 - p**2) ** 2)
                      - p**4 * u**4 / (2 * pr**2 * (1 - p**2) ** 2)) / (n - 2))
    z = stats.norm.ppf(0.95)
    assert (r.ci_low, r.ci_high) == pytest.approx((math.tanh(math.atanh(p) - z * se_z),
                                                   math.tanh(math.atanh(p) + z * se_z)), abs=1e-12)
    assert r.level == 0.9 and r.ci_method == "fisher-z"


# --- invariances (the registry's claims for numeric statistics are tested here) --------------------
def _score_tables():
    return st.integers(3, 9).flatmap(lambda n: st.integers(2, 4).flatmap(lambda k: st.lists(
        st.lists(st.integers(0, 6), min_size=k, max_size=k), min_size=n, max_size=n)))


KERNELS = {
    **{f"icc:{f}": (lambda x, c, v, f=f: icc_values(x, c, v)[f]) for f in FORMS},
    "kendall_w": lambda x, c, v: kendall_w_values(x, c, v)["value"],
    "lin_ccc": lambda x, c, v: ccc_values(x[:, :2], c)["value"],
}


def _same(a, b):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return np.allclose(np.nan_to_num(a, nan=9.0), np.nan_to_num(b, nan=9.0), atol=1e-9, rtol=1e-9)


@pytest.mark.parametrize("name", sorted(KERNELS))
@settings(max_examples=30, deadline=None)
@given(rows=_score_tables(), data=st.data())
def test_item_order_rater_order_and_resampling(name, rows, data):
    """Item order, rater order (two-rater CCC: swapping), multinomial item / rater weights equal
    duplicating, and a batch equals one weight vector at a time."""
    x = np.asarray(rows, dtype=float)
    fn = KERNELS[name]
    n, k = x.shape
    base = fn(x, np.ones((1, n)), np.ones((1, k)))
    perm = np.asarray(data.draw(st.permutations(range(n))))
    assert _same(fn(x[perm], np.ones((1, n)), np.ones((1, k))), base)
    cols = [1, 0] + list(range(2, k)) if name == "lin_ccc" else list(data.draw(st.permutations(range(k))))
    assert _same(fn(x[:, cols], np.ones((1, n)), np.ones((1, k))), base)
    idx = np.asarray(data.draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n)))
    counts = np.bincount(idx, minlength=n).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _same(fn(x, counts[None], np.ones((1, k))), fn(x[idx], np.ones((1, n)), np.ones((1, k))))
        if name != "lin_ccc":
            ridx = np.asarray(data.draw(st.lists(st.integers(0, k - 1), min_size=k, max_size=k)))
            rc = np.bincount(ridx, minlength=k).astype(float)
            assert _same(fn(x, np.ones((1, n)), rc[None]), fn(x[:, ridx], np.ones((1, n)), np.ones((1, k))))
        C = np.stack([counts, np.ones(n), counts[::-1]])
        batch = fn(x, C, np.ones((1, k)))
        assert _same(batch, [fn(x, C[b:b + 1], np.ones((1, k)))[0] for b in range(3)])


@pytest.mark.parametrize("name", ["icc", "kendall_w", "lin_ccc"])
def test_perfect_agreement_gives_one(name):
    x = [[1, 1], [3, 3], [2, 2], [5, 5]]
    assert getattr(sis, name)(x).value == pytest.approx(1.0, abs=1e-12)


def test_bootstrap_intervals_through_the_one_bootstrap():
    x = DATA["pingouin_wine"]
    r = sis.icc(x, form="ICC3k", ci=sis.Bootstrap(n=300, seed=3))
    assert r.ci_method.startswith("bootstrap") and r.ci_low < r.value < r.ci_high
    again = sis.icc(x, form="ICC3k", ci=sis.Bootstrap(n=300, seed=3))
    assert (again.ci_low, again.ci_high) == (r.ci_low, r.ci_high)
    w = sis.kendall_w(x, ci=sis.Bootstrap(n=200, seed=1, design="items"))
    assert w.ci_low <= w.value <= w.ci_high
    with pytest.raises(ValueError, match="two given raters"):
        sis.lin_ccc(np.asarray(x)[:, :2], ci=sis.Bootstrap(n=50, design="raters"))
    # the ANOVA and the rank sums let a rater drawn twice agree with its copy: ICC2 of one rater drawn three
    # times is 1, and on 50 items x 3 raters the raters-design interval was [value, 1.0]
    assert KERNELS["icc:ICC2"](np.asarray(x, dtype=float), None, np.array([[3.0, 0, 0, 0]]))[0] == 1.0
    for fn in (lambda d: sis.icc(x, form="ICC2", ci=sis.Bootstrap(n=50, design=d)),
               lambda d: sis.kendall_w(x, ci=sis.Bootstrap(n=50, design=d))):
        for design in ("raters", "items+raters"):
            with pytest.raises(ValueError, match="rater drawn twice agrees|drawn twice with its own copy"):
                fn(design)
    stat = ScoreStatistic(np.asarray(x, dtype=float), tuple(range(8)), KERNELS["icc:ICC2"])
    assert stat.evaluate()["value"][0] == pytest.approx(sis.icc(x).value, abs=1e-12)


# --- the documented missing-cell rule and bad input ------------------------------------------------
def test_missing_cells_are_dropped_listwise_with_a_warning():
    x = [row[:] for row in DATA["shrout_fleiss"]] + [[3, None, 4, 5]]
    with pytest.warns(sis.DegenerateWarning, match="1 of 7 items have a missing rating"):
        r = sis.icc(x, form="ICC2")
    assert r.value == pytest.approx(sis.icc(DATA["shrout_fleiss"], form="ICC2").value, abs=1e-15)
    assert r.details["n_dropped"] == 1 and r.n_items == 6


def test_bad_input_is_refused_with_one_clear_error():
    with pytest.raises(TypeError, match="icc needs numeric ratings"):
        sis.icc([["a", "b"], ["b", "b"]])
    with pytest.raises(ValueError, match="form must be one of"):
        sis.icc(DATA["shrout_fleiss"], form="ICC4")
    with pytest.raises(ValueError, match="exactly two raters"):
        sis.lin_ccc(DATA["shrout_fleiss"])
    with pytest.raises(ValueError, match="at least two items"):
        sis.icc([[1, 2], [3, None]])
    with pytest.raises(TypeError, match="correct must be True or False"):
        sis.kendall_w(DATA["anxiety"], correct="yes")
    with pytest.raises(ValueError, match=r"Kendall's W has no published analytic interval \(its Friedman"):
        sis.kendall_w(DATA["anxiety"], ci="analytic")  # said "its published interval is ci='analytic'" before
    with pytest.warns(sis.DegenerateWarning, match="undefined"):
        assert math.isnan(sis.icc([[2, 2], [2, 2], [2, 2]]).value)


def test_form_spellings_agree():
    for a, b in (("ICC(A,1)", "ICC2"), ("icc(c,k)", "ICC3k"), ("ICC(1,1)", "ICC1"), ("icc2k", "ICC2k")):
        assert sis.icc(DATA["anxiety"], form=a).value == sis.icc(DATA["anxiety"], form=b).value


@pytest.mark.parametrize("form", ["ICC2", "ICC2k"])
def test_icc_analytic_interval_without_residual_variance_is_nan_with_a_warning(form):
    # raters offset by constants: mse = 0 raised ZeroDivisionError inside the Satterthwaite df
    a = np.arange(6.0)
    with pytest.warns(sis.DegenerateWarning, match="no residual variance"):
        r = sis.icc(np.c_[a, a + 1, a + 2], form=form, ci="analytic")
    assert math.isfinite(r.value) and math.isnan(r.ci_low) and math.isnan(r.ci_high)
    assert sis.icc(np.c_[a, a + 1, a + 2], form="ICC3", ci="analytic").ci_low == 1.0  # defined there: [1, 1]


def test_lin_ccc_of_identical_scores_says_why_its_interval_is_undefined():
    with pytest.warns(sis.DegenerateWarning, match="concordance is perfect"):
        r = sis.lin_ccc(np.c_[np.arange(6.0), np.arange(6.0)], ci="analytic")
    assert r.value == 1.0 and math.isnan(r.ci_low) and any("Fisher-z interval is undefined" in w for w in r.warnings)


def test_icc1_reads_each_item_with_its_own_raters():
    """The one-way model needs no rater identity: 30 items, each scored by 3 of 10 raters, read from a long
    table. It was refused ("at least two items with every rater's score; got 0") though the docs offer it."""
    rng = np.random.default_rng(0)
    rows = [(i, f"r{r}", round(t + rng.normal() * 0.5, 1))
            for i, t in enumerate(rng.normal(size=30)) for r in rng.choice(10, 3, replace=False)]
    df = pd.DataFrame(rows, columns=["item", "rater", "score"])
    ann = sis.Annotations.from_long(df, item="item", rater="rater", label="score")
    g = df.groupby("item")["score"]
    msb = 3 * ((g.mean() - df["score"].mean()) ** 2).sum() / 29  # one-way ANOVA by hand
    msw = ((df["score"] - g.transform("mean")) ** 2).sum() / (30 * 2)
    for form, k in (("ICC1", 1), ("ICC1k", 3)):
        r = sis.icc(ann, form=form, ci="analytic")
        assert r.value == pytest.approx((msb - msw) / (msb + (3 / k - 1) * msw), abs=1e-12)
        assert r.n_items == 30 and r.n_raters == 3 and r.details["n_dropped"] == 0
        assert r.ci_low < r.value < r.ci_high
    with pytest.raises(ValueError, match=r"got 0 \(ICC1 / ICC1k keep each item's own scores"):  # two-way: listwise
        sis.icc(ann, form="ICC2")


def test_rating_slots_are_refused_where_rater_identity_matters():
    """from_counts sorts each item's ratings into slots (slot 1 gets the lowest), a made-up rater effect:
    ICC3 0.739 or 0.556 and W 0.853 or 0.685 by slot order; ICC1 is the same either way."""
    counts = sis.Annotations.from_counts([[0, 2, 1], [1, 1, 1], [0, 0, 3], [2, 1, 0], [3, 0, 0]],
                                         categories=[1, 2, 3])
    wide = [[2, 2, 3], [1, 2, 3], [3, 3, 3], [1, 1, 2], [1, 1, 1]]
    assert sis.icc(counts, form="ICC1").value == pytest.approx(sis.icc(wide, form="ICC1").value, abs=1e-12)
    for fn in (lambda a: sis.icc(a, form="ICC3"), sis.kendall_w, lambda a: sis.icc(a, form="ICC2k")):
        with pytest.raises(ValueError, match="rating slots without rater identity"):
            fn(counts)


@pytest.mark.parametrize(("scores", "why"), [
    ([[1, 1], [2, 1], [3, 1]], "one rater's scores are constant"),
    ([[1, 1.5], [2, 2.1]], "divides by n - 2 and there are 2 items"),
    ([[1, 1], [2, 2], [3, 3]], "the concordance is perfect"),
])
def test_lin_ccc_says_why_its_interval_is_undefined(scores, why):
    """Every case said "the concordance is perfect" (a constant rater has rho_c 0)."""
    with pytest.warns(sis.DegenerateWarning, match=why):
        r = sis.lin_ccc(scores, ci="analytic")
    assert math.isnan(r.ci_low) and math.isnan(r.ci_high)


def _lin_by_hand(x, null):
    """Lin's (1989) rho_c, its SE on Fisher's z scale and the z statistic of H0: rho_c = null, from the scores."""
    a, b = x[:, 0], x[:, 1]
    n = len(a)
    sxx, syy, sxy = a.var(), b.var(), np.mean((a - a.mean()) * (b - b.mean()))  # moments divided by n
    p = 2 * sxy / (sxx + syy + (a.mean() - b.mean()) ** 2)
    r = sxy / math.sqrt(sxx * syy)
    u = (a.mean() - b.mean()) / (sxx * syy) ** 0.25
    se_z = math.sqrt(((1 - r**2) * p**2 / ((1 - p**2) * r**2) + 2 * p**3 * (1 - p) * u**2 / (r * (1 - p**2) ** 2)
                      - p**4 * u**4 / (2 * r**2 * (1 - p**2) ** 2)) / (n - 2))
    return p, se_z, (math.atanh(p) - math.atanh(null)) / se_z


@pytest.mark.parametrize("null", [0.0, 0.3, -0.2, 0.6])
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_lin_ccc_z_test_is_lins_fisher_z_by_hand(null, alternative):
    """H0: rho_c = null on Fisher's z scale with Lin's SE at the estimate (raters 1 and 3 of irr's anxiety data),
    against numpy and scipy from the scores: z and p to 1e-12."""
    x = np.asarray(DATA["anxiety"], dtype=float)[:, [0, 2]]
    p, se_z, z = _lin_by_hand(x, null)
    want = {"two-sided": 2 * stats.norm.sf(abs(z)), "greater": stats.norm.sf(z), "less": stats.norm.cdf(z)}
    for ci in (None, "analytic", sis.Bootstrap(n=50, seed=0)):  # the test uses Lin's SE whatever the interval
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sis.FewUnitsWarning)
            r = sis.lin_ccc(x, ci=ci, null=null, alternative=alternative)
        assert r.value == pytest.approx(p, abs=1e-12) and r.details["se_fisher_z"] == pytest.approx(se_z, abs=1e-12)
        assert r.z == pytest.approx(z, abs=1e-12) and r.p_value == pytest.approx(want[alternative], abs=1e-12)
        assert (r.details["p_value_greater"], r.details["p_value_less"]) == pytest.approx(
            (want["greater"], want["less"]), abs=1e-12)
        assert r.details["null"] == null and r.details["alternative"] == alternative
        assert r.details["test"].startswith(f"Fisher z test of H0: lin_ccc = {null:g}")
    # the same test from a result and another null (uncertainty.analytic_test: the one computation of the tests)
    other = sis.uncertainty.analytic_test(sis.lin_ccc(x, ci="analytic"), null=null, alternative=alternative)
    assert other.z == pytest.approx(z, abs=1e-12) and other.p_value == pytest.approx(want[alternative], abs=1e-12)


def test_lin_ccc_two_sided_test_inverts_its_fisher_z_interval():
    """At a bound of the 90% Fisher-z interval the two-sided p is 0.10; inside the interval above, outside below."""
    x = np.asarray(DATA["anxiety"], dtype=float)[:, [0, 1]]
    r = sis.lin_ccc(x, ci=sis.Analytic(level=0.9))
    for bound in (r.ci_low, r.ci_high):
        assert sis.lin_ccc(x, null=bound).p_value == pytest.approx(0.10, abs=1e-9)
    assert sis.lin_ccc(x, null=r.ci_low - 0.05).p_value < 0.10 < sis.lin_ccc(x, null=r.value).p_value == 1.0


def test_lin_ccc_test_refuses_bad_options_and_says_why_it_has_no_p():
    with pytest.raises(ValueError, match=r"null must be a number in \[-1, 1\); got 1.0"):
        sis.lin_ccc([[1, 2], [2, 3], [3, 3]], null=1.0)
    with pytest.raises(ValueError, match="alternative"):
        sis.lin_ccc([[1, 2], [2, 3], [3, 3]], alternative="bigger")
    r = sis.lin_ccc(np.c_[np.arange(6.0), np.arange(6.0)])  # no test asked for: the reason is kept, not warned
    assert math.isnan(r.z) and math.isnan(r.p_value) and "concordance is perfect" in r.details["no_test"]
    from softirr_stats.api import score_statistic

    with pytest.raises(ValueError, match="icc2's published test is of H0: 0 on one side"):
        score_statistic("icc2", DATA["anxiety"], null=0.3)
