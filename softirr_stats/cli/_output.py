"""Output of the ``softirr`` commands: terminal tables, csv, json, and the paper tables of Python.

``markdown`` and ``latex`` are the tables of :func:`softirr_stats.reporting.to_markdown` /
:func:`~softirr_stats.reporting.to_latex` (booktabs, merged ``[lo, hi]``, an interval note;
no timing column). Warnings are printed once, below the table, as numbered notes; a row
refers to its notes by number. Terminal tables fit the terminal: secondary columns are
dropped, in order, until the table fits.
"""

import math
import os
import shlex
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from softirr_stats.base._csvsafe import escape_cell, quoting_for
from softirr_stats.base._format import (
    fixed_number,
    format_p,
    is_p_column,
    json_safe,
    json_text,
    visible_text,
)
from softirr_stats.base._validation import is_warning_text
from softirr_stats.cli._errors import fail, note, one_line, warn

__all__ = ["Notes", "clean", "command_line", "emit", "is_note", "judged_pairs_record", "note_key", "print_table", "provenance_meta", "reading_meta",
           "render", "write_json"]


def _bare(text: str) -> str:
    """``text`` without a leading ``SomethingWarning: `` (the category a caught warning is printed with)."""
    return text.partition(": ")[2] if is_warning_text(text) else text


def note_key(text: str) -> str:
    """What makes two notes the same note: the raw text with its whitespace collapsed and without the
    category a caught warning is printed with (``"FewUnitsWarning: x"`` and ``"x"`` are one note). Compare
    texts before they are escaped for a format.

    Examples
    --------
    >>> note_key("FewUnitsWarning: only  3 items") == note_key("only 3 items")
    True
    """
    return _bare(" ".join(str(text).split()))


def is_note(text: str) -> bool:
    """Whether ``text`` is a note (information, nothing went wrong) rather than a warning: the library's
    :data:`softirr_stats.agreement.NOTE_PREFIXES`, or their command-line wording (:func:`cli_wording`)."""
    from softirr_stats.agreement import NOTE_PREFIXES
    from softirr_stats.cli._options import CLI_NOTE_PREFIXES

    return str(text).startswith((*NOTE_PREFIXES, *CLI_NOTE_PREFIXES))


class Notes:
    """Numbered notes: each distinct text gets one number, printed once below the table."""

    def __init__(self, texts: Sequence[str] = (), read: Sequence[str] = (), computed: Sequence[str] = ()) -> None:
        self.texts: list[str] = []
        # how the data were read (a layout, merged exports) and how a result was computed (a plan's variance):
        # printed as ``note:`` lines, not ``warning:``
        self.read = {one_line(t) for t in (*read, *computed) if not is_warning_text(str(t))}
        for t in texts:
            self.number(t)

    def number(self, text: str) -> int:
        """The note's number; a warning ("FewUnitsWarning: x") and a note ("x") of one cause share one."""
        text = " ".join(str(text).split())
        for i, seen in enumerate(self.texts):
            if note_key(seen) == note_key(text):
                if len(text) > len(seen):  # keep the longer form (the one naming the warning)
                    self.texts[i] = text
                return i + 1
        self.texts.append(text)
        return len(self.texts)

    def refs(self, texts: Sequence[str]) -> str:
        """The numbers of ``texts`` for a row's notes cell, in increasing order, each once ("3,5,6").

        Examples
        --------
        >>> notes = Notes(["a", "b"])
        >>> notes.refs(["c", "a", "c", ""])
        '1,3'
        """
        return ",".join(map(str, sorted({self.number(t) for t in texts if str(t).strip()})))

    def lines(self) -> list[str]:
        return [f"[{i}] {t}" for i, t in enumerate(self.texts, 1)]

    def __bool__(self) -> bool:
        return bool(self.texts)


