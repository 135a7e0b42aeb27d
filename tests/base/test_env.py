"""The package's boolean environment variables share one reading (base._env.env_flag).

``SOFTIRR_PROGRESS`` understood only 0 and 1 (``false`` or ``off`` still drew bars), ``SOFTIRR_TRACEBACK=0`` turned
tracebacks on (any non-empty value did), while ``SOFTIRR_COMPILE_CACHE`` took off / false / no. Now each reads
1/true/yes/on and 0/false/no/off, case ignored; anything else is a warning naming the variable and its value, and
the default.
"""

import io
import sys
import warnings

import pytest

from softirr_stats.base._env import EnvironmentVariableWarning, env_flag


@pytest.mark.parametrize(("text", "value"), [("1", True), ("true", True), ("Yes", True), (" ON ", True),
                                             ("0", False), ("FALSE", False), ("no", False), ("Off", False)])
def test_the_boolean_words(monkeypatch, text, value):
    monkeypatch.setenv("SOFTIRR_PROGRESS", text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert env_flag("SOFTIRR_PROGRESS") is value


def test_unset_or_empty_is_the_default_and_anything_else_warns(monkeypatch):
    monkeypatch.delenv("SOFTIRR_TRACEBACK", raising=False)
    assert env_flag("SOFTIRR_TRACEBACK", False) is False and env_flag("SOFTIRR_TRACEBACK") is None
    monkeypatch.setenv("SOFTIRR_TRACEBACK", "")
    assert env_flag("SOFTIRR_TRACEBACK", False) is False
    monkeypatch.setenv("SOFTIRR_TRACEBACK", "maybe")
    with pytest.warns(EnvironmentVariableWarning, match=r"SOFTIRR_TRACEBACK='maybe' is not one of 1, true, yes, on "
                                                        r"or 0, false, no, off.*default"):
        assert env_flag("SOFTIRR_TRACEBACK", False) is False


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("text", ["false", "off", "no", "OFF"])
def test_progress_off_words_draw_no_bar(monkeypatch, text):
    from softirr_stats.base._bars import bars_wanted
    from softirr_stats.base._long_calls import say_before
    from softirr_stats.inference._fit import resolve_progress

    monkeypatch.setattr(sys, "stderr", _Terminal())
    monkeypatch.setenv("SOFTIRR_PROGRESS", text)
    assert bars_wanted() is False and resolve_progress(None) is False
    say_before("scoring 1 pair: about 20 min")
    assert sys.stderr.getvalue() == ""


@pytest.mark.parametrize("text", ["true", "on", "yes"])
def test_progress_on_words_draw_bars_anywhere(monkeypatch, text):
    from softirr_stats.base._bars import bars_wanted
    from softirr_stats.inference._fit import resolve_progress

    monkeypatch.setattr(sys, "stderr", io.StringIO())  # not a terminal
    monkeypatch.setenv("SOFTIRR_PROGRESS", text)
    assert bars_wanted() is True and resolve_progress(None) is True


def test_traceback_zero_keeps_the_one_line_error(monkeypatch):
    from softirr_stats.cli._errors import EXIT_INTERNAL, boundary

    def broken():
        raise RuntimeError("a bug")

    monkeypatch.setenv("SOFTIRR_TRACEBACK", "0")
    assert boundary(broken) == EXIT_INTERNAL
    monkeypatch.setenv("SOFTIRR_TRACEBACK", "1")
    with pytest.raises(RuntimeError, match="a bug"):
        boundary(broken)


def test_compile_cache_reads_the_same_words(monkeypatch, tmp_path):
    from softirr_stats.base._jax import _from_env, default_cache_dir

    for text in ("0", "off", "False", "NO", "none"):
        monkeypatch.setenv("SOFTIRR_COMPILE_CACHE", text)
        assert _from_env() is None, text
    for text in ("", "1", "on", "TRUE", "yes"):
        monkeypatch.setenv("SOFTIRR_COMPILE_CACHE", text)
        assert _from_env() == default_cache_dir(), text
    monkeypatch.setenv("SOFTIRR_COMPILE_CACHE", str(tmp_path))
    assert _from_env() == tmp_path


def test_every_variable_the_package_reads_is_documented():
    """Every ``SOFTIRR_*`` name in the package's code, and every variable it reads by a literal name
    (``os.environ.get("COLUMNS")``), has its entry in docs/command_line.md's section on the environment."""
    import pathlib
    import re

    root = pathlib.Path(__file__).resolve().parents[2]
    found = set()
    for folder in ("softirr_stats", "models", "inference"):
        for path in (root / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            found |= set(re.findall(r"\bSOFTIRR_[A-Z_]+\b", text))
            found |= set(re.findall(r"environ\.get\(\s*\"([A-Z_]+)\"", text))
    page = (root / "docs" / "command_line.md").read_text(encoding="utf-8")
    section = page[page.index("## Environment variables"):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    missing = sorted(name for name in found if f"`{name}`" not in section)
    assert not missing, missing
