"""Point-estimate speed: softirr_stats vs the ``krippendorff`` package, and soft Cohen's kappa.

One run prints, for nominal and interval alpha at (raters, items, categories) =
(5, 1e4, 5), (5, 1e5, 50), (20, 1e5, 50) (5% of the ratings missing):

- ``kripp``   : ``krippendorff.alpha(reliability_data=..., level_of_measurement=...)``;
- ``encode``  : ``Annotations.from_wide(array)`` (the public way in), and ``encode_fast``,
                 the same codes built with ``np.unique`` + the ``Annotations`` constructor;
- ``cold``    : the first ``sis.krippendorff_alpha`` call for these shapes (jit compile included);
- ``warm``    : best of 3 calls on freshly encoded data (rating_layout + prepare + evaluate;
                 compile excluded), with the split ``design`` / ``prepare`` / ``evaluate``;
- ratios ``kripp / warm`` and ``kripp / (encode_fast + warm)`` (> 1 means we are faster),
  and the largest difference between the two values.

Then complete data against 10% missing ratings (warm point alpha and an item bootstrap of
B = 2000 at (5, 1e4, 50)), and soft Cohen's kappa with exact chance over K unique labels
(two raters, 2K items): ``similarity=Levenshtein()`` (time, label pairs scored, and the time ``rapidfuzz.cdist`` needs
for the same K x K matrix) and a precomputed random K x K similarity matrix.

Run::

    python benchmarks/bench_agreement.py            # everything (~10 min on 2 busy cores)
    python benchmarks/bench_agreement.py --quick    # smallest size, K = 1e3 only
"""

import argparse
import string
import time
import warnings

import numpy as np

import softirr_stats as sis
from softirr_stats.agreement import prepare, resolve_similarity
from softirr_stats.agreement._evaluator import evaluate
from softirr_stats.agreement._layout import rating_layout
from softirr_stats.agreement._similarity import MatrixSimilarity
from softirr_stats.agreement._weights import krippendorff_distance
from softirr_stats.data import Annotations
from softirr_stats.equivalence import Levenshtein

SIZES = [(5, 10_000, 5), (5, 100_000, 50), (20, 100_000, 50)]


def clock(fn, *args, **kwargs):
    """(fn(*args, **kwargs), seconds)."""
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def reliability_data(rng: np.random.Generator, r: int, n: int, k: int, missing: float = 0.05) -> np.ndarray:
    """(raters, items) float array of category values 0..k-1 with ``missing`` NaNs."""
    data = rng.integers(0, k, (r, n)).astype(float)
    data[rng.random((r, n)) < missing] = np.nan
    return data


def encode_fast(data: np.ndarray) -> Annotations:
    """What a vectorised ``from_wide`` fast path for numeric arrays would do."""
    x = data.T
    ok = ~np.isnan(x)
    vocab, inv = np.unique(x[ok], return_inverse=True)
    codes = np.full(x.shape, -1, dtype=np.int32)
    codes[ok] = inv
    return Annotations(codes, [float(v) for v in vocab], kind="numeric")


def split_times(ann: Annotations, level: str) -> dict[str, float]:
    """rating_layout / prepare / evaluate for one warm call (mirrors _api.krippendorff_alpha)."""
    _, t_design = clock(rating_layout, ann)
    if level == "nominal":
        sim = resolve_similarity(ann)
    else:
        delta = krippendorff_distance(level, ann.values())
        sim = MatrixSimilarity(1.0 - delta / delta.max())
    prep, t_prep = clock(prepare, ann, "alpha", sim)
    _, t_eval = clock(evaluate, prep)
    return {"design": t_design, "prepare": t_prep, "evaluate": t_eval}


