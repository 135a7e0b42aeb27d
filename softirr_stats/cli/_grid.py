"""What ``agree``, ``sensitivity`` and ``demo`` share: run the analysis grid and format its rows.

The numbers come from :func:`softirr_stats.analysis.run_analysis`; this module only turns its
tidy table into rows, numbered notes and an exit status.
"""

import math
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats.base._format import fixed_interval
from softirr_stats.cli._errors import EXIT_DATA, fail, one_line, reading, using
from softirr_stats.cli._options import (
    TEST_NOTE,
    check_choices,
    cli_wording,
    given_flags,
    word_first,
)
from softirr_stats.cli._output import Notes, emit, write_json

__all__ = ["TEST_METHODS", "AlternativeOpt", "NullOpt", "TestMethodOpt", "TestOpt", "add_tests", "check_fisher_null",
           "check_test_options", "grid_rows", "load_judgments", "meta_of_tests", "present", "scale_note"]

#: ``--alternative`` -> the p-value's column: a one-sided p is never shown under the two-sided one's name.
P_COLUMNS = {"two-sided": "p_value", "greater": "p_value_greater", "less": "p_value_less"}
TABLE_COLUMNS = ("similarity", "coefficient", "chance", "value", "CI", "z", *P_COLUMNS.values(), "benchmark",
                 "judge_only", "estimator_only", "observed", "expected", "n_items", "n_pairs_scored", "notes")
TEST_COLUMNS = ("z", *P_COLUMNS.values(), "benchmark")  # shown with --test only
SECONDARY = ("n_pairs_scored", "observed", "expected", "n_items", "chance", "estimator_only", "judge_only")
DATA_COLUMNS = ("similarity", "coefficient", "chance", "value", "ci_low", "ci_high", "se", "level", "ci_method",
                "z", *P_COLUMNS.values(), "test", "benchmark",
                "observed", "expected", "judge_only", "estimator_only", "n_judged", "n_items", "n_raters",
                "n_pairs_scored", "warnings", "error")
HEADERS = {"n_items": "items", "n_pairs_scored": "pairs scored", "judge_only": "judge only",
           "estimator_only": "estimator only", "p_value": "p", "p_value_greater": "p (greater)",
           "p_value_less": "p (less)"}
COLUMNS_HELP = (
    "Columns: value = the coefficient (unitless, at most 1); CI = interval at --level (ci_low, ci_high in "
    "csv/json; same scale); judge only, estimator only = with --judgments, the coefficient from the judged pairs "
    "alone and from the estimator alone (same scale); observed, expected = observed and chance agreement "
    "(proportions in [0, 1]); items = items the coefficient used (count; 0 where it did not run); pairs scored = distinct label pairs the "
    "row needed that no earlier row had (count; 0 for exact; with --cache they are read from the cache file where "
    "it has them, and a rerun prints the same count); "
    "notes = numbers of the notes printed below the table (why a row has no value or no interval)."
)


def load_judgments(path: Path | None) -> tuple[Any, dict[str, Any]]:
    """``--judgments``: a filled blinded sheet (with its plan beside it) or a filled plan CSV."""
    if path is None:
        return None, {}
    if not path.exists():
        fail(f"--judgments {path} does not exist")
    from softirr_stats.analysis import read_judging_sheet

    with reading(path, "--judgments"):
        return read_judging_sheet(path)


def grid_rows(ann: Any, coefficients: list[str] | None, measures: list[tuple[str, Any]], chances: list[Any],
              ci: Any, judgments: Any = None, cache: Path | None = None,
              registry: Any = None) -> tuple[list[dict[str, Any]], list[str]]:
    """Run the grid; rows (one per coefficient x measure x chance, each with the interval of ``ci``) and the
    warnings raised. ``registry``: the coefficient views with their options (``agree --distance-option``)."""
    from softirr_stats.analysis import run_analysis

    with using("--cache", cache):  # a cache failure names the flag and the file
        res = run_analysis(ann, coefficients=coefficients, measures=measures, chance=chances, ci=ci,
                           judgments=judgments, registry=registry)
    rows = []
    whole = res.table.attrs.get("warnings") or [()] * len(res.table)
    for r, w in zip(res.table.to_dict("records"), whole, strict=True):
        r["warnings"] = [row_wording(x) for x in w]
        if any(x.startswith("error:") for x in r["warnings"]):
            r["error"] = next(x for x in r["warnings"] if x.startswith("error:"))[6:].strip()
        rows.append(r)
    return rows, [row_wording(x) for x in res.warnings]  # worded as the rows' own, so that each is said once


