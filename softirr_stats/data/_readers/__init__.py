"""Readers for annotation-tool exports (Label Studio, doccano, Prodigy, INCEpTION/WebAnno, brat).

One module per format turns an export into ratings (item, rater, label, source record);
:func:`read_export` encodes them into :class:`~softirr_stats.data.Annotations`. The format
modules are imported only when their format is read. See ``docs/readers.md``.
"""

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from softirr_stats.data import EXPORT_FORMATS, TABLE_FORMATS
from softirr_stats.data._annotations import Annotations
from softirr_stats.data._readers._common import (
    ExportWarning,
    OptionError,
    coerce_bool,
    is_zip,
    parse_json,
    ratings_to_annotations,
)
from softirr_stats.data._readers._spans import SPAN_LOG, SpanRule

__all__ = ["EXPORT_FORMATS", "ExportWarning", "OptionError", "SpanRule", "guess_format", "guessed_formats",
           "reader_options", "read_export", "span_rules"]

_GUESSED = "guessed_formats"  # the Annotations cache key of the guessed-format notes (one per export read)
SPAN_RULES = "span_rules"  # the Annotations cache key of the span rules a span reader made the items under

_WEBANNO = "#FORMAT=WebAnno TSV 3"
_PRODIGY_KEYS = {"_input_hash", "_task_hash", "_annotator_id", "_session_id"}


def _sniffed_encoding(path: Path) -> str:
    """UTF-8, or UTF-16 / UTF-32 where the file starts with their byte-order mark or has their zero bytes without
    one: its format is told, and reading it without ``encoding=`` says which to pass."""
    from softirr_stats.data._input import BOMLESS_HEAD, bom_encoding, bomless_encoding

    with path.open("rb") as fh:
        head = fh.read(BOMLESS_HEAD)
    return bom_encoding(head) or bomless_encoding(head) or "utf-8"


def _first_line(path: Path) -> str:
    """The first line holding something, as UTF-8 (or as :func:`_sniffed_encoding` says)."""
    encoding = _sniffed_encoding(path)
    with path.open(encoding=encoding, errors="replace") as fh:
        for line in fh:
            if line.strip():
                return line.strip().lstrip("\ufeff")
    return ""


def _jsonl_kind(first: str, columns: tuple[str, str, str], shown: str) -> str | None:
    try:
        rec = json.loads(first)
    except json.JSONDecodeError:
        return None  # not JSON: told by the extension, or refused asking for format=
    except (ValueError, RecursionError):  # JSON nested too deep, a number too long to parse: named in one line
        parse_json(first, shown)
        raise
    if not isinstance(rec, dict):
        return None
    keys = set(rec)
    if keys & _PRODIGY_KEYS and "answer" in keys:
        return "prodigy"
    if set(columns) <= keys:
        return "jsonl"
    if keys & {"text", "data"} and keys & {"label", "labels", "entities", "annotations"}:
        return "doccano"  # with or without its id: the doccano reader names what is missing
    return None


def _label_studio_table(path: Path) -> bool:
    """A CSV / TSV whose header has Label Studio's ``annotator`` and ``annotation_id`` columns."""
    import csv

    head = _first_line(path)
    sep = "\t" if head.count("\t") > head.count(",") else ","
    cols = {c.strip() for c in next(csv.reader([head], delimiter=sep), [])}
    return {"annotator", "annotation_id", "id"} <= cols


def _dir_kind(path: Path) -> str:
    kinds = set()
    if any(path.rglob("*.ann")):
        kinds.add("brat")
    if any(_first_line(p).startswith(_WEBANNO) for p in path.rglob("*.tsv")):
        kinds.add("webanno-tsv")
    if any(path.rglob("*.jsonl")):
        kinds.add("doccano")
    if len(kinds) != 1:
        found = "no export files" if not kinds else f"files of several formats {sorted(kinds)}"
        raise ValueError(f"{path}: cannot tell the export format of this folder ({found}); "
                         f"pass format= one of {sorted(EXPORT_FORMATS)}")
    return kinds.pop()


