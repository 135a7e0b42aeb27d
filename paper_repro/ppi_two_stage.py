"""An imperfect judge: single-stage coverage of the gold kappa against the two-stage design.

Each study draws a population from first principles: 12 concepts with three surface forms each
(Zipf prevalence, exponent 1), 100 items, two raters who name the item's concept with
probability 0.75, a *neighbouring* concept (``k +- 1``, a confusable one) with probability 0.12,
else a random concept; the canonical form with probability 0.8. The gold judge is the concept
oracle ``g``. The judge ``h`` errs the way LLM judges do, not by symmetric flips: it misses an
equivalent pair with probability 0.1 (false negatives) and calls a pair of neighbouring concepts
equivalent with probability 0.4 (errors on confusable pairs), each pair's error fixed for the
study. The cheap estimator ``f`` scores synonyms ~ Beta(4, 2), neighbours ~ Beta(2, 3), others
~ Beta(1, 4). Target: this study's Cohen's kappa computed with ``g``.

Per study, a uniform plan of ``n`` draws is judged by ``h`` and a random ``gold_n`` of them again
by ``g`` (``judging_plan(gold_n=...)``). The single-stage estimate (``h`` only) targets the
judge's kappa; the two-stage one (estimator -> judge -> gold) the gold kappa. Both 95%
delta-method intervals are checked against the gold kappa. Rows: ``DIR/ppi_two_stage_<n>.csv``
(resumable, study ``s`` of a cell uses seed ``(cell, s)``).

    python -m paper_repro.ppi_two_stage --out docs/ppi/two_stage --studies 500
"""

from __future__ import annotations

import argparse
import math
import pathlib
import time
import warnings
from typing import Any

import numpy as np
import pandas as pd

CELLS = ((100, 30), (300, 60))  # judged draws, gold draws
K, FORMS, ITEMS = 12, 3, 100


def population(rng: np.random.Generator) -> tuple[list[list[str]], list[str], np.ndarray, np.ndarray, np.ndarray]:
    """Items, vocabulary, gold G, judge J and estimator F over the vocabulary."""
    prev = 1.0 / np.arange(1, K + 1)
    prev /= prev.sum()
    labels = [f"c{k}f{j}" for k in range(K) for j in range(FORMS)]
    concept = rng.choice(K, size=ITEMS, p=prev)
    rows = []
    for c in concept:
        row = []
        for _ in range(2):
            u = rng.random()
            named = c if u < 0.75 else (int(np.clip(c + rng.choice([-1, 1]), 0, K - 1)) if u < 0.87
                                       else int(rng.choice(K, p=prev)))
            form = 0 if rng.random() < 0.8 else int(rng.integers(1, FORMS))
            row.append(f"c{named}f{form}")
        rows.append(row)
    cid = np.repeat(np.arange(K), FORMS)
    G = (cid[:, None] == cid[None, :]).astype(float)
    near = (np.abs(cid[:, None] - cid[None, :]) == 1)
    L = len(labels)
    u = np.triu(rng.random((L, L)), 1)
    u = u + u.T
    J = np.where(G == 1, (u >= 0.1).astype(float), np.where(near, (u < 0.4).astype(float), 0.0))
    F = np.where(G == 1, rng.beta(4, 2, (L, L)), np.where(near, rng.beta(2, 3, (L, L)), rng.beta(1, 4, (L, L))))
    F = np.triu(F, 1)
    F = F + F.T
    for M in (J, F):
        np.fill_diagonal(M, 1.0)
    return rows, labels, G, J, F


