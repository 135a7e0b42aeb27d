"""The default Dawid-Skene confusion prior: small studies with many classes, and label switching.

Two studies of ``DawidSkenePriors(concentration=c)`` (prior mean accuracy 0.75 kept; the
default is ``c = 4`` pseudo-ratings per confusion row), one CSV row per fit, resumable
(``--out`` is appended to and fits already in it are skipped):

* ``small``: the small study the default was chosen on (``benchmarks/prior_sweep_small_study.py``,
  which runs only its two seeds): 30 documents x 3 annotators x 10 classes, generator accuracy
  0.82 (``models.simulate_dawid_skene(30, 3, 10, accuracy=0.82, seed=s)``), SVI (1,500 steps,
  500 draws). Per fit: the model kappa (posterior mean, 90% interval) against the generator's
  population kappa (``(P_o - 1/K) / (1 - 1/K)`` with ``P_o = a^2 + (1 - a)^2 / (K - 1)``) and
  against the study's own Fleiss kappa, and the mean absolute error of the rater accuracies.
* ``switching``: small ordinary studies where a weak prior could let the latent classes swap:
  ``--items`` items x 3 raters, K = 2 or 3 classes, rater accuracy 0.6 or 0.75 (no adversary),
  NUTS (2 chains, 300 warm-up + 300 draws) and SVI (1,000 steps). Per fit: the share of draws
  whose latent classes are permuted (``Posterior.class_alignment`` not the identity), the
  number of chains with any permuted draw, and the share of items whose aggregated label
  (``Posterior.aggregated_labels``, aligned per draw) disagrees with the majority vote (an item
  counts as agreeing when its label is one of the tied modes). A fit counts as switched when it
  disagrees with majority vote on more than half of the items.

Usage::

    nice -n 10 python paper_repro/ds_prior_study.py small --seeds 20 --out docs/adversary_study/prior_small_study.csv
    nice -n 10 python paper_repro/ds_prior_study.py switching --seeds 10 --out docs/adversary_study/prior_switching.csv
    python paper_repro/ds_prior_study.py summarise docs/adversary_study/prior_small_study.csv docs/adversary_study/prior_switching.csv
"""

import argparse
import csv
import os
import time
import warnings

import numpy as np

CONCENTRATIONS = (1.0, 2.0, 4.0)


def population_kappa(accuracy: float, k: int) -> float:
    """Population Fleiss kappa of the symmetric Dawid-Skene generator (equal accuracies,
    uniform prevalence).

    Examples
    --------
    >>> round(population_kappa(0.82, 10), 4)
    0.64
    """
    p_o = accuracy**2 + (1 - accuracy) ** 2 / (k - 1)
    return (p_o - 1 / k) / (1 - 1 / k)


def majority_disagreement(codes: np.ndarray, labels: np.ndarray, k: int) -> float:
    """Share of items whose label is none of the items' most frequent ratings.

    Examples
    --------
    >>> codes = np.array([[0, 0, 1], [1, 2, 0], [2, 2, 2]])
    >>> round(majority_disagreement(codes, np.array([0, 1, 0]), 3), 4)  # item 1: a 3-way tie
    0.3333
    """
    counts = np.stack([(codes == c).sum(1) for c in range(k)], 1)
    modal = counts == counts.max(1, keepdims=True)
    return float(1.0 - modal[np.arange(len(labels)), labels].mean())


def _fit(codes, conc, method, seed, steps):
    from softirr_stats import models
    from softirr_stats.inference import NutsConfig, SviConfig, fit

    cfg = (SviConfig(steps=steps, num_draws=500) if method == "svi"
           else NutsConfig(num_warmup=300, num_samples=300, num_chains=2))
    t0 = time.time()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        post = fit(models.dawid_skene, codes, method=method, seed=seed, config=cfg,
                   priors=models.DawidSkenePriors(concentration=conc), progress=False)
    return post, time.time() - t0, rec