def guess_format(path: str | Path, *, columns: tuple[str, str, str] = ("item", "rater", "label")) -> str:
    """The format of ``path``, from its content where the extension does not settle it.

    ``.csv`` is ``"csv"`` (``"label-studio"`` when its header has Label Studio's ``id``,
    ``annotator`` and ``annotation_id`` columns); a ``.tsv`` starting ``#FORMAT=WebAnno TSV 3`` is
    ``"webanno-tsv"`` (else ``"tsv"``); a JSON array of tasks with ``annotations`` (or of
    JSON-MIN records with ``annotation_id``), or one such task object, is ``"label-studio"``, another
    array of objects (``to_json(orient="records")``) ``"jsonl"``, a table; JSON
    Lines with Prodigy's ``_input_hash`` / ``answer`` keys are ``"prodigy"``, with the ``columns``
    (item, rater, label) ``"jsonl"``, with doccano's ``text`` (or ``data``) and ``label`` (or
    ``labels``, ``entities``, ``annotations``) ``"doccano"``;
    a ``.zip`` of ``.jsonl`` files is ``"doccano"``, one with ``annotation/.../*.tsv`` (an INCEpTION
    project export) ``"webanno-tsv"``; a folder holding ``.ann`` files is ``"brat"``,
    WebAnno ``.tsv`` files ``"webanno-tsv"``, ``.jsonl`` files ``"doccano"``; a gzipped JSON export
    (``x.jsonl.gz``, ``x.json.gz``) is told by its content as the unzipped file is. Anything else
    raises a ValueError asking for ``format=``.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "export.json"
    >>> _ = p.write_text(json.dumps([{"id": 1, "data": {}, "annotations": []}]))
    >>> guess_format(p)
    'label-studio'
    """
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"annotation file not found: {path}")
    if path.is_dir():
        return _dir_kind(path)
    suffix = path.suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        return "xlsx"  # one sheet of a workbook, read as a table (data._workbook)
    unread = unread_file_message(path)
    if unread:  # a workbook or a statistics package's data file: no engine for them among the dependencies
        raise ValueError(unread)
    if suffix in (".csv", ".tsv") and _label_studio_table(path):
        return "label-studio"
    if suffix == ".csv":
        return "csv"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    if suffix == ".ann":
        return "brat"
    if suffix == ".gz" and Path(path.stem).suffix.lower() in _JSON_SUFFIXES:
        return _gzip_json_kind(path, columns)
    import zipfile

    if is_zip(path) and suffix == ".zip":
        with zipfile.ZipFile(path) as zf:
            names = zf.namelist()
            if any(n.split("/")[0] in ("annotation", "curation") for n in names) and any(n.endswith(".tsv")
                                                                                     for n in names):
                return "webanno-tsv"  # an INCEpTION project export (or only its curation/ folder)
            if any(n.endswith(".jsonl") for n in names):
                return "doccano"
        raise ValueError(f"{path.name}: cannot tell the export format of this archive; extract it and "
                         f"pass the folder, or pass format= one of {sorted(EXPORT_FORMATS)}")
    first = _first_line(path)
    if first.startswith(_WEBANNO):
        return "webanno-tsv"
    if suffix == ".tsv":
        return "tsv"
    kind = _json_kind(first, lambda errors: _read_head(path, errors), suffix, columns, path.name)
    if kind is not None:
        return kind
    raise ValueError(f"{path.name}: cannot tell the format from the extension or the content; "
                     f"pass format= one of {[*TABLE_FORMATS, *sorted(EXPORT_FORMATS)]}")


def _read_head(path: Path, errors: str) -> str:
    """The first MiB of ``path`` as UTF-8 text, or as :func:`_sniffed_encoding` says (``errors`` as :func:`open`'s)."""
    with path.open(encoding=_sniffed_encoding(path), errors=errors) as fh:
        return fh.read(1 << 20).lstrip("\ufeff")


