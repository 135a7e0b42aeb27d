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
    ``pair_*`` one entry per unordered within-item pair of ratings (rater a < rater b). The
    pair list is built on first access only: with ``R`` raters it has up to ``n R (R - 1) / 2``
    entries, and point estimates with unit rater weights never need it (per-item sums follow
    from per-item label counts). ``pairs_built`` says whether it exists.

    Parameters
    ----------
    n_items, n_raters, n_codes : int
        The shape of ``ann.codes`` and the size of its vocabulary.
    r_i : ndarray of int, shape (n_items,)
        Ratings per item.
    rating_item, rating_rater, rating_code : ndarray of int32
        One entry per observed rating: its item, rater and label code.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import rating_layout
    >>> layout = rating_layout(sis.Annotations.from_wide([["a", "a", None], ["a", "b", "b"]]))
    >>> layout.r_i.tolist(), layout.rating_code.tolist(), layout.n_pairs
    ([2, 3], [0, 0, 0, 1, 1], 4)
    """

    n_items: int
    n_raters: int
    n_codes: int
    r_i: np.ndarray
    rating_item: np.ndarray
    rating_rater: np.ndarray
    rating_code: np.ndarray

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
    """Rating list of ``ann`` (cached on the object); the pair list follows on first access.

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
    ii, jj = np.nonzero(rated)  # row-major: sorted by item, then rater
    d = RatingLayout(
        n_items=ann.n_items,
        n_raters=ann.n_raters,
        n_codes=len(ann.vocabulary),
        r_i=np.bincount(ii, minlength=ann.n_items),
        rating_item=ii.astype(np.int32),
        rating_rater=jj.astype(np.int32),
        rating_code=codes[rated].astype(np.int32),
    )
    ann._cache["layout"] = d
    return d

