"""Result tables for papers: Markdown and LaTeX from a result, a list of results or a DataFrame.

One formatter for every table of results, in Python and on the command line: a booktabs LaTeX
or a pipe Markdown table with the interval merged into one ``[lo, hi]`` column, a sentence on
how the intervals were made, no timing column, and each distinct warning printed once as a
numbered note under the table (:func:`table_with_notes`, :func:`paper_table`).
"""

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from softirr_stats.agreement import AgreementResult
from softirr_stats.base._format import (
    _HEADERS,
    Style,
    frame_table,
    latex_table,
    level_text,
    markdown_table,
    render,
)

__all__ = ["SECONDARY_COLUMNS", "TIMING_COLUMNS", "interval_note", "paper_table", "table_with_notes", "to_latex", "to_markdown"]

#: Columns that hold run times: never in a paper table (they differ on every run).
TIMING_COLUMNS = ("seconds", "time", "time_s", "elapsed", "elapsed_s", "wall_s", "runtime", "duration")
_SETTING_DEFAULTS = {"similarity": ("identity", "exact", ""), "measure": ("identity", "exact", ""),
                     "chance": ("exact", "none", "")}
#: A test's p column, named after its alternative (H1) as the command line's tables name it: a one-sided p is
#: never shown under the two-sided one's name.
P_COLUMNS = {"two-sided": "p_value", "greater": "p_value_greater", "less": "p_value_less"}
#: The columns of a test, in the order a paper table shows them, and their headers.
TEST_HEADERS = {"z": "z", "p_value": "p", "p_value_greater": "p (greater)", "p_value_less": "p (less)",
                "benchmark": "Benchmark"}


def _as_frame(obj: Any) -> pd.DataFrame:
    if isinstance(obj, pd.DataFrame):
        return obj
    if isinstance(obj, AgreementResult):
        return _as_frame([obj])
    if isinstance(obj, Sequence) and not isinstance(obj, str) and obj and \
            all(isinstance(r, AgreementResult) for r in obj):
        df = pd.concat([r.to_frame() for r in obj], ignore_index=True)
        df["warnings"] = pd.Series([tuple(r.warnings) for r in obj], dtype=object)  # each warning a note
        return _sided_p(df, [r.details.get("alternative", "two-sided") for r in obj])
    if isinstance(obj, Sequence) and not isinstance(obj, str) and obj and all(isinstance(r, Mapping) for r in obj):
        return pd.DataFrame(list(obj))
    raise TypeError("expected a pandas DataFrame (e.g. from sensitivity()), an AgreementResult, a "
                    "non-empty list of AgreementResults or a non-empty list of row dicts; got "
                    f"{type(obj).__name__}")


def _sided_p(df: pd.DataFrame, alternatives: Sequence[Any]) -> pd.DataFrame:
    """``df`` with each row's ``p_value`` moved to the column of its ``alternative`` (:data:`P_COLUMNS`): a
    one-sided p (``details["alternative"]`` of the result) goes to ``p_value_greater`` / ``p_value_less``."""
    if "p_value" not in df.columns:
        return df
    p = df["p_value"].to_numpy(dtype=float)
    sides = pd.Series([str(a) if a in P_COLUMNS else "two-sided" for a in alternatives], index=df.index)
    for side, column in P_COLUMNS.items():
        mine = (sides == side).to_numpy()
        if side == "two-sided" or not mine.any():
            continue
        df[column] = p.copy()
        df.loc[~mine, column] = float("nan")
        df.loc[mine, "p_value"] = float("nan")
    return df


def _test_note(df: pd.DataFrame) -> str | None:
    """One sentence naming the tests behind the z and p columns (from a ``test`` column, as
    :meth:`AgreementResult.to_dict` records it): one test, or each coefficient's."""
    shown = [c for c in P_COLUMNS.values() if c in df.columns]
    if "test" not in df.columns or not shown:
        return None
    tested = df[df[shown].notna().any(axis=1) & df["test"].notna() & (df["test"].astype(str) != "")]
    if tested.empty:
        return None
    names = list(dict.fromkeys(tested["test"].astype(str)))
    if len(names) == 1:
        return f"Test: {names[0]}." if "H0" in names[0] else f"Test of H0 (coefficient = 0): {names[0]}."
    by = [f"{', '.join(dict.fromkeys(tested.loc[tested['test'].astype(str) == n, 'coefficient'].astype(str)))}: {n}"
          for n in names]
    return "Tests: " + "; ".join(by) + "."


