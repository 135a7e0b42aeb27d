"""Excel workbooks (``.xlsx``, ``.xlsm``): one sheet read as a table of text cells, by the rules of a CSV file.

Researchers keep ratings in spreadsheets; reading the workbook spares the "save as CSV" step and its
pitfalls (a locale's ``;`` and decimal comma, an encoding). Every cell becomes the text of its stored
value (``3`` for the integer 3, ``3.5``, ``TRUE``, ``2024-05-01`` for a date), so the long and wide
readers decide numbers by the one rule they use for CSV. Number formats are not applied, as they are
in a CSV saved by Excel: a cell shown as ``3.0`` or ``50%`` is read as ``3`` or ``0.5``. The sheet is read with
openpyxl in read-only mode (the ``excel`` extra; with defusedxml, which it uses, XML entities are
refused), after the archive's declared unpacked size is checked against the unpack cap (a zip bomb
is refused before any XML is parsed). Formulas are read as the values Excel saved with them; a cell
holding an Excel error (``#N/A``, ``#DIV/0!``) is a missing rating, and a note says how many.
"""

import datetime as _dt
import math
import numbers
import re
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["WORKBOOK_SUFFIXES", "SheetShapeError", "read_xlsx", "sheet_hint", "sheet_titles", "sheets_lacking"]

#: the extensions read as workbooks (``.xls``, ``.ods`` and ``.numbers`` are not: save them as ``.xlsx`` or CSV)
WORKBOOK_SUFFIXES = (".xlsx", ".xlsm")

_INSTALL = "pip install 'softirr-stats[excel]' (openpyxl)"
#: the first bytes of an OLE compound file (an encrypted .xlsx, an .xls)
_OLE_MAGIC = bytes.fromhex("d0cf11e0a1b11ae1")


class SheetShapeError(ValueError):
    """A sheet that is no table (empty, values right of its header, a column named twice); ``sheet`` is its title.

    The caller that knows the columns it needs adds where they are (:func:`sheet_hint`) when the sheet was the
    default one.
    """

    def __init__(self, message: str, sheet: str) -> None:
        super().__init__(message)
        self.sheet = sheet


