"""Coverage study: empirical coverage of 95% agreement intervals under latent-class annotators.

Model (docs/formulas/annotator_models.md): item ``i`` has a true class ``c_i ~ Cat(prevalence)``; rater ``j``
reports ``c_i`` with probability ``acc_j`` and otherwise a uniformly random class (which may
be ``c_i`` again), so ``R_j(k | c) = acc_j 1[k = c] + (1 - acc_j) / K``.

Population values (docs/formulas/annotator_models.md, complete design, uniform pair weights):

    P_o = mean_{j != j'} sum_c pi_c sum_k R_j(k|c) R_j'(k|c)
    q_bar(k) = mean_j sum_c pi_c R_j(k|c),  P_e = sum_k q_bar(k)^2
    kappa = (P_o - P_e) / (1 - P_e)

This is the large-sample limit of both Fleiss' kappa and Krippendorff's alpha (nominal) for a
fixed set of raters (alpha's n/(n-1) correction vanishes). Two scenarios:

``fixed``
    Four fixed raters (accuracies 0.5, 0.6, 0.7, 0.8); the estimand is kappa for these raters,
    so only item sampling matters: the ``items`` and ``bayesian`` designs should cover.
``rater_population``
    Each study draws 10 raters with ``acc ~ Uniform(0.3, 0.9)`` from a population; the
    estimand is the population-of-raters kappa. ``R_j`` is linear in ``acc_j``, so for two
    independent raters ``E[R_j R_j'] = R_mu R_mu`` and the estimand is the ``fixed`` formula
    with every accuracy equal to the mean ``mu = 0.6``. Rater sampling adds variance that only
    ``items+raters`` (and, partly, ``raters``) accounts for.

Intervals: each design's replicates are drawn once per study and give the percentile, basic
and BCa intervals (BCa's acceleration from the leave-one-item-out jackknife, or
leave-one-rater-out for ``raters``), exactly as ``ci=Bootstrap(...)`` computes them (checked
against the public API at start-up). ``ci="analytic"`` is added when
``softirr_stats.uncertainty._analytic`` exists.

Run::

    python benchmarks/coverage_study.py --quick           # < 3 min: alpha only, few studies
    python benchmarks/coverage_study.py --out results/    # full: 400 / 250 studies per cell, B=1000

Writes ``coverage.csv`` (one row per scenario x coefficient x N x design x method) and
``coverage_table.md`` in ``--out`` and prints the table.
"""

import argparse
import importlib.util
import math
import os
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

import softirr_stats as sis
from softirr_stats.agreement import point_estimate, resolve_similarity
from softirr_stats.data import Annotations
from softirr_stats.uncertainty import (
    Bootstrap,
    basic_interval,
    bca_interval,
    bootstrap_replicates,
    percentile_interval,
)
from softirr_stats.uncertainty._bootstrap import jackknife_values

PREVALENCE = np.array([0.5, 0.3, 0.2])
FIXED_ACC = np.array([0.5, 0.6, 0.7, 0.8])
POP_LOW, POP_HIGH, POP_RATERS = 0.3, 0.9, 10
METHODS = ("percentile", "basic", "bca")
COEFFICIENTS = {"krippendorff_alpha": ("alpha", sis.krippendorff_alpha), "fleiss_kappa": ("pooled", sis.fleiss_kappa)}
HAS_ANALYTIC = importlib.util.find_spec("softirr_stats.uncertainty._analytic") is not None


def response_matrices(acc: np.ndarray, k: int) -> np.ndarray:
    """``R[j, c, k] = P(rater j says k | true class c)``."""
    eye = np.eye(k)
    return acc[:, None, None] * eye[None] + (1.0 - acc[:, None, None]) / k


def population_kappa(acc: np.ndarray, prevalence: np.ndarray) -> float:
    """Model-implied Fleiss-type kappa (docs/formulas/annotator_models.md) with uniform weights over rater pairs.

    >>> round(population_kappa(np.array([1.0, 1.0]), np.array([0.5, 0.5])), 12)
    1.0
    >>> round(population_kappa(np.array([0.0, 0.0, 0.0]), np.array([0.2, 0.8])), 12)
    0.0
    """
    resp = response_matrices(acc, len(prevalence))
    r = len(acc)
    tot = resp.sum(axis=0)  # sum_j R_j(k|c); sum over j != l of R_j R_l = tot^2 - sum_j R_j^2
    p_o = float(prevalence @ (tot**2 - np.einsum("jck,jck->ck", resp, resp)).sum(axis=1)) / (r * (r - 1))
    q_bar = np.einsum("c,jck->k", prevalence, resp) / r
    p_e = float(q_bar @ q_bar)
    return float((p_o - p_e) / (1.0 - p_e))


def simulate(rng: np.random.Generator, n_items: int, acc: np.ndarray, prevalence: np.ndarray) -> np.ndarray:
    """Labels (n_items, n_raters) from the latent-class model."""
    k = len(prevalence)
    truth = rng.choice(k, size=n_items, p=prevalence)
    correct = rng.random((n_items, len(acc))) < acc[None, :]
    noise = rng.integers(0, k, (n_items, len(acc)))
    return np.where(correct, truth[:, None], noise)


