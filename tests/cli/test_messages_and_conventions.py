"""The command line's conventions and messages: suggestions for typos, short help, --quiet / --verbose,
one note per cause, errors that say where to look."""

import json

import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.cli import main
from softirr_stats.cli._output import Notes
from softirr_stats.data import demo_path


def test_a_mistyped_coefficient_gets_a_suggestion(capsys):
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(demo_path()), "-c", "kripendorff_alpha"])
    assert ex.value.code == 2
    assert "unknown --coefficient 'kripendorff_alpha' (did you mean 'krippendorff_alpha'?)" in capsys.readouterr().err


def test_short_help_no_bool_metavar_and_demo_help_only_its_options(capsys):
    with pytest.raises(SystemExit) as ex:
        main(["demo", "-h"])
    assert ex.value.code == 0
    out = capsys.readouterr().out
    assert "<bool>" not in out and "--no-embedding" in out
    assert "--judgments" not in out and "--level" not in out and "--cache" not in out
    with pytest.raises(SystemExit):
        main(["--help"])
    root = capsys.readouterr().out
    for flag in ("--quiet", "--verbose", "--install-completion", "-h"):
        assert flag in root


def test_quiet_and_verbose_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as ex:
        main(["--quiet", "--verbose", "demo", "--bootstrap", "0"])
    assert ex.value.code == 2 and "exclude each other" in capsys.readouterr().err


def test_a_warning_and_a_note_of_one_cause_are_one_note():
    notes = Notes(["3 raters resampled (fewer than 8)", "FewUnitsWarning: 3 raters resampled (fewer than 8)",
                   "another note"])
    assert notes.lines() == ["[1] FewUnitsWarning: 3 raters resampled (fewer than 8)", "[2] another note"]


def test_read_judgments_on_a_blinded_sheet_says_where_the_plan_is(tmp_path):
    sheet = tmp_path / "sheet.csv"
    pd.DataFrame({"pair_id": ["p1"], "label_1": ["a"], "label_2": ["b"], "judgment": [1.0]}).to_csv(sheet, index=False)
    with pytest.raises(ValueError, match=r"blinded judging sheet.*sheet\.plan\.csv, not found.*read_judging_sheet"):
        sis.read_judgments(sheet)


def test_an_edited_plan_file_is_refused(tmp_path, capsys):
    # draws edited, rows deleted or repeated in the plan beside a sheet changed the estimate's weights silently
    from softirr_stats.analysis import read_judging_sheet

    sheet = tmp_path / "sheet.csv"
    with pytest.raises(SystemExit) as ex:
        main(["judge", "plan", str(demo_path()), "-m", "indel", "-n", "30", "-o", str(sheet)])
    assert ex.value.code in (0, None), capsys.readouterr().err
    filled = pd.read_csv(sheet, keep_default_na=False).assign(judgment=0.5)
    filled.to_csv(sheet, index=False)
    plan_path = tmp_path / "sheet.plan.csv"
    plan = pd.read_csv(plan_path, keep_default_na=False)
    judged, _ = read_judging_sheet(sheet)
    assert int(judged["draws"].sum()) == 30
    edited = plan.copy()
    edited.loc[0, "draws"] = int(edited.loc[0, "draws"]) + 4
    edited.to_csv(plan_path, index=False)
    with pytest.raises(ValueError, match=r"draws add up to 34, but it was drawn with n = 30"):
        read_judging_sheet(sheet)
    pd.concat([plan, plan.iloc[[2]]]).to_csv(plan_path, index=False)
    with pytest.raises(ValueError, match="appears more than once in the plan"):
        read_judging_sheet(sheet)


def test_bootstrap_advice_is_not_circular():
    ann = sis.Annotations.from_wide([["a", "b"]])
    with pytest.raises(ValueError) as err:
        sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=20, design="items"))
    assert "needs at least 2 items" in str(err.value) and "use design='items'" not in str(err.value)


def _small_csv(tmp_path):
    rows = [(f"i{i}", f"r{r}", "ABC"[(i + (r == 2 and i % 4 == 0)) % 3]) for i in range(12) for r in range(3)]
    path = tmp_path / "cat.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return str(path)


