"""What exact chance agreement will cost, before paying it.

Exact chance agreement with a scored similarity needs every pair of distinct labels in the
support: ``K (K - 1) / 2`` scores (twice that for a directional estimator). With free text,
``K`` is close to the number of ratings, and an estimator's per-pair cost ranges from
microseconds (vectorised edit distances) to seconds (an LLM judge). This module

- estimates the cost as ``pairs x seconds per pair`` from a small timed probe (the probed
  scores are kept, so nothing is scored twice);
- lets ``chance="auto"`` choose exact chance only within :data:`AUTO_BUDGET_SECONDS`
  (otherwise :class:`~softirr_stats.SampledPairs` with its standard error, saying so);
- shows a progress bar while scoring anything expected to take more than
  :data:`PROGRESS_AFTER_SECONDS` (only on a terminal; ``progress=False`` or the environment
  variable ``SOFTIRR_PROGRESS=0`` silences it);
- warns about very long labels (:data:`LONG_LABEL_CHARS`), whose per-pair cost grows with
  length (quadratically for edit distances).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import time
import warnings
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from softirr_stats.base._bars import bars_wanted, progress_bar
from softirr_stats.base._env import PROGRESS_ENV, env_flag
from softirr_stats.base._long_calls import say_before
from softirr_stats.base._validation import SoftIRRWarning

__all__ = ["AUTO_BUDGET_SECONDS", "PROGRESS_AFTER_SECONDS", "LONG_LABEL_CHARS", "CostWarning",
           "ScoringCost", "exact_chance_cost", "scoring_progress", "advance", "warn_long_labels"]

#: ``chance="auto"`` computes exact chance when the estimated scoring time is at most this.
AUTO_BUDGET_SECONDS = 60.0
#: A progress bar is shown for scoring estimated to take longer than this (on a terminal).
PROGRESS_AFTER_SECONDS = 3.0
#: Labels longer than this many characters give a :class:`CostWarning` before scoring.
LONG_LABEL_CHARS = 10_000
#: Pairs scored by the timing probe (pair-by-pair estimators).
PROBE_PAIRS = 64
#: Side of the block probed for vectorised estimators (256 x 256 = 65536 pairs, a few ms).
CHEAP_PROBE_SIDE = 256
#: Exact chance is expected to take this long or more: a :class:`CostWarning` gives the estimate.
WARN_AFTER_SECONDS = 600.0

_BAR: contextvars.ContextVar[Any] = contextvars.ContextVar("softirr_scoring_bar", default=None)
_SAID: weakref.WeakSet[ScoringCost] = weakref.WeakSet()  # estimates already printed (a blocked pass re-enters)


class CostWarning(SoftIRRWarning):
    """Scoring will be slow (long labels, or a long exact pass): the estimate and what to do."""


@dataclass(frozen=True)
class ScoringCost:
    """Estimated cost of scoring every label pair of the support."""

    n_pairs: int
    seconds_per_pair: float
    n_probed: int

    @property
    def seconds(self) -> float:
        return self.n_pairs * self.seconds_per_pair if self.n_pairs else 0.0

    def describe_time(self) -> str:
        return (f"about {_human(self.seconds)} ({self.seconds_per_pair * 1e3:.3g} ms per pair "
                f"measured on {self.n_probed})")

    def describe(self) -> str:
        if not self.n_probed:
            return f"{self.n_pairs} label pairs"
        return f"{self.n_pairs} label pairs, {self.describe_time()}"


def _human(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "unknown time"
    for unit, size in (("days", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{seconds / size:.1f} {unit}"
    return f"{seconds:.2g} s"


def exact_chance_cost(sim: Any, support: np.ndarray, seed: int = 0) -> tuple[ScoringCost, int]:
    """Pairs exact chance must score over ``support``, and their time from a timed probe.

    Identity and matrix similarities cost nothing. Vectorised estimators are probed with a
    small block (not remembered, so its count is dropped: the full pass scores it again);
    pair-by-pair estimators with random label pairs, which stay in the similarity's memo (the
    pairs this probe scored are the second value), the first of them scored before the clock
    starts (an estimator's first call may load a model or open a cache file, once per pass).
    """
    if sim.is_identity or sim.is_matrix:
        return ScoringCost(0, 0.0, 0), 0
    ks = len(support)
    n_pairs = ks * (ks - 1) // 2 * (1 if sim.symmetric else 2)
    if n_pairs <= 2 * PROBE_PAIRS:
        return ScoringCost(n_pairs, 0.0, 0), 0
    rng = np.random.default_rng(seed)
    if sim.vectorised_matrix:  # one vectorised call: a block large enough to amortise its overhead
        side = max(1, min(CHEAP_PROBE_SIDE, len(support) // 2))
        pick = rng.choice(support, 2 * side, replace=False)
        t0 = time.perf_counter()
        sim.block(pick[:side], pick[side:])  # a rectangle: not remembered, its count not kept
        probed = side * side * (1 if sim.symmetric else 2)
        kept = 0
    else:
        i = rng.choice(support, PROBE_PAIRS)
        j = rng.choice(support, PROBE_PAIRS)
        keep = i != j
        i, j = i[keep], j[keep]
        # an estimator's first call pays what it does once (a model loaded, a cache file opened):
        # that pair is scored untimed, so a once-only cost is not multiplied by every pair of the pass
        kept = sim.pairs(i[:1], j[:1]).n_scored if len(i) > 1 else 0
        i, j = (i[1:], j[1:]) if len(i) > 1 else (i, j)
        t0 = time.perf_counter()
        kept += sim.pairs(i, j).n_scored
        probed = len(i) * (1 if sim.symmetric else 2)
    dt = time.perf_counter() - t0
    return ScoringCost(n_pairs, dt / max(probed, 1), probed), kept


def progress_enabled(progress: bool | None) -> bool:
    """Whether to show a bar: ``progress`` if given, else the package's one rule
    (:func:`softirr_stats.base._bars.bars_wanted`: on a terminal, not when ``SOFTIRR_PROGRESS=0``)."""
    return bars_wanted(progress)


@contextlib.contextmanager
def scoring_progress(cost: ScoringCost, progress: bool | None, desc: str = "scoring label pairs") -> Iterator[None]:
    """A tqdm bar over the pairs of an exact chance pass, when it is expected to be slow.

    Without a terminal (a log file, a batch job) and with ``progress`` left to None, the
    estimate is printed once as one plain line before the pass starts instead of a bar.
    """
    if cost.seconds <= PROGRESS_AFTER_SECONDS:
        yield
        return
    if not progress_enabled(progress):
        if progress is None and env_flag(PROGRESS_ENV) is not False and cost not in _SAID:
            _SAID.add(cost)
            say_before(f"exact chance agreement: {cost.describe()} to score; Ctrl-C stops it "
                       f"(sampled chance estimates it with a standard error instead: chance='auto' or 'sampled:N' in "
                       f"Python, --chance auto on softirr agree, sensitivity and report)")
        yield
        return
    bar = progress_bar(cost.n_pairs, desc, unit="pair", show=True, unit_scale=True)
    token = _BAR.set(bar)
    try:
        yield
    finally:
        _BAR.reset(token)
        bar.close()


def advance(n: int) -> None:
    """Count ``n`` newly scored pairs on the active bar (no-op without one)."""
    bar = _BAR.get()
    if bar is not None and n:
        bar.update(n)


def bar_active() -> bool:
    return _BAR.get() is not None


def bar_callback() -> Any:
    """:func:`advance` while a bar is shown (to pass as a similarity's ``progress``), else None."""
    return advance if bar_active() else None


#: what long labels cost an estimator that does not say (``long_label_cost``): models and judges
LONG_LABEL_COST = "model-based estimators truncate long inputs or slow down"


def warn_long_labels(vocabulary: Any, support: np.ndarray, sim: Any) -> None:
    """CostWarning naming the longest label when a scored label exceeds LONG_LABEL_CHARS, saying what long labels
    cost ``sim`` (its ``long_label_cost``; none for set measures, which count tokens once: no warning)."""
    cost = getattr(getattr(sim, "estimator", sim), "long_label_cost", LONG_LABEL_COST)  # a ScoredSimilarity's
    if cost is None:
        return
    name = getattr(sim, "name", type(sim).__name__)
    labels = [vocabulary[k] for k in support.tolist()]  # the support's labels (K, not ratings)
    lengths = np.fromiter((len(x) if isinstance(x, str) else 0 for x in labels), dtype=np.int64,
                          count=len(labels))
    if not lengths.size or lengths.max() <= LONG_LABEL_CHARS:
        return
    n_long = int((lengths > LONG_LABEL_CHARS).sum())
    warnings.warn(
        f"{n_long} label(s) are longer than {LONG_LABEL_CHARS} characters (longest {int(lengths.max())}); "
        f"scoring them with {name!r} is slow: {cost}. Consider shortening or summarising the labels",
        CostWarning, stacklevel=5)


def warn_slow_exact(cost: ScoringCost) -> None:
    if cost.seconds >= WARN_AFTER_SECONDS:
        warnings.warn(f"exact chance agreement will score {cost.describe()}; chance='auto' or "
                      f"chance=SampledPairs(n=...) (on the command line: --chance auto or --chance sampled:N) "
                      f"estimates it with a standard error instead",
                      CostWarning, stacklevel=5)