def row_wording(message: str) -> str:
    """A library note or warning as a row of the grid carries it (and its csv cell holds it): in command-line words
    (:func:`~softirr_stats.cli._options.cli_wording`), opening with a word, never a flag
    (:func:`~softirr_stats.cli._options.word_first`: a cell that begins with ``-`` is a formula to a spreadsheet)."""
    return word_first(cli_wording(message))




#: ``--test-method`` choices: the permutation test (default) tests "no agreement beyond chance" (raters independent);
#: the analytic one tests "coefficient = 0", which is not the same question when rater marginals differ.
TEST_METHODS = ("permutation", "analytic")
TEST_PERMUTATIONS = 1999

# ``--test`` and its options, one definition for ``agree`` and ``sensitivity`` (both run :func:`add_tests`)
TestOpt = Annotated[bool, typer.Option(
    "--test", help="add z, a p-value (see --test-method and --alternative; exact chance) and the Landis-Koch "
                   "band of each value")]
TestMethodOpt = Annotated[str, typer.Option(
    "--test-method", help="permutation: H0 no agreement beyond chance (raters independent; default); analytic: "
                          "H0 coefficient = 0, or --null (not the same when raters' label distributions differ)")]
AlternativeOpt = Annotated[str, typer.Option(
    "--alternative", help="with --test: H1 of the p-value: two-sided, greater (more agreement than H0: the "
                          "one-sided test of agreement beyond chance) or less; the p column is named after it "
                          "(ICC's and Kendall's W's upper-tail tests: always p (greater))")]
NullOpt = Annotated[float | None, typer.Option(
    "--null", help="with --test --test-method analytic: the coefficient's value under H0, in [-1, 1) "
                   "(z = (value - VALUE) / SE) [default: 0]")]


def meta_of_tests(test: bool, method: str, alternative: str, null: float | None) -> dict[str, Any]:
    """The JSON ``meta`` of ``--test``: ``test`` (the method), ``alternative`` and ``null`` (the analytic test's H0
    value), each None without ``--test`` (``null`` also with the permutation test, whose H0 is no value).

    Examples
    --------
    >>> meta_of_tests(True, "analytic", "greater", None)
    {'test': 'analytic', 'alternative': 'greater', 'null': 0.0}
    >>> meta_of_tests(False, "permutation", "two-sided", None)
    {'test': None, 'alternative': None, 'null': None}
    """
    return {"test": method if test else None, "alternative": alternative if test else None,
            "null": (null or 0.0) if test and method == "analytic" else None}


def check_test_options(test: bool, method: str, alternative: str, null: float | None) -> None:
    """Refuse ``--test-method`` / ``--alternative`` / ``--null`` without ``--test``, ``--null`` with the
    permutation test (its H0 is independence, not a value) and a ``--null`` outside [-1, 1)."""
    from softirr_stats.uncertainty import ALTERNATIVES, check_null

    given = given_flags("test_method", "alternative", "null")
    if given and not test:
        fail(f"{', '.join(given.values())} set{'s' if len(given) == 1 else ''} the test that --test adds; add --test")
    check_choices([alternative], ALTERNATIVES, "--alternative")
    if null is None:
        return
    if method != "analytic":
        fail(f"--null {null:g} applies to --test-method analytic only: the permutation test's H0 is no agreement "
             "beyond chance (the raters label independently), not a value of the coefficient; add --test-method "
             "analytic to test H0: coefficient = VALUE")
    try:
        check_null(null)
    except ValueError:
        fail(f"--null must be a number in [-1, 1) (the coefficient's value under H0); got {null!r}")


def check_fisher_null(coefs: Sequence[str], null: float | None) -> None:
    """Refuse ``--null -1`` with a statistic tested on Fisher's z scale (Lin's CCC: ``atanh(-1)`` is -inf, so z would
    be inf and p 0 for any data), naming the flag."""
    if null is None or float(null) != -1.0:
        return
    from softirr_stats.api import TESTS_AT_ANY_NULL

    fisher = [c for c in coefs if c in TESTS_AT_ANY_NULL]
    if fisher:
        fail(f"--null -1 cannot be tested for -c {fisher[0]}: its Fisher z test needs H0 in (-1, 1) (atanh(-1) is "
             "-inf, which gives z = inf and p = 0 for any data); give a --null above -1")


