"""Coverage of ``calibration_error_ci``'s interval methods: percentile, basic, BCa and ``bca-t``.

``calibration_error_ci(ci=Bootstrap(method="auto"))`` used the percentile interval while the coefficients'
``method="auto"`` became ``bca-t`` for the item designs (docs/coverage.md, "Small studies"). This study
checks the calibration metrics with every method from the *same* replicates of each study (paired), so
that the default can follow the coefficients' rule where it is no worse.

Generator: scores ``s ~ U(0, 1)``, labels ``y ~ Bernoulli(s^gamma)`` (``gamma = 1.5``: over-confident scores,
binned ECE about 0.10; ``gamma = 1.1``: nearly calibrated, ECE about 0.025). Estimands (exact):

- Brier score ``E (s - y)^2 = 1/3 - 2/(gamma + 2) + 1/(gamma + 1)``;
- the population ECE with ``bins`` uniform bins (``p = 1``): ``sum_b P(b) |E[s | b] - E[y | b]|`` with
  ``E[y | b] = (u^{gamma+1} - l^{gamma+1}) / ((gamma + 1)(u - l))`` for the bin ``[l, u)``.

Each study is one call of the library's bootstrap (``bootstrap_replicates`` on the metric's statistic, the
replicates ``calibration_error_ci`` uses) and one leave-one-pair-out jackknife; the intervals are the
uncertainty layer's functions. Resumable (rows appended per chunk of studies to ``studies.csv.gz``).

Run::

    python benchmarks/calibration_interval_coverage.py --studies 1000 --out docs/coverage_results/calibration_ci
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np
import pandas as pd

METHODS = ("percentile", "basic", "bca", "bca-t")
LEVEL = 0.95
BINS = 10


def truth(metric: str, gamma: float) -> float:
    if metric == "brier":
        return 1 / 3 - 2 / (gamma + 2) + 1 / (gamma + 1)
    edges = np.linspace(0.0, 1.0, BINS + 1)
    lo, hi = edges[:-1], edges[1:]
    ey = (hi ** (gamma + 1) - lo ** (gamma + 1)) / ((gamma + 1) * (hi - lo))
    return float(np.sum((hi - lo) * np.abs((lo + hi) / 2 - ey)))


def one_study(metric: str, gamma: float, n: int, seed: int, boot: int) -> dict:
    from softirr_stats.calibration._metrics import calibration_statistic
    from softirr_stats.uncertainty import (
        Bootstrap,
        basic_interval,
        bca_interval,
        bootstrap_replicates,
        jackknife_values,
        percentile_interval,
        t_level,
    )

    rng = np.random.default_rng([seed, n, int(gamma * 100), METRIC_IDS[metric]])
    s = rng.uniform(size=n)
    y = (rng.uniform(size=n) < s**gamma).astype(float)
    stat = calibration_statistic(s, y, metric=metric, bins=BINS, strategy="uniform")
    est = float(stat.evaluate()["value"][0])
    cfg = Bootstrap(n=boot, seed=seed, level=LEVEL)
    reps = bootstrap_replicates(stat, cfg)["value"]
    jack = jackknife_values(stat, cfg)
    out = {"metric": metric, "gamma": gamma, "n": n, "study": seed, "estimate": est}
    for m in METHODS:
        if m == "percentile":
            lo, hi = percentile_interval(reps, LEVEL)
        elif m == "basic":
            lo, hi = basic_interval(reps, est, LEVEL)
        else:
            lo, hi, _ = bca_interval(reps, est, jack, LEVEL if m == "bca" else t_level(LEVEL, n))
        out[f"{m}_low"], out[f"{m}_high"] = lo, hi
    return out


METRIC_IDS = {"brier": 0, "ece": 1}


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for (metric, gamma, n), g in df.groupby(["metric", "gamma", "n"]):
        t = truth(metric, gamma)
        for m in METHODS:
            lo, hi = g[f"{m}_low"].to_numpy(), g[f"{m}_high"].to_numpy()
            cov = float(np.mean((lo <= t) & (t <= hi)))
            rows.append({"metric": metric, "gamma": gamma, "n": n, "method": m, "studies": len(g),
                         "coverage": cov, "mc_se": math.sqrt(cov * (1 - cov) / len(g)),
                         "truth_below": float(np.mean(t < lo)), "truth_above": float(np.mean(t > hi)),
                         "width": float(np.mean(hi - lo)), "truth": t, "bias": float(g["estimate"].mean() - t)})
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--n", type=int, nargs="+", default=[50, 100, 300])
    ap.add_argument("--gammas", type=float, nargs="+", default=[1.5, 1.1])
    ap.add_argument("--metrics", nargs="+", default=["ece", "brier"], choices=sorted(METRIC_IDS))
    ap.add_argument("--chunk", type=int, default=50)
    ap.add_argument("--budget-s", type=float, default=math.inf, help="stop starting chunks after this many seconds")
    ap.add_argument("--out", default="docs/coverage_results/calibration_ci")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "studies.csv.gz")
    done = set()
    if os.path.exists(path):
        old = pd.read_csv(path)
        done = set(zip(old["metric"], old["gamma"], old["n"], old["study"], strict=True))
    t0 = time.perf_counter()
    for start in range(0, args.studies, args.chunk):
        if time.perf_counter() - t0 > args.budget_s:
            print("budget reached; rerun to continue", flush=True)
            break
        for metric in args.metrics:
            for gamma in args.gammas:
                for n in args.n:
                    rows = [one_study(metric, gamma, n, s, args.boot)
                            for s in range(start, min(args.studies, start + args.chunk))
                            if (metric, gamma, n, s) not in done]
                    if rows:
                        pd.DataFrame(rows).to_csv(path, mode="a", header=not os.path.exists(path), index=False,
                                                  compression={"method": "gzip", "mtime": 0})
        print(f"studies {start:5d}+ done ({time.perf_counter() - t0:6.0f} s)", flush=True)
    summary = summarise(pd.read_csv(path))
    summary.to_csv(os.path.join(args.out, "summary.csv"), index=False)
    piv = summary.pivot_table(index=["metric", "gamma", "n", "studies"], columns="method", values="coverage")
    print(piv.to_string(float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
