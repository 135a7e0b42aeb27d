"""``softirr compare``: is one round, rater group, measure or annotator as reliable as another?"""

import math
import re
from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats.agreement import COEFFICIENTS as REGISTRY
from softirr_stats.base._format import fixed_interval, level_text
from softirr_stats.cli._errors import EXIT_DATA, fail
from softirr_stats.cli._item_groups import (
    ClusterOpt,
    StrataOpt,
    apply_groups,
    grouped_design,
    groups_meta,
)
from softirr_stats.cli._options import (
    BOOTSTRAP_DEFAULT_HELP,
    CHANCE_HELP,
    COEFFICIENTS,
    DEFAULT_LEVEL,
    LEVEL_FORMS,
    LEVEL_HELP,
    SIMILARITIES,
    WEIGHTS,
    CacheOpt,
    CategoriesOpt,
    DesignOpt,
    DeviceOpt,
    FeatureOpt,
    FieldOpt,
    FormatOpt,
    InputFormatOpt,
    ItemOpt,
    JsonOpt,
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
    chance_settings,
    check_choices,
    check_format,
    check_probability,
    check_set_categories,
    check_similarities,
    check_writable,
    ci_title,
    cli_wording,
    given_flags,
    make_bootstrap,
    na_values_list,
    read,
    reader_options,
    refuse_given,
    resolve_measures,
    similarity_option,
    similarity_values,
    split,
    unused_without_interval,
)
from softirr_stats.cli._output import Notes, emit, provenance_meta, write_json

__all__ = ["NAME", "EPILOG", "ITEM_WEIGHTS", "SCORINGS", "GROUPS_QUOTING", "command", "group_names",
           "parse_groups"]

NAME = "compare"
EPILOG = ("Modes: FILE FILE2 (the same coefficient on two files; items matched by id: paired, partly paired or "
          "independent); FILE FILE2 --cross-replication (two replications of one task: cross-replication reliability "
          "kappa_x, Wong, Paritosh & Aroyo 2021); FILE with two -m or two -c (two statistics on the same data, paired); FILE --groups "
          "'r1,r2;r3,r4' (two rater groups, paired, --permutations for an exchangeable-raters test); FILE "
          "--candidate RATER (the alternative annotator test); FILE --reference RATER (each rater against the "
          "reference); FILE --leave-one-out. Columns: difference = A - B, CI its interval, p the two-sided p-value "
          "of H0: A = B; with --cross-replication, value = kappa_x, normalized = kappa_x / sqrt(irr_x irr_y), irr_x and "
          "irr_y = each file's Krippendorff's alpha on the shared items. Each mode refuses the options it does not use (--candidate: no -c and no interval "
          "options; --analytic: no --bootstrap/--design/--method).")
_CMP_COLUMNS = ("A", "B", "value_a", "value_b", "difference", "CI", "se", "p_value", "method", "items")
# comparison.SCORINGS and replacement_test's defaults, spelled here so that --help loads no NumPy
# (tests/cli/test_compare.py ties them to the function's signature)
SCORINGS = ("similarity", "neg_rmse")
# the options of one mode (Python names), and the mode that uses them
_OWN = {"permutations": "--groups", "independent": "FILE FILE2", "humans": "--candidate", "epsilon": "--candidate",
        "scoring": "--candidate", "q": "--candidate", "min_items_per_human": "--candidate",
        "item_weights": "--cross-replication"}
#: --cross-replication: the -c it takes (cross_kappa is Krippendorff's alpha across two replications, at these levels)
_XRR_COEFFICIENTS = ("krippendorff_alpha", "krippendorff_alpha:nominal", "krippendorff_alpha:interval",
                     "krippendorff_alpha:ratio")
# cross_kappa's item_weights (agreement.ITEM_WEIGHTS), spelled here so that --help loads no NumPy
# (tests/cli/test_compare.py ties them)
ITEM_WEIGHTS = ("ratings", "equal")
_XRR_COLUMNS = ("similarity", "value", "CI", "normalized", "irr_x", "irr_y", "observed", "expected", "n_items")
_XRR_DATA = ("similarity", "coefficient", "level", "item_weights", "value", "ci_low", "ci_high", "se", "ci_method",
             "normalized", "irr_x", "irr_y", "observed", "expected", "n_items", "n_items_only_x", "n_items_only_y")
#: --candidate: the per-human table (``tested`` beside ``candidate_wins``: a human not tested is no loss); the csv adds
#: the verdict (:data:`_VERDICT`) to every row, as agree's csv carries its level and interval method
_CANDIDATE_COLUMNS = ("human", "n_items", "candidate_advantage", "human_advantage", "mean_difference", "t", "p_value",
                      "tested", "candidate_wins")
_VERDICT = ("candidate", "omega", "rho", "passed", "epsilon", "q")
_INTERVAL = ("bootstrap", "design", "method", "level", "seed", "analytic", "cluster", "strata")
_COMPARISONS = ("FILE2", "two -m", "two -c", "--groups")  # the modes whose answer is a difference with its interval
_CMP_DATA = ("A", "B", "value_a", "value_b", "difference", "ci_low", "ci_high", "se", "p_value", "test", "method",
             "design", "paired", "n_items_a", "n_items_b", "n_common", "ratio", "ratio_ci_low", "ratio_ci_high")


#: One rater name of ``--groups`` and the separator after it: a name in double quotes (``""`` for a quote in it: a
#: name holding ',' or ';', or spaces at its ends), or one up to the next ',' or ';' (spaces around it dropped)
_GROUP_NAME = re.compile(r'[ \t]*(?:"((?:[^"]|"")*)"[ \t]*|([^,;"][^,;]*|))(,|;|$)')
#: How --groups names a rater whose name holds ',' or ';' (its --help and its errors)
GROUPS_QUOTING = "a name holding ',' or ';' goes in double quotes, '\"Smith, J\",r2;r3,r4' (\"\" for a quote in it)"


