"""Long tables at scale: columns encoded with hash tables (pandas / Arrow), never cell by cell.

A long table of ``n`` rows (item, rater, label) becomes :class:`Annotations` in a few passes
over whole columns: item and rater identifiers are factorised (``pandas.factorize`` or Arrow's
dictionary encoding) and their distinct values sorted; labels are factorised and only their
distinct values go through the label rules of :meth:`Annotations._from_cells` (kinds, numbers,
``normalize=``, ``categories=``); the codes matrix is filled by one flat-index assignment.

Both entry points give exactly what the cell-by-cell path gives (same items, raters, vocabulary
and codes; pinned by ``tests/data/test_columnar_reading.py``), and return ``None`` whenever an input
falls outside what they handle (mixed-type identifiers, set-valued labels, a file Arrow parses
differently or refuses, missing identifiers, ...): the caller then takes that path, so every
error and warning it gives is kept.

- :func:`frame_annotations`: ``Annotations.from_long`` on a DataFrame.
- :func:`read_long`: ``read_annotations`` on a CSV / TSV / JSON Lines / Parquet file, through
  pyarrow's readers when pyarrow is installed (CSV streamed in blocks from an Arrow file object,
  closed on every way out, with a progress bar over the bytes on a terminal for inputs over
  ``_input.BIG_INPUT`` bytes).
"""

from __future__ import annotations

import codecs
import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from softirr_stats.base._bars import bars_wanted, progress_bar
from softirr_stats.data._labels import check_names

if TYPE_CHECKING:
    import pandas as pd

    from softirr_stats.data._annotations import Annotations

__all__ = ["frame_annotations", "have_arrow", "read_long"]

#: CSV block size of the streaming Arrow reader (bytes); one block is parsed and encoded at a time
BLOCK_BYTES = 1 << 24
#: JSON Lines block size of Arrow's parser (bytes); blocks are parsed in parallel
JSON_BLOCK_BYTES = 1 << 22


def have_arrow() -> bool:
    """Whether pyarrow can be imported (the ``parquet`` extra); tests patch this to take the pandas route."""
    try:
        import pyarrow  # noqa: F401
        import pyarrow.compute  # noqa: F401
    except ImportError:
        return False
    return True


# ---------------------------------------------------------------------------------------- assembling
def _dense_rank(order: np.ndarray) -> np.ndarray:
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order), dtype=np.int64)
    return rank


def flat_key(ic: np.ndarray, rc: np.ndarray, n_items: int, n_raters: int) -> np.ndarray:
    """Each row's cell ``item * n_raters + rater`` in the (items x raters) matrix (int32 where it fits)."""
    idx = np.int32 if n_items * n_raters < 2**31 else np.int64
    key = ic.astype(idx)
    key *= idx(n_raters)
    key += rc.astype(idx, copy=False)
    return key


def _duplicate_message(key: np.ndarray, items: list, raters: list, index: Any = None,
                       labels: Any = None) -> str:
    """The message of ``from_long`` for duplicate (item, rater) rows, from the flat keys (error path only);
    ``index`` names the rows (``base._validation.rows_named``; default: their 0-based positions); ``labels`` (each
    row's label), where the first pair's labels differ, add how one row per term is read as a set label."""
    import pandas as pd

    from softirr_stats.base._validation import rows_named
    from softirr_stats.data._cells import term_rows_hint

    counts = np.bincount(key)
    dup_rows = np.flatnonzero(counts[key] > 1)
    _, first = np.unique(key[dup_rows], return_index=True)
    rows = dup_rows[np.sort(first)[:10]]
    n_raters = len(raters)
    listed = ", ".join(f"({items[key[k] // n_raters]!r}, {raters[key[k] % n_raters]!r})" for k in rows)
    where = rows_named(pd.RangeIndex(len(key)) if index is None else index, np.flatnonzero(key == key[rows[0]]))
    first = f"({items[key[rows[0]] // n_raters]!r}, {raters[key[rows[0]] % n_raters]!r})"
    pair = np.flatnonzero(key == key[rows[0]])
    hint = term_rows_hint([labels[k] for k in pair.tolist()]) if labels is not None else ""
    return (f"duplicate (item, rater) rows: {len(dup_rows)} rows share an (item, rater) pair; "
            f"first ones: {listed}; rows of {first}: {where}{hint}")


