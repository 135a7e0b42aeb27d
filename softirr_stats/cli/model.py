"""``softirr model``: model-based agreement (NumPyro annotator models) with posterior intervals."""

from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats.base._format import level_text
from softirr_stats.cli._errors import EXIT_DATA, fail
from softirr_stats.cli._options import (
    DEFAULT_LEVEL,
    MEASURES,
    MODELS,
    DeviceOpt,
    FeatureOpt,
    FieldOpt,
    FormatOpt,
    InputFormatOpt,
    ItemOpt,
    JsonOpt,
    LabelOpt,
    LayerOpt,
    MeasureAliasOneOpt,
    ModelCategoriesOpt,
    NaOpt,
    RaterOpt,
    ReaderOpt,
    SeedOpt,
    SpanRuleOpt,
    check_choices,
    check_format,
    check_similarities,
    check_writable,
    cli_wording,
    given_flags,
    read,
    reader_options,
    resolve_measures,
    similarity_option,
    similarity_value,
)
from softirr_stats.cli._output import Notes, emit, print_table, provenance_meta, write_json
from softirr_stats.models import DEFAULT_EMISSION, EMISSIONS, find_model

__all__ = ["NAME", "EPILOG", "command", "diagnostics_record", "fit_config", "fit_model", "gold_columns_note",
           "method_flags", "model_rows", "profile_flag", "read_gold", "refusal"]

NAME = "model"
EPILOG = None
_COLUMNS = ("quantity", "mean", "sd", "lower", "upper")
#: each method's settings (the command's parameters), recorded in --json for the method used only
_SETTINGS = {"svi": ("steps",), "nuts": ("warmup", "samples", "chains")}


def fit_model(ann: Any, model: str, method: str, level: float, seed: int, similarity: Any = None,
              steps: int | None = None, warmup: int | None = None, samples: int | None = None,
              chains: int | None = None, gold: Any = None, profile_interval: str = "widen",
              emission: str | None = None) -> Any:
    """The fit of :func:`_run` (the runner's :func:`~softirr_stats.analysis.run_model`), the result only.

    ``steps`` (SVI) and ``warmup``, ``samples``, ``chains`` (NUTS) left at None take the defaults of
    :class:`~softirr_stats.inference.SviConfig` and :class:`~softirr_stats.inference.NutsConfig`; ``emission``
    (the soft model's) left at None takes the model's default. The warnings of the fit are recorded by the runner
    (``_run(...).warnings``), not raised.
    """
    return _run(ann, model, method, level, seed, similarity, fit_config(method, steps, warmup, samples, chains),
                gold=gold, profile_interval=profile_interval, emission=emission).result


def fit_config(method: str, steps: int | None = None, warmup: int | None = None, samples: int | None = None,
               chains: int | None = None) -> Any:
    """The :class:`~softirr_stats.inference.SviConfig` (``method="svi"``) or
    :class:`~softirr_stats.inference.NutsConfig` of the given settings; one left at None takes the config's
    default. The other method's settings must be None (the command refuses them before this)."""
    from softirr_stats.inference import NutsConfig, SviConfig

    if method == "svi":
        unused = {"warmup": warmup, "samples": samples, "chains": chains}
        config, given = SviConfig, {"steps": steps}
    else:
        unused = {"steps": steps}
        config, given = NutsConfig, {"num_warmup": warmup, "num_samples": samples, "num_chains": chains}
    extra = [k for k, v in unused.items() if v is not None]
    if extra:
        raise ValueError(f"{', '.join(extra)} {'is not a setting' if len(extra) == 1 else 'are not settings'} of "
                         f"method={method!r}")
    return config(**{k: v for k, v in given.items() if v is not None})


