"""From span annotations to items: the exact-span and the overlap (Hungarian) rules.

Span annotations (brat, WebAnno/INCEpTION span layers, doccano and Prodigy span tasks, Label
Studio ``labels``) have no item ids: which spans of two raters are "the same item" is a
decision, and :class:`SpanRule` states it.

- ``match="exact"``: an item is a (document, start, end) that some rater marked; spans must
  have identical character offsets to be compared.
- ``match="overlap"``: per document, raters are taken in sorted order; each rater's spans are
  assigned to the items built so far by the Hungarian algorithm
  (``scipy.optimize.linear_sum_assignment``) maximising the mean character overlap
  (intersection over union, IoU) with the item's members. A span may join an item only if its
  IoU with *every* member exceeds ``min_overlap`` (so items do not chain); spans left over start
  new items. An item is named by its document and the union of its members' offsets.

A rater who annotated the document but has no span in an item gets ``unmatched`` as label
(default ``"O"``, the "outside any span" tag, so that missing a span counts as disagreement);
``unmatched=None`` leaves that rating missing instead (label agreement on co-found spans only).
Raters who did not annotate the document are missing.
"""

from collections import defaultdict
from dataclasses import dataclass
from typing import Literal

import numpy as np

from softirr_stats.data._readers._common import Rating, Where

__all__ = ["Span", "SpanRule", "spans_to_ratings"]

_MATCHES = ("exact", "overlap")


@dataclass(frozen=True)
class SpanRule:
    """How span annotations become items (see the module docstring for the full rule).

    Parameters
    ----------
    match : {"exact", "overlap"}
        ``"exact"``: identical offsets; ``"overlap"``: Hungarian matching on character IoU.
    min_overlap : float in [0, 1)
        Under ``"overlap"``, a span joins an item only if its IoU with every member is
        greater than this (default 0: any shared character).
    unmatched : str or None
        Label of a rater who annotated the document but not this span (``"O"``), or None
        to leave that rating missing.

    Examples
    --------
    >>> SpanRule(match="overlap", min_overlap=0.5)
    SpanRule(match='overlap', min_overlap=0.5, unmatched='O')
    """

    match: Literal["exact", "overlap"] = "exact"
    min_overlap: float = 0.0
    unmatched: str | None = "O"

    def __post_init__(self) -> None:
        if self.match not in _MATCHES:
            raise ValueError(f"SpanRule.match must be one of {list(_MATCHES)}; got {self.match!r}")
        if not (0.0 <= float(self.min_overlap) < 1.0):
            raise ValueError(f"SpanRule.min_overlap must lie in [0, 1); got {self.min_overlap!r}")
        if self.unmatched is not None and not isinstance(self.unmatched, str):
            raise TypeError(f"SpanRule.unmatched must be a str or None; got {type(self.unmatched).__name__}")


@dataclass(frozen=True)
class Span:
    """One labelled character span ``[start, end)`` of a document by a rater."""

    document: str
    rater: str
    start: int
    end: int
    label: str
    where: Where


def check_span(doc: str, start: object, end: object, where: Where) -> tuple[int, int]:
    """Offsets as ints with ``0 <= start < end``; otherwise a ValueError naming the record."""
    if isinstance(start, bool) or isinstance(end, bool) or not isinstance(start, int) or not isinstance(end, int):
        raise ValueError(f"{where}: span offsets must be integers; got start={start!r}, end={end!r}")
    if not 0 <= start < end:
        raise ValueError(f"{where}: span offsets must satisfy 0 <= start < end; got [{start}, {end}) in {doc!r}")
    return start, end


def _item_name(doc: str, start: int, end: int) -> str:
    return f"{doc}:{start}-{end}"


def _iou(starts: np.ndarray, ends: np.ndarray, ps: np.ndarray, pe: np.ndarray) -> np.ndarray:
    """Character IoU of spans (n,) against spans (m,): shape (n, m)."""
    inter = np.clip(np.minimum(ends[:, None], pe[None, :]) - np.maximum(starts[:, None], ps[None, :]), 0, None)
    union = (ends - starts)[:, None] + (pe - ps)[None, :] - inter
    return inter / union


