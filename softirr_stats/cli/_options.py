"""Options shared by the ``softirr`` commands, and the steps every command takes before computing.

Every list shown in ``--help`` comes from the library: coefficients from the coefficient
registry, similarity names from ``equivalence.MEASURES`` (estimators) and ``agreement.WEIGHT_NAMES``
(weights), together ``agreement.SIMILARITY_NAMES``,
interval methods from ``uncertainty.INTERVAL_METHODS``, the chance syntax from
``agreement.CHANCE_SYNTAX``.
the annotator models from ``models.ANNOTATOR_MODELS`` (a table that loads no NumPyro).
The bootstrap designs are listed here, so that ``softirr --help`` loads no NumPy random
generators; ``tests/cli/test_lists_come_from_tables.py`` ties them to ``uncertainty.DESIGNS``.

Only cheap imports at module level (typer and the light registry modules).
"""

import contextlib
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats.base._format import level_text
from softirr_stats.base._suggest import did_you_mean
from softirr_stats.cli._errors import EXIT_USAGE, command_flags, describe, fail, one_line, reading
from softirr_stats.cli._errors import click_module as _click

__all__ = [
    "BOOTSTRAP_DEFAULT_HELP", "CHANCE_HELP", "CLI_NOTE_PREFIXES", "TEST_NOTE", "COEFFICIENTS", "LEVEL_FORMS", "LEVEL_HELP", "DESIGNS", "FORMATS", "MEASURES", "METHODS", "MODELS", "LABEL_MODELS", "SIMILARITIES", "WEIGHTS",
    "CategoriesOpt", "DistanceOpt", "ModelCategoriesOpt", "categories_list", "check_set_categories", "check_probability", "check_replicates", "check_seed", "cli_wording", "check_choices", "check_format", "declare_categories", "check_similarities", "check_writable", "chance_settings", "ci_title", "distance_registry", "given_flags",
    "make_bootstrap", "make_interval", "refuse_given", "unused_without_interval", "AnalyticOpt", "read", "reader_options", "resolve_measures", "similarity_option", "similarity_value",
    "similarity_values", "split", "MeasureAliasOpt", "MeasureAliasOneOpt", "ModelOpt",
]


def _lists() -> dict[str, tuple[str, ...]]:
    from softirr_stats.agreement import CHANCE_SYNTAX, WEIGHT_NAMES
    from softirr_stats.analysis import coefficient_names, level_forms, measure_names
    from softirr_stats.data import INPUT_FORMATS
    from softirr_stats.models import ANNOTATOR_MODELS, MODEL_NAMES
    from softirr_stats.uncertainty import INTERVAL_METHODS

    return {"coefficients": coefficient_names(), "level_forms": level_forms(), "measures": measure_names(), "weights": tuple(WEIGHT_NAMES),
            "methods": tuple(INTERVAL_METHODS), "chance": tuple(CHANCE_SYNTAX), "input_formats": INPUT_FORMATS,
            "models": MODEL_NAMES,
            "label_models": tuple(n for rec in ANNOTATOR_MODELS.values() if not rec.soft for n in rec.names)}


_L = _lists()
COEFFICIENTS = _L["coefficients"]  # the coefficient registry's names, then the multi-label baselines
#: ``NAME:LEVEL``, a coefficient at a level of measurement (``-c krippendorff_alpha:ordinal``: Krippendorff's ordinal
#: alpha, ``level="ordinal"`` in Python); agree, sensitivity and report take them beside :data:`COEFFICIENTS`
LEVEL_FORMS = _L["level_forms"]
LEVEL_HELP = (f"{LEVEL_FORMS[0].partition(':')[0]}:LEVEL for Krippendorff's level of measurement "
              f"({', '.join(f.partition(':')[2] for f in LEVEL_FORMS)}; -m ordinal gives Gwet's ordinal weights "
              "instead)")
MEASURES = _L["measures"]  # the estimators' names (equivalence.MEASURES)
WEIGHTS = _L["weights"]
SIMILARITIES = (*MEASURES, *WEIGHTS)  # agreement.SIMILARITY_NAMES: every name similarity= takes
INPUT_FORMATS = _L["input_formats"]  # data.INPUT_FORMATS: the long tables (parquet included), then the exports
# uncertainty.DESIGNS less those that need data beside the file (cluster=, judged pairs); listed here
# because importing the bootstrap module loads NumPy's random generators (tests/cli/test_lists_come_from_tables.py ties them)
DESIGNS = ("items", "raters", "items+raters", "bayesian")
CLI_LESS_DESIGNS = ("cluster", "judged")
#: of those, the designs that resample the judged pairs of --judgments: --design takes them beside a judged sheet
#: (agree, sensitivity; tests/cli/test_lists_come_from_tables.py ties them to the records' resamples_judged)
JUDGED_DESIGNS = ("judged",)
#: the commands with --cluster COLUMN (cli._item_groups), named where a message suggests the cluster design
CLUSTER_COMMANDS = ("agree", "sensitivity", "report", "compare")
#: The opening words of the library's notes (``agreement.NOTE_PREFIXES``) that :func:`cli_wording` rewords: the
#: chance term ``--chance auto`` chose. Never a leading ``-``: a spreadsheet reads a cell that begins with one as a
#: formula, and the csv guard would quote it.
AUTO_CHANCE_NOTE = "chance term chosen by --chance auto: "
CLI_NOTE_PREFIXES = (AUTO_CHANCE_NOTE,)
#: The opening words of the notes ``--test`` adds to a row (a coefficient it cannot test, a test that gives no p).
#: Like :data:`AUTO_CHANCE_NOTE`, never a leading ``-``: the csv guard quotes a cell that begins with one (a
#: spreadsheet would read our own text as a formula), so a csv cell keeps these as written. Warnings, not notes.
TEST_NOTE = "test (--test): "
METHODS = _L["methods"]
CHANCE_FORMS = _L["chance"]
CHANCE_HELP = f"{', '.join(CHANCE_FORMS)} (long forms montecarlo:D, sampledpairs:N)"
MODELS = _L["models"]  # models.MODEL_NAMES: every annotator model's names and aliases (models.ANNOTATOR_MODELS)
LABEL_MODELS = _L["label_models"]  # those that read the labels alone (not pair scores): softirr report --model
FORMATS = ("table", "csv", "json", "markdown", "latex")
DEFAULT_LEVEL = 0.95  # every command and the report

# Options shared by the commands (typer reads the help text and shows the default).
ItemOpt = Annotated[str, typer.Option(help="item (document) column of a long table")]
RaterOpt = Annotated[str, typer.Option(help="rater (annotator) column of a long table")]
LabelOpt = Annotated[str, typer.Option(help="label column of a long table")]
NaOpt = Annotated[list[str] | None, typer.Option(
    "--na-values", help="cell values (an export's labels, such as an Unsure choice) to read as missing, repeat or "
                        "comma-separate (default: only empty cells); a value of only spaces given alone is kept: "
                        "--na-values ' ' makes cells holding one space missing")]
InputFormatOpt = Annotated[str | None, typer.Option(
    "--input-format", help=f"input format: {', '.join(INPUT_FORMATS)} (default: guessed from the file)")]
FieldOpt = Annotated[str | None, typer.Option(
    "--field", help="export field / control to read (Label Studio: the control's from_name)")]
LayerOpt = Annotated[str | None, typer.Option("--layer", help="annotation layer to read (WebAnno/INCEpTION TSV)")]
FeatureOpt = Annotated[str | None, typer.Option("--feature", help="feature of the layer to read (WebAnno TSV)")]
SpanRuleOpt = Annotated[str | None, typer.Option(
    "--span-rule", help="how spans become items: exact (same offsets), overlap, or overlap:IOU (IoU above IOU)")]
ReaderOpt = Annotated[list[str] | None, typer.Option(
    "--reader-option", help="any other reader option, KEY=VALUE (VALUE read as JSON when it parses), repeatable; "
                            "e.g. wide=true, 'sep=;', normalize=NFC, decimal=, (a decimal comma), or 'label_sep=|' "
                            "(a CSV / TSV cell listing a rating's terms, fever|cough, read as a set label for "
                            "multilabel_*); one value per KEY")]