def _credible(df: pd.DataFrame) -> bool:
    """Every interval of the table is a posterior (credible) interval."""
    if "ci_method" not in df.columns:
        return False
    methods = [str(m) for m in df["ci_method"].dropna() if m]
    return bool(methods) and all(m.startswith("posterior") for m in methods)


def _interval_note(df: pd.DataFrame) -> str | None:
    """One sentence on how the intervals were made, when the table's rows share it."""
    if "ci_method" not in df.columns:
        return None
    methods = {m for m in df["ci_method"].dropna() if m}
    if len(methods) != 1:
        if len(methods) > 1:
            return "Intervals: " + "; ".join(sorted(map(str, methods))) + " (see the rows)."
        return None
    level = df["level"].dropna().unique() if "level" in df.columns else []
    parts = [f"{level_text(level[0]) + ' ' if len(level) == 1 else ''}{methods.pop()}"]
    for key, name in (("bootstrap_n", "B"), ("bootstrap_design", "design")):
        if key in df.columns and df[key].dropna().nunique() == 1:
            parts.append(f"{name}={df[key].dropna().iloc[0]}")
    head = "Credible intervals (CrI)" if _credible(df) else "Intervals"
    return f"{head}: " + ", ".join(parts) + "."


def _split_warnings(cell: Any) -> list[str]:
    """The warnings of one row: a list/tuple as it is; a string is one note per line (``to_dict`` joins
    a result's warnings by line breaks; parts joined by ``"; "`` cannot be told from a ``";"`` inside one
    warning, so such a string stays one note)."""
    if cell is None or (isinstance(cell, float) and cell != cell):
        return []
    if isinstance(cell, list | tuple):
        return [str(w).strip() for w in cell if str(w).strip()]
    return [line.strip() for line in str(cell).splitlines() if line.strip()]


def row_warnings(df: pd.DataFrame) -> list[list[str]]:
    """Each row's warnings, whole: ``df.attrs["warnings"]`` (one tuple per row, as :func:`sensitivity`
    keeps them) where it still matches the ``warnings`` column row by row, else the column read
    by :func:`_split_warnings` (a string is one warning)."""
    if "warnings" not in df.columns:
        return [[] for _ in range(len(df))]
    cells = list(df["warnings"])
    kept = df.attrs.get("warnings")
    if isinstance(kept, list | tuple) and len(kept) == len(cells) and all(
            isinstance(k, list | tuple) and "; ".join(map(str, k)) == ("" if c is None or c != c else str(c))
            for k, c in zip(kept, cells, strict=True)):  # rows filtered or sorted since: the attrs no longer match
        return [[str(w).strip() for w in k if str(w).strip()] for k in kept]
    return [_split_warnings(c) for c in cells]


def number_warnings(per_row: Sequence[Sequence[str]]) -> tuple[list[str], list[str]]:
    """``(notes, refs)``: each distinct warning once, in order of first appearance, and each row's
    note numbers (from 1), in increasing order, as ``"1, 3"`` (``""`` for a row without warnings).

    Examples
    --------
    >>> number_warnings([["a", "b"], [], ["b"], ["c", "a"]])
    (['a', 'b', 'c'], ['1, 2', '', '2', '1, 3'])
    """
    distinct = list(dict.fromkeys(w for ws in per_row for w in ws))
    index = {w: i for i, w in enumerate(distinct, 1)}
    return distinct, [", ".join(str(i) for i in sorted({index[w] for w in ws})) for ws in per_row]


