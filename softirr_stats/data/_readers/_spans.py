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

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from softirr_stats.data._readers._common import Where

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


def _overlap_clusters(start: np.ndarray, end: np.ndarray, rater: np.ndarray, min_overlap: float) -> np.ndarray:
    """Cluster ids of one document's spans, grown rater by rater with a Hungarian assignment.

    ``start``, ``end``, ``rater`` are the document's spans; the result gives each span its item
    (0, 1, ...). Each rater's spans are matched to the items built so far, maximising the mean
    IoU with the items' members, where a pair is allowed only if the IoU with every member
    exceeds ``min_overlap``.
    """
    from scipy.optimize import linear_sum_assignment

    cluster = np.full(len(start), -1, dtype=np.int64)
    n_clusters = 0
    for who in sorted(set(rater.tolist())):
        new = np.flatnonzero(rater == who)
        done = np.flatnonzero(cluster >= 0)
        if n_clusters and len(done):
            order = done[np.argsort(cluster[done], kind="stable")]
            owner = cluster[order]
            iou = _iou(start[new], end[new], start[order], end[order])
            bounds = np.flatnonzero(np.r_[True, owner[1:] != owner[:-1]])
            sizes = np.diff(np.r_[bounds, len(owner)])
            worst = np.minimum.reduceat(iou, bounds, axis=1)
            mean = np.add.reduceat(iou, bounds, axis=1) / sizes
            feasible = worst > min_overlap
            rows, cols = linear_sum_assignment(np.where(feasible, mean, 0.0), maximize=True)
            ok = feasible[rows, cols]
            cluster[new[rows[ok]]] = owner[bounds[cols[ok]]]
        fresh = new[cluster[new] < 0]
        cluster[fresh] = n_clusters + np.arange(len(fresh))
        n_clusters += len(fresh)
    return cluster


def spans_to_ratings(spans: list[Span], annotated: dict[str, set[str]], rule: SpanRule) -> pd.DataFrame:
    """Items from spans under ``rule``, as a ratings table (item, rater, label, where).

    Parameters
    ----------
    spans : list of Span
    annotated : dict document -> set of raters who annotated that document (with or without
        spans); they get ``rule.unmatched`` where they have no span in an item.
    rule : SpanRule
    """
    if not spans:
        return pd.DataFrame({"item": [], "rater": [], "label": [], "where": []}, dtype=object)
    df = pd.DataFrame({
        "doc": pd.Series([s.document for s in spans], dtype=object),
        "start": np.array([s.start for s in spans], dtype=np.int64),
        "end": np.array([s.end for s in spans], dtype=np.int64),
        "rater": pd.Series([s.rater for s in spans], dtype=object),
        "label": pd.Series([s.label for s in spans], dtype=object),
        "where": pd.Series([s.where for s in spans], dtype=object),
    })
    if rule.match == "exact":
        df["cluster"] = df.groupby(["doc", "start", "end"], sort=False).ngroup()
    else:
        df = df.sort_values(["doc", "start", "end", "label"], kind="stable").reset_index(drop=True)
        cluster = np.empty(len(df), dtype=np.int64)
        offset = 0
        start, end, rater = df["start"].to_numpy(), df["end"].to_numpy(), df["rater"].to_numpy()
        for rows in df.groupby("doc", sort=False).indices.values():  # one assignment problem per document
            local = _overlap_clusters(start[rows], end[rows], rater[rows], rule.min_overlap)
            cluster[rows] = local + offset
            offset += int(local.max()) + 1
        df["cluster"] = cluster
    repeated = df.duplicated(["cluster", "rater"], keep="first")
    if repeated.any():
        second = df.loc[repeated].iloc[0]
        first = df.loc[(df["cluster"] == second["cluster"]) & (df["rater"] == second["rater"])].iloc[0]
        raise ValueError(
            f"{second['where']}: rater {second['rater']!r} has two spans at [{second['start']}, {second['end']}) "
            f"in {second['doc']!r} ({first['label']!r} at {first['where']}, {second['label']!r} here); the "
            "exact-span rule needs one label per span and rater (use SpanRule(match='overlap') to pair them up)"
        )
    items = df.groupby("cluster", sort=False).agg(doc=("doc", "first"), start=("start", "min"),
                                                  end=("end", "max"), where=("where", "first"))
    names = items["doc"].astype(str) + ":" + items["start"].astype(str) + "-" + items["end"].astype(str)
    nth = names.groupby(names).cumcount() + 1
    items["item"] = names.where(nth == 1, names + "#" + nth.astype(str))
    found = df.join(items["item"], on="cluster")[["item", "rater", "label", "where", "cluster"]]
    pairs = pd.DataFrame([(d, r) for d, raters in annotated.items() for r in raters], columns=["doc", "rater"],
                         dtype=object)
    expected = items.reset_index().merge(pairs, on="doc")[["cluster", "rater", "item", "where"]]
    missed = expected.merge(found[["cluster", "rater"]], on=["cluster", "rater"], how="left", indicator=True)
    missed = missed.loc[missed["_merge"] == "left_only", ["item", "rater", "where"]]
    missed.insert(2, "label", pd.Series([rule.unmatched] * len(missed), dtype=object, index=missed.index))
    return pd.concat([found.drop(columns="cluster"), missed], ignore_index=True)
