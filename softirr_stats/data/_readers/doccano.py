"""doccano JSONL export, one file per annotator.

Follows doccano's export (its documentation's "Export Dataset" formats and the exporter in
``backend/data_export``): with collaborative annotation off, doccano exports a ``.zip`` holding
one ``<username>.jsonl`` per project member; each line is an example ``{"id", "text", ...meta,
"label": ...}``. The label is a list of category names (text classification), a list of
``[start, end, label]`` triples (sequence labelling), a list of strings (sequence to sequence),
or, in relation projects, ``"entities": [{"id", "label", "start_offset", "end_offset"}]``.
The older single-file export with ``"annotations": [{"label": ..., "user": ...}]`` per example is
read too (rater = the ``user`` value).

- item: the example ``id`` (``doc_id`` in the exports of 2018); rater: the file's stem (the
  username), or ``user`` in the old format, or ``username`` where each line names it.
- the text is ``text``, or ``data`` in the exports of doccano 1.4-1.5 (``{"id", "data",
  "label"}``); spans must end within it.
- label: the category (several categories -> a set); an empty list is a missing rating; spans
  become items by the span rule.
- The path may be the ``.zip``, the folder it was extracted to, or one ``.jsonl`` file of the
  old multi-user format. Unknown fields (``Comments``, ``meta`` keys) are ignored.
- Exports before doccano 1.2 write label *ids* (``"label": 7``), not names (doccano issues 113, 156,
  295): with ``label_names=`` (the project's label file, doccano's "Export labels": a JSON list of
  ``{"id", "text", ...}``, or a mapping id -> name) they are read as names; without it they are read as
  text (``"7"``) and an :class:`ExportWarning` says so.
"""

import warnings
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from softirr_stats.base._validation import user_stacklevel
from softirr_stats.data._readers._common import (
    ExportWarning,
    Rating,
    Where,
    decode,
    is_zip,
    iter_jsonl,
    label_sets,
    read_text,
    text_lines,
    zip_entries,
)
from softirr_stats.data._readers._spans import Span, SpanRule, check_span, spans_to_ratings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_doccano"]


def _sources(path: Path, encoding: str = "utf-8") -> list[tuple[str, str, list[str]]]:
    """(display name, rater, lines) for each JSONL file in a file, folder or zip."""
    if path.is_dir():
        files = sorted(p for p in path.rglob("*.jsonl") if p.is_file())
        if not files:
            raise ValueError(f"{path}: no .jsonl files in this folder (expected one <username>.jsonl per annotator)")
        return [(str(p.relative_to(path)), p.stem, text_lines(read_text(p, encoding, str(p.relative_to(path)))))
                for p in files]
    if is_zip(path):
        out = []
        with zipfile.ZipFile(path) as zf:
            for info in sorted(zip_entries(zf, path.name, lambda n: n.endswith(".jsonl")), key=lambda i: i.filename):
                name = info.filename
                text = decode(zf.read(info), f"{path.name}:{name}", encoding)
                out.append((f"{path.name}:{name}", Path(name).stem, text_lines(text)))
        if not out:
            raise ValueError(f"{path.name}: the archive holds no .jsonl files")
        return out
    return [(path.name, path.stem, text_lines(read_text(path, encoding)))]


def _item(rec: dict[str, Any], where: Where) -> str:
    ident = rec.get("id", rec.get("doc_id"))
    if ident is None or isinstance(ident, bool) or not isinstance(ident, int | str):
        raise ValueError(f"{where}: example has no usable 'id' (got {ident!r}); export it with its id")
    return str(ident)


