"""``softirr report FILE -o report.html``: a self-contained HTML agreement report."""

from pathlib import Path
from typing import Annotated

import typer

from softirr_stats.cli._errors import EXIT_DATA, fail, say_read, using, warn
from softirr_stats.cli._item_groups import ClusterOpt, StrataOpt, apply_groups, grouped_design
from softirr_stats.cli._options import (
    CHANCE_HELP,
    COEFFICIENTS,
    DEFAULT_LEVEL,
    LABEL_MODELS,
    LEVEL_FORMS,
    LEVEL_HELP,
    SIMILARITIES,
    WEIGHTS,
    AnalyticOpt,
    BootstrapOpt,
    CacheOpt,
    CategoriesOpt,
    ChanceOpt,
    DesignOpt,
    DeviceOpt,
    DistanceOpt,
    FeatureOpt,
    FieldOpt,
    InputFormatOpt,
    ItemOpt,
    LabelOpt,
    LayerOpt,
    LevelOpt,
    MeasureAliasOpt,
    MethodOpt,
    NaOpt,
    RaterOpt,
    ReaderOpt,
    SeedOpt,
    SpanRuleOpt,
    chance_settings,
    check_choices,
    check_similarities,
    check_writable,
    cli_wording,
    distance_registry,
    given_flags,
    make_interval,
    na_values_list,
    read,
    reader_options,
    resolve_measures,
    similarity_option,
    similarity_values,
    split,
)
from softirr_stats.cli._output import command_line
from softirr_stats.cli.model import run_length

__all__ = ["NAME", "EPILOG", "command", "model_flags"]

NAME = "report"
EPILOG = f"--chance takes {CHANCE_HELP}."



def model_flags(model: str | None, method: str | None, steps: int | None) -> str | None:
    """The refusal of ``--model-method`` / ``--model-steps`` where they would not be used, or None.

    ``method`` and ``steps`` are None where not given. Both need ``--model``; ``--model-steps`` needs
    ``--model-method svi`` (NUTS takes no steps), and they must be positive and countable (:func:`run_length`).

    Examples
    --------
    >>> model_flags(None, "svi", None)
    '--model-method is a setting of --model (the annotator model fitted for the report); no --model was given'
    >>> model_flags("mace", None, 200)
    '--model-steps is a setting of --model-method svi (SVI optimisation steps); --model-method nuts (the default) takes none'
    >>> model_flags("mace", "svi", 200) is None
    True
    """
    given = [flag for flag, v in (("--model-method", method), ("--model-steps", steps)) if v is not None]
    if model is None and given:
        which = f"{given[0]} is a setting" if len(given) == 1 else f"{given[0]} and {given[1]} are settings"
        return f"{which} of --model (the annotator model fitted for the report); no --model was given"
    if steps is not None and steps < 1:
        return f"--model-steps must be a positive integer; got {steps}"
    too_long = run_length(steps, steps_flag="--model-steps")
    if too_long:
        return too_long
    if steps is not None and method != "svi":
        return (f"--model-steps is a setting of --model-method svi (SVI optimisation steps); --model-method nuts"
                f"{' (the default)' if method is None else ''} takes none")
    return None


