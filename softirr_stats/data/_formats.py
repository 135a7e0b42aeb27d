"""The one table of input formats ``read_annotations(format=...)`` and ``--input-format`` take.

Kept in a module of its own that imports nothing, so that the command line can show the list in
``--help`` without loading pandas: the long-table formats read by :func:`read_table`, then the
annotation-tool exports read by ``data._readers`` (format name -> reader module and function,
imported only when that format is read).
"""

__all__ = ["EXPORT_FORMATS", "INPUT_FORMATS", "TABLE_FORMATS"]

#: Long tables (one row per rating): ``read_table``; Parquet needs pyarrow (the ``parquet`` extra).
TABLE_FORMATS: tuple[str, ...] = ("csv", "tsv", "jsonl", "parquet")
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
