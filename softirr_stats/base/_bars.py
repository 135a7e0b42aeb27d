"""Progress bars that never leave a half-drawn line behind.

A tqdm bar redraws its line with ``\\r`` and writes no line end until it closes: a bar the work
left open when it raised stays on stderr's last line, so the next line (the command line's
``error:`` line, the shell prompt) starts on top of it. :func:`close_bars` closes every bar still
open (its last frame kept with a line end, or its line cleared, as the bar was made); the command
line's error boundary calls it before it writes its one ``error:`` line.
"""

import sys

__all__ = ["close_bars"]


def close_bars() -> int:
    """Close every tqdm bar still open; return how many there were.

    Imports nothing: without tqdm imported no bar was drawn.

    Examples
    --------
    >>> import io
    >>> from tqdm import tqdm
    >>> err = io.StringIO()
    >>> bar = tqdm(total=10, desc="work", file=err)
    >>> _ = bar.update(3)
    >>> close_bars(), err.getvalue().endswith("\\n")
    (1, True)
    >>> close_bars()
    0
    """
    std = sys.modules.get("tqdm.std")
    if std is None:
        return 0
    open_bars = [bar for bar in list(getattr(std.tqdm, "_instances", ())) if not getattr(bar, "disable", True)]
    for bar in open_bars:
        try:
            bar.close()
        except Exception:  # noqa: BLE001 - a bar whose stream is gone: nothing left to tidy
            pass
    return len(open_bars)
