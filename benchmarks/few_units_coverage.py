"""Coverage with few resampled units: rater designs with 3-12 raters, the cluster design with 8-40 clusters.

Issue: a bootstrap over ``U`` units (raters, or clusters of items) under-states the sampling variance
when ``U`` is small (the plug-in variance of a mean of ``U`` units is ``(U - 1) / U`` of the unbiased one,
and the distribution of the estimate is heavier-tailed than the bootstrap's). This study measures
the coverage of the percentile interval and of candidate corrections, all computed from the *same*
replicates of each simulated study, so differences between candidates are paired:

``none``
    the percentile interval as it is.
``inflate``
    deviations from the estimate scaled by ``sqrt(U / (U - 1))``.
``t``
    deviations scaled by ``t_{U-1}(q) / z(q)`` (a Student-t critical value with ``U - 1`` degrees of
    freedom in place of the normal one), ``q = (1 + level) / 2``.
``t+inflate``
    both.
``t-component``
    (rater designs) only the rater share of the variance is corrected: the leave-one-rater-out
    jackknife gives the rater component ``v_r``; the bootstrap variance ``v`` is split into
    ``v_i = max(v - (R - 1) / R * v_r, 0)`` and the rater part, and the deviations are scaled by
    ``sqrt((v_i + f^2 v_r) / v)`` with ``f = t_{R-1}(q) / z(q)``. For the cluster design the whole
    variance is between clusters and this equals ``t+inflate``.

Model: the latent-class annotators of ``benchmarks/coverage_study.py`` (true class ``c ~ Cat(0.5, 0.3,
0.2)``, rater ``j`` right with probability ``acc_j``, else a uniform class).

``raters`` scenario: each study draws ``R`` raters with ``acc ~ U(0.3, 0.9)`` (a rater population);
the estimand is the population-of-raters Fleiss-type kappa (0.34346); design ``items+raters``.

``clusters`` scenario: ``C`` documents of ``m`` items each; a document's class prevalence is drawn from
``Dirichlet(4 * (0.5, 0.3, 0.2))`` (documents differ in what they contain: items within a document are
correlated), four fixed raters (accuracies 0.5-0.8). Pooled marginals and observed agreement are linear
in the prevalence, so the estimand is the fixed-rater kappa at the mean prevalence (0.40061); design
``cluster``.

Run::

    python benchmarks/few_units_coverage.py --studies 400 --boot 1000 --out docs/coverage_results/few_units

Writes ``few_units.csv`` (one row per scenario x units x items x candidate: coverage, its Monte Carlo SE,
misses below / above, mean width) and ``few_units_studies.csv.gz`` (every study). Resumable: studies
already in ``few_units_studies.csv.gz`` are not run again.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from coverage_study import (  # noqa: E402  (a sibling script, not a package)
    FIXED_ACC,
    POP_HIGH,
    POP_LOW,
    PREVALENCE,
    encode,
    population_kappa,
    simulate,
)

from softirr_stats.agreement import point_estimate, resolve_similarity  # noqa: E402
from softirr_stats.uncertainty import Bootstrap, bootstrap_replicates  # noqa: E402
from softirr_stats.uncertainty._bootstrap import jackknife_values  # noqa: E402

CANDIDATES = ("none", "inflate", "t", "t+inflate", "t-component")
LEVEL = 0.95
DIRICHLET_CONCENTRATION = 4.0


def scale_factor(candidate: str, units: int, level: float = LEVEL) -> float:
    """Factor applied to the percentile interval's distances from the estimate."""
    q = (1.0 + level) / 2.0
    inflate = np.sqrt(units / (units - 1.0))
    t = stats.t.ppf(q, units - 1) / stats.norm.ppf(q)
    return {"none": 1.0, "inflate": inflate, "t": t, "t+inflate": t * inflate}[candidate]


