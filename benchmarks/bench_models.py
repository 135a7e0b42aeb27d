"""Benchmark the annotator models (issue 6, item 7).

1. SVI of the soft-agreement model on 1e5 pair scores (5e4 within-item + 5e4 chance
   pairs; 5,000 items x 5 raters); target < 60 s on 2 CPU cores.
2. NUTS Dawid-Skene on 1,000 items x 5 raters x 5 classes (2 chains x (500 warm-up + 500
   draws)); target < 5 minutes.

Times include JAX compilation (what a user waits for). Run:

    python benchmarks/bench_models.py            # full sizes
    python benchmarks/bench_models.py --quick    # 10x smaller, smoke test
    python benchmarks/bench_models.py --validate 30   # simulation study of docs/annotator_models.md
"""

import argparse
import os
import time
import warnings

import numpy as np

from softirr_stats import models
from softirr_stats.inference import ConvergenceWarning, NutsConfig, SviConfig, fit


def bench_soft(n_items: int, steps: int) -> dict:
    sim = models.simulate_soft_scores(n_items, 5, intercept=0.8, rater_sd=0.4, pi_chance=0.1,
                                      n_chance=n_items * 10, seed=0)
    data = sim["data"]
    t0, c0 = time.perf_counter(), time.process_time()
    post = fit("soft", data, method="svi", seed=0,
               config=SviConfig(steps=steps, num_draws=500, guide="multivariate_normal"))
    kappa = post.kappa
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    lo, hi = post.interval("kappa")
    return {"n_pair_scores": data.n_within + data.n_chance, "steps": steps, "seconds": wall,
            "cpu_seconds": cpu,
            "true_kappa": sim["kappa"], "kappa_mean": float(kappa.mean()), "ci90": (lo, hi)}


def bench_nuts_ds(n_items: int, warmup: int, samples: int) -> dict:
    sim = models.simulate_dawid_skene(n_items, 5, 5, accuracy=[0.55, 0.65, 0.75, 0.85, 0.95],
                                      seed=0)
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        post = fit(models.dawid_skene, sim["codes"], method="nuts", seed=0,
                   config=NutsConfig(num_warmup=warmup, num_samples=samples, num_chains=2))
    t_fit = time.perf_counter() - t0
    acc = post.rater_accuracy()["accuracy"].to_numpy()
    kappa = post.kappa
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    s = post.summary(params=["pi", "beta"])
    return {"items x raters x classes": f"{n_items} x 5 x 5", "seconds_fit": t_fit,
            "seconds_total": wall, "cpu_seconds": cpu, "max_abs_accuracy_error": float(np.abs(acc - sim["accuracy"]).max()),
            "max_r_hat": float(s["r_hat"].max()), "min_ess": float(s["ess"].min()),
            "kappa_mean": float(kappa.mean()), "warnings": [str(w.message)[:80] for w in caught]}


def validate(replications: int) -> None:
    """Recovery (DS, MACE), agreement with EM, and coverage of soft-kappa 90% intervals."""
    import importlib.util
    import pathlib

    spec = importlib.util.spec_from_file_location(
        "sim_tests", pathlib.Path(__file__).resolve().parents[1] / "tests"
        / "models" / "test_simulation.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    cfg = SviConfig(steps=1500, num_draws=400, learning_rate=0.03)
    sim = models.simulate_dawid_skene(1000, 5, 4, accuracy=[0.55, 0.65, 0.75, 0.85, 0.95],
                                      missing=0.2, seed=21)
    post = fit(models.dawid_skene, sim["codes"], method="svi", seed=0, config=cfg)
    acc = post.rater_accuracy()["accuracy"].to_numpy()
    em = mod.em_dawid_skene(sim["codes"], 4).argmax(1)
    print("DS accuracy true", np.round(sim["accuracy"], 3), "est", np.round(acc, 3),
          "max abs err", round(float(np.abs(acc - sim["accuracy"]).max()), 4))
    print("DS labels: agreement with EM", (post.aggregated_labels() == em).mean(),
          "with truth", (post.aggregated_labels() == sim["truth"]).mean(),
          "EM with truth", (em == sim["truth"]).mean())
    sim = models.simulate_mace(1000, 5, 3, competence=[0.3, 0.5, 0.7, 0.8, 0.9], seed=22)
    post = fit(models.mace, sim["codes"], method="svi", seed=0, config=cfg)
    acc = post.rater_accuracy()["accuracy"].to_numpy()
    print("MACE accuracy true", np.round(sim["accuracy"], 3), "est", np.round(acc, 3),
          "max abs err", round(float(np.abs(acc - sim["accuracy"]).max()), 4))
    scfg = SviConfig(steps=600, num_draws=400, guide="multivariate_normal", learning_rate=0.05)
    hits, widths = [], []
    for rep in range(replications):
        s = models.simulate_soft_scores(80, 4, intercept=0.7, rater_sd=0.4, pi_chance=0.12,
                                        n_chance=400, seed=100 + rep)
        p = fit("soft", s["data"], method="svi", seed=rep, config=scfg)
        lo, hi = p.interval("kappa", level=0.9)
        hits.append(lo <= s["kappa"] <= hi)
        widths.append(hi - lo)
    print(f"soft kappa 90% coverage: {np.mean(hits):.3f} ({sum(hits)}/{replications}), "
          f"mean width {np.mean(widths):.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="10x smaller problems")
    ap.add_argument("--validate", type=int, default=0, metavar="N",
                    help="run the validation study with N coverage replications instead")
    ap.add_argument("--only", choices=["soft", "nuts"], default=None,
                    help="run only one of the two benchmarks")
    args = ap.parse_args()
    if args.validate:
        validate(args.validate)
        return
    scale = 10 if args.quick else 1
    print(f"cpu cores visible: {os.cpu_count()}; load average: {os.getloadavg()}")
    print("cpu_seconds = CPU time of this process (user + system, all threads); on a shared "
          "machine wall time overstates the cost, cpu_seconds / n_cores bounds it from below")
    if args.only != "nuts":
        soft = bench_soft(5000 // scale, 2000)
        print("soft SVI:", soft)
    if args.only != "soft":
        ds = bench_nuts_ds(1000 // scale, 500, 500)
        print("Dawid-Skene NUTS:", ds)
    if args.only:
        return
    print(f"ratio NUTS-DS / soft-SVI wall time: {ds['seconds_total'] / soft['seconds']:.2f}")
    print(f"load average at the end: {os.getloadavg()}")
    print(f"targets: soft SVI < 60 s -> {soft['seconds']:.1f} s; "
          f"NUTS DS < 300 s -> {ds['seconds_total']:.1f} s")


if __name__ == "__main__":
    main()
