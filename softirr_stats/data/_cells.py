"""Cells of delimited text tables, shared by the pandas route (``_io``) and the Arrow route (``_columnar``).

A byte that does not decode becomes a ValueError naming the file and ``encoding=``; a header
naming one column twice is refused; a label column is numeric by the one rule of
:func:`softirr_stats.data._labels.text_numbers`. Both routes of :func:`~softirr_stats.data.read_annotations` call these, so they
give the same errors and the same labels (``tests/data/test_columnar_reading.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["QUOTINGS", "check_header", "check_label_cells", "check_label_sep", "check_quoting", "decode_errors",
           "guess_roles", "header_line_hint", "match_header", "numeric_labels", "quote_mode", "quoted_field_message",
           "sep_hint", "set_cells", "set_cells_hint", "swallowed_rows", "term_rows_hint"]

#: ``quoting=`` of a CSV / TSV table: ``"csv"`` (a field that starts with ``"`` is quoted, ``""`` inside it is a
#: quote: the CSV rule) or ``"none"`` (quotes are plain text, as every other character)
QUOTINGS: tuple[str, ...] = ("csv", "none")


class decode_errors:
    """Context manager: a UnicodeDecodeError becomes a ValueError naming the file and ``encoding=``."""

    def __init__(self, path: Path, encoding: str = "utf-8") -> None:
        self.path = path
        self.encoding = encoding

    def __enter__(self) -> None:
        return None

    def __exit__(self, et: Any, exc: Any, tb: Any) -> bool:
        if isinstance(exc, UnicodeDecodeError):
            from softirr_stats.data._input import not_text_message

            raise ValueError(not_text_message(str(self.path), exc.object, exc.start, self.encoding)) from None
        return False


def match_header(columns: Sequence[Any], wanted: Sequence[str]) -> dict[str, Any]:
    """``{name: column}`` for each wanted name that is no column but equals exactly one column up to whitespace.

    A header cell written over two lines (Alt+Enter in Excel: ``"R1\\nscore"``) or with stray spaces is named
    as it reads, with one space (``"R1 score"``): every run of spaces, tabs and line breaks counts as one space,
    and the ends are stripped. Case counts; a name two columns fit is left unmatched (the error lists both).

    Examples
    --------
    >>> match_header(["doc", "R1\\nscore", "R2 \\n score", " rater "], ["doc", "R1 score", "R2 score", "rater"])
    {'R1 score': 'R1\\nscore', 'R2 score': 'R2 \\n score', 'rater': ' rater '}
    >>> match_header(["a b", "a  b"], ["a   b"])
    {}
    """
    present = {str(c) for c in columns}
    keyed: dict[str, list[Any]] = {}
    for c in columns:
        keyed.setdefault(" ".join(str(c).split()), []).append(c)
    found = {}
    for name in wanted:
        if not isinstance(name, str) or not name or name in present:
            continue
        fits = keyed.get(" ".join(name.split()), [])
        if len(fits) == 1:
            found[name] = fits[0]
    return found


def check_quoting(quoting: Any, fmt: str | None) -> str:
    """``quoting=`` checked: one of :data:`QUOTINGS`, given only for a CSV / TSV table (``fmt``).

    Examples
    --------
    >>> check_quoting("none", "tsv")
    'none'
    >>> check_quoting("none", "jsonl")
    Traceback (most recent call last):
    ...
    ValueError: quoting= says how quotes in a CSV / TSV table are read; this file is read as 'jsonl'
    """
    if not isinstance(quoting, str) or quoting not in QUOTINGS:
        raise ValueError(f"quoting must be one of {list(QUOTINGS)} ('csv': a field that starts with a quote is quoted; "
                         f"'none': quotes are plain text); got {quoting!r}")
    if quoting != "csv" and fmt not in ("csv", "tsv"):
        raise ValueError(f"quoting= says how quotes in a CSV / TSV table are read; this file is read as {fmt!r}")
    return quoting


def quote_mode(quoting: str) -> int:
    """The ``csv`` module's (and pandas') quoting constant for ``quoting=``."""
    import csv

    return csv.QUOTE_NONE if quoting == "none" else csv.QUOTE_MINIMAL


def swallowed_rows(df: pd.DataFrame, sep: str) -> bool:
    """Whether a cell of ``df`` (every cell read as text) holds a line break and ``sep``: a quoted field that took
    in what look like rows of the table (an opening quote closed only lines later). Whole columns at a time."""
    for name in df.columns:
        col = df[name]
        if col.dtype.kind not in "OSUT" and str(col.dtype) not in ("str", "string"):
            continue
        text = col.astype(object).where(col.notna(), "").astype(str)
        if (text.str.contains(r"[\r\n]", regex=True) & text.str.contains(sep, regex=False)).any():
            return True
    return False


def quoted_field_message(path: Path, sep: str, encoding: str, *, unclosed: bool) -> str:
    """The one-line refusal of a quoted field that swallowed rows (``unclosed=False``: a field holding a line
    break and ``sep``) or that the file ends inside (``unclosed=True``), naming the line where the field starts.

    Walks the records with Python's csv reader (error path only) to find where the field starts.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = p.write_text('item,rater,label\\n1,a,"x\\n1,b,y\\n2,a,z"\\n2,b,z\\n')
    >>> print(quoted_field_message(p, ",", "utf-8", unclosed=False))  # doctest: +NORMALIZE_WHITESPACE
    a.csv: line 2: a quoted field starts there ('"x') and runs over 3 lines, taking in what look like ','-separated
    rows: a quote opened in a field and closed only lines later reads the rows between as one cell; close the quote
    in the file, or read quotes as plain text: pass quoting='none'
    """
    import csv
    import sys

    shown = "tab" if sep == "\t" else repr(sep)
    fix = "close the quote in the file, or read quotes as plain text: pass quoting='none'"
    old = csv.field_size_limit()
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    found: tuple[int, int, str] | None = None
    try:
        with decode_errors(path, encoding), path.open(encoding=encoding, newline="") as fh:
            reader = csv.reader(fh, delimiter=sep)
            end = 0
            for row in reader:  # error path: the first record whose field swallowed rows, or the last one
                start, end = end + 1, reader.line_num
                k = len(row) - 1 if unclosed else next(
                    (k for k, f in enumerate(row) if sep in f and ("\n" in f or "\r" in f)), -1)
                if row and k >= 0:
                    found = (start + sum(f.count("\n") for f in row[:k]), end, row[k])
                    if not unclosed:
                        break
    except csv.Error:
        found = None
    finally:
        csv.field_size_limit(old)
    if found is None:
        return (f"{path.name}: a quoted field is never closed (the file ends inside it)" if unclosed else
                f"{path.name}: a quoted field takes in what look like {shown}-separated rows") + f"; {fix}"
    line, end, field = found
    head = field.splitlines()[0] if field.strip() else field
    head = head if len(head) <= 30 else head[:30] + "..."
    if unclosed:
        return (f"{path.name}: line {line}: a quoted field starts there ({chr(34) + head!r}) and is never closed: the "
                f"file ends inside it, so every line after it would be one cell; {fix}")
    return (f"{path.name}: line {line}: a quoted field starts there ({chr(34) + head!r}) and runs over {end - line + 1} "
            f"lines, taking in what look like {shown}-separated rows: a quote opened in a field and closed only lines "
            f"later reads the rows between as one cell; {fix}")


def check_header(path: Path, sep: str, encoding: str, quoting: str = "csv") -> None:
    """A header naming one column twice is refused (pandas would read the second as 'label.1'); so is UTF-16 /
    UTF-32 text without a byte-order mark read as another encoding (``_input.bomless_message``)."""
    import csv

    from softirr_stats.data._input import BOMLESS_HEAD, bomless_message

    with path.open("rb") as fh:
        wrong = bomless_message(str(path), fh.read(BOMLESS_HEAD), encoding)
    if wrong is not None:
        raise ValueError(wrong)
    with decode_errors(path, encoding), path.open(encoding=encoding, newline="") as fh:
        header = next(csv.reader(fh, delimiter=sep, quoting=quote_mode(quoting)), [])
    seen: dict[str, int] = {}
    for k, name in enumerate(header, 1):
        name = name.lstrip("\ufeff") if k == 1 else name
        if name in seen and name != "":
            raise ValueError(f"{path}: column {name!r} appears twice in the header (columns {seen[name]} and {k}); "
                             "rename one so that it is clear which is meant")
        seen[name] = k


def check_label_cells(df: pd.DataFrame, path: Path, fmt: str, column: str, *, role: str = "label column",
                      shown: str | None = None) -> None:
    """A label cell holding an object (JSON Lines ``"label": {"name": "x"}``), or a list with something other than
    text in it (a list is a set of labels: ``[1, 2]``, ``[["x"]]``, ``["x", null]``), raises a TypeError naming the
    file (``shown``, default its name), the column, the value and its line, as an item or rater identifier that
    is a list is named. Only a column of mixed types is looked at cell by cell (a column of set labels is one).

    Examples
    --------
    >>> import pandas as pd, pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "r.jsonl"
    >>> _ = p.write_text('{"label": ["a"]}\\n{"label": {"name": "b"}}\\n')
    >>> check_label_cells(pd.read_json(p, lines=True), p, "jsonl", "label")
    Traceback (most recent call last):
    ...
    TypeError: r.jsonl: the label column 'label' holds an object {'name': 'b'} at line 2 of the file (1 such cell(s) in all); a label is text, a number, or a list of text (a set of labels)
    """
    from pandas.api.types import infer_dtype

    if column not in df.columns or df[column].dtype != object:
        return
    col = df[column]
    if not infer_dtype(col, skipna=True).startswith("mixed"):
        return
    kinds = col.map(type)
    bad = kinds.isin([dict]).to_numpy().copy()
    sets = kinds.isin([list, tuple]).to_numpy()
    if sets.any():
        bad[sets] = [not all(isinstance(x, str) for x in v) for v in col[sets]]
    if not bad.any():
        return
    from softirr_stats.base._validation import file_row_index, rows_named

    k = int(np.flatnonzero(bad)[0])
    value = col.iloc[k]
    from softirr_stats.base._format import clipped_repr

    text = clipped_repr(value)
    if isinstance(value, dict):
        what = f"an object {text}"
    else:
        odd = next(x for x in value if not isinstance(x, str))
        what = f"a list {text} ({odd!r} is no text)"
    where = rows_named(file_row_index(path, fmt, len(df)), [k])
    raise TypeError(f"{shown or path.name}: the {role} {column!r} holds {what} at {where} ({int(bad.sum())} such "
                    "cell(s) in all); a label is text, a number, or a list of text (a set of labels)")


#: column names that say a long table's roles (compared case-folded, spaces at the ends dropped)
RATER_NAMES = ("rater", "annotator", "coder", "rater_id", "annotator_id", "coder_id", "judge", "reviewer", "user")
ITEM_NAMES = ("item", "item_id", "doc", "doc_id", "document", "document_id", "unit", "subject", "id", "study_id")
LABEL_NAMES = ("label", "labels", "rating", "score", "code", "category", "answer", "annotation", "value")


def guess_roles(columns: Sequence[Any]) -> dict[str, Any]:
    """The columns of a long table whose names say their role: ``{"item": ..., "rater": ..., "label": ...}`` for
    those found; with a rater and an item column among three, the third is the label. Empty without a rater column
    (nothing says the table is long).

    Examples
    --------
    >>> guess_roles(["doc", "Annotator", "finding"])
    {'item': 'doc', 'rater': 'Annotator', 'label': 'finding'}
    >>> guess_roles(["doc", "ana", "bo"])
    {}
    """
    names = {str(c).strip().casefold(): c for c in reversed(list(columns))}
    found = {role: next((names[n] for n in table if n in names), None)
             for role, table in (("item", ITEM_NAMES), ("rater", RATER_NAMES), ("label", LABEL_NAMES))}
    if found["rater"] is None:
        return {}
    rest = [c for c in columns if c not in (found["item"], found["rater"])]
    if found["label"] is None and found["item"] is not None and len(rest) == 1:
        found["label"] = rest[0]
    return {role: col for role, col in found.items() if col is not None}


def header_line_hint(path: Path, names: Sequence[str], sep: str, encoding: str = "utf-8", scan: int = 20) -> str:
    """When a CSV's first line is not its header (a spreadsheet's title rows above the table): the line among the
    first ``scan`` non-blank ones that names every column of ``names``, as a hint, or ''.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = p.write_text("Coding sheet, round 2\\n\\nitem,rater,label\\n1,ana,x\\n")
    >>> header_line_hint(p, ["item", "rater", "label"], ",")
    "; line 3 names the columns 'item', 'rater', 'label': the lines above it (a title?) are no header: delete them"
    """
    import csv
    import io

    wanted = {" ".join(str(n).split()) for n in names if n}
    if not wanted:
        return ""
    try:
        with path.open(encoding=encoding, errors="replace", newline="") as fh:
            head = fh.read(1 << 16)
    except (OSError, UnicodeError):  # 'utf-16' on a file without its mark: the error being hinted says so
        return ""
    lines = [(k, line) for k, line in enumerate(head.lstrip("\ufeff").splitlines(), start=1) if line.strip()]
    for k, line in lines[1:scan]:
        try:
            fields = next(csv.reader(io.StringIO(line), delimiter=sep), [])
        except csv.Error:
            continue
        if wanted <= {" ".join(f.split()) for f in fields}:
            shown = ", ".join(repr(n) for n in names if n)
            return f"; line {k} names the columns {shown}: the lines above it (a title?) are no header: delete them"
    return ""


def sep_hint(path: Path, sep: str, encoding: str = "utf-8") -> str:
    """When a table does not parse with ``sep``: the other delimiter its first lines split on alike, as a
    hint (``"; a ';'-separated file? pass sep=';'"``), or ''.

    A delimiter is named when the header and the next line split on it into the same number of
    fields (two or more), and ``sep`` splits them unevenly or into fewer.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = p.write_text("doc;Keep, Ana;Keep, Bo\\nd1;1;0\\n")
    >>> sep_hint(p, ",")
    "; a ';'-separated file? pass sep=';'"
    """
    import csv
    import io

    try:
        with path.open(encoding=encoding, errors="replace", newline="") as fh:
            head = fh.read(1 << 16)
    except (OSError, UnicodeError):  # 'utf-16' on a file without its mark: the error being hinted says so
        return ""
    lines = head.lstrip("\ufeff").splitlines()[:2]
    if len(lines) < 2:
        return ""

    def fields(delim: str) -> list[int]:
        try:
            return [len(row) for row in csv.reader(io.StringIO("\n".join(lines)), delimiter=delim)]
        except csv.Error:
            return [0]

    have = fields(sep)
    for cand in (";", "\t", "|", ","):
        counts = fields(cand)
        if cand == sep or len(set(counts)) != 1 or counts[0] < 2:
            continue
        if len(set(have)) != 1 or counts[0] > have[0]:  # sep splits the lines unevenly, or into fewer fields
            shown = "tab" if cand == "\t" else repr(cand)
            given = "'tab'" if cand == "\t" else repr(cand)
            return f"; a {shown}-separated file? pass sep={given}"
    return ""


def numeric_labels(col: pd.Series, decimal: str = ".") -> pd.Series:
    """A label column read as text becomes numeric when its distinct texts are numbers by the one rule
    of :func:`softirr_stats.data._labels.text_numbers` (each written one way, identity kept at any size;
    ``decimal=","``: written with a decimal comma; numbers written with a point then stay text, and a
    LabelWarning says so).

    Decided, and converted, on the distinct labels (one factorize): no recursion and no Python work
    per cell.
    """
    import pandas as pd

    from softirr_stats.data._labels import text_numbers, warn_decimal_point

    codes, uniq = pd.factorize(col)
    if len(uniq) == 0:
        return col
    values = text_numbers(np.asarray(uniq, dtype=object), decimal=decimal)
    if values is None:
        if decimal != ".":  # numbers written with a point, which decimal="," reads as text: said so
            warn_decimal_point(np.asarray(uniq, dtype=object))
        return col
    out = col.to_numpy(dtype=object, copy=True)
    present = codes >= 0
    out[present] = values[codes[present]]
    return pd.Series(out, index=col.index, name=col.name, dtype=object)


# ---------------------------------------------------------------------------------------- cells that list terms
#: the characters that commonly join the terms of a multi-label cell, in the order a hint tries them
_TERM_SEPS = ("|", ";", ",")


def check_label_sep(label_sep: Any, fmt: str | None = None) -> None:
    """``label_sep=`` is a non-empty string, and (given ``fmt``) splits the text cells of a CSV / TSV table or a
    workbook; other formats write a set label their own way (a JSON list)."""
    if label_sep is None:
        return
    if not isinstance(label_sep, str) or not label_sep:
        raise ValueError(f"label_sep must be a non-empty string (what joins the terms of a cell, e.g. '|'); "
                         f"got {label_sep!r}")
    from softirr_stats.data import TEXT_TABLES

    if fmt is not None and fmt not in TEXT_TABLES:
        raise ValueError(f"label_sep= splits the text cells of a CSV / TSV table (or a workbook) into the terms of a "
                         f"set label; this file is read as {fmt!r}, which writes a set label its own way (a JSON "
                         "list in JSON Lines)")


def set_cells(col: pd.Series, sep: str) -> pd.Series:
    """A column of text cells, each listing terms joined by ``sep`` (``"fever|cough"``), as set labels
    (``frozenset``); missing cells stay missing, terms are kept as written (the look-alike check of the terms names
    stray spaces). A cell with an empty term (``"fever|"``, ``"a||b"``) is refused, naming it. Split once per
    distinct cell (one factorize), not per row.

    Examples
    --------
    >>> import pandas as pd
    >>> out = set_cells(pd.Series(["fever|cough", None, "rash"]), "|")
    >>> [sorted(v) for v in out.dropna()], out.isna().tolist()
    ([['cough', 'fever'], ['rash']], [False, True, False])
    """
    import pandas as pd

    codes, uniq = pd.factorize(col)
    if len(uniq) == 0:
        return col
    parts = [str(t).split(sep) for t in uniq]  # the distinct cells only
    bad = next((k for k, p in enumerate(parts) if "" in p), None)
    if bad is not None:
        n = sum(1 for p in parts if "" in p)
        raise ValueError(f"label cell {uniq[bad]!r} holds an empty term (label_sep={sep!r}; {n} distinct cell(s) "
                         "like it): a term before, after or between the separators is missing; remove the extra "
                         "separator in the file")
    sets = np.empty(len(parts), dtype=object)
    sets[:] = [frozenset(p) for p in parts]
    out = col.to_numpy(dtype=object, copy=True)
    present = codes >= 0
    out[present] = sets[codes[present]]
    return pd.Series(out, index=col.index, name=col.name, dtype=object)


def _label_sep_words(sep: str) -> str:
    """``label_sep='|'`` in both spellings: the keyword of ``read_annotations`` and the command line's option."""
    import shlex

    return f"label_sep={sep!r} on read_annotations, --reader-option {shlex.quote('label_sep=' + sep)} on the command line"