def command(
    ctx: typer.Context,
    files: Annotated[list[Path], typer.Argument(help="annotation file(s) (as for `softirr agree`)")],
    output: Annotated[Path, typer.Option("--output", "-o", help="HTML file to write")] = Path("report.html"),
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    coefficient: Annotated[list[str] | None, typer.Option(
        "--coefficient", "-c", help=f"coefficient(s), repeat or comma-separate, as for agree; {LEVEL_HELP} "
                                    "[default: the usual set for the number of raters]")] = None,
    similarity: Annotated[list[str] | None, similarity_option(
        f"similarities, repeat or comma-separate: {', '.join(SIMILARITIES)}, a JSON estimator spec or @spec.json "
        "[default: exact]")] = None,
    measure: MeasureAliasOpt = None,
    chance: ChanceOpt = None,
    bootstrap: BootstrapOpt = 1000,
    design: DesignOpt = "items",
    cluster: ClusterOpt = None,
    strata: StrataOpt = None,
    method: MethodOpt = "auto",
    level: LevelOpt = DEFAULT_LEVEL,
    analytic: AnalyticOpt = False,
    seed: SeedOpt = 0,
    judgments: Annotated[Path | None, typer.Option(
        "--judgments", help="human-judged label pairs: a filled sheet of `softirr judge plan` (its plan beside it) or "
                            "a CSV with columns label_a, label_b, judgment in [0, 1], for a "
                            "calibration diagram of the first soft measure")] = None,
    model: Annotated[str | None, typer.Option(
        "--model", help=f"also fit an annotator model ({', '.join(LABEL_MODELS)}), by NUTS (2 chains x 500 draws, "
                        "500 warm-up) unless --model-method svi")] = None,
    # None: not given (the defaults below, stated in the help); either one without --model is refused
    model_method: Annotated[str | None, typer.Option(
        help="inference for --model: nuts (MCMC) or svi (variational, faster) [default: nuts]")] = None,
    model_steps: Annotated[int | None, typer.Option(
        help="SVI steps of --model (--model-method svi only) [default: 1000]")] = None,
    na_values: NaOpt = None,
    input_format: InputFormatOpt = None,
    field: FieldOpt = None,
    layer: LayerOpt = None,
    feature: FeatureOpt = None,
    span_rule: SpanRuleOpt = None,
    reader_option: ReaderOpt = None,
    categories: CategoriesOpt = None,
    cache: CacheOpt = None,
    device: DeviceOpt = "auto",
    distance_option: DistanceOpt = None,
) -> None:
    """Write a self-contained HTML report (no network needed to view it) for FILE.

    Sections: data summary, coefficients with intervals, sensitivity forest plot, label-wise
    decomposition (multi-label data), pairwise rater agreement, calibration (with --judgments),
    annotator model (with --model), provenance (versions, seed, settings, input sha256, command).
    """
    names = similarity_values(similarity, measure) or ["exact"]
    check_similarities(names, SIMILARITIES)
    chances = chance_settings(chance, seed)
    design, request = grouped_design(design, cluster, strata, design_given=bool(given_flags("design")),
                                     analytic=analytic, bootstrap=bootstrap, n_files=len(files))
    ci = make_interval(analytic, bootstrap, request, method, level, seed,
                       level_used=model is not None)  # the annotator model's posterior interval
    if model is not None:
        check_choices([model], LABEL_MODELS, "--model")
    if model_method is not None:
        check_choices([model_method], ("nuts", "svi"), "--model-method")
    wrong = model_flags(model, model_method, model_steps)
    if wrong:
        fail(wrong)
    model_method, model_steps = model_method or "nuts", 1000 if model_steps is None else model_steps
    if output.suffix.lower() not in (".html", ".htm"):
        fail(f"--output {output}: the file name must end in .html")
    check_writable(output, "--output", [*files, judgments])
    coefs = split(coefficient, "--coefficient") or None
    if coefs:
        check_choices(coefs, (*COEFFICIENTS, *LEVEL_FORMS), "--coefficient")
    registry = distance_registry(distance_option, coefs, seed)  # the options checked before reading, as in agree
    judged = None
    if judgments is not None:
        import pandas as pd

        from softirr_stats.cli._errors import reading

        if not judgments.exists():
            fail(f"--judgments {judgments} does not exist")
        with reading(judgments, "--judgments"):
            judged = pd.read_csv(judgments, keep_default_na=False, dtype={"label_a": str, "label_b": str})
            if "pair_id" in judged.columns and "label_a" not in judged.columns:  # a blinded sheet from judge plan
                from softirr_stats.analysis import read_judging_sheet

                judged = read_judging_sheet(judgments)[0]
        missing = [c for c in ("label_a", "label_b", "judgment") if c not in judged.columns]
        if missing:
            fail(f"--judgments {judgments} lacks the columns {missing}; the columns are {list(judged.columns)}")
    opts = reader_options(field, layer, feature, span_rule, reader_option)
    ann, seen = read(files, item, rater, label, na_values, input_format, opts, categories)
    ci = apply_groups(ci, design, cluster, strata, files, [ann], item, input_format, na_values_list(na_values))
    measures = resolve_measures(names, ann, cache, weights=WEIGHTS, model_flag=False)
    from softirr_stats.reporting import build_report

    command = command_line(ctx)
    import warnings

    with warnings.catch_warnings(record=True) as caught, using("--cache", cache):
        warnings.simplefilter("always")
        try:
            page = build_report(ann, measures=measures, coefficients=coefs, chance=chances, ci=ci, judgments=judged,
                                model=model, model_steps=model_steps, model_method=model_method, model_level=level,
                                seed=seed, source=files,  # every input file, each with its sha256
                                judgments_path=judgments, command=command, wording=cli_wording, read_notes=seen,
                                registry=registry)
        except (ValueError, TypeError) as err:
            fail(f"cannot build the report: {cli_wording(str(err))}", EXIT_DATA)
    said = dict.fromkeys(f"{c.category.__name__}: {c.message}" for c in caught)
    say_read(seen)  # how the data were read: a note, unless it is a warning raised while reading
    for w in said:
        if w not in seen:
            warn(w)
    try:
        output.write_text(page, encoding="utf-8")
    except OSError as err:
        fail(f"--output {output} cannot be written: {err.strerror or err}")
    typer.echo(f"wrote {output} ({len(page.encode()) / 1024:.0f} KiB)", err=True)