def _json_kind(first: str, head: Callable[[str], str], suffix: str, columns: tuple[str, str, str],
               shown: str) -> str | None:
    """The format of JSON content from its first line (``head(errors)``: its first MiB, read where the line does not
    settle it; ``errors`` as :func:`open`'s: an array must be UTF-8, a pretty-printed object is only searched),
    ``suffix`` the file's (``x.jsonl.gz``: ``.jsonl``); None where it is not JSON we can tell.

    A JSON array of tasks (or JSON-MIN records) is ``"label-studio"``, another array of objects ``"jsonl"``
    (a table); a pretty-printed ``.json`` object with ``annotations`` one Label Studio task; JSON Lines by their
    first record's keys (:func:`_jsonl_kind`), else ``"jsonl"`` for a JSON suffix.

    Examples
    --------
    >>> _json_kind('[{"id": 1, "annotations": []}]', lambda errors: '[{"id": 1, "annotations": []}]', ".json",
    ...            ("item", "rater", "label"), "x.json")
    'label-studio'
    >>> _json_kind("item,rater,label", lambda errors: "", ".csv", ("item", "rater", "label"), "x.csv") is None
    True
    """
    if first.startswith("["):
        text = head("strict")
        if '"annotations"' in text or '"completions"' in text or '"annotation_id"' in text:
            return "label-studio"
        if text.lstrip("[ \t\r\n")[:1] == "{":
            return "jsonl"  # an array of records (pandas' to_json(orient="records")): a table, read as JSON Lines are
        raise ValueError(f"{shown}: a JSON array that does not look like a Label Studio export "
                         f"(tasks with 'annotations'); pass format= one of {sorted(EXPORT_FORMATS)}")
    if first.startswith("{") and first.rstrip() == "{" and suffix == ".json":
        text = head("replace")
        if '"annotations"' in text or '"completions"' in text:
            return "label-studio"  # one task object (pretty-printed)
    if first.startswith("{"):
        kind = _jsonl_kind(first, columns, shown)
        if kind is not None:
            return kind
        if suffix in _JSON_SUFFIXES:
            return "jsonl"
    return None


#: the suffixes of JSON exports (before ``.gz``: ``x.jsonl.gz`` is told by its content, as ``x.jsonl`` is)
_JSON_SUFFIXES = (".jsonl", ".ndjson", ".json")


def _gzip_json_kind(path: Path, columns: tuple[str, str, str]) -> str:
    """The format of a gzipped JSON export (``x.jsonl.gz``, ``x.json.gz``), from the start of its content.

    Only the first MiB is unpacked (a cut or damaged file is refused by the reader, which unpacks all of it).

    Examples
    --------
    >>> import gzip, json, pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "export.jsonl.gz"
    >>> _ = p.write_bytes(gzip.compress(json.dumps({"text": "t", "label": ["a"]}).encode() + b"\\n"))
    >>> _gzip_json_kind(p, ("item", "rater", "label"))
    'doccano'
    """
    import zlib

    with path.open("rb") as fh:
        packed = fh.read(1 << 20)
    try:
        head = zlib.decompressobj(wbits=31).decompress(packed, 1 << 20).decode("utf-8", errors="replace")
    except zlib.error as err:
        raise ValueError(f"{path.name}: a gzip file that cannot be decompressed ({err})") from None
    head = head.lstrip("\ufeff")
    first = next((line.strip() for line in head.splitlines() if line.strip()), "")
    kind = _json_kind(first, lambda errors: head, Path(path.stem).suffix.lower(), columns, path.name)
    if kind is not None:
        return kind
    raise ValueError(f"{path.name}: cannot tell the format of this gzipped JSON from its content; "
                     f"pass format= one of {sorted(EXPORT_FORMATS)}")