def group_names(spec: str) -> list[list[str]]:
    """The groups of ``--groups`` (separated by ';'), each a list of rater names (separated by ','), as written.

    A name in double quotes is taken as written (',' and ';' in it, ``""`` for a quote); an unquoted name has the
    spaces around it dropped, and empty names are left out.

    Examples
    --------
    >>> group_names("r1, r2;r3")
    [['r1', 'r2'], ['r3']]
    >>> group_names('"Smith, J",Lee; "Kim; ""K"" Jr",Park')
    [['Smith, J', 'Lee'], ['Kim; "K" Jr', 'Park']]
    """
    groups: list[list[str]] = [[]]
    pos = 0
    while True:
        m = _GROUP_NAME.match(spec, pos)
        if m is None:
            rest = spec[pos:].lstrip()
            why = ("a quoted name has no closing quote" if rest.startswith('"') and '"' not in rest[1:].replace('""', "")
                   else "text after a closing quote (a quoted name ends at the next ',' or ';')")
            fail(f"--groups {spec!r}: {why} at {rest[:20]!r}; {GROUPS_QUOTING}")
        quoted, plain, sep = m.groups()
        name = quoted.replace('""', '"') if quoted is not None else plain.strip()
        if name:
            groups[-1].append(name)
        if sep == ";":
            groups.append([])
        if not sep:
            return groups
        pos = m.end()


def parse_groups(spec: str, raters: tuple) -> tuple[list, list]:
    """``"r1,r2;r3,r4"`` -> two lists of rater ids of ``raters`` (matched by their text; :func:`group_names`).

    Examples
    --------
    >>> parse_groups("a,b;c,d", ("a", "b", "c", "d"))
    (['a', 'b'], ['c', 'd'])
    >>> parse_groups('"Smith, J",b;c', ("Smith, J", "b", "c"))
    (['Smith, J', 'b'], ['c'])
    """
    parts = group_names(spec)
    if len(parts) != 2:
        fail(f"--groups must be two groups separated by ';' (e.g. 'r1,r2,r3;r4,r5,r6'); got {spec!r}")
    by_text = {str(r): r for r in raters}
    out = []
    for names in parts:
        missing = [x for x in names if x not in by_text]
        if missing:
            hint = (f"; {GROUPS_QUOTING}" if any("," in t or ";" in t for t in by_text) else "")
            fail(f"--groups: raters {missing} are not in the file; raters are {', '.join(map(str, raters))}{hint}")
        out.append([by_text[x] for x in names])
    return out[0], out[1]


def _check_groups(ga: list, gb: list) -> None:
    """``--groups``' two groups as ``compare_groups`` takes them (2 raters each, not the same raters); a refusal names
    the option and exits 2 (the library's ``group_a`` / ``group_b`` are the first and second group here)."""
    for which, group in (("first", ga), ("second", gb)):
        if len(set(group)) < 2:
            fail(f"--groups: the {which} group needs at least 2 raters for an agreement coefficient; got "
                 f"{', '.join(map(str, dict.fromkeys(group))) or 'none'}")
    if set(ga) == set(gb):
        fail(f"--groups names the same raters in both groups ({', '.join(map(str, ga))}): nothing to compare")


def _rater(name: str, raters: tuple, flag: str) -> Any:
    by_text = {str(r): r for r in raters}
    if name not in by_text:
        fail(f"{flag} {name!r} is not a rater of the file; raters are {', '.join(map(str, raters))}")
    return by_text[name]


def _ci_text(lo: Any, hi: Any) -> str:
    return fixed_interval(lo, hi)


def _comparison_rows(res: Any) -> list[dict[str, Any]]:
    """The row of a comparison: ``ComparisonResult.to_dict()``'s fields (numbers as numbers; the ratio and its
    interval, the test that gave the p-value), the interval as text (``CI``) and the items as text (``items``:
    ``"80"`` when all are shared, ``"80 / 60 (40 shared)"`` otherwise) for the table."""
    d = res.to_dict()
    n = str(res.n_common) if res.n_items_a == res.n_items_b == res.n_common else \
        f"{res.n_items_a} / {res.n_items_b} ({res.n_common} shared)"
    return [{"A": d["label_a"], "B": d["label_b"], "value_a": d["value_a"], "value_b": d["value_b"],
             "difference": d["difference"], "CI": _ci_text(d["ci_low"], d["ci_high"]), "ci_low": d["ci_low"],
             "ci_high": d["ci_high"], "se": d["se"], "p_value": d["p_value"], "test": d.get("test"),
             "method": d["method"], "design": d["design"], "paired": d["paired"], "items": n,
             "n_items_a": d["n_items_a"], "n_items_b": d["n_items_b"], "n_common": d["n_common"],
             "ratio": d["ratio"], "ratio_ci_low": d.get("ratio_ci_low"), "ratio_ci_high": d.get("ratio_ci_high")}]


