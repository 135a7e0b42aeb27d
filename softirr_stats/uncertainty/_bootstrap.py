"""Design-aware bootstraps as batches of item / rater weights (docs/formulas/resampling.md).

Every design is a way of drawing weights: multinomial item counts (``items``), rater
counts (``raters``), both (``items+raters``, product weights; the kernels exclude the
self-pairs of a duplicated rater), cluster counts mapped to their items (``cluster``), or
Dirichlet weights (``bayesian``, Rubin 1981). Replicates are evaluated by the same vmapped
kernel as the point estimate. Random numbers come from NumPy's SFC64, one generator per
fixed block of replicates keyed by (seed, stream, block), so a replicate does not depend on
the chunking or on the backend. Each design is one :class:`BootstrapDesign` record of
:data:`BOOTSTRAP_DESIGNS` (name, unit, weight sampler, jackknife, requirements): a new design
is one record.
"""

import logging
import math
import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from softirr_stats.agreement import AgreementResult, DegenerateWarning, Statistic
from softirr_stats.base._bars import progress_bar
from softirr_stats.base._batching import check_memory, rows_per_chunk
from softirr_stats.base._format import level_text
from softirr_stats.base._validation import (
    SoftIRRWarning,
    check_choice,
    check_level,
    check_positive_int,
    check_seed,
    user_stacklevel,
)
from softirr_stats.uncertainty._device_weights import GENERATORS
from softirr_stats.uncertainty._few_units import (
    FewUnitsWarning,
    check_few_units,
    few_items_note,
    few_units_correction,
    widen_interval,
)
from softirr_stats.uncertainty._intervals import (
    INTERVAL_METHODS,
    basic_interval,
    bca_interval,
    percentile_interval,
    resolve_method,
    stratified_dof,
    t_level,
)

__all__ = ["BACKENDS", "Bootstrap", "BootstrapCostWarning", "BootstrapDesign", "BOOTSTRAP_DESIGNS", "DESIGNS", "attach_bootstrap",
           "bootstrap_replicates", "check_backend", "draw_weights", "evaluate_chunk", "jackknife_strata", "jackknife_values", "leave_one_out_weights", "per_item_codes", "replicate_interval", "summarize_replicates",
           "too_few_units_advice", "unit_weights", "TOO_FEW_UNITS_POINT", "few_units_handling",
           "interval_items", "informative_clusters", "informative_units"]

#: The note of an interval the few-units rule widened where there were enough units for no warning
#: (the widening factor follows; a prefix of ``agreement.NOTE_PREFIXES``).
WIDENED_NOTE = "interval widened by the Student-t factor:"

# DESIGNS, the built-in records' names, is read from BOOTSTRAP_DESIGNS below (a new design is one record)


@dataclass(frozen=True)
class Bootstrap:
    """A bootstrap interval request.

    Parameters
    ----------
    n : int
        Number of replicates (B).
    design : {"items", "raters", "items+raters", "cluster", "bayesian", "judged"}
        What is resampled. ``items`` (default) recomputes observed and expected agreement on
        resampled items; ``raters`` treats raters as a sample; ``items+raters`` is the
        two-way (pigeonhole) bootstrap with product weights; ``cluster`` resamples clusters
        of items (``cluster=`` gives each item's cluster); ``bayesian`` uses Dirichlet item
        weights; ``judged`` resamples the judged label pairs of a prediction-powered
        estimate (``judgments=``), holding the items fixed.
    method : {"auto", "percentile", "basic", "bca", "bca-t"}
        How the interval is formed from the replicates (the replicates themselves do not depend on
        it). ``"bca-t"`` is BCa with the normal quantiles replaced by Student-t ones with ``n - 1``
        degrees of freedom for ``n`` resampled units. ``"auto"`` (default): ``bca-t`` for the
        ``items`` and ``bayesian`` designs with at most 1,000 items, ``basic`` for ``cluster``, the
        percentile interval otherwise (:func:`~softirr_stats.uncertainty._intervals.resolve_method`;
        at 20 items the percentile interval covered 88-94%, ``bca-t`` 93.7-97.7%; with 8-15 unequal
        clusters the percentile one 89-94%, the basic one 93-95%: docs/coverage.md).
        The result's ``ci_method`` names the method used, ``details["interval_rule"]`` why.
    level : float
        Confidence level.
    seed : int
        Seed of the replicate generator; the same seed gives the same interval.
    cluster : mapping item -> cluster, or a sequence aligned with ``ann.items``
    strata : mapping item -> stratum, or a sequence aligned with ``ann.items``; items
        (or clusters) are resampled within strata (``items``, ``cluster``, ``bayesian``).
    chunk_size : int, optional
        Replicates per vmapped chunk (default: sized to about 128 MiB of work arrays; capped at ``n``).
    progress : bool, optional
        Progress bar for a bootstrap estimated to take longer than :data:`BOOTSTRAP_BUDGET_SECONDS`
        (None: on a terminal only). Before the replicates are drawn, their memory is estimated
        and a request above the memory available is refused with the estimate; after the first
        chunk the total time is estimated, and a :class:`BootstrapCostWarning`
        gives it when it is above the budget.
    few_units : {"t", "none"}
        Small-sample correction for designs that resample raters or clusters (default ``"t"``):
        the interval's distances from the estimate are widened by a Student-t factor with
        ``U - 1`` degrees of freedom for ``U`` raters or clusters (only the rater share of the
        variance for ``items+raters``, whose item share also loses the item x rater interaction the
        two-way bootstrap counts again; that costs a second, item-only pass over the same item weights).
        Below 8 raters or 10 clusters a ``FewUnitsWarning`` says what the interval covers. See
        docs/coverage.md ("Few raters, few clusters").
    generator : {"numpy", "jax"}
        Where the replicate weights are drawn: ``"numpy"`` (default) on the host with NumPy's SFC64,
        one generator per block of 16 replicates; ``"jax"`` with ``jax.random`` (threefry, a key per
        block of 16 replicates) on JAX's default device, so that on a GPU no weight crosses to the host
        (docs/devices.md). Each draws the same replicate weights for a seed under any chunking, process
        and backend (the coefficients evaluated on them agree to rounding, about 1e-15, where a chunk size
        changes the shape of the batched sums); the two generators give different replicates (intervals
        equal within Monte Carlo error).
    backend : None, "local", "ray" or :class:`softirr_stats.equivalence.RayBackend`
        Where the replicate chunks are evaluated: None or ``"local"`` (default) in this process;
        ``"ray"`` (the Ray instance already initialised, else a local one started for the run; one
        actor per CPU) or a ``RayBackend`` (address, number
        of actors, CPUs / GPUs per actor) on Ray actors (the ``[distributed]`` extra). Each chunk's
        weights come from the per-block streams of ``seed``, so the replicates, and the
        interval, are identical wherever the chunks run (docs/scoring_at_scale.md, "Bootstrap
        replicates at scale"). The BCa jackknife runs in this process.

    Examples
    --------
    >>> Bootstrap(n=500, method="bca").design
    'items'
    """

    n: int = 2000
    design: str = "items"
    method: str = "auto"
    level: float = 0.95
    seed: int = 0
    cluster: Any = None
    strata: Any = None
    chunk_size: int | None = None
    progress: bool | None = None
    few_units: str = "t"
    backend: Any = None
    generator: str = "numpy"

    def __post_init__(self) -> None:
        object.__setattr__(self, "backend", check_backend(self.backend))
        check_choice("generator", self.generator, GENERATORS)
        check_few_units(self.few_units)
        check_positive_int(self.n, "n", minimum=2)
        object.__setattr__(self, "n", int(self.n))  # NumPy integers become Python ints (no overflow later)
        object.__setattr__(self, "seed", check_seed(self.seed))
        if self.chunk_size is not None:
            check_positive_int(self.chunk_size, "chunk_size", minimum=1)
            object.__setattr__(self, "chunk_size", min(int(self.chunk_size), self.n))  # never more rows than n
        check_choice("design", self.design, tuple(BOOTSTRAP_DESIGNS))
        check_choice("method", self.method, INTERVAL_METHODS)
        check_level(self.level)
        rec = BOOTSTRAP_DESIGNS[self.design]
        for name in rec.needs:
            if getattr(self, name) is None:
                raise ValueError(f"design={self.design!r} needs {name}= ({_NEEDS_HELP.get(name, name)})")
        if "cluster" not in rec.needs and self.cluster is not None:
            raise ValueError(f"cluster= is only used with design='cluster'; got design={self.design!r}")
        if self.strata is not None and not rec.strata:
            with_strata = ", ".join(n for n, r in BOOTSTRAP_DESIGNS.items() if r.strata)
            raise ValueError(f"strata= applies to the {with_strata} designs; got design={self.design!r}")

    @property
    def label(self) -> str:
        return f"bootstrap-{self.method}"

    @property
    def design_label(self) -> str:
        """The design as interval titles print it: ``cluster``, or ``cluster within 2 strata``.

        Examples
        --------
        >>> Bootstrap(n=100, strata={"a": "site1", "b": "site1", "c": "site2"}).design_label
        'items within 2 strata'
        """
        if self.strata is None:
            return self.design
        values = self.strata.values() if isinstance(self.strata, Mapping) else self.strata
        return f"{self.design} within {len({str(v) for v in values})} strata"


