"""Gold pairs for the soft model: ``gold_pairs`` and ``annotator_agreement(..., gold=...)``."""

import re
import warnings

import jax
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import softirr_stats as sis
from softirr_stats import models
from softirr_stats.equivalence import resolve_label_similarity
from softirr_stats.inference import (
    MIN_GOLD,
    FitWarning,
    Posterior,
    PredictiveCheckWarning,
    SviConfig,
    annotator_agreement,
    gold_pairs,
)
from softirr_stats.models import SoftAgreementPriors

VOCAB = ("cough", "fever", "pyrexia", "rash", "tussis")
ROWS = [["fever", "pyrexia", "fever"], ["cough", "cough", "tussis"], ["rash", "rash", "fever"],
        ["cough", "tussis", "cough"]] * 6
FAST = SviConfig(steps=60, num_draws=50)


@pytest.fixture(scope="module")
def ann():
    return sis.Annotations.from_wide(ROWS)


@pytest.fixture(scope="module")
def sim(ann):
    return resolve_label_similarity(tuple(ann.vocabulary), "indel")


def test_the_three_forms_give_the_same_scores_as_the_model_pairs(ann, sim):
    vocab = tuple(ann.vocabulary)
    triples = gold_pairs([("fever", "pyrexia", 1), ("cough", "rash", 0)], vocab, sim)
    frame = gold_pairs(pd.DataFrame({"label_a": ["fever", "cough"], "label_b": ["pyrexia", "rash"],
                                     "judgment": [1.0, 0.0]}), vocab, sim)
    i = {v: k for k, v in enumerate(vocab)}
    expect = sim.pairs(np.array([i["fever"], i["cough"]]), np.array([i["pyrexia"], i["rash"]])).values
    for g in (triples, frame):
        np.testing.assert_array_equal(g.scores, expect)  # the similarity of the model's own pairs
        assert g.labels.tolist() == [1, 0] and g.source == "labels" and g.n == 2
    arrays = gold_pairs((expect, np.array([1, 0])), vocab, sim)
    np.testing.assert_array_equal(arrays.scores, expect)
    assert arrays.source == "scores" and arrays.labels.dtype == np.int32
    # "equivalent" instead of "judgment"; draws repeat a pair
    g = gold_pairs(pd.DataFrame({"label_a": ["fever"], "label_b": ["pyrexia"], "equivalent": [1], "draws": [3]}),
                   vocab, sim)
    assert g.n == 3 and g.n_distinct == 1 and g.labels.tolist() == [1, 1, 1]


def test_labels_are_matched_as_a_sheet_writes_them():
    vocab = (1, 2, 3)  # numeric labels: a CSV sheet gives them back as text
    sim = resolve_label_similarity(vocab, np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.0]]))
    g = gold_pairs(pd.DataFrame({"label_a": ["1", "2"], "label_b": ["2", "3"], "judgment": [1, 0]}), vocab, sim)
    assert g.scores.tolist() == [0.5, 0.2]


@pytest.mark.parametrize(("gold", "err", "match"), [
    ([("fever", "flu", 1), ("cold", "rash", 0)], ValueError, r"not in the annotations' vocabulary: \['cold', 'flu'\]"),
    (pd.DataFrame({"label_a": ["fever"], "label_b": ["rash"], "judgment": [0.5]}), ValueError,
     "column 'judgment' must be 0 .* or 1 .* row 1 has 0.5"),
    (([0.2, 0.3], [1, 2]), ValueError, r"labels must be 0 .* labels\[1\] has 2"),
    (([0.2, 1.3], [1, 0]), ValueError, r"scores must lie in \[0, 1\]; scores\[1\] has 1.3"),
    (([0.2, 0.3], [1]), ValueError, "same length"),
    (([], []), ValueError, "no gold pairs"),
    (pd.DataFrame(columns=["label_a", "label_b", "judgment"]), ValueError, "no gold pairs"),
    (pd.DataFrame({"label_a": ["fever"], "judgment": [1]}), ValueError, r"missing \['label_b'\]"),
    (pd.DataFrame({"label_a": ["fever"], "label_b": ["rash"], "judgment": [1], "draws": [0]}), ValueError,
     "'draws' must hold positive integers"),
    ("sheet.csv", TypeError, "gold must be"),
    ([("fever", "rash")], TypeError, "triples"),
])
def test_bad_gold_is_a_clear_error(ann, sim, gold, err, match):
    with pytest.raises(err, match=match):
        gold_pairs(gold, tuple(ann.vocabulary), sim)


