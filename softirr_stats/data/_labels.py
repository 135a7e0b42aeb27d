"""Label identity, decided once for every reader: which texts are numbers, which labels look alike.

Every reader funnels its distinct labels through here (``docs/unusual_input.md``, "Label identity"):

- :func:`text_numbers`: a column of text cells (CSV / TSV, a Label Studio CSV export) is numeric
  only when **every distinct text is written as a plain decimal number** (optional sign, ASCII
  digits, optional fraction and exponent: no spaces, underscores, other scripts' digits,
  ``nan`` / ``inf``) and **distinct texts name distinct numbers that keep their identity**:
  integers written without a fraction or exponent become exact Python integers at any size,
  other texts float64, and two texts naming one number (``01`` and ``1``, ``1.0`` and ``1``,
  ``1e3`` and ``1000``) or numbers float64 cannot tell apart keep the whole column as text, with
  a :class:`LabelWarning` counting them.
- :func:`check_labels` (called by ``Annotations._from_cells``, under every constructor and
  reader): distinct text labels (and distinct terms inside set labels) that look alike (Unicode forms, full-width letters, zero-width
  characters, spaces at the ends, letters of another script that print as Latin ones: a Cyrillic
  ``а``, U+0430, in ``cafe``) are kept apart and counted in a :class:`LabelWarning` naming
  ``normalize=``; float labels that are whole numbers beyond 2**53 (where float64 holds only some
  integers, so neighbouring integers may have merged before the data reached softirr) are named, and
  so are labels that pandas or R would have read as missing values (:data:`MISSING_MARKERS`: "NA",
  "null", "None", ...), which are labels here, empty or blank texts (a blank cell kept as ``""``), and numbers written with a decimal comma ("3,5"),
  which are categories unless the reader is given ``decimal=","`` (``text_numbers(..., decimal=",")``).

The work is on the distinct labels only, by whole arrays (NumPy, and pyarrow's compute kernels
for large vocabularies when pyarrow is installed); Python code runs only on the labels a warning
names.
"""

from __future__ import annotations

import re
import unicodedata
import warnings
from typing import Any

import numpy as np

from softirr_stats.base._format import MESSAGE_CHARS, short_repr, short_reprs
from softirr_stats.base._validation import SoftIRRWarning, user_stacklevel

__all__ = ["EXACT_INTEGERS", "LabelWarning", "MISSING_MARKERS", "beyond_case", "check_labels", "check_names",
           "decimal_comma_hint",
           "decimal_comma_numbers", "lookalike_groups", "set_terms", "text_numbers", "warn_decimal_point"]

#: float64 holds every integer of magnitude up to this, and only some beyond
EXACT_INTEGERS = 2**53

