"""Wide tables on disk (one row per item, one column per rater), and what to say when a long table's
columns are not there.

R's irr and irrCAC, SPSS and most spreadsheets keep ratings wide: a row per item, a column per
rater. :func:`read_wide` reads such a CSV / TSV / JSON Lines / Parquet file into
:meth:`Annotations.from_wide`, items and raters in the file's order; text cells become numbers by the
long route's one rule (decided over every rater's cells at once), and the label checks (numbers
written two ways, look-alike labels) are every constructor's. :func:`missing_columns_message` is the
long route's error when a column is absent, with the likely reason: a wide table, or a delimiter
other than the format's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from softirr_stats.data import TABLE_FORMATS, TEXT_TABLES

__all__ = ["LAYOUT_NOTE", "layout_note", "missing_columns_message", "read_wide"]
#: key of the note saying how a table's layout was read (a wide table's rater columns, tables merged;
#: ``Annotations._cache``): written by the layout readers, read by :func:`layout_note`
LAYOUT_NOTE = "layout_note"
#: what a header-less first column is
_ROW_NAMES = "row names, as R's write.csv and pandas' to_csv write them"
#: the name pandas gives a column whose header cell is empty
_NAMELESS = re.compile(r"Unnamed: [0-9]+")


def read_wide(cls: Any, df: Any, path: Path, fmt: str, *, item: str, categories: Any,
              normalize: str | None, decimal: str = ".", raters: Sequence[str] | None = None, hint: str = "",
              label_sep: str | None = None) -> Any:
    """Annotations from a wide table ``df`` read from ``path`` (``read_table``): ``item`` names the
    column of item identifiers (``""``: the rows are the items, numbered from 1); ``raters`` names the
    rater columns (None: every other column, and a LabelWarning when they mix numbers and text).
    ``decimal=","``: CSV / TSV numbers are written with a decimal comma. ``hint`` ends the error of a
    column not found (the delimiter the file seems to use, :func:`~softirr_stats.data._cells.sep_hint`).
    ``label_sep``: each cell lists a rating's terms joined by it, read as a set label
    (:func:`~softirr_stats.data._cells.set_cells`).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from softirr_stats.data import Annotations
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "wide.csv"
    >>> _ = p.write_text("item,ann1,ann2\\nd1,yes,yes\\nd2,no,\\n")
    >>> from softirr_stats.data import read_table
    >>> ann = read_wide(Annotations, read_table(p), p, "csv", item="item", categories=None, normalize=None)
    >>> ann.items, ann.raters, ann.codes.tolist()
    (('d1', 'd2'), ('ann1', 'ann2'), [[1, 1], [0, -1]])
    """
    import pandas as pd

    from softirr_stats.data._cells import check_label_cells, numeric_labels, set_cells

    item = _item_column(df, path.name, fmt, item, raters, hint)
    items, how = _item_ids(df, path.name, _row_place(path, fmt), item, _row_names_column(df, fmt))
    given = raters is not None
    raters, left_out, blank = _rater_columns(df, path.name, fmt, item, raters)
    if len(df) == 0:
        raise ValueError(f"{path.name}: the table has a header and no rows")
    for column in raters:  # an object, or a list of non-text, named by its line
        check_label_cells(df, path, fmt, column, role="rater column")
    cells = df[raters].to_numpy(dtype=object)
    if label_sep is not None:  # every cell a set of terms
        flat = set_cells(pd.Series(cells.reshape(-1), dtype=object), label_sep)
        cells = flat.to_numpy(dtype=object).reshape(cells.shape)
    elif fmt in TEXT_TABLES:  # numbers by the one rule of the long route, over every rater's cells at once
        if not given:
            _warn_mixed_columns(path.name, raters, cells, fmt, decimal)
        flat = numeric_labels(pd.Series(cells.reshape(-1), dtype=object), decimal)
        cells = flat.to_numpy(dtype=object).reshape(cells.shape)
    elif not given:
        _warn_mixed_columns(path.name, raters, cells, fmt, decimal)
    table = pd.DataFrame(cells, index=pd.Index(items, dtype=object), columns=pd.Index(raters, dtype=object))
    ann = cls.from_wide(table, categories=categories, normalize=normalize)  # the file's order of items and raters
    shown = _names(raters)
    if given:
        tail = f"; {len(left_out)} other column(s) left out: {_names(left_out)}" if left_out else ""
        note = f"{path.name}: read as a wide table ({how}; {len(raters)} rater column(s) named by wide=: {shown}{tail})"
    else:
        rest = "every column but the item column" if item else "every column"
        if blank:
            shown += f"; {len(blank)} empty column(s) with no header left out"
        note = (f"{path.name}: read as a wide table ({how}; {len(raters)} rater column(s): {shown}): {rest} is read "
                "as a rater; name the rater columns with wide=[...] to leave others out (on the command line: "
                "--reader-option 'wide=[r1, r2]')")
    ann._cache[LAYOUT_NOTE] = (note,)
    ann._cache["read_notes"] = (*ann._cache.get("read_notes", ()), note)
    return ann


def _item_column(df: Any, name: str, fmt: str, item: str, raters: Sequence[str] | None, hint: str) -> str:
    """The column of item identifiers: ``item`` checked, or for ``item=""`` a header-less first column (row
    names; ``""`` when there is none: the rows are numbered). Also checks a ``raters`` list against the table."""
    columns = [str(c) for c in df.columns]
    if raters is not None:
        absent = [c for c in raters if c not in df.columns]
        if absent:
            from softirr_stats.base._suggest import did_you_mean

            raise ValueError(f"{name}: wide table: rater column(s) {absent} not found"
                             f"{did_you_mean(absent[0], columns, prefix=False)}; the columns are {columns}{hint}")
        if item and item in raters:
            raise ValueError(f"{name}: wide table: {item!r} is the item column (item=) and cannot also be a rater "
                             "column")
    row_names = _row_names_column(df, fmt)
    if item and item not in df.columns:
        if row_names is not None and not hint:
            hint = (f": the first column has no header ({_ROW_NAMES}): pass item='' to read it as the item column, or "
                    "name it in the header")
        from softirr_stats.base._suggest import did_you_mean

        raise ValueError(
            f"{name}: wide table: item column {item!r} not found{did_you_mean(item, columns, prefix=False)}; the columns are {columns}"
            + (hint if hint else ": name the column of item identifiers (item='doc'), or pass item='' to number "
               "the rows as items"))
    if not item and row_names is not None and (raters is None or row_names not in raters):
        return row_names  # item='': the header-less first column holds the rows' names
    return item


def _row_place(path: Path, fmt: str) -> tuple[str, int]:
    """What a table's rows are called in an error, and the number of the first: CSV / TSV lines (the header
    is line 1), JSON Lines lines, the records of a JSON array, Parquet rows."""
    if fmt in ("csv", "tsv"):
        return "lines", 2
    if fmt != "jsonl":
        return "rows", 1
    with path.open("rb") as fh:
        head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
    return ("records", 1) if head.startswith(b"[") else ("lines", 1)


def _item_ids(df: Any, name: str, place: tuple[str, int], item: str, row_names: str | None) -> tuple[np.ndarray, str]:
    """The items (one per row: the item column's cells, checked, or the rows numbered from 1) and how they
    were found, for the note; ``place`` names the rows in errors (:func:`_row_place`)."""
    if not item:
        return np.arange(1, len(df) + 1).astype(str).astype(object), "items are the rows, numbered from 1"
    ids = df[item]
    where, first_at = place
    if ids.isna().any():
        bad = np.flatnonzero(ids.isna().to_numpy())
        rows = (bad + first_at).tolist()[:5]
        if df.iloc[bad].isna().all(axis=None):  # rows of delimiters only (a spreadsheet's rows below the table)
            raise ValueError(f"{name}: wide table: {_places(where, bad + first_at)} "
                             f"{'are' if bad.size > 1 else 'is'} empty (no item id, no rating): delete "
                             f"{'them' if bad.size > 1 else 'it'}")
        raise ValueError(f"{name}: wide table: item column {item!r} has empty cells ({where} {rows})")
    dup = ids.duplicated(keep=False).to_numpy()
    if dup.any():
        first = ids[dup].iloc[0]
        rows = (np.flatnonzero((ids == first).to_numpy()) + first_at).tolist()[:5]
        raise ValueError(f"{name}: wide table: item {first!r} has {int((ids == first).sum())} rows "
                         f"({where} {rows}; {int(dup.sum())} rows share an item in all): a wide table has one "
                         "row per item (a long table, one row per rating? leave out wide=True)")
    how = (f"items from column {item!r}" if item != row_names
           else f"items from the first column, which has no header ({_ROW_NAMES})")
    return ids.to_numpy(dtype=object), how


def _places(where: str, numbers: np.ndarray, limit: int = 5) -> str:
    """``"lines 4 and 5"``, ``"line 4"``, ``"rows 2, 3, 4, 5, 6 and 3 more"``: rows named for a message.

    Examples
    --------
    >>> _places("lines", np.array([4, 5])), _places("lines", np.array([4])), _places("rows", np.arange(1, 9))
    ('lines 4 and 5', 'line 4', 'rows 1, 2, 3, 4, 5 and 3 more')
    """
    shown = [str(n) for n in numbers[:limit].tolist()]
    word = where if len(numbers) > 1 else where.rstrip("s")
    if len(numbers) > limit:
        return f"{word} {', '.join(shown)} and {len(numbers) - limit} more"
    return f"{word} {' and '.join(shown)}" if len(shown) <= 2 else f"{word} {', '.join(shown[:-1])} and {shown[-1]}"


def _rater_columns(df: Any, name: str, fmt: str, item: str,
                   raters: Sequence[str] | None) -> tuple[list[Any], list[str], list[str]]:
    """(rater columns, columns a ``raters`` list left out, empty header-less columns left out).

    With no list every column but the item's is a rater, except header-less ones: empty ones (a trailing
    delimiter) are left out, and one holding values is refused (it cannot name a rater).
    """
    columns = [str(c) for c in df.columns]
    if raters is not None:
        return list(raters), [str(c) for c in df.columns if c not in raters and c != item], []
    chosen = [c for c in df.columns if c != item]
    nameless = [c for c in chosen if fmt in TEXT_TABLES and _NAMELESS.fullmatch(str(c))]
    holding = [c for c in nameless if df[c].notna().any()]
    if holding:
        raise ValueError(
            f"{name}: wide table: column(s) {[columns.index(str(c)) + 1 for c in holding]} have no header but hold "
            "values, so no rater can be named after them: name them in the file's header, or list the rater columns "
            f"with wide=[...] (pandas names them {[str(c) for c in holding]})")
    chosen = [c for c in chosen if c not in nameless]
    if not chosen:
        raise ValueError(f"{name}: wide table: no rater column besides {item!r} (the columns are {columns})")
    return chosen, [], [str(c) for c in nameless]


def _row_names_column(df: Any, fmt: str) -> str | None:
    """The name pandas gave a CSV / TSV table's first column when its header cell is empty (``"Unnamed: 0"``):
    the row names R's ``write.csv`` and pandas' ``to_csv`` write there by default; None otherwise."""
    if fmt not in TEXT_TABLES or len(df.columns) == 0:
        return None
    first = str(df.columns[0])
    return first if first == "Unnamed: 0" else None


def _names(columns: Sequence[Any], limit: int = 12) -> str:
    """Column names for a note: the first ``limit`` quoted, then how many more."""
    shown = ", ".join(map(repr, map(str, columns[:limit])))
    return shown + (f" and {len(columns) - limit} more" if len(columns) > limit else "")


def _column_kinds(cells: np.ndarray, fmt: str, decimal: str) -> list[str]:
    """Per column of ``cells``: "numbers" (every present cell is a number: typed, or text by the one rule,
    with ``decimal`` or written with a decimal comma: a column of ratings either way), "text", or "empty"."""
    import numbers as _numbers

    import pandas as pd

    from softirr_stats.data._labels import text_numbers

    kinds = []
    for k in range(cells.shape[1]):
        uniq = pd.unique(pd.Series(cells[:, k], dtype=object).dropna())
        if len(uniq) == 0:
            kinds.append("empty")
        elif all(isinstance(u, _numbers.Real) and not isinstance(u, bool) for u in uniq):
            kinds.append("numbers")
        elif fmt in TEXT_TABLES and all(isinstance(u, str) for u in uniq) and any(
                text_numbers(np.asarray(uniq, dtype=object), decimal=mark) is not None for mark in {decimal, ","}):
            kinds.append("numbers")
        else:
            kinds.append("text")
    return kinds


def _warn_mixed_columns(name: str, raters: Sequence[Any], cells: np.ndarray, fmt: str, decimal: str) -> None:
    """A LabelWarning when a wide table's rater columns (every column but the item's) mix numbers and text:
    a table that also holds names, descriptions, dates or counts, whose columns were read as raters."""
    import warnings

    from softirr_stats.base._validation import user_stacklevel
    from softirr_stats.data._labels import LabelWarning

    if len(raters) < 2:
        return
    kinds = _column_kinds(cells, fmt, decimal)
    numeric = [str(c) for c, k in zip(raters, kinds, strict=True) if k == "numbers"]
    text = [str(c) for c, k in zip(raters, kinds, strict=True) if k == "text"]
    if numeric and text:
        warnings.warn(
            f"{name}: wide table: of the {len(raters)} columns read as raters, {len(numeric)} "
            f"{'holds' if len(numeric) == 1 else 'hold'} numbers ({_names(numeric, 5)}) and {len(text)} "
            f"{'holds' if len(text) == 1 else 'hold'} text ({_names(text, 5)}), so every label is read as a "
            "category; if some of these columns are not raters (names, descriptions, dates, counts), name the "
            "rater columns with wide=[...] (on the command line: --reader-option 'wide=[r1, r2]')",
            LabelWarning, stacklevel=user_stacklevel())


def layout_note(ann: Any) -> tuple[str, ...]:
    """The notes saying how a table's layout was read (a workbook's sheet, a wide table's rater columns, several
    tables merged); empty for anything else.

    Examples
    --------
    >>> from softirr_stats.data import Annotations
    >>> layout_note(Annotations.from_wide([["a", "a"], ["b", "a"]]))
    ()
    """
    return tuple(getattr(ann, "_cache", {}).get(LAYOUT_NOTE, ()))


def missing_columns_message(name: str, columns: Sequence[Any], missing: Sequence[tuple[str, str]], fmt: str,
                            hint: str = "") -> str:
    """The long route's error for absent columns, with the likely reason (another delimiter: ``hint``
    from :func:`~softirr_stats.data._cells.sep_hint`, or a one-column header holding one; a wide table).

    Examples
    --------
    >>> print(missing_columns_message("a.csv", ["item;rater;label"], [("item", "item")], "csv"))
    a.csv: item column 'item' not found; the columns are ['item;rater;label']: the header is one column that holds ';' (a ';'-separated file?); pass sep=';'
    """
    from softirr_stats.base._suggest import did_you_mean

    cols = [str(c) for c in columns]
    what = ", ".join(f"{role} column {col!r}" for role, col in missing)
    close = did_you_mean(missing[0][1], cols, prefix=False) if len(missing) == 1 else ""
    msg = f"{name}: {what} not found{close}; the columns are {cols}"
    if len(cols) == 1:
        seps = [s for s in (";", "|", "\t", ",") if s in cols[0] and not (s == "," and fmt == "csv")]
        if seps:
            shown = "tab" if seps[0] == "\t" else repr(seps[0])
            given = "'tab'" if seps[0] == "\t" else repr(seps[0])
            return (f"{msg}: the header is one column that holds {shown} (a {shown}-separated file?); pass "
                    f"sep={given}")
    if hint:
        return msg + hint
    from softirr_stats.data._cells import guess_roles

    guess = guess_roles(columns)
    if len(guess) >= 2:  # a rater column and another role: a long table with its own column names
        call = ", ".join(f"{role}={col!r}" for role, col in guess.items())
        return f"{msg}: a long table with other column names? pass {call}"
    roles = {role for role, _ in missing}
    if fmt in TABLE_FORMATS and roles & {"rater", "label"} and len(cols) >= 2:
        return (f"{msg}: a wide table (one row per item, one column per rater)? pass wide=True, with item= naming "
                f"its item column (item={cols[0]!r} if the first column names the items; item='' numbers the rows); "
                "a long table names its columns with item=, rater= and label=")
    return f"{msg}: name them with item=, rater= and label="