CategoriesOpt = Annotated[str | None, typer.Option(
    "--categories", help="the full category set, in order: A,B,C (comma-separated; spaces around a name dropped) or "
                         "@FILE (one category per line, taken as written). Fixes q for gwet_ac1 / brennan_prediger "
                         "(unused categories count) and the order of ordered weights (-m linear, quadratic, ordinal); every label "
                         "must be one of them. Multi-label sets: the label universe of multilabel_fleiss / multilabel_ac1 / "
                         "multilabel_pabak (labels no rating selects count) [default: the observed labels]")]
#: ``softirr model --categories``: the classes of the model (its -m takes no ordered weights, and no q is counted)
ModelCategoriesOpt = Annotated[str | None, typer.Option(
    "--categories", help="the full category set: A,B,C (comma-separated; spaces around a name dropped) or @FILE (one "
                         "category per line, taken as written); every label must be one of them. The categorical "
                         "models are fitted over these classes (one no rating uses is a class of its own, which "
                         "changes the model's chance term) [default: the observed labels]")]
#: Python's default B (``uncertainty.Bootstrap().n``, written here so that ``--help`` loads no bootstrap module;
#: ``tests/cli/test_messages_and_conventions.py`` ties the two): the commands' defaults differ (1000; spans 2000)
PYTHON_BOOTSTRAP_N = 2000
BOOTSTRAP_DEFAULT_HELP = (f"Python's sis.Bootstrap() draws {PYTHON_BOOTSTRAP_N} by default: --bootstrap "
                          f"{PYTHON_BOOTSTRAP_N} gives its interval (same --seed)")
BootstrapOpt = Annotated[int, typer.Option(help=f"bootstrap replicates B (0 = no interval); {BOOTSTRAP_DEFAULT_HELP}")]
DesignOpt = Annotated[str, typer.Option(help=f"bootstrap design: {', '.join(DESIGNS)}")]
JudgedDesignOpt = Annotated[str, typer.Option(
    "--design", help=f"bootstrap design: {', '.join(DESIGNS)}; with --judgments also {', '.join(JUDGED_DESIGNS)} (the "
    "judged draws resampled, the items fixed: this study's coefficient, as the analytic interval; the other designs "
    "resample the items too)")]
MethodOpt = Annotated[str, typer.Option(help=f"interval method: {', '.join(METHODS)}")]
LevelOpt = Annotated[float, typer.Option(help="interval level, in (0, 1)")]
AnalyticOpt = Annotated[bool, typer.Option(
    "--analytic", help="the analytic interval instead of the bootstrap: exact F for the ICCs, Fisher z for "
                       "lin_ccc, the delta method for the chance-corrected coefficients (a row without one gets a "
                       "note); takes --level, not --bootstrap/--design/--method")]


def check_seed(seed: int) -> int:
    """``--seed``: the library's one seed check (an integer in [0, 2**63 - 1], what every seeded option takes:
    ``base._validation.check_seed``), naming the flag. The callback of every ``--seed`` option, so a seed is
    refused before the command reads or computes anything."""
    from softirr_stats.base._validation import check_seed as library_check

    try:
        return library_check(seed, "--seed")
    except (TypeError, ValueError):
        fail(f"--seed must be a non-negative integer, at most 2**63 - 1; got {seed}")


SeedOpt = Annotated[int, typer.Option(help="random seed", callback=check_seed)]
FormatOpt = Annotated[str, typer.Option("--format", "-f", help=f"output format: {', '.join(FORMATS)}")]
DeviceOpt = Annotated[str, typer.Option(
    "--device", help="where to score and fit: auto (CUDA when torch or JAX sees one, else the CPU), cpu or cuda; "
                     "recorded in --json and the report")]
JsonOpt = Annotated[Path | None, typer.Option("--json", help="also write the results as JSON to this file")]
CacheOpt = Annotated[Path | None, typer.Option(
    "--cache", help="SQLite file caching the measures' pair scores across runs (equivalence.Cached)")]
ChanceOpt = Annotated[list[str] | None, typer.Option(
    "--chance", help=f"chance setting(s), repeat or comma-separate: {CHANCE_HELP} [default: exact]")]
#: ``--model``: the model of a model-backed similarity, for the commands that score label pairs (agree,
#: compare, judge, score, sensitivity). ``softirr model`` and ``softirr report`` name their annotator model so.
ModelOpt = Annotated[str | None, typer.Option(
    "--model", help="model directory or hub name for --similarity nli / llm_judge / embedding")]
JudgmentsOpt = Annotated[Path | None, typer.Option(
    "--judgments", help="a judged sheet from `softirr judge plan` (its .plan.csv beside it) or a judged plan CSV: "
                        "adds the prediction-powered coefficient, with judge-only and estimator-only beside it")]

#: ``--distance-option KEY=VALUE`` (agree, sensitivity): the options of the ``distance_ks`` / ``distance_sigma`` rows,
#: read by :func:`distance_registry`
DistanceOpt = Annotated[list[str] | None, typer.Option(
    "--distance-option", help="an option of the distance_ks / distance_sigma rows (Braylan et al. 2022), "
                              "KEY=VALUE, repeatable: expected_pairs=all|N (every cross-item pair, or N drawn "
                              "with --seed), and for distance_sigma threshold=0.05 (its significance level), "
                              "kde=true|false (a Gaussian KDE of the expected distances, or their quantile), "
                              "kde_lower=zero|-inf (the KDE integral's lower limit)")]


def similarity_option(help: str) -> Any:
    """The ``--similarity`` option (``-m``); its older name ``--measure`` is :data:`MeasureAliasOpt`."""
    return typer.Option("--similarity", "-m", help=help)


#: ``--measure``, the older name of ``--similarity``: still accepted, not shown in ``--help``
#: (merged by :func:`similarity_values` / :func:`similarity_value`).
MeasureAliasOpt = Annotated[list[str] | None, typer.Option("--measure", hidden=True)]
MeasureAliasOneOpt = Annotated[str | None, typer.Option("--measure", hidden=True)]


def similarity_values(similarity: Sequence[str] | None, measure: Sequence[str] | None) -> list[str]:
    """``--similarity`` and its older name ``--measure`` (both repeatable), flattened; an empty value is refused."""
    return split([*(similarity or []), *(measure or [])], "--similarity")


def similarity_value(similarity: str | None, measure: str | None, default: str | None = None) -> str:
    """A single-valued ``--similarity`` or its older name ``--measure``; a required one when no default."""
    if similarity is not None and measure is not None and similarity != measure:
        fail(f"give --similarity once (--measure is its older name); got {similarity!r} and {measure!r}")
    value = similarity if similarity is not None else measure if measure is not None else default
    if value is None:
        raise _click("exceptions").MissingParameter(param_hint="'--similarity' / '-m'", param_type="option")
    return value


def split(values: Sequence[str] | None, flag: str | None = None) -> list[str]:
    """Flatten repeated and comma-separated option values (a JSON spec or @file stays whole).

    ``flag``: the option of a list of names (``--coefficient``, ``--similarity``, ``--chance``), whose value that
    names nothing (``-c ""``, ``-c ,``) is refused naming it; it would have run the option's default. An empty
    piece beside names (``-c fleiss_kappa,``) is dropped.
    """
    out: list[str] = []
    for v in values or []:
        if flag is not None and not v.replace(",", "").strip():
            fail(f"{flag} was given an empty value ({v!r}); give a name, or leave {flag} out for its default")
        out += [v.strip()] if v.strip().startswith(("{", "@")) else [x.strip() for x in v.split(",") if x.strip()]
    return out


def na_values_list(values: Sequence[str] | None) -> list[str]:
    """``--na-values``: repeated and comma-separated values (:func:`split`), except that a value given alone that is
    empty or only white space is kept as written (``--na-values ' '``: cells holding one space are missing).

    Examples
    --------
    >>> na_values_list(["NA, n/a", " ", "?"])
    ['NA', 'n/a', ' ', '?']
    """
    out: list[str] = []
    for v in values or []:
        out += [v] if not v.strip() else split([v])
    return out


