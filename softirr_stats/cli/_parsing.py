"""What the command line refuses while it is parsed, for every command at once.

click keeps the last value of an option given twice (``--level 0.9 --level 0.5`` ran at 0.5, ``-m exact
-m levenshtein`` with levenshtein) and reads an empty path as the current directory (``--json ""`` was
"--json . is a directory"). :class:`OnceCommand`, the class of every ``softirr`` command
(``cli.register``), refuses both as the parser meets them, naming the flag: an option that takes one
value, given twice with different values (the same value twice changes nothing and passes), and an
empty or blank path. Options that take several values (``-c``, ``--chance``, ``--reader-option``, ...)
are repeatable as before.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any, get_args

from typer.core import TyperCommand

from softirr_stats.cli._options import _click

__all__ = ["OnceCommand", "long_flag"]


def long_flag(opts: list[str]) -> str:
    """The flag that names an option: its first long form (``--similarity``), else its first form.

    >>> long_flag(["-m", "--similarity"]), long_flag(["-f"])
    ('--similarity', '-f')
    """
    return next((o for o in opts if o.startswith("--")), opts[0])


def _shown(opts: list[str]) -> str:
    """``--similarity (-m)``: the long flag, with its short form beside it where it has one."""
    flag = long_flag(opts)
    short = [o for o in opts if o != flag and not o.startswith("--")]
    return f"{flag} ({', '.join(short)})" if short else flag


def _takes_paths(param: Any) -> bool:
    """Whether the option ``param`` takes a path (``Path``, ``Path | None``, ``list[Path]``): typer's type descriptor
    (recent typers), else click's parameter type (``click.Path``)."""
    desc = getattr(param, "type_descriptor", None)
    if desc is not None:
        return desc.annotation is Path or Path in get_args(desc.annotation)
    return getattr(getattr(param, "type", None), "name", None) == "path"


def _checked(option: Any, process: Callable[[Any, Any], None], ctx: Any) -> Callable[[Any, Any], None]:
    """``option``'s step of the parser, refusing a second different value of a one-value option and an empty path."""
    opts = list(option.obj.opts)
    is_path = _takes_paths(option.obj)

    def step(value: Any, state: Any) -> None:
        error = _click("exceptions").BadOptionUsage
        if is_path and isinstance(value, str) and not value.strip():
            raise error(long_flag(opts), f"{long_flag(opts)} was given an empty path ({value!r}); give a file name",
                        ctx)
        if option.action == "store" and option.dest in state.opts and state.opts[option.dest] != value:
            raise error(long_flag(opts), f"give {_shown(opts)} once: it takes one value; got "
                                         f"{state.opts[option.dest]!r} and {value!r}", ctx)
        process(value, state)

    return step


class OnceCommand(TyperCommand):
    """A typer command whose parser refuses a one-value option given twice with different values, and an empty path.

    Every option that takes values goes through :func:`_checked`'s step; flags (``--analytic``) and options
    that collect several values are left as they are.
    """

    def make_parser(self, ctx: Any) -> Any:
        parser = super().make_parser(ctx)
        try:  # click's parser keeps its options in private tables: a click without them parses as before
            options = {id(o): o for o in (*parser._long_opt.values(), *parser._short_opt.values())}
        except AttributeError:  # pragma: no cover - tests/cli/test_parsing.py fails where the check is lost
            return parser
        for option in options.values():
            if option.takes_value:
                option.process = _checked(option, option.process, ctx)
        return parser