def command(
    files: Annotated[list[Path], typer.Argument(help="one annotation file, or two (FILE FILE2) to compare")],
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    coefficient: Annotated[list[str] | None, typer.Option(
        "--coefficient", "-c", help=f"coefficient (two to compare two coefficients): {', '.join(COEFFICIENTS)}, "
                                    f"{LEVEL_HELP} [default: krippendorff_alpha; cohen_kappa with --reference]")] = None,
    similarity: Annotated[list[str] | None, similarity_option(
        f"similarity, an equivalence measure or categorical weights as in softirr agree (two to compare two): "
        f"{', '.join(SIMILARITIES)}")] = None,
    measure: MeasureAliasOpt = None,
    chance: Annotated[str | None, typer.Option(
        "--chance", help=f"chance setting of the compared coefficients (one): {CHANCE_HELP}; mc:D and sampled:N "
                         "are seeded by --seed (--leave-one-out: value_without and change; kappa_vs_rest's chance term "
                         "is always exact) [default: exact]")] = None,
    groups: Annotated[str | None, typer.Option(
        "--groups", help=f"two rater groups of FILE, 'r1,r2,r3;r4,r5,r6' ({GROUPS_QUOTING})")] = None,
    candidate: Annotated[str | None, typer.Option(
        "--candidate", help="the alternative annotator test: can this rater (an LLM) replace the others?")] = None,
    reference: Annotated[str | None, typer.Option(
        "--reference", help="each rater against this reference (gold) rater")] = None,
    leave_one_out: Annotated[bool, typer.Option(
        "--leave-one-out", help="each rater against the rest, and the coefficient without each rater")] = False,
    independent: Annotated[bool, typer.Option(
        "--independent", help="FILE FILE2: different items even where their ids coincide")] = False,
    cross_replication: Annotated[bool, typer.Option(
        "--cross-replication", help="FILE FILE2 are two replications of one task (items matched by id, other "
                                    "raters): cross-replication reliability kappa_x (Wong, Paritosh & Aroyo 2021), its "
                                    "normalised form and each file's alpha, with -c krippendorff_alpha[:nominal, "
                                    ":interval or :ratio] and one -m")] = False,
    item_weights: Annotated[str, typer.Option(
        "--item-weights", help=f"--cross-replication: {' or '.join(ITEM_WEIGHTS)} (each item weighted by its ratings "
                               "in both files, the paper's; or items weighted equally)")] = "ratings",
    humans: Annotated[str | None, typer.Option(
        help="--candidate: the human raters, comma-separated (default: every other rater)")] = None,
    scoring: Annotated[str, typer.Option(
        help="--candidate: how a label is scored against the other humans': similarity (the -m measure, exact "
             "matching by default) or neg_rmse (minus the root mean squared difference, for numeric ratings)")]
    = "similarity",
    epsilon: Annotated[float, typer.Option(help="--candidate: cost-benefit margin epsilon, in [0, 1)")] = 0.1,
    q: Annotated[float, typer.Option(
        "--q", help="--candidate: false discovery rate of the Benjamini-Yekutieli procedure over the humans")] = 0.05,
    min_items_per_human: Annotated[int, typer.Option(
        "--min-items-per-human", help="--candidate: humans with fewer usable items are not tested")] = 30,
    permutations: Annotated[int, typer.Option(
        help="--groups: permutation test with this many splits of the raters (0 = none; --seed seeds them)")] = 0,
    analytic: Annotated[bool, typer.Option(
        "--analytic", help="delta-method interval of the difference instead of the bootstrap")] = False,
    bootstrap: Annotated[int, typer.Option(
        help="bootstrap replicates B (0 = no interval: --reference and --leave-one-out only, a comparison needs "
             f"one); {BOOTSTRAP_DEFAULT_HELP}")] = 1000,
    design: DesignOpt = "items",
    cluster: ClusterOpt = None,
    strata: StrataOpt = None,
    method: MethodOpt = "auto",
    level: LevelOpt = DEFAULT_LEVEL,
    seed: SeedOpt = 0,
    fmt: FormatOpt = "table",
    json_out: JsonOpt = None,
    model: ModelOpt = None,
    na_values: NaOpt = None,
    input_format: InputFormatOpt = None,
    field: FieldOpt = None,
    layer: LayerOpt = None,
    feature: FeatureOpt = None,
    reader_option: ReaderOpt = None,
    categories: CategoriesOpt = None,
    cache: CacheOpt = None,
    device: DeviceOpt = "auto",
) -> None:
    """Compare agreement: two files, two measures or coefficients, two rater groups, a candidate annotator
    against the humans, or every rater against a reference. Paired intervals where the items are shared."""
    import warnings

    import softirr_stats as sis

    check_format(fmt)
    check_writable(json_out, "--json", files)
    coefs = split(coefficient, "--coefficient")
    check_choices(coefs, (*COEFFICIENTS, *LEVEL_FORMS), "--coefficient")
    names = similarity_values(similarity, measure) or ["exact"]
    check_similarities(names, SIMILARITIES)  # softirr agree's -m: an equivalence measure or categorical weights
    mode = _mode(files, groups, candidate, reference, leave_one_out, names, coefs, cross_replication)
    coefs = coefs or ["cohen_kappa" if mode == "--reference" else "krippendorff_alpha"]
    _refuse_unused(mode, bootstrap, analytic, permutations, scoring, chance)
    if mode == "--cross-replication":
        _check_cross(coefs, item_weights, design)
    _check_options(mode, coefs, names, bootstrap, permutations, scoring, epsilon, q, min_items_per_human)
    chance_kw, chance_notes = _chance(chance, coefs, seed)
    ci = None
    if mode != "--candidate":
        design, request = grouped_design(design, cluster, strata, design_given=bool(given_flags("design")),
                                         analytic=analytic, bootstrap=bootstrap)
        if independent and (cluster or strata):
            fail(f"{'--cluster' if cluster else '--strata'} pairs the items of FILE and FILE2 by id; --independent "
                 "makes them different items: leave out one of them")
        ci = sis.Analytic(level=level) if analytic else make_bootstrap(
            bootstrap, request, method, level, seed)
    opts = reader_options(field, layer, feature, None, reader_option)
    anns, notes = [], []
    for f in files:
        ann, said = read(f, item, rater, label, na_values, input_format, opts, categories,
                         replication=mode == "--cross-replication")
        anns.append(ann)
        notes += said
    ann = anns[0]
    if mode != "--candidate":  # the alternative annotator test has no coefficient
        check_set_categories(ann, coefs, categories)
    ci = apply_groups(ci, design, cluster, strata, files, anns, item, input_format, na_values_list(na_values))
    notes += chance_notes
    measures = resolve_measures(names, ann if len(anns) == 1 else _pooled(sis, anns), cache, model, weights=WEIGHTS)
    sims = [sim for _, sim in measures]
    title = f"softirr compare ({mode}) on {', '.join(f.name for f in files)}{_chance_title(chance_kw)}"
    meta: dict[str, Any] = {"file": [str(f) for f in files], "mode": mode, **provenance_meta(files)}
    if mode == "--candidate":
        meta.update(similarity=names[0] if scoring == "similarity" else None, scoring=scoring, epsilon=epsilon, q=q,
                    min_items_per_human=min_items_per_human)
    else:
        meta.update(coefficient=coefs, similarity=names, chance=chance or "exact",
                    **_interval_meta(analytic, bootstrap, design, method, level, seed),
                    **(groups_meta(cluster, strata) if ci is not None and not analytic else {}))
    if mode == "--groups":
        meta["permutations"] = permutations
        if permutations:  # the splits' seed (the bootstrap's, where one ran, is the same --seed)
            meta["seed"] = seed
    if mode == "FILE2":
        meta["independent"] = independent
    if mode == "--cross-replication":
        meta["item_weights"] = item_weights
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            rows, columns, data_columns = _run(sis, mode, anns, files, coefs, sims, names, ci, groups, candidate,
                                               reference, epsilon, permutations, independent, meta, humans,
                                               seed=seed, scoring=scoring, q=q, min_items=min_items_per_human,
                                               chance=chance_kw, item_weights=item_weights)
        except ValueError as err:
            fail(_cli_text(str(err)), EXIT_DATA)
    if mode != "--candidate":
        meta["interval"] = _interval_title(analytic, ci, bootstrap, design, method, level, seed,
                                           meta.pop("ci_method", None), ann.n_items)
        meta["title_tail"] = meta.get("title_tail", "") + f"; {meta['interval']}" + meta.pop("test_tail", "")
    elif scoring == "similarity" and names[0] == "exact":
        notes += _scale_note(ann)
    said = [*(str(c.message) for c in caught), *meta.pop("warnings", [])]  # the library's, in its Python words
    seen = list(dict.fromkeys([*notes, *map(_cli_text, said)]))
    meta["warnings"] = seen
    if mode == "--candidate" and fmt == "csv":  # a csv has no title: the verdict goes in columns
        rows, data_columns = [{**row, **{k: meta[k] for k in _VERDICT}} for row in rows], (*data_columns, *_VERDICT)
    emit(rows, columns, fmt, title + meta.pop("title_tail", ""), meta, notes=Notes(seen, read=notes),
         secondary=("method", "items", "se", "value_a", "value_b", "human_advantage", "t"), data_columns=data_columns)
    if json_out:
        write_json(json_out, title, meta, rows)


