"""A compact view of a sensitivity table: the essential columns, each distinct warning once.

:func:`~softirr_stats.sensitivity` returns one tidy, unrounded row per (coefficient, similarity,
chance) with every column a paper or a plot may need, and each row's warnings in a
``warnings`` column, so a warning shared by twelve rows is printed twelve times.
:func:`sensitivity_summary` reads that frame (it is not changed) and keeps what a reader looks at:
coefficient, similarity, chance, value, the interval, items, and the numbers of the row's
notes; the distinct warnings are listed once below, numbered in order of first appearance (the
numbering of :func:`table_with_notes` and of the command line's notes). It shows as an HTML
table in a notebook and as aligned text elsewhere.
"""

from dataclasses import dataclass
from typing import Any

import pandas as pd

from softirr_stats.base._format import level_text
from softirr_stats.reporting._tables import interval_note, number_warnings, row_warnings

__all__ = ["SUMMARY_COLUMNS", "SensitivitySummary", "sensitivity_summary"]

#: The columns of :attr:`SensitivitySummary.table`, in order.
SUMMARY_COLUMNS = ("coefficient", "similarity", "chance", "value", "ci_low", "ci_high", "n_items", "notes")
_NEEDED = ("coefficient", "value")
_TEXT = ("coefficient", "similarity", "chance", "notes")  # left-aligned in the text and HTML views


@dataclass(frozen=True)
class SensitivitySummary:
    """A sensitivity table in short: the essential columns and each distinct warning once.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per row of the sensitivity frame, columns :data:`SUMMARY_COLUMNS`: the values
        unrounded, ``notes`` the row's note numbers (``"1, 3"``; ``""`` for none).
    notes : tuple of str
        The distinct warnings, note ``i`` (from 1) being ``notes[i - 1]``.
    interval : str or None
        How the intervals were made (:func:`interval_note`), e.g. ``"Intervals: 95% analytic."``.
    level : float or None
        The confidence level when every interval shares one (it heads the interval column).

    Examples
    --------
    >>> import pandas as pd
    >>> view = sensitivity_summary(pd.DataFrame({"coefficient": ["a", "b", "c"], "value": [0.1, 0.2, 0.3],
    ...                                          "warnings": ["few items", "", "few items"]}))
    >>> view.notes, list(view.table["notes"])
    (('few items',), ['1', '', '1'])
    """

    table: pd.DataFrame
    notes: tuple[str, ...]
    interval: str | None
    level: float | None

    def _display(self, digits: int) -> tuple[list[str], list[list[str]]]:
        """Header and rows as text: the interval merged into ``[lo, hi]``, setting columns that
        never vary left out when they hold only the default (``identity``, ``exact``)."""
        t = self.table
        cols = ["coefficient"]
        for c, default in (("similarity", ("identity", "")), ("chance", ("exact", ""))):
            if not t[c].fillna("").astype(str).isin(default).all():
                cols.append(c)
        header = [*cols, "value"]
        has_ci = bool(t[["ci_low", "ci_high"]].notna().any().any())
        if has_ci:
            header.append(f"{level_text(self.level)} CI".strip() if self.level is not None else "CI")
        has_items = bool(t["n_items"].notna().any())
        header += ["items"] if has_items else []
        header += ["notes"] if t["notes"].astype(bool).any() else []

        def num(v: Any) -> str:
            return "" if v is None or v != v else f"{float(v):.{digits}f}"

        rows = []
        for r in t.itertuples(index=False):
            row = [str(getattr(r, c)) for c in cols] + [num(r.value)]
            if has_ci:
                row.append("" if r.ci_low != r.ci_low else f"[{num(r.ci_low)}, {num(r.ci_high)}]")
            if has_items:
                row.append("" if r.n_items != r.n_items else f"{int(r.n_items)}")
            if len(header) > len(row):
                row.append(r.notes)
            rows.append(row)
        return header, rows

    def _footer(self) -> list[str]:
        return [*([self.interval] if self.interval else []), *(f"[{i}] {n}" for i, n in enumerate(self.notes, 1))]

    def to_text(self, digits: int = 3) -> str:
        """The view as aligned text: the table, the interval sentence and the numbered notes.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"coefficient": ["fleiss_kappa", "fleiss_kappa"], "similarity": ["identity", "indel"],
        ...                    "chance": "exact", "value": [0.2, 0.474], "ci_low": [0.081, 0.282],
        ...                    "ci_high": [0.319, 0.667], "level": 0.95, "ci_method": "analytic", "n_items": 8,
        ...                    "warnings": ["3 items have one rating", "3 items have one rating"]})
        >>> print(sensitivity_summary(df).to_text())
        coefficient   similarity  value          95% CI  items  notes
        fleiss_kappa  identity    0.200  [0.081, 0.319]      8  1
        fleiss_kappa  indel       0.474  [0.282, 0.667]      8  1
        Intervals: 95% analytic.
        [1] 3 items have one rating
        """
        header, rows = self._display(digits)
        if not rows:
            return "\n".join(["(no rows)", *self._footer()])
        widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=True)]
        left = [h in _TEXT for h in header]  # names left-aligned, numbers and intervals right-aligned
        lines = ["  ".join(str(x).ljust(w) if lt else str(x).rjust(w)
                           for x, w, lt in zip(line, widths, left, strict=True)).rstrip()
                 for line in (header, *rows)]
        return "\n".join([*lines, *self._footer()])

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        return f"{type(self).__name__}: {len(self.table)} rows, {_count(len(self.notes))}\n{self.to_text()}"

    def _repr_html_(self) -> str:
        """The view as an HTML table for notebooks (Jupyter calls it), the notes below it.

        Examples
        --------
        >>> import pandas as pd
        >>> s = sensitivity_summary(pd.DataFrame({"coefficient": ["gwet_ac1"], "value": [0.5], "warnings": ["w"]}))
        >>> page = s._repr_html_()
        >>> page.startswith("<div><table") and page.count("[1] w") == 1
        True
        """
        from softirr_stats.base._html_repr import frame_html

        header, rows = self._display(3)
        caption = f"Sensitivity: {len(self.table)} rows" + (f", {_count(len(self.notes))}" if self.notes else "")
        return frame_html((header, rows), caption, self._footer(),
                          right=[h for h in header if h not in _TEXT])

    def to_frame(self) -> pd.DataFrame:
        """The compact table (a copy), columns :data:`SUMMARY_COLUMNS`."""
        return self.table.copy()