def add_tests(rows: list[dict[str, Any]], ann: Any, measures: list[tuple[str, Any]], method: str = "permutation",
              seed: int = 0, judged: bool = False, alternative: str = "two-sided",
              null: float | None = None) -> list[str]:
    """``--test``: z, the p-value of ``alternative`` and the Landis-Koch band, added to each row in place; returns
    the table notes (one per p column).

    ``method="permutation"`` (default): :func:`softirr_stats.permutation_test` (each rater's labels permuted over the
    items it rated, :data:`TEST_PERMUTATIONS` permutations, ``seed``): H0 is "no agreement beyond chance" (the raters
    label independently); ``alternative="greater"`` is its one-sided test of more agreement than chance.
    ``method="analytic"``: :func:`softirr_stats.kappa_test` on rows of exact labels (Light's kappa: R irr's z test on
    the items every rater rated, with a note where the row's value used more), and the same computation
    (:func:`softirr_stats.uncertainty.analytic_test`) on soft rows and alpha's levels with ``ci="analytic"``:
    H0: coefficient = ``null`` (0 by default: the published H0 variance where one exists, irrCAC's convention
    elsewhere; another value: Wald z with the large-sample SE); with independent raters whose label distributions
    differ, pooled-chance coefficients are negative, so H0: 0 is not a test of independence. The p-value goes into
    the column of :data:`P_COLUMNS` named after ``alternative``; the statistics of scores' published tests (ICC's F,
    Kendall's chi-square) are one-sided, and their p goes into the column of their own side (``details
    ["alternative"]`` of the result: ``p (greater)``), under ``two-sided`` too. Both use exact chance (coefficients
    without a chance term, percent agreement, are tested as they are); a row that cannot be tested or whose test
    gives no p gets a note why, as does a prediction-powered row (``judged``): the tests would test the
    estimator-only value beside it.
    """
    import softirr_stats as sis
    from softirr_stats.analysis import SCORE_COEFFICIENTS
    from softirr_stats.api import score_statistic

    key = P_COLUMNS[alternative]
    h0 = 0.0 if null is None else float(null)
    sims = dict(measures)
    own: dict[tuple[str, str], list[str]] = {}  # (column, test) -> the score statistics it tested
    for r in rows:
        if "error" in r or not isinstance(r.get("value"), float) or math.isnan(r["value"]):
            continue
        if judged and isinstance(r.get("judge_only"), float):  # the tests would test the estimator's value
            r["warnings"].append(f"{TEST_NOTE}no test of the prediction-powered {r['coefficient']} (the tests "
                                 "offered test the estimator-only value); run --test without --judgments for that")
            continue
        if r["coefficient"] in SCORE_COEFFICIENTS:  # their published tests: ICC's F, Kendall's Friedman chi-square
            test = _own_test(r, ann, score_statistic, alternative, h0)
            if test:
                own.setdefault(test, []).append(str(r["coefficient"]))  # test: (its p column, its name)
            continue
        base, _, level = str(r["coefficient"]).partition(":")  # krippendorff_alpha:ordinal: level="ordinal"
        fn = getattr(sis, base, None)
        if fn is None or base not in sis.agreement.COEFFICIENTS:
            r["warnings"].append(f"{TEST_NOTE}no H0 test for {r['coefficient']} (the tests offered are of the "
                                 "chance-corrected coefficients and percent agreement)")
            continue
        if str(r.get("chance")) not in ("exact", "none"):  # "none": no chance term (percent agreement)
            r["warnings"].append(f"{TEST_NOTE}{r['coefficient']} is tested with exact chance only; got {r['chance']}")
            continue
        options = {"similarity": sims.get(r["similarity"]), **({"level": level} if level else {})}
        res = _one_test(r, ann, fn, options, method, seed, alternative, h0)
        if res is None:
            continue
        r["z"], r[key], r["test"] = res.z, res.p_value, str(res.details.get("test", method))
        r["benchmark"] = replace(res, value=r["value"]).benchmark().band  # the point band: the row's value's
    return _test_notes(rows, own, key, method, seed, alternative, h0)


