"""Per-item pair sums from label counts (no within-item pair list) equal the pair-list route.

With unit rater weights the matrix-product path of the engine needs, per item, only the sum of
within-item pair similarities and the number of pairs; ``Prepared.item_pair_sums`` computes them
from the per-item label counts ``N`` as ``(N_i^T S N_i - sum_k N_ik S_kk) / 2`` wherever S over
the support is known. These tests pin that route to the pair list, with missing ratings, for
every family that has matrix-product features, and pin that point estimates do not build the
pair list at all.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import softirr_stats as sis
from softirr_stats.agreement import _evaluator, evaluate, prepare, resolve_similarity
from softirr_stats.agreement._families import FAMILIES
from softirr_stats.agreement._layout import rating_layout
from softirr_stats.equivalence import Levenshtein

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning",
                                        "ignore::softirr_stats.DegenerateWarning")

FEATURE_FAMILIES = sorted(name for name, fam in FAMILIES.items() if fam.features is not None)
LABELS = ["fatigue", "fatigued", "fever", "fevers", "cough", "rash"]


def _numeric(seed: int, n: int = 150, r: int = 5, k: int = 6, missing: float = 0.25) -> sis.Annotations:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    x = np.where(rng.random((n, r)) < 0.5, truth[:, None], rng.integers(0, k, (n, r))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[0, :2] = (0.0, 1.0)  # at least one pairable item
    return sis.Annotations.from_wide(x)


def _similarity(ann: sis.Annotations, kind: str):
    if kind == "identity":
        return resolve_similarity(ann)
    if kind == "quadratic":
        return resolve_similarity(ann, weights="quadratic")
    return resolve_similarity(ann, similarity=Levenshtein())


def _pair_list_sums(prep) -> np.ndarray:
    kd = prep.kd
    return np.bincount(np.asarray(kd.pair_item, dtype=np.int64), weights=np.asarray(kd.pair_s), minlength=prep.n)


def _by_pair_list(prep, monkeypatch, C=None) -> dict[str, np.ndarray]:
    """The same evaluation with the count route switched off (fresh caches)."""
    monkeypatch.setattr(_evaluator, "count_route", lambda *a: False)
    for key in [k for k in prep.__dict__ if k.startswith(("_gemm", "_item_pair_sums"))]:
        prep.__dict__.pop(key)
    try:
        return evaluate(prep, C)
    finally:
        monkeypatch.undo()


@pytest.mark.parametrize("family", FEATURE_FAMILIES)
@pytest.mark.parametrize("kind", ["identity", "quadratic", "levenshtein"])
def test_count_route_equals_pair_list(family, kind, monkeypatch):
    """Point estimate and a batch of item weights: count route == pair list, with 25% missing."""
    x = _numeric(3)
    if kind == "levenshtein":  # a scored similarity: the count route needs a dense chance operator
        x = sis.Annotations.from_wide(np.where(x.codes >= 0, np.asarray(LABELS, dtype=object)[x.codes.clip(0)], None))
    sim = _similarity(x, kind)
    prep = prepare(x, family, sim)
    uses_counts = prep.similarity_known
    total, count = prep.item_pair_sums()
    r = prep.layout.r_i
    np.testing.assert_array_equal(count, r * (r - 1) / 2)
    C = np.random.default_rng(1).multinomial(prep.n, np.ones(prep.n) / prep.n, size=7).astype(float)
    point, batch = evaluate(prep), evaluate(prep, C)
    assert prep.layout.pairs_built is not uses_counts
    np.testing.assert_allclose(total, _pair_list_sums(prep), rtol=0, atol=1e-12)
    slow_point = _by_pair_list(prep, monkeypatch)
    slow_batch = _by_pair_list(prep, monkeypatch, C)
    for key in ("value", "pa", "pe"):
        np.testing.assert_allclose(point[key], slow_point[key], rtol=0, atol=1e-12)
        np.testing.assert_allclose(batch[key], slow_batch[key], rtol=0, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(cells=st.lists(st.lists(st.one_of(st.none(), st.sampled_from(LABELS[:4])), min_size=3, max_size=3),
                      min_size=3, max_size=10),
       family=st.sampled_from(FEATURE_FAMILIES), weighted=st.booleans())
def test_count_route_equals_pair_list_hypothesis(cells, family, weighted):
    """Any table with missing cells: per-item pair sums and the coefficient match the pair list."""
    cells[0] = ["fatigue", "fever", "fever"]  # one complete item: observed agreement exists
    ann = sis.Annotations.from_wide(cells)
    k = len(ann.vocabulary)
    m = np.eye(k)
    if weighted:
        rng = np.random.default_rng(k)
        a = rng.random((k, k))
        m = np.clip((a + a.T) / 2, 0, 1)
        np.fill_diagonal(m, 1.0)
    sim = resolve_similarity(ann, similarity=m)
    prep = prepare(ann, family, sim)
    value = evaluate(prep)["value"]
    total, _ = prep.item_pair_sums()
    np.testing.assert_allclose(total, _pair_list_sums(prep), rtol=0, atol=1e-12)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_evaluator, "_gemm_features", lambda prep: None)  # the vmapped segment kernels (pair list)
        np.testing.assert_allclose(value, evaluate(prep)["value"], rtol=0, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("fn, kw", [
    (sis.krippendorff_alpha, {}),
    (sis.krippendorff_alpha, {"level": "interval"}),
    (sis.fleiss_kappa, {}),
    (sis.fleiss_kappa, {"weights": "quadratic"}),
    (sis.conger_kappa, {}),
    (sis.gwet_ac1, {}),
    (sis.brennan_prediger, {}),
    (sis.percent_agreement, {}),
    (sis.light_kappa, {}),
    (sis.light_kappa, {"weights": "linear"}),
])
def test_point_estimate_builds_no_pair_list(fn, kw):
    """A point estimate leaves the pair list unbuilt; where it reads only label counts (Scott /
    Fleiss and nominal alpha: no per-rater features) the rating list too."""
    ann = _numeric(5)
    res = fn(ann, **kw)
    assert np.isfinite(res.value)
    d = rating_layout(ann)
    assert not d.pairs_built
    if fn in (sis.krippendorff_alpha, sis.fleiss_kappa) and not kw:
        assert not d.ratings_built
    assert res.details["n_within_item_pairs"] == d.n_pairs == int((d.r_i * (d.r_i - 1) // 2).sum())


@pytest.mark.parametrize("family", ["pooled", "light"])
def test_pair_list_built_where_needed(family):
    """Rater-weight batches still use the pair list (Light's kappa too)."""
    ann = _numeric(6)
    prep = prepare(ann, family, resolve_similarity(ann))
    evaluate(prep, V=np.ones((3, prep.nr)))
    assert prep.layout.pairs_built


@pytest.mark.parametrize("family", FEATURE_FAMILIES)
def test_numpy_and_jax_matrix_product_paths_agree(family, monkeypatch):
    """One finish-kernel source, two namespaces: a batch in NumPy equals the same batch in JAX."""
    ann = _numeric(8)
    prep = prepare(ann, family, resolve_similarity(ann, weights="quadratic"))
    C = np.random.default_rng(2).multinomial(prep.n, np.ones(prep.n) / prep.n, size=11).astype(float)
    in_numpy = evaluate(prep, C)
    assert not any(k.startswith("_gemm_F") for k in prep.__dict__)  # NumPy: block by block
    monkeypatch.setattr(_evaluator, "_NUMPY_MAX_MADDS", 0)
    monkeypatch.setattr(_evaluator, "LARGE_BATCH_ROUTE", "device")  # JAX's dense product, as on a GPU
    in_jax = evaluate(prep, C)
    assert "_gemm_F_jax.numpy" in prep.__dict__
    for key in ("value", "pa", "pe"):  # relative too: ordinal alpha's unscaled metric makes pe ~ -4e4
        np.testing.assert_allclose(in_numpy[key], in_jax[key], rtol=1e-14, atol=1e-12)


def test_large_vocabulary_cohen_stays_on_the_matrix_product_path():
    """Per-rater label counts are a sparse indicator block: 2,000 labels need no dense n x R x K table."""
    rng = np.random.default_rng(0)
    k = 2000
    a = np.concatenate([np.arange(k), rng.integers(0, k, k)])
    b = np.where(rng.random(2 * k) < 0.5, a, rng.permutation(a))
    ann = sis.Annotations(np.stack([a, b], axis=1).astype(np.int32), [f"l{i}" for i in range(k)])
    prep = prepare(ann, "per_rater", resolve_similarity(ann))
    fast = evaluate(prep)["value"]
    assert "_gemm" in prep.__dict__ and not prep.layout.pairs_built
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_evaluator, "_gemm_features", lambda prep: None)
        np.testing.assert_allclose(fast, evaluate(prep)["value"], rtol=0, atol=1e-12)


