"""``softirr compare``: is one round, rater group, measure or annotator as reliable as another?"""

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats.cli._errors import EXIT_DATA, fail
from softirr_stats.cli._options import (
    COEFFICIENTS,
    DEFAULT_LEVEL,
    MEASURES,
    BootstrapOpt,
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
    check_choices,
    check_format,
    check_writable,
    make_bootstrap,
    read,
    reader_options,
    resolve_measures,
    similarity_option,
    similarity_values,
    split,
)
from softirr_stats.cli._output import Notes, emit, write_json

__all__ = ["NAME", "EPILOG", "command", "parse_groups"]

NAME = "compare"
EPILOG = ("Modes: FILE FILE2 (the same coefficient on two files; items matched by id: paired, partly paired or "
          "independent); FILE with two -m or two -c (two statistics on the same data, paired); FILE --groups "
          "'r1,r2;r3,r4' (two rater groups, paired, --permutations for an exchangeable-raters test); FILE "
          "--candidate RATER (the alternative annotator test); FILE --reference RATER (each rater against the "
          "reference); FILE --leave-one-out. Columns: difference = A - B, CI its interval, p the two-sided p-value "
          "of H0: A = B.")
_CMP_COLUMNS = ("A", "B", "value_a", "value_b", "difference", "CI", "se", "p_value", "method", "n_items")
_CMP_DATA = ("A", "B", "value_a", "value_b", "difference", "ci_low", "ci_high", "se", "p_value", "method", "design",
             "paired", "n_items_a", "n_items_b", "n_common")


def parse_groups(spec: str, raters: tuple) -> tuple[list, list]:
    """``"r1,r2;r3,r4"`` -> two lists of rater ids of ``raters`` (matched by their text).

    Examples
    --------
    >>> parse_groups("a,b;c,d", ("a", "b", "c", "d"))
    (['a', 'b'], ['c', 'd'])
    """
    parts = [p for p in spec.split(";")]
    if len(parts) != 2:
        fail(f"--groups must be two groups separated by ';' (e.g. 'r1,r2,r3;r4,r5,r6'); got {spec!r}")
    by_text = {str(r): r for r in raters}
    out = []
    for p in parts:
        names = [x.strip() for x in p.split(",") if x.strip()]
        missing = [x for x in names if x not in by_text]
        if missing:
            fail(f"--groups: raters {missing} are not in the file; raters are {', '.join(map(str, raters))}")
        out.append([by_text[x] for x in names])
    return out[0], out[1]


def _rater(name: str, raters: tuple, flag: str) -> Any:
    by_text = {str(r): r for r in raters}
    if name not in by_text:
        fail(f"{flag} {name!r} is not a rater of the file; raters are {', '.join(map(str, raters))}")
    return by_text[name]


def _ci_text(lo: Any, hi: Any) -> str:
    return "" if lo is None or (isinstance(lo, float) and math.isnan(lo)) else f"[{lo:.4f}, {hi:.4f}]"


def _comparison_rows(res: Any) -> list[dict[str, Any]]:
    d = res.to_dict()
    n = str(res.n_common) if res.n_items_a == res.n_items_b == res.n_common else \
        f"{res.n_items_a} / {res.n_items_b} ({res.n_common} shared)"
    return [{"A": d["label_a"], "B": d["label_b"], "value_a": d["value_a"], "value_b": d["value_b"],
             "difference": d["difference"], "CI": _ci_text(d["ci_low"], d["ci_high"]), "ci_low": d["ci_low"],
             "ci_high": d["ci_high"], "se": d["se"], "p_value": d["p_value"], "method": d["method"],
             "design": d["design"], "paired": d["paired"], "n_items": n, "n_items_a": d["n_items_a"],
             "n_items_b": d["n_items_b"], "n_common": d["n_common"]}]


