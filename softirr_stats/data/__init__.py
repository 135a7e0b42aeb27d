"""Annotation data: encode once into ``codes[item, rater]`` and a sorted vocabulary."""

from typing import TYPE_CHECKING

from softirr_stats._lazy import attach
from softirr_stats.data._annotations import Annotations, LabelKind, UnpairableItemsWarning

# the readers need pandas' I/O: loaded on first use
__getattr__, __dir__, _lazy_names = attach(__name__, {
    "softirr_stats.data._io": ("demo_path", "read_annotations", "read_table"),
})
__all__ = ["Annotations", "LabelKind", "UnpairableItemsWarning", *_lazy_names]

if TYPE_CHECKING:
    from softirr_stats.data._io import demo_path, read_annotations, read_table
