"""Prodigy JSONL (``prodigy db-out <dataset>``), several annotators in one dataset.

Follows Prodigy's documented task formats (prodi.gy/docs/api-interfaces: ``classification``,
``choice``, ``ner_manual`` / ``spans_manual``) and its multi-user sessions
(prodi.gy/docs/task-routing: ``_annotator_id`` / ``_session_id`` such as ``"news-alice"``):
each line is a task with ``_input_hash``, ``_task_hash``, ``answer`` (``"accept"``,
``"reject"`` or ``"ignore"``) and the annotator's session.

- rater: ``_annotator_id`` (any value, ``0`` included; else ``_session_id``).
- An annotator who answers the same question again (a new browser session, a reloaded
  page) follows ``duplicates=``: ``"last"`` (default; by ``_timestamp`` where the export has
  it, else file order), ``"first"``, or ``"error"``; kept repeats are counted in a warning,
  with how many changed the answer. ``"ignore"`` answers are left out before.
- Spans must end within the task's ``text``.
- ``task="binary"`` (an accept/reject question, e.g. ``textcat.teach`` with its ``label``, or
  ``ner.teach`` with one suggested span): item = ``_task_hash`` (one question: this text with
  this label or span), label = the answer, ``"accept"`` / ``"reject"``.
- ``task="choice"`` (``options`` + ``accept``): item = ``_input_hash``, label = the accepted
  option id(s) (several -> a set). ``multilabel=True`` keeps every label a set (one option a singleton),
  for a multiple-choice recipe whose answers all hold one option, as doccano's and Label Studio's readers do.
- ``task="spans"`` (``spans`` with ``start``, ``end``, ``label``): items by the span rule within
  each ``_input_hash`` document.
- ``"ignore"`` answers are left out with a warning; for choice and span tasks so are
  ``"reject"`` answers (the annotator rejected the example instead of answering).
  ``task="auto"`` picks choice when the first task has ``options``, spans for the
  ``ner_manual`` / ``spans_manual`` views (or, without ``_view_id``, a tokenised task without a
  top-level ``label``), binary otherwise.
"""

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from softirr_stats.data._readers import _common
from softirr_stats.data._readers._common import (
    FILE_RATER,
    Rating,
    Where,
    iter_jsonl,
    label_sets,
    pick_repeats,
    read_text,
    text_lines,
    warn_skipped,
)
from softirr_stats.data._readers._spans import Span, SpanRule, check_span, spans_to_ratings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_prodigy"]

_TASKS = ("auto", "binary", "choice", "spans")
_SPAN_VIEWS = {"ner_manual", "spans_manual"}


def _kind(rec: dict[str, Any]) -> str:
    if "options" in rec:
        return "choice"
    view = rec.get("_view_id")
    if view in _SPAN_VIEWS or (view is None and "tokens" in rec and "label" not in rec):
        return "spans"
    return "binary"


def _hash(rec: dict[str, Any], key: str, where: Where) -> str:
    h = rec.get(key)
    if h is None or isinstance(h, bool) or not isinstance(h, int | str):
        raise ValueError(f"{where}: task has no usable {key!r} (got {h!r})")
    return str(h)


def _rater(rec: dict[str, Any], where: Where) -> str:
    for key in ("_annotator_id", "_session_id"):
        who = rec.get(key)
        if who is not None and who != "" and not isinstance(who, bool) and isinstance(who, str | int):
            return str(who)
    named = FILE_RATER.get()
    if named is not None:  # one annotator's file, named after the file (rater_from="file")
        return named
    raise ValueError(f"{where}: task has no '_annotator_id' or '_session_id'; "
                     "annotate with named sessions (?session=NAME) to tell annotators apart, or read each "
                     "annotator's file in a list with rater_from='file' (the rater is named after the file)")


