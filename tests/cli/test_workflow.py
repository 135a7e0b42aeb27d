"""The whole workflow through the real entry point: reader options, judge plan -> sheet -> agree --judgments."""

import hashlib
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.data import demo_path


def _two_control_export(path):
    """A Label Studio export with a `choices` and a `textarea` control (almost every real project)."""
    labels = {1: ("pos", "pos", "neg"), 2: ("neg", "neg", "neg"), 3: ("pos", "neu", "pos"), 4: ("neu", "neu", "neu"),
              5: ("pos", "pos", "pos"), 6: ("neg", "pos", "neg")}
    tasks = []
    for tid, labs in labels.items():
        anns = []
        for uid, lab in enumerate(labs, 1):
            anns.append({"id": tid * 10 + uid, "completed_by": uid, "result": [
                {"from_name": "sentiment", "to_name": "text", "type": "choices", "value": {"choices": [lab]}},
                {"from_name": "comment", "to_name": "text", "type": "textarea",
                 "value": {"text": [f"looks {lab}"]}}]})
        tasks.append({"id": tid, "data": {"text": f"task {tid}"}, "annotations": anns})
    path.write_text(json.dumps(tasks))
    return path, labels


def test_two_control_label_studio_export_reads_with_field(tmp_path, run_cli):
    path, labels = _two_control_export(tmp_path / "ls.json")
    code, out, err = run_cli("agree", str(path), "--field", "sentiment", "-c", "fleiss_kappa",
                             "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    value = json.loads(out)["results"][0]["value"]
    expected = sis.fleiss_kappa([list(v) for v in labels.values()]).value
    assert value == pytest.approx(expected, abs=1e-12)
    # the free-text control through the same flag, with a soft measure
    code, out, err = run_cli("agree", str(path), "--field", "comment", "-m", "indel", "-c", "fleiss_kappa",
                             "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["meta"]["n_items"] == len(labels)
    # without --field: one line naming the CLI flag, not the keyword
    code, out, err = run_cli("agree", str(path), "--bootstrap", "0")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--field" in err and "field=" not in err


def test_reader_option_key_value_is_passed_as_a_keyword(tmp_path, run_cli):
    path, _ = _two_control_export(tmp_path / "ls.json")
    code, out, err = run_cli("agree", str(path), "--field", "sentiment", "--reader-option", "duplicates=first",
                             "--bootstrap", "0", "-f", "csv")
    assert code == 0, err
    assert out.startswith("similarity,coefficient")
    # an option with a flag of its own is given by the flag (the reader option won over it, silently)
    code, out, err = run_cli("agree", str(path), "--reader-option", "field=sentiment", "--bootstrap", "0")
    assert code == 2 and "use --field instead" in err, err
    code, _, err = run_cli("agree", str(path), "--reader-option", "no_such_option=1", "--bootstrap", "0")
    assert code == 2 and err.startswith("error: cannot read") and err.count("\n") == 1


@pytest.mark.parametrize(("args", "said"), [
    (["--reader-option", "sep=;", "--reader-option", "sep=,"],
     "--reader-option 'sep=;' and --reader-option sep=, both set sep: give it once"),
    (["--reader-option", "na-filter=true", "--reader-option", "na_filter=false"],
     "--reader-option na-filter=true and --reader-option na_filter=false both set na_filter: give it once"),
    (["--field", "sentiment", "--reader-option", "field=comment"],
     "--reader-option field=... sets what --field sets: use --field instead (got --field 'sentiment' too)"),
])
def test_a_reader_option_set_twice_is_refused_naming_both(tmp_path, run_cli, args, said):
    """--reader-option 'sep=;' --reader-option 'sep=,' read the file with ',' without a word (the last one won)."""
    path = tmp_path / "semi.csv"
    path.write_text("doc;annotator;finding\nn1;a;x\nn1;b;x\nn2;a;y\nn2;b;z\n")
    for cmd in ("agree", "describe"):
        code, out, err = run_cli(cmd, str(path), *args)
        assert code == 2 and out == "" and err.count("\n") == 1, err
        assert said in err, err


def test_a_reader_option_given_twice_alike_is_one(tmp_path, run_cli):
    path = tmp_path / "semi.csv"
    path.write_text("item;rater;label\nn1;a;x\nn1;b;x\nn2;a;y\nn2;b;z\n")
    code, out, err = run_cli("agree", str(path), "--reader-option", "sep=;", "--reader-option", "sep=;",
                             "--bootstrap", "0", "-f", "csv")
    assert code == 0, err


def test_reader_options_are_listed_in_help(run_cli):
    for cmd in ("agree", "sensitivity", "score", "model", "report"):
        code, out, _ = run_cli(cmd, "--help")
        text = " ".join(out.split())
        assert code == 0
        for flag in ("--input-format", "--field", "--layer", "--feature", "--span-rule", "--reader-option"):
            assert flag in text, (cmd, flag)
    code, out, _ = run_cli("judge", "plan", "--help")
    assert code == 0 and "--field" in out


def test_judge_plan_sheet_and_agree_with_judgments_equal_the_python_api(tmp_path, run_cli):
    sheet = tmp_path / "sheet.csv"
    code, out, err = run_cli("judge", "plan", str(demo_path()), "-m", "indel", "-n", "80", "-o", str(sheet),
                             "--seed", "3")
    assert code == 0, err
    kept = tmp_path / "sheet.plan.csv"
    assert sheet.exists() and kept.exists()
    blind = pd.read_csv(sheet)
    assert list(blind.columns) == ["pair_id", "label_1", "label_2", "judgment"]  # no score, no q: blinded
    assert blind["judgment"].isna().all()
    plan = pd.read_csv(kept, keep_default_na=False)
    assert {"score", "q", "label_a", "label_b"} <= set(plan.columns)
    # the judge fills the sheet (a deterministic stand-in for a human: case-insensitive equality)
    blind["judgment"] = [float(a.strip().lower() == b.strip().lower()) for a, b in zip(blind["label_1"],
                                                                                         blind["label_2"], strict=True)]
    blind.to_csv(sheet, index=False)
    code, out, err = run_cli("agree", str(demo_path()), "-m", "indel", "--judgments", str(sheet),
                             "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    sheet_sha = hashlib.sha256(sheet.read_bytes()).hexdigest()
    demo_input = [{"path": str(demo_path()), "sha256": hashlib.sha256(demo_path().read_bytes()).hexdigest()}]
    meta = json.loads(out)["meta"]  # the sheet beside its path, not among the annotation inputs
    assert (meta["judgments"], meta["judgments_sha256"], meta["inputs"]) == (str(sheet), sheet_sha, demo_input)
    # the same estimate through the Python API, from the same plan with the same judgments
    ann = sis.read_annotations(demo_path())
    drawn = sis.judging_plan(ann, similarity="indel", n=80, coefficient="krippendorff_alpha", seed=3)
    pairs = drawn.pairs.copy()
    judged = {frozenset((a, b)): j for a, b, j in zip(blind["label_1"], blind["label_2"], blind["judgment"],
                                                      strict=True)}
    pairs["judgment"] = [judged[frozenset((a, b))] for a, b in zip(pairs["label_a"], pairs["label_b"], strict=True)]
    ref = sis.krippendorff_alpha(ann, similarity="indel", judgments=sis.read_judgments(pairs))
    assert row["value"] == pytest.approx(ref.value, abs=1e-12)
    assert row["judge_only"] == pytest.approx(ref.details["ppi"]["judge_only"], abs=1e-12)
    assert row["estimator_only"] == pytest.approx(sis.krippendorff_alpha(ann, similarity="indel").value, abs=1e-12)
    assert row["value"] != pytest.approx(row["estimator_only"])  # the judgments changed the estimate
    # --test beside judgments tested the estimator-only value in the prediction-powered row (z 15.1, p 2.7e-26)
    code, out, err = run_cli("agree", str(demo_path()), "-m", "indel", "--judgments", str(sheet),
                             "--bootstrap", "0", "--test", "--test-method", "analytic", "-f", "json")
    tested = json.loads(out)["results"][0]
    assert code == 0 and tested.get("p_value") is None and tested.get("z") is None
    assert "no test of the prediction-powered krippendorff_alpha" in "; ".join(tested["warnings"])  # a list in JSON
    # sensitivity takes the same sheet
    code, out, err = run_cli("sensitivity", str(demo_path()), "--judgments", str(sheet), "--bootstrap", "0",
                             "-f", "json")
    assert code == 0, err
    srow = json.loads(out)["results"][0]
    assert srow["coefficient"] == "krippendorff_alpha" and srow["value"] == pytest.approx(ref.value, abs=1e-12)
    meta = json.loads(out)["meta"]
    assert (meta["judgments"], meta["judgments_sha256"], meta["inputs"]) == (str(sheet), sheet_sha, demo_input)
    # and plan, which plans the judged pairs from the same sheet, records it the same way
    code, out, err = run_cli("plan", str(demo_path()), "-c", "krippendorff_alpha", "-m", "indel",
                             "--judgments", str(sheet), "--halfwidth", "0.1", "-f", "json")
    assert code == 0, err
    meta = json.loads(out)["meta"]
    assert (meta["judgments"], meta["judgments_sha256"], meta["inputs"]) == (str(sheet), sheet_sha, demo_input)
    assert meta["command"].startswith("softirr plan ")
    judged_plan = sis.plan_items("krippendorff_alpha", halfwidth=0.1, pilot=ann, similarity="indel",
                                 judgments=sis.read_judgments(pairs))
    row = json.loads(out)["results"][0]
    assert row["n_judged"] == judged_plan.n and row["value"] == pytest.approx(judged_plan.to_frame()["value"][0], abs=1e-12)
    # and the report reads the same blinded sheet (joined with its plan) for its calibration section
    page = tmp_path / "r.html"
    code, _, err = run_cli("report", str(demo_path()), "-o", str(page), "-m", "indel", "-c",
                           "krippendorff_alpha", "--bootstrap", "0", "--judgments", str(sheet))
    assert code == 0, err
    assert 'id="calibration"' in page.read_text()


def test_unfilled_or_mismatched_sheet_is_one_line(tmp_path, run_cli):
    sheet = tmp_path / "s.csv"
    assert run_cli("judge", "plan", str(demo_path()), "-m", "indel", "-n", "20", "-o", str(sheet))[0] == 0
    code, out, err = run_cli("agree", str(demo_path()), "-m", "indel", "--judgments", str(sheet),
                             "--bootstrap", "0")
    assert code == 2 and out == "" and err.count("\n") == 1 and "fill every judgment" in err
    filled = pd.read_csv(sheet)
    filled["judgment"] = 0.5
    filled.to_csv(sheet, index=False)
    code, _, err = run_cli("agree", str(demo_path()), "-m", "levenshtein", "--judgments", str(sheet),
                           "--bootstrap", "0")
    assert code == 2 and "drawn for --similarity indel" in err
    (tmp_path / "s.plan.csv").unlink()
    code, _, err = run_cli("agree", str(demo_path()), "-m", "indel", "--judgments", str(sheet))
    assert code == 2 and "its plan" in err and "is missing" in err


def test_unblinded_sheet_is_the_plan(tmp_path, run_cli):
    sheet = tmp_path / "open.csv"
    code, _, err = run_cli("judge", "plan", str(demo_path()), "-m", "indel", "-n", "20", "-o", str(sheet),
                           "--unblinded")
    assert code == 0, err
    df = pd.read_csv(sheet)
    assert {"score", "q", "judgment"} <= set(df.columns) and not (tmp_path / "open.plan.csv").exists()


def test_version_and_exit_codes_in_help(run_cli):
    code, out, _ = run_cli("--version")
    assert code == 0 and out.strip() == f"softirr {sis.__version__}"
    code, out, _ = run_cli("--help")
    text = " ".join(out.split())
    assert "1 = a requested result cannot be computed" in text and "2 = a bad option or unreadable input" in text


def test_several_files_are_passed_as_a_list(tmp_path, run_cli, monkeypatch):
    """Per-annotator exports: several FILEs reach read_annotations as one list (the reader merges them)."""
    from softirr_stats import data

    seen = {}
    real = data.read_annotations

    def fake(path, **kw):
        seen["path"] = path
        return real(demo_path(), **kw)

    monkeypatch.setattr(data, "read_annotations", fake)  # the runner reads through softirr_stats.data
    a, b = tmp_path / "alice.json", tmp_path / "bob.json"
    a.write_text("[]")
    b.write_text("[]")
    code, _, err = run_cli("agree", str(a), str(b), "--bootstrap", "0", "-f", "csv")
    assert code == 0, err
    assert [p.name for p in seen["path"]] == ["alice.json", "bob.json"]


def test_markdown_is_the_paper_table_with_numbered_notes(run_cli):
    code, out, err = run_cli("agree", str(demo_path()), "-c", "fleiss_kappa,cohen_kappa", "--bootstrap",
                             "0", "-f", "markdown", "--keep-going")
    assert code == 0, err
    from softirr_stats.reporting import to_markdown

    df = sis.sensitivity(sis.read_annotations(demo_path()), coefficients=["fleiss_kappa", "cohen_kappa"],
                         similarities=[("exact", None)])
    table = to_markdown(df).split("\n\n")[0]
    assert table in out  # the same table as Python's
    assert "[1] missing ratings: fleiss_kappa uses all 90 rated items" in out  # the demo has 10 incomplete items
    assert "[2] skipped: cohen_kappa needs exactly 2 raters" in out and out.count("needs exactly 2 raters") == 1
    assert "the data have 3 (use conger_kappa, fleiss_kappa, light_kappa or krippendorff_alpha)" in out
    assert "seconds" not in out


def test_markdown_and_latex_keep_the_notes_no_row_carries(run_cli, tmp_path):
    # the reading note and the numeric-scale note were dropped in markdown / latex (table and csv showed them)
    path = tmp_path / "w.csv"
    path.write_text("item,a,b,c\n" + "".join(f"{i},{1 + i % 5},{1 + (i + 1) % 5},{1 + i % 5}\n" for i in range(20)))
    for fmt, mark in (("markdown", "- "), ("latex", "% note: ")):
        code, out, err = run_cli("agree", str(path), "--reader-option", "wide=true", "--bootstrap", "0",
                                 "-f", fmt)
        assert code == 0, err
        assert f"{mark}w.csv: read as a wide table" in out and f"{mark}labels are numbers (5 values" in out


def test_table_fits_a_narrow_terminal(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "70")
    code, out, err = run_cli("agree", str(demo_path()), "-m", "exact,indel", "--bootstrap", "0")
    assert code == 0, err
    lines = out.splitlines()
    # the table; the numbered notes below it are free text that the terminal wraps (soft wrap, never cut)
    assert max(len(ln) for ln in lines if not ln.startswith(("(", "["))) <= 70
    assert "columns left out to fit 70 characters" in out


@pytest.mark.parametrize("args", [["describe", "{demo}"], ["compare", "{demo}", "-c", "fleiss_kappa", "-c",
                                                                  "krippendorff_alpha", "--bootstrap", "50"]])
def test_describe_and_compare_fit_a_narrow_terminal_without_cutting_cells(run_cli, monkeypatch, args):
    # these tables were cut at the terminal's edge: raters shown as 'annota', whole columns of zero width
    monkeypatch.setenv("COLUMNS", "80")
    code, out, err = run_cli(*[a.replace("{demo}", str(demo_path())) for a in args])
    assert code == 0, err
    table = [ln for ln in out.splitlines() if ln.startswith(("┃", "│", "┏", "┡", "└"))]
    assert table and max(len(ln) for ln in table) <= 80
    if args[0] == "describe":
        assert "annotator_1" in out and "top share" in out
    else:
        assert "p_value" in out and "columns left out to fit 80 characters: method, items" in out


def test_a_warning_and_the_result_note_of_one_cause_print_once(run_cli, tmp_path):
    # the unpairable-items warning and the result's note of it were two notes with different words
    path = tmp_path / "single.csv"
    path.write_text("item,rater,label\n1,a,x\n1,b,x\n2,a,y\n2,b,x\n3,a,x\n4,a,y\n4,b,y\n5,a,x\n5,b,y\n")
    code, out, err = run_cli("agree", str(path), "--bootstrap", "0")
    assert code == 0, err
    assert out.count("have one rating") == 1 and "[2]" not in out


def test_console_script_runs_the_judging_workflow(tmp_path):
    """The real console script, in a subprocess (no traceback, one line per error)."""
    import shutil
    from pathlib import Path

    exe = shutil.which("softirr", path=str(Path(sys.executable).parent))
    assert exe is not None, "the softirr console script is not installed in this environment"
    sheet = tmp_path / "sheet.csv"
    proc = subprocess.run([exe, "judge", "plan", str(demo_path()), "-m", "indel", "-n", "30", "-o", str(sheet)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    blind = pd.read_csv(sheet)
    blind["judgment"] = np.linspace(0, 1, len(blind))
    blind.to_csv(sheet, index=False)
    proc = subprocess.run([exe, "agree", str(demo_path()), "-m", "indel", "--judgments", str(sheet), "--bootstrap",
                           "0", "-f", "csv"], capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "judge_only" in proc.stdout.splitlines()[0] and "Traceback" not in proc.stderr


def test_agree_test_flag_gives_the_permutation_test_by_default(run_cli):
    code, out, err = run_cli("agree", str(demo_path()), "-c", "fleiss_kappa", "--bootstrap", "0", "--test",
                             "--seed", "3", "-f", "json")
    assert code == 0, err
    got = json.loads(out)
    row = got["results"][0]
    py = sis.permutation_test("fleiss_kappa", sis.read_annotations(demo_path()), n=1999, seed=3)
    assert row["z"] == pytest.approx(py.z, rel=1e-12) and row["p_value"] == pytest.approx(py.p_value, rel=1e-12)
    assert any("permutation test of H0: no agreement beyond chance" in n for n in got["meta"]["warnings"])
    assert got["meta"]["test"] == "permutation"
    code, _, err = run_cli("agree", str(demo_path()), "--test", "--test-method", "wald", "--bootstrap", "0")
    assert code == 2 and "--test-method" in err


def test_agree_test_method_analytic_gives_the_analytic_h0_test_and_the_band(run_cli):
    code, out, err = run_cli("agree", str(demo_path()), "-c", "fleiss_kappa,krippendorff_alpha", "-m",
                             "exact,levenshtein", "--bootstrap", "0", "--test", "--test-method", "analytic",
                             "-f", "json")
    assert code == 0, err
    assert any("analytic test of H0: coefficient = 0" in n for n in json.loads(out)["meta"]["warnings"])
    rows = {(r["coefficient"], r["similarity"]): r for r in json.loads(out)["results"]}
    ann = sis.read_annotations(demo_path())
    from softirr_stats.equivalence import Levenshtein

    for (coef, measure), row in rows.items():
        py = getattr(sis, coef)(ann, similarity=None if measure == "exact" else Levenshtein(), ci="analytic")
        assert row["z"] == pytest.approx(py.z, rel=1e-12) and row["p_value"] == pytest.approx(py.p_value, rel=1e-9)
        assert row["benchmark"] == py.benchmark().band
    assert rows[("fleiss_kappa", "exact")]["benchmark"] == "slight"
    code, out, _ = run_cli("agree", str(demo_path()), "-c", "fleiss_kappa", "--bootstrap", "0", "-f", "json")
    assert "z" not in json.loads(out)["results"][0]  # only with --test


def test_report_model_help_says_nuts_and_model_method_svi_is_used(tmp_path, run_cli):
    code, out, _ = run_cli("report", "--help")
    text = " ".join(out.split())
    assert code == 0 and "by NUTS" in text and "by SVI" not in text and "--model-method" in text
    page = tmp_path / "r.html"
    small = tmp_path / "small.csv"  # a 3-class file: the demo's 226 free-text labels made this test take 100 s
    rng = np.random.default_rng(0)
    small.write_text("item,rater,label\n" + "".join(f"{i},r{j},{'abc'[rng.integers(3)]}\n"
                                                     for i in range(30) for j in range(3)))
    code, _, err = run_cli("report", str(small), "-o", str(page), "-c", "fleiss_kappa", "--bootstrap",
                           "0", "--model", "dawid_skene", "--model-method", "svi", "--model-steps", "40")
    assert code == 0, err
    assert "SVI, 40 steps" in page.read_text()
    code, _, err = run_cli("report", str(demo_path()), "-o", str(page), "--model", "dawid_skene",
                           "--model-method", "mcmc")
    assert code == 2 and "--model-method" in err


def test_numeric_labels_compared_as_categories_get_a_note(tmp_path, run_cli):
    """A 1-5 scale read with exact agreement only: the note says so and names the weights; with a weight, no note."""
    path = tmp_path / "n.csv"
    path.write_text("item,rater,label\n1,a,3\n1,b,4\n2,a,5\n2,b,5\n3,a,1\n3,b,2\n")
    code, out, err = run_cli("agree", str(path), "--bootstrap", "0")
    assert code == 0, err
    assert ("labels are numbers (5 values, 1 to 5): exact agreement counts 2 against 3 as fully as 1 against 5; for "
            "ratings on a scale add -m quadratic") in " ".join(out.split())
    code, out, err = run_cli("agree", str(path), "--bootstrap", "0", "-m", "exact,quadratic")
    assert code == 0, err
    assert "labels are numbers" not in out


def test_the_printed_agree_command_reads_the_file_as_judge_plan_did(tmp_path, run_cli):
    """judge plan printed `softirr agree FILE -m ... --judgments SHEET` without the reader options it was given:
    with --na-values '?' dropped, '?' became a label and the value moved from 0.357 to 0.128 without a word;
    with --rater / --label it failed; a path with a space split in two."""
    import shlex

    folder = tmp_path / "my data"
    folder.mkdir()
    rng = np.random.default_rng(4)
    words = ["fever", "fevers", "cough", "coughing", "rash", "rashes"]
    rows = [(f"d{i}", who, "?" if rng.random() < 0.15 else words[(i + k * (rng.random() < 0.3)) % 6])
            for i in range(40) for k, who in enumerate(("a", "b", "c"))]
    data = folder / "notes q.csv"
    pd.DataFrame(rows, columns=["doc", "annot", "lab"]).to_csv(data, index=False)
    sheet = folder / "sheet q.csv"
    code, _, err = run_cli("judge", "plan", str(data), "-m", "levenshtein", "--na-values", "?",
                           "--item", "doc", "--rater", "annot", "--label", "lab", "-n", "40", "-o", str(sheet))
    assert code == 0, err
    printed = " ".join(err.split()).split("then: ", 1)[1]
    args = shlex.split(printed)
    assert args[:2] == ["softirr", "agree"] and args[2] == str(data)
    for flag in ("--na-values", "--item", "--rater", "--label"):
        assert flag in args, printed
    filled = pd.read_csv(sheet, keep_default_na=False)
    filled["judgment"] = 0.5
    filled.to_csv(sheet, index=False)
    code, out, err = run_cli(*args[1:], "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    got = json.loads(out)["results"][0]["value"]
    ann = sis.read_annotations(data, item="doc", rater="annot", label="lab", na_values=["?"])
    from softirr_stats.analysis import read_judging_sheet

    judged = read_judging_sheet(sheet)[0]
    want = sis.krippendorff_alpha(ann, similarity="levenshtein", judgments=judged).value
    assert got == pytest.approx(want, abs=1e-12)


def _filled_sheet(tmp_path, run_cli, n=60):
    sheet = tmp_path / "sheet.csv"
    assert run_cli("judge", "plan", str(demo_path()), "-m", "indel", "-n", str(n), "-o", str(sheet),
                   "--seed", "3")[0] == 0
    blind = pd.read_csv(sheet)
    blind["judgment"] = [float(a.strip().lower() == b.strip().lower())
                         for a, b in zip(blind["label_1"], blind["label_2"], strict=True)]
    blind.to_csv(sheet, index=False)
    return sheet, blind


def test_design_judged_resamples_the_judged_pairs_as_the_python_api(tmp_path, run_cli, monkeypatch):
    """agree / sensitivity --judgments SHEET --design judged: Bootstrap(design="judged"), the interval conditional on
    the items (it was reachable from Python only)."""
    sheet, blind = _filled_sheet(tmp_path, run_cli)
    ann = sis.read_annotations(demo_path())
    pairs = sis.judging_plan(ann, similarity="indel", n=60, coefficient="krippendorff_alpha", seed=3).pairs.copy()
    judged = {frozenset((a, b)): j for a, b, j in zip(blind["label_1"], blind["label_2"], blind["judgment"],
                                                      strict=True)}
    pairs["judgment"] = [judged[frozenset((a, b))] for a, b in zip(pairs["label_a"], pairs["label_b"], strict=True)]
    ref = sis.krippendorff_alpha(ann, similarity="indel", judgments=sis.read_judgments(pairs),
                                 ci=sis.Bootstrap(n=300, design="judged", method="percentile", seed=5))
    items = sis.krippendorff_alpha(ann, similarity="indel", judgments=sis.read_judgments(pairs),
                                   ci=sis.Bootstrap(n=300, design="items", method="percentile", seed=5))
    for command in ("agree", "sensitivity"):
        code, out, err = run_cli(command, str(demo_path()), "-m", "indel", "-c", "krippendorff_alpha",
                                 "--judgments", str(sheet), "--bootstrap", "300", "--design", "judged", "--seed",
                                 "5", "-f", "json")
        assert code == 0, err
        doc = json.loads(out)
        row = doc["results"][0]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((ref.ci_low, ref.ci_high), abs=1e-12), command
        assert row["value"] == pytest.approx(ref.value, abs=1e-12) and doc["meta"]["design"] == "judged"
        assert (row["ci_low"], row["ci_high"]) != pytest.approx((items.ci_low, items.ci_high), abs=1e-6)
        # and the default design from the shuffled sheet equals Python's from the sorted plan (row order kept out)
        code, out, err = run_cli(command, str(demo_path()), "-m", "indel", "-c", "krippendorff_alpha",
                                 "--judgments", str(sheet), "--bootstrap", "300", "--method", "percentile",
                                 "--seed", "5", "-f", "json")
        row = json.loads(out)["results"][0]
        assert (row["ci_low"], row["ci_high"]) == pytest.approx((items.ci_low, items.ci_high), abs=1e-12), command
    code, _, err = run_cli("agree", str(demo_path()), "-m", "indel", "--design", "judged")
    assert code == 2 and "--design judged resamples the judged pairs of --judgments SHEET" in err
    code, _, err = run_cli("agree", str(demo_path()), "-m", "indel", "--judgments", str(sheet), "--design",
                           "judged", "--strata", "rater")
    assert code == 2 and "--strata" in err and "--design judged" in err
    code, _, err = run_cli("compare", str(demo_path()), "-c", "fleiss_kappa", "-c", "krippendorff_alpha",
                           "--design", "judged")
    assert code == 2 and "--design must be one of items, raters, items+raters, bayesian" in err
    monkeypatch.setenv("COLUMNS", "250")  # the help in one column of text, its lines unbroken
    code, out, _ = run_cli("agree", "--help")
    assert "with --judgments also judged" in " ".join(out.split())


def test_the_numeric_labels_note_prints_large_integers_and_close_floats_in_full():
    # %g printed 9007199254740993 and 9007199254740992 alike (9.0072e+15)
    from softirr_stats import Annotations
    from softirr_stats.cli._grid import scale_note

    big = Annotations.from_wide([[9007199254740993, 9007199254740992], [1, 1], [2, 2]])
    note = scale_note(big, ["exact"], ("linear", "quadratic"))[0]
    assert note.startswith("labels are numbers (4 values, 1 to 9007199254740993): exact agreement counts 2 against "
                           "9007199254740992 as fully as 1 against 9007199254740993;")
    close = Annotations.from_wide([[0.1, 0.30000000000000004], [0.3, 0.3], [0.5, 0.5]])
    assert "counts 0.3 against 0.30000000000000004 as fully as 0.1 against 0.5" in \
        scale_note(close, ["exact"], ("linear",))[0]