def check_writable(path: Path | None, flag: str, inputs: Sequence[Path | None] = ()) -> None:
    """Fail now (before any computation) when ``path`` cannot be written, or is one of the command's ``inputs``
    (writing it would overwrite the data it reads)."""
    if path is None:
        return
    if path.is_dir():
        fail(f"{flag} {path} is a directory; give a file name")
    clash = _same_file(path, list(inputs))
    if clash is not None:
        fail(f"{flag} {path} is an input of this command ({clash}): writing it would overwrite that file; "
             "choose another path")
    existed = path.exists()
    try:
        with open(path, "a", encoding="utf-8"):
            pass
    except OSError as err:
        fail(f"{flag} {path} cannot be written: {err.strerror or err}")
    if not existed:
        path.unlink(missing_ok=True)


def _same_file(path: Path, others: Sequence[Path | None]) -> Path | None:
    """The first of ``others`` that is the file ``path`` (by name, or by inode where both exist), else None."""
    import os

    target = os.path.abspath(path)
    for other in others:
        if other is None:
            continue
        if os.path.abspath(other) == target:
            return other
        try:
            if other.exists() and path.exists() and os.path.samefile(other, path):
                return other
        except OSError:
            continue
    return None


def _list_option(key: str, shown: str) -> str:
    """``KEY=[a, b]`` for the command line from a Python list's repr (``"['a', 'b']"``), quoted for the shell; a JSON
    list where a name holds a comma or a quote.

    >>> print(_list_option("sheet", "['Ana', 'Bo.v2']"), _list_option("sheet", "['Ana, R1', 'Bo']"))
    'sheet=[Ana, Bo.v2]' 'sheet=["Ana, R1", "Bo"]'
    """
    import ast

    try:
        names = [str(n) for n in ast.literal_eval(shown)]
    except (ValueError, SyntaxError):
        return f"{key}={shown}"
    if any(c in n for n in names for c in ",'\"[]"):
        return f"'{key}={json.dumps(names, ensure_ascii=False)}'"
    return f"'{key}=[{', '.join(names)}]'"


def _reader_value(text: str) -> Any:
    """A ``--reader-option`` value: JSON where it parses (``true``, ``3``, ``["a", "b"]``), a list of bare names for
    ``[a, b]`` (no quotes in it: a name holding a comma needs the JSON form), else the text itself.

    Examples
    --------
    >>> _reader_value("true"), _reader_value('["Keep, Ana", "Bo"]'), _reader_value("[r1, r2 ,r3]"), _reader_value(";")
    (True, ['Keep, Ana', 'Bo'], ['r1', 'r2', 'r3'], ';')
    """
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        inner = text.strip()
        if inner.startswith("[") and inner.endswith("]") and not any(q in inner for q in "\"'"):
            names = [n.strip() for n in inner[1:-1].split(",")]
            if all(names):
                return names
        return text


def _span_rule(text: str, flag: str = "--span-rule") -> Any:
    """A span rule from its spelling by :meth:`SpanRule.parse` (the one parser; docs/readers.md), its refusal in
    command-line words naming ``flag``.

    Examples
    --------
    >>> _span_rule("overlap:0.5,separate")
    SpanRule(match='overlap', min_overlap=0.5, unmatched='O', stacked='separate')
    """
    import re

    from softirr_stats.data import SpanRule

    try:
        return SpanRule.parse(text)
    except (ValueError, TypeError) as err:
        detail = re.sub(r"^span_rule: |^SpanRule\.", "", str(err))
        fail(f"{flag} must be exact, overlap or overlap:IOU, optionally followed by ,separate (or ,set) and "
             f",unmatched=LABEL (or ,unmatched=none), e.g. overlap:0.5,separate; got {text!r}: {detail}")


#: the reading options a command may set with a flag of its own (Python name -> flag): ``--reader-option`` refuses
#: them where the running command has the flag (it silently won over the flag, in either order)
DEDICATED_READER_FLAGS = {"field": "--field", "layer": "--layer", "feature": "--feature", "span_rule": "--span-rule",
                          "categories": "--categories"}


def reader_options(field: str | None = None, layer: str | None = None, feature: str | None = None,
                   span_rule: str | None = None, extra: Sequence[str] | None = None) -> dict[str, Any]:
    """The keyword options of ``read_annotations`` the reader flags give (only the ones given).

    A ``--reader-option`` that a flag sets is refused naming the flag: always for ``--item``, ``--rater``,
    ``--label``, ``--input-format`` and ``--na-values``, and for :data:`DEDICATED_READER_FLAGS` where the running
    command has that flag (or the flag is given here). A command without it (``compare`` has no ``--span-rule``)
    takes the reader option. A key given twice with two values (``--reader-option 'sep=;' --reader-option sep=,``)
    is refused naming both: the reader takes one.
    """
    import shlex

    given = {"field": field, "layer": layer, "feature": feature, "span_rule": span_rule}
    opts: dict[str, Any] = {k: v for k, v in given.items() if v is not None and k != "span_rule"}
    if span_rule is not None:
        opts["span_rule"] = _span_rule(span_rule)
    said: dict[str, str] = {}  # key -> the --reader-option that set it, for the refusal of a second value
    for item in extra or []:
        key, eq, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not eq or not key.isidentifier():
            fail(f"--reader-option takes KEY=VALUE (e.g. --reader-option taxonomy_sep=/); got {item!r}")
        if key in ("item", "rater", "label", "format", "na_values"):
            flag = {"format": "--input-format", "na_values": "--na-values"}.get(key, f"--{key}")
            fail(f"--reader-option {key}=...: use {flag} instead")
        flag = DEDICATED_READER_FLAGS.get(key)
        if flag is not None and (given.get(key) is not None or _takes(key)):
            also = f" (got {flag} {given[key]!r} too)" if given.get(key) is not None else ""
            fail(f"--reader-option {key}=... sets what {flag} sets: use {flag} instead{also}")
        parsed = _span_rule(value, "--reader-option span_rule=") if key == "span_rule" else _reader_value(value)
        if key in said and opts[key] != parsed:
            fail(f"{said[key]} and --reader-option {shlex.quote(item)} both set {key}: give it once")
        opts[key] = parsed
        said.setdefault(key, f"--reader-option {shlex.quote(item)}")
    return opts


def _takes(name: str) -> bool:
    """Whether the running command has the parameter ``name`` (False outside a command)."""
    ctx = _click("globals").get_current_context(silent=True)
    return ctx is not None and any(p.name == name for p in ctx.command.params)


_FLAG_OF = {"format": "--input-format", "na_values": "--na-values", "field": "--field", "layer": "--layer",
            "feature": "--feature", "span_rule": "--span-rule", "item": "--item", "rater": "--rater",
            "label": "--label"}


def _flag_names(message: str) -> str:
    """Keyword names in a library message (``format=``) as the CLI flags that set them (``--input-format``)."""
    import re

    def flags(m: "re.Match[str]") -> str:
        keys = re.findall(r"'(\w+)'", m.group(1))
        return "the options " + ", ".join(_FLAG_OF.get(k, f"--reader-option {k}=...") for k in keys) + " apply"

    message = re.sub(r"\boptions \[([^\]]*)\] apply", flags, message)
    # a reader function that does not take a keyword (Python's TypeError): name the flag that set it
    message = re.sub(r"(?:[\w.<>]+\(\) )?got an unexpected keyword argument '(\w+)'",
                     lambda m: f"{_FLAG_OF.get(m.group(1), '--reader-option ' + m.group(1) + '=...')} is not an option "
                               "of this reader", message)
    message = re.sub(r"^(format|field|layer|feature|span_rule) must be", lambda m: f"{_FLAG_OF[m.group(1)]} must be",
                     message)
    message = re.sub(r"\bwide=True\b", "--reader-option wide=true", message)
    message = re.sub(r"\bpass sep='([^']*)'", r"pass --reader-option 'sep=\1'", message)
    message = re.sub(r"\bpass quoting='(\w+)'", r"pass --reader-option quoting=\1", message)
    message = re.sub(r"\bpass sheet='([^']*)'", r"pass --reader-option 'sheet=\1'", message)
    message = re.sub(r"\bpass sheet= ", "pass --reader-option sheet=NAME ", message)
    message = re.sub(r"\bpass sheet=(\[[^\]]*\])", lambda m: "pass --reader-option " + _list_option("sheet", m.group(1)),
                     message)
    # a flag followed by a quoted value gets a space (item='' -> --item ''); a list of them, as a command line takes it
    message = re.sub(r"\bpass (item|rater|label)='([^']*)', (rater|label)='([^']*)'(?:, (label)='([^']*)')?",
                     lambda m: "pass " + " ".join(f"{_FLAG_OF[k]} {v!r}" for k, v in zip(m.groups()[::2], m.groups()[1::2],
                                                                                          strict=True) if k), message)
    return re.sub(r"\b(format|na_values|field|layer|feature|span_rule|item|rater|label)=(?=([\s'\"(),.;]|$))",
                  lambda m: _FLAG_OF[m.group(1)] + (" " if m.group(2) in ("'", '"') else ""), message)


