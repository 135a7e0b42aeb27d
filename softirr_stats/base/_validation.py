"""Small input-validation helpers shared by every layer.

Messages follow one pattern: the argument's name, what was expected, what was given.
"""

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["user_stacklevel", "check_choice", "check_level", "check_positive_int", "check_seed", "MAX_SEED",
           "ModelRequiredError", "SimilarityMismatchError",
           "SoftIRRWarning", "TooFewRatersError", "TooFewUnitsError", "LINE_INDEX", "is_warning_text", "label_file_lines", "row_name"]

#: Name of the index a reader gives a table read from a file: each row labelled with its line in
#: the file, so that :func:`row_name` can point at the line a user opens.
LINE_INDEX = "line"
#: the name of a table index that holds each row's row number in the spreadsheet it was read from
SHEET_ROW = "sheet row"
#: the name of a table index that holds each row's 1-based data row in a file without lines (Parquet)
FILE_ROW = "row of the file"


def user_stacklevel() -> int:
    """The ``stacklevel`` that points a warning at the first frame outside softirr_stats: the user's call.

    Called in the function that warns (``warnings.warn(..., stacklevel=user_stacklevel())``); a level
    counted by hand breaks whenever a wrapper or a helper adds a frame.

    Examples
    --------
    >>> user_stacklevel() >= 1
    True
    """
    import sys

    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("softirr_stats"):
        frame = frame.f_back
        level += 1
    return level


class SoftIRRWarning(UserWarning):
    """Base class of the warnings softirr_stats emits (degenerate statistics, dropped data)."""


def is_warning_text(note: str) -> bool:
    """Whether a note is a caught warning written as ``"LabelWarning: ..."`` (not a plain note on the data).

    Examples
    --------
    >>> is_warning_text("LabelWarning: 2 labels look alike"), is_warning_text("a.csv: read as a wide table")
    (True, False)
    """
    head, sep, _ = note.partition(": ")
    return bool(sep) and head.isidentifier() and head.endswith("Warning")


class ModelRequiredError(ValueError):
    """A similarity name whose estimator needs a model (``nli``, ``llm_judge``, ``embedding``) was given none.

    Examples
    --------
    >>> issubclass(ModelRequiredError, ValueError)
    True
    """


class SimilarityMismatchError(ValueError):
    """A similarity that cannot score the labels of these annotations (a string measure on numbers, ...).

    Examples
    --------
    >>> issubclass(SimilarityMismatchError, ValueError)
    True
    """


class TooFewRatersError(ValueError):
    """The data have fewer raters (annotators) than the statistic compares: a property of the data, not the call.

    Examples
    --------
    >>> issubclass(TooFewRatersError, ValueError)
    True
    """


class TooFewUnitsError(ValueError):
    """A bootstrap was asked for where fewer than two units (items, documents, clusters) can be resampled: the
    interval cannot be formed from these data, but the point estimate can (``ci=None``; ``--bootstrap 0``).

    Examples
    --------
    >>> issubclass(TooFewUnitsError, ValueError)
    True
    """


def row_name(index: Any, pos: int) -> str:
    """Name row ``pos`` (0-based position) of a table as its user finds it.

    ``"row 3"`` is the 1-based data row (the header not counted). Where the table was read from a
    file (its index named :data:`LINE_INDEX`, holding each row's line in the file) the row is the
    file's data row, whatever order the table holds the rows in, and its line is added; where a
    DataFrame has an index other than the default 0, 1, ... its label is added.

    Parameters
    ----------
    index : pandas Index or None
        The table's index (``df.index``); None for a table with no index of its own.
    pos : int
        The row's 0-based position.

    Examples
    --------
    >>> import pandas as pd
    >>> row_name(pd.RangeIndex(4), 2)
    'row 3'
    >>> row_name(pd.Index(["a", "b"]), 1)
    "row 2 (index label 'b')"
    >>> row_name(pd.RangeIndex(2, 6, name=LINE_INDEX), 0)
    'row 1 (line 2 of the file)'
    >>> row_name(pd.Index([5, 2, 3], name=LINE_INDEX), 0)  # rows in another order than the file's
    'row 3 (line 5 of the file)'
    """
    name = f"row {pos + 1}"
    if index is None:
        return name
    label = index[pos]
    label = label.item() if isinstance(label, np.generic) else label
    if getattr(index, "name", None) in (LINE_INDEX, SHEET_ROW):  # the file's data row: the rank of its line
        where = f"line {label} of the file" if index.name == LINE_INDEX else f"sheet row {label}"
        return f"row {int((np.asarray(index) < label).sum()) + 1} ({where})"
    if type(index).__name__ == "RangeIndex" and index.start == 0 and index.step == 1:
        return name
    return f"{name} (index label {label!r})"