def command(
    files: Annotated[list[Path], typer.Argument(help="one annotation file, or two (FILE FILE2) to compare")],
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    coefficient: Annotated[list[str] | None, typer.Option(
        "--coefficient", "-c", help=f"coefficient (two to compare two coefficients): {', '.join(COEFFICIENTS)}")]
    = None,
    similarity: Annotated[list[str] | None, similarity_option(
        f"similarity, an equivalence measure (two to compare two): {', '.join(MEASURES)}")] = None,
    measure: MeasureAliasOpt = None,
    groups: Annotated[str | None, typer.Option(
        "--groups", help="two rater groups of FILE, 'r1,r2,r3;r4,r5,r6'")] = None,
    candidate: Annotated[str | None, typer.Option(
        "--candidate", help="the alternative annotator test: can this rater (an LLM) replace the others?")] = None,
    reference: Annotated[str | None, typer.Option(
        "--reference", help="each rater against this reference (gold) rater")] = None,
    leave_one_out: Annotated[bool, typer.Option(
        "--leave-one-out", help="each rater against the rest, and the coefficient without each rater")] = False,
    independent: Annotated[bool, typer.Option(
        "--independent", help="FILE FILE2: different items even where their ids coincide")] = False,
    humans: Annotated[str | None, typer.Option(
        help="--candidate: the human raters, comma-separated (default: every other rater)")] = None,
    epsilon: Annotated[float, typer.Option(help="--candidate: cost-benefit margin epsilon")] = 0.1,
    permutations: Annotated[int, typer.Option(
        help="--groups: permutation test with this many splits of the raters (0 = none)")] = 0,
    analytic: Annotated[bool, typer.Option(
        "--analytic", help="delta-method interval of the difference instead of the bootstrap")] = False,
    bootstrap: BootstrapOpt = 1000,
    design: DesignOpt = "items",
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
    coefs = split(coefficient) or ["krippendorff_alpha"]
    check_choices(coefs, COEFFICIENTS, "--coefficient")
    names = similarity_values(similarity, measure) or ["exact"]
    modes = [m for m, on in (("FILE2", len(files) == 2), ("--groups", groups is not None),
                             ("--candidate", candidate is not None), ("--reference", reference is not None),
                             ("--leave-one-out", leave_one_out), ("two -m", len(names) == 2),
                             ("two -c", len(coefs) == 2)) if on]
    if len(files) > 2:
        fail(f"softirr compare reads one FILE or two (FILE FILE2); got {len(files)}")
    if len(modes) != 1:
        fail("give exactly one of: FILE FILE2, --groups, --candidate, --reference, --leave-one-out, two -m, two -c"
             + (f"; got {', '.join(modes)}" if modes else ""))
    if len(names) > 2 or len(coefs) > 2:
        fail("give at most two -m and at most two -c")
    ci = sis.Analytic(level=level) if analytic else make_bootstrap(bootstrap, design, method, level, seed)
    opts = reader_options(field, layer, feature, None, reader_option)
    anns, notes = [], []
    for f in files:
        ann, said = read(f, item, rater, label, na_values, input_format, opts, categories)
        anns.append(ann)
        notes += said
    ann = anns[0]
    measures = resolve_measures(names, ann if len(anns) == 1 else _pooled(sis, anns), cache, model)
    sims = [sim for _, sim in measures]
    mode = modes[0]
    title = f"softirr compare ({mode}) on {', '.join(f.name for f in files)}"
    meta: dict[str, Any] = {"file": [str(f) for f in files], "mode": mode, "coefficient": coefs, "similarity": names,
                            "bootstrap": bootstrap, "design": design, "method": method, "level": level, "seed": seed}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            rows, columns, data_columns = _run(sis, mode, anns, files, coefs, sims, names, ci, groups, candidate,
                                               reference, epsilon, permutations, independent, meta, humans)
        except ValueError as err:
            fail(f"{err}", EXIT_DATA)
    seen = list(dict.fromkeys([*notes, *(str(c.message) for c in caught), *meta.pop("warnings", [])]))
    meta["warnings"] = seen
    emit(rows, columns, fmt, title + meta.pop("title_tail", ""), meta, notes=Notes(seen, read=notes),
         secondary=("method", "n_items", "se", "value_a", "value_b"), data_columns=data_columns)
    if json_out:
        write_json(json_out, title, meta, rows)


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


def _run(sis: Any, mode: str, anns: list, files: list, coefs: list, sims: list, names: list, ci: Any,
         groups: str | None, candidate: str | None, reference: str | None, epsilon: float, permutations: int,
         independent: bool, meta: dict, humans: str | None = None) -> tuple[list, tuple, tuple]:
    ann = anns[0]
    fn = getattr(sis, coefs[0])
    if mode == "FILE2":
        a = fn(anns[0], similarity=sims[0]) if sims[0] is not None else fn(anns[0])
        b = fn(anns[1], similarity=sims[0]) if sims[0] is not None else fn(anns[1])
        res = sis.compare(a, b, ci=ci, paired=False if independent else None,
                          labels=(f"{files[0].name}", f"{files[1].name}"))
    elif mode in ("two -m", "two -c"):
        pairs = [(coefs[0], s) for s in sims] if mode == "two -m" else [(c, sims[0]) for c in coefs]
        res_ = [getattr(sis, c)(ann, similarity=s) if s is not None else getattr(sis, c)(ann) for c, s in pairs]
        labels = [f"{c} ({n})" for (c, _), n in zip(pairs, names if mode == "two -m" else names * 2, strict=False)]
        res = sis.compare(res_[0], res_[1], ci=ci, labels=(labels[0], labels[1]))
    elif mode == "--groups":
        ga, gb = parse_groups(groups or "", ann.raters)
        extra = {"similarity": sims[0]} if sims[0] is not None else {}
        res = sis.compare_groups(ann, ga, gb, coefficient=coefs[0], ci=ci, permutations=permutations, **extra)
        meta["permutation_p_value"] = res.details.get("permutation_p_value")
    elif mode == "--candidate":
        cand = _rater(candidate or "", ann.raters, "--candidate")
        people = None if humans is None else [_rater(h.strip(), ann.raters, "--humans")
                                              for h in humans.split(",") if h.strip()]
        r = sis.replacement_test(ann, cand, humans=people, similarity=sims[0], epsilon=epsilon)
        meta.update(omega=r.omega, rho=r.rho, passed=r.passed, epsilon=epsilon, n_items=r.n_items)
        meta["title_tail"] = f": {r}"
        meta["warnings"] = list(r.warnings)
        rows = [{**rec, "candidate_wins": bool(rec["candidate_wins"]), "tested": bool(rec["tested"])}
                for rec in r.by_human.to_dict("records")]
        cols = ("human", "n_items", "candidate_advantage", "human_advantage", "mean_difference", "t", "p_value",
                "candidate_wins")
        return rows, cols, cols
    elif mode == "--reference":
        ref = _rater(reference or "", ann.raters, "--reference")
        r = sis.against_reference(ann, ref, similarity=sims[0], ci=ci, top=20)
        meta["worst_items"] = r.disagreements.to_dict("records")
        meta["warnings"] = list(r.warnings)
        rows = []
        for rec in r.by_rater.to_dict("records"):
            rows.append({**rec, "CI": _ci_text(rec["ci_low"], rec["ci_high"])})
        meta["title_tail"] = f": {r.coefficient} of each rater with {ref}"
        return rows, ("rater", "n_items", "value", "CI", "se", "observed", "expected"), \
            ("rater", "n_items", "value", "ci_low", "ci_high", "se", "observed", "expected")
    else:  # --leave-one-out
        t = sis.leave_one_rater_out(ann, coefs[0], ci=ci, **({"similarity": sims[0]} if sims[0] is not None else {}))
        rows = []
        for rec in t.to_dict("records"):
            rows.append({**rec, "vs rest CI": _ci_text(rec["vs_rest_ci_low"], rec["vs_rest_ci_high"]),
                         "change CI": _ci_text(rec["change_ci_low"], rec["change_ci_high"])})
        meta["value_all"] = t.attrs["value_all"]
        meta["title_tail"] = f": {coefs[0]} of all raters = {t.attrs['value_all']:.4f}"
        return rows, ("rater", "n_items", "kappa_vs_rest", "vs rest CI", "value_without", "change", "change CI",
                      "change_p_value"), tuple(t.columns)
    meta["warnings"] = list(res.warnings)
    return _comparison_rows(res), _CMP_COLUMNS, _CMP_DATA
