"""A Monte Carlo p-value (a share of N replicated draws) never prints as ``p = 0.000``: a share of 0 is the bound
``p < 1/N`` (two-sided ``2/N``), an upper tail of 1 is ``p > 1 - 1/N``; other shares keep their decimals."""

import math
from decimal import ROUND_CEILING, Decimal
from fractions import Fraction

import pytest

from softirr_stats.base._format import format_draw_p


def _two_digits_up(x: Fraction) -> Decimal:
    """The smallest number with two significant digits at or above ``x`` (an independent computation)."""
    e = math.floor(math.log10(x.numerator) - math.log10(x.denominator))
    while Fraction(10) ** e > x:  # log10 rounding: make 10^e <= x < 10^(e+1)
        e -= 1
    while Fraction(10) ** (e + 1) <= x:
        e += 1
    step = Decimal(10) ** (e - 1)
    scaled = Decimal(x.numerator) / Decimal(x.denominator) / step
    return (scaled.to_integral_value(rounding=ROUND_CEILING) * step).normalize()


@pytest.mark.parametrize("n", [1, 3, 7, 100, 300, 400, 1000, 2000, 4000, 30000])
def test_a_share_of_zero_is_the_bound_one_over_n(n):
    text = format_draw_p(0.0, n)
    want = min(_two_digits_up(Fraction(1, n)), Decimal(1))
    assert text == f"p < {format(want, 'f')} (none of {n} draws)"
    bound = Decimal(text.split()[2])
    assert bound >= Decimal(1) / Decimal(n)  # a bound: never below 1/N
    assert "e" not in text.split()[2]  # decimal form, never 3.4e-05


@pytest.mark.parametrize("n", [1, 3, 300, 400, 1000, 4000])
def test_two_sided_zero_is_below_two_over_n_and_one_is_its_cap(n):
    want = min(_two_digits_up(Fraction(2, n)), Decimal(1))
    assert format_draw_p(0.0, n, two_sided=True) == f"p < {format(want, 'f')} (none of {n} draws)"
    assert format_draw_p(1.0, n, 4, two_sided=True) == "p = 1.0000"  # min(1, 2 min(...)) at its cap: no bound


@pytest.mark.parametrize("n", [2, 300, 400, 1000, 4000])
def test_an_upper_tail_of_one_is_above_one_minus_one_over_n(n):
    below = Decimal(1) - min(_two_digits_up(Fraction(1, n)), Decimal(1))
    assert format_draw_p(1.0, n, name="") == f"> {format(below, 'f')} (all {n} draws)"
    assert Decimal(1) - below >= Decimal(1) / Decimal(n)
    assert format_draw_p(1.0, n, count=False) == f"p > {format(below, 'f')}"


def test_other_shares_keep_their_decimals():
    assert format_draw_p(0.0312, 1000) == "p = 0.031" and format_draw_p(0.0312, 1000, 4, name="") == "0.0312"
    assert format_draw_p(0.5, 400, two_sided=True) == "p = 0.500"
    # a share the decimals would round to 0 or 1 shows the digits it needs
    assert format_draw_p(1 / 4000, 4000) == "p = 0.00025" and abs(float("0.00025") - 1 / 4000) < 1e-12
    assert format_draw_p(3999 / 4000, 4000) == "p = 0.99975" and abs(0.99975 - 3999 / 4000) < 1e-12
    assert format_draw_p(1 / 30000, 30000, name="") == "0.000033"


def test_unknown_draws_and_missing_p():
    assert format_draw_p(0.0, None, 4) == "p = 0.0000"  # a record built by hand without its N
    assert format_draw_p(float("nan"), 400) == "—" and format_draw_p(None, 400, na="") == ""


@pytest.mark.parametrize("n", [0, -3, 2.5, True, "400"])
def test_bad_draws_are_refused_naming_n_draws(n):
    with pytest.raises(ValueError, match="n_draws must be a positive integer"):
        format_draw_p(0.5, n)


@pytest.mark.parametrize("p", [-0.1, 1.5, "0.5", True])
def test_a_p_outside_zero_one_is_refused(p):
    with pytest.raises(ValueError, match=r"p must be a share of draws in \[0, 1\]"):
        format_draw_p(p, 400)
