"""Label Studio JSON export (``Export -> JSON``): a list of tasks with their annotations.

Follows the task format of the Label Studio documentation ("Label Studio JSON format of
annotated tasks", labelstud.io/guide/task_format, and the per-tag result formats under
labelstud.io/tags): each task has ``id``, ``data`` and ``annotations``; each annotation has
``completed_by`` (a user id, or a user object in some versions), ``was_cancelled`` and a
``result`` list whose entries carry ``from_name`` (the control tag), ``type`` and ``value``.

- item: the task ``id``; rater: ``completed_by`` (its ``email``, else its ``id``, when it is
  an object); one rater per annotation.
- label, by result type: ``choices`` -> the chosen value(s); ``taxonomy`` -> each selected path
  joined with ``taxonomy_sep`` (``"Animal / Cat"``); ``textarea`` -> the lines joined with a
  newline; ``rating`` / ``number`` -> the number; ``labels`` (text spans) -> items by the span
  rule, the span's label (several labels on one span are joined with ``|``).
- Exports of Label Studio before 1.0 name the annotations ``completions``; they are read alike,
  and so is a file holding one task object instead of a list.
- ``textarea="set"`` reads a textarea with several entries as a set-valued label (default
  ``"join"``: the entries joined by newlines, one string).
- The same annotator annotating a task twice follows ``duplicates=`` (``"last"`` by
  ``updated_at`` / ``created_at`` where present, ``"first"``, ``"error"``), with a counted warning.
- A span must end within the task's text (``data[to_name]``) where the task holds it.

The flat exports are read too (``Export -> JSON-MIN`` and ``CSV``; label-studio-converter's
``json_min`` / ``csv``): one record / row per annotation with the task ``id``, ``annotator``
(the user's email or id), ``annotation_id``, time stamps, the task's data fields and one
key / column per control. A single choice is a plain string there, several a
``{"choices": [...]}`` object, spans a list of ``{"start", "end", "labels"}``; CSV cells holding
JSON are decoded, and a column is numeric by the rule of ``data._labels.text_numbers``. As data fields and
controls are not told apart in these files, ``field=`` is needed unless only one candidate
column remains.
- Two tasks that share an id (exports of two projects concatenated) are refused: in the JSON export where
  their ``data`` differ, in JSON-MIN / CSV where two records of one id differ in every plain field both hold
  besides Label Studio's own and the control read (:func:`_other_task`).
- An annotation with no result for the control is a missing rating; cancelled (skipped)
  annotations are left out with a warning; ``predictions`` (model output) are not raters and
  are ignored, as are unknown fields.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Any

from softirr_stats.base._format import clipped_repr
from softirr_stats.data._readers import _common
from softirr_stats.data._readers._common import (
    FILE_RATER,
    Rating,
    Where,
    check_choice,
    check_number,
    label_sets,
    load_json,
    parse_json,
    pick_repeats,
    read_text,
    warn_skipped,
)
from softirr_stats.data._readers._spans import Span, SpanRule, check_span, spans_to_ratings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_label_studio"]

_VALUE_KEY = {"choices": "choices", "taxonomy": "taxonomy", "textarea": "text", "rating": "rating",
              "number": "number", "labels": "labels"}


def _rater(completed_by: Any, where: Where) -> str:
    if isinstance(completed_by, dict):
        who = completed_by.get("email") or completed_by.get("id")
    else:
        who = completed_by
    if who is None or isinstance(who, bool) or not isinstance(who, int | str) or who == "":
        named = FILE_RATER.get()
        if named is not None and completed_by is None:  # one annotator's file (rater_from="file")
            return named
        raise ValueError(f"{where}: annotation has no usable 'completed_by' (got {completed_by!r})")
    return str(who)


def _annotations_of(task: dict[str, Any]) -> Any:
    """The task's annotations (``completions`` in exports of Label Studio before 1.0)."""
    return task["annotations"] if "annotations" in task else task.get("completions", [])


def _fields(tasks: list[Any]) -> dict[str, str]:
    """from_name -> result type over every supported result in the export."""
    found: dict[str, str] = {}
    for task in tasks:
        anns = _annotations_of(task) if isinstance(task, dict) else None
        for ann in anns if isinstance(anns, list) else ():
            results = ann.get("result") if isinstance(ann, dict) else None
            for res in results if isinstance(results, list) else ():
                if isinstance(res, dict) and res.get("type") in _VALUE_KEY and "from_name" in res:
                    found.setdefault(str(res["from_name"]), res["type"])
    return found