#: the bootstrap's refusal of a design with fewer than 2 units (items, clusters) in all or in a stratum
#: (uncertainty.check_design): its subject and its ways out (uncertainty.too_few_units_advice), in the library's words
_FEW_UNITS = (r"\bBootstrap\(design='(?P<design>[\w+]+)'\) needs at least 2 (?P<unit>clusters|items) (?:per stratum )?"
              r"to resample; got (?P<got>\d+) (?P<where>in total|in \d+ of \d+ strata): ")
_FEW_UNITS_WAYS = (
    (r"\b([Mm])erge each such stratum with a neighbouring one \(strata=\)",
     lambda m, by: f"{m[1]}erge each such stratum with a neighbouring one in the column {by}"),
    (r"\bleave out strata= where the (clusters|items) were not sampled within strata",
     lambda m, by: f"leave out --strata ({m[1]} resampled across the strata) where they were not sampled within "
                   "strata"),
    (r"\b([Gg])ive cluster= more clusters", lambda m, by: f"{m[1]}ive --cluster a column with more clusters"),
)


def few_units_wording(message: str, cluster: str | None, strata: str | None) -> str:
    """The "fewer than 2 units" refusal of a bootstrap design, with the flags that set what it names.

    The subject becomes the flags that made the design (``the option --cluster COLUMN``, ``the option --design NAME``,
    within ``--strata COLUMN``: opening with a word, :func:`word_first`), and the library's ways out (:func:`softirr_stats.uncertainty.too_few_units_advice`, which follow the
    design) the flags that take them: merge the stratum in the ``--strata`` column, leave out ``--strata``, give
    ``--cluster`` a column with more clusters, ``--bootstrap 0``. No other design is offered: ``--design items``
    would resample the same items, and leaving out ``--cluster`` would ignore the clustering.
    ``cluster`` / ``strata``: the columns the command was given (``COLUMN`` when unknown).

    Examples
    --------
    >>> msg = ("Bootstrap(design='cluster') needs at least 2 clusters per stratum to resample; got 1 in 1 of 3 strata: "
    ...        "those clusters would be drawn identically. Merge each such stratum with a neighbouring one (strata=), "
    ...        "leave out strata= where the clusters were not sampled within strata, give cluster= more clusters, or "
    ...        "report the point estimate without an interval (ci=None; on the command line --bootstrap 0)")
    >>> few_units_wording(msg, "site", "region")  # doctest: +NORMALIZE_WHITESPACE
    'the option --cluster site needs at least 2 clusters in each stratum of --strata region; got 1 in 1 of 3 strata:
    those clusters would be drawn identically. Merge each such stratum with a neighbouring one in the column region, leave
    out --strata (clusters resampled across the strata) where they were not sampled within strata, give --cluster a
    column with more clusters, or report the point estimate without an interval (--bootstrap 0)'
    """
    import re
    import shlex

    match = re.search(_FEW_UNITS, message)
    if match is None:
        return message
    col, by = shlex.quote(cluster or "COLUMN"), shlex.quote(strata or "COLUMN")
    subject = f"--cluster {col}" if match["unit"] == "clusters" else f"--design {match['design']}"
    within = "to resample" if match["where"] == "in total" else f"in each stratum of --strata {by}"
    got = match["got"] if match["where"] == "in total" else f"{match['got']} {match['where']}"
    message = message[:match.start()] + f"{subject} needs at least 2 {match['unit']} {within}; got {got}: " + \
        message[match.end():]
    for pattern, text in _FEW_UNITS_WAYS:
        message = re.sub(pattern, lambda m, text=text: text(m, by), message)
    from softirr_stats.uncertainty import TOO_FEW_UNITS_POINT

    return word_first(message.replace(TOO_FEW_UNITS_POINT,
                                      "report the point estimate without an interval (--bootstrap 0)"))


#: a message, or the reason after its ``error: `` / ``skipped: `` tag, that opens with a flag (``--design raters
#: resamples ...``, ``-c krippendorff_alpha ...``)
_FLAG_OPENING = r"^((?:error|skipped): )?(?=--?[A-Za-z])"


def word_first(message: str) -> str:
    """``message`` opening with a word where the command-line wording left a flag first: ``the option --design raters
    resamples raters ...``. A csv cell that begins with ``-`` is a formula to a spreadsheet, so the csv guard quotes
    it (``'--design ...``); the notes and warnings of a result row (and the reason of its ``error`` cell, after
    the ``error:`` tag) open with a word instead, as :data:`AUTO_CHANCE_NOTE` and :data:`TEST_NOTE` do. A line on
    stderr (``error: --emission histogram is ...``) keeps the flag first.

    Examples
    --------
    >>> word_first("--cluster site needs at least 2 clusters to resample; got 1"), word_first("error: -c x: bad")
    ('the option --cluster site needs at least 2 clusters to resample; got 1', 'error: the option -c x: bad')
    >>> word_first("use --bootstrap 0"), word_first("-0.5 is below 0")  # a number is no flag
    ('use --bootstrap 0', '-0.5 is below 0')
    """
    import re

    return re.sub(_FLAG_OPENING, r"\1the option ", message, count=1)


