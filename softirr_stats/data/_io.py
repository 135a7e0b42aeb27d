"""Reading annotation tables (CSV, TSV, JSON Lines) and annotation-tool exports.

Trust rules for delimited text (see ``docs/unusual_input.md``): only empty cells are missing
(strings such as "NA", "None" or "null" are labels unless ``na_values=`` says otherwise);
item and rater identifiers are read as text ("007" and "7" are two items); a label column
is numeric by the one rule of ``_labels.text_numbers``; an empty, undecodable or column-shifted file is
an error that names the file. Exports of annotation tools are read by ``softirr_stats.data._readers``.
"""

import contextlib
import contextvars
import dataclasses
import functools
import json
import os
import re
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.base._validation import SoftIRRWarning, user_stacklevel
from softirr_stats.data import TABLE_FORMATS, TEXT_TABLES
from softirr_stats.data._annotations import Annotations
from softirr_stats.data._cells import check_header as _check_header
from softirr_stats.data._cells import (
    check_label_cells,
    check_label_sep,
    check_quoting,
    header_line_hint,
    quote_mode,
    quoted_field_message,
    sep_hint,
    set_cells,
    swallowed_rows,
)
from softirr_stats.data._cells import decode_errors as _decode_errors
from softirr_stats.data._cells import numeric_labels as _numeric_labels

__all__ = ["read_annotations", "read_table", "demo_path"]

_FORMATS = TABLE_FORMATS  # the one table of input formats (data/__init__.py)


def read_table(path: str | Path, *, format: str | None = None,
               na_values: Sequence[str] | str | None = None, encoding: str = "utf-8",
               sep: str | None = None, sheet: str | int | None = None, quoting: str = "csv") -> pd.DataFrame:
    """Read a CSV, TSV, JSON Lines or Parquet file, or a sheet of an Excel workbook, into a DataFrame.

    CSV/TSV cells are read as text, and only empty cells are missing unless ``na_values``
    lists more strings (e.g. ``["NA", "n/a"]``). JSON Lines rows may hold lists of strings
    as labels (set-valued labels); ``null`` is missing. The format is taken from the
    extension unless ``format`` is given.

    Parameters
    ----------
    path : str or Path
        The file.
    format : {"csv", "tsv", "jsonl", "parquet", "xlsx"}, optional
        Default: from the extension. Parquet needs pyarrow (the ``parquet`` extra); its columns keep
        their types, and ``na_values`` marks text cells equal to one of them as missing. An Excel
        workbook (``.xlsx``, ``.xlsm``) needs openpyxl (the ``excel`` extra); its cells are read as the
        text of their stored values (``data._workbook.read_xlsx``).
    na_values : str or sequence of str, optional
        Further cell texts read as missing (CSV/TSV).
    encoding : str
        Text encoding (default UTF-8); a byte that does not decode raises a ValueError naming
        the file, the line and this option.
    sep : str, optional
        The delimiter of a CSV / TSV file (default ``","`` for CSV, a tab for TSV), one character:
        ``";"`` for the CSV files that spreadsheets write in locales with a decimal comma.
    sheet : str or int, optional
        The sheet of an Excel workbook: its name or position (0 the first, the default).
    quoting : {"csv", "none"}
        How quotes in a CSV / TSV file are read: ``"csv"`` (the default) by the CSV rule (a field that starts with
        ``"`` ends at the next lone ``"``, and may hold delimiters and line breaks); ``"none"`` as plain text. With
        ``"csv"``, a cell holding both a line break and the delimiter (an opening quote closed only lines later,
        which reads the rows between as one cell) and a quoted field the file ends inside raise a ValueError naming
        the line where the field starts.

    Returns
    -------
    DataFrame

    Examples
    --------
    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ratings.csv"
    >>> _ = path.write_text("item,rater,label\\n1,r1,yes\\n1,r2,NA\\n")
    >>> read_table(path)["label"].tolist()
    ['yes', 'NA']
    >>> read_table(path, na_values=["NA"])["label"].isna().tolist()
    [False, True]
    """
    na_values = _check_na_values(na_values)
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"annotation file not found: {path}")
    fmt = format or _SUFFIX_FORMATS.get(path.suffix.lower())
    if fmt not in _FORMATS:
        from softirr_stats.base._suggest import did_you_mean
        from softirr_stats.data._readers import EXPORT_FORMATS

        raise ValueError(f"format must be one of {list(_FORMATS)} (or a .csv/.tsv/.jsonl file) or an annotation tool's "
                         f"{sorted(EXPORT_FORMATS)}; got {fmt!r} for {path.name}"
                         f"{did_you_mean(fmt, [*_FORMATS, *EXPORT_FORMATS])}")
    if sheet is not None and fmt != "xlsx":
        raise ValueError(f"sheet= picks a sheet of an Excel workbook; {path.name} is read as {fmt!r}")
    quoting = check_quoting(quoting, fmt)
    if fmt == "xlsx":
        if sep is not None:
            check_sep(sep, fmt)  # refused, naming the format
        from softirr_stats.data._workbook import read_xlsx

        return read_xlsx(path, na_values, sheet)
    if fmt == "parquet":
        return _read_parquet(path, na_values)
    sep = check_sep(sep, fmt)
    if fmt in ("csv", "tsv"):
        return _read_delimited(path, sep, na_values, encoding, quoting)
    from softirr_stats.data._readers._common import (
        check_number,
        iter_json_records,
        iter_jsonl,
        read_text,
        text_lines,
    )

    text = read_text(path, encoding)
    records = (iter_json_records(text, path.name) if text.lstrip("\ufeff \t\r\n")[:1] == "["  # a JSON array
               else iter_jsonl(text_lines(text), path.name))
    rows: list[dict[str, Any]] = []
    for where, row in records:
        for key, value in row.items():
            check_number(value, where, f"{key!r}")
        rows.append(row)
    if not rows:
        raise ValueError(f"{path}: the file is empty (no JSON lines)")
    df = pd.DataFrame(rows)
    for key in df.columns[(df.dtypes == np.float64).to_numpy()]:
        if (df[key].abs() >= 2.0**53).any():  # integers next to floats: pandas made them float64, which rounds
            df[key] = pd.Series([row.get(key) for row in rows], dtype=object, index=df.index)  # them: kept exact
    if na_values:
        df = df.mask(df.isin(list(na_values)))
    return df