def _mode(files: list[Path], groups: str | None, candidate: str | None, reference: str | None, leave_one_out: bool,
          names: list[str], coefs: list[str], cross: bool = False) -> str:
    """The one mode the arguments ask for (a clear error for none, several, or too many -m / -c)."""
    if cross and len(files) != 2:
        fail(f"--cross-replication compares two replications: give two files (FILE FILE2); got {len(files)}")
    modes = [m for m, on in (("FILE2", len(files) == 2 and not cross), ("--cross-replication", cross),
                             ("--groups", groups is not None),
                             ("--candidate", candidate is not None), ("--reference", reference is not None),
                             ("--leave-one-out", leave_one_out), ("two -m", len(names) == 2),
                             ("two -c", len(coefs) == 2)) if on]
    if len(files) > 2:
        fail(f"softirr compare reads one FILE or two (FILE FILE2); got {len(files)}")
    if len(names) > 2 or len(coefs) > 2:
        fail("give at most two -m and at most two -c")
    others = [m for m in modes if m not in ("two -m", "two -c")]
    if len(others) == 1 and len(modes) == 2 and modes != ["--candidate", "two -c"]:
        two = modes[1]
        what = "measures" if two == "two -m" else "coefficients"
        fail(f"{_mode_text(others[0])} takes one {two[4:]} ({two} compares two {what} on the same data, a mode of "
             f"its own); give one {two[4:]}")
    if len(modes) != 1:
        fail("give exactly one of: FILE FILE2, FILE FILE2 --cross-replication, --groups, --candidate, --reference, "
             "--leave-one-out, two -m, two -c"
             + (f"; got {', '.join(modes)}" if modes else ""))
    return modes[0]


def _refuse_unused(mode: str, bootstrap: int, analytic: bool, permutations: int, scoring: str,
                   chance: str | None = None) -> None:
    """Fail, naming both options, where an option given on the command line is not used by this mode or is
    contradicted by another option (nothing given is silently ignored). ``--seed`` also seeds a ``--chance``
    other than exact (Monte Carlo permutations, sampled pairs, or what auto chooses)."""
    seeded = chance is not None and "".join(chance.split()).lower() != "exact"
    why: dict[str, str] = {}
    for name, own in _OWN.items():
        if own != (mode if mode != "FILE2" else "FILE FILE2"):
            why[name] = f"is an option of {own}, not used with {_mode_text(mode)}"
    if mode == "--candidate":
        for name in ("coefficient", "chance", *_INTERVAL):
            why[name] = ("is not used with --candidate: the alternative annotator test counts the candidate's wins "
                         "against each human (a t-test per human, Benjamini-Yekutieli over them), with no "
                         "coefficient and no interval; it takes -m or --scoring, --epsilon, --q")
        if scoring == "neg_rmse":
            why["similarity"] = why["measure"] = ("is not used with --scoring neg_rmse (alignment is minus the root "
                                                  "mean squared difference of the numbers); leave out one of them")
    elif mode == "--cross-replication" and analytic:
        why["analytic"] = ("is not used with --cross-replication: cross_kappa has no analytic variance; give "
                           "--bootstrap N (or --bootstrap 0 for the point estimates)")
    elif analytic:
        for name in ("bootstrap", "design", "method") + (("seed",) if not permutations and not seeded else ()):
            why[name] = ("is not used with --analytic (the delta-method interval resamples nothing); leave out one of "
                         "them")
    elif bootstrap == 0 and mode not in _COMPARISONS:
        why.update(unused_without_interval(bootstrap, also=() if seeded else ("seed",)))
    if mode == "--cross-replication":
        why["chance"] = ("is not used with --cross-replication: kappa_x's chance term is its own (the disagreement of "
                         "the two replications' ratings paired across items); leave out --chance")
    refuse_given(why)


