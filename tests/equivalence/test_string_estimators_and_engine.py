"""Protocol, string/set estimators and the scoring engine (softirr_stats.equivalence)."""

import itertools

import numpy as np
import pytest
from rapidfuzz.distance import Indel as RIndel
from rapidfuzz.distance import LCSseq as RLcs
from rapidfuzz.distance import Levenshtein as RLev

from softirr_stats.equivalence import (
    Dice,
    Estimator,
    Exact,
    Indel,
    Jaccard,
    Lcs,
    Levenshtein,
    Masi,
    as_estimator,
    label_key,
    score_pairs,
    similarity_matrix,
)

WORDS = ["heart attack", "myocardial infarction", "heart failure", "broken leg", "",
         "Heart Attack", "attack heart", "seizure", "a", "ab"]
SETS = [frozenset(s) for s in ({"a", "b"}, {"a"}, {"b", "c"}, set(), {"a", "b", "c", "d"},
                                {"x"}, {"a", "b"})]
STRING_ESTIMATORS = [Exact(), Levenshtein(), Indel(), Lcs(), Jaccard(), Masi(), Masi(exact=False), Dice()]
SET_ESTIMATORS = [Exact(), Jaccard(), Masi(), Masi(exact=False), Dice()]


class Counting:
    """A user estimator that records every pair it is asked to score."""

    def __init__(self, symmetric=False):
        self.calls = []
        self.symmetric = symmetric
        self.name = "counting"
        self.fingerprint = "counting"

    def __call__(self, a, b):
        self.calls.extend(zip(list(a), list(b), strict=False))
        return np.array([RLev.normalized_similarity(x, y) for x, y in zip(a, b, strict=False)])


# ------------------------------------------------------------------ estimators: formulas
def test_edit_measures_hand_values():
    assert Levenshtein()(["kitten"], ["sitting"])[0] == pytest.approx(4 / 7)
    assert Indel()(["kitten"], ["sitting"])[0] == pytest.approx(8 / 13)
    assert Lcs()(["kitten"], ["sitting"])[0] == pytest.approx(4 / 7)
    assert Levenshtein()(["", "abc"], ["", ""]).tolist() == [1.0, 0.0]


