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

With ``--tables ROWS`` (e.g. ``--tables 1e6,1e7``) it measures instead the long tables of issue #24:
``ROWS`` rows (item, rater, label) = ``ROWS / 10`` items x 10 raters, 50 text labels, 10% of the
labels missing, written as CSV, JSON Lines and Parquet; each is read with ``read_annotations`` in a
fresh process and, in the same run, with plain pandas (``pandas.read_csv`` / ``read_json(lines=True)``
/ ``read_parquet`` of the same file, default options). A row gives the file size, the read's wall and
CPU time (imports excluded: numpy, pandas, pyarrow and the package are imported first), the peak RSS
of the process (``VmHWM`` from ``/proc/self/status``: ``ru_maxrss`` of a child carries the forking
parent's peak over ``exec``) and that peak less the RSS after the imports, each over the file size, and the ratio
of our wall time to pandas'. ``route`` is ``arrow`` (the default with pyarrow), ``pandas`` (pyarrow
hidden: pandas readers, then the columnar ``from_long``) or ``cells`` (the cell-by-cell path of
before, run only up to ``--cells-max`` rows)::

    nice -n 10 python benchmarks/bench_readers.py --tables 1e6,1e7
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


_TABLE_CHILD = """
import sys, time, warnings
warnings.simplefilter("ignore")
import numpy, pandas as pd, pyarrow, pyarrow.csv, pyarrow.json, pyarrow.parquet
from softirr_stats.data import _columnar, _io, read_annotations
from softirr_stats.data import _annotations  # noqa: F401
route, path = sys.argv[1], sys.argv[2]
if route == "cells":
    _columnar.read_long = lambda *a, **k: None
    _columnar.frame_annotations = lambda *a, **k: None
    _io._DISTINCT_MIN = 10 ** 12
elif route == "pandas":
    _columnar.have_arrow = lambda: False
def rss(field):  # VmHWM: the peak of this process image (ru_maxrss would carry the forking parent's over exec)
    with open("/proc/self/status") as fh:
        return next(int(l.split()[1]) for l in fh if l.startswith(field)) / 1024
base = rss("VmRSS")
t0, c0 = time.perf_counter(), time.process_time()
if route == "peer":
    fmt = path.rsplit(".", 1)[-1]
    out = {"csv": pd.read_csv, "parquet": pd.read_parquet}.get(fmt, lambda p: pd.read_json(p, lines=True))(path)
    what = f"DataFrame{out.shape}"
else:
    what = repr(read_annotations(path))
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
peak = rss("VmHWM")
print(f"{wall:.3f} {cpu:.3f} {base:.0f} {peak:.0f} {what}")
"""


def _write_tables(root: Path, rows: int) -> dict[str, Path]:
    """CSV, JSON Lines and Parquet of ``rows`` ratings: rows/10 items x 10 raters, 50 labels, 10% missing."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    n_items = rows // 10
    items = pa.array([f"item{k:07d}" for k in range(n_items)]).take(pa.array(np.repeat(np.arange(n_items), 10)))
    raters = pa.array([f"r{j}" for j in range(10)]).take(pa.array(np.tile(np.arange(10), n_items)))
    codes = rng.integers(0, 50, rows)
    labels = pa.array([f"label_{k:02d}" for k in range(50)]).take(
        pa.array(codes, mask=rng.random(rows) < 0.1))
    table = pa.table({"item": items, "rater": raters, "label": labels})
    paths = {"csv": root / f"r{rows}.csv", "jsonl": root / f"r{rows}.jsonl", "parquet": root / f"r{rows}.parquet"}
    pacsv.write_csv(table, paths["csv"], pacsv.WriteOptions(quoting_style="none"))
    pq.write_table(table, paths["parquet"])
    label_json = pc.fill_null(pc.binary_join_element_wise('"', labels, '"', ""), "null")
    lines = pc.binary_join_element_wise('{"item": "', items, '", "rater": "', raters, '", "label": ', label_json,
                                        "}\n", "")
    with paths["jsonl"].open("wb") as fh:
        for chunk in (lines.chunks if isinstance(lines, pa.ChunkedArray) else [lines]):
            offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset:chunk.offset + len(chunk) + 1]
            fh.write(memoryview(chunk.buffers()[2])[offsets[0]:offsets[-1]])
    return paths


def _run_table(route: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", _TABLE_CHILD, route, str(path)], check=True, capture_output=True,
                         text=True)
    wall, cpu, base, peak, what = out.stdout.strip().splitlines()[-1].split(" ", 4)
    return {"wall": float(wall), "cpu": float(cpu), "base": float(base), "peak": float(peak), "what": what}


def tables_main(sizes: list[int], formats: list[str], cells_max: int) -> None:
    import os

    load = os.getloadavg()
    print(f"machine: {os.cpu_count()} cores, load average {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} at start")
    print("| rows | format | route | file MB | wall s | CPU s | peak RSS MiB | peak - after imports MiB | "
          "peak / file | (peak - imports) / file | pandas wall s | pandas CPU s | pandas peak MiB | "
          "ours / pandas wall | ours / pandas CPU |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for rows in sizes:
            t0 = time.perf_counter()
            paths = _write_tables(Path(tmp), rows)
            print(f"<!-- generated {rows:.0e} rows in {time.perf_counter() - t0:.1f} s -->", flush=True)
            for fmt in formats:
                path = paths[fmt]
                mib = path.stat().st_size / 2**20
                # pandas.read_json(lines=True) and the JSON cell path hold every row as Python objects
                # (about 1 GB per 1e6 rows): beyond --cells-max only the Arrow route reads JSON Lines
                small = rows <= cells_max
                peer = _run_table("peer", path) if fmt != "jsonl" or small else None
                routes = (["arrow"] + (["pandas"] if fmt == "csv" or (fmt == "jsonl" and small) else [])
                          + (["cells"] if small else []))
                for route in routes:
                    r = _run_table(route, path)
                    print(f"| {rows:.0e} | {fmt} | {route} | {mib:.1f} | {r['wall']:.2f} | {r['cpu']:.2f} | "
                          f"{r['peak']:.0f} | {r['peak'] - r['base']:.0f} | {r['peak'] / mib:.2f} | "
                          f"{(r['peak'] - r['base']) / mib:.2f} | " + (
                              f"{peer['wall']:.2f} | {peer['cpu']:.2f} | {peer['peak']:.0f} | "
                              f"{r['wall'] / peer['wall']:.2f} | {r['cpu'] / peer['cpu']:.2f} |" if peer
                              else "not run | | | | |"), flush=True)
            for p in paths.values():
                p.unlink()
    load = os.getloadavg()
    print(f"\nload average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=100.0, help="size of the Label Studio export (MB)")
    parser.add_argument("--docs", type=int, default=2000, help="brat documents per annotator")
    parser.add_argument("--tables", default=None, help="long tables instead: rows, comma-separated (e.g. 1e6,1e7)")
    parser.add_argument("--formats", default="csv,jsonl,parquet")
    parser.add_argument("--cells-max", type=float, default=1e6,
                        help="largest table the cell-by-cell path (and pandas' JSON reader) reads")
    args = parser.parse_args()
    if args.tables:
        tables_main([int(float(x)) for x in args.tables.split(",")], args.formats.split(","), int(args.cells_max))
        return
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
