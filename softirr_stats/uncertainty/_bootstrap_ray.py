"""Bootstrap replicate chunks on Ray actors: ``Bootstrap(backend="ray")`` (the ``[distributed]`` extra).

Replicates are independent given the prepared statistic, and the weights of replicate ``b``
come from the generator of its block ``b // REPLICATE_BLOCK`` keyed by (seed, stream, block)
alone. The driver therefore cuts ``0 .. n - 1`` into the same chunks as the in-process loop,
ships the prepared statistic once through Ray's object store, and each actor evaluates whole
chunks with :func:`~softirr_stats.uncertainty._bootstrap.evaluate_chunk`, the very function
the in-process loop calls: the replicates, and so the interval, are identical for the same
seed wherever a chunk runs.

Where and how many actors: :class:`softirr_stats.equivalence.RayBackend` (the same object as
for scoring: ``address``, ``workers``, ``cpus_per_worker``, ``gpus_per_worker``,
``max_in_flight``, ``num_cpus``, ``spread``, ``init_kwargs``, ``startup_timeout``). An actor
whose process dies is restarted by Ray (``max_restarts=-1``) and its chunk is evaluated again
on the next live actor: the same weights, so the same values. ``ray`` is imported only inside
functions.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np

from softirr_stats.base._actors import drive_actors

if TYPE_CHECKING:  # the engine passes its own chunk function in: this module does not import it
    from softirr_stats.uncertainty._bootstrap import Bootstrap

__all__ = ["ray_replicates"]


def _ray() -> Any:
    try:
        import ray
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("Bootstrap(backend='ray') needs ray: pip install 'softirr-stats[distributed]'") from err
    return ray


class _ReplicateActor:
    """One prepared statistic per actor (sent once through the object store); evaluates chunks."""

    def __init__(self, stat_ref: list[Any], cfg: Bootstrap, evaluate: Callable[..., dict[str, np.ndarray]]) -> None:
        import ray

        # the reference travels inside a list, so Ray does not pin it as a constructor argument
        # (an actor restarted later fetches it again from the driver's object store)
        self.stat, self.cfg, self.evaluate = ray.get(stat_ref[0]), cfg, evaluate

    def pid(self) -> int:
        return os.getpid()

    def chunk(self, b0: int, rows: int) -> dict[str, np.ndarray]:
        return self.evaluate(self.stat, self.cfg, b0, rows)


def ray_replicates(stat: Any, cfg: Bootstrap, chunk: int,
                   evaluate: Callable[..., dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Every output of ``stat.evaluate`` for the ``cfg.n`` replicates, chunks evaluated on Ray actors.

    Parameters
    ----------
    stat : Statistic
        The prepared statistic (serialised once; refused with a TypeError when it cannot be).
    cfg : Bootstrap
        With ``backend`` a ``RayBackend``.
    chunk : int
        Replicates per chunk (the in-process loop's).
    evaluate : callable
        ``evaluate(stat, cfg, b0, rows)``, the in-process loop's chunk function
        (:func:`~softirr_stats.uncertainty.bootstrap_replicates` passes ``evaluate_chunk``), run on the actors.

    Returns
    -------
    dict of str to ndarray
        Shape (cfg.n,) each, equal to the in-process run's.
    """
    backend = cfg.backend
    starts = list(range(0, cfg.n, chunk))
    ray = _ray()
    started = backend._init(ray)
    actors: list[Any] = []
    try:
        n_workers, gpw = backend._sizes(ray, len(starts))
        try:
            stat_ref = ray.put(stat)
        except Exception as err:  # noqa: BLE001 - whatever the serialiser raises, one message naming the object
            first = (str(err).strip().splitlines() or [""])[0]  # Ray's own report runs to many lines
            raise TypeError(f"Bootstrap(backend=RayBackend(...)): the prepared statistic ({type(stat).__name__}) "
                            f"cannot be sent to Ray workers ({type(err).__name__}: {first}); "
                            "use backend='local'") from err
        opts: dict[str, Any] = {"num_cpus": backend.cpus_per_worker, "num_gpus": gpw, "max_restarts": -1,
                                "max_task_retries": 0}
        if backend.spread:
            opts["scheduling_strategy"] = "SPREAD"
        cls = ray.remote(**opts)(_ReplicateActor)
        local = replace(cfg, backend=None, progress=False)  # what each actor evaluates: in its own process
        actors = [cls.remote([stat_ref], local, evaluate) for _ in range(n_workers)]
        parts = _drive(ray, actors, starts, chunk, backend.max_in_flight, backend.startup_timeout,
                       _progress_bar(cfg))
    finally:
        for act in actors:
            try:
                ray.kill(act, no_restart=True)
            except Exception:  # noqa: BLE001 - best effort clean-up of an actor already gone
                pass
        if started:
            ray.shutdown()
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _progress_bar(cfg: Bootstrap) -> Any:
    if not cfg.progress:
        return None
    from softirr_stats.base._bars import progress_bar

    return progress_bar(cfg.n, "bootstrap replicates (ray)", unit="rep", show=True, unit_scale=True)


def _drive(ray: Any, actors: list[Any], starts: list[int], chunk: int, max_in_flight: int, startup_timeout: float,
           bar: Any) -> list[dict[str, np.ndarray]]:
    """Every chunk evaluated on the live actors (:func:`~softirr_stats.base._actors.drive_actors`), in order;
    a chunk whose actor died is evaluated again: the same weights, so the same values."""
    parts: list[dict[str, np.ndarray] | None] = [None] * len(starts)

    def collect(i: int, part: dict[str, np.ndarray]) -> None:
        parts[i] = part
        if bar is not None:
            bar.update(len(next(iter(part.values()))))

    try:
        drive_actors(ray, actors, len(starts), lambda act, i: act.chunk.remote(starts[i], chunk), collect,
                     max_in_flight=max_in_flight, startup_timeout=startup_timeout,
                     all_dead="every Ray worker of the bootstrap died and none could be restarted",
                     init_failed="a bootstrap actor could not start")
    finally:
        if bar is not None:
            bar.close()
    return [p for p in parts if p is not None]