def cli_wording(message: str) -> str:
    """A library note or error worded for the command line: Python calls as the flags that do the same.

    ``weights='linear'`` reads ``--similarity linear``, ``ci=softirr_stats.Bootstrap(...)`` reads ``--bootstrap N
    without --analytic``, ``ci='analytic'`` reads ``--analytic``, ``design='items'`` reads ``--design items`` (the
    designs the CLI lacks left out), ``level='ordinal'`` names ``-c krippendorff_alpha:ordinal``, ``chance='exact'`` / ``chance=MonteCarlo(permutations=3)``
    read ``--chance exact`` / ``--chance mc:3``, the list of chance forms loses its Python objects, and the
    missing-ratings note keeps the peers' number but not the Python call that reproduces it (no flag keeps
    the complete items only). The annotator models' advice reads as ``softirr model``'s flags:
    ``method='nuts'`` as ``--method nuts``, ``got null=0.3`` as ``got --null 0.3``, gold pairs ``(gold=`` as ``(--gold SHEET``,
    ``profile_interval='widen'`` as ``--profile-interval widen``, ``raise steps= (SviConfig)`` as ``raise --steps``,
    ``emission='histogram'`` as ``--emission histogram`` (``annotator_agreement(..., gold=..., emission=...)`` as
    ``softirr model --gold SHEET --emission ...``), and a fit refused by its size names ``--model soft -m levenshtein``
    (or another soft ``--similarity``; its ``check_size=False`` has no flag and is left out).
    An interval method (``method='auto'``) reads ``--method auto``; "use at least N replicates" names ``--bootstrap N``.
    A message already worded for both (``on the command line: ...``) keeps its
    ``chance=`` names, which its own parenthesis translates.

    Examples
    --------
    >>> cli_wording("chance must be one of exact, auto, mc:D, sampled:N, MonteCarlo(permutations=D) or "
    ...             "SampledPairs(n=...); got 'x'")
    "chance must be one of exact, auto, mc:D, sampled:N; got 'x'"
    >>> cli_wording("use a smaller D (or chance='exact')")
    'use a smaller D (or --chance exact)'
    >>> cli_wording("kendall_w has none; use ci=softirr_stats.Bootstrap(...)")
    'kendall_w has none; use --bootstrap N without --analytic'
    >>> cli_wording("Bootstrap(design='raters') resamples raters and needs at least 3; got 2. Use design='items' "
    ...             "(raters fixed) or 'cluster'")
    '--design raters resamples raters and needs at least 3; got 2. Use --design items (raters fixed) or --cluster COLUMN'
    >>> cli_wording("use design='items', 'cluster' or 'bayesian'")  # --cluster where the command takes it
    'use --design items, --cluster COLUMN or --design bayesian'
    >>> cli_wording("error: level='ratio' needs numeric labels; in Python: krippendorff_alpha(ann, level='ratio')")
    "error: alpha's level ratio (-c krippendorff_alpha:ratio) needs numeric labels; in Python: krippendorff_alpha(ann, level='ratio')"
    >>> cli_wording("named weights need categorical or numeric labels; use similarity= for sets")
    'named weights need categorical or numeric labels; use -m jaccard (or another set measure) for sets'
    >>> cli_wording("(0.2500 there: sis.cohen_kappa(ann.complete_items(), weights='linear'))")
    '(0.2500 there)'
    >>> cli_wording("method='auto': BCa with t quantiles, 69 df (items design, 70 <= 1000 items)")
    '--method auto: BCa with t quantiles, 69 df (items design, 70 <= 1000 items)'
    >>> cli_wording("fit with method='nuts' or pass gold pairs (gold=; see the docs); profile_interval='widen' widened")
    'fit with --method nuts or pass gold pairs (--gold SHEET; see the docs); --profile-interval widen widened'
    >>> cli_wording("the fit has likely not converged; raise steps= (SviConfig)")
    'the fit has likely not converged; raise --steps'
    >>> cli_wording("light_kappa's z test is R irr's test of H0: kappa = 0; got null=0.3")
    "light_kappa's z test is R irr's test of H0: kappa = 0; got --null 0.3"
    >>> cli_wording("gold pairs with emission='histogram' (annotator_agreement(..., gold=..., emission='histogram'))")
    'gold pairs with --emission histogram (softirr model --gold SHEET --emission histogram)'
    >>> cli_wording("only 5 bootstrap replicates lie beyond each bound (B = 200): use at least 400 replicates")
    'only 5 bootstrap replicates lie beyond each bound (B = 200): use at least 400 replicates (--bootstrap 400)'
    >>> cli_wording("Fit the soft model instead (model='soft' with a similarity, e.g. similarity='levenshtein'), or "
    ...             "map the labels to a coarser label set first (check_size=False fits anyway)")
    'Fit the soft model instead (--model soft -m levenshtein, or another soft --similarity), or map the labels to a coarser label set first'
    """
    import re

    message = re.sub(r" there: sis\.\w+\(ann\.complete_items\(\)(?:, weights='\w+')?\)\)", " there)", message)
    message = re.sub(r",? MonteCarlo\(permutations=D\) or SampledPairs\(n=\.\.\.\)", "", message)
    message = re.sub(r"\bweights='(\w+)'", r"--similarity \1", message)
    message = re.sub(r"ci must be None or softirr_stats\.Bootstrap\(\.\.\.\) for this statistic \(no analytic variance "
                     r"is implemented\); got Analytic\([^)]*\)",
                     "this statistic has no analytic variance; use --bootstrap N without --analytic", message)
    message = re.sub(r"\bci=softirr_stats\.Bootstrap\(\.\.\.\)", "--bootstrap N without --analytic", message)
    message = re.sub(r"\bci='analytic'", "--analytic", message)
    # the bootstrap designs: the CLI's --design takes items, raters, items+raters, bayesian; cluster comes with
    # --cluster COLUMN (a column of FILE giving each item's cluster)
    if _command() in CLUSTER_COMMANDS:  # too few items or clusters (in a stratum): the ways out these commands take
        message = few_units_wording(message, _param("cluster"), _param("strata"))
    message = re.sub(r"\bBootstrap\(design='([\w+]+)'\)", r"--design \1", message)
    cluster = ", --cluster COLUMN" if _command() in CLUSTER_COMMANDS else ""
    message = re.sub(r"\bdesign='items', 'cluster' or 'bayesian'",
                     f"--design items{cluster} or --design bayesian", message)
    message = re.sub(r"\bdesign='items' \(raters fixed\) or 'cluster'",
                     f"--design items (raters fixed){cluster.replace(',', ' or')}", message)
    message = re.sub(r"; few_units='none' leaves it out\)", ")", message)  # no flag turns the widening off
    message = re.sub(r"\bdesign='([\w+]+)'", r"--design \1", message)
    # the interval method (--method of the commands with an interval), and the annotator models' options (softirr
    # model): --method, --gold SHEET, --profile-interval
    message = re.sub(rf"\bmethod='({'|'.join(map(re.escape, METHODS))}|nuts|svi)'", r"--method \1", message)
    message = re.sub(r"\(gold=([;)])", r"(--gold SHEET\1", message)
    message = re.sub(r"\bprofile_interval='(widen|report|off)'", r"--profile-interval \1", message)
    message = re.sub(r"\braise steps= \(SviConfig\)", "raise --steps", message)
    message = re.sub(r"\bgot null=(?=[-\d.])", "got --null ", message)  # kappa_test's H0 value is --null
    # the soft model's emission (--emission), its gold pairs, and a categorical fit refused on free text
    message = re.sub(r"\bannotator_agreement\(\.\.\., gold=\.\.\., emission='(\w+)'\)",
                     r"softirr model --gold SHEET --emission \1", message)
    message = re.sub(r"\bemission='(\w+)'", r"--emission \1", message)
    message = re.sub(r"\bpass gold scores and labels\b", "pass --gold SHEET", message)
    message = re.sub(r"\(model='soft' with a similarity, e\.g\. similarity='(\w+)'\)",
                     r"(--model soft -m \1, or another soft --similarity)", message)
    message = re.sub(r" \(check_size=False fits anyway\)", "", message)  # no flag fits a refused size
    message = re.sub(r"\bsimilarity= for sets\b", "-m jaccard (or another set measure) for sets", message)
    # a message's own subject (level='interval' needs numbers), not a note's Python call (in Python: ...(ann, level=...))
    message = re.sub(r"(^|: |; )level='(\w+)'", r"\1alpha's level \2 (-c krippendorff_alpha:\2)", message)
    message = _auto_chance_wording(message)
    message = re.sub(r"\bchance=MonteCarlo\(permutations=(\d+)[^)]*\)", r"--chance mc:\1", message)
    message = re.sub(r"\b(?:chance=)?SampledPairs\(n=([\d_]+)[^)]*\)",
                     lambda m: f"--chance sampled:{m.group(1).replace('_', '')}", message)
    if "on the command line:" not in message:
        message = re.sub(r"\bchance='([\w:]+)'", r"--chance \1", message)
    # the bounds' Monte Carlo advice: replicates are --bootstrap's
    return re.sub(r"\buse at least (\d+) replicates\b(?! \(--bootstrap)", r"use at least \1 replicates (--bootstrap \1)",
                  message)


def _auto_chance_wording(message: str) -> str:
    """The note of the chance term ``chance='auto'`` chose, as a note of ``--chance auto`` (one wording for one
    choice: the timing estimate, which differs from row to row and run to run, left out; the note opens with a
    word, not the flag's ``-``).

    Examples
    --------
    >>> _auto_chance_wording("chance='auto' chose exact over 3 labels (3 label pairs, scored one by one, "
    ...                      "estimated about 0.0046 s (0.000179 ms per pair measured on 12769))")
    'chance term chosen by --chance auto: exact over 3 labels (3 label pairs, scored one by one)'
    >>> _auto_chance_wording("chance='auto' chose SampledPairs(n=20000): exact would score 30 label pairs "
    ...                      "(limit 10); chance_se reports the sampling error of the chance term")
    'chance term chosen by --chance auto: sampled:20000, as exact would score 30 label pairs (limit 10); chance_se reports the sampling error of the chance term'
    """
    import re

    found = re.match(r"chance='auto' chose (exact|SampledPairs\(n=([\d_]+)\))(?:: )?(.*)$", message, flags=re.S)
    if found is None:
        return message
    if found.group(1) == "exact":
        rest = re.sub(r", estimated about [^()]*\([^()]*\)(?=\)$)", "", found.group(3))
        return f"{AUTO_CHANCE_NOTE}exact{rest}"
    return f"{AUTO_CHANCE_NOTE}sampled:{found.group(2).replace('_', '')}, as {found.group(3)}"


