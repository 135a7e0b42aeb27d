"""The judging plan names its similarity column ``similarity`` (as every other output does); plans written
before, with a ``measure`` column, are still read, in Python and by ``softirr agree --judgments``."""

import pandas as pd
import pytest
from typer.testing import CliRunner

import softirr_stats as sis
from softirr_stats.analysis import plan_path_for, read_judging_sheet, write_judging_sheet
from softirr_stats.cli import app

ROWS = [["fever", "pyrexia"], ["cough", "cough"], ["rash", "fever"], ["cough", "tussis"], ["fever", "fever"],
        ["rash", "rash"]]


def _sheet(tmp_path, **kwargs):
    plan = sis.judging_plan(ROWS, similarity="indel", n=20, seed=0)
    sheet, kept = write_judging_sheet(plan, tmp_path / "s.csv", **kwargs)
    df = pd.read_csv(sheet, dtype=str, keep_default_na=False)
    df["judgment"] = ["1" if a == b else "0" for a, b in zip(df["label_1"], df["label_2"], strict=True)]
    df.to_csv(sheet, index=False)
    return sheet, kept


def test_the_plan_writes_a_similarity_column(tmp_path):
    sheet, kept = _sheet(tmp_path, similarity="indel")
    columns = list(pd.read_csv(kept).columns)
    assert "similarity" in columns and "measure" not in columns
    judged, meta = read_judging_sheet(sheet)
    assert meta == {"coefficient": "fleiss_kappa", "similarity": "indel", "measure": "indel"}
    assert len(judged) == len(pd.read_csv(kept))


def test_a_plan_with_the_former_measure_column_is_read(tmp_path):
    sheet, kept = _sheet(tmp_path, measure="indel")  # the former keyword still works
    old = pd.read_csv(kept, dtype=str, keep_default_na=False).rename(columns={"similarity": "measure"})
    old.to_csv(kept, index=False)
    judged, meta = read_judging_sheet(sheet)
    assert meta["similarity"] == meta["measure"] == "indel"
    # the command line takes its similarity from the old plan too (no -m given)
    data = tmp_path / "d.csv"
    pd.DataFrame([(i, r, lab) for i, row in enumerate(ROWS) for r, lab in zip("ab", row, strict=True)],
                 columns=["item", "rater", "label"]).to_csv(data, index=False)
    res = CliRunner().invoke(app, ["agree", str(data), "--judgments", str(sheet), "--bootstrap", "0", "-f", "csv"])
    assert res.exit_code == 0, res.output
    assert "indel" in res.stdout
    res = CliRunner().invoke(app, ["agree", str(data), "--judgments", str(sheet), "-m", "levenshtein",
                                   "--bootstrap", "0"])
    assert res.exit_code == 2 and "drawn for --similarity indel" in " ".join(res.output.split())
    assert plan_path_for(sheet) == kept


def test_similarity_and_measure_are_one_keyword(tmp_path):
    plan = sis.judging_plan(ROWS, similarity="indel", n=20, seed=0)
    with pytest.raises(TypeError, match="similarity="):
        write_judging_sheet(plan, tmp_path / "s.csv")
    with pytest.raises(TypeError, match="both"):
        write_judging_sheet(plan, tmp_path / "s.csv", similarity="indel", measure="indel")