def _one_test(r: dict[str, Any], ann: Any, fn: Any, options: dict[str, Any], method: str, seed: int,
              alternative: str, null: float) -> Any:
    """Row ``r``'s test (an AgreementResult with ``z`` and ``p_value``), or None with a note in ``r`` why not.

    Rows of exact labels at the analytic test are :func:`softirr_stats.kappa_test` (Light's kappa: R irr's z test
    on the items every rater rated); a test whose estimate is not the row's value, or whose p is not a number,
    says so in a note."""
    import warnings

    import softirr_stats as sis
    from softirr_stats.uncertainty import analytic_test

    coef = str(r["coefficient"])
    exact = options["similarity"] is None and "level" not in options
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if method == "analytic" and exact:
                res = sis.kappa_test(ann, coefficient=coef, null=null, alternative=alternative)
            elif method == "analytic":
                res = analytic_test(fn(ann, **options, ci="analytic"), null=null, alternative=alternative)
            else:
                res = sis.permutation_test(fn, ann, n=TEST_PERMUTATIONS, seed=seed, alternative=alternative,
                                           **options)
    except (ValueError, TypeError) as err:
        hint = ("; --test-method permutation tests any coefficient, soft ones included"
                if method == "analytic" and not exact else "")
        r["warnings"].append(f"{TEST_NOTE}{coef}: {cli_wording(one_line(err))}{hint}")
        return None
    if not math.isclose(res.value, r["value"], rel_tol=0.0, abs_tol=1e-12):
        r["warnings"].append(f"{TEST_NOTE}{coef}'s z and p are of {res.details.get('test', 'its test')} on the "
                             f"{res.n_items} items it uses ({coef} {res.value:.4f} there), not of the value "
                             f"shown, which uses {int(r['n_items'])} items")
    own = [w for w in res.warnings if w.startswith("permutation test")]  # the test's notes (degenerate, nan sets)
    if own and not math.isnan(res.p_value):
        r["warnings"] += [f"{TEST_NOTE}{coef}: {w}" for w in own]
    if math.isnan(res.p_value):
        said = [row_wording(w) for w in res.warnings if row_wording(w) not in r["warnings"]]
        why = "its standard error is 0: no variation between items" if res.se == 0 else "its z is not a number"
        r["warnings"].append(f"{TEST_NOTE}{coef}: the test gives no p here" + (f": {'; '.join(said)}" if said else
                                                                            f" ({why})"))
    return res


def _test_notes(rows: list[dict[str, Any]], own: dict[tuple[str, str], list[str]], key: str, method: str,
                seed: int, alternative: str, h0: float) -> list[str]:
    """The table notes of ``--test``: one per p column, each naming its test and its side."""
    from softirr_stats.analysis import SCORE_COEFFICIENTS
    from softirr_stats.uncertainty import one_sided

    notes = []
    p = HEADERS[key]
    side = one_sided(alternative, h0) or "two-sided"
    if any(r.get("coefficient") not in SCORE_COEFFICIENTS for r in rows):
        if method == "analytic" and h0 != 0.0:
            notes.append(f"{p}: analytic test of H0: coefficient = {h0:g} ({side}): Wald z = (value - {h0:g}) / SE "
                         "with the large-sample SE, normal")
        elif method == "analytic":
            notes.append(f"{p}: analytic test of H0: coefficient = 0 ({side}); not a test of 'no agreement beyond "
                         "chance' when the raters' label distributions differ (use --test-method permutation)")
        else:
            if alternative != "two-sided":
                side = f"one-sided, H1: {'more' if alternative == 'greater' else 'less'} agreement than chance"
            notes.append(f"{p}: permutation test of H0: no agreement beyond chance (each rater's labels permuted over "
                         f"its items, B = {TEST_PERMUTATIONS}, seed {seed}; {side}); z = (value - mean) / sd of the "
                         "permuted values")
    sides = {c: a for a, c in P_COLUMNS.items()}
    for column in dict.fromkeys(c for c, _ in own):
        tests = "; ".join(f"{', '.join(dict.fromkeys(names))}: {test}" for (c, test), names in own.items()
                          if c == column)
        # the tests here are at h0 (ICC's and Kendall's, of H0: 0, only when h0 is 0)
        own_side = one_sided(sides[column], h0) or "two-sided"
        notes.append(f"{HEADERS[column]}: {tests}; {own_side}" + (
            f" (the {'upper' if column.endswith('greater') else 'lower'} tail, these published tests' only side: "
            f"not a {side} p, so not in the {p} column)" if column != key else ""))
    return notes


