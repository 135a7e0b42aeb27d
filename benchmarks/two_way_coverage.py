"""Coverage of the two-way (items x raters) bootstrap with few raters: the variance-component correction.

Issue 34: with raters sampled from a population, ``Bootstrap(design="items+raters")`` (percentile interval
widened by the few-units correction) covered 97.8% / 97.3% at 3 / 4 raters, wider than it needs to be. The
pigeonhole bootstrap counts the item x rater interaction more than once (Owen 2007; McCullagh 2000), and the
few-units correction then widened a rater share that still held the interaction. This study computes, for
every simulated study, the ingredients of the candidate rules from the *same* draws (paired):

``v_p``  variance of the two-way replicates (item weights C and rater weights V, self-pairs excluded);
``v_i``  variance of the item-only replicates at the same item weights C (raters fixed);
``j_i``  leave-one-item-out jackknife variance;
``j_r``  leave-one-rater-out jackknife variance (items fixed);
``n_r``  (``--noise`` only) the item noise the rater jackknife holds: ``(R-1)/R sum_j Var_C(d_j)``, ``d_j`` the
         leave-one-rater-out deviations re-evaluated at each item replicate C;
``d_n``  (``--pairs`` only) the pair-specific item noise of the pair kappas ``h_jk`` over the item replicates C:
         the mean of ``Var_C(h_jk)`` less twice the mean covariance of pairs that share a rater;
and the two-way percentile interval. The candidates (``CANDIDATES``) scale the percentile interval's
distances from the estimate by ``sqrt(target / v_p)`` (or ``t_df / z * sqrt(target / v_p)``); ``summarise``
forms them from the stored columns, so a new candidate needs no new simulation:

``none``, ``previous`` (the rule before issue 34), ``interaction`` (the library's: the item share less the
interaction it counts again, the rater share widened by ``t_{R-1} / z``: Banerjee's 1960 form of a
Behrens-Fisher interval), ``welch`` (the same two shares, ``t`` with their Welch-Satterthwaite df),
``welch-row+col`` (item bootstrap + rater jackknife, Welch df), ``t-rater-effect`` (``t`` widening of the rater
main effect only, not of the interaction the rater jackknife holds), ``total`` / ``total-welch`` (law of total
variance: item bootstrap at fixed raters + the rater jackknife less its item noise ``n_r``), ``pair-noise`` /
``pair-noise-welch`` (the rater jackknife less its over-count ``2 d_n / ((R-1)(R-2))`` of the pair noise), ``row+col``,
``components`` (ANOVA), ``components-jack``, ``components-satterthwaite``. Results: docs/coverage.md, "Few raters".

For a statistic linear in a crossed array (``y_ij = mu + a_i + b_j + e_ij``; ``A = s_a^2 / n``,
``B = s_b^2 / R``, ``E = s_e^2 / (n R)``) the expectations are ``v_i = (n-1)/n (A + E)``,
``j_r = B + E``, ``v_p = (n-1)/n A + (R-1)/R B + c E`` with ``c = (n-1)/n + (R-1)/R + (n-1)(R-1)/(n R)``, while
the estimate's variance is ``A + B + E``. So ``E_hat = n R / ((n-1)(R-1)) (v_p - v_i - (R-1)/R j_r)`` and
``A + E = n/(n-1) v_i``, ``B = j_r - E_hat`` (the ANOVA estimator of the crossed design, written with
bootstrap and jackknife variances).

Generators (raters drawn afresh in each study; the estimand is the population-of-raters Fleiss-type kappa):

``latent``
    the team's (``benchmarks/coverage_study.py``): class ``c ~ Cat(0.5, 0.3, 0.2)``, rater accuracy
    ``acc ~ U(0.3, 0.9)``, a wrong rater picks a uniform class; kappa 0.34346.
``hard``
    written for this study: class ``c ~ Cat(0.6, 0.25, 0.15)``; 30% of items are hard (every rater's accuracy
    halved: an item effect the team's generator lacks); ``acc ~ Beta(4, 2.5)``; a wrong rater picks a class
    from its own bias ``Dirichlet(4, 4, 4)`` (rater marginals differ). The population value is exact
    (``population_hard``), checked against a 3,000-rater x 3,000-item simulation at start-up (``--check``).

Replicates come from a vectorised kernel equal to the library's prepared Fleiss statistic with item and
rater weights (checked at start-up to 1e-10), many studies per NumPy call; a start-up check also compares
the interval of ``sis.fleiss_kappa(ann, ci=Bootstrap(design="items+raters"))`` with the script's ``library``
candidate on one study.

Run (resumable: per-study rows are appended to ``studies.csv.gz`` by chunks; done chunks are skipped)::

    python benchmarks/two_way_coverage.py --studies 1000 --boot 1000 --items 60 100 200 --pairs --out docs/coverage_results/two_way
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

K = 3
LEVEL = 0.95
GENERATORS = ("latent", "hard")
#: The candidate the library implements (``check_library`` compares one study's public interval with it).
LIBRARY = "interaction"
CANDIDATES = ("none", "previous", "interaction", "pair-noise", "pair-noise-welch", "total", "total-welch", "welch", "welch-row+col", "t-rater-effect", "row+col", "components",
              "components-jack", "components-satterthwaite")


# ----------------------------------------------------------------------------------------------- generators
LATENT_PREV = np.array([0.5, 0.3, 0.2])
HARD_PREV = np.array([0.6, 0.25, 0.15])
HARD_SHARE, HARD_FACTOR, ACC_BETA, BIAS_CONC = 0.3, 0.5, (4.0, 2.5), 4.0


def population_latent() -> float:
    mu = 0.6  # mean of U(0.3, 0.9): the response matrices are linear in the accuracy
    m = mu * np.eye(K) + (1 - mu) / K  # m[c, k]: mean response of a population rater
    po = float(LATENT_PREV @ (m**2).sum(axis=1))
    q = LATENT_PREV @ m
    return (po - q @ q) / (1 - q @ q)


def population_hard() -> float:
    mu = ACC_BETA[0] / sum(ACC_BETA)
    po, q = 0.0, np.zeros(K)
    for h, share in ((HARD_FACTOR, HARD_SHARE), (1.0, 1 - HARD_SHARE)):
        m = h * mu * np.eye(K) + (1 - h * mu) / K  # E over raters (accuracy independent of the bias, E b = 1/K)
        po += share * float(HARD_PREV @ (m**2).sum(axis=1))
        q += share * (HARD_PREV @ m)
    return float((po - q @ q) / (1 - q @ q))


def simulate(gen: str, rng: np.random.Generator, s: int, n: int, r: int) -> np.ndarray:
    """(s, n, r) labels, new raters per study."""
    if gen == "latent":
        acc = rng.uniform(0.3, 0.9, (s, 1, r))
        truth = rng.choice(K, size=(s, n, 1), p=LATENT_PREV)
        noise = rng.integers(0, K, (s, n, r))
    else:
        acc = rng.beta(*ACC_BETA, (s, 1, r)) * np.where(rng.random((s, n, 1)) < HARD_SHARE, HARD_FACTOR, 1.0)
        truth = rng.choice(K, size=(s, n, 1), p=HARD_PREV)
        bias = rng.dirichlet(np.full(K, BIAS_CONC), (s, r)).cumsum(axis=-1)  # (s, r, K)
        noise = np.minimum((rng.random((s, n, r, 1)) > bias[:, None]).sum(axis=-1), K - 1)
    return np.where(rng.random((s, n, r)) < acc, truth, noise)


# ----------------------------------------------------------------------------------------------- kernel
def fleiss(X: np.ndarray, C: np.ndarray | None, V: np.ndarray | None) -> np.ndarray:
    """Fleiss' kappa with item weights C (S, B, n) and rater weights V (S, B, R) (None: ones); X one-hot (S, n, R, K).

    Product weights c_i v_j; the observed agreement of an item excludes the self-pairs of a duplicated rater
    (pairs weighted v_j v_j' over original raters j != j'), as the library's evaluator does.
    """
    s, n, r, _ = X.shape
    if V is None:
        vx = X.sum(axis=2)[:, None]  # (S, 1, n, K)
        sv, sv2 = np.full((s, 1), float(r)), np.full((s, 1), float(r))
    else:
        vx = np.einsum("sbj,sijk->sbik", V, X, optimize=True)
        sv, sv2 = V.sum(axis=-1), (V * V).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = ((vx * vx).sum(axis=-1) - sv2[..., None]) / (sv * sv - sv2)[..., None]  # (S, B|1, n)
        if C is None:
            po = pa.mean(axis=-1)
            pi = vx.sum(axis=2) / (n * sv)[..., None]
        else:
            tot = C.sum(axis=-1)
            if V is None:
                po = np.einsum("sbi,si->sb", C, pa[:, 0]) / tot
                pi = np.einsum("sbi,sik->sbk", C, vx[:, 0]) / (tot * sv)[..., None]
            else:
                po = (C * pa).sum(axis=-1) / tot
                pi = np.einsum("sbi,sbik->sbk", C, vx) / (tot * sv)[..., None]
        pe = (pi * pi).sum(axis=-1)
        return (po - pe) / (1.0 - pe)


def multinomial(rng: np.random.Generator, s: int, b: int, n: int) -> np.ndarray:
    pick = rng.integers(0, n, (s, b, n)) + (np.arange(s * b) * n).reshape(s, b, 1)
    return np.bincount(pick.ravel(), minlength=s * b * n).reshape(s, b, n).astype(np.float64)


def jack_var(values: np.ndarray) -> np.ndarray:
    """Jackknife variance along the last axis: (m - 1)/m sum (theta_(-i) - mean)^2."""
    m = values.shape[-1]
    return (m - 1) / m * ((values - values.mean(axis=-1, keepdims=True)) ** 2).sum(axis=-1)


# ----------------------------------------------------------------------------------------------- candidates
def t_factor(units: np.ndarray | float, level: float = LEVEL) -> np.ndarray:
    q = (1 + level) / 2
    return stats.t.ppf(q, np.asarray(units, dtype=float) - 1) / stats.norm.ppf(q)


def components(df: pd.DataFrame, jack_items: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(item part A + E, rater part B, interaction E) per study, clipped at 0 (see the module docstring)."""
    n, r = df["n_items"].to_numpy(float), df["raters"].to_numpy(float)
    item = df["j_i"].to_numpy() if jack_items else n / (n - 1) * df["v_i"].to_numpy()
    e = n * r / ((n - 1) * (r - 1)) * (df["v_p"].to_numpy() - (n - 1) / n * item - (r - 1) / r * df["j_r"].to_numpy())
    e = np.clip(e, 0.0, np.minimum(item, df["j_r"].to_numpy()))
    return item, np.maximum(df["j_r"].to_numpy() - e, 0.0), e


