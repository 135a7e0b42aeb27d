"""Several long tables read as one: each annotator's own CSV (or a batch of items per file), merged.

Annotators often return a file each: ``alice.csv`` and ``bob.csv`` with the columns ``item`` and
``label`` (no rater column: the file says who rated), or batches of items with a rater column.
:func:`read_table_list` reads every file with :func:`~softirr_stats.data.read_table`, names each file's
rater after the file where the table has no rater column (or where ``rater_from="file"`` asks for it),
decides numeric labels once over all files (a CSV column of numbers in one file and text in another
stays text everywhere), refuses the same rater rating the same item in two files (naming both) and
builds one :class:`Annotations`. A file with one rater is fine here: agreement is over the merged table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from softirr_stats.data import TEXT_TABLES
from softirr_stats.data._wide import LAYOUT_NOTE, missing_columns_message

__all__ = ["read_table_list"]


def read_table_list(cls: Any, read: Callable[..., Any], paths: Sequence[Path], fmts: Sequence[str],
                    names: Sequence[str], *, rater_from: str, item: str, rater: str, label: str, categories: Any,
                    na_values: Any, normalize: str | None, encoding: str, sep: str | None, decimal: str,
                    sheet: str | int | None = None, stems: Sequence[str] | None = None, unit: str = "file",
                    quoting: str = "csv", label_sep: str | None = None) -> Any:
    """One :class:`Annotations` from the long tables ``paths`` (formats ``fmts``, named ``names`` in messages),
    each read by ``read`` (:func:`~softirr_stats.data.read_table`, passed in by the caller). A table without a
    rater column is one rater's, named by ``stems`` (default the files' stems); ``unit`` is what a table is
    called in messages (``"sheet"`` for the sheets of one workbook). ``label_sep``: every label cell lists a
    rating's terms, read as a set label (CSV / TSV tables and workbooks only).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from softirr_stats.data import Annotations, read_table
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "alice.csv").write_text("item,label\\n1,yes\\n2,no\\n")
    >>> _ = (folder / "bob.csv").write_text("item,label\\n1,yes\\n2,yes\\n")
    >>> paths = [folder / "alice.csv", folder / "bob.csv"]
    >>> ann = read_table_list(Annotations, read_table, paths, ["csv", "csv"], ["alice.csv", "bob.csv"],
    ...                       rater_from="export",
    ...                       item="item", rater="rater", label="label", categories=None, na_values=None,
    ...                       normalize=None, encoding="utf-8", sep=None, decimal=".")
    >>> ann.raters, ann.codes.tolist()
    (('alice', 'bob'), [[1, 1], [0, 1]])
    """
    import pandas as pd

    from softirr_stats.data._cells import (
        check_label_cells,
        check_label_sep,
        numeric_labels,
        set_cells,
    )

    stems = list(stems) if stems is not None else [p.stem for p in paths]
    for name, fmt in zip(names, fmts, strict=True):
        try:
            check_label_sep(label_sep, fmt)
        except ValueError as err:
            raise ValueError(f"{name}: {err}") from None
    frames, named_by_file, file_notes, indexes = [], [], [], []
    for k, (path, fmt, name) in enumerate(zip(paths, fmts, names, strict=True)):
        df = read(path, format=fmt, na_values=na_values, encoding=encoding,
                  **({"sep": sep} if sep is not None and fmt in ("csv", "tsv") else {}),
                  **({"quoting": quoting} if quoting != "csv" else {}),
                  **({"sheet": sheet} if sheet is not None and fmt == "xlsx" else {}))
        file_notes.extend(df.attrs.get("read_notes", ()))  # a workbook's sheet
        missing = [(role, col) for role, col in (("item", item), ("label", label)) if col not in df.columns]
        if missing:
            raise ValueError(missing_columns_message(name, df.columns, missing, fmt,
                                                     _per_file_hint(df.columns, missing, item, rater, label, unit)))
        check_label_cells(df, path, fmt, label, shown=name)
        by_file = rater_from == "file" or rater not in df.columns
        stem = stems[k]
        if by_file and stems.count(stem) > 1:
            raise ValueError(f"{name}: its rater is named after the {unit}, and {stems.count(stem)} {unit}s are named "
                             f"{stem!r}: rename them after their annotators")
        if by_file and rater in df.columns:
            present = df[rater].dropna().unique()
            if len(present) > 1:
                raise ValueError(f"{name}: rater_from='file' names each {unit}'s one rater after the {unit}, but this "
                                 f"{unit} has {len(present)} raters {list(map(str, present[:5]))}")
        part = pd.DataFrame({"item": df[item].astype(object),
                             "rater": stem if by_file else df[rater].astype(object),
                             "label": df[label].astype(object), "_file": k, "_text": fmt in TEXT_TABLES,
                             "_row": np.arange(len(df))})
        frames.append(part)
        indexes.append(df.index)
        named_by_file.append(by_file)
    table = pd.concat(frames, ignore_index=True)
    if table["_text"].any() and not table["_text"].all():  # a CSV's '1' and a JSON file's 1 are one item
        typed = ~table["_text"].to_numpy()
        for col in ("item", "rater", "label"):
            table.loc[typed, col] = as_text(table.loc[typed, col])
        table["_text"] = True
    if label_sep is not None:  # every file's cells list terms: set labels
        table["label"] = set_cells(table["label"], label_sep)
    elif table["_text"].all():  # numbers by the one rule, decided over every file's labels at once
        table["label"] = numeric_labels(table["label"], decimal)
    clash = table.duplicated(["item", "rater"], keep=False) & table["item"].notna() & table["rater"].notna()
    if clash.any():
        first = table.loc[clash].iloc[0]
        rows = table.loc[clash & (table["item"] == first["item"]) & (table["rater"] == first["rater"])]
        files = list(dict.fromkeys(rows["_file"].tolist()))

        def at(k: int) -> str:  # the clashing rows of file k, by their lines (sheet rows) in it
            return f"{names[k]} ({_rows_in(paths[k], fmts[k], indexes[k], rows.loc[rows['_file'] == k, '_row'])})"

        where = f"in {at(files[0])} and in {at(files[1])}" if len(files) > 1 else f"twice in {at(files[0])}"
        raise ValueError(f"rater {first['rater']!r} rates item {first['item']!r} {where} "
                         f"({int(table.duplicated(['item', 'rater']).sum())} repeated ratings in all); one rating per "
                         "item and rater is expected")
    ann = cls.from_long(table.drop(columns=["_file", "_text", "_row"]), item="item", rater="rater", label="label",
                        categories=categories, **({} if normalize is None else {"normalize": normalize}))
    how = [f"{n} ({f'rater named after the {unit}' if f else 'raters from column ' + repr(rater)})"
           for n, f in zip(names, named_by_file, strict=True)]
    note = (f"merged {len(paths)} {'tables' if unit == 'file' else unit + 's'}: {', '.join(how[:10])}" + (f" and {len(how) - 10} more" if len(how) > 10
                                                                     else "") + f"; raters {list(ann.raters)[:20]}")
    ann._cache[LAYOUT_NOTE] = ann._cache["read_notes"] = (*file_notes, note)
    return ann


def _per_file_hint(columns: Any, missing: Sequence[tuple[str, str]], item: str, rater: str, label: str,
                   unit: str) -> str:
    """For a table of the list without the item or label column: the ``item=`` / ``label=`` that read it as one
    annotator's table (the rater named after the file), from the columns' names (``doc``, ``label`` ...) and places
    (the first column the items, the one other the labels); '' where a rater column is found (a long table with other
    column names: :func:`~softirr_stats.data._wide.missing_columns_message` says so).

    Examples
    --------
    >>> _per_file_hint(["doc", "finding"], [("item", "item"), ("label", "label")], "item", "rater", "label", "file")
    ": one annotator's table per file? pass item='doc', label='finding' (each file's rater is named after the file)"
    """
    from softirr_stats.data._cells import ITEM_NAMES, LABEL_NAMES, guess_roles

    cols = [str(c) for c in columns]
    named = {c.strip().casefold(): c for c in reversed(cols)}
    for role, col in missing:  # a name given that this table writes otherwise ('Finding' for label='finding')
        if col != {"item": "item", "label": "label"}[role] and col.strip().casefold() in named:
            return (f": rename {named[col.strip().casefold()]!r} to {col!r} in this {unit}'s header, so that every "
                    f"{unit} names the {role} column one way ({role}= names it)")
    if len(cols) < 2 or rater in cols or guess_roles(cols):
        return ""
    found = {"item": item if item in cols else next((named[n] for n in ITEM_NAMES if n in named), cols[0])}
    rest = [c for c in cols if c != found["item"]]
    by_name = next((named[n] for n in LABEL_NAMES if n in named and named[n] != found["item"]), None)
    found["label"] = label if label in cols else by_name or (rest[0] if len(rest) == 1 else None)
    roles = [role for role, _ in missing]
    given = [f"{role}={found[role]!r}" for role in roles if found[role] is not None]
    asked = [f"{role}= naming the {role} column" for role in roles if found[role] is None]
    if not given:
        return ""
    return (f": one annotator's table per {unit}? pass {', '.join(given)}" + (f" and {asked[0]}" if asked else "")
            + f" (each {unit}'s rater is named after the {unit})")


def as_text(col: Any) -> Any:
    """The values of a typed table's column (JSON, Parquet) as a text table (CSV) would give them.

    Whole numbers print without a decimal part (``1`` and ``1.0`` give ``'1'``, as a CSV writes the id),
    other numbers by their shortest repr, texts stay, missing values stay missing, and lists or dicts
    (set labels, structured answers) are kept as they are. Decided on the distinct values (one factorize).

    Examples
    --------
    >>> import pandas as pd
    >>> as_text(pd.Series([1, 2.0, 0.5, "x", None, True, float("nan")], dtype=object)).tolist()
    ['1', '2', '0.5', 'x', None, 'True', nan]
    """
    import numbers

    import pandas as pd

    def text(v: Any) -> Any:
        if isinstance(v, str | bool | np.bool_):
            return str(v)
        if isinstance(v, numbers.Integral):
            return str(int(v))
        if isinstance(v, numbers.Real):
            f = float(v)
            if f != f:  # NaN: missing
                return v
            return str(int(f)) if f.is_integer() and abs(f) < 2**53 else repr(f)
        return v

    values = col.to_numpy(dtype=object)
    kind = pd.api.types.infer_dtype(values, skipna=True)
    if kind in ("string", "empty"):
        return col
    if kind in ("integer", "floating", "mixed-integer-float", "decimal", "boolean"):  # one factorize
        codes, uniq = pd.factorize(pd.Series(values, dtype=object), use_na_sentinel=True)
        out = np.array([text(v) for v in uniq] + [None], dtype=object)[codes]
        out[codes < 0] = values[codes < 0]  # missing stays missing
    else:  # mixed kinds (True and 1 are one key to a factorize), lists: each cell on its own
        out = np.array([text(v) for v in values] + [None], dtype=object)[:-1]
    return pd.Series(out, index=col.index, name=col.name, dtype=object)


def _rows_in(path: Path, fmt: str, index: Any, positions: Any) -> str:
    """Rows at 0-based ``positions`` of the table read from ``path``, named by their lines in the file (a sheet's
    rows for a workbook: the table's index holds them); read on the error path only."""
    from softirr_stats.base._validation import file_row_index, rows_named

    if getattr(index, "name", None) is None:
        index = file_row_index(path, fmt, len(index))
    return rows_named(index, list(positions))
