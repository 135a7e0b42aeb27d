"""SetMatch: soft matching of set-valued labels."""

import itertools

import numpy as np
import pytest

from softirr_stats.equivalence import (
    Dice,
    Exact,
    Jaccard,
    Levenshtein,
    SetMatch,
    score_pairs,
    similarity_matrix,
)

TABLE = {("a", "x"): 0.9, ("a", "y"): 0.8, ("b", "x"): 0.8, ("b", "y"): 0.1}


def lookup(a, b):
    return np.array([TABLE.get((x, y), TABLE.get((y, x), 0.0)) for x, y in zip(a, b, strict=False)])


def test_hungarian_vs_greedy_hand_computed():
    A, B = frozenset("ab"), frozenset("xy")
    hung = SetMatch(lookup, assignment="hungarian")([A], [B])[0]
    greedy = SetMatch(lookup, assignment="greedy")([A], [B])[0]
    assert hung == pytest.approx(2 * 1.6 / 4)   # a-y 0.8 + b-x 0.8
    assert greedy == pytest.approx(2 * 1.0 / 4)  # a-x 0.9 first, then b-y 0.1
    assert SetMatch(lookup, normalize="jaccard")([A], [B])[0] == pytest.approx(1.6 / (4 - 1.6))
    # unequal sizes: {a, b} vs {x}: best single match 0.9
    assert SetMatch(lookup)([A], [frozenset("x")])[0] == pytest.approx(2 * 0.9 / 3)
    assert SetMatch(lookup, normalize="jaccard")([A], [frozenset("x")])[0] == pytest.approx(0.9 / (3 - 0.9))


def test_levenshtein_base_hand_computed():
    a, b = frozenset({"kitten", "abc"}), frozenset({"sitting", "abd", "zzz"})
    # best assignment: kitten-sitting 4/7, abc-abd 2/3
    m = 4 / 7 + 2 / 3
    assert SetMatch(Levenshtein())([a], [b])[0] == pytest.approx(2 * m / 5)
    assert SetMatch(Levenshtein(), normalize="jaccard")([a], [b])[0] == pytest.approx(m / (5 - m))


def _random_sets(rng, n, universe="abcdefg"):
    return [frozenset(rng.choice(list(universe), size=rng.integers(0, 5), replace=False)) for _ in range(n)]


@pytest.mark.parametrize("assignment", ["hungarian", "greedy"])
def test_exact_base_equals_set_jaccard_and_dice(assignment):
    rng = np.random.default_rng(1)
    sets = _random_sets(rng, 25)
    a, b = zip(*itertools.product(sets, sets), strict=False)
    np.testing.assert_array_equal(SetMatch(Exact(), assignment=assignment, normalize="jaccard")(a, b), Jaccard()(a, b))
    np.testing.assert_allclose(SetMatch(Exact(), assignment=assignment)(a, b), Dice()(a, b), atol=1e-15)


def test_greedy_never_beats_hungarian_and_matrix_symmetric():
    rng = np.random.default_rng(2)
    words = ["heart", "hart", "attack", "attach", "leg", "log", "lag", "seizure"]
    sets = _random_sets(rng, 15, universe=words)
    a, b = zip(*itertools.product(sets, sets), strict=False)
    h = SetMatch(Levenshtein())(a, b)
    g = SetMatch(Levenshtein(), assignment="greedy")(a, b)
    assert np.all(g <= h + 1e-12) and np.all((h >= 0) & (h <= 1))
    S = similarity_matrix(SetMatch(Levenshtein()), sets)
    np.testing.assert_allclose(S, S.T, atol=1e-12)


def test_element_pairs_scored_once_in_one_batch():
    calls = []

    def base(a, b):
        calls.append(list(zip(a, b, strict=False)))
        return np.zeros(len(a))

    est = SetMatch(base)  # plain callable: not symmetric
    sets = [frozenset({"p", "q"}), frozenset({"q", "r"}), frozenset({"p", "r"})]
    score_pairs(est, sets * 3, sets[1:] + sets[:1] + sets * 2)
    assert len(calls) == 1  # one batch
    flat = calls[0]
    assert len(flat) == len(set(flat))  # each element pair once
    assert all(x != y for x, y in flat)  # identical elements: no call


def test_edge_cases_and_errors():
    est = SetMatch(Levenshtein())
    assert est([frozenset()], [frozenset({"a"})]).tolist() == [0.0]
    assert est([frozenset()], [frozenset()]).tolist() == [1.0]
    assert est(["abc"], [frozenset({"abc", "x"})])[0] == pytest.approx(2 / 3)  # str = one-element set
    with pytest.raises(ValueError, match=r"assignment must be one of \['greedy', 'hungarian'\]"):
        SetMatch(Exact(), assignment="optimal")
    with pytest.raises(ValueError, match="normalize must be one of"):
        SetMatch(Exact(), normalize="f1")
    with pytest.raises(TypeError, match=r"a\[0\] is int"):
        est([3], [frozenset("a")])
    assert "Levenshtein" in est.fingerprint and est.fingerprint != SetMatch(Levenshtein(), assignment="greedy").fingerprint


@pytest.mark.parametrize("assignment", ["hungarian", "greedy"])
def test_batched_matching_equals_one_by_one(assignment):
    """Set pairs are matched in batches of equal shape; the result equals the per-pair solver."""
    from softirr_stats.equivalence._setmatch import _greedy_sum, _hungarian_sum

    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(30)]
    raw = rng.random((30, 30))
    raw[rng.random((30, 30)) < 0.3] = 0.5  # many ties
    table = np.triu(raw) + np.triu(raw, 1).T
    np.fill_diagonal(table, 1.0)
    idx = {w: i for i, w in enumerate(words)}

    def base(a, b):
        return table[[idx[x] for x in a], [idx[y] for y in b]]

    sets = [frozenset(rng.choice(words, size=int(rng.integers(0, 9)), replace=False)) for _ in range(60)]
    a = [sets[i] for i in rng.integers(0, 60, 600)]
    b = [sets[i] for i in rng.integers(0, 60, 600)]
    got = SetMatch(base, assignment=assignment, normalize="jaccard")(a, b)
    solve = _hungarian_sum if assignment == "hungarian" else _greedy_sum
    want = []
    for x, y in zip(a, b, strict=True):
        ex, ey = sorted(x, key=repr), sorted(y, key=repr)
        if not ex and not ey:
            want.append(1.0)
            continue
        M = table[np.ix_([idx[e] for e in ex], [idx[e] for e in ey])]
        m = solve(M) if min(M.shape) > 0 else 0.0
        want.append(m / (len(ex) + len(ey) - m))
    if assignment == "greedy":
        np.testing.assert_array_equal(got, np.clip(want, 0, 1))
    else:
        np.testing.assert_allclose(got, np.clip(want, 0, 1), rtol=0, atol=1e-15)
