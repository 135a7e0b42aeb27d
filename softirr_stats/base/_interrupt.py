"""Ctrl-C that is not lost: a SIGINT handler that raises again until the interrupt is handled.

Python discards an exception raised inside a garbage-collector callback (JAX registers one),
so a Ctrl-C that lands there would be lost and a long fit would start anyway. The handler
that :func:`install` sets (the CLI does, for the length of a command) marks the interrupt as
pending in :data:`PENDING` and raises :class:`KeyboardInterrupt`; unless the code that
catches it calls :func:`handled` within ``RETRY_SECONDS``, it is raised again (a swallowed
one is not printed either). :func:`check` raises at a safe point (the fit's worker loop)
while one is pending. A SIGINT that lands while a module is being imported is held until the
import is done (the retry raises it; at most :data:`HOLD_SECONDS`): a KeyboardInterrupt inside
an extension module's initialisation can crash the interpreter.
"""

import signal
import sys
import threading
import time
from typing import Any

__all__ = ["PENDING", "check", "handled", "importing", "install", "restore"]

#: Set by the handler of :func:`install` on SIGINT, cleared by :func:`handled`.
PENDING = threading.Event()
#: Seconds after a SIGINT before it is raised again if nothing handled it.
RETRY_SECONDS = 0.3
#: The longest a SIGINT is held while a module is being imported (an import that hangs, say a
#: plug-in's, still ends with Ctrl-C).
HOLD_SECONDS = 30.0


def _retry() -> None:
    import _thread

    if not PENDING.is_set():
        return
    if hasattr(signal, "pthread_kill"):
        # a real SIGINT to the main thread: it also wakes a blocking call there (a sleep, a
        # read), which ``interrupt_main``'s simulated one waits out
        try:
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)  # type: ignore[arg-type]
        except OSError:  # the process is ending
            pass
    else:  # pragma: no cover - Windows
        _thread.interrupt_main()  # the handler runs again in the main thread


def importing(frame: Any, stop: Any = None) -> bool:
    """Whether ``frame`` (a signal handler's) runs inside an import that began after ``stop``: a
    frame of importlib's bootstrap is on its stack, above ``stop`` (the frame that installed the
    handler; None: anywhere). A program that runs entirely inside an import (a module that calls
    the CLI when imported) is not held: its import began before the command.

    Examples
    --------
    >>> import sys
    >>> importing(sys._getframe())
    False
    """
    while frame is not None and frame is not stop:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


#: The frame that called :func:`install` (imports below it are not held); None when not installed.
_installed_at: Any = None
#: When the SIGINT now held in an import first arrived (None: none held).
_held_since: float | None = None


def _handler(signum: int, frame: Any) -> None:
    PENDING.set()
    timer = threading.Timer(RETRY_SECONDS, _retry)
    timer.daemon = True
    timer.start()
    global _held_since
    if importing(frame, _installed_at):
        # a KeyboardInterrupt inside a module's import can land in an extension module's
        # initialisation (JAX's first import, at a command's first JAX use), which then ends
        # the process with a segmentation fault and no message: raised again by the retry,
        # RETRY_SECONDS later, once the import is done (at most HOLD_SECONDS later)
        now = time.monotonic()
        _held_since = now if _held_since is None else _held_since
        if now - _held_since < HOLD_SECONDS:
            return
    _held_since = None
    raise KeyboardInterrupt


def _unraisable(previous: Any) -> Any:
    def hook(info: Any) -> None:
        if not isinstance(info.exc_value, KeyboardInterrupt):  # ours, swallowed: raised again
            previous(info)
    hook.previous = previous  # type: ignore[attr-defined]
    return hook


def handled() -> None:
    """Say that the interrupt reached code that acts on it: no more retries.

    Examples
    --------
    >>> handled(); PENDING.is_set()
    False
    """
    global _held_since
    PENDING.clear()
    _held_since = None


def install() -> Any:
    """Handle SIGINT with the retrying handler; return what :func:`restore` needs.

    In the main thread only, and only over Python's default handler; elsewhere nothing changes.

    Examples
    --------
    >>> restore(install())
    """
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return None
    global _installed_at
    PENDING.clear()
    _installed_at = sys._getframe(1)
    previous = (signal.signal(signal.SIGINT, _handler), sys.unraisablehook)
    sys.unraisablehook = _unraisable(sys.unraisablehook)
    return previous


def restore(previous: Any) -> None:
    """Put back the SIGINT handler and unraisable hook that :func:`install` replaced."""
    global _installed_at
    if previous is not None:
        signal.signal(signal.SIGINT, previous[0])
        sys.unraisablehook = previous[1]
        _installed_at = None


def check() -> None:
    """Raise :class:`KeyboardInterrupt` while an interrupt is pending (perhaps swallowed).

    Examples
    --------
    >>> check()  # nothing pending
    """
    if PENDING.is_set():
        raise KeyboardInterrupt