def assemble(cls: type[Annotations], key: np.ndarray, items: list, raters: list, lc: np.ndarray,
             label_uniques: np.ndarray, categories: Any, normalize: str | None, index: Any = None) -> Annotations:
    """Annotations from factorised columns.

    ``key``: each row's cell (:func:`flat_key` of its positions in ``items`` and ``raters``, which
    are in their final order); ``lc``: the row's position in ``label_uniques`` (the distinct present
    labels in order of first appearance, an object array), ``-1`` for a missing label. The checks
    run in the order of ``from_long``: duplicate (item, rater) rows, then the label rules on the
    distinct labels. ``index`` names the rows in the duplicate error (a callable giving the index, called on
    that error path only).
    """
    n_items, n_raters = len(items), len(raters)
    seen = np.zeros(n_items * n_raters, dtype=bool)
    seen[key] = True
    if np.count_nonzero(seen) != len(key):  # two rows on one cell
        shown = np.append(np.asarray(label_uniques, dtype=object), None)[lc]  # -1 (missing) -> None; error path only
        raise ValueError(_duplicate_message(key, items, raters, None if index is None else index(), shown))
    del seen
    check_names(items, "item ids")  # ids that print alike ("1" and "1 "): kept apart, counted
    check_names(raters, "rater names")
    if len(label_uniques) == 0:  # the message of the cell path: every label is missing
        label_uniques = np.array([None], dtype=object)
    # the label rules (kinds, numbers, normalize=, categories=) on the distinct labels only
    probe = cls._from_cells(np.arange(len(label_uniques)), np.zeros(len(label_uniques), dtype=np.int64),
                            label_uniques, range(len(label_uniques)), (0, 1), categories, normalize=normalize)
    code_of = np.append(probe.codes[:, 0], np.int32(-1))  # lc == -1 (missing) -> -1
    codes = np.full(n_items * n_raters, -1, dtype=np.int32)
    codes[key] = code_of[lc]
    return cls(codes.reshape(n_items, n_raters), probe.vocabulary, items=items, raters=raters, kind=probe.kind,
               categories=probe.categories)._without_unrated_raters()  # a rater whose every label is missing: named


# ---------------------------------------------------------------------------------------- pandas columns
def _is_text_column(col: pd.Series, *, skipna: bool) -> bool:
    import pandas as pd

    if isinstance(col.dtype, pd.StringDtype):
        return True
    return col.dtype == object and pd.api.types.infer_dtype(col, skipna=skipna) == "string"


def _frame_ids(col: pd.Series) -> tuple[np.ndarray, list] | None:
    """Codes into the sorted distinct identifiers (numbers by value, text by :func:`id_order`), or None."""
    import pandas as pd

    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iu":
        codes, uniq = pd.factorize(col.to_numpy())
        order = np.argsort(uniq, kind="stable")
    elif _is_text_column(col, skipna=False):
        codes, uniq = pd.factorize(col)
        uniq = np.asarray(uniq, dtype=object)
        order = id_order(uniq)
    else:
        return None
    return _dense_rank(order)[codes], uniq[order].tolist()


#: Distinct labels from which Arrow's sort pays for loading pyarrow (and the pandas that ``pa.array`` loads,
#: about 0.9 s together in a fresh process) when neither is loaded yet: NumPy's argsort of 2,000 strings takes
#: 1 ms, of 300,000 about 1 s (Arrow 0.2 s once loaded).
ARROW_SORT_MIN_COLD = 200_000
#: The same once pyarrow and pandas are loaded (a table read by Arrow or pandas).
ARROW_SORT_MIN_WARM = 1000


