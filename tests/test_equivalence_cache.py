"""Cached: persistent SQLite pair cache, across processes and through a killed run."""

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from rapidfuzz.distance import Levenshtein as RLev

from softirr_stats.equivalence import (
    Cached,
    Levenshtein,
    SetMatch,
    as_estimator,
    score_pairs,
    similarity_matrix,
)


class Counting:
    def __init__(self, symmetric=True, fingerprint="lev-counting"):
        self.n = 0
        self.symmetric = symmetric
        self.name = "counting"
        self.fingerprint = fingerprint

    def __call__(self, a, b):
        self.n += len(a)
        return np.array([RLev.normalized_similarity(x, y) for x, y in zip(a, b, strict=False)])


def test_hits_misses_and_persistence(tmp_path):
    path = tmp_path / "s.sqlite"
    base = Counting()
    est = Cached(base, path, batch_size=2)
    a, b = ["abc", "abd", "x", "x", "q"], ["abd", "abc", "y", "x", "qq"]
    s1 = est(a, b)
    assert base.n == 3 and est.n_misses == 3 and est.n_hits == 0  # symmetric (abc, abd) once
    np.testing.assert_allclose(s1, Levenshtein()(a, b))
    est.close()
    base2 = Counting()
    est2 = Cached(base2, path)
    np.testing.assert_allclose(est2(b, a), s1)
    assert base2.n == 0 and est2.n_hits == 3 and est2.n_cached() == 3
    # another fingerprint in the same file is kept apart
    other = Counting(fingerprint="other")
    Cached(other, path)(a, b)
    assert other.n == 3
    assert est2.fingerprint == base2.fingerprint and est2.name == "counting"


def test_directional_and_set_labels(tmp_path):
    calls = []

    def directional(a, b):
        calls.extend(zip(a, b, strict=False))
        return np.array([0.25 if len(x) < len(y) else 0.75 for x, y in zip(a, b, strict=False)])

    est = Cached(as_estimator(directional, fingerprint="dir-v1"), tmp_path / "d.sqlite")
    assert est(["a", "bb"], ["bb", "a"]).tolist() == [0.25, 0.75]
    assert est(["bb", "a"], ["a", "bb"]).tolist() == [0.75, 0.25]
    assert len(calls) == 2
    sm = Cached(SetMatch(Levenshtein()), tmp_path / "d.sqlite")
    s1 = sm([frozenset({"abc", "x"})], [frozenset({"abd"})])
    s2 = sm([frozenset({"x", "abc"})], [("abd",)])
    assert sm.n_misses == 2 and s1[0] == pytest.approx(2 * (2 / 3) / 3)  # tuple != frozenset key
    assert sm([frozenset({"abd"})], [frozenset({"x", "abc"})])[0] == s1[0] and sm.n_hits == 1
    assert s2[0] == pytest.approx(s1[0])


def test_engine_through_cache(tmp_path):
    labels = ["heart attack", "heart failure", "broken leg", "seizure", "heart attacks"]
    base = Counting()
    est = Cached(base, tmp_path / "e.sqlite")
    S = similarity_matrix(est, labels)
    assert base.n == 10
    np.testing.assert_allclose(S, similarity_matrix(Levenshtein(), labels), atol=1e-12)
    s, st = score_pairs(est, labels, labels[::-1], return_stats=True)
    assert base.n == 10 and st.n_scored == 2


WRITER = textwrap.dedent("""
    import sys, time
    import numpy as np
    from rapidfuzz.distance import Levenshtein
    from softirr_stats.equivalence import Cached, as_estimator

    def slow(a, b):
        time.sleep(float(sys.argv[3]))
        return np.array([Levenshtein.normalized_similarity(x, y) for x, y in zip(a, b)])

    path, offset, delay, n = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    est = Cached(as_estimator(slow, symmetric=True, fingerprint="slow-lev-v1"), path, batch_size=10)
    a = [f"w{i}" for i in range(offset, offset + n)]
    b = [f"v{i % 37}" for i in range(offset, offset + n)]
    print("ready", flush=True)
    est(a, b)
    print("done", est.n_misses, flush=True)
""")


def _expected(offset, n):
    a = [f"w{i}" for i in range(offset, offset + n)]
    b = [f"v{i % 37}" for i in range(offset, offset + n)]
    return a, b, Levenshtein()(a, b)


def test_concurrent_writers(tmp_path):
    path = str(tmp_path / "c.sqlite")
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    procs = [subprocess.Popen([sys.executable, str(script), path, str(off), "0.002", "300"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for off in (0, 100, 200)]  # overlapping pair ranges
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outs]
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert con.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 500
    con.close()
    base = Counting(fingerprint="slow-lev-v1")
    a, b, want = _expected(0, 500)
    np.testing.assert_allclose(Cached(base, path)(a, b), want, atol=1e-12)
    assert base.n == 0


def test_killed_run_keeps_committed_batches(tmp_path):
    path = str(tmp_path / "k.sqlite")
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    proc = subprocess.Popen([sys.executable, str(script), path, "0", "0.02", "3000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        n = 0
        while time.monotonic() < deadline:
            if os.path.exists(path):
                try:
                    con = sqlite3.connect(path, timeout=5)
                    n = con.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
                    con.close()
                except sqlite3.OperationalError:
                    n = 0
                if n >= 50:
                    break
            time.sleep(0.05)
        assert n >= 50, proc.stderr.read() if proc.poll() is not None else "writer too slow"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    kept = con.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
    con.close()
    assert 50 <= kept < 3000 and kept % 10 == 0  # whole batches only
    # resume: only the missing pairs are scored, and every value is right
    base = Counting(fingerprint="slow-lev-v1")
    est = Cached(base, path)
    a, b, want = _expected(0, 3000)
    np.testing.assert_allclose(est(a, b), want, atol=1e-12)
    assert base.n == 3000 - kept and est.n_hits == kept


def test_bad_arguments_and_outputs(tmp_path):
    with pytest.raises(ValueError, match="batch_size"):
        Cached(Levenshtein(), tmp_path / "x.sqlite", batch_size=0)
    est = Cached(lambda a, b: np.full(len(a), np.nan), tmp_path / "x.sqlite")
    with pytest.raises(ValueError, match=r"nan for pair 0 \('a', 'b'\)"):
        est(["a"], ["b"])
    assert est.n_cached() == 0  # nothing stored from a failed batch
