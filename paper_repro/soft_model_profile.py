"""A prior-free interval for the soft model's kappa: the profile likelihood along the identified range.

Issue 34 left two NUTS cells of the soft model off target: heavy tails (83.7%, the truth at
the upper end of the range the scores leave open) and calibrated probabilities (96.7%), both
because the monotone emission only partly identifies kappa and the emission's prior decides
where in the range the posterior sits (docs/annotator_models.md, "Where the scores leave kappa
open"). The note of that round named what might repair it: an interval that covers the
whole identified range, measured by the profile of the likelihood along it. This script builds
that interval and measures its coverage on the NUTS study's studies.

**The likelihood.** The monotone emission's cell model with one equivalence rate for the
within-item pairs (``p``) and one for the chance pairs (``q``), fitted to the cell counts
``G`` (within-item scores) and ``H`` (chance scores) on ``n_bins`` equal cells and the atoms
at 0 and 1: ``g = p F1 + (1 - p) F0``, ``h = q F1 + (1 - q) F0``, with ``F1`` a mixture of
``U[e_b, 1]`` and a mass at 1 and ``F0`` a mixture of ``U[0, e_{b+1}]`` and a mass at 0 (the
model's own pieces, :func:`softirr_stats.models._soft._monotone_log_density`). The emission
is the same for every rater, so the within-item scores' marginal is exactly that mixture
with ``p`` the mean equivalence rate of the pairs; rater effects change nothing in it. The
pairs of one item are dependent, so this is a composite likelihood.

**The profile.** For each kappa on a grid (``p = q + kappa (1 - q)``) and each ``q`` on a
grid around the chance rate, the emission's weights that maximise the likelihood: with the
rates fixed the log-likelihood is concave in the weights and EM reaches its maximum. The
profile at kappa is the best over ``q``. Its ``level`` set (likelihood ratio at most the
chi-square quantile with one degree of freedom) is flat across the identified range.

**The interval.** The studies' truth is the realized kappa of the study's pairs (the share
of equivalent pairs among the observed within-item pairs against the chance rate of all
cross-item rating pairs), so each kappa of the set is mapped to the realized estimate of
the fit at it: the within-item pairs' mean P(equivalent | score), against the chance pairs'
mean, with the spread of the pairs' own indicators (``sum r (1 - r)``) and of the sampled
chance pairs (binomial) as a standard error. The interval is the union over the set of
``estimate -+ z se``. Where the scores identify kappa (bands: the responsibilities are 0 or
1 whatever ``p``), the map collapses the set to one estimate.

Usage::

    python paper_repro/soft_model_profile.py --studies 300 --out rows.csv   # resumable
    python paper_repro/soft_model_profile.py --table rows.csv
    # against the NUTS fits of the same studies: the union of the two intervals, and whether
    # the profile's reach beyond the posterior interval singles out the posterior's misses
    python paper_repro/soft_model_profile.py --table rows.csv \\
        --nuts docs/soft_model_robustness/nuts_study.csv
"""

import argparse
import csv
import os
import pathlib
import sys
import time

import numpy as np

#: Shapes of the monotone family (the identified-range table of
#: paper_repro.soft_model_identification): where the interval is meant to hold.
SHAPES = ("bands", "point_masses", "heavy_tails", "calibrated")
COLUMNS = ("shape", "seed", "truth", "estimate", "lower", "upper", "covered", "set_lower",
           "set_upper", "at_edge", "seconds")


