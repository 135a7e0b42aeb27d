"""docs/readers.md: every example is a doctest that builds its own export, so the page cannot rot."""

import doctest
import pathlib
import warnings

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "readers.md"


def test_readers_page_examples():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the unpairable-items notices are not part of the page
        result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 50
    assert result.failed == 0
