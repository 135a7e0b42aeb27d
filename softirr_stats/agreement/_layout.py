"""The rating layout of an annotation set: its rating list, and its within-item pair list on demand (numpy).

"Layout" is who rated which item; "design" in this package names only a resampling design
(``Bootstrap(design=...)``).
"""

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from softirr_stats.data import Annotations

__all__ = ["RatingLayout", "rating_layout"]


@dataclass(frozen=True)
class RatingLayout:
    """Long-form view of ``ann.codes``: which rater rated which item with which code.

    ``rating_*`` have one entry per observed rating (sorted by item, then rater);
    ``pair_*`` one entry per unordered within-item pair of ratings (rater a < rater b). Both
    lists are built on first access only, from the wide code table: point estimates from
    per-item label counts never need them (the counts come from the code table, see
    :attr:`count_runs`), and with ``R`` raters the pair list has up to ``n R (R - 1) / 2``
    entries. ``ratings_built`` / ``pairs_built`` say whether they exist.

    Parameters
    ----------
    n_items, n_raters, n_codes : int
        The shape of ``ann.codes`` and the size of its vocabulary.
    r_i : ndarray of int, shape (n_items,)
        Ratings per item.
    rater_rated : ndarray of bool, shape (n_raters,)
        Whether each rater gave a rating.
    codes : ndarray of int32, shape (n_items, n_raters)
        The wide code table (-1 = missing), held by reference.

    Attributes
    ----------
    rating_item, rating_rater, rating_code : ndarray of int32
        One entry per observed rating: its item, rater and label code (built on first access).

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import rating_layout
    >>> layout = rating_layout(sis.Annotations.from_wide([["a", "a", None], ["a", "b", "b"]]))
    >>> layout.r_i.tolist(), layout.ratings_built, layout.n_pairs
    ([2, 3], False, 4)
    >>> layout.rating_code.tolist(), layout.ratings_built
    ([0, 0, 0, 1, 1], True)
    """

    n_items: int
    n_raters: int
    n_codes: int
    r_i: np.ndarray
    rater_rated: np.ndarray
    codes: np.ndarray

    @cached_property
    def _rating_list(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        rated = self.codes >= 0
        ii, jj = np.nonzero(rated)  # row-major: sorted by item, then rater
        return ii.astype(np.int32), jj.astype(np.int32), self.codes[rated]

    @property
    def ratings_built(self) -> bool:
        """Whether the rating list has been built (it is built on first access)."""
        return "_rating_list" in self.__dict__

    @property
    def rating_item(self) -> np.ndarray:
        return self._rating_list[0]

    @property
    def rating_rater(self) -> np.ndarray:
        return self._rating_list[1]

    @property
    def rating_code(self) -> np.ndarray:
        return self._rating_list[2]

    @property
    def n_ratings(self) -> int:
        """Observed ratings (without building the rating list)."""
        return int(self.r_i.sum())

    @cached_property
    def support(self) -> np.ndarray:
        """Vocabulary codes that occur, ascending (one scatter over the code table, no rating list)."""
        seen = np.zeros(self.n_codes + 1, dtype=bool)
        seen[self.codes.ravel()] = True  # a missing rating (-1) marks the extra last slot
        return np.flatnonzero(seen[: self.n_codes])

    @property
    def n_raters_present(self) -> int:
        """Raters with at least one rating."""
        return int(np.count_nonzero(self.rater_rated))

    @cached_property
    def count_runs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The non-zeros of the per-item label counts: ``(item, code, count)`` (int64, int64,
        float64, the counts exact), sorted by item, then code; straight from the code table: each
        item's row sorted, each run of equal codes one entry (no rating list, no items x labels
        table; every temporary is one pass over the table or over the non-zeros).

        Examples
        --------
        >>> d = rating_layout(Annotations.from_wide([["b", "a", "b"], [None, "a", "a"]]))
        >>> [a.tolist() for a in d.count_runs]
        [[0, 0, 1], [0, 1, 0], [1.0, 2.0, 2.0]]
        """
        n, r = self.codes.shape
        if n * r == 0:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
        s = np.sort(self.codes, axis=1).ravel()  # missing (-1) first in each row
        start = np.empty(s.size, dtype=bool)
        np.not_equal(s[1:], s[:-1], out=start[1:])
        end = np.empty(s.size, dtype=bool)
        end[:-1] = start[1:]
        start[::r] = True  # a row begins a run
        end[r - 1::r] = True  # and ends one
        valid = s >= 0
        start &= valid
        end &= valid
        del valid
        first = np.flatnonzero(start)
        del start
        last = np.flatnonzero(end)
        del end
        code = s[first].astype(np.int64)
        del s
        counts = np.subtract(last, first, dtype=np.float64)
        del last
        counts += 1.0
        first //= r  # the item of each run
        return first, code, counts

    @property
    def n_pairs(self) -> int:
        """Within-item pairs, ``sum_i r_i (r_i - 1) / 2`` (without building the pair list)."""
        r = self.r_i.astype(np.int64)
        return int((r * (r - 1) // 2).sum())

    @property
    def pairable(self) -> np.ndarray:
        return self.r_i >= 2

    @property
    def pairs_built(self) -> bool:
        """Whether the within-item pair list has been built (it is built on first access)."""
        return "_pair_list" in self.__dict__

    @cached_property
    def _pair_list(self) -> dict[str, np.ndarray]:
        first, second = _within_item_pairs(self.rating_item, self.r_i)
        return {"pair_item": self.rating_item[first], "pair_ra": self.rating_rater[first],
                "pair_rb": self.rating_rater[second], "pair_ca": self.rating_code[first],
                "pair_cb": self.rating_code[second]}

    @property
    def pair_item(self) -> np.ndarray:
        return self._pair_list["pair_item"]

    @property
    def pair_ra(self) -> np.ndarray:
        return self._pair_list["pair_ra"]

    @property
    def pair_rb(self) -> np.ndarray:
        return self._pair_list["pair_rb"]

    @property
    def pair_ca(self) -> np.ndarray:
        return self._pair_list["pair_ca"]

    @property
    def pair_cb(self) -> np.ndarray:
        return self._pair_list["pair_cb"]


def _within_item_pairs(rating_item: np.ndarray, r_i: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Indices (first, second) into the rating list of every unordered within-item pair."""
    m = len(rating_item)
    start = np.concatenate([[0], np.cumsum(r_i)[:-1]])
    pos = np.arange(m) - start[rating_item]  # position of each rating within its item
    later = r_i[rating_item] - 1 - pos  # partners after it
    total = int(later.sum())
    first = np.repeat(np.arange(m), later)
    offsets = np.repeat(np.cumsum(later) - later, later)
    second = first + 1 + (np.arange(total) - offsets)
    return first, second


def rating_layout(ann: Annotations) -> RatingLayout:
    """Rating layout of ``ann`` (cached on the object); its rating and pair lists follow on first access.

    Parameters
    ----------
    ann : Annotations

    Returns
    -------
    RatingLayout

    Examples
    --------
    >>> d = rating_layout(Annotations.from_wide([["a", "a", "b"], ["a", None, "a"]]))
    >>> d.n_pairs, d.r_i.tolist(), d.pairs_built
    (4, [3, 2], False)
    >>> d.pair_item.tolist(), d.pairs_built
    ([0, 0, 0, 1], True)
    """
    cached = ann._cache.get("layout")
    if cached is not None:
        return cached
    codes = ann.codes
    rated = codes >= 0
    d = RatingLayout(n_items=ann.n_items, n_raters=ann.n_raters, n_codes=len(ann.vocabulary),
                     r_i=rated.sum(axis=1), rater_rated=rated.any(axis=0), codes=codes)
    ann._cache["layout"] = d
    return d

