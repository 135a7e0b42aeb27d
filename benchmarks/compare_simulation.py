"""Size, coverage and power of ``softirr_stats.compare`` and ``replacement_test`` in simulation (docs/comparing.md).

Cells (each study is one simulated data set; seeds fixed per cell and study):

- ``measures``: two similarities on the same data. 4 labels {a1, a2, b1, b2}; measure A gives
  partial credit 0.5 to (a1, a2), measure B to (b1, b2). The generator is symmetric under
  swapping the a and b labels, so the two population coefficients (soft Fleiss' kappa) are
  equal while the two estimates differ and are correlated: H0 holds. Paired bootstrap of
  ``compare(fleiss_kappa(sim=A), fleiss_kappa(sim=B))``.
- ``groups``: two groups of 3 raters drawn from one pool (exchangeable) on the same items: H0.
  ``groups_alt``: group B's raters are noisier; the true difference comes from one data set of
  200,000 items (coverage and power).
- designs ``items`` (independent items) and ``cluster`` (clusters of 5 items sharing a
  difficulty; the cluster bootstrap); 30, 100 and 300 items.
- ``replacement``: the alternative annotator test on the authors' generator (label priors from
  Dirichlet(1), 4 categories, noise 0.3 for humans), 3 to 6 humans, 100 items, epsilon 0 and 0.1;
  a candidate distributed like a human (``same``), noisier (``worse``, noise 0.6) or better
  (``better``, noise 0.1).

Rows are appended to ``--out`` as they finish; a rerun skips the studies already there
(resumable). ``--budget-minutes`` stops starting new studies after that long; ``--studies`` is
the target per cell (the issue's 2,000 by default).

    nice -n 10 python benchmarks/compare_simulation.py --studies 2000 --out benchmarks/compare_simulation.csv
    python benchmarks/compare_simulation.py --summary --out benchmarks/compare_simulation.csv
"""

import argparse
import csv
import os
import time
import warnings

import numpy as np

import softirr_stats as sis

K = 4
S_A = np.eye(K)
S_A[0, 1] = S_A[1, 0] = 0.5
S_B = np.eye(K)
S_B[2, 3] = S_B[3, 2] = 0.5
FIELDS = ["cell", "design", "n_items", "param", "study", "estimate", "truth", "ci_low", "ci_high", "p_value", "extra"]
CLUSTER_SIZE = 5


def _ratings(rng: np.random.Generator, n: int, raters: int, p_correct: np.ndarray, swap: float) -> np.ndarray:
    """Labels: the true class with probability p_correct (per item), else the pair partner with prob. swap, else uniform."""
    truth = rng.integers(0, K, n)
    partner = truth ^ 1  # a1 <-> a2, b1 <-> b2: symmetric under a <-> b
    u = rng.random((n, raters))
    rand = rng.integers(0, K, (n, raters))
    pc = p_correct[:, None]
    return np.where(u < pc, truth[:, None], np.where(u < pc + (1 - pc) * swap, partner[:, None], rand))


