"""brat standoff (``.ann``) files, one set per annotator.

Follows the brat standoff format (brat.nlplab.org/standoff.html): each ``.ann`` line is one
annotation; text-bound annotations read ``T<n><TAB><type> <start> <end>[;<start> <end>...]<TAB>
<text>`` with 0-based character offsets, end exclusive (``;`` separates the fragments of a
discontinuous span). Relations (``R``), events (``E``), attributes (``A``/``M``),
normalisations (``N``), equivalences (``*``) and notes (``#``) are not span labels and are
ignored.

brat keeps one ``.ann`` per document next to its ``.txt``; who annotated what is told from the
layout and the texts (``layout="auto"``, the default; the choice is in ``read_notes``):

- a folder of per-annotator folders, ``<annotator>/<document>.ann`` (documents may sit in
  sub-folders, named by their path), where some document appears under two folders (bratiaa's
  project layout): rater = the folder, document = the file's path below it
  (``layout="annotators"``);
- a brat collection, ``<document>.txt`` / ``<document>.ann`` pairs by one annotator, the way
  brat's own example corpora ship (the ``.txt`` siblings differ, or the sub-folders share no
  document): document = the file's path, rater = the folder's name or ``rater=``
  (``layout="documents"``);
- a folder of per-annotator files for a single document, ``<annotator>.ann`` (with identical
  ``.txt`` siblings, or none): rater = the file's stem, document = the folder's name
  (``layout="annotators"`` on a flat folder).

Items come from the text-bound spans by the span rule (a discontinuous span counts as its
extent, first start to last end); label: the annotation type. Event triggers are text-bound
annotations too: two on the same offsets (``T24 Catalysis 961 975`` / ``T25 Ubiquitination 961
975``) are stacked, one set-valued label by default (see :class:`SpanRule`); one span repeated
with the same type (``T1 PER 0 4`` / ``T2 PER 0 4``) counts once, with a ``SpanWarning``. An
``.ann`` file with no spans means the annotator marked nothing in that document (a document
whose files are all empty gives no item, and span agreement still counts it). Where the
``.txt`` is there, a span ending beyond its text is refused.
"""

from pathlib import Path
from typing import TYPE_CHECKING

from softirr_stats.data._readers import _common
from softirr_stats.data._readers._common import Where, check_choice, read_text, text_lines
from softirr_stats.data._readers._spans import Span, SpanRule, check_span, spans_to_ratings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_brat"]


_LAYOUTS = ("auto", "annotators", "documents")


def _texts_differ(files: list[Path], encoding: str) -> bool | None:
    """True when the ``.txt`` siblings of ``files`` differ, False when identical, None when absent."""
    txts = [f.with_suffix(".txt") for f in files]
    present = [t.is_file() for t in txts]
    if not any(present):
        return None
    if not all(present):
        missing = [t.name for t, ok in zip(txts, present, strict=True) if not ok][:3]
        raise ValueError(f"{files[0].parent}: some .ann files have a .txt sibling and some do not (missing "
                         f"{missing}); pass layout='annotators' or layout='documents'")
    first = txts[0].read_bytes()
    return any(t.read_bytes() != first for t in txts[1:])


