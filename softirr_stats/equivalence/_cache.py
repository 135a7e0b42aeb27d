"""Persistent, crash-safe pair cache for any equivalence estimator (SQLite, WAL).

Scores are stored as REAL values (no pickle) under ``(estimator fingerprint, a, b)``, with
labels serialised canonically by :func:`~softirr_stats.equivalence.label_key` (pairs in
canonical order for symmetric estimators). New scores are committed batch by batch, so a
killed run keeps every batch it finished; SQLite's WAL journal keeps the file consistent,
and several processes may read and write the same file at once.

Trust rules: an estimator is keyed by a fingerprint that covers everything that changes a
score (see :mod:`~softirr_stats.equivalence._fingerprint`); one whose fingerprint cannot be
derived safely is refused unless ``fingerprint=`` is given. The file records its schema
version and the description of each fingerprint; a file that is not a softirr score cache
(another application's SQLite database) is refused without being modified; a cache that
cannot be written is opened read-only and serves its hits; scores read back are validated
like fresh ones. Every error is one line naming the file and what to do, as a
:class:`CacheError` (a file that cannot be used; a ``ValueError``) or a
:class:`CacheWriteError` (scores cannot be stored: disk full, read-only or missing location;
an ``OSError``), both also ``sqlite3`` errors.

Schema 3 (this release) changed every estimator's fingerprint (it now covers the module,
the qualified name and every constructor argument), so scores stored under an older schema
are never served: the keys are salted with the schema version, the old rows stay in the
file (never deleted), and the first open of an older file says so once with a
:class:`CacheWarning` while upgrading its version number.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import time
import warnings
from typing import Any

import numpy as np

from softirr_stats.base._validation import SoftIRRWarning
from softirr_stats.equivalence._fingerprint import unsafe_reason
from softirr_stats.equivalence._protocol import (
    BaseEstimator,
    Labels,
    as_estimator,
    check_pair_inputs,
    check_scores,
    equal_mask,
    label_key,
)

__all__ = ["Cached", "CacheWarning", "CacheError", "CacheWriteError"]

#: Schema version written to ``PRAGMA user_version`` and the ``meta`` table. Version 3: the
#: fingerprints cover module, qualified name and constructor arguments; keys are salted with it.
SCHEMA_VERSION = 3
#: ``PRAGMA application_id`` of a softirr score cache ("SIRR").
APPLICATION_ID = 0x53495252
_OUR_TABLES = {"estimators", "scores", "meta"}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS estimators (fp TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, name TEXT,
                                       schema INTEGER NOT NULL DEFAULT 2);
CREATE TABLE IF NOT EXISTS scores (
    fp TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, score REAL NOT NULL,
    PRIMARY KEY (fp, a, b)
) WITHOUT ROWID;
"""


class CacheWarning(SoftIRRWarning):
    """A score cache is used in a limited way (read-only, older schema, or another description).

    Examples
    --------
    >>> issubclass(CacheWarning, UserWarning)
    True
    """


class CacheError(sqlite3.DatabaseError, ValueError):
    """A file that cannot be used as a score cache; the one-line message names it and the fix.

    Raised for another application's SQLite file, a file that is not SQLite, a directory, or
    a cache written by a newer release. It is a ``ValueError`` and a ``sqlite3.DatabaseError``.

    Examples
    --------
    >>> import os, tempfile
    >>> from softirr_stats.equivalence import Levenshtein
    >>> folder = tempfile.mkdtemp()
    >>> try:
    ...     Cached(Levenshtein(), folder).n_cached()
    ... except CacheError as err:
    ...     print("is a directory" in str(err), isinstance(err, ValueError))
    True True
    """


