"""Coverage of the prediction-powered delta-method interval at small judging budgets, with skew.

Each study draws its own population from first principles (no fixture): ``K`` concepts with
three surface forms each and Zipf prevalence (``moderate``: exponent 1; ``heavy``: exponent 2.5,
so most items share one concept and distinct label pairs are rarely synonyms); 100 items, two
raters who name the item's concept with probability 0.75 (else a concept drawn from the
prevalence) and its canonical form with probability 0.8 (``moderate``) or 0.95 (``heavy``: equivalent
label pairs are rare among the distinct pairs, so a small plan may judge none). The judge is
the concept oracle ``h`` (1 when two forms name one concept); the cheap estimator ``f`` scores
synonyms ~ Beta(4, 2) and other pairs ~ Beta(1, 4), drawn once per study (an estimator whose
error depends on the pair). The target is this study's Cohen's kappa computed with ``h`` (the
estimand of ``ci="analytic"``). A uniform judging plan of ``n`` draws (30, 100, 300) per study.

Per-study rows go to ``DIR/ppi_coverage_<skew>_<n>.csv``; a rerun skips the studies already
there (resumable), and study ``s`` of a cell always uses seed ``(cell, s)``.

    nice -n 10 python -m paper_repro.ppi_coverage --out docs/ppi/coverage --studies 3000
    python -m paper_repro.ppi_coverage --out docs/ppi/coverage --summary   # the table of docs/ppi.md

A cell's seed depends only on its skew and budget (:func:`cell_id`), so cells can run in
separate processes (``--skews heavy --budgets 30``) and give the same rows.
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

SKEWS = {"moderate": (1.0, 0.8), "heavy": (2.5, 0.95)}  # Zipf exponent, P(canonical form)
BUDGETS = (30, 100, 300)
K, FORMS, ITEMS = 12, 3, 100
FRESH = 1000  # studies 0-999 chose the binomial floor's pseudo-count; the later ones check it


def population(rng: np.random.Generator, exponent: float, canonical: float
               ) -> tuple[list[list[str]], list[str], np.ndarray, np.ndarray]:
    """Items (two raters), the vocabulary, the oracle H and the estimator F over it."""
    prev = 1.0 / np.arange(1, K + 1) ** exponent
    prev /= prev.sum()
    labels = [f"c{k}f{j}" for k in range(K) for j in range(FORMS)]
    concept = rng.choice(K, size=ITEMS, p=prev)
    rows = []
    for c in concept:
        row = []
        for _ in range(2):
            named = c if rng.random() < 0.75 else rng.choice(K, p=prev)
            form = 0 if rng.random() < canonical else rng.integers(1, FORMS)
            row.append(f"c{named}f{form}")
        rows.append(row)
    cid = np.repeat(np.arange(K), FORMS)
    H = (cid[:, None] == cid[None, :]).astype(float)
    L = len(labels)
    F = np.where(H == 1, rng.beta(4, 2, (L, L)), rng.beta(1, 4, (L, L)))
    F = np.triu(F, 1)
    F = F + F.T
    np.fill_diagonal(F, 1.0)
    return rows, labels, H, F


def one_study(cell: int, study: int, skew: tuple[float, float], n: int) -> dict[str, Any]:
    import softirr_stats as sis
    from softirr_stats.uncertainty._analytic import analytic_interval

    rng = np.random.default_rng([cell, study])
    rows, labels, H, F = population(rng, *skew)
    ann = sis.Annotations.from_wide(rows)
    vocab = list(ann.vocabulary)
    idx = np.array([labels.index(v) for v in vocab])
    Hv, Fv = H[np.ix_(idx, idx)], F[np.ix_(idx, idx)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        truth = sis.cohen_kappa(ann, similarity=Hv).value
        plan = sis.judging_plan(ann, similarity=Fv, n=n, coefficient="cohen_kappa", seed=study)
        a, b = plan.codes
        judged = plan.pairs.assign(judgment=Hv[a, b])
        r = sis.cohen_kappa(ann, similarity=Fv, judgments=judged, ci="analytic")
    p = r.details["ppi"]
    # the 90% interval from the same SE and df (the variance does not depend on the level)
    lo90, hi90 = analytic_interval(r.value, r.se, p["df"] if math.isfinite(p["df"]) else math.inf, 0.9)
    lo90 = min(lo90, hi90)
    return {
        "cell": cell, "study": study, "n": n, "truth": truth, "estimate": r.value, "se": r.se,
        "lo95": r.ci_low, "hi95": r.ci_high, "lo90": lo90, "hi90": hi90, "df": p["df"],
        "floored": bool(p["variance_floored"]), "se_raw": p["se_delta_raw"],
        "variance_floor": p["variance_floor"],
        "equivalent_judged_draws": int((judged["judgment"] * judged["draws"]).sum()),
        "zero_width": bool(r.ci_low == r.ci_high),
        "warned_zero_width": any("zero width" in str(w.message) or "pseudo-count" in str(w.message)
                                 for w in caught),
        "warned_few_equivalent": any("were judged equivalent" in str(w.message) for w in caught),
        "skewness": p["skewness"], "n_draws": p["n_draws"],
        "lambda_o": p["lambda"]["observed"], "lambda_e": p["lambda"]["chance"],
    }


def cell_id(skew: str, n: int) -> int:
    """The seed of a cell, fixed by its skew and budget (not by which cells one run covers).

    >>> cell_id("moderate", 30), cell_id("heavy", 300), cell_id("heavy", 50)
    (100, 202, 20050)
    """
    si = list(SKEWS).index(skew)
    return 100 * (si + 1) + BUDGETS.index(n) if n in BUDGETS else 10_000 * (si + 1) + n


def run(out: str | pathlib.Path, studies: int, budgets: tuple[int, ...] = BUDGETS,
        skews: tuple[str, ...] = tuple(SKEWS), time_limit: float = math.inf) -> None:
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for skew in skews:
        for n in budgets:
            cell = cell_id(skew, n)
            path = out / f"ppi_coverage_{skew}_{n}.csv"
            done = pd.read_csv(path) if path.exists() else pd.DataFrame(columns=["study"])
            todo = [s for s in range(studies) if s not in set(done["study"])]
            rows: list[dict[str, Any]] = []

            def save(rows: list[dict[str, Any]] = rows, path: pathlib.Path = path, done: pd.DataFrame = done) -> None:
                if rows:  # written whole, then renamed: a parallel run's summary never reads half a file
                    tmp = path.with_suffix(".csv.part")
                    pd.concat([done, pd.DataFrame(rows)] if len(done) else [pd.DataFrame(rows)]).to_csv(
                        tmp, index=False)
                    os.replace(tmp, path)

            for s in todo:
                if time.perf_counter() - t0 > time_limit:
                    break
                rows.append({"skew": skew, **one_study(cell, s, SKEWS[skew], n)})
                if len(rows) % 100 == 0:  # resumable within a cell too
                    save()
                    print(f"{skew} n={n}: {len(done) + len(rows)} studies ({time.perf_counter() - t0:.0f} s, "
                          f"{time.process_time():.0f} s CPU)", flush=True)
            save()
            print(f"{skew} n={n}: {len(done) + len(rows)} studies ({time.perf_counter() - t0:.0f} s, "
                  f"{time.process_time():.0f} s CPU)", flush=True)


def summary(out: str | pathlib.Path) -> pd.DataFrame:
    """Coverage per cell with Monte Carlo standard errors."""
    rows = []
    for path in sorted(pathlib.Path(out).glob("ppi_coverage_*_*.csv")):
        d = pd.read_csv(path)
        m = len(d)
        c95 = ((d.lo95 <= d.truth) & (d.truth <= d.hi95)).mean()
        c90 = ((d.lo90 <= d.truth) & (d.truth <= d.hi90)).mean()
        miss_low = (d.truth > d.hi95).mean()
        rows.append({
            "skew": d["skew"].iloc[0], "n": int(d.n.iloc[0]), "studies": m,
            "bias": (d.estimate - d.truth).mean(), "bias_se": (d.estimate - d.truth).std(ddof=1) / math.sqrt(m),
            "cover95": c95, "cover95_se": math.sqrt(c95 * (1 - c95) / m),
            "cover90": c90, "cover90_se": math.sqrt(c90 * (1 - c90) / m),
            "miss_above": miss_low, "width95": (d.hi95 - d.lo95).mean(),
            "floored": d.floored.mean(),
            "cover95_floored": (((d.lo95 <= d.truth) & (d.truth <= d.hi95))[d.floored]).mean()
            if d.floored.any() else math.nan,
            "warned_few": d.warned_few_equivalent.mean(),
            "cover95_warned": (((d.lo95 <= d.truth) & (d.truth <= d.hi95))[d.warned_few_equivalent | d.floored]).mean()
            if (d.warned_few_equivalent | d.floored).any() else math.nan,
            "cover95_unwarned": (((d.lo95 <= d.truth) & (d.truth <= d.hi95))[~(d.warned_few_equivalent | d.floored)]).mean(),
            # studies 1000 on were not used to choose the floor's pseudo-count (docs/formulas/ppi.md)
            "cover95_fresh": (((d.lo95 <= d.truth) & (d.truth <= d.hi95))[d.study >= FRESH]).mean()
            if (d.study >= FRESH).any() else math.nan,
            "zero_width": int(d.zero_width.sum()),
            "zero_width_unwarned": int((d.zero_width & ~d.warned_zero_width).sum()),
        })
    return pd.DataFrame(rows).sort_values(["skew", "n"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--studies", type=int, default=500)
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    ap.add_argument("--skews", default=",".join(SKEWS))
    ap.add_argument("--time-limit", type=float, default=math.inf, help="seconds; stop and resume later")
    ap.add_argument("--summary", action="store_true", help="only print the summary of DIR's CSV files")
    args = ap.parse_args(argv)
    if not args.summary:
        run(args.out, args.studies, tuple(int(b) for b in args.budgets.split(",")),
            tuple(args.skews.split(",")), args.time_limit)
    s = summary(args.out)
    with pd.option_context("display.width", 200, "display.max_columns", 30):
        print(s.round(4).to_string(index=False))
    s.to_csv(pathlib.Path(args.out) / "ppi_coverage_summary.csv", index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