def _own_test(r: dict[str, Any], ann: Any, score_statistic: Any, alternative: str = "two-sided",
              null: float = 0.0) -> tuple[str, str] | None:
    """The score statistic's own test into row ``r``: its p in the column of the test's side
    (``details["alternative"]``; ``greater`` for the upper-tail F and chi-square tests), also when ``alternative``
    is two-sided; returns ``(column, test name)`` (None if none, with a note in ``r`` why). ICC's and Kendall's
    published tests are of H0: 0: none for a ``null`` other than 0 or for an ``alternative`` on the other side.
    The statistics of ``api.TESTS_AT_ANY_NULL`` (Lin's CCC: its Fisher z test) are tested at ``null`` on the side of
    ``alternative``, with their z."""
    import warnings

    from softirr_stats.api import TESTS_AT_ANY_NULL
    from softirr_stats.uncertainty import one_sided

    name = str(r["coefficient"])
    any_null = name in TESTS_AT_ANY_NULL
    if null != 0.0 and not any_null:
        r["warnings"].append(f"{TEST_NOTE}{name} has only its published test of H0: 0; no test of --null {null:g}")
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = score_statistic(name, ann, **({"null": null, "alternative": alternative} if any_null else {}))
    except (ValueError, TypeError) as err:
        r["warnings"].append(f"{TEST_NOTE}{name}: {one_line(err)}")
        return None
    test, side = res.details.get("test"), res.details.get("alternative")
    if res.p_value is None or not test or side not in P_COLUMNS:
        r["warnings"].append(f"{TEST_NOTE}{name} has no published test of H0")
        return None
    if alternative not in ("two-sided", side):
        said = {"greater": "one-sided, H1: more agreement (the upper tail)", "two-sided": "two-sided",
                "less": "one-sided, H1: less agreement (the lower tail)"}[side]
        r["warnings"].append(f"{TEST_NOTE}{name}'s {test} is {said}; no p for --alternative {alternative}")
        return None
    if math.isnan(res.p_value):
        why = res.details.get("no_test") or "its statistic is not a number"
        r["warnings"].append(f"{TEST_NOTE}{name}: its {test} gives no p here ({why})")
    r[P_COLUMNS[side]] = res.p_value
    r["test"] = str(test)
    if math.isfinite(res.z):
        r["z"] = res.z
    side_text = one_sided(side, null)  # said once per column by the table note
    return P_COLUMNS[side], str(test).removesuffix(f"; {side_text}") if side_text else str(test)


#: the chance labels of rows computed with the default chance, which the table leaves unnamed when every row has the
#: same: exact chance, none (percent agreement), every cross-item pair (distance_ks / distance_sigma)
DEFAULT_CHANCES = frozenset({"exact", "none", "cross-item pairs: all"})


def _failed(r: dict[str, Any], strict: bool) -> bool:
    if "error" in r:
        return True
    return strict and any(x.startswith("skipped:") for x in r["warnings"])


