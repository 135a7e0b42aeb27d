"""Ordinal Krippendorff's alpha and Light's kappa: time and peak memory against the established packages.

One run prints, for (raters, items) = (20, 1e4) and (20, 1e5), labels 0..4, 5% of the ratings
missing, each measured in a fresh subprocess (peak resident memory above the process's state
after the data are made and the call has run once on a small table):

- ``krippendorff_alpha(ann, level="ordinal")`` against ``krippendorff.alpha(...,
  level_of_measurement="ordinal")``;
- ``light_kappa(ann)`` against the mean over rater pairs of ``sklearn.metrics.cohen_kappa_score``
  on the items both raters rated;
- an item bootstrap of B = 200 of each (softirr_stats only; ``ci="bootstrap"``).

Ratios ``ref / ours`` > 1 mean softirr_stats is faster (or smaller); ``|diff|`` is the largest
difference between the two values.

Light's kappa, ``--only light`` under ``nice -n 10`` on a shared 2-core machine (load 3-4, so rough),
before and after it read each rater pair's confusion matrix from one sparse product instead of the
within-item pair list (docs/performance.md)::

    items  ours point: before        after            B = 200: before      after           sklearn
    1e4                0.82 s / 343 MB  0.40 s / 149 MB         20.5 s / 1.9 GB  0.75 s          0.77 s
    1e5                9.24 s / 3.1 GB  2.38 s / 538 MB         278 s / 4.4 GB   6.0 s / 856 MB  5.5-7.4 s

Run::

    python benchmarks/bench_ordinal_alpha_light.py            # both sizes (~1 min on 2 busy cores)
    python benchmarks/bench_ordinal_alpha_light.py --quick    # the small size only
    python benchmarks/bench_ordinal_alpha_light.py --only light
"""

import argparse
import json
import resource
import subprocess
import sys
import time
import warnings

import numpy as np

SIZES = [(20, 10_000), (20, 100_000)]
K = 5
B = 200


def reliability_data(r: int, n: int, seed: int = 0, missing: float = 0.05) -> np.ndarray:
    """(raters, items) float array of labels 0..K-1 with ``missing`` NaNs."""
    rng = np.random.default_rng(seed)
    data = rng.integers(0, K, (r, n)).astype(float)
    data[rng.random((r, n)) < missing] = np.nan
    return data


def light_sklearn(data: np.ndarray) -> float:
    """Light's kappa as the mean of sklearn's Cohen's kappa over rater pairs (items both rated)."""
    from sklearn.metrics import cohen_kappa_score

    r = data.shape[0]
    kappas = []
    for a in range(r):
        for b in range(a + 1, r):
            both = ~np.isnan(data[a]) & ~np.isnan(data[b])
            kappas.append(cohen_kappa_score(data[a, both], data[b, both]))
    return float(np.mean(kappas))


def _call(what: str, data: np.ndarray) -> float:
    import krippendorff

    import softirr_stats as sis

    if what == "kripp_ordinal":
        return float(krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal"))
    if what == "sklearn_light":
        return light_sklearn(data)
    ann = sis.Annotations.from_wide(data.T)
    if what == "sis_ordinal":
        return sis.krippendorff_alpha(ann, level="ordinal").value
    if what == "sis_light":
        return sis.light_kappa(ann).value
    if what == "sis_ordinal_boot":
        return sis.krippendorff_alpha(ann, level="ordinal", ci=sis.Bootstrap(n=B, seed=1)).ci_low
    if what == "sis_light_boot":
        return sis.light_kappa(ann, ci=sis.Bootstrap(n=B, seed=1)).ci_low
    raise ValueError(what)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def one(what: str, r: int, n: int) -> dict[str, float]:
    """Time and peak memory of one call in this process (warmed on a small table first)."""
    warnings.simplefilter("ignore")
    _call(what, reliability_data(r, 200, seed=1))  # imports and compiles
    data = reliability_data(r, n)
    before = _peak_mb()
    t0 = time.perf_counter()
    value = _call(what, data)
    return {"value": value, "seconds": time.perf_counter() - t0, "peak_mb": _peak_mb() - before}


def measure(what: str, r: int, n: int) -> dict[str, float]:
    """:func:`one` in a fresh subprocess (its own peak memory)."""
    out = subprocess.run([sys.executable, __file__, "--one", what, str(r), str(n)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", choices=["ordinal", "light"], help="one coefficient only")
    ap.add_argument("--one", nargs=3, metavar=("WHAT", "R", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        print(json.dumps(one(args.one[0], int(args.one[1]), int(args.one[2]))))
        return
    sizes = SIZES[:1] if args.quick else SIZES
    print(f"{'R':>3} {'N':>7} {'coefficient':13} {'ref s':>7} {'ours s':>7} {'ref/ours':>8} {'ref MB':>7} "
          f"{'ours MB':>7} {'ref/ours':>8} {'|diff|':>8} {'boot B s':>8} {'boot MB':>7}")
    for r, n in sizes:
        for name, ref, ours in (("ordinal alpha", "kripp_ordinal", "sis_ordinal"),
                                ("Light kappa", "sklearn_light", "sis_light")):
            if args.only and not name.lower().startswith(args.only):
                continue
            a, b, boot = measure(ref, r, n), measure(ours, r, n), measure(ours + "_boot", r, n)
            print(f"{r:3d} {n:7d} {name:13} {a['seconds']:7.2f} {b['seconds']:7.2f} "
                  f"{a['seconds'] / b['seconds']:8.2f} {a['peak_mb']:7.0f} {b['peak_mb']:7.0f} "
                  f"{max(a['peak_mb'], 1) / max(b['peak_mb'], 1):8.2f} {abs(a['value'] - b['value']):8.1e} "
                  f"{boot['seconds']:8.2f} {boot['peak_mb']:7.0f}", flush=True)


if __name__ == "__main__":
    main()
