"""One small HTML table for notebook reprs (``_repr_html_``) of result objects.

Jupyter shows ``obj._repr_html_()`` when an object has it. :func:`frame_html` renders a
tidy frame (or rows) as a compact table: floats to four significant digits, integers as
integers, everything escaped, a caption above and notes below. Fit diagnostics, posteriors,
predictive checks and comparisons use it, so every result reads the same way.
"""

import html
import math
from collections.abc import Sequence
from typing import Any

__all__ = ["frame_html"]

_STYLE = "border-collapse:collapse;font-size:0.92em"
_CELL = "padding:2px 8px;border-bottom:1px solid #ddd"


def _cell(value: Any, digits: int) -> tuple[str, str]:
    if isinstance(value, bool) or value is None:
        return ("" if value is None else str(value)), "left"
    if isinstance(value, int) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") in "iu"):
        return f"{int(value):,}", "right"
    if isinstance(value, float) or (hasattr(value, "dtype") and getattr(value.dtype, "kind", "") == "f"):
        v = float(value)
        if math.isnan(v):
            return "", "right"
        return (f"{int(v):,}" if v.is_integer() and abs(v) < 1e15 else f"{v:.{digits}g}"), "right"
    return str(value), "left"


def frame_html(frame: Any, caption: str | None = None, notes: Sequence[str] = (), digits: int = 4,
               right: Sequence[str] = ()) -> str:
    """A compact HTML table of ``frame`` (a DataFrame, or ``(columns, rows)``), caption above, notes below.

    Numbers are right-aligned, text left-aligned; ``right`` names columns of text to right-align
    too (numbers already formatted, intervals).

    Examples
    --------
    >>> import pandas as pd
    >>> page = frame_html(pd.DataFrame({"what": ["r_hat"], "value": [1.0034567]}), "Fit", ["all good"])
    >>> "<caption" in page and "1.003" in page and "1.0034567" not in page and "all good" in page
    True
    """
    if isinstance(frame, tuple):
        columns, rows = list(frame[0]), [list(r) for r in frame[1]]
    else:
        columns, rows = [str(c) for c in frame.columns], frame.itertuples(index=False, name=None)
    head = "".join(f'<th style="{_CELL};text-align:left">{html.escape(str(c))}</th>' for c in columns)
    body = []
    flush = [c in right for c in columns]
    for row in rows:
        cells = (_cell(v, digits) for v in row)
        body.append("<tr>" + "".join(f'<td style="{_CELL};text-align:{"right" if f else a}">{html.escape(t)}</td>'
                                     for (t, a), f in zip(cells, flush, strict=False)) + "</tr>")
    cap = (f'<caption style="text-align:left;font-weight:600;padding-bottom:4px">{html.escape(caption)}</caption>'
           if caption else "")
    foot = "".join(f'<div style="font-size:0.85em;color:#555">{html.escape(n)}</div>' for n in notes)
    return f'<div><table style="{_STYLE}">{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>{foot}</div>'
