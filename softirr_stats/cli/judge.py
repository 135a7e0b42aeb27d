"""``softirr judge plan``: draw the label pairs a trusted judge scores, as a blinded sheet.

Prediction-powered agreement end to end: ``softirr judge plan FILE -m MEASURE -n N -o
sheet.csv`` writes the sheet (pair id, the two labels in random order, an empty ``judgment``)
and keeps the plan (the estimator's score, the draw probability ``q``) in ``sheet.plan.csv``
beside it, so the judge is not anchored by the score; ``softirr agree FILE --judgments
sheet.csv`` then gives the prediction-powered coefficient with judge-only and estimator-only
beside it.
"""

import math
import shlex
from pathlib import Path
from typing import Annotated

import typer

from softirr_stats.cli._errors import fail, say_read, using
from softirr_stats.cli._options import (
    MEASURES,
    WEIGHTS,
    CategoriesOpt,
    DeviceOpt,
    FeatureOpt,
    FieldOpt,
    InputFormatOpt,
    ItemOpt,
    LabelOpt,
    LayerOpt,
    MeasureAliasOneOpt,
    ModelOpt,
    NaOpt,
    RaterOpt,
    ReaderOpt,
    SpanRuleOpt,
    check_choices,
    check_seed,
    check_writable,
    cli_wording,
    read,
    reader_options,
    resolve_measures,
    similarity_option,
    similarity_value,
)

__all__ = ["NAME", "app", "plan"]

NAME = "judge"
app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode="markdown",
                  help="Prediction-powered agreement: a judging sheet to fill in (then agree --judgments SHEET).")


def _plan_coefficients() -> tuple[str, ...]:
    from softirr_stats.agreement import COEFFICIENTS

    return tuple(c.name for c in COEFFICIENTS.values() if c.judgments)


