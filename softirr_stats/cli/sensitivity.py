"""``softirr sensitivity``: coefficients x measures x chance settings, with intervals and a forest plot."""

from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats.cli._errors import fail
from softirr_stats.cli._grid import (
    TEST_METHODS,
    AlternativeOpt,
    NullOpt,
    TestMethodOpt,
    TestOpt,
    add_tests,
    check_fisher_null,
    check_test_options,
    grid_rows,
    header,
    load_judgments,
    meta_of_tests,
    present,
)
from softirr_stats.cli._item_groups import (
    ClusterOpt,
    StrataOpt,
    apply_groups,
    grouped_design,
    groups_meta,
)
from softirr_stats.cli._options import (
    CHANCE_HELP,
    COEFFICIENTS,
    DEFAULT_LEVEL,
    LEVEL_FORMS,
    LEVEL_HELP,
    SIMILARITIES,
    WEIGHTS,
    AnalyticOpt,
    BootstrapOpt,
    CacheOpt,
    CategoriesOpt,
    ChanceOpt,
    DeviceOpt,
    DistanceOpt,
    FeatureOpt,
    FieldOpt,
    FormatOpt,
    InputFormatOpt,
    ItemOpt,
    JsonOpt,
    JudgedDesignOpt,
    JudgmentsOpt,
    LabelOpt,
    LayerOpt,
    LevelOpt,
    MeasureAliasOpt,
    MethodOpt,
    ModelOpt,
    NaOpt,
    RaterOpt,
    ReaderOpt,
    SeedOpt,
    SpanRuleOpt,
    chance_settings,
    check_choices,
    check_format,
    check_set_categories,
    check_similarities,
    check_writable,
    ci_title,
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
from softirr_stats.cli._output import provenance_meta

__all__ = ["NAME", "EPILOG", "command"]

NAME = "sensitivity"
EPILOG = (f"--chance takes {CHANCE_HELP}. Columns: value = the coefficient (unitless, at most 1); CI = interval "
          "at --level (ci_low, ci_high in csv/json; same scale); observed, expected = observed and chance agreement "
          "(proportions in [0, 1]); items = items used (count; 0 where the row did not run); pairs scored = label pairs newly scored by the "
          "measure for that row (count); with --test, z, the p column named after --alternative and the "
          "Landis-Koch band, as agree --test gives them; notes = numbers of the notes below the table (why a row is skipped or has "
          "no interval, printed once each).")


def command(
    files: Annotated[list[Path], typer.Argument(help="annotation file(s) (as for `softirr agree`)")],
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    coefficient: Annotated[list[str] | None, typer.Option(
        "--coefficient", "-c", help=f"coefficient(s), repeat or comma-separate: {', '.join(COEFFICIENTS)}, "
                                    f"{LEVEL_HELP} [default: the usual set for the number of raters]")] = None,
    similarity: Annotated[list[str] | None, similarity_option(
        f"similarities (equivalence measures or weights), repeat or comma-separate: {', '.join(SIMILARITIES)}, "
        "NAME:MODEL, a JSON estimator spec or @spec.json [default: exact]")] = None,
    measure: MeasureAliasOpt = None,
    chance: ChanceOpt = None,
    bootstrap: BootstrapOpt = 1000,
    design: JudgedDesignOpt = "items",
    cluster: ClusterOpt = None,
    strata: StrataOpt = None,
    method: MethodOpt = "auto",
    level: LevelOpt = DEFAULT_LEVEL,
    analytic: AnalyticOpt = False,
    seed: SeedOpt = 0,
    fmt: FormatOpt = "table",
    json_out: JsonOpt = None,
    plot: Annotated[Path | None, typer.Option(
        "--plot", help="write the forest plot to this file (.png, .svg or .pdf)")] = None,
    judgments: JudgmentsOpt = None,
    model: ModelOpt = None,
    na_values: NaOpt = None,
    input_format: InputFormatOpt = None,
    field: FieldOpt = None,
    layer: LayerOpt = None,
    feature: FeatureOpt = None,
    span_rule: SpanRuleOpt = None,
    reader_option: ReaderOpt = None,
    categories: CategoriesOpt = None,
    cache: CacheOpt = None,
    test: TestOpt = False,
    test_method: TestMethodOpt = "permutation",
    alternative: AlternativeOpt = "two-sided",
    null: NullOpt = None,
    keep_going: Annotated[bool, typer.Option(
        "--keep-going", help="exit 0 even when a setting fails with an error for these data")] = False,
    device: DeviceOpt = "auto",
    distance_option: DistanceOpt = None,
) -> None:
    """Sensitivity analysis: every coefficient x measure x chance setting, with intervals."""
    check_format(fmt)
    check_choices([test_method], TEST_METHODS, "--test-method")
    check_test_options(test, test_method, alternative, null)
    judged, plan = load_judgments(judgments)
    names = similarity_values(similarity, measure) or [plan.get("similarity") or "exact"]
    check_similarities(names, SIMILARITIES)
    chances = chance_settings(chance, seed)
    design, request = grouped_design(design, cluster, strata, design_given=bool(given_flags("design")),
                                     analytic=analytic, bootstrap=bootstrap, n_files=len(files))
    ci = make_interval(analytic, bootstrap, request, method, level, seed, judged=judged is not None)
    check_writable(json_out, "--json", [*files, judgments, plot])
    check_writable(plot, "--plot", [*files, judgments])
    if plot is not None and plot.suffix.lower() not in (".png", ".svg", ".pdf"):
        fail(f"--plot {plot}: the file name must end in .png, .svg or .pdf")
    coefs = split(coefficient, "--coefficient") or ([plan["coefficient"]] if plan.get("coefficient") else None)
    if coefs:
        check_choices(coefs, (*COEFFICIENTS, *LEVEL_FORMS), "--coefficient")
    check_fisher_null(coefs or [], null)
    registry = distance_registry(distance_option, coefs, seed)  # the options checked before reading
    opts = reader_options(field, layer, feature, span_rule, reader_option)
    ann, notes = read(files, item, rater, label, na_values, input_format, opts, categories)
    check_set_categories(ann, coefs, categories)
    ci = apply_groups(ci, design, cluster, strata, files, [ann], item, input_format, na_values_list(na_values))
    measures = resolve_measures(names, ann, cache, model, weights=WEIGHTS)
    rows, said = grid_rows(ann, coefs, measures, chances, ci, judged, cache, registry)
    if test:  # agree --test's tests, rows and notes alike
        said = [*said, *add_tests(rows, ann, measures, method=test_method, seed=seed, judged=judged is not None,
                                 alternative=alternative, null=null)]
    name = files[0].name if len(files) == 1 else f"{len(files)} files"
    shown = "percentile" if judged is not None and method == "auto" else method  # auto keeps it for PPI
    title = f"Sensitivity, {header(name, ann, rows)}; {ci_title(ci, bootstrap, design, shown, level, seed, ann.n_items)}"
    interval = ({"analytic": True} if analytic else
                {"bootstrap": bootstrap, "design": design, "method": method, **groups_meta(cluster, strata)})
    meta = {"file": [str(f) for f in files] if len(files) > 1 else str(files[0]), **interval, "level": level,
            "seed": seed, "coefficients": coefs or list(dict.fromkeys(str(r["coefficient"]) for r in rows)),
            "similarities": names, "chance": [str(c) for c in split(chance) or ["exact"]],
            "judgments": str(judgments) if judgments else None, **provenance_meta(files, judgments),
            **meta_of_tests(test, test_method, alternative, null)}
    if plot is not None:
        _plot(rows, plot, title)
    present(rows, [*notes, *said], fmt=fmt, title=title, meta=meta, json_out=json_out, keep_going=keep_going,
            strict=False, read=notes)


def _plot(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd

    from softirr_stats.reporting import plot_sensitivity

    df = pd.DataFrame([{**r, "warnings": "; ".join(r["warnings"])} for r in rows])
    ax = plot_sensitivity(df, title=title if len(title) < 70 else None)
    ax.figure.tight_layout()
    try:
        ax.figure.savefig(path, dpi=150)
    except OSError as err:
        fail(f"--plot {path} cannot be written: {err.strerror or err}")
    finally:
        plt.close(ax.figure)
    typer.echo(f"wrote {path}", err=True)
