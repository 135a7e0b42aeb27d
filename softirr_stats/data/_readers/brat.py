"""brat standoff (``.ann``) files, one set per annotator.

Follows the brat standoff format (brat.nlplab.org/standoff.html): each ``.ann`` line is one
annotation; text-bound annotations read ``T<n><TAB><type> <start> <end>[;<start> <end>...]<TAB>
<text>`` with 0-based character offsets, end exclusive (``;`` separates the fragments of a
discontinuous span). Relations (``R``), events (``E``), attributes (``A``/``M``),
normalisations (``N``), equivalences (``*``) and notes (``#``) are not span labels and are
ignored.

brat keeps one ``.ann`` per document; annotators are told apart by the layout:

- a folder of per-annotator folders, ``<annotator>/<document>.ann`` (documents may sit in
  sub-folders, named by their path): rater = the folder, document = the file's path below it;
- or one folder of per-annotator files for a single document, ``<annotator>.ann``: rater = the
  file's stem, document = the folder's name.

Items come from the text-bound spans by the span rule (a discontinuous span counts as its
extent, first start to last end); label: the annotation type. An ``.ann`` file with no spans
means the annotator marked nothing in that document.
"""

from pathlib import Path
from typing import TYPE_CHECKING

from softirr_stats.data._readers._common import Where
from softirr_stats.data._readers._spans import Span, SpanRule, check_span, spans_to_ratings

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["read_brat"]


def _layout(path: Path) -> list[tuple[Path, str, str]]:
    """(file, document, rater) for each .ann file."""
    if path.is_file():
        raise ValueError(f"{path.name}: one .ann file holds one annotator's labels; pass the folder of "
                         "per-annotator folders (<annotator>/<document>.ann) or files (<annotator>.ann)")
    folders = sorted(d for d in path.iterdir() if d.is_dir() and any(d.rglob("*.ann")))
    if folders and any(path.glob("*.ann")):
        raise ValueError(f"{path}: holds both .ann files and folders of .ann files; use one layout "
                         "(<annotator>/<document>.ann, or <annotator>.ann for one document)")
    if folders:
        return [(f, f.relative_to(d).with_suffix("").as_posix(), d.name)
                for d in folders for f in sorted(d.rglob("*.ann"))]
    files = sorted(path.glob("*.ann"))
    if not files:
        raise ValueError(f"{path}: no .ann files found")
    return [(f, path.name, f.stem) for f in files]


def _spans(file: Path, shown: str, doc: str, rater: str) -> list[Span]:
    out = []
    for lineno, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
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
        start, end = check_span(doc, min(f[0] for f in frags), max(f[1] for f in frags), where)
        out.append(Span(doc, rater, start, end, label, where))
    return out


def read_brat(path: Path, *, span_rule: SpanRule | None = None) -> "pd.DataFrame":
    """Ratings from brat standoff files (see the module docstring).

    Parameters
    ----------
    path : Path of the folder (per-annotator folders, or per-annotator ``.ann`` files).
    span_rule : SpanRule, optional
        How spans become items (default: exact spans).
    """
    spans: list[Span] = []
    annotated: dict[str, set[str]] = {}
    for file, doc, rater in _layout(path):
        annotated.setdefault(doc, set()).add(rater)
        spans.extend(_spans(file, file.relative_to(path).as_posix(), doc, rater))
    return spans_to_ratings(spans, annotated, span_rule or SpanRule())
