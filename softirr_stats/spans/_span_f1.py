"""Span agreement: pairwise F1 between annotators (Hripcsak & Rothschild 2005).

For span annotation (entities, findings, events) the set of non-spans is unbounded, so
agreement is reported as the F1 between every pair of annotators, one taken as the reference:
``F1 = 2 TP / (n_a + n_b)`` with ``n_a``, ``n_b`` the two annotators' spans and ``TP`` the
matched pairs (Hripcsak & Rothschild, J Am Med Inform Assoc 12(3), 2005, show that F1
approaches kappa as the number of negatives grows). F1 is symmetric in the two annotators.

Matching is one-to-one, per document and annotator pair:

- ``match="exact"``: two spans may match when their offsets are identical;
- ``match="overlap"``: when they share at least one character; ``"overlap:<t>"``: when, in
  addition, their character IoU (intersection over union) is at least ``t``.

Among the eligible pairs, the matching with the most matched pairs is taken (with soft type
matching: the largest total credit), found by ``scipy.optimize.linear_sum_assignment`` on each
connected group of competing spans; F1 depends only on that number, not on which of tied
matchings is chosen. ``by="type"`` matches spans of the same type only and reports each type;
``by="all"`` ignores types (boundary agreement). ``average="micro"`` pools the counts of all
types of a pair; ``"macro"`` averages the per-type F1 of the types the pair used. The value is
the mean over annotator pairs.

Soft type matching (``similarity=``, with ``by="type"``): spans are matched regardless of type,
and a matched pair of types ``x``, ``y`` credits ``P(x == y)`` (from the equivalence estimator)
to TP instead of 1 or 0; in the per-type table the credit counts half to ``x`` and half to
``y``. With exact matching as the similarity every number equals the hard one.

Documents are the resampling unit of the bootstrap: the per-document TP and span counts of
every pair and type are computed once, and a replicate is a matrix product of document
weights with them (:class:`SpanStatistic`, the package's ``Statistic`` protocol).
"""

import math
import re
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from softirr_stats.agreement import AgreementResult, DegenerateWarning, Statistic
from softirr_stats.base._validation import TooFewRatersError, check_choice
from softirr_stats.data import SpanWarning  # the readers raise it too

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SPAN_AVERAGES", "SPAN_BY", "SPAN_COLUMNS", "SpanAgreementResult", "SpanCounts", "SpanStatistic",
           "SpanTable", "SpanWarning", "informative_documents", "parse_match", "span_counts", "span_table", "span_table_from_annotations",
           "span_tables"]

SPAN_BY = ("type", "all")
SPAN_AVERAGES = ("micro", "macro")
#: Columns of a tidy span table (``text`` is optional and carried only).
SPAN_COLUMNS = ("document", "annotator", "start", "end", "type")
ALL_TYPES = "(all)"
_ITEM = re.compile(r"^(?P<doc>.*):(?P<start>\d+)-(?P<end>\d+)(?:#\d+)?$")


def parse_match(match: Any) -> tuple[str, float]:
    """``("exact", nan)`` or ``("overlap", threshold)`` from ``match=``.

    ``"overlap"`` (any shared character) has threshold 0; ``"overlap:<t>"`` needs an IoU of at
    least ``t`` in (0, 1].

    Examples
    --------
    >>> parse_match("overlap:0.5")
    ('overlap', 0.5)
    >>> parse_match("lenient")
    Traceback (most recent call last):
    ...
    ValueError: match must be one of ['exact', 'overlap', 'overlap:<IoU>'] (IoU in (0, 1]); got 'lenient'
    """
    msg = f"match must be one of ['exact', 'overlap', 'overlap:<IoU>'] (IoU in (0, 1]); got {match!r}"
    if not isinstance(match, str):
        raise ValueError(msg)
    if match == "exact":
        return "exact", math.nan
    if match == "overlap":
        return "overlap", 0.0
    head, sep, tail = match.partition(":")
    if head != "overlap" or not sep:
        raise ValueError(msg)
    try:
        t = float(tail)
    except ValueError:
        raise ValueError(msg) from None
    if not 0.0 < t <= 1.0:
        raise ValueError(msg)
    return "overlap", t


# ---------------------------------------------------------------------------------------------
# input: the tidy span table


@dataclass(frozen=True)
class SpanTable:
    """Spans encoded once: one entry per span, codes into the sorted documents / annotators / types.

    ``annotated[d, r]`` says whether annotator ``r`` annotated document ``d`` (a pair is compared
    on the documents both annotated).
    """

    documents: tuple
    annotators: tuple
    types: tuple
    doc: np.ndarray
    rater: np.ndarray
    start: np.ndarray
    end: np.ndarray
    type: np.ndarray
    annotated: np.ndarray
    n_collapsed: int = 0

    @property
    def n_spans(self) -> int:
        return int(self.doc.size)


