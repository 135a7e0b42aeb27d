"""The parser of every command (cli._parsing.OnceCommand): a one-value option given twice with different values is
refused naming the flag and both values (click kept the last one silently), and an empty path is refused as empty
(it was read as the current directory)."""

import pytest

from softirr_stats.cli import app
from softirr_stats.cli._parsing import OnceCommand


@pytest.fixture
def ratings(tmp_path, write_ratings, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a command the old parser ran writes its outputs here
    return write_ratings(tmp_path / "r.csv")


@pytest.mark.parametrize(("args", "flag", "first", "second"), [
    (["agree", "{f}", "--level", "0.9", "--level", "0.5"], "--level", "0.9", "0.5"),
    (["agree", "{f}", "--bootstrap", "100", "--bootstrap=0"], "--bootstrap", "100", "0"),
    (["agree", "{f}", "-f", "csv", "--format", "json"], "--format (-f)", "csv", "json"),
    (["spans", "{f}", "-m", "exact", "-m", "levenshtein"], "--similarity (-m)", "exact", "levenshtein"),
    (["judge", "plan", "{f}", "-m", "levenshtein", "-m", "indel"], "--similarity (-m)", "levenshtein", "indel"),
    (["model", "{f}", "--method", "svi", "--steps", "10", "--steps", "20"], "--steps", "10", "20"),
])
def test_a_one_value_option_given_twice_is_refused_naming_both_values(run_cli, ratings, args, flag, first, second):
    code, out, err = run_cli(*[a.format(f=ratings) for a in args])
    assert code == 2 and out == ""
    assert f"give {flag} once: it takes one value; got {first!r} and {second!r}" in err


def test_the_same_value_twice_and_repeatable_options_pass(run_cli, ratings):
    code, out, _ = run_cli("agree", ratings, "-c", "fleiss_kappa", "-c", "gwet_ac1", "--level", "0.9",
                           "--level", "0.9", "--bootstrap", "50", "-f", "csv")
    assert code == 0 and "fleiss_kappa" in out and "gwet_ac1" in out


def test_the_older_name_beside_the_new_one_keeps_its_own_message(run_cli, ratings):
    code, _, err = run_cli("spans", ratings, "-m", "exact", "--measure", "levenshtein")
    assert code == 2 and "give --similarity once (--measure is its older name)" in err


def test_a_repeated_distance_option_key_is_refused(run_cli, ratings):
    code, _, err = run_cli("agree", ratings, "-c", "distance_sigma", "--bootstrap", "0",
                           "--distance-option", "threshold=0.01", "--distance-option", "threshold=0.2")
    assert code == 2 and "--distance-option threshold=0.01 and --distance-option threshold=0.2 both set threshold: give it once" in err
    code, _, _ = run_cli("agree", ratings, "-c", "distance_sigma", "--bootstrap", "0",
                         "--distance-option", "threshold=0.01", "--distance-option", "threshold=0.01")
    assert code == 0


@pytest.mark.parametrize("value", ["", " "])
@pytest.mark.parametrize("flag", ["--json", "--cache"])
def test_an_empty_path_is_refused_as_empty(run_cli, ratings, flag, value):
    code, _, err = run_cli("agree", ratings, "--bootstrap", "0", flag, value)
    assert code == 2 and f"{flag} was given an empty path ({value!r}); give a file name" in err
    assert "directory" not in err


def test_every_command_parses_with_the_checking_parser():
    import typer.main

    def commands(group):
        for cmd in group.commands.values():
            yield from commands(cmd) if hasattr(cmd, "commands") else [cmd]

    found = list(commands(typer.main.get_command(app)))
    assert len(found) >= 11 and all(isinstance(c, OnceCommand) for c in found), \
        [c.name for c in found if not isinstance(c, OnceCommand)]
