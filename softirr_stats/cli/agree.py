"""``softirr agree FILE...``: agreement coefficients (hard and soft) with intervals."""

from pathlib import Path
from typing import Annotated

import typer

from softirr_stats.cli._grid import (
    COLUMNS_HELP,
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
    scale_note,
)
from softirr_stats.cli._item_groups import (
    ClusterOpt,
    StrataOpt,
    apply_groups,
    grouped_design,
    groups_meta,
)
from softirr_stats.cli._options import (
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

NAME = "agree"
EPILOG = COLUMNS_HELP
FilesArg = Annotated[list[Path], typer.Argument(
    help="annotation file(s): CSV, TSV or JSONL in long format (one row per rating), or an export "
         "read_annotations understands; several per-annotator exports are merged")]


def command(
    files: FilesArg,
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    coefficient: Annotated[list[str] | None, typer.Option(
        "--coefficient", "-c", help=f"coefficient(s), repeat or comma-separate: {', '.join(COEFFICIENTS)}, "
                                    f"{LEVEL_HELP} [default: krippendorff_alpha, or the plan's with --judgments]")] = None,
    similarity: Annotated[list[str] | None, similarity_option(
        f"similarity (equivalence measure or weights), repeat or comma-separate: {', '.join(SIMILARITIES)}, "
        "NAME:MODEL, a JSON estimator spec or @spec.json [default: exact, or the plan's with --judgments]")] = None,
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
        "--keep-going", help="exit 0 even when a coefficient cannot be computed for these data")] = False,
    device: DeviceOpt = "auto",
    distance_option: DistanceOpt = None,
) -> None:
    """Agreement coefficients (hard and soft) with bootstrap intervals (or analytic ones, --analytic) for FILE.

    Errors go to stderr as one line; the exit status is 2 for bad options or input, 1 when a
    requested coefficient cannot be computed for the data (unless --keep-going).
    """
    check_format(fmt)
    check_choices([test_method], TEST_METHODS, "--test-method")
    check_test_options(test, test_method, alternative, null)
    judged, plan = load_judgments(judgments)
    coefs = split(coefficient, "--coefficient") or [plan.get("coefficient") or "krippendorff_alpha"]
    check_choices(coefs, (*COEFFICIENTS, *LEVEL_FORMS), "--coefficient")
    check_fisher_null(coefs, null)
    names = similarity_values(similarity, measure) or [plan.get("similarity") or "exact"]
    check_similarities(names, SIMILARITIES)
    if judged is not None and plan.get("similarity") and names != [plan["similarity"]]:
        from softirr_stats.cli._errors import fail

        fail(f"--judgments {judgments} was drawn for --similarity {plan['similarity']}; give -m {plan['similarity']} "
             f"(got {', '.join(names)})")
    chances = chance_settings(chance, seed)
    design, request = grouped_design(design, cluster, strata, design_given=bool(given_flags("design")),
                                     analytic=analytic, bootstrap=bootstrap, n_files=len(files))
    ci = make_interval(analytic, bootstrap, request, method, level, seed, judged=judged is not None)
    check_writable(json_out, "--json", [*files, judgments])
    registry = distance_registry(distance_option, coefs, seed)  # the options checked before reading
    opts = reader_options(field, layer, feature, span_rule, reader_option)
    ann, notes = read(files, item, rater, label, na_values, input_format, opts, categories)
    check_set_categories(ann, coefs, categories)
    ci = apply_groups(ci, design, cluster, strata, files, [ann], item, input_format, na_values_list(na_values))
    measures = resolve_measures(names, ann, cache, model, weights=WEIGHTS)
    rows, said = grid_rows(ann, coefs, measures, chances, ci, judged, cache, registry)
    from softirr_stats.analysis import SCORE_COEFFICIENTS

    # the statistics of scores, and alpha at a level other than nominal, have their own distance: no scale note
    label_coefs = [c for c in coefs if c not in SCORE_COEFFICIENTS and c.partition(":")[2] in ("", "nominal")]
    said = [*scale_note(ann, names, WEIGHTS, label_coefs), *said]
    if test:
        said = [*said, *add_tests(rows, ann, measures, method=test_method, seed=seed, judged=judged is not None,
                                 alternative=alternative, null=null)]
    name = files[0].name if len(files) == 1 else f"{len(files)} files"
    shown_method = "percentile" if judged is not None and method == "auto" else method  # auto keeps it for PPI
    title = f"{header(name, ann, rows)}; {ci_title(ci, bootstrap, design, shown_method, level, seed, ann.n_items)}"
    if judged is not None:
        title += f"; prediction-powered with {len(judged)} judged pairs ({judgments.name})"
    interval = ({"analytic": True} if analytic else
                {"bootstrap": bootstrap, "design": design, "method": method, **groups_meta(cluster, strata)})
    meta = {"file": [str(f) for f in files] if len(files) > 1 else str(files[0]), "n_items": ann.n_items,
            "n_raters": ann.n_raters, "n_labels": len(ann.vocabulary), **interval, "level": level, "seed": seed,
            "chance": [str(c) for c in split(chance) or ["exact"]],
            "coefficients": coefs, "similarities": names,  # as given: -m exact is exact matching ("identity")
            "judgments": str(judgments) if judgments else None, **provenance_meta(files, judgments),
            **meta_of_tests(test, test_method, alternative, null)}
    present(rows, [*notes, *said], fmt=fmt, title=title, meta=meta, json_out=json_out, keep_going=keep_going,
            strict=True, read=notes)
