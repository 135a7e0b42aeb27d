"""Rules for raw input that every reader shares, with no dependency on the rest of ``data``.

- :func:`not_text_message`: the one message for bytes that are not text in the given encoding;
  :func:`bomless_message`: the one message for UTF-16 / UTF-32 text without a byte-order mark, which
  decodes as UTF-8 without an error (its zero bytes are valid UTF-8) and then misreads;
- :data:`BIG_INPUT` and :class:`parsing`: inputs big enough to take seconds show a progress bar;
- :func:`unpack_cap` and :class:`InputTooLarge`: the cap on bytes unpacked from an archive or a
  compressed file (each entry and all together), checked before anything is unpacked where the
  archive declares its sizes; :func:`spooled`: a pipe read into a regular file under the same cap,
  a device refused.

Both the export readers (``_readers._common``) and the table readers (``_cells``, ``_columnar``)
import these from here, so no reader module needs another to say either.
"""

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

__all__ = ["BIG_INPUT", "BOMLESS_HEAD", "InputTooLarge", "MAX_UNPACKED", "UNPACK_ENV", "bom_encoding",
           "bomless_encoding", "bomless_message", "codec_name", "not_text_message", "parsing", "size_text",
           "special_file", "spooled", "too_large", "unpack_cap"]

#: inputs above this many bytes take over about 2 s to read: they show a progress bar (read at
#: call time, so that tests can lower it)
BIG_INPUT = 16_000_000


def codec_name(encoding: str) -> str:
    """``"UTF-8"`` for any spelling of UTF-8, else the encoding as given."""
    import codecs

    try:
        return "UTF-8" if codecs.lookup(encoding).name == "utf-8" else encoding
    except LookupError:
        return encoding


#: byte-order marks of the UTF-16 and UTF-32 codecs (the longer first: UTF-32 LE starts as UTF-16 LE does)
_BOMS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"),
         (b"\xfe\xff", "utf-16"))


def bom_encoding(head: bytes) -> str | None:
    """``"utf-16"`` or ``"utf-32"`` when ``head`` (a file's first bytes) starts with that codec's byte-order mark
    (Excel's "Unicode text", Notepad's "Unicode", PowerShell's ``>``), else None (UTF-8's mark included).

    Examples
    --------
    >>> bom_encoding("item".encode("utf-16")), bom_encoding("item".encode("utf-32")), bom_encoding(b"item")
    ('utf-16', 'utf-32', None)
    """
    return next((enc for bom, enc in _BOMS if head.startswith(bom)), None)


#: the first bytes of a file that :func:`bomless_encoding` looks at
BOMLESS_HEAD = 4096


def bomless_encoding(head: bytes) -> str | None:
    """``"utf-16-le"``, ``"utf-16-be"``, ``"utf-32-le"`` or ``"utf-32-be"`` when ``head`` (a file's first bytes)
    has no byte-order mark but the zero bytes of such text, else None: a character below U+0100 (Latin
    letters, digits, delimiters, line breaks) is its own byte beside one zero byte (three in UTF-32), on the
    side its byte order says. UTF-8 and 8-bit text hold no zero bytes.

    At least 30% of the characters must be such (a table's delimiters and line breaks are), and the
    character's own byte may be zero in at most 5% of them (U+0100, U+4E00, ... have a zero low byte).

    Examples
    --------
    >>> [bomless_encoding("item,rater\\n".encode(c)) for c in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-8")]
    ['utf-16-le', 'utf-16-be', 'utf-32-le', None]
    >>> bomless_encoding("item".encode("utf-16")) is None  # with its mark: bom_encoding tells it
    True
    """
    if b"\0" not in head or bom_encoding(head) is not None:
        return None
    for width in (4, 2):
        n = len(head) // width * width
        if n < 2 * width:
            continue
        zeros = [head[k:n:width].count(0) * width / n for k in range(width)]  # share of zero bytes at each offset
        for order, own in (("le", 0), ("be", width - 1)):
            if zeros[own] <= 0.05 and min(z for k, z in enumerate(zeros) if k != own) >= 0.3:
                return f"utf-{8 * width}-{order}"
    return None