class BootstrapCostWarning(SoftIRRWarning):
    """A bootstrap is estimated to take longer than :data:`BOOTSTRAP_BUDGET_SECONDS` (the estimate and what to do).

    Examples
    --------
    >>> issubclass(BootstrapCostWarning, UserWarning)
    True
    """


#: Fewest raters for a design that resamples raters: with two, every replicate is the one
#: rater pair again or a rater paired with itself (no pair at all).
MIN_RATERS_RESAMPLED = 3


#: Names ``Bootstrap(backend=...)`` accepts besides a ``RayBackend``.
BACKENDS = ("local", "ray")


def check_backend(backend: Any) -> Any:
    """Validate ``Bootstrap(backend=...)``: None (``"local"``) or a ``RayBackend`` (``"ray"``: the defaults).

    Raises ImportError (with the extra to install) for Ray when ray is not installed.

    Examples
    --------
    >>> check_backend("local") is None
    True
    >>> check_backend("dask")
    Traceback (most recent call last):
    ...
    ValueError: backend must be one of 'local', 'ray' or a softirr_stats.equivalence.RayBackend; got 'dask'
    """
    if backend is None or (isinstance(backend, str) and backend == "local"):
        return None
    from softirr_stats.equivalence import RayBackend

    if isinstance(backend, str) and backend == "ray":
        backend = RayBackend()
    if not isinstance(backend, RayBackend):
        got = repr(backend) if isinstance(backend, str) else f"{type(backend).__name__}"
        raise (ValueError if isinstance(backend, str) else TypeError)(
            f"backend must be one of 'local', 'ray' or a softirr_stats.equivalence.RayBackend; got {got}")
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise ImportError("Bootstrap(backend='ray') needs ray, which is not installed: "
                          "pip install 'softirr-stats[distributed]' (or use backend='local')")
    return backend


def check_design(cfg: "Bootstrap", unit_strata: np.ndarray | None, n_units: int, n_raters: int) -> None:
    """Refuse a design that cannot vary: fewer than two resampling units in some stratum.

    A stratum with a single unit (one item, or one cluster) is drawn identically in every
    replicate, so it contributes no sampling variability and the interval collapses
    towards a point; resampling two raters only ever repeats the one rater pair. The advice
    follows the design's record (:func:`too_few_units_advice`).
    """
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    if rec.resamples_raters and n_raters < MIN_RATERS_RESAMPLED:
        raise ValueError(
            f"Bootstrap(design={cfg.design!r}) resamples raters and needs at least {MIN_RATERS_RESAMPLED}; "
            f"got {n_raters}: every replicate would repeat the one rater pair or pair a rater with itself "
            f"(no variability). Use design='items' (raters fixed) or 'cluster'")
    if not rec.resamples_items:  # items fixed: nothing else to check
        return
    unit = "clusters" if rec.resamples_clusters else "items"
    sizes = np.bincount(unit_strata) if unit_strata is not None else np.array([n_units])
    sizes = sizes[sizes > 0]
    if (sizes < 2).any():
        where = "in total" if unit_strata is None else (
            f"in {int((sizes < 2).sum())} of {sizes.size} strata")
        raise ValueError(
            f"Bootstrap(design={cfg.design!r}) needs at least 2 {unit} "
            f"{'to resample' if unit_strata is None else 'per stratum to resample'}; "
            f"got {int(sizes.min())} {where}: those {unit} would be drawn identically in every "
            f"replicate and the interval would collapse to a point. "
            + too_few_units_advice(rec, stratified=unit_strata is not None))


def too_few_units_advice(rec: "BootstrapDesign", *, stratified: bool) -> str:
    """The ways out of :func:`check_design`'s "fewer than 2 units" refusal that keep the design ``rec``.

    Another design is never suggested: every design over items resamples the same items (within the same
    strata), and the items of the ``cluster`` design are not independent (resampling them one by one would
    ignore the clustering). A stratified design may merge a stratum with a neighbouring one, or leave the
    strata out only where the units were not sampled within them; a design over clusters may be given more
    clusters; the point estimate without an interval is always left.

    Examples
    --------
    >>> too_few_units_advice(BOOTSTRAP_DESIGNS["items"], stratified=False)
    'Rate more items, or report the point estimate without an interval (ci=None; on the command line --bootstrap 0)'
    >>> too_few_units_advice(BOOTSTRAP_DESIGNS["cluster"], stratified=True)  # doctest: +NORMALIZE_WHITESPACE
    'Merge each such stratum with a neighbouring one (strata=), leave out strata= where the clusters were not sampled
    within strata, give cluster= more clusters, or report the point estimate without an interval (ci=None; on the
    command line --bootstrap 0)'
    """
    unit = "clusters" if rec.resamples_clusters else "items"
    ways = []
    if stratified:
        ways += ["merge each such stratum with a neighbouring one (strata=)",
                 f"leave out strata= where the {unit} were not sampled within strata"]
    if rec.resamples_clusters:
        ways.append("give cluster= more clusters")
    elif not stratified:
        ways.append("rate more items")
    ways.append(TOO_FEW_UNITS_POINT)
    text = ", ".join(ways[:-1]) + ", or " + ways[-1]
    return text[0].upper() + text[1:]


#: the last way out of a design with too few units (:func:`too_few_units_advice`), worded for both APIs
TOO_FEW_UNITS_POINT = "report the point estimate without an interval (ci=None; on the command line --bootstrap 0)"


def per_item_codes(values: Any, items: tuple, name: str) -> np.ndarray:
    if isinstance(values, Mapping):
        missing = [it for it in items if it not in values]
        if missing:
            raise ValueError(f"{name} has no entry for items {missing[:5]}")
        arr = [values[it] for it in items]
    elif isinstance(values, Sequence | np.ndarray) and not isinstance(values, str):
        arr = list(values)
        if len(arr) != len(items):
            raise ValueError(f"{name} must have one entry per item ({len(items)}); got {len(arr)}")
    else:
        raise TypeError(f"{name} must be a mapping item -> value or a sequence aligned with ann.items; "
                        f"got {type(values).__name__}")
    import pandas as pd

    col = pd.Series(arr, dtype=object)
    missing = col.isna().to_numpy()
    if missing.any():  # a missing id would pool every such item into one unit
        k = int(np.flatnonzero(missing)[0])
        raise ValueError(f"{name} has no value for item {items[k]!r} ({int(missing.sum())} item(s) in all): give "
                         f"every item its {name} id")
    try:
        codes, uniq = pd.factorize(col)  # by value: 1 and 1.0 are one id, 1 and '1' two
    except TypeError as err:
        raise TypeError(f"{name} ids must be hashable values (numbers or texts); {err}") from None
    # numbered in the order of their texts (as before: the same seed draws the same units)
    order = sorted(range(len(uniq)), key=lambda k: (str(uniq[k]), type(uniq[k]).__name__))
    rank = np.empty(len(uniq), dtype=np.int32)
    rank[order] = np.arange(len(uniq), dtype=np.int32)
    return rank[codes]


# Replicates are drawn in fixed blocks of this many; block j of stream ``salt`` has its own
# generator keyed by (seed, salt, j), so replicate b is the same under any chunking. SFC64 per
# block, in NumPy: ~5x faster than jax.random (threefry or rbg) per replicate at 1e4 items, the
# same on every backend, and nothing to compile (docs/performance.md).
REPLICATE_BLOCK = 16


def _block_rng(seed: int, salt: int, block: int) -> np.random.Generator:
    return np.random.Generator(np.random.SFC64(np.random.SeedSequence((seed % 2**64, salt, block))))


#: Units from which multinomial counts are made one replicate row at a time (a cache-sized
#: ``bincount`` each) instead of one ``bincount`` over the whole block (fewer calls: small data).
_ROW_BINCOUNT_UNITS = 1 << 15
#: Weight chunks in item-major (Fortran) order; False gives the row-major layout of before (same
#: numbers: only the memory layout differs), for benchmarks that compare the two.
_ITEM_MAJOR = True


