"""Coverage of Krippendorff's alpha's default interval when many items carry a single rating.

An item with one rating adds nothing to alpha's coincidence matrix: alpha is a function of the
pairable items alone. This study asks which items should be the interval's units: all items (the
bootstrap draws every item, so the number of pairable items varies from replicate to replicate), or the
pairable ones (the interval conditional on their number, as if the single-rating items were not there),
and how many degrees of freedom the Student-t quantile of the default ``bca-t`` interval takes.

Model (nominal, 3 categories, 3 exchangeable raters): true class ``c ~ Cat(0.5, 0.3, 0.2)``; a rater is
right with probability ``--accuracy``, else says a uniform class. Each study draws ``n ~ U{15..30}`` items
and a single-rating share ``s ~ U(0.3, 0.5)``; each item independently carries one rating (probability
``s``, a random rater's), else two (a random pair of raters) or three ratings (probability 1/2 each).
With exchangeable raters and ratings missing at random the large-sample limit of alpha over the pairable
items is exact, whatever their mix of 2 and 3 ratings:

    alpha = 1 - d_o / d_e,   d_o = 1 - sum_c pi_c sum_k P(k|c)^2,   d_e = 1 - sum_k P(k)^2.

Intervals at the 95% level, from the library's own replicates, jackknife and interval functions
(:func:`softirr_stats.uncertainty.bootstrap_replicates`, ``jackknife_values``, ``bca_interval``, ``t_level``,
``percentile_interval``), B = ``--boot``:

``all/t(n-1)``
    the bootstrap over all items, Student-t with ``n - 1`` df (``n`` the items with a rating);
``all/t(np-1)``
    the same replicates, ``n_p - 1`` df (``n_p`` the pairable items);
``pairable/t(np-1)``
    the bootstrap and the jackknife over the pairable items only, ``n_p - 1`` df (what alpha on the table
    without its single-rating items gives);
``all/percentile``, ``pairable/percentile``
    the percentile intervals of the two sets of replicates (no df: the draws alone).

Run (about 3 minutes)::

    nice -n 10 python benchmarks/single_rating_coverage.py --studies 1000 --boot 1000

Seeds are fixed (study ``k`` uses seed ``k``); prints coverage with Monte Carlo standard errors (and the
paired difference between the two ``n_p - 1`` intervals' coverage), mean width and the share of undefined
replicates.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd

import softirr_stats as sis
from softirr_stats.agreement import point_estimate, resolve_similarity
from softirr_stats.uncertainty import bootstrap_replicates, jackknife_values
from softirr_stats.uncertainty._intervals import bca_interval, percentile_interval, t_level

K = 3
PREVALENCE = np.array([0.5, 0.3, 0.2])
LEVEL = 0.95
VARIANTS = ("all/t(n-1)", "all/t(np-1)", "pairable/t(np-1)", "all/percentile", "pairable/percentile")


def response(accuracy: float) -> np.ndarray:
    """P(rater says k | class c), (K, K)."""
    return accuracy * np.eye(K) + (1.0 - accuracy) / K


def population_alpha(accuracy: float) -> float:
    """The large-sample nominal alpha of the model (module docstring)."""
    p = response(accuracy)
    d_o = 1.0 - PREVALENCE @ (p**2).sum(axis=1)
    d_e = 1.0 - np.sum((PREVALENCE @ p) ** 2)
    return float(1.0 - d_o / d_e)


def simulate(rng: np.random.Generator, accuracy: float) -> np.ndarray:
    """One study's wide table (items x 3 raters, None where missing), every item with at least one rating."""
    n = int(rng.integers(15, 31))
    share = rng.uniform(0.3, 0.5)
    c = rng.choice(K, size=n, p=PREVALENCE)
    right = rng.random((n, 3)) < accuracy
    y = np.where(right, c[:, None], rng.integers(0, K, size=(n, 3))).astype(object)
    single = rng.random(n) < share
    order = np.argsort(rng.random((n, 3)), axis=1)  # a random order of the raters per item
    first = order[:, :1] == np.arange(3)  # the first rater of that order
    two = ~single & (rng.random(n) < 0.5)
    keep = np.where(single[:, None], first, ~(two[:, None] & first))  # one rating, or one rater dropped
    return np.where(keep, y.astype(str), None)


def _intervals(ann: sis.Annotations, seed: int, boot: int) -> tuple[float, np.ndarray, np.ndarray, int]:
    """(estimate, replicates, jackknife values, units) of alpha's item bootstrap on ``ann``."""
    res, prep = point_estimate(ann, family="alpha", coefficient="krippendorff_alpha", sim=resolve_similarity(ann))
    cfg = sis.Bootstrap(n=boot, seed=seed)
    return res.value, bootstrap_replicates(prep, cfg)["value"], jackknife_values(prep, cfg), prep.n_items


