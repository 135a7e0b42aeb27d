"""Bootstrap(backend="ray"): replicate chunks on 2 local Ray actors give the in-process replicates
and interval for the same seed (to 1e-12), for several coefficients and designs, also when an actor
is killed mid-run (exactly; every actor killed without a restart is a clear error); bad backends
fail clearly.

One local Ray instance (2 CPUs) serves the whole module.
"""

import importlib.util

import numpy as np
import pytest

ray = pytest.importorskip("ray", reason="ray is not installed (the [distributed] extra)")

import softirr_stats as sis  # noqa: E402
from softirr_stats.equivalence import RayBackend  # noqa: E402
from softirr_stats.uncertainty._bootstrap import check_backend  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def cluster():
    if ray.is_initialized():  # pragma: no cover - another module left one running
        ray.shutdown()
    ctx = ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
                   runtime_env={"env_vars": {"OMP_NUM_THREADS": "1"}})
    yield ctx
    ray.shutdown()


def _ann(n_items=400, n_raters=5, k=4, seed=0):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n_items)
    codes = np.where(rng.random((n_items, n_raters)) < 0.6, truth[:, None],
                     rng.integers(0, k, (n_items, n_raters))).astype(np.int32)
    codes[rng.random(codes.shape) < 0.1] = -1
    return sis.Annotations(codes, [float(v) for v in range(k)], kind="numeric")


CLUSTERS = [f"c{i // 8}" for i in range(400)]  # 50 clusters of 8 items


@pytest.mark.filterwarnings("ignore::softirr_stats.FewUnitsWarning")
@pytest.mark.parametrize("coefficient", ["fleiss_kappa", "krippendorff_alpha"])
@pytest.mark.parametrize("design", ["items", "raters", "cluster", "bayesian"])
def test_ray_replicates_equal_in_process(cluster, coefficient, design):
    ann = _ann()
    opts = {"n": 300, "design": design, "seed": 11, "chunk_size": 64}  # 5 chunks: shared by the 2 actors
    if design == "cluster":
        opts["cluster"] = CLUSTERS
    fn = getattr(sis, coefficient)
    local = fn(ann, ci=sis.Bootstrap(**opts))
    remote = fn(ann, ci=sis.Bootstrap(**opts, backend=RayBackend(workers=2)))
    np.testing.assert_allclose(remote.details["replicates"], local.details["replicates"], rtol=0, atol=1e-12)
    assert np.isfinite(local.details["replicates"]).sum() > 250  # the comparison is over real replicates
    assert remote.ci_low == pytest.approx(local.ci_low, abs=1e-12)
    assert remote.ci_high == pytest.approx(local.ci_high, abs=1e-12)
    assert remote.se == pytest.approx(local.se, abs=1e-12)
    assert local.ci_low < local.ci_high


@pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")
def test_ray_string_backend_and_bca(cluster):
    ann = _ann(n_items=120)
    local = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=200, method="bca", seed=5))
    remote = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=200, method="bca", seed=5, backend="ray"))
    assert isinstance(sis.Bootstrap(backend="ray").backend, RayBackend)
    assert (remote.ci_low, remote.ci_high) == pytest.approx((local.ci_low, local.ci_high), abs=1e-12)


class _CountingRay:
    """The ``ray`` module, counting the results that failed because their actor died."""

    def __init__(self):
        self.failed = 0

    def __getattr__(self, name):
        return getattr(ray, name)

    def get(self, ref):
        from ray.exceptions import RayActorError, WorkerCrashedError

        try:
            return ray.get(ref)
        except (RayActorError, WorkerCrashedError):
            self.failed += 1
            raise


