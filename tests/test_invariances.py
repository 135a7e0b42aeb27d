"""Registry-driven invariance tests (hypothesis): every coefficient, every property.

Each coefficient is registered once with what it supports; each property test runs over
the whole registry. Add a coefficient here and it is held to every property.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import softirr_stats as sis
from softirr_stats.agreement import evaluate, point_estimate, resolve_similarity

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning",
                                        "ignore::softirr_stats.DegenerateWarning")


@dataclass(frozen=True)
class Spec:
    fn: Any
    family: str
    two_raters: bool = False
    weights: bool = True
    similarity: bool = True


REGISTRY = {
    "percent_agreement": Spec(sis.percent_agreement, "percent"),
    "cohen_kappa": Spec(sis.cohen_kappa, "per_rater", two_raters=True),
    "scott_pi": Spec(sis.scott_pi, "pooled", two_raters=True),
    "fleiss_kappa": Spec(sis.fleiss_kappa, "pooled"),
    "conger_kappa": Spec(sis.conger_kappa, "per_rater"),
    "light_kappa": Spec(sis.light_kappa, "light"),
    "krippendorff_alpha": Spec(sis.krippendorff_alpha, "alpha", weights=False),
    "gwet_ac1": Spec(sis.gwet_ac1, "ac1"),
    "brennan_prediger": Spec(sis.brennan_prediger, "bp"),
}
NAMES = sorted(REGISTRY)
LABELS = ["fatigue", "asthenia", "fever", "cough", "rash"]


@st.composite
def tables(draw, two_raters: bool = False, min_items: int = 4):
    """Wide tables of text labels with missing cells; at least two pairable items."""
    n = draw(st.integers(min_items, 12))
    r = 2 if two_raters else draw(st.integers(2, 4))
    k = draw(st.integers(2, len(LABELS)))
    cells = draw(st.lists(st.lists(st.one_of(st.none(), st.sampled_from(LABELS[:k])), min_size=r, max_size=r),
                          min_size=n, max_size=n))
    for row in cells[:2]:  # two complete items, so observed agreement exists
        for j in range(r):
            if row[j] is None:
                row[j] = LABELS[j % k]
    return cells


def _value(name: str, cells: Any, **kw: Any) -> float:
    return REGISTRY[name].fn(sis.Annotations.from_wide(cells), **kw).value


def _close(a: float, b: float) -> bool:
    return (np.isnan(a) and np.isnan(b)) or abs(a - b) <= 1e-10


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_invariant_to_item_order(name, data):
    cells = data.draw(tables(REGISTRY[name].two_raters))
    perm = data.draw(st.permutations(range(len(cells))))
    assert _close(_value(name, cells), _value(name, [cells[i] for i in perm]))


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_invariant_to_rater_order(name, data):
    cells = data.draw(tables(REGISTRY[name].two_raters))
    perm = data.draw(st.permutations(range(len(cells[0]))))
    assert _close(_value(name, cells), _value(name, [[row[j] for j in perm] for row in cells]))


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_invariant_to_label_relabelling(name, data):
    cells = data.draw(tables(REGISTRY[name].two_raters))
    perm = data.draw(st.permutations(LABELS))
    mapping = dict(zip(LABELS, perm, strict=True))
    relabelled = [[None if v is None else mapping[v].upper() for v in row] for row in cells]
    assert _close(_value(name, cells), _value(name, relabelled))


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_perfect_agreement_gives_one(name, data):
    n = data.draw(st.integers(3, 10))
    r = 2 if REGISTRY[name].two_raters else data.draw(st.integers(2, 4))
    labels = data.draw(st.lists(st.sampled_from(LABELS), min_size=n, max_size=n).filter(lambda x: len(set(x)) > 1))
    cells = [[lab] * r for lab in labels]
    assert _value(name, cells) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_soft_with_exact_callable_equals_hard(name, data):
    cells = data.draw(tables(REGISTRY[name].two_raters))

    def exact(a, b):
        return np.array([float(x == y) for x, y in zip(a, b, strict=True)])

    assert _close(_value(name, cells), _value(name, cells, similarity=exact))


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_unit_weights_equal_point_estimate(name, data):
    cells = data.draw(tables(REGISTRY[name].two_raters))
    ann = sis.Annotations.from_wide(cells)
    res, prep = point_estimate(ann, family=REGISTRY[name].family, coefficient=name, sim=resolve_similarity(ann))
    out = evaluate(prep, np.ones((3, ann.n_items)), np.ones((3, ann.n_raters)))["value"]
    assert all(_close(v, res.value) for v in out)


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_vmapped_batch_equals_one_at_a_time(name, data):
    cells = data.draw(tables(REGISTRY[name].two_raters))
    ann = sis.Annotations.from_wide(cells)
    _, prep = point_estimate(ann, family=REGISTRY[name].family, coefficient=name, sim=resolve_similarity(ann))
    rng = np.random.default_rng(data.draw(st.integers(0, 100)))
    C = rng.multinomial(ann.n_items, np.ones(ann.n_items) / ann.n_items, size=4).astype(float)
    batch = evaluate(prep, C)["value"]
    single = [evaluate(prep, C[b])["value"][0] for b in range(4)]
    assert all(_close(a, b) for a, b in zip(batch, single, strict=True))


@pytest.mark.parametrize("name", NAMES)
@given(data=st.data())
def test_multinomial_weights_equal_index_resampling(name, data):
    """Item weights = how often an item is drawn: identical to duplicating items."""
    cells = data.draw(tables(REGISTRY[name].two_raters))
    ann = sis.Annotations.from_wide(cells)
    _, prep = point_estimate(ann, family=REGISTRY[name].family, coefficient=name, sim=resolve_similarity(ann))
    idx = data.draw(st.lists(st.integers(0, len(cells) - 1), min_size=len(cells), max_size=len(cells)))
    counts = np.bincount(idx, minlength=len(cells)).astype(float)
    resampled = [cells[i] for i in idx]
    if sum(sum(v is not None for v in row) >= 2 for row in resampled) == 0:
        return  # no pairable item drawn: the coefficient is undefined both ways
    try:  # the category set stays the original one (q of AC1/BP is a property of the design)
        direct = REGISTRY[name].fn(sis.Annotations.from_wide(resampled, categories=ann.vocabulary)).value
    except ValueError:
        return
    assert _close(evaluate(prep, counts)["value"][0], direct)


@given(data=st.data())
def test_cohen_swap_raters_and_conger_equals_cohen(data):
    cells = data.draw(tables(two_raters=True))
    assert _close(_value("cohen_kappa", cells), _value("conger_kappa", cells))
    assert _close(_value("scott_pi", cells), _value("fleiss_kappa", cells))
    complete = [row for row in cells if None not in row]  # Light uses each pair's common items only
    if len({v for row in complete for v in row}) > 1:
        assert _close(_value("cohen_kappa", complete), _value("light_kappa", complete))