def _difficulty(rng: np.random.Generator, n: int, design: str, base: float) -> np.ndarray:
    if design == "cluster":
        per_cluster = np.clip(base + rng.normal(0, 0.15, -(-n // CLUSTER_SIZE)), 0.05, 0.95)
        return np.repeat(per_cluster, CLUSTER_SIZE)[:n]
    return np.full(n, base)


def _ci(design: str, n: int, n_boot: int, seed: int) -> sis.Bootstrap:
    if design == "cluster":
        return sis.Bootstrap(n=n_boot, design="cluster", cluster=[i // CLUSTER_SIZE for i in range(n)], seed=seed)
    return sis.Bootstrap(n=n_boot, seed=seed)


def study_measures(seed: int, design: str, n: int, n_boot: int) -> dict:
    rng = np.random.default_rng([1, seed, n, design == "cluster"])
    codes = _ratings(rng, n, 3, _difficulty(rng, n, design, 0.6), 0.5)
    ci = _ci(design, n, n_boot, seed)
    a = sis.fleiss_kappa(codes.tolist(), similarity=S_A)
    b = sis.fleiss_kappa(codes.tolist(), similarity=S_B)
    r = sis.compare(a, b, ci=ci)
    return {"estimate": r.difference, "truth": 0.0, "ci_low": r.ci_low, "ci_high": r.ci_high, "p_value": r.p_value}


_TRUTH: dict = {}


def _group_truth(design: str, noise_b: float) -> float:
    key = (design, noise_b)
    if key not in _TRUTH:
        rng = np.random.default_rng([9, int(noise_b * 100), design == "cluster"])
        n = 200_000
        diff = _difficulty(rng, n, design, 0.6)
        truth = rng.integers(0, K, n)
        codes = np.column_stack([_noisy(rng, truth, diff) for _ in range(3)]
                                + [_noisy(rng, truth, diff * noise_b) for _ in range(3)])
        a = sis.fleiss_kappa(codes[:, :3].tolist()).value
        b = sis.fleiss_kappa(codes[:, 3:].tolist()).value
        _TRUTH[key] = a - b
    return _TRUTH[key]


def _noisy(rng: np.random.Generator, truth: np.ndarray, p_correct: np.ndarray) -> np.ndarray:
    u = rng.random(truth.size)
    return np.where(u < p_correct, truth, rng.integers(0, K, truth.size))


def study_groups(seed: int, design: str, n: int, n_boot: int, noise_b: float) -> dict:
    rng = np.random.default_rng([2, seed, n, design == "cluster", int(noise_b * 100)])
    diff = _difficulty(rng, n, design, 0.6)
    truth = rng.integers(0, K, n)
    codes = np.column_stack([_noisy(rng, truth, diff) for _ in range(3)]
                            + [_noisy(rng, truth, diff * noise_b) for _ in range(3)])
    ci = _ci(design, n, n_boot, seed)
    r = sis.compare_groups(codes.tolist(), [0, 1, 2], [3, 4, 5], ci=ci)
    true = 0.0 if noise_b == 1.0 else _group_truth(design, noise_b)
    return {"estimate": r.difference, "truth": true, "ci_low": r.ci_low, "ci_high": r.ci_high, "p_value": r.p_value}


def study_replacement(seed: int, n_humans: int, n: int, candidate: str, epsilon: float) -> dict:
    """The authors' generator: priors ~ Dirichlet(1); label = gold w.p. 1 - noise, else from the priors."""
    rng = np.random.default_rng([3, seed, n_humans, n, ["same", "worse", "better"].index(candidate),
                                 int(epsilon * 100)])
    priors = rng.dirichlet(np.ones(K))
    gold = rng.choice(K, size=n, p=priors)

    def annotate(noise: float) -> np.ndarray:
        probs = priors[None, :] * noise + (1 - noise) * np.eye(K)[gold]
        cum = probs.cumsum(axis=1)
        return (rng.random(n)[:, None] > cum).sum(axis=1).clip(0, K - 1)

    noise_c = {"same": 0.3, "worse": 0.6, "better": 0.1}[candidate]
    codes = np.column_stack([annotate(0.3) for _ in range(n_humans)] + [annotate(noise_c)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = sis.replacement_test(codes.tolist(), candidate=n_humans, epsilon=epsilon, min_items_per_human=1)
    frac = float(r.by_human["candidate_wins"].mean())
    return {"estimate": r.omega, "truth": float("nan"), "ci_low": float("nan"), "ci_high": float("nan"),
            "p_value": float(r.by_human["p_value"].min()), "extra": f"{int(r.passed)}:{frac:.6f}:{r.rho:.6f}"}


def cells(n_boot: int) -> list:
    out = []
    for design in ("items", "cluster"):
        for n in (30, 100, 300):
            out.append(("measures", design, n, 0.0, lambda s, d=design, m=n: study_measures(s, d, m, n_boot)))
            out.append(("groups", design, n, 1.0, lambda s, d=design, m=n: study_groups(s, d, m, n_boot, 1.0)))
            out.append(("groups_alt", design, n, 0.7, lambda s, d=design, m=n: study_groups(s, d, m, n_boot, 0.7)))
    for h in (3, 4, 5, 6):
        for cand in ("same", "worse", "better"):
            for eps in (0.0, 0.1):
                out.append((f"replacement_{cand}", f"humans={h}", 100, eps,
                            lambda s, h=h, c=cand, e=eps: study_replacement(s, h, 100, c, e)))
    return out


def _done(path: str) -> set:
    if not os.path.exists(path):
        return set()
    with open(path, newline="") as f:
        return {(r["cell"], r["design"], int(r["n_items"]), float(r["param"]), int(r["study"])) for r in csv.DictReader(f)}


def summary(path: str) -> None:
    import pandas as pd

    df = pd.read_csv(path)
    boot = df[~df.cell.str.startswith("replacement")].copy()
    boot["covered"] = (boot.ci_low <= boot.truth) & (boot.truth <= boot.ci_high)
    boot["reject"] = boot.p_value < 0.05
    g = boot.groupby(["cell", "design", "n_items"], sort=False)
    out = g.agg(studies=("study", "size"), reject=("reject", "mean"), coverage=("covered", "mean"),
                truth=("truth", "first")).reset_index()
    out["reject_mcse"] = np.sqrt(out.reject * (1 - out.reject) / out.studies)
    out["coverage_mcse"] = np.sqrt(out.coverage * (1 - out.coverage) / out.studies)
    print(out.to_string(index=False, float_format=lambda x: f"{x:.4f}"))
    rep = df[df.cell.str.startswith("replacement")].copy()
    if len(rep):
        parts = rep.extra.str.split(":", expand=True).astype(float)
        rep["passed"], rep["human_reject"] = parts[0], parts[1]
        g = rep.groupby(["cell", "design", "param"], sort=False)
        r = g.agg(studies=("study", "size"), pass_rate=("passed", "mean"),
                  per_human_reject=("human_reject", "mean")).reset_index()
        r["pass_mcse"] = np.sqrt(r.pass_rate * (1 - r.pass_rate) / r.studies)
        print(r.to_string(index=False, float_format=lambda x: f"{x:.4f}"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=2000, help="target studies per cell")
    ap.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates per study")
    ap.add_argument("--budget-minutes", type=float, default=float("inf"), help="stop starting studies after this")
    ap.add_argument("--out", default="benchmarks/compare_simulation.csv")
    ap.add_argument("--summary", action="store_true", help="only print the summary of --out")
    a = ap.parse_args()
    if a.summary:
        summary(a.out)
        return
    done = _done(a.out)
    new = not os.path.exists(a.out)
    t0 = time.perf_counter()
    todo = cells(a.bootstrap)
    warnings.simplefilter("ignore")
    with open(a.out, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        # round-robin over cells, so a stopped run has an even number of studies in every cell
        for s in range(a.studies):
            for cell, design, n, param, fn in todo:
                if (cell, design, n, float(param), s) in done:
                    continue
                if time.perf_counter() - t0 > a.budget_minutes * 60:
                    print(f"budget reached at study {s}")
                    return
                row = fn(s)
                w.writerow({"cell": cell, "design": design, "n_items": n, "param": param, "study": s,
                            "extra": row.pop("extra", ""), **row})
            f.flush()


if __name__ == "__main__":
    main()
