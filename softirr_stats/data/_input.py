"""Rules for raw input that every reader shares, with no dependency on the rest of ``data``.

- :func:`not_text_message`: the one message for bytes that are not text in the given encoding;
- :data:`BIG_INPUT` and :class:`parsing`: inputs big enough to take seconds show a progress bar.

Both the export readers (``_readers._common``) and the table readers (``_cells``, ``_columnar``)
import these from here, so no reader module needs another to say either.
"""

from typing import Any

__all__ = ["BIG_INPUT", "codec_name", "not_text_message", "parsing"]

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


def not_text_message(shown: str, data: bytes, offset: int, encoding: str) -> str:
    """The one message for bytes that are not text in ``encoding``: where, which byte, and the option."""
    return (f"{shown}: not {codec_name(encoding)} text (byte {data[offset:offset + 1]!r} at offset {offset}); pass "
            "encoding= (e.g. encoding='latin-1', or --reader-option encoding=latin-1) or re-save the file as UTF-8")


class parsing:
    """Context manager: a one-step tqdm bar (elapsed time) while a big file is parsed."""

    def __init__(self, nbytes: int, desc: str) -> None:
        self.bar = None
        if nbytes > BIG_INPUT:
            from tqdm.auto import tqdm

            self.bar = tqdm(total=1, desc=f"{desc} ({nbytes / 1e6:.0f} MB)", leave=False, disable=None,
                            bar_format="{desc}: {elapsed}")

    def __enter__(self) -> "parsing":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.update(1)
            self.bar.close()
