"""``softirr spans``: pairwise F1 between annotators of spans, with a document-bootstrap interval."""

from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats.base._format import fixed_interval, level_text
from softirr_stats.base._suggest import did_you_mean
from softirr_stats.cli._errors import EXIT_DATA, fail
from softirr_stats.cli._options import (
    DEFAULT_LEVEL,
    MEASURES,
    BootstrapOpt,
    FeatureOpt,
    FieldOpt,
    FormatOpt,
    InputFormatOpt,
    JsonOpt,
    LayerOpt,
    LevelOpt,
    MeasureAliasOneOpt,
    MethodOpt,
    ReaderOpt,
    SeedOpt,
    check_choices,
    check_format,
    check_similarities,
    check_writable,
    given_flags,
    make_bootstrap,
    read,
    reader_options,
    reading_files,
    similarity_option,
    similarity_value,
)
from softirr_stats.cli._output import Notes, emit, provenance_meta, write_json

__all__ = ["NAME", "EPILOG", "command"]

NAME = "spans"
EPILOG = ("Columns: f1 = 2 TP / (n_a + n_b) for a pair of annotators on the documents both annotated "
          "(unitless, in [0, 1]); tp, fp, fn = matched spans, spans only the second / only the first annotator "
          "of the pair marked (counts: the first annotator is the reference); CI = document-bootstrap interval at "
          "--level (documents are the resampling unit). --table types / documents: f1 = mean over annotator pairs of "
          "the pair's F1 on that type / in that document (micro), sd = its population SD over the pairs (as bratiaa "
          "reports it), n_pairs = the pairs it is taken over (a type: pairs where it occurs; a document: pairs with "
          "a span there), n_spans = spans of the type / in the document, all annotators together.")
MATCHES = ("exact", "overlap", "overlap:IOU")
#: the tables of the result --table prints: each annotator pair and the mean, per span type, per document
TABLES = ("pairs", "types", "documents")
_COLUMNS = ("pair", "n_documents", "tp", "fp", "fn", "precision", "recall", "f1", "CI")
_DATA_COLUMNS = ("pair", "n_documents", "tp", "fp", "fn", "precision", "recall", "f1", "ci_low", "ci_high")
_TYPE_COLUMNS = ("type", "n_spans", "tp", "f1", "sd", "n_pairs", "CI")
_DOCUMENT_COLUMNS = ("document", "n_spans", "f1", "sd", "n_pairs")


def _count(v: Any) -> Any:
    """Counts as integers where they are (exact type matching); soft matching gives fractional TP."""
    return int(v) if isinstance(v, float) and v.is_integer() else v


def _ci(lo: Any, hi: Any) -> str:
    """The merged ``[lo, hi]`` cell ('' without an interval)."""
    return fixed_interval(lo, hi)


def _type_rows(res: Any) -> list[dict[str, Any]]:
    """One row per span type (``by_type``; one ``(all)`` row with --by all), the interval where there is one."""
    return [{"type": r["type"], "n_spans": r["n_spans"], "tp": _count(r["tp"]), "f1": r["f1"], "sd": r["sd"],
             "n_pairs": r["n_pairs"], "CI": _ci(r.get("ci_low"), r.get("ci_high")), "ci_low": r.get("ci_low"),
             "ci_high": r.get("ci_high")} for r in res.by_type.to_dict("records")]


def _document_rows(res: Any) -> list[dict[str, Any]]:
    """One row per document (``by_document``)."""
    return [{k: r[k] for k in _DOCUMENT_COLUMNS} for r in res.by_document.to_dict("records")]


def _rows(res: Any) -> list[dict[str, Any]]:
    """One row per annotator pair, then the mean over pairs (the statistic's value)."""
    ci = _ci
    rows = []
    for r in res.by_pair.to_dict("records"):
        rows.append({"pair": f"{r['annotator_a']} ~ {r['annotator_b']}", "n_documents": r["n_documents"],
                     "tp": _count(r["tp"]), "fp": _count(r["fp"]), "fn": _count(r["fn"]), "precision": r["precision"], "recall": r["recall"],
                     "f1": r["f1"], "CI": ci(r.get("ci_low"), r.get("ci_high")),
                     "ci_low": r.get("ci_low"), "ci_high": r.get("ci_high")})
    rows.append({"pair": "mean over pairs", "n_documents": None, "tp": None, "fp": None, "fn": None,
                 "precision": None, "recall": None, "f1": res.value, "CI": ci(res.ci_low, res.ci_high),
                 "ci_low": res.ci_low, "ci_high": res.ci_high})
    return rows


