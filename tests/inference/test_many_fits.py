"""Many fits in one process keep the number of memory maps bounded (issue 35, row 8).

Each fit closes over its own data, so JAX compiles new programs for it; before, every fit's
programs stayed in JAX's in-memory caches (about 600 memory maps a fit: a research process hit
the kernel's 65,530-map limit after ~110 fits and crashed). The full 150-fit run with RSS is
``benchmarks/bench_many_fits.py``; here a few SVI fits on different data in a fresh process.
"""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")

SCRIPT = textwrap.dedent("""
    import sys, warnings
    import numpy as np
    from softirr_stats import models
    from softirr_stats.inference import SviConfig, fit
    from softirr_stats.inference import _fit
    _fit.RELEASE_PROGRAMS = sys.argv[1] == "1"

    def maps():
        with open("/proc/self/maps") as f:
            return sum(1 for _ in f)

    counts = []
    for i in range(8):
        rng = np.random.default_rng(i)
        n = 20 + i
        codes = np.where(rng.random((n, 3)) < 0.3, rng.integers(0, 3, (n, 3)), rng.integers(0, 3, n)[:, None])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit(models.dawid_skene if i % 2 else models.mace, codes, method="svi", seed=i,
                config=SviConfig(steps=20, num_draws=20), progress=False)
        counts.append(maps())
    print(counts[-1] - counts[1])
""")


def _growth(release):
    out = subprocess.run([sys.executable, "-c", SCRIPT, "1" if release else "0"], capture_output=True, text=True,
                         timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    return int(out.stdout.strip().splitlines()[-1])


def test_six_more_fits_add_almost_no_memory_maps():
    assert _growth(True) < 60  # six fits after the second: was hundreds of maps per fit
