"""`softirr agree --test --alternative greater|less|two-sided` and `--null VALUE` (analytic test only): the same
numbers as kappa_test / permutation_test, the p column named after the alternative, and the refusals."""

import json
import pathlib

import pandas as pd
import pytest
from scipy import stats

import softirr_stats as sis
from softirr_stats.cli import main
from softirr_stats.data import demo_path
from softirr_stats.equivalence import Levenshtein

SCORES = json.loads((pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "peer_scores.json").read_text())
# Fleiss, Cohen & Everitt's two-rater table (statsmodels' cohens_kappa example): the H0-variance path at null = 0
TABLE = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]


def run_main(capsys, *args):
    with pytest.raises(SystemExit) as ex:
        main(list(args))
    out = capsys.readouterr()
    return ex.value.code, out.out, out.err


def _long_csv(path, wide):
    rows = [(f"i{i}", f"r{j}", v) for i, row in enumerate(wide) for j, v in enumerate(row) if v is not None]
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize(("null", "alternative"), [("0.05", "greater"), ("0.1", "less"), (None, "less"),
                                                   (None, "two-sided")])
def test_analytic_rows_equal_kappa_test_and_soft_rows_the_wald_test(capsys, null, alternative):
    coefs = ["fleiss_kappa", "krippendorff_alpha", "gwet_ac1", "brennan_prediger", "conger_kappa"]
    code, out, err = run_main(capsys, "agree", str(demo_path()), "-c", ",".join(coefs), "-m", "exact,levenshtein",
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


def test_two_rater_h0_variance_rows_equal_kappa_test(tmp_path, capsys):
    wide = [[f"c{i}", f"c{j}"] for i, row in enumerate(TABLE) for j, n in enumerate(row) for _ in range(n)]
    path = _long_csv(tmp_path / "two.csv", wide)
    code, out, err = run_main(capsys, "agree", str(path), "-c", "cohen_kappa,scott_pi", "--bootstrap", "0", "--test",
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


def test_permutation_greater_is_the_one_sided_permutation_p(capsys):
    code, out, err = run_main(capsys, "agree", str(demo_path()), "-c", "fleiss_kappa", "-m", "exact,levenshtein",
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
    code, out, err = run_main(capsys, "agree", str(demo_path()), "-c", "fleiss_kappa", "--bootstrap", "0", "--test",
                              "--alternative", "less", "--seed", "3", "-f", "table")
    assert code == 0, err
    assert "p (less)" in out


def test_score_statistics_keep_their_upper_tail_tests(tmp_path, capsys):
    path = _long_csv(tmp_path / "sf.csv", SCORES["data"]["shrout_fleiss"])
    code, out, err = run_main(capsys, "agree", str(path), "-c", "icc2,kendall_w", "--bootstrap", "0", "--test",
                              "--alternative", "greater", "-f", "json")
    assert code == 0, err
    got = {r["coefficient"]: r for r in json.loads(out)["results"]}
    assert got["icc2"]["p_value_greater"] == sis.icc(SCORES["data"]["shrout_fleiss"], form="ICC2").p_value
    assert got["kendall_w"]["p_value_greater"] == sis.kendall_w(SCORES["data"]["shrout_fleiss"]).p_value
    code, out, err = run_main(capsys, "agree", str(path), "-c", "icc2", "--bootstrap", "0", "--test",
                              "--alternative", "less", "-f", "json")
    row = json.loads(out)["results"][0]
    assert code == 0 and "p_value_less" not in row and "no p for --alternative less" in row["warnings"]
    code, out, err = run_main(capsys, "agree", str(path), "-c", "icc2", "--bootstrap", "0", "--test",
                              "--test-method", "analytic", "--null", "0.4", "-f", "json")
    row = json.loads(out)["results"][0]
    assert code == 0 and "p_value" not in row and "no test of --null 0.4" in row["warnings"]


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
def test_refusals_name_the_flag(capsys, args, says):
    code, _, err = run_main(capsys, "agree", str(demo_path()), "--bootstrap", "0", *args)
    assert code == 2 and says in " ".join(err.split())
