"""Titles of the terminal tables: confidence levels with their decimals."""

import softirr_stats as sis
from softirr_stats.cli._options import ci_title


def test_interval_titles_keep_the_decimals_of_the_level():
    assert ci_title(sis.Analytic(level=0.995), 0, "items", "auto", 0.995, 0).startswith("99.5% analytic intervals")
    assert ci_title(sis.Bootstrap(n=100, level=0.975), 100, "items", "percentile", 0.975, 0).startswith(
        "97.5% percentile intervals, B = 100")
