"""Coverage of stratified bootstraps with few units per stratum: the small-sample correction's strata.

A stratified bootstrap draws ``n_h`` units with replacement within each stratum, so its variance is
``sum_h (n_h - 1) / n_h V_h`` (``V_h``: stratum ``h``'s share of the unbiased variance): with 2 clusters per
stratum, half of it. The few-units correction of the ``cluster`` design (``few_units="t"``) widened the
interval by ``t_{U-1} / z * sqrt(U / (U - 1))`` for ``U`` clusters whatever the strata; this study compares,
from the *same* replicates and leave-one-cluster-out jackknife of each simulated study (paired):

``before``     basic interval widened by ``t_{U-1} / z * sqrt(U / (U - 1))`` (strata ignored)
``now``        widened by ``t_d / z * sqrt(sum_h n_h / sum_h (n_h - 1))``, ``d`` the Satterthwaite degrees of
               freedom with ``V_h`` proportional to ``n_h`` (``U - H`` for equal strata): no data needed; the
               library's rule (``uncertainty.stratified_few_units``)
``jackknife``  widened by ``t_d / z * sqrt(sum_h J_h / sum_h (n_h - 1) / n_h J_h)``, ``J_h`` the stratified
               jackknife's stratum shares and ``d = stratified_dof`` (Satterthwaite on the ``J_h``)
``jack_var``   the jackknife's variance ratio with ``now``'s degrees of freedom
``unstratified`` the unstratified cluster bootstrap, old rule (valid here: the strata are random)

Items designs (``items_*``) compare the stratified item bootstrap's ``bca-t`` (Satterthwaite df, the default)
with and without the variance ratio's excess over the unstratified ``n / (n - 1)``, and the percentile interval
with and without the whole ratio.

Model: four fixed raters (accuracies 0.5 / 0.6 / 0.7 / 0.8, uniform errors, three classes), clusters of 6 items
whose class mix is ``Dirichlet(a * (0.5, 0.3, 0.2))`` (``a = 4``; ``_mixed``: ``a = 1``); clusters are put in
strata at random (no stratum effect), except in ``_effect`` scenarios where stratum ``h``'s clusters are drawn
around a mix of their own. Fixed raters: the estimand is the latent-class kappa at the population's mean mix.

Run (a few minutes; seeds fixed; a start-up check compares the ``now`` candidate with
``sis.fleiss_kappa(ann, ci=Bootstrap(design="cluster", cluster=..., strata=...))`` on one study)::

    nice -n 10 python benchmarks/strata_coverage.py --studies 500 --boot 1000 --out docs/coverage_results/strata
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
from _vector_kernels import fleiss  # noqa: E402

from softirr_stats.uncertainty import (  # noqa: E402
    basic_interval,
    bca_interval,
    percentile_interval,
    stratified_dof,
    t_level,
)

K = 3
LEVEL = 0.95
ACC = np.array([0.5, 0.6, 0.7, 0.8])
PREVALENCE = np.array([0.5, 0.3, 0.2])
#: stratum-specific mixes of the ``_effect`` scenarios (their mean is PREVALENCE)
EFFECT_MIXES = np.array([[0.8, 0.1, 0.1], [0.2, 0.6, 0.2], [0.5, 0.2, 0.3], [0.4, 0.3, 0.3], [0.6, 0.3, 0.1]])
#: name -> (units per stratum, items per unit, Dirichlet concentration, stratum effect)
SCENARIOS = {
    "cluster_5x2": ((2, 2, 2, 2, 2), 6, 4.0, False),
    "cluster_5x2_mixed": ((2, 2, 2, 2, 2), 6, 1.0, False),
    "cluster_4x3": ((3, 3, 3, 3), 6, 4.0, False),
    "cluster_3x5": ((5, 5, 5), 6, 4.0, False),
    "cluster_2+3+5": ((2, 3, 5), 6, 4.0, False),
    "cluster_2+8": ((2, 8), 6, 4.0, False),
    "cluster_5x2_effect": ((2, 2, 2, 2, 2), 6, 4.0, True),
    "cluster_2+3+5_effect": ((2, 3, 5), 6, 4.0, True),
    "items_10x2": ((2,) * 10, 1, 4.0, False),
    "items_5x4": ((4,) * 5, 1, 4.0, False),
    "items_5x4_effect": ((4,) * 5, 1, 4.0, True),
}
CLUSTER_METHODS = ("before", "now", "jackknife", "jack_var", "unstratified")
ITEM_METHODS = ("bca-t", "bca-t+excess", "percentile", "percentile+ratio")


def population_kappa(prev: np.ndarray) -> float:
    resp = ACC[:, None, None] * np.eye(K)[None] + (1.0 - ACC[:, None, None]) / K
    r = len(ACC)
    tot = resp.sum(axis=0)
    po = float(prev @ (tot**2 - np.einsum("jck,jck->ck", resp, resp)).sum(axis=1)) / (r * (r - 1))
    q = np.einsum("c,jck->k", prev, resp) / r
    return float((po - q @ q) / (1.0 - q @ q))


def truth(name: str) -> float:
    sizes, _, _, effect = SCENARIOS[name]
    if not effect:
        return population_kappa(PREVALENCE)
    w = np.asarray(sizes, float) / sum(sizes)
    return population_kappa(w @ EFFECT_MIXES[: len(sizes)])


def simulate(rng: np.random.Generator, s: int, name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(s, n, 4) labels, each item's unit (n,) and each unit's stratum (U,)."""
    sizes, m, a, effect = SCENARIOS[name]
    unit_strata = np.repeat(np.arange(len(sizes)), sizes)
    u = len(unit_strata)
    unit = np.repeat(np.arange(u), m)
    centre = EFFECT_MIXES[unit_strata] if effect else np.broadcast_to(PREVALENCE, (u, K))
    prev = np.stack([rng.dirichlet(a * centre[j], size=s) for j in range(u)], axis=1)[:, unit]  # (s, n, K)
    c = np.minimum((rng.random((s, len(unit), 1)) > np.cumsum(prev, axis=-1)).sum(axis=-1), K - 1)
    correct = rng.random((s, len(unit), len(ACC))) < ACC
    noise = rng.integers(0, K, (s, len(unit), len(ACC)))
    return np.where(correct, c[..., None], noise), unit, unit_strata


