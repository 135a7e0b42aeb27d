"""Annotations from aggregated data: a two-rater contingency table, an items x categories count matrix.

Both are expanded into ``codes[item, rater]`` without a loop over items (``np.repeat`` of the
cells by their counts), so every coefficient reads them as it reads a wide table.
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["check_count_array", "annotations_from_table", "annotations_from_counts"]


def check_count_array(arr: Any, name: str, *, square: bool = False) -> np.ndarray:
    """A 2-D array of non-negative integer counts (int64), or one clear error naming ``name``.

    Examples
    --------
    >>> check_count_array([[1, 0], [2, 3]], "table", square=True).tolist()
    [[1, 0], [2, 3]]
    >>> check_count_array([[1, 0, 2], [2, 3, 1]], "table", square=True)
    Traceback (most recent call last):
    ...
    ValueError: table must be square (K x K: rows = the first rater's categories, columns = the second's); got shape (2, 3)
    >>> check_count_array([[1, -2], [0, 1]], "counts")
    Traceback (most recent call last):
    ...
    ValueError: counts must hold non-negative counts; got -2 at row 0, column 1
    """
    a = np.asarray(arr)
    if a.dtype == object:
        try:
            a = a.astype(np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must hold numbers (counts); got non-numeric entries") from None
    if a.dtype.kind not in "iuf" or a.dtype.kind == "b":
        raise TypeError(f"{name} must hold integer counts; got dtype {a.dtype}")
    if a.ndim != 2:
        raise ValueError(f"{name} must be 2-D; got shape {a.shape}")
    if square and a.shape[0] != a.shape[1]:
        raise ValueError(f"{name} must be square (K x K: rows = the first rater's categories, columns = the "
                         f"second's); got shape {a.shape}")
    if a.size == 0:
        raise ValueError(f"{name} is empty; got shape {a.shape}")
    if not np.isfinite(a).all():
        i, j = np.argwhere(~np.isfinite(a))[0]
        raise ValueError(f"{name} must hold finite counts; got {a[i, j]!r} at row {i}, column {j}")
    if (a < 0).any():
        i, j = np.argwhere(a < 0)[0]
        raise ValueError(f"{name} must hold non-negative counts; got {a[i, j]:g} at row {i}, column {j}")
    if a.dtype.kind == "f" and (a != np.round(a)).any():
        i, j = np.argwhere(a != np.round(a))[0]
        raise ValueError(f"{name} must hold whole counts; got {a[i, j]!r} at row {i}, column {j}")
    if a.sum() == 0:
        raise ValueError(f"{name} holds no ratings (every count is 0)")
    return a.astype(np.int64)


def _vocabulary(cls: Any, categories: Sequence[Any] | None, k: int, name: str) -> Any:
    cats = list(range(k)) if categories is None else list(categories)
    if len(cats) != k:
        raise ValueError(f"categories must name the {k} {name} categories; got {len(cats)}")
    # the label rules (kinds, distinctness, numbers vs text) of a wide table, on one row per category
    return cls.from_wide([[c, c] for c in cats], categories=cats)


def annotations_from_table(cls: Any, table: Any, *, categories: Sequence[Any] | None = None,
                           raters: Sequence[Any] = ("rater_1", "rater_2")) -> Any:
    """Two raters' annotations from a K x K contingency table (see ``Annotations.from_table``)."""
    t = check_count_array(table, "table", square=True)
    raters = list(raters)
    if len(raters) != 2:
        raise ValueError(f"raters must name the table's two raters; got {raters!r}")
    vocab = _vocabulary(cls, categories, t.shape[0], "table's")
    a, b = np.divmod(np.repeat(np.arange(t.size), t.ravel()), t.shape[1])
    codes = np.stack([a, b], axis=1).astype(np.int32)
    return cls(codes, vocab.vocabulary, raters=raters, kind=vocab.kind, categories=vocab.vocabulary)


def annotations_from_counts(cls: Any, counts: Any, *, categories: Sequence[Any] | None = None) -> Any:
    """Annotations in rating slots from an items x categories count matrix (see ``Annotations.from_counts``)."""
    c = check_count_array(counts, "counts")
    r = c.sum(axis=1)
    if r.max() < 2:
        raise ValueError("counts must give at least one item two ratings (agreement needs pairs); every row sums "
                         f"to {int(r.max())} or less")
    vocab = _vocabulary(cls, categories, c.shape[1], "count matrix's")
    n, m = c.shape[0], int(r.max())
    labels = np.repeat(np.tile(np.arange(c.shape[1]), n), c.ravel())  # row-major: item by item, label by label
    item = np.repeat(np.arange(n), r)
    slot = np.arange(len(item)) - np.repeat(np.cumsum(r) - r, r)
    codes = np.full((n, m), -1, dtype=np.int32)
    codes[item, slot] = labels
    return cls(codes, vocab.vocabulary, raters=[f"slot_{j + 1}" for j in range(m)], kind=vocab.kind,
               categories=vocab.vocabulary, exchangeable_raters=True)