#: texts that pandas' readers (and, for "NA", R's) take for a missing value by default; softirr reads
#: them as labels, and names them in a LabelWarning
MISSING_MARKERS = frozenset({"#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
                             "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})
#: a plain decimal number: sign, ASCII digits, fraction, exponent (nothing else, no spaces)
_NUMBER = r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?"
_INTEGER = r"[+-]?[0-9]+"
_NUMBER_RE = re.compile(_NUMBER)
#: a number written with a decimal comma ("3,5"), as spreadsheets write them in many locales
_COMMA_NUMBER = r"[+-]?[0-9]+,[0-9]+"
_COMMA_NUMBER_RE = re.compile(_COMMA_NUMBER)
_INTEGER_RE = re.compile(_INTEGER)
#: a number written with more characters than this is beyond the float range (or a text)
_LONGEST = 400
#: vocabularies above this size use pyarrow's kernels when pyarrow is installed
_ARROW_MIN = 4096


class LabelWarning(SoftIRRWarning):
    """Labels that differ as written but may be meant as one: kept apart, and counted.

    Raised when a column of numbers writes one number in two ways (``1.0`` and ``1``), when text
    labels look alike (``café`` in two Unicode forms, a trailing space, a zero-width character,
    full-width letters, a Cyrillic ``а`` (U+0430) in a Latin word), when float labels are whole numbers
    beyond 2**53, or when labels are texts that pandas and R take for a missing value (``"NA"``, ``"null"``,
    ``"None"``: read as labels), or when the labels are numbers some of which are written with a decimal
    comma (``"3,5"``: read as categories unless ``decimal=","`` is given).

    Examples
    --------
    >>> import warnings, softirr_stats as sis
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     ann = sis.Annotations.from_wide([["caf\\u00e9", "cafe\\u0301"], ["tea", "tea"]])
    >>> len(ann.vocabulary), caught[0].category.__name__
    (3, 'LabelWarning')
    """


def _arrow(n: int) -> Any:
    """pyarrow (with ``compute``) for ``n`` labels when it is worth importing and installed, else None."""
    if n < _ARROW_MIN:
        return None
    try:
        import pyarrow as pa
        import pyarrow.compute  # noqa: F401
    except ImportError:
        return None
    return pa


def _fullmatch(texts: np.ndarray, pattern: str, compiled: re.Pattern) -> np.ndarray:
    """Boolean array: which texts match ``pattern`` as a whole."""
    pa = _arrow(len(texts))
    if pa is not None:
        import pyarrow.compute as pc

        try:
            return pc.match_substring_regex(pa.array(texts, type=pa.string()), f"^(?:{pattern})$").to_numpy(
                zero_copy_only=False)
        except (pa.ArrowException, UnicodeEncodeError):  # lone surrogates: not UTF-8
            pass
    return np.fromiter((compiled.fullmatch(t) is not None for t in texts), dtype=bool, count=len(texts))


def text_numbers(texts: Any, *, decimal: str = ".") -> np.ndarray | None:
    """The numbers that distinct texts name, when the column is numeric; else None (it stays text).

    Parameters
    ----------
    texts : array-like of str
        The distinct present texts of a label column (no missing values, no repeats).
    decimal : {".", ","}
        The decimal mark. With ``","`` a text is a number when it is one with its comma read as a
        point (``"3,5"`` is 3.5); a text holding a point is then not a number, so the column stays text.

    Returns
    -------
    object ndarray aligned with ``texts`` (Python ints for texts written as integers, floats for
    the others; integers float64 holds exactly become floats when a fraction is present, as a
    float column would), or None.

    Examples
    --------
    >>> text_numbers(["1", "2", "10"]).tolist()
    [1, 2, 10]
    >>> text_numbers(["0.5", "9007199254740993", "9007199254740992"]).tolist()
    [0.5, 9007199254740993, 9007199254740992]
    >>> text_numbers(["1", " 2"]) is None                    # a space: text
    True
    >>> text_numbers(["01", "1", "2"]) is None               # one number written two ways: text
    True
    >>> text_numbers(["3,5", "4", "0,25"], decimal=",").tolist()
    [3.5, 4.0, 0.25]
    """
    texts = np.asarray(texts, dtype=object)
    if decimal != ".":
        return _comma_numbers(texts)
    if texts.size == 0 or not isinstance(texts[0], str) or _NUMBER_RE.fullmatch(texts[0]) is None:
        return None  # the usual text column is settled by its first label
    if max(map(len, texts)) > _LONGEST or not _fullmatch(texts, _NUMBER, _NUMBER_RE).all():
        return None
    floats = np.asarray(texts, dtype=np.str_).astype(np.float64)
    if not np.isfinite(floats).all():
        return None  # beyond the float range: text, as "inf" and "nan" are
    is_int = _fullmatch(texts, _INTEGER, _INTEGER_RE)
    big = is_int & (np.abs(floats) >= EXACT_INTEGERS)  # integers float64 may round: kept exact
    exact = {int(k): int(texts[k]) for k in np.flatnonzero(big)}
    # distinct texts must name distinct numbers: group by the float, then settle the collisions
    _, inverse, counts = np.unique(floats, return_inverse=True, return_counts=True)
    clash = counts[inverse.ravel()] > 1
    if clash.any():
        if _same_numbers(texts, floats, is_int, exact, np.flatnonzero(clash)):
            return None  # check_labels counts them in a LabelWarning
    if is_int.all() and np.abs(floats).max() < 2.0**63:
        values = np.asarray(texts, dtype=np.str_).astype(np.int64).astype(object)
    else:
        values = floats.astype(object)
        if is_int.all():
            values = np.array([int(t) for t in texts], dtype=object)  # integers beyond int64
    for k, v in exact.items():
        values[k] = v
    return values


def _comma_numbers(texts: np.ndarray) -> np.ndarray | None:
    """:func:`text_numbers` of texts written with a decimal comma: the comma read as a point, and a
    text that holds a point (a thousands mark, or the other convention) keeps the column as text."""
    if texts.size == 0 or not all(isinstance(t, str) for t in texts) or max(map(len, texts)) > _LONGEST:
        return None
    plain = np.asarray(texts, dtype=np.str_)
    if (np.char.find(plain, ".") >= 0).any():
        return None
    return text_numbers(np.char.replace(plain, ",", ".").astype(object))


def _same_numbers(texts: np.ndarray, floats: np.ndarray, is_int: np.ndarray, exact: dict[int, int],
                  rows: np.ndarray) -> list[list[str]]:
    """Groups of texts (among ``rows``, which share a float with another text) naming one number, or
    numbers float64 cannot tell apart; integers that float64 merely rounds alike are distinct."""
    groups: dict[Any, list[int]] = {}
    for k in rows.tolist():
        if is_int[k]:  # an integer's own value: exact at any size
            key: Any = ("int", exact[k] if k in exact else int(floats[k]))
        else:
            key = ("float", float(floats[k]))
        groups.setdefault(key, []).append(k)
    by_float: dict[float, list[list[int]]] = {}
    for members in groups.values():
        by_float.setdefault(float(floats[members[0]]), []).append(members)
    out = []
    for parts in by_float.values():
        if len(parts) == 1 and len(parts[0]) == 1:
            continue  # one text alone (its float twin was an integer kept exact)
        if all(is_int[p[0]] for p in parts) and all(len(p) == 1 for p in parts):
            continue  # distinct integers that float64 rounds alike: kept exact
        out.append(sorted(texts[k] for p in parts for k in p))
    return sorted(out)


# ---------------------------------------------------------------------------------------- look-alikes
#: code points that print as nothing: controls (C0 but white space, DEL, C1 but NEL), format characters (soft hyphen,
#: zero-width, bidirectional, word joiner, BOM, interlinear annotation, tags), variation selectors, fillers, the
#: combining grapheme joiner. Written out (not Python's or RE2's categories) so that both routes agree.
_INVISIBLE_RANGES = ((0x00, 0x08), (0x0E, 0x1B), (0x7F, 0x84), (0x86, 0x9F), (0xAD, 0xAD), (0x34F, 0x34F),
                     (0x61C, 0x61C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F), (0x200B, 0x200F),
                     (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
                     (0xFFA0, 0xFFA0), (0xFFF9, 0xFFFB), (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F),
                     (0xE0100, 0xE01EF))
#: white space as ``str.isspace`` (and Python's ``\s``) knows it; RE2's ``\s`` (pyarrow) is ASCII only and
#: leaves out the separators U+001C-U+001F
_SPACE_RANGES = ((0x09, 0x0D), (0x1C, 0x20), (0x85, 0x85), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
                 (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000))


def _char_class(ranges: tuple[tuple[int, int], ...], re2: bool) -> str:
    """A regular-expression character class of code point ranges, for Python's ``re`` or RE2 (pyarrow)."""
    def one(c: int) -> str:
        return f"\\x{{{c:x}}}" if re2 else f"\\U{c:08x}"

    return "[" + "".join(one(lo) if lo == hi else f"{one(lo)}-{one(hi)}" for lo, hi in ranges) + "]"


_INVISIBLE = re.compile(_char_class(_INVISIBLE_RANGES, re2=False))
_SPACES = re.compile(_char_class(_SPACE_RANGES, re2=False) + "+")
_INVISIBLE_RE2 = _char_class(_INVISIBLE_RANGES, re2=True)
_SPACES_RE2 = _char_class(_SPACE_RANGES, re2=True) + "+"
#: printable ASCII words separated by single spaces: a text that is its own printed form
_PLAIN = "(?:[!-~]+(?: [!-~]+)*)?"
_PLAIN_RE = re.compile(_PLAIN)
#: letters of other scripts (and Latin small capitals) that print as a Latin letter does, as the Latin letter of the
#: same case: from Unicode's confusables (UTS #39, https://www.unicode.org/Public/security/latest/confusables.txt,
#: version 14.0.0), its letters whose prototype is one Latin letter and that are NFKC-stable, kept to those that print
#: identically or nearly so in common fonts; the I-shaped capitals, whose prototype there is "l", fold to "I" (their
#: twin: case is kept), and the small palochka, a dotless stroke, to "l".
#: Left out as printed distinctly, or as letters of their own in real vocabularies: Greek alpha, gamma, iota, sigma,
#: upsilon; Cyrillic ghe and soft sign; Latin dotless i (Turkish) and the IPA letters (script a and g, small capital I).
#: Only texts that print alike are grouped: a vocabulary wholly in Cyrillic or Greek gets no warning.
_LATIN_LOOKALIKES = str.maketrans({
    # Cyrillic capitals: А В Е К М Н О Р С Т Х І Ј Ѕ Ү Ӏ (palochka) Ԝ Ѵ
    "\u0410": "A", "\u0412": "B", "\u0415": "E", "\u041a": "K", "\u041c": "M", "\u041d": "H", "\u041e": "O",
    "\u0420": "P", "\u0421": "C", "\u0422": "T", "\u0425": "X", "\u0406": "I", "\u0408": "J", "\u0405": "S",
    "\u04ae": "Y", "\u04c0": "I", "\u051c": "W", "\u0474": "V",
    # Cyrillic small letters: а е о р с у х і ј ѕ ԁ һ ӏ (palochka) ԛ ԝ ү ѵ
    "\u0430": "a", "\u0435": "e", "\u043e": "o", "\u0440": "p", "\u0441": "c", "\u0443": "y", "\u0445": "x",
    "\u0456": "i", "\u0458": "j", "\u0455": "s", "\u0501": "d", "\u04bb": "h", "\u04cf": "l", "\u051b": "q",
    "\u051d": "w", "\u04af": "y", "\u0475": "v",
    # Greek capitals: Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ; small letters: ο ν ρ
    "\u0391": "A", "\u0392": "B", "\u0395": "E", "\u0396": "Z", "\u0397": "H", "\u0399": "I", "\u039a": "K",
    "\u039c": "M", "\u039d": "N", "\u039f": "O", "\u03a1": "P", "\u03a4": "T", "\u03a5": "Y", "\u03a7": "X",
    "\u03bf": "o", "\u03bd": "v", "\u03c1": "p",
    # Armenian: Օ Ս Տ հ ո ս օ
    "\u0555": "O", "\u054d": "U", "\u054f": "S", "\u0570": "h", "\u0578": "n", "\u057d": "u", "\u0585": "o",
    # Latin small capitals that print as the small letter: ᴄ ᴏ ᴜ ᴠ ᴡ ᴢ ꜱ
    "\u1d04": "c", "\u1d0f": "o", "\u1d1c": "u", "\u1d20": "v", "\u1d21": "w", "\u1d22": "z", "\ua731": "s",
})
#: :data:`_LATIN_LOOKALIKES` as a lookup table of code points (identity up to its largest letter)
_FOLD_TABLE = np.arange(max(_LATIN_LOOKALIKES) + 1, dtype=np.uint32)
_FOLD_TABLE[list(_LATIN_LOOKALIKES)] = [ord(c) for c in _LATIN_LOOKALIKES.values()]


def _odd_letters(texts: list[str]) -> dict[int, str]:
    """The letters that print as Latin ones (:data:`_LATIN_LOOKALIKES`) found in some of ``texts`` but not in all,
    each with its escape (``"\\u0430"``): what tells look-alike texts apart when their scripts differ."""
    seen = [set(t).intersection(map(chr, _LATIN_LOOKALIKES)) for t in texts]
    if not seen:
        return {}
    odd = set().union(*seen) - set.intersection(*seen)
    if not odd and len({_unfolded_py(t) for t in texts}) > 1:  # the same letters, in other places ('аa', 'aа')
        odd = set().union(*seen)
    return {ord(c): f"\\u{ord(c):04x}" for c in odd}


def _quoted_each(texts: list[str]) -> list[str]:
    """Look-alike texts for a message: shortened around their difference (:func:`short_reprs`), with the invisible
    characters that ``repr`` leaves as they are (fillers, variation selectors) and the letters of another script
    that differ among them (:func:`_odd_letters`: ``'c\\u0430fe'`` next to ``'cafe'``) written as escapes too."""
    odd = _odd_letters(texts)
    return [_INVISIBLE.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), r).translate(odd)
            for r in short_reprs(texts)]


def _quoted(texts: list[str]) -> str:
    """:func:`_quoted_each`, joined by "and"."""
    return " and ".join(_quoted_each(texts))


def _letters_phrase(letters: list[str]) -> str:
    """``"a Cyrillic letter (U+0430)"``, ``"Greek letters (U+039F, U+03BF)"``: what ``letters`` are."""
    kinds = sorted({"Latin small capital" if "SMALL CAPITAL" in unicodedata.name(c) else
                    unicodedata.name(c).split()[0].title() for c in letters})
    many = len(letters) > 1
    article = "" if many else "an " if kinds[0][0] in "AEIOU" else "a "
    return (f"{article}{' and '.join(kinds)} letter{'s' if many else ''} "
            f"({', '.join(f'U+{ord(c):04X}' for c in letters)})")


def _script_letters(groups: list[list[str]]) -> str:
    """Which texts have letters of another script that print as Latin ones, in the first of ``groups`` whose texts
    differ by such letters (``"'c\\u0430fe' has a Cyrillic letter (U+0430)"``); '' when no group does."""
    group = next((g[:3] for g in groups if len({_unfolded_py(t) for t in g}) > 1), None)
    if group is None:
        return ""
    odd = _odd_letters(group)
    said = [f"{shown} has {_letters_phrase(letters)}"
            for t, shown in zip(group, _quoted_each(group), strict=True)
            if (letters := sorted({c for c in t if ord(c) in odd}))]
    return "; ".join(said)


def _unfolded_py(text: str) -> str:
    """``text`` as it prints but for the letters of other scripts that look Latin (NFKC, invisible characters
    dropped, white space as one space)."""
    text = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))
    return _SPACES.sub(" ", text).strip(" ")