def load_label_names(spec: Any) -> dict[str, str]:
    """doccano's label ids -> names, from its label file (a JSON list of ``{"id", "text", ...}``, "Export
    labels" on the project's label page), a JSON object ``{"7": "ORG"}``, or a mapping.

    Two ids of one name are refused (their labels would merge), as are entries without a usable id or name.

    Examples
    --------
    >>> load_label_names({7: "ORG", "8": "PER"})
    {'7': 'ORG', '8': 'PER'}
    >>> import json, pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "labels.json"
    >>> _ = path.write_text(json.dumps([{"id": 1, "text": "negative", "suffix_key": "n"},
    ...                                 {"id": 2, "text": "positive", "suffix_key": "p"}]))
    >>> load_label_names(str(path))
    {'1': 'negative', '2': 'positive'}
    """
    import json

    shown = "label_names"
    if isinstance(spec, str | Path):
        path = Path(spec)
        if not path.is_file():
            raise FileNotFoundError(f"label_names: no file {str(path)!r} (doccano's label file: Labels > Export "
                                    "labels, a JSON list of {\"id\", \"text\", ...})")
        shown = path.name
        data = path.read_bytes()
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError:  # its own advice: encoding= would change how the export is read
            raise ValueError(f"{shown}: the label file is not UTF-8 text; re-save it as UTF-8 (doccano writes "
                             "UTF-8)") from None
        try:
            spec = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"{shown}: not JSON ({err}); label_names= takes doccano's label file (a JSON list of "
                             "{\"id\", \"text\", ...}) or a JSON object {\"id\": \"name\"}") from None
    if isinstance(spec, list):
        bad = next((e for e in spec if not (isinstance(e, dict) and _usable_id(e.get("id"))
                                            and isinstance(e.get("text"), str) and e["text"])), None)
        if bad is not None:
            raise ValueError(f"{shown}: each label needs an integer or text 'id' and a non-empty 'text' (doccano's "
                             f"label file); got {bad!r}")
        pairs = [(str(e["id"]), e["text"]) for e in spec]
    elif isinstance(spec, dict):
        bad = next(((k, v) for k, v in spec.items() if not (_usable_id(k) and isinstance(v, str) and v)), None)
        if bad is not None:
            raise ValueError(f"{shown}: each entry must map a label id to a non-empty name; got {bad[0]!r}: {bad[1]!r}")
        pairs = [(str(k), v) for k, v in spec.items()]
    else:
        raise TypeError(f"label_names must be a path to doccano's label file, a JSON list of {{\"id\", \"text\"}} or "
                        f"a mapping id -> name; got {type(spec).__name__}")
    out: dict[str, str] = {}
    for ident, name in pairs:
        if ident in out:
            raise ValueError(f"{shown}: label id {ident!r} is listed twice ({out[ident]!r} and {name!r})")
        out[ident] = name
    names = sorted(out.values())
    twice = sorted({n for a, n in zip(names, names[1:], strict=False) if a == n})
    if twice:
        ids = [i for i, n in out.items() if n == twice[0]]
        raise ValueError(f"{shown}: ids {ids} share the name {twice[0]!r}; their labels would be merged: give each "
                         "label its own name")
    if not out:
        raise ValueError(f"{shown}: no labels in label_names")
    return out


def _usable_id(x: Any) -> bool:
    return (isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, str) and bool(x.strip()))


class _Labels:
    """A label as read (a name, or one of doccano's numeric ids) -> its name; remembers the ids seen without
    ``label_names`` for the read note."""

    def __init__(self, names: dict[str, str] | None) -> None:
        self.names = names
        self.ids: set[int] = set()

    def __call__(self, label: Any, where: Where) -> str:
        if self.names is None:
            if isinstance(label, int) and not isinstance(label, bool):
                self.ids.add(label)
            return str(label)
        try:
            return self.names[str(label)]
        except KeyError:
            shown = sorted(self.names, key=lambda k: (len(k), k))
            raise ValueError(f"{where}: label {label!r} is not an id of label_names (ids: "
                             f"{', '.join(shown[:12])}{', ...' if len(shown) > 12 else ''}); was the label file "
                             "exported from another project?") from None

    def note(self, source: str) -> list[str]:  # the warning, where numbers were read as labels
        if not self.ids:
            return []
        ids = sorted(self.ids)
        shown = ", ".join(map(str, ids[:8])) + (", ..." if len(ids) > 8 else "")
        return [f"{source}: the labels are numbers ({shown}): doccano's label ids (exports before doccano 1.2), read "
                "as text (the same numbers, so exact agreement holds, but a soft measure compares digits); pass label_names= with the project's label file (Labels > Export labels in doccano; "
                "--reader-option label_names=FILE) to read their names"]


def _triples(labels: list[Any], item: str, where: Where, length: int | None = None,
             name: Any = None) -> list[tuple[int, int, str]]:
    name = name or (lambda lab, _: str(lab))
    out = []
    for lab in labels:
        if isinstance(lab, dict):
            lab = [lab.get("start_offset"), lab.get("end_offset"), lab.get("label")]
        if not (isinstance(lab, list) and len(lab) == 3 and isinstance(lab[2], str | int)
                and not isinstance(lab[2], bool)):
            raise ValueError(f"{where}: a span label must be [start, end, label] or an entity object; got {lab!r}")
        start, end = check_span(item, lab[0], lab[1], where, length)
        out.append((start, end, name(lab[2], where)))
    return out