#: the table format of a file's extension (``read_table``, ``read_annotations(wide=True)``)
_SUFFIX_FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl",
                   ".parquet": "parquet", ".pq": "parquet", ".xlsx": "xlsx", ".xlsm": "xlsx"}


def check_sep(sep: Any, fmt: str | None) -> str:
    """The delimiter of a ``fmt`` table: ``sep`` checked (one character that is not a letter, a digit,
    a quote or a line break; ``"tab"`` or ``"\\t"`` is a tab), or the format's own.

    Examples
    --------
    >>> check_sep(None, "csv"), check_sep(";", "csv"), check_sep("tab", "csv")
    (',', ';', '\\t')
    """
    if sep is None:
        return "\t" if fmt == "tsv" else ","
    if not isinstance(sep, str):
        raise TypeError(f"sep must be a one-character string such as ';'; got {sep!r}")
    sep = "\t" if sep in ("tab", "\\t") else sep
    if fmt not in ("csv", "tsv"):
        raise ValueError(f"sep= is the delimiter of a CSV / TSV table; this file is read as {fmt!r}")
    if len(sep) != 1 or sep.isalnum() or sep in "\"'\r\n":
        raise ValueError(f"sep must be one character that is not a letter, a digit, a quote or a line break "
                         f"(e.g. ';', '|', 'tab'); got {sep!r}")
    return sep


def _check_wide(wide: Any) -> "bool | tuple[str, ...]":
    """``wide=``: True / False, or the rater columns (a non-empty list of distinct column names)."""
    if isinstance(wide, bool):
        return wide
    if isinstance(wide, list | tuple) and wide and all(isinstance(c, str) for c in wide):
        dup = sorted({c for c in wide if wide.count(c) > 1})
        if dup:
            raise ValueError(f"wide= names the rater columns; {dup} appear more than once")
        return tuple(wide)
    raise TypeError("wide must be True, False or a list of the rater columns' names (on the command line "
                    "--reader-option 'wide=[r1, r2]', or a JSON list where a name holds a comma: "
                    f"--reader-option 'wide=[\"Keep, Ana\", \"Bo\"]'); got {wide!r}")


def _check_decimal(decimal: str, fmt: str) -> None:
    """``decimal=","`` applies to the text cells of CSV / TSV tables only."""
    if decimal != "." and fmt not in TEXT_TABLES:
        raise ValueError(f"decimal= is the decimal mark of numbers written in a CSV / TSV table or as text in a "
                         f"workbook; this file is read as {fmt!r}, whose numbers keep their own type")


def _table_format(path: Path) -> str:
    """The table format of ``path`` from its extension (a ValueError asking for ``format=`` otherwise)."""
    fmt = _SUFFIX_FORMATS.get(path.suffix.lower())
    if fmt is None:
        from softirr_stats.data._readers import unread_file_message

        raise ValueError(unread_file_message(path) or f"{path.name}: cannot tell the table format from the "
                         f"extension; pass format= one of {list(_FORMATS)}")
    return fmt


def _read_parquet(path: Path, na_values: Sequence[str]) -> pd.DataFrame:
    """A Parquet file as a DataFrame (pyarrow); text cells listed in ``na_values`` become missing.

    Named index levels that pandas stored (``df.set_index("doc").to_parquet(...)``) are columns again,
    first, as the file's other columns are: a table's item column is a column however it was written.
    """
    from softirr_stats.data._columnar import have_arrow

    if not have_arrow():
        raise ImportError(f"{path.name}: reading Parquet needs pyarrow; pip install 'softirr-stats[parquet]'")
    import pyarrow as pa

    try:
        df = pd.read_parquet(path, engine="pyarrow")
    except pa.ArrowException as err:
        raise ValueError(f"{path}: cannot be read as Parquet ({err})") from None
    named = [n for n in df.index.names if n is not None]
    if named and not set(named) & set(df.columns):
        df = df.reset_index(level=named)
    if na_values:
        df = df.mask(df.isin(list(na_values)))
    return df


def _check_na_values(na_values: Any) -> list[str]:
    if na_values is None:
        return []
    if isinstance(na_values, str):
        return [na_values]
    if not isinstance(na_values, Sequence | set | frozenset) or not all(isinstance(v, str) for v in na_values):
        raise TypeError(f"na_values must be a string or a list of strings; got {na_values!r}")
    return list(na_values)


def _read_delimited(path: Path, sep: str, na_values: Sequence[str] | None, encoding: str = "utf-8",
                    quoting: str = "csv") -> pd.DataFrame:
    """Every cell as text; only empty cells (and ``na_values``) are missing.

    With ``quoting="csv"`` a cell that holds a line break and ``sep`` (a quoted field that took in what look like
    rows) is refused, as is a quoted field the file ends inside, naming the line where it starts; ``"none"`` reads
    quotes as plain text.
    """
    try:
        "".encode(encoding)
    except LookupError:
        raise ValueError(f"encoding must be a codec Python knows (e.g. 'utf-8', 'latin-1'); got {encoding!r}") from None
    _check_header(path, sep, encoding, quoting)
    opts = dict(sep=sep, dtype=str, keep_default_na=False, na_values=["", *(na_values or [])],
                encoding=encoding, quoting=quote_mode(quoting))
    try:
        with _decode_errors(path, encoding):
            df = pd.read_csv(path, **opts)
            if not isinstance(df.index, pd.RangeIndex):
                # data rows have more fields than the header: pandas would silently take the
                # first column as the index and shift every column name by one
                shifted = pd.read_csv(path, header=None, skiprows=1, **opts)
                extra = shifted.iloc[:, len(df.columns):]
                if extra.notna().to_numpy().any():
                    raise ValueError(
                        f"{path}: some rows have more fields than the header ({len(df.columns)} columns "
                        f"{list(map(str, df.columns))}; up to {shifted.shape[1]} fields in a row): "
                        f"the columns would shift; fix the header or quote the fields{sep_hint(path, sep, encoding)}")
                warnings.warn(f"{path}: rows end with an empty trailing field (a trailing "
                              f"delimiter); it was ignored", SoftIRRWarning, stacklevel=user_stacklevel())
                df = pd.read_csv(path, index_col=False, **opts)
    except pd.errors.EmptyDataError:
        raise ValueError(f"{path}: the file is empty (no header line)") from None
    except pd.errors.ParserError as err:
        if quoting == "csv" and "EOF inside string" in str(err):  # an unclosed quote: where it opens
            raise ValueError(quoted_field_message(path, sep, encoding, unclosed=True)) from None
        what = {",": "CSV", "\t": "TSV"}.get(sep, f"a {sep!r}-separated table")
        raise ValueError(f"{path}: cannot be parsed as {what} ({' '.join(str(err).split())})"
                         f"{sep_hint(path, sep, encoding)}") from None
    if quoting == "csv" and swallowed_rows(df, sep):
        raise ValueError(quoted_field_message(path, sep, encoding, unclosed=False))
    short = _first_short_row(path, sep, encoding, _fields_needed(df.columns), quoting)
    if short is not None:
        line, fields, n_short = short
        hint = sep_hint(path, sep, encoding)  # another delimiter splits the file evenly: that is what is wrong
        fix = hint or (": its values cannot be placed in their columns; fix the rows (a missing rating is still a "
                       f"field, written empty: a row ending with '{sep}' where the last is missing)")
        raise ValueError(f"{path}: line {line} has {fields} field{'s' if fields != 1 else ''} where the header has "
                         f"{len(df.columns)} ({list(map(str, df.columns))}; {n_short} short row"
                         f"{'s' if n_short > 1 else ''} in all){fix}")
    return df