def interval_note(results: Any) -> str | None:
    """The sentence on how a table's intervals were made (``None`` when its rows have none).

    Parameters
    ----------
    results : DataFrame, AgreementResult, list of AgreementResult or list of row dicts
        As for :func:`table_with_notes` (read: ``ci_method``, ``level``, ``bootstrap_n``,
        ``bootstrap_design``).

    Returns
    -------
    str or None
        ``"Intervals: ..."``, or ``"Credible intervals (CrI): ..."`` when every interval is a
        posterior one.

    Examples
    --------
    >>> import pandas as pd
    >>> interval_note(pd.DataFrame({"ci_method": ["posterior (dawid_skene, nuts)"], "level": [0.95]}))
    'Credible intervals (CrI): 95% posterior (dawid_skene, nuts).'
    """
    return _interval_note(_as_frame(results))


def _has_values(column: pd.Series) -> bool:
    """Some row of ``column`` holds a value (not nan / None / an empty text)."""
    return bool((column.notna() & (column.astype(str) != "")).any())


def _paper_columns(df: pd.DataFrame) -> list[str]:
    cols = ["coefficient"]
    for c in ("measure", "similarity", "chance"):
        if c in df.columns and not df[c].fillna("").astype(str).isin(_SETTING_DEFAULTS[c]).all():
            cols.append(c)
    cols.append("value")
    if {"ci_low", "ci_high"} <= set(df.columns) and df[["ci_low", "ci_high"]].notna().any().any():
        cols.append("ci")
    if "se" in df.columns and not df["se"].isna().all():
        cols.append("se")
    for c in TEST_HEADERS:  # z, the p of each alternative, the benchmark band: where a row was tested
        if c in df.columns and _has_values(df[c]):
            cols.append(c)
    for c in ("n_items", "n_raters"):
        if c in df.columns and not df[c].isna().all():
            cols.append(c)
    return cols


#: Columns a table may leave out to fit a width, first to go first.
SECONDARY_COLUMNS = ("n_raters", "n_items", "se", "chance")


