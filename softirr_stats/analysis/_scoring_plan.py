"""The scoring plan: exactly the label pairs a set of statistics will ask an estimator for.

:func:`scoring_plan` runs each requested coefficient once through its public function with
a *recording* estimator in place of the real one. The recorder answers every request with a
placeholder and notes the pairs, so the plan is, by construction, what the coefficient
engine asks for (within-item pairs, the chance support or the seeded sampled chance pairs,
the full vocabulary for AC1 / Brennan-Prediger) - there is no second copy of the pair
enumeration to drift from it. Pairs from elsewhere (e.g. a prediction-powered judging plan)
can be added with ``extra_pairs``. :meth:`ScoringPlan.run` then fills a cache file, in this
process or on Ray (:class:`~softirr_stats.equivalence.RayBackend`); a later
``fleiss_kappa(ann, similarity=Cached(estimator, path))`` reads every score from the file.
"""

from __future__ import annotations

import inspect
import os
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from softirr_stats.equivalence import (
    Cached,
    FillReport,
    as_estimator,
    fill_cache,
    is_identity,
    unique_pairs,
)

__all__ = ["ScoringPlan", "scoring_plan", "cached_estimator"]

_PLACEHOLDER = 0.5


class _Recorder:
    """Stands in for an estimator: records the pairs it is asked for, answers a placeholder."""

    def __init__(self, est: Any) -> None:
        self.name = est.name
        self.symmetric = bool(est.symmetric)
        self.fingerprint = "plan-recorder:" + est.fingerprint
        self.a: list[np.ndarray] = []
        self.b: list[np.ndarray] = []

    def __call__(self, a: Any, b: Any) -> np.ndarray:
        aa, bb = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
        self.a.append(aa.reshape(-1))
        self.b.append(bb.reshape(-1))
        return np.full(aa.shape[0], _PLACEHOLDER)


@dataclass(frozen=True)
class ScoringPlan:
    """The distinct label pairs an estimator must score for a set of statistics.

    Attributes
    ----------
    estimator : Estimator
        The estimator the plan is for (never wrapped in ``Cached``).
    a, b : ndarray of object
        Distinct non-identical pairs, canonical order (``a <= b`` by label key for a
        symmetric estimator), sorted - the same batches on every run.
    requested : dict
        Distinct pairs each source asked for (``"fleiss_kappa"``, ``"extra_pairs"``, ...);
        sources overlap, ``n_pairs`` counts the union.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.equivalence import Jaccard
    >>> plan = sis.scoring_plan([["a b", "a"], ["c", "c d"], ["a", "a b"]], Jaccard())
    >>> plan.n_pairs, plan.requested
    (6, {'krippendorff_alpha': 6})
    """

    estimator: Any
    a: np.ndarray
    b: np.ndarray
    requested: dict[str, int] = field(default_factory=dict)

    @property
    def n_pairs(self) -> int:
        return int(self.a.shape[0])

    def n_missing(self, cache: str | os.PathLike[str] | Cached) -> int:
        """Pairs of the plan not yet in the cache file."""
        store = cache if isinstance(cache, Cached) else Cached(self.estimator, cache)
        return int(np.isnan(store.lookup(self.a, self.b)).sum()) if self.n_pairs else 0

    def run(self, cache: str | os.PathLike[str] | Cached, *, backend: Any = None, batch_size: int = 256,
            progress: bool | None = None, on_batch: Any = None) -> FillReport:
        """Score the pairs missing from ``cache`` and store them (see :func:`fill_cache`)."""
        return fill_cache(self.estimator, self.a, self.b, cache, batch_size=batch_size, backend=backend,
                          progress=progress, on_batch=on_batch)


def _coefficient_fn(name: str) -> Any:
    import softirr_stats
    from softirr_stats.agreement import COEFFICIENTS, statistic_records
    from softirr_stats.api import public_function

    fn = None
    if isinstance(name, str) and name in COEFFICIENTS:
        fn = public_function(name)  # registered coefficients included
    elif isinstance(name, str) and name in statistic_records():
        fn = getattr(softirr_stats, name)
    if fn is None or "similarity" not in inspect.signature(fn).parameters:
        raise ValueError(f"coefficient must be a softirr_stats function taking similarity= (e.g. one of "
                         f"{[c for c, rec in COEFFICIENTS.items() if rec.similarity]}); got {name!r}")
    return fn


def _extra(extra_pairs: Any) -> tuple[list[Any], list[Any]]:
    try:
        import pandas as pd

        if isinstance(extra_pairs, pd.DataFrame):
            missing = {"label_a", "label_b"} - set(extra_pairs.columns)
            if missing:
                raise ValueError(f"extra_pairs DataFrame needs columns label_a and label_b; missing {sorted(missing)}")
            return extra_pairs["label_a"].tolist(), extra_pairs["label_b"].tolist()
    except ImportError:  # pragma: no cover - pandas is a dependency
        pass
    if not (isinstance(extra_pairs, (tuple, list)) and len(extra_pairs) == 2):
        raise TypeError("extra_pairs must be a DataFrame with label_a/label_b columns or a pair (a_seq, b_seq); "
                        f"got {type(extra_pairs).__name__}")
    return list(extra_pairs[0]), list(extra_pairs[1])


