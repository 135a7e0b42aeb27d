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
"""

import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from softirr_stats.data._readers._common import (
    Rating,
    Where,
    decode,
    is_zip,
    iter_jsonl,
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


def _triples(labels: list[Any], item: str, where: Where, length: int | None = None) -> list[tuple[int, int, str]]:
    out = []
    for lab in labels:
        if isinstance(lab, dict):
            lab = [lab.get("start_offset"), lab.get("end_offset"), lab.get("label")]
        if not (isinstance(lab, list) and len(lab) == 3 and isinstance(lab[2], str | int)):
            raise ValueError(f"{where}: a span label must be [start, end, label] or an entity object; got {lab!r}")
        start, end = check_span(item, lab[0], lab[1], where, length)
        out.append((start, end, str(lab[2])))
    return out


def read_doccano(path: Path, *, label_key: str = "label", span_rule: SpanRule | str | None = None,
                 encoding: str = "utf-8") -> "list[Rating] | pd.DataFrame":
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
    """
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
                             if "start_offset" in a else str(a["label"]))
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
                                 for s, e, lab in _triples(labels, item, where, length))
                    continue
                bad = [x for x in labels if not isinstance(x, str | int) or isinstance(x, bool)]
                if bad:
                    raise ValueError(f"{where}: category labels must be strings; got {bad[0]!r}")
                ratings.append(Rating(item, rater, tuple(str(x) for x in labels) or None, where))
    if is_span:
        # examples a rater saw with an empty label list count as annotated, with no span
        for r in ratings:
            annotated.setdefault(r.item, set()).add(r.rater)
        return spans_to_ratings(spans, annotated, SpanRule.parse(span_rule))
    return ratings
