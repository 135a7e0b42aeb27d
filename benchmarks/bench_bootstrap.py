"""Bootstrap speed and memory: the vmapped weight bootstrap vs looping the krippendorff package.

One run prints:

1. B = 2000 item-bootstrap replicates of nominal alpha at (5 raters, 1e4 items, 50 categories):
   ``bootstrap_replicates`` on a prepared coefficient (compile excluded, and reported) and the
   public ``sis.krippendorff_alpha(ann, ci=Bootstrap(n=2000))``, against
   ``krippendorff.alpha`` on index-resampled data (``--loop-reps`` replicates timed and
   extrapolated to B). Target ratio >= 500.
2. Time per replicate at (5, 1e4, 5) against a memory-traffic floor, and the share of the time
   spent drawing the weights (``draw_weights`` alone; also raw ``jax.random`` threefry / rbg
   uniforms and numpy's generator for comparison). Memory bandwidth is measured here with a
   numpy copy of a 256 MiB array.
3. Peak resident memory (``ru_maxrss`` of a fresh subprocess, run first: Linux carries the
   parent's ``ru_maxrss`` over fork + exec) for B = 10,000 item-bootstrap
   replicates of nominal alpha on 1e5 items (5 raters, 5 categories), percentile interval,
   against the same subprocess computing only the point estimate. Target < 2 GB.

Run::

    python benchmarks/bench_bootstrap.py            # ~3-5 min on 2 busy cores
    python benchmarks/bench_bootstrap.py --quick    # B = 500, no memory subprocess
"""

import argparse
import json
import subprocess
import sys
import time
import warnings

import jax
import jax.numpy as jnp
import numpy as np

import softirr_stats as sis
from softirr_stats.agreement import evaluate, point_estimate, resolve_similarity
from softirr_stats.base._jax import x64
from softirr_stats.data import Annotations
from softirr_stats.uncertainty import Bootstrap, bootstrap_replicates, draw_weights


def clock(fn):
    t0 = time.perf_counter()
    out = fn()
    if isinstance(out, jax.Array):
        out.block_until_ready()
    return out, time.perf_counter() - t0


def complete_codes(rng: np.random.Generator, r: int, n: int, k: int) -> np.ndarray:
    """(items, raters) codes with some agreement: each rater copies a true label w.p. 0.6."""
    truth = rng.integers(0, k, n)
    return np.where(rng.random((n, r)) < 0.6, truth[:, None], rng.integers(0, k, (n, r))).astype(np.int32)


def make_ann(codes: np.ndarray, k: int) -> Annotations:
    return Annotations(codes, [float(v) for v in range(k)], kind="numeric")


def prepared(ann: Annotations):
    return point_estimate(ann, family="alpha", coefficient="krippendorff_alpha", sim=resolve_similarity(ann))[1]


def bench_vs_krippendorff(b: int, loop_reps: int, seed: int = 0) -> None:
    import krippendorff

    r, n, k = 5, 10_000, 50
    rng = np.random.default_rng(seed)
    codes = complete_codes(rng, r, n, k)
    ann = make_ann(codes, k)
    data = codes.T.astype(float)
    prep = prepared(ann)
    cfg = Bootstrap(n=b, seed=seed)
    _, t_cold = clock(lambda: bootstrap_replicates(prep, cfg))
    reps, t_warm = clock(lambda: bootstrap_replicates(prep, cfg))
    _, t_api = clock(lambda: sis.krippendorff_alpha(make_ann(codes, k), ci=cfg))
    # the same replicates by index resampling through the krippendorff package
    C, _, _ = draw_weights(prep, cfg, 0, loop_reps)
    counts = np.asarray(C).astype(np.int64)
    t0 = time.perf_counter()
    loop = [krippendorff.alpha(reliability_data=data[:, np.repeat(np.arange(n), c)], level_of_measurement="nominal")
            for c in counts]  # the baseline being measured: one package call per replicate
    t_loop = (time.perf_counter() - t0) / loop_reps
    diff = float(np.max(np.abs(np.asarray(loop) - reps["value"][:loop_reps])))
    print(f"\n== B = {b} item bootstrap, nominal alpha, (5 raters, 1e4 items, 50 categories) ==")
    print(f"krippendorff loop : {t_loop * 1e3:8.1f} ms / replicate ({loop_reps} timed) -> {t_loop * b:8.1f} s for B = {b}")
    print(f"softirr warm      : {t_warm:8.3f} s  ({t_warm / b * 1e6:.0f} us / replicate); first call {t_cold:.2f} s "
          f"(compile {max(t_cold - t_warm, 0):.2f} s)")
    print(f"public API        : {t_api:8.3f} s  (sis.krippendorff_alpha(ann, ci=Bootstrap(n={b})), point estimate included)")
    print(f"ratio loop / warm : {t_loop * b / t_warm:8.0f}x   ratio loop / public API: {t_loop * b / t_api:.0f}x   "
          f"(target >= 500x); max |replicate diff| = {diff:.1e}")


