"""The one error boundary of ``softirr``: every failure is one line on stderr and a documented exit status.

Exit status (``softirr --help`` and docs/command_line.md say the same):

==== =========================================================================================
0    every requested result was computed
1    a requested result cannot be computed for these data (the others are still printed;
     ``--keep-going`` exits 0 instead)
2    a bad option or unreadable input (a missing, undecodable or malformed file, a bad score
     cache, a request larger than the machine's memory, a full disk): nothing was computed
3    an internal error (a bug: please report it; ``SOFTIRR_TRACEBACK=1`` shows the traceback)
130  interrupted (Ctrl-C)
==== =========================================================================================

Commands raise or call :func:`fail` with a message naming the file or the flag; anything
else that escapes a command is mapped by :func:`describe`, with the file being read or the
``--flag`` being used (:func:`using`) named in the message.
"""

import contextlib
import contextvars
import errno
import functools
import os
import re
import sqlite3
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

import typer

from softirr_stats.base._bars import close_bars
from softirr_stats.base._env import TRACEBACK_ENV, env_flag

__all__ = ["EXIT_DATA", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "EXIT_CODES", "CliError", "leave",
           "click_module", "command_flags", "describe", "fail", "flag_wording", "guarded", "note", "one_line", "reading",
           "say_read", "using", "warn"]

EXIT_OK = 0
EXIT_DATA = 1  # a requested statistic could not be computed for these data
EXIT_USAGE = 2  # bad options, unreadable input: nothing computed
EXIT_INTERNAL = 3  # a bug
EXIT_INTERRUPTED = 130
EXIT_CODES = {
    EXIT_OK: "every requested result was computed",
    EXIT_DATA: "a requested result cannot be computed for these data (--keep-going, where a command has it, exits 0)",
    EXIT_USAGE: "a bad option or unreadable input (missing/undecodable/malformed file, bad cache, too large a "
                "request, disk full): nothing was computed",
    EXIT_INTERNAL: "an internal error (please report; SOFTIRR_TRACEBACK=1 shows the traceback)",
    EXIT_INTERRUPTED: "interrupted",
}
EXIT_HELP = "Exit status: " + "; ".join(f"{k} = {v}" for k, v in EXIT_CODES.items()) + "."

_CONTEXT: contextvars.ContextVar[tuple[tuple[str, str], ...]] = contextvars.ContextVar("softirr_cli_context",
                                                                                      default=())


