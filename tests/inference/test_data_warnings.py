"""What the data let an annotator model say: ``annotator_agreement`` warns on fewer than 20 items, on ratings
that agree everywhere (the kappa below 1 is the prior's), on raters who rated fewer than 5 items, and on
set labels fitted as whole categories."""

import warnings

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.inference import FitWarning, PriorDominatedWarning, SviConfig
from softirr_stats.inference._data_warnings import (
    FEW_RATER_ITEMS,
    few_rated_text,
    set_labels_text,
    unanimous_text,
)
from softirr_stats.models import encode_annotations
from softirr_stats.uncertainty import FewUnitsWarning

FAST = dict(method="svi", config=SviConfig(steps=20, num_draws=20), progress=False, predictive_check=False,
            prior_check=False)


def _fit(ann):
    """``annotator_agreement`` of annotations (a short SVI fit) or of a posterior (its summary), and its warnings."""
    summary = isinstance(ann, sis.inference.Posterior)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = sis.annotator_agreement(ann, **(dict(predictive_check=False, prior_check=False) if summary else FAST))
    return res, caught


def _said(caught, category):
    return [str(w.message) for w in caught if issubclass(w.category, category)]


@pytest.fixture(scope="module")
def unanimous():
    """The reproducer: 10 items, 3 raters who agree on every one (SVI at 100 steps gave kappa 0.54 [0.51, 0.58]
    without a warning)."""
    return sis.Annotations.from_wide([[lab] * 3 for lab in "ab" * 5])


def test_unanimous_ratings_on_few_items_say_the_interval_is_the_priors(unanimous):
    res, caught = _fit(unanimous)
    few = _said(caught, FewUnitsWarning)
    assert len(few) == 1 and few[0].startswith("10 items behind the posterior interval (fewer than 20)")
    prior = _said(caught, PriorDominatedWarning)
    assert len(prior) == 1 and "observed agreement 1" in prior[0]
    assert f"the model's kappa ({res.value:.3f})" in prior[0] and "set by its priors" in prior[0]
    said = " ".join(res.warnings)  # the one channel the command line and the report read
    assert "10 items behind the posterior interval" in said and "observed agreement 1" in said
    again = _fit(res.details["posterior"])[1]  # a posterior summarised again: the same warnings
    assert _said(again, FewUnitsWarning) == few and _said(again, PriorDominatedWarning) == prior


def _one_item_rater_rows(a="a", b="b"):
    """20 items of 3 raters who disagree sometimes, and a fourth rater who rated the first item only."""
    rows = [[a, a, b] if i % 2 else [b, b, b] for i in range(20)]
    return [[*row, row[0] if i == 0 else None] for i, row in enumerate(rows)]


@pytest.fixture(scope="module")
def one_item_rater():
    return sis.Annotations.from_wide(_one_item_rater_rows(), raters=["r1", "r2", "r3", "r4"])


def test_a_rater_with_few_items_is_named_and_counted(one_item_rater):
    res, caught = _fit(one_item_rater)
    assert not _said(caught, PriorDominatedWarning)  # the raters disagree: nothing is the prior's alone
    few = _said(caught, FewUnitsWarning)
    assert len(few) == 1 and few[0].startswith("rater 'r4' rated 1 item (fewer than 5)"), few
    acc = res.details["posterior"].rater_accuracy()
    assert acc["n_items"].tolist() == [20, 20, 20, 1]
    assert list(acc.columns[:3]) == ["rater", "n_items", "accuracy"] and acc.columns[-1] == "upper_95%"


def test_set_labels_are_said_to_be_whole_categories():
    ann = sis.Annotations.from_wide(_one_item_rater_rows(frozenset("a"), frozenset("ab")))  # the fit above's shape
    res, caught = _fit(ann)
    said = _said(caught, FitWarning)
    assert len(said) == 1 and "each distinct set of labels is one category" in said[0]
    assert "multilabel_agreement" in said[0]
    assert said[0] in res.warnings


def test_unanimous_text_counts_items_rated_twice_or_more():
    data = encode_annotations(np.array([[0, 0, -1], [1, 1, 1], [0, -1, -1]]), n_classes=2)
    text = unanimous_text(data, 0.6)
    assert text.startswith("every item rated twice or more got one label from all of its raters (2 items, observed "
                           "agreement 1")
    assert unanimous_text(encode_annotations(np.array([[0, 1], [1, 1]])), 0.2) == ""  # a disagreement
    assert unanimous_text(encode_annotations(np.array([[0, 0], [0, 0]]), n_classes=2), 0.1) == ""  # one label
    assert unanimous_text(encode_annotations(np.array([[0, -1], [-1, 1]])), 0.1) == ""  # no item rated twice


def test_few_rated_text_names_the_raters_below_the_threshold():
    codes = -np.ones((12, 8), dtype=int)
    codes[:, :2] = 0
    codes[:FEW_RATER_ITEMS - 1, 2] = 1  # 4 items
    codes[:2, 3:] = 1  # 2 items each
    data = encode_annotations(codes, n_classes=2)
    text = few_rated_text(data)
    assert text.startswith("6 of 8 raters rated fewer than 5 items (rater 2: 4 items, rater 3: 2 items, rater 4: 2 "
                           "items, rater 5: 2 items, 2 more)"), text
    assert few_rated_text(encode_annotations(np.zeros((5, 3), dtype=int), n_classes=2)) == ""


def test_set_labels_text_is_for_set_vocabularies_only():
    assert set_labels_text(("a", "b")) == ""
    text = set_labels_text((frozenset("a"), frozenset("ab")))
    assert text.startswith("the labels are sets (multi-label ratings): each distinct set of labels is one category "
                           "of the model (2 sets, e.g. {a, b})")