class CacheWriteError(sqlite3.OperationalError, OSError):
    """Scores cannot be stored (disk full, read-only or missing location); names the file and the fix.

    An ``OSError`` and a ``sqlite3.OperationalError``. Every batch committed before it is kept.

    Examples
    --------
    >>> import os, tempfile
    >>> from softirr_stats.equivalence import Levenshtein
    >>> path = os.path.join(tempfile.mkdtemp(), "no", "such", "scores.sqlite")
    >>> try:
    ...     Cached(Levenshtein(), path).n_cached()
    ... except CacheWriteError as err:
    ...     print("does not exist" in str(err), isinstance(err, OSError))
    True True
    """


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _open_error(path: str, exc: BaseException) -> Exception:
    """A :class:`CacheError` / :class:`CacheWriteError` whose one-line message names the file and the fix."""
    if isinstance(exc, (CacheError, CacheWriteError)):
        return exc
    msg = _one_line(str(exc))
    low = msg.lower()
    where = f"score cache {path!r}"
    folder = os.path.dirname(os.path.abspath(path))
    cls: type[Exception] = CacheError
    if "file is not a database" in low or "file is encrypted" in low:
        text = (f"{where} is not a SQLite database (so not a softirr score cache); it was not modified: "
                f"choose another path or move the file away")
    elif "database or disk is full" in low or "disk i/o error" in low:
        cls = CacheWriteError
        text = (f"{where}: the disk holding it is full or failing (SQLite: {msg}); every batch committed before "
                f"is kept: free space, or choose a path on another disk, and rerun to resume")
    elif "readonly database" in low or "read-only" in low:
        cls = CacheWriteError
        text = (f"{where} cannot be written (a read-only file or location; SQLite: {msg}): choose a writable "
                f"path, or pass read_only=True to serve its scores without storing new ones")
    elif "database is locked" in low or "database table is locked" in low:
        cls = CacheWriteError
        text = (f"{where} stayed locked by another process past the timeout (SQLite: {msg}): wait for it, "
                f"raise timeout=, or use another path")
    elif "unable to open database file" in low:
        cls = CacheWriteError
        if os.path.isdir(path):
            cls = CacheError
            text = f"{where} is a directory: give a file path, e.g. {os.path.join(path, 'scores.sqlite')!r}"
        elif not os.path.isdir(folder):
            text = f"{where}: the directory {folder!r} does not exist: create it or choose another path"
        else:
            text = f"{where} cannot be opened or created in {folder!r} (SQLite: {msg}): check its permissions"
    elif isinstance(exc, sqlite3.OperationalError) and "does not exist" in low:
        cls = CacheWriteError
        text = f"{where}: {msg}"
    else:
        text = f"{where}: {msg}"
    err = cls(text)
    err.__cause__ = exc
    return err


def _columns_of_ours(con: sqlite3.Connection) -> bool:
    """Whether the tables ``estimators`` and ``scores`` hold the columns a score cache gives them (a file of
    another program with tables of the same names is not one, and is refused without being modified)."""
    want = {"estimators": {"fp", "fingerprint"}, "scores": {"fp", "a", "b", "score"}}
    for table, cols in want.items():
        have = {row[1] for row in con.execute(f"PRAGMA table_info({table})")}
        if not cols <= have:
            return False
    return True


def _use_wal(con: sqlite3.Connection, timeout: float) -> str:
    """Switch ``con``'s file to the WAL journal, waiting up to ``timeout`` s for other processes.

    The switch needs the file to itself, and SQLite answers "database is locked" at once, without its
    busy handler, when another process holds it (several processes opening a new cache together).
    WAL is kept in the file, so only the first opener switches; the others find it set.
    """
    deadline = time.monotonic() + timeout
    delay = 0.002
    while True:
        try:
            (mode,) = con.execute("PRAGMA journal_mode = WAL").fetchone()
            return str(mode)
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc).lower() or time.monotonic() + delay > deadline:
                raise
        time.sleep(delay)
        delay = min(2 * delay, 0.05)


