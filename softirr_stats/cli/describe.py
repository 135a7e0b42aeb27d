"""``softirr describe FILE...``: how the file was read (raters, items, labels), before any coefficient."""

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from softirr_stats.base._format import DISPLAY_CHARS, display_text, visible_text
from softirr_stats.cli._errors import fail
from softirr_stats.cli._options import (
    CategoriesOpt,
    FeatureOpt,
    FieldOpt,
    FormatOpt,
    InputFormatOpt,
    ItemOpt,
    JsonOpt,
    LabelOpt,
    LayerOpt,
    NaOpt,
    RaterOpt,
    ReaderOpt,
    SpanRuleOpt,
    check_choices,
    check_format,
    check_writable,
    read,
    reader_options,
)
from softirr_stats.cli._output import Notes, clean, emit, print_table, provenance_meta

__all__ = ["NAME", "EPILOG", "command"]

NAME = "describe"
EPILOG = ("Title: N items (M rated by every rater) = all items, and the complete ones (the only ones the ICCs and "
          "Kendall's W use, as do R irr's and statsmodels' kappas). "
          "Raters: items_rated = items the rater labelled (share = of all items); labels_used = distinct labels; "
          "top_label / top_share = the rater's most frequent label and its share of the rater's ratings. Labels: "
          "ratings of each label by each rater and in all, most used first. A label spelt two ways shows as two "
          "rows; a rater with few items, or a column read as a rater by mistake, shows in the first table.")
TABLES = ("raters", "labels")
_RATER_COLUMNS = ("rater", "items_rated", "share_of_items", "labels_used", "top_label", "top_share")
_HEADERS = {"items_rated": "items rated", "share_of_items": "share", "labels_used": "labels used",
            "top_label": "top label", "top_share": "top share"}


def _records(frame: Any) -> list[dict[str, Any]]:
    return [{str(k): v for k, v in r.items()} for r in frame.astype(object).where(frame.notna(), None)
            .to_dict("records")]


def _for_reading(rows: list[dict[str, Any]], columns: list[str], limit: int | None = DISPLAY_CHARS,
                 ) -> tuple[list[dict[str, Any]], list[str]]:
    """Rows and column names (rater names) as printed: texts from the file with their control characters
    escaped, so that a label cannot clear the screen, recolour the table or hide a link, and cut beyond
    ``limit`` characters (their length said; the tables for reading). JSON keeps the texts exact."""
    shown: dict[str, str] = {}
    for c in columns:
        name = display_text(c, limit)
        while name in shown.values():  # two long names alike in their first characters stay two columns
            name += "'"
        shown[c] = name
    out = [{shown.get(k, k): display_text(v, limit) if isinstance(v, str) else v for k, v in r.items()} for r in rows]
    return out, [shown[c] for c in columns]


def _numbers_as_text(rows: list[dict[str, Any]], column: str) -> list[dict[str, Any]]:
    """Rows with the numeric labels of ``column`` as text that tells distinct labels apart (an integer in full, a
    float exactly where ``%g`` would merge two), where a table's 4 decimals showed 0.12341 and 0.12342 alike.

    Examples
    --------
    >>> _numbers_as_text([{"label": 0.12341}, {"label": 1e-07}, {"label": 3}, {"label": None}], "label")
    [{'label': '0.12341'}, {'label': '1e-07'}, {'label': '3'}, {'label': None}]
    """
    import numbers

    from softirr_stats.cli._grid import _number

    return [{**r, column: _number(r[column])} if isinstance(r.get(column), numbers.Number)
            and not isinstance(r.get(column), bool) else r for r in rows]