def unit_counts(rng: np.random.Generator, s: int, b: int, strata: np.ndarray | None, u: int) -> np.ndarray:
    """Multinomial unit counts (s, b, U), within strata when given."""
    st = np.zeros(u, dtype=np.int64) if strata is None else strata
    size = np.bincount(st)
    first = np.concatenate([[0], np.cumsum(size)[:-1]])
    pick = first[st] + np.minimum((rng.random((s, b, u)) * size[st]).astype(np.int64), size[st] - 1)
    pick += (np.arange(s * b) * u).reshape(s, b, 1)
    return np.bincount(pick.ravel(), minlength=s * b * u).reshape(s, b, u).astype(np.float64)


def t_over_z(dof: float) -> float:
    q = (1.0 + LEVEL) / 2.0
    return float(stats.t.ppf(q, dof) / stats.norm.ppf(q))


def shares(jack: np.ndarray, strata: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stratum sizes and the stratified jackknife's stratum shares ``J_h``."""
    size = np.bincount(strata).astype(float)
    mean = np.bincount(strata, weights=jack) / size
    return size, (size - 1.0) / size * np.bincount(strata, weights=(jack - mean[strata]) ** 2)


def ratio(size: np.ndarray, v: np.ndarray) -> float:
    return float(np.sum(v) / np.sum((size - 1.0) / size * v))


def widen(lo: float, hi: float, est: float, f: float) -> tuple[float, float]:
    return est - f * (est - lo), est + f * (hi - est)


def cluster_intervals(reps: np.ndarray, plain: np.ndarray, est: float, jack: np.ndarray,
                      strata: np.ndarray) -> dict[str, tuple[float, float]]:
    u = len(strata)
    size, j = shares(jack, strata)
    d_design = float(np.sum(size) ** 2 / np.sum(size**2 / (size - 1.0)))
    lo, hi = basic_interval(reps, est, LEVEL)
    old = t_over_z(u - 1) * math.sqrt(u / (u - 1.0))
    return {"before": widen(lo, hi, est, old),
            "now": widen(lo, hi, est, t_over_z(d_design) * math.sqrt(ratio(size, size))),
            "jackknife": widen(lo, hi, est, t_over_z(stratified_dof(jack, strata)) * math.sqrt(ratio(size, j))),
            "jack_var": widen(lo, hi, est, t_over_z(d_design) * math.sqrt(ratio(size, j))),
            "unstratified": widen(*basic_interval(plain, est, LEVEL), est, old)}


def item_intervals(reps: np.ndarray, est: float, jack: np.ndarray, strata: np.ndarray) -> dict[str, tuple[float, float]]:
    n = len(strata)
    size, j = shares(jack, strata)
    r = ratio(size, j)
    lo, hi = bca_interval(reps, est, jack, t_level(LEVEL, n, dof=stratified_dof(jack, strata)))[:2]
    return {"bca-t": (lo, hi), "bca-t+excess": widen(lo, hi, est, math.sqrt(max(r * (n - 1.0) / n, 1.0))),
            "percentile": percentile_interval(reps, LEVEL),
            "percentile+ratio": widen(*percentile_interval(reps, LEVEL), est, math.sqrt(r))}


def check_library(boot: int = 400) -> None:
    """One study through the public API equals the script's ``now`` candidate at the library's weights."""
    import softirr_stats as sis
    from softirr_stats.data import Annotations
    from softirr_stats.uncertainty import Bootstrap
    from softirr_stats.uncertainty._bootstrap import unit_weights

    lab, unit, strata = simulate(np.random.default_rng(5), 1, "cluster_2+3+5")
    ann = Annotations(lab[0].astype(np.int32), list(range(K)), kind="numeric")
    cfg = Bootstrap(n=boot, seed=2, design="cluster", cluster=unit.tolist(), strata=strata[unit].tolist())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pub = sis.fleiss_kappa(ann, ci=cfg)
    u = len(strata)
    reps = fleiss(lab, unit_weights(u, cfg, 0, boot, strata=strata)[:, unit][None], K)[0]
    est = fleiss(lab, np.ones((1, 1, len(unit))), K)[0, 0]
    jack = fleiss(lab, (1.0 - np.eye(u))[:, unit][None], K)[0]
    lo, hi = cluster_intervals(reps, reps, est, jack, strata)["now"]
    if not np.allclose((lo, min(hi, 1.0)), (pub.ci_low, pub.ci_high), rtol=0, atol=1e-12):
        raise RuntimeError(f"library {(pub.ci_low, pub.ci_high)} != script {(lo, hi)}")


def run_chunk(name: str, start: int, stop: int, boot: int, seed: int) -> pd.DataFrame:
    s = stop - start
    rng = np.random.default_rng([seed, list(SCENARIOS).index(name), start])
    lab, unit, strata = simulate(rng, s, name)
    u, n = len(strata), len(unit)
    est = fleiss(lab, np.ones((s, 1, n)), K)[:, 0]
    reps = fleiss(lab, unit_counts(rng, s, boot, strata, u)[:, :, unit], K)
    jack = fleiss(lab, np.broadcast_to((1.0 - np.eye(u))[:, unit], (s, u, n)), K)
    rows = []
    if name.startswith("cluster"):
        plain = fleiss(lab, unit_counts(rng, s, boot, None, u)[:, :, unit], K)
        for i in range(s):
            for m, (lo, hi) in cluster_intervals(reps[i], plain[i], est[i], jack[i], strata).items():
                rows.append((name, start + i, m, est[i], lo, min(hi, 1.0), stratified_dof(jack[i], strata)))
    else:
        for i in range(s):
            for m, (lo, hi) in item_intervals(reps[i], est[i], jack[i], strata).items():
                rows.append((name, start + i, m, est[i], lo, min(hi, 1.0), stratified_dof(jack[i], strata)))
    return pd.DataFrame(rows, columns=["scenario", "study", "method", "estimate", "low", "high", "dof"])


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    out = []
    for (name, method), g in df.groupby(["scenario", "method"], sort=False):
        t = truth(name)
        lo, hi = g["low"].to_numpy(), g["high"].to_numpy()
        cov = float(((lo <= t) & (t <= hi)).mean())
        out.append({"scenario": name, "method": method, "studies": len(g), "coverage": cov,
                    "mc_se": math.sqrt(cov * (1 - cov) / len(g)), "truth_below": float((t < lo).mean()),
                    "truth_above": float((t > hi).mean()), "width": float(np.nanmean(hi - lo)), "truth": t,
                    "median_dof": float(g["dof"].median())})
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=500)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--scenarios", nargs="+", default=list(SCENARIOS), choices=list(SCENARIOS))
    ap.add_argument("--chunk", type=int, default=100)
    ap.add_argument("--seed", type=int, default=2051)
    ap.add_argument("--check", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--out", default="docs/coverage_results/strata")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    if args.check:
        check_library()
        print("library interval == script's now candidate: ok", flush=True)
    os.makedirs(args.out, exist_ok=True)
    t0 = time.perf_counter()
    parts = []
    for name in args.scenarios:
        for start in range(0, args.studies, args.chunk):
            parts.append(run_chunk(name, start, min(args.studies, start + args.chunk), args.boot, args.seed))
        print(f"{name} done ({time.perf_counter() - t0:6.0f} s)", flush=True)
    df = pd.concat(parts, ignore_index=True)
    df.to_csv(os.path.join(args.out, "studies.csv.gz"), index=False, compression={"method": "gzip", "mtime": 0})
    summary = summarise(df)
    summary.to_csv(os.path.join(args.out, "summary.csv"), index=False)
    with pd.option_context("display.width", 200):
        print(summary.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
