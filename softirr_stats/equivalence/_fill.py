"""Fill a :class:`~softirr_stats.equivalence.Cached` file with the scores of given label pairs.

:func:`fill_cache` de-duplicates the pairs (symmetric pairs once, identical labels never
scored), drops those already in the file, and scores the rest in fixed batches - in this
process (default) or on a Ray cluster (``backend=RayBackend(...)``). Every batch is written
in its own committed transaction as soon as it is scored, so an interrupted run keeps every
batch it finished and the next run scores only what is missing. Batches are cut the same
way on both backends (the missing pairs in a fixed order, ``batch_size`` at a time), so the
stored scores are the same bit for bit.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from softirr_stats.equivalence._cache import Cached
from softirr_stats.equivalence._protocol import (
    as_estimator,
    check_pair_inputs,
    check_scores,
    equal_mask,
    label_key,
)

__all__ = ["FillReport", "fill_cache", "unique_pairs"]


@dataclass(frozen=True)
class FillReport:
    """What one :func:`fill_cache` run did.

    Attributes
    ----------
    n_pairs : int
        Distinct non-identical pairs asked for (after de-duplication).
    n_cached : int
        Of those, pairs already in the file before the run.
    n_scored : int
        Pairs scored in this run (``n_pairs - n_cached`` unless interrupted).
    n_written : int
        New rows written (equals ``n_scored``: no pair is stored twice).
    n_batches : int
        Batches scored and committed.
    seconds : float
        Wall time of the scoring phase.
    backend : str
        ``"in-process"`` or ``"ray (...)"`` (number of workers, address).
    n_redone : int
        Batches scored again because a worker died while scoring them (Ray only).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from softirr_stats.equivalence import Jaccard
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "scores.sqlite"
    >>> report = fill_cache(Jaccard(), ["a b", "c d"], ["a", "c"], path, progress=False)
    >>> report.n_pairs, report.n_scored, report.backend
    (2, 2, 'in-process')
    """

    n_pairs: int
    n_cached: int
    n_scored: int
    n_written: int
    n_batches: int
    seconds: float
    backend: str
    n_redone: int = 0

    @property
    def pairs_per_second(self) -> float:
        return self.n_scored / self.seconds if self.seconds > 0 else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "pairs_per_second": self.pairs_per_second}


def unique_pairs(a: Any, b: Any, symmetric: bool) -> tuple[np.ndarray, np.ndarray]:
    """Distinct non-identical pairs, in canonical key order (``a <= b`` for symmetric).

    The order is a pure function of the set of pairs (sorted by the labels' canonical
    keys), so every run and every backend cuts the same batches.

    Examples
    --------
    >>> a, b = unique_pairs(["x", "y", "x", "z"], ["y", "x", "x", "w"], symmetric=True)
    >>> list(zip(a.tolist(), b.tolist()))
    [('w', 'z'), ('x', 'y')]
    """
    aa, bb = check_pair_inputs(a, b)
    keep = ~equal_mask(aa, bb)
    aa, bb = aa[keep], bb[keep]
    table: dict[Any, int] = {}
    ia = np.fromiter((table.setdefault(x, len(table)) for x in aa), dtype=np.int64, count=aa.shape[0])
    ib = np.fromiter((table.setdefault(x, len(table)) for x in bb), dtype=np.int64, count=bb.shape[0])
    labels = np.empty(len(table), dtype=object)
    labels[:] = list(table)
    keys = np.array([label_key(x) for x in labels], dtype=object)
    rank = np.empty(len(table), dtype=np.int64)
    rank[np.argsort(keys.astype(str), kind="stable")] = np.arange(len(table))
    ra, rb = rank[ia], rank[ib]
    if symmetric:
        ra, rb = np.minimum(ra, rb), np.maximum(ra, rb)
    k = max(len(table), 1)
    uniq = np.unique(ra * k + rb)
    by_rank = np.empty(len(table), dtype=object)
    by_rank[rank] = labels
    return by_rank[uniq // k], by_rank[uniq % k]


def _batches(n: int, size: int) -> Iterator[slice]:
    for s in range(0, n, size):
        yield slice(s, min(s + size, n))


class _Progress:
    """tqdm bar over pairs (done / total, pairs/s, ETA); silent off a terminal, with ``SOFTIRR_PROGRESS=0``
    or when disabled (:func:`softirr_stats.base._bars.bars_wanted`)."""

    def __init__(self, total: int, desc: str, progress: bool | None) -> None:
        self.bar = None
        if progress is not False and total > 0:
            from softirr_stats.base._bars import progress_bar

            self.bar = progress_bar(total, desc, unit="pair", show=progress, leave=True, smoothing=0.1)

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def fill_cache(estimator: Any, a: Any, b: Any, cache: str | os.PathLike[str] | Cached, *,
               batch_size: int = 256, backend: Any = None, progress: bool | None = None,
               on_batch: Callable[[int, int], None] | None = None) -> FillReport:
    """Score the pairs ``(a_i, b_i)`` missing from a cache file and store them, batch by batch.

    Parameters
    ----------
    estimator : Estimator
        The estimator to score with. In process any estimator works; the Ray backend needs
        one that :func:`~softirr_stats.equivalence.to_spec` can ship (built-in estimators and
        module-level ``BaseEstimator`` subclasses).
    a, b : sequence of labels, same length
        The pairs to have in the file (duplicates, reversed duplicates of a symmetric
        estimator and identical labels are dropped first).
    cache : path or Cached
        The SQLite file (created if needed), or a ``Cached`` wrapping the same estimator.
    batch_size : int, default 256
        Pairs per estimator call and per committed transaction.
    backend : None, "in-process" or RayBackend
        Where to score: this process (default) or Ray actors (see :class:`RayBackend`).
    progress : bool or None
        A bar with pairs done / total, pairs/s and ETA; None shows it only on a terminal.
    on_batch : callable (n_done, n_missing), optional
        Called after each committed batch (monitoring, tests).

    Returns
    -------
    FillReport

    Examples
    --------
    >>> import os, tempfile
    >>> from softirr_stats.equivalence import Levenshtein
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> r = fill_cache(Levenshtein(), ["abc", "abd", "x"], ["abd", "abc", "x"], path, progress=False)
    >>> r.n_pairs, r.n_scored
    (1, 1)
    >>> fill_cache(Levenshtein(), ["abc", "abc"], ["abd", "xyz"], path, progress=False).n_scored  # resumes
    1
    """
    from softirr_stats.equivalence._ray import RayBackend

    if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}")
    if backend is not None and backend != "in-process" and not isinstance(backend, RayBackend):
        raise TypeError(f"backend must be None, 'in-process' or a RayBackend; got {backend!r}")
    est = as_estimator(estimator)
    while isinstance(est, Cached):  # the cache is the store here, never a second layer
        est = est.base
    if isinstance(cache, Cached):
        if cache.fingerprint != est.fingerprint:
            raise ValueError(f"cache wraps estimator {cache.fingerprint!r:.120}, not {est.fingerprint!r:.120}")
        store = cache
    else:
        store = Cached(est, cache)
    ua, ub = unique_pairs(a, b, bool(est.symmetric))
    known = store.lookup(ua, ub) if ua.size else np.empty(0)
    miss = np.flatnonzero(np.isnan(known))
    ma, mb = ua[miss], ub[miss]
    n_missing = int(miss.size)
    bar = _Progress(n_missing, f"scoring {est.name}", progress)
    t0 = time.perf_counter()
    done = written = n_batches = 0

    def commit(sl: slice, scores: np.ndarray) -> None:
        nonlocal done, written, n_batches
        written += store.store(ma[sl], mb[sl], scores)
        done += sl.stop - sl.start
        n_batches += 1
        bar.update(sl.stop - sl.start)
        if on_batch is not None:
            on_batch(done, n_missing)

    slices = list(_batches(n_missing, int(batch_size)))
    redone = 0
    try:
        if isinstance(backend, RayBackend):
            label, redone = backend.run(est, ma, mb, slices, commit)
        else:
            label = "in-process"
            for sl in slices:
                pa, pb = ma[sl], mb[sl]
                commit(sl, check_scores(est(pa, pb), pa, pb, est.name))
    finally:
        bar.close()
    return FillReport(n_pairs=int(ua.size), n_cached=int(ua.size) - n_missing, n_scored=done, n_written=written,
                      n_batches=n_batches, seconds=time.perf_counter() - t0, backend=label,
                      n_redone=redone)