def _cell(v: Any, digits: int = 4, column: str = "") -> str:
    """A cell of the terminal table: numbers rounded, text from the data with its control characters escaped (a
    label cannot clear the screen or repaint the table; a command that shows labels cuts long ones itself).

    A number that is zero up to floating-point error prints as ``0.0000``, never ``-0.0000``
    (:func:`~softirr_stats.base._format.fixed_number`; at ``digits`` decimals only the sign changes). A p-value
    (``column`` is one, :func:`~softirr_stats.base._format.is_p_column`) below 0.0001 prints in scientific form
    (:func:`~softirr_stats.base._format.format_p`), never as ``0.0000``."""
    if v is None:
        return ""
    if isinstance(v, list | tuple):
        return visible_text("; ".join(map(str, v)))
    if isinstance(v, float):
        if math.isnan(v):
            return ""
        return format_p(v, digits, "") if is_p_column(column) else fixed_number(v, digits)
    return visible_text(v) if isinstance(v, str) else str(v)


def _csv_text(v: Any) -> Any:
    """A CSV cell: text with its control characters escaped, as ``softirr describe`` writes them (JSON keeps texts
    exact); numbers as they are."""
    return visible_text(v, keep="\t") if isinstance(v, str) else v


def clean(v: Any) -> Any:
    """JSON-safe value, at every depth (:func:`softirr_stats.base._format.json_safe`): nan and +-inf -> None,
    NumPy scalars and arrays -> Python, tuples -> lists.

    Examples
    --------
    >>> clean({"r_hat": float("nan"), "ess": [1.5, float("inf")], "n": (1, 2)})
    {'r_hat': None, 'ess': [1.5, None], 'n': [1, 2]}
    """
    return json_safe(v)


def _numeric(rows: list[dict[str, Any]], col: str) -> bool:
    vals = [r.get(col) for r in rows if r.get(col) is not None]
    return bool(vals) and all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals)


def render(rows: list[dict[str, Any]], columns: Sequence[str], fmt: str, title: str,
           meta: dict[str, Any] | None = None, notes: Notes | None = None,
           extra: dict[str, Any] | None = None) -> str:
    """Results as text in ``fmt``: ``csv`` (unrounded, no title), ``json``, ``markdown``, ``latex``.

    ``markdown`` and ``latex`` go through the paper-table formatters of ``softirr_stats.reporting``
    (the same tables as in Python); the notes follow the table, numbered. ``extra``: more tables of the
    result, by name, that only ``json`` holds (after ``results``).
    """
    if fmt == "csv":
        import csv
        import io

        buf = io.StringIO()
        body = [[escape_cell(c) for c in columns]]
        for r in rows:  # names and labels from the data: a cell a spreadsheet would evaluate begins with "'"
            cells = [clean(r.get(c)) for c in columns]
            body.append([escape_cell(_csv_text("" if v is None else "; ".join(map(str, v)) if isinstance(v, list)
                                               else v)) for v in cells])
        w = csv.writer(buf, lineterminator="\n", quoting=quoting_for(c for row in body for c in row))
        w.writerows(body)
        return buf.getvalue()
    if fmt == "json":
        from softirr_stats.base._device import compute_record

        meta = {**(meta or {}), "compute": compute_record()}  # device, JAX backend, models and dtypes
        return json_text({"title": title, "meta": meta, "results": rows, **(extra or {})}) + "\n"
    if fmt in ("markdown", "latex"):
        import pandas as pd

        from softirr_stats.reporting import to_latex, to_markdown

        df = pd.DataFrame(rows)
        if "warnings" in df.columns:  # the paper table numbers each distinct warning once, as in Python
            df["warnings"] = pd.Series([_row_warnings(w) for w in df["warnings"]], index=df.index, dtype=object)
        df = df[[c for c in df.columns if c not in ("seconds", "error", "note")]]
        if {"ci_low", "ci_high"} <= set(df.columns) and "CI" in df.columns:  # the paper table merges the bounds
            df = df.drop(columns=["CI"])
        if _interval_in_title(df, title):  # the caption would say it twice
            df = df.drop(columns=["ci_method"])
        for c in df.columns:  # counts stay integers where a blank (the summary row) made them floats
            given = [r.get(c) for r in rows if r.get(c) is not None]
            if given and all(isinstance(v, int) and not isinstance(v, bool) for v in given):
                df[c] = df[c].astype("Int64")
        caption = visible_text(title.rstrip(".") + ".")
        text = (to_markdown(df, caption=caption) if fmt == "markdown" else to_latex(df, caption=caption))
        text = text.rstrip("\n") + "\n"
        if not notes:
            return text
        # the rows' warnings are numbered under the table; the run's own notes (how the file was read, a note on
        # the data, the test) belong to no row and follow it: compared as raw texts, before escaping
        in_rows = {note_key(w) for ws in (df["warnings"] if "warnings" in df.columns else []) for w in ws}
        joined = [f"; {k};" for k in in_rows if "; " in k]  # a row's text that joined several by "; "
        rest = [_note_text(t, fmt) for t in notes.texts
                if note_key(t) not in in_rows and not any(f"; {note_key(t)};" in j for j in joined)]
        if rest and "warnings" not in df.columns:  # no row has a warning column: the notes are numbered
            if fmt == "markdown":
                text += "\nNotes:\n\n" + "\n".join(f"{i}. {t}" for i, t in enumerate(rest, 1)) + "\n"
            else:  # LaTeX comments: the notes travel with the table without entering the paper unasked
                text += "\n" + "\n".join(f"% [{i}] {t}" for i, t in enumerate(rest, 1)) + "\n"
        elif rest and fmt == "markdown":
            text += "\nAlso noted:\n\n" + "\n".join(f"- {t}" for t in rest) + "\n"
        elif rest:
            text += "\n" + "\n".join(f"% note: {t}" for t in rest) + "\n"
        return text
    raise ValueError(f"fmt must be one of csv, json, markdown, latex; got {fmt!r}")