def _label(res: dict[str, Any], kind: str, sep: str, where: Where, textarea: str = "join") -> Any:
    value = res.get("value")
    key = _VALUE_KEY[kind]
    if not isinstance(value, dict) or key not in value:
        raise ValueError(f"{where}: a {kind!r} result needs value.{key}; got value={value!r}")
    v = value[key]
    if kind == "choices":
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ValueError(f"{where}: value.choices must be a list of strings; got {v!r}")
        return tuple(v) if v else None
    if kind == "taxonomy":
        if not isinstance(v, list) or not all(isinstance(p, list) and all(isinstance(x, str) for x in p) for p in v):
            raise ValueError(f"{where}: value.taxonomy must be a list of paths (lists of strings); got {v!r}")
        return tuple(sep.join(p) for p in v) if v else None
    if kind == "textarea":
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ValueError(f"{where}: value.text must be a list of strings; got {v!r}")
        if textarea == "set":
            return tuple(dict.fromkeys(v)) if v else None
        return "\n".join(v) if v else None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(f"{where}: value.{key} must be a number; got {v!r}")
    return check_number(v, where, f"value.{key}")


_TEXTAREA = ("join", "set")
#: keys of a JSON-MIN record / CSV column that are not controls
_MIN_META = {"id", "annotator", "annotation_id", "created_at", "updated_at", "lead_time", "agreement",
             "drafts", "predictions", "meta", "file_upload", "inner_id", "total_annotations",
             "cancelled_annotations", "total_predictions", "project", "updated_by", "comment_count",
             "unresolved_comment_count", "last_comment_updated_at", "comment_authors", "data"}


def _text_of(task: dict[str, Any], to_name: Any) -> int | None:
    data = task.get("data")
    if isinstance(data, dict) and isinstance(data.get(to_name), str):
        return len(data[to_name])
    return None


def _tasks(path: Path, encoding: str) -> list[Any]:
    """The task list of a JSON export (a single task object is a list of one)."""
    tasks = load_json(path, encoding)
    if isinstance(tasks, dict) and isinstance(tasks.get("annotations", tasks.get("completions")), list):
        tasks = [tasks]
    if not isinstance(tasks, list):
        raise ValueError(f"{path.name}: a Label Studio JSON export is a list of tasks; got {type(tasks).__name__}")
    return tasks


def _is_min(tasks: list[Any]) -> bool:
    dicts = [t for t in tasks if isinstance(t, dict)]
    return bool(dicts) and not any("annotations" in t or "completions" in t for t in dicts) and \
        any("annotator" in t or "annotation_id" in t for t in dicts)


def _csv_records(path: Path, encoding: str) -> list[dict[str, Any]]:
    """Rows of a Label Studio CSV export as JSON-MIN-like records (JSON cells decoded)."""
    import io

    import pandas as pd

    text = read_text(path, encoding)
    head = text.split("\n", 1)[0]
    sep = "\t" if head.count("\t") > head.count(",") else ","
    df = pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False)
    records = []
    for r, row in enumerate(df.to_dict("records"), 2):
        rec: dict[str, Any] = {}
        for key, cell in row.items():
            if cell == "":
                continue
            if cell[:1] in "[{" and _is_json(cell):  # a text such as '[deleted] rude' stays a text
                cell = parse_json(cell, f"{path.name}, row {r}, column {key!r}")
            rec[key] = cell
        records.append(rec)
    return records


def _is_json(cell: str) -> bool:
    """Whether a CSV cell is JSON (a syntax error is a text; numbers out of range are JSON that
    :func:`parse_json` refuses by name)."""
    import json

    try:
        json.loads(cell)
    except json.JSONDecodeError:
        return False
    except (ValueError, RecursionError):
        return True
    return True