def _unit_sampler(n_units: int, strata: np.ndarray | None, bayesian: bool, salt: int) -> Any:
    """Vectorised unit weights: returns f(seed, start, stop) -> (stop - start, n_units) float64.

    Multinomial counts of ``n_units`` draws (within each stratum when ``strata`` is given:
    each unit slot draws a unit of its own stratum), or Dirichlet(1) weights scaled to the
    stratum size (``bayesian``, Rubin 1981). Work is vectorised over a block of replicates.
    """
    st = np.zeros(n_units, dtype=np.int64) if strata is None else np.asarray(strata, dtype=np.int64)
    order = np.arange(n_units) if strata is None else np.argsort(st, kind="stable")  # no sort without strata
    sorted_st = st[order]
    size = np.bincount(sorted_st)
    first = np.concatenate([[0], np.cumsum(size)[:-1]])
    identity = strata is None or bool((order == np.arange(n_units)).all())
    inv = order if identity else np.argsort(order)
    n_strata = len(size)
    k = REPLICATE_BLOCK
    offsets = (np.arange(k) * n_units)[:, None]

    def block(seed: int, j: int, out: np.ndarray) -> None:
        rng = _block_rng(seed, salt, j)
        if bayesian:
            e = rng.standard_exponential((k, n_units))
            seg = (np.arange(k)[:, None] * n_strata + sorted_st).ravel()
            tot = np.bincount(seg, weights=e.ravel(), minlength=k * n_strata).reshape(k, n_strata)
            w = e / tot[:, sorted_st] * size[sorted_st]
        else:
            if n_strata == 1:
                pick = rng.integers(0, n_units, (k, n_units), dtype=np.int64)
            else:
                u = rng.random((k, n_units))
                pick = first[sorted_st] + np.minimum((u * size[sorted_st]).astype(np.int64), size[sorted_st] - 1)
            if identity and n_units >= _ROW_BINCOUNT_UNITS:  # one bincount per replicate row (cache-sized)
                w = np.empty((k, n_units), dtype=np.int64)
                for row in range(k):
                    w[row] = np.bincount(pick[row], minlength=n_units)
            else:
                pick += offsets
                w = np.bincount(pick.ravel(), minlength=k * n_units).reshape(k, n_units)
        out[:] = w if identity else w[:, inv]

    def draw(seed: int, start: int, stop: int) -> np.ndarray:
        j0, j1 = start // k, -(-stop // k)
        # item-major (Fortran order): the sparse product reads the weights of a unit side by side
        # without a transposed copy; each block of 16 rows is written as one cache-friendly slab
        out = np.empty(((j1 - j0) * k, n_units), order="F" if _ITEM_MAJOR else "C")
        for j in range(j0, j1):  # blocks of replicates
            block(seed, j, out[(j - j0) * k:(j - j0 + 1) * k])
        return out[start - j0 * k: stop - j0 * k]

    return draw


_NEEDS_HELP = {"cluster": "each item's cluster"}

#: Salts of the replicate streams: item (or cluster) weights, rater weights, chance-pair weights.
_ITEM_STREAM, _RATER_STREAM, _CHANCE_STREAM = 1, 2, 3

Weights = tuple[Any, Any]  # (C (B, n_items) or None, V (B, n_raters) or None)


@dataclass(frozen=True)
class BootstrapDesign:
    """One bootstrap design: what is resampled and how its weights are drawn.

    Adding a design is adding one record to :data:`BOOTSTRAP_DESIGNS` (and removing it removes it).

    Attributes
    ----------
    name : str
        The ``Bootstrap(design=...)`` name.
    unit : str
        What is resampled (for messages), e.g. ``"items"``.
    draw : callable
        ``draw(stat, cfg, strata, start, stop) -> (C, V)``: item weights (rows, n_items) or None and
        rater weights (rows, n_raters) or None for replicates ``start .. stop - 1``; replicate b must
        depend on (seed, b) only (use :func:`unit_weights`).
    jackknife : callable or None
        ``jackknife(cfg, items, n_items, n_raters)`` yielding blocks of leave-one-unit-out ``(C, V)``
        (BCa); None: BCa is not available for the design.
    jackknife_units : callable or None
        ``jackknife_units(cfg, items)``: each item's unit (int array), or None for every item its own
        unit, where the jackknife leaves items out (a statistic's
        :meth:`~softirr_stats.agreement.Statistic.leave_units_out` then gives the values in linear
        time); None: the design leaves out no items (raters).
    resamples_raters : bool
        Rater weights vary (needs at least :data:`MIN_RATERS_RESAMPLED` raters, and a statistic
        whose raters may be resampled).
    resamples_items : bool
        Item weights vary (items one by one, or in clusters); False: the items are held fixed.
    resamples_clusters : bool
        The units are clusters of items (``cluster=``): the few-units correction counts clusters.
    resamples_judged : bool
        The units are the judged label pairs of a prediction-powered estimate (items and raters
        fixed; the statistic must have judged pairs).
    fractional : bool
        The weights are not whole multiplicities (Dirichlet): statistics that need whole ones
        (quantile bin edges) refuse the design.
    needs : tuple of str
        ``Bootstrap`` fields the design requires (e.g. ``("cluster",)``).
    strata : bool
        Whether ``strata=`` applies.
    description : str

    Examples
    --------
    >>> BOOTSTRAP_DESIGNS["cluster"].needs, BOOTSTRAP_DESIGNS["raters"].resamples_raters
    (('cluster',), True)

    No design's name is compared outside its record: code asks for these flags
    (``tests/api/test_options_layer.py`` fails on a new comparison).
    """

    name: str
    unit: str
    draw: Callable[..., Weights]
    jackknife: Callable[..., Iterator[Weights]] | None
    jackknife_units: Callable[..., np.ndarray | None] | None = None
    resamples_raters: bool = False
    resamples_items: bool = True
    resamples_clusters: bool = False
    resamples_judged: bool = False
    fractional: bool = False
    needs: tuple[str, ...] = ()
    strata: bool = True
    description: str = ""


def unit_weights(n_units: int, cfg: "Bootstrap", start: int, stop: int, *, strata: np.ndarray | None = None,
                 bayesian: bool = False, stream: int = _ITEM_STREAM) -> np.ndarray:
    """Multinomial (or Dirichlet, ``bayesian``) weights of ``n_units`` units for replicates
    ``start .. stop - 1`` from the counter-based stream ``stream`` of ``cfg.seed``.

    Parameters
    ----------
    n_units : int
        Units (items, clusters, raters or chance pairs) per replicate.
    cfg : Bootstrap
        Its seed.
    start, stop : int
        The replicates ``start .. stop - 1``.
    strata : int array of shape (n_units,), optional
        Units are drawn within their stratum.
    bayesian : bool
        Dirichlet(1) weights scaled to the stratum size instead of multinomial counts.
    stream : int
        The stream's salt (items 1, raters 2, chance pairs 3).

    Examples
    --------
    >>> w = unit_weights(5, Bootstrap(n=4, seed=2), 0, 4)
    >>> w.shape, w.sum(axis=1).tolist()
    ((4, 5), [5.0, 5.0, 5.0, 5.0])
    """
    if cfg.generator == "jax":  # drawn on JAX's default device (a GPU: no transfer of the weights)
        from softirr_stats.uncertainty._device_weights import device_unit_sampler

        return device_unit_sampler(n_units, strata, bayesian, stream)(cfg.seed, start, stop)
    return _unit_sampler(n_units, strata, bayesian, stream)(cfg.seed, start, stop)


def _draw_items(stat: Statistic, cfg: "Bootstrap", strata: np.ndarray | None, start: int, stop: int) -> Weights:
    check_design(cfg, strata, stat.n_items, stat.n_raters)
    return unit_weights(stat.n_items, cfg, start, stop, strata=strata), None


def _draw_bayesian(stat: Statistic, cfg: "Bootstrap", strata: np.ndarray | None, start: int, stop: int) -> Weights:
    check_design(cfg, strata, stat.n_items, stat.n_raters)
    return unit_weights(stat.n_items, cfg, start, stop, strata=strata, bayesian=True), None


def _draw_raters(stat: Statistic, cfg: "Bootstrap", strata: np.ndarray | None, start: int, stop: int) -> Weights:
    check_design(cfg, strata, stat.n_items, stat.n_raters)
    return None, unit_weights(stat.n_raters, cfg, start, stop, stream=_RATER_STREAM)


def _draw_items_raters(stat: Statistic, cfg: "Bootstrap", strata: np.ndarray | None, start: int,
                       stop: int) -> Weights:
    C, _ = _draw_items(stat, cfg, strata, start, stop)
    return C, unit_weights(stat.n_raters, cfg, start, stop, stream=_RATER_STREAM)


def _draw_cluster(stat: Statistic, cfg: "Bootstrap", strata: np.ndarray | None, start: int, stop: int) -> Weights:
    cl = per_item_codes(cfg.cluster, stat.items, "cluster")
    n_cl = int(cl.max()) + 1
    cl_strata = None
    if strata is not None:
        first = np.zeros(n_cl, dtype=np.int32)
        first[cl] = strata
        if (first[cl] != strata).any():
            raise ValueError("strata must be constant within each cluster")
        cl_strata = first
    check_design(cfg, cl_strata, n_cl, stat.n_raters)
    return unit_weights(n_cl, cfg, start, stop, strata=cl_strata)[:, cl], None


def _draw_judged(stat: Statistic, cfg: "Bootstrap", strata: np.ndarray | None, start: int, stop: int) -> Weights:
    """Items and raters fixed: the units are the statistic's judged draws (its pair weights W)."""
    if not stat.judged_pairs:
        raise ValueError("Bootstrap(design='judged') resamples judged label pairs: it needs judgments= or judge=")
    return None, None


def _leave_items_out(cfg: "Bootstrap", items: tuple, n_items: int, n_raters: int) -> Iterator[Weights]:
    block = rows_per_chunk(n_items)  # within the package's memory budget (1024 rows at most)
    for b0 in range(0, n_items, block):  # blocks of leave-one-out weight rows
        rows = np.arange(b0, min(n_items, b0 + block))
        C = np.ones((len(rows), n_items))
        C[np.arange(len(rows)), rows] = 0.0
        yield C, None


def _leave_raters_out(cfg: "Bootstrap", items: tuple, n_items: int, n_raters: int) -> Iterator[Weights]:
    yield None, 1.0 - np.eye(n_raters)


