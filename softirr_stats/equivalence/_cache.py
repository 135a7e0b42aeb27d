"""Persistent, crash-safe pair cache for any equivalence estimator (SQLite, WAL).

Scores are stored as REAL values (no pickle) under ``(estimator fingerprint, a, b)``, with
labels serialised canonically by :func:`~softirr_stats.equivalence.label_key` (pairs in
canonical order for symmetric estimators). New scores are committed batch by batch, so a
killed run keeps every batch it finished; SQLite's WAL journal keeps the file consistent,
and several processes may read and write the same file at once.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from typing import Any

import numpy as np

from softirr_stats.equivalence._protocol import (
    BaseEstimator,
    Labels,
    as_estimator,
    check_pair_inputs,
    check_scores,
    equal_mask,
    label_key,
)

__all__ = ["Cached"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS estimators (fp TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, name TEXT);
CREATE TABLE IF NOT EXISTS scores (
    fp TEXT NOT NULL, a TEXT NOT NULL, b TEXT NOT NULL, score REAL NOT NULL,
    PRIMARY KEY (fp, a, b)
) WITHOUT ROWID;
"""


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
                 batch_size: int = 512, timeout: float = 60.0) -> None:
        self.base = as_estimator(estimator)
        if not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}")
        self.path = os.fspath(path)
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
        return self.base.fingerprint

    def _settings(self) -> dict[str, Any]:
        return {"base": self.base, "path": self.path}

    def __repr__(self) -> str:
        return f"Cached({self.base!r}, path={self.path!r})"

    def _fp(self) -> str:
        return hashlib.sha256(self.fingerprint.encode("utf-8")).hexdigest()[:32]

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
            con = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None,
                                  check_same_thread=False)
            con.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
            con.execute("PRAGMA journal_mode = WAL")
            con.execute("PRAGMA synchronous = NORMAL")
            con.executescript(_SCHEMA)
            con.execute("INSERT OR IGNORE INTO estimators VALUES (?, ?, ?)",
                        (self._fp(), self.fingerprint, self.name))
            con.execute("CREATE TEMP TABLE IF NOT EXISTS want (i INTEGER PRIMARY KEY, a TEXT, b TEXT)")
            self._con, self._pid = con, os.getpid()
        return self._con

    def close(self) -> None:
        """Close the connection (reopened on the next call)."""
        with self._lock:
            if self._con is not None and self._pid == os.getpid():
                self._con.close()
            self._con = None

    def n_cached(self) -> int:
        """Number of pairs stored for this estimator's fingerprint."""
        with self._lock:
            (n,) = self._connection().execute("SELECT COUNT(*) FROM scores WHERE fp = ?", (self._fp(),)).fetchone()
        return int(n)

    # scoring ---------------------------------------------------------------------------
    def _lookup(self, con: sqlite3.Connection, ka: list[str], kb: list[str]) -> np.ndarray:
        found = np.full(len(ka), np.nan)
        con.execute("DELETE FROM want")
        con.executemany("INSERT INTO want VALUES (?, ?, ?)", zip(range(len(ka)), ka, kb, strict=False))
        rows = con.execute("SELECT w.i, s.score FROM want AS w JOIN scores AS s "
                           "ON s.fp = ? AND s.a = w.a AND s.b = w.b", (self._fp(),)).fetchall()
        con.execute("DELETE FROM want")
        if rows:
            idx, val = zip(*rows, strict=False)
            found[list(idx)] = val
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
            scores = self._lookup(con, uka, ukb)
            missing = np.flatnonzero(np.isnan(scores))
            self.n_hits += int(scores.size - missing.size)
            self.n_misses += int(missing.size)
            for s in range(0, missing.size, self.batch_size):
                sel = missing[s:s + self.batch_size]
                pa, pb = xa[uniq_pos[sel]], xb[uniq_pos[sel]]
                new = check_scores(self.base(pa, pb), pa, pb, self.name)
                scores[sel] = new
                fp = self._fp()
                con.execute("BEGIN IMMEDIATE")
                try:
                    con.executemany("INSERT OR IGNORE INTO scores VALUES (?, ?, ?, ?)",
                                    ((fp, uka[i], ukb[i], float(v)) for i, v in zip(sel.tolist(), new.tolist(), strict=False)))
                    con.execute("COMMIT")
                except BaseException:
                    con.execute("ROLLBACK")
                    raise
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
                out[todo] = self._lookup(self._connection(), ka, kb)
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
            con.execute("BEGIN IMMEDIATE")
            try:
                before = con.total_changes
                con.executemany("INSERT OR IGNORE INTO scores VALUES (?, ?, ?, ?)",
                                zip([fp] * len(ka), ka, kb, s[keep].tolist(), strict=True))
                n_new = con.total_changes - before
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
        return int(n_new)