def _row_warnings(cell: Any) -> tuple[str, ...]:
    """A row's warnings, each whole: a list as it is, a text one warning per line (never split at ``"; "``,
    which a warning's own text may hold)."""
    if isinstance(cell, list | tuple):
        return tuple(str(w) for w in cell if str(w).strip())
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return ()
    return tuple(line for line in str(cell).splitlines() if line.strip())


def _interval_in_title(df: Any, title: str) -> bool:
    """Whether ``title`` already states the interval every row shares (``95% bca-t intervals`` for the rows'
    ``bootstrap-bca-t`` at 0.95), so that the paper table's sentence on the intervals would repeat it. Rows
    with different methods, or credible intervals, keep the sentence."""
    if "ci_method" not in df.columns or "level" not in df.columns:
        return False
    methods = {str(m) for m in df["ci_method"].dropna() if m}
    levels = {float(v) for v in df["level"].dropna()}
    if len(methods) != 1 or len(levels) != 1:
        return False
    method, level = methods.pop(), levels.pop()
    if method.startswith("posterior"):
        return False
    from softirr_stats.base._format import level_text

    name = method.removeprefix("bootstrap-")
    return f"{level_text(level)} {name} interval" in title


def _note_text(text: str, fmt: str) -> str:
    """A note below a Markdown or LaTeX table, escaped for it (a label quoted in a note is text, not markup)."""
    from softirr_stats.base._format import escape_text

    return escape_text(text, "latex" if fmt == "latex" else "markdown")


def _width() -> int:
    if os.isatty(1):
        return shutil.get_terminal_size((120, 24)).columns
    env = os.environ.get("COLUMNS", "")
    return int(env) if env.isdigit() and int(env) > 20 else 160


