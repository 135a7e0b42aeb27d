"""Validation of softirr_stats.plan_items by simulation (docs/planning.md, "Validation").

For each coefficient family and design, plan the number of items for a 95% interval half-width of
0.1 and for 80% power against H0: coefficient <= value - 0.15 (one-sided 5%), then simulate
``--studies`` studies of the planned size from the same population and record the mean
half-width (``t * SE``, the SE of each study from its own linearised influence values) and the
rejection rate of the Wald test. Studies are weights over one prepared population, so every
study of a cell is evaluated in one batched call.

Designs simulated:
- ``items``: assumed values (the enumerated population of rating profiles; studies draw items
  from it); prevalences 0.2 / 0.3 / 0.5, and skewed cells (Fleiss' kappa, two categories at
  0.1 / 0.9; null 0.45 as the others, and 0.4);
- ``cluster``: a population of 400 clusters of 5 items, each cluster with its own category
  prevalences; the plan comes from the whole population as pilot (cluster bootstrap) and studies
  draw clusters with replacement (SE from cluster-level influence values);
- ``items+raters``: 300 items and a pool of 12 raters of unequal accuracy (0.6 to 0.85); the plan comes from the
  whole population as pilot (item, rater and two-way bootstraps) for studies of 8 raters, and each
  simulated study draws items and raters with replacement, its SE from a 100-replicate two-way
  bootstrap (``--two-way-studies`` studies per target: these cost most).

The Wald test uses Student t critical values with the interval's degrees of freedom (items - 1,
clusters - 1), the normal one for ``items+raters``, as the plan does.

Resumable: rows are appended to ``--out`` and cells already there are skipped. Seeds are fixed.

    nice -n 10 python benchmarks/plan_validation.py --studies 1000 --out benchmarks/plan_validation.csv
"""

import argparse
import csv
import math
import time
import warnings
from pathlib import Path

import numpy as np
from scipy.special import ndtri, stdtrit

from softirr_stats.api._coefficients import estimate_point
from softirr_stats.planning import build_population, plan_items

PREV = [0.2, 0.3, 0.5]
VALUE = 0.6
HALFWIDTH = 0.1
NULL_GAP = 0.15
SOFT = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 1.0]])
ITEM_CELLS = [  # (cell, coefficient, raters, options)
    ("cohen_kappa", "cohen_kappa", 2, {}),
    ("fleiss_kappa", "fleiss_kappa", 3, {}),
    ("krippendorff_alpha", "krippendorff_alpha", 3, {}),
    ("gwet_ac1", "gwet_ac1", 3, {}),
    ("brennan_prediger", "brennan_prediger", 3, {}),
    ("percent_agreement", "percent_agreement", 3, {}),
    ("soft_fleiss_kappa", "fleiss_kappa", 3, {"similarity": SOFT}),
    ("conger_kappa", "conger_kappa", 3, {}),
]
#: skewed prevalence (two categories, 0.1 / 0.9): (cell, coefficient, raters, options, prevalence, null gap); run
#: after the other cells, so that their seeds stay those of the table
SKEWED_CELLS = [("fleiss_kappa_skewed", "fleiss_kappa", 3, {}, [0.1, 0.9], NULL_GAP),
                ("fleiss_kappa_skewed_null_0.4", "fleiss_kappa", 3, {}, [0.1, 0.9], 0.2)]
CLUSTER_CELLS = [("cohen_kappa", "cohen_kappa", 2), ("fleiss_kappa", "fleiss_kappa", 3)]
TWO_WAY_CELLS = [("fleiss_kappa", "fleiss_kappa"), ("krippendorff_alpha", "krippendorff_alpha")]
FIELDS = ["cell", "design", "target", "planned_n", "planned_clusters", "studies", "target_value", "mean_halfwidth",
          "halfwidth_mc_se", "planned_power", "simulated_power", "power_mc_se", "seconds"]
STEP = 1e-6


