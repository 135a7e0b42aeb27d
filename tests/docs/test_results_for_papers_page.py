"""docs/results_for_papers.md: its examples are doctests, so the printed tables are the code's."""

import doctest
import pathlib
import warnings

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "results_for_papers.md"


def test_results_for_papers_page_examples():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = doctest.testfile(str(DOC), module_relative=False, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 15
    assert result.failed == 0
