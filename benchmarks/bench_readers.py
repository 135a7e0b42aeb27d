"""Export readers: seconds to read a large Label Studio export and a large brat corpus.

One run prints the wall time of ``read_annotations`` for

- a Label Studio JSON export, ``--tasks`` tasks x 3 annotators, one ``choices`` control;
- a brat corpus, 3 annotators x ``--docs`` documents x 10 spans, under the exact and the
  overlap (Hungarian) span rule.

Parsing (``json.loads``, reading the ``.ann`` files) dominates; the span-to-item step is
vectorised apart from one assignment problem per document.

Run::

    python benchmarks/bench_readers.py                 # 20000 tasks, 2000 documents
    python benchmarks/bench_readers.py --quick         # 2000 tasks, 200 documents
"""

import argparse
import json
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from softirr_stats.data import SpanRule, read_annotations


def _label_studio(root: Path, n_tasks: int, rng: np.random.Generator) -> Path:
    tasks = [{"id": t, "data": {"text": "x"}, "annotations": [
        {"completed_by": u, "result": [{"from_name": "s", "to_name": "text", "type": "choices",
                                        "value": {"choices": [str(rng.choice(["a", "b", "c"]))]}}]}
        for u in range(3)]} for t in range(n_tasks)]
    path = root / "export.json"
    path.write_text(json.dumps(tasks))
    return path


def _brat(root: Path, n_docs: int, rng: np.random.Generator) -> Path:
    for who in ("a", "b", "c"):
        (root / "brat" / who).mkdir(parents=True)
        for doc in range(n_docs):
            starts = np.sort(rng.choice(1000, 10, replace=False)) * 10
            lines = [f"T{k}\tX {s + rng.integers(0, 3)} {s + 5 + rng.integers(0, 3)}\t-" for k, s in enumerate(starts)]
            (root / "brat" / who / f"d{doc}.ann").write_text("\n".join(lines) + "\n")
    return root / "brat"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n_tasks, n_docs = (2000, 200) if args.quick else (20000, 2000)
    rng = np.random.default_rng(0)
    warnings.simplefilter("ignore")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        ls, brat = _label_studio(root, n_tasks, rng), _brat(root, n_docs, rng)
        t0 = time.perf_counter()
        ann = read_annotations(ls, format="label-studio")
        print(f"label-studio: {n_tasks} tasks x 3 raters: {time.perf_counter() - t0:.2f} s ({ann})")
        for rule in (SpanRule(), SpanRule(match="overlap")):
            t0 = time.perf_counter()
            ann = read_annotations(brat, format="brat", span_rule=rule)
            print(f"brat, {rule.match} spans: {n_docs} docs x 3 raters x 10 spans: "
                  f"{time.perf_counter() - t0:.2f} s ({ann})")


if __name__ == "__main__":
    main()
