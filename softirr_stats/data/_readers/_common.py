"""What every export reader shares: ratings with their source, and one way to build Annotations.

A reader turns a tool's export into :class:`Rating` records (item, rater, label, and where in
which file the record came from); :func:`ratings_to_annotations` encodes them. Labels are
``None`` (a rater who opened the item but gave no label), a str or number, or a tuple of str
(several choices / taxonomy paths / span labels). Tuples follow one rule for the whole file:
when every rating holds exactly one element they become plain strings, otherwise every rating
becomes a set (set-valued labels, see ``multilabel_agreement``).
"""

import contextvars
import json
import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from softirr_stats.base._validation import SoftIRRWarning, user_stacklevel
from softirr_stats.data import _input
from softirr_stats.data._annotations import Annotations
from softirr_stats.data._input import BOMLESS_HEAD, bomless_message, not_text_message, parsing

__all__ = ["DUPLICATES", "EMPTY_DOCUMENTS", "ExportWarning", "OptionError", "Rating", "Where", "check_number", "coerce_bool", "text_lines",
           "is_zip", "iter_jsonl",
           "drop_na_labels", "label_sets", "load_json", "parse_json", "pick_repeats", "ratings_frame", "ratings_to_annotations", "read_text",
           "warn_skipped"]

#: set (to the file's stem) while a file of a list read with ``rater_from="file"`` is read: a reader that
#: finds no annotator field in a record (a Prodigy task without ``_annotator_id``, a Label Studio record
#: without ``annotator``) takes the file's name instead of refusing the record
FILE_RATER: "contextvars.ContextVar[str | None]" = contextvars.ContextVar("FILE_RATER", default=None)

#: what to do with repeated answers of one rater to one item
DUPLICATES = ("last", "first", "error")


class OptionError(ValueError, TypeError):
    """A reader option that does not exist or has a bad value (a ValueError and a TypeError).

    Examples
    --------
    >>> issubclass(OptionError, ValueError) and issubclass(OptionError, TypeError)
    True
    """


