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

Stacked annotations (one rater, several spans on the same offsets: brat event triggers
``T24 Catalysis 961 975`` / ``T25 Ubiquitination 961 975``, INCEpTION ``ORG[1]|ORGpart[2]``)
become, with ``stacked="set"`` (default), one span whose label is the set of their labels
(set-valued items: Jaccard / MASI and set matching apply). A span repeated with the same label
(``T1 PER 0 4`` / ``T2 PER 0 4``, INCEpTION ``ORG[1]|ORG[2]``) counts once, with a
:class:`SpanWarning` naming the annotator, the document and how many, as the tidy span table of
``span_agreement`` does. With ``stacked="separate"`` they stay separate spans: the overlap rule
then pairs spans of the same label first (among equal overlaps), and the exact rule refuses them.

A rater who annotated the document but has no span in an item gets ``unmatched`` as label
(default ``"O"``, the "outside any span" tag, so that missing a span counts as disagreement);
``unmatched=None`` leaves that rating missing instead (label agreement on co-found spans only).
Raters who did not annotate the document are missing. A document that every rater who annotated
it left without spans gives no item (there is no span to rate); the Annotations built from the
ratings remember who annotated it (:func:`documents_without_spans`), so that span agreement
counts it, as a declaration row of a span table does.
"""

import contextvars
import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from softirr_stats.base._validation import SoftIRRWarning, user_stacklevel
from softirr_stats.data._readers._common import EMPTY_DOCUMENTS, Where

__all__ = ["SPAN_LOG", "Span", "SpanRule", "SpanWarning", "documents_without_spans",
           "spans_to_ratings"]

#: when set to a list, every call of :func:`spans_to_ratings` appends its (spans, annotated, rule):
#: per-annotator span exports read one by one are then matched again all together
SPAN_LOG: "contextvars.ContextVar[list | None]" = contextvars.ContextVar("SPAN_LOG", default=None)

_SHOWN = 5  # annotator / document pairs a warning names

_MATCHES = ("exact", "overlap")
_STACKED = ("set", "separate")


class SpanWarning(SoftIRRWarning):
    """Span data were changed on the way in (a span repeated by one annotator counted once).

    Raised by the span readers and by the tidy span table of ``span_agreement`` alike (defined here,
    beside the readers, the lowest layer that raises it; public as ``softirr_stats.spans.SpanWarning``).

    Examples
    --------
    >>> import warnings
    >>> spans = [Span("d", "ann", 0, 4, "PER", Where("ann/d.ann", 1, "line")),
    ...          Span("d", "ann", 0, 4, "PER", Where("ann/d.ann", 2, "line"))]
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     ratings = spans_to_ratings(spans, {"d": {"ann"}}, SpanRule())
    >>> caught[0].category.__name__, len(ratings)
    ('SpanWarning', 1)
    >>> print(caught[0].message)
    1 span(s) repeated by the same annotator (same document, offsets and type) were counted once: annotator 'ann' in document 'd': 1 (ann/d.ann, line 2)
    """


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
    stacked : {"set", "separate"}
        Several spans of one rater on the same offsets: one span with the set of their labels
        (default), or separate spans (paired label first by the overlap rule).

    Examples
    --------
    >>> SpanRule(match="overlap", min_overlap=0.5)
    SpanRule(match='overlap', min_overlap=0.5, unmatched='O', stacked='set')
    >>> SpanRule.parse("overlap:0.5") == SpanRule(match="overlap", min_overlap=0.5)
    True
    """

    match: Literal["exact", "overlap"] = "exact"
    min_overlap: float = 0.0
    unmatched: str | None = "O"
    stacked: Literal["set", "separate"] = "set"

    @classmethod
    def parse(cls, text: "str | SpanRule | None") -> "SpanRule":
        """A rule from its command-line spelling: ``"exact"``, ``"overlap"`` or ``"overlap:<IoU>"``,
        optionally followed by ``",separate"`` (stacked spans kept apart) or ``",unmatched=none"``.

        Examples
        --------
        >>> SpanRule.parse("exact,separate")
        SpanRule(match='exact', min_overlap=0.0, unmatched='O', stacked='separate')
        """
        if text is None or isinstance(text, SpanRule):
            return text or cls()
        if not isinstance(text, str):
            raise TypeError(f"span_rule must be a SpanRule or a string such as 'overlap:0.5'; got {type(text).__name__}")
        head, *rest = [t.strip() for t in text.split(",")]
        match, _, iou = head.partition(":")
        kwargs: dict = {"match": match.strip().lower()}
        if iou:
            try:
                kwargs["min_overlap"] = float(iou)
            except ValueError:
                raise ValueError(f"span_rule: the IoU after 'overlap:' must be a number in [0, 1); got {iou!r}") from None
            if kwargs["match"] != "overlap":
                raise ValueError(f"span_rule: only 'overlap' takes an IoU ('overlap:0.5'); got {text!r}")
        for opt in rest:
            if opt in _STACKED:
                kwargs["stacked"] = opt
            elif opt.startswith("unmatched="):
                value = opt.split("=", 1)[1]
                kwargs["unmatched"] = None if value.lower() in ("none", "") else value
            else:
                raise ValueError(f"span_rule: unknown part {opt!r} in {text!r}; use 'exact' | 'overlap' | "
                                 "'overlap:<IoU>' [,set | ,separate] [,unmatched=<label>|none]")
        return cls(**kwargs)

    def __post_init__(self) -> None:
        if self.match not in _MATCHES:
            raise ValueError(f"SpanRule.match must be one of {list(_MATCHES)}; got {self.match!r}")
        if not (0.0 <= float(self.min_overlap) < 1.0):
            raise ValueError(f"SpanRule.min_overlap must lie in [0, 1); got {self.min_overlap!r}")
        if self.stacked not in _STACKED:
            raise ValueError(f"SpanRule.stacked must be one of {list(_STACKED)}; got {self.stacked!r}")
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


