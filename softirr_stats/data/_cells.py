"""Cells of delimited text tables, shared by the pandas route (``_io``) and the Arrow route (``_columnar``).

A byte that does not decode becomes a ValueError naming the file and ``encoding=``; a header
naming one column twice is refused; a label column whose every present value is a number
becomes numeric. Both routes of :func:`~softirr_stats.data.read_annotations` call these, so they
give the same errors and the same labels (``tests/test_scale_readers.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DISTINCT_MIN", "check_header", "decode_errors", "numeric_labels"]


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


def check_header(path: Path, sep: str, encoding: str) -> None:
    """A header naming one column twice is refused (pandas would read the second as 'label.1')."""
    import csv

    with decode_errors(path, encoding), path.open(encoding=encoding, newline="") as fh:
        header = next(csv.reader(fh, delimiter=sep), [])
    seen: dict[str, int] = {}
    for k, name in enumerate(header, 1):
        name = name.lstrip("\ufeff") if k == 1 else name
        if name in seen and name != "":
            raise ValueError(f"{path}: column {name!r} appears twice in the header (columns {seen[name]} and {k}); "
                             "rename one so that it is clear which is meant")
        seen[name] = k


#: label columns longer than this are converted through their distinct values (one factorize)
DISTINCT_MIN = 1000


def numeric_labels(col: pd.Series) -> pd.Series:
    """A label column read as text becomes numeric when every present value is a number.

    Decided, and converted, on the distinct labels (the same set as the cells', so the same outcome),
    whatever their number: no recursion and no Python work per cell.
    """
    import pandas as pd

    if len(col) > DISTINCT_MIN:
        codes, uniq = pd.factorize(col)
        conv = _numeric_values(pd.Series(np.asarray(uniq, dtype=object), dtype=col.dtype))
        if conv is None:
            return col
        out = col.astype(object).copy()
        present = codes >= 0
        out[present] = conv.to_numpy(dtype=object)[codes[present]]
        return out
    conv = _numeric_values(col)
    return col if conv is None else conv


def _numeric_values(col: pd.Series) -> pd.Series | None:
    """``col`` with every present text converted to a number, or None when one is not a number."""
    import pandas as pd

    present = col.dropna()
    if present.empty or present.map(type).ne(str).any():
        return None
    try:
        num = pd.to_numeric(present)
    except (TypeError, ValueError):
        return None
    if not num.map(lambda v: pd.notna(v) and abs(float(v)) != float("inf")).all():
        return None  # "nan" / "inf" strings stay labels
    out = col.astype(object).copy()
    out[present.index] = num.astype(object)
    return out