def welch(item: np.ndarray, rater: np.ndarray, n: np.ndarray, r: np.ndarray) -> np.ndarray:
    """t_{df} / z with the Welch-Satterthwaite df of ``item`` (n - 1 df) + ``rater`` (R - 1 df)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        dof = (item + rater) ** 2 / (item**2 / (n - 1) + rater**2 / (r - 1))
    return t_factor(np.nan_to_num(dof, nan=1e6, posinf=1e6) + 1)


def pair_noise_excess(df: pd.DataFrame) -> np.ndarray:
    """What the rater jackknife over-counts of the pair kappas' pair-specific item noise ``d_n``.

    For a statistic of rater pairs, ``h_jk = theta + g_j + g_k + psi_jk``, the leave-one-rater-out jackknife's
    expectation holds ``4 Var(psi) / (R (R - 2))`` where the estimate's variance holds ``2 Var(psi) / (R (R - 1))``:
    ``2 Var(psi) / ((R - 1)(R - 2))`` too much (all of ``Var(psi)`` at 3 raters).
    """
    r = df["raters"].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(r >= 3, 2 * np.maximum(df["d_n"].to_numpy(), 0.0) / ((r - 1) * (r - 2)), 0.0)


def factor(df: pd.DataFrame, cand: str) -> np.ndarray:
    if cand == "library":
        cand = LIBRARY
    if cand in ("pair-noise", "pair-noise-welch"):  # the library's rule on a rater jackknife less its pair-noise excess
        fixed = df.assign(j_r=np.maximum(df["j_r"].to_numpy() - pair_noise_excess(df), 0.0))
        return factor(fixed, "interaction" if cand == "pair-noise" else "welch")
    n, r = df["n_items"].to_numpy(float), df["raters"].to_numpy(float)
    v_p, j_r = df["v_p"].to_numpy(), df["j_r"].to_numpy()
    f2 = t_factor(r) ** 2
    if cand == "none":
        return np.ones(len(df))
    if cand == "previous":  # the rule before this study (softirr_stats 0.x few_units_correction)
        v_u = np.minimum(j_r, v_p * r / (r - 1))
        return np.sqrt((np.maximum(v_p - (r - 1) / r * v_u, 0) + f2 * v_u) / v_p)
    if cand in ("interaction", "welch", "t-rater-effect"):
        # item share less the interaction it counts again (v_i ~ (n-1)/n A), rater share v_u ~ B + E
        v_u = np.minimum(j_r, v_p * r / (r - 1))
        _, _, e = components(df)
        v_i = np.maximum(v_p - (r - 1) / r * v_u - (n - 1) / n * (1 + (r - 1) / r) * e, 0)
        if cand == "interaction":  # the library's rule: the rater share widened by t_{R-1} / z (Banerjee 1960 form)
            return np.sqrt((v_i + f2 * v_u) / v_p)
        if cand == "t-rater-effect":  # t widening of the rater main effect B only, not of the interaction E in v_u
            e = np.minimum(e, v_u)
            return np.sqrt((v_i + e + f2 * (v_u - e)) / v_p)
        # Welch-Satterthwaite: t_{df} / z on the whole, df from the item (n - 1) and rater (R - 1) shares
        return welch(v_i, v_u, n, r) * np.sqrt((v_i + v_u) / v_p)
    if cand in ("total", "total-welch"):
        # law of total variance: item bootstrap at fixed raters (unbiased: n/(n-1)) + the rater jackknife less the
        # item noise it holds (its deviations' variance over the item replicates), t on the rater part only
        item = n / (n - 1) * df["v_i"].to_numpy()
        rater = np.maximum(j_r - n / (n - 1) * df["n_r"].to_numpy(), 0.0)
        if cand == "total":
            return np.sqrt((item + f2 * rater) / v_p)
        return welch(item, rater, n, r) * np.sqrt((item + rater) / v_p)
    if cand == "welch-row+col":  # item bootstrap + rater jackknife (interaction twice), Welch-Satterthwaite t
        item = n / (n - 1) * df["v_i"].to_numpy()
        return welch(item, j_r, n, r) * np.sqrt((item + j_r) / v_p)
    if cand == "row+col":  # item bootstrap + rater jackknife (t on the rater part): the interaction once too many
        return np.sqrt((n / (n - 1) * df["v_i"].to_numpy() + f2 * j_r) / v_p)
    if cand in ("components", "components-jack"):
        item, rater, _ = components(df, jack_items=cand == "components-jack")
        return np.sqrt((item + f2 * rater) / v_p)
    if cand == "components-satterthwaite":
        item, rater, _ = components(df)
        with np.errstate(invalid="ignore", divide="ignore"):
            dof = (item + rater) ** 2 / (item**2 / (n - 1) + rater**2 / (r - 1))
        return t_factor(np.nan_to_num(dof, nan=1e6) + 1) * np.sqrt((item + rater) / v_p)
    raise ValueError(cand)


# ----------------------------------------------------------------------------------------------- study
def run_chunk(gen: str, r: int, n: int, start: int, stop: int, boot: int, seed: int,
              noise: bool = False, pairs: bool = False) -> pd.DataFrame:
    s = stop - start
    rng = np.random.default_rng([seed, GENERATORS.index(gen), r, n, start])
    lab = simulate(gen, rng, s, n, r)
    X = (lab[..., None] == np.arange(K)).astype(np.float64)
    est = fleiss(X, None, None)[:, 0]
    C = multinomial(rng, s, boot, n)
    V = multinomial(rng, s, boot, r)
    two = fleiss(X, C, V)
    item = fleiss(X, C, None)
    j_i = jack_var(fleiss(X, np.broadcast_to(1.0 - np.eye(n), (s, n, n)), None))
    j_r = jack_var(fleiss(X, None, np.broadcast_to(1.0 - np.eye(r), (s, r, r))))
    n_r = np.full(s, np.nan)
    if noise:  # the item noise in the rater jackknife: its leave-one-rater-out deviations at the item weights C
        loo = np.stack([fleiss(X, C, np.broadcast_to(1.0 - np.eye(r)[j], (s, boot, r))) for j in range(r)], axis=-1)
        n_r = (r - 1) / r * np.nanvar(loo - loo.mean(axis=-1, keepdims=True), axis=1, ddof=1).sum(axis=-1)
    d_n = np.full(s, np.nan)
    if pairs and r >= 3:  # the pair-specific item noise: Var(h_jk) - 2 Cov(h_jk, h_jl) of the pair kappas over C
        jj, kk = np.triu_indices(r, 1)
        h = np.stack([fleiss(X[:, :, [j, k]], C, None) for j, k in zip(jj, kk, strict=True)], axis=-1)  # (S, B, P)
        h = h - np.nanmean(h, axis=1, keepdims=True)
        cov = np.einsum("sbp,sbq->spq", np.nan_to_num(h), np.nan_to_num(h)) / (boot - 1)
        share = ((jj[:, None] == jj[None]) | (jj[:, None] == kk[None]) | (kk[:, None] == jj[None])
                 | (kk[:, None] == kk[None])) & ~np.eye(len(jj), dtype=bool)
        d_n = np.einsum("spp->sp", cov).mean(axis=-1) - 2 * cov[:, share].mean(axis=-1)
    a = (1 - LEVEL) / 2
    rows = []
    for i in range(s):
        t = two[i][np.isfinite(two[i])]
        lo, hi = np.percentile(t, [100 * a, 100 * (1 - a)])
        rows.append((gen, r, n, start + i, est[i], lo, hi, np.var(t, ddof=1), np.var(item[i], ddof=1), j_i[i], j_r[i],
                     n_r[i], d_n[i], boot - t.size))
    return pd.DataFrame(rows, columns=["generator", "raters", "n_items", "study", "estimate", "pct_low", "pct_high",
                                       "v_p", "v_i", "j_i", "j_r", "n_r", "d_n", "n_nan"])


TRUTH = {"latent": population_latent, "hard": population_hard}


def summarise(df: pd.DataFrame) -> pd.DataFrame:
    out = []
    for key, g in df.groupby(["generator", "raters", "n_items"], sort=True):
        truth = TRUTH[key[0]]()
        est = g["estimate"].to_numpy()
        for cand in CANDIDATES:
            if cand.startswith("total") and ("n_r" not in g or g["n_r"].isna().all()):
                continue  # needs --noise
            if cand.startswith("pair-noise") and ("d_n" not in g or g["d_n"].isna().all()):
                continue  # needs --pairs
            f = factor(g, cand)
            lo = est - f * (est - g["pct_low"].to_numpy())
            hi = np.minimum(est + f * (g["pct_high"].to_numpy() - est), 1.0)  # the library clips at 1
            cov = float(((lo <= truth) & (truth <= hi)).mean())
            out.append({"generator": key[0], "raters": key[1], "n_items": key[2], "candidate": cand,
                        "studies": len(g), "coverage": cov, "mc_se": math.sqrt(cov * (1 - cov) / len(g)),
                        "truth_below": float((truth < lo).mean()), "truth_above": float((truth > hi).mean()),
                        "width": float(np.mean(hi - lo)), "truth": truth, "bias": float(est.mean() - truth)})
    return pd.DataFrame(out)


# ----------------------------------------------------------------------------------------------- checks
def check_kernel() -> None:
    """The vectorised kernel equals the library's prepared statistic at the library's own two-way weights."""
    from softirr_stats.agreement import point_estimate, resolve_similarity
    from softirr_stats.data import Annotations
    from softirr_stats.uncertainty import Bootstrap
    from softirr_stats.uncertainty._bootstrap import draw_weights

    lab = simulate("hard", np.random.default_rng(3), 1, 40, 4)
    ann = Annotations(lab[0].astype(np.int32), list(range(K)), kind="numeric")
    _, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    C, V, _ = draw_weights(prep, Bootstrap(n=64, design="items+raters", seed=1), 0, 64)
    X = (lab[..., None] == np.arange(K)).astype(np.float64)
    want = np.asarray(prep.evaluate(C, V, None)["value"])
    got = fleiss(X, np.asarray(C)[None], np.asarray(V)[None])[0]
    if not np.allclose(want, got, rtol=0, atol=1e-10, equal_nan=True):
        raise RuntimeError("two-way kernel differs from the library")
    got_items = fleiss(X, np.asarray(C)[None], None)[0]
    if not np.allclose(np.asarray(prep.evaluate(C, None, None)["value"]), got_items, rtol=0, atol=1e-10):
        raise RuntimeError("item-only kernel differs from the library")


def check_library(rule: str = "library") -> None:
    """One study through ``sis.fleiss_kappa(ann, ci=Bootstrap(design="items+raters"))`` equals the candidate."""
    import softirr_stats as sis
    from softirr_stats.agreement import point_estimate, resolve_similarity
    from softirr_stats.data import Annotations
    from softirr_stats.uncertainty import Bootstrap, bootstrap_replicates

    lab = simulate("latent", np.random.default_rng(8), 1, 60, 3)
    ann = Annotations(lab[0].astype(np.int32), list(range(K)), kind="numeric")
    cfg = Bootstrap(n=400, design="items+raters", seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pub = sis.fleiss_kappa(ann, ci=cfg)
        _, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
        two = bootstrap_replicates(prep, cfg)["value"]
        item = bootstrap_replicates(prep, Bootstrap(n=400, design="items", seed=5))["value"]
    X = (lab[..., None] == np.arange(K)).astype(np.float64)
    t = two[np.isfinite(two)]
    lo, hi = np.percentile(t, [2.5, 97.5])
    row = pd.DataFrame([{"raters": 3, "n_items": 60, "estimate": pub.value, "pct_low": lo, "pct_high": hi,
                         "v_p": np.var(t, ddof=1), "v_i": np.var(item, ddof=1),
                         "j_i": jack_var(fleiss(X, (1.0 - np.eye(60))[None], None))[0],
                         "j_r": jack_var(fleiss(X, None, (1.0 - np.eye(3))[None]))[0]}])
    f = factor(row, rule)[0]
    want = (pub.value - f * (pub.value - lo), min(pub.value + f * (hi - pub.value), 1.0))  # the library clips at 1
    if not np.allclose(want, (pub.ci_low, pub.ci_high), rtol=0, atol=1e-10):
        raise RuntimeError(f"library interval {(pub.ci_low, pub.ci_high)} != candidate {rule!r} {want}")


def check_population(gen: str, seed: int = 11, n: int = 3000, r: int = 3000) -> None:
    lab = simulate(gen, np.random.default_rng(seed), 1, n, r)
    X = (lab[..., None] == np.arange(K)).astype(np.float64)
    print(f"{gen}: exact {TRUTH[gen]():.5f}, simulated ({n} items x {r} raters) {fleiss(X, None, None)[0, 0]:.5f}")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--raters", type=int, nargs="+", default=[3, 4, 6, 8])
    ap.add_argument("--items", type=int, nargs="+", default=[60, 200])
    ap.add_argument("--generators", nargs="+", default=list(GENERATORS), choices=GENERATORS)
    ap.add_argument("--chunk", type=int, default=20, help="studies per vectorised call")
    ap.add_argument("--seed", type=int, default=2035)
    ap.add_argument("--budget", type=float, default=math.inf, help="stop starting chunks after this many seconds")
    ap.add_argument("--noise", action="store_true",
                    help="also store n_r (R item bootstraps per study, ~6x slower) for the 'total' candidates")
    ap.add_argument("--pairs", action="store_true",
                    help="also store d_n (the pair kappas' item noise) for the 'pair-noise' candidates")
    ap.add_argument("--check", action="store_true", help="also check the population values by a large simulation")
    ap.add_argument("--library-rule", default=LIBRARY, help="the candidate the library implements (checked)")
    ap.add_argument("--out", default="docs/coverage_results/two_way")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    check_kernel()
    if args.library_rule != "skip":
        check_library(args.library_rule)
    print("kernel == library; library interval == candidate: ok", flush=True)
    if args.check:
        for gen in GENERATORS:
            check_population(gen)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "studies.csv.gz")
    done = set()
    if os.path.exists(path):
        old = pd.read_csv(path)
        done = set(zip(old["generator"], old["raters"], old["n_items"], old["study"], strict=True))
    t0 = time.perf_counter()
    for start in range(0, args.studies, args.chunk):  # every cell advances together: a cut run is balanced
        for n in args.items:
            for gen in args.generators:
                for r in args.raters:
                    if (gen, r, n, start) in done:
                        continue
                    if time.perf_counter() - t0 > args.budget:
                        break
                    part = run_chunk(gen, r, n, start, min(args.studies, start + args.chunk), args.boot, args.seed,
                                     args.noise, args.pairs)
                    part.to_csv(path, mode="a", header=not os.path.exists(path), index=False,
                                compression={"method": "gzip", "mtime": 0})
        print(f"studies {start:5d}+ done ({time.perf_counter() - t0:6.0f} s)", flush=True)
        if time.perf_counter() - t0 > args.budget:
            print("budget reached; rerun to continue", flush=True)
            break
    summary = summarise(pd.read_csv(path))
    summary.to_csv(os.path.join(args.out, "summary.csv"), index=False)
    piv = summary.pivot_table(index=["generator", "raters", "n_items", "studies"], columns="candidate",
                              values="coverage").reset_index()
    with pd.option_context("display.width", 250):
        print(piv.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
        w = summary.pivot_table(index=["generator", "raters", "n_items"], columns="candidate", values="width")
        print(w.to_string(float_format=lambda v: f"{v:.3f}"))


if __name__ == "__main__":
    main()
