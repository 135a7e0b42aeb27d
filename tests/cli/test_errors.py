"""The command line's message lines (``error:`` / ``warning:`` / ``note:``): one line each, never acted on."""

import pytest
import typer

from softirr_stats.cli._errors import fail, note, warn


def test_message_lines_show_control_characters_by_their_escapes(capsys):
    """A label or name quoted raw in a message (``ESC [2J``, an OSC 8 link) could clear or repaint the terminal."""
    warn("label '\x1b[2J\x1b[Hcleared'\nsecond line")
    note("rater \x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\ \x9b1m")
    with pytest.raises(typer.Exit):
        fail("bad \x07 bell")
    err = capsys.readouterr().err
    assert err.splitlines() == ["warning: label '\\x1b[2J\\x1b[Hcleared' second line",
                                "note: rater \\x1b]8;;http://evil.example\\x1b\\click\\x1b]8;;\\x1b\\ \\x9b1m",
                                "error: bad \\x07 bell"]


def test_every_reading_failure_names_the_flag_and_the_file_once(tmp_path, run_cli, write_ratings):
    """``--judgments`` / ``--gold`` (cli._errors.reading) and the annotation FILEs (cli._options.reading_files) say a
    reading failure in one wording: ``cannot read [FLAG ]FILE: reason``, the file named once. The flags' said
    ``cannot read --judgments out/sheet.csv: sheet.csv is a blinded sheet ...`` (the file twice)."""
    data = write_ratings(tmp_path / "d.csv")
    sheet = tmp_path / "sheet.csv"
    sheet.write_text("pair_id,label_1,label_2,judgment\np0001,a,b,1\n")  # a blinded sheet without its plan
    plan = tmp_path / "sheet.plan.csv"
    missing = f"it is a blinded sheet; its plan {plan} (written beside it by `softirr judge plan`) is missing"
    for command in ("agree", "sensitivity"):
        code, out, err = run_cli(command, data, "-m", "indel", "--bootstrap", "0", "--judgments", sheet)
        assert (code, out) == (2, "") and err == f"error: cannot read --judgments {sheet}: {missing}\n", err
    code, out, err = run_cli("model", data, "--model", "soft", "-m", "indel", "--gold", sheet, "--method", "svi")
    assert (code, out) == (2, "") and err == f"error: cannot read --gold {sheet}: {missing}\n", err
    bad = tmp_path / "bad.csv"
    bad.write_text("x,y\n1,2\n")  # neither a sheet nor a plan: the reader names the file, said once
    code, _, err = run_cli("sensitivity", data, "-m", "indel", "--judgments", bad, "--bootstrap", "0")
    assert code == 2 and err.startswith(f"error: cannot read --judgments {bad}: a judging sheet needs the columns "
                                        "pair_id and judgment"), err
    assert err.count("bad.csv") == 1
    # the annotation files: no flag, the same shape
    code, _, err = run_cli("agree", data, "--reader-option", "no_such_option=1", "--bootstrap", "0")
    assert code == 2 and err.startswith(f"error: cannot read {data}: ") and err.count("d.csv") == 1, err