def present(rows: list[dict[str, Any]], notes_in: list[str], *, fmt: str, title: str, meta: dict[str, Any],
            json_out: Path | None, keep_going: bool, strict: bool, read: Sequence[str] = ()) -> None:
    """Print the rows in ``fmt`` with numbered notes; exit 1 when a requested result failed.

    ``read``: the notes of reading the file, printed as ``note:`` lines in csv/json (warnings stay warnings).

    ``strict``: a row skipped because the coefficient does not apply (``agree``: the user asked
    for it by name) counts as failed; ``sensitivity`` covers many settings and does not.
    """
    notes = Notes(notes_in, read=read)
    chances = {str(r.get("chance")) for r in rows if r.get("chance")}
    table_rows = []
    for r in rows:
        t = dict(r)
        lo, hi = r.get("ci_low"), r.get("ci_high")
        t["CI"] = fixed_interval(lo, hi)
        if "error" in r:
            t["value"] = "-"
        t["notes"] = notes.refs(r["warnings"])
        table_rows.append(t)
    cols = [c for c in TABLE_COLUMNS if c not in ("judge_only", "estimator_only", *TEST_COLUMNS) or
            any(r.get(c) is not None and not (isinstance(r.get(c), float) and math.isnan(r[c])) for r in rows)]
    if len(chances) <= 1 and chances <= DEFAULT_CHANCES:  # one Monte Carlo or sampled chance is named, as csv does
        cols.remove("chance")
    if not any(t["CI"] for t in table_rows):  # no interval asked for (--bootstrap 0)
        cols.remove("CI")
    if not notes:
        cols.remove("notes")
    # each row's warnings a list, each whole (a warning's own text may hold "; "): json keeps the list, csv joins
    # it into one cell with "; ", markdown and latex number each warning once
    data_rows = [{**r, "warnings": list(r["warnings"])} for r in rows]
    meta = {**meta, "warnings": list(notes_in)}
    emit(table_rows if fmt == "table" else data_rows, cols, fmt, title, meta, HEADERS, notes, SECONDARY,
         data_columns=[c for c in DATA_COLUMNS if any(c in r for r in data_rows)])
    if json_out:
        write_json(json_out, title, meta, data_rows)
        typer.echo(f"wrote {json_out}", err=True)
    failed = [r for r in rows if _failed(r, strict)]
    if failed and not keep_going:
        first = failed[0]
        why = first.get("error") or next((x for x in first["warnings"] if x.startswith("skipped:")), "")
        typer.echo(f"error: {len(failed)} of {len(rows)} results cannot be computed for these data (first: "
                   f"{first['coefficient']}, {first['similarity']}: {one_line(why)}); pass --keep-going to exit 0",
                   err=True)
        raise typer.Exit(code=EXIT_DATA)
    if rows and all(isinstance(r.get("value"), float) and math.isnan(r["value"]) for r in rows) and not keep_going:
        typer.echo("error: no setting gave a value (see the notes below the table)", err=True)
        raise typer.Exit(code=EXIT_DATA)


def scale_note(ann: Any, names: list[str], weights: tuple[str, ...], coefficients: Any = ("",)) -> list[str]:
    """A note where numeric labels (three values or more) are compared only as categories (no weight among the
    measures ``names``): a rating scale read as nominal counts every difference alike. No note where every one of
    ``coefficients`` is a statistic of scores (ICC, Lin's CCC, Kendall's W), which no measure applies to.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> ann = Annotations.from_wide([[1, 2], [4, 5], [3, 3]])
    >>> print(scale_note(ann, ["exact"], ("linear", "quadratic"))[0][:73])
    labels are numbers (5 values, 1 to 5): exact agreement counts 2 against 3
    >>> scale_note(ann, ["exact", "quadratic"], ("linear", "quadratic"))
    []
    """
    values = list(ann.vocabulary)
    if ann.kind != "numeric" or len(values) < 3 or any(n in weights for n in names) or not coefficients:
        return []
    lo, hi = (_number(v) for v in (values[0], values[-1]))
    a, b = (_number(v) for v in (values[len(values) // 2 - 1], values[len(values) // 2]))
    return [f"labels are numbers ({len(values)} values, {lo} to {hi}): exact agreement counts {a} against {b} "
            f"as fully as {lo} against {hi}; for ratings on a scale add -m quadratic (interval alpha, "
            "quadratic-weighted kappa) or -m linear"]


def _number(value: Any) -> str:
    """A numeric label as text that tells distinct labels apart: an integer in full, a float by ``%g`` where that
    reads back as the same float, else by its shortest exact form (``repr``).

    Examples
    --------
    >>> _number(9007199254740993), _number(2.5), _number(1e-7), _number(0.30000000000000004)
    ('9007199254740993', '2.5', '1e-07', '0.30000000000000004')
    """
    import numbers

    if isinstance(value, numbers.Integral):
        return str(int(value))
    short = f"{value:g}"
    return short if float(short) == float(value) else repr(float(value))


def header(name: str, ann: Any, rows: list[dict[str, Any]]) -> str:
    """``file: N items (M used), R raters, K labels``; rows that did not run (0 items used) are left out of M."""
    used = sorted({int(r["n_items"]) for r in rows
                   if isinstance(r.get("n_items"), int | float) and not math.isnan(r["n_items"]) and r["n_items"] > 0
                   and "error" not in r})
    items = f"{ann.n_items} items"
    if used and used != [ann.n_items]:
        items += f" ({'/'.join(map(str, used))} used)"
    return f"{name}: {items}, {ann.n_raters} raters, {len(ann.vocabulary)} labels"