def test_verbose_prints_timed_phase_lines_and_quiet_keeps_stderr_to_errors(tmp_path):
    from typer.testing import CliRunner

    from softirr_stats.cli import app

    runner, csv = CliRunner(), _small_csv(tmp_path)
    loud = runner.invoke(app, ["-v", "agree", csv, "-m", "indel", "--bootstrap", "50"])
    assert loud.exit_code == 0, loud.output
    for phase in ("reading", "read 12 items, 3 raters, 3 distinct labels", "label pairs with indel",
                  "chance term of alpha", "bootstrap: B = 50 replicates, design = items", "computed 1 rows"):
        assert phase in loud.stderr, phase
    assert all(line.startswith("softirr [") and line.rstrip().split("] ")[0].endswith(" s")
               for line in loud.stderr.splitlines() if "reading" in line)
    plain = runner.invoke(app, ["agree", csv, "-m", "indel", "--bootstrap", "50"])  # the level is not kept
    assert plain.exit_code == 0 and "reading" not in plain.stderr and "bootstrap: B" not in plain.stderr
    quiet = runner.invoke(app, ["-q", "agree", csv, "-m", "indel", "--bootstrap", "50"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    fitted = runner.invoke(app, ["-v", "model", csv, "--method", "svi", "--steps", "30"])
    assert fitted.exit_code == 0, fitted.output
    assert "fitting dawid_skene by SVI: 30 steps" in fitted.stderr and "fitted dawid_skene by SVI" in fitted.stderr


def _strict(text: str) -> dict:
    """``json.loads`` that refuses ``NaN`` and ``Infinity`` (JavaScript's JSON.parse and strict parsers do)."""
    import json

    def refuse(token: str) -> None:
        raise ValueError(f"not JSON: {token}")

    return json.loads(text, parse_constant=refuse)


def test_clean_makes_nested_values_json_safe():
    import numpy as np

    from softirr_stats.cli._output import clean

    got = clean({"diagnostics": {"max_r_hat": float("nan"), "ess": [np.float64("inf"), np.float32(2.5)]},
                 "n": (np.int64(3), -np.inf), "grid": np.array([1.0, np.nan])})
    assert got == {"diagnostics": {"max_r_hat": None, "ess": [None, 2.5]}, "n": [3, None], "grid": [1.0, None]}
    assert type(got["n"][0]) is int


def test_every_json_output_is_strict_json(tmp_path, capsys):
    """``--json`` files hold no ``NaN`` token at any depth (an SVI fit's max_r_hat sat nested in meta)."""
    import numpy as np

    rng = np.random.default_rng(1)
    truth = rng.integers(0, 3, 40)
    labels = np.where(rng.random((40, 4)) < 0.8, truth[:, None], rng.integers(0, 3, (40, 4)))
    data = tmp_path / "d.csv"
    pd.DataFrame([{"item": i, "rater": r, "label": "abc"[labels[i, r]]} for i in range(40) for r in range(4)]
                 ).to_csv(data, index=False)
    same = tmp_path / "same.csv"  # every coefficient nan
    pd.DataFrame([{"item": i, "rater": r, "label": "a"} for i in range(10) for r in range(2)]).to_csv(same, index=False)
    runs = {"model": ["model", data, "--method", "svi", "--steps", "50", "--seed", "0"],
            "agree": ["agree", same, "--bootstrap", "0"],
            "sensitivity": ["sensitivity", data, "-c", "fleiss_kappa", "--bootstrap", "0"],
            "describe": ["describe", data]}
    for name, args in runs.items():
        out = tmp_path / f"{name}.json"
        with pytest.raises(SystemExit) as ex:
            main([str(a) for a in args] + ["--json", str(out)])
        assert ex.value.code in (0, None, 1) and out.exists(), (name, capsys.readouterr().err)  # 1: no value
        doc = _strict(out.read_text())
        assert doc, name
    assert "max_r_hat" in str(_strict((tmp_path / "model.json").read_text())["meta"])


@pytest.mark.parametrize("fmt", ["table", "csv", "markdown", "latex"])
def test_escape_sequences_from_the_data_never_reach_the_terminal(tmp_path, capsys, monkeypatch, fmt):
    """Every command's table, CSV and notes printed rater names and quoted labels raw: an ESC [2J in a label
    could clear the screen and an OSC 8 sequence hide a link (describe was fixed on its own first)."""
    monkeypatch.setenv("COLUMNS", "200")
    rows = [(i, r, lab) for i in range(6) for r, lab in (("a", "x" if i % 2 else "y"),
                                                          ("b\x1b]8;;http://evil.example\x1b\\B\x1b]8;;\x1b\\",
                                                           "x" if i % 3 else "y\x1b[2J"))]
    path = tmp_path / "esc.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    with pytest.raises(SystemExit):
        main(["compare", str(path), "--reference", "a", "--bootstrap", "0", "-f", fmt])
    out, err = capsys.readouterr()
    assert "\x1b" not in out and "\x1b" not in err
    assert "x1b" in out + err  # shown by its escape, not dropped


def test_library_messages_reach_the_command_line_in_its_spelling(tmp_path, capsys):
    # the library's remedies reached the terminal as Python keywords (use design='items', 'cluster' or 'bayesian';
    # Bootstrap(design='raters'); icc2's exact-F interval (ci='analytic'); level='interval'), and 'cluster', which
    # --design does not take
    import json
    import re

    def _run(capsys, *args):
        with pytest.raises(SystemExit) as ex:
            main(list(args))
        out, err = capsys.readouterr()
        return ex.value.code, out, err

    python_spelling = re.compile(r"\b(design|ci|level|similarity|weights|chance|method)=")
    two = tmp_path / "two.csv"
    two.write_text("item,rater,label\n" + "".join(f"i{i},r{j},{'abc'[(i + j * (i % 3 == 0)) % 3]}\n"
                                                  for i in range(15) for j in (1, 2)))
    scores = tmp_path / "scores.csv"
    scores.write_text("item,rater,label\n" + "".join(f"i{i},r{j},{(i + j * (i % 2)) % 5 + 1}\n"
                                                     for i in range(12) for j in range(4)))
    for args, said in (
        (["agree", str(two), "-c", "cohen_kappa", "--design", "raters", "--bootstrap", "50"],
         "--design raters resamples raters and needs at least 3; got 2"),
        (["agree", str(scores), "-c", "kendall_w,icc2", "--design", "raters", "--bootstrap", "50", "-f", "json"],
         "use --design items, --cluster COLUMN or --design bayesian"),
        (["compare", str(two), "--reference", "r1", "--design", "raters", "--bootstrap", "50"],
         "Use --design items (raters fixed)"),
        (["agree", str(two), "-c", "krippendorff_alpha:interval", "--bootstrap", "0"],
         "(-c krippendorff_alpha:interval) needs numeric labels"),
    ):
        code, out, err = _run(capsys, *args)
        assert code == 1, (args, err)
        assert said in err and not python_spelling.search(err) and "'cluster'" not in err, err
        if "json" in args:
            notes = " ".join("; ".join(r["warnings"]) for r in json.loads(out)["results"])
            assert "exact-F interval (--analytic)" in notes and not python_spelling.search(notes), notes


def test_a_rows_note_numbers_are_in_increasing_order_each_once():
    """A row whose own note came before a shared one read "5,3,6" (numbers in the order the row met them)."""
    notes = Notes(["first", "second", "shared"])
    assert notes.refs(["own", "shared", "own", "", "fourth"]) == "3,4,5"
    assert notes.lines()[3:] == ["[4] own", "[5] fourth"]


@pytest.mark.parametrize("command", ["agree", "compare"])
def test_the_bounds_advice_names_the_flag(capsys, command):
    # "use at least 400 replicates" was the library's wording on the command line; compare's notes were not
    # worded for it at all
    args = [str(demo_path())] * (2 if command == "compare" else 1)
    with pytest.raises(SystemExit) as ex:
        # compare: a bootstrap interval (auto's jackknife-t of a difference does not rest on the replicates' tails)
        main([command, *args, "-c", "fleiss_kappa", "--bootstrap", "50",
              *(["--method", "percentile"] if command == "compare" else [])])
    out, err = capsys.readouterr()
    assert ex.value.code == 0, err
    assert "use at least 400 replicates (--bootstrap 400)" in out + err


@pytest.mark.parametrize("command", ["agree", "sensitivity", "report", "demo", "compare", "spans"])
def test_the_bootstrap_help_says_pythons_default_differs(command):
    # the command line's B = 1000 (spans: 2000) and Python's sis.Bootstrap() n = 2000 differed without a word
    import typer

    from softirr_stats.cli import app
    from softirr_stats.uncertainty import Bootstrap

    params = {p.name: p for p in typer.main.get_command(app).commands[command].params}
    said = f"Python's sis.Bootstrap() draws {Bootstrap().n} by default"
    assert said in params["bootstrap"].help, params["bootstrap"].help


def test_bootstrap_2000_on_the_command_line_is_pythons_default_interval(tmp_path, run_cli, write_ratings):
    path = write_ratings(tmp_path / "r.csv", n=25)
    code, out, err = run_cli("agree", path, "-c", "fleiss_kappa", "--bootstrap", "2000", "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    py = sis.fleiss_kappa(sis.read_annotations(path), ci=sis.Bootstrap())
    assert (row["ci_low"], row["ci_high"]) == pytest.approx((py.ci_low, py.ci_high), abs=1e-12)
