"""What every export reader shares: ratings with their source, and one way to build Annotations.

A reader turns a tool's export into :class:`Rating` records (item, rater, label, and where in
which file the record came from); :func:`ratings_to_annotations` encodes them. Labels are
``None`` (a rater who opened the item but gave no label), a str or number, or a tuple of str
(several choices / taxonomy paths / span labels). Tuples follow one rule for the whole file:
when every rating holds exactly one element they become plain strings, otherwise every rating
becomes a set (set-valued labels, see ``multilabel_agreement``).
"""

import json
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from softirr_stats._validation import SoftIRRWarning
from softirr_stats.data._annotations import Annotations

__all__ = ["ExportWarning", "Rating", "Where", "iter_jsonl", "load_json", "ratings_frame",
           "ratings_to_annotations", "warn_skipped"]


class ExportWarning(SoftIRRWarning):
    """An export reader skipped records (cancelled, ignored) or guessed the file's format.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("skipped 2 cancelled annotations", ExportWarning)
    >>> caught[0].category.__name__, issubclass(ExportWarning, UserWarning)
    ('ExportWarning', True)
    """


@dataclass(frozen=True)
class Where:
    """Where a record came from, for error messages: file name and record/line number."""

    file: str
    record: int
    unit: str = "record"

    def __str__(self) -> str:
        return f"{self.file}, {self.unit} {self.record}"


@dataclass(frozen=True)
class Rating:
    """One rating of one item by one rater, with its source."""

    item: str
    rater: str
    label: Any
    where: Where


def load_json(path: Path) -> Any:
    """Parse a whole JSON file; a syntax error names the file, line and column."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path.name}, line {err.lineno}, column {err.colno}: not valid JSON ({err.msg})") from None


def iter_jsonl(lines: Iterable[str], name: str) -> Iterator[tuple[Where, dict[str, Any]]]:
    """Yield (where, object) for each non-blank line; bad JSON or a non-object names the line."""
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as err:
            raise ValueError(f"{name}, line {lineno}: not valid JSON ({err.msg})") from None
        if not isinstance(obj, dict):
            raise ValueError(f"{name}, line {lineno}: each line must be a JSON object; got {type(obj).__name__}")
        yield Where(name, lineno, "line"), obj


def warn_skipped(n: int, total: int, what: str, source: str, stacklevel: int = 5) -> None:
    """Say how many records a reader left out and why (nothing is dropped silently).

    The default ``stacklevel`` points at the caller of ``read_annotations`` when a reader
    function calls this directly.
    """
    if n:
        warnings.warn(f"{source}: {n} of {total} records skipped ({what})", ExportWarning, stacklevel=stacklevel)


def _collapse_tuples(labels: list[Any]) -> list[Any]:
    tuples = [lab for lab in labels if isinstance(lab, tuple)]
    if not tuples:
        return labels
    if all(len(t) == 1 for t in tuples):
        return [lab[0] if isinstance(lab, tuple) else lab for lab in labels]
    return [frozenset(lab) if isinstance(lab, tuple) else lab for lab in labels]


def ratings_frame(ratings: list[Rating]) -> pd.DataFrame:
    """Ratings as a table with columns item, rater, label, where."""
    return pd.DataFrame({"item": [r.item for r in ratings], "rater": [r.rater for r in ratings],
                         "label": pd.Series([r.label for r in ratings], dtype=object),
                         "where": pd.Series([r.where for r in ratings], dtype=object)})


def ratings_to_annotations(ratings: "list[Rating] | pd.DataFrame", *, source: str,
                           categories: Any = None) -> Annotations:
    """Encode ratings (a list, or a table from :func:`ratings_frame`); a repeated (item, rater)
    names both records; empty input says so."""
    df = ratings_frame(ratings) if isinstance(ratings, list) else ratings
    if len(df) == 0:
        raise ValueError(f"{source}: the export holds no annotations")
    repeated = df.duplicated(["item", "rater"], keep="first")
    if repeated.any():
        second = df.loc[repeated].iloc[0]
        first = df.loc[(df["item"] == second["item"]) & (df["rater"] == second["rater"])].iloc[0]
        raise ValueError(
            f"{second['where']}: rater {second['rater']!r} labels item {second['item']!r} a second time "
            f"(first at {first['where']}); one rating per (item, rater) is expected"
        )
    raters = df["rater"].unique()
    if len(raters) < 2:
        raise ValueError(
            f"{source}: agreement needs at least two raters; the export names only {sorted(raters)!r}"
        )
    labels = pd.Series(_collapse_tuples(df["label"].tolist()), dtype=object, index=df.index)
    table = pd.DataFrame({"item": df["item"], "rater": df["rater"], "label": labels})
    return Annotations.from_long(table, item="item", rater="rater", label="label", categories=categories)
