"""paper_repro: synthetic populations of the seed paper and their ground truth."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import numpy as np
import pandas as pd
import pytest
from rapidfuzz.distance import Indel
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

if importlib.util.find_spec("paper_repro") is None:  # top-level folder, not pip-installed
    sys.path.append(str(pathlib.Path(__file__).resolve().parents[2]))

from paper_repro.generators import (  # noqa: E402
    CONDITIONS,
    RATERS,
    _set_sizes,
    set_level_populations,
    single_label_populations,
)
from paper_repro.terminology import load_fixture  # noqa: E402
from paper_repro.truth import (  # noqa: E402
    cohen_kappa_codes,
    incidence,
    scott_pi_codes,
    set_agreement,
)


@pytest.fixture(scope="module")
def hpo():
    return load_fixture("HPO")


@pytest.fixture(scope="module")
def single(hpo):
    return {c: single_label_populations(hpo, c, n_populations=4, n_items=40, seed=3)
            for c in CONDITIONS}


@pytest.fixture(scope="module")
def sets(hpo):
    return {c: set_level_populations(hpo, c, n_populations=4, n_items=30, seed=5)
            for c in CONDITIONS}


def _pairs(pop):
    w = pop.frame.pivot(index="item", columns="rater", values="label")
    k = pop.frame.pivot(index="item", columns="rater", values="concept")
    return w[list(RATERS)], k[list(RATERS)]


# --------------------------------------------------------------------- truth helpers
def test_truth_matches_sklearn_and_statsmodels() -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(0, 6, size=(5, 60))
    b = np.where(rng.random((5, 60)) < 0.5, a, rng.integers(0, 6, size=(5, 60)))
    kap = cohen_kappa_codes(a, b)
    pi = scott_pi_codes(a, b)
    for p in range(5):
        assert kap[p] == pytest.approx(cohen_kappa_score(a[p], b[p]), abs=1e-12)
        table = aggregate_raters(np.stack([a[p], b[p]], axis=1))[0]
        assert pi[p] == pytest.approx(fleiss_kappa(table), abs=1e-12)


def test_truth_degenerate_and_bad_input() -> None:
    with pytest.warns(RuntimeWarning, match="expected agreement is 1"):
        assert np.isnan(cohen_kappa_codes(np.zeros(4, int), np.zeros(4, int)))
    with pytest.raises(ValueError, match="shapes"):
        cohen_kappa_codes(np.zeros(3, int), np.zeros(4, int))
    with pytest.raises(TypeError, match="integer"):
        scott_pi_codes(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match=r"\['dice', 'jaccard'\]"):
        set_agreement(np.ones((2, 2), bool), np.ones((2, 2), bool), "masi")


def test_set_agreement_bruteforce() -> None:
    rng = np.random.default_rng(1)
    A = [frozenset(rng.choice(8, size=rng.integers(1, 5), replace=False).tolist()) for _ in range(12)]
    B = [frozenset(rng.choice(8, size=rng.integers(1, 5), replace=False).tolist()) for _ in range(12)]
    uni = {c: c for c in range(8)}
    ia, ib = incidence(A, uni), incidence(B, uni)
    for measure, f in [("jaccard", lambda x, y: len(x & y) / len(x | y)),
                       ("dice", lambda x, y: 2 * len(x & y) / (len(x) + len(y)))]:
        r = set_agreement(ia, ib, measure)
        po = np.mean([f(x, y) for x, y in zip(A, B, strict=True)])
        pe = np.mean([f(x, y) for x in A for y in B])
        pooled = A + B
        pp = np.mean([f(x, y) for x in pooled for y in pooled])
        assert r["observed"] == pytest.approx(po, abs=1e-12)
        assert r["expected"] == pytest.approx(pe, abs=1e-12)
        assert r["kappa"] == pytest.approx((po - pe) / (1 - pe), abs=1e-12)
        assert r["expected_pooled"] == pytest.approx(pp, abs=1e-12)
        assert r["pi"] == pytest.approx((po - pp) / (1 - pp), abs=1e-12)


# --------------------------------------------------------------------- single-label
def test_single_label_is_deterministic(hpo) -> None:
    a = single_label_populations(hpo, "lexical", 3, 25, seed=11)
    b = single_label_populations(hpo, "lexical", 3, 25, seed=11)
    c = single_label_populations(hpo, "lexical", 3, 25, seed=12)
    for x, y in zip(a, b, strict=True):
        pd.testing.assert_frame_equal(x.frame, y.frame)
        assert x.truth == y.truth
    assert not all(x.frame.equals(z.frame) for x, z in zip(a, c, strict=True))


@pytest.mark.parametrize("condition", CONDITIONS)
def test_single_label_properties(hpo, single, condition) -> None:
    pops = single[condition]
    np.testing.assert_allclose([p.target for p in pops], np.linspace(0, 1, 4))
    for pop in pops:
        assert list(pop.frame.columns) == ["item", "rater", "label", "concept"]
        labels, concepts = _pairs(pop)
        n = len(labels)
        base = pd.Series(pop.item_concept, index=labels.index)
        agree = concepts[RATERS[0]] == concepts[RATERS[1]]
        # the realised agreement fraction is the target, to the item
        assert agree.sum() == round(pop.target * n)
        assert pop.truth["observed"] == pytest.approx(agree.mean())
        # ground truth = Cohen / Scott on concept ids
        codes = {c: i for i, c in enumerate(sorted(set(concepts.values.ravel())))}
        ca = concepts[RATERS[0]].map(codes).to_numpy()
        cb = concepts[RATERS[1]].map(codes).to_numpy()
        if len(set(ca) | set(cb)) > 1:
            assert pop.truth["cohen_kappa"] == pytest.approx(cohen_kappa_score(ca, cb), abs=1e-12)
        # agreeing items: two different surface forms of the item's concept
        for i in labels.index[agree]:
            c = base[i]
            assert concepts.loc[i, RATERS[0]] == c
            assert labels.loc[i, RATERS[0]] != labels.loc[i, RATERS[1]]
            assert {labels.loc[i, r] for r in RATERS} <= set(hpo.terms(c))
        # disagreeing items: one rater keeps a form of the concept, the other has a negative
        for i in labels.index[~agree]:
            c = base[i]
            own = {s.casefold() for s in hpo.terms(c)}
            kept = [r for r in RATERS if concepts.loc[i, r] == c]
            assert len(kept) == 1
            neg_rater = RATERS[1 - RATERS.index(kept[0])]
            neg, neg_c = labels.loc[i, neg_rater], concepts.loc[i, neg_rater]
            assert neg.casefold() not in own  # never a synonym of the concept
            assert neg in hpo.terms(neg_c) and neg_c != c
            if condition == "siblings":
                assert set(hpo.parents(neg_c)) & set(hpo.parents(c))
            elif condition == "ancestors":
                assert neg_c in hpo.ancestors(c, max_depth=2)
            elif condition == "lexical":
                nb = hpo.lexical_neighbours([c], k=10)[0]
                assert (neg, neg_c) in {(s, o) for s, o, _ in nb}
                dist = min(Indel.normalized_distance(neg.casefold(), s.casefold())
                           for s in hpo.terms(c))
                assert dist <= max(d for _, _, d in nb) + 1e-12


def test_single_label_negative_sides_are_mixed(single) -> None:
    pop = single["random"][0]  # target 0: every item disagrees
    labels, concepts = _pairs(pop)
    base = pd.Series(pop.item_concept, index=labels.index)
    kept_first = (concepts[RATERS[0]] == base).mean()
    assert 0.2 < kept_first < 0.8


def test_single_label_input_validation(hpo) -> None:
    with pytest.raises(ValueError, match=r"\['random', 'siblings', 'ancestors', 'lexical'\]"):
        single_label_populations(hpo, "cousins")
    with pytest.raises(ValueError, match="targets"):
        single_label_populations(hpo, "random", 2, 10, targets=[0.5, 1.5])
    with pytest.raises(ValueError, match="targets: expected 2 values"):
        single_label_populations(hpo, "random", 2, 10, targets=[0.5])
    with pytest.raises(ValueError, match="min_terms"):
        single_label_populations(hpo, "random", 2, 10, min_terms=1)


def test_other_sources_work() -> None:
    for source in ("MONDO", "ICD10CM"):
        t = load_fixture(source)
        pops = single_label_populations(t, "siblings", 2, 20, seed=0)
        assert pops[1].truth["cohen_kappa"] == 1.0
        assert pops[0].truth["observed"] == 0.0


# --------------------------------------------------------------------- set-level
def test_set_sizes_rules() -> None:
    rng = np.random.default_rng(0)
    for target in (0.0, 0.3, 0.5, 0.8, 1.0):
        a, b, m = _set_sizes(target, 20_000, 2, 5, rng)
        assert a.min() >= 2 and a.max() <= 5 and b.min() >= 2 and b.max() <= 5
        assert np.all(np.minimum(a, b) / np.maximum(a, b) >= target - 1e-12)  # size-gap rule
        assert np.all((m >= 0) & (m <= np.minimum(a, b)))
        m_star = np.minimum(target * (a + b) / (1 + target), np.minimum(a, b))
        assert np.all(np.abs(m - m_star) < 1)  # rounding down or up only
        assert m.mean() == pytest.approx(m_star.mean(), abs=0.02)  # random rounding: E[m] = m*
    a, b, m = _set_sizes(1.0, 100, 2, 5, rng)
    assert np.array_equal(a, b) and np.array_equal(m, a)


@pytest.mark.parametrize("condition", CONDITIONS)
def test_set_level_properties(hpo, sets, condition) -> None:
    for pop in sets[condition]:
        labels, concepts = _pairs(pop)
        jac = []
        for i in labels.index:
            la, lb = labels.loc[i, RATERS[0]], labels.loc[i, RATERS[1]]
            ca, cb = concepts.loc[i, RATERS[0]], concepts.loc[i, RATERS[1]]
            assert 2 <= len(ca) <= 5 and 2 <= len(cb) <= 5
            assert len(la) == len(ca) and len(lb) == len(cb)  # no two elements share a string
            assert min(len(ca), len(cb)) / max(len(ca), len(cb)) >= pop.target - 1e-12
            # shared concepts are written with different synonyms by the two raters
            shared = ca & cb
            for c in shared:
                fa = [s for s in la if s in hpo.terms(c)]
                fb = [s for s in lb if s in hpo.terms(c)]
                assert len(fa) == len(fb) == 1 and fa != fb
            # rater 2's other elements are negatives: not concepts or synonyms of rater 1's set
            forms_a = {s.casefold() for c in ca for s in hpo.terms(c)}
            for s in lb:
                if not any(s in hpo.terms(c) for c in shared):
                    assert s.casefold() not in forms_a
            jac.append(len(shared) / len(ca | cb))
        assert pop.truth["jaccard_observed"] == pytest.approx(np.mean(jac), abs=1e-12)
        assert pop.truth["jaccard_observed"] == pytest.approx(pop.target, abs=0.12)
        assert pop.truth["dice_observed"] >= pop.truth["jaccard_observed"] - 1e-12


def test_set_level_deterministic(hpo) -> None:
    a = set_level_populations(hpo, "siblings", 2, 15, seed=9)
    b = set_level_populations(hpo, "siblings", 2, 15, seed=9)
    for x, y in zip(a, b, strict=True):
        pd.testing.assert_frame_equal(x.frame, y.frame)
        assert x.truth == y.truth
