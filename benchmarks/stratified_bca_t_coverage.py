"""Coverage of ``bca-t`` (BCa with Student-t quantiles) under a stratified item bootstrap: which degrees of freedom.

``Bootstrap(strata=...)`` resamples items within strata. ``bca-t`` used ``n - 1`` degrees of freedom for
``n`` items whatever the strata; it now uses the Satterthwaite degrees of freedom of the stratified jackknife
variance (``softirr_stats.uncertainty.stratified_dof``: between the smallest ``n_h - 1`` and ``n - H``). This
study compares, from the *same* replicates and jackknife of each simulated study (paired): ``bca`` (normal
quantiles), ``t(n-1)`` (the rule before), ``t(n-H)``, ``t(satterthwaite)`` (the library's now) and the
percentile interval.

Model: three fixed raters with accuracies 0.6 / 0.7 / 0.8 (the team's latent-class raters of
``benchmarks/small_study_coverage.py``, uniform errors); each stratum has its own class mix; items are drawn
within strata in fixed numbers ``n_h``. The estimand is Fleiss' kappa of the population whose strata have
weights ``n_h / n`` (observed agreement and pooled marginals are linear in the class mix, so its exact value is
the latent-class formula at the mixed prevalence).

Designs (``DESIGNS``): ``3x(4,8,12)`` three strata of 4, 8 and 12 items with different mixes; ``5x4`` five strata
of 4 items; ``2x(8,32)`` two strata, the small one with the rare classes.

Run (resumable: per-study rows in ``studies.csv.gz``; a start-up check compares one study's interval with
``sis.fleiss_kappa(ann, ci=Bootstrap(strata=...))``)::

    python benchmarks/stratified_bca_t_coverage.py --studies 1000 --boot 1000 --out docs/coverage_results/stratified
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
from _vector_kernels import fleiss  # noqa: E402
from small_study_coverage import generator, population  # noqa: E402

from softirr_stats.uncertainty import bca_interval, percentile_interval, stratified_dof, t_level  # noqa: E402

K = 3
LEVEL = 0.95
METHODS = ("percentile", "bca", "t(n-1)", "t(n-H)", "t(satterthwaite)")
DESIGNS = {  # name -> (stratum sizes, stratum class mixes)
    "3x(4,8,12)": ((4, 8, 12), ((0.8, 0.1, 0.1), (0.3, 0.5, 0.2), (0.2, 0.2, 0.6))),
    "5x4": ((4, 4, 4, 4, 4), ((0.8, 0.1, 0.1), (0.1, 0.8, 0.1), (0.1, 0.1, 0.8), (0.4, 0.3, 0.3), (1 / 3,) * 3)),
    "2x(8,32)": ((8, 32), ((0.1, 0.45, 0.45), (0.85, 0.1, 0.05))),
}


def truth(design: str) -> float:
    sizes, mixes = DESIGNS[design]
    w = np.asarray(sizes, float) / sum(sizes)
    _, resp = generator("latent", 3)
    return population("fleiss_kappa", w @ np.asarray(mixes), resp)


def simulate(rng: np.random.Generator, s: int, design: str) -> tuple[np.ndarray, np.ndarray]:
    """(s, n, 3) labels and the items' strata (n,)."""
    sizes, mixes = DESIGNS[design]
    _, resp = generator("latent", 3)
    strata = np.repeat(np.arange(len(sizes)), sizes)
    prev = np.asarray(mixes)[strata]  # (n, K)
    u = rng.random((s, len(strata), 1))
    c = np.minimum((u > prev.cumsum(axis=1)[None]).sum(axis=-1), K - 1)  # (s, n) true classes
    cum = np.cumsum(resp[:, c, :], axis=-1)  # (R, s, n, K)
    lab = np.minimum((rng.random((resp.shape[0], s, len(strata), 1)) > cum).sum(axis=-1), K - 1)
    return np.moveaxis(lab, 0, -1), strata


def stratified_weights(rng: np.random.Generator, s: int, b: int, strata: np.ndarray) -> np.ndarray:
    """Multinomial counts within strata, (s, b, n) (each item slot draws an item of its own stratum)."""
    n = len(strata)
    size = np.bincount(strata)
    first = np.concatenate([[0], np.cumsum(size)[:-1]])
    pick = first[strata] + np.minimum((rng.random((s, b, n)) * size[strata]).astype(np.int64), size[strata] - 1)
    pick += (np.arange(s * b) * n).reshape(s, b, 1)
    return np.bincount(pick.ravel(), minlength=s * b * n).reshape(s, b, n).astype(np.float64)