def _check_cross(coefs: list[str], item_weights: str, design: str) -> None:
    """--cross-replication's -c (krippendorff_alpha at a level cross_kappa has), --item-weights and --design."""
    if coefs[0] not in _XRR_COEFFICIENTS:
        fail(f"--cross-replication computes Krippendorff's alpha across the two replications (kappa_x); -c takes "
             f"{', '.join(_XRR_COEFFICIENTS)}; got -c {coefs[0]}")
    check_choices([item_weights], ITEM_WEIGHTS, "--item-weights")
    from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS

    rec = BOOTSTRAP_DESIGNS.get(design)
    if rec is not None and rec.resamples_raters:
        fail(f"--design {design} resamples raters, and the two replications have different raters; use --design items "
             "or bayesian, or --cluster COLUMN")


def _mode_text(mode: str) -> str:
    return {"FILE2": "FILE FILE2", "two -m": "two -m (two measures)", "two -c": "two -c (two coefficients)"}.get(
        mode, mode)


def _check_options(mode: str, coefs: list[str], names: list[str], bootstrap: int, permutations: int, scoring: str,
                   epsilon: float, q: float, min_items: int) -> None:
    """The mode's own options, and the coefficients it can take, checked before reading the files."""
    if mode == "--candidate":
        check_choices([scoring], SCORINGS, "--scoring")
        if math.isnan(epsilon) or not 0.0 <= epsilon < 1.0:
            fail(f"--epsilon must be in [0, 1): the margin granted to the candidate (e.g. 0.1 for crowd workers, "
                 f"0.2 for experts); got {epsilon}")
        check_probability(q, "--q", "0.05")
        if min_items < 1:
            fail(f"--min-items-per-human must be a positive number of items (the authors use 30); got {min_items}")
        return
    if permutations < 0:
        fail(f"--permutations must be 0 (no permutation test) or a number of splits of the raters; got {permutations}")
    if bootstrap == 0 and mode in _COMPARISONS:
        fail(f"--bootstrap 0 gives no interval, and {_mode_text(mode)} answers with the difference's interval and "
             "p-value (two estimates alone do not say whether they differ"
             + (": --permutations tests it, but the difference still gets its bootstrap interval" if permutations
                else "") + "); give --bootstrap N (e.g. 1000) or --analytic (the delta method), or see the values "
             "alone with softirr agree --bootstrap 0")
    from softirr_stats.analysis import DISTANCE_COEFFICIENTS, SCORE_COEFFICIENTS

    distance = [c for c in coefs if c in DISTANCE_COEFFICIENTS]
    if distance:  # distance_agreement's point estimate carries no prepared statistic for compare()'s shared weights
        fail(f"softirr compare does not take -c {distance[0]} (a distance measure has no paired comparison here); "
             f"see it with its interval in softirr agree FILE -c {distance[0]}")
    outside = [c for c in coefs if _level_split(c)[0] not in REGISTRY]
    leveled = [c for c in coefs if _level_split(c)[1].get("level", "nominal") != "nominal"]
    if leveled and any(n != "exact" for n in names):
        fail(f"-c {leveled[0]} takes no -m (its distances come from the values' {_level_split(leveled[0])[1]['level']} "
             "scale); leave -m out, or use krippendorff_alpha:nominal with -m")
    if outside and mode in ("--groups", "--reference", "--leave-one-out"):
        kind = "a statistic of numeric scores" if outside[0] in SCORE_COEFFICIENTS else "a multi-label baseline"
        fail(f"{mode} takes a coefficient of the registry ({', '.join(REGISTRY)}); -c {outside[0]} is {kind}: "
             "compare it between two files (FILE FILE2) or with a second -c")
    if outside and any(n != "exact" for n in names):
        what = ("a statistic of the numeric scores themselves" if outside[0] in SCORE_COEFFICIENTS
                else "Hamming agreement of label sets")
        fail(f"-c {outside[0]} takes no -m ({what}); leave -m out")


def _chance(chance: str | None, coefs: list[str], seed: int) -> tuple[dict[str, Any], list[str]]:
    """``--chance`` as the coefficients' ``chance=`` (``{}`` when not given: the library's default) and the notes
    of the compared coefficients with their own chance term; refused where none of them takes it."""
    if chance is None:
        return {}, []
    if len(split([chance])) != 1:
        fail(f"--chance takes one setting in softirr compare (both sides use it); got {chance!r}: compare the "
             "chance settings themselves with softirr sensitivity --chance")
    setting = chance_settings([chance], seed)[0]
    own = [c for c in coefs if not _takes_chance(c)]
    if len(own) == len(coefs):
        fail(f"--chance is not used with -c {', '.join(own)}: "
             + ("it has" if len(own) == 1 else "they have") + " no chance term of the kind --chance sets (its own "
             "chance term, none, or a statistic of scores); leave out --chance")
    return {"chance": setting}, [f"{c} takes no --chance (its own chance term, none, or a statistic of scores): "
                                 f"--chance {chance} not used for it" for c in own]


def _chance_title(chance: dict[str, Any]) -> str:
    """The title's words for a ``--chance`` other than exact (``", chance = monte_carlo(D=5)"``): a Monte Carlo or
    sampled value must not read as the exact one; "" for exact or no ``--chance``.

    >>> from softirr_stats.agreement import MonteCarlo
    >>> _chance_title({"chance": MonteCarlo(permutations=5)}), _chance_title({"chance": "exact"}), _chance_title({})
    (', chance = monte_carlo(D=5)', '', '')
    """
    setting = chance.get("chance", "exact")
    label = setting if isinstance(setting, str) else setting.label
    return "" if label == "exact" else f", chance = {label}"