def scoring_plan(ann: Any, estimator: Any, *, coefficients: Any = ("krippendorff_alpha",),
                 chance: Any = "exact", categories: Any = None, extra_pairs: Any = None) -> ScoringPlan:
    """The deduplicated label pairs ``coefficients`` need from ``estimator`` on ``ann``.

    Parameters
    ----------
    ann : Annotations or wide table
        The annotations (as the coefficient functions accept them).
    estimator : Estimator
        The equivalence estimator to plan for (a ``Cached`` wrapper is looked through).
    coefficients : str or sequence of str
        Names of ``softirr_stats`` functions taking ``similarity=`` (``"fleiss_kappa"``,
        ``"krippendorff_alpha"``, ...).
    chance : "exact", "auto", MonteCarlo or SampledPairs
        Passed to the coefficients that take it; sampled chance pairs are drawn with the
        same seed as the later computation, so the plan holds exactly those pairs.
    categories : sequence, optional
        Declared categories, as for the coefficients.
    extra_pairs : DataFrame (label_a, label_b) or (a_seq, b_seq), optional
        More pairs to score, e.g. a judging plan's ``pairs``.

    Returns
    -------
    ScoringPlan

    Examples
    --------
    >>> from softirr_stats.equivalence import Levenshtein
    >>> ann = [["fever", "fevre", "fever"], ["cough", "cough", "coughing"]]
    >>> plan = scoring_plan(ann, Levenshtein(), coefficients=["percent_agreement"])
    >>> sorted(zip(plan.a.tolist(), plan.b.tolist()))
    [('cough', 'coughing'), ('fever', 'fevre')]
    >>> scoring_plan(ann, Levenshtein(), coefficients="fleiss_kappa").n_pairs  # + the chance support
    6
    """
    est = as_estimator(estimator)
    while isinstance(est, Cached):
        est = est.base
    names = [coefficients] if isinstance(coefficients, str) else list(coefficients)
    if not names and extra_pairs is None:
        raise ValueError("coefficients must name at least one coefficient (or give extra_pairs)")
    fns = [(n, _coefficient_fn(n)) for n in names]
    parts_a: list[np.ndarray] = []
    parts_b: list[np.ndarray] = []
    requested: dict[str, int] = {}
    if not is_identity(est):
        for name, fn in fns:
            # no ``matrix`` method, as Cached(estimator) has none: the engine asks exactly as it will
            # when it reads the filled cache (same chance="auto" choice, same blocks)
            rec = _Recorder(est)
            kw: dict[str, Any] = {"similarity": rec}
            params = inspect.signature(fn).parameters
            if "chance" in params:
                kw["chance"] = chance
            if categories is not None and "categories" in params:
                kw["categories"] = categories
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # placeholder scores: degenerate-value warnings mean nothing here
                fn(ann, **kw)
            ra = np.concatenate(rec.a) if rec.a else np.empty(0, dtype=object)
            rb = np.concatenate(rec.b) if rec.b else np.empty(0, dtype=object)
            requested[name] = int(unique_pairs(ra, rb, est.symmetric)[0].shape[0])
            parts_a.append(ra)
            parts_b.append(rb)
    if extra_pairs is not None:
        xa, xb = _extra(extra_pairs)
        ea, eb = unique_pairs(xa, xb, est.symmetric)
        requested["extra_pairs"] = int(ea.shape[0])
        parts_a.append(ea)
        parts_b.append(eb)
    if parts_a:
        a, b = unique_pairs(np.concatenate(parts_a), np.concatenate(parts_b), est.symmetric)
    else:
        a = b = np.empty(0, dtype=object)
    return ScoringPlan(est, a, b, requested)


def cached_estimator(estimator: Any, cache: str | os.PathLike[str] | None) -> Any:
    """``estimator`` reading (and filling) the score cache file ``cache``; unchanged when None.

    The hook for ``softirr agree ... --cache FILE``: wrap each measure's estimator with it
    before computing the coefficients, and every pair that ``softirr score`` stored is read
    from the file instead of being scored again (pairs not in the file are scored and added).

    Examples
    --------
    >>> from softirr_stats.equivalence import Levenshtein
    >>> cached_estimator(Levenshtein(), None)
    Levenshtein(processor=None)
    >>> type(cached_estimator(Levenshtein(), ":memory:")).__name__
    'Cached'
    """
    if cache is None or estimator is None or is_identity(estimator):
        return estimator
    if isinstance(estimator, Cached):
        if os.fspath(cache) == estimator.path:
            return estimator
        estimator = estimator.base
    return Cached(estimator, cache)