def _codes(values: np.ndarray) -> tuple[tuple, np.ndarray]:
    """Sorted distinct names (as str) and each value's code (hashing, then sorting the few distinct)."""
    import pandas as pd

    codes, uniq = pd.factorize(pd.Series(values, dtype=object).astype(str), sort=False)
    names = np.asarray(uniq, dtype=object).astype(str)
    order = np.argsort(names, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return tuple(names[order].tolist()), rank[codes].astype(np.int64)


def _offsets(series: "pd.Series", name: str, rows: np.ndarray) -> np.ndarray:
    import pandas as pd

    num = pd.to_numeric(series, errors="coerce")
    vals = num.to_numpy(dtype=float)
    bad = ~np.isfinite(vals) | (vals != np.round(vals))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"span column {name!r} must hold integer character offsets; row {rows[i]} has "
                         f"{series.iloc[i]!r}")
    huge = np.abs(vals) >= MAX_OFFSET  # read as floats: past 2**53 not exact, past 2**63 no int64 at all
    if huge.any():
        i = int(np.flatnonzero(huge)[0])
        raise ValueError(f"span column {name!r}: row {rows[i]} has {series.iloc[i]!r}, too large for a character "
                         "offset (offsets must be below 2**53, about 9e15); the column does not hold offsets")
    return vals.astype(np.int64)


def _cell_text(value: Any) -> str:
    """A span table cell in an error: ``missing``, a whole offset without ``.0`` (a column with a missing offset is
    float), else its repr.

    Examples
    --------
    >>> _cell_text(float("nan")), _cell_text(7.0), _cell_text("PER")
    ('missing', '7', "'PER'")
    """
    import pandas as pd

    if pd.api.types.is_scalar(value) and pd.isna(value):
        return "missing"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value.item() if isinstance(value, np.generic) else value)


#: character offsets are below this (an offset as a float is exact up to it; no text is this long)
MAX_OFFSET = 2**53


def span_table(frame: "pd.DataFrame", *, annotated: "np.ndarray | None" = None,
               lookalikes: tuple[str, ...] = ("documents", "annotators", "types")) -> SpanTable:
    """Validate and encode a tidy span table (columns ``document, annotator, start, end, type``).

    ``start`` / ``end`` are character offsets, end exclusive (``0 <= start <= end``; ``start == end`` is a
    zero-length span, as INCEpTION writes an annotation anchored between characters). A row whose
    ``start``, ``end`` and ``type`` are all missing only says that the annotator annotated the
    document and marked nothing (it adds documents or annotators without spans). Every
    annotator is taken to have annotated every document of the table unless ``annotated`` (a
    boolean table of documents x annotators over the sorted names) says otherwise. A span
    repeated by the same annotator (same document, offsets and type) is counted once, with a
    :class:`SpanWarning`. Documents, annotators and types (those named in ``lookalikes``) that print alike
    but differ (``"PER"`` and ``"PER "``, two Unicode forms of one name) are kept apart and counted in a
    ``LabelWarning`` (:func:`~softirr_stats.data._labels.check_names`).

    Examples
    --------
    >>> import pandas as pd
    >>> t = span_table(pd.DataFrame({"document": ["d1", "d1"], "annotator": ["ann", "bob"],
    ...                              "start": [0, 0], "end": [4, 5], "type": ["PER", "PER"]}))
    >>> t.annotators, t.types, t.n_spans
    (('ann', 'bob'), ('PER',), 2)
    """
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"spans must be a pandas DataFrame with columns {list(SPAN_COLUMNS)}; got "
                        f"{type(frame).__name__}")
    missing = [c for c in SPAN_COLUMNS if c not in frame.columns]
    if missing:
        raise ValueError(f"the span table lacks column(s) {missing}; it needs {list(SPAN_COLUMNS)} (text optional); "
                         f"got columns {list(frame.columns)}")
    df = frame.reset_index(drop=True)
    rows = np.arange(len(df))
    for col in ("document", "annotator"):
        if df[col].isna().any():
            raise ValueError(f"span column {col!r} has missing values (first at row {int(df[col].isna().idxmax())})")
    empty = df["start"].isna() & df["end"].isna() & df["type"].isna()
    partial = (df["start"].isna() | df["end"].isna() | df["type"].isna()) & ~empty
    if partial.any():
        at = df.loc[int(partial.idxmax())]
        values = ", ".join(f"{c} {_cell_text(at[c])}" for c in ("start", "end", "type"))
        raise ValueError(f"a span row has some of start, end, type missing: document {at['document']!r}, annotator "
                         f"{at['annotator']!r} has {values} ({int(partial.sum())} such row(s) in all); a span needs "
                         "all three (a row with all three missing declares an annotated document)")
    documents, doc_all = _codes(df["document"].to_numpy())
    annotators, rater_all = _codes(df["annotator"].to_numpy())
    spans = df.loc[~empty]
    keep = ~empty.to_numpy()
    start = _offsets(spans["start"], "start", rows[keep])
    end = _offsets(spans["end"], "end", rows[keep])
    bad = (start < 0) | (end < start)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        at = spans.iloc[i]
        raise ValueError(f"span offsets must satisfy 0 <= start <= end (end exclusive; start == end is a zero-length "
                         f"span); document {at['document']!r}, annotator {at['annotator']!r} has a "
                         f"{at['type']!r} span [{start[i]}, {end[i]}) ({int(bad.sum())} such span(s) in all)")
    typ = spans["type"].to_numpy(dtype=object)
    not_str = np.array([not isinstance(t, str) for t in typ], dtype=bool)
    if not_str.any():
        i = int(np.flatnonzero(not_str)[0])
        raise TypeError(f"span column 'type' must hold strings; row {rows[keep][i]} has {typ[i]!r} "
                        f"({type(typ[i]).__name__})")
    types, type_code = _codes(typ) if typ.size else ((), np.zeros(0, dtype=np.int64))
    from softirr_stats.data import check_names

    for what, names in (("documents", documents), ("annotators", annotators), ("types", types)):
        if what in lookalikes:  # names that print alike ("PER" and "PER "): kept apart, counted
            check_names(names, f"span {what}" if what != "annotators" else what)
    doc, rater = doc_all[keep], rater_all[keep]
    # one span per (document, annotator, start, end, type)
    repeated = pd.DataFrame({"d": doc, "r": rater, "s": start, "e": end, "t": type_code}).duplicated().to_numpy()
    first = np.flatnonzero(~repeated)
    n_collapsed = int(doc.size - first.size)
    if n_collapsed:
        warnings.warn(f"{n_collapsed} span(s) repeated by the same annotator (same document, offsets and type) "
                      "were counted once", SpanWarning, stacklevel=3)
    doc, rater, start, end, type_code = doc[first], rater[first], start[first], end[first], type_code[first]
    if annotated is None:
        annotated = np.ones((len(documents), len(annotators)), dtype=bool)
    else:
        annotated = np.asarray(annotated, dtype=bool)
        if annotated.shape != (len(documents), len(annotators)):
            raise ValueError(f"annotated must have shape (n_documents, n_annotators) = "
                             f"{(len(documents), len(annotators))}; got {annotated.shape}")
        annotated = annotated.copy()
        annotated[doc, rater] = True  # who marked a span annotated the document
    return SpanTable(documents, annotators, types, doc, rater, start, end, type_code, annotated, n_collapsed)