def _takes_chance(name: str) -> bool:
    """Whether ``-c name`` takes ``chance=`` (a coefficient of the registry whose options have it)."""
    base = _level_split(name)[0]
    return base in REGISTRY and "chance" in REGISTRY[base].options


def _interval_meta(analytic: bool, bootstrap: int, design: str, method: str, level: float,
                   seed: int) -> dict[str, Any]:
    """The interval options a comparison used, for the JSON (only those)."""
    if analytic:
        return {"analytic": True, "level": level}
    if bootstrap == 0:
        return {"bootstrap": 0}
    return {"bootstrap": bootstrap, "design": design, "method": method, "level": level, "seed": seed}


def _interval_title(analytic: bool, ci: Any, bootstrap: int, design: str, method: str, level: float, seed: int,
                    used: str | None, n_items: int) -> str:
    """The interval the table shows: level, method (the one used where known), B, design and seed; or none."""
    if analytic:
        return f"{level_text(level)} analytic (delta-method) intervals"
    return ci_title(ci, bootstrap, design, used or method, level, seed, n_items)


def _scale_note(ann: Any) -> list[str]:
    """--candidate on numeric ratings scored by exact matching: say that --scoring neg_rmse scores distances."""
    values = list(ann.vocabulary)
    if ann.kind != "numeric" or len(values) < 3:
        return []
    return [f"labels are numbers ({len(values)} values, {values[0]:g} to {values[-1]:g}) scored by exact matching: "
            f"{values[0]:g} against {values[1]:g} counts as wrong as {values[0]:g} against {values[-1]:g}; for "
            "ratings on a scale give --scoring neg_rmse (the test's authors' scoring of ratings)"]


def _cli_text(message: str) -> str:
    """A library message in the command's spelling (its options, not Python's keywords)."""
    message = re.sub(r"report the point estimate without an interval \(ci=None; on the command line --bootstrap 0\)",
                     "see the values alone with softirr agree --bootstrap 0 (a comparison needs an interval)", message)
    message = re.sub(r"\bci='analytic'", "--analytic", message)
    message = re.sub(r"\bci=softirr_stats\.Bootstrap\(\.\.\.\)", "--bootstrap N without --analytic", message)
    message = re.sub(r"\bpermutations=0\b", "--permutations 0", message)
    message = re.sub(r"\bmin_items_per_human\b", "--min-items-per-human", message)
    return cli_wording(re.sub(r"\bscoring='neg_rmse'", "--scoring neg_rmse", message))  # and the shared ones


def _pooled(sis: Any, anns: list) -> Any:
    """The files' ratings in one Annotations for choosing the measures (their labels together), each file's raters
    kept apart: two rounds by the same raters on the same items are no clash here."""
    import pandas as pd

    frames = []
    for k, a in enumerate(anns):
        long = a.to_long()
        long["rater"] = f"{k}:" + long["rater"].astype(str)
        frames.append(long)
    return sis.Annotations.from_long(pd.concat(frames, ignore_index=True), categories=anns[0].categories)


def _level_split(name: str) -> tuple[str, dict[str, str]]:
    """``krippendorff_alpha:ordinal`` -> ``("krippendorff_alpha", {"level": "ordinal"})``; a plain name -> no options.

    Examples
    --------
    >>> _level_split("krippendorff_alpha:ordinal"), _level_split("fleiss_kappa")
    (('krippendorff_alpha', {'level': 'ordinal'}), ('fleiss_kappa', {}))
    """
    base, _, level = name.partition(":")
    return base, ({"level": level} if level else {})


def _named_as(label: str, base: str, name: str) -> str:
    """``label`` (which starts with the coefficient's name ``base``) with ``-c name`` in its place, so that a
    level form (``krippendorff_alpha:ordinal``) says its level.

    Examples
    --------
    >>> _named_as("krippendorff_alpha of r0, r1", "krippendorff_alpha", "krippendorff_alpha:ordinal")
    'krippendorff_alpha:ordinal of r0, r1'
    >>> _named_as("fleiss_kappa of a, b", "fleiss_kappa", "fleiss_kappa")
    'fleiss_kappa of a, b'
    """
    return name + label[len(base):] if label == base or label.startswith(f"{base} ") else label


def _takes_weights(name: str) -> bool:
    """Whether ``-c name`` takes ``weights=`` (a coefficient of the registry whose options have it)."""
    base = _level_split(name)[0]
    return base in REGISTRY and "weights" in REGISTRY[base].options


def _similarity_kw(sim: Any, takes_weights: bool) -> dict[str, Any]:
    """``-m`` as read by :func:`resolve_measures` (None for exact matching, an estimator, or a weight name) as the
    keyword of the function it goes to: a weight name as ``weights=`` where the function takes it, else as
    ``similarity=`` (the same matrix: ``resolve_similarity`` reads a weight name there as ``weights=``), as
    softirr agree passes it.

    Examples
    --------
    >>> _similarity_kw(None, True), _similarity_kw("quadratic", True), _similarity_kw("quadratic", False)
    ({}, {'weights': 'quadratic'}, {'similarity': 'quadratic'})
    """
    if sim is None:
        return {}
    return {"weights": sim} if isinstance(sim, str) and sim in WEIGHTS and takes_weights else {"similarity": sim}


def _estimate(sis: Any, name: str, ann: Any, sim: Any, chance: dict[str, Any] | None = None) -> Any:
    """The point estimate of ``-c name`` (any name -c takes: the registry's, the scores' statistics, the multi-label
    baselines), its interval left to ``compare``; ``chance`` (``{"chance": setting}``) where the coefficient takes
    it."""
    from softirr_stats.analysis import MULTILABEL_COEFFICIENTS, SCORE_COEFFICIENTS
    from softirr_stats.api import public_function, score_statistic

    if name in SCORE_COEFFICIENTS:
        return score_statistic(name, ann)
    if name in MULTILABEL_COEFFICIENTS:
        return sis.multilabel_agreement(ann, baseline=name.split("_", 1)[1])
    base, options = _level_split(name)
    if chance and _takes_chance(name):
        options.update(chance)
    fn = public_function(base)
    return fn(ann, **_similarity_kw(sim, _takes_weights(name)), **options)