def _count(n: int) -> str:
    return f"{n} distinct note{'' if n == 1 else 's'}"


def sensitivity_summary(results: pd.DataFrame) -> SensitivitySummary:
    """A compact view of a :func:`~softirr_stats.sensitivity` table: essential columns, notes once.

    The frame is read, not changed (its tidy columns stay for plots and papers). Each row keeps
    coefficient, similarity, chance, value, ``ci_low`` / ``ci_high``, ``n_items`` and the numbers
    of its notes; each distinct warning is listed once, numbered in order of first appearance,
    as the command line and :func:`table_with_notes` number them. The rows' warnings are read
    whole from ``results.attrs["warnings"]`` while it matches the ``warnings`` column (a row
    filtered or sorted since: each row's ``warnings`` text is one note). In a notebook the view
    shows as an HTML table; ``print`` gives aligned text with the interval merged into
    ``[lo, hi]``.

    Parameters
    ----------
    results : pandas.DataFrame
        A sensitivity table, or any frame with ``coefficient`` and ``value`` columns (the other
        columns are optional: a missing one is blank).

    Returns
    -------
    SensitivitySummary

    Examples
    --------
    >>> import softirr_stats as sis
    >>> ann = sis.Annotations.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "b", "a"], ["c", "c", "c"]])
    >>> df = sis.sensitivity(ann, coefficients=["fleiss_kappa", "cohen_kappa"])
    >>> view = sis.sensitivity_summary(df)
    >>> print(view)
    coefficient   value  items  notes
    fleiss_kappa  0.489      4
    cohen_kappa              0  1
    [1] skipped: cohen_kappa needs exactly 2 raters; the data have 3 (use conger_kappa, fleiss_kappa, light_kappa or krippendorff_alpha)
    >>> list(view.table.columns) == list(SUMMARY_COLUMNS)
    True
    """
    if not isinstance(results, pd.DataFrame):
        raise TypeError(f"results must be a pandas DataFrame from sensitivity(); got {type(results).__name__}")
    missing = [c for c in _NEEDED if c not in results.columns]
    if missing:
        raise ValueError(f"results must have the columns {list(_NEEDED)} of a sensitivity() table; missing {missing} "
                         f"(columns: {list(results.columns)[:12]})")
    notes, refs = number_warnings(row_warnings(results))
    table = pd.DataFrame({c: (results[c].to_numpy() if c in results.columns else [""] * len(results)
                              if c in ("similarity", "chance") else [float("nan")] * len(results))
                          for c in SUMMARY_COLUMNS[:-1]})
    table["notes"] = refs
    levels = results["level"].dropna().unique() if "level" in results.columns else []
    level = float(levels[0]) if len(levels) == 1 else None
    return SensitivitySummary(table, tuple(notes), interval_note(results), level)