def bomless_message(shown: str, head: bytes, encoding: str) -> str | None:
    """The refusal of a UTF-16 / UTF-32 file without a byte-order mark (:func:`bomless_encoding` of its first
    bytes ``head``) read as ``encoding``: UTF-8 reads its zero bytes without an error and then finds one
    field in a line, a header of spaced-out names or no JSON; ``'utf-16'`` and ``'utf-32'`` need the mark, or
    guess the byte order. None where the file is no such text, or is read with the codec it needs.

    Examples
    --------
    >>> print(bomless_message("u.csv", "item,rater,label\\n".encode("utf-16-le"), "utf-8"))
    ... # doctest: +NORMALIZE_WHITESPACE
    u.csv: this file is UTF-16-LE text without a byte-order mark (a zero byte beside each character), not
    UTF-8 text: pass encoding='utf-16-le' (--reader-option encoding=utf-16-le), or re-save it as UTF-8
    >>> bomless_message("u.csv", "item,rater,label\\n".encode("utf-16-le"), "UTF_16_LE") is None
    True
    """
    import codecs

    found = bomless_encoding(head)
    if found is None:
        return None
    try:
        name = codecs.lookup(encoding).name
    except LookupError:
        return None  # the unknown codec is named where it is used
    if name == found:
        return None
    beside = "a zero byte" if found.startswith("utf-16") else "three zero bytes"
    instead = f"which encoding='{name}' needs" if name in ("utf-16", "utf-32") else f"not {codec_name(encoding)} text"
    return (f"{shown}: this file is {found.upper()} text without a byte-order mark ({beside} beside each "
            f"character), {instead}: pass encoding='{found}' (--reader-option encoding={found}), or re-save it "
            "as UTF-8")


def not_text_message(shown: str, data: bytes, offset: int, encoding: str) -> str:
    """The one message for bytes that are not text in ``encoding``: where, which byte, and the option.

    A file that starts with a UTF-16 / UTF-32 byte-order mark is named as such, with the encoding to pass
    (``latin-1`` would read it without an error, as garbage).

    Examples
    --------
    >>> print(not_text_message("u.csv", "item".encode("utf-16"), 0, "utf-8"))  # doctest: +NORMALIZE_WHITESPACE
    u.csv: this file is UTF-16 (byte-order mark), not UTF-8 text: pass encoding='utf-16'
    (--reader-option encoding=utf-16), or re-save it as UTF-8
    """
    if data[:2] == b"\x1f\x8b":  # gzip: a table is not decompressed here (exports are, under the unpack cap)
        return (f"{shown}: a gzip-compressed file, not {codec_name(encoding)} text; decompress it first (gunzip), or "
                "read it through a pipe: <(gunzip -c FILE)")
    wide = bom_encoding(data[:4])
    if wide is not None and offset < 4:  # the mark itself does not decode: the start of the file
        return (f"{shown}: this file is {wide.upper()} (byte-order mark), not {codec_name(encoding)} text: pass "
                f"encoding='{wide}' (--reader-option encoding={wide}), or re-save it as UTF-8")
    return (f"{shown}: not {codec_name(encoding)} text (byte {data[offset:offset + 1]!r} at offset {offset}); pass "
            "encoding= (e.g. encoding='latin-1', or --reader-option encoding=latin-1) or re-save the file as UTF-8")


class parsing:
    """Context manager: a one-step tqdm bar (elapsed time) while a big file is parsed (on a terminal, not
    with ``SOFTIRR_PROGRESS=0``: :func:`softirr_stats.base._bars.bars_wanted`)."""

    def __init__(self, nbytes: int, desc: str) -> None:
        self.bar = None
        if nbytes > BIG_INPUT:
            from softirr_stats.base._bars import progress_bar

            self.bar = progress_bar(1, f"{desc} ({nbytes / 1e6:.0f} MB)", bar_format="{desc}: {elapsed}")

    def __enter__(self) -> "parsing":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.update(1)
            self.bar.close()


