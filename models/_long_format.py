"""Long-format encoding of categorical annotations for the NumPyro models.

Every observed rating is one row ``(item, rater, label)``; missing cells are simply absent,
so sparse designs (each item rated by a few of many raters) cost nothing.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["AnnotationData", "encode_annotations"]


@dataclass(frozen=True, eq=False)
class AnnotationData:
    """Observed categorical ratings in long format.

    Attributes
    ----------
    items, raters, labels : ndarray of int32, shape (n_obs,)
        Item index, rater index and label (class code) of each observed rating.
    n_items, n_raters, n_classes : int
        Sizes of the three index sets (unobserved items / raters / classes allowed).
    vocabulary : tuple or None
        Label of each class code, when known.
    rater_names, item_names : tuple or None
        Rater and item identifiers, when known.

    Examples
    --------
    >>> import numpy as np
    >>> d = encode_annotations(np.array([[0, 1], [2, -1]]), n_classes=3)
    >>> d.items.tolist(), d.raters.tolist(), d.labels.tolist(), d.n_obs
    ([0, 0, 1], [0, 1, 0], [0, 1, 2], 3)
    >>> d.codes().tolist()
    [[0, 1], [2, -1]]
    """

    items: np.ndarray
    raters: np.ndarray
    labels: np.ndarray
    n_items: int
    n_raters: int
    n_classes: int
    vocabulary: tuple | None = None
    rater_names: tuple | None = None
    item_names: tuple | None = None

    def __post_init__(self) -> None:
        for name in ("items", "raters", "labels"):
            arr = np.asarray(getattr(self, name))
            if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
                raise ValueError(f"{name} must be a 1-d integer array; got dtype {arr.dtype}, "
                                 f"shape {arr.shape}")
            arr = np.ascontiguousarray(arr, dtype=np.int32)
            arr.setflags(write=False)
            object.__setattr__(self, name, arr)
        n = self.items.shape[0]
        if self.raters.shape[0] != n or self.labels.shape[0] != n:
            raise ValueError("items, raters and labels must have the same length; got "
                             f"{n}, {self.raters.shape[0]}, {self.labels.shape[0]}")
        for name, arr, size in (("items", self.items, self.n_items),
                                ("raters", self.raters, self.n_raters),
                                ("labels", self.labels, self.n_classes)):
            if int(size) < 1:
                raise ValueError(f"n_{name if name != 'labels' else 'classes'} must be >= 1; "
                                 f"got {size}")
            if n and (arr.min() < 0 or arr.max() >= size):
                raise ValueError(f"{name} must lie in [0, {size - 1}]; got range "
                                 f"[{arr.min()}, {arr.max()}]")
        if int(self.n_classes) < 2:
            raise ValueError(f"n_classes must be >= 2; got {self.n_classes}")
        if n == 0:
            raise ValueError("no observed ratings: every cell is missing")

    @property
    def n_obs(self) -> int:
        """Number of observed ratings."""
        return int(self.items.shape[0])

    def codes(self) -> np.ndarray:
        """Dense ``(n_items, n_raters)`` int array, ``-1`` = missing (last rating wins)."""
        out = np.full((self.n_items, self.n_raters), -1, dtype=np.int32)
        out[self.items, self.raters] = self.labels
        return out

    def coannotation(self) -> np.ndarray:
        """``(n_raters, n_raters)`` counts of items rated by both raters (zero diagonal)."""
        mask = np.zeros((self.n_items, self.n_raters), dtype=np.float64)
        mask[self.items, self.raters] = 1.0
        co = mask.T @ mask
        np.fill_diagonal(co, 0.0)
        return co


def _one_category(label: Any) -> str:
    """Why a categorical model refuses annotations whose only category is ``label``.

    Examples
    --------
    >>> _one_category("pos")[:52]
    "one category only ('pos'): every rating has that lab"
    """
    return (f"one category only ({label!r}): every rating has that label, so agreement is undefined and a "
            "categorical annotator model needs at least two categories; declare the full category set "
            "(Annotations' categories=, softirr model --categories A,B) to fit one, whose kappa is then its prior's")


def encode_annotations(ann: Any, n_classes: int | None = None) -> AnnotationData:
    """Encode annotations (or a raw codes array) as :class:`AnnotationData`.

    Parameters
    ----------
    ann : Annotations, AnnotationData or array-like of int, shape (n_items, n_raters)
        An object with ``.codes`` (items x raters, ``-1`` = missing) and ``.vocabulary``
        (a :class:`softirr_stats.Annotations`), or a raw codes array.
    n_classes : int, optional
        Number of classes. Default: ``len(ann.vocabulary)``, or ``codes.max() + 1`` for
        a raw array.

    Returns
    -------
    AnnotationData

    Examples
    --------
    >>> encode_annotations([[0, 0, 1], [1, 1, -1]]).n_classes
    2
    """
    if isinstance(ann, AnnotationData):
        if n_classes is not None and n_classes != ann.n_classes:
            raise ValueError(f"n_classes={n_classes} disagrees with the data's "
                             f"n_classes={ann.n_classes}")
        return ann
    vocabulary = rater_names = item_names = None
    if hasattr(ann, "codes") and hasattr(ann, "vocabulary"):
        codes = np.asarray(ann.codes)
        vocabulary = tuple(ann.vocabulary)
        rater_names = tuple(getattr(ann, "raters", ())) or None
        item_names = tuple(getattr(ann, "items", ())) or None
        if n_classes is None:
            n_classes = len(vocabulary)
        if n_classes == 1:
            raise ValueError(_one_category(vocabulary[0]))
    else:
        codes = np.asarray(ann)
    if codes.ndim != 2:
        raise ValueError(f"codes must have shape (n_items, n_raters); got shape {codes.shape}")
    if codes.size and not np.issubdtype(codes.dtype, np.integer):
        if np.issubdtype(codes.dtype, np.floating) and np.all(codes == np.round(codes)):
            codes = codes.astype(np.int64)
        else:
            raise TypeError(f"codes must be integers (-1 = missing); got dtype {codes.dtype}")
    if codes.size and codes.min() < -1:
        raise ValueError(f"codes must be >= -1 (-1 = missing); got min {codes.min()}")
    if n_classes is None:
        n_classes = max(int(codes.max()) + 1, 2) if codes.size else 2
    items, raters = np.nonzero(codes >= 0)
    return AnnotationData(items=items.astype(np.int32), raters=raters.astype(np.int32),
                          labels=codes[items, raters].astype(np.int32),
                          n_items=int(codes.shape[0]), n_raters=int(codes.shape[1]),
                          n_classes=int(n_classes), vocabulary=vocabulary,
                          rater_names=rater_names, item_names=item_names)