def memory_bandwidth() -> float:
    """Bytes per second of a numpy copy (read + write counted) of a 256 MiB array."""
    src = np.ones(2**25)
    dst = np.empty_like(src)
    best = np.inf
    for _ in range(5):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    return 2 * src.nbytes / best


def bench_per_replicate(b: int, seed: int = 0) -> None:
    r, n, k = 5, 10_000, 5
    rng = np.random.default_rng(seed)
    codes = complete_codes(rng, r, n, k)
    prep = prepared(make_ann(codes, k))
    cfg = Bootstrap(n=b, seed=seed)
    bootstrap_replicates(prep, cfg)
    _, t_all = clock(lambda: bootstrap_replicates(prep, cfg))
    chunk = 512  # bootstrap_replicates' default chunk

    def draws():
        out = None
        for b0 in range(0, b, chunk):
            out = draw_weights(prep, cfg, b0, min(b, b0 + chunk))[0].block_until_ready()
        return out

    draws()
    _, t_draw = clock(draws)
    C = np.asarray(draw_weights(prep, cfg, 0, chunk)[0])
    evaluate(prep, C)
    _, t_eval = clock(lambda: evaluate(prep, C))
    t_eval *= b / chunk
    m = int((codes >= 0).sum())
    p = prep.layout.n_pairs
    bw = memory_bandwidth()
    # floors (bytes per replicate)
    floor_weights = 2 * 8 * n  # the weight vector written once and read once (float64)
    floor_stage1 = floor_weights + 8 * n * (k + 2)  # + per-item sufficient statistics (r, r*dbar, n_ik), no reuse
    touched = floor_weights + m * (4 + 4 + 8 + 8) + 3 * 8 * n  # what stage1 reads/writes per replicate (gathers, sums)

    def raw_uniform(impl: str) -> float:
        key = jax.random.key(seed, impl=impl)
        f = jax.jit(lambda kk: jax.random.uniform(kk, (chunk, n)))
        f(key).block_until_ready()
        t = np.inf
        for _ in range(3):
            t = min(t, clock(lambda: f(key))[1])
        return t / chunk

    def bincount_only() -> float:
        idx = jax.random.randint(jax.random.key(0), (chunk, n), 0, n)
        f = jax.jit(jax.vmap(lambda i: jnp.bincount(i, length=n)))
        f(idx).block_until_ready()
        return min(clock(lambda: f(idx))[1] for _ in range(3)) / chunk

    gen = np.random.default_rng(seed)
    _, t_np = clock(lambda: gen.integers(0, n, (chunk, n)))
    with x64():
        t_tf = raw_uniform("threefry2x32")
        t_rbg = raw_uniform("rbg")
        t_bc = bincount_only()
    us = 1e6
    print(f"\n== Per replicate, nominal alpha, (5 raters, 1e4 items, 5 categories), B = {b} ==")
    print(f"measured memory bandwidth (numpy copy): {bw / 1e9:.1f} GB/s")
    print(f"bootstrap_replicates       : {t_all / b * us:8.1f} us / replicate")
    print(f"  draw_weights alone       : {t_draw / b * us:8.1f} us  ({100 * t_draw / t_all:.0f}% of the total)")
    print(f"  evaluate alone           : {t_eval / b * us:8.1f} us  ({100 * t_eval / t_all:.0f}%)")
    print(f"  raw uniforms (1e4), jax threefry: {t_tf * us:.1f} us, jax rbg: {t_rbg * us:.1f} us, "
          f"numpy integers: {t_np / chunk * us:.1f} us; jax bincount of 1e4 indices: {t_bc * us:.1f} us")
    print(f"floor A, weights only (16 n B)        : {floor_weights / bw * us:8.2f} us  -> measured is "
          f"{t_all / b / (floor_weights / bw):.0f}x this")
    print(f"floor B, + per-item stats (no reuse)  : {floor_stage1 / bw * us:8.2f} us  -> measured is "
          f"{t_all / b / (floor_stage1 / bw):.0f}x this")
    print(f"stage1 as written (M={m} ratings, P={p} pairs gathered/summed): ~{touched / 1e3:.0f} kB -> "
          f"{touched / bw * us:.1f} us")