#: Default cap on the bytes unpacked from one input: a zip's entries together (and each one), a gzip
#: stream, a pipe. Annotation exports are far smaller; a "zip bomb" (3 MB unpacking to 3 GiB) is not.
MAX_UNPACKED = 1 << 30
#: The environment variable that raises (or lowers) the cap: bytes, or a number with K / M / G / T
UNPACK_ENV = "SOFTIRR_MAX_UNPACKED"
_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20, "MIB": 1 << 20,
          "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30, "T": 1 << 40, "TB": 1 << 40, "TIB": 1 << 40}


class InputTooLarge(ValueError):
    """An archive, compressed file or pipe unpacks to more than the cap (:func:`unpack_cap`)."""


def unpack_cap() -> int:
    """The cap on unpacked bytes: ``SOFTIRR_MAX_UNPACKED`` (``"8G"``, ``"500M"``, bytes) or :data:`MAX_UNPACKED`.

    Examples
    --------
    >>> import os
    >>> os.environ["SOFTIRR_MAX_UNPACKED"] = "2G"
    >>> unpack_cap() == 2 * 2**30
    True
    >>> del os.environ["SOFTIRR_MAX_UNPACKED"]
    >>> unpack_cap() == MAX_UNPACKED
    True
    """
    import re

    text = os.environ.get(UNPACK_ENV, "").strip()
    if not text:
        return MAX_UNPACKED
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)\s*([A-Za-z]*)", text)
    if m is None or m.group(2).upper() not in _UNITS or float(m.group(1)) <= 0:
        raise ValueError(f"{UNPACK_ENV} must be a positive size in bytes or with a unit (e.g. 8G, 500M); got {text!r}")
    return int(float(m.group(1)) * _UNITS[m.group(2).upper()])


def size_text(nbytes: float) -> str:
    """``"3.0 GiB"``, ``"512.0 MiB"``, ``"10 bytes"``.

    Examples
    --------
    >>> size_text(3 * 2**30), size_text(10)
    ('3.0 GiB', '10 bytes')
    """
    for unit, k in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= k:
            return f"{nbytes / k:.1f} {unit}"
    return f"{int(nbytes)} bytes"


def too_large(shown: str, what: str, cap: int | None = None) -> InputTooLarge:
    """The one error for input over the cap: what is too large, the cap, and how to raise it."""
    cap = unpack_cap() if cap is None else cap
    return InputTooLarge(
        f"{shown}: {what}, over the cap of {size_text(cap)} on unpacked input (nothing was unpacked past it); if the "
        f"input is genuine, raise the cap with the environment variable {UNPACK_ENV} (e.g. {UNPACK_ENV}=8G), or "
        "unpack it yourself and read the files")


def special_file(path: Path) -> bool:
    """Whether ``path`` exists and is neither a regular file nor a folder (a pipe, a device, a socket)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextlib.contextmanager
def spooled(path: Path) -> Iterator[Path]:
    """A pipe (``<(zcat x.csv.gz)``, ``/dev/stdin``) copied to a regular file of the same name, at most
    :func:`unpack_cap` bytes; a device (``/dev/zero``, ``/dev/urandom``) or socket is refused."""
    import shutil
    import tempfile

    mode = os.stat(path).st_mode
    if not stat.S_ISFIFO(mode):
        kind = "a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode) else \
            "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
        raise ValueError(f"{path}: {kind}, not an annotation file; give a file, a folder or a pipe")
    cap = unpack_cap()
    folder = tempfile.mkdtemp(prefix="softirr-pipe-")
    try:
        copy = Path(folder) / (path.name or "input")
        done = 0
        with open(path, "rb") as src, open(copy, "wb") as dst:
            while block := src.read(1 << 20):
                done += len(block)
                if done > cap:
                    raise too_large(str(path), f"the pipe carries more than {size_text(cap)}", cap)
                dst.write(block)
        yield copy
    finally:
        shutil.rmtree(folder, ignore_errors=True)
