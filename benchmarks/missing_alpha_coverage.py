"""Coverage of interval-metric Krippendorff's alpha with missing ratings (MCAR), against its exact limit.

Model: item ``i`` has a latent score ``t_i ~ N(0, 1)``; rater ``j`` reports
``y_ij = clip(round(4 + t_i + e_ij), 1, 7)`` with ``e_ij ~ N(0, sigma^2)`` (a 7-point scale), and each
rating is missing with probability ``p_missing`` independently. Raters are exchangeable, so the
large-sample limit of alpha (interval metric) is exact and does not depend on missingness:

    D_o = E_t [ sum_{k,l} P(k|t) P(l|t) (k - l)^2 ],   D_e = sum_{k,l} P(k) P(l) (k - l)^2,
    alpha = 1 - D_o / D_e,   P(k) = E_t P(k|t),

computed here by Gauss-Hermite quadrature (200 nodes). Each study draws ``--items`` items x
``--raters`` raters and computes the percentile, basic and BCa item-bootstrap intervals and the
analytic interval, exactly as ``sis.krippendorff_alpha(..., ci=...)`` gives them.

Run::

    python benchmarks/missing_alpha_coverage.py --studies 1000 --out docs/coverage_results/missing_alpha

Appends one row per study to ``studies.csv`` in ``--out`` (a rerun skips the seeds already there)
and prints the coverage table with Monte Carlo standard errors.
"""

import argparse
import os
import time
import warnings

import numpy as np
import pandas as pd
from scipy.stats import norm

import softirr_stats as sis

SCALE = np.arange(1, 8)


def category_probabilities(t: np.ndarray, sigma: float) -> np.ndarray:
    """P(y = k | t) for the rounded, clipped 7-point scale: (len(t), 7)."""
    edges = np.concatenate([[-np.inf], SCALE[:-1] + 0.5, [np.inf]])  # y = k iff 4 + t + e in [k-.5, k+.5)
    upper = norm.cdf((edges[1:][None, :] - 4 - t[:, None]) / sigma)
    lower = norm.cdf((edges[:-1][None, :] - 4 - t[:, None]) / sigma)
    return upper - lower


def exact_alpha(sigma: float, nodes: int = 200) -> float:
    """Large-sample interval alpha of the model (Gauss-Hermite quadrature over t ~ N(0, 1))."""
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    p = category_probabilities(x, sigma)
    d2 = (SCALE[:, None] - SCALE[None, :]) ** 2
    d_o = np.einsum("n,nk,nl,kl->", w, p, p, d2)
    pk = w @ p
    d_e = pk @ d2 @ pk
    return float(1 - d_o / d_e)


def simulate(rng: np.random.Generator, items: int, raters: int, sigma: float, p_missing: float) -> pd.DataFrame:
    t = rng.normal(size=items)
    y = np.clip(np.round(4 + t[:, None] + rng.normal(scale=sigma, size=(items, raters))), 1, 7)
    y[rng.random((items, raters)) < p_missing] = np.nan
    return pd.DataFrame(y, columns=[f"r{j}" for j in range(raters)])


def one_study(seed: int, args) -> dict:
    rng = np.random.default_rng(seed)
    df = simulate(rng, args.items, args.raters, args.sigma, args.missing)
    row = {"seed": seed}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("percentile", "basic", "bca"):
            r = sis.krippendorff_alpha(df, level="interval", ci=sis.Bootstrap(n=args.boot, seed=seed, method=method))
            row["estimate"] = r.value
            row[f"{method}_lo"], row[f"{method}_hi"] = r.ci_low, r.ci_high
        r = sis.krippendorff_alpha(df, level="interval", ci="analytic")
        row["analytic_lo"], row["analytic_hi"] = r.ci_low, r.ci_high
    return row


def table(df: pd.DataFrame, truth: float) -> pd.DataFrame:
    rows = []
    for method in ("percentile", "basic", "bca", "analytic"):
        lo, hi = df[f"{method}_lo"], df[f"{method}_hi"]
        cover = ((lo <= truth) & (truth <= hi)).to_numpy(float)
        rows.append({"method": method, "studies": len(df), "coverage": cover.mean(),
                     "mc_se": np.sqrt(cover.mean() * (1 - cover.mean()) / len(df)),
                     "miss_low": (truth > hi).mean(), "miss_high": (truth < lo).mean(),
                     "mean_width": (hi - lo).mean()})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=200)
    ap.add_argument("--items", type=int, default=100)
    ap.add_argument("--raters", type=int, default=5)
    ap.add_argument("--sigma", type=float, default=0.8)
    ap.add_argument("--missing", type=float, default=0.3)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--out", default="missing_alpha_results")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, f"studies_n{args.items}_r{args.raters}_m{args.missing:g}.csv")
    done = set(pd.read_csv(path)["seed"]) if os.path.exists(path) else set()
    truth = exact_alpha(args.sigma)
    t0 = time.time()
    for seed in range(args.studies):
        if seed in done:
            continue
        pd.DataFrame([one_study(seed, args)]).to_csv(path, mode="a", header=not os.path.exists(path), index=False)
    df = pd.read_csv(path).query("seed < @args.studies")
    print(f"truth alpha = {truth:.4f}; {len(df)} studies, {args.items} items x {args.raters} raters, "
          f"{args.missing:.0%} missing, B = {args.boot}; {time.time() - t0:.0f} s")
    print(f"bias = {df['estimate'].mean() - truth:+.4f} (MC SE {df['estimate'].std() / np.sqrt(len(df)):.4f})")
    print(table(df, truth).to_markdown(index=False, floatfmt=".4f"))


if __name__ == "__main__":
    main()