def _overlap_clusters(spans_by_rater: dict[str, list[Span]], min_overlap: float) -> list[list[Span]]:
    """Grow items rater by rater with a Hungarian assignment on mean IoU (one document)."""
    from scipy.optimize import linear_sum_assignment

    clusters: list[list[Span]] = []
    for rater in sorted(spans_by_rater):
        new = spans_by_rater[rater]
        if not clusters:
            clusters.extend([s] for s in new)
            continue
        members = [(c, s) for c, cl in enumerate(clusters) for s in cl]
        owner = np.array([c for c, _ in members])
        iou = _iou(np.array([s.start for s in new]), np.array([s.end for s in new]),
                   np.array([s.start for _, s in members]), np.array([s.end for _, s in members]))
        # per cluster: the smallest and the mean IoU over its members (members are grouped by cluster)
        bounds = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
        sizes = np.diff(np.r_[bounds, len(owner)])
        worst = np.minimum.reduceat(iou, bounds, axis=1)
        mean = np.add.reduceat(iou, bounds, axis=1) / sizes
        feasible = worst > min_overlap
        rows, cols = linear_sum_assignment(np.where(feasible, mean, 0.0), maximize=True)
        taken = set()
        for r, c in zip(rows, cols, strict=True):
            if feasible[r, c]:
                clusters[int(owner[bounds[c]])].append(new[r])
                taken.add(int(r))
        clusters.extend([s] for k, s in enumerate(new) if k not in taken)
    return clusters


def spans_to_ratings(spans: list[Span], annotated: dict[str, set[str]], rule: SpanRule) -> list[Rating]:
    """Items from spans under ``rule``.

    Parameters
    ----------
    spans : list of Span
    annotated : dict document -> set of raters who annotated that document (with or without
        spans); they get ``rule.unmatched`` where they have no span in an item.
    rule : SpanRule
    """
    by_doc: dict[str, list[Span]] = defaultdict(list)
    for s in spans:
        by_doc[s.document].append(s)
    out: list[Rating] = []
    for doc in sorted(by_doc):
        doc_spans = by_doc[doc]
        if rule.match == "exact":
            groups: dict[tuple[int, int], list[Span]] = defaultdict(list)
            for s in doc_spans:
                groups[(s.start, s.end)].append(s)
            clusters = [groups[k] for k in sorted(groups)]
        else:
            per_rater: dict[str, list[Span]] = defaultdict(list)
            for s in sorted(doc_spans, key=lambda s: (s.start, s.end, s.label)):
                per_rater[s.rater].append(s)
            clusters = sorted(_overlap_clusters(per_rater, rule.min_overlap),
                              key=lambda cl: (min(s.start for s in cl), max(s.end for s in cl)))
        used: dict[str, int] = {}
        for cl in clusters:
            name = _item_name(doc, min(s.start for s in cl), max(s.end for s in cl))
            used[name] = used.get(name, 0) + 1
            if used[name] > 1:
                name = f"{name}#{used[name]}"
            by_rater: dict[str, Span] = {}
            for s in cl:
                if s.rater in by_rater:
                    first = by_rater[s.rater]
                    raise ValueError(
                        f"{s.where}: rater {s.rater!r} has two spans at [{s.start}, {s.end}) in {doc!r} "
                        f"({first.label!r} at {first.where}, {s.label!r} here); the exact-span rule needs "
                        "one label per span and rater (use SpanRule(match='overlap') to pair them up)"
                    )
                by_rater[s.rater] = s
            for s in by_rater.values():
                out.append(Rating(name, s.rater, s.label, s.where))
            for rater in sorted(annotated.get(doc, set()) - set(by_rater)):
                out.append(Rating(name, rater, rule.unmatched, cl[0].where))
    return out
