"""One scheduler for work on Ray actors: scoring label pairs and bootstrap replicate chunks.

The driver sends tasks ``0 .. n - 1`` to the least-loaded live actor (at most ``max_in_flight``
each) and hands every result back as it arrives. An actor gets work only once a ping
(``actor.pid.remote()``) has shown it started, so an actor the cluster cannot place never
holds a task. A task whose actor died goes back to the front of the queue and is sent to the
next live actor; the dead actor is pinged again (at most ``MAX_PING_FAILURES`` times) and gets
work once Ray has restarted it. An error raised while an actor was being built stops the run.

The caller passes the imported ``ray`` module (``ray`` is never imported here) and says what a
task is (``submit``) and what to do with its result (``collect``); see
``equivalence._ray`` and ``uncertainty._bootstrap_ray``.
"""

from __future__ import annotations

import collections
import time
from collections.abc import Callable
from typing import Any

__all__ = ["MAX_PING_FAILURES", "drive_actors"]

#: pings of one actor that may fail (sent before Ray saw it die, or dead for good) before it is given up
MAX_PING_FAILURES = 20


def drive_actors(ray: Any, actors: list[Any], n_tasks: int, submit: Callable[[Any, int], Any],
                 collect: Callable[[int, Any], None], *, max_in_flight: int, startup_timeout: float,
                 all_dead: str, init_failed: str) -> int:
    """Run tasks ``0 .. n_tasks - 1`` on ``actors``; return how many were redone after an actor died.

    Parameters
    ----------
    ray : module
        The imported ``ray`` package.
    actors : list
        Ray actor handles, each with a ``pid`` method.
    n_tasks : int
        Number of tasks.
    submit : callable
        ``submit(actor, i)`` sends task ``i`` to ``actor`` and returns its object reference.
    collect : callable
        ``collect(i, value)`` receives the value of task ``i`` on the driver (in completion order).
    max_in_flight : int
        Tasks in flight per actor.
    startup_timeout : float
        Seconds to wait for an actor to start while none is alive; then a RuntimeError.
    all_dead : str
        The RuntimeError's message when every actor died and none can be restarted.
    init_failed : str
        The message (followed by ``": <error>"``) when an actor's constructor raised.

    Returns
    -------
    int
        Tasks redone.

    Examples
    --------
    >>> drive_actors(None, [], 0, None, None, max_in_flight=1, startup_timeout=1.0, all_dead="", init_failed="")
    0
    """
    if n_tasks == 0:
        return 0
    failures = (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError)
    pending = collections.deque(range(n_tasks))
    load = [0] * len(actors)
    alive = [False] * len(actors)
    in_flight: dict[Any, tuple[int, int]] = {}  # ref -> (task, actor)
    pings: dict[Any, int] = {act.pid.remote(): k for k, act in enumerate(actors)}  # ref -> actor awaited
    ping_failures = [0] * len(actors)
    redone = 0
    t_wait: float | None = None

    def check_init(err: Exception) -> None:
        if getattr(err, "actor_init_failed", False):
            raise RuntimeError(f"{init_failed}: {err}") from err

    while pending or in_flight:
        for k in sorted(range(len(actors)), key=load.__getitem__):  # least-loaded live actor first
            while pending and alive[k] and load[k] < max_in_flight:
                i = pending.popleft()
                in_flight[submit(actors[k], i)] = (i, k)
                load[k] += 1
        if not in_flight and not pings:
            raise RuntimeError(all_dead)
        timeout = None
        if not any(alive) and not in_flight:  # waiting for an actor to (re)start
            t_wait = time.monotonic() if t_wait is None else t_wait
            timeout = max(1.0, startup_timeout - (time.monotonic() - t_wait))
        else:
            t_wait = None
        ready, _ = ray.wait(list(in_flight) + list(pings), num_returns=1, timeout=timeout)
        if not ready:
            raise RuntimeError(f"no Ray worker started within {startup_timeout:.0f} s; can the cluster place an "
                               "actor with the CPUs/GPUs requested per worker?")
        ref = ready[0]
        if ref in pings:
            k = pings.pop(ref)
            try:
                ray.get(ref)
                alive[k] = True
            except failures as err:  # sent before Ray saw the death, or dead for good: ask again, boundedly
                check_init(err)
                ping_failures[k] += 1
                if ping_failures[k] < MAX_PING_FAILURES:
                    pings[actors[k].pid.remote()] = k
            continue
        i, k = in_flight.pop(ref)
        load[k] -= 1
        try:
            value = ray.get(ref)
        except failures as err:
            check_init(err)
            pending.appendleft(i)  # the same task again on the next live actor
            redone += 1
            if alive[k]:
                alive[k] = False
                pings[actors[k].pid.remote()] = k  # resolves once Ray has restarted the actor
            continue
        collect(i, value)
    return redone