def _run(sis: Any, mode: str, anns: list, files: list, coefs: list, sims: list, names: list, ci: Any,
         groups: str | None, candidate: str | None, reference: str | None, epsilon: float, permutations: int,
         independent: bool, meta: dict, humans: str | None = None, *, seed: int = 0, scoring: str = "similarity",
         q: float = 0.05, min_items: int = 30, chance: dict[str, Any] | None = None,
         item_weights: str = "ratings") -> tuple[list, tuple, tuple]:
    ann = anns[0]
    chance = chance or {}
    with_chance = chance if chance and _takes_chance(coefs[0]) else {}  # the one -c of the other modes
    if mode == "--cross-replication":
        return _cross_rows(sis, anns, files, coefs[0], sims[0], names[0], ci, item_weights, meta)
    if mode == "FILE2":
        a, b = (_estimate(sis, coefs[0], x, sims[0], chance) for x in anns)
        _check_categories(coefs[0], files, anns, a, b)
        res = sis.compare(a, b, ci=ci, paired=False if independent else None,
                          labels=(f"{files[0].name}", f"{files[1].name}"))
    elif mode in ("two -m", "two -c"):
        pairs = [(coefs[0], s) for s in sims] if mode == "two -m" else [(c, sims[0]) for c in coefs]
        res_ = [_estimate(sis, c, ann, s, chance) for c, s in pairs]
        labels = [f"{c} ({n})" if c in REGISTRY else c  # the scores' statistics and multi-label baselines take no -m
                  for (c, _), n in zip(pairs, names if mode == "two -m" else names * 2, strict=False)]
        res = sis.compare(res_[0], res_[1], ci=ci, labels=(labels[0], labels[1]))
    elif mode == "--groups":
        ga, gb = parse_groups(groups or "", ann.raters)
        _check_groups(ga, gb)
        try:  # shared raters with --permutations, and the library's other group checks: usage errors (exit 2)
            ga, gb = sis.comparison.check_groups(ga, gb, ann.raters, permutations=permutations)
        except ValueError as err:
            fail(f"--groups: {_cli_text(str(err))}")
        base, extra = _level_split(coefs[0])
        extra.update(_similarity_kw(sims[0], _takes_weights(base)))
        res = sis.compare_groups(ann, ga, gb, coefficient=base, ci=ci, permutations=permutations, seed=seed,
                                 **extra, **with_chance)
        meta["permutation_p_value"] = res.details.get("permutation_p_value")
        if permutations:
            meta["test_tail"] = f"; p-value: {res.details['test']}, seed = {seed}"
    elif mode == "--candidate":
        cand = _rater(candidate or "", ann.raters, "--candidate")
        people = None if humans is None else [_rater(h.strip(), ann.raters, "--humans")
                                              for h in humans.split(",") if h.strip()]
        r = sis.replacement_test(ann, cand, humans=people, **_similarity_kw(sims[0], True), scoring=scoring,
                                 epsilon=epsilon, q=q, min_items_per_human=min_items)
        meta.update(candidate=r.candidate, omega=r.omega, rho=r.rho, passed=r.passed, n_items=r.n_items)
        meta["title_tail"] = f": {r}"
        meta["warnings"] = list(r.warnings)
        rows = [{**rec, "candidate_wins": bool(rec["candidate_wins"]), "tested": bool(rec["tested"])}
                for rec in r.by_human.to_dict("records")]
        return rows, _CANDIDATE_COLUMNS, _CANDIDATE_COLUMNS
    elif mode == "--reference":
        ref = _rater(reference or "", ann.raters, "--reference")
        base, extra = _level_split(coefs[0])
        r = sis.against_reference(ann, ref, coefficient=base, **_similarity_kw(sims[0], _takes_weights(base)), ci=ci,
                                  top=20, **extra,
                                  **with_chance)
        meta["worst_items"] = r.disagreements.to_dict("records")
        meta["worst_items_similarity"] = r.similarity  # the level's metric under -c krippendorff_alpha:LEVEL
        meta["warnings"] = list(r.warnings)
        rows = []
        for rec in r.by_rater.to_dict("records"):
            rows.append({**rec, "CI": _ci_text(rec["ci_low"], rec["ci_high"])})
        meta["title_tail"] = f": {_named_as(r.coefficient, base, coefs[0])} of each rater with {ref}"
        return rows, ("rater", "n_items", "value", "CI", "se", "observed", "expected"), \
            ("rater", "n_items", "value", "ci_low", "ci_high", "se", "observed", "expected")
    else:  # --leave-one-out
        base, extra = _level_split(coefs[0])
        extra.update(_similarity_kw(sims[0], _takes_weights(base)))
        t = sis.leave_one_rater_out(ann, base, ci=ci, **extra, **with_chance)
        rows = []
        for rec in t.to_dict("records"):
            rows.append({**rec, "vs rest CI": _ci_text(rec["vs_rest_ci_low"], rec["vs_rest_ci_high"]),
                         "change CI": _ci_text(rec["change_ci_low"], rec["change_ci_high"])})
        meta["value_all"] = t.attrs["value_all"]
        meta["vs_rest_method"] = t.attrs["vs_rest_method"]
        meta["warnings"] = _vs_rest_notes(t.attrs, with_chance.get("chance"))
        meta["title_tail"] = f": {coefs[0]} of all raters = {t.attrs['value_all']:.4f}"
        return rows, ("rater", "n_items", "kappa_vs_rest", "vs rest CI", "value_without", "change", "change CI",
                      "change_p_value"), tuple(t.columns)
    meta["warnings"] = list(res.warnings)
    used = res.method.rpartition(" ")[2]  # "bootstrap-bca-t", "jackknife-t" (auto on few items), "method"
    meta["ci_method"] = used.removeprefix("bootstrap-") if used.startswith("bootstrap-") or used == "jackknife-t" \
        else None
    return _comparison_rows(res), _CMP_COLUMNS, _CMP_DATA


