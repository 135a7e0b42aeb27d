"""Shared pieces of the ``softirr`` commands: errors on stderr, reading, options, output formats.

Only cheap imports at module level (typer, rich): ``softirr --help`` must not import JAX,
SciPy or matplotlib. Every user error goes through :func:`fail`: one line on stderr and a
non-zero exit status (2), never a traceback.
"""

import contextlib
import inspect
import json
import math
import os
import shlex
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

__all__ = [
    "COEFFICIENTS", "DESIGNS", "EXIT_DATA", "EXIT_USAGE", "FORMATS", "MEASURES", "METHODS",
    "check_choices", "check_format", "command_line", "check_writable", "ci_title", "collect_warnings", "emit", "fail",
    "make_bootstrap", "print_table", "read", "render", "resolve_measures", "split", "warn", "write_json",
]

def _coefficient_names() -> tuple[str, ...]:
    from softirr_stats.agreement._registry import COEFFICIENTS as registry

    return tuple(registry)


COEFFICIENTS = _coefficient_names()  # the coefficient registry's names, in registry order
MEASURES = ("exact", "levenshtein", "indel", "lcs", "jaccard", "masi", "dice", "embedding")
DESIGNS = ("items", "raters", "items+raters", "bayesian")
METHODS = ("percentile", "basic", "bca")
FORMATS = ("table", "csv", "json", "markdown", "latex")
EXIT_USAGE = 2  # bad options, unreadable input
EXIT_DATA = 1  # a requested statistic could not be computed for these data

# Options shared by the commands (typer reads the help text and shows the default).
ItemOpt = Annotated[str, typer.Option(help="item (document) column")]
RaterOpt = Annotated[str, typer.Option(help="rater (annotator) column")]
LabelOpt = Annotated[str, typer.Option(help="label column")]
NaOpt = Annotated[list[str] | None, typer.Option(
    "--na-values", help="cell values to read as missing, repeat or comma-separate (default: only empty cells)")]
InputFormatOpt = Annotated[str | None, typer.Option(
    "--input-format", help="input format passed to read_annotations(format=...) (default: from the file)")]
