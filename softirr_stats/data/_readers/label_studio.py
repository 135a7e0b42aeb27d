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
- Exports of Label Studio before 1.0 name the annotations ``completions``; they are read alike.
- An annotation with no result for the control is a missing rating; cancelled (skipped)
  annotations are left out with a warning; ``predictions`` (model output) are not raters and
  are ignored, as are unknown fields.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Any

from softirr_stats.data._readers._common import Rating, Where, load_json, warn_skipped
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


def _label(res: dict[str, Any], kind: str, sep: str, where: Where) -> Any:
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
        return "\n".join(v) if v else None
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(f"{where}: value.{key} must be a number; got {v!r}")
    return v


def read_label_studio(path: Path, *, field: str | None = None, taxonomy_sep: str = " / ",
                      span_rule: SpanRule | None = None) -> "list[Rating] | pd.DataFrame":
    """Ratings from a Label Studio JSON export (see the module docstring for the mapping).

    Parameters
    ----------
    path : Path of the ``.json`` export.
    field : str, optional
        The control tag (``from_name``) to read; needed when the export has several.
    taxonomy_sep : str
        Joins the levels of a taxonomy path.
    span_rule : SpanRule, optional
        How ``labels`` spans become items (default: exact spans).
    """
    tasks = load_json(path)
    if not isinstance(tasks, list):
        raise ValueError(f"{path.name}: a Label Studio JSON export is a list of tasks; got {type(tasks).__name__}")
    fields = _fields(tasks)
    if not fields:
        raise ValueError(f"{path.name}: no choices / taxonomy / textarea / rating / number / labels results found")
    if field is None:
        if len(fields) > 1:
            raise ValueError(f"{path.name}: several controls were annotated {sorted(fields)}; pass field= one of them")
        field = next(iter(fields))
    if field not in fields:
        raise ValueError(f"field must be one of {sorted(fields)} (the from_name of a control); got {field!r}")
    kind = fields[field]
    ratings: list[Rating] = []
    spans: list[Span] = []
    annotated: dict[str, set[str]] = {}
    n_ann = n_cancelled = 0
    for t, task in enumerate(tasks, 1):
        where_t = Where(path.name, t, "task")
        if not isinstance(task, dict):
            raise ValueError(f"{where_t}: each task must be a JSON object; got {type(task).__name__}")
        if "id" not in task or isinstance(task["id"], bool) or not isinstance(task["id"], int | str):
            raise ValueError(f"{where_t}: task has no usable 'id' (got {task.get('id')!r})")
        item = str(task["id"])
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
                    start, end = check_span(item, value.get("start"), value.get("end"), where)
                    labs = value.get("labels")
                    if not isinstance(labs, list) or not labs or not all(isinstance(x, str) for x in labs):
                        raise ValueError(f"{where}: a labels result needs value.labels, a list of strings; got {labs!r}")
                    spans.append(Span(item, rater, start, end, "|".join(labs), where))
                continue
            if len(results) > 1:
                raise ValueError(f"{where}: {len(results)} results for control {field!r}; expected at most one")
            label = _label(results[0], kind, taxonomy_sep, where) if results else None
            ratings.append(Rating(item, rater, label, where))
    warn_skipped(n_cancelled, n_ann, "cancelled / skipped annotations", path.name)
    if kind == "labels":
        return spans_to_ratings(spans, annotated, span_rule or SpanRule())
    return ratings
