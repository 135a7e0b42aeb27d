"""``softirr plan``: how many items a study needs, from a pilot file or from assumed values."""

import warnings
from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats.agreement import COEFFICIENTS as REGISTRY
from softirr_stats.base._suggest import did_you_mean
from softirr_stats.cli._errors import fail
from softirr_stats.cli._grid import load_judgments
from softirr_stats.cli._options import (
    DEFAULT_LEVEL,
    MEASURES,
    WEIGHTS,
    CacheOpt,
    CategoriesOpt,
    FeatureOpt,
    FieldOpt,
    FormatOpt,
    InputFormatOpt,
    ItemOpt,
    JsonOpt,
    JudgmentsOpt,
    LabelOpt,
    LayerOpt,
    MeasureAliasOpt,
    ModelOpt,
    NaOpt,
    RaterOpt,
    ReaderOpt,
    SeedOpt,
    SpanRuleOpt,
    categories_list,
    check_choices,
    check_format,
    check_probability,
    check_replicates,
    check_seed,
    check_similarities,
    check_writable,
    cli_wording,
    given_flags,
    read,
    reader_options,
    resolve_measures,
    similarity_option,
    similarity_values,
    split,
)
from softirr_stats.cli._output import Notes, emit, provenance_meta, write_json

__all__ = ["NAME", "EPILOG", "command"]

NAME = "plan"
EPILOG = ("Give a pilot FILE, or --value and --prevalence (assumed values). Targets: --halfwidth (interval "
          "half-width, repeat for a grid) and/or --null with --power (H0: coefficient <= null, one-sided level "
          "--alpha). Columns: n_items = items to annotate (count; n_judged: judged pairs with --judgments); "
          "n_clusters = clusters (count); value = the coefficient the plan assumes; halfwidth_at_n, power_at_n = "
          "what the planned number gives; se_at_n = its standard error (coefficient scale).")
PLAN_DESIGNS = ("items", "items+raters", "cluster")
# how a pilot's variance is estimated, --method: planning.METHODS, listed here so that --help loads no planning
# module (tests/cli/test_lists_come_from_tables.py ties them)
PLAN_METHODS = ("auto", "analytic", "bootstrap")
COEFFICIENTS = tuple(REGISTRY)  # every coefficient of the registry (the multi-label baselines are not planned)


def _floats(values: list[str] | None, flag: str) -> list[float]:
    out = []
    for v in split(values):
        try:
            out.append(float(v))
        except ValueError:
            fail(f"{flag} takes numbers (repeat or comma-separate); got {v!r}")
    return out


def _check_numbers(widths: list[float], powers: list[float], alpha: float, level: float, bootstrap: int,
                   seed: int, raters: int | None) -> None:
    """The numeric options, checked before any reading or computing, with messages naming the flags."""
    for w in widths:
        if not w > 0:
            fail(f"--halfwidth must be positive (e.g. 0.1); got {w}")
    for p in powers:
        check_probability(p, "--power", "0.8")
    check_probability(alpha, "--alpha", "0.05")
    check_probability(level, "--level", "0.95")
    check_replicates(bootstrap, none=None)
    check_seed(seed)
    if raters is not None and raters < 2:
        fail(f"--raters must be at least 2 (agreement needs two raters); got {raters}")


def _check_method(method: str, design: str) -> None:
    """``--method``: one of :data:`PLAN_METHODS`; ``analytic`` has no rater term (design items+raters).

    ``--design cluster`` from the command line is clustering assumed (``--design-effect`` / ``--icc``) on the
    pilot's item variance, which the analytic terms give."""
    if method not in PLAN_METHODS:
        fail(f"--method must be one of {', '.join(PLAN_METHODS)}; got {method!r}{did_you_mean(method, PLAN_METHODS)}")
    if method == "analytic" and design == "items+raters":
        fail("--method analytic has no rater term: --design items+raters needs the bootstrap (--method bootstrap "
             "or auto)")


#: reading options, used with a pilot FILE only
_READING = ("item", "rater", "label", "na_values", "input_format", "field", "layer", "feature", "span_rule",
            "reader_option")


