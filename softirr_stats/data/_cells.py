"""Cells of delimited text tables, shared by the pandas route (``_io``) and the Arrow route (``_columnar``).

A byte that does not decode becomes a ValueError naming the file and ``encoding=``; a header
naming one column twice is refused; a label column is numeric by the one rule of
:func:`softirr_stats.data._labels.text_numbers`. Both routes of :func:`~softirr_stats.data.read_annotations` call these, so they
give the same errors and the same labels (``tests/data/test_columnar_reading.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["check_header", "decode_errors", "numeric_labels"]


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


def numeric_labels(col: pd.Series, decimal: str = ".") -> pd.Series:
    """A label column read as text becomes numeric when its distinct texts are numbers by the one rule
    of :func:`softirr_stats.data._labels.text_numbers` (each written one way, identity kept at any size;
    ``decimal=","``: written with a decimal comma).

    Decided, and converted, on the distinct labels (one factorize): no recursion and no Python work
    per cell.
    """
    import pandas as pd

    from softirr_stats.data._labels import text_numbers

    codes, uniq = pd.factorize(col)
    if len(uniq) == 0:
        return col
    values = text_numbers(np.asarray(uniq, dtype=object), decimal=decimal)
    if values is None:
        return col
    out = col.to_numpy(dtype=object, copy=True)
    present = codes >= 0
    out[present] = values[codes[present]]
    return pd.Series(out, index=col.index, name=col.name, dtype=object)