def one_study(seed: int, accuracy: float, boot: int) -> dict:
    rng = np.random.default_rng(seed)
    y = simulate(rng, accuracy)
    m = (y != None).sum(axis=1)  # noqa: E711 (elementwise)
    row: dict = {"seed": seed, "n": len(y), "n_pairable": int((m >= 2).sum())}
    if row["n_pairable"] < 3:
        return row
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est, reps, jack, n = _intervals(sis.Annotations.from_wide(y.tolist()), seed, boot)
        est_p, reps_p, jack_p, n_p = _intervals(sis.Annotations.from_wide(y[m >= 2].tolist()), seed, boot)
    assert abs(est - est_p) < 1e-12 and n_p == row["n_pairable"]
    row["estimate"] = est
    row["nan_all"], row["nan_pairable"] = np.mean(~np.isfinite(reps)), np.mean(~np.isfinite(reps_p))
    got = {"all/t(n-1)": bca_interval(reps, est, jack, t_level(LEVEL, n))[:2],
           "all/t(np-1)": bca_interval(reps, est, jack, t_level(LEVEL, n_p))[:2],
           "pairable/t(np-1)": bca_interval(reps_p, est, jack_p, t_level(LEVEL, n_p))[:2],
           "all/percentile": percentile_interval(reps, LEVEL),
           "pairable/percentile": percentile_interval(reps_p, LEVEL)}
    for name, (lo, hi) in got.items():
        row[f"{name}_lo"], row[f"{name}_hi"] = lo, hi
    return row


def table(df: pd.DataFrame, truth: float) -> pd.DataFrame:
    rows = []
    for name in VARIANTS:
        lo, hi = df[f"{name}_lo"], df[f"{name}_hi"]
        cover = ((lo <= truth) & (truth <= hi)).to_numpy(float)
        rows.append({"interval": name, "studies": len(df), "coverage": cover.mean(),
                     "mc_se": np.sqrt(cover.mean() * (1 - cover.mean()) / len(df)),
                     "miss_low": float((truth > hi).mean()), "miss_high": float((truth < lo).mean()),
                     "mean_width": float((hi - lo).mean())})
    return pd.DataFrame(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--accuracy", type=float, default=0.7)
    ap.add_argument("--out", default="", help="CSV of the per-study rows (optional)")
    args = ap.parse_args()
    truth = population_alpha(args.accuracy)
    t0 = time.time()
    df = pd.DataFrame([one_study(seed, args.accuracy, args.boot) for seed in range(args.studies)])
    if args.out:
        df.to_csv(args.out, index=False)
    skipped = int(df["estimate"].isna().sum())
    df = df.dropna(subset=["estimate"])
    print(f"population alpha = {truth:.4f} (accuracy {args.accuracy}); {len(df)} studies ({skipped} with fewer "
          f"than 3 pairable items skipped), B = {args.boot}; {time.time() - t0:.0f} s")
    print(f"items {df['n'].mean():.1f} (pairable {df['n_pairable'].mean():.1f}, "
          f"{df['n_pairable'].min()}-{df['n_pairable'].max()}); bias {df['estimate'].mean() - truth:+.4f} "
          f"(MC SE {df['estimate'].std() / np.sqrt(len(df)):.4f}); undefined replicates: all items "
          f"{df['nan_all'].mean():.2%}, pairable {df['nan_pairable'].mean():.2%}")
    print(table(df, truth).to_markdown(index=False, floatfmt=".4f"))
    a = ((df["all/t(np-1)_lo"] <= truth) & (truth <= df["all/t(np-1)_hi"])).to_numpy(float)
    b = ((df["pairable/t(np-1)_lo"] <= truth) & (truth <= df["pairable/t(np-1)_hi"])).to_numpy(float)
    d = a - b
    print(f"paired difference all/t(np-1) - pairable/t(np-1): {d.mean():+.4f} (MC SE {d.std(ddof=1) / np.sqrt(len(d)):.4f})")
    few = df["n_pairable"] < 12
    for name in ("all/t(n-1)", "all/t(np-1)", "pairable/t(np-1)"):
        cov = ((df[f"{name}_lo"] <= truth) & (truth <= df[f"{name}_hi"]))
        print(f"  {name}: coverage at < 12 pairable items {cov[few].mean():.4f} ({few.sum()} studies), "
              f"at >= 12 {cov[~few].mean():.4f} ({(~few).sum()} studies)")


if __name__ == "__main__":
    main()
