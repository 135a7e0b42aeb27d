"""Export readers: seconds and peak memory to read a large Label Studio export and a brat corpus.

One run generates, in a temporary folder,

- a Label Studio JSON export of about ``--mb`` megabytes (default 100): tasks with a text,
  3 annotations each in the shape Label Studio writes (``completed_by`` objects, time stamps,
  a ``choices`` and a ``textarea`` result);
- a brat corpus, 3 annotators x ``--docs`` documents x 10 spans (exact and overlap rules),

reads each with ``read_annotations`` in a fresh process (so the peak resident memory of the read
is its own, from ``resource.getrusage``), and prints the wall time (the import of the package
included), the CPU time (less sensitive to a busy machine) and the peak RSS. The issue's
target for the Label Studio export: under 20 s and under 2 GB. A read that takes over 2 s
shows a tqdm progress bar on a terminal.

Run::

    python benchmarks/bench_readers.py                  # 100 MB export, 2000 documents
    python benchmarks/bench_readers.py --mb 10 --docs 200   # a quick run
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

_CHILD = """
import resource, sys, time, warnings
warnings.simplefilter("ignore")
t0 = time.perf_counter()
from softirr_stats.data import SpanRule, read_annotations
kind, path = sys.argv[1], sys.argv[2]
if kind == "label-studio":
    ann = read_annotations(path, format="label-studio", field="sentiment")
else:
    ann = read_annotations(path, format="brat", span_rule=SpanRule(match=kind))
wall = time.perf_counter() - t0
use = resource.getrusage(resource.RUSAGE_SELF)
rss = use.ru_maxrss / 1024  # KiB on Linux
print(f"{wall:.2f} {rss:.0f} {use.ru_utime + use.ru_stime:.2f} {ann!r}")
"""


def _label_studio(path: Path, mb: float, rng: np.random.Generator) -> tuple[int, int]:
    """Write tasks until the file holds about ``mb`` megabytes; returns (tasks, bytes)."""
    words = ["the", "patient", "reports", "mild", "pain", "no", "fever", "since", "monday", "and", "cough"]
    target = int(mb * 1_000_000)
    written, t = 0, 0
    with path.open("w", encoding="utf-8") as fh:
        fh.write("[")
        while written < target:
            t += 1
            anns = []
            for u in range(3):
                stamp = f"2024-01-{1 + (t + u) % 28:02d}T10:{u:02d}:00.000000Z"
                anns.append({
                    "id": 3 * t + u, "completed_by": {"id": u + 1, "email": f"annotator{u + 1}@example.org",
                                                      "first_name": "", "last_name": ""},
                    "result": [
                        {"id": f"c{t}_{u}", "type": "choices", "value": {"choices": [str(rng.choice(["pos", "neg", "neu"]))]},
                         "origin": "manual", "to_name": "text", "from_name": "sentiment"},
                        {"id": f"t{t}_{u}", "type": "textarea", "value": {"text": [" ".join(rng.choice(words, 3))]},
                         "origin": "manual", "to_name": "text", "from_name": "notes"}],
                    "was_cancelled": False, "ground_truth": False, "created_at": stamp, "updated_at": stamp,
                    "lead_time": float(rng.uniform(1, 30)), "prediction": {}, "result_count": 0, "task": t,
                    "parent_prediction": None, "parent_annotation": None})
            task = {"id": t, "annotations": anns, "file_upload": "upload.json", "drafts": [], "predictions": [],
                    "data": {"text": " ".join(rng.choice(words, 40))}, "meta": {},
                    "created_at": "2024-01-01T09:00:00.000000Z", "updated_at": "2024-01-02T09:00:00.000000Z",
                    "inner_id": t, "total_annotations": 3, "cancelled_annotations": 0, "total_predictions": 0,
                    "project": 1, "updated_by": 1}
            chunk = ("," if t > 1 else "") + json.dumps(task)
            fh.write(chunk)
            written += len(chunk)
        fh.write("]")
    return t, path.stat().st_size


def _brat(root: Path, n_docs: int, rng: np.random.Generator) -> Path:
    for who in ("a", "b", "c"):
        (root / "brat" / who).mkdir(parents=True)
        for doc in range(n_docs):
            starts = np.sort(rng.choice(1000, 10, replace=False)) * 10
            lines = [f"T{k}\tX {s + rng.integers(0, 3)} {s + 5 + rng.integers(0, 3)}\t-" for k, s in enumerate(starts)]
            (root / "brat" / who / f"d{doc}.ann").write_text("\n".join(lines) + "\n")
    return root / "brat"


def _run(kind: str, path: Path) -> tuple[float, float, float, str]:
    """(wall s, peak RSS MiB, CPU s, repr) of one read in a fresh process (import of the package included)."""
    out = subprocess.run([sys.executable, "-c", _CHILD, kind, str(path)], check=True, capture_output=True, text=True)
    wall, rss, cpu, rest = out.stdout.strip().split(" ", 3)
    return float(wall), float(rss), float(cpu), rest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the Label Studio export (MB)")
    parser.add_argument("--docs", type=int, default=2000, help="brat documents per annotator")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        n_tasks, size = _label_studio(root / "export.json", args.mb, rng)
        print(f"generated a Label Studio export: {size / 1e6:.1f} MB, {n_tasks} tasks x 3 annotations "
              f"({time.perf_counter() - t0:.1f} s)")
        wall, rss, cpu, ann = _run("label-studio", root / "export.json")
        print(f"label-studio {size / 1e6:.0f} MB: {wall:.2f} s wall ({cpu:.2f} s CPU), peak RSS {rss:.0f} MiB  {ann}")
        brat = _brat(root, args.docs, rng)
        for rule in ("exact", "overlap"):
            wall, rss, cpu, ann = _run(rule, brat)
            print(f"brat, {rule} spans, {args.docs} docs x 3 raters x 10 spans: {wall:.2f} s wall ({cpu:.2f} s CPU), "
                  f"peak RSS {rss:.0f} MiB  {ann}")


if __name__ == "__main__":
    main()
