"""The peers' rows for categorical ratings, each case against a named peer output.

- ``Annotations.from_table`` / ``from_counts``: irrCAC's ``.table`` and ``.dist`` functions
  (R irrCAC's vignette on ``cont3x3abstractors`` and README on ``distrib.6raters``; irrCAC's own
  table tests in ``tests/fixtures/peer_irrcac.json``);
- per-category kappa: R ``irr::kappam.fleiss(diagnoses, detail = TRUE)`` (pyirr port, and the 3
  digits irr prints) and statsmodels ``fleiss_kappa`` on the table collapsed to "j or not";
- all-agree share: R ``irr::agree`` (pyirr port); Light's z: R ``irr::kappam.light`` (pyirr port
  and irr's printed ``z = NaN`` on ``diagnoses[, 1:3]``);
- kappa0: statsmodels ``cohens_kappa`` (its large-sample SE and H0 test);
- marginal homogeneity: statsmodels ``SquareTable.homogeneity`` and ``mcnemar``, R
  ``irr::bhapkar`` (pyirr port).
"""

import json
import math
import pathlib
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from statsmodels.stats.contingency_tables import SquareTable, mcnemar
from statsmodels.stats.inter_rater import cohens_kappa, fleiss_kappa

import softirr_stats as sis

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"
SCORES = json.loads((FIXTURES / "peer_scores.json").read_text())
IRRCAC = json.loads((FIXTURES / "peer_irrcac.json").read_text())
DATA, CASES = SCORES["data"], SCORES["cases"]

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")