def span_tables(ann: Any, *, unmatched: str | None = "O") -> "tuple[pd.DataFrame, np.ndarray]":
    """The tidy span table and the annotated mask behind span :class:`Annotations`.

    Span readers name each item ``<document>:<start>-<end>`` (the exact span rule); a rating
    ``unmatched`` (the rule's label for "annotated the document, no span here") or ``None``
    means no span, a set-valued label (several types stacked on one span) gives one span per
    type. An Annotations read with the *overlap* rule names items by the union of the matched
    offsets, which are not anyone's spans: read with the exact rule, or pass the file.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> ann = Annotations.from_wide([["PER", "PER"], ["O", "LOC"]], items=["d:0-4", "d:9-12"], raters=["a", "b"])
    >>> frame, mask = span_tables(ann)
    >>> frame[["document", "annotator", "start", "end", "type"]].values.tolist()
    [['d', 'a', 0, 4, 'PER'], ['d', 'b', 0, 4, 'PER'], ['d', 'b', 9, 12, 'LOC']]
    >>> mask.tolist()
    [[True, True]]
    """
    import pandas as pd

    from softirr_stats.data import documents_without_spans

    items = pd.Series(np.asarray(ann.items, dtype=object)).astype(str)
    parsed = items.str.extract(_ITEM)
    bad = parsed["doc"].isna()
    if bad.any():
        raise ValueError(f"span agreement needs span items named '<document>:<start>-<end>' (as the span readers "
                         f"name them under the exact span rule); item {items[bad.idxmax()]!r} is not")
    # the types each vocabulary entry stands for (a loop over the distinct labels only): none for the
    # "no span" label, one per element for a stack of types on one span (a set-valued label)
    # (where any annotator stacks types, the reader makes every label a set: then "no span" is {unmatched})
    def types_of(lab: Any) -> list[str]:
        if isinstance(lab, frozenset | set | tuple | list):
            return [str(t) for t in sorted(lab) if unmatched is None or t != unmatched]
        return [] if unmatched is not None and isinstance(lab, str) and lab == unmatched else [str(lab)]

    per_label = [types_of(lab) for lab in ann.vocabulary]
    n_types = np.array([len(t) for t in per_label], dtype=np.int64)
    flat_types = np.array([t for ts in per_label for t in ts], dtype=object)
    first_type = np.concatenate([[0], np.cumsum(n_types)[:-1]]) if n_types.size else n_types
    codes = np.asarray(ann.codes)
    ii, jj = np.nonzero(codes >= 0)  # every rating: the rater annotated the item's document
    cc = codes[ii, jj]
    reps = n_types[cc]
    si, sj = np.repeat(ii, reps), np.repeat(jj, reps)
    offs = np.arange(si.size) - np.repeat(np.cumsum(reps) - reps, reps)
    raters = np.asarray([str(r) for r in ann.raters], dtype=object)
    frame = pd.DataFrame({
        "document": parsed["doc"].to_numpy(dtype=object)[si],
        "annotator": raters[sj],
        "start": parsed["start"].to_numpy()[si].astype(np.int64),
        "end": parsed["end"].to_numpy()[si].astype(np.int64),
        "type": flat_types[first_type[np.repeat(cc, reps)] + offs] if si.size else np.array([], dtype=object),
    })
    long = pd.DataFrame({"doc": parsed["doc"].to_numpy(dtype=object)[ii], "rater": raters[jj]})
    long = pd.concat([long, documents_without_spans(ann)], ignore_index=True)  # a span export's empty documents
    documents = np.unique(long["doc"].to_numpy(dtype=str))  # those someone rated
    annotators = np.unique(long["rater"].to_numpy(dtype=str))
    mask = np.zeros((documents.size, annotators.size), dtype=bool)
    mask[np.searchsorted(documents, long["doc"].to_numpy(dtype=str)),
         np.searchsorted(annotators, long["rater"].to_numpy(dtype=str))] = True
    # who annotated a document but marked no span in it still enters the table (a declaration row)
    has_span = np.zeros_like(mask)
    has_span[np.searchsorted(documents, frame["document"].to_numpy(dtype=str)),
             np.searchsorted(annotators, frame["annotator"].to_numpy(dtype=str))] = True
    decl = pd.DataFrame({"document": documents.repeat(annotators.size).astype(object),
                         "annotator": np.tile(annotators, documents.size).astype(object)})
    decl = decl.loc[(mask & ~has_span).ravel()]
    frame = pd.concat([frame, decl.assign(start=pd.NA, end=pd.NA, type=None)], ignore_index=True)
    return frame, mask


