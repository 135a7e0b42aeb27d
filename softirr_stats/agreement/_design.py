"""The rating and within-item pair lists of an annotation set, built once (numpy)."""

from dataclasses import dataclass

import numpy as np

from softirr_stats.data import Annotations

__all__ = ["Design", "build_design"]


@dataclass(frozen=True)
class Design:
    """Long-form view of ``ann.codes``.

    ``rating_*`` have one entry per observed rating (sorted by item, then rater);
    ``pair_*`` one entry per unordered within-item pair of ratings (rater a < rater b).
    """

    n_items: int
    n_raters: int
    n_codes: int
    r_i: np.ndarray
    rating_item: np.ndarray
    rating_rater: np.ndarray
    rating_code: np.ndarray
    pair_item: np.ndarray
    pair_ra: np.ndarray
    pair_rb: np.ndarray
    pair_ca: np.ndarray
    pair_cb: np.ndarray

    @property
    def n_pairs(self) -> int:
        return int(len(self.pair_item))

    @property
    def pairable(self) -> np.ndarray:
        return self.r_i >= 2


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


def build_design(ann: Annotations) -> Design:
    """Rating and pair lists of ``ann`` (cached on the object).

    Parameters
    ----------
    ann : Annotations

    Returns
    -------
    Design

    Examples
    --------
    >>> d = build_design(Annotations.from_wide([["a", "a", "b"], ["a", None, "a"]]))
    >>> d.n_pairs, d.r_i.tolist()
    (4, [3, 2])
    """
    cached = ann._cache.get("design")
    if cached is not None:
        return cached
    codes = ann.codes
    ii, jj = np.nonzero(codes >= 0)  # row-major: sorted by item, then rater
    r_i = np.bincount(ii, minlength=ann.n_items)
    first, second = _within_item_pairs(ii, r_i)
    cc = codes[ii, jj]
    d = Design(
        n_items=ann.n_items,
        n_raters=ann.n_raters,
        n_codes=len(ann.vocabulary),
        r_i=r_i,
        rating_item=ii.astype(np.int32),
        rating_rater=jj.astype(np.int32),
        rating_code=cc.astype(np.int32),
        pair_item=ii[first].astype(np.int32),
        pair_ra=jj[first].astype(np.int32),
        pair_rb=jj[second].astype(np.int32),
        pair_ca=cc[first].astype(np.int32),
        pair_cb=cc[second].astype(np.int32),
    )
    ann._cache["design"] = d
    return d
