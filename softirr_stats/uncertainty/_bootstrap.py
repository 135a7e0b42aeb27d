"""Design-aware bootstraps as batches of item / rater weights (FORMULAS.md 4).

Every design is a way of drawing weights: multinomial item counts (``items``), rater
counts (``raters``), both (``items+raters``, product weights; the kernels exclude the
self-pairs of a duplicated rater), cluster counts mapped to their items (``cluster``), or
Dirichlet weights (``bayesian``, Rubin 1981). Replicates are evaluated by the same vmapped
kernel as the point estimate. Random numbers come from ``jax.random`` with one key per
replicate (``fold_in(seed, b)``), so a replicate does not depend on the chunking.
"""

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from softirr_stats._jax import x64
from softirr_stats._validation import check_choice, check_level, check_positive_int
from softirr_stats.agreement import AgreementResult
from softirr_stats.agreement._engine import Prepared, evaluate
from softirr_stats.uncertainty._intervals import (
    INTERVAL_METHODS,
    basic_interval,
    bca_interval,
    percentile_interval,
)

__all__ = ["Bootstrap", "DESIGNS", "attach_bootstrap", "bootstrap_replicates", "draw_weights", "jackknife_values",
           "leave_one_out_weights", "per_item_codes", "summarize_replicates"]