def span_table_from_annotations(ann: Any, *, unmatched: str | None = "O") -> SpanTable:
    """:func:`span_table` of span :class:`Annotations` (see :func:`span_tables`)."""
    frame, mask = span_tables(ann, unmatched=unmatched)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        # the annotators (raters) and types (labels) were checked when the Annotations were built
        return span_table(frame, annotated=mask, lookalikes=("documents",))


# ---------------------------------------------------------------------------------------------
# counting: per document, annotator pair and type


@dataclass(frozen=True)
class SpanCounts:
    """Per-document TP credit and span totals (``n_a + n_b``) of every annotator pair and type.

    ``tp`` and ``total`` are sparse ``(n_documents, n_pairs * n_types)``; ``n_a`` is the first
    annotator's share of ``total`` (FN = n_a - TP, FP = n_b - TP with a as the reference).
    """

    pairs: np.ndarray  # (P, 2) annotator codes, a < b
    types: tuple
    tp: Any
    total: Any
    n_a: Any
    shared_docs: np.ndarray  # (P,) documents both annotated
    n_pairs_scored: int = 0
    similarity: str = "identity"


def _overlap_edges(tab: SpanTable, kind: str, threshold: float, same_type: bool) -> tuple[np.ndarray, np.ndarray]:
    """Candidate matches (i, j): spans of different annotators in one document, i's annotator first.

    Exact: equal (document, start, end[, type]). Overlap: a sort-based interval join within each
    document (and type): after sorting by start, span i overlaps exactly the spans that follow it
    and start before it ends, so the candidates are found without comparing every pair.
    """
    if not tab.n_spans:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    group = tab.doc * len(tab.types) + tab.type if same_type else tab.doc.copy()
    if kind == "exact":
        scale = int(tab.end.max()) + 1
        if (int(group.max()) + 1) * scale * scale < 2**62:
            g = (group * scale + tab.start) * scale + tab.end  # one int64 per (group, start, end)
        else:
            g = np.asarray(np.unique(np.stack([group, tab.start, tab.end], axis=1), axis=0,
                                     return_inverse=True)[1]).ravel()
        order = np.argsort(g, kind="stable")
        gs = g[order]
        bounds = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]])
        pos = np.arange(gs.size)
        run_end = np.repeat(np.r_[bounds[1:], gs.size], np.diff(np.r_[bounds, gs.size]))  # end of each span's run
        n_after = run_end - pos - 1
    else:
        scale = int(tab.end.max()) + 1
        if (int(group.max()) + 1) * scale >= 2**62:
            raise ValueError("span offsets too large to index (documents x offsets exceed 2**62)")
        key = group * scale + tab.start
        order = np.argsort(key, kind="stable")
        ks = key[order]
        pos = np.arange(ks.size)
        stop = np.searchsorted(ks, group[order] * scale + tab.end[order], side="left")
        n_after = np.maximum(stop - pos - 1, 0)
    src = np.repeat(pos, n_after)
    offs = np.arange(src.size) - np.repeat(np.cumsum(n_after) - n_after, n_after)
    i, j = order[src], order[src + 1 + offs]
    differ = tab.rater[i] != tab.rater[j]
    i, j = i[differ], j[differ]
    swap = tab.rater[i] > tab.rater[j]
    i, j = np.where(swap, j, i), np.where(swap, i, j)
    if kind == "overlap":
        # a zero-length span shares no character with any span: it matches only an identical zero-length span
        # (IoU 1 there, 0 against anything else; docs/span_agreement.md)
        solid = (tab.end[i] > tab.start[i]) & (tab.end[j] > tab.start[j])
        i, j = i[solid], j[solid]
        if threshold > 0:
            inter = np.minimum(tab.end[i], tab.end[j]) - np.maximum(tab.start[i], tab.start[j])
            union = (tab.end[i] - tab.start[i]) + (tab.end[j] - tab.start[j]) - inter
            ok = inter / union >= threshold  # correctly rounded: IoU 3/30 meets "overlap:0.1"
            i, j = i[ok], j[ok]
        if (tab.end == tab.start).any():
            zi, zj = _overlap_edges(_zero_length(tab), "exact", threshold, same_type)
            picked = np.flatnonzero(tab.end == tab.start)
            i, j = np.r_[i, picked[zi]], np.r_[j, picked[zj]]
    return i, j