#: spreadsheet workbooks not read, named in the error (saved as .xlsx or CSV they read)
_SPREADSHEETS = (".xls", ".xlsb", ".ods", ".numbers")
#: data files of statistics packages: (what it is, how to save it as CSV, the pandas reader)
_STAT_FILES = {
    ".sav": ("an SPSS data file", "File > Export > CSV in SPSS, or write.csv(haven::read_sav(...)) in R",
             "pandas.read_spss"),
    ".zsav": ("an SPSS data file", "File > Export > CSV in SPSS", "pandas.read_spss"),
    ".por": ("an SPSS portable file", "File > Export > CSV in SPSS", "pandas.read_spss"),
    ".dta": ("a Stata data file", "export delimited in Stata", "pandas.read_stata"),
    ".sas7bdat": ("a SAS data set", "PROC EXPORT in SAS", "pandas.read_sas"),
    ".xpt": ("a SAS transport file", "PROC EXPORT in SAS", "pandas.read_sas"),
    ".rds": ("an R data file", "write.csv(readRDS(...), 'ratings.csv', row.names = FALSE) in R", "pyreadr"),
    ".rdata": ("an R workspace", "write.csv(ratings, 'ratings.csv', row.names = FALSE) in R", "pyreadr"),
    ".rda": ("an R workspace", "write.csv(ratings, 'ratings.csv', row.names = FALSE) in R", "pyreadr"),
}


def unread_file_message(path: Path) -> str | None:
    """The error for a file no reader takes, by its extension (a spreadsheet workbook, a statistics
    package's data file), naming how to save it as CSV and the pandas reader; None for other files.

    Examples
    --------
    >>> print(unread_file_message(Path("ratings.sav")))  # doctest: +ELLIPSIS
    ratings.sav: an SPSS data file (.sav) is not read; save the table as CSV (UTF-8): File > Export > CSV in SPSS, ...
    >>> unread_file_message(Path("ratings.csv")) is None
    True
    """
    suffix = path.suffix.lower()
    then = ("and pass the table to Annotations.from_long (a row per rating) or Annotations.from_wide (a row per "
            "item, a column per rater)")
    if suffix in _SPREADSHEETS:
        return (f"{path.name}: a spreadsheet workbook ({path.suffix}) is not read; save it as an Excel workbook (.xlsx, "
                f"read directly) or the sheet as CSV (UTF-8), or read it with pandas.read_excel {then}")
    if suffix in _STAT_FILES:
        what, export, reader = _STAT_FILES[suffix]
        return (f"{path.name}: {what} ({path.suffix}) is not read; save the table as CSV (UTF-8): {export}; or read it "
                f"with {reader} {then}")
    return None


def _reader(format: str) -> Any:
    import importlib

    if format not in EXPORT_FORMATS:
        raise ValueError(f"format must be one of {sorted(EXPORT_FORMATS)}; got {format!r}")
    module, name = EXPORT_FORMATS[format]
    return getattr(importlib.import_module(f"softirr_stats.data._readers.{module}"), name)


def reader_options(format: str) -> dict[str, Any]:
    """The options of an export format's reader, with their defaults.

    Examples
    --------
    >>> sorted(reader_options("brat"))
    ['annotator', 'encoding', 'layout', 'span_rule']
    """
    import inspect

    params = inspect.signature(_reader(format)).parameters
    return {k: p.default for k, p in params.items() if k != "path"}


def _coerce(format: str, options: dict[str, Any]) -> dict[str, Any]:
    """Check option names and turn command-line strings into the option's type."""
    valid = reader_options(format)
    unknown = sorted(set(options) - set(valid))
    if unknown:
        raise OptionError(f"unknown option(s) {unknown} for format={format!r}; valid options: {list(valid)}")
    out = {}
    for key, value in options.items():
        default = valid[key]
        if isinstance(value, str) and isinstance(default, bool):
            value = coerce_bool(key, value)
        elif isinstance(value, str) and isinstance(default, int | float) and not isinstance(default, bool):
            try:
                value = type(default)(value)
            except ValueError:
                raise OptionError(f"{key} must be a {type(default).__name__}; got {value!r}") from None
        elif isinstance(value, str) and value.lower() == "none" and default is None:
            value = None
        out[key] = value
    return out


