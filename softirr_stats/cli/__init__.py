"""The ``softirr`` command line: one module per command, one error boundary.

Commands: ``agree``, ``sensitivity``, ``score``, ``model``, ``report``, ``demo`` and the
``judge`` group (``judge plan``). Each command module holds ``NAME``, ``EPILOG`` and
``command`` (the typer function); adding a command is one module and one entry of
``COMMANDS``. Every command runs inside the error boundary (``_errors.py``): a failure is
one ``error:`` line on stderr with the documented exit status, never a traceback.

Heavy modules (JAX, pandas, torch) are imported inside the commands: ``softirr --help``
stays light.
"""

import logging
import os
import sys
import time
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from softirr_stats.cli import (
    agree,
    compare,
    demo,
    describe,
    judge,
    model,
    plan,
    report,
    score,
    sensitivity,
    spans,
)
from softirr_stats.cli._errors import EXIT_HELP, boundary, guarded, leave
from softirr_stats.cli._parsing import OnceCommand

__all__ = ["COMMANDS", "app", "main", "register"]

def _flag_type(display_type: Any) -> Any:
    """typer's help shows a type after every option; an on/off flag takes no value, so show none."""
    def shown(self: Any, ctx: Any) -> str:
        return "" if getattr(self, "is_flag", False) or getattr(self, "is_bool_flag", False) else display_type(self, ctx)
    return shown


typer.core.TyperOption.display_type = _flag_type(typer.core.TyperOption.display_type)  # type: ignore[method-assign]

app = typer.Typer(
    add_completion=True,  # --install-completion / --show-completion (bash, zsh, fish, PowerShell)
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    rich_markup_mode="markdown",
    pretty_exceptions_enable=False,
    help="Inter-rater reliability with soft agreement and honest uncertainty.",
    epilog=EXIT_HELP,
)
COMMANDS = (describe, agree, sensitivity, spans, score, model, report, demo, compare, plan)  # one module per command, in --help order


def _version(value: bool) -> None:
    if value:
        from softirr_stats import __version__

        typer.echo(f"softirr {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="print the version and exit")] = False,
          quiet: Annotated[bool, typer.Option(
              "--quiet", "-q", help="no progress bars, notices or estimates on stderr (results, notes and errors "
              "still print)")] = False,
          verbose: Annotated[bool, typer.Option(
              "--verbose", "-v", help="also log what each step does (logger softirr_stats at INFO) on stderr")] = False,
          ) -> None:
    """Inter-rater reliability with soft agreement and honest uncertainty."""
    import logging

    if quiet and verbose:
        raise typer.BadParameter("--quiet and --verbose exclude each other")
    log = logging.getLogger("softirr_stats")
    for old in [h for h in log.handlers if isinstance(h, _PhaseLines)]:  # an earlier call in this process
        log.removeHandler(old)
    log.setLevel(logging.NOTSET)
    if quiet:
        os.environ["SOFTIRR_PROGRESS"] = "0"
        log.setLevel(logging.ERROR)
    elif verbose:
        log.setLevel(logging.INFO)
        log.addHandler(_PhaseLines())


class _PhaseLines(logging.Handler):
    """``softirr -v``: the package's log lines on stderr, INFO ones timed from the command's start.

    ``softirr [  1.23 s] scored 120 label pairs with indel ...``; warnings and errors as their
    message alone. Written to the ``sys.stderr`` of the moment (a test runner swaps it).
    """

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.t0 = time.perf_counter()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            msg = record.getMessage()
            if record.levelno < logging.WARNING:
                msg = f"softirr [{time.perf_counter() - self.t0:7.2f} s] {msg}"
            sys.stderr.write(msg + "\n")
            sys.stderr.flush()
        except Exception:  # noqa: BLE001 - logging never stops a command
            self.handleError(record)


def register(module: Any) -> None:
    """Add a command module (``NAME``, ``EPILOG``, ``command``) to ``app``, inside the error boundary; its parser
    refuses a one-value option given twice and an empty path (:class:`~softirr_stats.cli._parsing.OnceCommand`)."""
    epilog = f"{module.EPILOG} {EXIT_HELP}" if module.EPILOG else EXIT_HELP
    app.command(module.NAME, epilog=epilog, cls=OnceCommand)(guarded(module.command))


for _mod in COMMANDS:
    register(_mod)
for _cmd in judge.app.registered_commands:
    _cmd.callback = guarded(_cmd.callback)
    _cmd.epilog = EXIT_HELP
    _cmd.cls = OnceCommand
app.add_typer(judge.app, name=judge.NAME)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``softirr`` console script (``argv``: the arguments, default ``sys.argv[1:]``)."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    args = list(sys.argv[1:] if argv is None else argv)
    from softirr_stats.base._interrupt import install, restore

    previous = install()  # Ctrl-C raised again until handled: one swallowed by a gc callback still stops a fit
    try:
        code = boundary(lambda: app(args=args, prog_name="softirr", standalone_mode=False))
    finally:
        restore(previous)
    leave(code)
