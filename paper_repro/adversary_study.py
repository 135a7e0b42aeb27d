"""Annotator models off their assumptions: an adversarial annotator, a spammer, item difficulty.

Each simulated study has ``--items`` items (3 classes, uniform prevalence) rated by ``--raters``
raters: ``raters - 2`` good raters, one spammer (a uniformly random label) and one adversary
(answers ``(c + 1) mod 3`` three times in four, else the truth: accuracy 0.25). Items differ in
difficulty: a good rater is right on item i with probability
``sigmoid(logit(0.85) - d_i)``, ``d_i ~ N(0, 1)``, otherwise gives one of the two wrong labels
at random.

Each study is fitted with Dawid-Skene, MACE and the item-difficulty model (SVI with the default
guide, 1000 steps, 500 draws; NUTS with ``--methods nuts``: one chain, 300 warm-up + 300
draws), all with the default priors, and with Dawid-Skene under weaker priors
(``dawid_skene_c1`` / ``dawid_skene_c2``: ``DawidSkenePriors(concentration=1.0 / 2.0)``, one /
two pseudo-ratings per row; the default is 4). Per fit, one CSV row: the adversary's posterior
accuracy (mean, 90% interval) vs the truth 0.25, the spammer's vs its truth 1/3, the model
kappa (posterior mean, 90% interval) vs the population Fleiss kappa of the generator (computed
on 200000 simulated items), the global predictive check's p-value and the per-rater check
(:func:`softirr_stats.inference.rater_predictive_check`, pairwise agreement with the others;
which raters it names).

``--out FILE`` appends one row per fit and skips fits already in the file (resumable).

Usage::

    nice -n 10 python paper_repro/adversary_study.py --studies 10 --seed 2400 --methods svi \
        --out docs/adversary_study/svi_60items.csv
    nice -n 10 python paper_repro/adversary_study.py --studies 10 --seed 2400 --methods nuts \
        --out docs/adversary_study/nuts_60items.csv
    python paper_repro/adversary_study.py --summarise docs/adversary_study/*_60items.csv
"""

import argparse
import csv
import os
import time
import warnings

import numpy as np

K = 3
MODELS = ("dawid_skene", "mace", "item_difficulty", "dawid_skene_c1", "dawid_skene_c2")
# "dawid_skene_c1" / "dawid_skene_c2": Dawid-Skene with DawidSkenePriors(concentration=1.0 / 2.0)
# (one / two pseudo-ratings per confusion row instead of the default 4, prior mean accuracy
# 0.75 kept), to measure the default prior's pull on the adversary.
WEAK_PRIORS = {"dawid_skene_c1": 1.0, "dawid_skene_c2": 2.0}
FIELDS = ("seed", "model", "method", "n_items", "n_raters", "seconds", "adv_acc_true",
          "adv_acc", "adv_lo", "adv_hi", "spam_acc_true", "spam_acc", "spam_lo", "spam_hi",
          "kappa_true", "kappa", "kappa_lo", "kappa_hi", "global_p", "rater_check_named",
          "adv_p", "adv_named", "spam_p", "spam_named")