def read_prodigy(path: Path, *, task: Literal["auto", "binary", "choice", "spans"] = "auto",
                 span_rule: SpanRule | str | None = None, duplicates: str = "last",
                 encoding: str = "utf-8", multilabel: bool = False) -> "list[Rating] | pd.DataFrame":
    """Ratings from a Prodigy dataset export (see the module docstring).

    Parameters
    ----------
    path : Path of the JSONL file.
    task : {"auto", "binary", "choice", "spans"}
        What a task asks; ``"auto"`` decides from the first task.
    span_rule : SpanRule or str, optional
        How spans become items (default: exact spans).
    duplicates : {"last", "first", "error"}
        Which answer counts when an annotator answered the same question more than once.
    encoding : str
        Text encoding of the file.
    multilabel : bool
        Every accepted option a set (one option a singleton set), for a multiple-choice recipe
        (``choice_style="multiple"``, ``textcat.manual`` without ``--exclusive``) whose answers all happen to
        hold one option: by default such a file reads as single labels, as a single-choice recipe must.
        Choice tasks only: binary answers are refused, and so are spans.
    """
    import numpy as np
    import pandas as pd

    if task not in _TASKS:
        raise ValueError(f"task must be one of {list(_TASKS)}; got {task!r}")
    records: list[tuple[Where, dict[str, Any], str, str]] = []
    n = n_ignored = n_rejected = 0
    lines = text_lines(read_text(path, encoding))
    for where, rec in iter_jsonl(_common.progress(lines, total=len(lines), desc=f"reading {path.name}",
                                          nbytes=path.stat().st_size), path.name):
        n += 1
        if task == "auto":
            task = _kind(rec)  # type: ignore[assignment]
        rater = _rater(rec, where)
        answer = rec.get("answer")
        if answer not in ("accept", "reject", "ignore"):
            raise ValueError(f"{where}: 'answer' must be 'accept', 'reject' or 'ignore'; got {answer!r}")
        if answer == "ignore":
            n_ignored += 1
            continue
        key = _hash(rec, "_task_hash" if task == "binary" else "_input_hash", where)
        records.append((where, rec, rater, key))
    stamps = [r[1].get("_timestamp") for r in records]
    has_time = bool(records) and all(isinstance(t, int | float) and not isinstance(t, bool) for t in stamps)
    keys = pd.DataFrame({"item": [r[3] for r in records], "rater": [r[2] for r in records]}, dtype=object)
    answers = [(r[1].get("answer"), repr(r[1].get("accept")), repr(r[1].get("spans"))) for r in records]
    keep = pick_repeats(keys, np.asarray(stamps, dtype=float) if has_time else None, duplicates, path.name,
                        differs=answers, wheres=[r[0] for r in records])
    ratings: list[Rating] = []
    spans: list[Span] = []
    annotated: dict[str, set[str]] = {}
    for (where, rec, rater, key), kept in zip(records, keep, strict=True):
        if not kept:
            continue
        answer = rec["answer"]
        if task == "binary":
            ratings.append(Rating(key, rater, answer, where))
            continue
        if answer == "reject":
            n_rejected += 1
            continue
        if task == "choice":
            accepted = rec.get("accept", [])
            if not isinstance(accepted, list) or not all(isinstance(x, str | int) for x in accepted):
                raise ValueError(f"{where}: 'accept' must be a list of option ids; got {accepted!r}")
            ratings.append(Rating(key, rater, tuple(str(x) for x in accepted) or None, where))
            continue
        found = rec.get("spans", [])
        if not isinstance(found, list):
            raise ValueError(f"{where}: 'spans' must be a list; got {type(found).__name__}")
        text = rec.get("text")
        length = len(text) if isinstance(text, str) else None
        annotated.setdefault(key, set()).add(rater)
        for k, sp in enumerate(found, 1):
            if not isinstance(sp, dict) or not isinstance(sp.get("label"), str):
                raise ValueError(f"{where}: span {k} needs 'start', 'end' and a string 'label'; got {sp!r}")
            start, end = check_span(key, sp.get("start"), sp.get("end"), where, length)
            spans.append(Span(key, rater, start, end, sp["label"], where))
    warn_skipped(n_ignored, n, "answer 'ignore'", path.name)
    warn_skipped(n_rejected, n, f"answer 'reject' on {task} tasks", path.name)
    if task == "spans":
        table = spans_to_ratings(spans, annotated, SpanRule.parse(span_rule))
        return label_sets(table, path.name) if multilabel else table
    if multilabel and task == "binary":
        raise ValueError(f"{path.name}: multilabel=True reads the accepted options of choice tasks as sets; this "
                         "export holds binary answers ('accept' / 'reject' to one label or span, task='binary'): "
                         "leave out multilabel")
    return label_sets(ratings, path.name) if multilabel else ratings
