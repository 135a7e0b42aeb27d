"""Size of ``softirr_stats.compare`` at few items: Fleiss' kappa of (humans + judge A) vs (humans + judge B).

H0 holds: the two judges are equally accurate (each label is the true class with probability 0.65,
else uniform over the 3 classes, as are the humans'), so the two population kappas are equal.
Cells: 20, 30, 50, 100 and 200 items x 2 and 5 humans, paired (the same items and humans, two judges),
and unpaired (30 items for judge A, 30 other items for judge B; 2 humans). Every study's bootstrap
replicates (item weights, B per study) are shared by all candidate tests, computed from them:

- ``default``: what ``compare``'s ``method="auto"`` gave before the jackknife-t (BCa with Student-t
  quantiles, ``n - 1`` df, paired; percentile, unpaired);
- ``percentile``, ``basic``, ``bca`` (normal quantiles): the inversions of those intervals;
- ``jackknife_t``: difference / jackknife SE against Student's t with ``n - 1`` df (paired);
  unpaired, the two samples' jackknife variances add (Welch-Satterthwaite df): ``method="auto"`` now;
- ``analytic``: the delta method (``compare(..., ci="analytic")``: Gwet's linearised terms).

The kernel is vectorised over studies and replicates (Fleiss' kappa from per-item category counts
with item weights) and checked against ``sis.compare`` on a few studies of every cell before the run
(``--check``): the same weights reproduce its replicates, and its p-values, to 1e-12.

Rows (one per study) are appended to ``--out`` a chunk of studies at a time; a rerun skips the
chunks already there (resumable; seeds fixed per cell and chunk).

    nice -n 10 python benchmarks/compare_size_small.py --studies 1000 --out benchmarks/compare_size_small.csv
    python benchmarks/compare_size_small.py --summary --out benchmarks/compare_size_small.csv
"""

import argparse
import csv
import os
import time

import numpy as np
from scipy.special import ndtr, ndtri, stdtr

K = 3
NOISE = 0.35
CHUNK = 50
METHODS = ("default", "percentile", "basic", "bca", "jackknife_t", "analytic")
FIELDS = ["kind", "n_items", "humans", "study", "difference", *METHODS]
CELLS = [("paired", n, h) for n in (20, 30, 50, 100, 200) for h in (2, 5)] + [("unpaired", 30, 2)]


def labels(rng: np.random.Generator, truth: np.ndarray, raters: int) -> np.ndarray:
    """(studies, n, raters) labels: the true class w.p. 1 - NOISE, else uniform over the K classes."""
    shape = (*truth.shape, raters)
    keep = rng.random(shape) >= NOISE
    return np.where(keep, truth[..., None], rng.integers(0, K, shape))


def counts(codes: np.ndarray) -> np.ndarray:
    """(studies, n, K) category counts per item."""
    return (codes[..., None] == np.arange(K)).sum(axis=-2).astype(np.float64)


