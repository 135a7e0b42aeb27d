"""clip_to_range: each statistic's own range."""

import pytest

import softirr_stats as sis
from softirr_stats.uncertainty._bootstrap import clip_to_range

SF = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]]


@pytest.mark.parametrize("name", ["icc1k", "icc2k", "icc3k"])
def test_the_average_iccs_have_no_lower_bound_to_note(name):
    """1 - MSE / MSR reaches any negative value (pingouin's exact-F ICC(1,k) interval on Shrout & Fleiss starts
    at -0.884): a limit below -1 is in range, not 'below any chance-corrected coefficient's usual range'."""
    assert clip_to_range(-1.5, 0.7, name, "percentile") == (-1.5, 0.7, "")
    assert clip_to_range(-1.5, 0.7, "fleiss_kappa", "basic")[2].endswith("below any chance-corrected "
                                                                        "coefficient's usual range")


def test_kendalls_w_is_not_below_zero():
    assert clip_to_range(-0.2, 0.9, "kendall_w", "basic") == (
        0.0, 0.9, "basic bootstrap interval: lower limit -0.2 raised to 0 (the smallest possible value)")


def test_an_icc1k_interval_says_nothing_about_minus_one():
    r = sis.icc(SF, form="ICC1k", ci=sis.Bootstrap(n=300, seed=3))
    assert r.ci_low == pytest.approx(-1.1473237596359056, abs=1e-12)  # the replicates' interval, unclipped
    assert not any("below -1" in w for w in r.warnings)