def _run(ann: Any, model: str, method: str, level: float, seed: int, similarity: Any, config: Any,
         progress: bool | None = False, gold: Any = None, profile_interval: str = "widen",
         emission: str | None = None) -> Any:
    from softirr_stats.analysis import run_model

    return run_model(ann, model, method=method, level=level, seed=seed, similarity=similarity, config=config,
                     predictive_check=False, progress=progress, gold=gold, profile_interval=profile_interval,
                     **({} if emission is None else {"emission": emission}))


def read_gold(path: Path) -> Any:
    """``--gold FILE``: judged label pairs as a DataFrame (label_a, label_b, judgment[, draws]).

    A filled blinded sheet of ``softirr judge plan`` (its plan beside it) or a filled plan CSV is read as for
    ``softirr agree --judgments``; any other CSV needs the columns label_a, label_b and judgment (0/1) and may
    have draws. Its other columns (a misspelt ``Draws``, a comment) are not read, and a note names them
    (``attrs["read_notes"]``, as a wide table's reader names the columns it leaves out).
    """
    import pandas as pd

    from softirr_stats.cli._errors import reading

    if not path.exists():
        fail(f"--gold {path} does not exist")
    with reading(path, "--gold"):
        cols = set(pd.read_csv(path, nrows=0).columns)
        if "pair_id" in cols or "q" in cols:  # the sheet (or plan) of `softirr judge plan`: the PPI reader
            from softirr_stats.analysis import read_judging_sheet

            return read_judging_sheet(path)[0]
        from softirr_stats.base._validation import label_file_lines

        table = label_file_lines(pd.read_csv(path, dtype={"label_a": str, "label_b": str}, keep_default_na=False),
                                 path)  # a bad row is named by its line in the file
    note = gold_columns_note(list(table.columns), path.name)
    if note:
        table.attrs["read_notes"] = (note,)
    return table


def gold_columns_note(columns: list[Any], name: str) -> str:
    """The note naming the columns of a ``--gold`` CSV that are not read as gold pairs ("" where all are).

    The gold pairs are read from label_a, label_b, judgment (or equivalent, where judgment is absent) and draws
    (:func:`softirr_stats.inference.gold_pairs`); any other column is left out, and a column of judgments or draws
    under another name would be lost without a word.

    Examples
    --------
    >>> gold_columns_note(["label_a", "label_b", "judgment", "notes"], "g.csv").split(" (")[0]
    "g.csv: 1 column(s) not read as gold pairs: 'notes'"
    >>> gold_columns_note(["label_a", "label_b", "equivalent", "draws"], "g.csv")
    ''
    """
    from softirr_stats.inference import GOLD_COLUMNS

    read = {*GOLD_COLUMNS, "draws", *(() if "judgment" in columns else ("equivalent",))}
    left = [c for c in columns if c not in read]
    if not left:
        return ""
    return (f"{name}: {len(left)} column(s) not read as gold pairs: {', '.join(repr(str(c)) for c in left)} (the "
            "gold pairs are read from label_a, label_b, judgment (or equivalent) and draws; each row counts as one "
            "draw where draws is not given)")


def refusal(err: Any) -> str:
    """The one line of a fit refused before compiling (:class:`~softirr_stats.inference.FitSizeError`): the
    library's message (it starts with the model's name) worded for the command line (:func:`cli_wording`)."""
    return f"--model {cli_wording(str(err))}"


def method_flags(method: str, settings: dict[str, int | None]) -> str | None:
    """The refusal of settings given for the other inference method, or None where every one belongs to ``method``.

    ``settings`` maps the command's settings (``steps``, ``warmup``, ``samples``, ``chains``) to their values, None
    where not given.

    Examples
    --------
    >>> method_flags("nuts", {"steps": 300, "warmup": None})
    '--steps is a setting of --method svi (SVI optimisation steps); --method nuts (the default) takes --warmup, --samples and --chains'
    >>> method_flags("svi", {"warmup": 100, "samples": None, "chains": 1})
    '--warmup and --chains are settings of --method nuts (NUTS sampling); --method svi takes --steps'
    >>> method_flags("svi", {"steps": 300, "warmup": None}) is None
    True
    """
    other, why, own = (("nuts", "NUTS sampling", "--steps") if method == "svi" else
                       ("svi", "SVI optimisation steps", "--warmup, --samples and --chains"))
    wrong = [f"--{name}" for name, v in settings.items() if v is not None and name in _SETTINGS[other]]
    if not wrong:
        return None
    which = (f"{wrong[0]} is a setting" if len(wrong) == 1 else
             f"{', '.join(wrong[:-1])} and {wrong[-1]} are settings")
    return (f"{which} of --method {other} ({why}); --method {method}{' (the default)' if method == 'nuts' else ''} "
            f"takes {own}")


