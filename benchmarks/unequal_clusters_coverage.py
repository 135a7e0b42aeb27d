"""Coverage of cluster intervals with few clusters of unequal size (issue 34, unequal clusters).

Each study has ``C`` documents (clusters); document sizes are lognormal (median 8 items, log-sd 0.9,
rounded and clipped to 2..40 items) or all equal to 10 (``equal10``, the cell of
``benchmarks/few_units_coverage.py``, which passes today). Each document has its own class mix
``p_d ~ Dirichlet(a * (0.5, 0.3, 0.2))``; four fixed raters (accuracies 0.5, 0.6, 0.7, 0.8) label each item
with the latent-class model of ``benchmarks/coverage_study.py``. Sizes are independent of the mix, so the
estimand (the raters' coefficient on the population of items) is the fixed-rater kappa at the mean
prevalence, 0.40061, for Fleiss' kappa and alpha alike.

Generators: ``lognormal`` (a = 4, the team's document heterogeneity), ``lognormal_mixed`` (a = 1: documents
far more different from one another; written for this study), ``equal10`` (a = 4, 10 items each).

Candidates, all from the *same* cluster-bootstrap replicates and leave-one-cluster-out jackknife of each study:

``library``       percentile interval widened by ``t_{C-1}/z * sqrt(C/(C-1))`` (``few_units="t"``: what
                  ``Bootstrap(design="cluster")`` gives today)
``bca``           BCa (cluster jackknife acceleration), widened the same way
``basic``         basic interval, widened the same way
``pct_bc``        the library interval shifted by ``2 (theta - mean(replicates))`` (bootstrap bias correction
                  applied to the interval: centred on the bias-corrected estimate)
``jack_t``        ``theta -+ t_{C-1} se_J`` with the cluster-jackknife SE ``se_J`` (CV3; MacKinnon, Nielsen &
                  Webb 2023 recommend it with ``t(G - 1)`` for few, unequal clusters)
``jack_t_bc``     as ``jack_t``, centred on the jackknife bias-corrected estimate ``C theta - (C - 1) mean(theta_-c)``

Replicates come from the vectorised kernels of ``benchmarks/_vector_kernels.py`` (equal to the library's for
the same weights); a start-up check compares the ``library`` candidate with ``sis.fleiss_kappa(ann,
ci=Bootstrap(design="cluster", ...))`` on one study.

Run::

    python benchmarks/unequal_clusters_coverage.py --studies 1000 --boot 1000 --out docs/coverage_results/unequal_clusters

Resumable: per-study rows are appended to ``studies.csv.gz`` in chunks (skipped when present).
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import sys
import time
import warnings

import numpy as np
import pandas as pd
from scipy import stats

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _vector_kernels import KERNELS  # noqa: E402

from softirr_stats.uncertainty import basic_interval, bca_interval, percentile_interval  # noqa: E402

PREVALENCE = np.array([0.5, 0.3, 0.2])
ACC = np.array([0.5, 0.6, 0.7, 0.8])
K = 3
LEVEL = 0.95
TRUTH = 0.40061  # population_kappa(ACC, PREVALENCE), checked at start-up
GENERATORS = {"lognormal": 4.0, "lognormal_mixed": 1.0, "equal10": 4.0}
CANDIDATES = ("library", "bca", "basic", "pct_bc", "jack_t", "jack_t_bc")


def population_kappa(acc: np.ndarray, prev: np.ndarray) -> float:
    resp = acc[:, None, None] * np.eye(K)[None] + (1.0 - acc[:, None, None]) / K
    r = len(acc)
    tot = resp.sum(axis=0)
    po = float(prev @ (tot**2 - np.einsum("jck,jck->ck", resp, resp)).sum(axis=1)) / (r * (r - 1))
    q = np.einsum("c,jck->k", prev, resp) / r
    return float((po - q @ q) / (1.0 - q @ q))


def sizes(rng: np.random.Generator, gen: str, c: int) -> np.ndarray:
    if gen == "equal10":
        return np.full(c, 10)
    return np.clip(np.rint(np.exp(rng.normal(math.log(8.0), 0.9, c))), 2, 40).astype(int)


def simulate(rng: np.random.Generator, gen: str, c: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels (n, 4) and each item's cluster (n,) of one study."""
    m = sizes(rng, gen, c)
    cl = np.repeat(np.arange(c), m)
    prev = rng.dirichlet(GENERATORS[gen] * PREVALENCE, size=c)[cl]  # (n, K)
    truth = (rng.random((len(cl), 1)) > np.cumsum(prev, axis=1)).sum(axis=1)
    truth = np.minimum(truth, K - 1)
    correct = rng.random((len(cl), len(ACC))) < ACC
    noise = rng.integers(0, K, (len(cl), len(ACC)))
    return np.where(correct, truth[:, None], noise), cl


