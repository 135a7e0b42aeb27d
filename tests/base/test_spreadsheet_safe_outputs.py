"""Files written for people are safe to open in a spreadsheet (issue 35, row 4).

Labels and annotator names beginning with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
(and the full-width forms) are formulas to Excel and LibreOffice. Every CSV the package writes
for people (the ``judge plan`` sheet and its plan, ``JudgingPlan.to_csv``, ``--format csv``
output such as ``spans -f csv``) begins such a cell with a single quote (OWASP), and reading
the sheet back maps the escaped labels to the originals.
"""

import csv
import io
import shutil
from pathlib import Path

import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.analysis._sheet import read_judging_sheet
from softirr_stats.base._csvsafe import FORMULA_START, escape_cell, unescape_cell
from softirr_stats.cli import main

HOSTILE = ["=1+1", "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\tx", "\rcarriage", "\uff1dHYPERLINK(1)",
           "'=already quoted", "=HYPERLINK(\"http://x\",\"y\")"]
HARMLESS = ["plain", "-3", "+1.5e3", "", "a=b", "'plain quote"]
BRATIAA = Path(__file__).resolve().parents[1] / "fixtures" / "bratiaa_example"


def dangerous(cell):
    """Would a spreadsheet evaluate this cell?"""
    return isinstance(cell, str) and cell.startswith(FORMULA_START) and escape_cell(cell) != cell


def cells(path_or_text):
    text = Path(path_or_text).read_bytes().decode() if isinstance(path_or_text, Path) else path_or_text
    return [c for row in csv.reader(io.StringIO(text, newline="")) for c in row]


@pytest.mark.parametrize("value", HOSTILE + HARMLESS, ids=repr)
def test_escape_round_trip_table(value):
    out = escape_cell(value)
    assert not dangerous(out)
    assert unescape_cell(out) == value
    assert (out == value) == (value in HARMLESS[:-1])  # only a quote or a formula start is changed


def _annotations(labels):
    rows = []
    for i, lab in enumerate(labels):  # every hostile label met twice, against a plain one and itself
        rows += [(f"d{i}", "ann1", lab), (f"d{i}", "ann2", "plain"), (f"e{i}", "ann1", lab), (f"e{i}", "ann2", lab)]
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def test_judge_plan_sheet_is_escaped_and_reads_back(tmp_path, capsys):
    data = tmp_path / "d.jsonl"  # JSON carries a label with a tab or a carriage return unambiguously
    _annotations(HOSTILE).to_json(data, orient="records", lines=True)
    sheet = tmp_path / "sheet.csv"
    with pytest.raises(SystemExit) as info:
        main(["judge", "plan", str(data), "-m", "indel", "-o", str(sheet), "-n", "200"])
    assert info.value.code == 0, capsys.readouterr().err
    plan = tmp_path / "sheet.plan.csv"
    for f in (sheet, plan):
        bad = [c for c in cells(f) if dangerous(c)]
        assert not bad, f"{f.name}: {bad[:3]}"
    filled = pd.read_csv(sheet, dtype=str, keep_default_na=False)
    filled["judgment"] = "1"
    filled.to_csv(sheet, index=False, quoting=csv.QUOTE_ALL)  # pandas leaves a lone \r unquoted
    judged, meta = read_judging_sheet(sheet)
    written = set(judged["label_a"]) | set(judged["label_b"])
    assert written <= set(HOSTILE) | {"plain"} and written & set(HOSTILE)
    assert meta["measure"] == "indel"


def test_judging_plan_to_csv_is_escaped_and_read_judgments_restores(tmp_path):
    ann = sis.Annotations.from_long(_annotations(HOSTILE), item="item", rater="rater", label="label")
    plan = sis.judging_plan(ann, similarity="indel", n=50, seed=0)
    path = plan.to_csv(tmp_path / "plan.csv")
    assert not [c for c in cells(path) if dangerous(c)]
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    df["judgment"] = "0.5"
    df.to_csv(path, index=False, quoting=csv.QUOTE_ALL)
    back = sis.read_judgments(path)
    assert sorted(map(tuple, back[["label_a", "label_b"]].to_numpy().tolist())) == \
        sorted(map(tuple, plan.pairs[["label_a", "label_b"]].astype(str).to_numpy().tolist()))


def test_a_sheet_saved_without_the_quotes_still_reads_back(tmp_path, capsys):
    """A spreadsheet that hides (and drops) the leading quote on save: the labels still match."""
    data = tmp_path / "d.jsonl"
    _annotations(["=x", "@y"]).to_json(data, orient="records", lines=True)
    sheet = tmp_path / "sheet.csv"
    with pytest.raises(SystemExit) as info:
        main(["judge", "plan", str(data), "-m", "indel", "-o", str(sheet), "-n", "50"])
    assert info.value.code == 0, capsys.readouterr().err
    filled = pd.read_csv(sheet, dtype=str, keep_default_na=False)
    for col in ("label_1", "label_2"):
        filled[col] = [unescape_cell(v) for v in filled[col]]
    filled["judgment"] = "0"
    filled.to_csv(sheet, index=False)
    judged, _ = read_judging_sheet(sheet)
    assert set(judged["label_a"]) | set(judged["label_b"]) <= {"=x", "@y", "plain"}


@pytest.mark.parametrize("name", ["=cmd", "+x", "-y", "@z", "\tt"], ids=repr)
def test_spans_csv_escapes_annotator_names(tmp_path, capsys, name):
    root = tmp_path / "brat"
    shutil.copytree(BRATIAA, root)
    (root / "Lisa").rename(root / name)
    with pytest.raises(SystemExit) as info:
        main(["spans", str(root), "--bootstrap", "0", "-f", "csv"])
    out, err = capsys.readouterr()
    assert info.value.code == 0, err
    got = cells(out)
    assert not [c for c in got if dangerous(c)]
    assert any(c.startswith("'" + name) for c in got)  # the pair names it, escaped


def test_agree_csv_escapes_every_text_cell(tmp_path, capsys):
    data = tmp_path / "d.jsonl"  # JSON carries a label with a tab or a carriage return unambiguously
    _annotations(HOSTILE).to_json(data, orient="records", lines=True)
    with pytest.raises(SystemExit) as info:
        main(["agree", str(data), "--bootstrap", "0", "-f", "csv", "-c", "fleiss_kappa,krippendorff_alpha"])
    out, err = capsys.readouterr()
    assert info.value.code in (0, 1), err
    assert not [c for c in cells(out) if dangerous(c)]
