"""Annotation data: encode once into ``codes[item, rater]`` and a sorted vocabulary."""

from softirr_stats.data._annotations import Annotations, LabelKind, UnpairableItemsWarning
from softirr_stats.data._io import demo_path, read_annotations, read_table

__all__ = ["Annotations", "LabelKind", "UnpairableItemsWarning", "demo_path", "read_annotations", "read_table"]