def _leave_clusters_out(cfg: "Bootstrap", items: tuple, n_items: int, n_raters: int) -> Iterator[Weights]:
    cl = per_item_codes(cfg.cluster, items, "cluster")
    block = rows_per_chunk(n_items)
    for k0 in range(0, int(cl.max()) + 1, block):  # blocks of leave-one-cluster-out weight rows
        yield (cl[None, :] != np.arange(k0, min(int(cl.max()) + 1, k0 + block))[:, None]).astype(float), None


def _each_item(cfg: "Bootstrap", items: tuple) -> None:
    return None  # every item its own jackknife unit


def _item_clusters(cfg: "Bootstrap", items: tuple) -> np.ndarray:
    return per_item_codes(cfg.cluster, items, "cluster")


#: The bootstrap designs, one record each (``Bootstrap(design=name)``).
BOOTSTRAP_DESIGNS: dict[str, BootstrapDesign] = {d.name: d for d in (
    BootstrapDesign("items", "items", _draw_items, _leave_items_out, _each_item,
                    description="multinomial item counts; raters fixed"),
    BootstrapDesign("raters", "raters", _draw_raters, _leave_raters_out, resamples_raters=True,
                    resamples_items=False, strata=False,
                    description="multinomial rater counts; items fixed"),
    BootstrapDesign("items+raters", "items and raters", _draw_items_raters, _leave_items_out, _each_item,
                    resamples_raters=True, strata=False,
                    description="two-way bootstrap: product of item and rater weights"),
    BootstrapDesign("cluster", "clusters", _draw_cluster, _leave_clusters_out, _item_clusters, needs=("cluster",),
                    resamples_clusters=True,
                    description="multinomial cluster counts mapped to their items"),
    BootstrapDesign("bayesian", "items", _draw_bayesian, _leave_items_out, _each_item, fractional=True,
                    description="Dirichlet(1) item weights (Rubin 1981)"),
    BootstrapDesign("judged", "judged label pairs", _draw_judged, _leave_items_out, strata=False,
                    resamples_items=False, resamples_judged=True,
                    description="judged label pairs of a prediction-powered estimate; items fixed"),
)}
DESIGNS = tuple(BOOTSTRAP_DESIGNS)  # the built-in records' names


def draw_weights(stat: Statistic, cfg: Bootstrap, start: int, stop: int,
                 pad_to: int | None = None) -> tuple[Any, Any, Any]:
    """Item weights C (B, n) or None, rater weights V (B, R) or None, chance weights W or None.

    Replicate ``b`` always gets the same weights for a given seed, whatever the chunking.
    ``pad_to`` draws at least that many rows (replicates ``start .. start + pad_to``), so a
    caller can evaluate every chunk with one compiled shape.

    Parameters
    ----------
    stat : Statistic
        Gives the numbers of items, raters and chance pairs, and the item ids (strata, clusters).
    cfg : Bootstrap
        Design, seed, strata and clusters.
    start, stop : int
        The replicates ``start .. stop - 1``.
    pad_to : int, optional
        Draw at least this many rows.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import prepare, resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"]])
    >>> prep = prepare(ann, "pooled", resolve_similarity(ann))
    >>> C, V, W = draw_weights(prep, Bootstrap(n=10, seed=1), 0, 10)
    >>> C.shape, C.sum(axis=1).tolist() == [3.0] * 10, V is None
    ((10, 3), True, True)
    >>> bool((draw_weights(prep, Bootstrap(n=10, seed=1), 4, 6)[0] == C[4:6]).all())
    True
    """
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    stop = max(stop, start + (pad_to or 0))
    strata = None if cfg.strata is None else per_item_codes(cfg.strata, stat.items, "strata")
    C, V = rec.draw(stat, cfg, strata, start, stop)
    W = None
    if stat.n_chance_pairs:
        W = unit_weights(stat.n_chance_pairs, cfg, start, stop, stream=_CHANCE_STREAM)
    return C, V, W


def _pow2_floor(x: float) -> int:
    return 1 << max(int(x), 1).bit_length() - 1


def replicate_chunk(stat: Statistic, cfg: Bootstrap) -> int:
    """Replicates per evaluated chunk: a power of two (16 .. 512) within the package's one memory
    budget (:func:`softirr_stats.base._batching.rows_per_chunk`), so a handful of compiled shapes serve
    every ``B``.

    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import prepare, resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"]])
    >>> prep = prepare(ann, "pooled", resolve_similarity(ann))
    >>> [replicate_chunk(prep, Bootstrap(n=b)) for b in (10, 100, 1000, 5000)]
    [64, 128, 512, 512]
    """
    if cfg.chunk_size:
        return cfg.chunk_size
    budget = rows_per_chunk(stat.n_items + stat.n_raters + stat.n_chance_pairs, maximum=1 << 30)
    return int(np.clip(min(_pow2_floor(budget), 1 << max(cfg.n - 1, 1).bit_length()), 64 if budget >= 64 else 16,
                       512))


def bootstrap_replicates(stat: Statistic, cfg: Bootstrap) -> dict[str, np.ndarray]:
    """Evaluate ``cfg.n`` replicates of any statistic chunk by chunk (bounded memory; the last
    chunk is padded with further replicates, so every chunk has the same shape).

    Parameters
    ----------
    stat : Statistic
        The prepared statistic.
    cfg : Bootstrap
        Number of replicates, design, seed and chunk size.

    Returns
    -------
    dict of str to ndarray
        Every output of ``stat.evaluate`` (``value`` and the statistic's others), shape (cfg.n,).

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> cfg = Bootstrap(n=50, seed=0)
    >>> reps = bootstrap_replicates(prep, cfg)
    >>> sorted(reps), reps["value"].shape
    (['pa', 'pe', 'value'], (50,))

    A chunk evaluated on its own (as a Ray actor does, :func:`evaluate_chunk`) gives the same values:

    >>> part = evaluate_chunk(prep, cfg, 32, 32)  # replicates 32 .. 49, one batch of 32 rows
    >>> part["value"].shape
    (18,)
    >>> bool(np.allclose(part["value"], reps["value"][32:], rtol=0, atol=1e-12, equal_nan=True))
    True
    """
    chunk = replicate_chunk(stat, cfg)
    check_memory(bootstrap_memory(stat, cfg, chunk), f"Bootstrap(n={cfg.n}) on {stat.n_items} items",
                 "Use a smaller n (2000 replicates give a 95% percentile interval to about 0.005 in "
                 "coverage) or ci='analytic' where the coefficient has one.")
    if cfg.backend is not None:  # the same chunks on Ray actors
        from softirr_stats.uncertainty._bootstrap_ray import ray_replicates

        return ray_replicates(stat, cfg, chunk, evaluate_chunk)
    parts: list[dict[str, np.ndarray]] = []
    bar = None
    t0 = time.perf_counter()
    log = logging.getLogger(__name__)
    log.info("bootstrap: B = %d replicates, design = %s, %d items, chunks of %d", cfg.n, cfg.design,
             stat.n_items, chunk)
    try:
        for b0 in range(0, cfg.n, chunk):  # chunks of replicates, each evaluated as one batch
            rows = min(cfg.n, b0 + chunk) - b0
            started = time.perf_counter()
            parts.append(evaluate_chunk(stat, cfg, b0, chunk))
            # the second chunk is the timing probe: the first one's time holds the programs' compilation
            # (a fresh process estimated minutes for a run of seconds)
            if b0 == chunk and b0 + rows < cfg.n:
                bar = _warn_slow_bootstrap(cfg, rows, time.perf_counter() - started)
                if bar is not None:
                    bar.update(chunk)  # the first chunk, done before the bar
            if bar is not None:
                bar.update(rows)
    finally:
        if bar is not None:
            bar.close()
    log.info("bootstrap: %d replicates, %.2f s", cfg.n, time.perf_counter() - t0)
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def evaluate_chunk(stat: Statistic, cfg: Bootstrap, b0: int, chunk: int) -> dict[str, np.ndarray]:
    """Every output of replicates ``b0 .. min(cfg.n, b0 + chunk) - 1``, evaluated as one batch of
    ``chunk`` rows (the last chunk padded with further replicates of the same streams).

    The weights depend on (seed, replicate) only, so a chunk gives the same values in any
    process (the in-process loop and the Ray actors both call this; the example of
    :func:`bootstrap_replicates` compares a chunk with the whole run).
    """
    rows = min(cfg.n, b0 + chunk) - b0
    C, V, W = draw_weights(stat, cfg, b0, b0 + rows, pad_to=chunk)
    if cfg.generator == "jax" and not stat.device_weights:  # a statistic whose kernels read NumPy
        C, V, W = (None if x is None else np.asarray(x, dtype=np.float64) for x in (C, V, W))
    if C is None and V is None and W is None:
        raise AssertionError("a design draws item, rater or pair weights")  # pragma: no cover
    out = stat.evaluate(C, V, W)
    return {k: np.asarray(v)[:rows] for k, v in out.items()}


#: A bootstrap estimated (from its second chunk: the first holds the compilation) to take longer than this warns with the
#: estimate and shows a progress bar (on a terminal, or with ``Bootstrap(progress=True)``).
BOOTSTRAP_BUDGET_SECONDS = 120.0