DESIGNS = ("items", "raters", "items+raters", "cluster", "bayesian", "judged")


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
    method : {"percentile", "basic", "bca"}
    level : float
        Confidence level.
    seed : int
        Seed of the ``jax.random`` key; the same seed gives the same interval.
    cluster : mapping item -> cluster, or a sequence aligned with ``ann.items``
    strata : mapping item -> stratum, or a sequence aligned with ``ann.items``; items
        (or clusters) are resampled within strata (``items``, ``cluster``, ``bayesian``).
    chunk_size : int, optional
        Replicates per vmapped chunk (default: sized to about 256 MiB of work arrays).

    Examples
    --------
    >>> Bootstrap(n=500, method="bca").design
    'items'
    """

    n: int = 2000
    design: str = "items"
    method: str = "percentile"
    level: float = 0.95
    seed: int = 0
    cluster: Any = None
    strata: Any = None
    chunk_size: int | None = None

    def __post_init__(self) -> None:
        check_positive_int(self.n, "n", minimum=2)
        check_choice("design", self.design, DESIGNS)
        check_choice("method", self.method, INTERVAL_METHODS)
        check_level(self.level)
        if self.design == "cluster" and self.cluster is None:
            raise ValueError("design='cluster' needs cluster= (each item's cluster)")
        if self.design != "cluster" and self.cluster is not None:
            raise ValueError(f"cluster= is only used with design='cluster'; got design={self.design!r}")
        if self.strata is not None and self.design in ("raters", "items+raters"):
            raise ValueError("strata= applies to the items, cluster and bayesian designs")

    @property
    def label(self) -> str:
        return f"bootstrap-{self.method}"


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
    _, codes = np.unique(np.asarray(arr, dtype=object).astype(str), return_inverse=True)
    return codes.astype(np.int32)


@partial(jax.jit, static_argnames=("n_units", "bayesian", "salt"))
def _draw_units(base: jax.Array, idx: jax.Array, stratum: jax.Array, start: jax.Array, size: jax.Array,
                inv: jax.Array, *, n_units: int, bayesian: bool, salt: int) -> jax.Array:
    """Weights of ``n_units`` units for replicates ``idx`` (one key per replicate: fold_in(seed, b)).

    Units are sorted by stratum; each unit slot draws a unit of its own stratum
    (stratified multinomial), or gets Dirichlet(1) weights scaled to the stratum size.
    """

    def one(b: jax.Array) -> jax.Array:
        key = jax.random.fold_in(jax.random.fold_in(base, b), salt)
        if bayesian:
            e = jax.random.exponential(key, (n_units,), dtype=jnp.float64)
            tot = jax.ops.segment_sum(e, stratum, num_segments=size.shape[0])
            w = e / tot[stratum] * size[stratum]
        else:
            u = jax.random.uniform(key, (n_units,), dtype=jnp.float64)
            pick = start[stratum] + jnp.floor(u * size[stratum]).astype(jnp.int32)
            w = jnp.bincount(pick, length=n_units).astype(jnp.float64)
        return w[inv]

    return jax.vmap(one)(idx)


def _unit_sampler(n_units: int, strata: np.ndarray | None, bayesian: bool, salt: int) -> Any:
    """Vectorised unit weights: returns f(base_key, idx) -> (len(idx), n_units)."""
    st = np.zeros(n_units, dtype=np.int32) if strata is None else strata
    order = np.argsort(st, kind="stable")
    sorted_st = st[order].astype(np.int32)
    size = np.bincount(sorted_st)
    start = np.concatenate([[0], np.cumsum(size)[:-1]]).astype(np.int32)
    inv = np.argsort(order).astype(np.int32)

    def draw(base: jax.Array, idx: jax.Array) -> jax.Array:
        return _draw_units(base, idx, jnp.asarray(sorted_st), jnp.asarray(start),
                           jnp.asarray(size, dtype=jnp.float64), jnp.asarray(inv),
                           n_units=n_units, bayesian=bayesian, salt=salt)

    return draw


def draw_weights(prep: Prepared, cfg: Bootstrap, start: int, stop: int,
                 pad_to: int | None = None) -> tuple[Any, Any, Any]:
    """Item weights C (B, n) or None, rater weights V (B, R) or None, chance weights W or None.

    Replicate ``b`` always gets the same weights for a given seed, whatever the chunking.
    ``pad_to`` draws a fixed number of rows (so one compiled program serves every chunk);
    only the first ``stop - start`` are returned.
    """
    if cfg.design == "judged":
        raise ValueError("Bootstrap(design='judged') resamples judged label pairs: it needs judgments= or judge=")
    ann = prep.ann
    with x64():
        base = jax.random.key(cfg.seed)  # threefry: replicate b is the same under any chunking (rbg is not)
        rows = stop - start
        idx = jnp.arange(start, start + max(rows, pad_to or 0))
        strata = None if cfg.strata is None else per_item_codes(cfg.strata, ann.items, "strata")
        C = V = W = None
        if cfg.design in ("items", "items+raters", "bayesian"):
            C = _unit_sampler(prep.n, strata, cfg.design == "bayesian", 1)(base, idx)[:rows]
        elif cfg.design == "cluster":
            cl = per_item_codes(cfg.cluster, ann.items, "cluster")
            n_cl = int(cl.max()) + 1
            cl_strata = None
            if strata is not None:
                first = np.zeros(n_cl, dtype=np.int32)
                first[cl] = strata
                if (first[cl] != strata).any():
                    raise ValueError("strata must be constant within each cluster")
                cl_strata = first
            counts = _unit_sampler(n_cl, cl_strata, False, 1)(base, idx)[:rows]
            C = counts[:, jnp.asarray(cl)]
        if cfg.design in ("raters", "items+raters"):
            V = _unit_sampler(prep.nr, None, False, 2)(base, idx)[:rows]
        if prep.chance_pairs is not None:
            W = _unit_sampler(len(prep.chance_pairs.s), None, False, 3)(base, idx)[:rows]
        return C, V, W


def bootstrap_replicates(prep: Prepared, cfg: Bootstrap) -> dict[str, np.ndarray]:
    """Evaluate ``cfg.n`` replicates; weights are drawn chunk by chunk (bounded memory)."""
    # weights are drawn in chunks of about 128 MiB (float64 item weights), so memory stays bounded
    default = int(np.clip((128 * 2**20) // (8 * max(prep.n, prep.nr)), 16, 512))
    chunk = min(cfg.chunk_size or default, cfg.n)
    parts: list[dict[str, np.ndarray]] = []
    for b0 in range(0, cfg.n, chunk):  # chunks of replicates, each vmapped
        C, V, W = draw_weights(prep, cfg, b0, min(cfg.n, b0 + chunk), pad_to=chunk)
        if C is None and V is None:
            raise AssertionError("a design draws item or rater weights")  # pragma: no cover
        parts.append(evaluate(prep, C, V, chance_weights=W, chunk_size=cfg.chunk_size))
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def leave_one_out_weights(cfg: Bootstrap, items: tuple, n_items: int, n_raters: int) -> Iterator[tuple[Any, Any]]:
    """Blocks of leave-one-unit-out weights ``(C, V)`` (items, clusters or raters, matching the design)."""
    if cfg.design == "raters":
        yield None, 1.0 - np.eye(n_raters)
        return
    if cfg.design == "cluster":
        cl = per_item_codes(cfg.cluster, items, "cluster")
        yield (cl[None, :] != np.arange(cl.max() + 1)[:, None]).astype(float), None
        return
    for b0 in range(0, n_items, 1024):  # blocks of leave-one-out weight rows
        rows = np.arange(b0, min(n_items, b0 + 1024))
        C = np.ones((len(rows), n_items))
        C[np.arange(len(rows)), rows] = 0.0
        yield C, None


def jackknife_values(prep: Prepared, cfg: Bootstrap) -> np.ndarray:
    """Leave-one-unit-out values (items, clusters or raters, matching the design)."""
    blocks = leave_one_out_weights(cfg, prep.ann.items, prep.n, prep.nr)
    return np.concatenate([evaluate(prep, C, V)["value"] for C, V in blocks])


def summarize_replicates(result: AgreementResult, reps: np.ndarray, cfg: Bootstrap, jackknife: Any,
                         notes: tuple[str, ...] = (), **details: Any) -> AgreementResult:
    """``result`` with the interval, SE and bookkeeping of bootstrap replicates ``reps``.

    ``jackknife`` is a zero-argument callable giving leave-one-out values (used by BCa only).
    NaN replicates are counted, reported and left out.
    """
    finite = np.isfinite(reps)
    n_nan = int((~finite).sum())
    se = float(np.std(reps[finite], ddof=1)) if finite.sum() > 1 else math.nan
    note = ""
    if cfg.method == "percentile":
        lo, hi = percentile_interval(reps, cfg.level)
    elif cfg.method == "basic":
        lo, hi = basic_interval(reps, result.value, cfg.level)
    else:
        lo, hi, note = bca_interval(reps, result.value, jackknife(), cfg.level)
    warnings_ = list(result.warnings)
    if n_nan:
        warnings_.append(f"{n_nan} of {cfg.n} bootstrap replicates were undefined (nan) and left out of the interval")
    if note:
        warnings_.append(note)
    warnings_ += list(notes)
    out = result.with_interval(lo, hi, se, cfg.level, cfg.label, bootstrap_n=cfg.n, bootstrap_seed=cfg.seed,
                               bootstrap_design=cfg.design, n_nan_replicates=n_nan, replicates=reps, **details)
    return replace(out, warnings=tuple(warnings_))


def attach_bootstrap(result: AgreementResult, prep: Prepared, cfg: Bootstrap) -> AgreementResult:
    """Compute the interval of ``cfg`` and return ``result`` carrying it."""
    reps = bootstrap_replicates(prep, cfg)["value"]
    notes = ()
    if prep.chance_pairs is not None:
        notes = ("chance-term sampling error included: the chance pairs are resampled in every replicate",)
    return summarize_replicates(result, reps, cfg, lambda: jackknife_values(prep, cfg), notes)