def rows_named(index: Any, positions: Any, limit: int = 5) -> str:
    """The rows at 0-based ``positions`` of a table, named as its user finds them (at most ``limit``).

    Lines of the file, rows of the sheet or of a Parquet file where the table was read from one (its
    index named :data:`LINE_INDEX` / :data:`SHEET_ROW` / :data:`FILE_ROW`); else the index labels, which for a DataFrame with the
    default index are its 0-based positions, as ``df.loc`` takes them.

    Examples
    --------
    >>> import pandas as pd
    >>> rows_named(pd.Index([2, 3, 7], name=LINE_INDEX), [0, 2])
    'lines 2 and 7 of the file'
    >>> rows_named(pd.Index([4, 5], name=SHEET_ROW), [1])
    'sheet row 5'
    >>> rows_named(pd.RangeIndex(1, 4, name=FILE_ROW), [0, 2])
    'rows 1 and 3 of the file'
    >>> rows_named(pd.RangeIndex(9), [0, 3, 4, 5, 6, 7], limit=3)
    'index 0, 3, 4, ... (6 rows)'
    >>> rows_named(pd.Index(["a", "b"]), [1])
    "index 'b'"
    """
    positions = [int(k) for k in positions]
    labels = [index[k] for k in positions[:limit]]
    labels = [v.item() if isinstance(v, np.generic) else v for v in labels]
    name = getattr(index, "name", None)
    texts = [str(v) if name in (LINE_INDEX, SHEET_ROW, FILE_ROW) or isinstance(v, int) else repr(v) for v in labels]
    if len(positions) > limit:
        listed = ", ".join(texts) + f", ... ({len(positions)} rows)"
    else:
        listed = texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]
    plural = len(positions) > 1
    if name == LINE_INDEX:
        return f"line{'s' if plural else ''} {listed} of the file"
    if name == SHEET_ROW:
        return f"sheet row{'s' if plural else ''} {listed}"
    if name == FILE_ROW:
        return f"row{'s' if plural else ''} {listed} of the file"
    return f"index {listed}"


def file_lines(path: Any, header_lines: int = 1) -> list[int] | None:
    """The 1-based lines of ``path``'s data rows: its non-blank lines after ``header_lines`` of header (a CSV
    reader skips blank lines); None where the file cannot be read. Read on error paths only, line by line (a
    large file is not held in memory); lines end at ``\\n``, ``\\r\\n`` or ``\\r`` only, as a CSV reader and an
    editor count them (not at the form feeds and separators ``str.splitlines`` also breaks on).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = f.write_text("a,b\\n1,2\\n\\n3,x\\x0cy\\n")
    >>> file_lines(f)
    [2, 4]
    """
    try:
        with open(path, encoding="utf-8-sig", errors="replace", newline=None) as fh:
            lines = [k for k, line in enumerate(fh, start=1) if line.strip(" \t\r\n")]
    except OSError:
        return None
    return lines[header_lines:]


