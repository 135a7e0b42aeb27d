"""The package's boolean environment variables, read one way (docs/command_line.md lists every variable it reads).

``SOFTIRR_PROGRESS``, ``SOFTIRR_TRACEBACK`` and the on/off words of ``SOFTIRR_COMPILE_CACHE`` all take
1/true/yes/on and 0/false/no/off, case and surrounding spaces ignored. Unset or empty is the variable's default;
any other value gives an :class:`EnvironmentVariableWarning` naming the variable and the value, then the default.
"""

import os
import warnings

from softirr_stats.base._validation import SoftIRRWarning, user_stacklevel

__all__ = ["FALSE_WORDS", "PROGRESS_ENV", "TRACEBACK_ENV", "TRUE_WORDS", "EnvironmentVariableWarning", "env_flag",
           "flag_word"]

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("0", "false", "no", "off")
#: progress bars and the notes said before long work: 1 draws them wherever stderr goes, 0 none (``softirr --quiet``);
#: unset, on a terminal only
PROGRESS_ENV = "SOFTIRR_PROGRESS"
#: the command line's error boundary re-raises the exception, with its traceback, instead of one ``error:`` line
TRACEBACK_ENV = "SOFTIRR_TRACEBACK"


class EnvironmentVariableWarning(SoftIRRWarning):
    """An environment variable of the package holds a value it does not understand; its default is used."""


def flag_word(text: str) -> bool | None:
    """True or False for a boolean word (:data:`TRUE_WORDS`, :data:`FALSE_WORDS`; case and spaces ignored), else None.

    Examples
    --------
    >>> flag_word(" Off "), flag_word("YES"), flag_word("/tmp/cache")
    (False, True, None)
    """
    word = text.strip().lower()
    return True if word in TRUE_WORDS else False if word in FALSE_WORDS else None


def env_flag(name: str, default: bool | None = None) -> bool | None:
    """The boolean environment variable ``name``: True, False, or ``default`` when it is unset, empty or not a
    boolean word (that last with an :class:`EnvironmentVariableWarning` naming the variable and its value).

    Examples
    --------
    >>> import os
    >>> os.environ["SOFTIRR_PROGRESS"] = "off"
    >>> env_flag("SOFTIRR_PROGRESS")
    False
    >>> del os.environ["SOFTIRR_PROGRESS"]
    >>> env_flag("SOFTIRR_PROGRESS") is None
    True
    """
    text = os.environ.get(name, "")
    if not text.strip():
        return default
    value = flag_word(text)
    if value is None:
        said = "as if unset" if default is None else ("on" if default else "off")
        warnings.warn(f"{name}={text!r} is not one of {', '.join(TRUE_WORDS)} or {', '.join(FALSE_WORDS)} (case "
                      f"ignored); the default is used ({said})", EnvironmentVariableWarning, stacklevel=user_stacklevel())
    return default if value is None else value
