"""Progress bars that never leave a half-drawn line behind.

A tqdm bar redraws its line with ``\\r`` and writes no line end until it closes: a bar the work
left open when it raised stays on stderr's last line, so the next line (the command line's
``error:`` line, the shell prompt) starts on top of it. :func:`close_bars` closes every bar still
open (its last frame kept with a line end, or its line cleared, as the bar was made); the command
line's error boundary calls it before it writes its one ``error:`` line.

Every bar of the package is made by :func:`progress_bar`, which asks :func:`bars_wanted` whether
to draw it (the one rule: ``SOFTIRR_PROGRESS=0``, which ``softirr --quiet`` sets, silences every
bar; ``SOFTIRR_PROGRESS=1`` draws them whatever stderr is; otherwise on a terminal only) and sizes
it so that it shows on a pseudo-terminal that reports 0 columns (``script``, ``docker exec -t``,
some CI runners), where tqdm's own sizing draws nothing at all.
"""

import io
import os
import sys
from collections.abc import Iterable
from typing import Any

from softirr_stats.base._env import PROGRESS_ENV, env_flag

__all__ = ["FALLBACK_COLUMNS", "FALLBACK_ROWS", "bars_wanted", "close_bars", "progress_bar"]

#: The bar's width and the rows tqdm may use where the terminal reports a size of 0 (a
#: pseudo-terminal without a size).
FALLBACK_COLUMNS, FALLBACK_ROWS = 80, 24


def bars_wanted(show: bool | None = None) -> bool:
    """Whether a progress bar is drawn: the one rule of every bar of the package.

    ``show`` True or False (a function's ``progress=``) decides; None: ``SOFTIRR_PROGRESS`` off (``0``,
    ``false``, ``no``, ``off``; ``softirr --quiet``) draws none, on (``1``, ``true``, ``yes``, ``on``) draws them on
    stderr whatever it is (a log file, a pipe), and otherwise (unset) a bar is drawn when stderr is a terminal
    (``base._env.env_flag``, the one reading of the package's on/off variables).

    Examples
    --------
    >>> import os
    >>> os.environ["SOFTIRR_PROGRESS"] = "0"
    >>> bars_wanted(), bars_wanted(True)
    (False, True)
    >>> del os.environ["SOFTIRR_PROGRESS"]
    """
    if show is not None:
        return bool(show)
    env = env_flag(PROGRESS_ENV)
    if env is not None:
        return env
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


def _bar_size(stream: Any) -> dict[str, Any]:
    """tqdm's sizing for ``stream``: dynamic on a terminal with a size, else ``$COLUMNS`` (or
    :data:`FALLBACK_COLUMNS`) columns and :data:`FALLBACK_ROWS` rows."""
    try:
        columns, rows = os.get_terminal_size(stream.fileno())
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):  # a file, a captured stream
        columns, rows = 0, 0
    sized: dict[str, Any] = {"dynamic_ncols": True}
    if columns <= 0:
        env = os.environ.get("COLUMNS", "")
        sized = {"ncols": int(env) if env.isdigit() and int(env) > 0 else FALLBACK_COLUMNS}
    if rows <= 0:
        sized["nrows"] = FALLBACK_ROWS
    return sized


def progress_bar(total: float | None = None, desc: str = "", unit: str = "it", *, show: bool | None = None,
                 iterable: Iterable[Any] | None = None, leave: bool = False, **kwargs: Any) -> Any:
    """A tqdm bar on stderr that follows :func:`bars_wanted` and shows on every terminal.

    Parameters
    ----------
    total : number, optional
        Steps of the bar (None: ``len(iterable)`` where it has one).
    desc, unit : str
        Its description and unit.
    show : bool, optional
        Draw it (True), never (False), or as :func:`bars_wanted` decides (None).
    iterable : iterable, optional
        Wrapped by the bar (as ``tqdm(iterable)``).
    leave : bool
        Keep its last frame when it closes (default: its line is cleared).
    **kwargs
        Further tqdm options (``unit_scale``, ``smoothing``, ...).

    Returns
    -------
    tqdm.tqdm
        A disabled bar (it draws nothing; ``update`` and iteration still work) where none is wanted.

    Examples
    --------
    >>> import io, contextlib
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err):
    ...     bar = progress_bar(4, "SVI steps", show=True)
    ...     _ = bar.update(4)
    ...     bar.close()
    >>> "SVI steps" in err.getvalue() and "0/4 [" in err.getvalue()  # its first frame
    True
    >>> progress_bar(4, "quiet", show=False).disable
    True
    """
    from tqdm.auto import tqdm

    stream = sys.stderr
    if not bars_wanted(show):
        return tqdm(iterable, total=total, desc=desc, unit=unit, file=stream, disable=True, leave=leave, **kwargs)
    for key in ("dynamic_ncols", "ncols", "nrows", "disable"):  # sized and shown here
        kwargs.pop(key, None)
    return tqdm(iterable, total=total, desc=desc, unit=unit, file=stream, leave=leave, **kwargs, **_bar_size(stream))


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
