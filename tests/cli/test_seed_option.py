"""``--seed`` is checked by the library's one seed check on every command, before anything is read or computed:
score and judge plan took 2**63 and more (agree refused it), and model said "a number is too large to compute with"
without naming the flag."""

import pytest
import typer.main

from softirr_stats.cli import app

MESSAGE = "--seed must be a non-negative integer, at most 2**63 - 1; got "


@pytest.fixture
def ratings(tmp_path, write_ratings, monkeypatch):
    monkeypatch.chdir(tmp_path)  # a command that ran writes its outputs here
    return write_ratings(tmp_path / "r.csv")


@pytest.mark.parametrize("command", [
    ["agree", "{f}", "--bootstrap", "0"],
    ["score", "{f}", "-m", "levenshtein"],
    ["judge", "plan", "{f}", "-m", "levenshtein", "-n", "10"],
    ["model", "{f}", "--method", "svi", "--steps", "10"],
    ["spans", "{f}"],
    ["demo"],
])
@pytest.mark.parametrize("seed", [2**63, 2**70, -1])
def test_every_command_refuses_a_seed_out_of_range_naming_the_flag(run_cli, ratings, command, seed):
    code, out, err = run_cli(*[a.format(f=ratings) for a in command], "--seed", seed)
    assert code == 2 and out == ""
    assert err == f"error: {MESSAGE}{seed}\n"


def test_the_largest_seed_is_taken(run_cli, ratings):
    code, _, err = run_cli("score", ratings, "-m", "levenshtein", "--seed", 2**63 - 1)
    assert code == 0, err


def _seeded_commands():
    def walk(group, path):
        for name, cmd in group.commands.items():
            yield from walk(cmd, [*path, name]) if hasattr(cmd, "commands") else [([*path, name], cmd)]

    return [path for path, cmd in walk(typer.main.get_command(app), []) if any("--seed" in p.opts for p in cmd.params)]


SEEDED = _seeded_commands()


def test_the_seeded_commands_are_found():
    assert {"agree", "sensitivity", "report", "compare", "spans", "score", "demo", "plan", "model", "judge plan"} <= \
        {" ".join(p) for p in SEEDED}


@pytest.mark.parametrize("path", SEEDED, ids=" ".join)
def test_the_seed_is_checked_first_on_every_command(run_cli, path):
    """The check is the option's own (its callback): no file, no other option is needed to meet it."""
    code, out, err = run_cli(*path, "--seed", 2**63)
    assert (code, out, err) == (2, "", f"error: {MESSAGE}{2**63}\n")
