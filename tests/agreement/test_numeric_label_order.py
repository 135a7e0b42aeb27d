"""Numeric labels are ordered by their values: ordered weights and ordinal alpha follow the numbers.

A declared ``categories=`` order that is not the numbers' order (``[1, 3, 2]``) used to change the
ordinal results (Gwet's ordinal weights, Krippendorff's ordinal alpha: ranks taken from the declared
positions) but not the distance weights (linear, quadratic: built on the values), with no word said.
It is refused for the rank-based statistics; text labels keep their declared order.
"""

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.agreement import weight_matrix

ROWS = [[1, 2, 1], [2, 2, 3], [3, 3, 3], [1, 1, 2], [2, 3, 3], [1, 1, 1], [3, 2, 2], [1, 3, 1]]


@pytest.mark.parametrize("call", [
    lambda cats: sis.fleiss_kappa(ROWS, weights="ordinal", categories=cats),
    lambda cats: sis.gwet_ac1(ROWS, weights="ordinal", categories=cats),
    lambda cats: sis.krippendorff_alpha(ROWS, level="ordinal", categories=cats),
    lambda cats: sis.fleiss_kappa(ROWS, similarity="ordinal", categories=cats),
], ids=["fleiss-ordinal-weights", "ac2-ordinal-weights", "ordinal-alpha", "ordinal-as-similarity"])
def test_a_numeric_order_other_than_the_values_is_refused_for_ranks(call):
    with pytest.raises(ValueError, match=r"numeric labels are ranked by their values.*\[1, 3, 2\].*\[1, 2, 3\]"):
        call([1, 3, 2])


@pytest.mark.parametrize("call", [
    lambda cats: sis.fleiss_kappa(ROWS, weights="ordinal", categories=cats).value,
    lambda cats: sis.krippendorff_alpha(ROWS, level="ordinal", categories=cats).value,
    lambda cats: sis.fleiss_kappa(ROWS, weights="linear", categories=cats).value,
    lambda cats: sis.krippendorff_alpha(ROWS, level="interval", categories=cats).value,
])
def test_the_numbers_order_either_way_gives_the_undeclared_value(call):
    """Ascending or descending (the ranks reversed: the same distances); unused categories are kept."""
    base = call(None)
    assert call([1, 2, 3]) == pytest.approx(base, abs=1e-12)
    assert call([3, 2, 1]) == pytest.approx(base, abs=1e-12)


def test_distance_weights_follow_the_values_in_any_declared_order():
    """linear / quadratic are built on the values, so a declared order does not change them."""
    base = sis.fleiss_kappa(ROWS, weights="quadratic").value
    assert sis.fleiss_kappa(ROWS, weights="quadratic", categories=[1, 3, 2]).value == pytest.approx(base, abs=1e-12)


def test_text_labels_keep_their_declared_order():
    """For text labels the declared order *is* the scale: a different order gives a different ordinal value."""
    names = {1: "low", 2: "mid", 3: "high"}
    text = [[names[v] for v in row] for row in ROWS]
    ordered = sis.fleiss_kappa(text, weights="ordinal", categories=["low", "mid", "high"]).value
    assert ordered == pytest.approx(sis.fleiss_kappa(ROWS, weights="ordinal").value, abs=1e-12)
    assert sis.fleiss_kappa(text, weights="ordinal", categories=["low", "high", "mid"]).value != pytest.approx(ordered)


def test_ordinal_weights_rank_the_values_given():
    """weight_matrix('ordinal', values) ranks the values it is given, in whatever order they come."""
    w = weight_matrix("ordinal", np.array([1.0, 3.0, 2.0]))
    expect = weight_matrix("ordinal", np.array([1.0, 2.0, 3.0]))[np.ix_([0, 2, 1], [0, 2, 1])]
    np.testing.assert_allclose(w, expect)
