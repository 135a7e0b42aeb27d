"""'Did you mean': one rule for the library's errors and the command line's, tried on the names users type."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

import softirr_stats as sis
from softirr_stats.base._suggest import did_you_mean

NAMES = ["percent_agreement", "cohen_kappa", "scott_pi", "fleiss_kappa", "conger_kappa", "light_kappa",
         "krippendorff_alpha", "gwet_ac1", "brennan_prediger", "multilabel_fleiss", "multilabel_ac1", "multilabel_pabak",
         "icc1", "icc2", "icc3", "icc1k", "icc2k", "icc3k", "lin_ccc", "kendall_w"]  # the command line's -c names


@pytest.mark.parametrize(("typo", "choices", "hint"), [
    ("kripendorff_alpha", ["fleiss_kappa", "krippendorff_alpha"], "'krippendorff_alpha'"),
    ("Levenstein", ["exact", "levenshtein"], "'levenshtein'"),
    ("nothing_like_it", ["exact", "levenshtein"], None),
    ("Fleiss_Kappa", NAMES, "'fleiss_kappa'"),
    ("fleiss", NAMES, "'fleiss_kappa' or 'multilabel_fleiss'"),
    ("alpha", NAMES, "'krippendorff_alpha'"),
    ("ac1", NAMES, "'gwet_ac1' or 'multilabel_ac1'"),
    ("icc", NAMES, "'icc1', 'icc2', 'icc3', ... (6 names)"),
    ("label_studio", ["csv", "label-studio", "webanno-tsv"], "'label-studio'"),
    ("", ["exact"], None),
])
def test_did_you_mean(typo, choices, hint):
    assert did_you_mean(typo, choices) == ("" if hint is None else f" (did you mean {hint}?)")


@given(st.text(max_size=12), st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=8))
def test_suggestions_are_only_other_choices(value, choices):
    said = did_you_mean(value, choices)
    assert said == "" or said.startswith(" (did you mean ")
    named = [c for c in dict.fromkeys(choices) if repr(c) in said]
    assert value not in named  # the value itself (already valid) is never suggested
    if said and "names)" not in said:
        assert named


ANN = sis.Annotations.from_wide([["a", "a"], ["b", "a"], ["b", "b"], ["a", "a"]])


@pytest.mark.parametrize(("call", "said"), [
    (lambda: sis.fleiss_kappa(ANN, similarity="levenstein"), "got 'levenstein' (did you mean 'levenshtein'?)"),
    (lambda: sis.fleiss_kappa(ANN, weights="quadratc"), "got 'quadratc' (did you mean 'quadratic'?)"),
    (lambda: sis.fleiss_kappa(ANN, ci="bootstrap"), "(did you mean ci=softirr_stats.Bootstrap()?)"),
    (lambda: sis.fleiss_kappa(ANN, ci="analytc"), "(did you mean 'analytic'?)"),
    (lambda: sis.Bootstrap(method="bca_t"), "got 'bca_t' (did you mean 'bca-t'?)"),
    (lambda: sis.plan_items("kappa", assumed={"value": 0.6, "prevalence": 0.5}), "did you mean 'cohen_kappa', "),
    (lambda: sis.sensitivity(ANN, coefficients=["alpha"]), "(did you mean 'krippendorff_alpha'?)"),
])
def test_library_errors_suggest_the_name_meant(call, said):
    with pytest.raises(ValueError) as err:
        call()
    assert said in str(err.value)


def test_a_misspelt_format_names_the_export_format(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("item,rater,label\n1,a,x\n1,b,x\n")
    with pytest.raises(ValueError, match=r"got 'label_studio' for a.csv \(did you mean 'label-studio'\?\)"):
        sis.read_annotations(path, format="label_studio")
