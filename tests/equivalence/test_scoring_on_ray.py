"""Scoring on a local Ray cluster (the [distributed] extra): equal to in-process scoring bit for
bit, an actor SIGKILLed mid-run, a driver SIGKILLed mid-run and resumed, cache integrity.

One local Ray instance (2 CPUs) serves the whole module; the estimator is a tiny random
BERT-style NLI cross-encoder built offline in the test.
"""

import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (the [distributed] extra)")
torch = pytest.importorskip("torch", reason="torch is not installed (the [transformers] extra)")
pytest.importorskip("transformers", reason="transformers is not installed")

from softirr_stats.equivalence import Cached, Nli, RayBackend, fill_cache, to_spec  # noqa: E402
from softirr_stats.equivalence._fill import unique_pairs  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.transformers, pytest.mark.timeout(600)]

WORDS = ["acute", "pain", "chest", "heart", "attack", "fever", "high", "mild", "cough", "dry", "rash", "skin",
         "head", "ache", "leg", "broken", "seizure", "renal", "failure", "liver"]
Q = "SELECT a, b, score FROM scores ORDER BY a, b"


def _labels(n, seed=0):
    rng = np.random.default_rng(seed)
    out = set()
    while len(out) < n:
        out.add(" ".join(rng.choice(WORDS, rng.integers(1, 4))))
    return sorted(out)


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory, save_tiny_nli):
    path = tmp_path_factory.mktemp("tiny") / "tiny-nli"
    return str(save_tiny_nli(path, WORDS, hidden_size=64, layers=2, intermediate_size=128))


@pytest.fixture(scope="module")
def cluster():
    if ray.is_initialized():  # pragma: no cover - another module left one running
        ray.shutdown()
    ctx = ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
                   runtime_env={"env_vars": {"OMP_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1",
                                             "TOKENIZERS_PARALLELISM": "false"}})
    yield ctx.address_info["gcs_address"]
    ray.shutdown()


def _est(path):
    return Nli(path, device="cpu", dtype="fp32", batch_size=16, progress=False)


def _pairs(n_labels=40, seed=0):
    lab = _labels(n_labels, seed)
    i, j = np.triu_indices(len(lab), k=1)
    return [lab[k] for k in i], [lab[k] for k in j]


def _rows(path):
    con = sqlite3.connect(path)
    try:
        return con.execute(Q).fetchall()
    finally:
        con.close()


def _check_integrity(path, n_expected):
    con = sqlite3.connect(path)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        n, n_distinct = con.execute("SELECT COUNT(*), COUNT(DISTINCT fp || '|' || a || '|' || b) FROM scores").fetchone()
        assert n == n_distinct == n_expected
        lo, hi = con.execute("SELECT MIN(score), MAX(score) FROM scores").fetchone()
        assert 0.0 <= lo <= hi <= 1.0
    finally:
        con.close()


def _descendants(root):
    """PIDs of every live process below ``root`` in the process tree (read from /proc)."""
    children = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:  # gone since the listing
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])  # the name in (...) may hold spaces
            children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [root]
    while todo:
        kids = children.get(todo.pop(), [])
        out += kids
        todo += kids
    return out


def _actor_pids():
    """PIDs of this session's live scoring actors (Ray titles the process ``ray::_ScoringActor...``).

    Only the processes below this test process count: the module's Ray instance was started
    here, so its raylet and the workers it spawns descend from it, while the actors of any
    other Ray instance on the machine (another test run) do not.
    """
    out = []
    for pid in _descendants(os.getpid()):
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if cmd.startswith(b"ray::_ScoringActor"):
            out.append(pid)
    return sorted(out)


def test_two_actors_equal_in_process_bit_for_bit(cluster, tiny_nli, tmp_path):
    a, b = _pairs(30)
    local = fill_cache(_est(tiny_nli), a, b, tmp_path / "local.sqlite", batch_size=32, progress=False)
    dist = fill_cache(_est(tiny_nli), a, b, tmp_path / "ray.sqlite", batch_size=32, progress=False,
                      backend=RayBackend(workers=2))
    assert dist.backend.startswith("ray (2 workers") and dist.n_redone == 0
    assert local.n_pairs == dist.n_pairs == dist.n_written == 30 * 29 // 2
    assert _rows(tmp_path / "local.sqlite") == _rows(tmp_path / "ray.sqlite")  # same floats, bit for bit
    _check_integrity(tmp_path / "ray.sqlite", dist.n_pairs)
    again = fill_cache(_est(tiny_nli), a, b, tmp_path / "ray.sqlite", batch_size=32, backend=RayBackend(workers=2))
    assert again.n_scored == 0 and again.n_cached == dist.n_pairs


def test_actor_killed_mid_run_batch_redone(cluster, tiny_nli, tmp_path):
    a, b = _pairs(40, seed=1)
    killed = []

    def kill_one(done, total):
        if not killed:
            pids = _actor_pids()
            assert len(pids) == 2, pids
            os.kill(pids[0], signal.SIGKILL)  # an actor with batches queued: dies mid-batch
            killed.append(pids[0])

    rep = fill_cache(_est(tiny_nli), a, b, tmp_path / "ray.sqlite", batch_size=16, progress=False,
                     backend=RayBackend(workers=2), on_batch=kill_one)
    assert killed and rep.n_redone >= 1
    assert rep.n_scored == rep.n_written == rep.n_pairs == 40 * 39 // 2
    _check_integrity(tmp_path / "ray.sqlite", rep.n_pairs)
    fill_cache(_est(tiny_nli), a, b, tmp_path / "local.sqlite", batch_size=16, progress=False)
    assert _rows(tmp_path / "local.sqlite") == _rows(tmp_path / "ray.sqlite")