@pytest.mark.parametrize(("index", "where"), [
    (None, "row 3 has 0.5"),  # the default index: the 1-based data row, as a user counts rows
    (["p1", "p2", "p3"], "row 3 (index label 'p3') has 0.5"),
    (pd.Index([2, 3, 5], name="line"), "row 3 (line 5 of the file) has 0.5"),  # read from a file
])
def test_a_bad_judgment_names_the_row_as_the_user_sees_it(ann, sim, index, where):
    vocab = tuple(ann.vocabulary)
    table = pd.DataFrame({"label_a": [vocab[0]] * 3, "label_b": [vocab[1]] * 3, "judgment": [1, 0, 0.5]},
                         index=index)
    with pytest.raises(ValueError, match=re.escape(where)):
        gold_pairs(table, vocab, sim)
    table["judgment"] = 1
    table["draws"] = [1, 1, 0]
    with pytest.raises(ValueError, match=re.escape(f"'draws' must hold positive integers; {where.replace('0.5', '0')}")):
        gold_pairs(table, vocab, sim)


def test_annotator_agreement_fits_gold_pairs_and_records_their_number(ann):
    gold = [("fever", "pyrexia", 1), ("cough", "tussis", 1), ("rash", "fever", 0)] * 4
    with pytest.warns(FitWarning, match=f"12 gold pairs: below {MIN_GOLD}.*judge more pairs"):
        r = annotator_agreement(ann, "indel", model="soft", method="svi", config=FAST, progress=False,
                                predictive_check=False, prior_check=False, gold=gold)
    post = r.details["posterior"]
    assert r.details["n_gold"] == 12 == post.data.n_gold and r.details["gold_source"] == "labels"
    assert post.data.gold_labels.tolist() == [1, 1, 0] * 4
    sim = resolve_label_similarity(tuple(ann.vocabulary), "indel")
    np.testing.assert_array_equal(post.data.gold_scores, gold_pairs(gold, tuple(ann.vocabulary), sim).scores)
    # the summary of an existing fit says how many gold pairs it had
    again = annotator_agreement(post, predictive_check=False, prior_check=False)
    assert again.details["n_gold"] == 12
    with pytest.raises(TypeError, match="'gold'"):
        annotator_agreement(post, gold=gold)