def run_length(steps: int | None = None, warmup: int | None = None, samples: int | None = None, *,
               steps_flag: str = "--steps") -> str | None:
    """The refusal of a fit longer than JAX's 32-bit step counter counts (``inference.MAX_STEPS``), or None.

    ``steps``: SVI steps (its flag ``steps_flag``: ``report`` names it ``--model-steps``); ``warmup`` and
    ``samples``: NUTS iterations per chain, together (one left at None takes the config's default). None where not
    given. Refused here, before the file is read: the fit printed its estimate, then overflowed.

    Examples
    --------
    >>> run_length(steps=10**10)
    "--steps 10000000000 is more than JAX's 32-bit step counter counts: at most 2147483647 SVI steps"
    >>> run_length(samples=2**31 - 1)
    "--samples 2147483647 with 500 warm-up iterations (2147484147) is more than JAX's 32-bit step counter counts: at most 2147483647 NUTS iterations per chain"
    >>> run_length(steps=2000, warmup=500) is None
    True
    """
    from softirr_stats.inference import MAX_STEPS, NutsConfig

    counter = f"is more than JAX's 32-bit step counter counts: at most {MAX_STEPS}"
    if steps is not None and steps > MAX_STEPS:
        return f"{steps_flag} {steps} {counter} SVI steps"
    if warmup is None and samples is None:
        return None
    total = (NutsConfig.num_warmup if warmup is None else warmup) + (NutsConfig.num_samples if samples is None
                                                                     else samples)
    if total <= MAX_STEPS:
        return None
    if warmup is not None and samples is not None:
        shown = f"--warmup + --samples ({total})"
    elif samples is not None:
        shown = f"--samples {samples} with {NutsConfig.num_warmup} warm-up iterations ({total})"
    else:
        shown = f"--warmup {warmup} with {NutsConfig.num_samples} kept draws ({total})"
    return f"{shown} {counter} NUTS iterations per chain"


def profile_flag(model: str, gold: bool, emission: str | None, given: bool) -> str | None:
    """The refusal of ``--profile-interval`` given where no profile-likelihood check runs, or None.

    The check is the soft model's, with its monotone emission and without gold pairs; ``given`` says whether the
    flag was on the command line (its default is no request).

    Examples
    --------
    >>> profile_flag("mace", False, None, True)
    '--profile-interval is for --model soft (its monotone emission, without --gold); --model mace has no profile-likelihood check'
    >>> profile_flag("soft", True, None, True)
    '--profile-interval is for --model soft without --gold: gold pairs fix the equivalent component, and no profile-likelihood check runs'
    >>> profile_flag("soft", False, None, True) is None
    True
    """
    if not given:
        return None
    if not find_model(model).soft:
        return (f"--profile-interval is for --model soft (its monotone emission, without --gold); --model {model} "
                "has no profile-likelihood check")
    if gold:
        return ("--profile-interval is for --model soft without --gold: gold pairs fix the equivalent component, "
                "and no profile-likelihood check runs")
    if (emission or DEFAULT_EMISSION) != "monotone":
        return (f"--profile-interval is for the monotone emission of --model soft; --emission {emission} has no "
                "profile-likelihood check")
    return None