def gemm_statistics(prep) -> np.ndarray:
    """Per-item sufficient statistics of nominal/soft alpha for fixed rater weights: (n, 2 + Ks).

    Columns: ``r_i 1[pairable]``, ``r_i dbar_i`` and the pairable label counts ``n_ik``; an item
    bootstrap replicate is then ``C @ M`` (one GEMM per chunk), which reads C once.
    """
    d, kd = prep.layout, prep.kd
    den = np.bincount(d.pair_item, minlength=prep.n).astype(float)
    dnum = np.bincount(d.pair_item, weights=1.0 - np.asarray(kd.pair_s), minlength=prep.n)
    ok = den > 0
    r = d.r_i * ok
    dbar = np.where(ok, dnum / np.where(ok, den, 1.0), 0.0)
    counts = np.zeros((prep.n, prep.ks))
    np.add.at(counts, (d.rating_item, np.asarray(kd.rating_s)), ok[d.rating_item])
    return np.column_stack([r, r * dbar, counts])


def gemm_alpha(stats: np.ndarray, C: np.ndarray) -> np.ndarray:
    out = C @ stats
    big_n, do_num, nk = out[:, 0], out[:, 1], out[:, 2:]
    d_e = (big_n**2 - np.sum(nk**2, axis=1)) / (big_n * (big_n - 1.0))
    return 1.0 - (do_num / big_n) / d_e


def numpy_counts(seed: int, start: int, stop: int, n: int, block: int = 64) -> np.ndarray:
    """Multinomial item counts from numpy, one generator per fixed block of 64 replicates.

    Seeding per fixed block (not per chunk) keeps replicate b a function of (seed, b) only,
    whatever chunk size the caller uses, while amortising the generator set-up.
    """
    rows = []
    for blk in range(start // block, (stop - 1) // block + 1):
        idx = np.random.default_rng([seed, blk]).integers(0, n, (block, n))
        lo, hi = max(start, blk * block), min(stop, (blk + 1) * block)
        rows.append(idx[lo - blk * block:hi - blk * block])
    idx = np.concatenate(rows)
    b = stop - start
    flat = (np.arange(b)[:, None] * n + idx).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).astype(np.float64)