def small_fit(seed: int, conc: float) -> dict:
    """One fit of the small study (30 x 3 x 10, accuracy 0.82, SVI 1,500 steps)."""
    import softirr_stats as sis
    from softirr_stats import models

    sim = models.simulate_dawid_skene(30, 3, 10, accuracy=0.82, seed=seed)
    codes = sim["codes"]
    fleiss = float(sis.fleiss_kappa(codes.tolist()).value)
    post, sec, _ = _fit(codes, conc, "svi", 0, 1500)
    lo, hi = post.interval("kappa", level=0.9)
    acc = post.rater_accuracy(0.9)
    return {"study": "small", "seed": seed, "concentration": conc, "method": "svi",
            "n_items": 30, "k": 10, "accuracy": 0.82, "seconds": round(sec, 1),
            "kappa_true": population_kappa(0.82, 10), "fleiss": fleiss,
            "kappa": float(np.mean(post.kappa)), "kappa_lo": lo, "kappa_hi": hi,
            "acc_mae": float(np.abs(acc["accuracy"].to_numpy() - sim["accuracy"]).mean()),
            "acc_cover90": float(((acc["lower_90%"] <= sim["accuracy"])
                                  & (sim["accuracy"] <= acc["upper_90%"])).mean())}


def switching_fit(seed: int, conc: float, method: str, n_items: int, k: int,
                  accuracy: float) -> dict:
    """One fit of the label-switching check."""
    from softirr_stats import models
    from softirr_stats.inference import ConvergenceWarning

    sim = models.simulate_dawid_skene(n_items, 3, k, accuracy=accuracy, seed=seed)
    codes = sim["codes"]
    post, sec, rec = _fit(codes, conc, method, seed, 1000)
    align = post.class_alignment()
    permuted = (align != np.arange(k)).any(1)
    chains = permuted.reshape(post.num_chains, -1).any(1)
    labels = post.aggregated_labels(as_labels=False)
    dis = majority_disagreement(codes, labels, k)
    truth_dis = float((labels != sim["truth"]).mean())
    mv_truth = majority_disagreement(codes, sim["truth"], k)
    lo, hi = post.interval("kappa", level=0.9)
    return {"study": "switching", "seed": seed, "concentration": conc, "method": method,
            "n_items": n_items, "k": k, "accuracy": accuracy, "seconds": round(sec, 1),
            "kappa_true": population_kappa(accuracy, k), "kappa": float(np.mean(post.kappa)),
            "kappa_lo": lo, "kappa_hi": hi, "permuted_draws": float(permuted.mean()),
            "chains_permuted": int(chains.sum()), "num_chains": int(post.num_chains),
            "mv_disagreement": dis, "switched": dis > 0.5, "truth_disagreement": truth_dis,
            "mv_truth_disagreement": mv_truth,
            "convergence_warned": any(issubclass(w.category, ConvergenceWarning) for w in rec)}


def _done(path: str) -> set:
    if not os.path.exists(path):
        return set()
    with open(path) as fh:
        return {(r["study"], int(r["seed"]), float(r["concentration"]), r["method"],
                 int(r["n_items"]), int(r["k"]), float(r["accuracy"]))
                for r in csv.DictReader(fh)}