def check_span(doc: str, start: object, end: object, where: Where, text_length: int | None = None) -> tuple[int, int]:
    """Offsets as ints with ``0 <= start <= end`` (``<= text_length`` when the document's text is known; ``start ==
    end`` is a zero-length span, read as every reader reads it: docs/span_agreement.md); otherwise a ValueError
    naming the record and the span."""
    if isinstance(start, bool) or isinstance(end, bool) or not isinstance(start, int) or not isinstance(end, int):
        raise ValueError(f"{where}: span offsets must be integers; got start={start!r}, end={end!r}")
    if not 0 <= start <= end:
        raise ValueError(f"{where}: span offsets must satisfy 0 <= start <= end (end exclusive); got [{start}, {end}) "
                         f"in {doc!r}")
    if end >= 2**53:  # no text is this long; past 2**63 the offset has no int64
        raise ValueError(f"{where}: span [{start}, {end}) in {doc!r} ends beyond any text's length (offsets must be "
                         "below 2**53, about 9e15); the field does not hold offsets")
    if text_length is not None and end > text_length:
        raise ValueError(f"{where}: span [{start}, {end}) ends beyond the text of {doc!r} ({text_length} "
                         "characters); the offsets do not belong to this document")
    return start, end


def _iou(starts: np.ndarray, ends: np.ndarray, ps: np.ndarray, pe: np.ndarray) -> np.ndarray:
    """Character IoU of spans (n,) against spans (m,): shape (n, m)."""
    inter = np.clip(np.minimum(ends[:, None], pe[None, :]) - np.maximum(starts[:, None], ps[None, :]), 0, None)
    union = (ends - starts)[:, None] + (pe - ps)[None, :] - inter
    # union 0: two zero-length spans, IoU 1 at the same offset and 0 elsewhere (docs/span_agreement.md)
    same = (starts[:, None] == ps[None, :]).astype(np.float64)
    return np.where(union > 0, inter / np.maximum(union, 1), same)


def _overlap_clusters(start: np.ndarray, end: np.ndarray, rater: np.ndarray, min_overlap: float,
                      label: np.ndarray | None = None) -> np.ndarray:
    """Cluster ids of one document's spans, grown rater by rater with a Hungarian assignment.

    ``start``, ``end``, ``rater`` are the document's spans; the result gives each span its item
    (0, 1, ...). Each rater's spans are matched to the items built so far, maximising the mean
    IoU with the items' members, where a pair is allowed only if the IoU with every member
    exceeds ``min_overlap``. Given ``label`` (codes), a pair whose label equals the item's first
    member's wins among equal overlaps (label first).
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
            score = np.where(feasible, mean, 0.0)
            if label is not None:
                same = label[new][:, None] == label[order[bounds]][None, :]
                score = score + np.where(feasible & same, 1e-6, 0.0)
            rows, cols = linear_sum_assignment(score, maximize=True)
            ok = feasible[rows, cols]
            cluster[new[rows[ok]]] = owner[bounds[cols[ok]]]
        fresh = new[cluster[new] < 0]
        cluster[fresh] = n_clusters + np.arange(len(fresh))
        n_clusters += len(fresh)
    return cluster


def _stack(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (document, rater, start, end): stacked spans' labels joined into a sorted tuple."""
    key = ["doc", "rater", "start", "end"]
    dup = df.duplicated(key, keep=False).to_numpy()
    if not dup.any():
        return df
    stacked: dict[tuple, list] = {}
    for k, lab, where in zip(df.loc[dup, key].itertuples(index=False, name=None), df.loc[dup, "label"],
                             df.loc[dup, "where"], strict=True):  # only the stacked spans, usually few
        entry = stacked.setdefault(k, [set(), where])
        entry[0].add(lab)
    merged = pd.DataFrame([(*k, where) for k, (_, where) in stacked.items()], columns=[*key, "where"])
    labels = [tuple(sorted(labs)) for labs, _ in stacked.values()]
    merged["label"] = pd.Series([t[0] if len(t) == 1 else t for t in labels], dtype=object)
    return pd.concat([df.loc[~dup], merged[df.columns]], ignore_index=True)