def bench_alpha(sizes, seed: int = 0) -> None:
    import krippendorff

    rng = np.random.default_rng(seed)
    print("\n== Krippendorff's alpha: seconds (ratio > 1: softirr_stats is faster) ==")
    head = (f"{'R':>3} {'N':>7} {'K':>3} {'level':9} {'kripp':>8} {'encode':>7} {'enc_fast':>8} {'cold':>7} "
            f"{'warm':>7} {'design':>7} {'prepare':>7} {'eval':>7} {'k/warm':>7} {'k/(enc_fast+warm)':>17} "
            f"{'|diff|':>8}")
    print(head)
    for r, n, k in sizes:
        data = reliability_data(rng, r, n, k)
        ann_pub, t_enc = clock(Annotations.from_wide, data.T)
        for level in ("nominal", "interval"):
            a_ref, t_k = clock(krippendorff.alpha, reliability_data=data, level_of_measurement=level)
            ann = encode_fast(data)
            res, t_cold = clock(sis.krippendorff_alpha, ann, level=level)
            warm, fast = [], []
            for _ in range(3):
                a2, t_fast = clock(encode_fast, data)
                _, t = clock(sis.krippendorff_alpha, a2, level=level)
                warm.append(t)
                fast.append(t_fast)
            parts = split_times(encode_fast(data), level)
            pub = sis.krippendorff_alpha(ann_pub, level=level).value
            diff = max(abs(res.value - a_ref), abs(pub - a_ref))
            t_w, t_f = min(warm), min(fast)
            print(f"{r:3d} {n:7d} {k:3d} {level:9s} {t_k:8.3f} {t_enc:7.2f} {t_f:8.3f} {t_cold:7.2f} {t_w:7.3f} "
                  f"{parts['design']:7.3f} {parts['prepare']:7.3f} {parts['evaluate']:7.3f} {t_k / t_w:7.1f} "
                  f"{t_k / (t_f + t_w):17.1f} {diff:8.1e}", flush=True)


def numpy_alpha(codes: np.ndarray, delta: np.ndarray) -> float:
    """Prototype of a numpy point-estimate path: alpha from per-item label counts (no JAX).

    ``codes`` (items, raters) with -1 missing, ``delta`` the K x K distance. Per item
    ``n_ik`` by one bincount; D_o = sum_i (n_i^T delta n_i) / (r_i - 1) / N over pairable items.
    """
    n_items, k = codes.shape[0], delta.shape[0]
    ok = codes >= 0
    item = np.broadcast_to(np.arange(n_items)[:, None], codes.shape)[ok]
    counts = np.bincount(item * k + codes[ok], minlength=n_items * k).reshape(n_items, k).astype(float)
    r = counts.sum(axis=1)
    counts = counts[r >= 2]
    r = r[r >= 2]
    big_n = r.sum()
    within = np.einsum("ik,ik->i", counts @ delta, counts)
    d_o = np.sum(within / (r - 1)) / big_n
    nk = counts.sum(axis=0)
    d_e = (nk @ delta @ nk) / (big_n * (big_n - 1))
    return float(1 - d_o / d_e)


def bench_numpy_path(sizes, seed: int = 0) -> None:
    """How fast a numpy path for single point estimates would be (the proposed fix)."""
    import krippendorff

    rng = np.random.default_rng(seed)
    print("\n== Prototype: numpy point-estimate path (proposed fix for small data) ==")
    print(f"{'R':>3} {'N':>7} {'K':>3} {'level':9} {'kripp':>8} {'numpy':>8} {'ours(warm)':>10} {'|diff|':>8}")
    for r, n, k in sizes:
        data = reliability_data(rng, r, n, k)
        ann = encode_fast(data)
        codes = ann.codes
        for level in ("nominal", "interval"):
            delta = 1.0 - np.eye(k) if level == "nominal" else krippendorff_distance(level, ann.values())
            sis.krippendorff_alpha(encode_fast(data), level=level)
            a_ref, t_k = clock(krippendorff.alpha, reliability_data=data, level_of_measurement=level)
            t_np = min(clock(numpy_alpha, codes, delta)[1] for _ in range(5))
            a_np = numpy_alpha(codes, delta)
            t_w = min(clock(sis.krippendorff_alpha, encode_fast(data), level=level)[1] for _ in range(3))
            print(f"{r:3d} {n:7d} {k:3d} {level:9s} {t_k:8.3f} {t_np:8.4f} {t_w:10.3f} {abs(a_np - a_ref):8.1e}",
                  flush=True)