def print_table(rows: list[dict[str, Any]], columns: Sequence[str], title: str,
                headers: dict[str, str] | None = None, notes: Notes | None = None,
                secondary: Sequence[str] = (), wrap: Sequence[str] = ()) -> None:
    """A rich table on stdout that fits the terminal (``secondary`` columns dropped, in order), notes below.

    ``wrap``: text columns whose cells may break between words (the others never wrap, so
    that numbers stay whole)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    width = _width()
    heads = headers or {}
    cols = list(columns)
    # an interval column without intervals, or a secondary column with no value in any row, says nothing (a value
    # column stays: empty there means undefined)
    cols = [c for c in cols if (c != "CI" and c not in secondary) or any(_cell(r.get(c), column=c) for r in rows)] or cols

    def need(cs: list[str]) -> int:
        return sum(max([len(heads.get(c, c))] + [len(_cell(r.get(c), column=c)) for r in rows]) + 3 for c in cs) + 1

    dropped = []
    for c in secondary:
        if need(cols) <= width:
            break
        if c in cols:
            cols.remove(c)
            dropped.append(heads.get(c, c))
    numeric = {c: _numeric(rows, c) for c in cols}
    squeeze = need(cols) > width  # still too wide: text cells break (numbers stay whole, nothing is cut off)

    def least(cs: list[str]) -> int:  # the narrowest the table can be: whole numbers, text folded to 8 characters
        return sum((max([len(heads.get(c, c))] + [len(_cell(r.get(c), column=c)) for r in rows]) if numeric[c] else
                    min(8, max([len(heads.get(c, c))] + [len(_cell(r.get(c), column=c)) for r in rows]))) + 3 for c in cs) + 1

    while squeeze and least(cols) > width and len(cols) > 1:  # even so too wide: the last columns go, said below
        dropped.append(heads.get(cols[-1], cols[-1]))
        cols.pop()
    console = Console(width=width, soft_wrap=False)
    table = Table(title=escape(visible_text(title)), show_lines=False)
    for c in cols:
        num = numeric[c]
        breaks = c in wrap or (squeeze and not num)
        table.add_column(escape(heads.get(c, c)), justify="right" if num else "left", no_wrap=not breaks,
                         overflow="fold", min_width=None if breaks else len(heads.get(c, c)))
    for r in rows:
        table.add_row(*[escape(_cell(r.get(c), column=c)) for c in cols])
    console.print(table)
    tail = list(notes.lines()) if notes else []
    if dropped:
        tail.append(f"(columns left out to fit {width} characters: {', '.join(dropped)}; use --format csv or a "
                    "wider terminal)")
    for line in tail:
        console.print(escape(visible_text(line)), soft_wrap=True)


def emit(rows: list[dict[str, Any]], columns: Sequence[str], fmt: str, title: str,
         meta: dict[str, Any] | None = None, headers: dict[str, str] | None = None, notes: Notes | None = None,
         secondary: Sequence[str] = (), data_columns: Sequence[str] | None = None,
         extra: dict[str, Any] | None = None) -> None:
    """Print results on stdout in ``fmt``; for csv/json the notes go to stderr as ``warning:`` lines (``note:``
    for the texts a result counts as notes, :func:`is_note`, and for ``notes.read``: how the data were read, how a
    result was computed).
    ``extra``: more tables that only json holds (:func:`render`)."""
    if fmt == "table":
        print_table(rows, columns, title, headers, notes, secondary)
        return
    typer.echo(render(rows, data_columns or columns, fmt, title, meta, notes, extra), nl=False)
    if fmt in ("csv", "json") and notes:
        for t in notes.texts:
            if is_note(t) or t in notes.read:
                note(t)
            else:
                warn(t)


def write_json(path: Path, title: str, meta: dict[str, Any], rows: list[dict[str, Any]],
               extra: dict[str, Any] | None = None) -> None:
    """Write results as JSON (``{"title", "meta", "results"}`` and the ``extra`` tables, nan as null)."""
    try:
        path.write_text(render(rows, [], "json", title, meta, extra=extra), encoding="utf-8")
    except OSError as err:
        fail(f"--json {path} cannot be written: {err.strerror or err}")


def command_line(ctx: Any) -> str:
    """The command as typed (``sys.argv`` of the ``softirr`` script), else rebuilt from ``ctx``'s options."""
    import sys

    if Path(sys.argv[0]).name == "softirr":
        return "softirr " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    words = ["softirr", ctx.info_name or ""]
    for param in ctx.command.params:
        value = ctx.params.get(param.name)
        if param.param_type_name == "argument":
            for v in value if isinstance(value, list | tuple) else [value]:
                words.append(shlex.quote(str(v)))
        elif value not in (None, param.default) and value not in ([], ()):
            if getattr(param, "is_flag", False):
                words.append(param.opts[0] if value else (param.secondary_opts or param.opts)[0])
            else:
                for v in value if isinstance(value, list | tuple) else [value]:
                    words += [param.opts[0], shlex.quote(str(v))]
    return " ".join(w for w in words if w)


