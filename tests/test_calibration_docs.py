"""docs/calibration.md: every example is a doctest, so the page's numbers are the code's."""

import doctest
import pathlib

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "calibration.md"


def test_calibration_page_examples():
    from softirr_stats import calibration

    result = doctest.testfile(
        str(DOC),
        module_relative=False,
        globs={"cal": calibration},
        optionflags=doctest.NORMALIZE_WHITESPACE,
    )
    assert result.attempted >= 15
    assert result.failed == 0
