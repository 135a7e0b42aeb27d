"""``--categories`` (agree, sensitivity, report, compare, plan, judge plan, model, score), ``judge plan --gold-n``,
and notes that name flags (and name no Python call).

Every note the CLI prints names a CLI flag that exists: the notes of a few representative runs
are parsed for ``--flag`` names and each is looked up in the options of the command that runs
(or of the ``softirr <command>`` the note itself names).
"""

import json
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import typer

import softirr_stats as sis
from softirr_stats.cli import app
from softirr_stats.data import demo_path

# 5 items, 2 raters, labels x / y / z: agreement on 3 of 5 items (p_o = 0.6)
ROWS = [(1, "a", "x"), (1, "b", "x"), (2, "a", "y"), (2, "b", "x"), (3, "a", "y"), (3, "b", "y"),
        (4, "a", "x"), (4, "b", "y"), (5, "a", "z"), (5, "b", "z")]


@pytest.fixture
def cat_csv(tmp_path):
    path = tmp_path / "cat.csv"
    pd.DataFrame(ROWS, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


def _values(out):
    return {r["coefficient"]: r["value"] for r in json.loads(out)["results"]}


def _notes(out):
    """Every note of a ``-f json`` run: the run's warnings and each row's."""
    d = json.loads(out)
    rows = [r.get("warnings") or [] for r in d["results"]]
    return [*d["meta"].get("warnings", []), *(w for ws in rows for w in ([ws] if isinstance(ws, str) else ws))]


def _bp(po, q):
    """Brennan-Prediger: chance 1/q for q categories."""
    return (po - 1 / q) / (1 - 1 / q)


def test_categories_fixes_q_of_brennan_prediger(cat_csv, run_cli):
    code, out, err = run_cli("agree", cat_csv, "-c", "brennan_prediger,gwet_ac1", "--bootstrap", "0",
                             "-f", "json")
    assert code == 0, err
    observed = _values(out)
    assert observed["brennan_prediger"] == pytest.approx(_bp(0.6, 3), abs=1e-12)
    notes = " ".join(_notes(out))
    assert "q = 3 categories taken from the observed labels" in notes and "--categories" in notes
    # one unused category declared: q = 4, and the note is gone
    code, out, err = run_cli("agree", cat_csv, "-c", "brennan_prediger,gwet_ac1", "--bootstrap", "0",
                             "-f", "json", "--categories", "x, y, z, w")
    assert code == 0, err
    declared = _values(out)
    assert declared["brennan_prediger"] == pytest.approx(_bp(0.6, 4), abs=1e-12)
    ann = sis.Annotations.from_long(pd.DataFrame(ROWS, columns=["item", "rater", "label"]),
                                    categories=["x", "y", "z", "w"])
    assert declared["gwet_ac1"] == pytest.approx(sis.gwet_ac1(ann).value, abs=1e-12)
    assert declared["gwet_ac1"] != pytest.approx(observed["gwet_ac1"])
    assert not any("categories taken from the observed labels" in n for n in _notes(out))


def test_categories_from_a_file(cat_csv, tmp_path, run_cli):
    cats = tmp_path / "cats.txt"
    cats.write_text("x\ny\n\nz\nw\nv\n", encoding="utf-8")  # blank lines skipped
    code, out, err = run_cli("agree", cat_csv, "-c", "brennan_prediger", "--bootstrap", "0", "-f", "json",
                             "--categories", f"@{cats}")
    assert code == 0, err
    assert _values(out)["brennan_prediger"] == pytest.approx(_bp(0.6, 5), abs=1e-12)


def test_categories_a_file_keeps_commas_in_names(tmp_path, run_cli):
    path = tmp_path / "c.csv"
    rows = [(i, r, lab) for i, labs in enumerate([("a, b", "a, b"), ("c", "c"), ("a, b", "c")]) for r, lab in
            zip("pq", labs, strict=True)]
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    cats = tmp_path / "cats.txt"
    cats.write_text("a, b\nc\nd\n", encoding="utf-8")
    code, out, err = run_cli("agree", path, "-c", "brennan_prediger", "--bootstrap", "0", "-f", "json",
                             "--categories", f"@{cats}")
    assert code == 0, err
    assert _values(out)["brennan_prediger"] == pytest.approx(_bp(2 / 3, 3), abs=1e-12)


def test_numeric_labels_take_numeric_categories(tmp_path, run_cli):
    path = tmp_path / "num.csv"
    rows = [(1, "a", 1), (1, "b", 1), (2, "a", 2), (2, "b", 3), (3, "a", 3), (3, "b", 3), (4, "a", 2), (4, "b", 2)]
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    code, out, err = run_cli("agree", path, "-c", "brennan_prediger", "--bootstrap", "0", "-f", "json",
                             "--categories", "1,2,3,4,5")
    assert code == 0, err
    assert _values(out)["brennan_prediger"] == pytest.approx(_bp(0.75, 5), abs=1e-12)
    code, _, err = run_cli("agree", path, "--bootstrap", "0", "--categories", "1,2,three")
    assert code == 2 and "--categories 'three' is not a number" in err


def test_categories_declare_the_order_of_ordinal_weights(tmp_path, run_cli):
    path = tmp_path / "ord.csv"
    rows = [(1, "a", "low"), (1, "b", "medium"), (2, "a", "high"), (2, "b", "high"), (3, "a", "low"),
            (3, "b", "low"), (4, "a", "medium"), (4, "b", "high"), (5, "a", "low"), (5, "b", "high")]
    frame = pd.DataFrame(rows, columns=["item", "rater", "label"])
    frame.to_csv(path, index=False)
    code, _, err = run_cli("agree", path, "-c", "cohen_kappa", "-m", "linear", "--bootstrap", "0")
    assert code == 1 and "--categories low,medium,high" in err  # the error names the flag that fixes it
    code, out, err = run_cli("agree", path, "-c", "cohen_kappa", "-m", "linear", "--bootstrap", "0",
                             "-f", "json", "--categories", "low,medium,high")
    assert code == 0, err
    expected = sis.cohen_kappa(sis.Annotations.from_long(frame, categories=["low", "medium", "high"]),
                               weights="linear").value
    assert _values(out)["cohen_kappa"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("value", "needle"), [
    ("x,y", "label 'z' of"),  # a label outside the declared set: named, with the flag
    ("x,,y,z", "has an empty name"),
    ("x", "at least two categories"),
    ("x,y,z,x", "names 'x' twice"),
    ("@{d}/missing.txt", "is not a file"),
])
def test_bad_categories_are_one_line_errors(cat_csv, tmp_path, run_cli, value, needle):
    code, out, err = run_cli("agree", cat_csv, "--bootstrap", "0", "--categories",
                             value.format(d=tmp_path))
    assert code == 2 and out == ""
    assert needle in err and "--categories" in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("command", [
    ["sensitivity", "{f}", "-c", "brennan_prediger", "--bootstrap", "0", "-f", "json"],
    ["compare", "{f}", "-c", "brennan_prediger", "-c", "gwet_ac1", "--analytic", "-f", "json"],
])
def test_categories_on_other_commands(cat_csv, run_cli, command):
    args = [a.format(f=cat_csv) for a in command]
    code, plain, err = run_cli(*args)
    assert code == 0, err
    code, declared, err = run_cli(*args, "--categories", "x,y,z,w")
    assert code == 0, err
    assert plain != declared
    code, _, err = run_cli(*args, "--categories", "x,y")
    assert code == 2 and "label 'z'" in err and "--categories" in err


def test_categories_on_report_and_plan(cat_csv, tmp_path, run_cli):
    code, _, err = run_cli("report", cat_csv, "-o", tmp_path / "r.html", "--categories", "x,y")
    assert code == 2 and "label 'z'" in err and "--categories" in err
    code, _, err = run_cli("plan", "--value", "0.6", "--prevalence", "0.5,0.5", "--halfwidth", "0.1",
                           "--categories", "x,y,z")
    assert code == 2 and "--categories names 3 categories but --prevalence gives 2" in err
    code, out, err = run_cli("plan", "--value", "0.6", "--prevalence", "0.5,0.5", "--halfwidth", "0.1",
                             "--categories", "no,yes", "-f", "json")
    assert code == 0, err
    code, _, err = run_cli("plan", cat_csv, "--halfwidth", "0.1", "--categories", "x,y")
    assert code == 2 and "label 'z'" in err


ML_SETS = [(["a", "b"], ["a"], ["a", "b"]), (["b"], ["b"], ["b", "c"]), (["a"], [], ["a"]), (["c"], ["c"], ["b"]),
           (["a", "c"], ["a"], ["a", "c"])]


@pytest.fixture
def ml_jsonl(tmp_path):
    path = tmp_path / "ml.jsonl"
    rows = [{"item": f"d{i}", "rater": r, "label": lab} for i, labs in enumerate(ML_SETS)
            for r, lab in zip("pqr", labs, strict=True)]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


@pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning", "ignore::softirr_stats.FewUnitsWarning")
def test_categories_are_the_label_universe_of_the_multilabel_rows(ml_jsonl, tmp_path):
    # --categories on multi-label sets was refused; it is the label universe: multilabel_agreement(..., labels=)
    from typer.testing import CliRunner

    universe = ["c", "a", "d", "b"]  # "d": selected by no rating; the order is by_label's
    out = tmp_path / "ml.json"
    res = CliRunner().invoke(app, ["agree", str(ml_jsonl), "-c", "multilabel_fleiss,multilabel_ac1,multilabel_pabak",
                                   "--bootstrap", "200", "--categories", ",".join(universe), "--json", str(out)])
    assert res.exit_code == 0, res.output
    rows = {r["coefficient"]: r for r in json.loads(out.read_text())["results"]}
    ann = sis.read_annotations(ml_jsonl)
    ci = sis.Bootstrap(n=200, seed=0)
    for baseline in ("fleiss", "ac1", "pabak"):
        row, py = rows[f"multilabel_{baseline}"], sis.multilabel_agreement(ann, baseline=baseline, labels=universe,
                                                                           ci=ci)
        assert py.details["labels"] == tuple(universe)
        for key in ("value", "observed", "expected", "ci_low", "ci_high"):
            assert row[key] == pytest.approx(getattr(py, key), abs=1e-12), (baseline, key)
    # the unselected label counts: AC1 and the observed agreement differ from the observed-labels universe
    observed_only = sis.multilabel_agreement(ann, baseline="ac1")
    assert abs(rows["multilabel_ac1"]["value"] - observed_only.value) > 0.1
    # compare FILE FILE2 reads it the same way (one reading step)
    res = CliRunner().invoke(app, ["compare", str(ml_jsonl), str(ml_jsonl), "-c", "multilabel_ac1", "--independent",
                                   "--bootstrap", "50", "--categories", ",".join(universe), "-f", "json"])
    assert res.exit_code == 0, res.output
    row = json.loads(res.stdout)["results"][0]
    assert row["value_a"] == pytest.approx(sis.multilabel_agreement(ann, baseline="ac1", labels=universe).value,
                                           abs=1e-12)


def test_categories_must_hold_every_selected_label_of_multilabel_sets(ml_jsonl, run_cli):
    code, _, err = run_cli("agree", ml_jsonl, "--bootstrap", "0", "-c", "multilabel_fleiss",
                           "--categories", "a,b")
    assert code == 2 and "label 'c'" in err and "--categories is the label universe" in err


@pytest.mark.parametrize("command, args", [
    ("agree", ["-c", "gwet_ac1,brennan_prediger", "-m", "jaccard"]),
    ("agree", ["-c", "multilabel_fleiss,gwet_ac1", "-m", "exact"]),
    ("sensitivity", ["-c", "brennan_prediger", "-m", "jaccard"]),
    ("sensitivity", []),  # the default coefficients of sets hold rows that do not take it
    ("compare", ["-c", "gwet_ac1", "-c", "multilabel_ac1", "--bootstrap", "20"]),
])
def test_categories_on_sets_are_refused_for_a_coefficient_that_ignores_them(ml_jsonl, run_cli, command, args):
    # accepted and ignored: gwet_ac1 / brennan_prediger counted q over the observed label sets, and the note still
    # advised --categories A,B,C (in Python, categories= on sets is refused)
    code, out, err = run_cli(command, ml_jsonl, *args, *(["--bootstrap", "0"] if "--bootstrap" not in args else []),
                             "--categories", "a,b,c,d")
    said = " ".join(err.split())
    assert code == 2 and said.count("error:") == 1, err
    assert "--categories on multi-label sets is the label universe of -c multilabel_fleiss, multilabel_ac1, " \
           "multilabel_pabak" in said, err
    assert "categories= applies to categorical or numeric labels, not sets" in said, err


def test_the_q_note_of_sets_does_not_advise_categories(ml_jsonl, run_cli):
    code, out, err = run_cli("agree", ml_jsonl, "-c", "gwet_ac1,brennan_prediger", "-m", "jaccard", "--bootstrap",
                             "0", "-f", "json")
    assert code == 0, err
    notes = _notes(out)
    q = [n for n in notes if n.startswith("q = ")]
    assert q and all("--categories" not in n and "categories=" not in n for n in q), notes
    assert any("distinct label sets" in n for n in q), notes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sis.gwet_ac1(sis.read_annotations(ml_jsonl), similarity="jaccard")
    assert not any("categories=" in n or "--categories" in n for n in res.warnings), res.warnings


# --- judge plan --gold-n ------------------------------------------------------------------------------------


def _fill(sheet, judgment="0", gold="1"):
    df = pd.read_csv(sheet, dtype=str, keep_default_na=False)
    df["judgment"] = judgment
    if "gold" in df.columns:
        df.loc[df["gold"] == "", "gold"] = gold
    df.to_csv(sheet, index=False)
    return df


def test_gold_n_adds_a_gold_column_and_agree_targets_the_gold_judge(tmp_path, run_cli):
    demo = demo_path()
    sheet = tmp_path / "sheet.csv"
    code, _, err = run_cli("judge", "plan", demo, "-m", "indel", "-n", "60", "--gold-n", "20", "-o", sheet)
    assert code == 0, err
    assert "20 gold draws" in err
    written = pd.read_csv(sheet, dtype=str, keep_default_na=False)
    assert list(written.columns) == ["pair_id", "label_1", "label_2", "judgment", "gold"]
    kept = pd.read_csv(tmp_path / "sheet.plan.csv", dtype={"pair_id": str})
    # the gold cells left empty are exactly the plan's gold subsample (the same draws as in Python)
    plan = sis.judging_plan(sis.read_annotations(demo), similarity="indel", n=60, gold_n=20, seed=0)
    assert int(plan.pairs["gold_draws"].sum()) == 20 == int(kept["gold_draws"].sum())
    empty = set(written.loc[written["gold"] == "", "pair_id"])
    assert empty == set(kept.loc[kept["gold_draws"] > 0, "pair_id"])
    assert set(written.loc[written["gold"] != "", "gold"]) == {"n/a"}
    _fill(sheet)
    code, out, err = run_cli("agree", demo, "-m", "indel", "--judgments", sheet, "--bootstrap", "0",
                             "-f", "json")
    assert code == 0, err
    notes = " ".join(_notes(out))
    assert "gold judge's judgments" in notes and "20 of 60 judged draws judged again" in notes
    # a gold cell left empty on a drawn row is refused, naming the column
    df = pd.read_csv(sheet, dtype=str, keep_default_na=False)
    df.loc[df["pair_id"] == sorted(empty)[0], "gold"] = ""
    df.to_csv(sheet, index=False)
    code, _, err = run_cli("agree", demo, "-m", "indel", "--judgments", sheet, "--bootstrap", "0")
    assert code == 2 and "gold must lie in [0, 1]" in err


def test_gold_n_changes_the_estimate(tmp_path, run_cli):
    demo = demo_path()
    values = []
    for gold_n, name in ((None, "one.csv"), (20, "two.csv")):
        sheet = tmp_path / name
        extra = [] if gold_n is None else ["--gold-n", str(gold_n)]
        code, _, err = run_cli("judge", "plan", demo, "-m", "indel", "-n", "60", "-o", sheet, *extra)
        assert code == 0, err
        _fill(sheet)
        code, out, err = run_cli("agree", demo, "-m", "indel", "--judgments", sheet, "--bootstrap", "0",
                                 "-f", "json")
        assert code == 0, err
        values.append(json.loads(out)["results"][0]["value"])
    assert np.isfinite(values).all() and values[0] != pytest.approx(values[1])


@pytest.mark.parametrize(("gold_n", "needle"), [("0", "--gold-n must be a number of draws from 1 to -n (60)"),
                                                ("61", "--gold-n must be a number of draws from 1 to -n (60)")])
def test_bad_gold_n(tmp_path, run_cli, gold_n, needle):
    code, _, err = run_cli("judge", "plan", demo_path(), "-m", "indel", "-n", "60", "--gold-n", gold_n,
                           "-o", tmp_path / "s.csv")
    assert code == 2 and needle in err
    assert not (tmp_path / "s.csv").exists()


# --- every flag a note names exists -------------------------------------------------------------------------


def _options(path):
    """The long option names of ``softirr PATH...`` (e.g. ("judge", "plan"))."""
    cmd = typer.main.get_command(app)
    for name in path:
        cmd = cmd.commands[name]
    return {o for p in cmd.params if p.param_type_name == "option" for o in (*p.opts, *p.secondary_opts)}


def _check_flags(notes, command):
    """Each ``--flag`` of a note is an option of ``command`` or of the ``softirr ...`` command the note names."""
    checked = 0
    for note in notes:
        named = re.findall(r"softirr (judge plan|[a-z]+)", note)
        allowed = set().union(_options(command), *(_options(n.split()) for n in named))
        for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]*", note):
            assert flag in allowed, f"the note names {flag}, which softirr {' '.join(command)} does not take: {note}"
            checked += 1
    return checked