def one_study(cell: int, study: int, n: int, gold_n: int) -> dict[str, Any]:
    import softirr_stats as sis

    rng = np.random.default_rng([cell, study])
    rows, labels, G, J, F = population(rng)
    ann = sis.Annotations.from_wide(rows)
    idx = np.array([labels.index(v) for v in ann.vocabulary])
    Gv, Jv, Fv = (M[np.ix_(idx, idx)] for M in (G, J, F))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gold_k = sis.cohen_kappa(ann, similarity=Gv).value
        judge_k = sis.cohen_kappa(ann, similarity=Jv).value
        plan = sis.judging_plan(ann, similarity=Fv, n=n, coefficient="cohen_kappa", seed=study, gold_n=gold_n)
        a, b = plan.codes
        table = plan.pairs.assign(judgment=Jv[a, b], gold=np.where(plan.pairs["gold_draws"] > 0, Gv[a, b], np.nan))
        one = sis.cohen_kappa(ann, similarity=Fv, judgments=table.drop(columns=["gold", "gold_draws"]),
                              ci="analytic")
        two = sis.cohen_kappa(ann, similarity=Fv, judgments=table, ci="analytic")
    g = two.details["ppi"]["gold"]
    return {
        "cell": cell, "study": study, "n": n, "gold_n": gold_n, "gold_kappa": gold_k, "judge_kappa": judge_k,
        "single": one.value, "single_lo": one.ci_low, "single_hi": one.ci_high,
        "two_stage": two.value, "two_lo": two.ci_low, "two_hi": two.ci_high,
        "judge_error": g["judge_error"], "false_negative_rate": g["false_negative_rate"],
        "false_positive_rate": g["false_positive_rate"],
        "judged_pair_error": float((table["judgment"] != Gv[a, b]).mean()),
    }


def run(out: str | pathlib.Path, studies: int, time_limit: float = math.inf) -> None:
    out = pathlib.Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for ci, (n, gold_n) in enumerate(CELLS):
        path = out / f"ppi_two_stage_{n}.csv"
        done = pd.read_csv(path) if path.exists() else pd.DataFrame(columns=["study"])
        rows = []
        for s in [s for s in range(studies) if s not in set(done["study"])]:
            if time.perf_counter() - t0 > time_limit:
                break
            rows.append(one_study(500 + ci, s, n, gold_n))
        if rows:
            pd.concat([done, pd.DataFrame(rows)] if len(done) else [pd.DataFrame(rows)]).to_csv(path, index=False)
        print(f"n={n}: {len(done) + len(rows)} studies ({time.perf_counter() - t0:.0f} s)", flush=True)


def summary(out: str | pathlib.Path) -> pd.DataFrame:
    rows = []
    for path in sorted(pathlib.Path(out).glob("ppi_two_stage_*.csv")):
        d = pd.read_csv(path)
        m = len(d)
        cov = lambda lo, hi, t, d=d: float(((d[lo] <= d[t]) & (d[t] <= d[hi])).mean())  # noqa: E731
        c1, c2, cj = cov("single_lo", "single_hi", "gold_kappa"), cov("two_lo", "two_hi", "gold_kappa"), \
            cov("single_lo", "single_hi", "judge_kappa")
        rows.append({
            "n": int(d["n"].iloc[0]), "gold_n": int(d["gold_n"].iloc[0]), "studies": m,
            "judged_pair_error": d["judged_pair_error"].mean(),
            "judge_shift": (d["judge_kappa"] - d["gold_kappa"]).mean(),
            "single_bias_vs_gold": (d["single"] - d["gold_kappa"]).mean(),
            "single_cover_gold": c1, "single_cover_gold_se": math.sqrt(c1 * (1 - c1) / m),
            "single_cover_judge": cj,
            "two_stage_bias": (d["two_stage"] - d["gold_kappa"]).mean(),
            "two_stage_bias_se": (d["two_stage"] - d["gold_kappa"]).std(ddof=1) / math.sqrt(m),
            "two_stage_cover_gold": c2, "two_stage_cover_gold_se": math.sqrt(c2 * (1 - c2) / m),
            "single_width": (d["single_hi"] - d["single_lo"]).mean(),
            "two_stage_width": (d["two_hi"] - d["two_lo"]).mean(),
            "measured_judge_error": d["judge_error"].mean(),
        })
    return pd.DataFrame(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--studies", type=int, default=500)
    ap.add_argument("--time-limit", type=float, default=math.inf)
    ap.add_argument("--summary", action="store_true")
    args = ap.parse_args(argv)
    if not args.summary:
        run(args.out, args.studies, args.time_limit)
    s = summary(args.out)
    with pd.option_context("display.width", 250, "display.max_columns", 30):
        print(s.round(4).to_string(index=False))
    s.to_csv(pathlib.Path(args.out) / "ppi_two_stage_summary.csv", index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
