"""A judging plan applied to data it was not drawn on is refused (the estimate would miss the pairs the plan
could not draw); the plan's own data, and edits that leave its design's labels as they were, still work."""

import json
import shlex
import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.agreement import point_estimate, resolve_similarity
from softirr_stats.cli import main
from softirr_stats.ppi._judging import DESIGN_COLUMNS, design_labels

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")

LABELS = ["fever", "pyrexia", "cough", "tussis", "rash", "hives", "itch", "pruritus"]


def _long(seed=0, n_items=30):
    rng = np.random.default_rng(seed)
    rows = [(f"i{i}", r, LABELS[rng.integers(len(LABELS))]) for i in range(n_items) for r in ("a", "b", "c")]
    return pd.DataFrame(rows, columns=["item", "rater", "label"])


def _judged(ann, n=60, coefficient="fleiss_kappa"):
    plan = sis.judging_plan(ann, similarity="indel", n=n, seed=1, coefficient=coefficient)
    table = plan.pairs.copy()
    table["judgment"] = np.clip(1.5 * table["score"], 0.0, 1.0)
    return table


def _kappa(df, judged, coefficient="fleiss_kappa", **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sis.UnpairableItemsWarning)
        return getattr(sis, coefficient)(sis.Annotations.from_long(df), similarity="indel", judgments=judged, **kw)


def test_a_new_label_in_the_data_is_refused_with_the_counts_and_the_remedy():
    df = _long()
    judged = _judged(sis.Annotations.from_long(df))
    edited = df.copy()
    edited.loc[:8, "label"] = "fevers"  # a label the plan's design never drew pairs with
    with pytest.raises(ValueError) as err:  # it gave a value silently (0.14 for 0.05)
        _kappa(edited, judged)
    msg = str(err.value)
    assert msg.startswith("the judging plan was drawn on other data: it drew label pairs among 8 labels, and these "
                          "data's coefficient weighs pairs among 9:"), msg
    assert "q = 0" in msg and "softirr judge plan FILE" in msg and "judging_plan(ann, ...)" in msg


def test_the_same_number_of_other_labels_is_refused():
    df = _long()
    judged = _judged(sis.Annotations.from_long(df), n=2)  # 2 draws: most labels are in no planned pair
    unplanned = sorted(set(LABELS) - set(judged["label_a"]) - set(judged["label_b"]))[0]
    edited = df.replace({"label": {unplanned: "urticaria"}})
    with pytest.raises(ValueError, match=r"among 8 labels, and these data's coefficient weighs pairs among 8 \(the "
                                         r"same number, but not the same labels\)"):
        _kappa(edited, judged)


def test_a_planned_pair_no_term_of_the_data_weighs_is_refused():
    # alpha weighs only pairable values: 'zoster' left alone in its item is in the vocabulary but in no pair
    df = pd.concat([_long(n_items=12), pd.DataFrame({"item": "z", "rater": ["a", "b"], "label": "zoster"})])
    judged = _judged(sis.Annotations.from_long(df), n=400, coefficient="krippendorff_alpha")
    n_dead = int(((judged["label_a"] == "zoster") | (judged["label_b"] == "zoster")).sum())
    assert n_dead > 0
    edited = df[~((df["item"] == "z") & (df["rater"] == "b"))]
    with pytest.raises(ValueError, match=rf"other data: {n_dead} of its {len(judged)} label pairs are in no term "
                                         r"of these data's coefficient \(first: .*\); it drew label pairs among 9 "
                                         r"labels, and these data's coefficient weighs pairs among 8"):
        _kappa(edited, judged, "krippendorff_alpha")
    bare = judged.drop(columns=DESIGN_COLUMNS)  # a plan without the design's labels: the pairs still tell
    with pytest.raises(ValueError, match=rf"other data: {n_dead} of its {len(judged)} label pairs are in no term"):
        _kappa(edited, bare, "krippendorff_alpha")


def test_the_plans_own_data_and_edits_that_keep_its_labels_give_the_estimate():
    df = _long()
    judged = _judged(sis.Annotations.from_long(df))
    bare = judged.drop(columns=DESIGN_COLUMNS)
    edited = df.copy()
    edited.loc[4, "label"] = edited.loc[5, "label"]  # another rating, the same labels: q > 0 where it is needed
    for data in (df, edited):
        got, want = _kappa(data, judged, ci="analytic"), _kappa(data, bare, ci="analytic")
        assert got.value == pytest.approx(want.value, abs=1e-12)
        assert np.isfinite(got.ci_low) and (got.ci_low, got.ci_high) == pytest.approx((want.ci_low, want.ci_high),
                                                                                       abs=1e-12)
    assert _kappa(edited, judged).value != pytest.approx(_kappa(df, judged).value, abs=1e-6)