def simulate(seed: int, n_items: int, n_raters: int, good_acc: float = 0.85
             ) -> tuple[np.ndarray, np.ndarray]:
    """``(codes (n_items, n_raters), truth)``: good raters, then the spammer, then the adversary."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, K, n_items)
    d = rng.normal(0.0, 1.0, n_items)
    p = 1.0 / (1.0 + np.exp(-(np.log(good_acc / (1 - good_acc)) - d)))
    n_good = n_raters - 2
    right = rng.random((n_items, n_good)) < p[:, None]
    wrong = (truth[:, None] + rng.integers(1, K, (n_items, n_good))) % K
    good = np.where(right, truth[:, None], wrong)
    spam = rng.integers(0, K, n_items)
    adv = np.where(rng.random(n_items) < 0.75, (truth + 1) % K, truth)
    return np.column_stack([good, spam, adv]).astype(np.int32), truth


def population_kappa(n_raters: int, n: int = 200_000) -> float:
    """Fleiss kappa of the generator's design on ``n`` items (the model kappa's target)."""
    codes, _ = simulate(123_456, n, n_raters)
    counts = np.stack([(codes == c).sum(1) for c in range(K)], 1).astype(float)
    m = n_raters
    po = ((counts * (counts - 1)).sum(1) / (m * (m - 1))).mean()
    pj = counts.sum(0) / counts.sum()
    pe = (pj ** 2).sum()
    return float((po - pe) / (1 - pe))


def one_fit(seed: int, model: str, method: str, n_items: int, n_raters: int, steps: int,
            kappa_true: float) -> dict:
    from softirr_stats.inference import NutsConfig, SviConfig, fit, rater_predictive_check
    from softirr_stats.models import DawidSkenePriors

    codes, _ = simulate(seed, n_items, n_raters)
    priors = None
    name = model
    if model in WEAK_PRIORS:
        name, priors = "dawid_skene", DawidSkenePriors(concentration=WEAK_PRIORS[model])
    cfg = (SviConfig(steps=steps, num_draws=500) if method == "svi"
           else NutsConfig(num_warmup=300, num_samples=300, num_chains=1))
    t0 = time.time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        post = fit(name, codes, method=method, seed=seed, config=cfg, priors=priors,
                   progress=False)
        acc = post.rater_accuracy(0.9)
        kap = np.asarray(post.kappa, float)
        gp = post.predictive_check(warn=False).p_value
        tab = rater_predictive_check(post, warn=False)
    named = [str(r) for r in tab.loc[tab["failed"], "rater"]]
    a, s = acc.iloc[n_raters - 1], acc.iloc[n_raters - 2]
    return {"seed": seed, "model": model, "method": method, "n_items": n_items,
            "n_raters": n_raters, "seconds": round(time.time() - t0, 1), "adv_acc_true": 0.25,
            "adv_acc": a["accuracy"], "adv_lo": a["lower_90%"], "adv_hi": a["upper_90%"],
            "spam_acc_true": 1 / 3, "spam_acc": s["accuracy"], "spam_lo": s["lower_90%"],
            "spam_hi": s["upper_90%"], "kappa_true": kappa_true, "kappa": float(kap.mean()),
            "kappa_lo": float(np.quantile(kap, 0.05)), "kappa_hi": float(np.quantile(kap, 0.95)),
            "global_p": gp, "rater_check_named": " ".join(named),
            "adv_p": float(tab["p_value"].iloc[n_raters - 1]),
            "adv_named": bool(tab["failed"].iloc[n_raters - 1]),
            "spam_p": float(tab["p_value"].iloc[n_raters - 2]),
            "spam_named": bool(tab["failed"].iloc[n_raters - 2])}


def _rate(x) -> str:
    """``share ± MC SE`` of a boolean series."""
    n, p = len(x), float(np.mean(x))
    return f"{p:.2f} ± {(p * (1 - p) / n) ** .5:.2f}"


def _mean(x) -> str:
    """``mean ± MC SE`` of a series."""
    x = np.asarray(x, float)
    return f"{x.mean():+.3f} ± {x.std(ddof=1) / len(x) ** .5:.3f}" if len(x) > 1 else f"{x.mean():+.3f}"


def summarise(paths: list) -> None:
    """Markdown table per model x method: bias and 90% coverage of the adversary's and the
    spammer's accuracy and of kappa, the global check's firing rate and how often the
    per-rater check names the adversary / the spammer / a good rater (MC SEs)."""
    import pandas as pd

    df = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    for col in ("spam_named", "adv_named"):
        if col not in df:
            df[col] = np.nan
    rows = []
    for (model, method), g in df.groupby(["model", "method"]):
        n = len(g)
        n_r = g.n_raters.iloc[0]
        good = g.rater_check_named.fillna("").astype(str).map(
            lambda s, n_r=n_r: any(int(float(r)) < n_r - 2 for r in s.split()))
        cov = {k: (g[f"{k}_lo"] <= g[f"{k}_acc_true"]) & (g[f"{k}_acc_true"] <= g[f"{k}_hi"])
               for k in ("adv", "spam")}
        cov_k = (g.kappa_lo <= g.kappa_true) & (g.kappa_true <= g.kappa_hi)
        fires = (g.global_p <= 0.01) | (g.global_p >= 0.99)
        rows.append({"model": model, "method": method, "fits": n,
                     "adv_acc_bias": _mean(g.adv_acc - g.adv_acc_true),
                     "adv_cover90": _rate(cov["adv"]),
                     "spam_acc_bias": _mean(g.spam_acc - g.spam_acc_true),
                     "spam_cover90": _rate(cov["spam"]),
                     "kappa_bias": _mean(g.kappa - g.kappa_true),
                     "kappa_cover90": _rate(cov_k),
                     "global_check_fires": _rate(fires),
                     "names_adversary": _rate(g.adv_named.astype(str) == "True"),
                     "names_spammer": (_rate(g.spam_named.astype(str) == "True")
                                       if g.spam_named.notna().all() else "-"),
                     "names_a_good_rater": _rate(good),
                     "median_s": f"{g.seconds.median():.0f}"})
    cols = list(rows[0])
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for r in rows:
        print("| " + " | ".join(str(r[c]) for c in cols) + " |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=4)
    ap.add_argument("--seed", type=int, default=2300)
    ap.add_argument("--items", type=int, default=60)
    ap.add_argument("--raters", type=int, default=5)
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    ap.add_argument("--methods", nargs="+", default=["svi"], choices=["svi", "nuts"])
    ap.add_argument("--out", default="adversary.csv")
    ap.add_argument("--budget-s", type=float, default=float("inf"),
                    help="stop starting new fits after this many seconds")
    ap.add_argument("--summarise", nargs="+", default=None,
                    help="print the table of one or more results CSVs")
    args = ap.parse_args()
    if args.summarise:
        summarise(args.summarise)
        return
    done = set()
    if os.path.exists(args.out):
        with open(args.out) as fh:
            done = {(int(r["seed"]), r["model"], r["method"]) for r in csv.DictReader(fh)}
    kappa_true = population_kappa(args.raters)
    t0 = time.time()
    for seed in range(args.seed, args.seed + args.studies):
        for method in args.methods:
            for model in args.models:
                if (seed, model, method) in done:
                    continue
                if time.time() - t0 > args.budget_s:
                    print("budget spent; rerun with the same --out to resume")
                    return
                row = one_fit(seed, model, method, args.items, args.raters, args.steps,
                              kappa_true)
                new = not os.path.exists(args.out)
                with open(args.out, "a", newline="") as fh:
                    w = csv.DictWriter(fh, fieldnames=FIELDS)
                    if new:
                        w.writeheader()
                    w.writerow(row)
                print({k: row[k] for k in ("seed", "model", "method", "adv_acc", "kappa",
                                           "adv_named", "seconds")}, flush=True)


if __name__ == "__main__":
    main()