class CliError(Exception):
    """A user-facing failure: ``message`` (one line) and the exit ``code``."""

    def __init__(self, message: str, code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.code = code


def one_line(text: Any) -> str:
    """``text`` with every run of whitespace (newlines included) as one space."""
    return " ".join(str(text).split())


def _shown(message: Any) -> str:
    """``message`` as one line for the terminal: control characters (a label's ``ESC [2J``) written as escapes."""
    from softirr_stats.base._format import visible_text

    return visible_text(one_line(message))


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """Print ``error: message`` as one line on stderr and exit with ``code``."""
    close_bars()  # a bar the work left open: its line ended first, so the error line is a line of its own
    typer.echo(f"error: {_shown(message)}", err=True)
    raise typer.Exit(code=code)


def warn(message: str) -> None:
    """Print ``warning: message`` as one line on stderr."""
    typer.echo(f"warning: {_shown(message)}", err=True)


def note(message: str) -> None:
    """Print ``note: message`` as one line on stderr (how the data were read: nothing to act on)."""
    typer.echo(f"note: {_shown(message)}", err=True)


def say_read(notes: Sequence[str]) -> None:
    """Print the notes of reading a file: ``warning:`` for a warning raised while reading
    (``"LabelWarning: ..."``), ``note:`` for how the file was read (a layout, merged exports)."""
    from softirr_stats.base._validation import is_warning_text

    for text in notes:
        (warn if is_warning_text(text) else note)(text)


@contextlib.contextmanager
def using(flag: str, value: Any) -> Iterator[None]:
    """Inside the block, an error of the kind ``flag`` causes names ``flag value`` (``--cache x.sqlite``)."""
    if value is None:
        yield
        return
    token = _CONTEXT.set((*_CONTEXT.get(), (flag, str(value))))
    try:
        yield
    except Exception as err:  # the boundary describes it after the block has unwound: keep the context on it
        if not hasattr(err, "_softirr_context"):
            with contextlib.suppress(AttributeError, TypeError):
                err._softirr_context = _CONTEXT.get()  # type: ignore[attr-defined]
        raise
    finally:
        _CONTEXT.reset(token)


@contextlib.contextmanager
def reading(paths: Any, flag: str | None = None, wording: Callable[[str], str] | None = None) -> Iterator[None]:
    """Any failure inside the block as one line, ``cannot read [FLAG ]FILE: reason`` (exit 2): the flag that gave
    the file (``--judgments``, ``--gold``; none for the FILE arguments), the file named once (a library message that
    starts with its name says it once: ``cannot read --judgments out/s.csv: it is a blinded sheet ...``), the reason
    in command-line words where ``wording`` gives them.

    ``paths``: the file (a path) or the files being read. The one wording of every reading failure:
    :func:`softirr_stats.cli._options.reading_files` is this for the annotation files.
    """
    files = [paths] if isinstance(paths, str | os.PathLike) else list(paths)
    lead = f"{flag} " if flag else ""
    try:
        yield
    except (typer.Exit, CliError, KeyboardInterrupt):
        raise
    except Exception as err:  # noqa: BLE001 - the boundary: every reading failure is one line naming the file
        if env_flag(TRACEBACK_ENV, False):
            raise
        message, _ = describe(err)
        if wording is not None:
            message = wording(message)
        for p in files:  # the library names the file already: say it once ("x.csv is a blinded sheet": "it is ...")
            name = os.path.basename(p)
            rest = message[len(name):]
            if message.startswith(name) and rest[:1] in (":", ",", " "):
                fail(f"cannot read {lead}{p}{': it' if rest[:1] == ' ' else ''}{rest}")
        fail(f"cannot read {lead}{', '.join(map(str, files))}: {message}")


def _flag(kind: str, err: BaseException | None = None) -> str | None:
    for flag, value in reversed((*getattr(err, "_softirr_context", ()), *_CONTEXT.get())):
        if flag == kind:
            return f"{flag} {value}"
    return None


def _decode_message(err: UnicodeDecodeError) -> str:
    bad = err.object[err.start:err.start + 1]
    enc = "UTF-8" if err.encoding.replace("-", "").lower() in ("utf8", "utf8sig") else err.encoding
    return (f"not {enc} text (byte 0x{bad.hex() if bad else '??'} at byte offset {err.start}); "
            "save the file as UTF-8")


def click_module(module: str) -> Any:
    """``module`` of the click that typer runs on: its own copy (``typer._click``, recent typers) or the click package.

    The current context lives in that copy's state: the other copy's ``get_current_context`` sees none.
    """
    import importlib

    try:
        return importlib.import_module(f"typer._click.{module}")
    except ImportError:
        return importlib.import_module(f"click.{module}")


def command_flags() -> dict[str, str]:
    """``{parameter name: long flag}`` of the running command's options (``gpus_per_worker: --gpus-per-worker``,
    ``fmt: --format``); {} outside a command."""
    ctx = click_module("globals").get_current_context(silent=True)
    if ctx is None:
        return {}
    return {p.name: next((o for o in p.opts if o.startswith("--")), p.opts[0])
            for p in ctx.command.params if p.name and p.opts and p.opts[0].startswith("-")}


#: a library message's subject: a keyword (``workers must be ...``) or a keyword and its value (``device='cuda' ...``)
_SUBJECT = re.compile(r"(\w+)(?:='([^']*)')? ")


def flag_wording(message: str, flags: dict[str, str] | None = None) -> str:
    """A library message whose subject is a keyword the running command takes as an option, worded with its flag.

    ``workers must be ...`` reads ``--workers must be ...`` (without ``or None``: leaving the flag out is the
    default), and ``device='cuda'`` reads ``--device cuda`` wherever the message says it. Only a message whose subject is a parameter of the running
    command (``flags``: :func:`command_flags`) changes: the command is the caller, and its options carry the
    library's names.

    Examples
    --------
    >>> flag_wording("workers must be a positive integer or None; got 0", {"workers": "--workers"})
    '--workers must be a positive integer; got 0'
    >>> flag_wording("device must be one of ['auto', 'cpu', 'cuda']; got 'gpu'", {"device": "--device"})
    "--device must be one of ['auto', 'cpu', 'cuda']; got 'gpu'"
    >>> flag_wording("device='cuda' but no GPU is visible; use device='cpu' or device='auto'", {"device": "--device"})
    '--device cuda but no GPU is visible; use --device cpu or --device auto'
    >>> flag_wording("group_a needs at least 2 raters", {"groups": "--groups"})  # not a parameter: as it was
    'group_a needs at least 2 raters'
    """
    flags = command_flags() if flags is None else flags
    found = _SUBJECT.match(message)
    if found is None or found.group(1) not in flags:
        return message
    name, flag = found.group(1), flags[found.group(1)]
    if found.group(2) is not None:  # device='cuda' but ...: the value as the command line gives it
        return re.sub(rf"\b{name}='([^']*)'", lambda m: f"{flag} {m.group(1)}", message)
    if not message.startswith(f"{name} must be "):
        return message
    head, sep, rest = message.partition(";")
    return flag + re.sub(r" or None\b", "", head[len(name):]) + sep + rest


def describe(err: BaseException) -> tuple[str, int]:
    """``(one-line message, exit status)`` for an exception that escaped a command."""
    if isinstance(err, CliError):
        return one_line(err), err.code
    if isinstance(err, UnicodeDecodeError):
        return _decode_message(err), EXIT_USAGE
    if isinstance(err, sqlite3.Error):
        where = _flag("--cache", err) or "the score cache"
        return (f"{where} is not a usable softirr score cache ({type(err).__name__}: {one_line(err)}); give a new "
                "file name or a cache written by softirr"), EXIT_USAGE
    if isinstance(err, MemoryError):
        return ("out of memory: the request needs more memory than this machine has; ask for less (fewer "
                "--bootstrap replicates, a smaller sampled:N or mc:D, --chance exact)"), EXIT_USAGE
    if isinstance(err, RecursionError):
        return "the input is nested too deeply to read (a JSON file nested hundreds of levels?)", EXIT_USAGE
    if isinstance(err, OverflowError):
        return f"a number is too large to compute with ({one_line(err)})", EXIT_USAGE
    if isinstance(err, OSError):
        name = err.filename if err.filename is not None else None
        if err.errno == errno.ENOSPC:
            return f"disk full{f' writing {name}' if name else ''}; free some space and run again", EXIT_USAGE
        reason = err.strerror or one_line(err) or type(err).__name__
        return (f"{name}: {reason}" if name else reason), EXIT_USAGE
    if isinstance(err, ImportError):
        return (f"a needed package is not installed ({one_line(err)}); install the extra named in docs "
                "(e.g. pip install 'softirr_stats[transformers]')"), EXIT_USAGE
    if isinstance(err, ValueError | TypeError | KeyError | LookupError):
        text = one_line(err.args[0] if isinstance(err, KeyError) and err.args else err)
        return flag_wording(text) or type(err).__name__, EXIT_USAGE  # the command's option, by its flag
    return f"internal error ({type(err).__name__}: {one_line(err)}); please report it", EXIT_INTERNAL


def _click_classes() -> tuple[tuple[type, ...], tuple[type, ...], tuple[type, ...]]:
    """``(ClickException, Exit, Abort)`` classes of the click that typer runs on (typer may ship its own copy)."""
    import importlib

    mods = []
    for name in ("typer._click.exceptions", "click.exceptions"):
        try:
            mods.append(importlib.import_module(name))
        except ImportError:
            continue
    def pick(name: str, extra: type) -> tuple[type, ...]:
        return tuple({c for m in mods if isinstance(c := getattr(m, name, None), type)} | {extra})

    return pick("ClickException", typer.Exit), pick("Exit", typer.Exit), pick("Abort", typer.Abort)


def _click_exception(err: BaseException) -> bool:
    return any(isinstance(err, group) for group in _click_classes())


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a command: any exception it lets escape becomes one ``error:`` line and its exit status."""

    from softirr_stats.base._device import device_scoped

    scoped = device_scoped(fn)

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return scoped(*args, **kwargs)  # a command's --device: torch and JAX inside it
        except KeyboardInterrupt:  # typer would turn it into a silent exit 130: say so, once
            interrupted()
        except (typer.Exit, SystemExit):
            raise
        except Exception as err:  # noqa: BLE001 - the boundary
            if _click_exception(err) or env_flag(TRACEBACK_ENV, False):
                raise
            message, code = describe(err)
            fail(message, code)

    return run


def leave(code: int) -> NoReturn:
    """Exit with ``code``; after Ctrl-C with a fit still computing in its worker thread, at once.

    A compiled program cannot be cancelled from Python: the interpreter's shutdown would wait
    on (or abort in) the worker thread, so an interrupted run flushes its streams and ends
    with ``os._exit``. Nothing was written: results are written only after a fit ends.
    """
    import threading

    if code == EXIT_INTERRUPTED and any(t.name == "softirr-fit" for t in threading.enumerate()):  # not is_alive():
        # a join interrupted by Ctrl-C can leave is_alive() False for a thread still running
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


_INTERRUPT_SAID = False


def interrupted() -> NoReturn:
    """Print ``error: interrupted`` (once per command line) and exit 130: the answer to Ctrl-C."""
    raise typer.Exit(code=_said_interrupted())


def boundary(call: Callable[[], Any]) -> int:
    """Run ``call`` (the whole command line) and return its exit status; nothing escapes as a traceback."""
    global _INTERRUPT_SAID
    _INTERRUPT_SAID = False  # once per command line (main may run several in one process)
    try:
        result = call()
    except SystemExit as ex:
        code = ex.code
        return code if isinstance(code, int) else (0 if code is None else EXIT_USAGE)
    except KeyboardInterrupt:
        return _said_interrupted()
    except Exception as err:  # noqa: BLE001 - the boundary
        if env_flag(TRACEBACK_ENV, False):
            raise
        if _click_exception(err):  # standalone_mode=False hands click's own errors back: one line each
            _, exit_cls, abort_cls = _click_classes()
            if isinstance(err, exit_cls):
                return int(err.exit_code)
            if isinstance(err, abort_cls):
                return _said_interrupted()
            text = one_line(err.format_message())  # type: ignore[attr-defined]
            if not text:  # no_args_is_help: the help was printed
                return EXIT_USAGE
            ctx = getattr(err, "ctx", None)
            where = f" (see {ctx.command_path} --help)" if ctx is not None and ctx.command_path else ""
            close_bars()
            typer.echo(f"error: {text}{where}", err=True)
            return EXIT_USAGE
        message, code = describe(err)
        close_bars()
        typer.echo(f"error: {message}", err=True)
        return code
    if result == EXIT_INTERRUPTED:  # typer maps Ctrl-C outside a command to a silent 130
        return _said_interrupted()
    return result if isinstance(result, int) else EXIT_OK


def _said_interrupted() -> int:
    """``error: interrupted`` on stderr unless already printed; the exit status 130."""
    from softirr_stats.base._interrupt import handled

    handled()  # the Ctrl-C reached the code that answers it: no more retries
    global _INTERRUPT_SAID
    if not _INTERRUPT_SAID:
        _INTERRUPT_SAID = True
        close_bars()
        typer.echo("error: interrupted", err=True)
    return EXIT_INTERRUPTED