def _min_label(value: Any, where: Where, sep: str, textarea: str) -> tuple[str, Any]:
    """(kind, label) of one JSON-MIN / CSV control value (label-studio-converter's ``prettify_result``:
    one choice / one text line as it is, else the list of result values)."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], dict) and "start" not in value[0]:
        value = value[0]
    if isinstance(value, dict):
        for kind in ("choices", "taxonomy"):
            if kind in value:
                return kind, _label({"value": value}, kind, sep, where)
        if "text" in value:
            return "textarea", _label({"value": value}, "textarea", sep, where, textarea)
        for kind in ("rating", "number"):
            if kind in value:
                return kind, _label({"value": value}, kind, sep, where)
        raise ValueError(f"{where}: cannot read control value {value!r}")
    if isinstance(value, list) and value and all(isinstance(v, dict) and "start" in v for v in value):
        return "labels", value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        if textarea == "join":
            return "list", "\n".join(value) if value else None
        return "list", tuple(dict.fromkeys(value)) if value else None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"{where}: cannot read control value {value!r}")
    return "value", check_number(value, where, "value")


def _task_data(rec: dict[str, Any], field: str) -> dict[str, Any]:
    """The fields of a JSON-MIN / CSV record that may be its task's data: neither Label Studio's own nor the
    control read, and a plain value (a control with several values, a region list, is an object or a list)."""
    return {k: v for k, v in rec.items() if k not in _MIN_META and k != field and not isinstance(v, dict | list)}


def _other_task(data: dict[str, Any], first: dict[str, Any]) -> tuple[str, Any, Any] | None:
    """(field, first value, this value) where a record's task data (:func:`_task_data`) show another task than
    the first record of its id: every field both hold differs. Data fields and controls are not told apart in
    these files, and one task's annotators may differ in a second control (a single choice is a plain string,
    as a text is), but never in its data: a field that agrees says one task.

    Examples
    --------
    >>> _other_task({"text": "b", "topic": "x"}, {"text": "a", "topic": "y"})
    ('text', 'a', 'b')
    >>> _other_task({"text": "a", "topic": "x"}, {"text": "a", "topic": "y"}) is None
    True
    """
    shared = sorted(k for k in data if k in first)
    if not shared or any(data[k] == first[k] for k in shared):
        return None
    return shared[0], first[shared[0]], data[shared[0]]


def _read_min(path: Path, records: list[Any], field: str | None, taxonomy_sep: str, textarea: str,
              duplicates: str, span_rule: Any) -> Any:
    import pandas as pd

    dicts = [r for r in records if isinstance(r, dict)]
    if len(dicts) != len(records):
        raise ValueError(f"{path.name}: each JSON-MIN record must be a JSON object")
    candidates = sorted({k for r in dicts for k in r} - _MIN_META)
    if field is None:
        if len(candidates) != 1:
            raise ValueError(f"{path.name}: a JSON-MIN / CSV export mixes the task's data fields and the controls "
                             f"{candidates}; pass field= the control's name")
        field = candidates[0]
    if field not in candidates:
        raise ValueError(f"field must be one of {candidates} (a control's name); got {field!r}")
    unit = "record" if path.suffix.lower() == ".json" else "row"
    rows: list[Rating] = []
    spans: list[Span] = []
    annotated: dict[str, set[str]] = {}
    stamps = []
    data_of: dict[str, tuple[int, dict[str, Any]]] = {}  # each task id's first record (number, task data)
    for k, rec in enumerate(dicts, 1 if unit == "record" else 2):
        where = Where(path.name, k, unit)
        if "id" not in rec:
            raise ValueError(f"{where}: record has no task 'id'")
        item = str(rec["id"])
        first = data_of.setdefault(item, (k, _task_data(rec, field)))
        differ = _other_task(_task_data(rec, field), first[1]) if first[0] != k else None
        if differ is not None:  # two tasks, one id (exports concatenated): not one item
            name, was, now = differ
            raise ValueError(f"{where}: task id {rec['id']!r} is also the id of {unit} {first[0]} in {path.name}, "
                             f"whose data differ ({name} {clipped_repr(was)} and {clipped_repr(now)}): two different tasks "
                             "share an id (exports of two projects concatenated?), and their annotations would be "
                             "merged as one item's; give them distinct ids, or read the exports one by one")
        who = rec.get("annotator")
        if (who is None or who == "") and FILE_RATER.get() is not None:  # rater_from="file"
            who = FILE_RATER.get()
        if who is None or who == "":
            raise ValueError(f"{where}: record has no 'annotator'")
        rater = str(who)
        if field not in rec:
            rows.append(Rating(item, rater, None, where))
            stamps.append(rec.get("updated_at") or rec.get("created_at"))
            continue
        kind, label = _min_label(rec[field], where, taxonomy_sep, textarea)
        if kind == "labels":
            annotated.setdefault(item, set()).add(rater)
            text = rec.get("text") if isinstance(rec.get("text"), str) else None
            for v in label:
                start, end = check_span(item, v.get("start"), v.get("end"), where, len(text) if text else None)
                labs = v.get("labels")
                if not isinstance(labs, list) or not labs:
                    raise ValueError(f"{where}: a span needs 'labels', a list of strings; got {labs!r}")
                spans.append(Span(item, rater, start, end, "|".join(map(str, labs)), where))
            continue
        rows.append(Rating(item, rater, label, where))
        stamps.append(rec.get("updated_at") or rec.get("created_at"))
    if spans:
        for r in rows:  # annotators who marked no span in a task
            annotated.setdefault(r.item, set()).add(r.rater)
        return spans_to_ratings(spans, annotated, SpanRule.parse(span_rule))
    df = pd.DataFrame({"item": [r.item for r in rows], "rater": [r.rater for r in rows]}, dtype=object)
    order = stamps if all(isinstance(t, str) for t in stamps) else None
    keep = pick_repeats(df, order, duplicates, path.name, "annotations", differs=[repr(r.label) for r in rows],
                        wheres=[r.where for r in rows])
    rows = [r for r, k in zip(rows, keep, strict=True) if k]
    if unit == "row":  # a CSV column is numeric by the one rule of every text table (data._labels)
        from softirr_stats.data._labels import text_numbers

        present = [r.label for r in rows if r.label is not None]
        if present and all(isinstance(x, str) for x in present):
            distinct = list(dict.fromkeys(present))
            values = text_numbers(distinct)
            if values is not None:
                conv = dict(zip(distinct, values.tolist(), strict=True))
                rows = [Rating(r.item, r.rater, conv.get(r.label), r.where) for r in rows]
    return rows


def read_label_studio(path: Path, *, field: str | None = None, taxonomy_sep: str = " / ",
                      span_rule: SpanRule | str | None = None, textarea: str = "join", duplicates: str = "last",
                      encoding: str = "utf-8", multilabel: bool = False) -> "list[Rating] | pd.DataFrame":
    """Ratings from a Label Studio export: JSON, JSON-MIN or CSV (see the module docstring).

    Parameters
    ----------
    path : Path of the ``.json`` (or ``.csv``) export.
    field : str, optional
        The control tag (``from_name``) to read; needed when the export has several.
    taxonomy_sep : str
        Joins the levels of a taxonomy path.
    span_rule : SpanRule or str, optional
        How ``labels`` spans become items (default: exact spans).
    textarea : {"join", "set"}
        A textarea's entries as one string joined by newlines, or as a set-valued label.
    duplicates : {"last", "first", "error"}
        Which annotation counts when one annotator annotated a task more than once.
    encoding : str
        Text encoding of the file.
    multilabel : bool
        Every label a set (one choice a singleton set), for a multi-label control (``choice="multiple"``)
        whose answers all happen to hold one choice: by default such a file reads as single labels, as
        a single-choice control must.
    """
    out = _read_label_studio(path, field, taxonomy_sep, span_rule, textarea, duplicates, encoding)
    return label_sets(out, path.name) if multilabel else out


def _read_label_studio(path: Path, field: str | None, taxonomy_sep: str, span_rule: SpanRule | str | None,
                       textarea: str, duplicates: str, encoding: str) -> "list[Rating] | pd.DataFrame":
    textarea = check_choice("textarea", textarea, _TEXTAREA)
    if path.suffix.lower() in (".csv", ".tsv"):
        return _read_min(path, _csv_records(path, encoding), field, taxonomy_sep, textarea, duplicates, span_rule)
    tasks = _tasks(path, encoding)
    if _is_min(tasks):
        return _read_min(path, tasks, field, taxonomy_sep, textarea, duplicates, span_rule)
    fields = _fields(tasks)
    if not fields:
        other = sorted({str(r.get("type")) for t in tasks if isinstance(t, dict)
                        for a in (_annotations_of(t) if isinstance(_annotations_of(t), list) else [])
                        if isinstance(a, dict) for r in (a.get("result") or []) if isinstance(r, dict)})
        raise ValueError(f"{path.name}: no choices / taxonomy / textarea / rating / number / labels results found"
                         + (f" (result types {other} are not read: regions of images, audio ...)" if other else ""))
    if field is None:
        if len(fields) > 1:
            raise ValueError(f"{path.name}: several controls were annotated {sorted(fields)}; pass field= one of them")
        field = next(iter(fields))
    if field not in fields:
        raise ValueError(f"field must be one of {sorted(fields)} (the from_name of a control); got {field!r}")
    kind = fields[field]
    ratings: list[Rating] = []
    stamps: list[Any] = []
    spans: list[Span] = []
    annotated: dict[str, set[str]] = {}
    n_ann = n_cancelled = 0
    data_of: dict[str, tuple[int, Any]] = {}  # each task id's first task (number, data)
    for t, task in enumerate(_common.progress(tasks, total=len(tasks), desc=f"reading {path.name}",
                                      nbytes=path.stat().st_size), 1):
        where_t = Where(path.name, t, "task")
        if not isinstance(task, dict):
            raise ValueError(f"{where_t}: each task must be a JSON object; got {type(task).__name__}")
        if "id" not in task or isinstance(task["id"], bool) or not isinstance(task["id"], int | str):
            raise ValueError(f"{where_t}: task has no usable 'id' (got {task.get('id')!r})")
        item = str(task["id"])
        first = data_of.setdefault(item, (t, task.get("data")))
        if first[0] != t and first[1] != task.get("data"):  # two tasks, one id (exports concatenated): not one item
            raise ValueError(f"{where_t}: task id {task['id']!r} is also the id of task {first[0]} in {path.name}, "
                             "whose data differ: two different tasks share an id (exports of two projects "
                             "concatenated?), and their annotations would be merged as one item's; give them "
                             "distinct ids, or read the exports one by one")
        anns = _annotations_of(task)
        if not isinstance(anns, list):
            raise ValueError(f"{where_t}: 'annotations' must be a list; got {type(anns).__name__}")
        for a, ann in enumerate(anns, 1):
            where = Where(path.name, t, f"annotation {a} of task")
            if not isinstance(ann, dict):
                raise ValueError(f"{where}: each annotation must be a JSON object; got {type(ann).__name__}")
            n_ann += 1
            if ann.get("was_cancelled"):
                n_cancelled += 1
                continue
            rater = _rater(ann.get("completed_by"), where)
            result = ann.get("result") or []
            if not isinstance(result, list):
                raise ValueError(f"{where}: 'result' must be a list; got {type(result).__name__}")
            results = [r for r in result if isinstance(r, dict) and r.get("from_name") == field]
            if kind == "labels":
                annotated.setdefault(item, set()).add(rater)
                for r in results:
                    value = r.get("value") or {}
                    start, end = check_span(item, value.get("start"), value.get("end"), where,
                                            _text_of(task, r.get("to_name")))
                    labs = value.get("labels")
                    if not isinstance(labs, list) or not labs or not all(isinstance(x, str) for x in labs):
                        raise ValueError(f"{where}: a labels result needs value.labels, a list of strings; got {labs!r}")
                    spans.append(Span(item, rater, start, end, "|".join(labs), where))
                continue
            if len(results) > 1:
                raise ValueError(f"{where}: {len(results)} results for control {field!r}; expected at most one")
            label = _label(results[0], kind, taxonomy_sep, where, textarea) if results else None
            ratings.append(Rating(item, rater, label, where))
            stamps.append(ann.get("updated_at") or ann.get("created_at"))
    warn_skipped(n_cancelled, n_ann, "cancelled / skipped annotations", path.name)
    if kind == "labels":
        return spans_to_ratings(spans, annotated, SpanRule.parse(span_rule))
    import pandas as pd

    keys = pd.DataFrame({"item": [r.item for r in ratings], "rater": [r.rater for r in ratings]}, dtype=object)
    order = stamps if all(isinstance(t, str) for t in stamps) else None
    keep = pick_repeats(keys, order, duplicates, path.name, "annotations", differs=[repr(r.label) for r in ratings],
                        wheres=[r.where for r in ratings])
    return [r for r, k in zip(ratings, keep, strict=True) if k]