def provenance_meta(files: Sequence[Path], judgments: Path | None = None, gold: Path | None = None) -> dict[str, Any]:
    """The JSON ``meta`` that traces a result to its inputs, in every command with a JSON output:
    ``softirr_stats_version``, ``inputs`` (each annotation input's path and sha256: the FILE arguments, a pilot FILE,
    the demo's bundled file; an export folder by :func:`~softirr_stats.base._provenance.path_sha256`) and ``command``
    (as typed). A file of judged label pairs is no annotation input: it is recorded beside its path, as
    ``judgments_sha256`` with ``--judgments`` and ``gold_sha256`` with ``--gold`` (as the HTML report's provenance
    lists the judgments' sha256 after the input files). A blinded sheet is read together with the plan beside it
    (:func:`~softirr_stats.analysis.sheet_plan_file`), whose labels, ``q`` and draws the result depends on: that
    file is recorded beside the sheet, as ``judgments_plan`` and ``judgments_plan_sha256`` (``gold_plan``,
    ``gold_plan_sha256``). The record is :func:`softirr_stats.base._provenance.provenance`, the one the report
    lists. How the inputs were read, where the command line said (:func:`reading_meta`), is ``reading``."""
    from softirr_stats.base._provenance import provenance
    from softirr_stats.cli._options import _click

    ctx = _click("globals").get_current_context(silent=True)
    record = provenance(list(files), command_line(ctx) if ctx is not None else None)
    for key, path in (("judgments", judgments), ("gold", gold)):
        if path is not None:
            record.update(judged_pairs_record(key, path))
    reading = reading_meta(ctx)
    if reading:
        record["reading"] = reading
    return record


#: the reading flags (parameter names) :func:`reading_meta` records: the format, the export's control, layer and
#: feature, the span rule, the cells or labels read as missing, and the other reader options
READING_FLAGS = ("input_format", "field", "layer", "feature", "span_rule", "na_values", "reader_option")


def reading_meta(ctx: Any) -> dict[str, Any]:
    """``{flag name: value}`` of the :data:`READING_FLAGS` given to the running command (``ctx``; {} without one),
    as given (``--na-values`` and ``--reader-option`` as lists): which control of a Label Studio export was read
    (``field``), which labels were read as missing, and so on.
    """
    if ctx is None:
        return {}
    return {name: list(value) if isinstance(value, list | tuple) else value for name in READING_FLAGS
            if (value := ctx.params.get(name)) not in (None, [], ())}


def judged_pairs_record(key: str, path: Path) -> dict[str, str]:
    """``{KEY_sha256}`` of a file of judged pairs, and ``{KEY_plan, KEY_plan_sha256}`` of the plan it is read with
    where it is a blinded sheet (``key``: ``judgments`` or ``gold``, the flag that gave it)."""
    from softirr_stats.analysis import sheet_plan_file
    from softirr_stats.base._provenance import file_sha256

    record = {f"{key}_sha256": file_sha256(path)}
    plan = sheet_plan_file(path)
    if plan is not None:
        record |= {f"{key}_plan": str(plan), f"{key}_plan_sha256": file_sha256(plan)}
    return record