def encode(labels: np.ndarray) -> Annotations:
    """Annotations of integer class labels (all K classes in the vocabulary; no Python loop).

    Same codes as ``Annotations.from_wide(labels)`` when every class occurs; an unused class
    does not change alpha or Fleiss' kappa (both use the labels that occur).
    """
    return Annotations(labels.astype(np.int32), list(range(len(PREVALENCE))), kind="numeric")


@dataclass(frozen=True)
class Scenario:
    name: str
    designs: tuple[str, ...]

    def raters(self, rng: np.random.Generator) -> np.ndarray:
        if self.name == "fixed":
            return FIXED_ACC
        return rng.uniform(POP_LOW, POP_HIGH, POP_RATERS)

    def truth(self) -> float:
        if self.name == "fixed":
            return population_kappa(FIXED_ACC, PREVALENCE)
        return population_kappa(np.full(2, (POP_LOW + POP_HIGH) / 2), PREVALENCE)


SCENARIOS = {
    "fixed": Scenario("fixed", ("items", "bayesian", "items+raters")),
    "rater_population": Scenario("rater_population", ("items", "bayesian", "items+raters", "raters")),
}


def study_intervals(labels: np.ndarray, family: str, designs: tuple[str, ...], n_boot: int, seed: int,
                    level: float = 0.95) -> tuple[float, list[dict]]:
    """Point estimate and every (design, method) interval of one simulated study."""
    ann = encode(labels)
    result, prep = point_estimate(ann, family=family, coefficient=family, sim=resolve_similarity(ann))
    est = result.value
    rows = []
    jack_items = None
    for design in designs:
        cfg = Bootstrap(n=n_boot, design=design, seed=seed, level=level)
        reps = bootstrap_replicates(prep, cfg)["value"]
        finite = np.isfinite(reps)
        se = float(np.std(reps[finite], ddof=1)) if finite.sum() > 1 else math.nan
        if design == "raters":
            jack = jackknife_values(prep, cfg)
        else:
            if jack_items is None:
                jack_items = jackknife_values(prep, cfg)
            jack = jack_items
        ivs = {"percentile": percentile_interval(reps, level), "basic": basic_interval(reps, est, level),
               "bca": bca_interval(reps, est, jack, level)[:2]}
        for method in METHODS:
            lo, hi = ivs[method]
            rows.append({"design": design, "method": method, "low": lo, "high": hi, "boot_se": se,
                         "n_nan": int((~finite).sum())})
    return est, rows


def analytic_interval(labels: np.ndarray, fn) -> tuple[float, float, float]:
    r = fn(encode(labels), ci="analytic")
    return r.ci_low, r.ci_high, r.se


def check_against_public_api(family: str, fn, n_boot: int) -> None:
    """The shortcut above must give exactly the interval of ``fn(ann, ci=Bootstrap(...))``."""
    rng = np.random.default_rng(12345)
    labels = simulate(rng, 60, FIXED_ACC, PREVALENCE)
    est, rows = study_intervals(labels, family, ("items", "items+raters"), n_boot, seed=7)
    for row in rows:
        cfg = Bootstrap(n=n_boot, design=row["design"], method=row["method"], seed=7)
        pub = fn(Annotations.from_wide(labels), ci=cfg)
        if not (np.isclose(pub.ci_low, row["low"], rtol=0, atol=1e-12)
                and np.isclose(pub.ci_high, row["high"], rtol=0, atol=1e-12)):
            raise RuntimeError(f"shortcut disagrees with the public API for {row}: {pub.ci_low}, {pub.ci_high}")


def check_population_values(rng: np.random.Generator, n_items: int) -> list[str]:
    """Sample kappa on a very large study vs the analytic population value."""
    lines = []
    acc = FIXED_ACC
    labels = simulate(rng, n_items, acc, PREVALENCE)
    ann = encode(labels)
    a = sis.krippendorff_alpha(ann).value
    f = sis.fleiss_kappa(ann).value
    lines.append(f"fixed raters, N={n_items}: population {population_kappa(acc, PREVALENCE):.5f}, "
                 f"sample alpha {a:.5f}, sample Fleiss {f:.5f}")
    many = rng.uniform(POP_LOW, POP_HIGH, 100_000)  # kappa of 1e5 raters: no sampling, exact formula
    big = rng.uniform(POP_LOW, POP_HIGH, 100)  # 100 raters x 2000 items (1e7 within-item pairs)
    f = sis.fleiss_kappa(encode(simulate(rng, 2000, big, PREVALENCE))).value
    lines.append(f"rater population: analytic {SCENARIOS['rater_population'].truth():.5f}; exact kappa of 1e5 drawn "
                 f"raters {population_kappa(many, PREVALENCE):.5f}; 100 raters x 2000 items: sample Fleiss {f:.5f} "
                 f"(exact for those raters {population_kappa(big, PREVALENCE):.5f})")
    return lines


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    g = df.groupby(["scenario", "coefficient", "n_items", "design", "method"], sort=False)
    out = g.apply(lambda x: pd.Series({
        "studies": len(x),
        "coverage": x["covered"].mean(),
        "mc_se": math.sqrt(max(x["covered"].mean() * (1 - x["covered"].mean()), 1e-12) / len(x)),
        "miss_low": (x["truth"] < x["low"]).mean(),  # truth below the interval
        "miss_high": (x["truth"] > x["high"]).mean(),
        "mean_width": (x["high"] - x["low"]).mean(),
        "bias": (x["estimate"] - x["truth"]).mean(),
        "sd_estimate": x["estimate"].std(ddof=1),
        "mean_se": x["boot_se"].mean(),
        "nan_replicates": int(x["n_nan"].sum()),
    }), include_groups=False).reset_index()
    out["se_ratio"] = out["mean_se"] / out["sd_estimate"]
    return out