def _fields_needed(columns: Any) -> int:
    """The fields a row must have: up to the header's last named column (pandas names an empty header cell
    ``Unnamed: k``; a header ending with a delimiter over rows that do not is no missing field)."""
    named = [k for k, c in enumerate(columns) if not re.fullmatch(r"Unnamed: \d+", str(c))]
    return named[-1] + 1 if named else 0


def _first_short_row(path: Path, sep: str, encoding: str, need: int,
                     quoting: str = "csv") -> tuple[int, int, int] | None:
    """(line, fields, number of such rows) for the first data row with fewer than ``need`` fields, or None.

    pandas fills the fields a row lacks with empty cells, which it cannot tell from fields written empty
    (``3,a,`` is a missing rating; ``3,a`` a row cut short). Python's csv reader counts each row's fields in C
    (``map(len, reader)``: no Python code per row); the rows are walked only when one is short. Blank and
    whitespace-only lines are skipped, as pandas skips them.
    """
    import csv
    import sys

    old = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))  # a long cell (pandas reads any) is no error here
    try:
        with path.open(encoding=encoding, newline="") as fh:
            reader = csv.reader(fh, delimiter=sep, quoting=quote_mode(quoting))
            next(reader, None)
            if min(filter(None, map(len, reader)), default=need) >= need:
                return None
        with path.open(encoding=encoding, newline="") as fh:  # error path: which row, on which line
            reader = csv.reader(fh, delimiter=sep, quoting=quote_mode(quoting))
            next(reader, None)
            found = [(reader.line_num, len(row)) for row in reader
                     if row and len(row) < need and not (len(row) == 1 and not row[0].strip())]
    except (csv.Error, UnicodeError):  # a table pandas read but csv does not: the check cannot be made
        return None
    finally:
        csv.field_size_limit(old)
    return (*found[0], len(found)) if found else None


_RATER_FROM = ("export", "file")


def _export_files(folder: Path) -> list[Path] | None:
    """The per-annotator export files of a folder of Label Studio / Prodigy exports, else None."""
    from softirr_stats.data._readers import _PRODIGY_KEYS, _first_line
    from softirr_stats.data._readers._common import parse_json

    if any(folder.rglob("*.ann")) or any(folder.rglob("*.tsv")):
        return None
    files = sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in (".json", ".jsonl", ".csv"))
    if not files:
        return None
    if all(p.suffix.lower() == ".json" for p in files):
        return files
    jsonl = [p for p in files if p.suffix.lower() == ".jsonl"]
    if jsonl and len(jsonl) == len(files):
        line = _first_line(jsonl[0]) or "null"
        try:
            first = json.loads(line)
        except RecursionError:  # JSON nested too deep: the one-line ValueError naming the file
            parse_json(line, jsonl[0].name)
            raise
        except ValueError:
            return None
        if isinstance(first, dict) and set(first) & _PRODIGY_KEYS and "answer" in first:
            return files
    return None


def _refuse_repeated_files(paths: list[Path]) -> None:
    """A ValueError where one file is given twice in a list of files (the same path, or two paths of one file:
    a link, ``./a.csv`` and ``a.csv``): its ratings would be counted twice, as two annotators that always agree.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "alice.csv"
    >>> _ = p.write_text("item,label\\n1,a\\n")
    >>> _refuse_repeated_files([p, p.parent / "." / p.name])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: alice.csv: the same file is given twice (as ... and ...); its ratings would count as two annotators who always agree: give each file once
    """
    seen: dict[tuple[int, int] | str, Path] = {}
    for p in paths:
        try:
            st = p.stat()
            key: tuple[int, int] | str = (st.st_dev, st.st_ino)
        except OSError:  # not there or unreadable: its reader says so
            key = str(p.resolve())
        if key in seen:
            raise ValueError(f"{p.name}: the same file is given twice (as {seen[key]} and {p}); its ratings would count as "
                             "two annotators who always agree: give each file once")
        seen[key] = p