def _check_unused(pilot: bool, widths: bool, nulls: bool, judged: bool, method: str) -> None:
    """Options given where the plan does not use them, refused naming the flag and why (``--method`` with assumed
    values and ``--power`` without ``--null`` have their own checks)."""
    why: dict[str, str] = {}
    if not pilot:
        for name in ("bootstrap", "seed"):
            why[name] = ("sets a pilot FILE's bootstraps; with assumed values (--value, --prevalence) the variance is "
                         "that of the assumed population, with nothing resampled: leave it out or give a pilot FILE")
        for name in _READING:
            why[name] = "is an option for reading a pilot FILE; with assumed values there is no file: leave it out"
        why["device"] = ("sets where a pilot FILE's coefficients and bootstraps are computed; a plan from assumed values "
                         "(--value, --prevalence) is a few formulas on the assumed population, computed on no device: "
                         "leave it out or give a pilot FILE")
    elif judged or method == "analytic":
        how = ("--judgments plans from the delta-method variance of the pilot's judgments" if judged else
               "--method analytic takes the linearised terms of the analytic SE")
        for name in ("bootstrap", "seed"):
            why[name] = f"sets the pilot's bootstraps; {how}, with nothing resampled: leave out one of them"
    if not nulls:
        for name in ("alpha", "test", "two_sided"):
            why[name] = ("sets the test of a power target, which --null gives (H0: coefficient <= null): give --null "
                         "or leave it out")
    if not widths:
        why["level"] = ("is the level of the interval whose half-width is planned; without --halfwidth the plan has no "
                        "interval: give --halfwidth or leave it out")
    for name, flag in given_flags(*why).items():
        fail(f"{flag} {why[name]}")


def _one_similarity(similarity: list[str] | None, measure: list[str] | None) -> str | None:
    """The one ``--similarity`` (or its older name ``--measure``) of a plan, or None; several are refused: a plan
    is for one similarity (its rows are the coefficients')."""
    names = similarity_values(similarity, measure)
    if len(names) > 1:
        fail(f"--similarity takes one similarity in softirr plan (a plan is for one); got {len(names)}: "
             f"{', '.join(names)}; run softirr plan once for each")
    if names:
        check_similarities(names, (*MEASURES, *WEIGHTS))
    return names[0] if names else None


def _similarity_kwargs(coefficient: str, measure: str | None, estimator: Any = None) -> dict[str, Any]:
    """``--similarity`` as plan_items' arguments: a weight name as ``options={"weights": ...}`` where the coefficient
    takes weights, else as ``similarity=`` (the same weight matrix); an equivalence measure as ``similarity=``: its
    estimator (``--model``, ``--cache``) where one was made, else its name."""
    if measure is None or measure == "exact":
        return {}
    if measure in WEIGHTS and "weights" in REGISTRY[coefficient].options:
        return {"options": {"weights": measure}}
    return {"similarity": measure if measure in WEIGHTS or estimator is None else estimator}


