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


OPENER = textwrap.dedent("""
    import sys, time
    import numpy as np
    from softirr_stats.equivalence import Cached, as_estimator

    path, start = sys.argv[1], float(sys.argv[2])
    est = Cached(as_estimator(lambda a, b: np.ones(len(a)), symmetric=True, fingerprint="ones-v1"), path,
                 batch_size=5, timeout=30)
    while time.time() < start:  # every process opens the new file at the same moment
        pass
    est([f"a{i}" for i in range(20)], ["b"] * 20)
""")


def test_processes_opening_a_new_cache_together(tmp_path):
    # SQLite answers "database is locked" at once (no busy handler) to a process switching the file to
    # WAL while another holds it: 1-4 of 8 such openers failed in most trials before the switch waited
    path = str(tmp_path / "new.sqlite")
    script = tmp_path / "opener.py"
    script.write_text(OPENER)
    start = time.time() + 8  # after the imports
    procs = [subprocess.Popen([sys.executable, str(script), path, repr(start)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(6)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-1500:] for o in outs if o[1]]
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 20
    con.close()


def test_wal_switch_waits_for_the_lock_then_gives_up_at_the_timeout():
    from softirr_stats.equivalence._cache import _use_wal

    class Locked:
        def __init__(self, times):
            self.times, self.calls = times, 0

        def execute(self, sql):
            self.calls += 1
            if self.calls <= self.times:
                raise sqlite3.OperationalError("database is locked")
            return type("Row", (), {"fetchone": lambda self: ("wal",)})()

    con = Locked(3)
    assert _use_wal(con, 5.0) == "wal" and con.calls == 4
    t = time.monotonic()
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        _use_wal(Locked(10**9), 0.2)
    assert time.monotonic() - t < 2.0

    class Broken(Locked):
        def execute(self, sql):
            self.calls += 1
            raise sqlite3.OperationalError("disk I/O error")

    con = Broken(0)
    with pytest.raises(sqlite3.OperationalError, match="disk"):
        _use_wal(con, 5.0)
    assert con.calls == 1  # only a lock is waited for


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


# --- trust: fingerprints, foreign files, read-only caches, tampered scores ----------------
from softirr_stats.equivalence._cache import APPLICATION_ID, SCHEMA_VERSION, CacheWarning  # noqa: E402


def _threshold(t):
    return lambda a, b: np.array([float(abs(len(x) - len(y)) <= t) for x, y in zip(a, b, strict=False)])


def test_closures_with_different_captured_values_do_not_share_scores(tmp_path):
    path = tmp_path / "f.sqlite"
    loose = Cached(as_estimator(_threshold(5), symmetric=True), path)
    strict = Cached(as_estimator(_threshold(0), symmetric=True), path)
    assert loose(["a"], ["abc"]).tolist() == [1.0]
    assert strict(["a"], ["abc"]).tolist() == [0.0]  # was 1.0: the first closure's score
    assert loose.fingerprint != strict.fingerprint
    # identical code and values: the same key, in any process
    assert Cached(as_estimator(_threshold(5), symmetric=True), path)(["abc"], ["a"]).tolist() == [1.0]


def test_lambdas_defaults_constants_and_processors_change_the_fingerprint(tmp_path):
    f1 = as_estimator(lambda a, b: [0.5] * len(a))
    f2 = as_estimator(lambda a, b: [0.25] * len(a))
    assert f1.fingerprint != f2.fingerprint  # same bytecode, different constants

    def g(a, b, w=0.1):
        return [w] * len(a)

    def h(a, b, w=0.9):
        return [w] * len(a)

    h.__qualname__ = g.__qualname__
    h.__name__ = g.__name__
    assert as_estimator(g).fingerprint != as_estimator(h).fingerprint  # defaults differ
    lev_up = Levenshtein(processor=lambda s: s.upper())
    lev_strip = Levenshtein(processor=lambda s: s.strip())
    assert lev_up.fingerprint != lev_strip.fingerprint
    path = tmp_path / "p.sqlite"
    assert Cached(lev_up, path)(["ab "], ["AB"]).tolist() == pytest.approx([2 / 3])
    assert Cached(lev_strip, path)(["ab "], ["AB"]).tolist() == pytest.approx([0.0])


def test_globals_and_nested_callables_enter_the_fingerprint():
    import functools

    def scale(x, k):
        return x * k

    p1 = as_estimator(functools.partial(lambda a, b, k: [k] * len(a), k=0.2))
    p2 = as_estimator(functools.partial(lambda a, b, k: [k] * len(a), k=0.3))
    assert p1.fingerprint != p2.fingerprint
    n1 = as_estimator(lambda a, b: [scale(0.5, 1.0)] * len(a))
    assert "scale" in n1.fingerprint and "float:0.5" in n1.fingerprint


def test_unfingerprintable_callable_is_refused_without_explicit_fingerprint(tmp_path):
    class Model:  # state that cannot be described
        def __init__(self, t):
            self.t = t

    model = Model(0.3)
    est = as_estimator(lambda a, b: [model.t] * len(a))
    with pytest.raises(ValueError, match="cannot derive a safe cache fingerprint.*fingerprint="):
        Cached(est, tmp_path / "u.sqlite")
    cached = Cached(est, tmp_path / "u.sqlite", fingerprint="model-v1")
    assert cached(["a"], ["b"]).tolist() == [0.3]
    assert cached.n_cached() == 1
    # the stored description is shown when the same explicit fingerprint meets another estimator
    other = as_estimator(lambda a, b: [0.9] * len(a))
    with pytest.warns(CacheWarning, match="stored for an estimator described as"):
        Cached(other, tmp_path / "u.sqlite", fingerprint="model-v1").n_cached()
    descs = cached.stored_fingerprints()
    assert len(descs) == 1 and "Model" in descs[0][0] and descs[0][2] == 1


def test_schema_version_is_stored(tmp_path):
    path = tmp_path / "v.sqlite"
    Cached(Levenshtein(), path)(["a"], ["b"])
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
    con.close()


@pytest.mark.parametrize("tables,shown", [
    (["users (id INTEGER, name TEXT)"], "users"),
    # tables named like ours (taken for a cache written before schema versions): it was switched to WAL, modified,
    # before failing on a missing column
    (["estimators (id INTEGER, x TEXT)", "scores (k TEXT, v REAL)"], "estimators, scores"),
])
def test_foreign_database_is_refused_unmodified(tmp_path, tables, shown):
    path = tmp_path / "app.sqlite"
    con = sqlite3.connect(path)
    for table in tables:
        con.execute(f"CREATE TABLE {table}")
    con.commit()
    con.close()
    before = path.read_bytes()
    with pytest.raises(sqlite3.DatabaseError, match=rf"app\.sqlite.*not a softirr score cache.*{shown}"):
        Cached(Levenshtein(), path)(["a"], ["b"])
    assert path.read_bytes() == before
    assert not os.path.exists(str(path) + "-wal")


def test_a_file_that_is_not_sqlite_names_its_path(tmp_path):
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is not a database" * 100)
    with pytest.raises(sqlite3.DatabaseError, match="junk.sqlite"):
        Cached(Levenshtein(), junk).n_cached()


def test_read_only_cache_serves_hits_and_says_new_scores_are_not_stored(tmp_path, monkeypatch):
    path = tmp_path / "ro.sqlite"
    w = Cached(Levenshtein(), path)
    w(["abc"], ["abd"])
    w.close()
    with pytest.warns(CacheWarning, match="new scores are computed but not stored"):
        ro = Cached(Levenshtein(), path, read_only=True)
        out = ro(["abc", "xy"], ["abd", "xz"])
    np.testing.assert_allclose(out, [2 / 3, 0.5])
    assert ro.n_hits == 1 and ro.n_misses == 1 and ro.n_cached() == 1  # nothing written
    ro.close()
    # automatic: a file the process cannot write is opened read-only
    monkeypatch.setattr(os, "access", lambda p, mode: False)
    with pytest.warns(CacheWarning, match="cannot be written"):
        auto = Cached(Levenshtein(), path)
        assert auto(["abc"], ["abd"]).tolist() == pytest.approx([2 / 3]) and auto.n_hits == 1


def test_tampered_cached_score_is_rejected_naming_the_file(tmp_path):
    path = tmp_path / "t.sqlite"
    est = Cached(Levenshtein(), path)
    est(["abc"], ["abd"])
    est.close()
    con = sqlite3.connect(path)
    con.execute("UPDATE scores SET score = 1.7")
    con.commit()
    con.close()
    with pytest.raises(ValueError, match=r"t\.sqlite.*holds 1\.7.*in \[0, 1\]"):
        Cached(Levenshtein(), path)(["abc"], ["abd"])


def test_cache_errors_name_the_path(tmp_path):
    missing_dir = tmp_path / "no" / "such" / "dir" / "c.sqlite"
    with pytest.raises(sqlite3.OperationalError, match="no/such/dir/c.sqlite"):
        Cached(Levenshtein(), missing_dir)(["a"], ["b"])
    with pytest.raises(sqlite3.OperationalError, match="does not exist"):
        Cached(Levenshtein(), tmp_path / "absent.sqlite", read_only=True).n_cached()