def cell_bases(n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Cell masses of the monotone emission's pieces, ``(A1, A0)``, each ``(n_bins + 1, n_bins + 2)``.

    Rows of ``A1``: ``U[e_b, 1]`` for ``b = 0..n_bins-1``, then the mass at exactly 1; rows of
    ``A0``: ``U[0, e_{b+1}]``, then the mass at exactly 0. Columns: the equal cells of (0, 1),
    then exact 0, exact 1 (:func:`softirr_stats.models._soft.score_cells`).

    Examples
    --------
    >>> a1, a0 = cell_bases(4)
    >>> a1[1].tolist(), a0[1].tolist(), a1.sum(1).tolist() == [1.0] * 5
    ([0.0, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333, 0.0, 0.0], [0.5, 0.5, 0.0, 0.0, 0.0, 0.0], True)
    """
    c = np.arange(n_bins)[None, :]
    b = np.arange(n_bins)[:, None]
    a1, a0 = np.zeros((n_bins + 1, n_bins + 2)), np.zeros((n_bins + 1, n_bins + 2))
    a1[:n_bins, :n_bins] = np.where(c >= b, 1.0 / (n_bins - b), 0.0)
    a0[:n_bins, :n_bins] = np.where(c <= b, 1.0 / (b + 1), 0.0)
    a1[n_bins, n_bins + 1] = a0[n_bins, n_bins] = 1.0
    return a1, a0


def _mixtures(w1, w0, a1, a0, p, q):
    f1, f0 = w1 @ a1, w0 @ a0
    return f1, f0, p * f1 + (1.0 - p) * f0, q * f1 + (1.0 - q) * f0


def _ratio(n, m):
    return np.divide(n, m, out=np.zeros_like(m), where=n > 0)


def _loglik(n, m):
    return np.where(n > 0, n * np.log(np.maximum(m, 1e-300)), 0.0).sum(-1)


def fit_emission(G, H, p, q, *, n_bins: int, iters: int = 1000, free_rates: bool = False):
    """Maximum-likelihood emission weights at the rates ``(p, q)`` (arrays: one problem each).

    EM over the pieces: with the rates fixed the log-likelihood is concave in the weights.
    ``free_rates`` also updates ``p`` and ``q`` (the unconstrained maximum).

    Returns ``(loglik, w1, w0, p, q)``, the first per problem.

    Examples
    --------
    >>> G = np.r_[np.zeros(6), 10.0, 10.0, 0, 0]; H = np.r_[10.0, 10.0, np.zeros(8)]
    >>> ll, w1, w0, p, q = fit_emission(G, H, np.array([0.5]), np.array([0.5]), n_bins=8,
    ...                                 free_rates=True)
    >>> round(float(p[0]), 3), round(float(q[0]), 3)
    (1.0, 0.0)
    """
    a1, a0 = cell_bases(n_bins)
    p = np.asarray(p, np.float64)[:, None]
    q = np.asarray(q, np.float64)[:, None]
    k = n_bins + 1
    w1, w0 = np.full((p.shape[0], k), 1.0 / k), np.full((p.shape[0], k), 1.0 / k)
    nw, nc = G.sum(), H.sum()
    for _ in range(iters):
        f1, f0, g, h = _mixtures(w1, w0, a1, a0, p, q)
        rg, rh = _ratio(G, g), _ratio(H, h)
        if free_rates:
            p = (rg * p * f1).sum(-1, keepdims=True) / nw
            q = (rh * q * f1).sum(-1, keepdims=True) / nc
        w1 = w1 * ((p * rg + q * rh) @ a1.T)
        w0 = w0 * (((1.0 - p) * rg + (1.0 - q) * rh) @ a0.T)
        w1 /= w1.sum(-1, keepdims=True)
        w0 /= w0.sum(-1, keepdims=True)
    _, _, g, h = _mixtures(w1, w0, a1, a0, p, q)
    return _loglik(G, g) + _loglik(H, h), w1, w0, p[:, 0], q[:, 0]


def realized_kappa(G, H, w1, w0, p, q, *, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """The realized kappa a fit gives (within-item pairs' mean P(equivalent | score) against
    the chance pairs') and its standard error (the pairs' own indicators; the chance pairs
    as a binomial sample of the chance population), per fit."""
    a1, a0 = cell_bases(n_bins)
    f1, f0, g, h = _mixtures(w1, w0, a1, a0, p[:, None], q[:, None])
    rg = p[:, None] * f1 / np.maximum(g, 1e-300)
    rh = q[:, None] * f1 / np.maximum(h, 1e-300)
    nw, nc = G.sum(), H.sum()
    pw, pc = (G * rg).sum(-1) / nw, (H * rh).sum(-1) / nc
    var_w = (G * rg * (1.0 - rg)).sum(-1) / nw**2
    var_c = pc * (1.0 - pc) / nc
    kappa = (pw - pc) / (1.0 - pc)
    se = np.sqrt(var_w / (1.0 - pc) ** 2 + var_c * ((1.0 - pw) / (1.0 - pc) ** 2) ** 2)
    return kappa, se


def profile_interval(within_scores, chance_scores, *, level: float = 0.9, n_bins: int = 20,
                     kappa_span: float = 0.3, kappa_step: float = 0.005, n_q: int = 16,
                     iters: int = 1000) -> dict:
    """The profile-likelihood interval of the realized kappa (module docstring).

    Returns ``estimate`` (at the unconstrained maximum), ``lower``, ``upper``, the kappa set
    ``set_lower`` / ``set_upper`` and ``at_edge`` (the set reached the grid's end: widen
    ``kappa_span``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> eq = rng.random(450) < 0.5
    >>> ws = np.where(eq, rng.uniform(0.6, 1.0, 450), rng.uniform(0.0, 0.35, 450))
    >>> cs = np.where(rng.random(1000) < 0.03, rng.uniform(0.6, 1, 1000), rng.uniform(0, 0.35, 1000))
    >>> r = profile_interval(ws, cs, iters=200)
    >>> bool(r["lower"] < r["estimate"] < r["upper"]), round(r["upper"] - r["lower"], 2)
    (True, 0.01)
    """
    from scipy import stats

    from softirr_stats.models._soft import score_cells

    G = np.bincount(score_cells(within_scores, n_bins), minlength=n_bins + 2).astype(np.float64)
    H = np.bincount(score_cells(chance_scores, n_bins), minlength=n_bins + 2).astype(np.float64)
    ll_hat, w1, w0, p_hat, q_hat = fit_emission(G, H, [0.5], [0.1], n_bins=n_bins, iters=iters,
                                                free_rates=True)
    est, _ = realized_kappa(G, H, w1, w0, p_hat, q_hat, n_bins=n_bins)
    k_hat = (p_hat[0] - q_hat[0]) / (1.0 - q_hat[0])
    half = int(round(kappa_span / kappa_step))
    kg = np.clip(k_hat + kappa_step * np.arange(-half, half + 1), -0.99, 0.999)
    q_se = np.sqrt(max(q_hat[0] * (1 - q_hat[0]), 1e-4) / H.sum())
    qg = np.linspace(max(q_hat[0] - 4 * q_se, 1e-4), min(q_hat[0] + 4 * q_se, 0.999), n_q)
    K, Q = np.meshgrid(kg, qg, indexing="ij")
    P = Q + K * (1.0 - Q)
    ok = (P > 0) & (P < 1)
    ll, w1, w0, p, q = fit_emission(G, H, np.where(ok, P, 0.5).ravel(), Q.ravel(),
                                    n_bins=n_bins, iters=iters)
    ll = np.where(ok.ravel(), ll, -np.inf).reshape(K.shape)
    best = np.arange(kg.size) * qg.size + ll.argmax(1)
    prof = ll.max(1)
    lr = 2.0 * (max(prof.max(), ll_hat[0]) - prof)
    inside = lr <= stats.chi2.ppf(level, 1)
    kappa, se = realized_kappa(G, H, w1[best], w0[best], p[best], q[best], n_bins=n_bins)
    z = stats.norm.ppf(0.5 + level / 2)
    return {"estimate": float(est[0]),
            "lower": float(np.min((kappa - z * se)[inside], initial=est[0])),
            "upper": float(np.max((kappa + z * se)[inside], initial=est[0])),
            "set_lower": float(kg[inside].min(initial=k_hat)),
            "set_upper": float(kg[inside].max(initial=k_hat)),
            "at_edge": bool(inside[0] or inside[-1])}


def _done(path: str | None) -> set:
    if not path or not os.path.exists(path):
        return set()
    with open(path) as fh:
        return {(r["shape"], int(r["seed"])) for r in csv.DictReader(fh)}


def run(shapes, studies: int, seed0: int, out: str | None = None, level: float = 0.9) -> list:
    """Fit the profile interval to studies ``seed0 .. seed0 + studies - 1`` of each shape
    (the NUTS study's simulation); one row each, appended to ``out`` as it finishes."""
    from paper_repro.soft_model_robustness import _append_csv, simulate_study

    done, rows = _done(out), []
    for s in range(studies):
        for shape in shapes:
            if (shape, seed0 + s) in done:
                continue
            sim = simulate_study(shape, seed0 + s)
            t = time.time()
            r = profile_interval(sim["data"].within_scores, sim["data"].chance_scores, level=level)
            row = {"shape": shape, "seed": seed0 + s, "truth": sim["kappa"], **r,
                   "covered": r["lower"] <= sim["kappa"] <= r["upper"],
                   "seconds": round(time.time() - t, 3)}
            rows.append({c: row[c] for c in COLUMNS})
            if out:
                _append_csv(out, rows[-1])
    return rows


def table(rows: list) -> str:
    """Markdown per shape: studies, coverage (MC SE), bias of the estimate (MC SE), mean width,
    studies whose set reached the grid's end."""
    lines = ["| shape | studies | coverage (MC SE) | bias (MC SE) | width | set at the grid's end |",
             "|---|---|---|---|---|---|"]
    for shape in dict.fromkeys(r["shape"] for r in rows):
        sub = [r for r in rows if r["shape"] == shape]
        n = len(sub)
        cov = np.mean([str(r["covered"]) == "True" for r in sub])
        err = np.array([float(r["estimate"]) - float(r["truth"]) for r in sub])
        width = np.mean([float(r["upper"]) - float(r["lower"]) for r in sub])
        edge = sum(str(r["at_edge"]) == "True" for r in sub)
        se = err.std(ddof=1) / np.sqrt(n) if n > 1 else np.nan
        lines.append(f"| {shape} | {n} | {cov:.1%} ({np.sqrt(cov * (1 - cov) / n):.1%}) | "
                     f"{err.mean():+.4f} ({se:.4f}) | {width:.3f} | {edge} |")
    return "\n".join(lines)


def compare(rows: list, nuts_rows: list, reach: float = 0.5) -> str:
    """Markdown per shape, over the studies both files hold (keys: shape and seed; the NUTS
    rows of the monotone emission): coverage and width of the profile interval, the posterior
    interval and their union, and how many of the posterior's misses and covering fits have a
    profile interval reaching beyond the posterior interval by more than ``reach`` posterior
    half-widths (on either side): a per-fit check would flag those."""
    nuts = {(r["shape"], int(r["seed"])): r for r in nuts_rows
            if r.get("emission", "monotone") == "monotone"}
    lines = ["| shape | studies | profile: coverage, width | posterior: coverage, width | "
             f"union: coverage, width | reach > {reach} half-widths: misses, covering fits |",
             "|---|---|---|---|---|---|"]
    for shape in dict.fromkeys(r["shape"] for r in rows):
        both = [(r, nuts[(shape, int(r["seed"]))]) for r in rows
                if r["shape"] == shape and (shape, int(r["seed"])) in nuts]
        if not both:
            continue
        f = {k: np.array([float(a[k]) for a, _ in both]) for k in ("truth", "lower", "upper")}
        g = {k: np.array([float(b[k]) for _, b in both]) for k in ("lower", "upper")}
        lo, hi = np.minimum(f["lower"], g["lower"]), np.maximum(f["upper"], g["upper"])
        t = f["truth"]
        cover = {"p": (f["lower"] <= t) & (t <= f["upper"]), "n": (g["lower"] <= t) & (t <= g["upper"]),
                 "u": (lo <= t) & (t <= hi)}
        half = (g["upper"] - g["lower"]) / 2
        far = np.maximum(f["upper"] - g["upper"], g["lower"] - f["lower"]) / half > reach
        miss = ~cover["n"]
        cells = [f"{cover[k].mean():.1%}, {w:.3f}" for k, w in (
            ("p", np.mean(f["upper"] - f["lower"])), ("n", np.mean(g["upper"] - g["lower"])),
            ("u", np.mean(hi - lo)))]
        lines.append(f"| {shape} | {len(both)} | " + " | ".join(cells)
                     + f" | {far[miss].sum()}/{miss.sum()}, {far[~miss].sum()}/{(~miss).sum()} |")
    return "\n".join(lines)


def main(argv=None) -> None:
    if not __package__:
        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shapes", nargs="+", default=list(SHAPES), choices=SHAPES)
    ap.add_argument("--studies", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--out")
    ap.add_argument("--table", help="print the table of an existing rows file and stop")
    ap.add_argument("--nuts", help="with --table: compare with the NUTS study's rows of the same "
                                   "studies (paper_repro/soft_model_nuts_study.py)")
    a = ap.parse_args(argv)
    if a.table:
        with open(a.table) as fh:
            rows = list(csv.DictReader(fh))
        print(table(rows))
        if a.nuts:
            with open(a.nuts) as fh:
                print()
                print(compare(rows, list(csv.DictReader(fh))))
        return
    rows = run(a.shapes, a.studies, a.seed, a.out)
    if a.out:
        with open(a.out) as fh:
            rows = list(csv.DictReader(fh))
    print(table(rows))


if __name__ == "__main__":
    main()
