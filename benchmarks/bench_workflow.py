"""Answers in seconds: the three workflow commands of issue 22 timed as whole processes.

Each row is the median wall time of ``--runs`` subprocess runs (default 5) of the real entry
point, printed beside its target, with a cold-cache figure beside it:

- ``softirr model ratings.csv`` (Dawid-Skene by NUTS, the default) on 30 items x 3 raters,
  target <= 5 s;
- ``softirr report ratings.csv -m exact,levenshtein,indel --model dawid_skene``, target <= 12 s;
- ``softirr agree demo.csv -m embedding`` on the bundled demo, target <= 6 s.

"warm" runs follow one untimed run that filled a fresh JAX compile cache
(``SOFTIRR_COMPILE_CACHE`` points at a temporary directory); "cold" starts one run from an
empty cache directory. The targets are for an idle machine: the load average (``uptime``) is
printed before and after, so that figures taken on a shared machine can be read against it, and
each row gives the median CPU time (user + sys of the child process), which depends less on
the load than the wall time.

Run::

    python benchmarks/bench_workflow.py            # 5 warm runs + 1 cold run per command
    python benchmarks/bench_workflow.py --runs 3   # fewer runs
    python benchmarks/bench_workflow.py --only model
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SOFTIRR = [sys.executable, "-m", "softirr_stats.cli"]  # the `softirr` console script's module
TARGETS = {"model": 5.0, "report": 12.0, "agree_embedding": 6.0}


def _ratings(path: Path) -> Path:
    """30 items x 3 raters of three sentiment labels (simulated Dawid-Skene raters, seed 5)."""
    import numpy as np
    import pandas as pd

    from softirr_stats import models

    sim = models.simulate_dawid_skene(30, 3, 3, accuracy=0.8, seed=5)
    names = np.array(["negative", "neutral", "positive"], dtype=object)
    rows = [(f"task{i}", f"annotator{j}", names[c]) for (i, j), c in np.ndenumerate(sim["codes"]) if c >= 0]
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


def _commands(work: Path) -> dict[str, list[str]]:
    from softirr_stats.data import demo_path

    ratings = _ratings(work / "ratings.csv")
    return {
        "model": [*SOFTIRR, "model", str(ratings)],
        "report": [*SOFTIRR, "report", str(ratings), "-m", "exact,levenshtein,indel", "--model", "dawid_skene",
                   "-o", str(work / "report.html")],
        "agree_embedding": [*SOFTIRR, "agree", str(demo_path()), "-m", "embedding"],
    }


def _children_cpu() -> float:
    """User + system CPU seconds of every waited-for child process so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(cmd: list[str], cache: Path) -> tuple[float, float]:
    """Run one command; return its (wall, user + sys CPU) seconds."""
    env = {**os.environ, "SOFTIRR_COMPILE_CACHE": str(cache)}
    cpu0 = _children_cpu()
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    wall = time.perf_counter() - t0
    cpu = _children_cpu() - cpu0
    if out.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({out.returncode}):\n{out.stderr[-2000:]}")
    return wall, cpu


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} on {os.cpu_count()} CPUs"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5, help="warm runs per command (median)")
    ap.add_argument("--only", choices=sorted(TARGETS), action="append", help="time only these commands")
    ap.add_argument("--no-cold", action="store_true", help="skip the cold-cache run")
    args = ap.parse_args(argv)
    if args.runs < 1:
        ap.error("--runs must be at least 1")
    work = Path(tempfile.mkdtemp(prefix="softirr_bench_workflow_"))
    try:
        commands = _commands(work)
        names = args.only or list(TARGETS)
        print(f"before: {_load()}")
        print(f"{'command':<18} {'target':>8} {'warm median':>12} {'cpu median':>11} {'warm runs':>28} "
              f"{'cold':>8} {'cold cpu':>9}  ok")
        for name in names:
            cold, cold_cpu = float("nan"), float("nan")
            if not args.no_cold:
                cold, cold_cpu = _run(commands[name], work / f"cold_{name}")
            cache = work / f"warm_{name}"
            _run(commands[name], cache)  # fills the cache (untimed)
            runs = [_run(commands[name], cache) for _ in range(args.runs)]
            med = statistics.median(w for w, _ in runs)
            cpu_med = statistics.median(c for _, c in runs)
            shown = ", ".join(f"{w:.1f}" for w, _ in runs)
            cold_txt = "skipped" if cold != cold else f"{cold:.1f}s"
            cold_cpu_txt = "skipped" if cold_cpu != cold_cpu else f"{cold_cpu:.1f}s"
            print(f"{name:<18} {TARGETS[name]:>7.1f}s {med:>11.2f}s {cpu_med:>10.2f}s {shown:>28} {cold_txt:>8} "
                  f"{cold_cpu_txt:>9}  {'yes' if med <= TARGETS[name] else 'NO'}", flush=True)
        print(f"after: {_load()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
