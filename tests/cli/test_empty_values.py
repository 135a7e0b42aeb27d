"""An empty value of a name option is refused naming the flag: -c "", -m "" and --chance "" ran the default
(krippendorff_alpha, exact, exact chance) without a word. (An empty path: tests/cli/test_parsing.py.)"""

import pytest


@pytest.fixture
def ratings(tmp_path, write_ratings, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return write_ratings(tmp_path / "r.csv")


@pytest.mark.parametrize("command", [
    ["agree", "{f}", "--bootstrap", "0"],
    ["sensitivity", "{f}", "--bootstrap", "0"],
    ["report", "{f}", "--bootstrap", "0"],
    ["score", "{f}", "-m", "levenshtein"],
    ["compare", "{f}", "--groups", "r1,r2:r2,r3", "--bootstrap", "0"],
])
@pytest.mark.parametrize("value", ["", " ", ",", " , "])
def test_an_empty_coefficient_is_refused(run_cli, ratings, command, value):
    code, out, err = run_cli(*[a.format(f=ratings) for a in command], "-c", value)
    assert code == 2 and out == ""
    assert f"--coefficient was given an empty value ({value!r})" in err


@pytest.mark.parametrize(("command", "flag"), [
    (["agree", "{f}", "--bootstrap", "0"], "-m"),
    (["agree", "{f}", "--bootstrap", "0", "-m", "exact"], "--measure"),
    (["sensitivity", "{f}", "--bootstrap", "0"], "-m"),
    (["report", "{f}", "--bootstrap", "0"], "-m"),
    (["score", "{f}"], "-m"),
    (["compare", "{f}", "--groups", "r1,r2:r2,r3", "--bootstrap", "0"], "-m"),
])
def test_an_empty_similarity_is_refused(run_cli, ratings, command, flag):
    code, out, err = run_cli(*[a.format(f=ratings) for a in command], flag, "")
    assert code == 2 and out == ""
    assert "--similarity was given an empty value ('')" in err


@pytest.mark.parametrize("command", [
    ["agree", "{f}", "--bootstrap", "0"],
    ["sensitivity", "{f}", "--bootstrap", "0"],
    ["report", "{f}", "--bootstrap", "0"],
    ["score", "{f}", "-m", "levenshtein"],
])
def test_an_empty_chance_is_refused(run_cli, ratings, command):
    code, out, err = run_cli(*[a.format(f=ratings) for a in command], "--chance", "")
    assert code == 2 and out == ""
    assert "--chance was given an empty value ('')" in err


def test_names_beside_an_empty_piece_still_run(run_cli, ratings):
    code, out, err = run_cli("agree", ratings, "--bootstrap", "0", "-c", "fleiss_kappa,", "-f", "csv")
    assert code == 0 and "fleiss_kappa" in out, err