def file_row_index(path: Any, fmt: str, n_rows: int) -> Any:
    """The index that names the ``n_rows`` rows of a long table read from ``path`` in an error (:func:`rows_named`):
    the file's lines (CSV / TSV after the header; JSON Lines one record a line), else its data rows from 1 (Parquet;
    a quoted line break, where lines and rows do not pair up). Read on error paths only.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = f.write_text("a,b\\n1,2\\n\\n3,4\\n")
    >>> rows_named(file_row_index(f, "csv", 2), [1]), rows_named(file_row_index(f, "parquet", 2), [1])
    ('line 4 of the file', 'row 2 of the file')
    """
    import pandas as pd

    lines = file_lines(path, 1 if fmt in ("csv", "tsv") else 0) if fmt in ("csv", "tsv", "jsonl") else None
    if lines is not None and len(lines) == n_rows:
        return pd.Index(lines, name=LINE_INDEX)
    return pd.RangeIndex(1, n_rows + 1, name=FILE_ROW)


def label_file_lines(table: Any, path: Any, header_lines: int = 1) -> Any:
    """Label the rows of ``table``, read from the CSV ``path``, with their lines in the file (in place).

    The index becomes each row's 1-based line (named :data:`LINE_INDEX`, read by :func:`row_name`).
    Blank lines are skipped as a CSV reader skips them; where the rows and the file's non-blank lines
    do not pair up one to one (a quoted cell holding a line break) the index is left as it is.

    Examples
    --------
    >>> import pathlib, tempfile, pandas as pd
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = f.write_text("a,b\\n1,2\\n\\n3,4\\n")
    >>> label_file_lines(pd.read_csv(f), f).index.tolist()
    [2, 4]
    """

    import pandas as pd

    lines = file_lines(path, header_lines)
    if lines is not None and len(lines) == len(table):
        table.index = pd.Index(lines, name=LINE_INDEX)
    return table


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``; else raise a ValueError listing them.

    Examples
    --------
    >>> check_choice("level", "nominal", ["nominal", "interval"])
    'nominal'
    """
    options: Sequence[str] = sorted(choices)
    if not isinstance(value, str) or value not in options:
        from softirr_stats.base._suggest import did_you_mean

        raise ValueError(f"{name} must be one of {list(options)}; got {value!r}{did_you_mean(value, options)}")
    return value


def check_level(level: float, name: str = "level") -> float:
    """Validate a confidence/credibility level in (0, 1) (a number: not a text, not a bool)."""
    if isinstance(level, str | bytes | bool | np.bool_):
        raise TypeError(f"{name} must be a number in (0, 1); got {level!r}")
    try:
        value = float(level)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number in (0, 1); got {level!r}") from None
    if not 0.0 < value < 1.0 or not np.isfinite(value):
        raise ValueError(f"{name} must be in (0, 1); got {level!r}")
    return value


#: Largest seed accepted anywhere (``jax.random.key`` and NumPy's seed sequences take a 64-bit integer).
MAX_SEED = 2**63 - 1


def check_seed(seed: Any, name: str = "seed") -> int:
    """Validate a random seed: an integer in [0, 2**63 - 1] (bools, floats and texts are rejected).

    The one check of every seeded option (``Bootstrap``, ``MonteCarlo``, ``SampledPairs``,
    ``Permutation``, ``distance_agreement``, ``judging_plan``, ``compare_groups``, the annotator
    models' fits), so that a seed one of them takes, every other takes too.

    Examples
    --------
    >>> check_seed(7)
    7
    >>> check_seed(2**70)
    Traceback (most recent call last):
    ...
    ValueError: seed must be an integer in [0, 2**63 - 1]; got 1180591620717411303424
    """
    if isinstance(seed, bool | np.bool_) or not isinstance(seed, int | np.integer):
        raise TypeError(f"{name} must be an integer in [0, 2**63 - 1]; got {seed!r} ({type(seed).__name__})")
    if not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"{name} must be an integer in [0, 2**63 - 1]; got {seed}")
    return int(seed)


def check_positive_int(value: Any, name: str, minimum: int = 1) -> int:
    """Validate an integer >= ``minimum`` (bools are rejected)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    return int(value)