@app.command("plan")
def plan(
    file: Annotated[Path, typer.Argument(help="annotation file (as for `softirr agree`)")],
    similarity: Annotated[str | None, similarity_option(
        f"the cheap estimator to correct (required): {', '.join(m for m in MEASURES if m != 'exact')}, "
        f"NAME:MODEL, or categorical weights: {', '.join(w for w in WEIGHTS if w != 'identity')} (ordered "
        "weights need numeric labels or --categories)")] = None,
    measure: MeasureAliasOneOpt = None,
    output: Annotated[Path, typer.Option("--output", "-o", help="the sheet to write (CSV); the plan goes beside "
                                                                "it as <name>.plan.csv")] = Path("sheet.csv"),
    n: Annotated[int, typer.Option("-n", "--n", help="judging budget: number of draws (a pair drawn twice is "
                                                     "judged once)")] = 200,
    gold_n: Annotated[int | None, typer.Option(
        "--gold-n", help="two-stage design: a random subsample of N of the -n draws is judged again by a gold judge "
                         "(an expert); the sheet gets a 'gold' column (filled on those rows, n/a elsewhere) and "
                         "agree --judgments then targets the gold judge's coefficient")] = None,
    coefficient: Annotated[str, typer.Option(
        "--coefficient", "-c", help="the coefficient the judgments serve")] = "krippendorff_alpha",
    strategy: Annotated[str, typer.Option(help="uniform (pair weights) or active (also by sqrt(f(1-f)))")]
    = "uniform",
    uniform_share: Annotated[float | None, typer.Option(
        "--uniform-share", help="share of the uniform design mixed into --strategy active, in (0, 1] "
                                "[default: 0.2]")] = None,
    categories: CategoriesOpt = None,
    seed: Annotated[int, typer.Option(help="seed of the draws and of the sheet's order", callback=check_seed)] = 0,
    blinded: Annotated[bool, typer.Option("--blinded/--unblinded", help="hide the estimator's score and q from "
                                          "the judge (keep them in the plan file)")] = True,
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    model: ModelOpt = None,
    na_values: NaOpt = None,
    input_format: InputFormatOpt = None,
    field: FieldOpt = None,
    layer: LayerOpt = None,
    feature: FeatureOpt = None,
    span_rule: SpanRuleOpt = None,
    reader_option: ReaderOpt = None,
    device: DeviceOpt = "auto",
) -> None:
    """Write a judging sheet for FILE: label pairs drawn with known probabilities, for a trusted judge."""
    import softirr_stats as sis
    from softirr_stats.analysis import plan_path_for, write_judging_sheet

    # names as agree reads them: stripped, and case-sensitive (-m Identity is an unknown name there and here)
    measure = similarity_value(similarity, measure).strip()
    if measure in ("exact", "identity"):  # identity weights are exact matching
        fail(f"--similarity {measure} needs no judge; give the soft measure whose scores the judgments correct")
    check_choices([coefficient], _plan_coefficients(), "--coefficient")
    check_choices([strategy], ("uniform", "active"), "--strategy")
    if uniform_share is not None:
        if strategy != "active":
            fail("--uniform-share mixes the uniform design into --strategy active; give --strategy active or leave "
                 "out --uniform-share")
        if math.isnan(uniform_share) or not 0.0 < uniform_share <= 1.0:
            fail(f"--uniform-share must lie in (0, 1] (e.g. 0.2; 1 is the uniform design); got {uniform_share}")
    if n < 1 or n > 10**7:
        fail(f"-n must be a positive number of draws (at most 10000000); got {n}")
    if gold_n is not None and not 1 <= gold_n <= n:
        fail(f"--gold-n must be a number of draws from 1 to -n ({n}): the gold draws are a subsample of the judged "
             f"draws; got {gold_n}")
    if output.suffix.lower() != ".csv":
        fail(f"--output {output}: the sheet is a CSV file; the name must end in .csv")
    check_writable(output, "--output", [file])
    if blinded:
        check_writable(plan_path_for(output), "--output (its plan file)", [file])
    opts = reader_options(field, layer, feature, span_rule, reader_option)
    ann, notes = read(file, item, rater, label, na_values, input_format, opts, categories)
    (name, est), = resolve_measures([measure], ann, None, model, weights=WEIGHTS)
    # a weight name is judging_plan's weights= (the ordered ones checked against the labels' order there)
    sim = dict(similarity=None, weights=name) if name in WEIGHTS else dict(similarity=est)
    share = {} if uniform_share is None else dict(uniform_share=uniform_share)
    try:
        drawn = sis.judging_plan(ann, **sim, n=n, coefficient=coefficient, strategy=strategy, seed=seed,
                                 gold_n=gold_n, **share)
    except ValueError as err:
        fail(f"cannot draw a judging plan for {file.name}: {cli_wording(str(err))}", 1)
    with using("--output", output):
        sheet, kept = write_judging_sheet(drawn, output, similarity=name, seed=seed, blinded=blinded)
    say_read(notes)
    # agree must read FILE as this command did (the same reader options, missing values and --categories: the
    # plan's q is over the declared categories), or its data are not the plan's and the value silently differs
    follow = agree_command(file, name, coefficient, sheet, item=item, rater=rater, label=label, na_values=na_values,
                           input_format=input_format, field=field, layer=layer, feature=feature, span_rule=span_rule,
                           reader_option=reader_option, categories=categories, model=model)
    what = f"{len(drawn.pairs)} distinct pairs from {drawn.n} draws, for {coefficient} with -m {name}"
    if gold_n is not None:
        rows = int((drawn.pairs["gold_draws"] > 0).sum())
        what += f"; {gold_n} gold draws on {rows} pairs: the gold judge fills their empty 'gold' cells"
    if kept is None:
        typer.echo(f"wrote {sheet} ({what}; unblinded: the score and q are in view)", err=True)
    else:
        typer.echo(f"wrote {sheet} ({what}) and {kept} (keep it beside the sheet: it holds the scores and q). Fill "
                   f"the judgment column with values in [0, 1], then: {follow}", err=True)


def agree_command(file: Path, similarity: str, coefficient: str, sheet: Path, *, item: str = "item",
                  rater: str = "rater", label: str = "label", na_values: list[str] | None = None,
                  input_format: str | None = None, field: str | None = None, layer: str | None = None,
                  feature: str | None = None, span_rule: str | None = None, reader_option: list[str] | None = None,
                  categories: str | None = None, model: str | None = None) -> str:
    """The ``softirr agree`` command that reads FILE as ``judge plan`` did and applies the judged sheet, quoted for
    a POSIX shell (paths with spaces included).

    Examples
    --------
    >>> agree_command(Path("my data.csv"), "levenshtein", "fleiss_kappa", Path("sheet.csv"), na_values=["?"],
    ...               rater="annot")
    "softirr agree 'my data.csv' -m levenshtein -c fleiss_kappa --rater annot --na-values '?' --judgments sheet.csv"
    """
    parts = ["softirr", "agree", str(file), "-m", similarity, "-c", coefficient]
    for flag, value, default in (("--item", item, "item"), ("--rater", rater, "rater"), ("--label", label, "label")):
        if value != default:
            parts += [flag, value]
    for flag, values in (("--na-values", na_values), ("--reader-option", reader_option)):
        for value in values or ():
            parts += [flag, value]
    for flag, value in (("--input-format", input_format), ("--field", field), ("--layer", layer),
                        ("--feature", feature), ("--span-rule", span_rule), ("--categories", categories),
                        ("--model", model)):
        if value is not None:
            parts += [flag, value]
    return shlex.join([*parts, "--judgments", str(sheet)])