def command(
    files: Annotated[list[Path] | None, typer.Argument(help="pilot annotation file(s) (as for `softirr agree`)")] = None,
    coefficient: Annotated[list[str] | None, typer.Option(
        "--coefficient", "-c", help=f"coefficient(s), repeat or comma-separate: {', '.join(COEFFICIENTS)} "
                                    "[default: fleiss_kappa]")] = None,
    halfwidth: Annotated[list[str] | None, typer.Option(
        "--halfwidth", help="target half-width(s) of the --level interval, repeat or comma-separate")] = None,
    null: Annotated[list[str] | None, typer.Option(
        "--null", help="value(s) of the coefficient under H0: coefficient <= null (power targets)")] = None,
    power: Annotated[list[str] | None, typer.Option(
        "--power", help="target power(s) of the test against --null [default: 0.8]")] = None,
    alpha: Annotated[float, typer.Option(help="level of the one-sided test against --null")] = 0.05,
    test: Annotated[str, typer.Option(
        help="wald (SE at the estimate, as ci=analytic) or null (SE under H0, Cantor 1996; assumed values)")] = "wald",
    two_sided: Annotated[bool, typer.Option("--two-sided", help="a two-sided test (alpha split in two)")] = False,
    value: Annotated[float | None, typer.Option(help="assumed value of the coefficient (no pilot FILE)")] = None,
    prevalence: Annotated[str | None, typer.Option(
        help="assumed category prevalences, comma-separated (summing to 1); two raters: 'p1;p2' per rater")] = None,
    raters: Annotated[int | None, typer.Option(
        help="raters of the planned study [default: the pilot's, or 2 with assumed values]")] = None,
    design: Annotated[str, typer.Option(help=f"design: {', '.join(PLAN_DESIGNS)}")] = "items",
    design_effect: Annotated[float | None, typer.Option(
        "--design-effect", help="variance inflation of clustered items (design cluster)")] = None,
    cluster_size: Annotated[float | None, typer.Option(
        "--cluster-size", help="items per cluster (design cluster; with --icc)")] = None,
    icc: Annotated[float | None, typer.Option(
        help="intra-cluster correlation (design cluster): design effect 1 + (cluster size - 1) icc")] = None,
    rater_variance: Annotated[float | None, typer.Option(
        "--rater-variance", help="assumed between-rater variance of the coefficient (design items+raters)")] = None,
    similarity: Annotated[list[str] | None, similarity_option(
        f"the one similarity of the plan (equivalence measure or weights): {', '.join(MEASURES)}, "
        f"{', '.join(WEIGHTS)}, NAME:MODEL, a JSON estimator spec or @spec.json [default: exact]")] = None,
    measure: MeasureAliasOpt = None,
    model: ModelOpt = None,
    cache: CacheOpt = None,
    level: Annotated[float, typer.Option(help="level of the interval whose half-width is planned")] = DEFAULT_LEVEL,
    method: Annotated[str, typer.Option(
        help=f"how a pilot's variance is estimated: {', '.join(PLAN_METHODS)} (auto: the linearised terms of the "
             "analytic SE with design items, else the bootstrap; a pilot FILE without --judgments only)")] = "auto",
    bootstrap: Annotated[int, typer.Option(help="replicates of each pilot bootstrap")] = 2000,
    seed: SeedOpt = 0,
    judgments: JudgmentsOpt = None,
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    fmt: FormatOpt = "table",
    json_out: JsonOpt = None,
    na_values: NaOpt = None,
    input_format: InputFormatOpt = None,
    field: FieldOpt = None,
    layer: LayerOpt = None,
    feature: FeatureOpt = None,
    span_rule: SpanRuleOpt = None,
    reader_option: ReaderOpt = None,
    categories: CategoriesOpt = None,
    device: Annotated[str, typer.Option(
        "--device", help="with a pilot FILE: where its coefficients and bootstraps are computed, as for agree: auto "
                         "(CUDA when torch or JAX sees one, else the CPU), cpu or cuda; recorded in --json (refused "
                         "with assumed values, which compute nothing on a device)")] = "auto",
) -> None:
    """Plan a study: items for a target interval half-width or power, from a pilot or assumed values."""
    from softirr_stats.planning import is_plan_warning, plan_items

    check_format(fmt)
    check_writable(json_out, "--json", [*(files or []), judgments])
    coefs = split(coefficient) or ["fleiss_kappa"]
    check_choices(coefs, COEFFICIENTS, "--coefficient")
    if design not in PLAN_DESIGNS:
        fail(f"--design must be one of {', '.join(PLAN_DESIGNS)}; got {design!r}{did_you_mean(design, PLAN_DESIGNS)}")
    _check_method(method, design)
    widths = _floats(halfwidth, "--halfwidth")
    nulls = _floats(null, "--null")
    powers = _floats(power, "--power")
    _check_numbers(widths, powers, alpha, level, bootstrap, seed, raters)
    if powers and not nulls:
        fail("--power needs --null (the coefficient's value under H0)")
    if not widths and not nulls:
        fail("give a target: --halfwidth and/or --null (with --power)")
    _check_unused(bool(files), bool(widths), bool(nulls), judgments is not None, method)
    pw = dict(null=nulls, power=powers or [0.8], alpha=alpha, test=test, two_sided=two_sided) if nulls else None
    measure = _one_similarity(similarity, measure)
    given = given_flags("level", "bootstrap", "seed")  # plan_items' defaults are None: the values the user gave
    kw: dict[str, Any] = dict(halfwidth=widths or None, power=pw, design=design, raters=raters,
                              design_effect=design_effect, cluster_size=cluster_size, icc=icc, method=method,
                              level=level if "level" in given else None,
                              bootstrap=bootstrap if "bootstrap" in given else None,
                              seed=seed if "seed" in given else None)
    files = files or []
    if files:
        if value is not None or prevalence is not None:
            fail("give either a pilot FILE or assumed values (--value, --prevalence), not both")
        opts = reader_options(field, layer, feature, span_rule, reader_option)
        ann, notes = read(files, item, rater, label, na_values, input_format, opts, categories)
        if judgments is not None and "method" in given_flags("method"):
            fail("--method is not used with --judgments (a prediction-powered plan takes the delta-method variance "
                 "of the pilot's judgments); leave out one of them")
        judged, _ = load_judgments(judgments)
        kw.update(pilot=ann, judgments=judged)
        source = files[0].name if len(files) == 1 else f"{len(files)} files"
    else:
        if value is None or prevalence is None:
            fail("give a pilot FILE, or assumed values: --value and --prevalence (and --raters)")
        if judgments is not None:
            fail("--judgments plans judged pairs from a pilot FILE")
        if "method" in given_flags("method"):
            fail("--method is how a pilot FILE's variance is estimated; with assumed values (--value, --prevalence) "
                 "the variance is that of the assumed population: leave out --method or give a pilot FILE")
        prev = [_floats([part], "--prevalence") for part in prevalence.split(";")]
        assumed: dict[str, Any] = dict(value=value, prevalence=prev[0] if len(prev) == 1 else prev,
                                       raters=raters or 2)
        if rater_variance is not None:
            assumed["rater_variance"] = rater_variance
        cats = categories_list(categories)
        if cats is not None:  # names for the prevalences, in their order
            if any(len(p) != len(cats) for p in prev):
                fail(f"--categories names {len(cats)} categories but --prevalence gives {len(prev[0])} prevalences; "
                     "give one category per prevalence, in the same order")
            assumed["categories"] = cats
        kw["assumed"] = assumed
        notes = []
        source = f"assumed value {value:g}"
    if rater_variance is not None and files:
        fail("--rater-variance is an assumed value; a pilot FILE measures the rater variance itself")
    estimator = None  # a measure's estimator, as agree makes it: its --model, its --cache, tried on a pilot's labels
    if measure is not None and measure not in WEIGHTS and measure != "exact":
        (_, estimator), = resolve_measures([measure], kw.get("pilot"), cache, model, weights=WEIGHTS,
                                           probe=bool(files))
    plans, said, computed = [], [], []
    for c in coefs:  # each coefficient's warnings caught apart: they go into its rows
        with warnings.catch_warnings(record=True) as caught:  # said once, as numbered notes (not raw Python lines)
            warnings.simplefilter("always")
            try:
                plans.append(plan_items(c, **kw, **_similarity_kwargs(c, measure, estimator)))
            except ValueError as err:
                fail(plan_wording(str(err)))
        own = list(plans[-1].notes)
        computed += [plan_wording(t) for t in own if not is_plan_warning(t)]  # how it was computed: note: lines
        own += [m for m in dict.fromkeys(str(w.message) for w in caught) if not any(m in t for t in own)]
        said.append(list(dict.fromkeys(map(plan_wording, own))))
    import pandas as pd

    frame = pd.concat([p.to_frame() for p in plans], ignore_index=True)
    shown = [c for c in frame.columns if frame[c].notna().any() and c not in ("design", "source")]
    rows = [{**rec, "warnings": list(own)}  # each row its plan's notes and warnings, as agree's rows (json: a list)
            for p, own in zip(plans, said, strict=True)
            for rec in p.to_frame().pipe(lambda f: f.astype(object).where(f.notna(), None)).to_dict("records")]
    texts = list(dict.fromkeys([*map(plan_wording, notes), *(t for own in said for t in own)]))
    unit = plans[0].unit
    title = (f"Sample size ({unit}), design {design}, from {source}: "
             + ", ".join(f"{p.coefficient} {p.n}" for p in plans))
    meta = {"source": source, "judgments": str(judgments) if judgments else None, **provenance_meta(files, judgments),
            "design": design, "level": level, "unit": unit, "similarity": measure or "exact", "warnings": texts}
    if fmt in ("markdown", "latex"):  # the plans' own paper tables, one per coefficient
        typer.echo("\n".join(p.to_markdown() if fmt == "markdown" else p.to_latex() for p in plans), nl=False)
        if json_out is not None:
            write_json(json_out, title, meta, rows)
        return
    emit(rows, shown, fmt, title, meta=meta, notes=Notes(texts, read=notes, computed=computed),
         secondary=("se_at_n", "alpha", "test", "level", "value"), data_columns=[*shown, "warnings"])
    if json_out is not None:
        write_json(json_out, title, meta, rows)


