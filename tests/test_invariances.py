"""Registry-driven invariance tests (hypothesis): every coefficient, every property.

Each coefficient is registered once with what it supports; each property test runs over
the whole registry. Add a coefficient here and it is held to every property.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import softirr_stats as sis
from softirr_stats._coefficients import coefficient_function
from softirr_stats.agreement import (
    COEFFICIENTS,
    Coefficient,
    evaluate,
    point_estimate,
    register,
    resolve_similarity,
)

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning",
                                        "ignore::softirr_stats.DegenerateWarning")


@dataclass(frozen=True)
class Spec:
    fn: Any
    family: str
    two_raters: bool = False
    weights: bool = True
    similarity: bool = True


# made from the coefficient registry: a new coefficient is held to every property below
REGISTRY = {name: Spec(coefficient_function(c), c.family.name, two_raters=c.raters == "two", weights=c.weights,
                       similarity=c.similarity)
            for name, c in COEFFICIENTS.items()}

# Every statistic of the package, classified by the properties it has (scikit-learn's
# "every metric is listed" habit). A statistic missing here fails test_every_statistic_is_classified.
PROPERTIES = ("item_order", "rater_order", "relabelling", "perfect_is_one", "soft_exact_is_hard", "unit_weights",
              "vmap_equals_loop", "multinomial_equals_resampling")
CLASSIFIED = {
    **{name: set(PROPERTIES) for name in ("percent_agreement", "cohen_kappa", "scott_pi", "fleiss_kappa",
                                           "conger_kappa", "light_kappa", "krippendorff_alpha", "gwet_ac1",
                                           "brennan_prediger")},
    # the statistics outside the registry: item order, rater order and relabelling, tested below
    "multilabel_agreement": {"item_order", "rater_order", "relabelling"},
    "cross_kappa": {"item_order", "rater_order", "relabelling"},
    "distance_agreement": {"item_order", "rater_order", "relabelling", "unit_weights", "vmap_equals_loop",
                           "multinomial_equals_resampling"},
}
OTHER_STATISTICS = ("multilabel_agreement", "cross_kappa", "distance_agreement")
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
    # no pairable item drawn: the coefficient is undefined both ways
    assume(sum(sum(v is not None for v in row) >= 2 for row in resampled) > 0)
    # the category set stays the original one (q of AC1/BP is a property of the design)
    direct = REGISTRY[name].fn(sis.Annotations.from_wide(resampled, categories=ann.vocabulary)).value
    assert _close(evaluate(prep, counts)["value"][0], direct)


@given(data=st.data())
def test_cohen_swap_raters_and_conger_equals_cohen(data):
    cells = data.draw(tables(two_raters=True))
    assert _close(_value("cohen_kappa", cells), _value("conger_kappa", cells))
    assert _close(_value("scott_pi", cells), _value("fleiss_kappa", cells))
    complete = [row for row in cells if None not in row]  # Light uses each pair's common items only
    if len({v for row in complete for v in row}) > 1:
        assert _close(_value("cohen_kappa", complete), _value("light_kappa", complete))


def test_every_statistic_is_classified():
    public = set(COEFFICIENTS) | set(OTHER_STATISTICS)
    missing = sorted(public - set(CLASSIFIED))
    assert not missing, f"classify these statistics in CLASSIFIED (tests/test_invariances.py): {missing}"
    for name, props in CLASSIFIED.items():
        assert props <= set(PROPERTIES), name


def _other_value(name: str, cells: Any) -> float:
    if name == "multilabel_agreement":
        sets = [[None if v is None else frozenset({v, "shared"} if v in LABELS[:2] else {v}) for v in row]
                for row in cells]
        return sis.multilabel_agreement(sis.Annotations.from_wide(sets)).value
    if name == "cross_kappa":
        ann = sis.Annotations.from_wide(cells)
        half = max(1, ann.n_raters // 2)
        x = [row[:half] + [None] for row in cells] if half == 1 else [row[:half] for row in cells]
        y = [row[half:] + [None] if len(row[half:]) == 1 else row[half:] for row in cells]
        return sis.cross_kappa(sis.Annotations.from_wide(x), sis.Annotations.from_wide(y)).value
    return sis.distance_agreement(sis.Annotations.from_wide(cells)).value


@pytest.mark.parametrize("name", OTHER_STATISTICS)
@given(data=st.data())
def test_other_statistics_invariant_to_item_order_and_relabelling(name, data):
    cells = data.draw(tables())
    perm = data.draw(st.permutations(range(len(cells))))
    mapping = dict(zip(LABELS, data.draw(st.permutations(LABELS)), strict=True))
    relabelled = [[None if v is None else mapping[v] for v in row] for row in cells]
    base = _other_value(name, cells)
    assert _close(base, _other_value(name, [cells[i] for i in perm]))
    if name != "multilabel_agreement":  # multi-label sets are built from the label names above
        assert _close(base, _other_value(name, relabelled))


@pytest.mark.parametrize("name", ["multilabel_agreement", "distance_agreement"])
@given(data=st.data())
def test_other_statistics_invariant_to_rater_order(name, data):
    cells = data.draw(tables())
    perm = data.draw(st.permutations(range(len(cells[0]))))
    assert _close(_other_value(name, cells), _other_value(name, [[row[j] for j in perm] for row in cells]))


def _distance_statistic(cells: Any):
    from softirr_stats.agreement._distance import distance_statistic

    ann = sis.Annotations.from_wide(cells)
    return ann, distance_statistic(ann, resolve_similarity(ann))


# the statistics outside the registry that implement the weights protocol, by how to prepare them
PREPARED_OTHER = {"distance_agreement": _distance_statistic}


@pytest.mark.parametrize("name", sorted(n for n in PREPARED_OTHER if "unit_weights" in CLASSIFIED[n]))
@given(data=st.data())
def test_other_statistics_unit_weights_equal_point_estimate(name, data):
    cells = data.draw(tables())
    ann, stat = PREPARED_OTHER[name](cells)
    out = stat.evaluate(np.ones((3, ann.n_items)), np.ones((3, ann.n_raters)))["value"]
    assert all(_close(v, _other_value(name, cells)) for v in out)


@pytest.mark.parametrize("name", sorted(n for n in PREPARED_OTHER if "vmap_equals_loop" in CLASSIFIED[n]))
@given(data=st.data())
def test_other_statistics_batch_equals_one_at_a_time(name, data):
    cells = data.draw(tables())
    ann, stat = PREPARED_OTHER[name](cells)
    rng = np.random.default_rng(data.draw(st.integers(0, 100)))
    C = rng.multinomial(ann.n_items, np.ones(ann.n_items) / ann.n_items, size=4).astype(float)
    V = rng.multinomial(ann.n_raters, np.ones(ann.n_raters) / ann.n_raters, size=4).astype(float)
    batch = stat.evaluate(C, V)["value"]
    single = [stat.evaluate(C[b], V[b])["value"][0] for b in range(4)]
    assert all(_close(a, b) for a, b in zip(batch, single, strict=True))


@pytest.mark.parametrize("name", sorted(n for n in PREPARED_OTHER if "multinomial_equals_resampling" in CLASSIFIED[n]))
@given(data=st.data())
def test_other_statistics_multinomial_weights_equal_index_resampling(name, data):
    cells = data.draw(tables())
    ann, stat = PREPARED_OTHER[name](cells)
    idx = data.draw(st.lists(st.integers(0, len(cells) - 1), min_size=len(cells), max_size=len(cells)))
    resampled = [cells[i] for i in idx]
    assume(sum(sum(v is not None for v in row) >= 2 for row in resampled) > 0)
    assume(sum(any(v is not None for v in row) for row in resampled) >= 2)  # cross-item pairs exist
    counts = np.bincount(idx, minlength=len(cells)).astype(float)
    assert _close(stat.evaluate(counts)["value"][0], _other_value(name, resampled))


def test_a_toy_coefficient_is_one_record():
    """Adding a coefficient is one record: the public function, sensitivity and the CLI follow."""
    toy = Coefficient("toy_agreement", "percent", "Percent agreement under another name.", chance=False,
                      default_rank=None)
    cells = [["a", "a"], ["a", "b"], ["b", "b"], ["c", "c"]]
    with register(toy):
        fn = coefficient_function("toy_agreement")
        assert fn(cells).value == sis.percent_agreement(cells).value == 0.75
        assert fn(cells, ci="analytic").se == pytest.approx(sis.percent_agreement(cells, ci="analytic").se)
        table = sis.sensitivity(cells, coefficients=["toy_agreement"], similarities=[None, "levenshtein"])
        assert list(table["coefficient"]) == ["toy_agreement"] * 2
        assert "toy_agreement" in sis.agreement.coefficient_table()[-1]["coefficient"]
    assert "toy_agreement" not in COEFFICIENTS