def _append(path: str, row: dict) -> None:
    new = not os.path.exists(path)
    with open(path, "a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(row))
        if new:
            w.writeheader()
        w.writerow(row)


def _rate(x) -> str:
    x = np.asarray(x, float)
    p = x.mean()
    return f"{p:.2f} ± {(p * (1 - p) / len(x)) ** .5:.2f}"


def _mean(x, signed=True) -> str:
    x = np.asarray(x, float)
    fmt = "+.3f" if signed else ".3f"
    se = x.std(ddof=1) / len(x) ** .5 if len(x) > 1 else float("nan")
    return f"{x.mean():{fmt}} ± {se:.3f}"


def summarise(paths: list) -> None:
    """Markdown tables (MC SEs): the small study per concentration, the switching check per
    cell and concentration."""
    import pandas as pd

    df = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    small = df[df.study == "small"]
    if len(small):
        print("| concentration | fits | kappa bias (vs population) | kappa - Fleiss | 90% covers population kappa | 90% covers Fleiss | width | rater accuracy MAE | accuracy 90% coverage |")
        print("|---|---|---|---|---|---|---|---|---|")
        for c, g in small.groupby("concentration"):
            cov = (g.kappa_lo <= g.kappa_true) & (g.kappa_true <= g.kappa_hi)
            cov_f = (g.kappa_lo <= g.fleiss) & (g.fleiss <= g.kappa_hi)
            print(f"| {c:g} | {len(g)} | {_mean(g.kappa - g.kappa_true)} | "
                  f"{_mean(g.kappa - g.fleiss)} | {_rate(cov)} | {_rate(cov_f)} | "
                  f"{(g.kappa_hi - g.kappa_lo).mean():.3f} | {_mean(g.acc_mae, False)} | "
                  f"{_mean(g.acc_cover90, False)} |")
        print()
    sw = df[df.study == "switching"]
    if len(sw):
        print("| K | accuracy | items | method | concentration | fits | switched (> 50% vs majority) | mean disagreement with majority | majority vs truth | fits with permuted draws | mean share of permuted draws | kappa bias | kappa 90% coverage | convergence warnings |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for (k, a, n, m, c), g in sw.groupby(["k", "accuracy", "n_items", "method", "concentration"]):
            cov = (g.kappa_lo <= g.kappa_true) & (g.kappa_true <= g.kappa_hi)
            print(f"| {k} | {a:g} | {n} | {m} | {c:g} | {len(g)} | "
                  f"{int(g.switched.astype(str).eq('True').sum())} | "
                  f"{_mean(g.mv_disagreement, False)} | {_mean(g.mv_truth_disagreement, False)} | "
                  f"{int((g.permuted_draws > 0).sum())} | {g.permuted_draws.mean():.3f} | "
                  f"{_mean(g.kappa - g.kappa_true)} | {_rate(cov)} | "
                  f"{int(g.convergence_warned.astype(str).eq('True').sum())} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("study", choices=["small", "switching", "summarise"])
    ap.add_argument("paths", nargs="*", help="summarise: the CSV files")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--concentrations", nargs="+", type=float, default=list(CONCENTRATIONS))
    ap.add_argument("--items", type=int, default=20)
    ap.add_argument("--methods", nargs="+", default=["nuts", "svi"], choices=["nuts", "svi"])
    ap.add_argument("--cells", nargs="+", default=["3:0.6", "2:0.6", "3:0.75"],
                    help="switching: K:accuracy cells")
    ap.add_argument("--out", default="ds_prior_study.csv")
    ap.add_argument("--budget-s", type=float, default=float("inf"))
    args = ap.parse_args()
    if args.study == "summarise":
        summarise(args.paths)
        return
    done = _done(args.out)
    t0 = time.time()
    for seed in range(args.seed, args.seed + args.seeds):
        jobs = []
        if args.study == "small":
            jobs = [(("small", seed, c, "svi", 30, 10, 0.82), lambda c=c, seed=seed: small_fit(seed, c))
                    for c in args.concentrations]
        else:
            for cell in args.cells:
                k, a = int(cell.split(":")[0]), float(cell.split(":")[1])
                for m in args.methods:
                    for c in args.concentrations:
                        jobs.append((("switching", seed, c, m, args.items, k, a),
                                     lambda c=c, m=m, k=k, a=a, seed=seed: switching_fit(
                                         seed, c, m, args.items, k, a)))
        for key, job in jobs:
            if key in done:
                continue
            if time.time() - t0 > args.budget_s:
                print("budget spent; rerun with the same --out to resume", flush=True)
                return
            row = job()
            _append(args.out, row)
            print({k: row[k] for k in row if k in ("study", "seed", "concentration", "method",
                                                   "k", "accuracy", "kappa", "acc_mae",
                                                   "mv_disagreement", "permuted_draws",
                                                   "seconds")}, flush=True)


if __name__ == "__main__":
    main()