def _text_order(uniq: np.ndarray) -> np.ndarray:
    """argsort of distinct Python strings in code-point order (``sorted``); Arrow's byte order when it pays."""
    warm = "pyarrow.compute" in sys.modules and "pandas" in sys.modules
    if len(uniq) > (ARROW_SORT_MIN_WARM if warm else ARROW_SORT_MIN_COLD) and have_arrow():
        import pyarrow as pa
        import pyarrow.compute as pc

        try:  # UTF-8 byte order is code-point order
            return pc.array_sort_indices(pa.array(uniq, type=pa.string())).to_numpy()
        except (pa.ArrowException, UnicodeEncodeError):  # lone surrogates: no UTF-8
            pass
    return np.argsort(uniq, kind="stable")


def id_order(uniq: np.ndarray) -> np.ndarray:
    """argsort of distinct text identifiers (items, raters) in one natural order: ids of ASCII digits only first,
    by their value (``"2"`` before ``"10"``; ``"007"`` and ``"7"`` are two ids, tied by value and ordered by their
    text), then every other id in code-point order (``sorted``).

    Integer ids sort by value, so a file read with its ids as text (``read_annotations``, the command line) and as
    integers (``pandas.read_csv`` then ``from_long``) orders its items alike, and a bootstrap draws the same weights
    for the same item with the same seed.

    Examples
    --------
    >>> ids = np.array(["10", "2", "b", "007", "a", "7", "1"], dtype=object)
    >>> ids[id_order(ids)].tolist()
    ['1', '2', '007', '7', '10', 'a', 'b']
    """
    text = np.asarray(uniq, dtype=object)
    base = _text_order(text)
    if len(text) == 0:
        return base
    u = text.astype(str)
    digits = (np.char.str_len(np.char.strip(u, "0123456789")) == 0) & (np.char.str_len(u) > 0)
    if not digits.any():
        return base
    rank = np.empty(len(text), dtype=np.int64)
    rank[base] = np.arange(len(text))  # the code-point order, the last key
    value = np.char.lstrip(u[digits], "0")
    length, by_value = np.zeros(len(text), np.int64), np.zeros(len(text), np.int64)
    length[digits] = np.char.str_len(value)  # without leading zeros, a longer digit string is a larger number
    by_value[digits] = np.unique(value, return_inverse=True)[1].ravel()  # and equal lengths compare as text
    return np.lexsort((rank, by_value, length, ~digits))