def _se_items(prep, counts: np.ndarray, chunk: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """Values and linearised SEs of studies given as profile counts (S, P): forward differences."""
    s, p = counts.shape
    values = np.asarray(prep.evaluate(counts)["value"])
    var = np.empty(s)
    for a in range(0, s, chunk):
        c = counts[a:a + chunk]
        m = len(c)
        n = c.sum(axis=1, keepdims=True)
        rows = np.repeat(c, p, axis=0) + np.tile(np.eye(p), (m, 1)) * np.repeat(n * STEP, p, axis=0)
        v = np.asarray(prep.evaluate(rows)["value"]).reshape(m, p)
        infl = (v - values[a:a + m, None]) / STEP
        w = c / n
        mean = (w * infl).sum(axis=1, keepdims=True)
        var[a:a + m] = (w * (infl - mean) ** 2).sum(axis=1) / (n[:, 0] - 1.0)
    return values, np.sqrt(var)


def _summary(values, se, q, null, crit):
    """Half-widths ``q * se`` and the rejections of the Wald test ``(value - null) / se > crit``."""
    hw = q * se
    rej = (values - null) / se > crit
    return hw, rej


def run_items(cell, coef, raters, options, studies, rng, prev=PREV, null_gap=NULL_GAP):
    pop = build_population(prev, raters)
    opts = {**options, "categories": list(range(len(prev)))}
    plan = plan_items(coef, halfwidth=HALFWIDTH, power=dict(null=VALUE - null_gap, power=0.8),
                      assumed=dict(value=VALUE, prevalence=prev, raters=raters), options=opts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, prep = estimate_point(coef, pop.rows, **opts)
    probs = pop.probabilities(plan.components["agreement_parameter"])
    rows = []
    for _, r in plan.grid.iterrows():
        n = int(r["n_items"])
        counts = rng.multinomial(n, probs, size=studies).astype(float)
        values, se = _se_items(prep, counts)
        ok = np.isfinite(se) & (se > 0)
        q = float(stdtrit(n - 1, 0.975))
        hw, rej = _summary(values[ok], se[ok], q, VALUE - null_gap, float(stdtrit(n - 1, 0.95)))
        rows.append(_row(cell, "items", r, n, None, int(ok.sum()), hw, rej))
    return rows


def _row(cell, design, r, n, clusters, studies, hw, rej):
    is_hw = r["target"] == "halfwidth"
    return {"cell": cell, "design": design, "target": r["target"], "planned_n": n, "planned_clusters": clusters,
            "studies": studies, "target_value": r["halfwidth"] if is_hw else r["power"],
            "mean_halfwidth": float(hw.mean()) if is_hw else "", "halfwidth_mc_se":
            float(hw.std(ddof=1) / math.sqrt(len(hw))) if is_hw else "",
            "planned_power": "" if is_hw else float(r["power_at_n"]),
            "simulated_power": "" if is_hw else float(rej.mean()),
            "power_mc_se": "" if is_hw else float(math.sqrt(rej.mean() * (1 - rej.mean()) / len(rej)))}


def _cluster_population(raters, rng, n_clusters=400, size=5):
    """Clusters with their own prevalences (Dirichlet around PREV), items rated as a Dirichlet-multinomial."""
    p = np.asarray(PREV)
    k = len(p)
    prev_c = rng.dirichlet(20 * p, size=n_clusters)  # (Nc, K)
    prev_i = np.repeat(prev_c, size, axis=0)  # (N, K)
    theta = np.array([rng.dirichlet(q * (1 - VALUE) / VALUE) for q in prev_i])
    u = rng.random((len(theta), raters))
    cdf = np.cumsum(theta, axis=1)
    labels = (u[:, :, None] > cdf[:, None, :]).sum(axis=2).clip(0, k - 1)
    return labels, np.repeat(np.arange(n_clusters), size)


def run_cluster(cell, coef, raters, studies, rng):
    labels, cl = _cluster_population(raters, rng)
    n_c_pop = int(cl.max()) + 1
    size = len(cl) // n_c_pop
    opts = {"categories": [0, 1, 2]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res, prep = estimate_point(coef, labels, **opts)
        plan = plan_items(coef, halfwidth=HALFWIDTH, power=dict(null=res.value - NULL_GAP, power=0.8),
                          pilot=labels, design="cluster", cluster=list(cl), options=opts, bootstrap=2000)
    null = res.value - NULL_GAP
    member = (cl[None, :] == np.arange(n_c_pop)[:, None]).astype(float)  # (Nc, N)
    rows = []
    for _, r in plan.grid.iterrows():
        n_c = int(r["n_clusters"])
        counts = rng.multinomial(n_c, np.full(n_c_pop, 1.0 / n_c_pop), size=studies).astype(float)  # (S, Nc)
        values = np.empty(studies)
        se = np.empty(studies)
        for a in range(0, studies, 10):
            cc = counts[a:a + 10]
            m = len(cc)
            C = cc @ member  # item weights
            base = np.asarray(prep.evaluate(C)["value"])
            h = n_c * size * STEP / size  # per item of the cluster: the cluster's mass grows by STEP of the total
            rows_ = np.repeat(C, n_c_pop, axis=0) + np.tile(member, (m, 1)) * h
            v = np.asarray(prep.evaluate(rows_)["value"]).reshape(m, n_c_pop)
            infl = (v - base[:, None]) / STEP
            w = cc / n_c
            mean = (w * infl).sum(axis=1, keepdims=True)
            values[a:a + m] = base
            se[a:a + m] = np.sqrt((w * (infl - mean) ** 2).sum(axis=1) / (n_c - 1.0))
        q = float(stdtrit(n_c - 1, 0.975))
        hw, rej = _summary(values, se, q, null, float(stdtrit(n_c - 1, 0.95)))
        rows.append(_row(cell, "cluster", r, int(r["n_items"]), n_c, studies, hw, rej))
    return rows


def _two_way_population(rng, n_items=300, pool=12):
    """Items with a true class (prevalences PREV), a pool of raters of unequal accuracy (0.6 to 0.85)."""
    truth = rng.choice(3, size=n_items, p=PREV)
    acc = rng.uniform(0.6, 0.85, size=pool)
    noise = rng.choice(3, size=(n_items, pool), p=PREV)
    return np.where(rng.random((n_items, pool)) < acc, truth[:, None], noise)


def run_two_way(cell, coef, studies, rng, raters=8, boot=100, chunk=10):
    labels = _two_way_population(rng)
    n_pop, pool = labels.shape
    opts = {"categories": [0, 1, 2]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res, prep = estimate_point(coef, labels, **opts)
        plan = plan_items(coef, halfwidth=HALFWIDTH, power=dict(null=res.value - NULL_GAP, power=0.8),
                          pilot=labels, design="items+raters", raters=raters, options=opts, bootstrap=2000)
    null = res.value - NULL_GAP
    z_a = float(ndtri(0.95))
    rows = []
    for _, r in plan.grid.iterrows():
        n = int(r["n_items"])
        C = rng.multinomial(n, np.full(n_pop, 1.0 / n_pop), size=studies).astype(float)
        V = rng.multinomial(raters, np.full(pool, 1.0 / pool), size=studies).astype(float)
        values = np.asarray(prep.evaluate(C, V)["value"])
        se = np.empty(studies)
        for a in range(0, studies, chunk):
            m = min(chunk, studies - a)
            cb = np.concatenate([rng.multinomial(n, C[a + j] / n, size=boot) for j in range(m)]).astype(float)
            vb = np.concatenate([rng.multinomial(raters, V[a + j] / raters, size=boot) for j in range(m)]).astype(float)
            reps = np.asarray(prep.evaluate(cb, vb)["value"]).reshape(m, boot)
            se[a:a + m] = np.nanstd(reps, axis=1, ddof=1)
        ok = np.isfinite(values) & np.isfinite(se) & (se > 0)
        hw, rej = _summary(values[ok], se[ok], float(ndtri(0.975)), null, z_a)
        rows.append(_row(cell, "items+raters", r, n, None, int(ok.sum()), hw, rej))
    return rows


def table(path: Path) -> str:
    """The docs table (docs/planning.md) from the rows of ``path``."""
    with path.open() as f:
        rows = list(csv.DictReader(f))
    by = {}
    for r in rows:
        by.setdefault((r["design"], r["cell"]), {})[r["target"]] = r
    out = ["| design | coefficient | n (half-width 0.1) | studies | mean half-width (MC SE) | within 10% | "
           "n (power 0.8) | studies | simulated power (MC SE) | planned | within 3 points |",
           "| --- | --- | --: | --: | --: | :-: | --: | --: | --: | --: | :-: |"]
    for (design, cell), t in by.items():
        h, p = t.get("halfwidth"), t.get("power")
        hw = float(h["mean_halfwidth"])
        sp, pp = float(p["simulated_power"]), float(p["planned_power"])
        out.append(f"| {design} | {cell} | {h['planned_n']} | {h['studies']} | {hw:.4f} ({float(h['halfwidth_mc_se']):.4f})"
                   f" | {'yes' if abs(hw / 0.1 - 1) <= 0.1 else 'no'} | {p['planned_n']} | {p['studies']} | "
                   f"{sp:.3f} ({float(p['power_mc_se']):.3f}) | {pp:.3f} | {'yes' if abs(sp - pp) <= 0.03 else 'no'} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--table", action="store_true", help="print the docs table from --out and exit")
    ap.add_argument("--studies", type=int, default=1000, help="simulated studies per cell and target")
    ap.add_argument("--out", type=Path, default=Path("benchmarks/plan_validation.csv"))
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--two-way-studies", type=int, default=400,
                    help="studies per target of the items+raters cells (each with a 100-replicate two-way bootstrap)")
    args = ap.parse_args()
    if args.table:
        print(table(args.out))
        return
    done = set()
    if args.out.exists():
        with args.out.open() as f:
            done = {(r["cell"], r["design"]) for r in csv.DictReader(f)}
    new = not args.out.exists()
    with args.out.open("a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        jobs = ([("items", c) for c in ITEM_CELLS] + [("cluster", c) for c in CLUSTER_CELLS]
                + [("items+raters", c) for c in TWO_WAY_CELLS] + [("items", c) for c in SKEWED_CELLS])
        for i, (design, spec) in enumerate(jobs):
            if (spec[0], design) in done:
                continue
            rng = np.random.default_rng([args.seed, i])
            t = time.time()
            if design == "items":
                rows = run_items(*spec[:4], args.studies, rng, *spec[4:])  # a skewed cell: prevalence, null gap
            elif design == "cluster":
                rows = run_cluster(*spec, args.studies, rng)
            else:
                rows = run_two_way(*spec, args.two_way_studies, rng)
            for r in rows:
                r["seconds"] = round(time.time() - t, 1)
                w.writerow(r)
            f.flush()
            print(design, spec[0], [(r["target"], r["planned_n"], r["mean_halfwidth"] or r["simulated_power"])
                                    for r in rows], flush=True)


if __name__ == "__main__":
    main()
