"""Cold-start speed: whole processes timed from outside, with the peers measured in the same run.

Every row of the cold-start target table (import, ``--help``, ``softirr agree`` with a warm
and an empty compile cache, the first soft Cohen's kappa, the item bootstrap, warm point
alpha), each as the median of ``--runs`` runs (default 5), next to its peer or floor:

- a 6-line ``krippendorff`` script on the same 4-item CSV (pandas + krippendorff),
- a process that computes the raw ``rapidfuzz.process.cdist`` of the full K x K matrix,
- ``krippendorff.alpha`` called once per bootstrap replicate (the loop a user would write),
- ``krippendorff.alpha`` for the warm point estimate.

The compile cache lives in a temporary directory (``SOFTIRR_COMPILE_CACHE``): "warm" rows
run after one untimed run filled it, "empty" rows start each run from a new directory.

Run::

    python benchmarks/bench_cold.py            # every row (~10 min on 2 busy cores)
    python benchmarks/bench_cold.py --runs 3 --quick   # fewer runs, a shorter krippendorff loop
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOFTIRR = [sys.executable, "-m", "softirr_stats.cli"]  # the `softirr` console script, without the shim

KRIPP_SCRIPT = """
import sys, numpy as np, pandas as pd, krippendorff
df = pd.read_csv(sys.argv[1])
wide = df.pivot(index="rater", columns="item", values="label")
codes, _ = pd.factorize(wide.to_numpy().ravel())
data = np.where(codes < 0, np.nan, codes).reshape(wide.shape).astype(float)
print(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"))
"""

WORDS = """
import string, numpy as np
rng = np.random.default_rng(0)
letters = np.array(list(string.ascii_lowercase))
words = sorted({"".join(w) for w in rng.choice(letters, (2300, 10))})[:2000]
k = len(words)
a = np.concatenate([np.arange(k), rng.integers(0, k, k)])
b = np.where(rng.random(2 * k) < 0.5, a, rng.permutation(a))
"""

CDIST_SCRIPT = WORDS + """
from rapidfuzz import process
from rapidfuzz.distance import Levenshtein
m = process.cdist(words, words, scorer=Levenshtein.normalized_similarity, dtype=np.float64)
print(m.shape)
"""

COHEN_SCRIPT = WORDS + """
import softirr_stats as sis
from softirr_stats.equivalence import Levenshtein
w = np.array(words, dtype=object)
r = sis.cohen_kappa(np.stack([w[a], w[b]], axis=1), similarity=Levenshtein(), chance="exact")
print(r.value, r.n_pairs_scored)
"""

BOOT_DATA = """
import numpy as np
rng = np.random.default_rng(0)
r, n, k = 5, 10_000, 50
truth = rng.integers(0, k, n)
codes = np.where(rng.random((n, r)) < 0.6, truth[:, None], rng.integers(0, k, (n, r)))
codes[rng.random((n, r)) < 0.1] = -1
"""

BOOT_SCRIPT = BOOT_DATA + """
import time, warnings
warnings.simplefilter("ignore")
import softirr_stats as sis
def ann():
    return sis.Annotations(codes.astype(np.int32), [float(v) for v in range(k)], kind="numeric")
cfg = sis.Bootstrap(n=2000, seed=0)
t0 = time.perf_counter(); sis.krippendorff_alpha(ann(), ci=cfg); t_fresh = time.perf_counter() - t0
t0 = time.perf_counter(); res = sis.krippendorff_alpha(ann(), ci=cfg); t_warm = time.perf_counter() - t0
print(t_fresh, t_warm, res.value)
"""

KRIPP_LOOP_SCRIPT = BOOT_DATA + """
import time, krippendorff
data = np.where(codes < 0, np.nan, codes).T.astype(float)
g = np.random.default_rng(1)
times = []
for _ in range({reps}):  # the baseline being measured: one package call per replicate
    idx = g.integers(0, n, n)
    t0 = time.perf_counter()
    krippendorff.alpha(reliability_data=data[:, idx], level_of_measurement="nominal")
    times.append(time.perf_counter() - t0)
print(float(np.median(times)))
"""

POINT_SCRIPT = """
import time, warnings, numpy as np, krippendorff
warnings.simplefilter("ignore")
import softirr_stats as sis
rng = np.random.default_rng(0)
for r, n, k in [(5, 10_000, 5), (20, 100_000, 50)]:
    data = rng.integers(0, k, (r, n)).astype(float)
    data[rng.random((r, n)) < 0.05] = np.nan
    codes = np.where(np.isnan(data), -1, data).T.astype(np.int32)
    def ann():
        return sis.Annotations(codes, [float(v) for v in range(k)], kind="numeric")
    ref = []
    for _ in range(3):
        t0 = time.perf_counter(); a_ref = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        ref.append(time.perf_counter() - t0)
    sis.krippendorff_alpha(ann())  # warm-up: compile (or load) the programs for this shape
    ours = []
    for _ in range(3):
        x = ann()
        t0 = time.perf_counter(); val = sis.krippendorff_alpha(x).value
        ours.append(time.perf_counter() - t0)
    print(r, n, k, float(np.median(ref)), min(ours), abs(val - a_ref))
"""


def four_item_csv(path: Path) -> Path:
    """The first 4 items of the bundled demo (3 annotators, free text) as a long CSV."""
    import csv

    from softirr_stats.data import demo_path

    with demo_path().open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    items = list(dict.fromkeys(r["item"] for r in rows))[:4]
    with path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["item", "rater", "label"])
        w.writerows([r["item"], r["rater"], r["label"]] for r in rows if r["item"] in items)
    return path


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    dt = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} failed:\n{out.stderr[-2000:]}")
    return dt, out.stdout


def median_time(cmd: list[str], env: dict[str, str], runs: int, fresh_cache: Path | None = None) -> float:
    times = []
    for _ in range(runs):
        if fresh_cache is not None:  # an empty compile cache for every run
            shutil.rmtree(fresh_cache, ignore_errors=True)
        times.append(timed(cmd, env)[0])
    return statistics.median(times)


def paired_medians(cmd_a: list[str], cmd_b: list[str], env: dict[str, str], runs: int) -> tuple[float, float]:
    """Medians of ``runs`` runs of a and of b, interleaved a, b, a, b, ... so both see the same load."""
    ta, tb = [], []
    for _ in range(runs):
        ta.append(timed(cmd_a, env)[0])
        tb.append(timed(cmd_b, env)[0])
    return statistics.median(ta), statistics.median(tb)


def row(what: str, value: str, target: str, met: bool | None) -> None:
    verdict = "-" if met is None else ("met" if met else "MISSED")
    print(f"| {what} | {value} | {target} | {verdict} |", flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5, help="runs per row (median)")
    ap.add_argument("--quick", action="store_true", help="1 krippendorff loop replicate per run instead of 3")
    args = ap.parse_args(argv)
    runs = args.runs
    work = Path(tempfile.mkdtemp(prefix="softirr-bench-cold-"))
    try:
        cache = work / "cache"
        env = {**os.environ, "SOFTIRR_COMPILE_CACHE": str(cache), "OMP_NUM_THREADS": "1",
               "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1", "MPLBACKEND": "Agg"}
        csv_path = four_item_csv(work / "four_items.csv")
        py = [sys.executable, "-c"]
        print(f"cold-start benchmark: median of {runs} whole-process runs; python {sys.version.split()[0]}, "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n")
        print("| what | measured | target | verdict |\n| --- | --- | --- | --- |")

        t = median_time([*py, "import softirr_stats"], env, runs)
        t_np = median_time([*py, "import numpy"], env, runs)
        row("`import softirr_stats`", f"{t:.2f} s (`import numpy` alone {t_np:.2f} s)", "<= 1.0 s", t <= 1.0)
        t = median_time([*SOFTIRR, "--help"], env, runs)
        row("`softirr --help`", f"{t:.2f} s", "<= 1.0 s", t <= 1.0)

        kripp = [*py, KRIPP_SCRIPT, str(csv_path)]
        agree0 = [*SOFTIRR, "agree", str(csv_path), "--bootstrap", "0"]
        timed(agree0, env)  # fill the compile cache
        t, t_k = paired_medians(agree0, kripp, env, runs)
        row("krippendorff script, same 4-item CSV (peer, interleaved with the next row)", f"{t_k:.2f} s", "-", None)
        row("`softirr agree` 4-item CSV, `--bootstrap 0`, cache warm", f"{t:.2f} s = {t / t_k:.2f}x the script",
            "<= 2x", t <= 2 * t_k)
        agree = [*SOFTIRR, "agree", str(csv_path), "-m", "indel"]
        timed(agree, env)
        t, t_k = paired_medians(agree, kripp, env, runs)
        row("`softirr agree` 4-item CSV, default interval (`-m indel`), cache warm",
            f"{t:.2f} s = {t / t_k:.2f}x the script ({t_k:.2f} s, interleaved)", "<= 3x", t <= 3 * t_k)
        empty = work / "empty-cache"
        t = median_time(agree, {**env, "SOFTIRR_COMPILE_CACHE": str(empty)}, runs, fresh_cache=empty)
        row("the same, compile cache empty", f"{t:.2f} s", "<= 8 s", t <= 8.0)

        timed([*py, COHEN_SCRIPT], env)
        t, t_cd = paired_medians([*py, COHEN_SCRIPT], [*py, CDIST_SCRIPT], env, runs)
        row("soft Cohen kappa, 2,000 terms, Levenshtein, exact chance, fresh process, cache warm",
            f"{t:.2f} s = {t / t_cd:.1f}x a raw cdist process ({t_cd:.2f} s, interleaved)", "<= 2x", t <= 2 * t_cd)

        reps = 1 if args.quick else 3
        timed([*py, BOOT_SCRIPT], env)  # fill the cache for this shape
        fresh, warm, loop = [], [], []
        for _ in range(runs):  # interleaved with the krippendorff loop, so both see the same load
            _, out = timed([*py, KRIPP_LOOP_SCRIPT.replace("{reps}", str(reps))], env)
            loop.append(float(out.split()[-1]))
            _, out = timed([*py, BOOT_SCRIPT], env)
            f, w, _ = map(float, out.split()[-3:])
            fresh.append(f)
            warm.append(w)
        t_loop = statistics.median(loop)
        f, w = statistics.median(fresh) / 2000, statistics.median(warm) / 2000
        row("item bootstrap B = 2000 at (5, 1e4, 50), 10% missing, fresh process, public API",
            f"{f * 1e3:.2f} ms/replicate = {t_loop / f:.0f}x the krippendorff loop ({t_loop * 1e3:.0f} ms/replicate)",
            ">= 300x", t_loop / f >= 300)
        row("the same, warm (second call in the process)", f"{w * 1e3:.2f} ms/replicate = {t_loop / w:.0f}x",
            ">= 1,000x", t_loop / w >= 1000)

        _, out = timed([*py, POINT_SCRIPT], env)
        for line in out.strip().splitlines():
            r, n, k, t_ref, t_ours, diff = line.split()
            ratio = float(t_ref) / float(t_ours)
            need = 1.0 if int(n) == 10_000 else 20.0
            row(f"point alpha vs krippendorff, warm, ({r}, {int(n):.0e}, {k}), same process",
                f"{float(t_ours) * 1e3:.1f} ms vs {float(t_ref) * 1e3:.0f} ms = {ratio:.1f}x (|diff| {float(diff):.0e})",
                "ahead" if need == 1.0 else ">= 20x", ratio > need if need == 1.0 else ratio >= need)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(textwrap.dedent("""
        Whole-process times include interpreter start-up. Peers and ours run interleaved (or in
        one process), so a ratio compares runs under the same load.""").strip())


if __name__ == "__main__":
    main()
