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


class NumberChecker(doctest.OutputChecker):
    """doctest's checker plus pytest's ``NUMBER`` rule for floats."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if super().check_output(want, got, optionflags):
            return True
        if not optionflags & NUMBER:
            return False
        wants, gots = _FLOAT.findall(want), _FLOAT.findall(got)
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
