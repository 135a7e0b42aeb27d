"""Coverage of the document bootstrap for span F1 at 20-80 documents (issue 34, span F1).

Each study: ``D`` documents; a document has ``m ~ Poisson(exp(N(log 6, 0.8^2)))`` true entities (mean
``6 e^0.32``). Two annotators find each entity independently with probabilities 0.8 and 0.6 and add
``Poisson(1.0)`` and ``Poisson(0.5)`` spurious spans per document. Matched spans (TP) are the entities both
found (exact match). Micro F1 of the pair is ``2 TP / (n_a + n_b)`` over the documents, whose population
value is ``2 E[m] r_a r_b / (E[m] (r_a + r_b) + lambda_a + lambda_b)``.

The document bootstrap (``sis.span_agreement(..., ci=Bootstrap(...))``, documents resampled) is evaluated
from per-document counts (TP, n_a + n_b) with the same ratio as the library (checked at start-up against
``sis.span_agreement`` on one study built as a span table); the percentile, BCa and ``bca-t`` intervals
(``bca-t`` is what ``method="auto"``, the default, gives with at most 1,000 documents) come from the same
replicates of each study.

Run::

    python benchmarks/span_f1_coverage.py --studies 1000 --boot 1000 --out docs/coverage_results/span_f1

Resumable (per-study rows appended to ``studies.csv.gz``).
"""

from __future__ import annotations

import argparse
import math
import os
import time
import warnings

import numpy as np
import pandas as pd

from softirr_stats.uncertainty import bca_interval, percentile_interval
from softirr_stats.uncertainty._intervals import t_level

RECALL = (0.8, 0.6)
SPURIOUS = (1.0, 0.5)
MU, SIGMA = math.log(6.0), 0.8
LEVEL = 0.95
METHODS = ("percentile", "bca", "bca-t")


def truth() -> float:
    em = math.exp(MU + SIGMA**2 / 2)
    return 2 * em * RECALL[0] * RECALL[1] / (em * (RECALL[0] + RECALL[1]) + SPURIOUS[0] + SPURIOUS[1])


def simulate(rng: np.random.Generator, s: int, d: int) -> tuple[np.ndarray, ...]:
    """Per-document (s, d) counts: entities, found by a, found by b, found by both, spurious a, spurious b."""
    m = rng.poisson(np.exp(rng.normal(MU, SIGMA, (s, d))))
    both = rng.binomial(m, RECALL[0] * RECALL[1])
    only_a = rng.binomial(m - both, (RECALL[0] - RECALL[0] * RECALL[1]) / (1 - RECALL[0] * RECALL[1]))
    only_b = rng.binomial(m - both - only_a, (RECALL[1] - RECALL[0] * RECALL[1])
                          / (1 - RECALL[0] * RECALL[1] - (RECALL[0] - RECALL[0] * RECALL[1])))
    fa, fb = rng.poisson(SPURIOUS[0], (s, d)), rng.poisson(SPURIOUS[1], (s, d))
    return m, both, only_a, only_b, fa, fb