def table_with_notes(results: Any, style: Style = "markdown", *, digits: int = 3,
                     columns: Sequence[str] | None = None,
                     max_width: int | None = None) -> tuple[str, list[str]]:
    """A paper table of results and its notes: ``(table, notes)``.

    Each distinct warning of the rows becomes one numbered note, in order of first appearance;
    the rows that raised it carry its number in a ``Note`` column, so a long warning is
    printed once, not on every row. The sentence on the intervals is :func:`interval_note`.
    Timing columns (:data:`TIMING_COLUMNS`) are never shown.

    Parameters
    ----------
    results : DataFrame, AgreementResult, list of AgreementResult or list of row dicts
        Tidy results (one row per coefficient x measure x chance), e.g. from
        :func:`softirr_stats.sensitivity` or the rows a command line prints. Warnings are read
        from a ``warnings`` column: a list/tuple of texts per row (AgreementResults give
        theirs), or one string per row (one note).
    style : {"markdown", "latex"}
    digits : int
        Decimals of the numbers.
    columns : sequence of str, optional
        Columns to show (``"ci"`` for the merged interval); default: coefficient, the measure
        and chance when they vary from the defaults, value, interval, SE, the test's columns
        where a row was tested (z; the p-value named after its alternative: ``p``,
        ``p (greater)``, ``p (less)``, :data:`P_COLUMNS`; the benchmark band), items, raters.
    max_width : int, optional
        Widest line allowed (e.g. the terminal's width): :data:`SECONDARY_COLUMNS` are left
        out, in that order, until the table fits (or none is left); the last note then names
        them.

    Returns
    -------
    (str, list of str)
        The table (no caption) and the warning notes, note ``i`` (from 1) being ``notes[i - 1]``.

    Examples
    --------
    >>> import pandas as pd
    >>> from softirr_stats import reporting
    >>> df = pd.DataFrame({"coefficient": ["fleiss_kappa", "gwet_ac1"], "value": [0.41, 0.52],
    ...                    "ci_low": [0.30, 0.42], "ci_high": [0.52, 0.62], "level": 0.95,
    ...                    "ci_method": "bootstrap-percentile", "seconds": [1.2, 0.8],
    ...                    "warnings": ["2 items have one rating", ""]})
    >>> table, notes = reporting.table_with_notes(df)
    >>> print(table)
    | Coefficient | Value | 95% CI | Note |
    | :-- | --: | --: | :-- |
    | fleiss_kappa | 0.410 | [0.300, 0.520] | 1 |
    | gwet_ac1 | 0.520 | [0.420, 0.620] |  |
    >>> notes
    ['2 items have one rating']
    """
    if style not in ("markdown", "latex"):
        raise ValueError(f"style must be 'markdown' or 'latex'; got {style!r}")
    df = _as_frame(results).copy()
    df = df.drop(columns=[c for c in df.columns if str(c).lower() in TIMING_COLUMNS])
    if "measure" in df.columns and "similarity" in df.columns and (
            df["measure"].astype(str) == df["similarity"].astype(str)).all():
        df = df.drop(columns=["similarity"])
    notes: list[str] = []
    if "warnings" in df.columns:
        notes, df["note"] = number_warnings([_split_warnings(w) for w in df["warnings"]])
    is_results = {"coefficient", "value"} <= set(df.columns)
    if columns is None:
        cols = _paper_columns(df) if is_results else [c for c in df.columns if c not in ("warnings", "note")]
        if "note" in df.columns and df["note"].astype(bool).any():
            cols.append("note")
    else:
        cols = list(columns)
    if max_width is not None and (isinstance(max_width, bool) or not isinstance(max_width, int) or max_width < 1):
        raise ValueError(f"max_width must be a positive integer or None; got {max_width!r}")
    dropped: list[str] = []
    while True:
        table = _draw(df, cols, style, digits, is_results)
        if max_width is None or max(map(len, table.splitlines())) <= max_width:
            break
        spare = next((c for c in SECONDARY_COLUMNS if c in cols), None)
        if spare is None:
            break
        cols = [c for c in cols if c != spare]
        dropped.append(spare)
    if dropped:
        notes.append(f"Left out to fit {max_width} characters: {', '.join(dropped)}.")
    return table, notes


def _draw(df: pd.DataFrame, cols: list[str], style: Style, digits: int, is_results: bool) -> str:
    na = "—" if style == "markdown" else "--"
    header, rows, align = frame_table(df, digits=digits, columns=cols, na=na)
    header = [TEST_HEADERS[c] if c in TEST_HEADERS and is_results else
              h if c in _HEADERS or c in ("ci", "note") else str(c).replace("_", " ").capitalize()
              if is_results else h for h, c in zip(header, cols, strict=True)]
    header = ["Note" if c == "note" else h for h, c in zip(header, cols, strict=True)]
    if _credible(df):
        header = [h[:-2] + "CrI" if c == "ci" and h.endswith("CI") else h for h, c in zip(header, cols, strict=True)]
    align = ["l" if c == "note" else a for a, c in zip(align, cols, strict=True)]
    return markdown_table(header, rows, align) if style == "markdown" else latex_table(header, rows, align)