def _layout(path: Path, layout: str, annotator: str | None, encoding: str) -> tuple[list[tuple[Path, str, str]], str]:
    """(file, document, rater) for each .ann file, and a note saying which layout was read."""
    if path.is_file():
        raise ValueError(f"{path.name}: one .ann file holds one annotator's labels; pass the folder of "
                         "per-annotator folders (<annotator>/<document>.ann), per-annotator files "
                         "(<annotator>.ann) or the collection (<document>.txt / <document>.ann)")
    folders = sorted(d for d in path.iterdir() if d.is_dir() and any(d.rglob("*.ann")))
    flat = sorted(path.glob("*.ann"))
    if folders and flat:
        raise ValueError(f"{path}: holds both .ann files and folders of .ann files; use one layout "
                         "(<annotator>/<document>.ann, or <annotator>.ann for one document)")
    if not folders and not flat:
        raise ValueError(f"{path}: no .ann files found")
    one = annotator or path.name
    if folders:
        per = {d: sorted(d.rglob("*.ann")) for d in folders}
        docs = {d: {f.relative_to(d).with_suffix("").as_posix() for f in fs} for d, fs in per.items()}
        shared = len(folders) == 1 or any(docs[a] & docs[b] for i, a in enumerate(folders) for b in folders[i + 1:])
        if layout == "documents" or (layout == "auto" and not shared):
            out = [(f, f.relative_to(path).with_suffix("").as_posix(), one) for fs in per.values() for f in fs]
            why = "" if layout != "auto" else " (no document appears in two sub-folders)"
            return out, (f"brat: a collection of {len(out)} documents in {len(folders)} sub-folders, by one "
                         f"annotator {one!r}{why}; pass layout='annotators' if each sub-folder is an annotator")
        for name in sorted(set().union(*docs.values())):  # one document must have one text
            same = [d / f"{name}.ann" for d in folders if name in docs[d]]
            if len(same) > 1 and _texts_differ(same, encoding):
                raise ValueError(f"{path}: the .txt of document {name!r} differs between annotator folders "
                                 f"{[f.parent.name for f in same]}; they are not the same document")
        out = [(f, f.relative_to(d).with_suffix("").as_posix(), d.name) for d, fs in per.items() for f in fs]
        return out, (f"brat: {len(folders)} annotator folders {[d.name for d in folders][:10]}, "
                     f"{len(set().union(*docs.values()))} documents")
    differ = _texts_differ(flat, encoding) if len(flat) > 1 else (flat[0].with_suffix(".txt").is_file() or None)
    if layout == "documents" or (layout == "auto" and differ):
        why = " (their .txt files differ)" if layout == "auto" and len(flat) > 1 else ""
        return ([(f, f.stem, one) for f in flat],
                f"brat: a collection of {len(flat)} documents by one annotator {one!r}{why}; pass "
                "layout='annotators' if the files are annotators of one document")
    why = {None: "no .txt siblings", False: "identical .txt siblings"}.get(differ, "layout='annotators'")
    if layout == "annotators":
        why = "layout='annotators'"
    return ([(f, path.name, f.stem) for f in flat],
            f"brat: {len(flat)} per-annotator files of one document {path.name!r} ({why}); pass "
            "layout='documents' if they are documents of one annotator")


def _spans(file: Path, shown: str, doc: str, rater: str, encoding: str) -> list[Span]:
    out = []
    txt = file.with_suffix(".txt")
    length = len(read_text(txt, encoding, shown[:-4] + ".txt")) if txt.is_file() else None
    for lineno, line in enumerate(text_lines(read_text(file, encoding, shown)), 1):
        if not line.startswith("T"):
            continue
        where = Where(shown, lineno, "line")
        fields = line.split("\t")
        if len(fields) < 2:
            raise ValueError(f"{where}: a text-bound annotation reads 'T<n><TAB><type> <start> <end><TAB><text>'; "
                             f"got {line!r}")
        label, _, offsets = fields[1].partition(" ")
        try:
            frags = [tuple(int(x) for x in frag.split()) for frag in offsets.split(";")]
        except ValueError:
            raise ValueError(f"{where}: offsets must be integers '<start> <end>[;<start> <end>]'; got {offsets!r}") from None
        if not label or not frags or any(len(f) != 2 for f in frags):
            raise ValueError(f"{where}: expected '<type> <start> <end>'; got {fields[1]!r}")
        start, end = check_span(doc, min(f[0] for f in frags), max(f[1] for f in frags), where, length)
        out.append(Span(doc, rater, start, end, label, where))
    return out


def read_brat(path: Path, *, span_rule: SpanRule | str | None = None, layout: str = "auto",
              annotator: str | None = None, encoding: str = "utf-8") -> "tuple[pd.DataFrame, list[str]]":
    """Ratings from brat standoff files (see the module docstring).

    Parameters
    ----------
    path : Path of the folder (per-annotator folders, per-annotator ``.ann`` files, or a collection).
    span_rule : SpanRule or str, optional
        How spans become items (default: exact spans; ``"overlap:0.5"`` from the command line).
    layout : {"auto", "annotators", "documents"}
        Who annotated what (see the module docstring); ``"auto"`` decides from the texts.
    annotator : str, optional
        The annotator's name for a collection by one annotator (default: the folder's name).
    encoding : str
        Text encoding of the files.
    """
    layout = check_choice("layout", layout, _LAYOUTS)
    spans: list[Span] = []
    annotated: dict[str, set[str]] = {}
    files, note = _layout(path, layout, annotator, encoding)
    for file, doc, who in _common.progress(files, total=len(files), desc=f"reading {path.name}",
                                           nbytes=len(files) * _common.PER_FILE):
        annotated.setdefault(doc, set()).add(who)
        spans.extend(_spans(file, file.relative_to(path).as_posix(), doc, who, encoding))
    return spans_to_ratings(spans, annotated, SpanRule.parse(span_rule)), [note]