def diagnostics_record(diag: Any) -> dict[str, Any]:
    """``--json``'s ``meta.diagnostics``: :meth:`FitDiagnostics.to_dict` with its caveats and the fit's warnings
    worded for the command line (:func:`cli_wording`), as the notes below the table are."""
    out = diag.to_dict()
    for key in ("caveats", "sampler_warnings"):
        out[key] = [cli_wording(line) for line in out[key]]
    return out


def model_rows(res: Any, ann: Any, level: float) -> list[dict[str, Any]]:
    """Tidy rows (quantity, mean, sd, lower, upper) of a model-based result; None where undefined."""
    import math

    from softirr_stats.reporting import model_summary

    rows = model_summary(res, list(getattr(ann, "raters", [])), level).to_dict("records")
    return [{k: None if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()} for r in rows]


def command(
    files: Annotated[list[Path], typer.Argument(help="annotation file(s) (as for `softirr agree`)")],
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    name: Annotated[str, typer.Option("--model", help=f"annotator model: {', '.join(MODELS)}")] = "dawid_skene",
    method: Annotated[str, typer.Option(help="inference: nuts (MCMC) or svi (variational, faster)")] = "nuts",
    similarity: Annotated[str | None, similarity_option(
        f"equivalence measure for a weighted (soft) kappa: {', '.join(MEASURES)} [default: exact]")] = None,
    measure: MeasureAliasOneOpt = None,
    level: Annotated[float, typer.Option(help="posterior interval level, in (0, 1)")] = DEFAULT_LEVEL,
    seed: SeedOpt = 0,
    # None: the config's default (SviConfig, NutsConfig), stated in the help; a setting of the other method is refused
    steps: Annotated[int | None, typer.Option(
        help="SVI optimisation steps (--method svi only) [default: 2000]")] = None,
    warmup: Annotated[int | None, typer.Option(
        help="NUTS warm-up iterations per chain (--method nuts only) [default: 500]")] = None,
    samples: Annotated[int | None, typer.Option(
        help="NUTS kept draws per chain (--method nuts only) [default: 500]")] = None,
    chains: Annotated[int | None, typer.Option(help="NUTS chains (--method nuts only) [default: 2]")] = None,
    fmt: FormatOpt = "table",
    json_out: JsonOpt = None,
    na_values: NaOpt = None,
    input_format: InputFormatOpt = None,
    field: FieldOpt = None,
    layer: LayerOpt = None,
    feature: FeatureOpt = None,
    span_rule: SpanRuleOpt = None,
    reader_option: ReaderOpt = None,
    categories: ModelCategoriesOpt = None,
    device: DeviceOpt = "auto",
    gold: Annotated[Path | None, typer.Option(
        "--gold", help="--model soft: human-judged label pairs fitted as gold pairs (the equivalent / not "
                       "equivalent component known): a filled sheet of `softirr judge plan` (its .plan.csv "
                       "beside it), as for `softirr agree --judgments`, or a CSV with columns label_a, label_b, "
                       "judgment (0 or 1) and optionally draws; scored with the model's --similarity")] = None,
    profile_interval: Annotated[str, typer.Option(
        "--profile-interval", help="--model soft (monotone emission, no --gold): where the prior-free "
                                   "profile-likelihood interval reaches beyond the posterior interval, widen it to "
                                   "their union (widen), only say so (report), or skip the check (off)")] = "widen",
    emission: Annotated[str | None, typer.Option(
        "--emission", help=f"--model soft: the score distribution of each component: {', '.join(EMISSIONS)} "
                           "(monotone: shape-constrained histograms; beta: one Beta each; histogram: free, needs "
                           f"--gold) [default: {DEFAULT_EMISSION}]")] = None,
) -> None:
    """Model-based agreement: fit an annotator model and report posterior intervals.

    Rows: kappa = the model-implied chance-corrected agreement (unitless, at most 1);
    observed, expected = its observed and chance terms (proportions in [0, 1]);
    accuracy = P(the rater gives the true label), one row per rater (categorical models).

    Columns: mean = posterior mean; sd = posterior standard deviation (same scale);
    lower, upper = equal-tailed posterior interval at --level (same scale).
    """
    check_format(fmt)
    check_choices([name], MODELS, "--model")
    check_choices([method], ("nuts", "svi"), "--method")
    from softirr_stats.inference import PROFILE_MODES

    check_choices([profile_interval], PROFILE_MODES, "--profile-interval")
    measure = similarity_value(similarity, measure, "exact")
    check_similarities([measure], MEASURES)
    if not 0.0 < level < 1.0:
        fail(f"--level must lie strictly between 0 and 1; got {level}")
    wrong = method_flags(method, {"steps": steps, "warmup": warmup, "samples": samples, "chains": chains})
    if wrong:
        fail(wrong)
    for flag, v in (("--steps", steps), ("--warmup", warmup), ("--samples", samples), ("--chains", chains)):
        if v is not None and v < 1:
            fail(f"{flag} must be a positive integer; got {v}")
    too_long = run_length(steps, warmup, samples)
    if too_long:
        fail(too_long)
    if find_model(name).soft and measure == "exact":
        fail("--model soft needs a soft --similarity (e.g. -m levenshtein)")
    if gold is not None and not find_model(name).soft:
        fail(f"--gold is for --model soft (gold pairs of label pairs); --model {name} fits the labels themselves "
             "(judged pairs correct a coefficient through softirr agree --judgments)")
    if emission is not None:
        check_choices([emission], EMISSIONS, "--emission")
        if not find_model(name).soft:
            fail(f"--emission is for --model soft (the score distributions of its label pairs); --model {name} "
                 "fits the labels themselves")
        if emission == "histogram" and gold is None:
            from softirr_stats.models import HISTOGRAM_NEEDS_GOLD

            fail(cli_wording(HISTOGRAM_NEEDS_GOLD))
    unused = profile_flag(name, gold is not None, emission, bool(given_flags("profile_interval")))
    if unused:
        fail(unused)
    check_writable(json_out, "--json", [*files, gold])
    opts = reader_options(field, layer, feature, span_rule, reader_option)
    ann, seen = read(files, item, rater, label, na_values, input_format, opts, categories)
    read_notes = list(seen)
    sim = resolve_measures([measure], ann, model_flag=False)[0][1]
    import warnings

    from softirr_stats.inference import FitSizeError

    config = fit_config(method, steps, warmup, samples, chains)
    judged, n_gold = None, 0
    if gold is not None:  # checked here, before the fit: a bad sheet fails at once
        from softirr_stats.equivalence import resolve_label_similarity
        from softirr_stats.inference import gold_pairs

        judged = read_gold(gold)
        gold_notes = list(judged.attrs.get("read_notes", ()))  # columns not read: said with the file's notes
        read_notes += gold_notes
        seen += [n for n in gold_notes if n not in seen]
        sim = resolve_label_similarity(tuple(ann.vocabulary), sim)  # one memo of scored pairs for gold and fit
        try:
            n_gold = gold_pairs(judged, tuple(ann.vocabulary), sim).n
        except (ValueError, TypeError) as err:
            fail(f"--gold {gold}: {str(err).removeprefix('gold: ')}")
    try:  # the runner's model step: the fit, its diagnostics and the warnings of both
        fit = _run(ann, name, method, level, seed, sim, config, progress=None, gold=judged,
                   profile_interval=profile_interval, emission=emission)
    except FitSizeError as err:
        fail(refusal(err), EXIT_DATA)
    except (ValueError, TypeError) as err:
        fail(f"--model {name}: {cli_wording(str(err))}", EXIT_DATA)
    res, diag = fit.result, fit.diagnostics
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rows = model_rows(res, ann, level)
    raised = [*fit.warnings, *(f"{c.category.__name__}: {c.message}" for c in caught)]
    # the result keeps the fit's warnings too (without their category): each is listed once, as raised, and
    # worded for the command line (--method nuts, --gold, not method='nuts', gold=)
    bare = {" ".join(w.partition(": ")[2].split()) for w in raised}
    said = [cli_wording(w) for w in (*raised, *(w for w in res.warnings if w not in bare))]
    seen += [w for w in dict.fromkeys(said) if w not in seen]
    # a caveat that repeats a warning listed above ("Fit warning: <the warning's text>") is said once
    listed = {w.split(": ", 1)[-1] for w in said}
    caveats = [cli_wording(c) for c in diag.caveats]
    seen += [f"caveat: {c}" for c in caveats if f"caveat: {c}" not in seen and c.removeprefix("Fit warning: ") not in listed]
    file = files[0]
    settings = ({"steps": config.steps} if method == "svi" else
                {"warmup": config.num_warmup, "samples": config.num_samples, "chains": config.num_chains})
    fit = (f"SVI, {config.steps} steps" if method == "svi" else
           f"NUTS, {config.num_chains} chains x {config.num_samples} draws ({config.num_warmup} warm-up)")
    soft = {"emission": emission or DEFAULT_EMISSION} if find_model(name).soft else {}  # the soft model's only
    title = (f"{name} on {file.name}: {ann.n_items} items, {ann.n_raters} raters; {level_text(level)} equal-tailed "
             f"posterior intervals, {fit}, similarity = {measure}"
             f"{''.join(f', {k} = {v}' for k, v in soft.items())}, seed = {seed}")
    if gold is not None:
        title += f"; {n_gold} gold pairs ({gold.name})"
    if res.details.get("ci_widened"):
        title += "; kappa's interval widened to the profile-likelihood interval (see the notes)"
    meta = {"file": str(file), "model": name, "method": method, "level": level, "seed": seed, "similarity": measure,
            **settings,  # the settings of the method used only
            **soft,
            "gold": None if gold is None else str(gold), "n_gold": n_gold, **provenance_meta(files, gold=gold),
            "ci_method": res.ci_method,
            # the mode where the profile-likelihood check runs (soft model, monotone emission, no --gold), else null
            "profile_interval": None if profile_flag(name, gold is not None, emission, True) else profile_interval,
            "warnings": list(seen),
            "diagnostics": diagnostics_record(diag)}
    notes = Notes(seen, read=read_notes)
    if fmt in ("markdown", "latex"):  # not a coefficient table: the plain pipe / tabular layout
        import pandas as pd

        from softirr_stats.base._format import render as render_frame

        typer.echo(render_frame(pd.DataFrame(rows, columns=list(_COLUMNS)), fmt, digits=4, caption=title))
        for i, t in enumerate(notes.texts, 1):
            typer.echo(f"{'' if fmt == 'markdown' else '% '}[{i}] {t}")
    else:
        emit(rows, _COLUMNS, fmt, title, meta, notes=notes)
    if fmt in ("table", "markdown", "latex"):  # the diagnostics below the estimates (csv/json: in meta / --json)
        from softirr_stats.base._format import render as render_frame

        dframe = diag.to_frame()
        p_texts = diag.p_value_texts(4)  # a share of 0 of N draws as "< 1/N (none of N draws)", not "0"
        dframe["value"] = [p_texts[d] if d in p_texts else f"{v:.4g}" if isinstance(v, float) else str(v)
                           for d, v in zip(dframe["diagnostic"], dframe["value"], strict=True)]
        caption = f"Fit diagnostics ({'all checks pass' if diag.ok else 'see the caveats'})"
        typer.echo("")
        if fmt == "table":  # a terminal table like the estimates above it
            print_table(dframe.to_dict("records"), list(dframe.columns), caption, wrap=["diagnostic"])
        else:
            typer.echo(render_frame(dframe, fmt, digits=4, caption=caption))
    if json_out:
        write_json(json_out, title, meta, rows)
