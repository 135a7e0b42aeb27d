"""Many fits in one process: one compile per shape of data, bounded memory maps and RSS (issue 35, row 8).

A package model's NUTS program takes the data's arrays as arguments (data sets of one shape
share it; before, every data set compiled a program of its own, ~20 s each); JAX's in-memory
caches are released within bounds (``inference._programs``) instead of after every fit; the C
heap is given back after each fit (glibc kept ~230 MiB of LLVM's freed memory per fit: RSS grew
279 -> 6,152 MiB over 40 fits). The full 150-fit run is ``benchmarks/bench_many_fits.py``; here
eight fits of one shape on different data in a fresh process.
"""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")

SCRIPT = textwrap.dedent("""
    import sys, warnings
    import numpy as np
    from jax import monitoring
    from softirr_stats import compile_cache, models
    from softirr_stats.inference import NutsConfig, SviConfig, fit

    compile_cache(sys.argv[1])
    misses = []
    monitoring.register_event_listener(
        lambda event, **kw: misses.append(event) if event.endswith("cache_misses") else None)

    def maps():
        with open("/proc/self/maps") as f:
            return sum(1 for _ in f)

    def rss():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024

    nuts, svi = NutsConfig(num_warmup=20, num_samples=10, num_chains=1), SviConfig(steps=20, num_draws=20)
    rows = []
    for i in range(8):
        rng = np.random.default_rng(i)
        codes = np.where(rng.random((24, 3)) < 0.3, rng.integers(0, 3, (24, 3)), rng.integers(0, 3, 24)[:, None])
        method = "nuts" if i % 2 else "svi"
        before = len(misses)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit(models.mace, codes, method=method, seed=i, config=nuts if method == "nuts" else svi,
                progress=False)
        rows.append((len(misses) - before, maps(), rss()))
    print(sum(r[0] for r in rows[2:]), max(r[1] for r in rows[2:]) - rows[1][1], max(r[2] for r in rows[2:]) - rows[1][2])
""")


@pytest.fixture(scope="module")
def growth(tmp_path_factory):
    cache = tmp_path_factory.mktemp("jax")
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(cache)], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    compiles, maps, rss = out.stdout.strip().splitlines()[-1].split()
    return int(compiles), int(maps), float(rss)


def test_data_sets_of_one_shape_compile_once(growth):
    assert growth[0] == 0  # fits 3-8: every program read back or reused (before: a NUTS program per data set)


def test_memory_maps_stay_within_the_release_bound(growth):
    from softirr_stats.inference._programs import MAPS_HEADROOM

    assert growth[1] < MAPS_HEADROOM + 700  # at most the headroom and one fit's programs over the 2nd fit


def test_resident_memory_stays_bounded(growth):
    assert growth[2] < 150  # MiB over the 2nd fit (before: ~230 MiB more per fit, kept by glibc)
