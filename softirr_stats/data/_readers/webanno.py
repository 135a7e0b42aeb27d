"""INCEpTION / WebAnno TSV3 (``WebAnno TSV v3.x``), one file per annotator and document.

Follows the WebAnno TSV 3 format of the INCEpTION user guide (appendix "WebAnno TSV3.x File
format"): a ``#FORMAT=WebAnno TSV 3.x`` line; one ``#T_SP=`` (span), ``#T_CH=`` (chain) or
``#T_RL=`` (relation) line per layer, listing the layer's features after ``|`` (one column each);
``#Text=`` sentence lines; then one line per token: ``sentence-token``, ``begin-end``, the token,
and one column per feature. A cell is ``_`` (none) or ``|``-separated values; ``*`` is an
annotation whose feature is empty (read as the label ``"*"``; ignored with
``unit="document"``); a ``[n]`` suffix ties the tokens of one multi-token
annotation together. Escaped characters (``\\|``, ``\\_``, ``\\[`` ...) are unescaped.

INCEpTION's project export keeps annotators apart as ``annotation/<document>/<user>.tsv``:

- rater: the file's stem (the user); document: the name of the folder holding the file.
  ``INITIAL_CAS`` and ``CURATION_USER`` files (the unannotated document, the curated result)
  are not annotators and are skipped with a warning.
- ``unit="span"`` (default): each annotation of the chosen layer is a span (token offsets
  joined over its ``[n]`` tokens); items by the span rule; label: the feature value.
- ``unit="document"``: the document is the item; label: the feature value(s) the rater gave in
  it (several distinct values -> a set); no value is a missing rating.
"""

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from softirr_stats.data._readers._common import Rating, Where, warn_skipped
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
        raise ValueError(f"{name}: no span layer (#T_SP=) in the header")
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


def _files(path: Path) -> list[tuple[Path, str, str]]:
    """(file, document, rater) for a folder of <document>/<user>.tsv files (or one file)."""
    if path.is_file():
        return [(path, path.parent.name, path.stem)]
    files = sorted(p for p in path.rglob("*.tsv") if p.is_file())
    if not files:
        raise ValueError(f"{path}: no .tsv files (expected annotation/<document>/<user>.tsv)")
    kept = [p for p in files if p.stem not in _NOT_ANNOTATORS]
    warn_skipped(len(files) - len(kept), len(files), f"{' / '.join(_NOT_ANNOTATORS)} files are not annotators",
                 path.name, stacklevel=6)
    return [(p, p.parent.name, p.stem) for p in kept]


def read_webanno_tsv(path: Path, *, layer: str | None = None, feature: str | None = None,
                     unit: Literal["span", "document"] = "span",
                     span_rule: SpanRule | None = None) -> "list[Rating] | pd.DataFrame":
    """Ratings from WebAnno TSV3 files (see the module docstring).

    Parameters
    ----------
    path : Path of a folder of ``<document>/<user>.tsv`` files.
    layer : str, optional
        Span layer (full name or its last part, e.g. ``"NamedEntity"``); needed when several.
    feature : str, optional
        Feature of the layer to read (default: the only one, else ``"value"``).
    unit : {"span", "document"}
        Items are spans (by the span rule) or whole documents.
    span_rule : SpanRule, optional
        How spans become items (default: exact spans).
    """
    if unit not in _UNITS:
        raise ValueError(f"unit must be one of {list(_UNITS)}; got {unit!r}")
    ratings: list[Rating] = []
    spans: list[Span] = []
    annotated: dict[str, set[str]] = {}
    for file, doc, rater in _files(path):
        lines = file.read_text(encoding="utf-8").splitlines()
        shown = str(file.relative_to(path)) if path.is_dir() else file.name
        _, column = _pick(_layers(lines, shown), layer, feature, shown)
        found = _annotations(lines, column, shown)
        if unit == "document":
            values = tuple(sorted({v for _, _, v, _ in found if v != "*"}))
            ratings.append(Rating(doc, rater, values or None, Where(shown, 1, "line")))
            continue
        annotated.setdefault(doc, set()).add(rater)
        spans.extend(Span(doc, rater, b, e, v, w) for b, e, v, w in found)
    if unit == "span":
        return spans_to_ratings(spans, annotated, span_rule or SpanRule())
    return ratings
