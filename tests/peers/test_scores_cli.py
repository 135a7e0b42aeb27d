"""ICC, Lin's CCC and Kendall's W through the sensitivity table and ``softirr agree -c``."""

import json
import pathlib

import pandas as pd
import pytest
from typer.testing import CliRunner

import softirr_stats as sis
from softirr_stats.analysis import SCORE_COEFFICIENTS
from softirr_stats.api._score_statistics import SCORE_STATISTICS
from softirr_stats.cli import app

DATA = json.loads((pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "peer_scores.json").read_text())["data"]


def test_the_cli_names_are_the_api_names():
    assert SCORE_COEFFICIENTS == SCORE_STATISTICS


def test_sensitivity_runs_the_score_statistics_with_their_intervals():
    df = sis.sensitivity(DATA["anxiety"], coefficients=["icc2", "icc3k", "kendall_w", "lin_ccc"], ci="analytic")
    rows = df.set_index("coefficient")
    ref = sis.icc(DATA["anxiety"], form="ICC2", ci="analytic")
    assert rows.loc["icc2", "value"] == ref.value and rows.loc["icc2", "ci_low"] == ref.ci_low
    assert rows.loc["icc3k", "value"] == sis.icc(DATA["anxiety"], form="ICC3k").value
    assert "no analytic interval" in rows.loc["kendall_w", "warnings"]
    assert "needs exactly 2 raters" in rows.loc["lin_ccc", "warnings"]
    boot = sis.sensitivity(DATA["anxiety"], coefficients=["kendall_w"], ci=sis.Bootstrap(n=100, seed=0))
    assert boot["ci_method"].iloc[0].startswith("bootstrap") and boot["ci_low"].iloc[0] < boot["value"].iloc[0]


def test_softirr_agree_takes_icc(tmp_path):
    rows = [(f"s{i}", f"r{j}", v) for i, r in enumerate(DATA["shrout_fleiss"]) for j, v in enumerate(r)]
    path = tmp_path / "sf.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    out = CliRunner().invoke(app, ["agree", str(path), "-c", "icc2,icc3k", "--bootstrap", "0", "--format", "csv"])
    assert out.exit_code == 0, out.output
    lines = [ln.split(",") for ln in out.output.strip().splitlines() if ln.startswith("exact,")]
    values = {ln[1]: float(ln[3]) for ln in lines}
    assert values["icc2"] == pytest.approx(sis.icc(DATA["shrout_fleiss"], form="ICC2").value, abs=1e-12)
    assert values["icc3k"] == pytest.approx(sis.icc(DATA["shrout_fleiss"], form="ICC3k").value, abs=1e-12)
    bad = CliRunner().invoke(app, ["agree", str(path), "-c", "icc4"])
    assert bad.exit_code == 2


def test_softirr_agree_test_gives_the_score_statistics_their_own_tests(tmp_path):
    """--test gave icc / kendall_w no p ("tested with exact chance only; got none"); their published tests
    are the F test (Shrout & Fleiss) and Friedman's chi-square, as in result.p_value (upper tail: the p (greater)
    column). No scale note either: no measure applies to them."""
    rows = [(f"s{i}", f"r{j}", v) for i, r in enumerate(DATA["shrout_fleiss"]) for j, v in enumerate(r)]
    path = tmp_path / "sf.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    out = CliRunner().invoke(app, ["agree", str(path), "-c", "icc2,icc3,kendall_w", "--bootstrap", "0", "--test",
                                   "--json", str(tmp_path / "r.json")], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    # one-sided (upper-tail) tests: their p is in p (greater), never in the two-sided p column
    got = {r["coefficient"]: r["p_value_greater"] for r in json.loads((tmp_path / "r.json").read_text())["results"]}
    assert got["icc2"] == sis.icc(DATA["shrout_fleiss"], form="ICC2").p_value
    assert got["kendall_w"] == sis.kendall_w(DATA["shrout_fleiss"]).p_value
    flat = " ".join(out.output.split())
    assert "icc2, icc3: F test of H0: ICC = 0" in flat and "kendall_w: Friedman chi-square test" in flat
    assert "exact chance only" not in flat and "labels are numbers" not in flat
