"""Annotation data: encode once into ``codes[item, rater]`` and a sorted vocabulary."""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.data._annotations": ('Annotations', 'LabelKind', 'UnpairableItemsWarning',),
    "softirr_stats.data._formats": ('INPUT_FORMATS',),
    "softirr_stats.data._io": ('demo_path', 'read_annotations', 'read_table',),
    "softirr_stats.data._readers": ('ExportWarning', 'SpanRule',),
})

if TYPE_CHECKING:
    from softirr_stats.data._annotations import (
        Annotations,
        LabelKind,
        UnpairableItemsWarning,
    )
    from softirr_stats.data._formats import INPUT_FORMATS
    from softirr_stats.data._io import (
        demo_path,
        read_annotations,
        read_table,
    )
    from softirr_stats.data._readers import (
        ExportWarning,
        SpanRule,
    )
