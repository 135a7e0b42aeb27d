"""Caches never mix estimators; old-schema rows are never served; every cache error is one
line naming the file and the fix (issue 20, items 2 and 6)."""

import hashlib
import os
import sqlite3
import sys
import textwrap
import warnings

import numpy as np
import pytest

from softirr_stats.equivalence import (
    BaseEstimator,
    Cached,
    Levenshtein,
    OpenAICompatibleJudge,
    as_estimator,
)
from softirr_stats.equivalence._cache import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    CacheError,
    CacheWarning,
    CacheWriteError,
)


class Thr(Levenshtein):
    """User subclass: 1 when the Levenshtein similarity reaches ``t``, else 0."""

    def __init__(self, t: float) -> None:
        super().__init__()
        self.t = t

    def _score(self, a, b):
        return (super()._score(a, b) >= self.t).astype(float)


class Hidden(BaseEstimator):
    """Keeps its constructor argument under another name: its state cannot be seen."""

    def __init__(self, t: float) -> None:
        self._t = t

    def _score(self, a, b):
        return np.full(len(a), self._t)


class Holder(BaseEstimator):
    def __init__(self, model) -> None:
        self.model = model

    def _score(self, a, b):
        return np.full(len(a), self.model.t)


class Opaque:
    def __init__(self, t):
        self.t = t


def test_subclass_parameters_enter_the_fingerprint(tmp_path):
    assert Thr(0.1).fingerprint != Thr(0.9).fingerprint
    assert Thr(0.1).fingerprint == Thr(0.1).fingerprint
    path = tmp_path / "s.sqlite"
    pair = (["abcd"], ["abxy"])  # similarity 0.5
    assert Cached(Thr(0.1), path)(*pair).tolist() == [1.0]
    strict = Cached(Thr(0.9), path)
    assert strict(*pair).tolist() == [0.0] and strict.n_hits == 0  # never the other's score
    assert f"{Thr.__module__}:Thr" in Thr(0.1).fingerprint and '"t": 0.1' in Thr(0.1).fingerprint


