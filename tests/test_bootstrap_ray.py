"""Bootstrap(backend="ray"): replicate chunks on 2 local Ray actors give the in-process replicates
and interval for the same seed (to 1e-12), for several coefficients and designs; bad backends fail clearly.

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


def test_ray_statistic_that_cannot_be_sent(cluster):
    class Unsendable:  # a statistic holding something the serialiser refuses
        def __reduce__(self):
            raise TypeError("holds an open connection")

    from softirr_stats.uncertainty._bootstrap_ray import ray_replicates

    with pytest.raises(TypeError, match="cannot be sent to Ray workers.*backend='local'"):
        ray_replicates(Unsendable(), sis.Bootstrap(n=10, backend="ray"), 10)


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