def _unsaid(caught: list, said: tuple[str, ...]) -> list[str]:
    """The caught warnings the result's notes do not already hold, as ``Category: text`` (the summary's
    warnings carry a ``span_f1: `` prefix its notes do not).

    >>> import warnings
    >>> w = warnings.WarningMessage(UserWarning("span_f1: 2 documents"), UserWarning, "f", 1)
    >>> _unsaid([w], ("2 documents",)), _unsaid([w], ())
    ([], ['UserWarning: span_f1: 2 documents'])
    """
    return [f"{c.category.__name__}: {c.message}" for c in caught
            if str(c.message) not in said and str(c.message).removeprefix("span_f1: ") not in said]


def _span_source(path: Path, input_format: str | None, opts: dict[str, Any],
                 unmatched: str | None) -> tuple[Any, dict[str, Any], list[str]]:
    """What ``span_agreement`` reads, and its keyword options: the path of an export or span table, or the
    Annotations of a table of span items (``item`` = ``<document>:<start>-<end>``, ``rater``, ``label``), whose
    "no span" label is ``--unmatched`` (``''``: none, ``unmatched=None``). ``--unmatched`` is refused elsewhere:
    an export's reader and a span table's declaration rows say who annotated a document without spans. The last
    item is the notes of reading the table."""
    from softirr_stats.data import EXPORT_FORMATS, guess_format, read_table

    with reading_files([path]):
        fmt = input_format or guess_format(path, columns=("document", "annotator", "type"))
        columns = () if fmt in EXPORT_FORMATS else tuple(read_table(path, format=fmt).columns)
    if "document" in columns or not {"item", "rater", "label"} <= set(columns):
        if unmatched is not None:
            fail(f"--unmatched names the 'no span' label of a table of span items (columns item, rater, label); "
                 f"{path} is a span export or span table, whose reader (or declaration rows) says who annotated a "
                 "document without spans: leave out --unmatched")
        return path, {"format": input_format, **opts}, []
    for flag in given_flags("field", "layer", "feature", "reader_option").values():
        fail(f"{flag} is an option of the span exports; {path} is a table of span items (item, rater, label)")
    ann, notes = read(path, input_format=fmt)
    if unmatched:  # a label of the table (an element of a set-valued one, where types are stacked)
        labels = {str(x) for lab in ann.vocabulary for x in (lab if isinstance(lab, frozenset) else [lab])}
        if unmatched not in labels:
            shown = ", ".join(map(repr, sorted(labels)[:8])) + (", ..." if len(labels) > 8 else "")
            fail(f"--unmatched {unmatched!r} is not a label of {path} (labels: {shown}); give the label meaning "
                 "'no span here', or --unmatched '' when every label is a span type")
    return ann, ({} if unmatched is None else {"unmatched": unmatched or None}), notes


def _check_by_all(by: str, average: str, measure: str) -> None:
    """``--by all`` pools every span whatever its type (one F1 per pair): ``--average`` (over types) and a soft ``-m``
    (graded type matching) have nothing to act on and are refused naming the flags (exit 2); the library refuses the
    second as ``similarity=`` with ``by='all'``."""
    if by != "all":
        return
    if given_flags("average"):
        fail(f"--average {average} averages F1 over span types; --by all ignores types (one F1 over all spans): "
             "leave out one of them")
    if measure != "exact":
        fail(f"-m {measure} grades agreement on span types; --by all ignores types: use --by type, or leave out -m")