def coerce_bool(name: str, value: Any) -> bool:
    """A boolean option, also from the command-line strings "true"/"false" (yes/no, 1/0).

    Examples
    --------
    >>> coerce_bool("x", "True"), coerce_bool("x", 0)
    (True, False)
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "on", "false", "no", "0", "off"):
        return value.strip().lower() in ("true", "yes", "1", "on")
    raise OptionError(f"{name} must be true or false; got {value!r}")


def check_choice(name: str, value: Any, choices: tuple[str, ...]) -> str:
    """A string option that must be one of ``choices``; the error lists them."""
    if not isinstance(value, str) or value not in choices:
        from softirr_stats.base._suggest import did_you_mean

        raise OptionError(f"{name} must be one of {list(choices)}; got {value!r}{did_you_mean(value, choices)}")
    return value


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def text_lines(text: str) -> list[str]:
    r"""Lines of a file's text, broken at ``\n``, ``\r\n`` or ``\r`` only.

    ``str.splitlines`` also breaks at U+2028, U+2029, U+0085 and form feeds, which JSON strings and
    the text fields of brat / WebAnno lines may hold: a line would be cut inside a value.

    Examples
    --------
    >>> text_lines('{"label": "a\u2028b"}\r\n{"label": "c"}\n')
    ['{"label": "a\u2028b"}', '{"label": "c"}']
    >>> len(text_lines("one\u2028line\n"))
    1
    >>> text_lines("")
    []
    """
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":  # a final line break ends the last line, it does not start one
        lines.pop()
    return lines


def read_text(path: Path, encoding: str = "utf-8", shown: str | None = None) -> str:
    """The text of a file; bytes that do not decode raise a ValueError naming the file and ``encoding=``."""
    data = path.read_bytes()
    return decode(data, shown or path.name, encoding)


_GZIP_MAGIC = b"\x1f\x8b"


def gunzip(data: bytes, shown: str) -> bytes:
    """``data`` decompressed when it is gzip (how exports are often shared: ``db-out > x.jsonl.gz``), at most
    :func:`~softirr_stats.data._input.unpack_cap` bytes in all.

    Every member is read (RFC 1952: ``cat a.gz b.gz``, ``gzip >>``, pigz and bgzip write several), zero
    bytes padding the end are skipped, and a stream that stops before its end marker (a file cut off in
    a download or a copy) is refused: nothing is returned from part of a file. The size a trailer
    declares is not used (in a cut file its last four bytes are data, and a member's size is modulo 4 GiB):
    the cap is checked on the bytes unpacked.

    Examples
    --------
    >>> import gzip
    >>> gunzip(gzip.compress(b"a\\n") + gzip.compress(b"b\\n"), "x.jsonl.gz")
    b'a\\nb\\n'
    """
    if not data.startswith(_GZIP_MAGIC):
        return data
    import zlib

    cap = _input.unpack_cap()
    view, pos, total, parts = memoryview(data), 0, 0, []
    while pos < len(data):
        d = zlib.decompressobj(wbits=31)
        while not d.eof and pos < len(data):
            chunk = view[pos:pos + _GZIP_STEP]  # in steps: each member's rest is never copied (bgzip has thousands)
            try:
                out = d.decompress(chunk, cap + 1 - total)
            except zlib.error as err:
                raise ValueError(f"{shown}: a gzip file that cannot be decompressed ({err})") from None
            total += len(out)
            parts.append(out)
            if total > cap:
                raise _input.too_large(shown, f"a gzip file that unpacks to more than {_input.size_text(cap)}", cap)
            pos += len(chunk) - len(d.unconsumed_tail) - len(d.unused_data)
        if not d.eof:
            raise ValueError(f"{shown}: the gzip file ends early: damaged or cut off ({total} bytes unpacked so "
                             "far); download or copy it again (gzip -t checks a file)")
        rest = view[pos:]
        if bytes(rest[:2]) != _GZIP_MAGIC:
            if rest.tobytes().strip(b"\0"):
                raise ValueError(f"{shown}: the gzip file holds {len(rest)} bytes after its compressed data that are "
                                 "not gzip (damaged, or something appended to it); download or copy it again")
            break  # zero padding (tape blocks, some copy tools): no data in it
    return b"".join(parts)


#: compressed bytes handed to zlib at a time by :func:`gunzip`
_GZIP_STEP = 1 << 20


_ZIP_MAGIC = b"PK\x03\x04"


def is_zip(path: Path) -> bool:
    """Whether ``path`` is a zip archive; a file that starts as one but cannot be opened (its directory, at the
    end, is missing: cut off in a download or a copy, or damaged) raises a ValueError saying so.

    Examples
    --------
    >>> import pathlib, tempfile, zipfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "export.zip"
    >>> with zipfile.ZipFile(path, "w") as zf:
    ...     zf.writestr("alice.jsonl", "{}")
    >>> is_zip(path)
    True
    >>> _ = path.write_bytes(path.read_bytes()[:40])
    >>> is_zip(path)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: export.zip: a damaged zip archive: ...
    """
    import zipfile

    if not path.is_file():
        return False
    if zipfile.is_zipfile(path):
        return True
    with path.open("rb") as fh:
        head = fh.read(len(_ZIP_MAGIC))
    if head == _ZIP_MAGIC:
        raise ValueError(f"{path.name}: a damaged zip archive: it starts as one, but its directory (at the end of the "
                         "file) is missing or broken, so it was cut off (a download or copy that stopped) or damaged; "
                         "download or export it again (unzip -t checks an archive)")
    return False


def zip_entries(zf: Any, shown: str, keep: Any) -> list[Any]:
    """The entries of an open zip whose name ``keep`` accepts (files only), checked before anything is unpacked:

    - two entries of one name are refused (only one could be read, the other would be lost silently);
    - each entry, and all of them together, must unpack to at most the cap (the sizes the archive
      declares; ``zipfile`` never unpacks past a declared size).

    Read each with ``zf.read(info)``.
    """
    from collections import Counter

    infos = [i for i in zf.infolist() if not i.is_dir() and keep(i.filename)]
    counts = Counter(i.filename for i in infos)
    twice = sorted(n for n, c in counts.items() if c > 1)
    if twice:
        raise ValueError(f"{shown}: the archive holds {counts[twice[0]]} entries named {twice[0]!r}"
                         f"{f' (and {len(twice) - 1} more names twice)' if len(twice) > 1 else ''}; only one of them "
                         "could be read and which one is meant is unknown: remove the extra copies (zip -d) or export "
                         "the project again")
    cap = _input.unpack_cap()
    for i in infos:
        if i.file_size > cap:
            raise _input.too_large(f"{shown}:{i.filename}", f"this entry unpacks to {_input.size_text(i.file_size)} "
                                   f"(from {_input.size_text(i.compress_size)} packed)", cap)
    total = sum(i.file_size for i in infos)
    if total > cap:
        raise _input.too_large(shown, f"its {len(infos)} entries unpack to {_input.size_text(total)} together", cap)
    return infos


def decode(data: bytes, shown: str, encoding: str = "utf-8") -> str:
    """Bytes as text (gzip decompressed, a UTF-8 byte-order mark dropped); a bad byte names the file and the option,
    and so does UTF-16 / UTF-32 text without a byte-order mark read as another encoding.

    Examples
    --------
    >>> import gzip
    >>> decode(gzip.compress("caf\u00e9".encode()), "x.jsonl.gz")
    'café'
    """
    data = gunzip(data, shown)
    wrong = bomless_message(shown, data[:BOMLESS_HEAD], encoding)
    if wrong is not None:  # UTF-16 without its mark: every zero byte is UTF-8, read as a character
        raise ValueError(wrong)
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise ValueError(not_text_message(f"{shown}, line {line}", data, err.start, encoding)) from None
    except LookupError:
        raise OptionError(f"encoding must be a codec Python knows (e.g. 'utf-8', 'latin-1'); got {encoding!r}") from None
    return text.lstrip("\ufeff")


_BIG_INT = re.compile(r"-?\d{309,}")
_FLOAT_MAX = 1.7976931348623157e308


def check_number(value: Any, where: Any, what: str = "number") -> Any:
    """A number that fits a float (an integer over 1.8e308 would overflow later): else a ValueError."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > _FLOAT_MAX:
        digits = len(str(abs(value)))
        raise ValueError(f"{where}: {what} {str(value)[:20]}... ({digits} digits) is beyond the float range "
                         "(|x| > 1.8e308); labels and scores must be finite numbers")
    return value


def _checked_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise OverflowError(text)
    return value


class _NotJsonNumber(Exception):
    """A ``NaN`` / ``Infinity`` / ``-Infinity`` token (raised inside ``json.loads``; :func:`parse_json` names it)."""


def _refused_constant(token: str) -> float:
    raise _NotJsonNumber(token)


#: where a refused constant stands (after ``:``, ``[`` or ``,``), to name its line in a JSON document
_CONSTANT_AT = re.compile(r"(?<=[:\[,])\s*(-?(?:NaN|Infinity))(?=\s*[,\]}])")


class _RepeatedKey(Exception):
    """A JSON object names a key twice (raised inside ``json.loads``; :func:`parse_json` names it)."""


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        raise _RepeatedKey(next(k for k, _ in pairs if k in seen or seen.add(k)))
    return obj


def parse_json(text: str, where: str, line: int | None = None) -> Any:
    """``json.loads`` whose failures are one-line ValueErrors starting with ``where``.

    Covers syntax errors (line and column), nesting too deep for the parser, floats beyond the
    float range (``1e999``), the tokens ``NaN``, ``Infinity`` and ``-Infinity`` (which Python's json
    reads but JSON does not have: a NaN would become a missing rating without a word, and turn integer
    labels into floats), integers too long to parse and a key written twice in one object
    (``json.loads`` keeps the last value without a word); integers over 1e308 that do parse
    are checked where they are used as numbers (:func:`check_number`).

    Examples
    --------
    >>> parse_json('{"label": "x", "label": "y"}', "a.jsonl", 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a.jsonl, line 3: the key 'label' appears twice in one JSON object (values 'x' and 'y'): only one ...
    """
    if line is not None:
        where = f"{where}, line {line}"
    # floats are checked as they are parsed (1e999 would be inf); an integer too large for a float
    # is checked where it is used as a number (see check_number): a hook per integer costs too much
    try:
        return json.loads(text, parse_float=_checked_float, parse_constant=_refused_constant,
                          object_pairs_hook=_unique_keys)
    except _NotJsonNumber as err:
        m = _CONSTANT_AT.search(text)
        at = text.count("\n", 0, m.start(1)) + 1 if m and line is None else None
        raise ValueError(f"{where}{f', line {at}' if at else ''}: number {err.args[0]} is not a JSON number (NaN, "
                         "Infinity and -Infinity are not JSON); labels and scores must be finite numbers: write null "
                         "for a missing value") from None
    except _RepeatedKey as err:
        key = err.args[0]
        raise ValueError(f"{where}: the key {key!r} appears twice in one JSON object{_both_values(text, key)}: "
                         "only one could be read, and which one is meant is unknown; keep one in the export") from None
    except json.JSONDecodeError as err:
        if line is not None:
            raise ValueError(f"{where}: not valid JSON ({err.msg})") from None
        raise ValueError(f"{where}, line {err.lineno}, column {err.colno}: not valid JSON ({err.msg})") from None
    except RecursionError:
        raise ValueError(f"{where}: JSON nested too deeply to read (more than about "
                         f"{__import__('sys').getrecursionlimit()} levels); an export is never this deep") from None
    except (OverflowError, ValueError) as err:
        m = _BIG_INT.search(text) or re.search(r"-?\d+(?:\.\d+)?[eE][+-]?\d+", text)
        at = text.count("\n", 0, m.start()) + 1 if m and line is None else None
        tok = m.group(0) if m else str(err)[:40]
        got = tok if len(tok) <= 20 else f"{tok[:20]}... ({len(tok.lstrip('-'))} digits)"
        raise ValueError(f"{where}{f', line {at}' if at else ''}: number {got} is beyond the float range "
                         "(|x| > 1.8e308); labels and scores must be finite numbers") from None



def _both_values(text: str, key: str) -> str:
    """The first two values of ``key`` in the JSON object of ``text`` that repeats it, for the error (error path)."""
    found: list[Any] = []

    def collect(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        values = [v for k, v in pairs if k == key]
        if len(values) > 1 and not found:
            found.extend(values[:2])
        return dict(pairs)

    try:
        json.loads(text, object_pairs_hook=collect)
    except (ValueError, RecursionError):  # the text is also bad further on: named once the key is fixed
        pass
    shown = [repr(v) if len(repr(v)) <= 40 else f"{repr(v)[:37]}..." for v in found]
    return f" (values {shown[0]} and {shown[1]})" if found else ""


#: key of a span reader's ratings table's ``attrs`` and of the Annotations' read-time record: the (document,
#: rater) pairs of the documents annotated without any span, which give no item (``_spans.spans_to_ratings``)
EMPTY_DOCUMENTS = "span_documents_without_spans"


class ExportWarning(SoftIRRWarning):
    """An export reader skipped records (cancelled, ignored, not annotators) or resolved repeated answers.

    A guessed format is not a warning: it is a read note (``Annotations.read_notes``).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("skipped 2 cancelled annotations", ExportWarning)
    >>> caught[0].category.__name__, issubclass(ExportWarning, UserWarning)
    ('ExportWarning', True)
    """


@dataclass(frozen=True)
class Where:
    """Where a record came from, for error messages: file name and record/line number."""

    file: str
    record: int
    unit: str = "record"

    def __str__(self) -> str:
        return f"{self.file}, {self.unit} {self.record}"


@dataclass(frozen=True)
class Rating:
    """One rating of one item by one rater, with its source."""

    item: str
    rater: str
    label: Any
    where: Where


def load_json(path: Path, encoding: str = "utf-8") -> Any:
    """Parse a whole JSON file; a syntax error, deep nesting or an overflowing number names the file."""
    size = path.stat().st_size
    with parsing(size, f"parsing {path.name}"):  # a one-step bar: json.loads cannot report progress
        return parse_json(read_text(path, encoding), path.name)


def iter_jsonl(lines: Iterable[str], name: str) -> Iterator[tuple[Where, dict[str, Any]]]:
    """Yield (where, object) for each non-blank line; bad JSON or a non-object names the line."""
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        obj = parse_json(line, name, lineno)
        if not isinstance(obj, dict):
            raise ValueError(f"{name}, line {lineno}: each line must be a JSON object; got {type(obj).__name__}")
        yield Where(name, lineno, "line"), obj


def iter_json_records(text: str, name: str) -> Iterator[tuple[Where, dict[str, Any]]]:
    """Yield (where, object) for each record of a JSON array of objects (``to_json(orient="records")``);
    bad JSON, or an element that is not an object, names the record.

    Examples
    --------
    >>> [(str(w), r) for w, r in iter_json_records('[{"item": 1}, {"item": 2}]', "a.json")]
    [('a.json, record 1', {'item': 1}), ('a.json, record 2', {'item': 2})]
    """
    data = parse_json(text, name)
    if not isinstance(data, list):
        raise ValueError(f"{name}: a JSON table is an array of records or JSON Lines; got a {type(data).__name__}")
    for k, obj in enumerate(data, 1):
        if not isinstance(obj, dict):
            raise ValueError(f"{name}, record {k}: each record must be a JSON object; got {type(obj).__name__}")
        yield Where(name, k), obj


def pick_repeats(keys: "pd.DataFrame", order: Any, policy: str, source: str, what: str = "answers",
                 differs: Any = None, wheres: Any = None) -> Any:
    """Which of several records of one (item, rater) to keep: a boolean mask over ``keys``' rows.

    ``keys`` has one row per record (the columns that identify an answer, e.g. item and rater);
    ``order`` sorts the records of a key (a timestamp; file order breaks ties); ``policy`` keeps
    the ``"last"`` or the ``"first"``, or raises (``"error"``) naming the first repeat. A kept
    repeat is announced with an :class:`ExportWarning` counting repeats and, given ``differs``
    (a label per row), how many changed the answer.
    """
    import numpy as np

    policy = check_choice("duplicates", policy, DUPLICATES)
    n = len(keys)
    if n == 0:
        return np.ones(0, dtype=bool)
    cols = list(keys.columns)
    frame = keys.reset_index(drop=True).copy()
    frame["_order"] = pd.Series(order if order is not None else np.arange(n)).reset_index(drop=True)
    frame["_pos"] = np.arange(n)
    repeated = frame.duplicated(cols, keep=False).to_numpy()
    if not repeated.any():
        return np.ones(n, dtype=bool)
    if policy == "error" and wheres is not None:
        dup2 = frame.duplicated(cols, keep="first").to_numpy()
        k2 = int(np.flatnonzero(dup2)[0])
        k1 = int(np.flatnonzero((frame[cols] == frame.loc[k2, cols]).all(axis=1).to_numpy())[0])
        raise ValueError(f"{wheres[k2]}: rater {frame.loc[k2, cols[-1]]!r} labels item {frame.loc[k2, cols[0]]!r} "
                         f"a second time (first at {wheres[k1]}); pass duplicates='last' or 'first' to keep one")
    if policy == "error":
        first = frame.loc[repeated].iloc[0]
        raise ValueError(f"{source}: {', '.join(f'{c} {first[c]!r}' for c in cols)} answered more than once "
                         f"({int(repeated.sum() - frame.loc[repeated].drop_duplicates(cols).shape[0])} repeated "
                         f"{what} in all); pass duplicates='last' or 'first' to keep one")
    ranked = frame.sort_values(["_order", "_pos"], kind="stable", na_position="first")
    keep_rows = ranked.drop_duplicates(cols, keep="last" if policy == "last" else "first")["_pos"].to_numpy()
    keep = np.zeros(n, dtype=bool)
    keep[keep_rows] = True
    n_rep = int(n - keep.sum())
    changed = ""
    if differs is not None:
        lab = pd.Series(list(differs), dtype=object).map(repr)
        n_diff = int(pd.DataFrame({**{c: frame[c] for c in cols}, "lab": lab})[repeated]
                     .groupby(cols, sort=False)["lab"].nunique().gt(1).sum())
        changed = f"; {n_diff} of them changed the answer"
    by = "by timestamp" if order is not None else "in file order"
    warnings.warn(f"{source}: {n_rep} repeated {what} of the same item by the same rater{changed}; kept the "
                  f"{policy} {by} (duplicates='{policy}'; 'first' / 'error' to change)", ExportWarning,
                  stacklevel=user_stacklevel())
    return keep


#: a folder of many small files counts this many bytes a file towards ``_input.BIG_INPUT`` (the cost
#: of opening each)
PER_FILE = 10_000


def progress(iterable: Any, *, total: int | None, desc: str, nbytes: int) -> Any:
    """``iterable`` wrapped in a tqdm bar (on a terminal, not with ``SOFTIRR_PROGRESS=0``:
    :func:`softirr_stats.base._bars.bars_wanted`) when the input is big enough to take over about
    2 s (``nbytes > _input.BIG_INPUT``); else ``iterable`` itself."""
    if nbytes <= _input.BIG_INPUT:  # read at call time, so that tests can lower it
        return iterable
    from softirr_stats.base._bars import progress_bar

    return progress_bar(total, desc, unit="", iterable=iterable, unit_scale=True)


def warn_skipped(n: int, total: int, what: str, source: str) -> None:
    """Say how many records a reader left out and why (nothing is dropped silently), at the user's call."""
    if n:
        warnings.warn(f"{source}: {n} of {total} records skipped ({what})", ExportWarning, stacklevel=user_stacklevel())


def drop_na_labels(labels: list[Any], na_values: Iterable[str]) -> list[Any]:
    """``labels`` with those in ``na_values`` read as missing (``None``), as ``na_values=`` reads a table's cells:
    a text label equal to one of them is a missing rating; a set of labels (several choices, stacked span types)
    loses that term, and a set left with none is a missing rating. Numbers are not text and are kept (as in a
    JSON table).

    Examples
    --------
    >>> drop_na_labels(["pos", "Unsure", ("pos", "Unsure"), ("Unsure",), frozenset({"neg", "Unsure"}), 3, None],
    ...                ["Unsure"])
    ['pos', None, ('pos',), None, frozenset({'neg'}), 3, None]
    """
    na = set(na_values)
    if not na:
        return labels

    def drop(lab: Any) -> Any:
        if isinstance(lab, str):
            return None if lab in na else lab
        if isinstance(lab, tuple | frozenset):
            left = type(lab)(x for x in lab if not (isinstance(x, str) and x in na))
            return left or None
        return lab

    return [drop(lab) for lab in labels]


def _collapse_tuples(labels: list[Any]) -> list[Any]:
    tuples = [lab for lab in labels if isinstance(lab, tuple)]
    if not tuples:
        return labels
    if all(len(t) == 1 for t in tuples):
        return [lab[0] if isinstance(lab, tuple) else lab for lab in labels]
    # set-valued: every label becomes a set (a plain label, e.g. the unmatched "O", a singleton)
    return [frozenset(lab) if isinstance(lab, tuple) else (None if lab is None else frozenset([lab]))
            for lab in labels]


def label_sets(ratings: "list[Rating] | pd.DataFrame", source: str) -> list[Rating]:
    """The ratings of ``multilabel=True`` (doccano, Label Studio): every label a set of text, a single label a
    singleton, a missing rating missing. A multi-label project whose answers all happened to hold one label reads
    as sets, not as single labels (the collapse a single-choice project needs, docs/readers.md).

    Examples
    --------
    >>> w = Where("a.jsonl", 1, "line")
    >>> [r.label for r in label_sets([Rating("1", "ann", ("fever",), w), Rating("2", "ann", None, w)], "a.jsonl")]
    [frozenset({'fever'}), None]
    """
    if not isinstance(ratings, list):  # a span reader's table
        raise ValueError(f"{source}: multilabel=True reads category labels (choices) as sets; this export holds spans "
                         "(stacked span types are sets already)")
    bad = next((r for r in ratings if r.label is not None and not isinstance(r.label, str | tuple)), None)
    if bad is not None:
        raise ValueError(f"{bad.where}: multilabel=True makes sets of text labels; got {bad.label!r} (a "
                         f"{type(bad.label).__name__}): leave out multilabel for numbers and ratings")
    return [r if r.label is None else Rating(r.item, r.rater, frozenset(r.label if isinstance(r.label, tuple)
                                                                        else (r.label,)), r.where)
            for r in ratings]


def ratings_frame(ratings: list[Rating]) -> pd.DataFrame:
    """Ratings as a table with columns item, rater, label, where."""
    return pd.DataFrame({"item": [r.item for r in ratings], "rater": [r.rater for r in ratings],
                         "label": pd.Series([r.label for r in ratings], dtype=object),
                         "where": pd.Series([r.where for r in ratings], dtype=object)})


def ratings_to_annotations(ratings: "list[Rating] | pd.DataFrame", *, source: str,
                           categories: Any = None, notes: Any = (), normalize: str | None = None,
                           na_values: Iterable[str] = ()) -> Annotations:
    """Encode ratings (a list, or a table from :func:`ratings_frame`); a repeated (item, rater)
    names both records; empty input says so. One rater is allowed (one annotator's export, to be
    merged with others); ``notes`` become the result's ``read_notes``. A span reader's documents annotated
    without any span (the ``attrs[EMPTY_DOCUMENTS]`` of its table) are kept with the result. A label
    in ``na_values`` is a missing rating (:func:`drop_na_labels`)."""
    df = ratings_frame(ratings) if isinstance(ratings, list) else ratings
    empty_documents = df.attrs.get(EMPTY_DOCUMENTS)
    if len(df) == 0:
        raise ValueError(f"{source}: the export holds no annotations")
    repeated = df.duplicated(["item", "rater"], keep="first")
    if repeated.any():
        second = df.loc[repeated].iloc[0]
        first = df.loc[(df["item"] == second["item"]) & (df["rater"] == second["rater"])].iloc[0]
        raise ValueError(
            f"{second['where']}: rater {second['rater']!r} labels item {second['item']!r} a second time "
            f"(first at {first['where']}); one rating per (item, rater) is expected"
        )
    raters = df["rater"].unique()
    notes = list(notes)
    if len(raters) < 2:
        notes.append(f"{source}: one rater ({raters[0]!r}); merge it with the other annotators' exports "
                     "(read_annotations([...]) or Annotations.concat) before computing agreement")
    raw = df["label"].tolist()
    kept = drop_na_labels(raw, na_values)
    labels = pd.Series(_collapse_tuples(kept), dtype=object, index=df.index)
    table = pd.DataFrame({"item": df["item"], "rater": df["rater"], "label": labels})
    if labels.isna().all():
        if any(lab is not None for lab in raw):
            raise ValueError(f"{source}: every label is one of na_values {list(na_values)} (read as missing); "
                             "no rating is left")
        raise ValueError(f"{source}: the export holds no labels (every annotation is empty)")
    ann = Annotations._from_long_any(table, categories=categories, normalize=normalize)
    if notes:
        ann._cache["read_notes"] = tuple(notes)
    if empty_documents:
        ann._cache[EMPTY_DOCUMENTS] = empty_documents
    return ann
