"""Score batches of label pairs on Ray actors (the optional ``[distributed]`` extra).

Each actor builds its estimator once from a shippable spec
(:func:`~softirr_stats.equivalence.to_spec`: class path + parameters, never a pickled model)
and scores the batches the driver sends it. Scores stream back to the driver, which writes
every batch to the SQLite cache in its own committed transaction (see
:func:`~softirr_stats.equivalence.fill_cache`); workers never touch the file.

Faults. Actors are created with ``max_restarts=-1``: an actor whose process dies (SIGKILL,
out of memory, a lost node) is restarted by Ray, on another node if its own is gone. The
driver sees the batch fail with an actor error, puts it back at the front of the queue, and
sends it to the next free actor; the dead actor gets no work until a ping shows it alive
again. A batch is therefore redone, never lost, and since the driver writes with
``INSERT OR IGNORE`` under the pair's primary key, never stored twice. An error raised by the
estimator itself (bad output, a missing model file) is not retried: it stops the run.

``ray`` is imported only inside functions.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from softirr_stats.base._actors import drive_actors

__all__ = ["RayBackend"]


def _ray() -> Any:
    try:
        import ray
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("the Ray backend needs ray: pip install 'softirr-stats[distributed]'") from err
    return ray


class _ScoringActor:
    """One estimator per actor, built once from its spec (JSON text).

    The spec is checked against the allow-list like any other (see
    :func:`~softirr_stats.equivalence.from_spec`); ``allow`` holds the class and function
    paths of the estimator object the driver was given (trusted: the driver's own code
    built it), which a worker process cannot know from its own registrations.
    """

    def __init__(self, spec_json: str, allow: tuple[str, ...] = (), trust_remote_code: bool = False) -> None:
        from softirr_stats.equivalence._spec import from_spec

        self.est = from_spec(spec_json, allow=tuple(allow), trust_remote_code=bool(trust_remote_code))

    def pid(self) -> int:
        return os.getpid()

    def score(self, a: list[Any], b: list[Any]) -> np.ndarray:
        from softirr_stats.equivalence._protocol import check_pair_inputs, check_scores

        aa, bb = check_pair_inputs(a, b)
        return check_scores(self.est(aa, bb), aa, bb, self.est.name)


def _finite_size(value: Any) -> bool:
    """Whether ``value`` is a resource amount Ray can schedule: a finite number >= 0 (not a bool, not nan).

    >>> _finite_size(0.5), _finite_size(float("nan")), _finite_size(float("inf")), _finite_size(True)
    (True, False, False, False)
    """
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


@dataclass(frozen=True)
class RayBackend:
    """Where and how to score on Ray.

    Parameters
    ----------
    address : str or None
        None starts a local Ray instance on this machine (``ray.init()``); ``"auto"`` joins
        the cluster this machine belongs to (``ray start`` was run); ``"host:6379"`` or
        ``"ray://host:10001"`` names one. Ignored when Ray is already initialised.
    workers : int or None
        Number of actors; default one per GPU when the cluster has GPUs, else one per
        ``cpus_per_worker`` CPUs of the cluster.
    gpus_per_worker : float or None
        GPUs requested per actor, a finite number >= 0; default 1 when the cluster has GPUs, else 0 (CPU).
    cpus_per_worker : float, default 1
        CPUs requested per actor, a finite number >= 0 (Ray sets the actor's thread count from it).
    max_in_flight : int, default 2
        Batches queued per actor (one computing, one waiting) - also the most work an
        actor's death can discard.
    num_cpus : int or None
        CPUs of a local instance started here (default: all).
    spread : bool, default True
        Place actors on different nodes where possible (Ray's ``SPREAD`` strategy).
    init_kwargs : dict
        Further ``ray.init`` arguments (e.g. ``runtime_env``).
    startup_timeout : float, default 900
        Seconds to wait for the first actor to start (build its estimator) before giving up.

    Examples
    --------
    >>> RayBackend(address="auto", workers=8, gpus_per_worker=1).workers
    8
    """

    address: str | None = None
    workers: int | None = None
    gpus_per_worker: float | None = None
    cpus_per_worker: float = 1.0
    max_in_flight: int = 2
    num_cpus: int | None = None
    spread: bool = True
    init_kwargs: dict[str, Any] = field(default_factory=dict)
    startup_timeout: float = 900.0

    def __post_init__(self) -> None:
        if self.workers is not None and (not isinstance(self.workers, int) or isinstance(self.workers, bool)
                                         or self.workers < 1):
            raise ValueError(f"workers must be a positive integer or None; got {self.workers!r}")
        if self.gpus_per_worker is not None and not _finite_size(self.gpus_per_worker):
            raise ValueError(f"gpus_per_worker must be a finite number >= 0 or None; got {self.gpus_per_worker!r}")
        if not _finite_size(self.cpus_per_worker):  # nan would reach Ray's scheduler, and int(nan) in _sizes
            raise ValueError(f"cpus_per_worker must be a finite number >= 0; got {self.cpus_per_worker!r}")
        if not isinstance(self.startup_timeout, (int, float)) or self.startup_timeout <= 0:
            raise ValueError(f"startup_timeout must be a positive number of seconds; got {self.startup_timeout!r}")
        if not isinstance(self.max_in_flight, int) or self.max_in_flight < 1:
            raise ValueError(f"max_in_flight must be a positive integer; got {self.max_in_flight!r}")

    # ------------------------------------------------------------------------------------
    def _init(self, ray: Any) -> bool:
        """Initialise Ray unless it already is; True when this call started it."""
        if ray.is_initialized():
            return False
        kw: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, **self.init_kwargs}
        if self.address is None and self.num_cpus is not None:
            kw.setdefault("num_cpus", self.num_cpus)
        # "local" always starts a fresh instance here (a bare ray.init() would join whatever
        # cluster RAY_ADDRESS or a stale /tmp/ray session file points to)
        if self.address is not None:
            ray.init(address=self.address, **kw)
            return True
        # a local instance of our own ends with this process, even on SIGKILL: its processes inherit
        # a token, and a watcher kills them when this process is gone
        from softirr_stats.equivalence import _ray_reaper as reaper

        before = os.environ.get(reaper.ENV_TOKEN)
        token = reaper.mark_children()
        try:
            ray.init(address="local", **kw)
        finally:
            if before is None:
                os.environ.pop(reaper.ENV_TOKEN, None)
            else:
                os.environ[reaper.ENV_TOKEN] = before
        reaper.reap_with_driver(token)
        return True

    def _sizes(self, ray: Any, n_batches: int) -> tuple[int, float]:
        res = ray.cluster_resources()
        gpus = float(res.get("GPU", 0.0))
        gpw = self.gpus_per_worker if self.gpus_per_worker is not None else (1.0 if gpus > 0 else 0.0)
        if self.workers is not None:
            n = self.workers
        elif gpw > 0:
            n = max(1, int(gpus // gpw))
        else:
            n = max(1, int(float(res.get("CPU", 1.0)) // max(self.cpus_per_worker, 1e-9)))
        return max(1, min(n, n_batches)), float(gpw)

    def run(self, estimator: Any, a: np.ndarray, b: np.ndarray, slices: list[slice],
            commit: Callable[[slice, np.ndarray], None]) -> tuple[str, int]:
        """Score ``a[sl], b[sl]`` for every slice on actors; ``commit(sl, scores)`` on the driver.

        Returns a short description of the run and the number of batches redone after a
        worker failure.
        """
        from softirr_stats.equivalence._spec import spec_paths, to_spec

        shipped = to_spec(estimator)  # refuses clearly (a callable, a literal API key) before any cluster starts
        spec = shipped.to_json()
        allow = tuple(sorted(spec_paths(shipped)))  # the driver's own object: its classes are trusted
        remote_code = bool(getattr(estimator, "trust_remote_code", False))
        if not slices:
            return "ray (nothing to score)", 0
        ray = _ray()
        started = self._init(ray)
        actors: list[Any] = []
        try:
            n_workers, gpw = self._sizes(ray, len(slices))
            opts: dict[str, Any] = {"num_cpus": self.cpus_per_worker, "num_gpus": gpw, "max_restarts": -1,
                                    "max_task_retries": 0}
            if self.spread:
                opts["scheduling_strategy"] = "SPREAD"
            cls = ray.remote(**opts)(_ScoringActor)
            actors = [cls.remote(spec, allow, remote_code) for _ in range(n_workers)]
            redone = _drive(ray, actors, a, b, slices, commit, self.max_in_flight, self.startup_timeout)
        finally:
            for act in actors:
                try:
                    ray.kill(act, no_restart=True)
                except Exception:  # noqa: BLE001 - best effort clean-up of an actor already gone
                    pass
            if started:
                ray.shutdown()
        where = "local" if self.address is None else self.address
        return f"ray ({n_workers} workers, {where})", redone


def _drive(ray: Any, actors: list[Any], a: np.ndarray, b: np.ndarray, slices: list[slice],
           commit: Callable[[slice, np.ndarray], None], max_in_flight: int, startup_timeout: float) -> int:
    """Score every batch on the live actors (:func:`~softirr_stats.base._actors.drive_actors`), commit
    each as it arrives; return the batches redone after a worker died. An error raised while building
    the estimator stops the run with that error."""

    def submit(actor: Any, i: int) -> Any:
        sl = slices[i]
        return actor.score.remote(a[sl].tolist(), b[sl].tolist())

    return drive_actors(ray, actors, len(slices), submit,
                        lambda i, scores: commit(slices[i], np.asarray(scores, dtype=np.float64)),
                        max_in_flight=max_in_flight, startup_timeout=startup_timeout,
                        all_dead="every Ray worker died and none could be restarted; scored batches are in the cache",
                        init_failed="the estimator could not be built on a Ray worker")