def bootstrap_memory(stat: Statistic, cfg: Bootstrap, chunk: int) -> float:
    """Estimated peak bytes of ``cfg`` beyond the prepared statistic: every replicate's outputs
    (kept: value, observed, expected and the result's copy) plus one chunk of weights and the
    generator's work arrays.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import prepare, resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"]])
    >>> prep = prepare(ann, "pooled", resolve_similarity(ann))
    >>> bootstrap_memory(prep, Bootstrap(n=10**9), 512) > 2**34
    True
    """
    per_replicate = 8 * 5
    units = stat.n_items + stat.n_raters + stat.n_chance_pairs
    return float(cfg.n) * per_replicate + 4.0 * 8 * chunk * units


def _warn_slow_bootstrap(cfg: Bootstrap, rows: int, seconds: float) -> Any:
    """After the second chunk (timed alone): warn (and return a tqdm bar) when the whole bootstrap would exceed the budget."""
    total = seconds * cfg.n / max(rows, 1)
    if total <= BOOTSTRAP_BUDGET_SECONDS:
        return None
    warnings.warn(f"Bootstrap(n={cfg.n}) is estimated to take about {_describe_seconds(total)} "
                  f"({seconds / rows * 1e3:.3g} ms per replicate, measured on the first {rows}); use a smaller n "
                  "(2000 is usually enough) or ci='analytic' where the coefficient has one", BootstrapCostWarning,
                  stacklevel=user_stacklevel())
    # empty: the caller counts every chunk on it, the timed first one included
    return progress_bar(cfg.n, "bootstrap replicates", unit="rep", show=cfg.progress, unit_scale=True)


def _warn_slow_jackknife(cfg: Bootstrap, n_units: int, rows: int, seconds: float) -> Any:
    """After the second block of leave-one-out rows (timed alone): warn (and return a bar) when the
    whole jackknife of a BCa interval would exceed the budget."""
    total = seconds * n_units / max(rows, 1)
    if total <= BOOTSTRAP_BUDGET_SECONDS:
        return None
    unit = _jackknife_unit(cfg)
    warnings.warn(f"the jackknife of Bootstrap(method={cfg.method!r}) evaluates the statistic once without each of "
                  f"its {n_units} {unit}s, over all the others: estimated about {_describe_seconds(total)} "
                  f"({seconds / rows * 1e3:.3g} ms per {unit}, measured on {rows}); method='percentile' needs no "
                  "jackknife", BootstrapCostWarning, stacklevel=user_stacklevel())
    return progress_bar(n_units, f"jackknife ({unit}s left out)", unit=unit, show=cfg.progress, unit_scale=True)


def _describe_seconds(s: float) -> str:
    if s < 120:
        return f"{s:.0f} s"
    if s < 7200:
        return f"{s / 60:.0f} min"
    if s < 2 * 86400:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.0f} days"


def leave_one_out_weights(cfg: Bootstrap, items: tuple, n_items: int, n_raters: int) -> Iterator[tuple[Any, Any]]:
    """Blocks of leave-one-unit-out weights ``(C, V)`` (items, clusters or raters, matching the design).

    Parameters
    ----------
    cfg : Bootstrap
        Its design says what is left out.
    items : tuple
        Item ids (clusters are looked up by item).
    n_items, n_raters : int
        Sizes of the weight rows.

    Yields
    ------
    (C, V) : tuple of ndarray or None
        Item weights (rows, n_items) or None, rater weights (rows, n_raters) or None.

    Examples
    --------
    >>> [(C.shape, V) for C, V in leave_one_out_weights(Bootstrap(n=50), ("i1", "i2", "i3"), 3, 2)]
    [((3, 3), None)]
    >>> next(leave_one_out_weights(Bootstrap(n=50, design="raters"), ("i1", "i2"), 2, 3))[1].tolist()
    [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    if rec.jackknife is None:
        raise ValueError(f"Bootstrap(design={cfg.design!r}) has no jackknife, so method='bca' is not available; "
                         "use method='percentile' or 'basic'")
    yield from rec.jackknife(cfg, items, n_items, n_raters)


def jackknife_values(stat: Statistic, cfg: Bootstrap) -> np.ndarray:
    """Leave-one-unit-out values (items, clusters or raters, matching the design).

    Parameters
    ----------
    stat : Statistic
        The prepared statistic.
    cfg : Bootstrap
        Its design says what is left out (items, clusters or raters).

    Returns
    -------
    ndarray
        One value per left-out unit.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> jackknife_values(prep, Bootstrap(n=50)).round(4).tolist()
    [0.3333, 1.0, -0.2, 0.3333]
    """
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    if rec.resamples_judged:  # leave one judged draw out (the items held fixed)
        return stat.evaluate(None, None, 1.0 - np.eye(stat.n_chance_pairs))["value"]
    if rec.jackknife_units is not None:  # total minus each unit's share: linear in the items
        fast = stat.leave_units_out(rec.jackknife_units(cfg, stat.items))
        if fast is not None:
            return np.asarray(fast["value"], dtype=np.float64)
    return _evaluate_leave_one_out(stat, cfg)


def _evaluate_leave_one_out(stat: Statistic, cfg: Bootstrap) -> np.ndarray:
    """The jackknife as weight rows, block by block: a statistic without a linear-time path
    (:meth:`~softirr_stats.agreement.Statistic.leave_units_out`) costs one evaluation over every item
    per unit; a long one warns with its estimate and shows a bar, as the replicates do."""
    n_units = _jackknife_size(stat, cfg)
    values: list[np.ndarray] = []
    bar = None
    try:
        for k, (C, V) in enumerate(leave_one_out_weights(cfg, stat.items, stat.n_items, stat.n_raters)):
            started = time.perf_counter()
            values.append(np.asarray(stat.evaluate(C, V)["value"]))
            rows = len(values[-1])
            done = sum(len(v) for v in values)
            if k == 1 and done < n_units:  # the second block is timed: the first one's holds the compilation
                bar = _warn_slow_jackknife(cfg, n_units, rows, time.perf_counter() - started)
                if bar is not None:
                    bar.update(done - rows)
            if bar is not None:
                bar.update(rows)
    finally:
        if bar is not None:
            bar.close()
    return np.concatenate(values)


def _jackknife_unit(cfg: Bootstrap) -> str:
    """What the jackknife of ``cfg``'s design leaves out one at a time: ``"item"``, ``"cluster"`` or ``"rater"``."""
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    return "cluster" if rec.resamples_clusters else "item" if rec.resamples_items else "rater"


def _jackknife_size(stat: Statistic, cfg: Bootstrap) -> int:
    """How many units the jackknife of ``cfg``'s design leaves out, one at a time."""
    unit = _jackknife_unit(cfg)
    if unit == "cluster":
        return int(per_item_codes(cfg.cluster, stat.items, "cluster").max()) + 1
    return stat.n_raters if unit == "rater" else stat.n_items


def jackknife_strata(stat: Statistic, cfg: Bootstrap) -> np.ndarray | None:
    """Each jackknife unit's stratum (aligned with :func:`jackknife_values`), or None without ``strata=``.

    Items for the item designs, clusters for ``cluster`` (a cluster's stratum is its items'). The
    ``bca-t`` interval of a stratified bootstrap takes its degrees of freedom from these
    (:func:`~softirr_stats.uncertainty._intervals.stratified_dof`).

    Parameters
    ----------
    stat : Statistic
        The prepared statistic (its item ids).
    cfg : Bootstrap
        Its design, ``strata`` and ``cluster``.

    Returns
    -------
    int array of shape (n_units,) or None

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> _, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> jackknife_strata(prep, Bootstrap(n=50, strata=["x", "x", "y", "y"])).tolist()
    [0, 0, 1, 1]
    >>> jackknife_strata(prep, Bootstrap(n=50)) is None
    True
    """
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    if cfg.strata is None or not rec.strata:
        return None
    strata = per_item_codes(cfg.strata, stat.items, "strata")
    if not rec.resamples_clusters:
        return strata
    cl = per_item_codes(cfg.cluster, stat.items, "cluster")
    first = np.zeros(int(cl.max()) + 1, dtype=np.int32)
    first[cl] = strata
    return first