@pytest.mark.parametrize("est, ref", [(Levenshtein(), RLev), (Indel(), RIndel), (Lcs(), RLcs)])
def test_edit_measures_match_rapidfuzz_pairwise(est, ref):
    a, b = zip(*itertools.product(WORDS, WORDS), strict=False)
    got = est(a, b)
    want = [ref.normalized_similarity(x, y) for x, y in zip(a, b, strict=False)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert got.dtype == np.float64


def test_set_measures_match_nltk():
    from nltk.metrics.distance import jaccard_distance, masi_distance

    nonempty = [s for s in SETS if s]
    for x, y in itertools.product(nonempty, nonempty):
        assert Jaccard()([x], [y])[0] == pytest.approx(1 - jaccard_distance(set(x), set(y)), abs=1e-12)
        # installed NLTK uses the exact 2/3, 1/3 constants (older releases: 0.67, 0.33)
        assert Masi()([x], [y])[0] == pytest.approx(1 - masi_distance(set(x), set(y)), abs=1e-12)
        assert Masi(exact=True)([x], [y])[0] == pytest.approx(1 - masi_distance(set(x), set(y)), abs=1e-12)
        j = len(x & y) / len(x | y)
        m = 1.0 if x == y else 0.67 if (x <= y or y <= x) else 0.33 if x & y else 0.0
        assert Masi(exact=False)([x], [y])[0] == pytest.approx(j * m, abs=1e-12)
    # Passonneau (2006): subset 2/3, overlap 1/3 by default; the rounded variant on request
    assert Masi()([frozenset({1, 2})], [frozenset({1, 2, 3, 4})])[0] == pytest.approx(0.5 * 2 / 3, abs=1e-15)
    assert 1 - Masi(exact=False)([frozenset({1, 2})], [frozenset({1, 2, 3, 4})])[0] == pytest.approx(0.665)
    assert Masi(exact=True)([frozenset({1, 2})], [frozenset({1, 2, 3, 4})])[0] == pytest.approx(0.5 * 2 / 3)
    assert Masi(exact=True)([frozenset("ab")], [frozenset("bc")])[0] == pytest.approx(1 / 3 * 1 / 3)


def test_dice_and_token_sets_for_strings():
    assert Dice()([frozenset("ab")], [frozenset("bcd")])[0] == pytest.approx(2 * 1 / 5)
    # strings: lower-cased whitespace tokens
    assert Jaccard()(["Heart  Attack"], ["attack heart"])[0] == 1.0
    assert Jaccard()(["heart attack"], ["heart failure now"])[0] == pytest.approx(1 / 4)
    assert Dice()(["heart attack"], ["heart failure now"])[0] == pytest.approx(2 / 5)
    # tuples are set-valued labels too; empty sets are equal
    assert Jaccard()([("a", "b")], [("b", "c")])[0] == pytest.approx(1 / 3)
    assert Jaccard()([frozenset()], [frozenset()])[0] == 1.0
    assert Jaccard()([frozenset()], [frozenset("a")])[0] == 0.0
    assert Jaccard(tokenizer=list)(["ab"], ["bc"])[0] == pytest.approx(1 / 3)


def test_identity_detection(tmp_path):
    from softirr_stats.equivalence import Cached, is_identity, low_rank_factor

    assert is_identity(Exact()) and is_identity(Cached(Exact(), tmp_path / "x.sqlite"))
    assert not is_identity(Jaccard()) and not is_identity(lambda a, b: a)
    assert low_rank_factor(Jaccard(), ["a"]) is None


def test_exact_on_any_hashable():
    assert Exact()([1, 2.0, "a", frozenset("ab"), ("x",)], [1.0, 3, "a", frozenset("ba"), ("x",)]).tolist() == [
        1.0, 0.0, 1.0, 1.0, 1.0]
    assert isinstance(Exact(), Estimator)


@pytest.mark.parametrize("est", STRING_ESTIMATORS, ids=lambda e: repr(e))
def test_equal_inputs_score_one_and_range(est):
    got = est(WORDS, WORDS)
    assert got.tolist() == [1.0] * len(WORDS)
    a, b = zip(*itertools.product(WORDS, WORDS), strict=False)
    s = est(a, b)
    assert s.shape == (len(a),) and np.all((s >= 0) & (s <= 1))


@pytest.mark.parametrize("est", STRING_ESTIMATORS, ids=lambda e: repr(e))
def test_matrix_method_equals_pairwise(est):
    S = similarity_matrix(est, WORDS)
    a, b = zip(*itertools.product(WORDS, WORDS), strict=False)
    np.testing.assert_allclose(S.ravel(), est(a, b), atol=1e-12)
    np.testing.assert_allclose(S, S.T, atol=1e-12)
    assert np.all(np.diag(S) == 1.0)
    # rectangular
    R = similarity_matrix(est, WORDS[:4], WORDS[3:])
    np.testing.assert_allclose(R, S[:4, 3:], atol=1e-12)


@pytest.mark.parametrize("est", SET_ESTIMATORS, ids=lambda e: repr(e))
def test_set_matrix_equals_pairwise(est):
    S = similarity_matrix(est, SETS)
    a, b = zip(*itertools.product(SETS, SETS), strict=False)
    np.testing.assert_allclose(S.ravel(), est(a, b), atol=1e-12)


def test_fingerprints_are_stable_and_distinguish_settings():
    assert Levenshtein().fingerprint == Levenshtein().fingerprint
    assert Masi().fingerprint != Masi(exact=False).fingerprint
    assert len({e.fingerprint for e in STRING_ESTIMATORS}) == len(STRING_ESTIMATORS)
    assert label_key(frozenset({"b", "a"})) == label_key(frozenset({"a", "b"}))
    assert label_key("1") != label_key(1)


# ------------------------------------------------------------------ engine
def test_score_pairs_dedups_and_skips_identical():
    est = Counting(symmetric=False)
    a = ["x", "y", "x", "y", "z", "q"]
    b = ["y", "x", "y", "x", "z", "qq"]
    s, st = score_pairs(est, a, b, return_stats=True)
    assert sorted(est.calls) == [("q", "qq"), ("x", "y"), ("y", "x")]
    assert s[4] == 1.0 and s[0] == s[2] and s[1] == s[3]
    assert (st.n_requested, st.n_identical, st.n_unique, st.n_scored) == (6, 1, 4, 3)

    sym = Counting(symmetric=True)
    s2, st2 = score_pairs(sym, a, b, return_stats=True)
    assert len(sym.calls) == 2 and st2.n_scored == 2
    np.testing.assert_allclose(s2, s)


def test_score_pairs_matches_direct_call_for_every_estimator():
    rng = np.random.default_rng(0)
    a = list(rng.choice(np.array(WORDS, dtype=object), 200))
    b = list(rng.choice(np.array(WORDS, dtype=object), 200))
    for est in STRING_ESTIMATORS:
        np.testing.assert_allclose(score_pairs(est, a, b), est(a, b), atol=1e-12)


def test_similarity_matrix_pair_path_scores_upper_triangle_once():
    labels = ["aa", "ab", "b", "abc", "x"]
    sym = Counting(symmetric=True)
    S = similarity_matrix(sym, labels)
    assert len(sym.calls) == 10 and len(set(map(frozenset, sym.calls))) == 10
    np.testing.assert_allclose(S, similarity_matrix(Levenshtein(), labels), atol=1e-12)

    asym = Counting(symmetric=False)
    S2 = similarity_matrix(asym, labels, block_size=3)
    assert len(asym.calls) == 20
    np.testing.assert_allclose(S2, S, atol=1e-12)

    # rectangular with overlapping vocabularies: shared pairs scored once when symmetric
    sym = Counting(symmetric=True)
    R = similarity_matrix(sym, ["aa", "ab", "b"], ["ab", "aa", "zz"])
    assert len(sym.calls) == 6  # 9 grid pairs - 2 identical - (ab, aa) == (aa, ab)
    np.testing.assert_allclose(R, similarity_matrix(Levenshtein(), ["aa", "ab", "b"], ["ab", "aa", "zz"]))


def test_similarity_matrix_duplicates_and_symmetrize():
    def directional(a, b):  # P(a => b): prefix containment
        return np.array([float(y.startswith(x)) for x, y in zip(a, b, strict=False)])

    est = as_estimator(directional)
    S = similarity_matrix(est, ["ab", "abc", "ab"])
    np.testing.assert_array_equal(S, [[1, 1, 1], [0, 1, 0], [1, 1, 1]])
    Ssym = similarity_matrix(est, ["ab", "abc"], symmetrize=True)
    np.testing.assert_array_equal(Ssym, [[1, 0.5], [0.5, 1]])
    R = similarity_matrix(est, ["ab"], ["abc", "x"], symmetrize=True)
    np.testing.assert_array_equal(R, [[0.5, 0.0]])


# ------------------------------------------------------------------ user callables and bad input
@pytest.mark.parametrize("bad", [np.nan, np.inf, -0.5, 1.5])
def test_user_callable_bad_outputs_name_the_pair(bad):
    def f(a, b):
        out = np.full(len(a), 0.5)
        out[[i for i, x in enumerate(a) if x == "bad"]] = bad
        return out

    est = as_estimator(f)
    with pytest.raises(ValueError, match=r"'bad', 'other'"):
        est(["ok", "bad"], ["fine", "other"])
    with pytest.raises(ValueError, match=r"'bad', 'other'"):
        score_pairs(f, ["ok", "bad"], ["fine", "other"])
    with pytest.raises(ValueError, match=r"'bad', 'other'"):
        similarity_matrix(f, ["ok", "bad"], ["other"])


def test_user_callable_wrong_length_and_type():
    with pytest.raises(ValueError, match="shape"):
        as_estimator(lambda a, b: [0.5])(["a", "b"], ["c", "d"])
    with pytest.raises(TypeError, match="floats"):
        as_estimator(lambda a, b: ["x"] * len(a))(["a"], ["c"])
    with pytest.raises(TypeError, match="callable"):
        as_estimator(3)
    est = as_estimator(lambda a, b: np.zeros(len(a)), name="zero", symmetric=True)
    assert est.name == "zero" and est.symmetric and isinstance(est, Estimator)
    assert as_estimator(Levenshtein()).name == "levenshtein"


def test_bad_inputs():
    with pytest.raises(ValueError, match=r"b\[1\] is None"):
        score_pairs(Levenshtein(), ["a", "b"], ["a", None])
    with pytest.raises(ValueError, match=r"a\[0\] is NaN"):
        Exact()([float("nan")], [1.0])
    with pytest.raises(ValueError, match="same length"):
        score_pairs(Exact(), ["a", "b"], ["a"])
    # every missing marker is named; pandas' NA failed inside ==, NaT and float32 NaN scored 0.0
    import pandas as pd

    for marker, name in [(pd.NA, "pd.NA"), (pd.NaT, "NaT"), (np.float32("nan"), "NaN"),
                         (np.datetime64("NaT"), "NaT")]:
        with pytest.raises(ValueError, match=rf"a\[0\] is {name}; missing labels"):
            Exact()([marker], [marker])
    with pytest.raises(TypeError, match=r"b\[0\] is int"):
        Levenshtein()(["a"], [3])
    with pytest.raises(TypeError, match=r"labels_a\[1\] is frozenset"):
        similarity_matrix(Lcs(), ["a", frozenset("b")])
    with pytest.raises(TypeError, match=r"a\[0\] is int"):
        Jaccard()([3], ["a"])
    with pytest.raises(TypeError, match="hashable"):
        score_pairs(Exact(), [{"a": 1}], ["a"])
    with pytest.raises(TypeError, match="sequence"):
        score_pairs(Exact(), "abc", "abd")
    with pytest.raises(ValueError, match="block_size"):
        similarity_matrix(Exact(), ["a"], block_size=0)


def test_empty_and_very_long_strings():
    long_a, long_b = "a" * 200_000, "a" * 199_999 + "b"
    for est in (Levenshtein(), Indel(), Lcs()):
        s = est(["", long_a, ""], ["", long_b, "x"])
        assert s[0] == 1.0 and s[2] == 0.0 and 0.99 < s[1] < 1.0
    assert score_pairs(Levenshtein(), [], []).shape == (0,)
    assert similarity_matrix(Levenshtein(), []).shape == (0, 0)
