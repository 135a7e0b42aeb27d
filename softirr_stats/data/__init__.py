"""Annotation data: encode once into ``codes[item, rater]`` and a sorted vocabulary."""

from softirr_stats.data._annotations import Annotations, LabelKind, UnpairableItemsWarning
from softirr_stats.data._io import demo_path, read_annotations, read_table
from softirr_stats.data._readers import ExportWarning, SpanRule

__all__ = ["Annotations", "ExportWarning", "LabelKind", "SpanRule", "UnpairableItemsWarning", "demo_path",
           "read_annotations", "read_table"]
