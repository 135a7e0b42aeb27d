"""`softirr agree --test --alternative greater|less|two-sided` and `--null VALUE` (analytic test only): the same
numbers as kappa_test / permutation_test, the p column named after the alternative, and the refusals."""

import io
import json
import pathlib

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import softirr_stats as sis
from softirr_stats.cli._options import TEST_NOTE
from softirr_stats.data import demo_path
from softirr_stats.equivalence import Levenshtein

SCORES = json.loads((pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "peer_scores.json").read_text())
# Fleiss, Cohen & Everitt's two-rater table (statsmodels' cohens_kappa example): the H0-variance path at null = 0
TABLE = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]


def _long_csv(path, wide):
    rows = [(f"i{i}", f"r{j}", v) for i, row in enumerate(wide) for j, v in enumerate(row) if v is not None]
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(("null", "alternative"), [("0.05", "greater"), ("0.1", "less"), (None, "less"),
                                                   (None, "two-sided")])
def test_analytic_rows_equal_kappa_test_and_soft_rows_the_wald_test(null, alternative, run_cli):
    coefs = ["fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "brennan_prediger", "conger_kappa"]
    code, out, err = run_cli("agree", str(demo_path()), "-c", ",".join(coefs), "-m", "exact,levenshtein",
                             "--bootstrap", "0", "--test", "--test-method", "analytic", "--alternative", alternative,
                             *(["--null", null] if null else []), "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    key = {"two-sided": "p_value", "greater": "p_value_greater", "less": "p_value_less"}[alternative]
    h0 = float(null or 0.0)
    ann = sis.read_annotations(demo_path())
    rows = {(r["coefficient"], r["similarity"]): r for r in got["results"]}
    for coef in coefs:
        row = rows[(coef, "exact")]
        py = sis.kappa_test(ann, coefficient=coef, null=h0, alternative=alternative)
        assert row["z"] == pytest.approx(py.z, abs=1e-12) and row[key] == pytest.approx(py.p_value, abs=1e-12)
        assert {"p_value", "p_value_greater", "p_value_less"} & set(row) == {key}
        soft = rows[(coef, "levenshtein")]
        est = getattr(sis, coef)(ann, similarity=Levenshtein(), ci="analytic")
        if null:  # independently: Wald z with the large-sample SE against the normal
            z = (est.value - h0) / est.se
            p = stats.norm.sf(z) if alternative == "greater" else stats.norm.cdf(z)
        else:  # the analytic interval's own test of H0: 0, one side of its two-sided p
            z = est.z
            p = est.p_value if alternative == "two-sided" else (
                est.p_value / 2 if z < 0 else 1 - est.p_value / 2)
        assert soft["z"] == pytest.approx(z, abs=1e-12) and soft[key] == pytest.approx(p, abs=1e-12)
    assert got["meta"]["test"] == "analytic" and got["meta"]["alternative"] == alternative
    assert got["meta"]["null"] == h0
    header = {"two-sided": "p", "greater": "p (greater)", "less": "p (less)"}[alternative]
    note = next(n for n in got["meta"]["warnings"] if n.startswith(f"{header}: analytic test of H0"))
    assert f"coefficient = {h0:g} (" in note
    assert ("two-sided" in note) == (alternative == "two-sided")


def test_two_rater_h0_variance_rows_equal_kappa_test(tmp_path, run_cli):
    wide = [[f"c{i}", f"c{j}"] for i, row in enumerate(TABLE) for j, n in enumerate(row) for _ in range(n)]
    path = _long_csv(tmp_path / "two.csv", wide)
    code, out, err = run_cli("agree", str(path), "-c", "cohen_kappa,scott_pi", "--bootstrap", "0", "--test",
                             "--test-method", "analytic", "--alternative", "greater", "-f", "json")
    assert code == 0, err
    ann = sis.read_annotations(path)
    assert sis.cohen_kappa(ann).value == pytest.approx(sis.cohen_kappa(sis.Annotations.from_table(TABLE)).value,
                                                       abs=1e-15)
    for row in json.loads(out)["results"]:
        py = sis.kappa_test(ann, coefficient=row["coefficient"], alternative="greater")
        assert "H0 variance" in py.details["test"]  # the published variance under H0, not value / se
        assert row["z"] == pytest.approx(py.z, abs=1e-12)
        assert row["p_value_greater"] == pytest.approx(py.p_value, abs=1e-12)


def test_permutation_greater_is_the_one_sided_permutation_p(run_cli):
    code, out, err = run_cli("agree", str(demo_path()), "-c", "fleiss_kappa", "-m", "exact,levenshtein",
                             "--bootstrap", "0", "--test", "--alternative", "greater", "--seed", "3", "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    ann = sis.read_annotations(demo_path())
    for row in got["results"]:
        sim = Levenshtein() if row["similarity"] == "levenshtein" else None
        py = sis.permutation_test("fleiss_kappa", ann, n=1999, seed=3, similarity=sim, alternative="greater")
        two = sis.permutation_test("fleiss_kappa", ann, n=1999, seed=3, similarity=sim)
        assert row["p_value_greater"] == pytest.approx(py.p_value, abs=1e-12)
        assert row["p_value_greater"] == pytest.approx(two.details["p_value_greater"], abs=1e-12)
        assert row["z"] == pytest.approx(two.z, abs=1e-12) and "p_value" not in row
    assert got["meta"]["alternative"] == "greater" and got["meta"]["null"] is None
    assert any(n.startswith("p (greater): permutation test of H0: no agreement beyond chance") and
               "one-sided, H1: more agreement than chance" in n for n in got["meta"]["warnings"])
    code, out, err = run_cli("agree", str(demo_path()), "-c", "fleiss_kappa", "--bootstrap", "0", "--test",
                             "--alternative", "less", "--seed", "3", "-f", "table")
    assert code == 0, err
    assert "p (less)" in out


def test_score_statistics_keep_their_upper_tail_tests(tmp_path, run_cli):
    path = _long_csv(tmp_path / "sf.csv", SCORES["data"]["shrout_fleiss"])
    code, out, err = run_cli("agree", str(path), "-c", "icc2,kendall_w", "--bootstrap", "0", "--test",
                             "--alternative", "greater", "-f", "json")
    assert code == 0, err
    got = {r["coefficient"]: r for r in json.loads(out)["results"]}
    assert got["icc2"]["p_value_greater"] == sis.icc(SCORES["data"]["shrout_fleiss"], form="ICC2").p_value
    assert got["kendall_w"]["p_value_greater"] == sis.kendall_w(SCORES["data"]["shrout_fleiss"]).p_value
    code, out, err = run_cli("agree", str(path), "-c", "icc2", "--bootstrap", "0", "--test",
                             "--alternative", "less", "-f", "json")
    row = json.loads(out)["results"][0]
    assert code == 0 and "p_value_less" not in row and "no p for --alternative less" in "; ".join(row["warnings"])
    code, out, err = run_cli("agree", str(path), "-c", "icc2", "--bootstrap", "0", "--test",
                             "--test-method", "analytic", "--null", "0.4", "-f", "json")
    row = json.loads(out)["results"][0]
    assert code == 0 and "p_value" not in row and "no test of --null 0.4" in "; ".join(row["warnings"])


@pytest.mark.parametrize(("args", "says"), [
    (["--null", "0.3"], "--null sets the test that --test adds; add --test"),
    (["--alternative", "greater"], "--alternative sets the test that --test adds"),
    (["--test-method", "analytic"], "--test-method sets the test that --test adds"),
    (["--test", "--null", "0.3"], "--null 0.3 applies to --test-method analytic only: the permutation test's H0 is "
                                  "no agreement beyond chance"),
    (["--test", "--test-method", "permutation", "--null", "0"], "not a value of the coefficient"),
    (["--test", "--test-method", "analytic", "--null", "1.5"], "--null must be a number in [-1, 1)"),
    (["--test", "--test-method", "analytic", "--null", "-2"], "got -2.0"),
    (["--test", "--alternative", "bigger"], "unknown --alternative 'bigger'"),
])
def test_refusals_name_the_flag(args, says, run_cli):
    code, _, err = run_cli("agree", str(demo_path()), "--bootstrap", "0", *args)
    assert code == 2 and says in " ".join(err.split())


def _anova_f_p(x, one_way):
    """The Shrout-Fleiss F test of H0: ICC = 0 from the sums of squares (upper tail), written out."""
    x = np.asarray(x, dtype=float)
    n, k = x.shape
    grand = x.mean()
    ssr = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ssc = n * ((x.mean(axis=0) - grand) ** 2).sum()
    sst = ((x - grand) ** 2).sum()
    if one_way:
        f, df2 = (ssr / (n - 1)) / ((sst - ssr) / (n * (k - 1))), n * (k - 1)
    else:
        f, df2 = (ssr / (n - 1)) / ((sst - ssr - ssc) / ((n - 1) * (k - 1))), (n - 1) * (k - 1)
    return stats.f.sf(f, n - 1, df2)


@pytest.mark.parametrize("fmt", ["json", "csv"])
def test_score_statistics_one_sided_p_is_never_in_the_two_sided_column(tmp_path, fmt, run_cli):
    """ICC's F test and Kendall's chi-square are upper-tail tests: under the default --alternative two-sided their p
    went into the two-sided ``p`` column (``p_value``). It goes into ``p (greater)`` (``p_value_greater``), the side
    the Python API records (details["alternative"]), with a note; the label coefficients keep ``p``."""
    sf = SCORES["data"]["shrout_fleiss"]
    path = _long_csv(tmp_path / "sf.csv", sf)
    code, out, err = run_cli("agree", str(path), "-c", "icc1,icc2,icc3,kendall_w,fleiss_kappa", "--bootstrap",
                             "0", "--test", "--test-method", "analytic", "-f", fmt, "--keep-going")
    assert code == 0, err
    if fmt == "json":
        got = json.loads(out)
        rows, notes = {r["coefficient"]: r for r in got["results"]}, got["meta"]["warnings"]
        assert got["meta"]["alternative"] == "two-sided"
    else:  # the notes go to stderr
        rows = {r["coefficient"]: r for r in pd.read_csv(io.StringIO(out)).to_dict("records")}
        notes = err.splitlines()
    independent = {"icc1": _anova_f_p(sf, one_way=True), "icc2": _anova_f_p(sf, one_way=False),
                   "icc3": _anova_f_p(sf, one_way=False),
                   "kendall_w": stats.friedmanchisquare(*np.asarray(sf, dtype=float)).pvalue}
    for name, p in independent.items():
        py = sis.kendall_w(sf) if name == "kendall_w" else sis.icc(sf, form=name)
        assert py.details["alternative"] == "greater"
        assert py.p_value == pytest.approx(p, abs=1e-12)
        assert rows[name]["p_value_greater"] == pytest.approx(py.p_value, abs=1e-12)
        assert rows[name].get("p_value") is None or np.isnan(rows[name]["p_value"])
    kappa = sis.kappa_test(sf, coefficient="fleiss_kappa")
    assert rows["fleiss_kappa"]["p_value"] == pytest.approx(kappa.p_value, abs=1e-12)
    assert rows["fleiss_kappa"].get("p_value_greater") is None or np.isnan(rows["fleiss_kappa"]["p_value_greater"])
    flat = " ".join(" ".join(notes).split())
    assert "p (greater): icc1, icc2, icc3: F test of H0: ICC = 0" in flat
    assert "one-sided, H1: coefficient > 0 (the upper tail" in flat and "not a two-sided p" in flat
    assert "p: analytic test of H0: coefficient = 0 (two-sided)" in flat


def test_score_statistics_table_shows_the_p_greater_column(tmp_path, run_cli):
    path = _long_csv(tmp_path / "sf.csv", SCORES["data"]["shrout_fleiss"])
    code, out, err = run_cli("agree", str(path), "-c", "icc2,kendall_w", "--bootstrap", "0", "--test")
    assert code == 0, err
    head = [cell.strip() for cell in next(ln for ln in out.splitlines() if "coefficient" in ln).split("┃")]
    assert "p (greater)" in head and "p" not in head
    p = f"{sis.icc(SCORES['data']['shrout_fleiss'], form='ICC2').p_value:.4f}"
    assert p in next(ln for ln in out.splitlines() if "icc2" in ln)
    flat = " ".join(out.split())
    assert "p (greater): icc2: F test of H0: ICC = 0" in flat and "[1] p: " not in flat


# three raters, three categories, items 0 and 5 each miss a rating (28 complete items)
CATEGORICAL = [["c1", "c1", None], ["c1", "c1", "c0"], ["c2", "c0", "c0"], ["c2", "c2", "c2"], ["c2", "c0", "c0"],
               ["c0", None, "c1"], ["c2", "c2", "c2"], ["c2", "c2", "c0"], ["c0", "c1", "c0"], ["c0", "c0", "c0"],
               ["c2", "c2", "c0"], ["c1", "c1", "c2"], ["c2", "c0", "c0"], ["c2", "c2", "c1"], ["c0", "c0", "c0"],
               ["c2", "c2", "c1"], ["c0", "c1", "c1"], ["c1", "c1", "c2"], ["c2", "c0", "c0"], ["c2", "c0", "c0"],
               ["c1", "c2", "c2"], ["c2", "c2", "c2"], ["c2", "c2", "c2"], ["c1", "c1", "c1"], ["c0", "c2", "c2"],
               ["c0", "c1", "c0"], ["c1", "c1", "c0"], ["c2", "c2", "c2"], ["c0", "c0", "c0"], ["c0", "c0", "c0"]]


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_light_kappa_analytic_row_is_kappa_test(tmp_path, alternative, run_cli):
    """--test-method analytic gave light_kappa a "no analytic variance" note while kappa_test(coefficient=
    "light_kappa") makes R irr's z test on the complete items: the row now has that z and p, and a note that they
    are of the 28 complete items' value; a soft row says why it has none."""
    path = _long_csv(tmp_path / "cat.csv", CATEGORICAL)
    code, out, err = run_cli("agree", str(path), "-c", "light_kappa", "-m", "exact,levenshtein",
                             "--bootstrap", "0", "--test", "--test-method", "analytic", "--alternative", alternative,
                             "-f", "json")
    assert code == 0, err
    rows = {r["similarity"]: r for r in json.loads(out)["results"]}
    ann = sis.read_annotations(path)
    py = sis.kappa_test(ann, coefficient="light_kappa", alternative=alternative)
    key = {"two-sided": "p_value", "greater": "p_value_greater", "less": "p_value_less"}[alternative]
    assert np.isfinite(py.z) and py.n_items == 28
    assert rows["exact"]["z"] == pytest.approx(py.z, abs=1e-12)
    assert rows["exact"][key] == pytest.approx(py.p_value, abs=1e-12)
    assert rows["exact"][key] == pytest.approx({"two-sided": 2 * stats.norm.sf(abs(py.z)), "greater":
                                                stats.norm.sf(py.z), "less": stats.norm.cdf(py.z)}[alternative],
                                               abs=1e-12)
    assert rows["exact"]["value"] == pytest.approx(sis.light_kappa(ann).value, abs=1e-15) != py.value
    assert f"on the 28 items it uses (light_kappa {py.value:.4f} there)" in "; ".join(rows["exact"]["warnings"])
    assert "z" not in rows["levenshtein"] and "--test-method permutation tests any coefficient" in \
        "; ".join(rows["levenshtein"]["warnings"])


def test_light_kappa_null_and_undefined_variance_have_notes(tmp_path, run_cli):
    path = _long_csv(tmp_path / "cat.csv", CATEGORICAL)
    code, out, err = run_cli("agree", str(path), "-c", "light_kappa", "--bootstrap", "0", "--test",
                             "--test-method", "analytic", "--null", "0.3", "-f", "json")
    row = json.loads(out)["results"][0]
    assert code == 0 and "z" not in row and "R irr's test of H0: kappa = 0; got --null 0.3" in "; ".join(row["warnings"])
    code, out, err = run_cli("agree", str(demo_path()), "-c", "light_kappa", "--bootstrap", "0", "--test",
                             "--test-method", "analytic", "-f", "json")
    row = json.loads(out)["results"][0]
    assert np.isnan(sis.kappa_test(sis.read_annotations(demo_path()), coefficient="light_kappa").z)
    assert code == 0 and "the test gives no p here: irr's variance for Light's kappa is negative" in "; ".join(row["warnings"])


@pytest.mark.parametrize(("method", "null", "alternative"), [("analytic", "0.3", "two-sided"),
                                                             ("analytic", "0.5", "greater"),
                                                             ("analytic", None, "less"),
                                                             ("permutation", None, "greater")])
def test_percent_agreement_is_tested(tmp_path, method, null, alternative, run_cli):
    """percent_agreement was refused by every test ("tested with exact chance only; got none": it has no chance
    term), --null included, though kappa_test(coefficient="percent_agreement", null=) tests it."""
    path = _long_csv(tmp_path / "cat.csv", CATEGORICAL)
    code, out, err = run_cli("agree", str(path), "-c", "percent_agreement", "-m", "exact,levenshtein",
                             "--bootstrap", "0", "--test", "--test-method", method, "--alternative", alternative,
                             *(["--null", null] if null else []), "--seed", "2", "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    key = {"two-sided": "p_value", "greater": "p_value_greater", "less": "p_value_less"}[alternative]
    ann = sis.read_annotations(path)
    h0 = float(null or 0.0)
    for row in got["results"]:
        sim = Levenshtein() if row["similarity"] == "levenshtein" else None
        assert "--test" not in "; ".join(row["warnings"])
        if method == "permutation":
            py = sis.permutation_test("percent_agreement", ann, n=1999, seed=2, similarity=sim, alternative=alternative)
            assert row["z"] == pytest.approx(py.z, abs=1e-12) and row[key] == pytest.approx(py.p_value, abs=1e-12)
            continue
        if sim is None:
            py = sis.kappa_test(ann, coefficient="percent_agreement", null=h0, alternative=alternative)
            assert row["z"] == pytest.approx(py.z, abs=1e-12) and row[key] == pytest.approx(py.p_value, abs=1e-12)
        est = sis.percent_agreement(ann, similarity=sim, ci="analytic")
        if null:  # independently: the Wald z with the large-sample SE against the normal
            z = (est.value - h0) / est.se
            p = {"two-sided": 2 * stats.norm.sf(abs(z)), "greater": stats.norm.sf(z)}[alternative]
            assert row["z"] == pytest.approx(z, abs=1e-12) and row[key] == pytest.approx(p, abs=1e-12)
        else:  # irrCAC's t test of H0: 0, one side of its two-sided p
            assert row["z"] == pytest.approx(est.z, abs=1e-12)
            assert row[key] == pytest.approx(1 - est.p_value / 2 if est.z > 0 else est.p_value / 2, abs=1e-12)
    assert got["meta"]["null"] == h0 if method == "analytic" else got["meta"]["null"] is None


ML_SETS = [(["a", "b"], ["a"], ["a", "b"]), (["b"], ["b"], ["b", "c"]), (["a"], [], ["a"]), (["c"], ["c"], ["b"]),
           (["a", "c"], ["a"], ["a", "c"])] * 3
ALL = ("percent_agreement,cohen_kappa,scott_pi,fleiss_kappa,conger_kappa,light_kappa,krippendorff_alpha,gwet_ac1,"
       "brennan_prediger,multilabel_fleiss,multilabel_ac1,multilabel_pabak,distance_ks,distance_sigma,icc1,icc2,icc3,"
       "icc1k,icc2k,icc3k,lin_ccc,kendall_w,krippendorff_alpha:ordinal,krippendorff_alpha:interval")


@pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning", "ignore::softirr_stats.FewUnitsWarning")
@pytest.mark.parametrize("data", ["scores", "two_scores", "categorical", "multilabel"])
def test_every_row_under_null_has_a_p_or_a_note(tmp_path, data, run_cli):
    """Under --test --test-method analytic --null 0.3 no row with a value may go without a p and without a note
    saying why (two raters with no agreement and no chance agreement gave cohen_kappa a silent empty p: its SE is
    0); rows no test applies to say so (distance_ks read "tested with exact chance only")."""
    if data == "multilabel":
        path = tmp_path / "ml.jsonl"
        path.write_text("\n".join(json.dumps({"item": f"d{i}", "rater": r, "label": lab})
                                  for i, labs in enumerate(ML_SETS) for r, lab in zip("pqr", labs, strict=True)))
        measures = "exact,jaccard"
    else:
        wide = {"scores": SCORES["data"]["shrout_fleiss"], "categorical": CATEGORICAL,
                "two_scores": [r[:2] for r in SCORES["data"]["shrout_fleiss"]]}[data]
        path, measures = _long_csv(tmp_path / "d.csv", wide), "exact,linear"
    code, out, err = run_cli("agree", str(path), "-c", ALL, "-m", measures, "--bootstrap", "0", "--test",
                             "--test-method", "analytic", "--null", "0.3", "--keep-going", "-f", "json")
    assert code == 0, err
    tested = 0
    for row in json.loads(out)["results"]:
        if row.get("error") or row.get("value") is None or np.isnan(row["value"]):
            continue
        p = row.get("p_value")
        if p is not None and np.isfinite(p):
            tested += 1
            continue
        assert TEST_NOTE in "; ".join(row["warnings"]), (row["coefficient"], row["similarity"], "; ".join(row["warnings"]))
        if row["coefficient"].startswith(("distance_", "multilabel_")):
            assert f"no H0 test for {row['coefficient']}" in "; ".join(row["warnings"])
    assert tested


def _lin_z(x, null):
    """Lin's (1989) z statistic of H0: rho_c = null on Fisher's z scale, from the two columns of scores."""
    a, b = np.asarray(x, dtype=float).T
    sxx, syy, sxy = a.var(), b.var(), np.mean((a - a.mean()) * (b - b.mean()))
    p = 2 * sxy / (sxx + syy + (a.mean() - b.mean()) ** 2)
    r, u = sxy / np.sqrt(sxx * syy), (a.mean() - b.mean()) / (sxx * syy) ** 0.25
    var_z = ((1 - r**2) * p**2 / ((1 - p**2) * r**2) + 2 * p**3 * (1 - p) * u**2 / (r * (1 - p**2) ** 2)
             - p**4 * u**4 / (2 * r**2 * (1 - p**2) ** 2)) / (len(a) - 2)
    return (np.arctanh(p) - np.arctanh(null)) / np.sqrt(var_z)


@pytest.mark.parametrize(("method", "null", "alternative"), [
    ("permutation", None, "two-sided"), ("analytic", None, "greater"), ("analytic", "0.3", "two-sided"),
    ("analytic", "0.3", "less"), ("analytic", "-0.2", "greater")])
def test_lin_ccc_row_has_its_fisher_z_test_at_the_null_and_side(tmp_path, method, null, alternative, run_cli):
    """lin_ccc had an SE and no test ("lin_ccc has no published test of H0"); its row now has Lin's z test on
    Fisher's z scale of H0: rho_c = --null on the --alternative's side, in that side's p column, and a note naming
    it, equal to sis.lin_ccc and to the z computed from the scores (p to 1e-12)."""
    two = [r[:2] for r in SCORES["data"]["anxiety"]]
    path = _long_csv(tmp_path / "two.csv", two)
    code, out, err = run_cli("agree", str(path), "-c", "lin_ccc", "--bootstrap", "0", "--test",
                             "--test-method", method, "--alternative", alternative,
                             *(["--null", null] if null else []), "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    (row,) = got["results"]
    key = {"two-sided": "p_value", "greater": "p_value_greater", "less": "p_value_less"}[alternative]
    h0 = float(null or 0.0)
    z = _lin_z(two, h0)
    p = {"two-sided": 2 * stats.norm.sf(abs(z)), "greater": stats.norm.sf(z), "less": stats.norm.cdf(z)}[alternative]
    assert row["z"] == pytest.approx(z, abs=1e-12) and row[key] == pytest.approx(p, abs=1e-12)
    py = sis.lin_ccc(two, null=h0, alternative=alternative)
    assert row[key] == pytest.approx(py.p_value, abs=1e-12)
    assert {"p_value", "p_value_greater", "p_value_less"} & set(row) == {key}
    assert TEST_NOTE not in "; ".join(row["warnings"])
    side = {"two-sided": "two-sided", "greater": f"one-sided, H1: coefficient > {h0:g}",
            "less": f"one-sided, H1: coefficient < {h0:g}"}[alternative]
    header = {"p_value": "p", "p_value_greater": "p (greater)", "p_value_less": "p (less)"}[key]
    assert (f"{header}: lin_ccc: Fisher z test of H0: lin_ccc = {h0:g}: (atanh(value) - atanh({h0:g})) / SE of "
            f"atanh(value) at the estimate (Lin 1989), normal; {side}") in got["meta"]["warnings"], got["meta"]


def test_lin_ccc_row_without_a_p_says_why(tmp_path, run_cli):
    path = _long_csv(tmp_path / "same.csv", [[v, v] for v in (1, 2, 3, 4, 5, 6)])
    code, out, err = run_cli("agree", str(path), "-c", "lin_ccc", "--bootstrap", "0", "--test",
                             "--test-method", "analytic", "-f", "json")
    assert code == 0, err
    (row,) = json.loads(out)["results"]
    p = row.get("p_value")
    assert row["value"] == 1.0 and (p is None or np.isnan(p))
    assert any(w.startswith(TEST_NOTE) and "gives no p here" in w and "concordance is perfect" in w
               for w in row["warnings"]), row["warnings"]


def test_each_row_records_its_own_test_and_a_degenerate_permutation_z_is_null(run_cli, tmp_path):
    # meta.test said "permutation" for every row though lin_ccc's p is Lin's Fisher z test; Fleiss' kappa on
    # continuous scores (every permuted value the same) reported z = -9.997
    rng = np.random.default_rng(0)
    x = rng.normal(3, 1, 60)
    path = _long_csv(tmp_path / "scores.csv", np.column_stack([x, x + rng.normal(0, 0.4, 60)]).tolist())
    code, out, err = run_cli("agree", path, "-c", "lin_ccc", "-c", "fleiss_kappa", "--test", "--bootstrap", "0",
                             "-f", "json")
    assert code == 0, err
    rows = {r["coefficient"]: r for r in json.loads(out)["results"]}
    ann = sis.read_annotations(path)
    ccc = sis.lin_ccc(ann)
    assert rows["lin_ccc"]["test"] == ccc.details["test"] and rows["lin_ccc"]["test"].startswith("Fisher z test")
    assert abs(rows["lin_ccc"]["z"] - ccc.z) < 1e-12 and abs(rows["lin_ccc"]["p_value"] - ccc.p_value) < 1e-12
    kappa = rows["fleiss_kappa"]
    assert kappa["test"].startswith("permutation") and kappa["z"] is None and kappa["p_value"] == 1.0
    assert any("permutation test degenerate" in w for w in kappa["warnings"])
    code, out, err = run_cli("agree", path, "-c", "lin_ccc", "-c", "fleiss_kappa", "--test", "--bootstrap", "0",
                             "-f", "csv")
    assert code == 0 and "test" in pd.read_csv(io.StringIO(out)).columns


def test_null_of_minus_one_with_lin_ccc_is_a_one_line_error(run_cli, tmp_path):
    x = np.random.default_rng(1).normal(size=30)
    path = _long_csv(tmp_path / "s.csv", np.column_stack([x, x + 0.3]).tolist())
    code, out, err = run_cli("agree", path, "-c", "lin_ccc", "--test", "--test-method", "analytic", "--null", "-1",
                             "--bootstrap", "0")
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: --null -1")
    assert "lin_ccc" in err
    code, out, err = run_cli("agree", path, "-c", "fleiss_kappa", "--test", "--test-method", "analytic", "--null",
                             "-1", "--bootstrap", "0", "-f", "json")  # a Wald test at -1 is defined
    assert code == 0, err