BootstrapOpt = Annotated[int, typer.Option(help="bootstrap replicates B (0 = no interval)")]
DesignOpt = Annotated[str, typer.Option(help=f"bootstrap design: {', '.join(DESIGNS)}")]
MethodOpt = Annotated[str, typer.Option(help=f"interval method: {', '.join(METHODS)}")]
LevelOpt = Annotated[float, typer.Option(help="interval level, in (0, 1)")]
SeedOpt = Annotated[int, typer.Option(help="random seed")]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help=f"output format: {', '.join(FORMATS)}")]
JsonOpt = Annotated[Path | None, typer.Option("--json", help="also write the results as JSON to this file")]


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print ``error: message`` as one line on stderr and exit with ``code``."""
    typer.echo(f"error: {' '.join(str(message).split())}", err=True)
    raise typer.Exit(code=code)


def warn(message: str) -> None:
    """Print ``warning: message`` as one line on stderr."""
    typer.echo(f"warning: {' '.join(str(message).split())}", err=True)


@contextlib.contextmanager
def collect_warnings() -> Iterator[list[str]]:
    """Record every warning raised inside the block as a de-duplicated list of messages."""
    seen: list[str] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield seen
        finally:
            for w in caught:
                msg = f"{w.category.__name__}: {w.message}"
                if msg not in seen:
                    seen.append(msg)


def split(values: Sequence[str] | None) -> list[str]:
    """Flatten repeated and comma-separated option values."""
    out: list[str] = []
    for v in values or []:
        out += [x.strip() for x in v.split(",") if x.strip()]
    return out


def check_writable(path: Path | None, flag: str) -> None:
    """Fail now (before any computation) when ``path`` cannot be written."""
    if path is None:
        return
    if path.is_dir():
        fail(f"{flag} {path} is a directory; give a file name")
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as err:
        fail(f"{flag} {path} cannot be written: {err.strerror or err}")
    if not existed:
        path.unlink(missing_ok=True)


def read(file: Path, item: str, rater: str, label: str, na_values: Sequence[str] | None = None,
         input_format: str | None = None) -> tuple[Any, list[str]]:
    """Read annotations, mapping every input problem to :func:`fail`; returns (ann, warnings)."""
    import softirr_stats as sis

    kwargs: dict[str, Any] = {"item": item, "rater": rater, "label": label}
    params = inspect.signature(sis.read_annotations).parameters
    na = split(na_values)
    if na:  # passed only when given, so the command works with readers that lack the keyword
        if "na_values" not in params:
            fail("--na-values needs a softirr_stats whose read_annotations accepts na_values=")
        kwargs["na_values"] = na
    if input_format is not None:
        kwargs["format"] = input_format
    if not file.exists():
        fail(f"FILE {file} does not exist")
    if file.is_dir():
        fail(f"FILE {file} is a directory; give an annotation file")
    with collect_warnings() as seen:
        try:
            ann = sis.read_annotations(file, **kwargs)
        except (ValueError, TypeError, OSError, UnicodeDecodeError, KeyError) as err:
            fail(f"cannot read {file}: {err}")
    import numpy as np

    unrated = int(((np.asarray(ann.codes) >= 0).sum(axis=1) == 0).sum())
    if unrated:
        seen.append(f"{unrated} of {ann.n_items} items have no rating (every label cell empty or missing); "
                    "no coefficient uses them")
    return ann, list(seen)


def make_bootstrap(bootstrap: int, design: str, method: str, level: float, seed: int) -> Any:
    """A :class:`~softirr_stats.Bootstrap` (or None for ``--bootstrap 0``); errors name the flags."""
    if bootstrap < 0 or bootstrap == 1:
        fail(f"--bootstrap must be 0 (no interval) or at least 2 replicates; got {bootstrap}")
    if design not in DESIGNS:
        fail(f"--design must be one of {', '.join(DESIGNS)}; got {design!r}")
    if method not in METHODS:
        fail(f"--method must be one of {', '.join(METHODS)}; got {method!r}")
    if not (0.0 < level < 1.0) or math.isnan(level):
        fail(f"--level must lie strictly between 0 and 1 (e.g. 0.95); got {level}")
    if seed < 0:
        fail(f"--seed must be a non-negative integer; got {seed}")
    if bootstrap == 0:
        return None
    import softirr_stats as sis

    try:
        return sis.Bootstrap(n=bootstrap, design=design, method=method, level=level, seed=seed)
    except (ValueError, TypeError) as err:
        fail(f"invalid bootstrap options (--bootstrap/--design/--method/--level/--seed): {err}")


def ci_title(ci: Any, bootstrap: int, design: str, method: str, level: float, seed: int) -> str:
    """The interval part of a table title: level, method, B and design."""
    if ci is None:
        return "point estimates, no interval (--bootstrap 0)"
    return f"{level:.0%} {method} intervals, B = {bootstrap} bootstrap replicates, design = {design}, seed = {seed}"


def check_choices(values: Sequence[str], allowed: Sequence[str], flag: str) -> None:
    """Fail with the same message shape for any mistyped name."""
    bad = [v for v in values if v not in allowed]
    if bad:
        fail(f"unknown {flag} {', '.join(repr(b) for b in bad)}; choose from {', '.join(allowed)}")


def _probe_label(ann: Any) -> Any:
    return ann.vocabulary[0] if len(ann.vocabulary) else ""


def resolve_measures(names: Sequence[str], ann: Any, cache: Path | None = None) -> list[tuple[str, Any]]:
    """``[(name, estimator or None), ...]``; a mistyped or incompatible measure fails cleanly.

    Each estimator is tried on one label of the data (a label compared with itself), so a
    measure that cannot score these labels (Levenshtein on numbers) fails before any work.
    With ``cache``, each estimator is wrapped in :class:`~softirr_stats.equivalence.Cached`.
    """
    check_choices(names, MEASURES, "--measure")
    from softirr_stats.equivalence import estimator_from_name

    out: list[tuple[str, Any]] = []
    for name in names:
        if name == "exact":
            out.append((name, None))
            continue
        try:
            est = estimator_from_name(name)
        except (ImportError, OSError, ValueError) as err:
            fail(f"--measure {name} is unavailable: {err}")
        probe = _probe_label(ann)
        try:
            est([probe], [probe])
        except (TypeError, ValueError) as err:
            fail(f"--measure {name} cannot score these labels ({ann.kind} labels such as {probe!r}): {err}")
        if cache is not None:
            from softirr_stats.equivalence import Cached

            try:
                est = Cached(est, cache)
            except (ValueError, TypeError, OSError) as err:
                fail(f"--cache {cache}: {err}")
        out.append((name, est))
    return out


# ----------------------------------------------------------------------------- output formats
def _cell(v: Any, digits: int = 4) -> str:
    if v is None:
        return ""
    if isinstance(v, list | tuple):
        return "; ".join(map(str, v))
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.{digits}f}"
    return str(v)


def _clean(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return None
    if hasattr(v, "item") and not isinstance(v, str | bytes):  # numpy scalars
        with contextlib.suppress(ValueError, AttributeError):
            return _clean(v.item())
    if isinstance(v, tuple | list):
        return [_clean(x) for x in v]
    return v


def _latex_escape(s: str) -> str:
    s = s.replace("\\", "\0")  # placeholder, so the braces of its replacement stay unescaped
    for a, b in (("&", r"\&"), ("%", r"\%"), ("$", r"\$"), ("#", r"\#"), ("_", r"\_"), ("{", r"\{"),
                 ("}", r"\}"), ("~", r"\textasciitilde{}"), ("^", r"\^{}")):
        s = s.replace(a, b)
    return s.replace("\0", r"\textbackslash{}")


def render(rows: list[dict[str, Any]], columns: Sequence[str], fmt: str, title: str,
           meta: dict[str, Any] | None = None, headers: dict[str, str] | None = None) -> str:
    """Results as text in ``fmt`` (``csv``, ``json``, ``markdown``, ``latex``); see :func:`print_table`.

    ``csv`` has unrounded values and no title (a plain table for other tools); ``json`` has
    ``{"title", "meta", "results"}``; markdown and LaTeX round to 4 decimals and carry the
    title as a caption.
    """
    heads = [(headers or {}).get(c, c) for c in columns]
    if fmt == "csv":
        import csv
        import io

        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            cells = [_clean(r.get(c)) for c in columns]
            w.writerow(["" if v is None else "; ".join(map(str, v)) if isinstance(v, list) else v for v in cells])
        return buf.getvalue()
    if fmt == "json":
        payload = {"title": title, "meta": {k: _clean(v) for k, v in (meta or {}).items()},
                   "results": [{k: _clean(v) for k, v in r.items()} for r in rows]}
        return json.dumps(payload, indent=2, default=str) + "\n"
    if fmt == "markdown":
        lines = [f"**{title}**", "", "| " + " | ".join(heads) + " |",
                 "|" + "|".join(" ---: " if _numeric(rows, c) else " --- " for c in columns) + "|"]
        lines += ["| " + " | ".join(_cell(r.get(c)).replace("|", "\\|") for c in columns) + " |" for r in rows]
        return "\n".join(lines) + "\n"
    if fmt == "latex":
        spec = "".join("r" if _numeric(rows, c) else "l" for c in columns)
        lines = [r"\begin{table}[ht]", r"\centering", f"\\caption{{{_latex_escape(title)}}}",
                 f"\\begin{{tabular}}{{{spec}}}", r"\hline", " & ".join(_latex_escape(h) for h in heads) + r" \\",
                 r"\hline"]
        lines += [" & ".join(_latex_escape(_cell(r.get(c))) for c in columns) + r" \\" for r in rows]
        lines += [r"\hline", r"\end{tabular}", r"\end{table}"]
        return "\n".join(lines) + "\n"
    raise ValueError(f"fmt must be one of {FORMATS}; got {fmt!r}")


def _numeric(rows: list[dict[str, Any]], col: str) -> bool:
    vals = [r.get(col) for r in rows if r.get(col) is not None]
    return bool(vals) and all(isinstance(v, int | float) and not isinstance(v, bool) for v in vals)


def print_table(rows: list[dict[str, Any]], columns: Sequence[str], title: str,
                headers: dict[str, str] | None = None, caption: str | None = None) -> None:
    """A rich table on stdout; numbers never truncated (wide console when piped)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console(width=max(Console().width, 120)) if os.isatty(1) else Console(width=160)
    table = Table(title=escape(title), caption=escape(caption) if caption else None, show_lines=False)
    for c in columns:
        num = _numeric(rows, c)
        free = c in ("note", "warnings")  # free text wraps; names and numbers never do
        table.add_column(escape((headers or {}).get(c, c)), justify="right" if num else "left", no_wrap=not free,
                         min_width=7 if num else None, overflow="fold" if free else "ellipsis",
                         ratio=1 if free else None)
    for r in rows:
        table.add_row(*[escape(_cell(r.get(c), 2 if c == "seconds" else 4)) for c in columns])
    console.print(table)


def emit(rows: list[dict[str, Any]], columns: Sequence[str], fmt: str, title: str,
         meta: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
         caption: str | None = None) -> None:
    """Print results on stdout in ``fmt``."""
    if fmt == "table":
        print_table(rows, columns, title, headers, caption)
    else:
        typer.echo(render(rows, columns, fmt, title, meta, headers), nl=False)


def check_format(fmt: str) -> str:
    """Validate ``--format``."""
    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}; got {fmt!r}")
    return fmt


def write_json(path: Path, title: str, meta: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """Write results as JSON (``{"title", "meta", "results"}``, nan as null)."""
    try:
        path.write_text(render(rows, [], "json", title, meta), encoding="utf-8")
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
            words.append(shlex.quote(str(value)))
        elif value not in (None, param.default) and value not in ([], ()):
            if getattr(param, "is_flag", False):
                words.append(param.opts[0] if value else (param.secondary_opts or param.opts)[0])
            else:
                for v in value if isinstance(value, list | tuple) else [value]:
                    words += [param.opts[0], shlex.quote(str(v))]
    return " ".join(w for w in words if w)
