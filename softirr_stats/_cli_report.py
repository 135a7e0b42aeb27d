"""``softirr report FILE -o report.html``: a self-contained HTML agreement report."""

from pathlib import Path
from typing import Annotated

import typer

from softirr_stats._cli_common import (
    MEASURES,
    BootstrapOpt,
    DesignOpt,
    InputFormatOpt,
    ItemOpt,
    LabelOpt,
    LevelOpt,
    MethodOpt,
    NaOpt,
    RaterOpt,
    SeedOpt,
    check_choices,
    check_writable,
    collect_warnings,
    command_line,
    fail,
    make_bootstrap,
    read,
    resolve_measures,
    split,
    warn,
)

__all__ = ["report"]


def report(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="annotation file (as for `softirr agree`)")],
    output: Annotated[Path, typer.Option("--output", "-o", help="HTML file to write")] = Path("report.html"),
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    coefficient: Annotated[list[str] | None, typer.Option(
        "--coefficient", "-c", help="coefficient(s), repeat or comma-separate [default: the usual set for the "
                                    "number of raters]")] = None,
    measure: Annotated[list[str] | None, typer.Option(
        "--measure", "-m", help=f"measure(s), repeat or comma-separate: {', '.join(MEASURES)} [default: exact]")]
    = None,
    chance: Annotated[list[str] | None, typer.Option(
        "--chance", help="chance setting(s) for the forest plot: exact, auto, mc:D, sampled:N [default: exact]")]
    = None,
    bootstrap: BootstrapOpt = 1000,
    design: DesignOpt = "items",
    method: MethodOpt = "percentile",
    level: LevelOpt = 0.95,
    seed: SeedOpt = 0,
    judgments: Annotated[Path | None, typer.Option(
        "--judgments", help="CSV of human-judged label pairs (columns label_a, label_b, judgment in [0, 1]) for a "
                            "calibration diagram of the first soft measure")] = None,
    model: Annotated[str | None, typer.Option(
        "--model", help="also fit an annotator model (e.g. dawid_skene, mace) by SVI")] = None,
    model_steps: Annotated[int, typer.Option(help="SVI steps of --model")] = 1000,
    na_values: NaOpt = None,
    input_format: InputFormatOpt = None,
    cache: Annotated[Path | None, typer.Option(
        "--cache", help="SQLite file caching the measures' pair scores across runs")] = None,
) -> None:
    """Write a self-contained HTML report (no network needed to view it) for FILE.

    Sections: data summary, coefficients with intervals, sensitivity forest plot, label-wise
    decomposition (multi-label data), pairwise rater agreement, calibration (with --judgments),
    annotator model (with --model), provenance (versions, seed, settings, input sha256, command).
    """
    from softirr_stats._cli_model import MODELS
    from softirr_stats._cli_sensitivity import parse_chance

    names = split(measure) or ["exact"]
    check_choices(names, MEASURES, "--measure")
    chances = [parse_chance(c) for c in split(chance) or ["exact"]]
    ci = make_bootstrap(bootstrap, design, method, level, seed)
    if model is not None:
        check_choices([model], [m for m in MODELS if m != "soft"], "--model")
    if model_steps < 1:
        fail(f"--model-steps must be a positive integer; got {model_steps}")
    if output.suffix.lower() not in (".html", ".htm"):
        fail(f"--output {output}: the file name must end in .html")
    check_writable(output, "--output")
    coefs = split(coefficient) or None
    if coefs:
        from softirr_stats._sensitivity import coefficient_registry

        check_choices(coefs, sorted(coefficient_registry()), "--coefficient")
    judged = None
    if judgments is not None:
        import pandas as pd

        try:
            judged = pd.read_csv(judgments, keep_default_na=False, dtype={"label_a": str, "label_b": str})
        except (OSError, ValueError, UnicodeDecodeError) as err:
            fail(f"--judgments {judgments}: {err}")
        missing = [c for c in ("label_a", "label_b", "judgment") if c not in judged.columns]
        if missing:
            fail(f"--judgments {judgments} lacks the columns {missing}; the columns are {list(judged.columns)}")
    ann, seen = read(file, item, rater, label, na_values, input_format)
    measures = resolve_measures(names, ann, cache)
    from softirr_stats.reporting import build_report

    command = command_line(ctx)
    with collect_warnings() as caught:
        try:
            page = build_report(ann, measures=measures, coefficients=coefs, chance=chances, ci=ci, judgments=judged,
                                model=model, model_steps=model_steps, seed=seed, source=file,
                                judgments_path=judgments, command=command)
        except (ValueError, TypeError) as err:
            fail(f"cannot build the report: {err}", 1)
    for w in seen + [w for w in caught if w not in seen]:
        warn(w)
    try:
        output.write_text(page, encoding="utf-8")
    except OSError as err:
        fail(f"--output {output} cannot be written: {err.strerror or err}")
    typer.echo(f"wrote {output} ({len(page.encode()) / 1024:.0f} KiB)", err=True)
