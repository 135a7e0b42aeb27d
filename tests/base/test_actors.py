"""base._actors.drive_actors, the one scheduler of the Ray scoring and bootstrap backends, on a fake Ray.

The real clusters run in tests/equivalence/test_scoring_on_ray.py and tests/uncertainty/test_bootstrap_ray.py; here the
scheduling rules are pinned without one: every task's value is collected once, a task whose actor
died is redone on a live actor, an actor's failed constructor stops the run with the caller's
message, and actors that never start end in the caller's "all dead" message.
"""

import types

import pytest

from softirr_stats.base._actors import MAX_PING_FAILURES, drive_actors


class RayActorError(Exception):
    def __init__(self, init_failed: bool = False) -> None:
        super().__init__("actor died")
        self.actor_init_failed = init_failed


class WorkerCrashedError(Exception):
    pass


class Ref:
    def __init__(self, fn):
        self.fn = fn


class FakeRay:
    """Refs resolve in submission order; ``get`` runs the ref's function (which may raise)."""

    exceptions = types.SimpleNamespace(RayActorError=RayActorError, WorkerCrashedError=WorkerCrashedError)

    def wait(self, refs, num_returns=1, timeout=None):
        return refs[:1], refs[1:]

    def get(self, ref):
        return ref.fn()


class Actor:
    def __init__(self, fail_tasks=0, ping=lambda: 1):
        self.fail_tasks = fail_tasks
        self.done: list[int] = []
        self.pid = types.SimpleNamespace(remote=lambda: Ref(ping))
        self.square = types.SimpleNamespace(remote=self._square)

    def _square(self, i):
        def run():
            if self.fail_tasks:
                self.fail_tasks -= 1
                raise WorkerCrashedError("worker crashed")
            self.done.append(i)
            return i * i
        return Ref(run)


def _run(actors, n=7):
    got: dict[int, int] = {}

    def collect(i, v):
        assert i not in got, f"task {i} collected twice"
        got[i] = v

    redone = drive_actors(FakeRay(), actors, n, lambda act, i: act.square.remote(i), collect, max_in_flight=2,
                          startup_timeout=5.0, all_dead="all dead", init_failed="cannot build")
    return got, redone


def test_every_task_collected_once_and_a_dead_actors_task_redone():
    flaky, steady = Actor(fail_tasks=1), Actor()
    got, redone = _run([flaky, steady])
    assert got == {i: i * i for i in range(7)}
    assert redone == 1
    assert sorted(flaky.done + steady.done) == list(range(7))  # the failed task ran again, once


def test_a_failed_constructor_stops_the_run_with_the_callers_message():
    def ping():
        raise RayActorError(init_failed=True)

    with pytest.raises(RuntimeError, match="cannot build: actor died"):
        _run([Actor(ping=ping)])


def test_actors_that_never_start_end_in_the_all_dead_message():
    calls = []

    def ping():
        calls.append(1)
        raise RayActorError()

    with pytest.raises(RuntimeError, match="all dead"):
        _run([Actor(ping=ping)])
    assert len(calls) == MAX_PING_FAILURES  # pinged again, boundedly


def test_no_tasks_needs_no_ray():
    assert drive_actors(None, [], 0, None, None, max_in_flight=1, startup_timeout=1.0, all_dead="",
                        init_failed="") == 0