def to_markdown(summary: pd.DataFrame) -> str:
    cols = ["scenario", "coefficient", "n_items", "design", "method", "studies", "coverage", "mc_se", "miss_low",
            "miss_high", "mean_width", "bias", "se_ratio"]
    s = summary[cols].copy()
    for c in ("coverage", "mc_se", "miss_low", "miss_high"):
        s[c] = s[c].map(lambda v: f"{100 * v:.1f}")
    for c in ("mean_width", "bias", "se_ratio"):
        s[c] = s[c].map(lambda v: f"{v:.3f}")
    head = "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols) + "\n"
    return head + "\n".join("| " + " | ".join(str(v) for v in row) + " |" for row in s.itertuples(index=False))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="alpha only, few studies, B=200 (< 3 min)")
    ap.add_argument("--studies", type=int, default=None, help="simulated studies per cell")
    ap.add_argument("--boot", type=int, default=None, help="bootstrap replicates B")
    ap.add_argument("--sizes", type=int, nargs="+", default=None, help="numbers of items N")
    ap.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=list(SCENARIOS))
    ap.add_argument("--coefficients", nargs="+", default=None, choices=list(COEFFICIENTS))
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=None, help="folder for coverage.csv and coverage_table.md")
    args = ap.parse_args(argv)
    quick = args.quick
    default_studies = {"fixed": 40, "rater_population": 40} if quick else {"fixed": 400, "rater_population": 250}
    n_boot = args.boot or (200 if quick else 1000)
    sizes = args.sizes or ([30, 100] if quick else [30, 100, 300])
    all_coefs = args.coefficients or (["krippendorff_alpha"] if quick else list(COEFFICIENTS))
    warnings.simplefilter("ignore")
    t_start = time.perf_counter()
    for c in all_coefs:
        check_against_public_api(COEFFICIENTS[c][0], COEFFICIENTS[c][1], n_boot=200)
    print("shortcut intervals == public API intervals: ok")
    if not quick:
        for line in check_population_values(np.random.default_rng(args.seed), 200_000):
            print(line)
    print(f"analytic intervals: {'included' if HAS_ANALYTIC else 'not available (softirr_stats.uncertainty._analytic missing)'}")
    rows = []
    for si, sname in enumerate(args.scenarios):
        sc = SCENARIOS[sname]
        truth = sc.truth()
        studies = args.studies or default_studies[sname]
        # alpha and Fleiss have the same population value and nearly the same sampling
        # behaviour; the rater-population scenario runs alpha only unless asked
        coefs = all_coefs if (args.coefficients or sname == "fixed") else all_coefs[:1]
        for coef in coefs:
            family, fn = COEFFICIENTS[coef]
            for n_items in sizes:
                t0 = time.perf_counter()
                for s in range(studies):
                    rng = np.random.default_rng([args.seed, si, n_items, s])
                    labels = simulate(rng, n_items, sc.raters(rng), PREVALENCE)
                    est, ivs = study_intervals(labels, family, sc.designs, n_boot, seed=s)
                    if HAS_ANALYTIC:
                        try:
                            lo, hi, se = analytic_interval(labels, fn)
                            ivs.append({"design": "analytic", "method": "analytic", "low": lo, "high": hi,
                                        "boot_se": se, "n_nan": 0})
                        except (NotImplementedError, ValueError) as err:  # no formula for this one
                            print(f"analytic unavailable for {coef}: {err}")
                    for iv in ivs:
                        covered = iv["low"] <= truth <= iv["high"]
                        rows.append({"scenario": sname, "coefficient": coef, "n_items": n_items, "study": s,
                                     "truth": truth, "estimate": est, **iv, "covered": covered})
                print(f"{sname:17s} {coef:18s} N={n_items:4d}: {studies} studies in {time.perf_counter() - t0:6.1f} s",
                      flush=True)
    df = pd.DataFrame(rows)
    summary = summarise(df)
    table = to_markdown(summary)
    print(table)
    print(f"total {time.perf_counter() - t_start:.0f} s; B={n_boot}, seed={args.seed}")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        summary.to_csv(os.path.join(args.out, "coverage.csv"), index=False)
        df.to_csv(os.path.join(args.out, "coverage_studies.csv.gz"), index=False)
        with open(os.path.join(args.out, "coverage_table.md"), "w") as fh:
            fh.write(table + "\n")


if __name__ == "__main__":
    main()