def _frame_labels(col: pd.Series) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes into the distinct labels in order of first appearance (-1 missing), or None."""
    import pandas as pd

    if isinstance(col.dtype, np.dtype) and col.dtype.kind in "iufb":
        codes, uniq = pd.factorize(col.to_numpy())
        return np.asarray(codes, dtype=np.int64), uniq.astype(object)
    if isinstance(col.dtype, pd.StringDtype):
        codes, uniq = pd.factorize(col)
        return np.asarray(codes, dtype=np.int64), np.asarray(uniq, dtype=object)
    if col.dtype == object and pd.api.types.infer_dtype(col, skipna=True) in _ONE_KIND:
        # pandas' object hash table, as the cell path's factorize (booleans never meet numbers here)
        codes, uniq = pd.factorize(col.to_numpy(dtype=object))
        return np.asarray(codes, dtype=np.int64), np.asarray(uniq, dtype=object)
    return None


#: object columns whose labels are all of one kind (pandas.api.types.infer_dtype, missing values skipped)
_ONE_KIND = ("string", "integer", "floating", "mixed-integer-float", "boolean")


def frame_annotations(cls: type[Annotations], df: pd.DataFrame, item: str, rater: str, label: str,
                      categories: Any, normalize: str | None) -> Annotations | None:
    """``from_long`` by whole columns, after its column / empty / missing-identifier checks; None: not handled.

    Handled: integer or text identifiers; numeric, boolean or text labels (with missing values).
    Duplicate (item, rater) rows give None, so that ``from_long`` raises its own message.
    """
    ids = _frame_ids(df[item]), _frame_ids(df[rater])
    if ids[0] is None or ids[1] is None:
        return None
    labels = _frame_labels(df[label])
    if labels is None:
        return None
    (ic, items), (rc, raters) = ids
    try:
        return assemble(cls, flat_key(ic, rc, len(items), len(raters)), items, raters, labels[0], labels[1],
                        categories, normalize)
    except ValueError as err:
        if str(err).startswith("duplicate (item, rater) rows"):
            return None
        raise


# ---------------------------------------------------------------------------------------- Arrow columns
class _Fallback(Exception):
    """The Arrow route does not handle this input: read it the pandas way."""


def _is_text_type(typ: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_string(typ) or pa.types.is_large_string(typ)


class _Column:
    """One column encoded batch by batch: each batch's dictionary encoding, unified at the end.

    Only the int32 indices and the small per-batch dictionaries are kept, never the batch's text.
    """

    def __init__(self, role: str) -> None:
        self.role, self.parts, self.nulls, self.length = role, [], 0, 0

    def add(self, arr: Any, *, encoded: bool = False) -> None:
        """Append a batch's column; ``encoded``: it is a dictionary array the reader built from the cells
        (each entry used, in order of first appearance), kept as it is."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if pa.types.is_dictionary(arr.type) and not encoded:  # e.g. categories of which some are unused
            arr = arr.dictionary_decode()
        typ = arr.type.value_type if encoded else arr.type
        if self.role == "id":
            if arr.null_count:
                raise _Fallback("missing identifiers")
            if not (_is_text_type(typ) or pa.types.is_integer(typ)):
                raise _Fallback(f"identifiers of type {typ}")  # floats (0.0 == -0.0), dates, ...: the cell path
        elif pa.types.is_floating(typ):
            if pc.any(pc.is_nan(arr)).as_py():
                raise _Fallback("NaN labels")
        elif not (_is_text_type(typ) or pa.types.is_integer(typ) or pa.types.is_boolean(typ)):
            raise _Fallback(f"labels of type {typ}")  # lists (set labels), dates, ...: the cell path
        self.nulls += arr.null_count
        self.length += len(arr)
        self.parts.append(arr if encoded else arr.dictionary_encode())

    def unify(self) -> tuple[Any, np.ndarray]:
        """(dictionary in order of first appearance, int32 codes with -1 for a null)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        encoded = pa.chunked_array(self.parts, type=self.parts[0].type).unify_dictionaries()
        self.parts = []
        codes = np.empty(self.length, dtype=np.int32)
        at = 0
        for c in encoded.chunks:
            codes[at:at + len(c)] = pc.fill_null(c.indices, -1).to_numpy(zero_copy_only=False)
            at += len(c)
        dictionary = encoded.chunks[0].dictionary
        del encoded, c
        pa.default_memory_pool().release_unused()  # the batches' indices, freed: back to the system
        return dictionary, codes


def _na_entries(dictionary: Any, na_values: list[str]) -> np.ndarray | None:
    """Which dictionary entries are text listed in ``na_values`` (JSON Lines / Parquet), or None."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if not na_values or not _is_text_type(dictionary.type):
        return None
    bad = pc.is_in(dictionary, value_set=pa.array(na_values, type=dictionary.type)).to_numpy(zero_copy_only=False)
    return bad if bad.any() else None