def summarize_replicates(result: AgreementResult, reps: np.ndarray, cfg: Bootstrap, jackknife: Any,
                         notes: tuple[str, ...] = (), widen: float = 1.0, n_units: int | None = None,
                         unit_strata: np.ndarray | None = None, unit_mask: np.ndarray | None = None,
                         **details: Any) -> AgreementResult:
    """``result`` with the interval, SE and bookkeeping of bootstrap replicates ``reps``.

    ``jackknife`` is a zero-argument callable giving leave-one-out values (used by BCa only).
    NaN replicates are counted, reported and left out.

    Parameters
    ----------
    result : AgreementResult
        The point estimate.
    reps : ndarray
        The bootstrap replicates of the value.
    cfg : Bootstrap
        Method, level and the bookkeeping to record.
    jackknife : callable
        ``() -> ndarray`` of leave-one-out values (called for BCa only).
    notes : tuple of str
        Further warnings to record.
    widen : float
        Factor (>= 1) on the interval's distances from the estimate and on the SE (the few-units
        correction, :func:`~softirr_stats.uncertainty._few_units.few_units_correction`).
    n_units : int, optional
        Number of resampled units ``method="auto"`` decides on (default ``result.n_items``).
    unit_strata : int array, optional
        Each counted jackknife unit's stratum (:func:`jackknife_strata`, restricted to ``unit_mask``): ``bca-t``
        then takes the Satterthwaite degrees of freedom of the stratified jackknife variance
        (:func:`~softirr_stats.uncertainty._intervals.stratified_dof`, at most ``n - H`` for ``H`` strata)
        instead of ``n - 1``.
    unit_mask : bool array, optional
        Which of the jackknife's values are units of the interval (:func:`informative_units`): the stratified
        degrees of freedom are taken over these only (the acceleration keeps every value). None: all of them.
    **details
        Further entries of ``details``.

    Returns
    -------
    AgreementResult

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> cfg = Bootstrap(n=50, seed=0)
    >>> reps = bootstrap_replicates(prep, cfg)["value"]
    >>> r = summarize_replicates(res, reps, cfg, jackknife=lambda: jackknife_values(prep, cfg))
    >>> r.ci_method, bool(r.ci_low <= r.ci_high), r.details["interval_rule"]
    ('bootstrap-bca-t', True, "method='auto': BCa with t quantiles, 3 df (items design, 4 <= 1000 items)")
    """
    finite = np.isfinite(reps)
    n_nan = int((~finite).sum())
    se = float(np.std(reps[finite], ddof=1)) if finite.sum() > 1 else math.nan
    lo, hi, method, note, rule = replicate_interval(reps, result.value, cfg, jackknife,
                                                    result.n_items if n_units is None else n_units,
                                                    unit_strata=unit_strata, n_units_given=n_units is not None,
                                                    unit_mask=unit_mask)
    details.update(rule)
    cfg = replace(cfg, method=method)
    if widen != 1.0:
        lo, hi = widen_interval(lo, hi, result.value, widen)
        se *= widen
        details["few_units_factor"] = widen
    lo, hi, clip = clip_to_range(lo, hi, result.coefficient, cfg.method)  # replicates may leave the range
    note = "; ".join(x for x in (note, clip) if x)
    warnings_ = list(result.warnings)
    if n_nan and finite.any():  # all undefined: replicate_problem says so, and that there is no interval
        warnings_.append(f"{n_nan} of {cfg.n} bootstrap replicates were undefined (nan) and left out of the interval")
    if note and finite.any():  # with none finite, the method's note ("no finite replicates") would repeat it
        warnings_.append(note)
    warnings_ += list(notes)
    problem = replicate_problem(reps)
    if problem:
        warnings_.append(problem)
        _warn_degenerate(f"{result.coefficient}: {problem}")
    else:
        excluded = excluded_estimate(result.value, lo, hi, reps)  # names the interval: one text per coefficient
        if excluded:
            warnings_.append(excluded)
            _warn_degenerate(excluded)
    out = result.with_interval(lo, hi, se, cfg.level, cfg.label, bootstrap_n=cfg.n, bootstrap_seed=cfg.seed,
                               bootstrap_design=cfg.design, n_nan_replicates=n_nan, replicates=reps, **details)
    return replace(out, warnings=tuple(warnings_))


def replicate_interval(reps: np.ndarray, estimate: float, cfg: Bootstrap, jackknife: Any, n_units: int, *,
                       unit_strata: np.ndarray | None = None, n_units_given: bool = True,
                       unit_mask: np.ndarray | None = None) -> tuple[float, float, str, str, dict[str, Any]]:
    """The interval of ``cfg.method`` from bootstrap replicates: the one rule of every bootstrap interval.

    ``method="auto"`` is resolved by the design and the number of units (:func:`resolve_method`); ``bca-t``
    takes Student-t quantiles with ``n_units - 1`` df, or a stratified design's Satterthwaite df. Used by the
    coefficients (:func:`summarize_replicates`) and by ``calibration_error_ci``; the few-units widening is
    applied after it (:func:`~softirr_stats.uncertainty._few_units.few_units_correction`).

    Parameters
    ----------
    reps : ndarray
        The replicates (non-finite ones are left out).
    estimate : float
        The point estimate.
    cfg : Bootstrap
        Method, level and design.
    jackknife : callable
        ``() -> ndarray`` of leave-one-unit-out values (called for BCa only).
    n_units : int
        Units resampled (what ``auto`` decides on; the df of ``bca-t``).
    unit_strata : int array, optional
        Each counted jackknife unit's stratum (:func:`jackknife_strata`, restricted to ``unit_mask``).
    n_units_given : bool
        False: ``bca-t`` takes its df from the number of (counted) jackknife values instead of ``n_units``.
    unit_mask : bool array, optional
        Which jackknife values are units of the interval (:func:`informative_units`): the stratified degrees of
        freedom are those of these values (an item that cannot change the value has the estimate as its
        leave-one-out value and is no unit); BCa's acceleration keeps every value. None: all of them.

    Returns
    -------
    (low, high, method, note, details) : tuple
        ``method`` is the one used (``auto`` resolved); ``note`` BCa's warning or ``""``; ``details`` holds
        ``interval_rule`` (for ``auto``) and ``t_dof`` (``bca-t``'s degrees of freedom).

    Examples
    --------
    >>> reps = np.random.default_rng(0).normal(0.5, 0.1, 2000)
    >>> lo, hi, method, note, details = replicate_interval(reps, 0.5, Bootstrap(n=2000), None, 5000)
    >>> method, details["interval_rule"], bool(lo < 0.5 < hi)
    ('percentile', "method='auto': percentile (items design, 5000 > 1000 items)", True)
    """
    details: dict[str, Any] = {}
    note = ""
    method = cfg.method
    if method == "auto":  # the method "auto" stands for (by design and number of items); recorded in details
        method, details["interval_rule"] = resolve_method(method, cfg.design, n_units)
    if method == "percentile":
        lo, hi = percentile_interval(reps, cfg.level)
    elif method == "basic":
        lo, hi = basic_interval(reps, estimate, cfg.level)
    elif method == "bca":
        lo, hi, note = bca_interval(reps, estimate, jackknife(), cfg.level)
    else:  # bca-t: Student-t quantiles with (units - 1) df, or a stratified design's Satterthwaite df
        jack = jackknife()
        counted = jack if unit_mask is None else np.asarray(jack)[np.asarray(unit_mask, dtype=bool)]
        units = n_units if n_units_given else len(counted)
        dof = None
        details["t_dof"] = units - 1
        if unit_strata is not None and len(unit_strata) == len(counted):
            dof = stratified_dof(counted, unit_strata)
            details["t_dof"] = dof
            if "interval_rule" in details:
                details["interval_rule"] = details["interval_rule"].replace(
                    f"{units - 1} df", f"{dof:.3g} df (Satterthwaite, {len(np.unique(unit_strata))} strata)")
        lo, hi, note = bca_interval(reps, estimate, jack, t_level(cfg.level, units, dof=dof))
    if method in ("bca", "bca-t") and "percentile interval used" in note:  # BCa fell back: say what was given
        method = "percentile"
    few = few_replicates_note(int(np.isfinite(reps).sum()), cfg.level, n_drawn=cfg.n)
    note = "; ".join(x for x in (note, few) if x)
    return float(lo), float(hi), method, note, details


#: Fewest replicates expected beyond each bound of an interval (``(1 - level) / 2 * B``) before its
#: ends are called seed-dependent: at 95% that is B >= 400, at 99% B >= 2000.
MIN_TAIL_REPLICATES = 10


def few_replicates_note(n_reps: int, level: float, n_drawn: int | None = None) -> str:
    """A note when too few of ``n_reps`` replicates lie beyond each bound of a ``level`` interval
    for its ends to be read to more than a digit (:data:`MIN_TAIL_REPLICATES`), else ``""``. ``n_drawn``: the
    replicates drawn, when some were undefined and left out (said beside the usable count).

    The bound is a tail order statistic of the replicates: with 5 beyond it (B = 200 at 95%),
    a rerun with another seed moves it by a sizeable part of the interval's half-width.

    Examples
    --------
    >>> few_replicates_note(2000, 0.95)
    ''
    >>> few_replicates_note(300, 0.95)[:49]  # 2.5% of 300 is 7.5: 8 whole replicates lie beyond the bound
    'only 8 bootstrap replicates lie beyond each bound'
    >>> few_replicates_note(200, 0.95)
    'only 5 bootstrap replicates lie beyond each bound of the 95% interval (B = 200): its ends change with the seed; use at least 400 replicates'
    >>> few_replicates_note(267, 0.95, n_drawn=300)[-27:]  # 11% undefined: 400 drawn give about 356 usable
    'use at least 450 replicates'
    """
    q = (1.0 - level) / 2.0
    # whole replicates: the bound lies at position (B - 1) q of the sorted replicates (interpolated), and the
    # replicates before that position lie beyond it; the note fires on that count (never "only 10")
    beyond = math.ceil((n_reps - 1) * q - 1e-9)
    if n_reps < 2 or beyond >= MIN_TAIL_REPLICATES:
        return ""
    # B with MIN_TAIL_REPLICATES / q usable ones (400 at 95%), more where a share of them is undefined
    usable = n_reps / n_drawn if n_drawn else 1.0
    need = math.ceil(math.ceil(MIN_TAIL_REPLICATES / q - 1e-9) / usable - 1e-9)
    return (f"only {beyond} bootstrap replicates lie beyond each bound of the {level_text(level)} interval "
            f"({_usable(n_reps, n_drawn)}): its ends change with the seed; use at least {need} replicates")


def _usable(n_reps: int, n_drawn: int | None) -> str:
    """``"B = 200"``, or ``"96 usable of B = 100"`` when undefined replicates were left out."""
    return f"B = {n_reps}" if n_drawn is None or n_drawn == n_reps else f"{n_reps} usable of B = {n_drawn}"