def read_export(path: str | Path, format: str, *, categories: Any = None, guessed: bool = False,
                normalize: str | None = None, na_values: Sequence[str] = (), **options: Any) -> Annotations:
    """Read an annotation-tool export into :class:`Annotations`.

    Parameters
    ----------
    path : str or Path
    format : one of :data:`EXPORT_FORMATS`
    categories : sequence, optional
        The declared label universe (as for ``Annotations.from_long``).
    guessed : bool
        When True, a note says which format was read: one of the result's ``read_notes``
        (and :func:`guessed_formats`), logged at INFO on the ``softirr_stats`` logger. A guess is
        information, not a problem: no warning is raised.
    normalize : str, optional
        Unicode normalisation of text labels (as for ``Annotations.from_long``).
    na_values : sequence of str
        Labels to read as missing ratings; a set of labels loses such a term (``_common.drop_na_labels``).
    **options
        The format reader's options (``field=``, ``span_rule=``, ``layer=``, ...; see
        ``docs/readers.md``); strings from the command line are converted (``"true"``,
        ``"overlap:0.5"``); an unknown option raises an :class:`OptionError` (a ValueError and a
        TypeError) listing the valid ones.
    """
    reader = _reader(format)
    options = _coerce(format, options)
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"annotation export not found: {path}")
    log = SPAN_LOG.get()  # a list being filled by read_annotations([...]) (spans matched again all together)
    log = [] if log is None else log
    first = len(log)
    token = SPAN_LOG.set(log)
    try:
        ratings = reader(path, **options)
    finally:
        SPAN_LOG.reset(token)
    rules = tuple(dict.fromkeys(entry[2] for entry in log[first:]))
    notes: list[str] = []
    if isinstance(ratings, tuple):
        ratings, notes = ratings
    guess = _guess_note(path.name, format) if guessed else None
    if guess is not None:
        import logging

        logging.getLogger("softirr_stats").info(guess)
        notes = [*notes, guess]
    ann = ratings_to_annotations(ratings, source=path.name, categories=categories, notes=notes, normalize=normalize,
                                 na_values=na_values)
    if guess is not None:
        ann._cache[_GUESSED] = (guess,)
    if rules:
        ann._cache[SPAN_RULES] = rules
    return ann


def _guess_note(name: str, format: str) -> str:
    # the command line shows it with its flag (cli._options: format='x' -> --input-format x)
    return f"{name}: read as format={format!r} (guessed from its content; pass format={format!r} to choose it)"


def guessed_formats(ann: Annotations) -> tuple[str, ...]:
    """The notes saying which export format was guessed for ``ann`` (one per export read; empty when
    ``format=`` was given or the input was a long table). They are also among ``ann.read_notes``.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> from softirr_stats.data import read_annotations
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "export.json"
    >>> _ = p.write_text(json.dumps([{"id": 1, "data": {}, "annotations": [
    ...     {"completed_by": 1, "result": [{"from_name": "s", "type": "choices", "value": {"choices": ["a"]}}]}]}]))
    >>> guessed_formats(read_annotations(p))
    ("export.json: read as format='label-studio' (guessed from its content; pass format='label-studio' to choose it)",)
    >>> guessed_formats(read_annotations(p, format="label-studio"))
    ()
    """
    return tuple(ann._cache.get(_GUESSED, ()))


def span_rules(ann: Annotations) -> tuple[SpanRule, ...]:
    """The span rules under which a span reader made the items of ``ann`` (one, or none where no span reader
    made them: a table, or Annotations built or changed after reading). ``span_agreement`` refuses items made
    under the overlap rule (named by the union of matched spans, nobody's offsets).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from softirr_stats.data import read_annotations
    >>> root = pathlib.Path(tempfile.mkdtemp())
    >>> for who, end in (("ann", 5), ("bob", 6)):
    ...     (root / who).mkdir()
    ...     _ = (root / who / "d1.ann").write_text(f"T1\\tPER 0 {end}\\tJohn\\n")
    >>> span_rules(read_annotations(root, format="brat", span_rule="overlap"))
    (SpanRule(match='overlap', min_overlap=0.0, unmatched='O', stacked='set'),)
    >>> span_rules(read_annotations(root, format="brat"))[0].match
    'exact'
    """
    return tuple(ann._cache.get(SPAN_RULES, ()))
