"""Long native calls that Ctrl-C can stop, and estimates said before long work starts.

A C extension call that runs for minutes (an edit distance between two long texts) returns to
the interpreter only when it is done, so a ``KeyboardInterrupt`` waits for it.
:func:`interruptible` runs such a call in a daemon thread while the main thread waits in short
steps: Ctrl-C then raises in the main thread at once, and the abandoned call ends with the
process. The call must release the GIL (rapidfuzz's ``process.cdist``/``cpdist`` do).

:func:`say_before` prints one plain line on stderr *before* long work starts (warnings raised
inside a command are collected and shown after the work; an estimate is useful only before
it). ``SOFTIRR_PROGRESS=0`` silences it, as it silences progress bars.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from softirr_stats.base._env import PROGRESS_ENV, env_flag

__all__ = ["interruptible", "say_before", "POLL_SECONDS"]

#: How often the waiting main thread wakes to let a pending Ctrl-C raise.
POLL_SECONDS = 0.1

_T = TypeVar("_T")


def interruptible(fn: Callable[..., _T], *args: Any, **kwargs: Any) -> _T:
    """``fn(*args, **kwargs)``, stoppable by Ctrl-C within :data:`POLL_SECONDS` when called from the main thread.

    Off the main thread (where Python never delivers a signal) ``fn`` runs directly.

    Examples
    --------
    >>> interruptible(sum, [1, 2, 3])
    6
    """
    if threading.current_thread() is not threading.main_thread():
        return fn(*args, **kwargs)
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as err:  # noqa: BLE001 - handed to the caller below
            box["error"] = err

    worker = threading.Thread(target=work, name="softirr-native-call", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(POLL_SECONDS)  # a KeyboardInterrupt raises here; the daemon thread ends with the process
    if "error" in box:
        err = box.pop("error")
        raise err
    return box["value"]


def say_before(message: str) -> None:
    """Print ``note: message`` as one line on stderr now (unless ``SOFTIRR_PROGRESS=0``).

    Examples
    --------
    >>> import contextlib, io
    >>> buf = io.StringIO()
    >>> with contextlib.redirect_stderr(buf):
    ...     say_before("scoring 1 pair: about 20 min")
    >>> buf.getvalue() == "" or buf.getvalue() == "note: scoring 1 pair: about 20 min\\n"
    True
    """
    if env_flag(PROGRESS_ENV) is False:
        return
    print("note: " + " ".join(message.split()), file=sys.stderr, flush=True)