def categories_list(text: str | None) -> list[str] | None:
    """``--categories``: ``A,B,C`` or ``@FILE`` (one category per line) as a list of names; None when not given.

    A name holding a comma, or spaces at its ends, or starting with ``@``, goes in the file.
    """
    if text is None:
        return None
    if text.startswith("@"):
        path = Path(text[1:])
        if not text[1:] or not path.is_file():
            fail(f"--categories {text}: {path} is not a file (give @FILE with one category per line, or A,B,C)")
        try:
            lines = path.read_text(encoding="utf-8-sig").splitlines()
        except (OSError, UnicodeDecodeError) as err:
            fail(f"--categories {text}: cannot read {path}: {one_line(err)}")
        cats = [line for line in lines if line.strip()]
        where = f"{path} (one category per line)"
    else:
        cats = [c.strip() for c in text.split(",")]
        if any(not c for c in cats):
            fail(f"--categories {text!r} has an empty name; give A,B,C (a name holding a comma goes in @FILE, "
                 "one category per line)")
        where = "--categories"
    if len(cats) < 2:
        fail(f"--categories needs at least two categories; got {cats!r} from {where}")
    dup = next((c for i, c in enumerate(cats) if c in cats[:i]), None)
    if dup is not None:
        fail(f"--categories names {dup!r} twice; each category once")
    return cats


def declare_categories(ann: Any, cats: Sequence[str] | None, what: str = "FILE") -> Any:
    """The annotations with ``cats`` declared as their full category set (``Annotations(..., categories=)``).

    Numeric labels take numeric categories (``--categories 1,2,3,4,5``); multi-label sets take them as their
    label universe (:func:`_label_universe`). A label outside the set or a name that is not a number for numeric
    labels fails with one line naming the flag.
    """
    if cats is None:
        return ann
    if ann.kind == "set":
        return _label_universe(ann, cats, what)
    values: list[Any] = list(cats)
    if ann.kind == "numeric":
        values = []
        for c in cats:
            try:
                values.append(int(c))
            except ValueError:
                try:
                    values.append(float(c))
                except ValueError:
                    fail(f"--categories {c!r} is not a number, but the labels of {what} are numbers "
                         f"(e.g. {ann.vocabulary[0]!r}); give numbers (e.g. --categories 1,2,3,4,5)")
        if len(set(values)) != len(values):
            fail(f"--categories names one number twice ({', '.join(cats)}); each category once")
    declared = set(values)
    unknown = [v for v in ann.vocabulary if v not in declared]
    if unknown:
        more = f" (and {len(unknown) - 1} more: {', '.join(map(repr, unknown[1:6]))}{', ...' if len(unknown) > 6 else ''})" \
            if len(unknown) > 1 else ""
        fail(f"label {unknown[0]!r} of {what} is not among the declared categories{more}; --categories must list "
             f"every label (declared: {', '.join(map(repr, values[:10]))}{', ...' if len(values) > 10 else ''})")
    from softirr_stats.agreement import as_annotations

    try:
        return as_annotations(ann, values)
    except (ValueError, TypeError) as err:
        fail(f"--categories: {one_line(err)}")


def check_set_categories(ann: Any, coefs: Sequence[str] | None, categories: str | None) -> None:
    """``--categories`` on multi-label sets is the label universe of the ``multilabel_*`` rows
    (:func:`declare_categories`); any other coefficient (``-c``, or the defaults where ``coefs`` is None) counts
    its categories over the distinct label sets observed and takes none, as Python's ``categories=`` on sets is
    refused: fail (exit 2) naming the coefficients, rather than accept and ignore the flag."""
    if categories is None or getattr(ann, "kind", None) != "set":
        return
    from softirr_stats.analysis import MULTILABEL_COEFFICIENTS

    other = ["the default coefficients (no -c)"] if coefs is None else [c for c in coefs
                                                                       if c not in MULTILABEL_COEFFICIENTS]
    if other:
        fail(f"--categories on multi-label sets is the label universe of -c {', '.join(MULTILABEL_COEFFICIENTS)}; "
             f"{', '.join(other)} take{'s' if len(other) == 1 else ''} no categories for sets (in Python: "
             "categories= applies to categorical or numeric labels, not sets): their q, and their chance term, count "
             "the distinct label sets observed. Leave out --categories, or ask for the multilabel rows alone")


def _label_universe(ann: Any, cats: Sequence[str], what: str) -> Any:
    """Multi-label sets: ``cats`` as the label universe of the ``multilabel_*`` rows (``multilabel_agreement(ann,
    labels=cats)``: a label no rating selects counts in the definition); a selected label outside it fails naming
    the flag."""
    declared = set(cats)
    unknown = sorted(x for x in set().union(*ann.vocabulary) if x not in declared)
    if unknown:
        more = f" (and {len(unknown) - 1} more: {', '.join(map(repr, unknown[1:6]))})" if len(unknown) > 1 else ""
        fail(f"label {unknown[0]!r} of {what} is not among the declared categories{more}; for multi-label sets "
             f"--categories is the label universe and must list every selected label (declared: "
             f"{', '.join(map(repr, cats[:10]))}{', ...' if len(cats) > 10 else ''})")
    return ann.with_label_universe(list(cats))


def _note_flags(note: str) -> str:
    """A reading note's Python keywords as the CLI flags that set them (``format='x'`` -> ``--input-format x``)."""
    import re

    note = re.sub(r"\bformat=(['\"])([^'\"]*)\1", r"--input-format \2", note)
    note = re.sub(r"\bpass format=(?=[\s,;)]|$)", "pass --input-format", note)
    return re.sub(r"\b(duplicates|normalize|encoding|rater_from)=(['\"])([^'\"]*)\2", r"--reader-option \1=\3", note)


def read(files: Path | Sequence[Path], item: str = "item", rater: str = "rater", label: str = "label",
         na_values: Sequence[str] | None = None, input_format: str | None = None,
         options: dict[str, Any] | None = None, categories: str | None = None, *,
         replication: bool = False) -> tuple[Any, list[str]]:
    """Read annotations (one file, or several per-annotator exports merged); returns ``(ann, notes)``.

    Every input problem becomes one line naming the file and the flags (exit 2). ``categories``:
    the ``--categories`` text, declared as the full category set (:func:`declare_categories`).
    ``replication``: the file is one replication of ``compare --cross-replication``, which may hold a
    single rater (one expert against a crowd); every other reading refuses one.
    """
    cats = categories_list(categories)
    ann, notes = _read(files, item, rater, label, na_values, input_format, options, replication)
    paths = [files] if isinstance(files, Path) else list(files)
    return declare_categories(ann, cats, ", ".join(str(p) for p in paths)), notes


def _read(files: Path | Sequence[Path], item: str, rater: str, label: str, na_values: Sequence[str] | None,
          input_format: str | None, options: dict[str, Any] | None,
          replication: bool = False) -> tuple[Any, list[str]]:
    from softirr_stats.analysis import read_input
    from softirr_stats.data import single_rater_replication

    paths = [files] if isinstance(files, Path) else list(files)
    if not paths:
        fail("give at least one annotation FILE")
    for p in paths:
        if not p.exists():
            fail(f"FILE {p} does not exist")
    what = ", ".join(map(str, paths))
    with reading_files(paths), single_rater_replication() if replication else contextlib.nullcontext():
        ann, notes = read_input(paths if len(paths) > 1 else paths[0], item=item, rater=rater, label=label,
                                format=input_format, na_values=na_values_list(na_values), **(options or {}))
    if getattr(ann, "n_raters", 2) == 1 and not replication:  # say why agreement is undefined before the table says it is
        notes = [f"DegenerateWarning: {what} has one annotator ({ann.raters[0]!r}); agreement needs two or more: add the other "
                 f"annotators' exports (softirr {_command()} {what} OTHER_EXPORT ...)", *notes]
    return ann, [_note_flags(n) for n in notes]