def _zero_length(tab: SpanTable) -> SpanTable:
    """The zero-length spans of ``tab`` alone (for their exact matches under the overlap rule)."""
    import dataclasses

    z = tab.end == tab.start
    return dataclasses.replace(tab, doc=tab.doc[z], rater=tab.rater[z], start=tab.start[z], end=tab.end[z],
                               type=tab.type[z])


def _max_weight_matching(node_a: np.ndarray, node_b: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Which edges a one-to-one matching of largest total weight keeps (bool per edge).

    An edge whose two ends have no other edge is kept directly; each connected group of
    competing edges is solved by ``linear_sum_assignment`` (the loop runs over such groups only).
    """
    from scipy.optimize import linear_sum_assignment
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    keep = np.zeros(w.size, dtype=bool)
    if not w.size:
        return keep
    ua, ia = np.unique(node_a, return_inverse=True)
    ub, ib = np.unique(node_b, return_inverse=True)
    deg_a = np.bincount(ia, minlength=ua.size)
    deg_b = np.bincount(ib, minlength=ub.size)
    alone = (deg_a[ia] == 1) & (deg_b[ib] == 1)
    keep[alone] = True
    rest = np.flatnonzero(~alone)
    if not rest.size:
        return keep
    na = ua.size
    graph = coo_matrix((np.ones(rest.size), (ia[rest], na + ib[rest])), shape=(na + ub.size,) * 2)
    _, comp = connected_components(graph, directed=False)
    edge_comp = comp[ia[rest]]
    order = np.argsort(edge_comp, kind="stable")
    bounds = np.flatnonzero(np.r_[True, np.diff(edge_comp[order]) != 0, True])
    for g0, g1 in zip(bounds[:-1], bounds[1:], strict=True):  # competing groups only
        e = rest[order[g0:g1]]
        ra, rb = np.unique(ia[e], return_inverse=True)[1], np.unique(ib[e], return_inverse=True)[1]
        mat = np.zeros((ra.max() + 1, rb.max() + 1))
        mat[ra, rb] = w[e]
        rows, cols = linear_sum_assignment(mat, maximize=True)
        chosen = np.zeros_like(mat, dtype=bool)
        chosen[rows, cols] = True
        keep[e] = chosen[ra, rb]
    return keep & (w > 0)


def span_counts(tab: SpanTable, *, match: str = "exact", by: str = "type", similarity: Any = None) -> SpanCounts:
    """Count TP credit and span totals per document, annotator pair and type (see the module docstring).

    Examples
    --------
    >>> import pandas as pd
    >>> t = span_table(pd.DataFrame({"document": ["d"] * 3, "annotator": ["a", "a", "b"],
    ...                              "start": [0, 6, 0], "end": [4, 9, 4], "type": ["PER"] * 3}))
    >>> c = span_counts(t)
    >>> c.tp.toarray().tolist(), c.total.toarray().tolist()
    ([[1.0]], [[3.0]])
    """
    from scipy.sparse import coo_matrix

    from softirr_stats.equivalence import resolve_label_similarity

    kind, threshold = parse_match(match)
    check_choice("by", by, SPAN_BY)
    n_r = len(tab.annotators)
    if n_r < 2:
        raise TooFewRatersError(f"span agreement compares annotators in pairs and needs at least two; got {n_r} "
                         f"({list(tab.annotators)!r})")
    ra, rb = np.triu_indices(n_r, k=1)
    pairs = np.stack([ra, rb], axis=1)
    pair_of = np.full((n_r, n_r), -1, dtype=np.int64)
    pair_of[ra, rb] = np.arange(ra.size)
    n_p = ra.size
    n_scored = 0
    sim_name = "identity"
    if by == "all":
        if similarity is not None:
            raise ValueError("similarity= grades agreement on span types; by='all' ignores types (use by='type')")
        types: tuple = (ALL_TYPES,)
        type_code = np.zeros(tab.n_spans, dtype=np.int64)
        same_type = False
    else:
        types = tab.types
        type_code = tab.type
        sim = resolve_label_similarity(types, similarity)
        same_type = bool(sim.is_identity)
        sim_name = sim.name
    n_t = len(types)
    i, j = _overlap_edges(tab, kind, threshold, same_type)
    p = pair_of[tab.rater[i], tab.rater[j]]
    if same_type or by == "all":
        w = np.ones(i.size)
    else:  # score only the type pairs that meet on a candidate match, each once
        met, back = np.unique(type_code[i] * n_t + type_code[j], return_inverse=True)
        scores = sim.pairs(met // n_t, met % n_t)
        w = np.asarray(scores.values, dtype=np.float64)[np.asarray(back).ravel()]
        n_scored = int(scores.n_scored)
    nz = w > 0
    i, j, p, w = i[nz], j[nz], p[nz], w[nz]
    keep = _max_weight_matching(p * tab.n_spans + i, p * tab.n_spans + j, w)
    i, j, p, w = i[keep], j[keep], p[keep], w[keep]
    d = tab.doc[i]
    n_d = len(tab.documents)
    shape = (n_d, n_p * n_t)
    tp = coo_matrix((np.r_[w, w] / 2, (np.r_[d, d], np.r_[p * n_t + type_code[i], p * n_t + type_code[j]])),
                    shape=shape).tocsr()
    # every span counts for each pair of its annotator with a partner who annotated the document
    partner = np.arange(n_r)
    s_idx = np.repeat(np.arange(tab.n_spans), n_r)
    other = np.tile(partner, tab.n_spans)
    mine = tab.rater[s_idx]
    ok = (other != mine) & tab.annotated[tab.doc[s_idx], other]
    s_idx, other, mine = s_idx[ok], other[ok], mine[ok]
    pp = pair_of[np.minimum(mine, other), np.maximum(mine, other)]
    col = pp * n_t + type_code[s_idx]
    total = coo_matrix((np.ones(s_idx.size), (tab.doc[s_idx], col)), shape=shape).tocsr()
    first = mine < other
    n_a = coo_matrix((np.ones(int(first.sum())), (tab.doc[s_idx][first], col[first])), shape=shape).tocsr()
    shared = (tab.annotated[:, ra] & tab.annotated[:, rb]).sum(axis=0)
    return SpanCounts(pairs, types, tp, total, n_a, shared, n_scored, sim_name)


def informative_documents(counts: SpanCounts) -> np.ndarray:
    """Which documents carry pair information: a span of some annotator whose partner in a pair annotated the
    document too (the document adds to some pair's ``n_a + n_b``).

    F1 is a ratio of sums over documents, ``2 sum_d TP_d / sum_d (n_a + n_b)_d``: a document that adds to no
    pair's span count (annotated by one annotator only, or by several who marked nothing) changes no F1 under
    any document weights. Such documents are left out of the interval's units (its degrees of freedom, the
    few-units count, the documents resampled).

    Examples
    --------
    >>> import pandas as pd
    >>> t = span_table(pd.DataFrame({"document": ["d", "d", "e", "f"], "annotator": ["a", "b", "a", "a"],
    ...                              "start": [0, 0, 3, None], "end": [4, 4, 5, None],
    ...                              "type": ["PER", "PER", "PER", None]}))
    >>> informative_documents(span_counts(t)).tolist()  # f: both annotated, nothing marked
    [True, True, False]
    """
    return np.asarray(counts.total.sum(axis=1)).ravel() > 0


# ---------------------------------------------------------------------------------------------
# the statistic: weights over documents -> F1


def _f1(tp: np.ndarray, total: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(total > 0, 2.0 * tp / np.where(total > 0, total, 1.0), np.nan)


def _nanmean(x: np.ndarray, axis: int) -> np.ndarray:
    n = np.isfinite(x).sum(axis=axis)
    s = np.where(np.isfinite(x), x, 0.0).sum(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, s / np.maximum(n, 1), np.nan)


@dataclass(frozen=True)
class SpanStatistic(Statistic):
    """Mean pairwise F1 over document weights (the package's ``Statistic`` protocol).

    Attributes
    ----------
    counts : SpanCounts
        Per-document TP credit and span totals of every annotator pair and type.
    documents : tuple
        The document names, in the order of the document weights (the "items" of the protocol).
    n_annotators : int
        Number of annotators.
    average : {"micro", "macro"}
        How a pair's F1 pools its types.

    Examples
    --------
    >>> import pandas as pd
    >>> t = span_table(pd.DataFrame({"document": ["d", "d", "e"], "annotator": ["a", "b", "a"],
    ...                              "start": [0, 0, 3], "end": [4, 4, 5], "type": ["PER"] * 3}))
    >>> stat = SpanStatistic(span_counts(t), t.documents, 2)
    >>> stat.evaluate()["value"].tolist(), stat.evaluate(np.array([[2.0, 0.0]]))["value"].tolist()
    ([0.6666666666666666], [1.0])
    """

    counts: SpanCounts
    documents: tuple
    n_annotators: int
    average: str = "micro"
    rater_designs = False
    supports_analytic = False
    n_chance_pairs = 0
    extra_outputs: tuple = field(default=(), repr=False)
    unit_name = "documents"  # the few-units warning's word for the resampled units
    few_items_caveat = ("span F1's default interval covered 93.1-97.0% at 20-80 documents (docs/coverage.md, \"Span "
                        "F1\"); with fewer its coverage was not measured, and an interval over so few units likely covers "
                        "less often than its level says")

    @property
    def items(self) -> tuple:
        return self.documents

    @property
    def n_items(self) -> int:
        return len(self.documents)

    @property
    def n_raters(self) -> int:
        return self.n_annotators

    def tables(self, C: Any = None) -> dict[str, np.ndarray]:
        """TP, totals, n_a (B, P, T) and the F1 of each pair and type, pair, type and the value."""
        n_p, n_t = len(self.counts.pairs), len(self.counts.types)
        if C is None:
            C = np.ones((1, self.n_items))
        C = np.atleast_2d(np.asarray(C, dtype=np.float64))

        def weigh(m: Any) -> np.ndarray:
            return np.asarray((m.T @ C.T).T).reshape(C.shape[0], n_p, n_t)

        tp, total, n_a = weigh(self.counts.tp), weigh(self.counts.total), weigh(self.counts.n_a)
        pair_type = _f1(tp, total)
        micro = _f1(tp.sum(axis=2), total.sum(axis=2))
        pair = micro if self.average == "micro" else _nanmean(pair_type, axis=2)
        return {"tp": tp, "total": total, "n_a": n_a, "pair_type": pair_type, "pair": pair,
                "type": _nanmean(pair_type, axis=1), "value": _nanmean(pair, axis=1)}

    def evaluate(self, C: Any = None, V: Any = None, W: Any = None) -> dict[str, np.ndarray]:
        if V is not None or W is not None:
            raise ValueError("span agreement resamples documents only (rater and chance weights do not apply)")
        return {"value": self.tables(C)["value"]}

    def on_documents(self, keep: np.ndarray) -> "SpanStatistic":
        """The statistic over the documents ``keep`` selects (a boolean mask over ``documents``); the per-pair
        ``shared_docs`` stay as they are. Over the :func:`informative_documents` every value equals the
        whole statistic's (the others add nothing to any sum).

        Examples
        --------
        >>> import pandas as pd
        >>> t = span_table(pd.DataFrame({"document": ["d", "d", "e"], "annotator": ["a", "b", "a"],
        ...                              "start": [0, 0, 3], "end": [4, 4, 5], "type": ["PER"] * 3}))
        >>> stat = SpanStatistic(span_counts(t), t.documents, 2)
        >>> part = stat.on_documents(np.array([True, False]))
        >>> part.documents, part.evaluate()["value"].tolist()
        (('d',), [1.0])
        """
        from dataclasses import replace

        keep = np.asarray(keep, dtype=bool)
        c = self.counts
        counts = replace(c, tp=c.tp[keep], total=c.total[keep], n_a=c.n_a[keep])
        return replace(self, counts=counts, documents=tuple(np.asarray(self.documents, dtype=object)[keep].tolist()))


# ---------------------------------------------------------------------------------------------
# the result


@dataclass(frozen=True, repr=False)
class SpanAgreementResult(AgreementResult):
    """Pairwise span F1 between annotators: ``value`` is the mean over annotator pairs.

    ``observed`` equals ``value``; ``expected`` is nan (F1 has no chance term). ``n_items`` is the
    number of informative documents (:func:`informative_documents`: those adding to some pair's span
    count; the interval's units, resampled and left out one at a time), ``details["n_documents"]`` that
    of all documents read, and ``n_raters`` that of annotators.

    Attributes
    ----------
    match, by, average : str
        The matching rule, ``"type"`` or ``"all"``, ``"micro"`` or ``"macro"``.
    n_spans : int
        Spans that entered (after repeated ones were collapsed).
    by_pair : DataFrame
        annotator_a, annotator_b, n_documents, n_a, n_b, tp, fp, fn, precision, recall, f1
        (annotator_a as the reference: precision = tp / n_b, recall = tp / n_a), and ci_low,
        ci_high with an interval.
    by_type : DataFrame
        type, n_spans, tp, f1 (mean over pairs of the type's F1), sd (population SD over pairs,
        as bratiaa reports), n_pairs (pairs where the type occurs), and ci_low, ci_high.
    by_document : DataFrame
        document, n_spans, f1 (mean over pairs of the document's micro F1), sd, n_pairs.

    The other fields are those of :class:`AgreementResult`.

    Examples
    --------
    >>> import pandas as pd, softirr_stats as sis
    >>> spans = pd.DataFrame({"document": ["d", "d", "d"], "annotator": ["a", "b", "b"], "start": [0, 0, 9],
    ...                       "end": [4, 4, 12], "type": ["PER", "PER", "LOC"]})
    >>> r = sis.span_agreement(spans)
    >>> type(r).__name__, round(r.value, 4), r.by_pair[["tp", "fp", "fn"]].values.tolist()
    ('SpanAgreementResult', 0.6667, [[1.0, 1.0, 0.0]])
    """

    match: str = "exact"
    by: str = "type"
    average: str = "micro"
    n_spans: int = 0
    by_pair: "pd.DataFrame | None" = field(default=None, repr=False, compare=False)
    by_type: "pd.DataFrame | None" = field(default=None, repr=False, compare=False)
    by_document: "pd.DataFrame | None" = field(default=None, repr=False, compare=False)

    def _extra_columns(self) -> list[tuple[str, Any]]:
        return [("Spans", self.n_spans)]


def _sd(x: np.ndarray, axis: int) -> np.ndarray:
    m = _nanmean(x, axis)
    dev = np.where(np.isfinite(x), x - np.expand_dims(m, axis), 0.0)
    n = np.isfinite(x).sum(axis=axis)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(n > 0, np.sqrt((dev ** 2).sum(axis=axis) / np.maximum(n, 1)), np.nan)


def span_summary(stat: SpanStatistic, tab: SpanTable, *, match: str, by: str, similarity_name: str,
                 intervals: "dict[str, np.ndarray] | None" = None) -> SpanAgreementResult:
    """The point estimate with its tables (``intervals``: "pair" (P, 2) and "type" (T, 2) bounds
    of the tables' intervals, from the uncertainty layer)."""
    import pandas as pd

    t = stat.tables()
    c = stat.counts
    names = np.asarray(tab.annotators, dtype=object)
    tp, total, n_a = t["tp"][0], t["total"][0], t["n_a"][0]
    tp_p, tot_p, na_p = tp.sum(axis=1), total.sum(axis=1), n_a.sum(axis=1)
    nb_p = tot_p - na_p
    with np.errstate(divide="ignore", invalid="ignore"):
        by_pair = pd.DataFrame({
            "annotator_a": names[c.pairs[:, 0]], "annotator_b": names[c.pairs[:, 1]],
            "n_documents": c.shared_docs.astype(np.int64), "n_a": na_p, "n_b": nb_p, "tp": tp_p,
            "fp": nb_p - tp_p, "fn": na_p - tp_p,
            "precision": np.where(nb_p > 0, tp_p / np.where(nb_p > 0, nb_p, 1), np.nan),
            "recall": np.where(na_p > 0, tp_p / np.where(na_p > 0, na_p, 1), np.nan),
            "f1": t["pair"][0],
        })
    by_type = pd.DataFrame({
        "type": list(c.types), "n_spans": np.bincount(tab.type, minlength=len(c.types)).astype(np.int64)
        if by == "type" else np.array([tab.n_spans], dtype=np.int64),
        "tp": tp.sum(axis=0), "f1": t["type"][0], "sd": _sd(t["pair_type"][0], axis=0),
        "n_pairs": (total > 0).sum(axis=0).astype(np.int64),
    })
    # per document: micro F1 of each pair in the document alone
    from scipy.sparse import csr_matrix

    n_p, n_t = len(c.pairs), len(c.types)
    to_pair = csr_matrix((np.ones(n_p * n_t), (np.arange(n_p * n_t), np.repeat(np.arange(n_p), n_t))),
                         shape=(n_p * n_t, n_p))  # sums the types of each pair
    doc_tp, doc_tot = (np.asarray((m @ to_pair).toarray()) for m in (c.tp, c.total))
    doc_f1 = _f1(doc_tp, doc_tot)
    by_document = pd.DataFrame({
        "document": list(tab.documents),
        "n_spans": np.bincount(tab.doc, minlength=len(tab.documents)).astype(np.int64),
        "f1": _nanmean(doc_f1, axis=1), "sd": _sd(doc_f1, axis=1),
        "n_pairs": np.isfinite(doc_f1).sum(axis=1).astype(np.int64),
    })
    if intervals is not None:  # percentile bounds of the pair and type F1, (P, 2) and (T, 2)
        for table, bounds in ((by_pair, intervals["pair"]), (by_type, intervals["type"])):
            table["ci_low"], table["ci_high"] = bounds[:, 0], bounds[:, 1]
    notes = []
    undefined = ~np.isfinite(t["pair"][0])
    if undefined.all():
        notes.append("no annotator pair has a span on the documents it shares: F1 is undefined (nan)")
    elif undefined.any():
        bad = [f"{a}-{b}" for a, b in zip(by_pair["annotator_a"][undefined], by_pair["annotator_b"][undefined],
                                          strict=True)]
        notes.append(f"{int(undefined.sum())} of {len(undefined)} annotator pairs have no span on the documents they "
                     f"share (F1 undefined) and are left out of the mean: {bad[:5]}")
    for column, empty, who in (("precision", (nb_p == 0) & (na_p > 0), "b"), ("recall", (na_p == 0) & (nb_p > 0), "a")):
        if empty.any():  # F1 is defined (0) there; only the named ratio is not, as sklearn warns
            pairs = [f"{a}-{b}" for a, b in zip(by_pair["annotator_a"][empty], by_pair["annotator_b"][empty],
                                                strict=True)]
            notes.append(f"by_pair: {column} is undefined (nan) for {int(empty.sum())} pair(s) where annotator_{who} "
                         f"marked no span on the shared documents: {pairs[:5]}")
    if tab.n_collapsed:
        notes.append(f"{tab.n_collapsed} repeated span(s) (same annotator, document, offsets and type) counted once")
    informative = informative_documents(c)
    n_info = int(informative.sum())
    if n_info < len(tab.documents):  # they change no F1: not units of the interval (n_items counts the others)
        idle = np.asarray(tab.documents, dtype=object)[~informative]
        notes.append(f"{idle.size} of {len(tab.documents)} documents hold no span of an annotator pair who both "
                     f"annotated them (one annotator only, or nothing marked): they change no F1 and are not units "
                     f"of the interval; n_items counts the {n_info} others (first: {idle[:5].tolist()})")
    for note in notes:
        warnings.warn(f"span_f1: {note}", DegenerateWarning if "undefined" in note else SpanWarning, stacklevel=3)
    value = float(t["value"][0])
    return SpanAgreementResult(
        coefficient="span_f1", value=value, observed=value, expected=math.nan, n_items=n_info,
        n_raters=len(tab.annotators), similarity=similarity_name, chance="none", n_pairs_scored=c.n_pairs_scored,
        warnings=tuple(notes),
        details={"match": match, "by": by, "average": stat.average, "resampling_unit": "documents",
                 "n_documents": len(tab.documents), "n_informative_documents": n_info},
        match=match, by=by, average=stat.average, n_spans=tab.n_spans, by_pair=by_pair, by_type=by_type,
        by_document=by_document)
