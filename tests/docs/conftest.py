"""What the docs tests share: the doctest output checker with pytest's ``NUMBER`` rule, and the
doctest option flags of ``pyproject.toml``.

Docstring examples (test_doctests.py) and docs pages (test_page_examples.py) are checked by the
same rule: a float shown with d decimals matches any value that agrees to d decimals.
"""

from __future__ import annotations

import doctest
import re

import pytest

NUMBER = doctest.register_optionflag("NUMBER")  # pytest's flag (the same bit if pytest registered it first)
_FLOAT = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?")


_TOKEN = re.compile(r"(?P<ellipsis>\.\.\.)|(?P<number>" + _FLOAT.pattern + r")|(?P<space>\s+)")


def _ellipsis_numbers_match(want: str, got: str, optionflags: int) -> bool:
    """``...`` and the ``NUMBER`` rule together: ``...`` stands for any text (numbers included,
    so a cell that differs from machine to machine, such as a sampler's effective sample size,
    can be left out), every float shown must agree with the one in its place to the decimals shown.

    >>> _ellipsis_numbers_match("ESS ... | p 0.60 |", "ESS 248.2 | p 0.6011 |", 0)
    True
    >>> _ellipsis_numbers_match("ESS ... | p 0.60 |", "ESS 248.2 | p 0.6111 |", 0)
    False
    """
    space = optionflags & doctest.NORMALIZE_WHITESPACE
    want = want.strip() if space else want
    pattern, shown, end = [], [], 0
    for m in _TOKEN.finditer(want):
        pattern.append(re.escape(want[end:m.start()]))
        if m.group("ellipsis"):
            pattern.append(".*?")
        elif m.group("number"):
            pattern.append(r"([-+]?(?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?)")
            shown.append(m.group("number"))
        else:
            pattern.append(r"\s+" if space else re.escape(m.group()))
        end = m.end()
    pattern.append(re.escape(want[end:]))
    regex = "".join(pattern)
    found = re.fullmatch(r"\s*" + regex + r"\s*" if space else regex, got, re.DOTALL)
    if found is None:
        return False
    for w, g in zip(shown, found.groups(), strict=True):
        digits = len(w.split("e")[0].split("E")[0].split(".")[1]) if "." in w else 0
        if abs(float(w) - float(g)) > 0.5 * 10.0 ** -digits:
            return False
    return True


class NumberChecker(doctest.OutputChecker):
    """doctest's checker plus pytest's ``NUMBER`` rule for floats."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if super().check_output(want, got, optionflags):
            return True
        if not optionflags & NUMBER:
            return False
        wants, gots = _FLOAT.findall(want), _FLOAT.findall(got)
        if optionflags & doctest.ELLIPSIS and "..." in want and wants:
            return _ellipsis_numbers_match(want, got, optionflags)
        if not wants or len(wants) != len(gots):
            return False
        for w, g in zip(wants, gots, strict=True):
            digits = len(w.split("e")[0].split("E")[0].split(".")[1]) if "." in w else 0
            if abs(float(w) - float(g)) > 0.5 * 10.0 ** -digits:
                return False
        return super().check_output(_FLOAT.sub("X", want), _FLOAT.sub("X", got), optionflags)


@pytest.fixture(scope="session")
def doc_checker() -> NumberChecker:
    """The output checker of every docstring and docs-page example."""
    return NumberChecker()


@pytest.fixture(scope="session")
def doctest_flags(pytestconfig) -> int:
    """pytest's ``doctest_optionflags`` (pyproject.toml) as doctest option bits."""
    flags = 0
    for word in pytestconfig.getini("doctest_optionflags"):
        flags |= doctest.OPTIONFLAGS_BY_NAME[word]
    return flags