def reading_files(paths: Sequence[Path]) -> contextlib.AbstractContextManager[None]:
    """Any failure inside the block as one line, ``cannot read FILE: reason`` (exit 2), the reason in command-line
    words (``feature=`` as ``--feature``) and the file named once (a library message that starts with its name
    keeps that one): :func:`~softirr_stats.cli._errors.reading` of the annotation files, which no flag gives.

    An option a reader does not take is its OptionError (checked against the reader's signature), named with its
    flag by :func:`_flag_names`; nothing here is decided by the message's text."""
    return reading(list(paths), wording=_flag_names)


def _command() -> str:
    """The running subcommand's name (``agree`` when unknown)."""
    ctx = _click("globals").get_current_context(silent=True)
    return ctx.info_name if ctx is not None and ctx.info_name else "agree"


def _param(name: str) -> Any:
    """The running subcommand's value of parameter ``name`` (None when unknown)."""
    ctx = _click("globals").get_current_context(silent=True)
    return None if ctx is None else ctx.params.get(name)


def check_replicates(bootstrap: int, none: str | None = "no interval") -> None:
    """``--bootstrap``: 0 (``none`` says what 0 means; None where 0 is not allowed) or 2 to 10**7 replicates."""
    if none is None and bootstrap < 2:
        fail(f"--bootstrap must be at least 2 replicates (1000-10000 is usual); got {bootstrap}")
    if bootstrap < 0 or bootstrap == 1:
        fail(f"--bootstrap must be 0 ({none}) or at least 2 replicates; got {bootstrap}")
    if bootstrap > 10**7:
        fail(f"--bootstrap {bootstrap} is more replicates than any interval needs (at most 10000000; 1000-10000 "
             "is usual)")


def check_probability(value: float, flag: str, example: str) -> None:
    """A level, power or alpha option: strictly between 0 and 1."""
    if math.isnan(value) or not (0.0 < value < 1.0):
        fail(f"{flag} must lie strictly between 0 and 1 (e.g. {example}); got {value}")


#: the interval options ``--bootstrap 0`` (no interval) leaves unused (Python names, as :func:`given_flags` takes
#: them), and why each given one is refused
NO_INTERVAL_OPTIONS = ("design", "method", "level")
NO_INTERVAL_WHY = "is not used with --bootstrap 0 (no interval); leave out one of them"


def unused_without_interval(bootstrap: int, *, also: Sequence[str] = (), level_used: bool = False) -> dict[str, str]:
    """``{name: why}`` of the options ``--bootstrap 0`` leaves unused (:data:`NO_INTERVAL_OPTIONS` and ``also``;
    ``--level`` kept where something else uses it, ``level_used``); {} for a bootstrap. A command refuses those
    of them given on the command line (:func:`refuse_given`), as every command with ``--bootstrap`` does.

    Examples
    --------
    >>> list(unused_without_interval(0, level_used=True)), unused_without_interval(1000)
    (['design', 'method'], {})
    >>> unused_without_interval(0)["level"]
    'is not used with --bootstrap 0 (no interval); leave out one of them'
    """
    if bootstrap != 0:
        return {}
    return {name: NO_INTERVAL_WHY for name in (*NO_INTERVAL_OPTIONS, *also) if not (name == "level" and level_used)}


def refuse_given(why: dict[str, str]) -> None:
    """Fail (exit 2) on the first of ``why``'s options given on the command line: ``--FLAG WHY``."""
    for name, flag in given_flags(*why).items():
        fail(f"{flag} {why[name]}")


def make_bootstrap(bootstrap: int, design: str, method: str, level: float, seed: int, *,
                   judged: bool | None = None, level_used: bool = False) -> Any:
    """A :class:`~softirr_stats.Bootstrap` (or None for ``--bootstrap 0``); errors name the flags.

    ``judged``: on a command whose ``--design`` also takes :data:`JUDGED_DESIGNS`, whether ``--judgments`` was
    given (those designs resample its judged pairs and need it); None on the other commands. With ``--bootstrap
    0``, ``--design``, ``--method`` and ``--level`` given on the command line are refused
    (:func:`unused_without_interval`; ``level_used``: something besides the interval uses ``--level``).
    """
    check_replicates(bootstrap)
    allowed = DESIGNS if judged is None else (*DESIGNS, *JUDGED_DESIGNS)
    if design in JUDGED_DESIGNS and judged is False:
        fail(f"--design {design} resamples the judged pairs of --judgments SHEET (the items fixed); give --judgments "
             f"(a sheet from softirr judge plan), or another --design ({', '.join(DESIGNS)})")
    if design not in allowed:
        fail(f"--design must be one of {', '.join(allowed)}; got {design!r}{did_you_mean(design, allowed)}")
    if method not in METHODS:
        fail(f"--method must be one of {', '.join(METHODS)}; got {method!r}{did_you_mean(method, METHODS)}")
    check_probability(level, "--level", "0.95")
    check_seed(seed)
    if bootstrap == 0:
        refuse_given(unused_without_interval(bootstrap, level_used=level_used))
        return None
    import softirr_stats as sis

    try:
        return sis.Bootstrap(n=bootstrap, design=design, method=method, level=level, seed=seed)
    except (ValueError, TypeError) as err:
        fail(f"invalid bootstrap options (--bootstrap/--design/--method/--level/--seed): {err}")


#: the interval options ``--analytic`` replaces (Python names, as :func:`given_flags` takes them)
BOOTSTRAP_ONLY = ("bootstrap", "design", "method")


def make_interval(analytic: bool, bootstrap: int, design: str, method: str, level: float, seed: int, *,
                  judged: bool | None = None, level_used: bool = False) -> Any:
    """``--analytic`` (an :class:`~softirr_stats.Analytic` at ``level``) or :func:`make_bootstrap`'s interval.

    ``--analytic`` with ``--bootstrap``, ``--design`` or ``--method`` given on the command line is refused
    naming both options: the analytic interval resamples nothing, and nothing given is silently ignored.
    ``--seed`` stays allowed (it seeds ``--chance mc:D`` and ``--test``). ``judged`` and ``level_used`` as for
    :func:`make_bootstrap`.
    """
    if not analytic:
        return make_bootstrap(bootstrap, design, method, level, seed, judged=judged, level_used=level_used)
    for flag in given_flags(*BOOTSTRAP_ONLY).values():
        fail(f"{flag} is not used with --analytic (the analytic interval resamples nothing); leave out one of them")
    check_probability(level, "--level", "0.95")
    check_seed(seed)
    import softirr_stats as sis

    return sis.Analytic(level=level)


def ci_title(ci: Any, bootstrap: int, design: str, method: str, level: float, seed: int,
             n_items: int | None = None) -> str:
    """The interval part of a table title: level, method (``auto`` resolved for ``n_items``), B and design; or the
    analytic interval's level (``--analytic``)."""
    if ci is None:
        return "point estimates, no interval (--bootstrap 0)"
    from softirr_stats.uncertainty import Analytic

    if isinstance(ci, Analytic):  # --analytic: nothing resampled
        return (f"{level_text(ci.level)} analytic intervals (exact F for the ICCs, Fisher z for lin_ccc, delta method "
                "for the chance-corrected coefficients)")
    if method == "auto" and n_items is not None:
        from softirr_stats.uncertainty import resolve_method

        method = resolve_method(method, design, n_items)[0]
    design = getattr(ci, "design_label", design)  # "cluster within 2 strata" (--strata)
    return f"{level_text(level)} {method} intervals, B = {bootstrap} bootstrap replicates, design = {design}, seed = {seed}"


