"""``softirr score``: fills the cache with the plan's pairs; a rerun scores nothing; errors exit 2."""

import json
import sqlite3

import pytest
from typer.testing import CliRunner

import softirr_stats as sis
from softirr_stats.agreement import resolve_chance
from softirr_stats.cli import app
from softirr_stats.cli.score import estimator_for_measure
from softirr_stats.equivalence import Cached, Levenshtein

ROWS = [("d1", "r1", "fever"), ("d1", "r2", "fevre"), ("d1", "r3", "high fever"), ("d2", "r1", "cough"),
        ("d2", "r2", "coughing"), ("d3", "r1", "rash"), ("d3", "r2", "rash"), ("d3", "r3", "skin rash"),
        ("d4", "r2", "headache"), ("d4", "r3", "head ache")]


@pytest.fixture
def csv(tmp_path):
    p = tmp_path / "ann.csv"
    p.write_text("doc,coder,code\n" + "\n".join(",".join(r) for r in ROWS) + "\n")
    return p


def test_score_fills_then_resumes(csv, tmp_path):
    cache, out = tmp_path / "s.sqlite", tmp_path / "run.json"
    args = ["score", str(csv), "--item", "doc", "--rater", "coder", "--label", "code", "-m", "levenshtein",
            "-c", "fleiss_kappa,krippendorff_alpha", "--cache", str(cache), "--no-progress"]
    res = CliRunner().invoke(app, args + ["--json", str(out)])
    assert res.exit_code == 0, res.output
    run = json.loads(out.read_text())["runs"][0]
    n = run["n_pairs"]
    assert n == 9 * 8 // 2 and run["n_scored"] == n and run["n_cached"] == 0  # the support: 9 distinct labels
    assert sqlite3.connect(cache).execute("SELECT COUNT(*) FROM scores").fetchone()[0] == n
    res2 = CliRunner().invoke(app, args + ["--json", str(out)])
    assert res2.exit_code == 0 and json.loads(out.read_text())["runs"][0]["n_scored"] == 0
    ann = sis.read_annotations(csv, item="doc", rater="coder", label="code")
    est = Cached(Levenshtein(), cache)
    assert sis.fleiss_kappa(ann, similarity=est).value == sis.fleiss_kappa(ann, similarity=Levenshtein()).value
    assert est.n_misses == 0


def test_score_errors_exit_2(csv, tmp_path):
    for extra in (["-m", "nli"], ["-m", "bogus"], ["--chance", "sampled:x"], ["-c", "fleiss"], ["--batch-size", "0"]):
        res = CliRunner().invoke(app, ["score", str(csv), "--item", "doc", "--rater", "coder", "--label", "code",
                                       "--cache", str(tmp_path / "s.sqlite"), *extra])
        assert res.exit_code == 2, (extra, res.output)
        assert "error" in res.output


def test_measure_and_chance_parsing(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text('{"cls": "softirr_stats.equivalence._string:Jaccard", "params": {}}')
    assert estimator_for_measure("@" + str(spec)).name == "jaccard"
    assert estimator_for_measure("Levenshtein").name == "levenshtein"
    with pytest.raises(ValueError, match="needs a model"):
        estimator_for_measure("llm_judge")
    assert resolve_chance("montecarlo:3", seed=1) == sis.MonteCarlo(permutations=3, seed=1)
    assert resolve_chance("AUTO") == "auto"