def intervals(reps: np.ndarray, est: float, jack: np.ndarray, c: int) -> dict[str, tuple[float, float]]:
    f = stats.t.ppf((1 + LEVEL) / 2, c - 1) / stats.norm.ppf((1 + LEVEL) / 2) * math.sqrt(c / (c - 1))

    def widen(lo: float, hi: float) -> tuple[float, float]:
        return est - f * (est - lo), est + f * (hi - est)

    out = {"library": widen(*percentile_interval(reps, LEVEL)),
           "bca": widen(*bca_interval(reps, est, jack, LEVEL)[:2]),
           "basic": widen(*basic_interval(reps, est, LEVEL))}
    shift = 2.0 * (est - float(np.nanmean(reps)))
    out["pct_bc"] = (out["library"][0] + shift, out["library"][1] + shift)
    j = jack[np.isfinite(jack)]
    se = math.sqrt((len(j) - 1) / len(j) * np.sum((j - j.mean()) ** 2))
    t = stats.t.ppf((1 + LEVEL) / 2, c - 1)
    out["jack_t"] = (est - t * se, est + t * se)
    bc = c * est - (c - 1) * j.mean()
    out["jack_t_bc"] = (bc - t * se, bc + t * se)
    return {k: (lo, min(hi, 1.0)) for k, (lo, hi) in out.items()}


def run_chunk(gen: str, coef: str, c: int, start: int, stop: int, boot: int, seed: int) -> pd.DataFrame:
    s = stop - start
    data = [simulate(np.random.default_rng([seed, list(GENERATORS).index(gen), c, start + i]), gen, c)
            for i in range(s)]
    n_max = max(len(cl) for _, cl in data)
    lab = np.zeros((s, n_max, len(ACC)), dtype=np.int64)
    idx = np.full((s, n_max), c)  # padded items belong to a dummy cluster of weight 0
    for i, (labels, cl) in enumerate(data):
        lab[i, : len(cl)] = labels
        idx[i, : len(cl)] = cl
    rng = np.random.default_rng([seed, 99, list(GENERATORS).index(gen), c, start])
    pick = rng.integers(0, c, (s, boot, c)) + (np.arange(s * boot) * c).reshape(s, boot, 1)
    wc = np.bincount(pick.ravel(), minlength=s * boot * c).reshape(s, boot, c).astype(np.float64)
    wc = np.concatenate([wc, np.zeros((s, boot, 1))], axis=2)
    W = np.take_along_axis(wc, np.broadcast_to(idx[:, None, :], (s, boot, n_max)), axis=2)
    fn = KERNELS[coef]
    reps = fn(lab, W, K)
    ones = np.concatenate([np.ones((s, 1, c)), np.zeros((s, 1, 1))], axis=2)
    est = fn(lab, np.take_along_axis(ones, idx[:, None, :], axis=2), K)[:, 0]
    jw = np.concatenate([np.broadcast_to(1.0 - np.eye(c), (s, c, c)), np.zeros((s, c, 1))], axis=2)
    jack = fn(lab, np.take_along_axis(jw, np.broadcast_to(idx[:, None, :], (s, c, n_max)), axis=2), K)
    rows = []
    for i in range(s):
        for name, (lo, hi) in intervals(reps[i], est[i], jack[i], c).items():
            rows.append((gen, coef, c, start + i, len(data[i][1]), name, est[i], lo, hi))
    return pd.DataFrame(rows, columns=["generator", "coefficient", "clusters", "study", "n_items", "method",
                                       "estimate", "low", "high"])


