"""A rater with no rating at all (an empty column of a wide table, a rater id whose every label is missing in a long
one) is left out where the annotations are built, with an ``UnratedRatersWarning`` naming it: it is no resampling
unit of a rater bootstrap, no rater of a plan, a title or ``complete_items``."""

import math
import warnings

import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.data import UnratedRatersWarning

ROWS = [["fatigue", "asthenia", "tiredness"], ["chest pain", "thoracic pain", "chest pain"],
        ["dyspnea", "dyspnea", "dyspnoea"], ["headache", "cephalalgia", "headache"],
        ["nausea", "nausea", "vomiting"], ["fever", "pyrexia", "fever"], ["cough", "cough", "cough"],
        ["rash", "skin eruption", "rash"], ["dizziness", "vertigo", "dizziness"], ["back pain", "lumbago", "back pain"],
        ["insomnia", "sleeplessness", "insomnia"], ["anxiety", "nervousness", "anxiety"]]
RATERS = ["ann_a", "ann_b", "ann_c"]


def _frame(empty: bool) -> pd.DataFrame:
    table = pd.DataFrame(ROWS, columns=RATERS, index=[f"n{i:02d}" for i in range(1, 13)])
    if empty:
        table["ann_d"] = None
    return table


def _said(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, UnratedRatersWarning)]


def test_wide_empty_column_is_left_out_and_named():
    with pytest.warns(UnratedRatersWarning, match="'ann_d' has no rating") as caught:
        ann = sis.Annotations.from_wide(_frame(True))
    assert ann.raters == tuple(RATERS) and ann.n_raters == 3 and ann.n_items == 12
    (said,) = _said(caught)
    assert said.endswith("is left out; the raters with ratings remain: 'ann_a', 'ann_b', 'ann_c'"), said


def test_long_rater_whose_labels_are_all_missing_is_left_out():
    long = _frame(True).rename_axis("doc").reset_index().melt(id_vars="doc", var_name="who", value_name="text")
    with pytest.warns(UnratedRatersWarning, match="'ann_d'"):
        ann = sis.Annotations.from_long(long, item="doc", rater="who", label="text")
    assert ann.raters == tuple(RATERS)
    with pytest.warns(UnratedRatersWarning, match="'ann_d'"):  # the cell-by-cell route (mixed-type rater ids)
        mixed = sis.Annotations.from_long(long.assign(who=long["who"].where(long["who"] != "ann_a", 7)),
                                          item="doc", rater="who", label="text")
    assert mixed.n_raters == 3 and "ann_d" not in mixed.raters


def test_items_without_a_rating_are_still_kept():
    table = _frame(True)
    table.loc["n13"] = None
    with pytest.warns(UnratedRatersWarning):
        ann = sis.Annotations.from_wide(table)
    assert ann.n_items == 13 and ann.n_raters == 3


def test_multilabel_rater_without_a_rating_is_left_out():
    x = [[[1, 0], [1, 1], [math.nan, math.nan]], [[0, 1], [0, 1], [math.nan, math.nan]]]
    with pytest.warns(UnratedRatersWarning, match="rater 2 has no rating"):
        ann = sis.Annotations.from_multilabel(x, labels=["a", "b"])
    assert ann.raters == (0, 1) and ann.label_universe == ("a", "b")


@pytest.mark.parametrize("fmt", ["wide", "long"])
def test_files_leave_the_rater_out(tmp_path, fmt):
    path = tmp_path / "r.csv"
    table = _frame(True).rename_axis("doc").reset_index()
    if fmt == "wide":
        table.to_csv(path, index=False)
        opts = {"wide": True, "item": "doc"}
    else:
        table.melt(id_vars="doc", var_name="rater", value_name="label").to_csv(path, index=False)
        opts = {"item": "doc"}
    with pytest.warns(UnratedRatersWarning, match="'ann_d'"):
        ann = sis.read_annotations(path, **opts)
    assert ann.raters == tuple(RATERS)


def test_rater_bootstrap_is_that_of_the_raters_with_ratings():
    ci = sis.Bootstrap(n=300, design="raters", seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = sis.fleiss_kappa(sis.Annotations.from_wide(_frame(False)), ci=ci)
        got = sis.fleiss_kappa(sis.Annotations.from_wide(_frame(True)), ci=ci)
    assert (got.value, got.ci_low, got.ci_high) == (want.value, want.ci_low, want.ci_high)
    assert got.n_raters == 3
    assert any(w.startswith("3 raters resampled") and "2 df" in w for w in got.warnings), got.warnings
    assert not any(w.startswith("missing ratings:") for w in got.warnings), got.warnings


def test_complete_items_and_plans_count_the_raters_with_ratings():
    with pytest.warns(UnratedRatersWarning):
        ann = sis.Annotations.from_wide(_frame(True))
    assert ann.complete_items().n_items == 12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plan = sis.plan_items("fleiss_kappa", halfwidth=0.3, pilot=ann)
        with pytest.raises(ValueError, match="cannot be reached with 3 raters"):
            sis.plan_items("fleiss_kappa", halfwidth=0.5, pilot=ann, design="items+raters", bootstrap=200, seed=0)
    assert set(plan.to_frame()["raters"]) == {3}


def test_two_raters_one_unrated_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"at least two raters with a rating.*'b' has no rating"):
        sis.Annotations.from_wide([["x", None], ["y", None]], raters=["a", "b"])


def test_a_single_rated_rater_stays_allowed_where_a_single_rater_is():
    from softirr_stats.data import single_rater_replication

    with single_rater_replication(), pytest.warns(UnratedRatersWarning):
        one = sis.Annotations.from_wide([["x", None], ["y", None]], raters=["a", "b"])
    assert one.raters == ("a",)


def test_a_single_rater_export_is_merged_without_a_warning():
    one = pd.DataFrame({"item": [1, 2], "rater": ["a", "a"], "label": ["x", "y"]})
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnratedRatersWarning)
        ann = sis.Annotations._from_long_any(one)
    assert ann.raters == ("a",)