#: Coefficients bounded below by 0 (every other one is bounded above by 1 only).
_NONNEGATIVE = ("percent_agreement", "kendall_w")
#: the ICCs of a mean of k raters: 1 - MSE / MSR (or MSW / MSR) has no lower bound, so a limit below -1 is in range
_UNBOUNDED_BELOW = ("icc1k", "icc2k", "icc3k")


def clip_to_range(lo: float, hi: float, coefficient: str, method: str = "basic") -> tuple[float, float, str]:
    """Clip a bootstrap interval to the coefficient's range (upper 1; lower 0 for percent
    agreement and Kendall's W), returning a note when a limit moved (or lies below -1, which no supported
    chance-corrected coefficient reaches; the ICCs of a mean of k raters have no lower bound). Replicates of
    the coefficients stay in range; a basic interval, or replicates of an unbounded estimator (the
    prediction-powered one), may not.

    Examples
    --------
    >>> clip_to_range(0.8, 1.04, "cohen_kappa")
    (0.8, 1.0, 'basic bootstrap interval: upper limit 1.04 truncated at 1 (the largest possible value)')
    >>> clip_to_range(-1.5, 0.7, "icc1k")
    (-1.5, 0.7, '')
    """
    notes = []
    if math.isfinite(hi) and hi > 1.0:
        notes.append(f"upper limit {hi:.4g} truncated at 1 (the largest possible value)")
        hi = 1.0
    if math.isfinite(lo) and lo > 1.0:
        notes.append(f"lower limit {lo:.4g} lowered to 1")
        lo = 1.0
    if coefficient in _NONNEGATIVE and math.isfinite(lo) and lo < 0.0:
        notes.append(f"lower limit {lo:.4g} raised to 0 (the smallest possible value)")
        lo = 0.0
    elif math.isfinite(lo) and lo < -1.0 and coefficient not in _UNBOUNDED_BELOW:
        notes.append(f"lower limit {lo:.4g} lies below -1, below any chance-corrected coefficient's usual range")
    return lo, hi, (f"{method} bootstrap interval: " + "; ".join(notes)) if notes else ""


def replicate_problem(reps: np.ndarray) -> str:
    """Why the replicates cannot carry an honest interval ('' when they can).

    Most replicates undefined (nan), or most of the finite ones equal to a single value
    (the design barely varies the data), both leave an interval that looks precise and is not;
    every replicate undefined leaves no interval at all.

    Examples
    --------
    >>> replicate_problem(np.full(200, np.nan))
    'all 200 bootstrap replicates are undefined (nan): the coefficient exists on no resample, so there is no interval'
    """
    n = reps.size
    finite = reps[np.isfinite(reps)]
    if n == 0:
        return ""
    if finite.size == 0:
        return (f"all {n} bootstrap replicates are undefined (nan): the coefficient exists on no resample, so there "
                "is no interval")
    if finite.size * 2 < n:
        return (f"{n - finite.size} of {n} bootstrap replicates are undefined (nan): the interval "
                f"rests on the few where the coefficient exists and is not reliable")
    if finite.size >= 2:
        _, counts = np.unique(np.round(finite, 12), return_counts=True)
        if counts.max() * 2 > finite.size:
            return (f"{int(counts.max())} of {finite.size} finite bootstrap replicates are identical: the "
                    f"resampling design barely changes the data, so the interval understates the uncertainty")
    return ""


def excluded_estimate(estimate: float, lo: float, hi: float, reps: np.ndarray, what: str = "coefficient") -> str:
    """Why an interval that does not contain its own estimate is not to be trusted ('' when it contains it).

    It happens when the replicates are shifted from the estimate by more than their spread: a chance
    term re-estimated on resampled items is biased (duplicated items add agreeing pairs to it), which
    no spread hides where the observed agreement barely varies (no agreeing pair at all, say).
    ``what`` names the statistic (``"difference"`` for :func:`softirr_stats.compare`).

    Examples
    --------
    >>> excluded_estimate(-0.0004, -0.00058, -0.00054, np.full(100, -0.00056)).split(':')[0]
    'the interval [-0.00058, -0.00054] does not contain the estimate -0.0004'
    >>> excluded_estimate(0.5, 0.3, 0.7, np.full(100, 0.5))
    ''
    """
    if not (math.isfinite(estimate) and math.isfinite(lo) and math.isfinite(hi)) or lo <= estimate <= hi:
        return ""
    finite = reps[np.isfinite(reps)]
    side, count = ("below", int((finite < estimate).sum())) if hi < estimate else ("above", int((finite > estimate).sum()))
    return (f"the interval [{lo:.5g}, {hi:.5g}] does not contain the estimate {estimate:.5g}: {count} of {finite.size} "
            f"bootstrap replicates lie {side} it, so the resampled {what} is biased by more than its spread (a "
            "chance term re-estimated on resampled items does this where the observed agreement barely varies); "
            f"{'the interval and its p-value are' if what == 'difference' else 'the interval is'} not reliable: use "
            "ci='analytic' where the coefficient has one, or report the estimate without it")


def _warn_degenerate(message: str) -> None:
    warnings.warn(message, DegenerateWarning, stacklevel=user_stacklevel())


def attach_bootstrap(result: AgreementResult, stat: Statistic, cfg: Bootstrap) -> AgreementResult:
    """Compute the interval of ``cfg`` for any statistic and return ``result`` carrying it.

    Outputs a statistic lists in ``extra_outputs`` (e.g. the normalised kappa_x) get their
    replicates and percentile interval in ``details`` (``{name}_replicates``, ``{name}_ci_low``,
    ``{name}_ci_high``), and the count of their undefined (nan) replicates, left out of that
    interval (``{name}_n_nan_replicates``).

    Parameters
    ----------
    result : AgreementResult
        The point estimate.
    stat : Statistic
        The prepared statistic (evaluated for batches of weights).
    cfg : Bootstrap
        The interval request.

    Returns
    -------
    AgreementResult
        ``result`` with ``ci_low``, ``ci_high``, ``se`` and the bootstrap bookkeeping in ``details``.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> r = attach_bootstrap(res, prep, Bootstrap(n=200, seed=0))
    >>> r.ci_method, r.details["bootstrap_n"], bool(r.ci_low <= r.value <= r.ci_high)
    ('bootstrap-bca-t', 200, True)
    """
    if not stat.rater_designs and BOOTSTRAP_DESIGNS[cfg.design].resamples_raters:
        raise ValueError(f"Bootstrap design {cfg.design!r} is not supported here: the statistic's raters cannot be "
                         "resampled; use design='items', 'cluster' or 'bayesian'")
    reps = bootstrap_replicates(stat, cfg)
    notes: tuple[str, ...] = ()
    note = stat.resampled_pairs_note
    if stat.n_chance_pairs and note:
        notes = (note,)
    details: dict[str, Any] = {}
    for name in stat.extra_outputs:
        if name in reps:
            lo, hi = percentile_interval(reps[name], cfg.level)
            details.update({f"{name}_replicates": reps[name], f"{name}_ci_low": lo, f"{name}_ci_high": hi,
                            f"{name}_n_nan_replicates": int(np.isnan(reps[name]).sum())})
    if cfg.method == "auto" and stat.judged_pairs:  # prediction-powered: validated with percentile
        cfg = replace(cfg, method="percentile")
        details["interval_rule"] = ("method='auto': percentile (a prediction-powered estimate: its bootstrap "
                                    "coverage was checked with the percentile interval, docs/ppi.md)")
    # units that cannot change the value (items with a single rating, for alpha; clusters of such items) are no
    # units of the interval: each stratum counts the others (its size in the small-strata note and the cluster
    # factor, its degrees of freedom in bca-t's Satterthwaite df), as the unstratified rule counts them
    keep = informative_units(stat, cfg)
    unit_strata = jackknife_strata(stat, cfg)
    if unit_strata is not None and keep is not None:
        unit_strata = unit_strata[keep]
    factor, few = few_units_handling(stat, cfg, reps["value"], unit_strata)
    notes = (*notes, *few)
    n_units = None
    if stat.informative_items is not None and _jackknife_unit(cfg) == "item":
        # items that cannot change the value (a single rating, for alpha) are no units of the interval: the
        # Student-t degrees of freedom (and what "auto" decides on) are the informative items'
        n_units, left_out = interval_items(stat)
        details["n_uninformative_items"] = left_out
        if left_out:
            notes = (*notes, _uninformative_note(stat, result.coefficient, n_units, left_out,
                                                 stratified=unit_strata is not None))
    jackknife, unit_mask = _counted_jackknife(stat, cfg, keep)
    return summarize_replicates(result, reps["value"], cfg, jackknife, notes, widen=factor, n_units=n_units,
                                unit_strata=unit_strata, unit_mask=unit_mask, **details)


