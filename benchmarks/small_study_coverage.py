"""Coverage of the default bootstrap interval in small studies (20-100 items), items design.

Issue 34: at 20 items the percentile interval of the item bootstrap covered 89-93% (Fleiss and alpha
with 3 raters, Cohen, alpha with 2 raters), the misses on the side where the truth lies above the
interval. This study measures the percentile, basic and BCa intervals, all from the *same* replicates of
each simulated study (paired), Hesterberg's (2015) expanded percentile interval and the same expansion
in BCa (``percentile-expanded``, ``bca-expanded``: quantile ``sqrt(n / (n - 1)) t_{n-1}``), ``bca-t`` (BCa with
the ``t_{n-1}`` quantile) and ``auto``, the rule ``Bootstrap(method="auto")`` (the default) applies:
``bca-t`` for item designs with at most ``AUTO_BCA_MAX_UNITS`` items, else percentile
(:func:`softirr_stats.uncertainty._intervals.resolve_method`).

Generators (fixed raters; the estimand is the population coefficient of these raters):

``latent``
    the team's latent-class annotators (``benchmarks/coverage_study.py``): true class ``c ~ Cat(0.5, 0.3,
    0.2)``, rater ``j`` right with probability ``acc_j``, else a uniform class.
``skewed``
    written for this study: prevalence (0.75, 0.15, 0.10); a wrong rater picks a class from its own
    bias distribution (rater 1 leans to the majority class, rater 2 to the rarest, rater 3 uniform), so
    rater marginals differ (Cohen's and Fleiss' chance terms differ).

Accuracies: 3 raters (0.6, 0.7, 0.8); 2 raters (0.6, 0.8). Population values are exact (the model's
response matrices; ``population`` below), the large-sample limits of the sample coefficients.

Replicates come from vectorised kernels (``benchmarks/_vector_kernels.py``, equal to the library's
prepared statistics to 1e-10, checked at start-up), many studies per NumPy call; intervals are formed by
the library's own ``percentile_interval`` / ``basic_interval`` / ``bca_interval``. A start-up check also
runs ``sis.fleiss_kappa(ann, ci=Bootstrap(...))`` on one study with the library's replicate weights and
compares the interval.

Run::

    python benchmarks/small_study_coverage.py --studies 1000 --boot 1000 --out docs/coverage_results/small_studies

(per-study rows are 5 MB and are not kept in the repository; the summary is)

Resumable: per-study rows are appended to ``small_studies.csv.gz`` in chunks; chunks already there are
skipped. ``summary.csv`` has one row per generator x coefficient x items x method.
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

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from _vector_kernels import KERNELS, check_against_library  # noqa: E402

from softirr_stats.uncertainty import basic_interval, bca_interval, percentile_interval  # noqa: E402
from softirr_stats.uncertainty._intervals import AUTO_BCA_MAX_UNITS  # noqa: E402

K = 3
LEVEL = 0.95
METHODS = ("percentile", "basic", "bca", "percentile-expanded", "bca-expanded", "bca-t", "auto")
CELLS = {  # coefficient -> number of raters
    "fleiss_kappa/3": ("fleiss_kappa", 3), "krippendorff_alpha/3": ("krippendorff_alpha", 3),
    "cohen_kappa/2": ("cohen_kappa", 2), "krippendorff_alpha/2": ("krippendorff_alpha", 2),
}
ACC = {3: np.array([0.6, 0.7, 0.8]), 2: np.array([0.6, 0.8])}


def generator(name: str, r: int) -> tuple[np.ndarray, np.ndarray]:
    """(prevalence (K,), response matrices (R, K, K): R[j, c, k] = P(rater j says k | class c))."""
    acc = ACC[r]
    if name == "latent":
        prev = np.array([0.5, 0.3, 0.2])
        bias = np.full((r, K), 1.0 / K)
    elif name == "skewed":
        prev = np.array([0.75, 0.15, 0.10])
        bias = np.array([[0.7, 0.2, 0.1], [0.1, 0.2, 0.7], [1 / 3, 1 / 3, 1 / 3]])[:r]
    else:
        raise ValueError(f"unknown generator {name!r}")
    resp = acc[:, None, None] * np.eye(K)[None] + (1.0 - acc[:, None, None]) * bias[:, None, :]
    return prev, resp


def population(coefficient: str, prev: np.ndarray, resp: np.ndarray) -> float:
    """Large-sample limit of the coefficient for these raters (exact)."""
    r = resp.shape[0]
    marg = np.einsum("c,jck->jk", prev, resp)
    pair = np.einsum("c,jck,lck->jl", prev, resp, resp)  # P(rater j and rater l agree)
    if coefficient == "cohen_kappa":
        po, pe = pair[0, 1], float(marg[0] @ marg[1])
    else:  # Fleiss' kappa and alpha: pooled marginals, mean over rater pairs
        po = (pair.sum() - np.trace(pair)) / (r * (r - 1))
        q = marg.mean(axis=0)
        pe = float(q @ q)
    return float((po - pe) / (1.0 - pe))


def simulate(rng: np.random.Generator, s: int, n: int, prev: np.ndarray, resp: np.ndarray) -> np.ndarray:
    """(s, n, R) labels."""
    truth = rng.choice(K, size=(s, n), p=prev)
    cum = np.cumsum(resp[:, truth, :], axis=-1)  # (R, s, n, K)
    u = rng.random((resp.shape[0], s, n, 1))
    lab = np.minimum((u > cum).sum(axis=-1), K - 1)  # (R, s, n)
    return np.moveaxis(lab, 0, -1)


def expanded_level(level: float, n: int, inflate: bool = True) -> float:
    """Hesterberg's (2015) expansion: the level whose normal quantile is ``sqrt(n / (n - 1)) t_{n-1}``
    (``inflate=False``: ``t_{n-1}`` alone)."""
    from scipy import stats

    z = (math.sqrt(n / (n - 1.0)) if inflate else 1.0) * stats.t.ppf((1.0 + level) / 2.0, n - 1)
    return float(1.0 - 2.0 * stats.norm.sf(z))


def multinomial_weights(rng: np.random.Generator, s: int, b: int, n: int) -> np.ndarray:
    pick = rng.integers(0, n, (s, b, n)) + (np.arange(s * b) * n).reshape(s, b, 1)
    return np.bincount(pick.ravel(), minlength=s * b * n).reshape(s, b, n).astype(np.float64)


def check_public_api(boot: int) -> None:
    """One study through ``sis.fleiss_kappa(ann, ci=Bootstrap(...))``: the same interval as the shortcut."""
    import softirr_stats as sis
    from softirr_stats.agreement import point_estimate, resolve_similarity
    from softirr_stats.data import Annotations
    from softirr_stats.uncertainty import Bootstrap, bootstrap_replicates
    from softirr_stats.uncertainty._bootstrap import unit_weights

    prev, resp = generator("latent", 3)
    lab = simulate(np.random.default_rng(99), 1, 20, prev, resp)
    ann = Annotations(lab[0].astype(np.int32), [0, 1, 2], kind="numeric")
    for method in ("percentile", "bca"):
        cfg = Bootstrap(n=boot, seed=4, method=method)
        pub = sis.fleiss_kappa(ann, ci=cfg)
        reps = KERNELS["fleiss_kappa"](lab, unit_weights(20, cfg, 0, boot)[None], K)[0]
        lib = bootstrap_replicates(point_estimate(ann, family="pooled", coefficient="fleiss_kappa",
                                                  sim=resolve_similarity(ann))[1], cfg)["value"]
        if not np.allclose(reps, lib, rtol=0, atol=1e-12):
            raise RuntimeError("shortcut replicates differ from the library's")
        est = KERNELS["fleiss_kappa"](lab, np.ones((1, 1, 20)), K)[0, 0]
        jack = KERNELS["fleiss_kappa"](lab, (1.0 - np.eye(20))[None], K)[0]
        lo, hi = percentile_interval(reps, LEVEL) if method == "percentile" else bca_interval(reps, est, jack, LEVEL)[:2]
        if not (np.isclose(lo, pub.ci_low, atol=1e-12) and np.isclose(hi, pub.ci_high, atol=1e-12)):
            raise RuntimeError(f"{method}: shortcut ({lo}, {hi}) != public API ({pub.ci_low}, {pub.ci_high})")
    auto = sis.fleiss_kappa(ann, ci=Bootstrap(n=boot, seed=4))
    if auto.ci_method != "bootstrap-bca-t":
        raise RuntimeError(f"the default interval at 20 items should be BCa with t quantiles; got {auto.ci_method}")
    reps = bootstrap_replicates(point_estimate(ann, family="pooled", coefficient="fleiss_kappa",
                                               sim=resolve_similarity(ann))[1], Bootstrap(n=boot, seed=4))["value"]
    est = KERNELS["fleiss_kappa"](lab, np.ones((1, 1, 20)), K)[0, 0]
    jack = KERNELS["fleiss_kappa"](lab, (1.0 - np.eye(20))[None], K)[0]
    lo, hi = bca_interval(reps, est, jack, expanded_level(LEVEL, 20, inflate=False))[:2]
    if not (np.isclose(lo, auto.ci_low, atol=1e-12) and np.isclose(hi, auto.ci_high, atol=1e-12)):
        raise RuntimeError(f"bca-t: shortcut ({lo}, {hi}) != public API ({auto.ci_low}, {auto.ci_high})")


def run_chunk(gen: str, cell: str, n: int, start: int, stop: int, boot: int, seed: int) -> pd.DataFrame:
    coef, r = CELLS[cell]
    prev, resp = generator(gen, r)
    truth = population(coef, prev, resp)
    rng = np.random.default_rng([seed, list(CELLS).index(cell), ["latent", "skewed"].index(gen), n, start])
    s = stop - start
    lab = simulate(rng, s, n, prev, resp)
    fn = KERNELS[coef]
    est = fn(lab, np.ones((s, 1, n)), K)[:, 0]
    reps = fn(lab, multinomial_weights(rng, s, boot, n), K)
    jack = fn(lab, np.broadcast_to(1.0 - np.eye(n), (s, n, n)), K)
    rows = []
    expanded = expanded_level(LEVEL, n)
    t_level = expanded_level(LEVEL, n, inflate=False)
    for i in range(s):
        ivs = {"percentile": percentile_interval(reps[i], LEVEL), "basic": basic_interval(reps[i], est[i], LEVEL),
               "bca": bca_interval(reps[i], est[i], jack[i], LEVEL)[:2]}
        ivs["percentile-expanded"] = percentile_interval(reps[i], expanded)
        ivs["bca-expanded"] = bca_interval(reps[i], est[i], jack[i], expanded)[:2]
        ivs["bca-t"] = bca_interval(reps[i], est[i], jack[i], t_level)[:2]
        ivs["auto"] = ivs["bca-t"] if n <= AUTO_BCA_MAX_UNITS else ivs["percentile"]
        for m in METHODS:
            lo, hi = ivs[m]
            rows.append((gen, cell, n, start + i, m, truth, est[i], lo, hi, int((~np.isfinite(reps[i])).sum())))
    return pd.DataFrame(rows, columns=["generator", "cell", "n_items", "study", "method", "truth", "estimate",
                                       "low", "high", "n_nan"])


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    df = df.assign(covered=(df["low"] <= df["truth"]) & (df["truth"] <= df["high"]))
    g = df.groupby(["generator", "cell", "n_items", "method"], sort=True)
    out = g.agg(studies=("covered", "size"), coverage=("covered", "mean"),
                miss_low=("truth", lambda x: float((x < df.loc[x.index, "low"]).mean())),
                miss_high=("truth", lambda x: float((x > df.loc[x.index, "high"]).mean())),
                width=("high", lambda x: float((x - df.loc[x.index, "low"]).mean())),
                bias=("estimate", lambda x: float((x - df.loc[x.index, "truth"]).mean())),
                truth=("truth", "first")).reset_index()
    out["mc_se"] = np.sqrt(out["coverage"] * (1 - out["coverage"]) / out["studies"])
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--sizes", type=int, nargs="+", default=[20, 30, 50, 100])
    ap.add_argument("--generators", nargs="+", default=["latent", "skewed"])
    ap.add_argument("--cells", nargs="+", default=list(CELLS), choices=list(CELLS))
    ap.add_argument("--chunk", type=int, default=100, help="studies per vectorised call")
    ap.add_argument("--seed", type=int, default=2034)
    ap.add_argument("--budget", type=float, default=math.inf, help="stop starting chunks after this many seconds")
    ap.add_argument("--out", default="docs/coverage_results/small_studies")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    check_against_library()
    check_public_api(200)
    print("kernels == library; shortcut == public API; default at 20 items is bca-t: ok", flush=True)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "small_studies.csv.gz")
    done = set()
    if os.path.exists(path):
        old = pd.read_csv(path)
        done = set(zip(old["generator"], old["cell"], old["n_items"], old["study"], strict=True))
    t0 = time.perf_counter()
    for n in args.sizes:  # small sizes first: the cells
        for gen in args.generators:
            for cell in args.cells:
                for start in range(0, args.studies, args.chunk):
                    stop = min(args.studies, start + args.chunk)
                    if (gen, cell, n, start) in done:
                        continue
                    if time.perf_counter() - t0 > args.budget:
                        print("budget reached; rerun to continue", flush=True)
                        break
                    part = run_chunk(gen, cell, n, start, stop, args.boot, args.seed)
                    part.to_csv(path, mode="a", header=not os.path.exists(path), index=False, compression=None
                                if not path.endswith(".gz") else {"method": "gzip", "mtime": 0})
                print(f"{gen:7s} {cell:22s} n={n:4d} done ({time.perf_counter() - t0:6.0f} s)", flush=True)
    df = pd.read_csv(path)
    summary = summarise(df)
    summary.to_csv(os.path.join(args.out, "summary.csv"), index=False)
    with pd.option_context("display.width", 200, "display.max_rows", 500):
        print(summary.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