def intervals(reps: np.ndarray, est: float, jack: np.ndarray, strata: np.ndarray) -> dict[str, tuple[float, float]]:
    n, h = len(strata), len(np.unique(strata))
    return {"percentile": percentile_interval(reps, LEVEL),
            "bca": bca_interval(reps, est, jack, LEVEL)[:2],
            "t(n-1)": bca_interval(reps, est, jack, t_level(LEVEL, n))[:2],
            "t(n-H)": bca_interval(reps, est, jack, t_level(LEVEL, n, dof=n - h))[:2],
            "t(satterthwaite)": bca_interval(reps, est, jack, t_level(LEVEL, n, dof=stratified_dof(jack, strata)))[:2]}


def check_library(boot: int = 300) -> None:
    """One study through the public API equals the script's ``t(satterthwaite)`` interval at the library's weights."""
    import softirr_stats as sis
    from softirr_stats.data import Annotations
    from softirr_stats.uncertainty import Bootstrap
    from softirr_stats.uncertainty._bootstrap import unit_weights

    lab, strata = simulate(np.random.default_rng(5), 1, "3x(4,8,12)")
    ann = Annotations(lab[0].astype(np.int32), list(range(K)), kind="numeric")
    cfg = Bootstrap(n=boot, seed=2, strata=[f"s{h}" for h in strata])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pub = sis.fleiss_kappa(ann, ci=cfg)
    n = len(strata)
    reps = fleiss(lab, unit_weights(n, cfg, 0, boot, strata=strata)[None], K)[0]
    est = fleiss(lab, np.ones((1, 1, n)), K)[0, 0]
    jack = fleiss(lab, (1.0 - np.eye(n))[None], K)[0]
    lo, hi = intervals(reps, est, jack, strata)["t(satterthwaite)"]
    if not np.allclose((lo, hi), (pub.ci_low, pub.ci_high), rtol=0, atol=1e-12):
        raise RuntimeError(f"library {(pub.ci_low, pub.ci_high)} != script {(lo, hi)}")


def run_chunk(design: str, start: int, stop: int, boot: int, seed: int) -> pd.DataFrame:
    s = stop - start
    rng = np.random.default_rng([seed, list(DESIGNS).index(design), start])
    lab, strata = simulate(rng, s, design)
    n = len(strata)
    est = fleiss(lab, np.ones((s, 1, n)), K)[:, 0]
    reps = fleiss(lab, stratified_weights(rng, s, boot, strata), K)
    jack = fleiss(lab, np.broadcast_to(1.0 - np.eye(n), (s, n, n)), K)
    rows = []
    for i in range(s):
        for m, (lo, hi) in intervals(reps[i], est[i], jack[i], strata).items():
            rows.append((design, start + i, m, est[i], lo, hi, stratified_dof(jack[i], strata)))
    return pd.DataFrame(rows, columns=["design", "study", "method", "estimate", "low", "high", "dof"])


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (design, method), g in df.groupby(["design", "method"], sort=True):
        t = truth(design)
        lo, hi = g["low"].to_numpy(), g["high"].to_numpy()
        cov = float(((lo <= t) & (t <= hi)).mean())
        out.append({"design": design, "method": method, "studies": len(g), "coverage": cov,
                    "mc_se": math.sqrt(cov * (1 - cov) / len(g)), "truth_below": float((t < lo).mean()),
                    "truth_above": float((t > hi).mean()), "width": float(np.nanmean(hi - lo)), "truth": t,
                    "bias": float(g["estimate"].mean() - t), "median_dof": float(g["dof"].median())})
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--designs", nargs="+", default=list(DESIGNS), choices=list(DESIGNS))
    ap.add_argument("--chunk", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2036)
    ap.add_argument("--out", default="docs/coverage_results/stratified")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    check_library()
    print("library interval == script's t(satterthwaite): ok", flush=True)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "studies.csv.gz")
    done = set()
    if os.path.exists(path):
        old = pd.read_csv(path)
        done = set(zip(old["design"], old["study"], strict=True))
    t0 = time.perf_counter()
    for start in range(0, args.studies, args.chunk):
        for design in args.designs:
            if (design, start) in done:
                continue
            part = run_chunk(design, start, min(args.studies, start + args.chunk), args.boot, args.seed)
            part.to_csv(path, mode="a", header=not os.path.exists(path), index=False,
                        compression={"method": "gzip", "mtime": 0})
        print(f"studies {start:5d}+ done ({time.perf_counter() - t0:6.0f} s)", flush=True)
    summary = summarise(pd.read_csv(path))
    summary.to_csv(os.path.join(args.out, "summary.csv"), index=False)
    with pd.option_context("display.width", 200):
        print(summary.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
