"""Reading annotation tables (CSV, TSV, JSON Lines) and annotation-tool exports."""

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
    **options: Any,
) -> Annotations:
    """Read a long-format annotation file (CSV/TSV/JSONL) or an annotation-tool export.

    ``format`` is one of ``"csv"``, ``"tsv"``, ``"jsonl"`` (long tables with the ``item``,
    ``rater`` and ``label`` columns) or an export: ``"label-studio"``, ``"doccano"``,
    ``"prodigy"``, ``"webanno-tsv"``, ``"brat"``. With ``format=None`` it is guessed from the
    extension and the content (a warning names a guessed export format; an ambiguous file asks
    for ``format=``). ``options`` go to the export reader (``field=``, ``span_rule=``,
    ``layer=``, ``feature=``, ``unit=``, ``task=``, ...); see ``docs/readers.md``.
    """
    from softirr_stats.data._readers import EXPORT_FORMATS, guess_format, read_export

    fmt = format if format is not None else guess_format(path, columns=(item, rater, label))
    if fmt in EXPORT_FORMATS:
        if (item, rater, label) != ("item", "rater", "label"):
            raise TypeError(f"item=, rater= and label= name the columns of csv/tsv/jsonl tables; a {fmt!r} "
                            "export defines its own items, raters and labels (see its reader's options)")
        return read_export(path, fmt, categories=categories, guessed=format is None, **options)
    if options:
        raise TypeError(f"options {sorted(options)} apply only to export formats {sorted(EXPORT_FORMATS)}; "
                        f"this file is read as {fmt!r}")
    df = read_table(path, format=fmt)
    return Annotations.from_long(df, item=item, rater=rater, label=label, categories=categories)


def demo_path() -> Path:
    """Path of the bundled demo data set (free-text clinical findings, long CSV)."""
    return Path(__file__).resolve().parent / "examples" / "demo_annotations.csv"