class Cached(BaseEstimator):
    """Wrap an estimator with a persistent SQLite pair cache.

    Parameters
    ----------
    estimator : Estimator or callable
        The estimator whose scores are cached; its ``fingerprint`` identifies it in the
        file, so one file can hold several estimators.
    path : str or path-like, default "scores.sqlite"
        SQLite file (created if needed; WAL journal).
    batch_size : int, default 512
        Missing pairs are scored and committed this many at a time: a killed run loses at
        most the batch in flight.
    timeout : float, default 60.0
        Seconds to wait for another process's write lock.
    fingerprint : str, optional
        Cache identity to use instead of the estimator's derived fingerprint. Required when
        that fingerprint cannot be derived safely (a callable holding a model object or
        another object whose state cannot be described); change it whenever the scores
        would change. The derived description is still stored beside it, and a different
        description under the same ``fingerprint=`` gives a :class:`CacheWarning` showing both.
    read_only : bool, optional
        Serve hits without storing new scores. Default: read-only exactly when the file
        exists and cannot be written (a :class:`CacheWarning` says new scores are not stored).

    Attributes
    ----------
    n_hits, n_misses : int
        Cumulative pairs served from the file / scored by the wrapped estimator.

    Examples
    --------
    >>> import tempfile, os
    >>> from softirr_stats.equivalence import Levenshtein
    >>> path = os.path.join(tempfile.mkdtemp(), "scores.sqlite")
    >>> est = Cached(Levenshtein(), path)
    >>> est(["abc", "abc"], ["abd", "abd"]).round(4).tolist(), est.n_misses
    ([0.6667, 0.6667], 1)
    >>> Cached(Levenshtein(), path)(["abd"], ["abc"]).round(4).tolist()  # symmetric: a hit
    [0.6667]
    """

    def __init__(self, estimator: Any, path: str | os.PathLike[str] = "scores.sqlite", *,
                 batch_size: int = 512, timeout: float = 60.0, fingerprint: str | None = None,
                 read_only: bool | None = None) -> None:
        self.base = as_estimator(estimator)
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}")
        if fingerprint is not None and (not isinstance(fingerprint, str) or not fingerprint.strip()):
            raise ValueError(f"fingerprint must be a non-empty string; got {fingerprint!r}")
        self.path = os.fspath(path)
        self._user_fp = fingerprint
        self.description = self.base.fingerprint
        why = unsafe_reason(self.description)
        if fingerprint is None and why is not None:
            raise ValueError(
                f"Cached({self.base.name!r}, {self.path!r}): cannot derive a safe cache fingerprint "
                f"for this estimator ({why}); two estimators that score differently could share "
                f"scores. Pass fingerprint='<a name you change whenever the scores would change>'")
        self.read_only = read_only
        self.batch_size = int(batch_size)
        self.timeout = float(timeout)
        self.name = self.base.name
        self.symmetric = bool(self.base.symmetric)
        self.n_hits = 0
        self.n_misses = 0
        self._con: sqlite3.Connection | None = None
        self._pid = -1
        self._lock = threading.RLock()

    # identity --------------------------------------------------------------------------
    @property
    def fingerprint(self) -> str:
        return self.description if self._user_fp is None else f"user:{self._user_fp}"

    def _settings(self) -> dict[str, Any]:
        return {"base": self.base, "path": self.path}

    def __repr__(self) -> str:
        return f"Cached({self.base!r}, path={self.path!r})"

    def _fp(self) -> str:
        # salted with the schema version: rows stored under an older fingerprint scheme never match
        salted = f"softirr-cache-v{SCHEMA_VERSION}\0{self.fingerprint}"
        return hashlib.sha256(salted.encode("utf-8")).hexdigest()[:32]

    # connection ------------------------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_con"], state["_lock"], state["_pid"] = None, None, -1
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.RLock()

    def _connection(self) -> sqlite3.Connection:
        if self._con is None or self._pid != os.getpid():  # fresh connection after fork
            try:
                con = self._open()
            except sqlite3.Error as exc:
                raise _open_error(self.path, exc) from exc
            self._con, self._pid = con, os.getpid()
        return self._con

    def _writable(self) -> bool:
        if self.read_only is not None:
            return not self.read_only
        if self.path == ":memory:" or self.path.startswith("file:"):
            return True
        folder = os.path.dirname(os.path.abspath(self.path))
        if os.path.exists(self.path):
            return os.access(self.path, os.W_OK) and os.access(folder, os.W_OK)
        if os.path.isdir(folder) and not os.access(folder, os.W_OK):
            raise CacheWriteError(f"score cache {self.path!r} cannot be created: the directory {folder!r} is not "
                                  f"writable: choose a writable path")
        return True

    def _open(self) -> sqlite3.Connection:
        writable = self._writable()
        if not writable and not os.path.exists(self.path):
            raise sqlite3.OperationalError("read_only=True but the file does not exist")
        if writable:
            con = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None,
                                  check_same_thread=False)
        else:
            uri = "file:" + os.path.abspath(self.path).replace("?", "%3f").replace("#", "%23")
            try:
                con = sqlite3.connect(uri + "?mode=ro", uri=True, timeout=self.timeout,
                                      isolation_level=None, check_same_thread=False)
                con.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            except sqlite3.OperationalError:  # a WAL file in a directory we cannot write
                con = sqlite3.connect(uri + "?immutable=1", uri=True, isolation_level=None,
                                      check_same_thread=False)
        try:
            con.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            version = self._check_ours(con)  # before anything writes to the file
            old_rows = 0
            if writable:
                _use_wal(con, self.timeout)
                con.execute("PRAGMA synchronous = NORMAL")
                old_rows, version = self._create_or_upgrade(con)
            else:
                warnings.warn(f"score cache {self.path!r} cannot be written: serving the scores it "
                              f"holds; new scores are computed but not stored", CacheWarning, stacklevel=4)
                if 0 <= version < SCHEMA_VERSION:
                    (old_rows,) = con.execute("SELECT COUNT(*) FROM scores").fetchone()
            if old_rows:
                warnings.warn(
                    f"score cache {self.path!r} was written by an older softirr_stats (schema {version}); its "
                    f"{old_rows} stored score(s) are keyed by the old estimator fingerprints, which did not cover "
                    f"every constructor argument, so they are not used: the pairs are scored again. The old rows "
                    f"stay in the file (nothing is deleted)", CacheWarning, stacklevel=4)
            self._check_description(con)
            con.execute("CREATE TEMP TABLE IF NOT EXISTS want (i INTEGER PRIMARY KEY, a TEXT, b TEXT)")
        except BaseException:
            con.close()
            raise
        return con

    def _check_ours(self, con: sqlite3.Connection) -> int:
        """Refuse (unmodified) a SQLite file that is not a softirr score cache, or a newer one.

        Returns the file's schema version (-1 for a new, empty file; 1 before versions were kept).
        """
        con.execute("BEGIN")  # one snapshot: another process may create the tables and the id in between
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            (app,) = con.execute("PRAGMA application_id").fetchone()
            (version,) = con.execute("PRAGMA user_version").fetchone()
        finally:
            con.execute("COMMIT")
        if not tables and app == 0:
            return -1  # a new, empty file
        legacy = app == 0 and tables == {"estimators", "scores"} and _columns_of_ours(con)  # before the version
        if app != APPLICATION_ID and not legacy:
            shown = ", ".join(sorted(tables)[:8]) + (", ..." if len(tables) > 8 else "")
            raise CacheError(
                f"score cache {self.path!r} is not a softirr score cache (SQLite application_id {app:#x}, tables "
                f"{shown or 'none'}); refusing to use or modify it: choose another path")
        if version > SCHEMA_VERSION:
            raise CacheError(
                f"score cache {self.path!r} was written by a newer softirr_stats (schema version {version}; this one "
                f"reads up to {SCHEMA_VERSION}): upgrade softirr_stats or choose another path")
        missing = {"estimators", "scores"} - tables
        if missing:
            raise CacheError(f"score cache {self.path!r} is a softirr score cache without its tables "
                             f"{sorted(missing)}: choose another path")
        return max(int(version), 1)

    def _create_or_upgrade(self, con: sqlite3.Connection) -> tuple[int, int]:
        """Create the tables, or bring an older file to this schema; (old rows not served, old version).

        One write transaction, so two processes opening an old file at once upgrade it once.
        """
        con.execute("BEGIN IMMEDIATE")
        try:
            (version,) = con.execute("PRAGMA user_version").fetchone()  # again, under the write lock
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            for stmt in _SCHEMA.split(";"):
                if stmt.strip():
                    con.execute(stmt)
            cols = {r[1] for r in con.execute("PRAGMA table_info(estimators)")}
            if "schema" not in cols:
                con.execute("ALTER TABLE estimators ADD COLUMN schema INTEGER NOT NULL DEFAULT 2")
            old_rows = 0
            if "scores" in tables and version < SCHEMA_VERSION:
                (old_rows,) = con.execute("SELECT COUNT(*) FROM scores").fetchone()
                con.execute("INSERT OR REPLACE INTO meta VALUES ('upgraded_from_schema', ?)",
                            (str(max(int(version), 1)),))
                con.execute("INSERT OR REPLACE INTO meta VALUES ('rows_from_older_schema', ?)", (str(old_rows),))
            con.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            con.execute("INSERT OR IGNORE INTO meta VALUES ('application', 'softirr_stats score cache')")
            con.execute("INSERT OR IGNORE INTO estimators (fp, fingerprint, name, schema) VALUES (?, ?, ?, ?)",
                        (self._fp(), self.description, self.name, SCHEMA_VERSION))
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise
        return int(old_rows), max(int(version), 1)

    def _check_description(self, con: sqlite3.Connection) -> None:
        row = con.execute("SELECT fingerprint FROM estimators WHERE fp = ?", (self._fp(),)).fetchone()
        if row is not None and self._user_fp is not None and row[0] != self.description:
            warnings.warn(
                f"score cache {self.path!r}: the scores under fingerprint={self._user_fp!r} were stored "
                f"for an estimator described as\n  {row[0]}\nbut this estimator is\n  {self.description}\n"
                f"they are reused because you gave that fingerprint; give a new one if the scores differ",
                CacheWarning, stacklevel=5)

    def stored_fingerprints(self) -> list[tuple[str, str, int]]:
        """``(description, name, n_scores)`` of every estimator the file holds scores for."""
        with self._lock:
            con = self._connection()
            try:
                cols = {r[1] for r in con.execute("PRAGMA table_info(estimators)")}
                where = f"WHERE e.schema >= {SCHEMA_VERSION} " if "schema" in cols else "WHERE 0 "
                rows = con.execute("SELECT e.fingerprint, e.name, COUNT(s.fp) FROM estimators AS e "
                                   f"LEFT JOIN scores AS s ON s.fp = e.fp {where}GROUP BY e.fp ORDER BY e.name"
                                   ).fetchall()
            except sqlite3.Error as exc:
                raise _open_error(self.path, exc) from exc
        return [(str(d), str(n), int(k)) for d, n, k in rows]

    def close(self) -> None:
        """Close the connection (reopened on the next call)."""
        with self._lock:
            if self._con is not None and self._pid == os.getpid():
                self._con.close()
            self._con = None

    def n_cached(self) -> int:
        """Number of pairs stored for this estimator's fingerprint."""
        with self._lock:
            con = self._connection()
            try:
                (n,) = con.execute("SELECT COUNT(*) FROM scores WHERE fp = ?", (self._fp(),)).fetchone()
            except sqlite3.Error as exc:
                raise _open_error(self.path, exc) from exc
        return int(n)

    # scoring ---------------------------------------------------------------------------
    def _store(self, con: sqlite3.Connection, ka: list[str], kb: list[str], new: np.ndarray) -> None:
        fp = self._fp()
        try:
            con.execute("BEGIN IMMEDIATE")
            try:
                con.executemany("INSERT OR IGNORE INTO scores VALUES (?, ?, ?, ?)",
                                ((fp, p, q, float(v)) for p, q, v in zip(ka, kb, new.tolist(), strict=False)))
                con.execute("COMMIT")
            except BaseException:
                if con.in_transaction:
                    con.execute("ROLLBACK")
                raise
        except sqlite3.Error as exc:
            raise _open_error(self.path, exc) from exc

    def _lookup(self, con: sqlite3.Connection, ka: list[str], kb: list[str]) -> np.ndarray:
        found = np.full(len(ka), np.nan)
        con.execute("DELETE FROM want")
        con.executemany("INSERT INTO want VALUES (?, ?, ?)", zip(range(len(ka)), ka, kb, strict=False))
        rows = con.execute("SELECT w.i, s.score FROM want AS w JOIN scores AS s "
                           "ON s.fp = ? AND s.a = w.a AND s.b = w.b", (self._fp(),)).fetchall()
        con.execute("DELETE FROM want")
        if rows:
            idx, val = zip(*rows, strict=False)
            idx = list(idx)
            try:
                vals = np.array(val, dtype=np.float64)
            except (TypeError, ValueError):
                vals = np.array([v if isinstance(v, float) else np.nan for v in val])
            bad = ~(np.isfinite(vals) & (vals >= 0.0) & (vals <= 1.0))
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise CacheError(
                    f"score cache {self.path!r} holds {val[k]!r} for the pair ({ka[idx[k]]!r}, {kb[idx[k]]!r}) "
                    f"of estimator {self.name!r}; scores must be finite and in [0, 1] "
                    f"({int(bad.sum())} bad value(s) read): the file was modified outside softirr_stats")
            found[idx] = vals
        return found

    def __call__(self, a: Labels, b: Labels, /) -> np.ndarray:
        aa, bb = check_pair_inputs(a, b)
        out = np.ones(aa.shape[0], dtype=np.float64)
        todo = np.flatnonzero(~equal_mask(aa, bb))
        if todo.size == 0:
            return out
        ka = [label_key(x) for x in aa[todo]]
        kb = [label_key(x) for x in bb[todo]]
        xa, xb = aa[todo], bb[todo]
        if self.symmetric:  # canonical order of the pair
            swap = np.fromiter((p > q for p, q in zip(ka, kb, strict=False)), dtype=bool, count=len(ka))
            ka, kb = [q if s else p for p, q, s in zip(ka, kb, swap, strict=False)], [p if s else q for p, q, s in zip(ka, kb, swap, strict=False)]
            xa, xb = np.where(swap, xb, xa), np.where(swap, xa, xb)
        # de-duplicate within the call
        first: dict[tuple[str, str], int] = {}
        inv = np.fromiter((first.setdefault(k, len(first)) for k in zip(ka, kb, strict=False)), dtype=np.int64,
                          count=len(ka))
        uniq_pos = np.empty(len(first), dtype=np.int64)
        uniq_pos[inv[::-1]] = np.arange(len(inv))[::-1]  # first occurrence of each pair
        uka = [ka[i] for i in uniq_pos]
        ukb = [kb[i] for i in uniq_pos]
        with self._lock:
            con = self._connection()
            try:
                scores = self._lookup(con, uka, ukb)
            except sqlite3.Error as exc:
                raise _open_error(self.path, exc) from exc
            missing = np.flatnonzero(np.isnan(scores))
            self.n_hits += int(scores.size - missing.size)
            self.n_misses += int(missing.size)
            store = self._writable()
            for s in range(0, missing.size, self.batch_size):
                sel = missing[s:s + self.batch_size]
                pa, pb = xa[uniq_pos[sel]], xb[uniq_pos[sel]]
                new = check_scores(self.base(pa, pb), pa, pb, self.name)
                scores[sel] = new
                if store:
                    self._store(con, [uka[i] for i in sel.tolist()], [ukb[i] for i in sel.tolist()], new)
        out[todo] = scores[inv]
        return out

    # explicit look-up and store (used by the scoring plan and the distributed backend) -----
    def _pair_keys(self, aa: np.ndarray, bb: np.ndarray) -> tuple[list[str], list[str]]:
        ka = [label_key(x) for x in aa]
        kb = [label_key(x) for x in bb]
        if self.symmetric:  # canonical order of the pair, as in __call__
            lo = [min(p, q) for p, q in zip(ka, kb, strict=True)]
            hi = [max(p, q) for p, q in zip(ka, kb, strict=True)]
            ka, kb = lo, hi
        return ka, kb

    def lookup(self, a: Labels, b: Labels) -> np.ndarray:
        """Stored scores of the pairs ``(a_i, b_i)``; NaN where a pair is not in the file.

        Identical labels score 1 (they are never stored). Nothing is scored.

        Examples
        --------
        >>> from softirr_stats.equivalence import Levenshtein
        >>> c = Cached(Levenshtein(), ":memory:")
        >>> c.lookup(["abc", "x"], ["abd", "x"]).tolist()
        [nan, 1.0]
        """
        aa, bb = check_pair_inputs(a, b)
        out = np.ones(aa.shape[0], dtype=np.float64)
        todo = np.flatnonzero(~equal_mask(aa, bb))
        if todo.size:
            ka, kb = self._pair_keys(aa[todo], bb[todo])
            with self._lock:
                con = self._connection()
                try:
                    out[todo] = self._lookup(con, ka, kb)
                except sqlite3.Error as exc:
                    raise _open_error(self.path, exc) from exc
        return out

    def store(self, a: Labels, b: Labels, scores: Any) -> int:
        """Write scores of ``(a_i, b_i)`` in one committed transaction; return how many were new.

        Pairs already in the file keep their stored score (``INSERT OR IGNORE``), so storing a
        batch twice never creates a second row or changes a value. Identical-label pairs are
        skipped. Scores are validated (finite, in [0, 1]) before anything is written.

        Examples
        --------
        >>> from softirr_stats.equivalence import Levenshtein
        >>> c = Cached(Levenshtein(), ":memory:")
        >>> c.store(["abc"], ["abd"], [0.5]), c.store(["abd"], ["abc"], [0.9]), c.lookup(["abc"], ["abd"]).tolist()
        (1, 0, [0.5])
        """
        aa, bb = check_pair_inputs(a, b)
        s = check_scores(scores, aa, bb, self.name)
        keep = np.flatnonzero(~equal_mask(aa, bb))
        if keep.size == 0:
            return 0
        ka, kb = self._pair_keys(aa[keep], bb[keep])
        fp = self._fp()
        with self._lock:
            con = self._connection()
            try:
                con.execute("BEGIN IMMEDIATE")
                try:
                    before = con.total_changes
                    con.executemany("INSERT OR IGNORE INTO scores VALUES (?, ?, ?, ?)",
                                    zip([fp] * len(ka), ka, kb, s[keep].tolist(), strict=True))
                    n_new = con.total_changes - before
                    con.execute("COMMIT")
                except BaseException:
                    if con.in_transaction:
                        con.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise _open_error(self.path, exc) from exc
        return int(n_new)
