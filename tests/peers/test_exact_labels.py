"""Exact integer labels at any size, booleans as their own labels, and categories= without missing values.

The large-integer cases come from fast-krippendorff's test_circular_bipolar.py
(test_large_integer_categories_not_collapsed: 2**53 and 2**53 + 1 are two labels, alpha 0.0);
the boolean and categories= cases from issue 20 (silent numbers).
"""

import math

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.agreement import krippendorff_distance, weight_matrix

BIG = [2**53 - 1, 2**53, 2**53 + 1, 2**63 - 1]


@pytest.mark.parametrize("make", [
    lambda rows: sis.Annotations.from_wide(rows),
    lambda rows: sis.Annotations.from_wide(np.array(rows, dtype=object)),
    lambda rows: sis.Annotations.from_wide(pd.DataFrame(rows, dtype="int64")),
    lambda rows: sis.Annotations.from_wide(np.array(rows, dtype=np.int64)),
])
def test_large_integers_keep_their_identity(make):
    rows = [[BIG[0], BIG[0]], [BIG[1], BIG[2]], [BIG[2], BIG[2]], [BIG[3], BIG[3]]]
    ann = make(rows)
    assert ann.vocabulary == tuple(BIG) and all(type(v) is int for v in ann.vocabulary)
    assert ann.codes.tolist() == [[0, 0], [1, 2], [2, 2], [3, 3]]
    long = ann.to_long()
    assert long["label"].tolist() == [BIG[0], BIG[0], BIG[1], BIG[2], BIG[2], BIG[2], BIG[3], BIG[3]]


def test_from_long_keeps_large_integers():
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["x", "y", "x", "y"],
                       "label": [2**53, 2**53 + 1, 2**53, 2**53]})
    assert sis.Annotations.from_long(df).vocabulary == (2**53, 2**53 + 1)


def test_nominal_alpha_on_two_big_labels():
    # fast-krippendorff: [[2**53, 2**53 + 1], [2**53, 2**53]] (coders x units) -> alpha 0.0
    assert sis.krippendorff_alpha([[2**53, 2**53], [2**53 + 1, 2**53]]).value == 0.0


def test_numeric_distances_use_exact_differences():
    ann = sis.Annotations.from_wide([[2**53, 2**53 + 1], [2**53 + 2, 2**53 + 2], [2**53, 2**53]])
    vals = ann.values()
    assert vals.dtype == object and vals.tolist() == [2**53, 2**53 + 1, 2**53 + 2]
    d = krippendorff_distance("interval", vals)
    assert d.tolist() == [[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]]
    assert weight_matrix("linear", vals)[0].tolist() == [1.0, 0.5, 0.0]
    shifted = sis.Annotations.from_wide([[0, 1], [2, 2], [0, 0]])
    for level in ("interval", "ratio"):
        a = sis.krippendorff_alpha(ann, level=level).value
        assert math.isfinite(a)
    assert sis.krippendorff_alpha(ann, level="interval").value == pytest.approx(
        sis.krippendorff_alpha(shifted, level="interval").value, abs=1e-12)
    assert sis.cohen_kappa(ann, weights="quadratic").value == pytest.approx(
        sis.cohen_kappa(shifted, weights="quadratic").value, abs=1e-12)


def test_int64_max_and_its_neighbour_are_distinct_and_ordered():
    ann = sis.Annotations.from_wide([[2**63 - 1, 2**63 - 2], [2**63 - 2, 2**63 - 2]])
    assert ann.vocabulary == (2**63 - 2, 2**63 - 1)
    assert krippendorff_distance("interval", ann.values())[0, 1] == 1.0


def test_small_integers_stay_float64_values():
    ann = sis.Annotations.from_wide([[1, 2], [3, 3]])
    assert ann.values().dtype == np.float64 and ann.vocabulary == (1, 2, 3)


@pytest.mark.parametrize("rows", [[[True, 1], [False, 0]], [[1, True], [0, False]], [[True, 2], [False, 0]],
                                  [[np.bool_(True), 1], [False, 0]], [[1.0, True], [0.0, False]]])
def test_booleans_never_merge_with_numbers(rows):
    with pytest.raises(TypeError, match="labels mix"):
        sis.Annotations.from_wide(rows)


def test_booleans_alone_are_categorical_labels_whatever_comes_first():
    a = sis.Annotations.from_wide([[True, False], [False, False]])
    b = sis.Annotations.from_wide([[False, True], [True, True]])
    assert a.kind == b.kind == "categorical" and a.vocabulary == b.vocabulary == (False, True)
    assert sis.Annotations.from_wide(pd.DataFrame({"x": [True, False], "y": [True, True]})).kind == "categorical"


@pytest.mark.parametrize("bad", [None, float("nan"), np.nan, pd.NA])
def test_categories_refuse_missing_values(bad):
    with pytest.raises(ValueError, match="categories must not contain a missing value"):
        sis.brennan_prediger([["a", "b"], ["a", "a"]], categories=["a", "b", bad])


@pytest.mark.parametrize("bad", [float("inf"), -np.inf, 1e400])
def test_categories_refuse_infinite_numbers(bad):
    """A category of inf gave numpy's "invalid value" warnings and a nan kappa blamed on chance agreement 1."""
    with pytest.raises(ValueError, match=r"categories must be finite numbers; got -?inf at position 3"):
        sis.cohen_kappa([[1, 2], [2, 2], [3, 1], [1, 1]], weights="quadratic", categories=[1, 2, 3, bad])


def test_categories_refuse_booleans_for_numbers_and_back():
    with pytest.raises(TypeError, match="categories mix booleans"):
        sis.brennan_prediger([[0, 1], [0, 0]], categories=[False, True])
    with pytest.raises(TypeError, match="categories mix booleans"):
        sis.brennan_prediger([[False, True], [False, False]], categories=[0, 1])


def test_brennan_prediger_with_declared_categories_is_unchanged():
    # issue 20: categories=['a', 'b', None] silently gave 0.5 instead of q = 2's value
    assert sis.brennan_prediger([["a", "b"], ["a", "a"]], categories=["a", "b"]).value == 0.0
    assert sis.brennan_prediger([["a", "b"], ["a", "a"]], categories=["a", "b", "c"]).value == pytest.approx(0.25)