def command(
    files: Annotated[list[Path], typer.Argument(help="annotation file(s), as agree takes them")],
    item: ItemOpt = "item",
    rater: RaterOpt = "rater",
    label: LabelOpt = "label",
    labels: Annotated[int, typer.Option(
        "--labels", help="how many labels the label table shows, most used first (0: every label)")] = 20,
    table: Annotated[str, typer.Option(
        "--table", help="with -f csv / markdown / latex, the table printed: raters or labels (table and json "
                        "show both)")] = "raters",
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
) -> None:
    """How FILE is read: each rater's ratings and the labels used, with the reading notes; nothing computed.

    The first check on your own export: a label spelt two ways, a rater who rated almost nothing, or a
    column read as a rater by mistake shows here before it turns into a coefficient.
    """
    check_format(fmt)
    check_choices([table], TABLES, "--table")
    if labels < 0:
        fail(f"--labels must be 0 (every label) or a positive number; got {labels}")
    check_writable(json_out, "--json", files)
    opts = reader_options(field, layer, feature, span_rule, reader_option)
    ann, notes = read(files, item, rater, label, na_values, input_format, opts, categories)
    raters = ann.describe()
    counts = ann.label_counts()
    shown = counts if labels == 0 else counts.head(labels)
    name = files[0].name if len(files) == 1 else f"{len(files)} files"
    complete = int((ann.ratings_per_item == ann.n_raters).sum())  # the items every rater labelled
    title = (f"{name}: {ann.n_items} items ({complete} rated by every rater), {ann.n_raters} raters, "
             f"{ann.n_ratings} ratings, {len(ann.vocabulary)} labels ({ann.kind})")
    rater_rows = _records(raters)
    label_rows = _records(shown.reset_index())
    label_columns = [str(c) for c in shown.reset_index().columns]  # label, the raters, all (renamed on a clash)
    meta = {"file": [str(f) for f in files] if len(files) > 1 else str(files[0]), "n_items": ann.n_items,
            "n_complete_items": complete, "n_raters": ann.n_raters, "n_ratings": ann.n_ratings,
            "n_labels": len(ann.vocabulary), "kind": ann.kind,
            "labels_shown": len(shown), **provenance_meta(files), "warnings": list(notes)}
    payload = {"title": title, "meta": {k: clean(v) for k, v in meta.items()},
               "raters": [{k: clean(v) for k, v in r.items()} for r in rater_rows],
               "labels": [{k: clean(v) for k, v in r.items()} for r in label_rows]}
    if json_out is not None:
        try:
            json_out.write_text(json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8")
        except OSError as err:
            fail(f"--json {json_out} cannot be written: {err.strerror or err}")
    notes = [visible_text(n) for n in notes]  # the notes quote names and labels from the file
    note_lines = Notes(notes, read=notes)
    if fmt == "json":
        typer.echo(json.dumps(payload, indent=2, default=str))
        from softirr_stats.cli._errors import say_read

        say_read(notes)
        return
    # printed texts: control characters escaped (csv too: a terminal acts on them, and a pipe would lose some),
    # long ones cut in the tables for reading; the json (above) keeps them exact
    limit = None if fmt == "csv" else DISPLAY_CHARS
    if ann.kind == "numeric":  # the labels printed exactly, not to the 4 decimals of a table's numbers
        rater_rows = _numbers_as_text(rater_rows, "top_label")
        label_rows = _numbers_as_text(label_rows, label_columns[0])
    title = visible_text(title)
    rater_rows, _ = _for_reading(rater_rows, list(_RATER_COLUMNS), limit)
    label_rows, label_columns = _for_reading(label_rows, label_columns, limit)
    if fmt == "table":
        print_table(rater_rows, _RATER_COLUMNS, title, _HEADERS)
        more = "" if len(shown) == len(counts) else f" ({len(shown)} most used of {len(counts)}; --labels 0 for all)"
        print_table(label_rows, label_columns, f"Ratings per label{more}", notes=note_lines,
                    secondary=list(reversed(label_columns[1:-1])))
        return
    if table == "raters":
        emit(rater_rows, _RATER_COLUMNS, fmt, title, meta, _HEADERS, note_lines)
    else:
        emit(label_rows, label_columns, fmt, f"{title}: ratings per label", meta, None, note_lines)
