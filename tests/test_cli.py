"""The softirr command line: demo and agree."""

import json

from typer.testing import CliRunner

from softirr_stats.cli import app

runner = CliRunner()


def test_help_lists_commands():
    out = runner.invoke(app, ["--help"])
    assert out.exit_code == 0
    assert "agree" in out.output and "demo" in out.output


def test_demo_prints_soft_coefficients_with_intervals(tmp_path):
    path = tmp_path / "demo.json"
    out = runner.invoke(app, ["demo", "--bootstrap", "200", "--no-embedding", "--json", str(path)])
    assert out.exit_code == 0, out.output
    assert "krippendorff_alpha" in out.output and "levenshtein" in out.output
    rows = json.loads(path.read_text())["results"]
    by = {(r["measure"], r["coefficient"]): r for r in rows}
    exact, soft = by[("exact", "krippendorff_alpha")], by[("indel", "krippendorff_alpha")]
    assert soft["value"] > exact["value"]  # synonyms earn credit under a soft measure
    assert soft["ci_low"] <= soft["value"] <= soft["ci_high"]


def test_agree_on_a_csv(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("doc,who,text\n1,a,heart attack\n1,b,heart attack\n2,a,fever\n2,b,pyrexia\n"
                 "3,a,cough\n3,b,cough\n4,a,rash\n4,b,rash\n")
    out_json = tmp_path / "o.json"
    res = runner.invoke(app, ["agree", str(f), "--item", "doc", "--rater", "who", "--label", "text",
                              "-c", "cohen_kappa,krippendorff_alpha", "-m", "exact,levenshtein",
                              "--bootstrap", "100", "--json", str(out_json)])
    assert res.exit_code == 0, res.output
    rows = json.loads(out_json.read_text())["results"]
    assert len(rows) == 4 and all("value" in r for r in rows)


def test_agree_reports_bad_columns(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("doc,who,text\n1,a,x\n1,b,y\n")
    res = runner.invoke(app, ["agree", str(f)])
    assert res.exit_code == 2
    assert "the columns are" in res.output


def test_agree_rejects_unknown_coefficient(tmp_path):
    f = tmp_path / "a.csv"
    f.write_text("item,rater,label\n1,a,x\n1,b,y\n")
    res = runner.invoke(app, ["agree", str(f), "-c", "kappa_of_doom"])
    assert res.exit_code != 0
