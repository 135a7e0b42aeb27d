"""The Annotations data model: encoding, round trips, and clear errors for bad input."""

import math

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.data import Annotations, read_annotations


def test_from_long_encodes_sorted_vocabulary_and_missing():
    df = pd.DataFrame({"doc": [1, 1, 2, 2, 3], "who": ["x", "y", "x", "y", "x"],
                       "text": ["fatigue", "asthenia", "fever", None, "cough"]})
    ann = Annotations.from_long(df, item="doc", rater="who", label="text")
    assert ann.vocabulary == ("asthenia", "cough", "fatigue", "fever")
    assert ann.codes.tolist() == [[2, 0], [3, -1], [1, -1]]
    assert ann.items == (1, 2, 3) and ann.raters == ("x", "y")
    assert ann.unpairable_items == (2, 3)
    assert not ann.codes.flags.writeable


def test_numbers_sorted_numerically_and_values():
    ann = Annotations.from_wide([[10, 2], [2, 1.5], [None, 10]])
    assert ann.vocabulary == (1.5, 2, 10)
    assert ann.kind == "numeric"
    np.testing.assert_array_equal(ann.values(), [1.5, 2.0, 10.0])


def test_nan_is_missing_never_a_category():
    ann = Annotations.from_wide(np.array([[1.0, np.nan], [2.0, 2.0]]))
    assert ann.vocabulary == (1.0, 2.0)
    assert ann.codes[0, 1] == -1


def test_set_valued_labels_from_lists():
    ann = Annotations.from_wide([[["a", "b"], ["b", "a"]], [["c"], []]])
    assert ann.kind == "set"
    assert ann.codes[0, 0] == ann.codes[0, 1]
    assert frozenset() in ann.vocabulary


def test_categories_declare_universe_and_order():
    ann = Annotations.from_wide([["low", "high"], ["mid", "mid"]], categories=["low", "mid", "high", "none"])
    assert ann.vocabulary == ("low", "mid", "high", "none")
    assert ann.categories == ("low", "mid", "high", "none")
    with pytest.raises(ValueError, match="not in the declared categories"):
        Annotations.from_wide([["low", "extreme"]], categories=["low", "high"])


def test_to_long_round_trip():
    df = pd.DataFrame({"item": ["a", "a", "b", "b"], "rater": [1, 2, 1, 2], "label": ["x", "y", "y", "y"]})
    ann = Annotations.from_long(df)
    back = Annotations.from_long(ann.to_long())
    np.testing.assert_array_equal(back.codes, ann.codes)
    assert back.vocabulary == ann.vocabulary


def test_multilabel_round_trip_keeps_unused_labels():
    x = np.array([[[1, 0, 0], [1, 0, 0]], [[0, 1, 0], [np.nan, np.nan, np.nan]]])
    ann = Annotations.from_multilabel(x, labels=["cough", "fever", "rash"])
    assert ann.label_universe == ("cough", "fever", "rash")
    back = ann.multilabel_array()
    assert back.shape == (2, 2, 3)
    np.testing.assert_array_equal(np.isnan(back), np.isnan(x))
    np.testing.assert_array_equal(np.nan_to_num(back), np.nan_to_num(x))


def test_read_csv_and_jsonl(tmp_path):
    csv = tmp_path / "a.csv"
    csv.write_text("item,rater,label\n1,a,x\n1,b,x\n2,a,y\n2,b,z\n")
    assert read_annotations(csv).n_items == 2
    jl = tmp_path / "a.jsonl"
    jl.write_text('{"item": 1, "rater": "a", "label": ["x", "y"]}\n{"item": 1, "rater": "b", "label": ["y"]}\n')
    ann = read_annotations(jl)
    assert ann.kind == "set" and len(ann.vocabulary) == 2


# ------------------------------------------------------------------ bad input
def test_empty_data():
    with pytest.raises(ValueError, match="empty"):
        Annotations.from_long(pd.DataFrame({"item": [], "rater": [], "label": []}))
    with pytest.raises(ValueError, match="empty"):
        Annotations.from_wide([[None, None], [None, math.nan]])


def test_single_rater():
    with pytest.raises(ValueError, match="at least two raters"):
        Annotations.from_long(pd.DataFrame({"item": [1, 2], "rater": ["a", "a"], "label": ["x", "y"]}))


def test_duplicate_rows_are_listed():
    df = pd.DataFrame({"item": [1, 1, 2, 2, 2], "rater": ["a", "a", "a", "b", "b"], "label": list("xyzzz")})
    with pytest.raises(ValueError, match=r"duplicate \(item, rater\).*\(1, 'a'\).*\(2, 'b'\)"):
        Annotations.from_long(df)


def test_mixed_label_kinds():
    with pytest.raises(TypeError, match="mix kinds"):
        Annotations.from_wide([[1, "one"], [2, "two"]])


