"""SviConfig / NutsConfig refuse a run longer than JAX's 32-bit loop counter counts (it overflowed mid-fit)."""

import pytest

from softirr_stats.inference import MAX_STEPS, NutsConfig, SviConfig


def test_the_bound_is_the_32_bit_counter():
    assert MAX_STEPS == 2**31 - 1


def test_svi_steps_beyond_the_counter_are_refused():
    SviConfig(steps=MAX_STEPS)
    with pytest.raises(ValueError, match=r"steps must be at most 2147483647 .*; got 10000000000"):
        SviConfig(steps=10**10)


def test_nuts_iterations_beyond_the_counter_are_refused():
    NutsConfig(num_warmup=MAX_STEPS - 10, num_samples=10)
    with pytest.raises(ValueError, match=r"num_warmup \+ num_samples must be at most 2147483647 .*; got 2147483648"):
        NutsConfig(num_warmup=MAX_STEPS - 10, num_samples=11)