def bench_missing(r: int = 5, n: int = 10_000, k: int = 50, b: int = 2000, seed: int = 0) -> None:
    """Complete data against 10% missing: warm point alpha and an item bootstrap (best of 5)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    base = np.where(rng.random((n, r)) < 0.6, truth[:, None], rng.integers(0, k, (n, r)))
    print(f"\n== Missing ratings: nominal alpha at ({r}, {n}, {k}), warm, best of 5 ==")
    print(f"{'missing':>7} {'point_ms':>9} {'bootstrap_ms':>12} {'us/replicate':>12}")
    for miss in (0.0, 0.1):
        codes = base.copy()
        codes[rng.random((n, r)) < miss] = -1

        def ann(codes=codes) -> Annotations:
            return Annotations(codes.astype(np.int32), [float(v) for v in range(k)], kind="numeric")

        cfg = sis.Bootstrap(n=b, seed=0)
        sis.krippendorff_alpha(ann(), ci=cfg)  # warm-up: programs for these shapes
        t_p = min(clock(sis.krippendorff_alpha, ann())[1] for _ in range(5))
        t_b = min(clock(sis.krippendorff_alpha, ann(), ci=cfg)[1] for _ in range(5))
        print(f"{miss:7.0%} {t_p * 1e3:9.2f} {t_b * 1e3:12.0f} {t_b / b * 1e6:12.0f}", flush=True)


def random_words(rng: np.random.Generator, k: int) -> np.ndarray:
    letters = np.array(list(string.ascii_lowercase))
    out: set[str] = set()
    while len(out) < k:
        out.update("".join(w) for w in rng.choice(letters, (k, 10)))
    return np.array(sorted(out)[:k], dtype=object)


def random_similarity(rng: np.random.Generator, k: int) -> np.ndarray:
    """Symmetric K x K similarity in [0, 1] with a unit diagonal."""
    s = rng.random((k, k)) ** 4  # mostly small, like real label similarities
    s = np.minimum(s, s.T)
    np.fill_diagonal(s, 1.0)
    return s


def two_raters(rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes of two raters on 2K items; B copies A half of the time; every label is used."""
    n = 2 * k
    a = np.concatenate([np.arange(k), rng.integers(0, k, n - k)])
    b = np.where(rng.random(n) < 0.5, a, rng.permutation(a))
    return a, b


def bench_soft_cohen(ks, lev_max_k: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    print("\n== Soft Cohen's kappa, exact chance, two raters on 2K items ==")
    print(f"{'similarity':12} {'K':>6} {'support':>7} {'seconds':>8} {'pairs_scored':>13} {'cdist_KxK_s':>11} {'kappa':>8}")
    for k in ks:
        a, b = two_raters(rng, k)
        if k <= lev_max_k:
            words = random_words(rng, k)
            ann = Annotations.from_wide(np.stack([words[a], words[b]], axis=1))
            res, t = clock(sis.cohen_kappa, ann, similarity=Levenshtein())
            _, t_cd = clock(Levenshtein().matrix, words, words)
            print(f"{'levenshtein':12} {k:6d} {len(ann.vocabulary):7d} {t:8.2f} {res.n_pairs_scored:13d} {t_cd:11.2f} "
                  f"{res.value:8.4f}", flush=True)
        else:
            print(f"{'levenshtein':12} {k:6d}  skipped (> --lev-max-k {lev_max_k}; see the K = 1e3 row for the rate)")
        s = random_similarity(rng, k)
        ann = Annotations(np.stack([a, b], axis=1).astype(np.int32), [f"l{i}" for i in range(k)])
        res, t_cold = clock(sis.cohen_kappa, ann, similarity=s)
        ann = Annotations(np.stack([a, b], axis=1).astype(np.int32), [f"l{i}" for i in range(k)])
        res, t = clock(sis.cohen_kappa, ann, similarity=s)
        print(f"{'matrix':12} {k:6d} {k:7d} {t:8.2f} {'0 (given)':>13} {'-':>11} {res.value:8.4f}   (cold {t_cold:.2f} s)",
              flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="smallest size and K = 1e3 only")
    ap.add_argument("--prototype", action="store_true", help="only the numpy-path prototype at the smallest size")
    ap.add_argument("--lev-max-k", type=int, default=10000,
                    help="largest K scored with Levenshtein (K = 1e4 needs 5e7 pairs)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    print(f"softirr_stats benchmark; {time.strftime('%Y-%m-%d %H:%M:%S')}")
    if args.prototype:
        bench_numpy_path(SIZES[:1])
        return
    bench_alpha(SIZES[:1] if args.quick else SIZES)
    bench_missing()
    bench_soft_cohen([1000] if args.quick else [1000, 10_000], args.lev_max_k)


if __name__ == "__main__":
    main()
