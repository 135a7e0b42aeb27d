"""``softirr sensitivity``: coefficients x measures x chance settings, with intervals and a forest plot."""

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats._cli_common import (
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
    fail,
    make_bootstrap,
    read,
    resolve_measures,
    split,
    warn,
    write_json,
)

__all__ = ["sensitivity", "parse_chance", "WEIGHTS"]

WEIGHTS = ("linear", "quadratic", "ordinal", "radical", "ratio", "circular", "bipolar")
_COLUMNS = ("coefficient", "similarity", "chance", "value", "ci_low", "ci_high", "se", "observed", "expected",
            "n_items", "n_pairs_scored", "warnings")
_HEADERS = {"n_items": "items", "n_pairs_scored": "pairs scored", "ci_low": "low", "ci_high": "high"}


def parse_chance(text: str) -> Any:
    """``exact``, ``auto``, ``mc:D`` or ``sampled:N`` as a chance setting; errors name ``--chance``."""
    from softirr_stats import MonteCarlo, SampledPairs

    key = text.strip().lower()
    if key in ("exact", "auto"):
        return key
    kind, _, num = key.partition(":")
    makers = {"mc": lambda n: MonteCarlo(permutations=n), "sampled": lambda n: SampledPairs(n=n)}
    if kind in makers:
        try:
            return makers[kind](int(num))
        except ValueError as err:
            fail(f"--chance {text}: {err}" if num.strip().isdigit() else
                 f"--chance {text}: expected {kind}:N with N a positive integer")
    fail(f"unknown --chance {text!r}; choose from exact, auto, mc:D, sampled:N")


def sensitivity(
    file: Annotated[Path, typer.Argument(help="annotation file (as for `softirr agree`)")],
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    coefficient: Annotated[list[str] | None, typer.Option(
        "--coefficient", "-c", help="coefficient(s), repeat or comma-separate (any name of "
                                    "softirr_stats.sensitivity) [default: the usual set for the number of raters]")]
    = None,
    measure: Annotated[list[str] | None, typer.Option(
        "--measure", "-m", help=f"measure(s) or weights, repeat or comma-separate: {', '.join(MEASURES)}, "
                                f"{', '.join(WEIGHTS)} [default: exact]")] = None,
    chance: Annotated[list[str] | None, typer.Option(
        "--chance", help="chance setting(s): exact, auto, mc:D, sampled:N [default: exact]")] = None,
    bootstrap: BootstrapOpt = 1000,
    design: DesignOpt = "items",
    method: MethodOpt = "percentile",
    level: LevelOpt = 0.95,
    seed: SeedOpt = 0,
    fmt: FormatOpt = "table",
    json_out: JsonOpt = None,
    plot: Annotated[Path | None, typer.Option(
        "--plot", help="write the forest plot to this file (.png, .svg or .pdf)")] = None,
    na_values: NaOpt = None,
    input_format: InputFormatOpt = None,
    cache: Annotated[Path | None, typer.Option(
        "--cache", help="SQLite file caching the measures' pair scores across runs")] = None,
    keep_going: Annotated[bool, typer.Option(
        "--keep-going", help="exit 0 even when a setting fails with an error for these data")] = False,
) -> None:
    """Sensitivity analysis: every coefficient x measure x chance setting, with intervals.

    --chance takes exact, auto, mc:D (Monte Carlo chance, D permutations) and sampled:N
    (N sampled label pairs, with a standard error).

    Columns: value = the coefficient (unitless, at most 1); low, high = interval bounds at
    --level (same scale); se = standard error (bootstrap sd, same scale); observed, expected =
    observed and chance agreement (proportions in [0, 1]); items = items used (count);
    pairs scored = label pairs newly scored by the measure for that row (count);
    warnings = why a row is skipped or has no interval.
    """
    check_format(fmt)
    names = split(measure) or ["exact"]
    check_choices(names, (*MEASURES, *WEIGHTS), "--measure")
    chances = [parse_chance(c) for c in split(chance) or ["exact"]]
    ci = make_bootstrap(bootstrap, design, method, level, seed)
    check_writable(json_out, "--json")
    check_writable(plot, "--plot")
    if plot is not None and plot.suffix.lower() not in (".png", ".svg", ".pdf"):
        fail(f"--plot {plot}: the file name must end in .png, .svg or .pdf")
    from softirr_stats._sensitivity import coefficient_registry

    coefs = split(coefficient) or None
    if coefs:
        check_choices(coefs, sorted(coefficient_registry()), "--coefficient")
    ann, seen = read(file, item, rater, label, na_values, input_format)
    resolved = dict(resolve_measures([n for n in names if n in MEASURES], ann, cache))
    sims = [(n, resolved[n]) if n in resolved else (n, n) for n in names]
    import softirr_stats as sis

    with collect_warnings() as caught:
        try:
            df = sis.sensitivity(ann, coefficients=coefs, similarities=sims, chance=chances, ci=ci)
        except (ValueError, TypeError) as err:
            fail(str(err), EXIT_DATA)
    seen += [w for w in caught if w not in seen]
    rows = df.to_dict("records")
    title = (f"Sensitivity, {file.name}: {ann.n_items} items, {ann.n_raters} raters, {len(ann.vocabulary)} labels; "
             f"{ci_title(ci, bootstrap, design, method, level, seed)}")
    meta = {"file": str(file), "bootstrap": bootstrap, "design": design, "method": method, "level": level,
            "seed": seed, "warnings": list(seen)}
    emit(rows, _COLUMNS, fmt, title, meta, _HEADERS if fmt == "table" else None)
    if json_out:
        write_json(json_out, title, meta, rows)
    if plot is not None:
        _plot(df, plot, title)
    for w in seen:
        warn(w)
    errors = [r for r in rows if isinstance(r["warnings"], str) and r["warnings"].startswith("error:")]
    for r in errors:
        typer.echo(f"error: {r['coefficient']} ({r['similarity']}, {r['chance']}): {r['warnings'][7:]}", err=True)
    if errors and not keep_going:
        typer.echo(f"error: {len(errors)} of {len(rows)} settings failed; pass --keep-going to exit 0 anyway",
                   err=True)
        raise typer.Exit(EXIT_DATA)
    if all(isinstance(v, float) and math.isnan(v) for v in df["value"]) and not keep_going:
        typer.echo("error: no setting gave a value (see the warnings column)", err=True)
        raise typer.Exit(EXIT_DATA)


def _plot(df: Any, path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from softirr_stats.reporting import plot_sensitivity

    ax = plot_sensitivity(df, title=title if len(title) < 70 else None)
    ax.figure.tight_layout()
    ax.figure.savefig(path, dpi=150)
    plt.close(ax.figure)
    typer.echo(f"wrote {path}", err=True)