def _check_categories(coef: str, files: list, anns: list, a: Any, b: Any) -> None:
    """FILE FILE2 with a coefficient whose value depends on the number of categories q (gwet_ac1, brennan_prediger),
    or on the categories its named weights are built on (``agreement.weights_clash``: positions, or the value range
    AC2, Brennan-Prediger and percent agreement read): fail, naming --categories, where the two files' q differ or
    their weights weigh the labels both have differently (each took its categories from its own labels)."""
    from softirr_stats.agreement import Statistic, weights_clash

    stats = [x.details.get("statistic") for x in (a, b)]
    stats = [x if isinstance(x, Statistic) else None for x in stats]  # none: compare() says so
    qa, qb = (None if x is None else x.chance_categories for x in stats)
    seen = list(dict.fromkeys([*anns[0].vocabulary, *anns[1].vocabulary]))
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in seen):
        seen = sorted(seen)  # numbers in their order (a scale's weights read it)
    example = ",".join(map(str, seen[:8])) + (",..." if len(seen) > 8 else "")
    if qa is not None and qb is not None and qa != qb:
        fail(f"--categories: -c {coef} depends on the number of categories q, and {files[0].name} has q = {qa} while "
             f"{files[1].name} has q = {qb} (each took its own labels): the difference would be mostly the change of "
             f"q; declare the categories both files share with --categories (e.g. --categories {example})")
    wa, wb = (None if x is None else x.category_weights for x in stats)
    clash = weights_clash(wa, wb, (files[0].name, files[1].name)) if wa is not None and wb is not None else ""
    if clash:
        listed = [f"[{', '.join(map(str, w.categories))}]" for w in (wa, wb)]
        fail(f"--categories: the {wa.name} weights of -c {coef} are built on the categories, {files[0].name}'s "
             f"{listed[0]} and {files[1].name}'s {listed[1]} (each took its own labels), and {clash}: the difference "
             f"would mix the change of weights with the change of agreement; declare the categories of both files "
             f"with --categories (e.g. --categories {example})")


def _vs_rest_notes(attrs: dict[str, Any], setting: Any) -> list[str]:
    """The notes of ``--leave-one-out``'s ``kappa_vs_rest`` column (``leave_one_rater_out``'s ``vs_rest_notes``: its
    interval rule, the bootstrap's notes, its few-units widening, its exact chance term), each naming the column, in
    the command's spelling: the chance setting as ``--chance`` takes it (``--chance mc:5``, not the label
    ``monte_carlo(D=5)``), the interval method as ``--method``.

    Examples
    --------
    >>> from softirr_stats.agreement import MonteCarlo
    >>> from softirr_stats.comparison import VS_REST_CHANCE_NOTE
    >>> notes = ["method='auto': BCa with t quantiles, 69 df (items design, 70 <= 1000 items)",
    ...          VS_REST_CHANCE_NOTE.format(chance="monte_carlo(D=5)")]
    >>> shown = _vs_rest_notes({"vs_rest_notes": notes, "chance": "monte_carlo(D=5)"}, MonteCarlo(permutations=5))
    >>> shown[0]
    'kappa_vs_rest: --method auto: BCa with t quantiles, 69 df (items design, 70 <= 1000 items)'
    >>> shown[1].split("; ")[1]
    'the chance setting (--chance mc:5) applies to value_all, value_without and change'
    """
    from softirr_stats.comparison import VS_REST_CHANCE_NOTE

    label = attrs.get("chance", "")
    python = VS_REST_CHANCE_NOTE.format(chance=label)
    if isinstance(setting, str):  # auto: the setting, and what it chose
        spelled = f"--chance {setting}" + (f", here {label}" if label != setting else "")
    else:
        spelled = f"--chance {setting.text}" if setting is not None else label
    out = []
    for note in attrs.get("vs_rest_notes", []):
        note = VS_REST_CHANCE_NOTE.format(chance=spelled) if note == python else _cli_text(note)
        out.append(note if note.startswith("kappa_vs_rest: ") else f"kappa_vs_rest: {note}")
    return out


def _cross_rows(sis: Any, anns: list, files: list, coef: str, sim: Any, name: str, ci: Any, item_weights: str,
                meta: dict) -> tuple[list, tuple, tuple]:
    """``--cross-replication``: ``sis.cross_kappa(FILE, FILE2, similarity=, level=, item_weights=, ci=)`` as one row
    (``value`` = kappa_x; ``irr_x``, ``irr_y`` = each file's alpha on the shared items; ``normalized``)."""
    level = _level_split(coef)[1].get("level", "nominal")
    r = sis.cross_kappa(anns[0], anns[1], similarity=sim, level=level, item_weights=item_weights, ci=ci)
    d = r.details
    row = {"similarity": name, "coefficient": coef, "level": level, "item_weights": item_weights, "value": r.value,
           "CI": _ci_text(r.ci_low, r.ci_high), "ci_low": r.ci_low, "ci_high": r.ci_high, "se": r.se,
           "ci_method": r.ci_method, "normalized": r.normalized, "irr_x": r.irr_x, "irr_y": r.irr_y,
           "observed": r.observed, "expected": r.expected, "n_items": r.n_items,
           "n_items_only_x": d["n_items_only_x"], "n_items_only_y": d["n_items_only_y"]}
    meta["warnings"] = list(r.warnings)
    meta["ci_method"] = r.ci_method or None  # the method used (auto resolved), for the title
    meta["title_tail"] = f": kappa_x ({coef}) of {files[0].name} (x) and {files[1].name} (y), item weights {item_weights}"
    return [row], _XRR_COLUMNS, _XRR_DATA
