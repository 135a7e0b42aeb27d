"""CSV cells that a spreadsheet would evaluate, escaped (OWASP's CSV-injection rule), reversibly.

Files the package writes for people (the judging sheet, its plan, ``--format csv`` output) hold
labels and annotator names taken from the data. A cell beginning with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return (or their full-width forms) is a formula to Excel and
LibreOffice; OWASP's rule is to begin such a cell with a single quote, which the spreadsheet
shows as text. A plain number (``-3``, ``+1.5e3``) is left as it is.

To stay reversible, a cell that already begins with a single quote gets one more, and
:func:`unescape_cell` removes exactly one leading quote: reading an escaped sheet back gives the
original labels. A sheet saved by a spreadsheet that dropped the shown quote still reads back
right (``=x`` unescaped is ``=x``).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

__all__ = ["FORMULA_START", "escape_cell", "unescape_cell", "escape_columns", "unescape_columns", "quoting_for"]

#: First characters that make a spreadsheet evaluate a cell (ASCII and full-width forms).
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n", "\uff1d", "\uff0b", "\uff0d", "\uff20")
_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?")


def escape_cell(value: Any) -> Any:
    """``value`` safe to open in a spreadsheet: a text cell that would be a formula begins with ``'``.

    Examples
    --------
    >>> [escape_cell(v) for v in ["=1+1", "@SUM(A1)", "-x", "-3", "plain", "'quoted", 7]]
    ["'=1+1", "'@SUM(A1)", "'-x", '-3', 'plain', "''quoted", 7]
    """
    if not isinstance(value, str) or not value:
        return value
    if value[0] == "'" or (value.startswith(FORMULA_START) and not _NUMBER.fullmatch(value)):
        return "'" + value
    return value


def unescape_cell(value: Any) -> Any:
    """The original of an :func:`escape_cell` result (one leading ``'`` removed).

    Examples
    --------
    >>> [unescape_cell(escape_cell(v)) for v in ["=1+1", "'quoted", "-3", "x"]]
    ['=1+1', "'quoted", '-3', 'x']
    """
    if isinstance(value, str) and value[:1] == "'":
        return value[1:]
    return value


def escape_columns(frame: Any, columns: Any = None) -> Any:
    """A copy of a DataFrame with the text cells of ``columns`` (default: all) escaped.

    Examples
    --------
    >>> import pandas as pd
    >>> escape_columns(pd.DataFrame({"label": ["=cmd", "ok"], "n": [1, 2]}))["label"].tolist()
    ["'=cmd", 'ok']
    """
    out = frame.copy()
    for col in out.columns if columns is None else [c for c in columns if c in out.columns]:
        if getattr(out[col].dtype, "kind", "O") not in "biufcmM":  # text (object or pandas' string dtype)
            out[col] = np.array([escape_cell(v) for v in out[col].to_numpy(dtype=object)], dtype=object)
    return out


def quoting_for(cells: Any) -> int:
    """The ``csv`` quoting that keeps every row whole: all text quoted when a cell holds a carriage return.

    Python's ``csv`` writer (and pandas' ``to_csv``) with ``\\n`` line ends leaves a ``\\r`` inside a
    cell unquoted, and every reader in universal-newline mode then splits the row there.

    Examples
    --------
    >>> import csv
    >>> quoting_for(["a", "b"]) == csv.QUOTE_MINIMAL, quoting_for(["a", "\\rb"]) == csv.QUOTE_NONNUMERIC
    (True, True)
    """
    import csv

    has_cr = any(isinstance(v, str) and "\r" in v for v in cells)
    return csv.QUOTE_NONNUMERIC if has_cr else csv.QUOTE_MINIMAL


def unescape_columns(frame: Any, columns: Any) -> Any:
    """``frame`` with the text cells of ``columns`` unescaped in place (columns absent are skipped).

    Examples
    --------
    >>> import pandas as pd
    >>> unescape_columns(pd.DataFrame({"label": ["'=cmd", "ok"]}), ["label"])["label"].tolist()
    ['=cmd', 'ok']
    """
    for col in [c for c in columns if c in frame.columns]:
        frame[col] = np.array([unescape_cell(v) for v in frame[col].to_numpy(dtype=object)], dtype=object)
    return frame