@pytest.mark.filterwarnings("ignore:.*items have (one|no) rating")
def test_driver_killed_and_resumed(cluster, tiny_nli, tmp_path):
    labels = _labels(70, seed=2)
    rng = np.random.default_rng(3)
    csv = tmp_path / "ann.csv"
    lines = ["item,rater,label"] + [f"d{i},r{r},{rng.choice(labels)}" for i in range(60) for r in range(3)]
    lines += [f"x{k},r0,{lab}" for k, lab in enumerate(labels)]  # every label in the chance support
    csv.write_text("\n".join(lines) + "\n")
    cache = tmp_path / "s.sqlite"
    spec = tmp_path / "nli.json"
    spec.write_text(to_spec(_est(tiny_nli)).to_json())
    cmd = [sys.executable, "-c", "from softirr_stats.cli import main; main()", "score", str(csv), "-m",
           f"@{spec}", "-c", "fleiss_kappa", "--cache", str(cache), "--batch-size", "8", "--no-progress",
           "--ray-address", cluster, "--workers", "2"]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    n_total = len(labels) * (len(labels) - 1) // 2
    n_at_kill = 0
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if cache.exists():
            try:
                n_at_kill = sqlite3.connect(cache, timeout=5).execute("SELECT COUNT(*) FROM scores").fetchone()[0]
            except sqlite3.OperationalError:  # schema not created yet
                n_at_kill = 0
            if n_at_kill >= 24:
                break
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be interrupted:\n" + proc.stdout.read().decode()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    n_kept = len(_rows(cache))
    assert 24 <= n_kept < n_total
    assert n_kept % 8 == 0  # whole committed batches only
    _check_integrity(cache, n_kept)
    # resume in this process through the same public path: only the missing pairs are scored
    from softirr_stats.analysis import scoring_plan
    from softirr_stats.data import read_annotations

    plan = scoring_plan(read_annotations(csv), _est(tiny_nli), coefficients="fleiss_kappa")
    assert plan.n_pairs == n_total
    rep = plan.run(cache, batch_size=8, progress=False, backend=RayBackend(workers=1))
    assert rep.n_cached == n_kept and rep.n_scored == n_total - n_kept == rep.n_written
    _check_integrity(cache, n_total)
    fresh = tmp_path / "fresh.sqlite"
    plan.run(fresh, batch_size=8, progress=False)
    got, want = _rows(cache), _rows(fresh)
    assert [r[:2] for r in got] == [r[:2] for r in want]
    np.testing.assert_array_equal([r[2] for r in got], [r[2] for r in want])  # bit for bit
    est = Cached(_est(tiny_nli), cache)
    import softirr_stats as sis

    sis.fleiss_kappa(read_annotations(csv), similarity=est)
    assert est.n_misses == 0


def test_ray_backend_validates_and_refuses_callables(cluster, tmp_path):
    from softirr_stats.equivalence import as_estimator

    with pytest.raises(ValueError, match="workers"):
        RayBackend(workers=0)
    with pytest.raises(ValueError, match="gpus_per_worker"):
        RayBackend(gpus_per_worker=-1)
    fn = as_estimator(lambda a, b: np.zeros(len(a)), symmetric=True)
    with pytest.raises(TypeError, match="arbitrary callable"):
        fill_cache(fn, ["a"], ["b"], tmp_path / "s.sqlite", backend=RayBackend(workers=1))
    assert re.match(r"ray \(", fill_cache(_est_lev(), ["ab"], ["ac"], tmp_path / "t.sqlite",
                                          backend=RayBackend(workers=1)).backend)


def test_worker_build_failure_stops_the_run(cluster):
    from softirr_stats.equivalence._ray import _drive, _ScoringActor

    cls = ray.remote(num_cpus=1, max_restarts=-1, max_task_retries=0)(_ScoringActor)
    act = cls.remote('{"cls": "softirr_stats.equivalence._string:Jaccard", "params": {}, "fingerprint": "other"}')
    a = np.array(["a b"], dtype=object)
    try:
        with pytest.raises(RuntimeError, match="(?s)could not be built on a Ray worker.*expects 'other'"):
            _drive(ray, [act], a, a[::-1], [slice(0, 1)], lambda sl, s: None, 2, 120.0)
    finally:
        ray.kill(act)


def _est_lev():
    from softirr_stats.equivalence import Levenshtein

    return Levenshtein()


def test_unique_pairs_order_is_stable():
    a, b = _pairs(12)
    ua, ub = unique_pairs(b[::-1], a[::-1], symmetric=True)
    va, vb = unique_pairs(a, b, symmetric=True)
    assert ua.tolist() == va.tolist() and ub.tolist() == vb.tolist()
