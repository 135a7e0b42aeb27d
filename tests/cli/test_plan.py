"""``softirr plan``: the weights of ``-m`` reach the plan, and the options are checked before any work."""

import json

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.cli import main

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.DegenerateWarning")


def run(capsys, *args):
    with pytest.raises(SystemExit) as exit_:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    return exit_.value.code, out, err


@pytest.fixture()
def scores(tmp_path):
    """A 1-4 scale, 4 raters, 40 items: weighted and unweighted kappa differ."""
    rng = np.random.default_rng(1)
    truth = rng.integers(1, 5, 40)
    rows = [(f"i{i:02d}", r, int(truth[i] if rng.random() < 0.6 else rng.integers(1, 5)))
            for i in range(40) for r in ("r1", "r2", "r3", "r4")]
    path = tmp_path / "num.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("coefficient", ["fleiss_kappa", "krippendorff_alpha"])
def test_weights_of_measure_reach_the_plan(capsys, scores, coefficient):
    # -m quadratic was read and then dropped: the plan was the unweighted coefficient's
    code, out, err = run(capsys, "plan", scores, "-c", coefficient, "--halfwidth", "0.1", "-m", "quadratic",
                         "--bootstrap", "200", "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    ann = sis.read_annotations(scores)
    # weights= where the coefficient takes them (Fleiss), the same weight matrix as similarity= where not (alpha)
    extra = {"options": {"weights": "quadratic"}} if coefficient == "fleiss_kappa" else {"similarity": "quadratic"}
    py = sis.plan_items(coefficient, halfwidth=0.1, pilot=ann, bootstrap=200, **extra)
    plain = sis.plan_items(coefficient, halfwidth=0.1, pilot=ann, bootstrap=200)
    assert (row["value"], row["n_items"]) == (pytest.approx(py.to_frame()["value"][0]), py.n)
    assert row["n_items"] != plain.n
    assert json.loads(out)["meta"]["similarity"] == "quadratic"


@pytest.mark.parametrize(("args", "needle"), [
    (["--seed", "-1"], "--seed must be a non-negative integer"),
    (["--seed", str(2**63)], "--seed must be a non-negative integer, at most 2**63 - 1"),
    (["--bootstrap", "1"], "--bootstrap must be at least 2 replicates"),
    (["--bootstrap", "0"], "--bootstrap must be at least 2 replicates"),
    (["--level", "1.5"], "--level must lie strictly between 0 and 1"),
    (["--alpha", "2"], "--alpha must lie strictly between 0 and 1"),
    (["--null", "0.3", "--power", "1.5"], "--power must lie strictly between 0 and 1"),
    (["--halfwidth", "-0.1"], "--halfwidth must be positive"),
    (["--raters", "1"], "--raters must be at least 2"),
])
def test_options_are_checked_up_front_in_cli_spelling(capsys, scores, args, needle):
    # --seed -1 and --bootstrap 1 were accepted where the pilot needed no bootstrap; other errors were Python's
    # ("n must be >= 2", "level must be in (0, 1)")
    for source in ([scores], ["--value", "0.6", "--prevalence", "0.5,0.5"]):
        code, out, err = run(capsys, "plan", *source, "--halfwidth", "0.1", *args)
        assert code == 2 and out == "", (args, err)
        assert needle in err and err.count("\n") == 1, (args, err)


def test_the_pilots_warnings_are_numbered_notes_not_raw_python_lines(tmp_path, capsys):
    """A pilot with a one-rating item printed "_plan.py:629: UnpairableItemsWarning ..." on stderr beside the
    same text as note [1]."""
    rows = [(f"i{i}", r, (i + (r == "b")) % 3) for i in range(30) for r in ("a", "b", "c")] + [("lone", "a", 1)]
    path = tmp_path / "pilot.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    code, out, err = run(capsys, "plan", path, "-c", "fleiss_kappa", "--halfwidth", "0.1", "-f", "csv")
    assert code == 0 and "Warning" not in err and ".py:" not in err
    assert (out + err).count("1 of 31 items have one rating") == 1


@pytest.mark.parametrize("method", ["analytic", "bootstrap"])
def test_method_reaches_the_plan(capsys, scores, method):
    # plan_items(method=...) had no CLI spelling: a pilot's variance was always the 'auto' choice
    code, out, err = run(capsys, "plan", scores, "--halfwidth", "0.1", "--method", method, "--bootstrap", "200",
                         "-f", "json")
    assert code == 0, err
    row = json.loads(out)["results"][0]
    py = sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=sis.read_annotations(scores), method=method,
                        bootstrap=200)
    expected = py.to_frame().iloc[0]
    assert row["n_items"] == py.n
    for key in ("value", "se_at_n", "halfwidth_at_n"):
        assert row[key] == pytest.approx(expected[key], abs=1e-12, rel=0), key
    other = "bootstrap" if method == "analytic" else "analytic"
    assert py.n != sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=sis.read_annotations(scores), method=other,
                                  bootstrap=200).n


@pytest.mark.parametrize(("args", "needle"), [
    (["FILE", "--method", "boot"], "--method must be one of auto, analytic, bootstrap; got 'boot' (did you mean "
                                   "'bootstrap'?)"),
    (["FILE", "--method", "analytic", "--design", "items+raters"], "--method analytic has no rater term"),
    (["--value", "0.6", "--prevalence", "0.5,0.5", "--method", "bootstrap"], "--method is how a pilot FILE's variance"),
    (["FILE", "--judgments", "sheet.csv", "--method", "analytic"], "--method is not used with --judgments"),
])
def test_bad_method_is_refused_in_cli_spelling(capsys, scores, args, needle):
    args = [scores if a == "FILE" else scores.parent / a if a == "sheet.csv" else a for a in args]
    code, out, err = run(capsys, "plan", *args, "--halfwidth", "0.1")
    assert code == 2 and out == "", err
    assert needle in err and err.count("\n") == 1, err


def test_plan_messages_name_the_options(capsys, scores):
    """plan's errors and notes read 'use ci=softirr_stats.Bootstrap(...)', 'design='cluster' needs
    design_effect=, ... or (with a pilot) cluster=' (plan has no --cluster) and 'cluster_size not given'."""
    import re

    python = re.compile(r"\b(ci|design|design_effect|cluster_size|icc|raters|cluster)=")
    for args, said in (
        (["-c", "light_kappa", "--method", "analytic"], "use --method bootstrap (or auto)"),
        (["--design", "cluster"], "--design cluster needs --design-effect, or --cluster-size and --icc"),
        (["--design", "cluster", "--design-effect", "2", "-f", "json"], "--cluster-size not given"),
    ):
        code, out, err = run(capsys, "plan", scores, "--halfwidth", "0.1", *args)
        text = " ".join((out + err).split())
        assert said in text and not python.search(text), (args, text)
