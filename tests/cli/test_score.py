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


def _args(csv, tmp_path, *extra, cache="s.sqlite"):
    return ["score", str(csv), "--item", "doc", "--rater", "coder", "--label", "code", "-m", "levenshtein",
            "--cache", str(tmp_path / cache), "--no-progress", "--json", str(tmp_path / "run.json"), *extra]


@pytest.fixture
def ray_runs(monkeypatch):
    """``RayBackend.run`` scoring in this process: the backends a command chose, and no Ray instance started."""
    from softirr_stats.equivalence import RayBackend

    made = []

    def run(self, estimator, a, b, slices, commit):
        made.append(self)
        for sl in slices:
            commit(sl, estimator(a[sl], b[sl]))
        return "ray (in this test)", 0

    monkeypatch.setattr(RayBackend, "run", run)
    return made


def test_no_ray_with_ray_options_is_refused(csv, tmp_path, ray_runs):
    for extra in (["--workers", "2"], ["--ray-address", "auto"], ["--gpus-per-worker", "1"], ["--cpus-per-worker", "2"]):
        res = CliRunner().invoke(app, _args(csv, tmp_path, "--no-ray", *extra))
        assert res.exit_code == 2, (extra, res.output)
        assert "--no-ray" in res.output and extra[0] in res.output, res.output
    assert ray_runs == []  # refused before any scoring


def test_cpus_per_worker_implies_ray(csv, tmp_path, ray_runs):
    res = CliRunner().invoke(app, _args(csv, tmp_path, "--cpus-per-worker", "4"))
    assert res.exit_code == 0, res.output
    assert [b.cpus_per_worker for b in ray_runs] == [4.0]
    assert json.loads((tmp_path / "run.json").read_text())["runs"][0]["backend"] == "ray (in this test)"
    ray_runs.clear()
    res = CliRunner().invoke(app, _args(csv, tmp_path, cache="t.sqlite"))
    assert res.exit_code == 0 and ray_runs == []  # no Ray option: in this process
    res = CliRunner().invoke(app, _args(csv, tmp_path, "--ray", cache="u.sqlite"))
    assert res.exit_code == 0 and [b.cpus_per_worker for b in ray_runs] == [1.0]  # the default


@pytest.mark.parametrize("extra, flag", [(["--cpus-per-worker", "nan"], "--cpus-per-worker"),
                                         (["--cpus-per-worker", "inf"], "--cpus-per-worker"),
                                         (["--gpus-per-worker", "nan"], "--gpus-per-worker"),
                                         (["--gpus-per-worker", "-1"], "--gpus-per-worker"),
                                         (["--workers", "0"], "--workers")])
def test_bad_ray_sizes_name_the_flag_before_ray_starts(csv, tmp_path, ray_runs, extra, flag):
    res = CliRunner().invoke(app, _args(csv, tmp_path, *extra))
    assert res.exit_code == 2, res.output
    assert f"error: {flag} must be" in res.output and "_per_worker" not in res.output, res.output
    assert ray_runs == []
