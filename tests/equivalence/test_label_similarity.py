"""One similarity path: resolve_label_similarity, its one memo, counts by value, shared objects."""

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.equivalence import (
    ExactMatchSimilarity,
    Levenshtein,
    MatrixSimilarity,
    ScoredSimilarity,
    resolve_label_similarity,
)
from softirr_stats.models import pair_scores

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")

LABELS = ("heart attack", "heart failure", "broken leg", "broken arm", "flu", "influenza")
TABLE = [["heart attack", "heart failure", "heart attack"], ["broken leg", "broken arm", "broken leg"],
         ["flu", "influenza", "flu"], ["heart failure", "heart failure", "broken arm"],
         ["influenza", "flu", "flu"], ["broken arm", "broken arm", "heart attack"]]


class Directional:
    """A directional estimator (no ``symmetric`` attribute) that records every call."""

    name = "directional"
    fingerprint = "test:directional"

    def __init__(self):
        self.calls: list[tuple[str, str]] = []

    def __call__(self, a, b):
        self.calls += list(zip(a, b, strict=True))
        # P(a == b) read "a entails b": first word of a inside b, else length ratio
        return np.array([0.9 if x.split()[0] in y else min(len(x), len(y)) / max(len(x), len(y)) / 4
                         for x, y in zip(a, b, strict=True)])


def _ann():
    return sis.Annotations.from_wide(TABLE)


def test_the_memo_cannot_be_written_from_outside():
    sim = resolve_label_similarity(LABELS, Levenshtein())
    sim.pairs(np.array([0, 2]), np.array([1, 3]))
    for name, value in (("n_scored", 0), ("estimator", None), ("_keys", np.empty(0)), ("symmetric", False)):
        with pytest.raises(AttributeError, match="read-only"):
            setattr(sim, name, value)
    with pytest.raises(ValueError, match="read-only"):
        sim._vals[0] = 0.5  # the memo's arrays are read-only too
    with pytest.raises(AttributeError, match="read-only"):
        ExactMatchSimilarity(3).n = 4
    out = sim.pairs(np.array([0]), np.array([1])).values
    out[0] = 0.0  # a returned array is the caller's copy
    assert sim.pairs(np.array([0]), np.array([1])).values[0] > 0


def test_counts_come_back_by_value_and_each_pair_is_scored_once():
    est = Directional()
    sim = resolve_label_similarity(LABELS, est)
    first = sim.pairs(np.array([0, 1, 0, 3]), np.array([1, 0, 0, 2]))
    assert first.n_scored == 2 * 2  # two distinct label pairs, both directions of a directional estimator
    again = sim.pairs(np.array([1, 2]), np.array([0, 3]))
    assert again.n_scored == 0 and len(est.calls) == 4
    # symmetrised in one place: the mean of both directions, whatever order is asked
    s_ab, s_ba = est([LABELS[0]], [LABELS[1]])[0], est([LABELS[1]], [LABELS[0]])[0]
    assert first.values[0] == first.values[1] == pytest.approx((s_ab + s_ba) / 2)
    assert first.values[2] == 1.0


def test_resolver_returns_a_resolved_object_as_it_is():
    sim = resolve_label_similarity(LABELS, "levenshtein")
    assert isinstance(sim, ScoredSimilarity) and resolve_label_similarity(LABELS, sim) is sim
    other = resolve_label_similarity(LABELS[:3], sim)  # another vocabulary: a new memo, same estimator
    assert other is not sim and other.estimator is sim.estimator and other.n_known == 0
    assert type(resolve_label_similarity(LABELS, None)) is ExactMatchSimilarity
    assert type(resolve_label_similarity(LABELS, sis.equivalence.Exact())) is ExactMatchSimilarity
    with pytest.warns(UserWarning, match=r"not symmetric: max \|S - S.T\| = 0.2"):  # symmetrised, and said
        m = resolve_label_similarity(("a", "b"), [[1.0, 0.2], [0.4, 1.0]])
    assert isinstance(m, MatrixSimilarity) and m.pairs(np.array([0]), np.array([1])).values[0] == pytest.approx(0.3)
    with pytest.raises(ValueError, match="2 x 2 matrix similarity; these labels need 3 x 3"):
        resolve_label_similarity(("a", "b", "c"), m)
    with pytest.raises(TypeError, match="similarity must be None"):
        resolve_label_similarity(LABELS, 3.5)


def test_a_vectorised_square_block_goes_into_the_one_memo():
    sim = resolve_label_similarity(LABELS, Levenshtein())
    idx = np.arange(len(LABELS))
    k = len(LABELS)
    first = sim.block(idx, idx)
    assert first.n_scored == k * (k - 1) // 2 and sim.n_known == k * (k - 1) // 2
    assert sim.block(idx, idx).n_scored == 0  # from the memo
    ii, jj = np.triu_indices(k, 1)
    got = sim.pairs(ii, jj)
    assert got.n_scored == 0 and np.allclose(got.values, first.values[ii, jj])