def set_cells_hint(vocabulary: Any) -> str:
    """How text labels that list several terms (``"fever|cough"``) are read as set labels: ``label_sep=``, with the
    separator the labels seem to use (the first of ``|``, ``;``, ``,`` found in them), else ``'|'`` as an example.

    Examples
    --------
    >>> print(set_cells_hint(["fever|cough", "rash"]))
    labels that list several terms (e.g. 'fever|cough') are read as set labels with label_sep='|' on read_annotations, --reader-option 'label_sep=|' on the command line
    """
    texts = np.asarray([v for v in vocabulary if isinstance(v, str)], dtype=np.str_)
    for sep in _TERM_SEPS:
        has = np.char.find(texts, sep) >= 0 if texts.size else np.zeros(0, dtype=bool)
        if has.any():
            return (f"labels that list several terms (e.g. {str(texts[has][0])!r}) are read as set labels with "
                    f"{_label_sep_words(sep)}")
    return (f"a CSV / TSV cell that lists several terms ('fever|cough') is read as a set label with "
            f"{_label_sep_words('|')}; a JSON Lines file writes a set label as a list")


def term_rows_hint(labels: Sequence[Any]) -> str:
    """For duplicate (item, rater) rows whose ``labels`` (the first pair's rows) differ: how one row per term of a
    multi-label rating is read as one set label; '' when they do not differ (a rating given twice).

    Examples
    --------
    >>> term_rows_hint(["fever", "cough"])[:70]
    '; one row per term of a multi-label rating? make each rating one set l'
    >>> term_rows_hint(["x", "x"])
    ''
    """
    import pandas as pd

    terms = list(dict.fromkeys(str(v) for v in labels if not (v is None or (np.ndim(v) == 0 and pd.isna(v)))))
    if len(terms) < 2:
        return ""
    return (f"; one row per term of a multi-label rating? make each rating one set label: in a CSV / TSV table its "
            f"terms in one cell ({'|'.join(terms[:3])!r}), read with {_label_sep_words('|')}; in JSON Lines a list")
