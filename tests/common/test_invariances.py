"""Registry-driven invariance tests (hypothesis): every statistic, every property it claims.

Each statistic's record (``softirr_stats.agreement._registry``: the coefficients and the other
public statistics) claims a set of :data:`INVARIANCES`; each property test runs over the
statistics that claim it, and ``test_every_claim_has_a_test`` fails when a record claims a
property that no test here checks. Add a coefficient and it is held to every property.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import softirr_stats as sis
from softirr_stats.agreement import (
    COEFFICIENTS,
    Coefficient,
    evaluate,
    point_estimate,
    register,
    resolve_similarity,
)
from softirr_stats.agreement._registry import (
    INVARIANCES,
    STATISTICS,
    public_exports,
    statistic_records,
)
from softirr_stats.api._coefficients import coefficient_function

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

# Every public statistic, classified by the properties its record claims (scikit-learn's
# "every metric is listed" habit, kept in the registry itself).
PROPERTIES = tuple(INVARIANCES)
CLASSIFIED = {name: set(rec.invariances) for name, rec in statistic_records().items()}
OTHER_STATISTICS = tuple(STATISTICS)

# (statistic, property) pairs that a test below checks; filled by ``claims`` at collection
COVERED: set[tuple[str, str]] = set()


def claims(prop: str, names: Any) -> Any:
    """Parametrize a property test over the statistics in ``names`` whose record claims ``prop``."""
    assert prop in INVARIANCES, prop
    chosen = sorted(n for n in names if prop in CLASSIFIED[n])
    COVERED.update((n, prop) for n in chosen)
    return pytest.mark.parametrize("name", chosen)


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


@claims("item_order", NAMES)
@given(data=st.data())
def test_invariant_to_item_order(name, data):
    cells = data.draw(tables(REGISTRY[name].two_raters))
    perm = data.draw(st.permutations(range(len(cells))))
    assert _close(_value(name, cells), _value(name, [cells[i] for i in perm]))


@claims("rater_order", NAMES)
@given(data=st.data())
def test_invariant_to_rater_order(name, data):
    cells = data.draw(tables(REGISTRY[name].two_raters))
    perm = data.draw(st.permutations(range(len(cells[0]))))
    assert _close(_value(name, cells), _value(name, [[row[j] for j in perm] for row in cells]))


@claims("relabelling", NAMES)
@given(data=st.data())
def test_invariant_to_label_relabelling(name, data):
    cells = data.draw(tables(REGISTRY[name].two_raters))
    perm = data.draw(st.permutations(LABELS))
    mapping = dict(zip(LABELS, perm, strict=True))
    relabelled = [[None if v is None else mapping[v].upper() for v in row] for row in cells]
    assert _close(_value(name, cells), _value(name, relabelled))


@claims("perfect_is_one", NAMES)
@given(data=st.data())
def test_perfect_agreement_gives_one(name, data):
    n = data.draw(st.integers(3, 10))
    r = 2 if REGISTRY[name].two_raters else data.draw(st.integers(2, 4))
    labels = data.draw(st.lists(st.sampled_from(LABELS), min_size=n, max_size=n).filter(lambda x: len(set(x)) > 1))
    cells = [[lab] * r for lab in labels]
    assert _value(name, cells) == pytest.approx(1.0, abs=1e-12)


@claims("soft_exact_is_hard", NAMES)
@given(data=st.data())
def test_soft_with_exact_callable_equals_hard(name, data):
    cells = data.draw(tables(REGISTRY[name].two_raters))

    def exact(a, b):
        return np.array([float(x == y) for x, y in zip(a, b, strict=True)])

    assert _close(_value(name, cells), _value(name, cells, similarity=exact))


@claims("unit_weights", NAMES)
@given(data=st.data())
def test_unit_weights_equal_point_estimate(name, data):
    cells = data.draw(tables(REGISTRY[name].two_raters))
    ann = sis.Annotations.from_wide(cells)
    res, prep = point_estimate(ann, family=REGISTRY[name].family, coefficient=name, sim=resolve_similarity(ann))
    out = evaluate(prep, np.ones((3, ann.n_items)), np.ones((3, ann.n_raters)))["value"]
    assert all(_close(v, res.value) for v in out)


@claims("vmap_equals_loop", NAMES)
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


@claims("multinomial_equals_resampling", NAMES)
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


#: Statistics whose inputs are not item x rater tables: their invariances are tested beside them.
TESTED_ELSEWHERE = {
    "span_agreement": "tests/agreement/test_span_agreement.py: annotator swap and renaming (spans per document, not tables)",
    **{name: "tests/peers/test_scores.py: item / rater order, weights, batches, resampling (numeric scores)"
       for name in ("icc", "lin_ccc", "kendall_w")},
}


def test_every_statistic_is_classified():
    """Every public statistic has a record, and every record claims known properties."""
    exported = {n for names in public_exports().values() for n in names}
    assert exported == set(CLASSIFIED) == set(COEFFICIENTS) | set(OTHER_STATISTICS)
    for name, props in CLASSIFIED.items():
        assert props or name in TESTED_ELSEWHERE, f"{name} claims no invariance"
        assert props <= set(PROPERTIES), name


def test_every_claim_has_a_test():
    """A property a record claims is checked by a test of this file (and nothing unclaimed is)."""
    claimed = {(name, p) for name, props in CLASSIFIED.items() for p in props}
    assert sorted(claimed - COVERED) == [], "claimed invariances without a test in tests/common/test_invariances.py"
    assert COVERED <= claimed


def _other_value(name: str, cells: Any) -> float:
    if name == "multilabel_agreement":
        sets = [[None if v is None else frozenset({v, "shared"} if v in LABELS[:2] else {v}) for v in row]
                for row in cells]
        return sis.multilabel_agreement(sis.Annotations.from_wide(sets)).value
    if name == "cross_kappa":
        half = max(1, sis.Annotations.from_wide(cells).n_raters // 2)
        # a replication of one rater as a one-column table (it was padded with an empty column, which is no rater)
        return sis.cross_kappa([row[:half] for row in cells], [row[half:] for row in cells]).value
    return sis.distance_agreement(sis.Annotations.from_wide(cells)).value


@claims("item_order", OTHER_STATISTICS)
@given(data=st.data())
def test_other_statistics_invariant_to_item_order(name, data):
    cells = data.draw(tables())
    perm = data.draw(st.permutations(range(len(cells))))
    assert _close(_other_value(name, cells), _other_value(name, [cells[i] for i in perm]))


@claims("relabelling", [n for n in OTHER_STATISTICS if n != "multilabel_agreement"])
@given(data=st.data())
def test_other_statistics_invariant_to_relabelling(name, data):
    cells = data.draw(tables())
    mapping = dict(zip(LABELS, data.draw(st.permutations(LABELS)), strict=True))
    relabelled = [[None if v is None else mapping[v].upper() for v in row] for row in cells]
    assert _close(_other_value(name, cells), _other_value(name, relabelled))


@claims("rater_order", [n for n in OTHER_STATISTICS if n != "cross_kappa"])
@given(data=st.data())
def test_other_statistics_invariant_to_rater_order(name, data):
    cells = data.draw(tables())
    perm = data.draw(st.permutations(range(len(cells[0]))))
    assert _close(_other_value(name, cells), _other_value(name, [[row[j] for j in perm] for row in cells]))


# multi-label: the label universe is a set of columns; relabelling = permuting (and renaming) them


@st.composite
def multilabel_arrays(draw):
    """0/1 arrays (items, raters, labels) with some missing ratings, two complete items first."""
    n, r, k = draw(st.integers(3, 10)), draw(st.integers(2, 4)), draw(st.integers(2, 5))
    x = np.array(draw(st.lists(st.integers(0, 1), min_size=n * r * k, max_size=n * r * k)), dtype=float)
    x = x.reshape(n, r, k)
    missing = np.array(draw(st.lists(st.booleans(), min_size=n * r, max_size=n * r))).reshape(n, r)
    missing[:2] = False
    x[missing] = np.nan
    return x


def _frame_close(a: Any, b: Any) -> bool:
    return all(_close(float(u), float(v)) for u, v in zip(np.ravel(a), np.ravel(b), strict=True))


@claims("relabelling", ["multilabel_agreement"])
@given(data=st.data())
def test_multilabel_invariant_to_label_relabelling(name, data):
    """Permuting (and renaming) the label columns leaves the value unchanged; by_label follows the labels."""
    x = data.draw(multilabel_arrays())
    k = x.shape[2]
    names = [f"label{j}" for j in range(k)]
    perm = data.draw(st.permutations(range(k)))
    renamed = {f"label{j}": f"L{(7 * j + 3) % 11}" for j in range(k)}  # one-to-one (7 is invertible mod 11)
    base = sis.multilabel_agreement(x, labels=names)
    moved = sis.multilabel_agreement(x[:, :, perm], labels=[renamed[names[j]] for j in perm])
    for attr in ("value", "observed", "expected", "floor"):
        assert _close(getattr(base, attr), getattr(moved, attr)), attr
    cols = ["prevalence", "observed", "expected", "coefficient", "weight", "floor_observed"]
    before = base.by_label.assign(label=base.by_label["label"].map(renamed)).set_index("label")[cols]
    after = moved.by_label.set_index("label")[cols]
    assert list(after.index) == [renamed[names[j]] for j in perm]  # by_label is in the given label order
    assert _frame_close(before.loc[after.index].to_numpy(), after.to_numpy())
    assert _frame_close(base.by_item["hamming_agreement"], moved.by_item["hamming_agreement"])


# cross-replication kappa: raters are permuted within a replication; the replications may swap


@st.composite
def replications(draw):
    """Two replications (X, Y) of the same items, 2-3 raters each; two complete items in each."""
    x, y = draw(tables(min_items=4)), None
    n = len(x)
    r_y, k = draw(st.integers(2, 3)), draw(st.integers(2, len(LABELS)))
    y = draw(st.lists(st.lists(st.one_of(st.none(), st.sampled_from(LABELS[:k])), min_size=r_y, max_size=r_y),
                      min_size=n, max_size=n))
    for row in y[:2]:
        for j in range(r_y):
            if row[j] is None:
                row[j] = LABELS[j % k]
    return x, y


def _xrr(x: Any, y: Any) -> Any:
    return sis.cross_kappa(sis.Annotations.from_wide(x), sis.Annotations.from_wide(y))


@claims("rater_order", ["cross_kappa"])
@given(data=st.data())
def test_cross_kappa_invariant_to_rater_order_within_each_replication(name, data):
    x, y = data.draw(replications())
    px = data.draw(st.permutations(range(len(x[0]))))
    py = data.draw(st.permutations(range(len(y[0]))))
    base = _xrr(x, y)
    moved = _xrr([[row[j] for j in px] for row in x], [[row[j] for j in py] for row in y])
    for attr in ("value", "normalized", "irr_x", "irr_y", "observed", "expected"):
        assert _close(getattr(base, attr), getattr(moved, attr)), attr


@claims("replication_order", ["cross_kappa"])
@given(data=st.data())
def test_cross_kappa_invariant_to_swapping_the_replications(name, data):
    """kappa_x = 1 - d_o / d_e: d_o and d_e are means over (X rating, Y rating) pairs with a symmetric
    distance and item weight R_x,i + R_y,i (Wong et al. 2021, eqs. 9-11), so swapping X and Y leaves
    kappa_x and the normalised kappa unchanged and swaps IRR_X with IRR_Y."""
    x, y = data.draw(replications())
    weights = data.draw(st.sampled_from(["ratings", "equal"]))
    ax, ay = sis.Annotations.from_wide(x), sis.Annotations.from_wide(y)
    xy = sis.cross_kappa(ax, ay, item_weights=weights)
    yx = sis.cross_kappa(ay, ax, item_weights=weights)
    assert _close(xy.value, yx.value) and _close(xy.normalized, yx.normalized)
    assert _close(xy.irr_x, yx.irr_y) and _close(xy.irr_y, yx.irr_x)


def _distance_statistic(cells: Any):
    from softirr_stats.agreement._distance import distance_statistic

    ann = sis.Annotations.from_wide(cells)
    return ann, distance_statistic(ann, resolve_similarity(ann))


# the statistics outside the registry that implement the weights protocol, by how to prepare them
PREPARED_OTHER = {"distance_agreement": _distance_statistic}


@claims("unit_weights", PREPARED_OTHER)
@given(data=st.data())
def test_other_statistics_unit_weights_equal_point_estimate(name, data):
    cells = data.draw(tables())
    ann, stat = PREPARED_OTHER[name](cells)
    out = stat.evaluate(np.ones((3, ann.n_items)), np.ones((3, ann.n_raters)))["value"]
    assert all(_close(v, _other_value(name, cells)) for v in out)


@claims("vmap_equals_loop", PREPARED_OTHER)
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


@claims("multinomial_equals_resampling", PREPARED_OTHER)
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
    """Adding a coefficient is one record: the public function, sensitivity, the registry's exports,
    its invariance claims and the docs table follow. (A permanent ``sis.<name>`` also needs its name
    in ``softirr_stats._EXPORTS`` and a line in ``_coefficients.py`` for static tools:
    test_api_surface's export tests fail until both agree with the registry, as shown below.)"""
    import softirr_stats.api._coefficients as coefficients
    from softirr_stats.agreement._registry import coefficient_table_markdown

    toy = Coefficient("toy_agreement", "percent", "Percent agreement under another name.", chance=False,
                      default_rank=None)
    cells = [["a", "a"], ["a", "b"], ["b", "b"], ["c", "c"]]
    with register(toy):
        fn = coefficient_function("toy_agreement")
        assert fn(cells).value == sis.percent_agreement(cells).value == 0.75
        assert fn(cells, ci="analytic").se == pytest.approx(sis.percent_agreement(cells, ci="analytic").se)
        # the generated public function of the api module, as `from ... import` sees it
        from softirr_stats.api._coefficients import toy_agreement

        assert toy_agreement.__name__ == "toy_agreement" and toy_agreement(cells).value == 0.75
        assert coefficients.public_function("toy_agreement")(cells).value == 0.75
        table = sis.sensitivity(cells, coefficients=["toy_agreement"], similarities=[None, "levenshtein"])
        assert list(table["coefficient"]) == ["toy_agreement"] * 2
        assert "toy_agreement" in sis.agreement.coefficient_table()[-1]["coefficient"]
        assert "| `toy_agreement` |" in coefficient_table_markdown()
        # it claims the coefficient invariances by default ...
        assert statistic_records()["toy_agreement"].invariances == COEFFICIENTS["percent_agreement"].invariances
        # ... and the export guard sees it: the registry's exports differ from sis._EXPORTS by exactly the toy
        registered = set(public_exports()["softirr_stats.api._coefficients"])
        assert registered - set(sis._EXPORTS["softirr_stats.api._coefficients"]) == {"toy_agreement"}
    assert "toy_agreement" not in COEFFICIENTS
    assert not hasattr(coefficients, "toy_agreement")