def test_ids_mixing_booleans_and_numbers_are_refused(tmp_path):
    # True == 1 as a key: item True and item 1 became one item, rater b's rating moved under it
    df = pd.DataFrame({"item": [True, 1, 2], "rater": ["a", "b", "a"], "label": ["x", "x", "y"]})
    with pytest.raises(TypeError, match=r"item column 'item' mixes booleans and numbers \(True and 1\)"):
        Annotations.from_long(df)
    with pytest.raises(TypeError, match="rater column 'who' mixes booleans and numbers"):
        Annotations.from_long(pd.DataFrame({"item": [1, 1], "who": [0, False], "label": ["x", "y"]}), rater="who")
    path = tmp_path / "t.jsonl"
    path.write_text('{"item": true, "rater": "a", "label": "x"}\n{"item": 1.0, "rater": "b", "label": "x"}\n')
    with pytest.raises(TypeError, match="t.jsonl: item column 'item' mixes booleans and numbers"):
        read_annotations(path)
    assert Annotations.from_long(pd.DataFrame({"item": [True, False], "rater": ["a", "b"],
                                               "label": ["x", "y"]})).items == (False, True)
    assert Annotations.from_long(pd.DataFrame({"item": ["1", 1], "rater": ["a", "b"],
                                               "label": ["x", "y"]})).n_items == 2  # text and number: two ids


def test_unhashable_labels():
    with pytest.raises(TypeError, match="hashable"):
        Annotations.from_wide([[{"a": 1}, "x"]])
    with pytest.raises(TypeError, match="set-valued labels must contain only strings"):
        Annotations.from_wide([[["a", 1], ["b"]]])


def test_wrong_column_names_list_the_columns():
    df = pd.DataFrame({"doc": [1], "annotator": ["a"], "text": ["x"]})
    with pytest.raises(ValueError, match=r"item column 'item' not found; the columns are \['doc', 'annotator', 'text'\]"):
        Annotations.from_long(df)


def test_ragged_rows_and_non_finite_numbers():
    with pytest.raises(ValueError, match="same number of raters"):
        Annotations.from_wide([[1, 2], [1]])
    with pytest.raises(TypeError, match="finite"):
        Annotations.from_wide([[1.0, math.inf]])


def test_unpairable_items_are_reported_not_dropped():
    ann = Annotations.from_wide([["a", "a"], ["b", None], ["c", "c"]])
    with pytest.warns(sis.UnpairableItemsWarning, match="1 of 3 items"):
        r = sis.fleiss_kappa(ann)
    assert any("single rating" in w for w in r.warnings)
    assert r.n_items == 3


def test_a_flat_list_or_a_frame_in_the_wrong_place_is_named():
    with pytest.raises(TypeError, match="got a flat sequence of 4 values such as 1"):  # "no len()" before
        sis.fleiss_kappa([1, 2, 3, 1])
    with pytest.raises(TypeError, match="flat sequence of 2 values such as 'ab'"):
        Annotations.from_wide(["ab", "cd"])
    with pytest.raises(TypeError, match=r"got a DataFrame\. A table already in memory needs no reading: "
                                        r"Annotations.from_long"):
        read_annotations(pd.DataFrame({"item": [1], "rater": ["a"], "label": ["x"]}))
    with pytest.raises(TypeError, match="path must be a file name or a list of them; got int$"):
        read_annotations(3)


def test_an_ordered_categorical_declares_its_labels_and_their_order():
    lab = [["low", "mid"], ["mid", "high"], ["high", "high"], ["low", "low"], ["mid", "low"], ["high", "mid"],
           ["low", "high"]]
    order = ["low", "mid", "high", "extreme"]
    ordered = pd.DataFrame(lab).astype(pd.CategoricalDtype(order, ordered=True))
    assert Annotations.from_wide(ordered).categories == tuple(order)  # alphabetical, undeclared before
    want = sis.krippendorff_alpha(lab, level="ordinal", categories=order).value
    assert sis.krippendorff_alpha(ordered, level="ordinal").value == pytest.approx(want, abs=1e-15)
    assert sis.cohen_kappa(ordered, weights="linear").value == pytest.approx(
        sis.cohen_kappa(lab, weights="linear", categories=order).value, abs=1e-15)  # refused before
    long = Annotations.from_wide(lab).to_long()
    long["label"] = long["label"].astype(pd.CategoricalDtype(order, ordered=True))
    assert Annotations.from_long(long).categories == tuple(order)
    unordered = pd.DataFrame(lab).astype(pd.CategoricalDtype(order))  # often a leftover: declares nothing
    assert Annotations.from_wide(unordered).categories is None
    assert Annotations.from_wide(ordered, categories=["high", "mid", "low"]).vocabulary == ("high", "mid", "low")