def read_doccano(path: Path, *, label_key: str = "label", span_rule: SpanRule | str | None = None,
                 encoding: str = "utf-8", label_names: Any = None,
                 multilabel: bool = False) -> "list[Rating] | pd.DataFrame":
    """Ratings from a doccano per-user export (see the module docstring).

    Parameters
    ----------
    path : Path of the ``.zip``, its extracted folder, or an old-format ``.jsonl``.
    label_key : str
        The label column name chosen at export (doccano's default ``"label"``).
    span_rule : SpanRule or str, optional
        How sequence-labelling spans become items (default: exact spans).
    encoding : str
        Text encoding of the files.
    label_names : path, JSON list or mapping, optional
        doccano's label ids -> names (:func:`load_label_names`), for exports that write ids
        (before doccano 1.2); every label must then be one of its ids.
    multilabel : bool
        Every label a set (a one-label answer a singleton set), for a multi-label project whose answers
        all happen to hold one label: doccano writes a list either way, so by default such a file reads
        as single labels, as a single-label project must.

    Numeric labels read without ``label_names`` raise an :class:`ExportWarning` that says so.
    """
    label_of = _Labels(None if label_names is None else load_label_names(label_names))
    ratings: list[Rating] = []
    spans: list[Span] = []
    annotated: dict[str, set[str]] = {}
    is_span: bool | None = None
    for name, file_rater, lines in _sources(path, encoding):
        for where, rec in iter_jsonl(lines, name):
            item = _item(rec, where)
            text = rec.get("text", rec.get("data"))
            length = len(text) if isinstance(text, str) else None
            who = file_rater
            if isinstance(rec.get("username"), str | int) and not isinstance(rec.get("username"), bool):
                who = str(rec["username"])
            key = label_key
            if key not in rec and key == "label" and "labels" in rec:
                key = "labels"  # the exports of 2018-2021 ("JSONL (text label)")
            if isinstance(rec.get("annotations"), list) and key not in rec:
                cells = []
                for k, a in enumerate(rec["annotations"], 1):
                    if not isinstance(a, dict) or "user" not in a or "label" not in a:
                        raise ValueError(f"{where}: annotation {k} needs 'user' and 'label'; got {a!r}")
                    cells.append((str(a["user"]), a))
                by_user: dict[str, list[Any]] = {}
                for user, a in cells:
                    entry = ([a.get("start_offset"), a.get("end_offset"), a["label"]]
                             if "start_offset" in a else a["label"])
                    by_user.setdefault(user, []).append(entry)
                groups = list(by_user.items())
            elif "entities" in rec and key not in rec:
                groups = [(who, rec["entities"])]
            elif key in rec:
                groups = [(who, rec[key])]
            else:
                raise ValueError(f"{where}: example has no {key!r}, 'entities' or 'annotations' field "
                                 f"(keys: {sorted(rec)}); pass label_key= if the export renamed it")
            for rater, labels in groups:
                if not isinstance(labels, list):
                    labels = [labels]
                spanlike = bool(labels) and all(isinstance(x, list | dict) for x in labels)
                if labels and is_span is not None and spanlike != is_span:
                    raise ValueError(f"{where}: mixes span labels and category labels across examples")
                if labels:
                    is_span = spanlike
                if spanlike:
                    annotated.setdefault(item, set()).add(rater)
                    spans.extend(Span(item, rater, s, e, lab, where)
                                 for s, e, lab in _triples(labels, item, where, length, label_of))
                    continue
                bad = [x for x in labels if not isinstance(x, str | int) or isinstance(x, bool)]
                if bad:
                    raise ValueError(f"{where}: category labels must be strings; got {bad[0]!r}")
                ratings.append(Rating(item, rater, tuple(label_of(x, where) for x in labels) or None, where))
    for note in label_of.note(path.name):
        warnings.warn(note, ExportWarning, stacklevel=user_stacklevel())
    if is_span:
        # examples a rater saw with an empty label list count as annotated, with no span
        for r in ratings:
            annotated.setdefault(r.item, set()).add(r.rater)
        table = spans_to_ratings(spans, annotated, SpanRule.parse(span_rule))
        return label_sets(table, path.name) if multilabel else table
    return label_sets(ratings, path.name) if multilabel else ratings
