"""``RayBackend``'s sizes are checked when it is made, before any Ray instance starts (no Ray needed here)."""

import math

import pytest

from softirr_stats.equivalence import RayBackend


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -1.0, True, "2"])
def test_cpus_per_worker_must_be_a_finite_number(value):
    with pytest.raises((ValueError, TypeError), match=r"cpus_per_worker must be a finite number >= 0"):
        RayBackend(cpus_per_worker=value)


@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0, True])
def test_gpus_per_worker_must_be_a_finite_number(value):
    with pytest.raises((ValueError, TypeError), match=r"gpus_per_worker must be a finite number >= 0 or None"):
        RayBackend(gpus_per_worker=value)


def test_valid_sizes_are_kept_and_start_nothing():
    backend = RayBackend(workers=2, cpus_per_worker=0.5, gpus_per_worker=0)
    assert (backend.workers, backend.cpus_per_worker, backend.gpus_per_worker) == (2, 0.5, 0)
    assert RayBackend(cpus_per_worker=0).cpus_per_worker == 0  # an actor that reserves no CPU (Ray allows it)