def f1(tp: np.ndarray, tot: np.ndarray, W: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return 2 * np.einsum("sbd,sd->sb", W, tp) / np.einsum("sbd,sd->sb", W, tot)


def check_library() -> None:
    """One study as a span table: ``sis.span_agreement`` gives the same F1 and the same bca-t interval."""
    import softirr_stats as sis
    from softirr_stats.uncertainty import Bootstrap

    rng = np.random.default_rng(7)
    m, both, oa, ob, fa, fb = (x[0] for x in simulate(rng, 1, 20))
    rows = []
    for doc in range(20):
        pos = 0
        for kind, n in (("both", both[doc]), ("a", oa[doc] + fa[doc]), ("b", ob[doc] + fb[doc])):
            for _ in range(n):
                for who in ("ab" if kind == "both" else kind):
                    rows.append({"document": f"d{doc:02d}", "annotator": who, "start": pos, "end": pos + 3,
                                 "type": "E"})
                pos += 10
    spans = pd.DataFrame(rows)
    r = sis.span_agreement(spans, ci=Bootstrap(n=300, seed=1))
    tp, tot = both[None].astype(float), (2 * both + oa + fa + ob + fb)[None].astype(float)
    est = f1(tp, tot, np.ones((1, 1, 20)))[0, 0]
    if not np.isclose(est, r.value, atol=1e-12):
        raise RuntimeError(f"F1 {est} != library {r.value}")
    jack = f1(tp, tot, (1 - np.eye(20))[None])[0]
    lo, hi = bca_interval(r.details["replicates"], est, jack, t_level(LEVEL, 20))[:2]
    if r.ci_method != "bootstrap-bca-t" or not (np.isclose(lo, r.ci_low, atol=1e-12)
                                               and np.isclose(hi, r.ci_high, atol=1e-12)):
        raise RuntimeError(f"bca-t ({lo}, {hi}) != library {r.ci_method} ({r.ci_low}, {r.ci_high})")


def run_chunk(d: int, start: int, stop: int, boot: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng([seed, d, start])
    s = stop - start
    m, both, oa, ob, fa, fb = simulate(rng, s, d)
    tp, tot = both.astype(float), (2 * both + oa + fa + ob + fb).astype(float)
    pick = rng.integers(0, d, (s, boot, d)) + (np.arange(s * boot) * d).reshape(s, boot, 1)
    W = np.bincount(pick.ravel(), minlength=s * boot * d).reshape(s, boot, d).astype(float)
    reps = f1(tp, tot, W)
    est = f1(tp, tot, np.ones((s, 1, d)))[:, 0]
    jack = f1(tp, tot, np.broadcast_to(1 - np.eye(d), (s, d, d)))
    rows = []
    tl = t_level(LEVEL, d)
    for i in range(s):
        ivs = {"percentile": percentile_interval(reps[i], LEVEL), "bca": bca_interval(reps[i], est[i], jack[i], LEVEL)[:2],
               "bca-t": bca_interval(reps[i], est[i], jack[i], tl)[:2]}
        rows += [(d, start + i, k, est[i], lo, hi) for k, (lo, hi) in ivs.items()]
    return pd.DataFrame(rows, columns=["documents", "study", "method", "estimate", "low", "high"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--studies", type=int, default=1000)
    ap.add_argument("--boot", type=int, default=1000)
    ap.add_argument("--documents", type=int, nargs="+", default=[20, 40, 80])
    ap.add_argument("--chunk", type=int, default=100)
    ap.add_argument("--seed", type=int, default=3405)
    ap.add_argument("--out", default="docs/coverage_results/span_f1")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    check_library()
    print("vectorised F1 and bca-t == sis.span_agreement: ok", flush=True)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "studies.csv.gz")
    done = set()
    if os.path.exists(path):
        old = pd.read_csv(path)
        done = set(zip(old["documents"], old["study"], strict=True))
    t0 = time.perf_counter()
    for d in args.documents:
        for start in range(0, args.studies, args.chunk):
            if (d, start) not in done:
                run_chunk(d, start, min(args.studies, start + args.chunk), args.boot, args.seed).to_csv(
                    path, mode="a", header=not os.path.exists(path), index=False)
        print(f"D={d}: {time.perf_counter() - t0:.0f} s", flush=True)
    df = pd.read_csv(path)
    tv = truth()
    df = df.assign(covered=(df.low <= tv) & (tv <= df.high), above=df.high < tv, below=df.low > tv,
                   width=df.high - df.low, err=df.estimate - tv)
    out = df.groupby(["documents", "method"]).agg(studies=("covered", "size"), coverage=("covered", "mean"),
                                                   truth_above=("above", "mean"), truth_below=("below", "mean"),
                                                   width=("width", "mean"), bias=("err", "mean")).reset_index()
    out["mc_se"] = np.sqrt(out.coverage * (1 - out.coverage) / out.studies)
    out["truth"] = tv
    out.to_csv(os.path.join(args.out, "summary.csv"), index=False)
    print(out.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