def given_flags(*names: str) -> dict[str, str]:
    """``{name: long flag}`` for those of the running command's parameters ``names`` (Python names, kept in that
    order) that were given on the command line (or from the environment), not left at their defaults; {} outside
    a command. A command whose modes use different options refuses one given where it is not used.
    """
    ctx = _click("globals").get_current_context(silent=True)
    if ctx is None:
        return {}
    source = _click("core").ParameterSource
    flags = command_flags()
    return {name: flags[name] for name in names
            if name in flags and ctx.get_parameter_source(name) not in (None, source.DEFAULT, source.DEFAULT_MAP)}


def check_choices(values: Sequence[str], allowed: Sequence[str], flag: str) -> None:
    """Fail with the same message shape for any mistyped name."""
    bad = [v for v in values if v not in allowed]
    if bad:
        from softirr_stats.base._suggest import did_you_mean

        fail(f"unknown {flag} {', '.join(repr(b) for b in bad)}{did_you_mean(bad[0], allowed)}; "
             f"choose from {', '.join(allowed)}")


def check_format(fmt: str) -> str:
    """Validate ``--format``."""
    if fmt not in FORMATS:
        fail(f"--format must be one of {', '.join(FORMATS)}; got {fmt!r}{did_you_mean(fmt, FORMATS)}")
    return fmt


def chance_settings(values: Sequence[str] | None, seed: int = 0) -> list[Any]:
    """``--chance`` values through the one resolver (``agreement.resolve_chance``); errors name the flag."""
    from softirr_stats.agreement import resolve_chance

    out = []
    for text in split(values, "--chance") or ["exact"]:
        try:
            out.append(resolve_chance(text, seed=seed))
        except (ValueError, TypeError) as err:
            fail(f"--chance {text}: {cli_wording(str(err))}")
    return out


#: ``--distance-option`` keys and the rows that use them (``seed`` is ``--seed``)
_DISTANCE_KEYS = {"expected_pairs": ("distance_ks", "distance_sigma"), "threshold": ("distance_sigma",),
                  "kde": ("distance_sigma",), "kde_lower": ("distance_sigma",)}


def distance_registry(values: Sequence[str] | None, coefs: Sequence[str] | None, seed: int) -> Any:
    """The coefficient views with ``--distance-option KEY=VALUE`` and ``--seed`` as the ``distance_*`` rows' options
    (``distance_agreement(..., threshold=, kde=, kde_lower=, expected_pairs=, seed=)``); None when no distance row
    is asked for. ``coefs``: the ``-c`` names (None: the command's default set, which has no distance row). An
    option no requested row uses, an unknown key or a bad value fails naming the flag (``agree``, ``sensitivity``).
    """
    from softirr_stats.analysis import DISTANCE_COEFFICIENTS, coefficient_registry

    coefs = list(coefs or [])
    wanted = [c for c in coefs if c in DISTANCE_COEFFICIENTS]
    given: dict[str, Any] = {}
    said: dict[str, str] = {}  # key -> the text that set it, for the refusal of a second value
    for text in values or []:
        key, eq, value = text.partition("=")
        key = key.strip().replace("-", "_")
        if not eq or key not in _DISTANCE_KEYS:
            fail(f"--distance-option takes KEY=VALUE with KEY one of {', '.join(_DISTANCE_KEYS)} (e.g. "
                 f"--distance-option threshold=0.01); got {text!r}" + ("; the sample's seed is --seed"
                                                                        if key == "seed" else ""))
        users = [c for c in _DISTANCE_KEYS[key] if c in wanted]
        if not users:
            asked = f"-c {', '.join(coefs)}" if coefs else "the default coefficients, without -c"
            fail(f"--distance-option {key}=... is an option of -c {' / -c '.join(_DISTANCE_KEYS[key])}, and none is "
                 f"requested ({asked}); leave it out or add the row")
        parsed = _distance_value(value)
        if key in given and given[key] != parsed:
            fail(f"--distance-option {said[key]} and --distance-option {text.strip()} both set {key}: give it once")
        given[key] = parsed
        said.setdefault(key, text.strip())
    if not wanted:
        return None
    try:
        return coefficient_registry({c: {**{k: v for k, v in given.items() if c in _DISTANCE_KEYS[k]}, "seed": seed}
                                     for c in wanted})
    except (ValueError, TypeError) as err:
        fail(f"--distance-option: {one_line(err)}")  # --seed was checked with the interval options


def _distance_value(text: str) -> Any:
    """A ``--distance-option`` value: JSON where it parses (``0.01``, ``false``, ``500``), else the text (``-inf``).

    >>> _distance_value("0.01"), _distance_value("false"), _distance_value(" -inf")
    (0.01, False, '-inf')
    """
    try:
        return json.loads(text)
    except ValueError:
        return text.strip()


def _known_similarity(name: str, allowed: Sequence[str]) -> bool:
    """A name of ``allowed``, or ``<measure>:<model>`` for a measure of ``allowed``."""
    return name in allowed or (":" in name and name.partition(":")[0].strip().lower() in allowed
                               and name.partition(":")[0].strip().lower() in MEASURES)


def check_similarities(names: Sequence[str], allowed: Sequence[str]) -> None:
    """Fail on a mistyped ``--similarity`` name (JSON specs and ``@spec.json`` are read later)."""
    check_choices([n for n in names if not n.lstrip().startswith(("{", "@")) and not _known_similarity(n, allowed)],
                  allowed, "--similarity")


def mismatch_hint(text: str, kind: str | None, command: str = "agree") -> str:
    """A similarity-mismatch message with the library's remedy (``Exact()``, a class) as the flags that give it.

    Examples
    --------
    >>> mismatch_hint("similarity lcs cannot score these labels (numeric labels such as 2): lcs compares strings; a[0] "
    ...               "is int (2). Use SetMatch(Lcs()) for set-valued labels or Exact() for other labels", "numeric")
    'similarity lcs cannot score these labels (numeric labels such as 2): lcs compares strings; a[0] is int (2); for numbers use -m exact, or a distance weight: -m linear, -m quadratic, -m ratio (or -c icc2, -c lin_ccc)'
    """
    head, sep, _ = text.partition(". Use ")
    if not sep or "()" not in _:
        return text
    if command == "score":  # exact matching and weights are computed, never scored
        return f"{head}; labels that are not text need no scores: softirr agree -m exact (or -m linear for numbers)"
    if kind == "numeric":
        return (f"{head}; for numbers use -m exact, or a distance weight: -m linear, -m quadratic, -m ratio "
                "(or -c icc2, -c lin_ccc)")
    return f"{head}; use -m exact for labels that are not text"


def resolve_measures(names: Sequence[str], ann: Any, cache: Path | None = None, model: str | None = None,
                     weights: Sequence[str] = (), probe: bool = True,
                     model_flag: bool = True) -> list[tuple[str, Any]]:
    """``[(name, estimator or None), ...]`` (the runner's step); a bad or incompatible similarity fails cleanly.

    ``model_flag``: the command's ``--model`` gives the estimators' model (``report``'s is the annotator model).
    """
    from softirr_stats.analysis import resolve_measures as resolve

    check_similarities(names, (*MEASURES, *weights))  # a mistyped name is told apart from one that cannot score
    out: list[tuple[str, Any]] = []
    for name in names:
        try:
            out += resolve([name], ann, cache=cache, model=model, weights=weights, probe=probe)
        except (typer.Exit, KeyboardInterrupt):
            raise
        except Exception as err:  # noqa: BLE001 - every failure of making the estimator names the flag
            import sqlite3

            from softirr_stats.base._validation import ModelRequiredError, SimilarityMismatchError

            text = describe(err)[0]
            if isinstance(err, SimilarityMismatchError):
                fail(f"--{mismatch_hint(text, getattr(ann, 'kind', None), _command())}")
            if isinstance(err, ModelRequiredError):
                fail(f"--similarity {name} needs --model (a local model directory or hub name) or -m {name}:<model>"
                     if model_flag else f"--similarity {name} needs a model: give -m {name}:<model directory or "
                     "hub name>")
            if cache is not None and isinstance(err, sqlite3.Error):  # CacheError and CacheWriteError among them
                fail(f"--cache {cache} is not a usable softirr score cache: {one_line(err)}")
            fail(f"--similarity {name} is unavailable: {text}", EXIT_USAGE)
    return out