def bench_proposed(b: int, seed: int = 0) -> None:
    """Prototype of the suggested fast path (same statistic, verified on the same weights)."""
    r, n, k = 5, 10_000, 5
    codes = complete_codes(np.random.default_rng(seed), r, n, k)
    prep = prepared(make_ann(codes, k))
    chunk = 512
    stats, t_stats = clock(lambda: gemm_statistics(prep))
    C = np.asarray(draw_weights(prep, Bootstrap(n=chunk, seed=seed), 0, chunk)[0])
    diff = float(np.max(np.abs(gemm_alpha(stats, C) - evaluate(prep, C)["value"])))
    _, t_w = clock(lambda: [numpy_counts(seed, b0, min(b, b0 + chunk), n) for b0 in range(0, b, chunk)])
    _, t_g = clock(lambda: [gemm_alpha(stats, C) for _ in range(0, b, chunk)])
    us = 1e6
    print(f"\n== Prototype fast path, same setting, B = {b} (max |diff| vs evaluate on the same C: {diff:.1e}) ==")
    print(f"per-item statistics once: {t_stats * 1e3:.1f} ms; numpy weights: {t_w / b * us:.1f} us / replicate; "
          f"GEMM statistic: {t_g / b * us:.1f} us / replicate; total {(t_w + t_g) / b * us:.1f} us / replicate")


MEM_SCRIPT = """
import json, resource, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
import softirr_stats as sis
from softirr_stats.data import Annotations
n, b, method = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
chunk = int(sys.argv[4]) or None
rng = np.random.default_rng(0)
truth = rng.integers(0, 5, n)
codes = np.where(rng.random((n, 5)) < 0.6, truth[:, None], rng.integers(0, 5, (n, 5))).astype(np.int32)
ann = Annotations(codes, [0.0, 1.0, 2.0, 3.0, 4.0], kind="numeric")
t0 = time.perf_counter()
if b:
    r = sis.krippendorff_alpha(ann, ci=sis.Bootstrap(n=b, method=method, chunk_size=chunk))
else:
    r = sis.krippendorff_alpha(ann)
print(json.dumps({"maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "seconds": time.perf_counter() - t0, "low": r.ci_low, "high": r.ci_high}))
"""


def peak_memory(n: int, b: int, method: str = "percentile", chunk: int = 0) -> dict:
    out = subprocess.run([sys.executable, "-c", MEM_SCRIPT, str(n), str(b), method, str(chunk)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def bench_memory(n: int, b: int, chunks: tuple[int, ...] = (0,)) -> None:
    """Peak RSS; the peak is reached in the first chunk, so a smaller B shows the same peak."""
    base = peak_memory(n, 0)
    print(f"\n== Peak memory, nominal alpha, {n} items x 5 raters ==")
    print(f"point estimate only          : {base['maxrss_mb']:7.0f} MB ({base['seconds']:.1f} s)")
    for chunk in chunks:
        boot = peak_memory(n, b, chunk=chunk)
        print(f"B = {b} percentile bootstrap, chunk_size={chunk or 'default'}: {boot['maxrss_mb']:7.0f} MB "
              f"({boot['seconds']:.1f} s); bootstrap adds {boot['maxrss_mb'] - base['maxrss_mb']:.0f} MB "
              f"(target: total < 2048 MB)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--loop-reps", type=int, default=20)
    ap.add_argument("--memory-only", action="store_true", help="only the peak-memory subprocesses")
    ap.add_argument("--mem-b", type=int, default=10_000, help="replicates for the peak-memory check")
    ap.add_argument("--mem-chunks", type=int, nargs="+", default=[0], help="chunk sizes to try (0 = default)")
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    print(f"softirr_stats bootstrap benchmark; jax {jax.__version__} on {jax.devices()[0].platform}; "
          f"{time.strftime('%Y-%m-%d %H:%M:%S')}")
    if args.memory_only:
        bench_memory(100_000, args.mem_b, tuple(args.mem_chunks))
        return
    b = 500 if args.quick else 2000
    if not args.quick:  # first, while this process is small: Linux keeps ru_maxrss across fork + exec
        bench_memory(100_000, args.mem_b, tuple(args.mem_chunks))
    bench_vs_krippendorff(b, 5 if args.quick else args.loop_reps)
    bench_per_replicate(b)
    bench_proposed(b)


if __name__ == "__main__":
    main()
