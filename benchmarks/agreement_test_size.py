"""Size of the tests of "no agreement" under independent raters (issue 34, tests of agreement).

Each study: ``--items`` items, 5 raters, 4 categories, each rating missing at random with probability
0.1. Raters label independently of one another (no agreement beyond chance):

``unequal``
    every rater has its own label distribution (fixed below); the population Fleiss' kappa and alpha
    are then *negative* (pooled chance exceeds the chance agreement of raters who differ), so a test of
    "coefficient = 0" rejects on negative values although there is no agreement beyond chance.
``opposed``
    as ``unequal`` with raters who favour different categories (0.7 on a category of their own);
    the population coefficients are clearly negative.
``exchangeable``
    every rater has the same label distribution (the mean of ``unequal``'s); the population
    coefficients are 0.

Tests compared on the same studies (5% level):

``analytic``
    ``ci="analytic"``'s ``p_value``: two-sided test of H0: coefficient = 0 (Fleiss-Nee-Landis / irrCAC).
``analytic_greater``
    its one-sided version, H1: coefficient > 0 (``details["p_value_greater"]``).
``permutation``
    ``sis.permutation_test`` (each rater's labels permuted over its items; two-sided; B = 199), run on the first
    ``--perm-studies`` studies of each cell (it costs B evaluations per study).
``permutation_greater``
    the permutation test's one-sided p-value (H1: more agreement than under independence).

Coefficients: Fleiss' kappa and Krippendorff's alpha, hard (exact match) and soft (a similarity matrix
giving 0.6 credit between categories 0 and 1).

Run::

    python benchmarks/agreement_test_size.py --studies 1000 --perm-studies 200 --out docs/coverage_results/test_size

Resumable: per-study rows are appended to ``test_size_studies.csv.gz``; studies already there are skipped.
"""

from __future__ import annotations

import argparse
import math
import os
import time
import warnings

import numpy as np
import pandas as pd

import softirr_stats as sis
from softirr_stats.data import Annotations

K = 4
MARGINS = np.array([[0.55, 0.25, 0.15, 0.05], [0.25, 0.45, 0.20, 0.10], [0.10, 0.20, 0.30, 0.40],
                    [0.40, 0.10, 0.40, 0.10], [0.30, 0.30, 0.20, 0.20]])
OPPOSED = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], [0.1, 0.1, 0.7, 0.1], [0.1, 0.1, 0.1, 0.7],
                    [0.4, 0.4, 0.1, 0.1]])
SCENARIOS = ("unequal", "opposed", "exchangeable")
SOFT = np.eye(K)
SOFT[0, 1] = SOFT[1, 0] = 0.6
MISSING = 0.1
CELLS = [(scenario, coef, soft) for scenario in SCENARIOS
         for coef in ("fleiss_kappa", "krippendorff_alpha") for soft in (False, True)]


def margins(scenario: str) -> np.ndarray:
    if scenario == "opposed":
        return OPPOSED
    return MARGINS if scenario == "unequal" else np.repeat(MARGINS.mean(axis=0, keepdims=True), len(MARGINS), 0)


def simulate(rng: np.random.Generator, n: int, m: np.ndarray) -> np.ndarray:
    cum = np.cumsum(m, axis=1)  # (R, K)
    lab = (rng.random((n, len(m), 1)) > cum[None]).sum(axis=2)
    lab[rng.random(lab.shape) < MISSING] = -1
    return lab.astype(np.int32)


def population(coef: str, m: np.ndarray, sim: np.ndarray) -> float:
    """Large-sample value under independence (complete data; MCAR missingness does not change it)."""
    r = len(m)
    pair = m @ sim @ m.T
    po = (pair.sum() - np.trace(pair)) / (r * (r - 1))
    q = m.mean(axis=0)
    pe = q @ sim @ q
    return float((po - pe) / (1 - pe))


def one_study(lab: np.ndarray, coef: str, soft: bool, perm_n: int, seed: int) -> dict:
    ann = Annotations(lab, list(range(K)), kind="numeric")
    fn = getattr(sis, coef)
    sim = SOFT if soft else None
    a = fn(ann, similarity=sim, ci="analytic")
    row = {"estimate": a.value, "p_analytic": a.p_value, "p_analytic_greater": a.details.get("p_value_greater", math.nan),
           "p_permutation": math.nan, "p_permutation_greater": math.nan}
    if perm_n:
        p = sis.permutation_test(coef, ann, n=perm_n, seed=seed, similarity=sim)
        row["p_permutation"] = p.p_value
        row["p_permutation_greater"] = p.details.get("p_value_greater", math.nan)
    return row


def summarise(df: pd.DataFrame, level: float = 0.05) -> pd.DataFrame:
    out = []
    for key, g in df.groupby(["scenario", "coefficient", "soft", "n_items"], sort=True):
        row = dict(zip(["scenario", "coefficient", "soft", "n_items"], key, strict=True))
        row["population"] = g["population"].iloc[0]
        row["mean_estimate"] = g["estimate"].mean()
        for t in ("analytic", "analytic_greater", "permutation", "permutation_greater"):
            p = g[f"p_{t}"].dropna()
            rej = float((p < level).mean()) if len(p) else math.nan
            row[f"{t}_studies"] = len(p)
            row[f"{t}_rejects"] = rej
            row[f"{t}_mc_se"] = math.sqrt(rej * (1 - rej) / len(p)) if len(p) else math.nan
        out.append(row)
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--perm-studies", type=int, default=200, help="studies per cell that also run the permutation test")
    ap.add_argument("--permutations", type=int, default=199)
    ap.add_argument("--items", type=int, nargs="+", default=[100])
    ap.add_argument("--seed", type=int, default=3434)
    ap.add_argument("--budget", type=float, default=math.inf, help="stop after this many seconds (rerun to resume)")
    ap.add_argument("--out", default="docs/coverage_results/test_size")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "test_size_studies.csv.gz")
    done = set()
    if os.path.exists(path):
        old = pd.read_csv(path)
        done = set(zip(old["scenario"], old["coefficient"], old["soft"], old["n_items"], old["study"], strict=True))
    t0 = time.perf_counter()
    for n in args.items:
        for ci, (scenario, coef, soft) in enumerate(CELLS):
            m = margins(scenario)
            truth = population(coef, m, SOFT if soft else np.eye(K))
            rows = []
            for s in range(args.studies):
                if (scenario, coef, soft, n, s) in done:
                    continue
                if time.perf_counter() - t0 > args.budget:
                    break
                lab = simulate(np.random.default_rng([args.seed, ci // 4, n, s]), n, m)  # same data for the 4 tests
                perm = args.permutations if s < args.perm_studies else 0
                rows.append({"scenario": scenario, "coefficient": coef, "soft": soft, "n_items": n, "study": s,
                             "population": truth, **one_study(lab, coef, soft, perm, s)})
                if len(rows) == 100:
                    pd.DataFrame(rows).to_csv(path, mode="a", header=not os.path.exists(path), index=False)
                    rows = []
            if rows:
                pd.DataFrame(rows).to_csv(path, mode="a", header=not os.path.exists(path), index=False)
            print(f"{scenario:12s} {coef:18s} soft={soft!s:5s} n={n}: {time.perf_counter() - t0:6.0f} s", flush=True)
    summary = summarise(pd.read_csv(path))
    summary.to_csv(os.path.join(args.out, "summary.csv"), index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(summary.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