def test_design_labels_are_the_labels_the_plan_draws_pairs_among():
    ann = sis.Annotations.from_long(_long())
    sim = resolve_similarity(ann, similarity="indel")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=sim)
    count, digest = design_labels(prep)
    plan = sis.judging_plan(ann, similarity="indel", n=5000, seed=0, coefficient="fleiss_kappa")
    drawn = set(plan.pairs["label_a"]) | set(plan.pairs["label_b"])
    assert count == len(LABELS) == len(drawn)  # every pair of them can be drawn, and 5000 draws reached them all
    assert (plan.pairs["design_labels"] == count).all() and (plan.pairs["design_digest"] == digest).all()
    assert len(digest) == 16


# --- the command line: judge plan, then agree --judgments ------------------------------------------------------


def _run(capsys, *args):
    with pytest.raises(SystemExit) as ex:
        main([str(a) for a in args])
    out = capsys.readouterr()
    return ex.value.code, out.out, out.err


def test_agree_refuses_a_sheet_drawn_on_other_data(tmp_path, capsys):
    df = _long()
    df.loc[df.index % 7 == 0, "label"] = "?"
    data = tmp_path / "notes.csv"
    df.to_csv(data, index=False)
    sheet = tmp_path / "sheet.csv"
    code, _, err = _run(capsys, "judge", "plan", data, "-m", "indel", "--na-values", "?", "-n", "40", "-o", sheet)
    assert code == 0, err
    args = shlex.split(" ".join(err.split()).split("then: ", 1)[1])[1:]
    filled = pd.read_csv(sheet, keep_default_na=False)
    filled["judgment"] = 0.5
    filled.to_csv(sheet, index=False)
    # the printed command (--na-values ? with it) is the plan's data: the Python value
    code, out, err = _run(capsys, *args, "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    from softirr_stats.analysis import read_judging_sheet

    ann = sis.read_annotations(data, na_values=["?"])
    want = sis.krippendorff_alpha(ann, similarity="indel", judgments=read_judging_sheet(sheet)[0]).value
    assert json.loads(out)["results"][0]["value"] == pytest.approx(want, abs=1e-12)
    # without --na-values, '?' is a label the plan never drew: it gave another value without a word
    without = [a for a in args if a not in ("--na-values", "?")]
    code, out, err = _run(capsys, *without, "--bootstrap", "0")
    said = " ".join(err.split())
    assert code != 0 and "the judging plan was drawn on other data" in said, err
    assert "among 8 labels, and these data's coefficient weighs pairs among 9" in said and "softirr judge plan" in said
    # FILE edited after the plan: a new label
    df.loc[0, "label"] = "fevers"
    df.to_csv(data, index=False)
    code, out, err = _run(capsys, *args, "--bootstrap", "0")
    assert code != 0 and "the judging plan was drawn on other data" in " ".join(err.split()), err


def test_a_plan_for_another_family_on_the_same_data_is_warned_not_called_other_data():
    """A plan drawn for Fleiss' kappa (pooled pairs) used for Cohen's kappa on the same two raters: some planned
    pairs are in no term of Cohen's kappa (two labels of one rater), which is the family warning's case, not
    data the plan was not drawn on."""
    wide = [[["a", "b", "c", "d"][i % 4], ["a", "b", "e", "f"][(3 * i) % 4]] for i in range(40)]
    ann = sis.Annotations.from_wide(wide)
    plan = sis.judging_plan(ann, similarity="levenshtein", n=100, coefficient="fleiss_kappa", seed=1)
    table = plan.pairs.copy()
    table["judgment"] = (table["score"] > 0.5).astype(float)
    with pytest.warns(UserWarning, match="the judging plan was drawn for fleiss_kappa; cohen_kappa weighs "
                                                "label pairs differently"):
        res = sis.cohen_kappa(ann, similarity="levenshtein", judgments=sis.read_judgments(table))
    assert np.isfinite(res.value)
