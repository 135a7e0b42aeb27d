"""The Student-t interval with the jackknife SE on the logit scale (span F1's default interval)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from softirr_stats.uncertainty import logit_jackknife_t_interval


def test_by_hand():
    jack = np.array([0.55, 0.60, 0.62, 0.58, 0.65, 0.59])
    lo, hi, note = logit_jackknife_t_interval(0.60, jack, 0.9)
    logits = [math.log(j / (1 - j)) for j in jack]
    mean = sum(logits) / 6
    se = math.sqrt(5 / 6 * sum((x - mean) ** 2 for x in logits))
    t = stats.t.ppf(0.95, 5)
    centre = math.log(0.6 / 0.4)
    assert note == ""
    assert lo == pytest.approx(1 / (1 + math.exp(-(centre - t * se))), abs=1e-14)
    assert hi == pytest.approx(1 / (1 + math.exp(-(centre + t * se))), abs=1e-14)
    # asymmetric around the estimate, as the logit makes it (the estimate is above 1/2: the lower side is longer)
    assert 0.60 - lo > hi - 0.60


def test_a_value_at_0_or_1_falls_back_to_the_original_scale_clipped():
    jack = np.array([1.0, 1.0, 0.9, 1.0])
    lo, hi, note = logit_jackknife_t_interval(0.97, jack, 0.95)
    se = math.sqrt(3 / 4 * ((jack - jack.mean()) ** 2).sum())
    assert lo == pytest.approx(0.97 - stats.t.ppf(0.975, 3) * se, abs=1e-14) and hi == 1.0
    assert "original scale" in note and "clipped" in note
    assert logit_jackknife_t_interval(1.0, np.ones(5), 0.95)[:2] == (1.0, 1.0)


def test_undefined_cases_and_bad_level():
    lo, hi, note = logit_jackknife_t_interval(0.5, np.array([0.5]), 0.95)
    assert math.isnan(lo) and math.isnan(hi) and "fewer than 2 units" in note
    lo, hi, note = logit_jackknife_t_interval(0.5, np.array([0.4, np.nan, 0.6]), 0.95)
    assert math.isnan(lo) and math.isnan(hi) and "undefined (nan)" in note
    assert math.isnan(logit_jackknife_t_interval(math.nan, np.array([0.4, 0.6]), 0.95)[0])
    with pytest.raises(ValueError, match="level must be in"):
        logit_jackknife_t_interval(0.5, np.array([0.4, 0.6]), 95)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.01, 0.99), min_size=2, max_size=40), st.floats(0.01, 0.99),
       st.floats(0.5, 0.99))
def test_ordered_inside_the_unit_interval_and_wider_at_a_higher_level(jack, estimate, level):
    lo, hi, note = logit_jackknife_t_interval(estimate, np.array(jack), level)
    # inside [0, 1]: a bound far out on the logit scale rounds to 0.0 or 1.0 in float64 (expit(40) == 1.0), as
    # with jackknife values 0.5 and 0.015625 at level 0.97 (2 units, Student-t with 1 df)
    assert note == "" and 0 <= lo <= estimate <= hi <= 1
    lo2, hi2, _ = logit_jackknife_t_interval(estimate, np.array(jack), (1 + level) / 2)
    assert lo2 <= lo and hi <= hi2
