"""INCEpTION / WebAnno TSV3 (``WebAnno TSV v3.x``), one file per annotator and document.

Follows the WebAnno TSV 3 format of the INCEpTION user guide (appendix "WebAnno TSV3.x File
format"): a ``#FORMAT=WebAnno TSV 3.x`` line; one ``#T_SP=`` (span), ``#T_CH=`` (chain) or
``#T_RL=`` (relation) line per layer, listing the layer's features after ``|`` (one column each);
``#Text=`` sentence lines; then one line per token: ``sentence-token``, ``begin-end``, the token,
and one column per feature. A cell is ``_`` (none) or ``|``-separated values; ``*`` is an
annotation whose feature is empty (read as the label ``"*"``; ignored with
``unit="document"``); a ``[n]`` suffix ties the tokens of one multi-token
annotation together. Escaped characters (``\\|``, ``\\_``, ``\\[`` ...) are unescaped.

INCEpTION's project export keeps annotators apart as ``annotation/<document>/<user>.tsv``;
the path may be that folder, a project export ``.zip`` (read in place, each entry and all of them
under the unpack cap, checked before anything is unpacked; anything under a ``curation`` folder,
the curated result, is skipped with a note and is never a rater; two entries of one name are
refused) or one ``.tsv`` file. One user's file for one document under two paths is refused:

- rater: the file's stem (the user); document: the name of the folder holding the file.
  ``INITIAL_CAS`` and ``CURATION_USER`` files (the unannotated document, the curated result)
  are not annotators and are skipped with a warning. ``include_curation=True`` reads the curated
  result (``CURATION_USER`` files and anything under ``curation/``) as one more rater, to compare
  the adjudicated labels with the annotators'; an export that holds only curation files says how
  many it skipped and names this option.
- INCEpTION writes only the layers a file uses: a file without the chosen layer's ``#T_SP=``
  header is an annotator who marked nothing on that layer (the layer must be in some file).
- Stacked annotations on one span (``ORG[1]|ORGpart[2]``) are read by the span rule's
  ``stacked=`` (by default one set-valued label ``{ORG, ORGpart}``; a label stacked twice,
  ``ORG[1]|ORG[2]``, counts once, with a ``SpanWarning``).
- A file cut off in the middle of a line (a cell such as ``LOC[1`` or a last line with fewer
  columns than the others) is refused, naming the line.
- ``unit="span"`` (default): each annotation of the chosen layer is a span (token offsets
  joined over its ``[n]`` tokens); items by the span rule; label: the feature value.
- ``unit="document"``: the document is the item; label: the feature value(s) the rater gave in
  it (several distinct values -> a set); no value is a missing rating.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from softirr_stats.data._readers import _common
from softirr_stats.data._readers._common import (
    Rating,
    Where,
    decode,
    is_zip,
    read_text,
    text_lines,
    warn_skipped,
    zip_entries,
)
from softirr_stats.data._readers._spans import Span, SpanRule, spans_to_ratings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["HEADER", "read_webanno_tsv"]

HEADER = "#FORMAT=WebAnno TSV 3"
_UNITS = ("span", "document")
_ID = re.compile(r"^(?P<value>.*?)(?:\[(?P<id>[0-9_]+)\])?$", re.S)
_ESCAPES = {"\\\\": "\\", "\\|": "|", "\\_": "_", "\\[": "[", "\\]": "]", "\\*": "*", "\\-": "-",
            "\\;": ";", "\\t": "\t", "\\n": "\n", "\\r": "\r", "\\>": ">", "\\->": "->"}
_ESC = re.compile("|".join(re.escape(k) for k in sorted(_ESCAPES, key=len, reverse=True)))


def _unescape(s: str) -> str:
    return _ESC.sub(lambda m: _ESCAPES[m.group(0)], s)


def _split_unescaped(cell: str, sep: str = "|") -> list[str]:
    parts, buf, i = [], [], 0
    while i < len(cell):
        ch = cell[i]
        if ch == "\\" and i + 1 < len(cell):
            buf.append(cell[i:i + 2])
            i += 2
            continue
        if ch == sep:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    parts.append("".join(buf))
    return parts


@dataclass(frozen=True)
class _Layer:
    name: str
    features: tuple[str, ...]
    first_column: int


def _layers(lines: list[str], name: str) -> list[_Layer]:
    if not lines or not lines[0].lstrip("\ufeff").startswith(HEADER):
        got = lines[0][:40] if lines else ""
        raise ValueError(f"{name}, line 1: expected a '{HEADER}.x' header; got {got!r}")
    out, col = [], 3
    for line in lines[1:]:
        if not line.startswith("#T_"):
            if line.strip():
                break
            continue
        kind, _, spec = line.partition("=")
        layer, *feats = spec.split("|")
        if kind == "#T_SP":
            out.append(_Layer(layer, tuple(feats), col))
        col += len(feats)
    return out


def _pick(layers: list[_Layer], layer: str | None, feature: str | None, name: str) -> tuple[_Layer, int]:
    span_layers = {lay.name: lay for lay in layers}
    if not span_layers:
        raise ValueError(f"{name}: no span layer (#T_SP=) in the header of any file")
    if layer is None:
        if len(span_layers) > 1:
            raise ValueError(f"{name}: several span layers {sorted(span_layers)}; pass layer= one of them")
        chosen = next(iter(span_layers.values()))
    else:
        matches = [lay for n, lay in span_layers.items() if n == layer or n.rsplit(".", 1)[-1] == layer]
        if len(matches) != 1:
            raise ValueError(f"layer must be one of {sorted(span_layers)} (or its last part); got {layer!r} in {name}")
        chosen = matches[0]
    feats = [f for f in chosen.features if not f.startswith("ROLE_")]
    if feature is None:
        if len(feats) == 1:
            feature = feats[0]
        elif "value" in feats:
            feature = "value"
        else:
            raise ValueError(f"{name}: layer {chosen.name} has features {feats}; pass feature= one of them")
    if feature not in chosen.features:
        raise ValueError(f"feature must be one of {feats} (layer {chosen.name}); got {feature!r} in {name}")
    return chosen, chosen.first_column + chosen.features.index(feature)


def _annotations(lines: list[str], column: int, name: str) -> list[tuple[int, int, str, Where]]:
    """(begin, end, value, where) of each annotation in one feature column."""
    multi: dict[str, list] = {}
    out: list[tuple[int, int, str, Where]] = []
    for lineno, line in enumerate(lines, 1):
        if not line or line.startswith("#"):
            continue
        cols = line.split("\t")
        where = Where(name, lineno, "line")
        if len(cols) <= column:
            raise ValueError(f"{where}: expected at least {column + 1} tab-separated columns; got {len(cols)}")
        try:
            begin, end = (int(x) for x in cols[1].split("-"))
        except ValueError:
            raise ValueError(f"{where}: the offsets column must read 'begin-end'; got {cols[1]!r}") from None
        cell = cols[column]
        if cell == "_":
            continue
        for part in _split_unescaped(cell):
            if _CUT.search(part):
                raise ValueError(f"{where}: cell {part!r} is cut off (an unclosed '['); the file looks truncated "
                                 "- export it again")
            m = _ID.match(part)
            value = m.group("value") if m else part
            value = value if value == "*" else _unescape(value)
            ident = m.group("id") if m else None
            if ident is None:
                out.append((begin, end, value, where))
            elif ident in multi:
                entry = multi[ident]
                entry[0], entry[1] = min(entry[0], begin), max(entry[1], end)
            else:
                multi[ident] = entry = [begin, end, value, where]
                out.append(entry)  # type: ignore[arg-type]
    return [(int(b), int(e), v, w) for b, e, v, w in out]


_NOT_ANNOTATORS = ("INITIAL_CAS", "CURATION_USER")
_CUT = re.compile(r"\[[0-9_]*$")


def _place(parts: tuple[str, ...]) -> str:
    """Where a ``.tsv`` path (its parts) sits in a project export: ``"annotator"``
    (``annotation/<document>/<user>.tsv``), ``"curation"`` (under a ``curation`` folder: the curated
    result, whatever the folders below it) or ``"other"``."""
    if "curation" in parts[:-1]:
        return "curation"
    return "annotator" if len(parts) >= 3 and parts[-3] == "annotation" else "other"


def _curation_skipped(n: int) -> str:
    """The words every "nothing to read" message adds when curation files were skipped."""
    if not n:
        return ""
    return (f"; {n} curation file(s) found and skipped (curation is the adjudicated result, not an annotator); to "
            "read it as one more rater, beside the annotators' exports: on the command line --reader-option "
            "include_curation=true; in Python include_curation=True")


def _files(path: Path, encoding: str, include_curation: bool = False,
           ) -> tuple[list[tuple[str, str, str, list[str]]], list[str]]:
    """(shown name, document, rater, lines) per annotator file of a folder, zip or file; notes.

    Files under a ``curation`` folder and ``CURATION_USER`` files (the curated result) are not
    annotators: skipped, with a note, unless ``include_curation``. Two files of one user for one
    document (two paths, or two zip entries of one name) are refused.
    """
    import zipfile

    notes: list[str] = []
    wanted = ("annotator", "curation") if include_curation else ("annotator",)
    if is_zip(path):
        with zipfile.ZipFile(path) as zf:
            names = [i.filename for i in zf.infolist() if not i.is_dir()]
            curated = sorted({n for n in names if n.endswith(".tsv") and _place(tuple(n.split("/"))) == "curation"})
            if curated and not include_curation:
                notes.append(f"{path.name}: {len(curated)} file(s) under curation/ (the curated result) skipped "
                             f"{curated[:5]}")
            infos = zip_entries(zf, path.name, lambda n: n.endswith(".tsv")
                                and _place(tuple(n.split("/"))) in wanted)
            if not infos:
                other = sorted({Path(n).suffix or n for n in names if n.split("/")[0] == "annotation"})
                raise ValueError(f"{path.name}: no WebAnno TSV files under annotation/<document>/<user>.tsv "
                                 f"(annotation/ holds {other or 'nothing'}){_curation_skipped(len(curated))}; "
                                 "export the project with the 'WebAnno TSV v3' format")
            stray = sorted(n for n in names if n.endswith(".tsv") and _place(tuple(n.split("/"))) == "other")
            if stray:
                notes.append(f"{path.name}: {len(stray)} .tsv file(s) outside annotation/<document>/ skipped "
                             f"{stray[:5]}")
            infos.sort(key=lambda i: i.filename)
            rows = [(f"{path.name}:{i.filename}", Path(i.filename).parent.name, Path(i.filename).stem,
                     text_lines(decode(zf.read(i), f"{path.name}:{i.filename}", encoding))) for i in infos]
    elif path.is_file():
        rows = [(path.name, path.parent.name, path.stem, text_lines(read_text(path, encoding)))]
    else:
        found = sorted(p for p in path.rglob("*.tsv") if p.is_file())
        curated = [p for p in found if _place(p.relative_to(path).parts) == "curation"]
        if curated and not include_curation:
            notes.append(f"{path.name}: {len(curated)} file(s) under curation/ (the curated result) skipped "
                         f"{[p.relative_to(path).as_posix() for p in curated[:5]]}")
        files = [p for p in found if include_curation or _place(p.relative_to(path).parts) != "curation"]
        if not files:
            what = "no annotator's .tsv files" if curated else "no .tsv files"
            raise ValueError(f"{path}: {what} (expected annotation/<document>/<user>.tsv)"
                             f"{_curation_skipped(len(curated))}")
        rows = [(p.relative_to(path).as_posix(), p.parent.name, p.stem,
                 text_lines(read_text(p, encoding, p.relative_to(path).as_posix())))
                for p in _common.progress(files, total=len(files), desc=f"reading {path.name}",
                                          nbytes=len(files) * _common.PER_FILE)]
    skip = ("INITIAL_CAS",) if include_curation else _NOT_ANNOTATORS
    kept = [r for r in rows if r[2] not in skip]
    warn_skipped(len(rows) - len(kept), len(rows), f"{' / '.join(skip)} files are not annotators",
                 path.name)
    if not kept:  # every file was skipped (curation / initial CAS): say so, not "no span layer"
        n_cur = sum(r[2] == "CURATION_USER" for r in rows)
        raise ValueError(f"{path.name}: no annotator's file: every file was skipped as {' / '.join(skip)} (not "
                         f"annotators){_curation_skipped(n_cur)}; export the project with the annotators' documents "
                         "(annotation/<document>/<user>.tsv)")
    seen: dict[tuple[str, str], str] = {}
    for shown, doc, rater, _ in kept:
        if (doc, rater) in seen:
            raise ValueError(f"{path.name}: user {rater!r} has two files for document {doc!r} ({seen[doc, rater]} and "
                             f"{shown}); they would merge into one rater's labels: keep one (or give the copies "
                             "distinct user names)")
        seen[doc, rater] = shown
    return kept, notes


def _check_complete(lines: list[str], name: str) -> None:
    """A file cut off mid-line: its last token line has fewer columns than the others."""
    tokens = [(k, line) for k, line in enumerate(lines, 1) if line and not line.startswith("#")]
    if len(tokens) < 2:
        return
    width = tokens[0][1].count("\t")
    k, last = tokens[-1]
    if last.count("\t") == width - 1 and not last.endswith("\t") and all(line.endswith("\t") for _, line in tokens[:-1]):
        return  # the last token line without its trailing tab: complete (INCEpTION's own test files end so)
    cell = last.rstrip("\t").rsplit("\t", 1)[-1]
    if last.count("\t") < width and _CUT.search(cell.rsplit("|", 1)[-1]):
        raise ValueError(f"{name}, line {k}: cell {cell.rsplit('|', 1)[-1]!r} is cut off (an unclosed '['); the file "
                         "looks truncated - export it again")
    if last.count("\t") < width:
        raise ValueError(f"{name}, line {k}: {last.count(chr(9)) + 1} columns where the other token lines have "
                         f"{width + 1}; the file looks cut off (truncated) - export it again")


def read_webanno_tsv(path: Path, *, layer: str | None = None, feature: str | None = None,
                     unit: Literal["span", "document"] = "span", span_rule: SpanRule | str | None = None,
                     encoding: str = "utf-8", include_curation: bool = False,
                     ) -> "tuple[list[Rating] | pd.DataFrame, list[str]]":
    """Ratings from WebAnno TSV3 files (see the module docstring).

    Parameters
    ----------
    path : Path of a folder of ``<document>/<user>.tsv`` files, a project export ``.zip`` or one file.
    layer : str, optional
        Span layer (full name or its last part, e.g. ``"NamedEntity"``); needed when several.
    feature : str, optional
        Feature of the layer to read (default: the only one, else ``"value"``).
    unit : {"span", "document"}
        Items are spans (by the span rule) or whole documents.
    span_rule : SpanRule or str, optional
        How spans become items (default: exact spans, stacked spans as one set).
    encoding : str
        Text encoding of the files.
    include_curation : bool
        Read the curated result (``CURATION_USER`` files, anything under ``curation/``) as one more
        rater, named by its file (``CURATION_USER``); by default it is skipped with a note.
    """
    if unit not in _UNITS:
        raise ValueError(f"unit must be one of {list(_UNITS)}; got {unit!r}")
    ratings: list[Rating] = []
    spans: list[Span] = []
    annotated: dict[str, set[str]] = {}
    files, notes = _files(path, encoding, include_curation)
    parsed = [(shown, doc, rater, lines, _layers(lines, shown)) for shown, doc, rater, lines in files]
    union: dict[str, _Layer] = {}
    for *_, layers in parsed:
        for lay in layers:
            union.setdefault(lay.name, lay)
    chosen, _ = _pick(list(union.values()), layer, feature, path.name)
    feat = chosen.features[_ - chosen.first_column]
    absent = []
    for shown, doc, rater, lines, layers in parsed:
        _check_complete(lines, shown)
        mine = [lay for lay in layers if lay.name == chosen.name]
        if mine:
            if feat not in mine[0].features:
                raise ValueError(f"{shown}: layer {chosen.name} has no feature {feat!r} here (features "
                                 f"{list(mine[0].features)})")
            found = _annotations(lines, mine[0].first_column + mine[0].features.index(feat), shown)
        else:
            found = []  # INCEpTION writes only the layers a file uses: nothing marked on this one
            absent.append(shown)
        if unit == "document":
            values = tuple(sorted({v for _, _, v, _ in found if v != "*"}))
            ratings.append(Rating(doc, rater, values or None, Where(shown, 1, "line")))
            continue
        annotated.setdefault(doc, set()).add(rater)
        spans.extend(Span(doc, rater, b, e, v, w) for b, e, v, w in found)
    if absent:
        notes.append(f"layer {chosen.name} is absent from {len(absent)} file(s) {absent[:5]}: read as nothing marked")
    if unit == "span":
        return spans_to_ratings(spans, annotated, SpanRule.parse(span_rule)), notes
    return ratings, notes