ABSTRACTORS = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
DISTRIB_6RATERS = [[0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
                   [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
                   [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1]]
FLEISS_EXAMPLE = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
                  [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]


# --- from_table: R irrCAC vignette, cont3x3abstractors (value, se: 7 significant digits) ------------
VIGNETTE = {"cohen_kappa": (0.7964094, 0.05891072), "scott_pi": (0.7962397, 0.05905473),
            "gwet_ac1": (0.8493305, 0.04321747), "brennan_prediger": (0.835, 0.04693346),
            "krippendorff_alpha": (0.7972585, 0.05905473), "percent_agreement": (0.89, 0.03128898)}


@pytest.mark.parametrize("name", sorted(VIGNETTE))
def test_from_table_equals_irrcac_table_functions(name):
    """R irrCAC vignette: kappa2.table / scott2.table / gwet.ac1.table / bp2.table / krippen2.table /
    pa2.table (cont3x3abstractors)."""
    value, se = VIGNETTE[name]
    r = getattr(sis, name)(sis.Annotations.from_table(ABSTRACTORS), ci="analytic")
    assert r.value == pytest.approx(value, abs=5e-8) and r.se == pytest.approx(se, abs=5e-9)


TABLE_CASES = [c for c in IRRCAC["cases"] if c["kind"] == "table" and c["weights"] == "identity"]
TABLE_NAMES = {"bp": "brennan_prediger", "cohen": "cohen_kappa", "gwet": "gwet_ac1", "krippendorff": "krippendorff_alpha",
               "pa2": "percent_agreement", "scott": "scott_pi"}


@pytest.mark.parametrize("case", TABLE_CASES, ids=[c["source"].split("::")[-1] for c in TABLE_CASES])
def test_from_table_equals_irrcac_table_tests(case):
    """irrCAC 0.4.4's own table tests (tests/fixtures/peer_irrcac.json), through Annotations.from_table."""
    ann = sis.Annotations.from_table(IRRCAC["datasets"][case["data"]])
    r = getattr(sis, TABLE_NAMES[case["method"]])(ann, ci="analytic")
    exp = case["expect"]["coefficient_value"]
    digits = 3 if exp["round"] is None else exp["round"]
    assert round(r.value, digits) == pytest.approx(exp["value"], abs=10.0**-digits * 0.5 + 1e-12)


# --- from_counts: R irrCAC README, distrib.6raters (.dist functions) ---------------------------------
DIST = {  # coeff, stderr, conf.int, p.value, pa, pe (as printed)
    "gwet_ac1": (0.4448007, 0.08418757, (0.264, 0.625), 0.0001155927, 0.5511111, 0.1914815),
    "fleiss_kappa": (0.4139265, 0.08119291, (0.24, 0.588), 0.0001622724, 0.5511111, 0.2340741),
    "brennan_prediger": (0.4388889, 0.08312142, (0.261, 0.617), 0.0001163, 0.5511111, 0.2),
}


@pytest.mark.parametrize("name", sorted(DIST))
def test_from_counts_equals_irrcac_dist_functions(name):
    """R irrCAC README: gwet.ac1.dist / fleiss.kappa.dist / bp.coeff.dist (distrib.6raters)."""
    coeff, se, (lo, hi), p, pa, pe = DIST[name]
    r = getattr(sis, name)(sis.Annotations.from_counts(DISTRIB_6RATERS), ci="analytic")
    assert r.value == pytest.approx(coeff, abs=5e-8) and r.se == pytest.approx(se, abs=5e-9)
    assert (round(r.ci_low, 3), round(r.ci_high, 3)) == (lo, hi)
    p_irrcac = r.details.get("p_value_irrcac", r.p_value)  # Fleiss: ours uses the published H0 variance
    assert p_irrcac == pytest.approx(p, rel=5e-7)
    assert r.observed == pytest.approx(pa, abs=5e-8) and r.expected == pytest.approx(pe, abs=5e-8)


def test_from_counts_krippendorff_value_equals_irrcac_dist():
    """krippen.alpha.dist(distrib.6raters): alpha 0.4204384 (irrCAC's .dist SE uses another variance,
    docs/peer_rows.md)."""
    r = sis.krippendorff_alpha(sis.Annotations.from_counts(DISTRIB_6RATERS))
    assert r.value == pytest.approx(0.4204384, abs=5e-8)


def test_from_counts_equals_the_expanded_table_and_refuses_rater_identity():
    ann = sis.Annotations.from_counts(FLEISS_EXAMPLE)
    rows = [[k for k, c in enumerate(r) for _ in range(c)] for r in FLEISS_EXAMPLE]
    assert sis.fleiss_kappa(ann).value == pytest.approx(sis.fleiss_kappa(rows).value, abs=1e-15)
    assert ann.exchangeable_raters and not sis.Annotations.from_wide(rows).exchangeable_raters
    two = sis.Annotations.from_counts([[2, 0], [1, 1], [0, 2]])
    for name in ("cohen_kappa", "conger_kappa", "light_kappa"):
        with pytest.raises(ValueError, match="rating slots without rater identity"):
            getattr(sis, name)(two)
    assert sis.scott_pi(two).value == pytest.approx(sis.fleiss_kappa(two).value, abs=1e-15)


# --- per-category kappa: R irr::kappam.fleiss(diagnoses, detail=TRUE) --------------------------------
@pytest.mark.parametrize("j", range(5))
def test_category_kappa_equals_irr_kappam_fleiss_detail(j):
    """irr kappam.fleiss(diagnoses, detail=TRUE) (pyirr port); irr prints 0.245, 0.245, 0.520, 0.471,
    0.566 with z 5.192, 5.192, 11.031, 9.994, 12.009."""
    ref = CASES["irr.kappam_fleiss.detail"]
    printed = [(0.245, 5.192), (0.245, 5.192), (0.520, 11.031), (0.471, 9.994), (0.566, 12.009)]
    rows = sis.category_kappa(DATA["diagnoses"])
    assert rows["category"].tolist() == [1, 2, 3, 4, 5]
    assert round(rows["kappa"][j], 3) == ref["kappa"][j] == printed[j][0]
    assert round(rows["z"][j], 3) == ref["z"][j] == printed[j][1]
    assert round(rows["p_value"][j], 3) == ref["p"][j]


@pytest.mark.parametrize("j", range(5))
def test_category_kappa_equals_statsmodels_fleiss_on_the_collapsed_table(j):
    """statsmodels fleiss_kappa(method='fleiss') of the counts collapsed to 'category j or not'."""
    counts = np.asarray(FLEISS_EXAMPLE)
    collapsed = np.stack([counts[:, j], counts.sum(axis=1) - counts[:, j]], axis=1)
    rows = sis.category_kappa(sis.Annotations.from_counts(counts))
    assert rows["kappa"][j] == pytest.approx(fleiss_kappa(collapsed, method="fleiss"), abs=1e-12)


def test_category_kappa_refuses_unequal_rating_numbers():
    counts = [[2, 1], [3, 0], [1, 1], [0, 3]]
    with pytest.raises(ValueError, match=r"same number of ratings on every item .* items \[2\] have \[2\]"):
        sis.category_kappa(sis.Annotations.from_counts(counts))
    with pytest.raises(ValueError, match="same number of ratings"):
        sis.category_kappa([["a", "a"], ["a", None], ["b", "b"]])


def test_category_kappa_warns_where_a_category_has_no_kappa():
    """NaN rows were silent (only the docstring said so)."""
    counts = sis.Annotations.from_counts([[3, 0, 0], [0, 3, 0], [1, 2, 0]], categories=["a", "b", "c"])
    with pytest.warns(sis.DegenerateWarning, match=r"NaN for \['c'\] used by no rater"):
        rows = sis.category_kappa(counts)
    assert rows["kappa"].isna().tolist() == [False, False, True]
    with pytest.warns(sis.DegenerateWarning, match=r"\['a'\] used for every rating"):
        sis.category_kappa([["a", "a"], ["a", "a"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sis.category_kappa(DATA["diagnoses"])  # every category used: no warning


# --- all-agree share: R irr::agree(anxiety, tolerance) ------------------------------------------------
@pytest.mark.parametrize("tol", [0, 1, 2])
def test_all_agree_equals_irr_agree(tol):
    """irr agree(anxiety, tolerance) (pyirr port): 0%, 35%, 70%."""
    r = sis.all_agree(DATA["anxiety"], tolerance=tol)
    assert r.details["percent"] == pytest.approx(CASES["irr.agree"][f"anxiety:tolerance={tol}"], abs=1e-12)
    assert r.value == pytest.approx(r.details["percent"] / 100.0, abs=1e-15)


def test_all_agree_text_labels_and_missing():
    r = sis.all_agree([["a", "a"], ["a", "b"], ["b", None], ["c", "c"]])
    assert r.value == pytest.approx(2 / 3) and r.details["n_dropped"] == 1
    with pytest.raises(ValueError, match="tolerance applies to numeric scores"):
        sis.all_agree([["a", "a"], ["a", "b"]], tolerance=1)
    with pytest.raises(ValueError, match="tolerance must be a non-negative number"):
        sis.all_agree(DATA["anxiety"], tolerance=-1)


# --- Light's kappa z: R irr::kappam.light ------------------------------------------------------------
@pytest.mark.parametrize("key", sorted(CASES["irr.kappam_light"]))
def test_light_kappa_z_equals_irr(key):
    """irr kappam.light (pyirr port); on diagnoses[, 1:3] irr prints Kappa = 0.555, z = NaN."""
    ref = CASES["irr.kappam_light"][key]
    name, cols = key.split("[")[0], key[key.index("[") :] if "[" in key else ""
    x = np.asarray(DATA[name])
    if cols == "[,1:3]":
        x = x[:, :3]
    elif cols == "[,1:2]":
        x = x[:, :2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = sis.kappa_test(x.tolist(), coefficient="light_kappa")
    assert r.value == pytest.approx(ref["kappa"], abs=1e-12)
    if ref["z"] is None:
        assert math.isnan(r.z) and any("negative" in w for w in r.warnings)
    else:
        assert r.z == pytest.approx(ref["z"], rel=1e-9)
    if key == "diagnoses[,1:3]":
        assert round(r.value, 3) == 0.555


# --- kappa0: statsmodels cohens_kappa ------------------------------------------------------------------
@pytest.mark.parametrize("table", [ABSTRACTORS, [[10, 4, 1], [2, 12, 6], [3, 1, 9]], [[20, 5], [10, 15]]])
@pytest.mark.parametrize("null", [0.0, 0.3, 0.6])
def test_kappa_test_equals_statsmodels(table, null):
    """statsmodels cohens_kappa: z = (kappa - kappa0) / std_kappa (its large-sample SE); at kappa0 = 0
    its z_value and p-values (H0 variance, Fleiss, Cohen & Everitt 1969)."""
    ck = cohens_kappa(np.asarray(table))
    ann = sis.Annotations.from_table(table)
    two = sis.kappa_test(ann, null=null)
    greater = sis.kappa_test(ann, null=null, alternative="greater")
    if null == 0.0:
        assert two.z == pytest.approx(ck.z_value, rel=1e-9)
        assert two.p_value == pytest.approx(ck.pvalue_two_sided, rel=1e-8)
        assert greater.p_value == pytest.approx(ck.pvalue_one_sided, rel=1e-8)
    else:
        assert two.se == pytest.approx(ck.std_kappa, rel=1e-12)
        assert two.z == pytest.approx((ck.kappa - null) / ck.std_kappa, rel=1e-12)
        from scipy import stats

        assert greater.p_value == pytest.approx(stats.norm.sf(two.z), rel=1e-12)
    assert two.details["null"] == null and greater.details["alternative"] == "greater"


def test_kappa_test_refuses_what_it_cannot_test():
    with pytest.raises(ValueError, match="null must be a number"):
        sis.kappa_test(ABSTRACTORS_ROWS, null=1.5)
    with pytest.raises(ValueError, match="alternative must be one of"):
        sis.kappa_test(ABSTRACTORS_ROWS, alternative="bigger")
    with pytest.raises(ValueError, match="test of H0: kappa = 0"):
        sis.kappa_test([[1, 1, 2], [2, 2, 2], [1, 2, 1]], coefficient="light_kappa", null=0.4)


ABSTRACTORS_ROWS = [[i, j] for i, row in enumerate(ABSTRACTORS) for j, c in enumerate(row) for _ in range(c)]


# --- marginal homogeneity: statsmodels, R irr::bhapkar --------------------------------------------------
SQUARE = [[[10, 4, 1], [2, 12, 6], [3, 1, 9]], [[20, 3, 2, 1], [5, 15, 4, 0], [1, 2, 18, 6], [0, 3, 1, 9]]]


@pytest.mark.parametrize("test", ["stuart_maxwell", "bhapkar"])
@pytest.mark.parametrize("t", range(len(SQUARE)))
def test_marginal_homogeneity_equals_statsmodels(test, t):
    """statsmodels SquareTable(table, shift_zeros=False).homogeneity(method)."""
    table = np.asarray(SQUARE[t])
    ref = SquareTable(table, shift_zeros=False).homogeneity(method=test)
    r = sis.marginal_homogeneity(sis.Annotations.from_table(table), test=test)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.df == ref.df and r.p_value == pytest.approx(ref.pvalue, rel=1e-9)


@pytest.mark.parametrize("correction", [False, True])
@pytest.mark.parametrize("table", [[[20, 5], [10, 15]], [[59, 6], [16, 80]]])
def test_mcnemar_equals_statsmodels(table, correction):
    """statsmodels mcnemar(table, exact=False, correction=...)."""
    ref = mcnemar(np.asarray(table), exact=False, correction=correction)
    r = sis.marginal_homogeneity(sis.Annotations.from_table(table), test="mcnemar", correction=correction)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12) and r.p_value == pytest.approx(ref.pvalue, rel=1e-9)


@pytest.mark.parametrize("key", sorted(CASES["irr.bhapkar"]))
def test_bhapkar_equals_irr(key):
    """R irr::bhapkar (pyirr port) on two raters' columns of anxiety / diagnoses."""
    name = key.split("[")[0]
    cols = (0, 1) if key.endswith("[,1:2]") else (2, 3)
    x = np.asarray(DATA[name])[:, cols]
    r = sis.marginal_homogeneity(x.tolist(), test="bhapkar")
    ref = CASES["irr.bhapkar"][key]
    assert r.statistic == pytest.approx(ref["chi2"], rel=1e-9) and r.p_value == pytest.approx(ref["p"], rel=1e-9)


def test_bhapkar_is_stuart_maxwell_rescaled():
    """Bhapkar = Q_SM / (1 - Q_SM / n) (Bhapkar 1966; Agresti 2002, 10.3)."""
    for table in SQUARE:
        ann = sis.Annotations.from_table(table)
        sm = sis.marginal_homogeneity(ann).statistic
        n = float(np.sum(table))
        assert sis.marginal_homogeneity(ann, test="bhapkar").statistic == pytest.approx(sm / (1 - sm / n), rel=1e-12)


def test_a_category_never_confused_with_the_others_gives_the_generalised_inverse_on_fewer_df():
    """Category 3 is used only where both raters agree: S is singular (the block {0, 1, 2} has marginal
    differences summing to 0). Bhapkar was nan; statsmodels' solve happens to return the generalised-inverse
    statistic (on K - 1 df), its Stuart-Maxwell gives nan."""
    table = np.array([[6, 0, 1, 0], [3, 4, 0, 0], [0, 1, 1, 0], [0, 0, 0, 2]])
    ann = sis.Annotations.from_table(table)
    sm = sis.marginal_homogeneity(ann)
    bh = sis.marginal_homogeneity(ann, test="bhapkar")
    block = table[:3, :3]  # the same test on the confusable block alone: a nonsingular 3 x 3 problem
    assert sm.statistic == pytest.approx(SquareTable(block, shift_zeros=False).homogeneity().statistic, rel=1e-10)
    assert sm.df == bh.df == 2 and sm.statistic == pytest.approx(8 / 7, rel=1e-12)
    assert bh.statistic == pytest.approx(SquareTable(table, shift_zeros=False).homogeneity("bhapkar").statistic,
                                         rel=1e-9)
    assert bh.p_value == pytest.approx(stats.chi2.sf(bh.statistic, 2), rel=1e-12)
    assert "generalised inverse on 2 df instead of 3" in bh.warnings[0]
    none = sis.marginal_homogeneity(sis.Annotations.from_table([[3, 0], [0, 4]]), test="stuart_maxwell")
    assert math.isnan(none.statistic) and "no off-diagonal" in none.warnings[0]


# --- one clear error per bad table / count matrix --------------------------------------------------------
@pytest.mark.parametrize(("bad", "exc", "match"), [
    ([[1, 2, 3], [4, 5, 6]], ValueError, "table must be square"),
    ([[1, -2], [0, 1]], ValueError, "non-negative counts; got -2 at row 0, column 1"),
    ([[1, 0.5], [0, 1]], ValueError, "whole counts"),
    ([[0, 0], [0, 0]], ValueError, "no ratings"),
    ([1, 2, 3], ValueError, "must be 2-D"),
    ([["a", "b"], ["c", "d"]], TypeError, "must hold"),
])
def test_from_table_refuses_bad_tables(bad, exc, match):
    with pytest.raises(exc, match=match):
        sis.Annotations.from_table(bad)


def test_from_counts_refuses_bad_counts_and_names_categories():
    with pytest.raises(ValueError, match=r"counts must hold non-negative counts; got -1 at row 1, column 0"):
        sis.Annotations.from_counts([[1, 1], [-1, 3]])
    with pytest.raises(ValueError, match="at least one item two ratings"):
        sis.Annotations.from_counts([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="categories must name the 2"):
        sis.Annotations.from_counts([[1, 1]], categories=["a", "b", "c"])
    with pytest.raises(ValueError, match="categories must name the 3"):
        sis.Annotations.from_table(ABSTRACTORS, categories=["x", "y"])
    ann = sis.Annotations.from_table(ABSTRACTORS, categories=["Ectopic", "AIU", "NIU"])
    assert ann.vocabulary == ("Ectopic", "AIU", "NIU") and ann.categories == ann.vocabulary


def test_marginal_homogeneity_refuses_what_it_cannot_test():
    with pytest.raises(ValueError, match="two categories"):
        sis.marginal_homogeneity(sis.Annotations.from_table(ABSTRACTORS), test="mcnemar")
    with pytest.raises(ValueError, match="exactly two raters"):
        sis.marginal_homogeneity(DATA["anxiety"])
    with pytest.raises(ValueError, match="rating slots without rater identity"):
        sis.marginal_homogeneity(sis.Annotations.from_counts([[2, 0], [1, 1]]))
    with pytest.raises(ValueError, match="test must be one of"):
        sis.marginal_homogeneity(sis.Annotations.from_table([[1, 2], [3, 4]]), test="bowker")
    with pytest.raises(ValueError, match="correction applies to test='mcnemar' only"):
        sis.marginal_homogeneity(sis.Annotations.from_table([[1, 2], [3, 4]]), correction=True)


# --- properties ------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4).flatmap(lambda k: st.lists(st.lists(st.integers(0, 6), min_size=k, max_size=k),
                                                     min_size=k, max_size=k)))
def test_from_table_round_trips_and_equals_the_expanded_rows(table):
    t = np.asarray(table)
    if t.sum() == 0:
        return
    ann = sis.Annotations.from_table(t)
    k = t.shape[0]
    back = np.bincount(ann.codes[:, 0] * k + ann.codes[:, 1], minlength=k * k).reshape(k, k)
    assert (back == t).all() and ann.n_items == t.sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = [[int(i), int(j)] for i, j in zip(*np.nonzero(t), strict=True) for _ in range(t[i, j])]
        a = sis.scott_pi(ann).value
        b = sis.scott_pi(sis.Annotations.from_wide(rows, categories=list(range(k)))).value
    assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5).flatmap(lambda m: st.lists(  # m ratings in 4 categories: 3 sorted cut points in [0, m]
    st.lists(st.integers(0, m), min_size=3, max_size=3).map(sorted).map(
        lambda c, m=m: [c[0], c[1] - c[0], c[2] - c[1], m - c[2]]), min_size=3, max_size=12)))
def test_category_kappa_is_fleiss_of_the_collapsed_counts(counts):
    c = np.asarray(counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = sis.category_kappa(sis.Annotations.from_counts(c))
        for j in range(c.shape[1]):
            collapsed = np.stack([c[:, j], c.sum(axis=1) - c[:, j]], axis=1)
            ref = fleiss_kappa(collapsed, method="fleiss")
            got = rows["kappa"][j]
            assert (math.isnan(got) and not np.isfinite(ref)) or got == pytest.approx(ref, abs=1e-10)