def paper_table(results: Any, style: Style = "markdown", *, digits: int = 3, columns: Sequence[str] | None = None,
                caption: str | None = None, label: str | None = None, max_width: int | None = None) -> str:
    r"""A paper-ready table of results with its notes below it (Markdown or booktabs LaTeX).

    The table of :func:`table_with_notes`; under it the sentence on the intervals
    (:func:`interval_note`) and, where rows were tested, the one naming the tests (in LaTeX they
    end the caption when there is one) and the warnings,
    numbered (``[1] ...``) as in the table's ``Note`` column. In LaTeX the notes follow the
    ``tabular`` in a ``\footnotesize`` paragraph (inside the ``table`` float when a caption or
    label is given). :func:`to_markdown` and :func:`to_latex` give this table for result
    frames; it is the one the command line's ``--format markdown|latex`` should print.

    Parameters
    ----------
    results : DataFrame, AgreementResult, list of AgreementResult or list of row dicts
        As for :func:`table_with_notes`.
    style : {"markdown", "latex"}
    digits : int
    columns : sequence of str, optional
    caption, label : str, optional
        LaTeX: the ``table`` float's caption and ``\label``; Markdown: a paragraph above the notes.
    max_width : int, optional
        As for :func:`table_with_notes` (secondary columns left out to fit).

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from softirr_stats import reporting
    >>> df = pd.DataFrame({"coefficient": ["cohen_kappa"], "value": [0.8921], "ci_low": [0.8228],
    ...                    "ci_high": [0.9614], "level": [0.95], "ci_method": ["analytic"], "seconds": [0.1]})
    >>> print(reporting.paper_table(df, "latex"))
    \begin{tabular}{lrr}
    \toprule
    Coefficient & Value & 95\% CI \\
    \midrule
    cohen\_kappa & 0.892 & {}[0.823, 0.961] \\
    \bottomrule
    \end{tabular}
    \par\smallskip{\footnotesize Intervals: 95\% analytic.}
    """
    from softirr_stats.base._format import _escape, latex_notes

    table, notes = table_with_notes(results, style, digits=digits, columns=columns, max_width=max_width)
    numbered = [f"[{i}] {n}" for i, n in enumerate(notes, 1)]
    frame = _as_frame(results)
    interval = " ".join(x for x in (_interval_note(frame), _test_note(frame)) if x) or None
    if style == "markdown":  # the caption and the notes quote names and labels from the data: text, never markup
        lead = " ".join(x for x in (caption, interval) if x)
        return "\n\n".join([table] + ([_escape(lead, "markdown")] if lead else [])
                            + [f"[{i}] {_escape(n, 'markdown')}" for i, n in enumerate(notes, 1)])
    if caption is not None and interval:
        caption = f"{caption.rstrip().rstrip('.')}. {interval}" if caption.strip() else interval
    elif interval:
        numbered.insert(0, interval)
    foot = latex_notes(numbered)
    body = table + ("\n" + foot if foot else "")
    if caption is None and label is None:
        return body
    out = [r"\begin{table}", r"\centering"]
    if caption is not None:
        out.append(r"\caption{" + _escape(caption, "latex") + "}")
    if label is not None:
        out.append(r"\label{" + label + "}")
    return "\n".join([*out, body, r"\end{table}"])


def _render(obj: Any, style: Style, digits: int, columns: Sequence[str] | None, caption: str | None,
            label: str | None) -> str:
    from softirr_stats.base._format import _escape

    if isinstance(obj, AgreementResult) and columns is None:
        if style == "markdown":
            table = obj.to_markdown(digits=digits)
            return table if caption is None else f"{table}\n\n{_escape(caption, 'markdown')}"
        return obj.to_latex(digits=digits, caption=caption, label=label)
    df = _as_frame(obj.to_frame() if isinstance(obj, AgreementResult) else obj)
    df = df.drop(columns=[c for c in df.columns if str(c).lower() in TIMING_COLUMNS])
    if {"coefficient", "value"} <= set(df.columns):
        return paper_table(df, style, digits=digits, columns=columns, caption=caption, label=label)
    note = _interval_note(df)
    if style == "markdown":  # the caption as text, as the cells are
        text = " ".join(x for x in (caption, note) if x) or None
        return render(df, style, digits=digits, columns=columns, caption=text and _escape(text, "markdown"))
    if caption is not None and note:
        caption = f"{caption.rstrip().rstrip('.')}. {note}"
    return render(df, style, digits=digits, columns=columns, caption=caption, label=label)


