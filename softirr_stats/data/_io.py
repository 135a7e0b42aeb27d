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

    Parameters
    ----------
    path : str or Path
        A file, or a folder / ``.zip`` for exports kept one file per annotator.
    item, rater, label : str
        Column names of a long table (csv / tsv / jsonl only).
    format : str, optional
        ``"csv"``, ``"tsv"``, ``"jsonl"`` (long tables) or an export: ``"label-studio"``,
        ``"doccano"``, ``"prodigy"``, ``"webanno-tsv"``, ``"brat"``. ``None`` guesses it from the
        extension and the content; a guessed export format is announced with an
        ``ExportWarning``, and a file that fits no rule (or several) raises a ValueError asking
        for ``format=``.
    categories : sequence, optional
        The declared label universe (see :meth:`Annotations.from_long`).
    **options
        The export reader's options: ``field=`` and ``taxonomy_sep=`` (Label Studio),
        ``label_key=`` (doccano), ``task=`` (Prodigy), ``layer=``, ``feature=``, ``unit=``
        (WebAnno TSV) and ``span_rule=`` (a :class:`SpanRule`, for span annotations). An unknown
        option raises a TypeError listing the valid ones. See ``docs/readers.md``.

    Returns
    -------
    Annotations

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for who, labs in {"alice": ["pos", "neg"], "bob": ["pos", "pos"]}.items():
    ...     _ = (folder / f"{who}.jsonl").write_text("\\n".join(
    ...         json.dumps({"id": i, "text": "...", "label": [lab]}) for i, lab in enumerate(labs, 1)))
    >>> ann = read_annotations(folder, format="doccano")
    >>> ann.items, ann.raters, ann.vocabulary
    (('1', '2'), ('alice', 'bob'), ('neg', 'pos'))
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
    """Path of the bundled demo data set (free-text clinical findings, long CSV).

    Examples
    --------
    >>> demo_path().name
    'demo_annotations.csv'
    """
    return Path(__file__).resolve().parent / "examples" / "demo_annotations.csv"