def kappa(nk: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Fleiss' kappa of counts ``nk`` (S, n, K) under item weights ``w`` (S, B, n): (S, B)."""
    r = nk.sum(axis=-1)  # raters per item (complete data)
    pa = ((nk * nk).sum(-1) - r) / (r * (r - 1.0))
    tot = w.sum(-1)
    po = np.einsum("sbn,sn->sb", w, pa) / tot
    pk = np.einsum("sbn,snk->sbk", w, nk / r[..., None]) / tot[..., None]
    pe = (pk * pk).sum(-1)
    return (po - pe) / (1.0 - pe)


def gwet_terms(nk: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fleiss' kappa (S,) and its linearised per-item terms (S, n) (Gwet 2016; complete data)."""
    r = nk.sum(axis=-1)
    pa = ((nk * nk).sum(-1) - r) / (r * (r - 1.0))
    pk = (nk / r[..., None]).mean(axis=1)
    pe = (pk * pk).sum(-1)
    k = (pa.mean(1) - pe) / (1.0 - pe)
    pe_i = np.einsum("sk,snk->sn", pk, nk / r[..., None])
    k_i = (pa - pe[:, None]) / (1.0 - pe[:, None])
    return k, k_i - 2.0 * (1.0 - k[:, None]) * (pe_i - pe[:, None]) / (1.0 - pe[:, None])


def jackknife(nk: np.ndarray) -> np.ndarray:
    """Leave-one-item-out kappas (S, n)."""
    n = nk.shape[1]
    w = np.broadcast_to(1.0 - np.eye(n), (nk.shape[0], n, n))
    return kappa(nk, w)


def p_percentile(d: np.ndarray, t0: np.ndarray) -> np.ndarray:
    """Inversion of the percentile interval at ``t0`` (basic: ``t0 = 2 diff``), as compare's ``_bootstrap_p``."""
    b = d.shape[1]
    lower = (1.0 + (d <= t0[:, None]).sum(1)) / (b + 1.0)
    upper = (1.0 + (d >= t0[:, None]).sum(1)) / (b + 1.0)
    return np.minimum(1.0, 2.0 * np.minimum(lower, upper))


def p_bca(d: np.ndarray, diff: np.ndarray, jack: np.ndarray, dof: float | None) -> np.ndarray:
    """``uncertainty.bca_p_value`` at null 0, vectorised over studies."""
    b = d.shape[1]
    tol = 1e-12 * np.maximum(1.0, np.abs(diff))[:, None]
    z0 = ndtri(((d < diff[:, None] - tol).sum(1) + (d <= diff[:, None] + tol).sum(1)) / (2.0 * b))
    dj = jack.mean(1, keepdims=True) - jack
    den = 6.0 * (dj**2).sum(1) ** 1.5
    a = np.where(den > 0, (dj**3).sum(1) / np.where(den > 0, den, 1.0), 0.0)
    q = np.clip(((d < 0).sum(1) + (d <= 0).sum(1)) / (2.0 * b), 0.5 / b, 1.0 - 0.5 / b)
    w = ndtri(q) - z0
    den2 = 1.0 + a * w
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(den2 > 0, w / den2 - z0, np.where(w < 0, -np.inf, np.inf))
    tail = ndtr(z) if dof is None else stdtr(dof, z)
    return np.where(np.isfinite(z0), np.minimum(1.0, 2.0 * np.minimum(tail, 1.0 - tail)), np.nan)


def p_t(est: np.ndarray, se: np.ndarray, dof: np.ndarray | float) -> np.ndarray:
    """Two-sided Student-t p-value of est / se."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return 2.0 * stdtr(dof, -np.abs(est / se))


def jack_var(j: np.ndarray) -> np.ndarray:
    """Jackknife variance of leave-one-out values (S, n)."""
    n = j.shape[1]
    return (n - 1.0) / n * ((j - j.mean(1, keepdims=True)) ** 2).sum(1)


def simulate(kind: str, n: int, humans: int, chunk: int, studies: int, n_boot: int) -> dict:
    """One chunk of studies: the labels, then every candidate's p-value (arrays over the studies)."""
    rng = np.random.default_rng([11, n, humans, kind == "paired", chunk])
    truth = rng.integers(0, K, (studies, n))
    hum = labels(rng, truth, humans)
    ja, jb = labels(rng, truth, 1), labels(rng, truth, 1)
    if kind == "unpaired":  # b: other items, other human labels
        truth_b = rng.integers(0, K, (studies, n))
        hum_b, jb = labels(rng, truth_b, humans), labels(rng, truth_b, 1)
    else:
        hum_b = hum
    na, nb = counts(np.concatenate([hum, ja], -1)), counts(np.concatenate([hum_b, jb], -1))
    wa = rng.multinomial(n, np.full(n, 1.0 / n), size=(studies, n_boot)).astype(np.float64)
    wb = wa if kind == "paired" else rng.multinomial(n, np.full(n, 1.0 / n), size=(studies, n_boot)).astype(float)
    return candidates(kind, na, nb, wa, wb)


def candidates(kind: str, na: np.ndarray, nb: np.ndarray, wa: np.ndarray, wb: np.ndarray) -> dict:
    """The difference and every candidate's p-value for studies with counts ``na``, ``nb`` and weights ``wa``, ``wb``."""
    n = na.shape[1]
    ka, ta = gwet_terms(na)
    kb, tb = gwet_terms(nb)
    diff = ka - kb
    d = kappa(na, wa) - kappa(nb, wb)
    out = {"difference": diff, "percentile": p_percentile(d, np.zeros_like(diff)),
           "basic": p_percentile(d, 2.0 * diff)}
    jka, jkb = jackknife(na), jackknife(nb)
    if kind == "paired":
        jd = jka - jkb
        out["bca"] = p_bca(d, diff, jd, None)
        out["default"] = p_bca(d, diff, jd, n - 1.0)
        out["jackknife_t"] = p_t(diff, np.sqrt(jack_var(jd)), n - 1.0)
        dd = (ta - ka[:, None]) - (tb - kb[:, None])
        out["analytic"] = p_t(diff, np.sqrt((dd * dd).sum(1) / (n * (n - 1.0))), n - 1.0)
    else:
        out["bca"] = np.full_like(diff, np.nan)  # BCa needs the same items: compare's auto gives percentile
        out["default"] = out["percentile"]
        va, vb = jack_var(jka), jack_var(jkb)
        out["jackknife_t"] = p_t(diff, np.sqrt(va + vb), (va + vb) ** 2 / (va**2 / (n - 1.0) + vb**2 / (n - 1.0)))
        sa = ((ta - ka[:, None]) ** 2).sum(1) / (n * (n - 1.0))
        sb = ((tb - kb[:, None]) ** 2).sum(1) / (n * (n - 1.0))
        out["analytic"] = p_t(diff, np.sqrt(sa + sb), (sa + sb) ** 2 / (sa**2 / (n - 1.0) + sb**2 / (n - 1.0)))
    return out


def check(kind: str, n: int, humans: int, n_boot: int, studies: int = 3, seed: int = 99) -> float:
    """Largest gap between the kernel and ``sis.compare``: the replicates (the same weights), and the p-values of
    ``method="percentile"`` and ``"bca-t"`` (paired; from compare's replicates: a replicate difference of 0 up to
    rounding is a tie whose side rounding decides), of ``method="auto"`` (the jackknife-t) and of the analytic."""
    import warnings
    from dataclasses import replace

    import softirr_stats as sis
    from softirr_stats.comparison._compare import _layout, _Units
    from softirr_stats.uncertainty import draw_weights

    rng = np.random.default_rng([seed, n, humans])
    gap = 0.0
    for s in range(studies):  # a few studies: the check, not the study
        truth = rng.integers(0, K, (1, n))
        hum, ja, jb = labels(rng, truth, humans), labels(rng, truth, 1), labels(rng, truth, 1)
        hum_b = hum
        if kind == "unpaired":
            truth_b = rng.integers(0, K, (1, n))
            hum_b, jb = labels(rng, truth_b, humans), labels(rng, truth_b, 1)
        ca, cb = np.concatenate([hum, ja], -1)[0], np.concatenate([hum_b, jb], -1)[0]
        ra = sis.fleiss_kappa(ca.tolist())
        rb = sis.fleiss_kappa(sis.Annotations.from_wide(cb.tolist(), items=range(n, 2 * n)) if kind == "unpaired"
                              else cb.tolist())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            auto = sis.compare(ra, rb, ci=sis.Bootstrap(n=n_boot, seed=s))
            perc = sis.compare(ra, rb, ci=sis.Bootstrap(n=n_boot, seed=s, method="percentile"))
            old = sis.compare(ra, rb, ci=sis.Bootstrap(n=n_boot, seed=s, method="bca-t")) if kind == "paired" else perc
            an = sis.compare(ra, rb, ci="analytic")
        sa, sb = ra.details["statistic"], rb.details["statistic"]
        lay = _layout(sa, sb, False)
        cfg = sis.Bootstrap(n=n_boot, seed=s)
        if kind == "unpaired":  # compare resamples disjoint items within the strata "only in a", "only in b"
            cfg = replace(cfg, strata=[f"{m}|" for m in lay.item_strata.tolist()])
        C = draw_weights(_Units(lay.union, len(lay.union), sa.n_raters), cfg, 0, n_boot)[0]
        wa, wb = C[None, :, lay.idx_a], C[None, :, lay.idx_b]
        na, nb = counts(ca[None]), counts(cb[None])
        got = candidates(kind, na, nb, wa, wb)
        reps = kappa(na, wa)[0] - kappa(nb, wb)[0]
        d = old.details["replicates"][None]
        p_old = p_bca(d, got["difference"], jackknife(na) - jackknife(nb), n - 1.0)[0] if kind == "paired" \
            else p_percentile(d, np.zeros(1))[0]
        gap = max(gap, float(np.max(np.abs(reps - auto.details["replicates"]))),
                  abs(got["difference"][0] - auto.difference), abs(p_old - old.p_value),
                  abs(p_percentile(perc.details["replicates"][None], np.zeros(1))[0] - perc.p_value),
                  abs(got["jackknife_t"][0] - auto.p_value), abs(got["analytic"][0] - an.p_value))
    return gap


def _done(path: str) -> set:
    if not os.path.exists(path):
        return set()
    with open(path, newline="") as f:
        return {(r["kind"], int(r["n_items"]), int(r["humans"]), int(r["study"]) // CHUNK) for r in csv.DictReader(f)}


def summary(path: str) -> None:
    """Rejection at 5% per cell and candidate, with Monte Carlo SEs in brackets."""
    import pandas as pd

    df = pd.read_csv(path)
    rows = []
    for (kind, n, h), g in df.groupby(["kind", "n_items", "humans"], sort=False):
        row = {"kind": kind, "items": n, "humans": h, "studies": len(g)}
        for m in METHODS:
            p = g[m].dropna()
            rate = float((p < 0.05).mean()) if len(p) else float("nan")
            row[m] = f"{100 * rate:.1f} ({100 * np.sqrt(rate * (1 - rate) / max(len(p), 1)):.1f})"
        rows.append(row)
    print(pd.DataFrame(rows).to_string(index=False))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--studies", type=int, default=1000, help="studies per cell (a multiple of 50)")
    ap.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates per study")
    ap.add_argument("--out", default="benchmarks/compare_size_small.csv")
    ap.add_argument("--summary", action="store_true", help="only print the summary of --out")
    ap.add_argument("--check", action="store_true", help="check the kernel against sis.compare, then stop")
    a = ap.parse_args()
    if a.summary:
        summary(a.out)
        return
    if a.check:
        for kind, n, h in CELLS:
            print(kind, n, h, "largest gap to sis.compare:", check(kind, n, h, 400))
        return
    done = _done(a.out)
    new = not os.path.exists(a.out)
    t0 = time.perf_counter()
    with open(a.out, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        for c in range(-(-a.studies // CHUNK)):  # round-robin over cells: a stopped run is even across cells
            for kind, n, h in CELLS:
                if (kind, n, h, c) in done:
                    continue
                out = simulate(kind, n, h, c, CHUNK, a.bootstrap)
                for s in range(CHUNK):
                    w.writerow({"kind": kind, "n_items": n, "humans": h, "study": c * CHUNK + s,
                                **{k: repr(float(v[s])) for k, v in out.items()}})
                f.flush()
            print(f"chunk {c} done, {time.perf_counter() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
