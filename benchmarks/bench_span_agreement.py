"""span_agreement: speed and memory on a synthetic corpus, and the coverage of its document bootstrap.

Speed: D documents, R annotators, K span slots per document (each annotator marks a slot with
probability 0.85, shifts it by 1-2 characters with probability 0.13, changes its type with
probability 0.1), timed for exact / overlap / overlap:0.5 by="all" / soft (Levenshtein) and a
B = 2000 document bootstrap, with the peak of Python allocations (tracemalloc).

Coverage: corpora of ``n_docs`` documents where annotator a marks Poisson(lam) + 1 spans,
annotator b reproduces each with probability q and adds Poisson(mu) spans of its own; the
population F1 is ``2 q E[n] / ((1 + q) E[n] + mu)``; the share of 95% percentile and BCa
intervals (B = 400) that contain it, for 20, 40 and 160 documents.

Run::

    python benchmarks/bench_span_agreement.py                 # D = 2000, R = 5, K = 40; 1000 corpora
    python benchmarks/bench_span_agreement.py --quick         # D = 200; 200 corpora
"""

import argparse
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd

import softirr_stats as sis


def corpus(D: int, R: int, K: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    n = D * R * K
    doc = np.repeat(np.arange(D), R * K)
    rater = np.tile(np.repeat(np.arange(R), K), D)
    k = np.tile(np.arange(K), D * R)
    keep = rng.random(n) < 0.85
    shift = rng.integers(1, 3, n) * (rng.random(n) < 0.13)
    typ = (k % 6 + (rng.random(n) < 0.1)) % 6
    df = pd.DataFrame({"document": [f"d{x}" for x in doc], "annotator": [f"r{x}" for x in rater],
                       "start": k * 30 + shift, "end": k * 30 + 10 + shift, "type": [f"T{x}" for x in typ]})
    return df.loc[keep].reset_index(drop=True)


def speed(D: int, R: int, K: int) -> None:
    df = corpus(D, R, K)
    sis.span_agreement(df.iloc[:200])  # imports
    print(f"{len(df)} spans, {D} documents, {R} annotators")
    for name, kw in [("exact", {}), ("overlap", {"match": "overlap"}),
                     ("overlap:0.5 by=all", {"match": "overlap:0.5", "by": "all"}),
                     ("soft levenshtein", {"similarity": "levenshtein"}),
                     ("exact + Bootstrap(n=2000)", {"ci": sis.Bootstrap(n=2000, seed=0)})]:
        t = time.perf_counter()
        r = sis.span_agreement(df, **kw)
        dt = time.perf_counter() - t
        tracemalloc.start()  # a second call for the memory peak (tracemalloc slows the run down)
        sis.span_agreement(df, **kw)
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
        ci = "" if np.isnan(r.ci_low) else f" [{r.ci_low:.4f}, {r.ci_high:.4f}]"
        print(f"  {name:28s} F1 = {r.value:.4f}{ci}  {dt:6.2f} s  peak {peak:5.0f} MiB")


def coverage(n_sims: int, n_docs: int = 40, q: float = 0.8, mu: float = 0.6, lam: float = 3.0,
             method: str = "percentile") -> None:
    rng = np.random.default_rng(2026)
    truth = 2 * q * (lam + 1) / ((1 + q) * (lam + 1) + mu)
    hits, widths = 0, []
    for s in range(n_sims):
        rows = []
        for d in range(n_docs):
            n = int(rng.poisson(lam)) + 1
            kept = rng.random(n) < q
            rows += [(f"d{d}", "a", 10 * k, 10 * k + 5, "X") for k in range(n)]
            rows += [(f"d{d}", "b", 10 * k, 10 * k + 5, "X") for k in range(n) if kept[k]]
            rows += [(f"d{d}", "b", 1000 + 10 * k, 1005 + 10 * k, "X") for k in range(int(rng.poisson(mu)))]
        df = pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "type"])
        r = sis.span_agreement(df, ci=sis.Bootstrap(n=400, seed=s, method=method))
        hits += r.ci_low <= truth <= r.ci_high
        widths.append(r.ci_high - r.ci_low)
    cov = hits / n_sims
    se = np.sqrt(cov * (1 - cov) / n_sims)
    print(f"coverage of 95% {method} intervals: {cov:.3f} (MC SE {se:.3f}) over {n_sims} corpora of {n_docs} "
          f"documents; population F1 {truth:.4f}; mean width {np.mean(widths):.4f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    speed(200 if args.quick else 2000, 5, 40)
    for method in ("percentile", "bca"):
        for n_docs in (20, 40, 160):
            coverage(200 if args.quick else 1000, n_docs=n_docs, method=method)


if __name__ == "__main__":
    main()