def simulate_clusters(rng: np.random.Generator, n_clusters: int, per_cluster: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels (items, raters) and each item's cluster, documents with their own prevalence."""
    prev = rng.dirichlet(DIRICHLET_CONCENTRATION * PREVALENCE, size=n_clusters)  # (C, K)
    k = len(PREVALENCE)
    cum = prev.cumsum(axis=1)
    u = rng.random((n_clusters, per_cluster))
    truth = (u[..., None] > cum[:, None, :]).sum(axis=2).clip(0, k - 1).reshape(-1)
    n = n_clusters * per_cluster
    correct = rng.random((n, len(FIXED_ACC))) < FIXED_ACC[None, :]
    noise = rng.integers(0, k, (n, len(FIXED_ACC)))
    labels = np.where(correct, truth[:, None], noise)
    return labels, np.repeat(np.arange(n_clusters), per_cluster)


def one_study(labels: np.ndarray, design: str, units: int, n_boot: int, seed: int,
              cluster: np.ndarray | None = None) -> list[dict]:
    ann = encode(labels)
    res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    est = res.value
    cl = None if cluster is None else dict(zip(ann.items, cluster.tolist(), strict=True))
    cfg = Bootstrap(n=n_boot, design=design, seed=seed, cluster=cl)
    reps = bootstrap_replicates(prep, cfg)["value"]
    reps = reps[np.isfinite(reps)]
    a = (1 - LEVEL) / 2
    lo, hi = np.percentile(reps, [100 * a, 100 * (1 - a)])
    v = float(np.var(reps, ddof=1))
    if design == "items+raters":
        jack = jackknife_values(prep, Bootstrap(n=2, design="raters"))
        v_r = float((units - 1) / units * np.sum((jack - jack.mean()) ** 2))
    else:
        v_r = v * units / (units - 1)
    f = scale_factor("t", units)
    v_i = max(v - (units - 1) / units * v_r, 0.0)
    rows = []
    for cand in CANDIDATES:
        c = np.sqrt((v_i + f**2 * min(v_r, v * units / (units - 1))) / v) if cand == "t-component" \
            else scale_factor(cand, units)
        rows.append({"candidate": cand, "estimate": est, "low": est - c * (est - lo), "high": est + c * (hi - est)})
    return rows


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    g = df.groupby(["scenario", "units", "n_items", "candidate"], sort=True)
    out = g.agg(studies=("covered", "size"), coverage=("covered", "mean"), below=("below", "mean"),
                above=("above", "mean"), width=("width", "mean")).reset_index()
    out["mc_se"] = np.sqrt(out.coverage * (1 - out.coverage) / out.studies)
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=200)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--raters", type=int, nargs="+", default=[3, 4, 6, 8, 12])
    ap.add_argument("--rater-items", type=int, nargs="+", default=[60, 200])
    ap.add_argument("--clusters", type=int, nargs="+", default=[8, 10, 15, 20, 30, 40])
    ap.add_argument("--per-cluster", type=int, default=10)
    ap.add_argument("--scenarios", nargs="+", default=["raters", "clusters"], choices=["raters", "clusters"])
    ap.add_argument("--seed", type=int, default=2027)
    ap.add_argument("--out", default="few_units_out")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "few_units_studies.csv.gz")
    done = pd.read_csv(path) if os.path.exists(path) else pd.DataFrame()
    seen = set(map(tuple, done[["scenario", "units", "n_items", "study"]].drop_duplicates().to_numpy().tolist())) \
        if len(done) else set()
    truth_r = population_kappa(np.full(2, (POP_LOW + POP_HIGH) / 2), PREVALENCE)
    truth_c = population_kappa(FIXED_ACC, PREVALENCE)
    cells = []
    if "raters" in args.scenarios:
        cells += [("raters", r, n) for r in args.raters for n in args.rater_items]
    if "clusters" in args.scenarios:
        cells += [("clusters", c, c * args.per_cluster) for c in args.clusters]
    new = []
    for scen, units, n_items in cells:
        t0 = time.perf_counter()
        ran = 0
        for s in range(args.studies):
            if (scen, units, n_items, s) in seen:
                continue
            rng = np.random.default_rng([args.seed, 0 if scen == "raters" else 1, units, n_items, s])
            if scen == "raters":
                labels = simulate(rng, n_items, rng.uniform(POP_LOW, POP_HIGH, units), PREVALENCE)
                rows, truth = one_study(labels, "items+raters", units, args.boot, s), truth_r
            else:
                labels, cl = simulate_clusters(rng, units, args.per_cluster)
                rows, truth = one_study(labels, "cluster", units, args.boot, s, cluster=cl), truth_c
            for r in rows:
                new.append({"scenario": scen, "units": units, "n_items": n_items, "study": s, "truth": truth,
                            **r, "covered": r["low"] <= truth <= r["high"], "below": truth < r["low"],
                            "above": truth > r["high"], "width": r["high"] - r["low"]})
            ran += 1
        print(f"{scen:8s} U={units:3d} N={n_items:4d}: {ran} new studies in {time.perf_counter() - t0:6.1f} s",
              flush=True)
        if new:  # checkpoint after every cell
            done = pd.concat([done, pd.DataFrame(new)], ignore_index=True)
            new = []
            tmp = path + ".tmp"
            done.to_csv(tmp, index=False, compression="gzip")
            os.replace(tmp, path)
    summary = summarise(done)
    summary.to_csv(os.path.join(args.out, "few_units.csv"), index=False)
    piv = summary.pivot_table(index=["scenario", "units", "n_items", "studies"], columns="candidate",
                              values="coverage").reset_index()
    print(piv.to_string(index=False, float_format=lambda x: f"{x:.3f}"))


if __name__ == "__main__":
    main()