#: planning's keywords and the ``softirr plan`` options that set them
_PLAN_FLAGS = {"design_effect": "--design-effect", "cluster_size": "--cluster-size", "icc": "--icc",
               "raters": "--raters", "halfwidth": "--halfwidth", "judgments": "--judgments", "bootstrap": "--bootstrap",
               "seed": "--seed", "level": "--level"}
#: the keys of ``assumed=`` and ``power=`` and their options
_KEY_FLAGS = {"value": "--value", "prevalence": "--prevalence", "raters": "--raters", "categories": "--categories",
              "rater_variance": "--rater-variance", "null": "--null", "power": "--power", "alpha": "--alpha",
              "test": "--test", "two_sided": "--two-sided"}


def plan_wording(message: str) -> str:
    """A planning error or note worded for ``softirr plan``: its keywords as the options that set them, and the
    remedies the command line has (a pilot's clusters come from a cluster bootstrap in Python only).

    Examples
    --------
    >>> plan_wording("design='cluster' needs design_effect=, cluster_size= and icc=, or (with a pilot) cluster=")
    '--design cluster needs --design-effect, or --cluster-size and --icc'
    >>> plan_wording("Light's kappa has no analytic (linearised) variance here; use ci=softirr_stats.Bootstrap(...) "
    ...              "for an interval")
    "Light's kappa has no analytic (linearised) variance here; use --method bootstrap (or auto)"
    >>> plan_wording("plan at least 6 raters (raters=)")
    'plan at least 6 raters (--raters)'
    >>> plan_wording("raters=5 differs from the pilot's 4 raters: with design='items' ...; plan with "
    ...              "design='items+raters', or from assumed values (assumed=dict(value=..., prevalence=[...], raters=5))")
    "--raters 5 differs from the pilot's 4 raters: with --design items ...; plan with --design items+raters, or from \
assumed values (--value and --prevalence instead of a pilot FILE, with --raters 5)"
    >>> plan_wording("power['test']='null' needs the variance under H0: use test='wald'")
    '--test null needs the variance under H0: use --test wald'
    >>> plan_wording("power['null'] = 0.7 must be below the assumed value; assumed['rater_variance'] is b")
    '--null 0.7 must be below the assumed value; --rater-variance is b'
    """
    import re

    message = re.sub(r"\bassumed=dict\(value=\.\.\., prevalence=\[\.\.\.\](?:, raters=(\d+))?\)",
                     lambda m: "--value and --prevalence instead of a pilot FILE"
                               + (f", with --raters {m.group(1)}" if m.group(1) else ""), message)
    message = re.sub(r"\b(?:power|assumed)\['(\w+)'\](?: = |=)?'?([\w.+-]*)'?",
                     lambda m: " ".join(filter(None, (_KEY_FLAGS[m.group(1)], m.group(2)))), message)
    message = re.sub(r"\b(test|method)='(\w+)'", r"--\1 \2", message)
    message = re.sub(r"\b(raters|bootstrap|seed|level)=(\d[\d.]*)", r"--\1 \2", message)
    message = re.sub(r"\bgot raters = (\d+)", r"got --raters \1", message)
    message = message.replace("pilot data set (pilot=)", "pilot FILE").replace("(pilot=)", "(a pilot FILE)")
    message = message.replace("design='cluster' needs design_effect=, cluster_size= and icc=, or (with a pilot) "
                              "cluster=", "--design cluster needs --design-effect, or --cluster-size and --icc")
    message = re.sub(r"use ci=softirr_stats\.Bootstrap\(\.\.\.\) for an interval", "use --method bootstrap (or auto)",
                     message)
    message = re.sub(r"\b(design_effect|cluster_size|icc|raters|halfwidth|judgments|bootstrap|seed|level)="
                     r"(?![\w'\"])",
                     lambda m: _PLAN_FLAGS[m.group(1)], message)
    message = re.sub(r"(?<!-)\b(design_effect|cluster_size|icc)\b(?!=)", lambda m: _PLAN_FLAGS[m.group(1)], message)
    return cli_wording(message)