def _skeleton_py(text: str) -> str:
    return _unfolded_py(text).translate(_LATIN_LOOKALIKES)


def _fold_letters(texts: list[str]) -> np.ndarray:
    """Texts with the letters that print as Latin ones (:data:`_LATIN_LOOKALIKES`) written as those, by whole arrays:
    the texts joined by NUL (which no printed form holds: it is invisible, so dropped) as one array of code points,
    mapped through a lookup table (``str.translate`` with a table of other scripts' letters takes five times longer)."""
    if not texts:
        return np.zeros(0, dtype=object)
    joined = "\x00".join(texts)
    points = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    folded = np.where(points < _FOLD_TABLE.size, _FOLD_TABLE[np.minimum(points, _FOLD_TABLE.size - 1)], points)
    if np.array_equal(folded, points):
        return np.asarray(texts, dtype=object)
    return np.asarray(folded.astype(np.uint32).tobytes().decode("utf-32-le", "surrogatepass").split("\x00"),
                      dtype=object)


def _skeletons(texts: np.ndarray) -> np.ndarray:
    """Each text as it would look printed: NFKC, invisible characters (controls, format characters) dropped,
    runs of white space as one space, no space at the ends, and letters of other scripts that print as Latin ones
    (Cyrillic U+0430, Greek U+039F: :data:`_LATIN_LOOKALIKES`) as those. Both routes (pyarrow for many texts) give
    one answer."""
    pa = _arrow(len(texts))
    if pa is not None:
        import pyarrow.compute as pc

        try:
            arr = pc.utf8_normalize(pa.array(texts, type=pa.string()), "NFKC")
            arr = pc.replace_substring_regex(arr, _INVISIBLE_RE2, "")
            arr = pc.replace_substring_regex(pc.replace_substring_regex(arr, _SPACES_RE2, " "), "^ | $", "")
            return _fold_letters(arr.to_pylist())
        except (pa.ArrowException, UnicodeEncodeError):
            pass
    return _fold_letters(list(map(_unfolded_py, texts)))


