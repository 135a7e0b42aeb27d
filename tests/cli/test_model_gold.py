"""``softirr model --model soft --gold SHEET``: the judged sheet of ``softirr judge plan`` as the soft model's gold pairs."""

import hashlib
import json

import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.cli import main
from softirr_stats.data import demo_path


@pytest.fixture(scope="module")
def sheet(tmp_path_factory):
    """A blinded sheet of 30 draws, filled 0/1 (case-insensitive equality), its plan beside it."""
    path = tmp_path_factory.mktemp("gold") / "sheet.csv"
    with pytest.raises(SystemExit) as ex:
        main(["judge", "plan", str(demo_path()), "-m", "indel", "-n", "30", "-o", str(path), "--seed", "3"])
    assert ex.value.code == 0
    blind = pd.read_csv(path)
    blind["judgment"] = [float(a.strip().lower() == b.strip().lower())
                         for a, b in zip(blind["label_1"], blind["label_2"], strict=True)]
    blind.to_csv(path, index=False)
    return path


def test_gold_sheet_is_fitted_as_gold_pairs_like_the_python_api(sheet, run_cli):
    code, out, err = run_cli("model", str(demo_path()), "--model", "soft", "-m", "indel", "--method", "svi",
                             "--steps", "40", "--gold", str(sheet), "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    judged = sis.analysis.read_judging_sheet(sheet)[0]
    n = int(judged["draws"].sum())  # each draw of a pair is one gold pair
    assert doc["meta"]["n_gold"] == n and doc["meta"]["gold"] == str(sheet)
    # traced to its inputs as every JSON output is: the annotations in inputs, the gold sheet beside its path
    from softirr_stats.base._provenance import package_version

    assert doc["meta"]["inputs"] == [{"path": str(demo_path()),
                                      "sha256": hashlib.sha256(demo_path().read_bytes()).hexdigest()}]
    assert doc["meta"]["gold_sha256"] == hashlib.sha256(sheet.read_bytes()).hexdigest()
    assert doc["meta"]["softirr_stats_version"] == package_version()
    assert doc["meta"]["command"].startswith("softirr model ")
    assert f"{n} gold pairs (sheet.csv)" in doc["title"]
    assert f"{n} gold pairs: below" in err  # fewer than MIN_GOLD: said, not silent
    # the same fit through the Python API from the same sheet, read the same way
    from softirr_stats.inference import FitWarning, SviConfig, annotator_agreement

    ann = sis.read_annotations(demo_path())
    with pytest.warns(FitWarning, match=f"{n} gold pairs: below"):
        ref = annotator_agreement(ann, "indel", model="soft", method="svi", config=SviConfig(steps=40),
                                  progress=False, predictive_check=False, gold=judged)
    kappa = next(r for r in doc["results"] if r["quantity"] == "kappa")
    assert kappa["mean"] == pytest.approx(ref.value, abs=1e-12)
    assert ref.details["n_gold"] == n


def test_a_plain_table_of_judged_pairs_is_read_too(tmp_path, capsys):
    ann = sis.read_annotations(demo_path())
    a, b = ann.vocabulary[0], ann.vocabulary[1]
    path = tmp_path / "g.csv"
    pd.DataFrame({"label_a": [a, a], "label_b": [a, b], "judgment": [1, 0], "draws": [2, 1]}).to_csv(path, index=False)
    from softirr_stats.cli.model import read_gold

    df = read_gold(path)
    assert list(df["label_a"]) == [a, a] and list(df["draws"]) == [2, 1]


@pytest.mark.parametrize(("args", "edit", "message"), [
    (["--model", "dawid_skene"], None, "--gold is for --model soft"),
    (["--model", "soft", "-m", "indel"], "half", "column 'judgment' must be 0 (not equivalent) or 1 (equivalent)"),
    (["--model", "soft", "-m", "indel"], "half", "row 2 (line 3 of the file) has 0.5"),  # as the user counts
    (["--model", "soft", "-m", "indel"], "unknown", "not in the annotations' vocabulary: ['no such label']"),
    (["--model", "soft", "-m", "indel"], "missing", "does not exist"),
    (["--model", "soft", "-m", "indel"], "columns", "needs the columns label_a, label_b and judgment"),
])
def test_bad_gold_is_one_line_before_any_fit(sheet, tmp_path, args, edit, message, run_cli):
    path = sheet
    if edit == "half":  # a probability: the prediction-powered estimate reads it, the soft model does not
        path = tmp_path / "half.csv"
        pd.DataFrame({"label_a": ["x", "x"], "label_b": ["y", "y"], "judgment": [1, 0.5]}).to_csv(path, index=False)
    elif edit == "unknown":
        path = tmp_path / "unknown.csv"
        label = sis.read_annotations(demo_path()).vocabulary[0]
        pd.DataFrame({"label_a": [label], "label_b": ["no such label"], "judgment": [0]}).to_csv(path, index=False)
    elif edit == "missing":
        path = tmp_path / "absent.csv"
    elif edit == "columns":
        path = tmp_path / "cols.csv"
        pd.DataFrame({"a": ["x"], "b": ["y"], "judgment": [1]}).to_csv(path, index=False)
    code, out, err = run_cli("model", str(demo_path()), *args, "--method", "svi", "--steps", "5",
                             "--gold", str(path))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("error: --gold") and message in err


def test_a_bad_judgment_in_a_blinded_sheet_is_named_by_its_row_and_line_in_the_sheet(sheet, tmp_path, run_cli):
    """The sheet is joined with its plan (plan order); the error still points at the sheet's own row and line."""
    import shutil

    from softirr_stats.analysis import plan_path_for

    path = tmp_path / "sheet.csv"
    shutil.copy(sheet, path)
    shutil.copy(plan_path_for(sheet), plan_path_for(path))
    blind = pd.read_csv(path)
    row = len(blind) - 2  # 0-based; not the plan's position of the same pair
    blind.loc[row, "judgment"] = 0.5
    blind.to_csv(path, index=False)
    code, out, err = run_cli("model", str(demo_path()), "--model", "soft", "-m", "indel", "--method", "svi",
                             "--steps", "5", "--gold", str(path))
    assert code == 2 and out == "", err
    assert f"row {row + 1} (line {row + 2} of the file) has 0.5" in err