def cell_text(value: Any) -> "str | None":
    """The text of a cell's stored value, as a CSV file would hold it (None: an empty cell).

    Examples
    --------
    >>> import datetime
    >>> [cell_text(v) for v in (3, 3.0, 3.5, 0.1 + 0.2, True, "yes", None, "")]
    ['3', '3', '3.5', '0.30000000000000004', 'TRUE', 'yes', None, None]
    >>> cell_text(datetime.datetime(2024, 5, 1)), cell_text(datetime.datetime(2024, 5, 1, 9, 30))
    ('2024-05-01', '2024-05-01T09:30:00')
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, str):
        return value if value != "" else None
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isfinite(x) and x.is_integer() and abs(x) < 2.0**53:
            return str(int(x))
        return repr(x)
    if isinstance(value, _dt.datetime):
        return value.date().isoformat() if value.time() == _dt.time() else value.isoformat()
    if isinstance(value, _dt.date | _dt.time):
        return value.isoformat()
    return str(value)


#: openpyxl parses a sheet's XML about this many times slower per byte than the JSON readers theirs: the
#: factor on the unpacked size that decides the progress bar (``_input.BIG_INPUT``, about 2 s)
_XML_COST = 4


def _check_archive(path: Path) -> int:
    """Refuse a file that is no xlsx archive, or one whose entries unpack beyond the unpack cap; returns the
    unpacked size."""
    from softirr_stats.data import _input

    if not zipfile.is_zipfile(path):
        with path.open("rb") as fh:
            head = fh.read(8)
        if head == _OLE_MAGIC:  # an OLE compound file: Excel's encryption wraps the workbook in one, as .xls is
            raise ValueError(f"{path.name}: a password-protected workbook (or an .xls file named .xlsx): its cells "
                             "cannot be read; remove the password (in Excel: File > Info > Protect Workbook > Encrypt "
                             "with Password, cleared) or save the sheet as CSV")
        raise ValueError(f"{path.name}: not an Excel workbook (.xlsx is a zip archive; this file is not one): "
                         "an older .xls workbook must be saved as .xlsx or CSV first")
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
        if not any(i.filename == "xl/workbook.xml" for i in infos):
            raise ValueError(f"{path.name}: a zip archive without xl/workbook.xml, so not an Excel workbook")
    cap = _input.unpack_cap()
    total = sum(i.file_size for i in infos)
    if total > cap:
        raise _input.too_large(path.name, f"a workbook whose {len(infos)} parts unpack to {_input.size_text(total)}",
                               cap)
    return total


def _pick_sheet(wb: Any, sheet: "str | int | None", name: str) -> tuple[Any, str]:
    """The worksheet ``sheet`` names (a name or a 0-based position; default the first) and the note on the choice."""
    sheets = list(wb.worksheets)
    names = [ws.title for ws in sheets]
    if not sheets:
        raise ValueError(f"{name}: the workbook has no worksheet")
    if isinstance(sheet, int) and not isinstance(sheet, bool) and str(sheet) in names:
        sheet = str(sheet)  # a sheet named "2024" (the command line reads sheet=2024 as a number): the name wins
    elif isinstance(sheet, str) and sheet not in names and sheet.strip().isdigit():
        sheet = int(sheet)  # "1" where no sheet is named so: the position
    if sheet is None:
        chosen = sheets[0]
    elif isinstance(sheet, bool) or not isinstance(sheet, str | int):
        raise TypeError(f"sheet must be a sheet's name or its position (0 for the first); got {sheet!r}")
    elif isinstance(sheet, int):
        if not 0 <= sheet < len(sheets):
            raise ValueError(f"{name}: sheet={sheet} but the workbook has {len(sheets)} sheet(s) {names} (0 is the "
                             "first)")
        chosen = sheets[sheet]
    elif sheet in names:
        chosen = sheets[names.index(sheet)]
    else:
        from softirr_stats.base._suggest import did_you_mean

        raise ValueError(f"{name}: no sheet named {sheet!r}; the sheets are {names}{did_you_mean(sheet, names)}")
    note = ""
    if len(sheets) > 1:
        shown = ", ".join(repr(n) for n in names[:8]) + (f" and {len(names) - 8} more" if len(names) > 8 else "")
        note = (f"{name}: read sheet {chosen.title!r} ({names.index(chosen.title) + 1} of {len(names)}: {shown}); "
                "sheet= picks another (--reader-option sheet=NAME)")
    return chosen, note


def sheet_titles(path: "str | Path", sheets: Any) -> list[str]:
    """The titles of the sheets ``sheets`` names: ``"*"`` (every sheet) or a list of names and positions (0 the
    first), each checked as ``sheet=`` is; a sheet named twice is refused.

    Examples
    --------
    >>> import pathlib, tempfile, openpyxl
    >>> wb = openpyxl.Workbook()
    >>> wb.active.title = "Guide"
    >>> for who in ("Ana", "Bo"):
    ...     _ = wb.create_sheet(who)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "coding.xlsx"
    >>> wb.save(path)
    >>> sheet_titles(path, "*"), sheet_titles(path, ["Ana", 2])
    (['Guide', 'Ana', 'Bo'], ['Ana', 'Bo'])
    """
    import openpyxl

    path = Path(path)
    _check_archive(path)
    wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    try:
        if sheets == "*":
            titles = [ws.title for ws in wb.worksheets]
        else:
            if not sheets:
                raise ValueError("sheet= lists the sheets to read, one annotator per sheet; got an empty list")
            titles = [_pick_sheet(wb, s, path.name)[0].title for s in sheets]
    finally:
        wb.close()
    twice = sorted({t for t in titles if titles.count(t) > 1})
    if twice:
        raise ValueError(f"{path.name}: sheet= names the sheet(s) {twice} twice")
    return titles


def read_xlsx(path: "str | Path", na_values: Sequence[str] = (), sheet: "str | int | None" = None,
              names: Sequence[str] = ()) -> pd.DataFrame:
    """One sheet of an Excel workbook as a DataFrame of text cells (empty cells missing).

    The sheet's first non-empty row is the header, unless it lacks one of the column ``names`` asked for
    and a row below it (among the first :data:`HEADER_SCAN` non-empty ones) holds them all: then that row
    is the header and the rows above it (a title, a note on the study) are left out, with a note saying
    so. Empty rows are left out; a header cell left empty
    is named ``Unnamed: i`` as pandas names a CSV's (``i`` from 0), so a first column of row names
    (pandas' ``to_excel``) is recognised as in a CSV file. Cells in ``na_values`` and Excel error
    cells are missing. Notes on how the sheet was read (the sheet chosen among several, the row of
    the header, error cells) are in ``df.attrs["read_notes"]``.

    Examples
    --------
    >>> import pathlib, tempfile, openpyxl
    >>> wb = openpyxl.Workbook()
    >>> for row in (["item", "rater", "label"], [1, "ana", 3], [1, "bo", 3.5], [2, "ana", None]):
    ...     wb.active.append(row)
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ratings.xlsx"
    >>> wb.save(path)
    >>> df = read_xlsx(path)
    >>> df["label"].tolist(), df["item"].tolist()
    (['3', '3.5', nan], ['1', '1', '2'])
    """
    path = Path(path)
    try:
        import openpyxl
    except ImportError:
        raise ImportError(f"{path.name}: reading an Excel workbook needs openpyxl; {_INSTALL}, or save the sheet as "
                          "CSV (UTF-8)") from None
    unpacked = _check_archive(path)
    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as err:  # noqa: BLE001 - openpyxl raises many kinds for a damaged workbook
        raise ValueError(f"{path.name}: cannot be read as an Excel workbook ({type(err).__name__}: "
                         f"{' '.join(str(err).split()) or 'no detail'})") from None
    try:
        ws, note = _pick_sheet(wb, sheet, path.name)
        title = ws.title
        part = getattr(ws, "_worksheet_path", None)  # the sheet's XML in the archive (openpyxl's read-only sheet)
        rows, numbers, errors, early = _sheet_rows(ws, f"reading {path.name}", _XML_COST * unpacked)
    finally:
        wb.close()
    notes = [note] if note else []
    top = header_index(rows, names)
    if top:
        above = "; ".join(repr(" | ".join(str(v) for v in r if v is not None)[:60]) for r in rows[:top][:3])
        notes.append(f"{path.name}: sheet {title!r}: the header is row {numbers[top]}, the first that names the "
                     f"columns {[n for n in names if n]}; the {top} row(s) above it were left out ({above}"
                     f"{', ...' if top > 3 else ''})")
        rows, numbers = rows[top:], numbers[top:]
    header_row = numbers[0] if numbers else 0
    if (rows and any(len(r) < len(rows[0]) or None in r for r in rows[1:])  # empty cells: any unsaved formula?
            and _holds_formulas(path, part)):
        _warn_unsaved_formulas(openpyxl, path, title, rows[0])
    if not rows:
        raise SheetShapeError(f"{path.name}: sheet {ws.title!r} is empty (no header, no ratings)", ws.title)
    header, body = rows[0], rows[1:]
    width = max((max((k for k, v in enumerate(r) if v is not None), default=-1) + 1 for r in body), default=0)
    if width > len(header):
        raise SheetShapeError(f"{path.name}: sheet {ws.title!r} holds values right of its header's last column (header "
                         f"row {header_row}: {len(header)} columns {[h for h in header]}; values up to column "
                         f"{width}): name those columns in the header row"
                         + ("; if that row is a title above the table, name the table's columns (item=, rater=, "
                            "label=, or wide=) and the header is the row below that names them"
                            if len([h for h in header if h is not None]) == 1 else ""), ws.title)
    seen: dict[str, int] = {}
    for k, name in enumerate(header, 1):  # as for a CSV header: which of two same-named columns is meant is unknown
        if name is not None and name in seen:
            raise SheetShapeError(f"{path.name}: column {name!r} appears twice in the header of sheet {ws.title!r} "
                             f"(columns {seen[name]} and {k}, row {header_row}); rename one so that it is clear which "
                             "is meant", ws.title)
        if name is not None:
            seen[name] = k
    columns = [h if h is not None else f"Unnamed: {k}" for k, h in enumerate(header)]
    body = [r + [None] * (len(columns) - len(r)) for r in body]
    if header_row > 1 and not top:
        notes.append(f"{path.name}: sheet {ws.title!r}: the header is row {header_row} (the rows above it are empty)")
    if early:
        _warn_early_dates(path.name, title, rows[0] if rows else [], early)
    if errors:
        notes.append(f"{path.name}: {errors} cell(s) of sheet {ws.title!r} hold an Excel error (#N/A, #DIV/0!, ...) "
                     "and are read as missing ratings")
    from softirr_stats.base._validation import SHEET_ROW

    df = pd.DataFrame(body, columns=columns, dtype=object, index=pd.Index(numbers[1:], name=SHEET_ROW))
    df = df.where(df.notna(), float("nan"))
    if na_values:
        df = df.mask(df.isin(list(na_values)))
    df.attrs["read_notes"] = tuple(notes)
    df.attrs["sheet"] = title
    return df


#: how many non-empty rows at the top of a sheet are searched for the header row that names the columns asked for
HEADER_SCAN = 20


def _folded(names: Any) -> set[str]:
    return {" ".join(str(n).split()) for n in names if n is not None and n != ""}


def header_index(rows: Sequence[Sequence[Any]], names: Sequence[str]) -> int:
    """Which of a sheet's first non-empty ``rows`` is its header: 0 (the first), unless the first lacks one of
    ``names`` and a later one among the first :data:`HEADER_SCAN` holds them all (names compared with runs of
    white space as one space); then the first such row.

    Examples
    --------
    >>> rows = [["Coding sheet, round 2"], ["coder: Ana"], ["item", "rater", "label"], ["1", "Ana", "x"]]
    >>> header_index(rows, ["item", "rater", "label"]), header_index(rows, []), header_index(rows[2:], ["item"])
    (2, 0, 0)
    """
    wanted = _folded(names)
    if not wanted or not rows or wanted <= _folded(rows[0]):
        return 0
    return next((k for k, row in enumerate(rows[1:HEADER_SCAN], 1) if wanted <= _folded(row)), 0)


def sheet_hint(path: "str | Path", names: Sequence[str], read: str) -> str:
    """The end of a "column not found" error for a workbook whose sheet ``read`` (the default, the first) lacks
    ``names``: the other sheets whose header holds them all, and ``sheet=`` to pick one ('' when none does).

    Only each sheet's first rows are read, for the rows that may be its header (:func:`header_index`).

    Examples
    --------
    >>> import pathlib, tempfile, openpyxl
    >>> wb = openpyxl.Workbook()
    >>> wb.active.title = "Guide"
    >>> wb.active.append(["How to code"])
    >>> wb.create_sheet("Codes").append(["study", "coder", "design"])
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "coding.xlsx"
    >>> wb.save(path)
    >>> sheet_hint(path, ["study", "design"], "Guide")
    ": sheet 'Guide' was read (the first of 2); sheet 'Codes' has these columns: pass sheet='Codes'"
    """
    wanted = {" ".join(str(n).split()) for n in names if n}
    if not wanted:
        return ""
    headers = _sheet_headers(path)
    titles = list(headers)
    fits = [t for t, header in headers.items() if t != read and any(wanted <= h for h in header)]
    if not fits:
        return "" if len(titles) < 2 else (f": the workbook has {len(titles)} sheets "
                                           f"({', '.join(repr(t) for t in titles[:8])}); pass sheet= to read another")
    more = f" (so do {', '.join(repr(t) for t in fits[1:4])})" if len(fits) > 1 else ""
    return (f": sheet {read!r} was read (the first of {len(titles)}); sheet {fits[0]!r} has these columns{more}: "
            f"pass sheet={fits[0]!r}")


def sheets_lacking(path: "str | Path", titles: Sequence[str], names: Sequence[str]) -> str:
    """'' when every sheet of ``titles`` has ``names`` in its header; else the error's text: which lack them and the
    ``sheet=`` list of those that have them (``sheet="*"`` on a workbook with a guide sheet).

    Examples
    --------
    >>> import pathlib, tempfile, openpyxl
    >>> wb = openpyxl.Workbook()
    >>> wb.active.title = "Guide"
    >>> wb.active.append(["How to code"])
    >>> for who in ("Ana", "Bo"):
    ...     wb.create_sheet(who).append(["item", "label"])
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "coding.xlsx"
    >>> wb.save(path)
    >>> sheets_lacking(path, ["Guide", "Ana", "Bo"], ["item", "label"])
    "coding.xlsx: sheet 'Guide' has no column 'item', 'label' in its header; read the sheets that have them: pass sheet=['Ana', 'Bo']"
    """
    wanted = {" ".join(str(n).split()) for n in names if n}
    headers = _sheet_headers(path)
    fit = {t: any(wanted <= h for h in headers.get(t, [set()])) for t in titles}
    lacking = [t for t in titles if not fit[t]]
    if not lacking:
        return ""
    having = [t for t in titles if fit[t]]
    shown = ", ".join(repr(n) for n in names if n)
    ending = f"; read the sheets that have them: pass sheet={having!r}" if having else ""
    return (f"{Path(path).name}: sheet{'s' if len(lacking) > 1 else ''} {', '.join(repr(t) for t in lacking)} "
            f"{'have' if len(lacking) > 1 else 'has'} no column {shown} in {'their' if len(lacking) > 1 else 'its'} "
            f"header{ending}")


def _sheet_headers(path: "str | Path") -> dict[str, list[set[str]]]:
    """Each sheet's title and the names of each row that may be its header (the first :data:`HEADER_SCAN`
    non-empty rows, whitespace folded), in the workbook's order: one read-only pass over the first rows of
    every sheet (the hints of :func:`sheet_hint` and :func:`sheets_lacking`)."""
    import openpyxl

    wb = openpyxl.load_workbook(Path(path), read_only=True, data_only=True)
    try:
        return {ws.title: _header_names(ws) for ws in wb.worksheets}
    finally:
        wb.close()


def _header_names(ws: Any, rows: int = 200) -> list[set[str]]:
    """The names in each of a sheet's first :data:`HEADER_SCAN` non-empty rows (among its first ``rows``),
    whitespace folded: the rows :func:`header_index` may take for the header."""
    if hasattr(ws, "reset_dimensions"):
        ws.reset_dimensions()
    found: list[set[str]] = []
    for k, row in enumerate(ws.iter_rows(values_only=True, max_row=rows)):
        names = _folded(cell_text(v) for v in row)
        if names:
            found.append(names)
        if len(found) >= HEADER_SCAN or k >= rows:
            break
    return found or [set()]


def _columns_text(header: list[Any], found: dict[int, Any]) -> str:
    """``'b' (1900-01-03), 'mean' (3)``: the columns (by 0-based position) named by the header, each with its detail.

    >>> _columns_text(["doc", "b"], {1: "1900-01-03", 3: 2})
    "'b' (1900-01-03), 'column 4' (2)"
    """
    return ", ".join(f"{header[k] if k < len(header) and header[k] is not None else f'column {k + 1}'!r} ({detail})"
                     for k, detail in sorted(found.items()))


def _warn_early_dates(name: str, title: str, header: list[Any], early: dict[int, str]) -> None:
    """A LabelWarning naming the columns whose cells read as dates of early 1900: small numbers in cells formatted
    as dates (Excel shows 3 as 1900-01-03), read as those dates unless the column is formatted as numbers."""
    import warnings

    from softirr_stats.base._validation import user_stacklevel
    from softirr_stats.data._labels import LabelWarning

    cols = _columns_text(header, early)
    warnings.warn(f"{name}: sheet {title!r} has cells formatted as dates that hold dates of early 1900, in {cols}: "
                  "Excel shows the number 3 formatted as a date as 1900-01-03, so these are likely ratings in cells "
                  "formatted as dates; they are read as the dates shown: format the column as numbers in Excel",
                  LabelWarning, stacklevel=user_stacklevel())


_FORMULA_TAG = re.compile(rb"<(?:\w+:)?f[\s>/]")


def _holds_formulas(path: Path, part: "str | None") -> bool:
    """Whether the sheet's XML holds a formula element (``<f>``), by a byte scan of the archive member: the two
    further passes that find formulas without a saved value run only then (True when the member is unknown)."""
    if not part:
        return True
    with zipfile.ZipFile(path) as zf:
        try:
            member = zf.open(part.lstrip("/"))
        except KeyError:
            return True
        with member:
            tail = b""
            while chunk := member.read(1 << 20):
                if _FORMULA_TAG.search(tail + chunk):
                    return True
                tail = chunk[-16:]
    return False


def _warn_unsaved_formulas(openpyxl: Any, path: Path, title: str, header: list[Any]) -> None:
    """A warning naming the columns whose formula cells hold no saved value (read as empty cells).

    A workbook written by a program that does not compute formulas (openpyxl, pandas' ``to_excel``
    of a formula) keeps the formula without its value; Excel or LibreOffice saves both.
    """
    import warnings

    from softirr_stats.base._validation import user_stacklevel
    from softirr_stats.data._labels import LabelWarning

    wb = openpyxl.load_workbook(path, read_only=True, data_only=False)
    try:
        formulas: dict[int, int] = {}
        values = openpyxl.load_workbook(path, read_only=True, data_only=True)
        try:
            for row, saved in zip(wb[title].iter_rows(), values[title].iter_rows(), strict=False):
                for k, (cell, kept) in enumerate(zip(row, saved, strict=False)):
                    text = getattr(cell, "value", None)
                    if isinstance(text, str) and text.startswith("=") and getattr(kept, "value", None) is None:
                        formulas[k] = formulas.get(k, 0) + 1
        finally:
            values.close()
    finally:
        wb.close()
    if formulas:
        cols = _columns_text(header, formulas)
        warnings.warn(f"{path.name}: sheet {title!r} holds formulas with no saved value, read as empty cells, in "
                      f"{cols}: the workbook was written by a program that does not compute formulas; open and save "
                      "it in Excel or LibreOffice (which save each formula's value), or write the values",
                      LabelWarning, stacklevel=user_stacklevel())


#: dates before this are Excel's day numbers 1-100 shown as dates: small numbers (ratings) in a date-formatted cell
_EARLY_1900 = _dt.datetime(1900, 4, 10)


def _sheet_rows(ws: Any, desc: str, cost: int) -> tuple[list[list[Any]], list[int], int, dict[int, str]]:
    """The non-empty rows of a worksheet as text cells (header first), their row numbers (from 1),
    the number of error cells read as missing, and the columns holding dates of early 1900 (a date read for a
    small number: ``{column: first such cell}``); a progress bar (``desc``) where ``cost`` bytes take over ~2 s."""
    from softirr_stats.data._readers._common import progress

    rows: list[list[Any]] = []
    numbers: list[int] = []
    errors = 0
    early: dict[int, str] = {}
    if hasattr(ws, "reset_dimensions"):  # a writer's wrong <dimension> (A1:A1) would cut the sheet short
        ws.reset_dimensions()
    for number, row in enumerate(progress(ws.iter_rows(), total=ws.max_row, desc=desc, nbytes=cost), start=1):
        texts = []
        for cell in row:
            if getattr(cell, "data_type", None) == "e":
                errors += 1
                texts.append(None)
            else:
                value = getattr(cell, "value", None)
                texts.append(cell_text(value))
                if isinstance(value, _dt.datetime | _dt.date) and _dt.datetime(value.year, value.month,
                                                                               value.day) < _EARLY_1900:
                    early.setdefault(len(texts) - 1, texts[-1])
        while texts and texts[-1] is None:
            texts.pop()
        if not texts:
            continue
        numbers.append(number)
        rows.append(texts)
    return rows, numbers, errors, early