def _segment_kernels(prep, C=None, V=None) -> dict[str, np.ndarray]:
    """The same evaluation on the vmapped segment kernels over the within-item pair list."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_evaluator, "_gemm_features", lambda prep: None)
        return evaluate(prep, C, V)


@pytest.mark.parametrize("seed", [0, 1])
def test_ordinal_alpha_from_label_counts_equals_pair_list(seed):
    """Ordinal alpha from per-item label counts (coincidence matrix, no pair list): point estimate,
    a batch of bootstrap item weights and the leave-one-out values equal the pair-list kernels to
    1e-12, with 25% of the ratings missing, and the point estimate equals the krippendorff package."""
    krippendorff = pytest.importorskip("krippendorff")
    ann = _numeric(seed, n=120, r=6, k=5)
    prep = prepare(ann, "alpha_ordinal", resolve_similarity(ann))
    C = np.random.default_rng(seed).multinomial(prep.n, np.ones(prep.n) / prep.n, size=9).astype(float)
    point, batch, loo = evaluate(prep), evaluate(prep, C), prep.leave_units_out()
    assert not prep.layout.pairs_built
    data = np.where(ann.codes >= 0, ann.codes, np.nan).T.astype(float)
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")
    np.testing.assert_allclose(point["value"], ref, rtol=0, atol=1e-12)
    for fast, C_ in ((point, None), (batch, C), (loo, 1.0 - np.eye(prep.n))):
        slow = _segment_kernels(prep, C_)
        for key in ("value", "pa", "pe"):
            np.testing.assert_allclose(fast[key], slow[key], rtol=1e-13, atol=1e-12)


def test_ordinal_alpha_with_many_distinct_values_keeps_the_pair_list():
    """Scores with decimals: a replicate's ks x ks coincidence block (here 300**2) would be far
    larger than the within-item pairs (1,000), so ordinal alpha keeps the pair list (the count
    route took 13.6 GB for B = 200 on 1,000 items x 5 raters with 760 values)."""
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(5)
    x = np.round(rng.normal(50, 15, 100)[:, None] + rng.normal(0, 5, (100, 5)), 1)
    ann = sis.Annotations.from_wide(x)
    assert len(ann.vocabulary) > 300
    prep = prepare(ann, "alpha_ordinal", resolve_similarity(ann))
    point = evaluate(prep)
    assert prep.layout.pairs_built
    ref = krippendorff.alpha(reliability_data=x.T, level_of_measurement="ordinal")
    np.testing.assert_allclose(point["value"], ref, rtol=0, atol=1e-12)


def _light_case(case: str):
    """Light's kappa data and similarity: missing ratings (identity, linear weights), set-valued
    labels under Jaccard (a scored soft similarity), rater pairs with no shared item, a degenerate pair."""
    if case in ("missing", "linear"):
        ann = _numeric(4, n=90, r=6, k=5)
        return ann, resolve_similarity(ann, weights="linear" if case == "linear" else None)
    rng = np.random.default_rng(7)
    if case == "jaccard":
        sets = np.asarray(["fever", "cough", "fever cough", "rash", "rash fever", "cough rash fever"], dtype=object)
        cells = np.where(rng.random((60, 4)) < 0.2, None, sets[rng.integers(0, len(sets), (60, 4))])
        cells[0, :2] = ("fever", "cough")
        ann = sis.Annotations.from_wide(cells)
        return ann, resolve_similarity(ann, similarity="jaccard")
    x = rng.integers(0, 3, (80, 4)).astype(float)
    x[:40, 3] = np.nan  # raters 0 and 3 share no item
    x[40:, 0] = np.nan
    if case == "degenerate":  # raters 1 and 2 give label 0 wherever both rate: their pe = 1
        x[:, 1] = x[:, 2] = 0.0
        x[::2, 2] = np.nan
    ann = sis.Annotations.from_wide(x)
    return ann, resolve_similarity(ann)


@pytest.mark.parametrize("case", ["missing", "linear", "jaccard", "disjoint", "degenerate"])
def test_light_kappa_from_pair_confusion_matrices_equals_pair_list(case):
    """Light's kappa from each rater pair's confusion matrix, summed over items as one sparse product
    (no pair list): the point estimate, a batch of bootstrap item weights and the leave-one-out values
    equal the pair-list kernels to 1e-12, each pair's kappa too, with missing ratings, soft
    similarities, rater pairs that share no item (left out of the mean, with the warning) and a
    pair whose chance agreement is 1 (nan, as before)."""
    ann, sim = _light_case(case)
    prep = prepare(ann, "light", sim)
    C = np.random.default_rng(3).multinomial(prep.n, np.ones(prep.n) / prep.n, size=7).astype(float)
    point, batch, loo = evaluate(prep), evaluate(prep, C), prep.leave_units_out()
    assert "_gemm" in prep.__dict__ and loo is not None
    n_groups = prep.n_groups
    assert not prep.layout.pairs_built  # the route taken: no within-item pair list
    assert point["kappa_g"].shape == (1, n_groups)
    for fast, C_ in ((point, None), (batch, C), (loo, 1.0 - np.eye(prep.n))):
        slow = _segment_kernels(prep, C_)
        for key in ("value", "pa", "pe"):
            np.testing.assert_allclose(fast[key], slow[key], rtol=0, atol=1e-12, equal_nan=True)
        np.testing.assert_allclose(fast["kappa_g"], slow["kappa_g"][:, :n_groups], rtol=0, atol=1e-12, equal_nan=True)
    assert prep.n_groups == n_groups  # the pair list's count, now that it is built
    if case in ("disjoint", "degenerate"):
        assert n_groups == 5
        with pytest.warns(sis.DegenerateWarning, match="1 of 6 rater pairs share no item"):
            res = sis.light_kappa(_light_case(case)[0])
        np.testing.assert_allclose(res.details["pairwise"], point["kappa_g"][0], rtol=0, atol=1e-12, equal_nan=True)
        assert bool(np.isnan(res.value)) is (case == "degenerate")


def test_light_kappa_with_many_labels_keeps_the_pair_list():
    """Scores with decimals: a replicate's rater pairs x ks x ks block of confusion matrices would
    be far larger than the within-item pairs, so Light's kappa keeps the pair list."""
    rng = np.random.default_rng(5)
    x = np.round(rng.normal(50, 15, 100)[:, None] + rng.normal(0, 5, (100, 4)), 1)
    ann = sis.Annotations.from_wide(x)
    prep = prepare(ann, "light", resolve_similarity(ann))
    assert prep.n_groups * prep.ks**2 > 600  # 6 rater pairs x 200+ labels^2 against 600 pairs
    evaluate(prep)
    assert prep.layout.pairs_built and "_gemm" not in prep.__dict__
