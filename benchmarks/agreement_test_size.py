"""Size of the tests of "no agreement" under independent raters (issue 34, tests of agreement).

Raters label independently of one another (no agreement beyond chance). The team's generators: each
study has ``--items`` items (100), 5 raters, 4 categories, each rating missing at random with
probability 0.1:

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

A generator written fresh for this study:

``sparse_ordinal``
    a small study: 40 items, 4 raters, 5 ordered categories, raters of different severity (label
    distributions shifted up or down) and missingness that depends on the rater (each rating missing
    with probability 0, 0.15, 0.35 and 0.5 for raters 1-4, so items carry 1-4 ratings). "Soft" here
    is the quadratic similarity ``1 - ((k - l) / 4)^2``; for alpha it gives Krippendorff's interval
    metric (alpha is invariant to the scale of the distance), and the analytic column uses
    ``level="interval"``.

Tests compared on the same studies (5% level):

``analytic``
    ``ci="analytic"``'s ``p_value``: two-sided test of H0: coefficient = 0 (Fleiss-Nee-Landis / irrCAC).
``analytic_greater``
    its one-sided version, H1: coefficient > 0 (``details["p_value_greater"]``).
``permutation``
    the permutation test of ``sis.permutation_test`` (each rater's labels permuted over the items it
    rated; two-sided mid-p; ``--permutations`` B, 1999 by default as in ``softirr agree --test``).
    It is computed here vectorised across studies and permutations (:func:`permute_labels`,
    :func:`label_counts`, :func:`coefficients`, :func:`permutation_pvalues`: no loop over either); :func:`check_library`
    checks at start-up that the coefficient on permuted data sets and the p-value equal the library's.
``permutation_greater``
    the permutation test's one-sided p-value (H1: more agreement than under independence).

Coefficients: Fleiss' kappa and Krippendorff's alpha, hard (exact match) and soft (the team's
generators: a similarity giving 0.6 credit between categories 0 and 1).

Run::

    python benchmarks/agreement_test_size.py --studies 1000 --out docs/coverage_results/test_size
    python benchmarks/agreement_test_size.py --scenarios sparse_ordinal --studies 3000 \\
        --out docs/coverage_results/test_size

Resumable: per-study rows are appended to ``test_size_studies.csv.gz`` (analytic tests, one library call
per study) and ``permutation_studies.csv.gz`` (permutation tests, vectorised); studies already there are
skipped. A study's data come from its own seed ``(seed, scenario, items, study)``, so the four coefficients
of a scenario, and the analytic and permutation tests, are computed on the same data sets. The columns
``p_permutation*`` of ``test_size_studies.csv.gz`` hold the library's own per-study permutation test
(B = 199) on the first 200 studies of the first three scenarios, from an earlier run; the summary reports
how often its decision agrees with the vectorised test's.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import time
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

import softirr_stats as sis
from softirr_stats.data import Annotations

K = 4
MARGINS = np.array([[0.55, 0.25, 0.15, 0.05], [0.25, 0.45, 0.20, 0.10], [0.10, 0.20, 0.30, 0.40],
                    [0.40, 0.10, 0.40, 0.10], [0.30, 0.30, 0.20, 0.20]])
OPPOSED = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.7, 0.1, 0.1], [0.1, 0.1, 0.7, 0.1], [0.1, 0.1, 0.1, 0.7],
                    [0.4, 0.4, 0.1, 0.1]])
SOFT = np.eye(K)
SOFT[0, 1] = SOFT[1, 0] = 0.6
MISSING = 0.1
#: the fresh generator: severe to lenient raters on a 5-point scale, missingness by rater
ORDINAL = np.array([[0.30, 0.30, 0.20, 0.15, 0.05], [0.10, 0.20, 0.40, 0.20, 0.10],
                    [0.05, 0.15, 0.25, 0.30, 0.25], [0.20, 0.20, 0.20, 0.20, 0.20]])
ORDINAL_MISSING = np.array([0.0, 0.15, 0.35, 0.5])
QUADRATIC = 1.0 - (np.subtract.outer(np.arange(5), np.arange(5)) / 4.0) ** 2
COEFFICIENTS = ("fleiss_kappa", "krippendorff_alpha")


@dataclass(frozen=True)
class Scenario:
    """A null generator: every rater draws its labels from its own distribution, independently."""

    name: str
    margins: np.ndarray  # (R, K) each rater's label distribution
    missing: np.ndarray  # (R,) probability that a rater's rating is missing
    soft: np.ndarray  # (K, K) the soft similarity
    items: int | None = None  # fixed number of items (None: --items)

    @property
    def k(self) -> int:
        return self.margins.shape[1]


SCENARIOS = {
    "unequal": Scenario("unequal", MARGINS, np.full(5, MISSING), SOFT),
    "opposed": Scenario("opposed", OPPOSED, np.full(5, MISSING), SOFT),
    "exchangeable": Scenario("exchangeable", np.repeat(MARGINS.mean(axis=0, keepdims=True), 5, 0),
                             np.full(5, MISSING), SOFT),
    "sparse_ordinal": Scenario("sparse_ordinal", ORDINAL, ORDINAL_MISSING, QUADRATIC, items=40),
}
CELLS = [(scenario, coef, soft) for scenario in SCENARIOS for coef in COEFFICIENTS for soft in (False, True)]


def margins(scenario: str) -> np.ndarray:
    return SCENARIOS[scenario].margins


def simulate(rng: np.random.Generator, n: int, m: np.ndarray, missing: np.ndarray | float = MISSING) -> np.ndarray:
    """Labels (n, R), ``-1`` missing: rater r draws from ``m[r]`` and misses with probability ``missing[r]``."""
    cum = np.cumsum(m, axis=1)  # (R, K)
    lab = (rng.random((n, len(m), 1)) > cum[None]).sum(axis=2)
    lab[rng.random(lab.shape) < np.broadcast_to(missing, (len(m),))] = -1
    return lab.astype(np.int32)


def population(coef: str, m: np.ndarray, sim: np.ndarray, missing: np.ndarray | float = 0.0) -> float:
    """Large-sample value of the library's coefficient under independence, exact.

    Sums over the ``2^R`` patterns of observed raters (missing independently by rater with probability
    ``missing[r]``). Fleiss: observed agreement averaged over items with two or more ratings, chance from
    the pooled distribution of per-item label proportions over items with a rating; alpha: the
    coincidence form ``1 - D_o / D_e`` over items with two or more ratings. With no missing data or the
    same missing rate for every rater both reduce to ``(P_o - P_e) / (1 - P_e)`` with ``P_o`` the mean
    over rater pairs of ``m_r S m_s`` and ``P_e = q S q``, ``q`` the raters' mean distribution.
    """
    r = len(m)
    miss = np.broadcast_to(np.asarray(missing, dtype=float), (r,))
    pair = m @ sim @ m.T  # E[s(x_r, x_s)]
    pa_num = ok_mass = pi_num = rated = do_num = n_tot = 0.0
    nk = np.zeros(m.shape[1])
    for pattern in itertools.product((False, True), repeat=r):
        o = np.array(pattern)
        prob = float(np.prod(np.where(o, 1 - miss, miss)))
        k = int(o.sum())
        if prob == 0.0 or k == 0:
            continue
        rated += prob
        pi_num = pi_num + prob * m[o].sum(axis=0) / k
        if k < 2:
            continue
        sub = pair[np.ix_(o, o)]
        agree = sub.sum() - np.trace(sub)  # ordered pairs of distinct raters
        pa_num += prob * agree / (k * (k - 1))
        ok_mass += prob
        do_num += prob * (k * (k - 1) - agree) / (k - 1)
        n_tot += prob * k
        nk = nk + prob * m[o].sum(axis=0)
    if coef == "fleiss_kappa":
        pa, pi = pa_num / ok_mass, pi_num / rated
        pe = pi @ sim @ pi
        return float((pa - pe) / (1 - pe))
    if coef == "krippendorff_alpha":
        q = nk / n_tot
        return float(1.0 - (do_num / n_tot) / (1.0 - q @ sim @ q))
    raise ValueError(f"coef must be one of {list(COEFFICIENTS)}; got {coef!r}")


# --------------------------------------------------------------------------------------------
# the permutation test, vectorised over studies and permutations


def permute_labels(lab: np.ndarray, n_perm: int, rng: np.random.Generator) -> np.ndarray:
    """``n_perm`` permuted copies of every study's labels ``lab`` (S, n, R): shape (S, n_perm, n, R).

    In each copy every rater's labels are shuffled over the items it rated (missing ratings stay
    where they are), independently per study, copy and rater, as in ``sis.permutation_test``.
    """
    s, n, r = lab.shape
    missing = lab < 0
    tgt = np.argsort(missing, axis=1, kind="stable")  # slot j -> the rater's j-th observed item (missing last)
    keys = rng.random((s, n_perm, n, r), dtype=np.float32) + 2.0 * missing[:, None]
    src = np.argsort(keys, axis=2)  # slot j <- a random observed item of the rater (missing ones last)
    inv = np.argsort(tgt, axis=1)  # item i is slot inv[i], so it gets the label of item src[inv[i]]
    idx = np.take_along_axis(src, np.broadcast_to(inv[:, None], src.shape), axis=2)
    return np.take_along_axis(np.broadcast_to(lab[:, None], src.shape), idx, axis=2)


def label_counts(lab: np.ndarray, k: int) -> np.ndarray:
    """Per-item label counts (..., n, k) of labels (..., n, R) (``-1``: missing)."""
    return (lab[..., None] == np.arange(k, dtype=lab.dtype)).sum(axis=-2, dtype=np.int16)


def coefficients(counts: np.ndarray, sim: np.ndarray) -> dict[str, np.ndarray]:
    """Fleiss' kappa and Krippendorff's alpha (the library's definitions) from counts (..., n, k).

    Fleiss: mean over items with two or more ratings of the item's pair agreement; chance
    ``pi S pi`` with ``pi`` the mean over rated items of their label proportions. Alpha:
    ``1 - D_o / D_e`` from the coincidence counts of the items with two or more ratings.
    """
    c = counts.astype(np.float64)
    r = c.sum(axis=-1)
    pairs = r * (r - 1.0)
    ok = r >= 2
    rated = r > 0
    agree = np.einsum("...k,kl,...l->...", c, sim, c) - c @ np.diag(sim)  # summed over ordered pairs
    with np.errstate(invalid="ignore", divide="ignore"):
        pa = np.where(ok, agree / np.where(ok, pairs, 1.0), 0.0).sum(axis=-1) / ok.sum(axis=-1)
        pi = (c / np.where(rated, r, 1.0)[..., None]).sum(axis=-2) / rated.sum(axis=-1)[..., None]
        pe = np.einsum("...k,kl,...l->...", pi, sim, pi)
        kappa = np.where(pe < 1, (pa - pe) / (1 - pe), np.nan)
        do_num = np.where(ok, (pairs - agree) / np.where(ok, r - 1.0, 1.0), 0.0).sum(axis=-1)
        big_n = np.where(ok, r, 0.0).sum(axis=-1)
        nk = (ok[..., None] * c).sum(axis=-2)
        de = (big_n**2 - np.einsum("...k,kl,...l->...", nk, sim, nk)) / (big_n * (big_n - 1.0))
        alpha = np.where(de > 0, 1.0 - (do_num / big_n) / np.where(de > 0, de, 1.0), np.nan)
    return {"fleiss_kappa": kappa, "krippendorff_alpha": alpha}


def permutation_pvalues(t: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided and one-sided (greater) mid-p-values as ``attach_permutation``: ``t`` (S,), ``vals`` (S, B).

    Permuted values that are nan are left out (as the library does); a nan ``t`` gives nan.
    """
    ok = np.isfinite(vals)
    m = ok.sum(axis=1)
    eps = 1e-12 * np.maximum(1.0, np.abs(t))[:, None]
    above = (ok & (vals > t[:, None] + eps)).sum(axis=1)
    below = (ok & (vals < t[:, None] - eps)).sum(axis=1)
    ties = m - above - below + 1.0
    upper = (above + 0.5 * ties) / (m + 1.0)
    lower = (below + 0.5 * ties) / (m + 1.0)
    bad = ~np.isfinite(t) | (m == 0)
    two = np.where(bad, np.nan, np.minimum(1.0, 2.0 * np.minimum(upper, lower)))
    return two, np.where(bad, np.nan, upper)


def permutation_studies(lab: np.ndarray, sc: Scenario, n_perm: int,
                        rng: np.random.Generator) -> dict[tuple[str, bool], tuple[np.ndarray, ...]]:
    """(coefficient, soft) -> (estimate, two-sided p, one-sided p), each (S,), for studies ``lab`` (S, n, R)."""
    obs = label_counts(lab, sc.k)[:, None]
    perm = label_counts(permute_labels(lab, n_perm, rng), sc.k)
    out = {}
    for soft in (False, True):
        sim = sc.soft if soft else np.eye(sc.k)
        t, vals = coefficients(obs, sim), coefficients(perm, sim)
        for coef in COEFFICIENTS:
            two, greater = permutation_pvalues(t[coef][:, 0], vals[coef])
            out[(coef, soft)] = (t[coef][:, 0], two, greater)
    return out


def library_options(sc: Scenario, coef: str, soft: bool) -> dict:
    """The library's keyword options for a cell (the fresh generator's soft alpha is ``level="interval"``)."""
    if not soft:
        return {}
    if sc.name == "sparse_ordinal" and coef == "krippendorff_alpha":
        return {"level": "interval"}
    return {"similarity": sc.soft}


def check_library(n_perm: int = 99, copies: int = 4) -> None:
    """The vectorised permutation test equals the library's, on one study of every scenario.

    1. The permutation keeps the missing cells and each rater's labels; on ``copies`` permuted data
       sets every coefficient (hard and soft) equals ``sis.<coefficient>`` on the same data.
    2. On the library's own permuted values (``permutation_values``, ``n_perm`` permutations),
       :func:`permutation_pvalues` gives ``sis.permutation_test``'s ``p_value`` and ``p_value_greater``.
    """
    from softirr_stats.agreement import point_estimate, resolve_similarity
    from softirr_stats.uncertainty import Permutation, permutation_values

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, sc in enumerate(SCENARIOS.values()):
            lab = simulate(np.random.default_rng([99, i]), sc.items or 60, sc.margins, sc.missing)
            perm = permute_labels(lab[None], copies, np.random.default_rng(i))[0]
            if not ((perm < 0) == (lab < 0)).all() or not (np.sort(perm, axis=1) == np.sort(lab, axis=0)).all():
                raise RuntimeError(f"{sc.name}: a permuted copy changed the missing cells or a rater's labels")
            for soft in (False, True):
                ours = coefficients(label_counts(perm, sc.k), sc.soft if soft else np.eye(sc.k))
                for coef in COEFFICIENTS:
                    lib = [getattr(sis, coef)(Annotations(p, list(range(sc.k)), kind="numeric"),
                                              **library_options(sc, coef, soft)).value for p in perm]
                    if not np.allclose(ours[coef], lib, rtol=0, atol=1e-10):
                        raise RuntimeError(f"{sc.name} {coef} soft={soft}: {ours[coef]} != library {lib}")
            ann = Annotations(lab, list(range(sc.k)), kind="numeric")
            for coef, family, sim in (("fleiss_kappa", "pooled", None), ("krippendorff_alpha", "alpha", sc.soft)):
                res, prep = point_estimate(ann, family=family, coefficient=coef,
                                           sim=resolve_similarity(ann, similarity=sim))
                vals = permutation_values(prep, Permutation(n=n_perm, seed=3))
                two, greater = permutation_pvalues(np.array([res.value]), vals[None])
                lib = sis.permutation_test(coef, ann, n=n_perm, seed=3, similarity=sim)
                if not (np.isclose(two[0], lib.p_value, rtol=0, atol=1e-12)
                        and np.isclose(greater[0], lib.details["p_value_greater"], rtol=0, atol=1e-12)):
                    raise RuntimeError(f"{sc.name} {coef}: p ({two[0]}, {greater[0]}) != library "
                                       f"({lib.p_value}, {lib.details['p_value_greater']})")


# --------------------------------------------------------------------------------------------
# the study


def study_labels(seed: int, scenario: str, n: int, studies: range) -> np.ndarray:
    """The studies' data sets (S, n, R), each from its own seed (the same data for every test and coefficient)."""
    sc = SCENARIOS[scenario]
    si = list(SCENARIOS).index(scenario)
    return np.stack([simulate(np.random.default_rng([seed, si, n, s]), n, sc.margins, sc.missing) for s in studies])


def analytic_row(lab: np.ndarray, sc: Scenario, coef: str, soft: bool) -> dict:
    """The library's analytic test on one study."""
    a = getattr(sis, coef)(Annotations(lab, list(range(sc.k)), kind="numeric"), ci="analytic",
                           **library_options(sc, coef, soft))
    return {"estimate": a.value, "p_analytic": a.p_value,
            "p_analytic_greater": a.details.get("p_value_greater", math.nan),
            "p_permutation": math.nan, "p_permutation_greater": math.nan}


def _done(path: str, keys: list[str]) -> set:
    if not os.path.exists(path):
        return set()
    old = pd.read_csv(path, usecols=keys)
    return set(zip(*(old[k] for k in keys), strict=True))


def _append(path: str, rows: list[dict]) -> None:
    if rows:
        pd.DataFrame(rows).to_csv(path, mode="a", header=not os.path.exists(path), index=False)


def run_analytic(path: str, args: argparse.Namespace, t0: float) -> None:
    done = _done(path, ["scenario", "coefficient", "soft", "n_items", "study"])
    for scenario, coef, soft in CELLS:
        if scenario not in args.scenarios:
            continue
        sc = SCENARIOS[scenario]
        for n in [sc.items] if sc.items else args.items:
            todo = [s for s in range(args.studies) if (scenario, coef, soft, n, s) not in done]
            truth = population(coef, sc.margins, sc.soft if soft else np.eye(sc.k), sc.missing)
            for start in range(0, len(todo), 100):
                if time.perf_counter() - t0 > args.budget:
                    return
                chunk = todo[start:start + 100]
                labs = study_labels(args.seed, scenario, n, chunk)
                _append(path, [{"scenario": scenario, "coefficient": coef, "soft": soft, "n_items": n, "study": s,
                                "population": truth, **analytic_row(lab, sc, coef, soft)}
                               for s, lab in zip(chunk, labs, strict=True)])
            print(f"analytic    {scenario:14s} {coef:18s} soft={soft!s:5s} n={n}: "
                  f"{time.perf_counter() - t0:6.0f} s", flush=True)


def run_permutation(path: str, args: argparse.Namespace, t0: float) -> None:
    done = _done(path, ["scenario", "n_items", "permutations", "study"])
    for si, (scenario, sc) in enumerate(SCENARIOS.items()):
        if scenario not in args.scenarios:
            continue
        for n in [sc.items] if sc.items else args.items:
            todo = [s for s in range(args.studies) if (scenario, n, args.permutations, s) not in done]
            per_chunk = max(1, int(args.chunk_entries // (args.permutations * n * len(sc.margins))))
            for start in range(0, len(todo), per_chunk):
                if time.perf_counter() - t0 > args.budget:
                    return
                chunk = todo[start:start + per_chunk]
                rng = np.random.default_rng([args.seed, si, n, args.permutations, chunk[0]])
                res = permutation_studies(study_labels(args.seed, scenario, n, chunk), sc, args.permutations, rng)
                _append(path, [{"scenario": scenario, "coefficient": coef, "soft": soft, "n_items": n,
                                "permutations": args.permutations, "study": s, "estimate": est[j],
                                "p_permutation": two[j], "p_permutation_greater": greater[j]}
                               for (coef, soft), (est, two, greater) in res.items()
                               for j, s in enumerate(chunk)])
            print(f"permutation {scenario:14s} n={n} B={args.permutations}: {time.perf_counter() - t0:6.0f} s",
                  flush=True)


def _rate(p: pd.Series, level: float) -> tuple[int, float, float]:
    p = p.dropna()
    if not len(p):
        return 0, math.nan, math.nan
    rej = float((p < level).mean())
    return len(p), rej, math.sqrt(rej * (1 - rej) / len(p))


def summarise(analytic: pd.DataFrame, perm: pd.DataFrame, level: float = 0.05) -> pd.DataFrame:
    """Rejection rates per cell with Monte Carlo SEs; the permutation test from the vectorised rows."""
    keys = ["scenario", "coefficient", "soft", "n_items"]
    out = []
    for key, g in analytic.groupby(keys, sort=True):
        row = dict(zip(keys, key, strict=True))
        row["population"] = g["population"].iloc[0]
        row["mean_estimate"] = g["estimate"].mean()
        for t in ("analytic", "analytic_greater"):
            row[f"{t}_studies"], row[f"{t}_rejects"], row[f"{t}_mc_se"] = _rate(g[f"p_{t}"], level)
        pg = perm[(perm[keys] == pd.Series(row)[keys]).all(axis=1)]
        row["permutations"] = int(pg["permutations"].max()) if len(pg) else 0
        pg = pg[pg["permutations"] == row["permutations"]]
        for t in ("permutation", "permutation_greater"):
            row[f"{t}_studies"], row[f"{t}_rejects"], row[f"{t}_mc_se"] = _rate(pg[f"p_{t}"], level)
        # the library's per-study test (B = 199) on the studies where an earlier run has it: same decision?
        both = g.dropna(subset=["p_permutation"]).merge(pg, on="study", suffixes=("_lib", ""))
        row["library_permutation_studies"] = len(both)
        row["library_permutation_rejects"] = float((both["p_permutation_lib"] < level).mean()) if len(both) else math.nan
        row["same_decision"] = (float(((both["p_permutation_lib"] < level) == (both["p_permutation"] < level)).mean())
                                if len(both) else math.nan)
        row["max_estimate_diff"] = float((both["estimate_lib"] - both["estimate"]).abs().max()) if len(both) else math.nan
        out.append(row)
    return pd.DataFrame(out)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--permutations", type=int, default=1999, help="B of the permutation test (the CLI's default)")
    ap.add_argument("--items", type=int, nargs="+", default=[100], help="items of the team's generators")
    ap.add_argument("--seed", type=int, default=3434)
    ap.add_argument("--chunk-entries", type=float, default=2e7, help="studies x B x items x raters per batch")
    ap.add_argument("--budget", type=float, default=math.inf, help="stop after this many seconds (rerun to resume)")
    ap.add_argument("--scenarios", nargs="+", choices=list(SCENARIOS), default=list(SCENARIOS))
    ap.add_argument("--skip-analytic", action="store_true", help="run only the permutation test")
    ap.add_argument("--out", default="docs/coverage_results/test_size")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    check_library()
    print("vectorised coefficients and p-values == the library's: ok", flush=True)
    os.makedirs(args.out, exist_ok=True)
    apath = os.path.join(args.out, "test_size_studies.csv.gz")
    ppath = os.path.join(args.out, "permutation_studies.csv.gz")
    t0 = time.perf_counter()
    run_permutation(ppath, args, t0)
    if not args.skip_analytic:
        run_analytic(apath, args, t0)
    summary = summarise(pd.read_csv(apath), pd.read_csv(ppath))
    summary.to_csv(os.path.join(args.out, "summary.csv"), index=False)
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        print(summary.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
