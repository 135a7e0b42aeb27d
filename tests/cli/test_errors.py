"""The command line's message lines (``error:`` / ``warning:`` / ``note:``): one line each, never acted on."""

import pathlib

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


def test_a_library_refusal_of_a_command_option_names_its_flag(tmp_path, run_cli, write_ratings):
    """A library message whose subject is one of the command's options (``workers must be ...``, ``device must be
    one of [...]``, ``match must be ...``, ``device='cuda' ...``) is said with the flag, in the command line's
    words (no ``or None``): cli._errors.flag_wording, from the command's own parameters."""
    data = write_ratings(tmp_path / "d.csv")
    code, _, err = run_cli("agree", data, "--bootstrap", "0", "--device", "gpu")
    assert code == 2 and err == "error: --device must be one of ['auto', 'cpu', 'cuda']; got 'gpu'\n", err
    code, _, err = run_cli("score", data, "-m", "indel", "--cache", tmp_path / "s.sqlite", "--workers", "0")
    assert code == 2 and err == "error: --workers must be a positive integer; got 0\n", err
    brat = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "bratiaa_example"
    code, _, err = run_cli("spans", brat, "--match", "overlap:2", "--bootstrap", "0")
    assert code == 2 and err.startswith("error: --match must be one of ['exact', 'overlap', 'overlap:<IoU>']"), err


def test_flag_wording_leaves_other_messages_alone():
    from softirr_stats.cli._errors import flag_wording

    flags = {"level": "--level", "device": "--device"}
    assert flag_wording("level must be in (0, 1); got 95", flags) == "--level must be in (0, 1); got 95"
    assert flag_wording("the level must be in (0, 1)", flags) == "the level must be in (0, 1)"  # not its subject
    assert flag_wording("workers must be a positive integer or None; got 0", flags) == \
        "workers must be a positive integer or None; got 0"  # not an option of this command
    assert flag_wording("device needs torch", flags) == "device needs torch"
    assert flag_wording("level must be in (0, 1); got None or 1", flags) == "--level must be in (0, 1); got None or 1"