def _read_many(paths: list[Path], *, rater_from: str, **kwargs: Any) -> Annotations:
    """Per-annotator exports read one by one and merged (``Annotations.concat``)."""
    from softirr_stats.data._readers._common import check_choice

    rater_from = check_choice("rater_from", rater_from, _RATER_FROM)
    if not paths:
        raise ValueError("read_annotations: the list of files is empty")
    _refuse_repeated_files(paths)
    names = [p.name for p in paths]
    if len(set(names)) != len(names):
        names = [str(p) for p in paths]
    fmts = _table_list_formats(paths, kwargs)
    if fmts is not None:  # long tables (one per annotator, or batches of items): merged as one table
        from softirr_stats.data._table_list import read_table_list

        opts = {k: kwargs.get(k, d) for k, d in (("item", "item"), ("rater", "rater"), ("label", "label"),
                                                 ("categories", None), ("na_values", None), ("normalize", None),
                                                 ("encoding", "utf-8"), ("sep", None), ("decimal", "."),
                                                 ("sheet", None), ("quoting", "csv"), ("label_sep", None))}
        return read_table_list(Annotations, read_table, paths, fmts, names, rater_from=rater_from, **opts)
    from softirr_stats.data._readers import _GUESSED, SPAN_RULES, guessed_formats
    from softirr_stats.data._readers._common import FILE_RATER
    from softirr_stats.data._readers._spans import SPAN_LOG

    parts, notes, span_logs, guesses = [], [], [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for p in paths:
            log: list = []
            token = SPAN_LOG.set(log)
            named = FILE_RATER.set(p.stem if rater_from == "file" else None)
            try:
                part = read_annotations(p, **kwargs)
            finally:
                FILE_RATER.reset(named)
                SPAN_LOG.reset(token)
            span_logs.append(log)
            if rater_from == "file":
                if part.n_raters != 1:
                    raise ValueError(f"{p.name}: rater_from='file' names each file's one rater after the file, but "
                                     f"this file has {part.n_raters} raters {list(part.raters)[:5]}")
                long = part.to_long()
                long["rater"] = p.stem
                part = Annotations._from_long_any(long, categories=categories_of(part))
            parts.append(part)
            notes.extend(n for n in part.read_notes if "one rater (" not in n)
            guesses.extend(guessed_formats(part))
            if rater_from == "file" and len(log) == 1:
                spans, annotated, rule = log[0]
                log[0] = ([dataclasses.replace(sp, rater=p.stem) for sp in spans],
                          {d: {p.stem} for d in annotated}, rule)
    seen: set[str] = set()
    for w in caught:  # one warning per distinct message, re-raised at the caller
        text = str(w.message)
        if text not in seen:
            seen.add(text)
            warnings.warn(text, w.category, stacklevel=user_stacklevel())
    if all(len(log) == 1 for log in span_logs):
        out = _merge_spans(span_logs, names, kwargs.get("categories"), _check_na_values(kwargs.get("na_values")))
    elif any(span_logs):
        raise ValueError(f"cannot merge span annotations with other labels: {[n for n, log in zip(names, span_logs, strict=True) if log]} "
                         "hold spans, the other files do not")
    else:
        out = Annotations.concat(parts, names=names)
    out._cache["read_notes"] = (*notes, f"merged {len(parts)} exports: {names[:10]}; raters {list(out.raters)[:20]}")
    if guesses:
        out._cache[_GUESSED] = tuple(guesses)
    rules = tuple(dict.fromkeys(entry[2] for log in span_logs for entry in log))
    if rules:  # the rule the spans were matched again under (span_rules)
        out._cache[SPAN_RULES] = rules
    return out


def _table_list_formats(paths: list[Path], kwargs: dict[str, Any]) -> list[str] | None:
    """The table format of each file when every one is a long table (csv / tsv / jsonl / parquet) and no export
    reader's option was given; None otherwise (the files are exports, read one by one)."""
    from softirr_stats.data._readers import guess_format

    known = {"item", "rater", "label", "format", "categories", "na_values", "normalize", "encoding", "sep", "decimal",
             "sheet", "quoting", "label_sep"}
    if set(kwargs) - known or any(not p.is_file() for p in paths):
        return None
    columns = (kwargs.get("item", "item"), kwargs.get("rater", "rater"), kwargs.get("label", "label"))
    fmts = [kwargs.get("format") or guess_format(p, columns=columns) for p in paths]
    return fmts if all(f in _FORMATS for f in fmts) else None


def _merge_spans(logs: list[list], names: list[str], categories: Any, na_values: Sequence[str] = ()) -> Annotations:
    """Span exports read one by one, matched again all together (so a span one annotator marked and
    another did not is the unmatched label, as in one export); a label in ``na_values`` is missing, as in one."""
    from softirr_stats.data._readers._common import ratings_to_annotations
    from softirr_stats.data._readers._spans import SpanWarning, spans_to_ratings

    spans: list = []
    annotated: dict[str, set[str]] = {}
    owner: dict[tuple[str, str], str] = {}
    rules = {log[0][2] for log in logs}
    if len(rules) > 1:
        raise ValueError(f"the span exports were read under different span rules {sorted(map(str, rules))}")
    for name, log in zip(names, logs, strict=True):
        part_spans, part_annotated, _ = log[0]
        for doc, raters in part_annotated.items():
            for who in raters:
                if (doc, who) in owner:
                    raise ValueError(f"rater {who!r} annotates document {doc!r} in {owner[doc, who]} and in {name}; give "
                                     "the raters distinct names (e.g. read_annotations([...], rater_from='file'))")
                owner[doc, who] = name
            annotated.setdefault(doc, set()).update(raters)
        spans.extend(part_spans)
    with warnings.catch_warnings():  # a repeated span lies in one export (one rater's document is in one): warned
        warnings.simplefilter("ignore", SpanWarning)  # when that export was read, not a second time here
        ratings = spans_to_ratings(spans, annotated, rules.pop())
    return ratings_to_annotations(ratings, source=", ".join(names[:3]), categories=categories, na_values=na_values)


def categories_of(ann: Annotations) -> Any:
    """The declared categories of ``ann`` (None when none were declared)."""
    return ann.categories


_READING = contextvars.ContextVar("softirr_reading", default=False)


def _noting_case(read: Any) -> Any:
    """``read`` with the labels that differ only in letter case noted (``read_notes``) by the outermost call: once for
    a list of files merged, not once per file."""

    @functools.wraps(read)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _READING.get():
            return read(*args, **kwargs)
        token = _READING.set(True)
        try:
            ann = read(*args, **kwargs)
        finally:
            _READING.reset(token)
        if isinstance(ann, Annotations):
            from softirr_stats.data._describe import case_note

            notes = tuple(ann._cache.get("read_notes", ()))
            ann._cache["read_notes"] = (*notes, *(n for n in case_note(ann) if n not in notes))
        return ann

    return wrapper


@_noting_case
def read_annotations(
    path: "str | Path | Sequence[str | Path]",
    *,
    item: str = "item",
    rater: str = "rater",
    label: str = "label",
    format: str | None = None,
    categories: list[Any] | None = None,
    na_values: Sequence[str] | str | None = None,
    normalize: str | None = None,
    encoding: str = "utf-8",
    rater_from: str = "export",
    wide: bool | Sequence[str] = False,
    sep: str | None = None,
    decimal: str = ".",
    sheet: str | int | None = None,
    quoting: str = "csv",
    label_sep: str | None = None,
    **options: Any,
) -> Annotations:
    r"""Read a long-format annotation file (CSV/TSV/JSONL/Parquet) or an annotation-tool export.

    Parameters
    ----------
    path : str, Path or list of them
        A file, or a folder / ``.zip`` for exports kept one file per annotator. A list of files
        (or a folder of Label Studio ``.json`` / Prodigy ``.jsonl`` exports) is read file by file
        and merged with :meth:`Annotations.concat`: each annotator's own export, with the rater
        named from the export's user field (``rater_from="export"``) or from the file name
        (``rater_from="file"``, for exports of one annotator each); the same rater rating the same
        item in two files is a clash and raises a ValueError naming both files.
    item, rater, label : str
        Column names of a long table (csv / tsv / jsonl only).
    format : str, optional
        ``"csv"``, ``"tsv"``, ``"jsonl"``, ``"parquet"`` (long tables; Parquet needs pyarrow, the
        ``parquet`` extra, which also reads CSV / JSON Lines faster) or an export: ``"label-studio"``,
        ``"doccano"``, ``"prodigy"``, ``"webanno-tsv"``, ``"brat"``. ``None`` guesses it from the
        extension and the content; a guessed export format is noted (in
        ``read_notes``, and logged at INFO on the ``softirr_stats`` logger; no warning), and a
        file that fits no rule (or several) raises a ValueError asking for ``format=``.
    categories : sequence, optional
        The declared label universe (see :meth:`Annotations.from_long`).
    na_values : str or list of str, optional
        Extra cell values to treat as missing (csv / tsv / jsonl / parquet / xlsx). By default only empty cells
        (CSV/TSV) or ``null`` (JSON) are missing: "NA", "N/A", "None", "null", "NaN" are labels.
        Item and rater identifiers are read as text ("007" and "7" are two items). In an export a
        text label equal to one of them (an "Unsure" or "N/A" choice) is a missing rating; a set of
        labels (several choices) loses that term, and one left empty is a missing rating.
    normalize : {"NFC", "NFKC", "NFC+casefold", "NFKC+casefold", "casefold"}, optional
        Unicode normalisation of text labels (default: labels are compared exactly). Labels
        that differ only in letter case ("Fatigue" / "fatigue") are kept apart and noted in
        ``read_notes`` ("casefold" merges them).
    encoding : str
        Text encoding of the files (default UTF-8); a byte that does not decode raises a
        ValueError naming the file and this option.
    rater_from : {"export", "file"}
        For a list of files: raters as the exports name them, or each file's one rater named
        after the file. A list of long tables (csv / tsv / jsonl / parquet) is merged as one
        table: a table without a rater column is one annotator's, named after the file, whatever
        ``rater_from`` says; numeric labels are decided over all the files.
    wide : bool or list of str
        A wide table (csv / tsv / jsonl / parquet): one row per item, one column per rater, as
        R's irr and irrCAC take them. ``item`` names the column of item identifiers (``item=""``:
        the rows are the items, numbered from 1, or named by a first column whose header cell is
        empty, as R's ``write.csv`` and pandas' ``to_csv`` write row names). With ``wide=True``
        every other column is a rater, named by its header; a list names the rater columns, and
        the table's other columns are left out (a table that also holds descriptions, dates or
        scores). Empty cells are missing
        ratings. ``rater=`` and ``label=`` do not apply. The columns read as raters (and those left
        out) are listed in ``read_notes``; with ``wide=True``, rater columns that mix numbers and
        text raise a LabelWarning naming them. On the command line: ``--reader-option wide=true``,
        ``--reader-option 'wide=[r1, r2]'``, or a JSON list where a name holds a comma
        (``--reader-option 'wide=["Keep, Ana", "Bo"]'``).
    sep : str, optional
        The delimiter of a CSV / TSV table when it is not the format's own: ``sep=";"`` for the
        CSV files that spreadsheets write in locales with a decimal comma (``"tab"`` is a tab).
        On the command line: ``--reader-option "sep=;"``.
    decimal : {".", ","}
        The decimal mark of numbers in a CSV / TSV table (long or wide). With ``","`` labels written
        ``3,5`` are the number 3.5 (a column holding ``3.5`` then stays text, and a LabelWarning says so);
        without it they are categories, and a LabelWarning says so. On the command line: ``--reader-option decimal=,``.
    sheet : str, int, list or "*", optional
        The sheet of an Excel workbook (``.xlsx``, ``.xlsm``; openpyxl, the ``excel`` extra) to read:
        its name or position (0 the first, the default; a note names the sheet read when there are
        several). A list of sheets, or ``"*"`` for all, reads one long table per sheet and merges them
        as a list of files is merged: a sheet without a rater column is one annotator's, named after
        the sheet. Its cells are read as the text of their stored values, by a CSV file's rules, long or wide
        (``wide=``). On the command line: ``--reader-option sheet=Ratings``.
    quoting : {"csv", "none"}
        How quotes in a CSV / TSV table are read: ``"csv"`` (the default) by the CSV rule, where a field that
        starts with ``"`` runs to the next lone ``"`` and may hold delimiters and line breaks; ``"none"`` reads
        quotes as plain text (labels such as ``"quoted`` or ``5'3"``). With ``"csv"``, a cell holding both a line
        break and the delimiter (a stray opening quote that took in the rows after it) and a quoted field the file
        ends inside raise a ValueError naming the line where the field starts. On the command line:
        ``--reader-option quoting=none``.
    label_sep : str, optional
        Multi-label data in a CSV / TSV table (long or wide) or a workbook: each label cell lists a rating's
        terms joined by ``label_sep`` (``"fever|cough"`` with ``label_sep="|"``) and is read as a set label, for
        ``multilabel_agreement`` and the set measures. Terms are kept as written (a separator with spaces around
        it is given with them: ``label_sep=" | "``); a cell with an empty term (``"fever|"``) raises a
        ValueError; an empty cell is a missing rating. On the command line: ``--reader-option 'label_sep=|'``.
    **options
        The export reader's options: ``field=`` and ``taxonomy_sep=`` (Label Studio),
        ``textarea=`` and ``duplicates=`` (Label Studio), ``label_key=`` and ``label_names=`` (doccano), ``task=`` and
        ``duplicates=`` (Prodigy), ``multilabel=`` (Label Studio, doccano, Prodigy: one chosen label a singleton
        set), ``layer=``, ``feature=``, ``unit=``, ``include_curation=`` (WebAnno TSV), ``layout=``
        and ``rater=`` (brat), and ``span_rule=`` (a :class:`SpanRule` or its spelling
        ``"overlap:0.5"``, for span annotations). Values may be given as strings, as from the
        command line (``"true"``, ``"last"``). An unknown option raises an ``OptionError`` (a
        ValueError and a TypeError) listing the valid ones. See ``docs/readers.md``.

    Returns
    -------
    Annotations

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for who, labs in {"alice": ["pos", "neg"], "bob": ["pos", "pos"]}.items():
    ...     _ = (folder / f"{who}.jsonl").write_text("\n".join(
    ...         json.dumps({"id": i, "text": "...", "label": [lab]}) for i, lab in enumerate(labs, 1)))
    >>> ann = read_annotations(folder, format="doccano")
    >>> ann.items, ann.raters, ann.vocabulary
    (('1', '2'), ('alice', 'bob'), ('neg', 'pos'))

    "NA" is a label unless ``na_values=`` says otherwise; identifiers are text:

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "a.csv")
    >>> _ = open(path, "w").write("item,rater,label\n007,x,NA\n007,y,NA\n7,x,no\n7,y,yes\n")
    >>> ann = read_annotations(path)
    >>> ann.items, ann.vocabulary
    (('007', '7'), ('NA', 'no', 'yes'))
    >>> read_annotations(path, na_values=["NA"]).n_ratings
    2

    A wide table (a row per item, a column per rater; an empty cell is a missing rating):

    >>> _ = open(path, "w").write("doc,ann1,ann2,ann3\nd1,3,3,2\nd2,1,,1\n")
    >>> ann = read_annotations(path, wide=True, item="doc")
    >>> ann.raters, ann.kind, ann.n_ratings
    (('ann1', 'ann2', 'ann3'), 'numeric', 5)
    """
    from softirr_stats.data._readers import EXPORT_FORMATS, OptionError, guess_format, read_export
    from softirr_stats.data._readers import _coerce as _check_options

    if not isinstance(path, str | os.PathLike | list | tuple):
        frame = hasattr(path, "columns") and hasattr(path, "index")
        raise TypeError(f"read_annotations reads files: path must be a file name or a list of them; got "
                        f"{'a DataFrame' if frame else type(path).__name__}"
                        + (". A table already in memory needs no reading: Annotations.from_long(df, item=, rater=, "
                           "label=) for a long table, or pass a wide one (a row per item) to a coefficient"
                           if frame else ""))
    wide = _check_wide(wide)
    check_label_sep(label_sep)
    if not isinstance(decimal, str) or decimal not in (".", ","):
        raise ValueError(f"decimal must be '.' or ','; got {decimal!r}")
    if wide and isinstance(path, list | tuple):
        raise ValueError("wide=True reads one table (one row per item, one column per rater); got a list of files")
    if wide and (rater, label) != ("rater", "label"):
        raise TypeError("rater= and label= name the columns of a long table; a wide table's raters are its columns "
                        "other than item=")
    if isinstance(path, list | tuple):
        return _read_many([Path(p) for p in path], rater_from=rater_from, item=item, rater=rater, label=label,
                          format=format, categories=categories, na_values=na_values, normalize=normalize,
                          encoding=encoding, **({} if sep is None else {"sep": sep}),
                          **({} if decimal == "." else {"decimal": decimal}),
                          **({} if sheet is None else {"sheet": sheet}),
                          **({} if quoting == "csv" else {"quoting": quoting}),
                          **({} if label_sep is None else {"label_sep": label_sep}), **options)
    p = Path(path)
    if format in EXPORT_FORMATS:
        _check_options(format, options)  # unknown options are named before any file is read
    from softirr_stats.data import _input

    if _input.special_file(p):  # a pipe: read into a regular file under the unpack cap; a device: refused
        with _input.spooled(p) as copy:
            return read_annotations(copy, item=item, rater=rater, label=label, format=format, categories=categories,
                                    na_values=na_values, normalize=normalize, encoding=encoding,
                                    rater_from=rater_from, wide=wide, sep=sep, decimal=decimal, sheet=sheet,
                                    quoting=quoting, label_sep=label_sep, **options)
    if p.is_dir() and format in (None, "label-studio", "prodigy"):
        files = _export_files(p)
        if files is not None:
            check_label_sep(label_sep, format or "a folder of exports")
            return _read_many(files, rater_from=rater_from, categories=categories, encoding=encoding,
                              normalize=normalize, na_values=na_values,
                              **({} if format is None else {"format": format}), **options)
        if format is not None:
            raise ValueError(f"{p}: a folder of {format} exports should hold its .json / .jsonl files; found none")
    if format is None and p.is_file() and p.stat().st_size <= 4096 and not p.read_bytes().strip():
        raise ValueError(f"{p.name}: the file is empty (no header, no ratings)")
    if wide:
        from softirr_stats.data._wide import read_wide

        if options:
            raise OptionError(f"options {sorted(options)} apply only to export formats {sorted(EXPORT_FORMATS)}; "
                              "wide=True reads a table")
        fmt = format if format is not None else _table_format(p)
        if fmt not in _FORMATS:
            raise ValueError(f"wide=True reads a table ({', '.join(_FORMATS)}); {p.name} is read as {fmt!r}")
        if sheet == "*" or isinstance(sheet, list | tuple):
            raise ValueError("wide=True reads one sheet (a row per item, a column per rater); sheet= lists several "
                             "(one annotator per sheet: a long table on each, without wide=)")
        _check_decimal(decimal, fmt)
        check_label_sep(label_sep, fmt)
        check_quoting(quoting, fmt)
        table = _read_sheet_aware(p, fmt, [item, *(() if wide is True else wide)], na_values=na_values,
                                  encoding=encoding, sep=sep, sheet=sheet, quoting=quoting)
        table = _match_names(table, [item, *(() if wide is True else wide)], p.name)
        wanted = [n for n in (item, *(() if wide is True else wide)) if n]
        hint = (sep_hint(p, check_sep(sep, fmt), encoding)
                + header_line_hint(p, wanted, check_sep(sep, fmt), encoding)) if fmt in ("csv", "tsv") else ""
        if fmt == "xlsx" and sheet is None and any(n not in table.columns for n in wanted):
            from softirr_stats.data._workbook import sheet_hint

            hint = sheet_hint(p, wanted, table.attrs.get("sheet", ""))
        return _with_table_notes(read_wide(Annotations, table, p, fmt, item=item, categories=categories,
                                           normalize=normalize, decimal=decimal,
                                           raters=None if wide is True else wide, hint=hint, label_sep=label_sep),
                                 table)
    fmt = format if format is not None else guess_format(path, columns=(item, rater, label))
    if sep is not None and fmt not in ("csv", "tsv"):
        check_sep(sep, fmt)  # refused, naming the format
    _check_decimal(decimal, fmt)
    check_label_sep(label_sep, fmt)
    check_quoting(quoting, fmt)
    if sheet is not None and fmt != "xlsx":
        raise ValueError(f"sheet= picks a sheet of an Excel workbook; {p.name} is read as {fmt!r}")
    if fmt == "xlsx" and (sheet == "*" or isinstance(sheet, list | tuple)):
        if options:
            raise OptionError(f"options {sorted(options)} apply only to export formats {sorted(EXPORT_FORMATS)}; "
                              f"this file is read as {fmt!r}")
        return _read_sheets(p, sheet, rater_from=rater_from, item=item, rater=rater, label=label,
                            categories=categories, na_values=na_values, normalize=normalize, decimal=decimal,
                            label_sep=label_sep)
    if fmt in EXPORT_FORMATS:
        if (item, rater, label) != ("item", "rater", "label"):
            raise TypeError(f"item=, rater= and label= name the columns of csv/tsv/jsonl tables; a {fmt!r} "
                            "export defines its own items, raters and labels (see its reader's options)")
        return read_export(path, fmt, categories=categories, guessed=format is None, encoding=encoding,
                           normalize=normalize, na_values=_check_na_values(na_values), **options)
    if options:
        raise OptionError(f"options {sorted(options)} apply only to export formats {sorted(EXPORT_FORMATS)}; "
                          f"this file is read as {fmt!r}")
    if fmt in ("csv", "tsv", "jsonl", "parquet") and p.is_file() and label_sep is None:  # by whole columns (pyarrow)
        from softirr_stats.data._columnar import read_long

        with _naming_file(p):
            fast = read_long(Annotations, p, fmt, item=item, rater=rater, label=label,
                             na_values=_check_na_values(na_values), encoding=encoding, categories=categories,
                             normalize=normalize, sep=check_sep(sep, fmt) if fmt in ("csv", "tsv") else None,
                             decimal=decimal, quoting=quoting)
        if fast is not None:
            return fast
    df = _read_sheet_aware(p, fmt, [item, rater, label], na_values=na_values, encoding=encoding, sep=sep,
                           sheet=sheet, **({} if quoting == "csv" else {"quoting": quoting}))
    df = _match_names(df, [item, rater, label], p.name)
    missing = [(role, col) for role, col in (("item", item), ("rater", rater), ("label", label)) if col not in df.columns]
    if missing:
        from softirr_stats.data._wide import missing_columns_message

        hint = (sep_hint(p, check_sep(sep, fmt), encoding) + header_line_hint(p, [item, rater, label], check_sep(
            sep, fmt), encoding)) if fmt in ("csv", "tsv") and p.is_file() else ""
        if fmt == "xlsx" and sheet is None:  # the first sheet was read: another may hold the columns
            from softirr_stats.data._workbook import sheet_hint

            hint = sheet_hint(p, [item, rater, label], df.attrs.get("sheet", ""))
        raise ValueError(missing_columns_message(p.name, df.columns, missing, fmt, hint))
    if label in df.columns and fmt in TEXT_TABLES:  # sets of terms (label_sep=), or numbers by the one rule
        df[label] = set_cells(df[label], label_sep) if label_sep is not None else _numeric_labels(df[label], decimal)
    _check_id_cells(df, p, fmt, {"item": item, "rater": rater})
    check_label_cells(df, p, fmt, label)
    opts = {"item": item, "rater": rater, "label": label, "categories": categories,
            **({} if normalize is None else {"normalize": normalize})}
    with _naming_file(p):
        try:
            ann = Annotations.from_long(df, **opts)
        except ValueError as err:  # rows without an item or rater, or twice: again, named by their lines (error path)
            named = _name_rows(df, p, fmt) if type(err) is ValueError and _ROW_ERRORS.search(str(err)) else None
            if named is None:
                raise
            Annotations.from_long(named, **opts)
            raise  # pragma: no cover - the same rows fail again
    return _with_table_notes(ann, df)


def _check_id_cells(df: pd.DataFrame, path: Path, fmt: str, columns: dict[str, str]) -> None:
    """An item or rater cell holding a list or an object (JSON Lines ``"item": [1, 2]``) is refused naming the
    column, the value and the line: an identifier is text or a number. Whole columns are typed in C
    (``infer_dtype``); the cells are looked at only in a column of mixed types."""
    from pandas.api.types import infer_dtype

    for role, name in columns.items():
        if name not in df.columns or df[name].dtype != object:
            continue
        col = df[name]
        if not infer_dtype(col, skipna=True).startswith("mixed"):
            continue
        bad = col.map(type).isin([list, dict, tuple, set]).to_numpy()
        if not bad.any():
            continue
        from softirr_stats.base._validation import file_row_index, rows_named

        k = int(np.flatnonzero(bad)[0])
        value = col.iloc[k]
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        where = rows_named(file_row_index(path, fmt, len(df)), [k])
        kind = "an object" if isinstance(value, dict) else "a list"
        article = "an" if role == "item" else "a"
        raise ValueError(f"{path.name}: the {role} column {name!r} holds {kind} {shown} at {where} "
                         f"({int(bad.sum())} such cell(s) in all); {article} {role} identifier must be text or a number")


#: the errors of ``from_long`` that name rows (by the table's index)
_ROW_ERRORS = re.compile(r"^duplicate \(item, rater\) rows|^(item|rater) column .* has missing values")


@contextlib.contextmanager
def _naming_file(path: Path) -> Any:
    """Errors about the data (a plain ValueError / TypeError) start with the file's name, as the export readers'
    do, on every route; one that names the file already, or of another class, passes as it is."""
    try:
        yield
    except (ValueError, TypeError) as err:
        if type(err) in (ValueError, TypeError) and path.name not in str(err):
            raise type(err)(f"{path.name}: {err}") from None
        raise


def _name_rows(df: pd.DataFrame, path: Path, fmt: str) -> pd.DataFrame | None:
    """``df`` with its rows labelled by their lines in ``path`` (CSV / TSV / JSON Lines; a Parquet file's rows from
    1), for an error that names rows; None where the table carries its own (a workbook's sheet rows)."""
    if fmt not in ("csv", "tsv", "jsonl", "parquet") or not path.is_file():
        return None
    from softirr_stats.base._validation import file_row_index

    return df.set_axis(file_row_index(path, fmt, len(df)), axis=0)


def _read_sheets(path: Path, sheets: Any, *, rater_from: str, **opts: Any) -> Annotations:
    """Several sheets of one workbook (``sheet="*"`` or a list), merged as a list of long tables is: a sheet without
    a rater column is one annotator's, named after the sheet."""
    from softirr_stats.data._readers._common import check_choice
    from softirr_stats.data._table_list import read_table_list
    from softirr_stats.data._workbook import read_xlsx, sheet_titles, sheets_lacking

    rater_from = check_choice("rater_from", rater_from, _RATER_FROM)
    titles = sheet_titles(path, sheets)
    if sheets == "*":  # every sheet: a guide or a codebook among them is named, with the list that leaves it out
        lacking = sheets_lacking(path, titles, [opts["item"], opts["label"]])
        if lacking:
            raise ValueError(lacking)

    def read(title: Path, *, na_values: Any = None, **_: Any) -> pd.DataFrame:
        df = read_xlsx(path, _check_na_values(na_values), sheet=str(title),
                       names=[opts["item"], opts["label"]])  # a sheet per annotator may have no rater column
        df.attrs["read_notes"] = tuple(n for n in df.attrs.get("read_notes", ()) if ": read sheet " not in n)
        return df

    return read_table_list(Annotations, read, [Path(t) for t in titles], ["xlsx"] * len(titles),
                           [f"{path.name} [{t}]" for t in titles], rater_from=rater_from, encoding="utf-8", sep=None,
                           stems=titles, unit="sheet", **opts)


def _read_sheet_aware(path: Path, fmt: str, names: Sequence[str], *, sheet: str | int | None,
                      **kwargs: Any) -> pd.DataFrame:
    """``read_table``; where a workbook's default sheet is no table (a guide, a title page), the error says which
    sheet holds the columns ``names`` (or lists the sheets) and how to pick it."""
    if fmt in ("csv", "tsv"):
        try:
            return read_table(path, format=fmt, sheet=sheet, **kwargs)
        except ValueError as err:  # rows longer than a title line taken for the header: say which line is the header
            hint = header_line_hint(path, names, check_sep(kwargs.get("sep"), fmt), kwargs.get("encoding", "utf-8"))
            if hint and type(err) is ValueError:
                raise ValueError(f"{err}{hint}") from None
            raise
    if fmt != "xlsx":
        return read_table(path, format=fmt, sheet=sheet, **kwargs)
    from softirr_stats.data._workbook import SheetShapeError, read_xlsx, sheet_hint

    if kwargs.get("sep") is not None:
        check_sep(kwargs["sep"], fmt)  # refused, naming the format
    if not path.exists():
        raise FileNotFoundError(f"annotation file not found: {path}")
    na_values = _check_na_values(kwargs.get("na_values"))
    if sheet is not None:  # the header is the row that names the columns asked for (rows of titles above it)
        return read_xlsx(path, na_values, sheet, names=names)
    try:
        return read_xlsx(path, na_values, names=names)
    except SheetShapeError as err:
        raise ValueError(f"{err}{sheet_hint(path, [n for n in names if n], err.sheet)}") from None


def _match_names(table: pd.DataFrame, names: Sequence[str], shown: str) -> pd.DataFrame:
    """``table`` with a column renamed to the name given for it where the two differ only in whitespace (a header
    cell over two lines in a workbook), and a note saying so (``attrs["read_notes"]``)."""
    from softirr_stats.data._cells import match_header

    found = match_header(table.columns, names)
    if not found:
        return table
    notes = tuple(table.attrs.get("read_notes", ()))
    table = table.rename(columns={column: name for name, column in found.items()})
    pairs = ", ".join(f"{column!r} as {name!r}" for name, column in found.items())
    table.attrs["read_notes"] = (*notes, f"{shown}: read column(s) {pairs} (names are compared with every run of "
                                         "spaces and line breaks as one space)")
    return table


def _with_table_notes(ann: Annotations, table: pd.DataFrame) -> Annotations:
    """``ann`` with the notes of reading its table (``table.attrs["read_notes"]``: a workbook's sheet) first, in its
    read notes and its layout note (what the command line and the report show of how the file was read)."""
    from softirr_stats.data._wide import LAYOUT_NOTE

    notes = tuple(table.attrs.get("read_notes", ()))
    if notes:
        ann._cache["read_notes"] = (*notes, *ann._cache.get("read_notes", ()))
        ann._cache[LAYOUT_NOTE] = (*notes, *ann._cache.get(LAYOUT_NOTE, ()))
    return ann


def demo_path() -> Path:
    """Path of the bundled demo data set (free-text clinical findings, long CSV).

    Examples
    --------
    >>> demo_path().name
    'demo_annotations.csv'
    """
    return Path(__file__).resolve().parent / "examples" / "demo_annotations.csv"