def test_every_flag_a_note_names_exists(cat_csv, tmp_path, run_cli):
    checked = 0
    runs = [
        (["agree"], ["agree", cat_csv, "-c", "brennan_prediger,gwet_ac1,krippendorff_alpha", "--bootstrap", "50"]),
        (["sensitivity"], ["sensitivity", cat_csv, "-c", "gwet_ac1", "--bootstrap", "0"]),
        (["agree"], ["agree", demo_path(), "-c", "brennan_prediger", "--bootstrap", "0"]),
    ]
    sheet = tmp_path / "sheet.csv"
    code, _, err = run_cli("judge", "plan", demo_path(), "-m", "indel", "-n", "40", "-o", sheet)
    assert code == 0, err
    _fill(sheet)
    runs.append((["agree"], ["agree", demo_path(), "-m", "indel", "--judgments", sheet, "--bootstrap", "0"]))
    for command, args in runs:
        code, out, err = run_cli(*args, "-f", "json")
        assert code == 0, err
        notes = [*_notes(out), *err.splitlines()]
        checked += _check_flags(notes, command)
    # a reading note (an export whose format was guessed) names --input-format, not format=
    export = tmp_path / "project.json"
    export.write_text(json.dumps([{"id": t, "data": {"text": "t"}, "annotations": [
        {"id": 10 * t + u, "completed_by": u, "result": [{"from_name": "s", "to_name": "text", "type": "choices",
                                                          "value": {"choices": [lab]}}]}
        for u, lab in enumerate(labs, 1)]} for t, labs in enumerate([("a", "a"), ("a", "b"), ("b", "b")], 1)]))
    code, out, err = run_cli("agree", export, "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    guessed = [n for n in _notes(out) if "guessed from its content" in n]
    assert guessed and "--input-format label-studio" in guessed[0] and "format=" not in guessed[0]
    checked += _check_flags(guessed, ["agree"])
    # and the error of ordered weights on text labels
    ordinal = tmp_path / "ord.csv"
    pd.DataFrame([(1, "a", "lo"), (1, "b", "hi"), (2, "a", "hi"), (2, "b", "hi")],
                 columns=["item", "rater", "label"]).to_csv(ordinal, index=False)
    code, _, err = run_cli("agree", ordinal, "-c", "cohen_kappa", "-m", "linear", "--bootstrap", "0")
    checked += _check_flags(err.splitlines(), ["agree"])
    assert checked >= 5  # --categories (twice), --gold-n, --keep-going, ...


def test_the_flag_check_catches_a_missing_flag():
    with pytest.raises(AssertionError, match="--no-such-flag"):
        _check_flags(["declare it (on the command line: --no-such-flag)"], ["agree"])
    with pytest.raises(AssertionError, match="--gold-n"):
        _check_flags(["use --gold-n"], ["agree"])  # --gold-n belongs to judge plan; the note must say so
    assert _check_flags(["(softirr judge plan --gold-n N)"], ["agree"]) == 1


# --- texts the CLI prints are worded for the command line ----------------------------------------------------
# a Python keyword or call outside an "in Python: ..." aside (the wording for both contexts keeps it there)
_PYTHON_FORMS = re.compile(r"\b(?:weights|chance)=|MonteCarlo\(|SampledPairs\(|\bsis\.\w+\(|\bann\.\w+\(")


def _python_only(text):
    return _PYTHON_FORMS.findall(re.sub(r"in Python: [^;)]*(?:\([^)]*\))*[^;)]*", "", text))


@pytest.mark.parametrize(("args", "needle"), [
    (["--chance", "foo"], "got 'foo'"),
    (["--chance", "mc:1000000"], "(or --chance exact)"),
])
def test_chance_errors_name_the_flag_forms(cat_csv, run_cli, args, needle):
    code, _, err = run_cli("agree", cat_csv, *args)
    assert code == 2 and needle in err
    assert not _python_only(err), err
    assert _check_flags(err.splitlines(), ["agree"]) >= 1


def test_notes_and_errors_name_flags_not_python_calls(tmp_path, run_cli):
    """The missing-ratings note (the demo has 10 incomplete items) and the ordered-weights error."""
    code, out, err = run_cli("agree", demo_path(), "-c", "fleiss_kappa,cohen_kappa", "--bootstrap", "0",
                             "-f", "json", "--keep-going")
    notes = [*_notes(out), *err.splitlines()]
    missing = [n for n in notes if n.startswith("missing ratings:")]
    assert code == 0 and missing and "0.0700 there)" in missing[0]
    ordinal = tmp_path / "ord.csv"
    pd.DataFrame([(1, "a", "lo"), (1, "b", "hi"), (2, "a", "hi"), (2, "b", "hi")],
                 columns=["item", "rater", "label"]).to_csv(ordinal, index=False)
    code, _, err = run_cli("agree", ordinal, "-c", "cohen_kappa", "-m", "linear", "--bootstrap", "0")
    assert code != 0 and "--similarity linear orders the labels" in err
    for text in [*notes, *err.splitlines()]:
        assert not _python_only(text), text
    assert _check_flags([*notes, *err.splitlines()], ["agree"]) >= 2
    # the same texts in Python keep the Python call
    with pytest.raises(ValueError, match=r"MonteCarlo\(permutations=D\)"):
        sis.agreement.resolve_chance("foo")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sis.fleiss_kappa(sis.read_annotations(demo_path()))
    assert "sis.fleiss_kappa(ann.complete_items())" in res.notes[0]


def test_the_python_form_check_catches_a_call():
    assert _python_only("use chance='exact' or MonteCarlo(permutations=D)") == ["chance=", "MonteCarlo("]
    assert not _python_only("declare them (on the command line: --categories A,B,C; in Python: "
                            "Annotations(..., categories=[...]))")


# --- --categories on model and score; none on demo ------------------------------------------------------------


def test_score_scores_the_pairs_of_the_declared_categories(cat_csv, tmp_path, run_cli):
    """AC1's chance needs every pair of categories: an unused declared one adds its pairs to the cache."""
    pairs = []
    for extra in ([], ["--categories", "x,y,z,w"]):
        out = tmp_path / f"run{len(extra)}.json"
        code, _, err = run_cli("score", cat_csv, "-c", "gwet_ac1", "-m", "levenshtein", "--no-progress",
                               "--cache", tmp_path / f"s{len(extra)}.sqlite", "--json", out, *extra)
        assert code == 0, err
        pairs.append(json.loads(out.read_text())["runs"][0]["n_pairs"])
    assert pairs == [3, 6]  # the distinct off-diagonal pairs of 3, then 4 categories
    code, _, err = run_cli("score", cat_csv, "-m", "levenshtein", "--cache", tmp_path / "s.sqlite",
                           "--categories", "x,y")
    assert code == 2 and "--categories" in err and "'z'" in err


def test_model_fits_the_declared_classes(cat_csv, run_cli, monkeypatch):
    """The annotator model has one class per declared category (K = 4 with an unused fourth)."""
    from softirr_stats.cli import model as model_cmd
    from softirr_stats.models import encode_annotations

    seen = []

    def fake_run(ann, *args, **kwargs):  # the fit itself is tested in tests/inference; the data it gets, here
        seen.append(ann)
        raise ValueError("stopped before the fit")

    monkeypatch.setattr(model_cmd, "_run", fake_run)
    for extra in ([], ["--categories", "x,y,z,w"]):
        code, _, err = run_cli("model", cat_csv, "--method", "svi", *extra)
        assert code != 0 and "stopped before the fit" in err
    assert [encode_annotations(a).n_classes for a in seen] == [3, 4]
    assert seen[1].categories == ("x", "y", "z", "w")
    code, _, err = run_cli("model", cat_csv, "--categories", "x,y")
    assert code == 2 and "--categories" in err and len(seen) == 2  # refused before the fit


def test_demo_takes_no_categories_its_coefficients_do_not_depend_on_them():
    """Fleiss' kappa and alpha, exact or soft, give the same value with an unused category declared."""
    assert "--categories" not in _options(["demo"])
    ann = sis.read_annotations(demo_path())
    more = sis.Annotations.from_long(ann.to_long(), categories=[*ann.vocabulary, "an unused finding"])
    for fn in (sis.fleiss_kappa, sis.krippendorff_alpha):
        for similarity in (None, "indel"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                a, b = fn(ann, similarity=similarity), fn(more, similarity=similarity)
            assert a.value == pytest.approx(b.value, abs=1e-12)


# --- judge plan: --categories, weights in -m, --uniform-share ----------------------------------------------------


def _drawn(run_cli, tmp_path, file, *args):
    """The plan file ``softirr judge plan FILE -n 40 ARGS`` writes, keyed by its label pair."""
    sheet = tmp_path / "sheet.csv"
    code, _, err = run_cli("judge", "plan", file, "-n", "40", "-o", sheet, *args)
    assert code == 0, err
    kept = pd.read_csv(tmp_path / "sheet.plan.csv", dtype={"label_a": str, "label_b": str})
    return kept.set_index(["label_a", "label_b"])[["score", "q", "draws"]].sort_index(), err


def _python(file, **kw):
    plan = sis.judging_plan(sis.read_annotations(file), **{"n": 40, "coefficient": "krippendorff_alpha", **kw})
    pairs = plan.pairs.astype({"label_a": str, "label_b": str})
    return pairs.set_index(["label_a", "label_b"])[["score", "q", "draws"]].sort_index()


@pytest.mark.parametrize(("args", "kw", "without"), [
    # judging_plan(categories=): an unused category counts in gwet_ac1's chance term, so q moves
    (["-m", "indel", "-c", "gwet_ac1", "--categories", "x,y,z,w"],
     dict(similarity="indel", coefficient="gwet_ac1", categories=["x", "y", "z", "w"]),
     dict(similarity="indel", coefficient="gwet_ac1")),
    # judging_plan(weights=): a weight name in -m, ordered by --categories
    (["-m", "linear", "--categories", "x,z,y"], dict(similarity=None, weights="linear", categories=["x", "z", "y"]),
     dict(similarity=None, weights="linear", categories=["x", "y", "z"])),
])
def test_judge_plan_takes_categories_and_weights(cat_csv, tmp_path, run_cli, args, kw, without):
    # judging_plan's categories= and weights= had no CLI spelling (-m linear was an unknown similarity)
    cli, err = _drawn(run_cli, tmp_path, cat_csv, *args)
    py = _python(cat_csv, **kw)
    assert cli.index.equals(py.index) and (cli["draws"] == py["draws"]).all()
    np.testing.assert_allclose(cli[["score", "q"]], py[["score", "q"]], rtol=0, atol=1e-12)
    other = _python(cat_csv, **without)
    assert not (other.index.equals(py.index) and np.allclose(other[["score", "q"]], py[["score", "q"]]))
    if "--categories" in args:  # the agree command it suggests gives the judged coefficient the same q
        assert f"--categories {args[args.index('--categories') + 1]} --judgments" in err


def test_judge_plan_takes_uniform_share(tmp_path, run_cli):
    import inspect

    demo = demo_path()
    cli, _ = _drawn(run_cli, tmp_path, demo, "-m", "indel", "--strategy", "active", "--uniform-share", "0.6")
    py = _python(demo, similarity="indel", strategy="active", uniform_share=0.6)
    assert cli.index.equals(py.index) and (cli["draws"] == py["draws"]).all()
    np.testing.assert_allclose(cli[["score", "q"]], py[["score", "q"]], rtol=0, atol=1e-12)
    default = _python(demo, similarity="indel", strategy="active")
    assert not np.allclose(default.reindex(py.index)["q"], py["q"])
    # uniform_share=None is 0.2 for the active design, as --help says
    assert inspect.signature(sis.judging_plan).parameters["uniform_share"].default is None
    pd.testing.assert_frame_equal(default, _python(demo, similarity="indel", strategy="active", uniform_share=0.2))


@pytest.mark.parametrize("name", ["Linear", "Identity", "EXACT", "Indel"])
def test_judge_plan_reads_measure_names_as_agree_does(cat_csv, tmp_path, run_cli, name):
    # judge plan lower-cased exact / identity (-m Identity: "needs no judge") but not the others (-m Linear: unknown);
    # agree refuses every such name as unknown, with the name it means
    code, out, err = run_cli("judge", "plan", cat_csv, "-n", "40", "-o", tmp_path / "s.csv", "-m", name)
    assert code == 2 and out == "" and not (tmp_path / "s.csv").exists(), err
    agree_code, _, agree_err = run_cli("agree", cat_csv, "-m", name)
    head = f"unknown --similarity {name!r} (did you mean {name.lower()!r}?); choose from"
    assert agree_code == 2 and agree_err.startswith(f"error: {head}"), agree_err
    assert err.startswith(f"error: {head}") and err.count("\n") == 1, err


def test_judge_plan_strips_measure_names_as_agree_does(cat_csv, tmp_path, run_cli):
    # agree strips -m " linear "; judge plan refused it as an unknown name
    cli, _ = _drawn(run_cli, tmp_path, cat_csv, "-m", " linear ", "--categories", "x,z,y")
    py = _python(cat_csv, similarity=None, weights="linear", categories=["x", "z", "y"])
    assert cli.index.equals(py.index) and (cli["draws"] == py["draws"]).all()
    np.testing.assert_allclose(cli[["score", "q"]], py[["score", "q"]], rtol=0, atol=1e-12)
    code, _, err = run_cli("judge", "plan", cat_csv, "-n", "40", "-o", tmp_path / "t.csv", "-m", "identity ")
    assert code == 2 and "--similarity identity needs no judge" in err, err


@pytest.mark.parametrize(("args", "needle"), [
    (["-m", "indel", "--uniform-share", "0.5"], "--uniform-share mixes the uniform design into --strategy active"),
    (["-m", "indel", "--strategy", "active", "--uniform-share", "0"], "--uniform-share must lie in (0, 1]"),
    (["-m", "indel", "--strategy", "active", "--uniform-share", "1.5"], "--uniform-share must lie in (0, 1]"),
    (["-m", "indel", "--strategy", "active", "--uniform-share", "nan"], "--uniform-share must lie in (0, 1]"),
    (["-m", "indel", "--categories", "x,y"], "label 'z' of"),
    (["-m", "identity"], "--similarity identity needs no judge"),
    (["-m", "lineer"], "unknown --similarity 'lineer' (did you mean 'linear'?)"),
])
def test_judge_plan_bad_values_in_cli_spelling(cat_csv, tmp_path, run_cli, args, needle):
    code, out, err = run_cli("judge", "plan", cat_csv, "-n", "40", "-o", tmp_path / "s.csv", *args)
    assert code == 2 and out == "", err
    assert needle in err and err.count("\n") == 1, err
    assert not (tmp_path / "s.csv").exists()