def check_public_api() -> None:
    import softirr_stats as sis
    from softirr_stats.data import Annotations
    from softirr_stats.uncertainty import Bootstrap

    if abs(population_kappa(ACC, PREVALENCE) - TRUTH) > 5e-6:
        raise RuntimeError("population value changed")
    labels, cl = simulate(np.random.default_rng(1), "lognormal", 8)
    ann = Annotations(labels.astype(np.int32), [0, 1, 2], kind="numeric")
    cfg = Bootstrap(n=400, design="cluster", cluster=cl.tolist(), seed=2, method="percentile")
    pub = sis.fleiss_kappa(ann, ci=cfg)
    reps = pub.details["replicates"]
    jack = np.array([KERNELS["fleiss_kappa"](labels[None], (cl != j).astype(float)[None, None], K)[0, 0]
                     for j in range(8)])
    lo, hi = intervals(reps, pub.value, jack, 8)["library"]
    if not (np.isclose(lo, pub.ci_low, atol=1e-12) and np.isclose(hi, pub.ci_high, atol=1e-12)):
        raise RuntimeError(f"library candidate ({lo}, {hi}) != public API ({pub.ci_low}, {pub.ci_high})")


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    df = df.assign(covered=(df["low"] <= TRUTH) & (TRUTH <= df["high"]), below=df["high"] < TRUTH,
                   above=df["low"] > TRUTH, width=df["high"] - df["low"], err=df["estimate"] - TRUTH)
    out = df.groupby(["generator", "coefficient", "clusters", "method"], sort=True).agg(
        studies=("covered", "size"), coverage=("covered", "mean"), truth_above=("below", "mean"),
        truth_below=("above", "mean"), width=("width", "mean"), bias=("err", "mean"),
        mean_items=("n_items", "mean")).reset_index()
    out["mc_se"] = np.sqrt(out["coverage"] * (1 - out["coverage"]) / out["studies"])
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--clusters", type=int, nargs="+", default=[8, 15, 30])
    ap.add_argument("--generators", nargs="+", default=list(GENERATORS), choices=list(GENERATORS))
    ap.add_argument("--coefficients", nargs="+", default=["fleiss_kappa", "krippendorff_alpha"])
    ap.add_argument("--chunk", type=int, default=50)
    ap.add_argument("--seed", type=int, default=3403)
    ap.add_argument("--budget", type=float, default=math.inf)
    ap.add_argument("--out", default="docs/coverage_results/unequal_clusters")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    check_public_api()
    print("library candidate == public API: ok", flush=True)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "studies.csv.gz")
    done = set()
    if os.path.exists(path):
        old = pd.read_csv(path)
        done = set(zip(old["generator"], old["coefficient"], old["clusters"], old["study"], strict=True))
    t0 = time.perf_counter()
    for c in args.clusters:
        for gen in args.generators:
            for coef in args.coefficients:
                for start in range(0, args.studies, args.chunk):
                    if (gen, coef, c, start) in done:
                        continue
                    if time.perf_counter() - t0 > args.budget:
                        break
                    part = run_chunk(gen, coef, c, start, min(args.studies, start + args.chunk), args.boot, args.seed)
                    part.to_csv(path, mode="a", header=not os.path.exists(path), index=False)
                print(f"{gen:16s} {coef:18s} C={c:3d}: {time.perf_counter() - t0:6.0f} s", flush=True)
    summary = summarise(pd.read_csv(path))
    summary.to_csv(os.path.join(args.out, "summary.csv"), index=False)
    with pd.option_context("display.width", 250, "display.max_rows", 500):
        print(summary.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