def _groups(keys: np.ndarray, texts: np.ndarray) -> list[list[str]]:
    """Groups (sorted) of the distinct ``texts`` that share a key (missing keys ignored), or []."""
    import pandas as pd

    codes, uniq = pd.factorize(keys, use_na_sentinel=True)
    counts = np.bincount(codes[codes >= 0], minlength=len(uniq))
    rows = np.flatnonzero((codes >= 0) & (counts[np.maximum(codes, 0)] > 1))
    groups: dict[int, list[str]] = {}
    for k in rows.tolist():  # only the texts a warning names
        groups.setdefault(int(codes[k]), []).append(texts[k])
    return sorted(sorted(g) for g in groups.values())


def printed_forms(texts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each text as it prints (:func:`_skeletons`) and whether it was so already: printable ASCII texts with single
    inner spaces and none at the ends are their own printed form (one cheap pass), the others are normalised.

    Examples
    --------
    >>> skel, plain = printed_forms(np.array(["yes", " yes", "caf\\u00e9", "yes\\x00", "y\\u0435s"], dtype=object))
    >>> skel.tolist(), plain.tolist()
    (['yes', 'yes', 'café', 'yes', 'yes'], [True, False, False, False, False])
    """
    plain = (_plain_arrow(texts) if _arrow(len(texts)) is not None else
             np.fromiter((_PLAIN_RE.fullmatch(t) is not None for t in texts), dtype=bool, count=len(texts)))
    skel = texts.copy()
    if not plain.all():
        skel[~plain] = _skeletons(texts[~plain])
    return skel, plain


def lookalike_groups(texts: np.ndarray) -> list[list[str]]:
    """Groups (sorted) of distinct texts that print alike (:func:`printed_forms`), or [].

    Examples
    --------
    >>> lookalike_groups(np.array(["ann", "ann ", "bo", "b\\x00o", "Ann"], dtype=object))
    [['ann', 'ann '], ['b\\x00o', 'bo']]
    """
    if texts.size < 2:
        return []
    skel, plain = printed_forms(texts)
    return _groups(skel, texts) if not plain.all() else []


def _alike(texts: np.ndarray) -> tuple[list[list[str]], list[list[str]]]:
    """(groups of texts that print alike, groups of texts that are one number written differently)."""
    if texts.size < 2:
        return [], []
    skel, plain = printed_forms(texts)
    alike = _groups(skel, texts) if not plain.all() else []
    # numbers as a lenient parser (Python's float()) reads them: spaces, full-width digits, "1_000"
    digits = np.asarray([t.replace("_", "") for t in skel], dtype=object) if any("_" in t for t in skel) else skel
    numeric = _fullmatch(digits, _NUMBER, _NUMBER_RE)
    same: list[list[str]] = []
    if numeric.sum() > 1:
        floats = np.full(len(texts), np.nan)
        floats[numeric] = np.asarray(digits[numeric].tolist(), dtype=np.str_).astype(np.float64)
        keys = np.where(np.isfinite(floats), floats, np.nan).astype(object)
        for k in np.flatnonzero(numeric & (np.abs(floats) >= EXACT_INTEGERS)).tolist():
            if _INTEGER_RE.fullmatch(digits[k]):  # integers beyond 2**53 by their exact value
                keys[k] = int(digits[k])
        same = _groups(keys, texts)
    if same:  # a look-alike group that is one number is said once, as a number
        covered = {t for g in same for t in g}
        alike = [g for g in alike if not set(g) <= covered]
    return alike, same


def _plain_arrow(texts: np.ndarray) -> np.ndarray:
    import pyarrow as pa
    import pyarrow.compute as pc

    try:
        arr = pa.array(texts, type=pa.string())
    except (pa.ArrowException, UnicodeEncodeError):
        return np.zeros(len(texts), dtype=bool)
    return pc.match_substring_regex(arr, f"^{_PLAIN}$").to_numpy(zero_copy_only=False)


def _hint(groups: list[list[str]], unit: str = "labels") -> str:
    """What ``normalize=`` does for groups of look-alike texts (``unit``: what they are, "labels" or "terms")."""
    counts = {"NFC": 0, "NFKC": 0, "letters": 0, None: 0}
    for g in groups:
        form = next((f for f in ("NFC", "NFKC") if len({unicodedata.normalize(f, t) for t in g}) == 1), None)
        if form is None and len({_unfolded_py(t) for t in g}) > 1:
            form = "letters"
        counts[form] += 1
    parts = [f"normalize={f!r} would merge {counts[f]} group(s)" for f in ("NFC", "NFKC") if counts[f]]
    if parts:  # where normalize= is passed, said only when it merges something (NFKC merges what NFC does)
        form = "NFKC" if counts["NFKC"] else "NFC"
        parts[-1] += f" (normalize= on read_annotations, from_long and from_wide; --reader-option normalize={form})"
    if counts["letters"]:
        parts.append(f"{counts['letters']} group(s) differ by letters of another script that print like Latin ones "
                     f"({_script_letters(groups)}), which normalize= does not change: write each {unit[:-1]} in one "
                     "script in the file")
    if counts[None]:
        parts.append(f"{counts[None]} group(s) differ by spaces, control characters or invisible (zero-width) "
                     f"characters, which normalize= does not change: clean those {unit} in the file")
    return "; ".join(parts)


def _shell_word(text: str) -> str:
    """``text`` as one word of a POSIX shell command line: quoted, and written with escapes (``$'\\t'``) where it
    holds characters other than plain spaces that a terminal would not show.

    Examples
    --------
    >>> print(_shell_word(" "), _shell_word(""), _shell_word("\\t"), _shell_word("n/a"))
    ' ' '' $'\\t' n/a
    """
    import shlex

    if all(c.isprintable() for c in text):
        return shlex.quote(text)
    return "$'" + text.encode("unicode_escape").decode("ascii").replace("'", "\\'") + "'"


def _warn_blank(texts: list[str]) -> None:
    """A LabelWarning naming empty or blank labels (a blank cell read with ``keep_default_na=False``; irrCAC
    drops them as missing), with the ``na_values=`` (and ``--na-values``) that match them exactly."""
    blank = sorted(t for t in texts if not t.strip())
    if blank:
        short = [t for t in blank[:5] if len(t) <= MESSAGE_CHARS]  # a long run of spaces is named, not spelt out
        values = "[" + ", ".join(map(short_repr, blank[:5])) + "]"
        flags = " ".join(f"--na-values {_shell_word(t)}" for t in short) or "--na-values with each of them"
        warnings.warn(
            f"{len(blank)} label(s) are empty or only white space ({', '.join(map(short_repr, blank[:5]))}): softirr reads "
            "them as labels, so two blank ratings agree; a blank cell usually means 'not rated' (pandas' "
            "keep_default_na=False keeps it as ''): make them missing (None or NaN in a DataFrame, "
            f"df.replace(r'^\\s*$', None, regex=True); na_values={values} on read_annotations, {flags} on the "
            "command line)",
            LabelWarning, stacklevel=user_stacklevel())


def _warn_missing_markers(texts: np.ndarray) -> None:
    """A LabelWarning naming the distinct labels that pandas or R would have read as missing values."""
    found = sorted(MISSING_MARKERS.intersection(texts.tolist()))
    if not found:
        return
    rest = np.asarray([t for t in texts.tolist() if t not in MISSING_MARKERS], dtype=object)
    numbers = rest.size > 0 and text_numbers(rest) is not None
    shown = ", ".join(map(repr, found))
    warnings.warn(
        f"{len(found)} label(s) are texts that pandas (and, for 'NA', R) reads as a missing value ({shown}): "
        "softirr reads them "
        f"as labels, so two ratings that are both {found[0]!r} agree"
        + (", and the other labels, all numbers, are read as categories" if numbers else "")
        + f"; if they mean 'not rated', make them missing (na_values={found!r} on read_annotations, --na-values "
        f"{','.join(found)} on the command line; None or NaN in a DataFrame)",
        LabelWarning, stacklevel=user_stacklevel())


def decimal_comma_numbers(texts: Any) -> list[str]:
    """The text labels written as numbers with a decimal comma, when every text label is a number that
    way (``"3,5"``, ``"4"``; texts pandas and R read as missing aside); else an empty list.

    Examples
    --------
    >>> decimal_comma_numbers(["3,5", "4", "NA"]), decimal_comma_numbers(["3,5", "four"])
    (['3,5'], [])
    """
    first = next((t for t in texts if isinstance(t, str) and t not in MISSING_MARKERS), None)
    if first is None or (_NUMBER_RE.fullmatch(first) is None and _COMMA_NUMBER_RE.fullmatch(first) is None):
        return []  # the usual text column is settled by its first label
    texts = np.asarray([t for t in texts if isinstance(t, str) and t not in MISSING_MARKERS], dtype=object)
    if max(map(len, texts)) > _LONGEST:
        return []
    comma = _fullmatch(texts, _COMMA_NUMBER, _COMMA_NUMBER_RE)
    if not comma.any() or not (comma | _fullmatch(texts, _NUMBER, _NUMBER_RE)).all():
        return []
    return texts[comma].tolist() if text_numbers(texts, decimal=",") is not None else []


def decimal_comma_hint(texts: Any) -> str:
    """What to do about labels written as numbers with a decimal comma ('' when they are not).

    Examples
    --------
    >>> decimal_comma_hint(["3,5", "4"])[:61]
    "they look like numbers written with a decimal comma ('3,5'): "
    """
    comma = decimal_comma_numbers(texts)
    if not comma:
        return ""
    hint = (f"they look like numbers written with a decimal comma ({', '.join(map(short_repr, comma[:3]))}): if they "
            "are, read them with decimal=',' (read_annotations; --reader-option decimal=, on the command line) or "
            "convert the column to numbers")
    if all(len(t.rpartition(",")[2]) == 3 for t in comma):
        hint += "; if the comma separates thousands ('1,000'), remove it in the file instead: decimal=',' reads '1,000' as 1.0"
    return hint


def warn_decimal_point(texts: Any) -> None:
    """A LabelWarning when ``decimal=","`` was given but the distinct ``texts`` are numbers written with a decimal
    point (``"3.5"``), which that option reads as text: the reverse of :func:`decimal_comma_hint`'s mistake.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn_decimal_point(["3.5", "4"])
    >>> "decimal=',' was given" in str(caught[0].message)
    True
    """
    texts = np.asarray([t for t in texts if isinstance(t, str)], dtype=object)
    if texts.size == 0 or text_numbers(texts) is None:
        return
    pointed = [t for t in texts[:50].tolist() if "." in t][:3] or texts[:3].tolist()
    warnings.warn(
        "labels read as categories, so every difference counts as full disagreement and no distance weights "
        f"(interval, ratio, linear, quadratic) apply; they are numbers written with a decimal point "
        f"({', '.join(map(short_repr, pointed))}), but decimal=',' was given (--reader-option decimal=, on the "
        "command line), which reads a number with a point as text: leave it out to read them as numbers",
        LabelWarning, stacklevel=user_stacklevel())


def _warn_decimal_commas(texts: np.ndarray) -> None:
    """A LabelWarning when every text label is a number and some are written with a decimal comma."""
    hint = decimal_comma_hint(texts)
    if hint:
        warnings.warn(
            "labels read as categories, so every difference counts as full disagreement and no distance weights "
            f"(interval, ratio, linear, quadratic) apply; {hint}", LabelWarning, stacklevel=user_stacklevel())


def set_terms(labels: Any) -> np.ndarray:
    """The distinct text terms inside distinct set labels (one union of the sets, no loop over ratings).

    Examples
    --------
    >>> sorted(set_terms([frozenset({"fever", "cough"}), frozenset({"fever "}), frozenset()]).tolist())
    ['cough', 'fever', 'fever ']
    """
    terms = frozenset().union(*labels) if len(labels) else frozenset()
    return np.asarray([t for t in terms if isinstance(t, str)], dtype=object)


def beyond_case(texts: list[str]) -> str:
    """What besides letter case tells apart texts that print alike once case-folded: ``""`` (nothing: letter case
    only), ``"NFC"`` or ``"NFKC"`` (their Unicode form too: ``normalize="NFC+casefold"`` or ``"NFKC+casefold"``
    merges them), ``"spaces"`` (spaces, control or invisible characters, which no ``normalize=`` changes) or
    ``"letters"`` (letters of another script that print like Latin ones).

    Examples
    --------
    >>> beyond_case(["Pain", "pain"]), beyond_case(["Never ", "never"]), beyond_case(["\uff23afe", "cafe"])
    ('', 'spaces', 'NFKC')
    """
    if len({t.casefold() for t in texts}) == 1:
        return ""
    for form in ("NFC", "NFKC"):  # as text_normalizer applies "NFC+casefold": the form, then the fold
        if len({unicodedata.normalize(form, t).casefold() for t in texts}) == 1:
            return form
    return "spaces" if len({_unfolded_py(t).casefold() for t in texts}) == 1 else "letters"


def _warn_alike(texts: np.ndarray, what: str, unit: str) -> None:
    """LabelWarnings counting the distinct ``texts`` (``what``: text labels, or terms inside set labels) that are one
    number written differently, and those that print alike; ``unit`` is what each is ("labels", "terms")."""
    alike, same = _alike(texts)
    if same:
        from decimal import Decimal, InvalidOperation

        n, first = sum(len(g) for g in same), same[0]
        try:
            one = len({Decimal(_skeleton_py(t).replace("_", "")) for t in first}) == 1
        except InvalidOperation:  # pragma: no cover - the texts matched the number pattern
            one = True
        warnings.warn(
            f"{n} {what} in {len(same)} group(s) are {'one number' if one else 'numbers float64 cannot tell apart'} "
            f"written differently (e.g. {_quoted(first[:3])}): they are kept apart as distinct {unit} and do not "
            "count as agreement; "
            + ("a label column is read as numbers only when every label is a plain decimal number written one way: "
               if unit == "labels" else "")
            + "write each number one way in the file",
            LabelWarning, stacklevel=user_stacklevel())
    if alike:
        n, first = sum(len(g) for g in alike), alike[0]
        warnings.warn(
            f"{n} {what} in {len(alike)} group(s) look alike but differ (e.g. {_quoted(first[:3])}): they are kept "
            f"apart as distinct {unit} and do not count as agreement; {_hint(alike, unit)}",
            LabelWarning, stacklevel=user_stacklevel())


def check_labels(uniques: list, kind: str) -> None:
    """Warn about distinct labels that may be meant as one (look-alike texts; floats beyond 2**53).

    Called once per encoding on the distinct labels (after ``normalize=``), by every constructor
    and reader; nothing is changed. Set labels: the distinct terms inside them get the look-alike
    and number checks (``'fever'`` and ``'fever '`` are two terms), worked out once over the union
    of the distinct sets.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     check_labels(["yes", "yes ", "no"], "categorical")
    >>> "'yes' and 'yes '" in str(caught[0].message)
    True
    """
    if kind == "categorical":
        strings = [u for u in uniques if isinstance(u, str)]
        _warn_blank(strings)
        texts = np.asarray(strings or [""], dtype=object)
        _warn_missing_markers(texts)
        _warn_decimal_commas(texts)
        _warn_alike(texts, "text labels", "labels")
    elif kind == "set":  # the terms inside the set labels, as a coefficient with a set measure compares them
        _warn_alike(set_terms(uniques), "terms inside set labels", "terms")
    elif kind == "numeric":
        vals = np.fromiter((float(u) for u in uniques if isinstance(u, float | np.floating)), dtype=np.float64)
        big = vals[(np.abs(vals) >= EXACT_INTEGERS) & (np.floor(vals) == vals)]
        if big.size:
            warnings.warn(
                f"{big.size} numeric label(s) are floats that are whole numbers beyond 2**53 (e.g. {float(big[0])!r}), "
                "where float64 holds only some integers: integers that differ by a few may already have merged "
                "(a column of integers mixed with a float becomes float64); pass such labels as Python ints "
                "(an object column) or as text", LabelWarning, stacklevel=user_stacklevel())


def check_names(values: Any, what: str) -> None:
    """Warn about distinct names (item ids, rater names, span documents or types) that print alike but differ.

    ``values`` are distinct (an axis of the data); texts among them that differ only by spaces at the ends, runs of
    white space, control or invisible characters, their Unicode form, or letters of another script that print as
    Latin ones (``ann`` and ``аnn`` with a Cyrillic ``а``, U+0430; :func:`lookalike_groups`) are kept apart,
    as two items or two raters, and counted in a :class:`LabelWarning` naming ``what``; nothing is changed.
    Letter case is not a look-alike here either. The work is on whole arrays of the distinct values.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     check_names(["ann", "ann ", "bo"], "rater names")
    >>> str(caught[0].message)[:70]
    "2 rater names in 1 group(s) print alike but differ (e.g. 'ann' and 'an"
    """
    values = values if isinstance(values, np.ndarray | list) else list(values)
    if len(values) < 2:
        return
    kinds = set(map(type, values))
    if kinds == {str}:
        texts = np.asarray(values, dtype=object)
    elif any(issubclass(k, str) for k in kinds):  # ids of mixed kinds (JSON Lines): their texts only
        texts = np.asarray([v for v in values if isinstance(v, str)], dtype=object)
    else:  # numbers: nothing prints alike
        return
    groups = lookalike_groups(texts)
    if not groups:
        return
    n, first = sum(len(g) for g in groups), groups[0]
    forms = [f for f in ("NFC", "NFKC") if any(len({unicodedata.normalize(f, t) for t in g}) == 1 for g in groups)]
    letters = _script_letters(groups)
    warnings.warn(
        f"{n} {what} in {len(groups)} group(s) print alike but differ (e.g. {_quoted(first[:3])}): "
        f"they are kept apart as distinct {what}; if they are meant as one, write them one way in the file (they "
        "differ by spaces at the ends, control or invisible characters"
        + (f", or their Unicode form: unicodedata.normalize({forms[0]!r}, ...) makes them one" if forms else "")
        + (f", or letters of another script that print like Latin ones: {letters}" if letters else "")
        + "); normalize= changes labels only", LabelWarning, stacklevel=user_stacklevel())
