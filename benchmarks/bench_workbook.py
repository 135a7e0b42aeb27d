"""Excel workbooks: seconds to read one sheet with ``read_annotations`` against ``pandas.read_excel``.

Writes a long sheet of ``--rows`` ratings (``rows / 3`` items x 3 raters, 20 text labels) with openpyxl's
write-only mode, then reads it ``--repeat`` times each way in this process (the imports done first) and
prints the best wall time of each and the ratio. Both read through openpyxl; ours also turns every cell
into its CSV text and encodes the table.

Run::

    python benchmarks/bench_workbook.py --rows 60000
"""

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import openpyxl
import pandas as pd

import softirr_stats as sis


def write(path: Path, rows: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    wb = openpyxl.Workbook(write_only=True)
    ws = wb.create_sheet("ratings")
    ws.append(["item", "rater", "label"])
    labels = rng.integers(0, 20, size=rows)
    for k in range(rows):
        ws.append([k // 3, f"r{k % 3}", f"lab{labels[k]}"])
    wb.save(path)


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=60_000)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "ratings.xlsx"
        write(path, args.rows)
        ours = best(lambda: sis.read_annotations(path), args.repeat)
        peer = best(lambda: pd.read_excel(path, engine="openpyxl", dtype=str), args.repeat)
        size = path.stat().st_size / 1e6
    print(f"{args.rows} ratings, {size:.1f} MB workbook: read_annotations {ours:.2f} s, pandas.read_excel "
          f"{peer:.2f} s, ratio {ours / peer:.2f}")


if __name__ == "__main__":
    main()