def _counted_jackknife(stat: Statistic, cfg: Bootstrap,
                       keep: np.ndarray | None) -> tuple[Callable[[], np.ndarray], np.ndarray | None]:
    """The jackknife BCa reads, and the mask of its values that are units of the interval (None: all).

    A cluster that holds no item able to change the value (:func:`informative_units`) is left out of the
    cluster jackknife: its leave-one-out value is the estimate, so it entered the acceleration as a unit of
    influence ``mean - estimate`` it does not have, and ``bca-t``'s ``C - 1`` degrees of freedom counted it
    (alpha, 6 clusters of pairable items beside 3 of single ratings: acceleration -0.00471 with all 9 against
    -0.00671 on the 6, which is alpha's jackknife on the data without the 3; docs/coverage.md, "Items with a
    single rating"). Which clusters those are follows the family: Fleiss', Cohen's and AC1's chance terms count
    single ratings, so their clusters of single ratings move the value and stay. The item jackknife keeps
    every item for the acceleration; its degrees of freedom count the informative items (``unit_mask``).
    """
    if keep is None or keep.all():
        return (lambda: jackknife_values(stat, cfg)), None
    if _jackknife_unit(cfg) == "cluster":
        return (lambda: jackknife_values(stat, cfg)[keep]), None
    return (lambda: jackknife_values(stat, cfg)), keep


def informative_units(stat: Statistic, cfg: Bootstrap) -> np.ndarray | None:
    """Which units of ``cfg``'s jackknife can change the value (aligned with :func:`jackknife_values` and
    :func:`jackknife_strata`), or None where all can (rater designs, statistics that name no items).

    Items: ``stat.informative_items`` (:func:`interval_items`); clusters: those holding such an item
    (:func:`informative_clusters`). The others are no units of the interval: not of its few-units counts, not of
    its Student-t degrees of freedom, stratified or not.

    Parameters
    ----------
    stat : Statistic
        The prepared statistic.
    cfg : Bootstrap
        Its design (and ``cluster=``).

    Returns
    -------
    bool array of shape (n_units,) or None

    Examples
    --------
    >>> import warnings, softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["a", "b"], ["b", None], ["a", None]])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     _, prep = point_estimate(ann, family="alpha", coefficient="krippendorff_alpha",
    ...                              sim=resolve_similarity(ann))
    >>> informative_units(prep, Bootstrap()).tolist()
    [True, True, False, False]
    >>> informative_units(prep, Bootstrap(design="cluster", cluster=[0, 1, 2, 2])).tolist()
    [True, True, False]
    """
    mask = stat.informative_items
    unit = _jackknife_unit(cfg)
    if mask is None or unit == "rater":
        return None
    mask = np.asarray(mask, dtype=bool)
    if unit == "item":
        return mask
    codes = per_item_codes(cfg.cluster, stat.items, "cluster")
    return np.bincount(codes, weights=mask.astype(np.float64), minlength=int(codes.max()) + 1) > 0


def interval_items(stat: Statistic) -> tuple[int, int]:
    """The units of an item bootstrap's few-items count and Student-t degrees of freedom, and the items left out.

    The units are the items whose weight can change the value (``stat.informative_items``; every item where
    the statistic names none): an item with a single rating adds nothing to Krippendorff's alpha, so counted
    as a unit it would add a degree of freedom and lift a small study over the few-items warning while the
    information stays that of the pairable items. The bootstrap still draws every item (an interval over the
    pairable items alone covered 0.3-0.6 points less often, docs/coverage.md, "Items with a single rating").

    Parameters
    ----------
    stat : Statistic
        The prepared statistic.

    Returns
    -------
    (units, left_out) : tuple of int

    Examples
    --------
    >>> import warnings, softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["a", "b"], ["b", None], ["a", "a"]])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     _, prep = point_estimate(ann, family="alpha", coefficient="krippendorff_alpha",
    ...                              sim=resolve_similarity(ann))
    >>> interval_items(prep)
    (3, 1)
    """
    mask = stat.informative_items
    if mask is None:
        return stat.n_items, 0
    units = int(np.count_nonzero(mask))
    return units, stat.n_items - units


def informative_clusters(stat: Statistic, cfg: Bootstrap) -> int:
    """The clusters of a cluster bootstrap that count as its units: those holding an item that can change the value
    (``stat.informative_items``; every cluster where the statistic names none). A cluster whose items all carry a
    single rating adds nothing to Krippendorff's alpha, as such an item adds nothing (:func:`interval_items`).

    Examples
    --------
    >>> import warnings, softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["a", "b"], ["b", None], ["a", None]])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     _, prep = point_estimate(ann, family="alpha", coefficient="krippendorff_alpha",
    ...                              sim=resolve_similarity(ann))
    >>> informative_clusters(prep, Bootstrap(design="cluster", cluster=[0, 1, 2, 2]))
    2
    """
    keep = informative_units(stat, replace(cfg, design="cluster"))
    if keep is not None:
        return int(np.count_nonzero(keep))
    return int(len(np.unique(per_item_codes(cfg.cluster, stat.items, "cluster"))))


#: The opening words of the note naming the items that are no units of an interval (:func:`interval_items`; a
#: prefix of ``agreement.NOTE_PREFIXES``: information, nothing went wrong).
UNITS_NOTE = "interval units:"


def _uninformative_note(stat: Statistic, coefficient: str, units: int, left_out: int, stratified: bool = False) -> str:
    """The note naming the items that are no units of the interval (:func:`interval_items`); ``stratified``: the
    strata's sizes count the others too."""
    sizes = ", its strata's sizes" if stratified else ""
    return (f"{UNITS_NOTE} {left_out} of {stat.n_items} {stat.unit_name} ({stat.uninformative_items_are}) cannot "
            f"change {coefficient} and are no units of the interval: its few-{stat.unit_name} count{sizes} and "
            f"Student-t degrees of freedom are those of the other {units} (the bootstrap still draws all "
            f"{stat.n_items})")


def few_units_handling(stat: Statistic, cfg: Bootstrap, reps: np.ndarray,
                       unit_strata: np.ndarray | None = None) -> tuple[float, tuple[str, ...]]:
    """The few-units rule of every bootstrap interval: the widening factor, the warnings and the notes.

    :func:`~softirr_stats.uncertainty._few_units.few_units_correction` gives the Student-t factor of a design
    over raters or clusters (``cfg.few_units="none"``: 1) and its note below 8 raters or 10 clusters;
    :func:`~softirr_stats.uncertainty._few_units.few_items_note` the note for fewer than 20 items resampled
    one by one (counting the items that can change the value, :func:`interval_items`). Each note is raised as a
    :class:`FewUnitsWarning` (one text per cause, so a filter and the
    command line say it once); a factor above 1 with no such note is still said, as a note. Used by
    :func:`attach_bootstrap` and by the statistics that draw their own replicates (span F1).

    Parameters
    ----------
    stat : Statistic
        The prepared statistic: its units are its items (``n_items``, ``items`` for ``cluster=``) and raters.
    cfg : Bootstrap
        The request (design, level, ``few_units``, ``cluster``).
    reps : ndarray
        The bootstrap replicates of the value (the factor of ``items+raters`` reads their variance).
    unit_strata : int array, optional
        Each counted unit's stratum (:func:`jackknife_strata`, restricted to the units that can change the value,
        :func:`informative_units`).

    Returns
    -------
    (factor, notes) : tuple of (float, tuple of str)
        The factor for :func:`summarize_replicates` (``widen=``) and the notes to record.

    Examples
    --------
    >>> import warnings, softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = sis.Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]] * 3)
    >>> _, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> cfg = Bootstrap(n=100, seed=0, design="cluster", cluster=[0, 1, 2, 3] * 3)
    >>> with warnings.catch_warnings(record=True):
    ...     warnings.simplefilter("always")
    ...     factor, notes = few_units_handling(prep, cfg, bootstrap_replicates(prep, cfg)["value"])
    >>> round(factor, 4), notes[0][:40]  # t_3 / z * sqrt(4 / 3)
    (1.8749, '4 clusters resampled (fewer than 10): th')
    """
    factor, few_note = few_units_correction(
        stat, cfg, reps, BOOTSTRAP_DESIGNS[cfg.design],
        n_clusters=lambda: informative_clusters(stat, cfg),
        rater_jackknife=lambda: jackknife_values(stat, replace(cfg, design="raters", cluster=None, strata=None)),
        item_replicates=lambda: bootstrap_replicates(stat, replace(cfg, design="items", cluster=None,
                                                                   strata=None))["value"],
        unit_strata=unit_strata,
        unit="items that can change the value" if interval_items(stat)[1] else "items")
    notes: tuple[str, ...] = ()
    items_note = few_items_note(interval_items(stat)[0], BOOTSTRAP_DESIGNS[cfg.design], unit=stat.unit_name,
                                caveat=stat.few_items_caveat)
    for text in (few_note, items_note):
        if text:
            # one text per cause, not per coefficient: Python's filter and the CLI's notes then say it once
            warnings.warn(text, FewUnitsWarning, stacklevel=user_stacklevel())
            notes = (*notes, text)
    if factor != 1.0 and not few_note:  # widened, with enough units for no warning: still said, as a note
        n_strata = len(np.unique(unit_strata)) if unit_strata is not None else 1
        units = len(unit_strata) if unit_strata is not None else 0
        within = (f" within {n_strata} strata, and the variance the resampling within strata leaves out: "
                  f"{units} / ({units} - {n_strata})" if n_strata > 1 else "")
        notes = (*notes, f"{WIDENED_NOTE} x{factor:.3f} (Student-t quantiles for the {cfg.design} design's "
                         f"units{within}; few_units='none' leaves it out)")
    return factor, notes