def test_two_classes_of_one_name_in_two_modules(tmp_path, monkeypatch):
    for mod, value in (("sirr_mod_a", 0.25), ("sirr_mod_b", 0.75)):
        (tmp_path / f"{mod}.py").write_text(textwrap.dedent(f"""
            import numpy as np
            from softirr_stats.equivalence import BaseEstimator

            class Same(BaseEstimator):
                def _score(self, a, b):
                    return np.full(len(a), {value})
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    import sirr_mod_a
    import sirr_mod_b

    a, b = sirr_mod_a.Same(), sirr_mod_b.Same()
    assert a.fingerprint != b.fingerprint
    path = tmp_path / "s.sqlite"
    assert Cached(a, path)(["x"], ["y"]).tolist() == [0.25]
    assert Cached(b, path)(["x"], ["y"]).tolist() == [0.75]
    for m in ("sirr_mod_a", "sirr_mod_b"):
        sys.modules.pop(m, None)


def test_judge_fingerprint_covers_url_and_prompt():
    one = OpenAICompatibleJudge("http://127.0.0.1:8000/v1", "m")
    two = OpenAICompatibleJudge("http://127.0.0.1:9000/v1", "m")
    assert one.fingerprint != two.fingerprint and "127.0.0.1:8000" in one.fingerprint
    other_prompt = OpenAICompatibleJudge("http://127.0.0.1:8000/v1", "m", prompt="Same? {a} / {b}")
    assert other_prompt.fingerprint != one.fingerprint
    # what does not change a score does not split the cache
    assert OpenAICompatibleJudge("http://127.0.0.1:8000/v1", "m", concurrency=2, timeout=5).fingerprint \
        == one.fingerprint
    assert Levenshtein(workers=1).fingerprint == Levenshtein(workers=4).fingerprint


def test_unfingerprintable_state_is_refused_unless_fingerprint_is_given(tmp_path):
    with pytest.raises(ValueError, match=r"constructor argument 't' is not kept.*Pass fingerprint="):
        Cached(Hidden(0.3), tmp_path / "h.sqlite")
    with pytest.raises(ValueError, match=r"cannot be described.*Pass fingerprint="):
        Cached(Holder(Opaque(0.3)), tmp_path / "h.sqlite")
    ok = Cached(Holder(Opaque(0.3)), tmp_path / "h.sqlite", fingerprint="holder-v1")
    assert ok(["a"], ["b"]).tolist() == [0.3]
    # the two opaque holders do not share an in-memory identity either
    assert Holder(Opaque(0.3)).fingerprint != Holder(Opaque(0.3)).fingerprint


def test_nested_estimators_and_callables_enter_recursively():
    from softirr_stats.equivalence import SetMatch

    assert SetMatch(Thr(0.1)).fingerprint != SetMatch(Thr(0.9)).fingerprint
    assert Levenshtein(processor=str.lower).fingerprint != Levenshtein(processor=str.upper).fingerprint


# --- old schema -----------------------------------------------------------------------------
def _old_cache(path, fingerprint, score, *, version=2, app=APPLICATION_ID):
    """A cache as softirr_stats wrote it before schema 3 (unsalted keys, no 'schema' column)."""
    con = sqlite3.connect(path)
    if version >= 2:
        con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        con.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(version),))
    con.execute("CREATE TABLE estimators (fp TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, name TEXT)")
    con.execute("CREATE TABLE scores (fp TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, score REAL NOT NULL, "
                "PRIMARY KEY (fp, a, b)) WITHOUT ROWID")
    fp = hashlib.sha256(fingerprint.encode()).hexdigest()[:32]
    con.execute("INSERT INTO estimators VALUES (?, ?, ?)", (fp, fingerprint, "old"))
    con.execute("INSERT INTO scores VALUES (?, 's:abc', 's:abd', ?)", (fp, score))
    con.execute(f"PRAGMA user_version = {version if version >= 2 else 0}")
    con.execute(f"PRAGMA application_id = {app if version >= 2 else 0}")
    con.commit()
    con.close()


def _n_rows(path):
    con = sqlite3.connect(path)
    try:
        return con.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
    finally:
        con.close()


@pytest.mark.parametrize("version", [1, 2])
def test_old_schema_rows_are_not_served_and_not_deleted(tmp_path, version):
    path = tmp_path / "old.sqlite"
    fn = as_estimator(lambda a, b: [0.5] * len(a), symmetric=True, fingerprint="same-id")
    _old_cache(path, fn.fingerprint, 0.123, version=version)  # the same identity string as today
    with pytest.warns(CacheWarning, match=rf"older softirr_stats \(schema {version}\).*1 stored score.*not used"):
        c = Cached(fn, path)
        assert c(["abc"], ["abd"]).tolist() == [0.5]  # scored again, not 0.123
    assert c.n_hits == 0 and c.n_misses == 1
    c.close()
    assert _n_rows(path) == 2  # the old row stays
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)  # said once: the file is now at this schema
        again = Cached(fn, path)
        assert again(["abc"], ["abd"]).tolist() == [0.5] and again.n_hits == 1
    assert [d for d, _, _ in again.stored_fingerprints()] == [fn.fingerprint]
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert dict(con.execute("SELECT key, value FROM meta"))["rows_from_older_schema"] == "1"
    con.close()


def test_old_schema_file_read_only_is_not_served_and_does_not_crash(tmp_path):
    path = tmp_path / "old.sqlite"
    _old_cache(path, "user:same-id", 0.123)
    before = path.read_bytes()
    fn = as_estimator(lambda a, b: [0.5] * len(a), symmetric=True, fingerprint="same-id")
    with pytest.warns(CacheWarning) as rec:
        ro = Cached(fn, path, read_only=True)
        assert ro(["abc"], ["abd"]).tolist() == [0.5]
    msgs = " | ".join(str(w.message) for w in rec)
    assert "cannot be written" in msgs and "older softirr_stats (schema 2)" in msgs
    assert ro.stored_fingerprints() == []
    ro.close()
    assert path.read_bytes() == before


# --- one-line errors naming the file and the fix ----------------------------------------------
def _one_line_error(exc_info, *fragments):
    msg = str(exc_info.value)
    assert "\n" not in msg, msg
    for f in fragments:
        assert f in msg, msg


def test_foreign_garbage_directory_and_newer_files(tmp_path):
    foreign = tmp_path / "app.sqlite"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE users (id INTEGER)")
    con.commit()
    con.close()
    with pytest.raises(CacheError) as info:
        Cached(Levenshtein(), foreign)(["a"], ["b"])
    assert isinstance(info.value, ValueError) and isinstance(info.value, sqlite3.DatabaseError)
    _one_line_error(info, "app.sqlite", "not a softirr score cache", "choose another path")
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"\x00garbage" * 1000)
    with pytest.raises(CacheError) as info:
        Cached(Levenshtein(), junk).n_cached()
    _one_line_error(info, "junk.sqlite", "not a SQLite database", "choose another path")
    assert junk.read_bytes() == b"\x00garbage" * 1000
    folder = tmp_path / "adir"
    folder.mkdir()
    with pytest.raises(CacheError) as info:
        Cached(Levenshtein(), folder)(["a"], ["b"])
    _one_line_error(info, "adir", "is a directory", "scores.sqlite")
    newer = tmp_path / "newer.sqlite"
    Cached(Levenshtein(), newer)(["a"], ["b"])
    con = sqlite3.connect(newer)
    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    con.commit()
    con.close()
    with pytest.raises(CacheError) as info:
        Cached(Levenshtein(), newer).n_cached()
    _one_line_error(info, "newer.sqlite", "newer softirr_stats", "upgrade softirr_stats")


def test_missing_and_read_only_locations(tmp_path, monkeypatch):
    with pytest.raises(CacheWriteError) as info:
        Cached(Levenshtein(), tmp_path / "no" / "dir" / "c.sqlite")(["a"], ["b"])
    assert isinstance(info.value, OSError)
    _one_line_error(info, "c.sqlite", "does not exist", "create it")
    real_access = os.access
    locked = str(tmp_path / "locked")
    os.mkdir(locked)
    monkeypatch.setattr(os, "access", lambda p, mode: False if str(p).startswith(locked) else real_access(p, mode))
    with pytest.raises(CacheWriteError) as info:
        Cached(Levenshtein(), os.path.join(locked, "c.sqlite"))(["a"], ["b"])
    _one_line_error(info, "c.sqlite", "not writable", "choose a writable path")


class _FailingConnection:
    """A connection whose INSERTs into scores fail with a given SQLite error after ``ok`` batches."""

    def __init__(self, con, message, ok):
        self._con, self._message, self._ok = con, message, ok

    def executemany(self, sql, rows):
        if "INTO scores" in sql:
            if self._ok <= 0:
                raise sqlite3.OperationalError(self._message)
            self._ok -= 1
        return self._con.executemany(sql, rows)

    def __getattr__(self, name):
        return getattr(self._con, name)


@pytest.mark.parametrize("message, fragment", [
    ("database or disk is full", "free space"),
    ("attempt to write a readonly database", "read_only=True"),
])
def test_disk_full_names_the_file_and_keeps_committed_batches(tmp_path, message, fragment):
    path = tmp_path / "full.sqlite"
    c = Cached(Levenshtein(), path, batch_size=1)
    c.n_cached()  # open
    c._con = _FailingConnection(c._con, message, ok=2)
    with pytest.raises(CacheWriteError) as info:
        c(["a1", "a2", "a3", "a4"], ["b1", "b2", "b3", "b4"])
    assert isinstance(info.value, OSError) and isinstance(info.value, sqlite3.OperationalError)
    _one_line_error(info, "full.sqlite", fragment)
    c._con = c._con._con
    assert c.n_cached() == 2  # the batches committed before the failure are kept, intact
    with pytest.raises(CacheWriteError, match="full.sqlite"):
        c._con = _FailingConnection(c._con, message, ok=0)
        c.store(["x"], ["y"], [0.5])
    c._con = c._con._con
    c.close()
    fresh = Cached(Levenshtein(), path)
    assert fresh(["a1", "a2"], ["b1", "b2"]).tolist() == [0.5, 0.5] and fresh.n_hits == 2


class Table(Levenshtein):
    """A constructor argument keyed by tuples (not a JSON object): described, not a crash."""

    def __init__(self, table):
        super().__init__()
        self.table = table


def test_argument_dict_with_tuple_keys_enters_the_fingerprint(tmp_path):
    one, two = Table({("a", "b"): 0.1}), Table({("a", "b"): 0.2})
    assert one.fingerprint != two.fingerprint and one.fingerprint == Table({("a", "b"): 0.1}).fingerprint
    Cached(one, tmp_path / "t.sqlite").n_cached()