def _warn_repeated(df: pd.DataFrame) -> None:
    """A :class:`SpanWarning` for spans repeated by one rater (same document, offsets and label), which
    ``stacked="set"`` counts once: in the tidy span table's words, naming each rater, document and how many."""
    repeated = df.duplicated(["doc", "rater", "start", "end", "label"], keep="first").to_numpy()
    if not repeated.any():
        return
    groups = (df.loc[repeated].groupby(["rater", "doc"], sort=True)
              .agg(n=("where", "size"), where=("where", "first")).reset_index())
    named = [f"annotator {r!r} in document {d!r}: {n} ({'first at ' if n > 1 else ''}{w})"
             for r, d, n, w in groups.head(_SHOWN).itertuples(index=False, name=None)]  # at most _SHOWN
    more = f"; and {len(groups) - _SHOWN} more annotator / document pairs" if len(groups) > _SHOWN else ""
    warnings.warn(f"{int(repeated.sum())} span(s) repeated by the same annotator (same document, offsets and type) "
                  f"were counted once: {'; '.join(named)}{more}", SpanWarning, stacklevel=user_stacklevel())


def documents_without_spans(ann: object) -> pd.DataFrame:
    """The (doc, rater) pairs of the documents a span export's reader saw annotated with no span by
    anyone (they give no item, so the ratings alone do not show them); none for other Annotations.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> documents_without_spans(Annotations.from_wide([["PER", "PER"]], items=["d:0-4"], raters=["a", "b"])).shape
    (0, 2)
    """
    pairs = getattr(ann, "_cache", {}).get(EMPTY_DOCUMENTS, ())
    return pd.DataFrame(list(pairs) or None, columns=["doc", "rater"], dtype=object)


def spans_to_ratings(spans: list[Span], annotated: dict[str, set[str]], rule: SpanRule) -> pd.DataFrame:
    """Items from spans under ``rule``, as a ratings table (item, rater, label, where).

    A document in ``annotated`` without any span gives no item: its (document, rater) pairs are kept
    in the table's ``attrs[EMPTY_DOCUMENTS]`` (``ratings_to_annotations`` passes them on to the
    Annotations, :func:`documents_without_spans`).

    Parameters
    ----------
    spans : list of Span
    annotated : dict document -> set of raters who annotated that document (with or without
        spans); they get ``rule.unmatched`` where they have no span in an item.
    rule : SpanRule
    """
    log = SPAN_LOG.get()
    if log is not None:
        log.append((list(spans), {d: set(r) for d, r in annotated.items()}, rule))
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
    if rule.stacked == "set":
        _warn_repeated(df)
        df = _stack(df)
    if rule.match == "exact":
        df["cluster"] = df.groupby(["doc", "start", "end"], sort=False).ngroup()
    else:
        df = (df.assign(_label=df["label"].map(repr)).sort_values(["doc", "start", "end", "_label"], kind="stable")
              .drop(columns="_label").reset_index(drop=True))
        cluster = np.empty(len(df), dtype=np.int64)
        offset = 0
        start, end, rater = df["start"].to_numpy(), df["end"].to_numpy(), df["rater"].to_numpy()
        codes = pd.factorize(df["label"].map(repr))[0]
        for rows in df.groupby("doc", sort=False).indices.values():  # one assignment problem per document
            local = _overlap_clusters(start[rows], end[rows], rater[rows], rule.min_overlap, codes[rows])
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
            "exact-span rule needs one label per span and rater (the default SpanRule(stacked='set') reads "
            "stacked spans as one set-valued label; SpanRule(match='overlap', stacked='separate') pairs them "
            "label first)"
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
    out = pd.concat([found.drop(columns="cluster"), missed], ignore_index=True)
    return _with_empty_documents(out, annotated, set(items["doc"]))


def _with_empty_documents(ratings: pd.DataFrame, annotated: dict[str, set[str]], rated: set) -> pd.DataFrame:
    """``ratings`` with the (document, rater) pairs of the annotated documents that gave no item in its ``attrs``."""
    empty = sorted((d, r) for d in set(annotated) - rated for r in annotated[d])  # usually few: the empty ones
    if empty:
        ratings.attrs[EMPTY_DOCUMENTS] = tuple(empty)
    return ratings
