"""Gold pairs for the soft model: human-judged label pairs, scored like the model's own pairs.

``annotator_agreement(..., model="soft", gold=...)`` takes the judged pairs in one of the forms
:func:`gold_pairs` reads and turns them into the ``(scores, labels)`` of
:class:`softirr_stats.models.PairScores`. Labelled pairs are scored with the similarity that
scores the model's within-item and chance pairs, so that the gold scores lie on the same scale.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.base._validation import row_name

__all__ = ["GOLD_COLUMNS", "GOLD_HOW", "MIN_GOLD", "GoldPairs", "gold_pairs"]

#: Columns of a table of labelled gold pairs: the two labels and the 0/1 judgment (``judgment``
#: as in a judged sheet of ``softirr judge plan``, or ``equivalent``); ``draws`` (optional, as in
#: the sheet): how many times the pair was drawn, each draw one gold pair.
GOLD_COLUMNS = ("label_a", "label_b", "judgment")
#: Below this many gold pairs :func:`~softirr_stats.inference.annotator_agreement` warns: the
#: smallest number measured (docs/annotator_models.md, "Gold pairs"; 300 simulated studies per
#: shape): with 50 gold pairs the default emission's 90% interval covered 87.7% on calibrated
#: scores (80.3% without gold pairs; 92.0% with 200) and 88.0-90.0% on bands, exact 0/1 and
#: heavy tails; fewer were not measured.
MIN_GOLD = 50
#: How to pass gold pairs, named in the soft model's warnings on a fit without them.
GOLD_HOW = ("annotator_agreement(..., gold=...) in Python, softirr model --gold SHEET on the "
            "command line")


@dataclass(frozen=True)
class GoldPairs:
    """Gold pairs ready for the soft model.

    Attributes
    ----------
    scores : ndarray of float, shape (n,)
        Equivalence scores in [0, 1].
    labels : ndarray of int, shape (n,)
        Human 0/1 judgments (1 = equivalent).
    source : str
        ``"scores"`` (given as scores) or ``"labels"`` (labelled pairs scored here).
    n_distinct : int
        Distinct label pairs (labelled pairs; ``n`` for scores).

    Examples
    --------
    >>> import numpy as np
    >>> g = GoldPairs(scores=np.array([0.9, 0.9, 0.2]), labels=np.array([1, 1, 0]), source="labels",
    ...               n_distinct=2)
    >>> g.n, g.n_distinct
    (3, 2)
    """

    scores: np.ndarray
    labels: np.ndarray
    source: str
    n_distinct: int

    @property
    def n(self) -> int:
        return int(self.scores.size)


def _binary(values: Any, what: str, index: Any = None) -> np.ndarray:
    """0/1 judgments; ``index`` is the table's (None for the ``(scores, labels)`` arrays: named by position)."""
    v = pd.to_numeric(pd.Series(np.asarray(values, dtype=object).ravel()), errors="coerce").to_numpy(dtype=float)
    bad = ~np.isin(v, (0.0, 1.0))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        where = f"{what}[{row}]" if index is None else row_name(index, row)
        raise ValueError(f"gold: {what} must be 0 (not equivalent) or 1 (equivalent) for the soft model; {where} "
                         f"has {np.asarray(values, dtype=object).ravel()[row]!r} ({int(bad.sum())} of {v.size} rows "
                         "are not 0/1; a judgment strictly between 0 and 1 is a probability, which the "
                         "prediction-powered estimate reads but the soft model's gold pairs do not)")
    return v.astype(np.int32)


def _as_table(gold: Any) -> pd.DataFrame | None:
    """The labelled-pairs forms as a DataFrame (None for the ``(scores, labels)`` form)."""
    if isinstance(gold, pd.DataFrame):
        return gold
    pairs = getattr(gold, "pairs", None)  # a JudgingPlan with its judgments filled in
    if isinstance(pairs, pd.DataFrame):
        return pairs
    if isinstance(gold, str | bytes) or not isinstance(gold, Sequence | np.ndarray):
        raise TypeError("gold must be (scores, labels) arrays, a DataFrame with columns label_a, label_b, judgment "
                        "(a judged sheet as read by softirr_stats.analysis.read_judging_sheet), or a sequence of "
                        f"(label_a, label_b, equivalent) triples; got {type(gold).__name__}")
    rows = list(gold)
    if len(rows) == 2 and all(_numeric_1d(r) for r in rows):
        return None  # (scores, labels); labelled pairs of numeric labels: pass a DataFrame
    if any(isinstance(r, str | bytes) or not isinstance(r, Sequence | np.ndarray) or len(r) != 3 for r in rows):
        raise TypeError("gold as a sequence must hold (label_a, label_b, equivalent) triples, or be the pair "
                        "(scores, labels) of two equally long 1-d arrays")
    return pd.DataFrame(rows, columns=list(GOLD_COLUMNS))