def command(
    files: Annotated[list[Path], typer.Argument(help="span export(s): brat folder, WebAnno/INCEpTION TSV, "
                                                     "Label Studio / doccano / Prodigy JSON(L), or a span table")],
    match: Annotated[str, typer.Option(help=f"span matching: {', '.join(MATCHES)}")] = "exact",
    by: Annotated[str, typer.Option(help="F1 per span type ('type') or ignoring types ('all')")] = "type",
    average: Annotated[str, typer.Option(help="over types: micro (pooled counts) or macro (mean of F1)")] = "micro",
    similarity_name: Annotated[str | None, similarity_option(
        f"soft type matching: {', '.join(MEASURES)} (exact = types must be equal) [default: exact]")] = None,
    measure: MeasureAliasOneOpt = None,
    bootstrap: BootstrapOpt = 2000,
    method: MethodOpt = "auto",
    level: LevelOpt = DEFAULT_LEVEL,
    seed: SeedOpt = 0,
    fmt: FormatOpt = "table",
    json_out: JsonOpt = None,
    input_format: InputFormatOpt = None,
    field: FieldOpt = None,
    layer: LayerOpt = None,
    feature: FeatureOpt = None,
    reader_option: ReaderOpt = None,
    unmatched: Annotated[str | None, typer.Option(
        "--unmatched", help="a table of span items (columns item = 'DOCUMENT:START-END', rater, label): the "
                            "label meaning 'annotated the document, no span here'; '' (empty) when every label is "
                            "a span type [default: O]")] = None,
    table: Annotated[str, typer.Option(
        "--table", help="the table printed: pairs (each annotator pair, then the mean), types (F1 per span type, "
                        "bratiaa's agreement per label) or documents (F1 per document, bratiaa's agreement per "
                        "document), each the mean over the pairs with a span of the type / in the document (bratiaa "
                        "gives nan where some pair has none); json holds all three (results = the pairs, by_type, "
                        "by_document)")] = "pairs",
) -> None:
    """Span agreement: pairwise F1 between annotators (Hripcsak & Rothschild 2005), exact or overlap
    matching, per annotator pair, per type (--table types) and per document (--table documents), with a
    document-bootstrap interval. Equals bratiaa's mean pairwise F1 with --match exact (except for discontinuous brat
    spans, read here as their extent: docs/span_agreement.md)."""
    check_format(fmt)
    check_choices([table], TABLES, "--table")
    check_choices([by], ("type", "all"), "--by")
    check_choices([average], ("micro", "macro"), "--average")
    measure = similarity_value(similarity_name, measure, "exact")
    check_similarities([measure], MEASURES)
    _check_by_all(by, average, measure)
    if match not in ("exact", "overlap") and not match.startswith("overlap:"):
        fail(f"--match must be one of {', '.join(MATCHES)}; got {match!r}{did_you_mean(match, ('exact', 'overlap'))}")
    check_writable(json_out, "--json", files)
    if len(files) != 1:
        fail("softirr spans reads one export (a brat folder is one FILE); got "
             f"{len(files)} paths")
    path = files[0]
    if not path.exists():
        fail(f"{path} does not exist")
    ci = make_bootstrap(bootstrap, "items", method, level, seed)
    opts = reader_options(field, layer, feature, None, reader_option)
    source, spans_kw, read_notes = _span_source(path, input_format, opts, unmatched)
    similarity = None
    if measure != "exact":
        from softirr_stats.equivalence import estimator_from_name

        similarity = estimator_from_name(measure)
    import warnings

    import softirr_stats as sis
    from softirr_stats.api import read_spans
    from softirr_stats.base._validation import TooFewRatersError, TooFewUnitsError

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with reading_files([path]):  # reading only: a failure of the computation is not one of reading
            spans = read_spans(source, format=spans_kw.pop("format", None), unmatched=spans_kw.pop("unmatched", "O"),
                               reader_options=spans_kw)
        try:
            res = sis.span_agreement(spans, match=match, by=by, average=average, similarity=similarity, ci=ci)
        except TooFewRatersError as err:  # the data cannot give the result: exit 1, not a read error
            fail(f"{path}: {err}", EXIT_DATA)
        except TooFewUnitsError as err:  # the interval asked for cannot be formed: the request is at fault
            from softirr_stats.uncertainty import TOO_FEW_UNITS_POINT

            fail(f"--bootstrap {bootstrap}: {path}: "
                 + str(err).replace(TOO_FEW_UNITS_POINT, "report the point estimate without an interval (--bootstrap 0)"))
    seen = list(dict.fromkeys([*read_notes, *res.warnings, *_unsaid(caught, res.warnings)]))
    rows = _rows(res)
    used = res.ci_method.removeprefix("bootstrap-") if ci is not None else method  # "auto" resolved for these documents
    if ci is None:
        interval = "no interval (--bootstrap 0)"
    elif res.ci_method.startswith("bootstrap-"):
        interval = f"{level_text(level)} document-bootstrap {used} CI, B = {bootstrap}"
    else:  # method auto: the mean's interval from the document jackknife, the pairs' from the bootstrap
        interval = (f"{level_text(level)} CI: mean {used} (documents left out one at a time), pairs document-bootstrap "
                    f"percentile, B = {bootstrap}")
    title = (f"span agreement on {path.name}: {res.n_raters} annotators, match = {match}, by = {by}, "
             f"average = {average}, similarity = {measure}; {interval}")
    meta = {"file": str(path), **provenance_meta([path]), "match": match, "by": by, "average": average, "similarity": measure,
            "bootstrap": bootstrap, "level": level, "seed": seed, "value": res.value, "warnings": seen}
    tables = {"by_type": _type_rows(res), "by_document": _document_rows(res)}  # json holds every table
    if fmt == "json" or table == "pairs":
        emit(rows, _COLUMNS, fmt, title, meta, notes=Notes(seen), data_columns=_DATA_COLUMNS, extra=tables)
    elif table == "types":
        what = "per span type" if by == "type" else "all types together (--by all)"
        emit(tables["by_type"], _TYPE_COLUMNS, fmt, f"{title}; F1 {what}, mean over annotator pairs", meta,
             notes=Notes(seen), data_columns=(*_TYPE_COLUMNS[:-1], "ci_low", "ci_high"))
    else:
        emit(tables["by_document"], _DOCUMENT_COLUMNS, fmt, f"{title}; F1 per document, mean over annotator pairs",
             meta, notes=Notes(seen))
    if json_out:
        write_json(json_out, title, meta, rows, extra=tables)