def _kill_during_the_run(monkeypatch, how: str, which=(0,)) -> tuple[list, _CountingRay]:
    """Run ``_drive`` with a hook that kills the actors ``which`` while they hold chunks of the run
    (``how``: ray.kill with a restart, ray.kill without one, SIGKILL of the actor's process).

    When the first chunk comes back the hook queues 300 chunks of its own on each actor to kill,
    so the chunks the driver sends it next wait behind them; when the second comes back it kills.
    """
    import os
    import signal

    from softirr_stats.uncertainty import _bootstrap_ray

    killed: list = []
    counting = _CountingRay()
    real = _bootstrap_ray._drive

    class Hook:  # the progress bar's place: called as each chunk comes back
        def __init__(self, actors):
            self.actors, self.seen, self.queued, self.pids = actors, 0, [], {}

        def update(self, _n):
            self.seen += 1
            if self.seen == 1:
                self.pids = {k: ray.get(self.actors[k].pid.remote()) for k in which}  # before the queue below
                self.queued = [self.actors[k].chunk.remote(0, 16) for k in which for _ in range(300)]
            elif self.seen == 2:
                for k in which:
                    act = self.actors[k]
                    if how == "sigkill":
                        os.kill(self.pids[k], signal.SIGKILL)  # dies as a crash would; Ray restarts it
                    else:
                        ray.kill(act, no_restart=how == "no_restart")
                    killed.append(k)

        def close(self):
            pass

    def drive(_ray, actors, starts, chunk, max_in_flight, startup_timeout, bar):
        return real(counting, actors, starts, chunk, max_in_flight, startup_timeout, Hook(actors))

    monkeypatch.setattr(_bootstrap_ray, "_drive", drive)
    return killed, counting


@pytest.mark.parametrize("how", ["restart", "no_restart", "sigkill"])
def test_an_actor_killed_mid_run_gives_the_in_process_replicates(cluster, monkeypatch, how):
    """One of two actors is killed while it holds chunks: they are evaluated again (on the restarted
    actor or the other one) from the same weights, so replicates and interval equal the in-process
    run's exactly."""
    ann = _ann()
    opts = {"n": 400, "seed": 3, "chunk_size": 16}  # 25 chunks, 2 in flight per actor
    local = sis.krippendorff_alpha(ann, ci=sis.Bootstrap(**opts))
    killed, counting = _kill_during_the_run(monkeypatch, how)
    remote = sis.krippendorff_alpha(ann, ci=sis.Bootstrap(**opts, backend=RayBackend(workers=2)))
    assert killed, "the hook never ran"
    assert counting.failed >= 1  # the kill hit work: a chunk (or a ping) failed and was sent again
    np.testing.assert_array_equal(remote.details["replicates"], local.details["replicates"])  # max difference 0
    assert (remote.ci_low, remote.ci_high, remote.se) == (local.ci_low, local.ci_high, local.se)


def test_every_actor_killed_without_restart_is_a_clear_error(cluster, monkeypatch):
    ann = _ann()
    killed, _ = _kill_during_the_run(monkeypatch, "no_restart", which=(0, 1))
    with pytest.raises(RuntimeError, match="every Ray worker of the bootstrap died and none could be restarted"):
        sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=400, seed=3, chunk_size=16, backend=RayBackend(workers=2)))
    assert killed == [0, 1]


def test_ray_statistic_that_cannot_be_sent(cluster):
    class Unsendable:  # a statistic holding something the serialiser refuses
        def __reduce__(self):
            raise TypeError("holds an open connection")

    from softirr_stats.uncertainty._bootstrap import evaluate_chunk
    from softirr_stats.uncertainty._bootstrap_ray import ray_replicates

    with pytest.raises(TypeError, match="cannot be sent to Ray workers.*backend='local'"):
        ray_replicates(Unsendable(), sis.Bootstrap(n=10, backend="ray"), 10, evaluate_chunk)


def test_backend_choices():
    assert sis.Bootstrap().backend is None and sis.Bootstrap(backend="local").backend is None
    with pytest.raises(ValueError, match="backend must be one of 'local', 'ray'"):
        sis.Bootstrap(backend="dask")
    with pytest.raises(TypeError, match="backend must be one of .* got int"):
        sis.Bootstrap(backend=2)


def test_ray_not_installed(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    with pytest.raises(ImportError, match=r"needs ray.*pip install 'softirr-stats\[distributed\]'"):
        check_backend("ray")
    assert sis.Bootstrap(backend="local").backend is None  # the in-process default needs nothing
