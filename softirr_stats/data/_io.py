"""Reading annotation tables from CSV or JSON Lines files."""

import json
from pathlib import Path
from typing import Any

import pandas as pd

from softirr_stats.data._annotations import Annotations

__all__ = ["read_annotations", "read_table", "demo_path"]

_FORMATS = ("csv", "jsonl", "tsv")


def read_table(path: str | Path, *, format: str | None = None) -> pd.DataFrame:
    """Read a CSV, TSV or JSON Lines file into a DataFrame.

    JSON Lines rows may hold lists of strings as labels (set-valued labels).
    The format is taken from the extension unless ``format`` is given.
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"annotation file not found: {path}")
    fmt = format or {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl",
                     ".json": "jsonl"}.get(path.suffix.lower())
    if fmt not in _FORMATS:
        raise ValueError(f"format must be one of {list(_FORMATS)} (or a .csv/.tsv/.jsonl file); got {fmt!r} for {path.name}")
    if fmt == "csv":
        return pd.read_csv(path, keep_default_na=True)
    if fmt == "tsv":
        return pd.read_csv(path, sep="\t", keep_default_na=True)
    rows: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as err:
                raise ValueError(f"{path.name}, line {lineno}: not valid JSON ({err.msg})") from None
            if not isinstance(row, dict):
                raise ValueError(f"{path.name}, line {lineno}: each line must be a JSON object; got {type(row).__name__}")
            rows.append(row)
    return pd.DataFrame(rows)


def read_annotations(
    path: str | Path,
    *,
    item: str = "item",
    rater: str = "rater",
    label: str = "label",
    format: str | None = None,
    categories: list[Any] | None = None,
) -> Annotations:
    """Read a long-format annotation file (CSV/TSV/JSONL) into :class:`Annotations`."""
    df = read_table(path, format=format)
    return Annotations.from_long(df, item=item, rater=rater, label=label, categories=categories)


def demo_path() -> Path:
    """Path of the bundled demo data set (free-text clinical findings, long CSV).

    Examples
    --------
    >>> demo_path().name
    'demo_annotations.csv'
    """
    return Path(__file__).resolve().parent / "examples" / "demo_annotations.csv"