def gold_pairs(gold: Any, vocabulary: Sequence[Any], similarity: Any) -> GoldPairs:
    """Read gold pairs for the soft model: scores and 0/1 judgments.

    Parameters
    ----------
    gold : (scores, labels), DataFrame, JudgingPlan or sequence of triples
        * ``(scores, labels)``: two numeric 1-d arrays of equal length, scores in [0, 1] (on
          the similarity's scale: the caller's job) and 0/1 judgments;
        * a DataFrame with columns ``label_a``, ``label_b`` and ``judgment`` (or
          ``equivalent``) in {0, 1}, optionally ``draws`` (a pair drawn ``d`` times counts as
          ``d`` gold pairs): a judged sheet of ``softirr judge plan`` as
          :func:`softirr_stats.analysis.read_judging_sheet` returns it, used as it is; other
          columns are ignored;
        * a sequence of ``(label_a, label_b, equivalent)`` triples (two triples of numeric
          labels would read as ``(scores, labels)``: give those as a DataFrame).

        Labels are matched to ``vocabulary`` as they are, or as a sheet writes them
        (``str(label)``; a set as ``"a | b"``).
    vocabulary : sequence
        The labels of the annotations (the order of ``similarity``).
    similarity : resolved label similarity
        What :func:`softirr_stats.equivalence.resolve_label_similarity` returns for
        ``vocabulary``: the similarity of the model's own pairs.

    Returns
    -------
    GoldPairs

    Examples
    --------
    >>> from softirr_stats.equivalence import resolve_label_similarity
    >>> vocab = ("cough", "fever", "pyrexia")
    >>> sim = resolve_label_similarity(vocab, "indel")
    >>> g = gold_pairs([("fever", "pyrexia", 1), ("cough", "fever", 0)], vocab, sim)
    >>> g.labels.tolist(), g.source, g.n
    ([1, 0], 'labels', 2)
    >>> gold_pairs(([0.9, 0.1], [1, 0]), vocab, sim).scores.tolist()
    [0.9, 0.1]
    """
    table = _as_table(gold)
    if table is None:
        scores, labels = (np.asarray(x) for x in gold)
        if scores.shape != labels.shape:
            raise ValueError(f"gold: scores and labels must have the same length; got {scores.shape[0]} scores and "
                             f"{labels.shape[0]} labels")
        if scores.size == 0:
            raise ValueError("gold: no gold pairs (empty scores and labels); pass gold=None to fit without them")
        s = pd.to_numeric(pd.Series(scores.ravel()), errors="coerce").to_numpy(dtype=float)
        bad = ~((s >= 0) & (s <= 1))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(f"gold: scores must lie in [0, 1]; scores[{row}] has {scores.ravel().tolist()[row]!r}")
        return GoldPairs(scores=s, labels=_binary(labels, "labels"), source="scores", n_distinct=int(s.size))
    cols = list(table.columns)
    judged = "judgment" if "judgment" in cols else "equivalent" if "equivalent" in cols else None
    missing = [c for c in ("label_a", "label_b") if c not in cols] + ([] if judged else ["judgment"])
    if missing:
        raise ValueError(f"gold: a table of gold pairs needs the columns label_a, label_b and judgment (or "
                         f"equivalent); missing {missing}, got {cols}")
    if len(table) == 0:
        raise ValueError("gold: no gold pairs (the table has no rows); pass gold=None to fit without them")
    labels = _binary(table[judged].to_numpy(), f"column {judged!r}", table.index)
    draws = np.ones(len(table), dtype=np.int64)
    if "draws" in cols:
        d = pd.to_numeric(table["draws"], errors="coerce").to_numpy(dtype=float)
        bad = ~np.isfinite(d) | (d < 1) | (d != np.round(d))
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(f"gold: column 'draws' must hold positive integers; {row_name(table.index, row)} has "
                             f"{table['draws'].to_numpy(dtype=object)[row]!r}")
        draws = d.astype(np.int64)
    from softirr_stats.ppi import label_codes

    ia, ib = label_codes(vocabulary, table["label_a"].tolist()), label_codes(vocabulary, table["label_b"].tolist())
    unknown = [v for v, i in zip([*table["label_a"], *table["label_b"]], [*ia, *ib], strict=True) if i < 0]
    if unknown:
        shown = list(dict.fromkeys(map(str, unknown)))
        more = f" and {len(shown) - 5} more" if len(shown) > 5 else ""
        raise ValueError(f"gold: {len(shown)} label(s) of the gold pairs are not in the annotations' vocabulary: "
                         f"{shown[:5]}{more}; gold pairs must pair labels the raters used (the similarity scores "
                         "them on the same scale as the model's pairs)")
    scores = np.asarray(similarity.pairs(ia, ib).values, dtype=np.float64)
    return GoldPairs(scores=np.repeat(scores, draws), labels=np.repeat(labels, draws), source="labels",
                     n_distinct=int(len(table)))


def _numeric_1d(r: Any) -> bool:
    if isinstance(r, str | bytes):
        return False
    try:
        a = np.asarray(r)
    except ValueError:  # ragged
        return False
    return a.ndim == 1 and a.dtype.kind in "biuf"