def _ids(col: _Column, na_values: list[str]) -> tuple[np.ndarray, list]:
    """Codes into the sorted distinct identifiers (text by :func:`id_order`), and those identifiers as Python
    objects."""
    import pyarrow as pa
    import pyarrow.compute as pc

    dictionary, codes = col.unify()
    if _na_entries(dictionary, na_values) is not None:
        raise _Fallback("missing identifiers")
    if _is_text_type(dictionary.type):  # the identifiers' one natural order (digit ids by value)
        order = id_order(np.asarray(dictionary.to_pylist(), dtype=object))
    else:
        order = pc.array_sort_indices(dictionary).to_numpy()
    rank = np.empty(len(order), dtype=np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    return rank[codes], dictionary.take(pa.array(order)).to_pylist()


def _labels(col: _Column, na_values: list[str], pandas_nulls: bool) -> tuple[np.ndarray, np.ndarray]:
    """Codes into the distinct labels (first appearance; -1 missing) and those labels as Python objects.

    ``pandas_nulls``: integers with missing values become floats, as in a DataFrame (what the
    cell path reads).
    """
    import pyarrow as pa

    dictionary, codes = col.unify()
    bad = _na_entries(dictionary, na_values)
    if bad is not None:  # those labels are missing: renumber the others
        renumber = np.append(np.where(bad, -1, np.cumsum(~bad) - 1), -1).astype(np.int32)
        codes = renumber[codes]
        dictionary = dictionary.filter(pa.array(~bad))
    if pandas_nulls and pa.types.is_integer(dictionary.type) and (col.nulls or bad is not None):
        dictionary = dictionary.cast(pa.float64())
    return codes, np.asarray(dictionary.to_pylist() + [None], dtype=object)[:-1]


def _utf8(encoding: str) -> bool:
    try:
        return codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return False


def _byte_bar(nbytes: int, desc: str) -> Any:
    """A tqdm bar over the bytes of the input (on a terminal, for inputs over ``BIG_INPUT``), or None."""
    from softirr_stats.data import _input

    if nbytes <= _input.BIG_INPUT or not bars_wanted():
        return None
    return progress_bar(nbytes, desc, unit="B", unit_scale=True)


def _count_quotes(path: Path) -> tuple[int, int]:
    """The numbers of ``"`` bytes and of lines in a file (one pass in blocks, C-level counting)."""
    n = lines = 0
    last = b""
    with path.open("rb") as fh:
        while block := fh.read(BLOCK_BYTES):
            n += block.count(b'"')
            lines += block.count(b"\n")
            last = block[-1:]
    return n, lines + (last not in (b"", b"\n"))


def _csv_columns(path: Path, sep: str, columns: tuple[str, str, str], na_values: list[str],
                 quoting: str = "csv") -> dict[str, _Column]:
    """The three columns of a CSV / TSV, parsed as text and encoded one block at a time.

    A file with quotes where some record runs over several lines (a quoted field holding a line break) is left to
    the pandas route, which checks every column for a field that took in what look like rows.
    """
    import csv

    import pyarrow as pa
    import pyarrow.csv as pacsv

    from softirr_stats.data._cells import check_header, quote_mode

    check_header(path, sep, "utf-8", quoting)  # a column named twice: the pandas route's error
    with path.open(encoding="utf-8", newline="") as fh:
        header = next(csv.reader(fh, delimiter=sep, quoting=quote_mode(quoting)), [])
    if header:
        header[0] = header[0].lstrip("\ufeff")
    if not set(columns) <= set(header):
        raise _Fallback("a column is not in the header")
    size = path.stat().st_size
    opts = dict(
        read_options=pacsv.ReadOptions(block_size=BLOCK_BYTES, use_threads=False),
        parse_options=pacsv.ParseOptions(delimiter=sep, newlines_in_values=True,
                                         quote_char='"' if quoting == "csv" else False),
        convert_options=pacsv.ConvertOptions(
            # text cells, dictionary-encoded as they are parsed (a third less work than encoding the text after)
            column_types={c: pa.dictionary(pa.int32(), pa.string()) for c in columns}, include_columns=list(columns),
            strings_can_be_null=True, quoted_strings_can_be_null=True, null_values=["", *na_values]))
    cols = {c: _Column("label" if c == columns[2] else "id") for c in columns}
    bar = _byte_bar(size, f"reading {path.name}")
    try:
        # Arrow reads its own file object: no Python object is ever held by Arrow's I/O threads, whose
        # last reference dropped during interpreter shutdown aborted the process (rc 134); the reader is
        # closed here, on every way out, before anything can raise past this function
        with pa.OSFile(str(path), "rb") as src:
            reader = pacsv.open_csv(src, **opts)
            try:
                done = 0
                for batch in reader:
                    for c, col in cols.items():
                        col.add(batch.column(c), encoded=True)
                    if bar is not None:  # one block of input per batch
                        step = min(BLOCK_BYTES, size - done)
                        bar.update(step)
                        done += step
            finally:
                reader.close()
                del reader
    except (pa.ArrowException, UnicodeDecodeError, StopIteration, OSError) as err:
        raise _Fallback(str(err)) from None
    finally:
        if bar is not None:
            bar.close()
    if quoting == "none":
        return cols
    quotes, lines = _count_quotes(path)
    if quotes % 2:  # Arrow ends an unclosed quoted field at the end of the file; pandas refuses it
        raise _Fallback("an odd number of quotes")
    if quotes and cols[columns[0]].length + 1 < lines:  # a record over several lines (or blank lines): a quoted
        raise _Fallback("a quoted field holds a line break")  # field may have swallowed rows; pandas checks it
    return cols


def _jsonl_lines(path: Path) -> int:
    """Lines holding something, when no line is blank (a count of newlines)."""
    lines, last = 0, b""
    with path.open("rb") as fh:
        while block := fh.read(BLOCK_BYTES):
            lines += block.count(b"\n")
            last = block
    if last and not last.endswith(b"\n") and last.rsplit(b"\n", 1)[-1].strip():
        lines += 1
    return lines


#: Bytes at the head of a JSON Lines file whose inferred column types fix the text columns
_HEAD_BYTES = 1 << 20


def _text_schema(path: Path, columns: tuple[str, str, str]) -> Any:
    """The schema of those of ``columns`` that the file's first lines hold as text, or None.

    Inferring types is the costliest part of Arrow's JSON parser; a column that starts as text
    stays text (a later number, boolean, list or object is refused with or without the schema,
    and the route falls back), so declaring it changes nothing but the time.
    """
    import pyarrow as pa
    import pyarrow.json as pajson

    with path.open("rb") as fh:
        head = fh.read(_HEAD_BYTES)
    head = head[: head.rfind(b"\n") + 1]
    if not head:
        return None
    try:
        inferred = pajson.read_json(io.BytesIO(head), read_options=pajson.ReadOptions(use_threads=False)).schema
    except (pa.ArrowException, UnicodeDecodeError):
        return None  # the whole read below says why
    fields = [f for f in inferred if f.name in columns and _is_text_type(f.type)]
    return pa.schema(fields) if fields else None


def _jsonl_table(path: Path, columns: tuple[str, str, str]) -> Any:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.json as pajson

    from softirr_stats.data._input import parsing

    with path.open("rb") as fh:
        if fh.read(2) == b"\x1f\x8b":
            raise _Fallback("gzip")
    lines = _jsonl_lines(path)
    try:
        parse = pajson.ParseOptions(explicit_schema=_text_schema(path, columns))
        with parsing(path.stat().st_size, f"parsing {path.name}"):
            # threads: Arrow parses blocks in parallel, keeping the rows' order
            read = pajson.ReadOptions(block_size=JSON_BLOCK_BYTES, use_threads=True)
            with pa.OSFile(str(path), "rb") as src:  # not the path: Arrow would unpack a name ending .gz as gzip
                table = pajson.read_json(src, read_options=read, parse_options=parse)
    except (pa.ArrowException, UnicodeDecodeError) as err:
        raise _Fallback(str(err)) from None
    if table.num_rows != lines:  # blank lines, two objects on a line
        raise _Fallback("lines")
    for name, col in zip(table.column_names, table.columns, strict=True):
        typ = col.type
        if pa.types.is_floating(typ):  # 1e999 / integers beyond the float range / NaN: the cell path's messages
            finite = pc.all(pc.is_finite(col)).as_py()
            big = pc.max(pc.abs(col)).as_py() if col.length() - col.null_count else 0.0
            if finite is False or (name in columns and big is not None and big >= 2.0**63):
                raise _Fallback("non-finite or overflowing numbers")
            if name == columns[2] and big is not None and big >= 2.0**53:
                raise _Fallback("integers beyond 2**53 next to floats")  # Arrow made them float64: kept exact there
        elif not (pa.types.is_primitive(typ) or pa.types.is_string(typ) or pa.types.is_null(typ)):
            raise _Fallback(f"column {name!r} of type {typ}")
    return table


def _parquet_batches(path: Path, columns: tuple[str, str, str]) -> tuple[Any, int, bool]:
    """Record batches of the three columns of a Parquet file, its row count, and whether integer labels
    with missing values stay integers.

    ``pandas.read_parquet`` gives a nullable integer column where the file's pandas metadata says
    so, else floats (NaN for the missing values): the route keeps to what it gives.
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        schema = pf.schema_arrow
    except pa.ArrowException as err:
        raise _Fallback(str(err)) from None
    if not set(columns) <= set(schema.names):
        raise _Fallback("a column is not in the file")
    meta = {c.get("name"): c for c in (schema.pandas_metadata or {}).get("columns", [])}
    nullable = str(meta.get(columns[2], {}).get("numpy_type", "")).startswith(("Int", "UInt"))
    return pf.iter_batches(batch_size=1 << 20, columns=list(columns)), pf.metadata.num_rows, nullable


def read_long(cls: type[Annotations], path: Path, fmt: str, *, item: str, rater: str, label: str,
              na_values: list[str], encoding: str, categories: Any, normalize: str | None,
              sep: str | None = None, decimal: str = ".", quoting: str = "csv") -> Annotations | None:
    """``read_annotations`` of a long table by whole columns through pyarrow; None: read it the pandas way.

    CSV / TSV cells are text and only empty cells (and ``na_values``) are missing; a label column
    is numeric by the rule of ``_labels.text_numbers`` (as the pandas route). JSON Lines and Parquet keep
    their types; ``na_values`` there marks text cells equal to one of them as missing.
    """
    columns = (item, rater, label)
    if (not have_arrow() or not _utf8(encoding) or fmt not in ("csv", "tsv", "jsonl", "parquet")
            or len(set(columns)) < 3):
        return None
    import pyarrow as pa

    nullable_ints = False
    try:
        if fmt in ("csv", "tsv", "jsonl"):
            with path.open("rb") as fh:
                if fh.read(2) == b"\x1f\x8b":  # gzip: the pandas route decompresses it
                    return None
        if fmt in ("csv", "tsv"):
            cols = _csv_columns(path, sep or ("," if fmt == "csv" else "\t"), columns, na_values, quoting)
        else:
            if fmt == "jsonl":
                table = _jsonl_table(path, columns)
                if not set(columns) <= set(table.column_names):
                    return None
                batches, n_rows, bar = table.select(list(columns)).to_batches(), table.num_rows, None
                del table
            else:
                batches, n_rows, nullable_ints = _parquet_batches(path, columns)
                bar = _row_bar(n_rows, path)
            cols = {c: _Column("label" if c == label else "id") for c in columns}
            try:
                for batch in batches:
                    for c, col in cols.items():
                        col.add(batch.column(c))
                    if bar is not None:
                        bar.update(batch.num_rows)
            except pa.ArrowException as err:
                raise _Fallback(str(err)) from None
            finally:
                if bar is not None:
                    bar.close()
        if cols[item].length == 0:
            return None
        ic, items = _ids(cols[item], na_values if fmt not in ("csv", "tsv") else [])
        rc, raters = _ids(cols[rater], na_values if fmt not in ("csv", "tsv") else [])
        lc, uniques = _labels(cols[label], na_values if fmt not in ("csv", "tsv") else [],
                              pandas_nulls=fmt not in ("csv", "tsv") and not nullable_ints)
    except _Fallback:
        return None
    del cols
    key = flat_key(ic, rc, len(items), len(raters))
    del ic, rc
    pa.default_memory_pool().release_unused()  # the batches' indices, freed: back to the system
    if fmt in ("csv", "tsv") and len(uniques):
        import pandas as pd

        from softirr_stats.data._cells import numeric_labels

        # numbers by the one rule, decided on the distinct labels (the same set as the cells')
        uniques = np.asarray(numeric_labels(pd.Series(uniques, dtype=object), decimal).to_numpy(dtype=object),
                             dtype=object)
    from softirr_stats.base._validation import file_row_index

    return assemble(cls, key, items, raters, lc, uniques, categories, normalize,
                    index=lambda: file_row_index(path, fmt, len(key)))


def _row_bar(n_rows: int, path: Path) -> Any:
    """A tqdm bar over the rows of a Parquet file (on a terminal, for files over ``BIG_INPUT`` bytes), or None."""
    from softirr_stats.data import _input

    if path.stat().st_size <= _input.BIG_INPUT or not bars_wanted():
        return None
    return progress_bar(n_rows, f"reading {path.name}", unit=" rows", unit_scale=True)