def test_soft_svi_without_gold_warns_that_its_interval_ran_high(ann):
    """SVI's guide put the soft model's interval too high on calibrated scores (80% at 90%): said
    on an SVI fit without gold pairs where the profile-likelihood widening does not repair it
    (``profile_interval`` "report" / "off", another emission); never with gold pairs (>= MIN_GOLD),
    by NUTS, or with the widening (the default: the widened SVI intervals covered 98%)."""
    from softirr_stats.inference._agreement import SVI_SOFT_WARNING

    kw = dict(model="soft", method="svi", config=FAST, progress=False, predictive_check=False,
              prior_check=False)

    def said(**more):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            annotator_agreement(ann, "indel", **kw, **more)
        return [str(w.message) for w in caught]

    assert SVI_SOFT_WARNING in said(profile_interval="report")
    assert SVI_SOFT_WARNING in said(profile_interval="off")
    assert SVI_SOFT_WARNING in said(emission="beta")
    assert SVI_SOFT_WARNING not in said()
    assert "covered 80% of 300 simulated studies" in SVI_SOFT_WARNING and "method='nuts'" in SVI_SOFT_WARNING
    gold = [("fever", "pyrexia", 1), ("cough", "tussis", 1), ("rash", "fever", 0)] * (MIN_GOLD // 3 + 1)
    assert not any("without gold pairs" in w for w in said(gold=gold, profile_interval="off"))


def test_gold_with_a_label_model_is_refused(ann):
    with pytest.raises(ValueError, match="gold pairs are for the soft model.*model='dawid_skene'"):
        annotator_agreement(ann, model="dawid_skene", gold=([0.1], [0]))


def _overlap_scores(seed=0, n_within=450, n_chance=1000, gold=0):
    """Interior bulks that overlap (Beta(6, 3) / Beta(3, 6)): the monotone score check fails."""
    rng = np.random.default_rng(seed)
    eq_w, eq_c = rng.random(n_within) < 0.6, rng.random(n_chance) < 0.2
    draw = lambda eq: np.where(eq, rng.beta(6, 3, eq.size), rng.beta(3, 6, eq.size))  # noqa: E731
    kw = {}
    if gold:
        eq_g = rng.random(gold) < 0.5
        kw = {"gold_scores": draw(eq_g), "gold_labels": eq_g.astype(int)}
    return models.PairScores(within_scores=draw(eq_w), within_raters=np.tile([[0, 1], [0, 2], [1, 2]], (150, 1)),
                             within_items=np.repeat(np.arange(150), 3), chance_scores=draw(eq_c), n_raters=3,
                             n_items=150, **kw)


def _flat_posterior(data):
    """A soft-model posterior whose two components are both uniform on [0, 1] (all of the monotone
    weight on the widest piece): the components share all their mass, and the score histogram
    of interior bulks does not fit; built from fixed draws, no fit."""
    s, nb = 50, SoftAgreementPriors().monotone_bins
    last, first = np.zeros((s, nb)), np.zeros((s, nb))
    last[:, -1], first[:, 0] = 1.0, 1.0  # U[0, e_nb] = U[0, 1] and U[e_0, 1] = U[0, 1]
    draws = {"equiv_weights": first, "nonequiv_weights": last, "equiv_atoms": np.tile([0.01, 0.99], (s, 1)),
             "nonequiv_atoms": np.tile([0.01, 0.99], (s, 1)), "intercept": np.zeros(s), "pi_chance": np.full(s, 0.2),
             "pi_within": np.full(s, 0.6), "kappa": np.full(s, 0.5), "within_share_z": np.zeros(s)}
    return Posterior(model_name="soft", kind="soft", samples_by_chain={k: v[None] for k, v in draws.items()},
                     data=data, method="svi", priors=None, model_kwargs={"rater_effects": False}, extra={},
                     key=jax.random.key(0))


@pytest.mark.parametrize("n_gold", [0, 40])
def test_score_check_warnings_say_how_to_pass_gold_pairs(n_gold):
    post = _flat_posterior(_overlap_scores(gold=n_gold))
    assert annotator_agreement(post, predictive_check=False, prior_check=False).details["n_gold"] == n_gold
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        post.score_check()
    said = [str(w.message) for w in caught if issubclass(w.category, PredictiveCheckWarning)]
    assert len(said) == 2 and "predictive check of the score distribution fails" in said[0]
    assert "overlap" in said[1]
    for text in said:
        if n_gold:  # gold pairs are in the fit already: no advice to pass them
            assert "gold=" not in text and f"{n_gold} gold pairs" in text
        else:
            assert "annotator_agreement(..., gold=...)" in text and "softirr model --gold SHEET" in text



@pytest.mark.parametrize("n_gold", [0, 20])
def test_separation_warning_says_how_to_pass_gold_pairs(n_gold):
    # scores at 0.02 or 0.98 (an empty gap between) and an equivalent component uniform on
    # [0, 1]: the pairs below the gap get P(equivalent) > 0, a leak the constant kappa draws'
    # zero-width interval cannot hold
    rng = np.random.default_rng(1)
    side = lambda n, p: np.where(rng.random(n) < p, 0.98, 0.02)  # noqa: E731
    kw = {"gold_scores": side(n_gold, 0.5), "gold_labels": np.arange(n_gold) % 2} if n_gold else {}
    data = models.PairScores(within_scores=side(90, 0.6), within_raters=np.tile([[0, 1], [0, 2], [1, 2]], (30, 1)),
                             within_items=np.repeat(np.arange(30), 3), chance_scores=side(200, 0.2), n_raters=3,
                             n_items=30, **kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _flat_posterior(data).score_check()
    said = [str(w.message) for w in caught if "separate perfectly" in str(w.message)]
    assert len(said) == 1
    assert ("softirr model --gold SHEET" in said[0]) == (n_gold == 0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(VOCAB), st.sampled_from(VOCAB), st.integers(0, 1),
                          st.integers(1, 3)), min_size=1, max_size=12))
def test_gold_pairs_are_the_similarity_of_each_draw_in_any_form(rows):
    sim = resolve_label_similarity(VOCAB, "indel")
    frame = pd.DataFrame(rows, columns=["label_a", "label_b", "judgment", "draws"])
    g = gold_pairs(frame, VOCAB, sim)
    want = np.repeat([sim.pairs(np.array([VOCAB.index(a)]), np.array([VOCAB.index(b)])).values[0]
                      for a, b, _, _ in rows], frame["draws"])
    np.testing.assert_array_equal(g.scores, want)
    np.testing.assert_array_equal(g.labels, np.repeat(frame["judgment"], frame["draws"]))
    assert g.n == frame["draws"].sum() and g.n_distinct == len(rows)
    # the two labels in the other order (a blinded sheet shows them shuffled): the same scores
    swapped = frame.rename(columns={"label_a": "label_b", "label_b": "label_a"})
    np.testing.assert_array_equal(gold_pairs(swapped, VOCAB, sim).scores, g.scores)
    # triples, one per draw: the same gold pairs
    triples = [(a, b, j) for a, b, j, d in rows for _ in range(d)]
    np.testing.assert_array_equal(gold_pairs(triples, VOCAB, sim).scores, g.scores)