def to_markdown(obj: Any, *, digits: int = 3, columns: Sequence[str] | None = None,
                caption: str | None = None) -> str:
    """A Markdown (pipe) table of agreement results.

    Parameters
    ----------
    obj : DataFrame, AgreementResult or list of AgreementResult
        E.g. the table :func:`softirr_stats.sensitivity` returns, or several coefficients.
    digits : int
        Decimals of the numbers (significant digits for very small or large ones).
    columns : list of str, optional
        Columns to show (``"ci"`` for the ``[ci_low, ci_high]`` interval). Default for result
        tables: coefficient, similarity and chance (when not all the defaults), value, interval,
        SE, z and p where the results carry a test (the p column named after the test's
        alternative: ``p``, ``p (greater)`` or ``p (less)``), items and raters; any other
        DataFrame shows every column.
    caption : str, optional
        A paragraph under the table (as text: Markdown and HTML in it are escaped, as in the
        cells); a sentence on how the intervals were made follows it when every row shares the
        method, and one naming the tests when rows were tested. When rows carry warnings (or the
        intervals are credible intervals), the table is :func:`paper_table`'s: each warning once,
        as a numbered note.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats import reporting
    >>> x = [["a", "a", "a"], ["b", "b", "a"], ["b", "b", "b"], ["c", "c", "c"], ["a", "b", "a"]]
    >>> rs = [sis.fleiss_kappa(x, ci="analytic"), sis.krippendorff_alpha(x, ci="analytic")]
    >>> print(reporting.to_markdown(rs))
    | Coefficient | Value | 95% CI | SE | z | p | Items | Raters | Note |
    | :-- | --: | --: | --: | --: | --: | --: | --: | :-- |
    | fleiss_kappa | 0.583 | [-0.195, 1.000] | 0.280 | 3.100 | 0.002 | 5 | 3 | 1, 2 |
    | krippendorff_alpha | 0.611 | [-0.168, 1.000] | 0.280 | 2.179 | 0.095 | 5 | 3 | 1, 2 |
    <BLANKLINE>
    Intervals: 95% analytic. Tests: fleiss_kappa: analytic test of H0: coefficient = 0
    (two-sided); H0 variance, Fleiss, Nee &amp; Landis (1979), normal; krippendorff_alpha: analytic
    test of H0: coefficient = 0 (two-sided); irrCAC: value / se, Student t (4 df).
    <BLANKLINE>
    [1] analytic interval: upper limit truncated at 1 (irrCAC convention)
    <BLANKLINE>
    [2] 5 items behind the delta-method interval (fewer than 20): its variance is the spread of the
    per-item terms of so few items, and its coverage there was not measured (simulated 95% bootstrap
    intervals of kappa and alpha covered 51-79% at 5, 74-95% at 8, 83-97% at 10, 91-98% at 15 items,
    94-98% from 20; docs/coverage.md, "Small studies"): read it as rough, and rate more items where a
    conclusion rests on it
    """
    return _render(obj, "markdown", digits, columns, caption, None)


def to_latex(obj: Any, *, digits: int = 3, columns: Sequence[str] | None = None, caption: str | None = None,
             label: str | None = None) -> str:
    r"""A booktabs LaTeX table of agreement results (a ``table`` float with a caption or label).

    Takes what :func:`to_markdown` takes; ``label`` is the ``\label`` key. Needs
    ``\usepackage{booktabs}``.

    Parameters
    ----------
    obj : AgreementResult, list of results or DataFrame
        As for :func:`to_markdown`.
    digits : int
        Decimals of the values.
    columns : sequence of str, optional
        Columns to show (default: the agreement columns present).
    caption : str, optional
        Caption of the ``table`` float.
    label : str, optional
        ``\label`` key of the ``table`` float.

    Returns
    -------
    str

    Examples
    --------
    >>> import pandas as pd
    >>> from softirr_stats import reporting
    >>> df = pd.DataFrame({"coefficient": ["cohen_kappa"], "similarity": ["quadratic"],
    ...                    "value": [0.8921], "ci_low": [0.8228], "ci_high": [0.9614], "level": [0.95]})
    >>> print(reporting.to_latex(df))
    \begin{tabular}{llrr}
    \toprule
    Coefficient & Similarity & Value & 95\% CI \\
    \midrule
    cohen\_kappa & quadratic & 0.892 & {}[0.823, 0.961] \\
    \bottomrule
    \end{tabular}
    """
    return _render(obj, "latex", digits, columns, caption, label)