def test_the_soft_model_and_a_coefficient_share_one_object():
    ann = _ann()
    est = Directional()
    sim = resolve_label_similarity(ann.vocabulary, est)
    r = sis.fleiss_kappa(ann, similarity=sim)
    k = len(ann.vocabulary)
    assert r.n_pairs_scored == k * (k - 1) == len(est.calls)  # every label pair, both directions, once
    ps = pair_scores(ann, sim, n_chance=200, seed=1)
    assert len(est.calls) == k * (k - 1) and ps.n_pairs_scored == 0  # nothing scored again
    # the same scores as a fresh object gives the soft model on its own (symmetrised the same way)
    alone = Directional()
    ps_alone = pair_scores(ann, alone, n_chance=200, seed=1)
    assert np.array_equal(ps.within_scores, ps_alone.within_scores)
    assert np.array_equal(ps.chance_scores, ps_alone.chance_scores)
    assert ps_alone.n_pairs_scored == len(alone.calls) > 0
    # and a second coefficient on the shared object scores nothing either
    assert sis.krippendorff_alpha(ann, similarity=sim).n_pairs_scored == 0


def test_sensitivity_counts_per_row_by_value():
    ann = _ann()
    est = Directional()
    df = sis.sensitivity(ann, coefficients=["fleiss_kappa", "krippendorff_alpha", "gwet_ac1"],
                         similarities=[("dir", est)])
    k = len(ann.vocabulary)
    assert df["n_pairs_scored"].tolist()[0] == k * (k - 1) == len(est.calls)
    assert df["n_pairs_scored"].tolist()[1:] == [0, 0] and df.attrs["n_pairs_scored"] == {"dir": k * (k - 1)}


@pytest.mark.parametrize("est", [Levenshtein(), Directional()], ids=["vectorised", "directional"])
def test_a_streamed_chance_pass_counts_like_the_dense_one(est):
    from softirr_stats.agreement._chance import BlockedQuad, DenseQuad, make_quad

    support = np.arange(len(LABELS))
    dense_sim, streamed_sim = (resolve_label_similarity(LABELS, est) for _ in range(2))
    dense, n_dense = make_quad(dense_sim, support)
    blocked = BlockedQuad(streamed_sim, support, block_rows=2)  # three row blocks
    p = np.linspace(1, 2, len(LABELS)) / np.linspace(1, 2, len(LABELS)).sum()
    assert isinstance(dense, DenseQuad) and float(blocked(p, p)) == pytest.approx(float(dense(p, p)))
    k = len(LABELS)
    assert blocked.n_scored == n_dense == k * (k - 1) // 2 * (1 if getattr(est, "symmetric", False) else 2)


def test_an_unsorted_square_block_is_remembered_the_same_way():
    order = np.array([4, 0, 2, 5])
    sim = resolve_label_similarity(LABELS, Levenshtein())
    got = sim.block(order, order)
    want = resolve_label_similarity(LABELS, Levenshtein()).block(np.sort(order), np.sort(order)).values
    pos = np.searchsorted(np.sort(order), order)
    assert got.n_scored == 6 and np.allclose(got.values, want[np.ix_(pos, pos)])
    assert sim.pairs(order[[0, 1, 2]], order[[1, 2, 3]]).n_scored == 0


def test_three_kinds_of_one_abstract_label_similarity():
    from softirr_stats.equivalence import LabelSimilarity

    exact = resolve_label_similarity(LABELS, None)
    matrix = resolve_label_similarity(LABELS, np.eye(len(LABELS)) * 0.5 + 0.5)
    scored = resolve_label_similarity(LABELS, Levenshtein())
    assert [type(s) for s in (exact, matrix, scored)] == [ExactMatchSimilarity, MatrixSimilarity, ScoredSimilarity]
    assert all(isinstance(s, LabelSimilarity) for s in (exact, matrix, scored))
    # exact matching is one kind, not the base: a matrix or an edit distance is not an exact match
    assert not isinstance(matrix, ExactMatchSimilarity) and not isinstance(scored, ExactMatchSimilarity)
    assert sis.agreement.LabelSimilarity is LabelSimilarity
    with pytest.raises(TypeError, match="abstract"):
        LabelSimilarity(3)
    assert resolve_label_similarity(LABELS, exact) is exact  # a resolved object of any kind is used as it is
    assert resolve_label_similarity(LABELS, matrix) is matrix


def test_vectorised_matrix_says_whether_a_block_is_one_estimator_call():
    scored = resolve_label_similarity(LABELS, Levenshtein())  # rapidfuzz's matrix path
    directional = resolve_label_similarity(LABELS, Directional())  # a plain callable: pair by pair
    assert scored.vectorised_matrix and not directional.vectorised_matrix
    assert not ExactMatchSimilarity(2).vectorised_matrix
    assert not hasattr(scored, "cheap")  # the unreleased old name is gone
