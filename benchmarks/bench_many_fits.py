"""Many annotator-model fits in one process: memory maps and resident memory stay bounded.

A research script that fits hundreds of small data sets in one process (a simulation, a
sweep over subsets) must not run out of memory maps (LLVM's compiled code lives in maps; the
kernel's default limit is 65,530) or grow without bound. This script runs ``--fits`` calls of
``softirr_stats.inference.fit`` on small, different data sets and prints every ``--every`` fits
the number of memory maps of the process (lines of ``/proc/self/maps``), its resident memory
(``VmRSS`` of ``/proc/self/status``) and the seconds so far, then the growth per fit over the
second half of the run (after the first programs are compiled).

The workload: fit ``i`` draws its own data set (seed ``i``): ``20 + i % 21`` items, 3 raters,
3 categories, a quarter of the ratings random; the fits cycle through SVI Dawid-Skene, NUTS
Dawid-Skene, SVI MACE, NUTS MACE, SVI Dawid-Skene (NUTS: one chain, 30 warm-up and 20 kept
draws; SVI: 50 steps, 50 draws). The 150 fits hold 105 distinct (model, method, number of items)
combinations, so most fits meet a shape for the first time; fits 106-150 repeat the shapes of
fits 1-45.

Targets (issue 35, row 8): fewer than 5,000 maps after 150 fits and less than 300 MiB RSS growth.
What keeps them (``softirr_stats.inference._programs``): a package model's NUTS program takes
the data's arrays as arguments (one program per shape of data, not per data set), JAX's
in-memory caches are released when 8 distinct programs ran or the process gained 2,000 maps
since the last release, and the C heap is trimmed after each fit (``malloc_trim``).

Run with a fresh compile cache to measure a first run on a machine::

    SOFTIRR_COMPILE_CACHE=$(mktemp -d) python benchmarks/bench_many_fits.py            # 150 fits
    SOFTIRR_COMPILE_CACHE=$(mktemp -d) python benchmarks/bench_many_fits.py --fits 40  # shorter
    python benchmarks/bench_many_fits.py --no-release   # keep every program, never trim the heap

Measured on 2 shared cores (load 2-18; fresh compile cache; seconds not comparable between runs):

    =====  =============================  ==============================
    fit    before (main d78553c, 40 fits)  now (150 fits)
    =====  =============================  ==============================
    10     1,238 maps, 2,890 MiB, 60 s     2,890 maps, 795 MiB, 594 s
    20     1,267 maps, 4,801 MiB, 323 s    2,944 maps, 788 MiB, 1,511 s
    30     1,279 maps, 5,757 MiB, 452 s    2,934 maps, 797 MiB, 1,992 s
    40     1,288 maps, 6,152 MiB, 671 s    2,964 maps, 815 MiB, 2,537 s
    80                                     2,972 maps, 848 MiB, 2,816 s
    150                                    2,951 maps, 886 MiB, 3,059 s
    =====  =============================  ==============================

Before: +5,228 MiB RSS since the first fit after 40 fits (+68 MiB a fit over the second half),
the maps bounded by a release after every fit. Now: 2,951 maps after 150 fits, +107 MiB RSS
since the first fit (779 MiB); between releases the maps swing by up to 2,000.

Linux only (reads /proc).
"""

import argparse
import time
import warnings

import numpy as np


def maps() -> int:
    with open("/proc/self/maps") as f:
        return sum(1 for _ in f)


def rss_mib() -> float:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def data_set(i: int) -> np.ndarray:
    """A small data set of its own for fit ``i``: 20-40 items, 3 raters, 3 categories."""
    rng = np.random.default_rng(i)
    n = 20 + i % 21
    truth = rng.integers(0, 3, n)
    noise = rng.random((n, 3)) < 0.25
    return np.where(noise, rng.integers(0, 3, (n, 3)), truth[:, None])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fits", type=int, default=150)
    ap.add_argument("--every", type=int, default=10)
    ap.add_argument("--no-release", action="store_true",
                    help="keep every fit's compiled programs and the C heap (no release, no trim)")
    args = ap.parse_args()
    from softirr_stats import models
    from softirr_stats.inference import NutsConfig, SviConfig, fit
    from softirr_stats.inference import _fit as fit_module

    if args.no_release:
        fit_module.RELEASE_PROGRAMS = False
    nuts = NutsConfig(num_warmup=30, num_samples=20, num_chains=1)
    svi = SviConfig(steps=50, num_draws=50)
    kinds = [(models.dawid_skene, "svi"), (models.dawid_skene, "nuts"), (models.mace, "svi"),
             (models.mace, "nuts"), (models.dawid_skene, "svi")]
    start_maps, start_rss = maps(), rss_mib()
    print(f"start: {start_maps} maps, {start_rss:.0f} MiB RSS", flush=True)
    t0 = time.perf_counter()
    half = None
    for i in range(args.fits):
        model, method = kinds[i % len(kinds)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit(model, data_set(i), method=method, seed=i, config=nuts if method == "nuts" else svi, progress=False)
        if i == 0:
            first = (maps(), rss_mib())  # after JAX's and NumPyro's own start-up (hundreds of MiB)
            print(f"fit    1: {first[0]:6d} maps, {first[1]:7.0f} MiB RSS, {time.perf_counter() - t0:7.1f} s "
                  "(the baseline of the RSS target)", flush=True)
        if i + 1 == args.fits // 2:
            half = (maps(), rss_mib())
        if (i + 1) % args.every == 0 or i + 1 == args.fits:
            print(f"fit {i + 1:4d}: {maps():6d} maps, {rss_mib():7.0f} MiB RSS, "
                  f"{time.perf_counter() - t0:7.1f} s", flush=True)
    end_maps, end_rss = maps(), rss_mib()
    print(f"after {args.fits} fits: {end_maps} maps ({end_maps - start_maps:+d}), RSS {end_rss:.0f} MiB "
          f"({end_rss - start_rss:+.0f} MiB)")
    print(f"since the first fit: {end_maps - first[0]:+d} maps, {end_rss - first[1]:+.0f} MiB RSS")
    if half is not None and args.fits >= 4:
        n = args.fits - args.fits // 2
        print(f"second half: {(end_maps - half[0]) / n:+.1f} maps per fit, {(end_rss - half[1]) / n:+.2f} MiB per fit")
    print(f"targets: maps < 5000 -> {'met' if end_maps < 5000 else 'NOT met'}; RSS growth since the first fit "
          f"< 300 MiB -> {'met' if end_rss - first[1] < 300 else 'NOT met'}")


if __name__ == "__main__":
    main()
