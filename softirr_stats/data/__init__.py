"""Annotation data: encode once into ``codes[item, rater]`` and a sorted vocabulary.

The one table of input formats lives here, in the package's face, so that the command line can
show it in ``--help`` without loading pandas or another module: :data:`TABLE_FORMATS` (long
tables, read by ``read_table``), :data:`EXPORT_FORMATS` (annotation-tool exports, read by
``data._readers``; format name -> reader module and function, imported only when that format is
read) and :data:`INPUT_FORMATS`, every ``format=`` / ``--input-format`` name. They are plain
module attributes, not in ``__all__`` (which lists the lazily loaded public names).
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

#: Long tables (one row per rating): ``read_table``; Parquet needs pyarrow (the ``parquet`` extra), an Excel
#: workbook (one sheet) openpyxl (the ``excel`` extra).
TABLE_FORMATS: tuple[str, ...] = ("csv", "tsv", "jsonl", "parquet", "xlsx")
#: The tables whose cells arrive as text (numbers decided by the one rule of ``_labels.text_numbers``).
TEXT_TABLES: tuple[str, ...] = ("csv", "tsv", "xlsx")
#: Exports of annotation tools: format name -> (module of ``data._readers``, reader function).
EXPORT_FORMATS: dict[str, tuple[str, str]] = {
    "label-studio": ("label_studio", "read_label_studio"),
    "doccano": ("doccano", "read_doccano"),
    "prodigy": ("prodigy", "read_prodigy"),
    "webanno-tsv": ("webanno", "read_webanno_tsv"),
    "brat": ("brat", "read_brat"),
}
#: Every ``format=`` name, tables first.
INPUT_FORMATS: tuple[str, ...] = (*TABLE_FORMATS, *EXPORT_FORMATS)

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.data._annotations": ('Annotations', 'LabelKind', 'UnpairableItemsWarning', 'UnratedRatersWarning',),
    "softirr_stats.data._io": ('demo_path', 'read_annotations', 'read_table',),
    "softirr_stats.data._labels": ('LabelWarning',),
    "softirr_stats.data._readers": ('ExportWarning', 'SpanRule',),
}, internal={"softirr_stats.data._readers": ('guess_format', 'guessed_formats', 'span_rules',),
             "softirr_stats.data._readers._spans": ('SpanWarning', 'documents_without_spans',),
             "softirr_stats.data._wide": ('layout_note',),
             "softirr_stats.data._annotations": ('single_rater_replication',),
             "softirr_stats.data._describe": ('case_note',),
             "softirr_stats.data._cells": ('guess_roles', 'set_cells_hint',),
             "softirr_stats.data._labels": ('check_names', 'decimal_comma_hint',)})  # not in __all__: guess_format for
# span_agreement, span_rules for its refusal of overlap-rule items, guessed_formats, layout_note and case_note
# for the command line's notes, guess_roles for the refusal of a long DataFrame where a wide one is read, decimal_comma_hint
# for the error of level='interval' on labels written with a decimal comma, check_names for span tables' names,
# single_rater_replication for cross_kappa's replications (a single rater allowed there only), set_cells_hint
# for multi-label agreement refusing text labels that list terms (label_sep=),
# SpanWarning (raised by the span readers and the span tables alike) and documents_without_spans for span tables

if TYPE_CHECKING:
    from softirr_stats.data._annotations import (
        Annotations,
        LabelKind,
        UnpairableItemsWarning,
        UnratedRatersWarning,
        single_rater_replication,
    )
    from softirr_stats.data._cells import guess_roles, set_cells_hint
    from softirr_stats.data._describe import case_note
    from softirr_stats.data._io import (
        demo_path,
        read_annotations,
        read_table,
    )
    from softirr_stats.data._labels import LabelWarning, check_names, decimal_comma_hint
    from softirr_stats.data._readers import (
        ExportWarning,
        SpanRule,
        guess_format,
        guessed_formats,
        span_rules,
    )
    from softirr_stats.data._readers._spans import SpanWarning, documents_without_spans
    from softirr_stats.data._wide import layout_note
