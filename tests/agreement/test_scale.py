"""Scale: the sparse count table, every evaluation route of every family, design records, cost guards.

- Per-item label counts kept as their non-zeros (the route of many labels x many items) give the
  same point estimates and bootstrap batches as the dense table and as the pair list (1e-12);
- every family's stage 1 is the same on every route: NumPy matrix products block by block, one
  sparse product of the blocks side by side, JAX matrix products, the fused segment-sum kernel
  and the two-stage (segment sums, then finish) kernels;
- ``Prepared.supports_analytic`` comes from the family record;
- a bootstrap design is one record (a toy design is added and removed);
- cost guards: a bootstrap or a sampled chance term beyond the memory available is refused with
  the estimate before anything is allocated, a long bootstrap warns, ``chunk_size`` is capped at
  ``n`` and NumPy integer seeds work.
"""

import time
import tracemalloc
import warnings

import numpy as np
import pytest

import softirr_stats as sis
import softirr_stats.base._batching as batching
from softirr_stats.agreement import _evaluator, evaluate, prepare, resolve_similarity
from softirr_stats.agreement._chance import DenseQuad, IdentityQuad
from softirr_stats.agreement._families import FAMILIES, Indicator, count_labels, count_table
from softirr_stats.agreement._layout import rating_layout
from softirr_stats.base._jax import x64
from softirr_stats.uncertainty import _bootstrap
from softirr_stats.uncertainty._bootstrap import (
    BOOTSTRAP_DESIGNS,
    Bootstrap,
    BootstrapCostWarning,
    BootstrapDesign,
    unit_weights,
)

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning",
                                        "ignore::softirr_stats.DegenerateWarning")

FEATURE_FAMILIES = sorted(name for name, fam in FAMILIES.items() if fam.features is not None)
ALL_FAMILIES = sorted(FAMILIES)


def _numeric(seed: int, n: int = 120, r: int = 5, k: int = 7, missing: float = 0.2) -> sis.Annotations:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    codes = np.where(rng.random((n, r)) < 0.55, truth[:, None], rng.integers(0, k, (n, r))).astype(np.int32)
    codes[rng.random((n, r)) < missing] = -1
    codes[0, :2] = (0, 1)  # a pairable item
    return sis.Annotations(codes, [float(v) for v in range(k)], kind="numeric")


def _fresh(prep) -> None:
    for key in [k for k in prep.__dict__ if k.startswith(("_gemm", "_item_pair_sums", "label_counts"))]:
        prep.__dict__.pop(key)


def _weights(prep, b: int = 9, seed: int = 4) -> np.ndarray:
    return np.random.default_rng(seed).multinomial(prep.n, np.ones(prep.n) / prep.n, size=b).astype(float)


# ------------------------------------------------------------------------------ count table


def test_sparse_count_table_equals_dense_and_needs_no_sort():
    rng = np.random.default_rng(0)
    item = np.sort(rng.integers(0, 300, 2000)).astype(np.int32)
    lab = rng.integers(0, 40, 2000).astype(np.int32)
    dense = count_labels(item, lab, 300, 40)
    sparse = count_table(item, lab, 300, 40, max_dense=0)
    assert isinstance(sparse, Indicator) and sparse.unique
    assert sparse.nnz == np.count_nonzero(dense)
    np.testing.assert_array_equal(sparse.dense(), dense)
    order = rng.permutation(2000)  # ratings in any order: the sorting route gives the same table
    np.testing.assert_array_equal(count_table(item[order], lab[order], 300, 40, max_dense=0).dense(), dense)


@pytest.mark.parametrize("seed", range(4))
def test_count_runs_from_the_code_table_equal_the_dense_counts(seed):
    """The non-zeros straight from the wide codes (rows sorted, runs counted) are the dense table's, in
    row-major order, and need no rating list."""
    rng = np.random.default_rng(seed)
    n, r, k = 200, (2, 3, 7, 12)[seed], 9
    codes = rng.integers(0, k, (n, r)).astype(np.int32)
    codes[rng.random((n, r)) < 0.3] = -1
    codes[:3] = -1  # items without ratings
    ann = sis.Annotations(codes, [float(v) for v in range(k)], kind="numeric")
    d = rating_layout(ann)
    rows, code, counts = d.count_runs
    assert not d.ratings_built
    dense = count_labels(d.rating_item, d.rating_code, n, k)
    nz_rows, nz_cols = np.nonzero(dense)
    np.testing.assert_array_equal(rows, nz_rows)
    np.testing.assert_array_equal(code, nz_cols)
    np.testing.assert_array_equal(counts, dense[nz_rows, nz_cols])
    assert counts.dtype == np.float64 and rows.dtype == code.dtype == np.int64
    np.testing.assert_array_equal(d.support, np.flatnonzero(dense.sum(axis=0)))
    assert d.n_ratings == len(d.rating_item) and d.n_raters_present == len(np.unique(d.rating_rater))


def test_sparse_point_estimates_read_the_code_table_once(monkeypatch):
    """On the sparse count route a point estimate builds neither the rating nor the pair list, alpha
    and Fleiss reuse one count table, and the values equal the rating-list route's to 1e-12."""
    ann = _numeric(3, n=400, r=6, k=9)
    vals = {"alpha": sis.krippendorff_alpha(ann).value, "fleiss": sis.fleiss_kappa(ann).value}  # dense route
    ann2 = _numeric(3, n=400, r=6, k=9)
    monkeypatch.setattr(_evaluator, "_COUNT_MAX_ENTRIES", 0)
    monkeypatch.setattr(_evaluator, "_GEMM_MAX_ENTRIES", 0)
    d = rating_layout(ann2)
    alpha = sis.krippendorff_alpha(ann2).value
    runs = d.count_runs
    fleiss = sis.fleiss_kappa(ann2).value
    assert d.count_runs is runs  # cached with the layout on the annotations
    assert not d.ratings_built and not d.pairs_built
    assert abs(alpha - vals["alpha"]) <= 1e-12 and abs(fleiss - vals["fleiss"]) <= 1e-12
    for name in ("krippendorff_alpha", "fleiss_kappa"):  # and the segment kernels over the pair list
        ann3 = _numeric(3, n=400, r=6, k=9)
        prep = prepare(ann3, "alpha" if name == "krippendorff_alpha" else "pooled", resolve_similarity(ann3))
        monkeypatch.setattr(_evaluator, "_gemm_features", lambda prep: None)
        slow = float(evaluate(prep)["value"][0])
        monkeypatch.undo()
        assert abs(slow - (alpha if name == "krippendorff_alpha" else fleiss)) <= 1e-12


def test_dense_count_table_from_the_code_table_equals_one_bincount_over_the_ratings():
    ann = _numeric(8, n=300, r=7, k=6)
    prep = prepare(ann, "pooled", resolve_similarity(ann))
    N = prep.label_counts
    assert not prep.layout.ratings_built and N.dtype == np.int64 and N.shape == (300, prep.ks)
    np.testing.assert_array_equal(N, count_labels(prep.layout.rating_item, prep.rating_s, prep.n, prep.ks))
    _fresh(prep)  # the rating list exists now: the table is one bincount over it, the same
    np.testing.assert_array_equal(prep.label_counts, N)


def test_support_codes_with_unused_vocabulary_on_the_sparse_route(monkeypatch):
    """Declared categories that never occur: the sparse table's columns are support codes."""
    table, cats = [["a", "c", "c"], ["c", "c", None], ["a", "a", "c"]], ["a", "b", "c", "d"]
    ann = sis.Annotations.from_wide(table, categories=cats)
    dense = sis.fleiss_kappa(ann).value
    ann2 = sis.Annotations.from_wide(table, categories=cats)
    monkeypatch.setattr(_evaluator, "_COUNT_MAX_ENTRIES", 0)
    prep = prepare(ann2, "pooled", resolve_similarity(ann2))
    N = prep.label_counts
    assert isinstance(N, Indicator) and N.width == 2
    np.testing.assert_array_equal(N.dense(), [[1, 2], [0, 2], [2, 1]])
    np.testing.assert_array_equal(prep.rating_s, [0, 1, 1, 1, 1, 0, 0, 1])
    assert abs(sis.fleiss_kappa(ann2).value - dense) <= 1e-15


@pytest.mark.parametrize("family", FEATURE_FAMILIES)
@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_sparse_count_route_equals_dense_and_pair_list(family, weights, monkeypatch):
    """Point estimate and a batch of item weights: sparse counts == dense counts == pair list (1e-12)."""
    ann = _numeric(1)
    prep = prepare(ann, family, resolve_similarity(ann, weights=weights))
    C = _weights(prep)
    dense_point, dense_batch = evaluate(prep), evaluate(prep, C)
    _fresh(prep)
    monkeypatch.setattr(_evaluator, "_COUNT_MAX_ENTRIES", 0)  # the count table as its non-zeros
    monkeypatch.setattr(_evaluator, "_GEMM_MAX_ENTRIES", 0)
    sparse_point, sparse_batch = evaluate(prep), evaluate(prep, C)
    if family != "per_rater":  # per-rater counts are their own sparse block on either route
        assert isinstance(prep.label_counts, Indicator)
    np.testing.assert_allclose(prep.item_pair_sums()[0],
                               np.bincount(prep.kd.pair_item, weights=prep.kd.pair_s, minlength=prep.n), atol=1e-12)
    monkeypatch.setattr(_evaluator, "_gemm_features", lambda prep: None)  # the segment kernels (pair list)
    slow_point, slow_batch = evaluate(prep), evaluate(prep, C)
    for key in ("value", "pa", "pe"):
        for a, b in ((dense_point, sparse_point), (dense_batch, sparse_batch), (dense_point, slow_point),
                     (dense_batch, slow_batch)):  # relative too: ordinal alpha's unscaled pe ~ -3e4
            np.testing.assert_allclose(a[key], b[key], rtol=1e-14, atol=1e-12)


# ------------------------------------------------------------------------- routes per family


def _two_stage(prep, C: np.ndarray) -> dict[str, np.ndarray]:
    """Segment-sum stage 1, then the finish kernel with the chance operator (not fused)."""
    if prep.padded is None:
        prep.padded = _evaluator._padded(prep.kd, prep.n, prep.nr, prep.ks, prep.n_groups)
    pp = prep.padded
    with x64():
        import jax.numpy as jnp

        kd = _evaluator._device_kd(pp)
        Cb = _evaluator._pad_weights(C, pp.n, 0)
        Vb = _evaluator._pad_weights(np.ones(prep.nr), pp.nr, 0)
        dims = _evaluator.Dims(n=pp.n, nr=pp.nr, ks=pp.ks, n_groups=pp.n_groups)
        s1 = _evaluator._stage1_batch(kd, Cb, Vb, family=prep.family, dims=dims)
        quad = prep.quad
        S = jnp.asarray(quad.S) if isinstance(quad, DenseQuad) else None
        assert quad is None or isinstance(quad, IdentityQuad | DenseQuad)
        ctx = _evaluator.FinishContext(quad=lambda p, q: _evaluator._quad_jax(S, p, q), chance_pairs=None,
                                       q_categories=prep.q_categories, total_weight=prep.total_weight)
        out = prep.family.kernel("finish")(s1, Cb, None, ctx)
        return {k: np.asarray(v) for k, v in out.items()}


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_every_route_gives_the_same_stage_one(family, monkeypatch):
    """NumPy gemm, sparse side-by-side gemm, JAX gemm, fused and two-stage segment kernels agree."""
    ann = _numeric(2)
    prep = prepare(ann, family, resolve_similarity(ann, weights="linear"))
    C = _weights(prep, b=6)
    routes = {}
    with monkeypatch.context() as mp:
        mp.setattr(_evaluator, "_gemm_features", lambda prep: None)
        routes["fused"] = evaluate(prep, C)
    routes["two-stage"] = _two_stage(prep, C)
    if prep.family.features is not None:
        routes["numpy gemm"] = evaluate(prep, C)
        with monkeypatch.context() as mp:
            mp.setattr(_evaluator, "_NUMPY_MAX_MADDS", 0)
            routes["jax gemm"] = evaluate(prep, C)
            mp.setattr(_evaluator, "_GEMM_MAX_ENTRIES", 0)
            routes["sparse gemm"] = evaluate(prep, C)
            assert "_gemm_F_sparse" in prep.__dict__
    for name, out in routes.items():
        for key in ("value", "pa", "pe"):
            np.testing.assert_allclose(out[key], routes["fused"][key], rtol=1e-14, atol=1e-12,  # ordinal pe ~ -2e4
                                       err_msg=f"{family}: {name}")


@pytest.mark.parametrize("family", ALL_FAMILIES)
def test_supports_analytic_comes_from_the_record(family):
    ann = _numeric(3)
    prep = prepare(ann, family, resolve_similarity(ann))
    assert prep.supports_analytic is (FAMILIES[family].terms is not None) is FAMILIES[family].supports_analytic
    assert bool(prep.no_analytic) is not prep.supports_analytic


def test_a_family_record_needs_features_and_products_together():
    fam = FAMILIES["pooled"]
    with pytest.raises(ValueError, match="features and from_products come together"):
        type(fam)("toy", fam.stage1, fam.finish, fam.chance, fam.width, features=fam.features)


# ----------------------------------------------------------------------------- bootstrap


def test_sparse_bootstrap_route_gives_todays_replicates(monkeypatch):
    """Same seed, same weights: the large-data route (sparse F^T product per chunk) reproduces the replicates."""
    ann = _numeric(5, n=400)
    res = sis.fleiss_kappa(ann, ci=Bootstrap(n=120, seed=7))
    monkeypatch.setattr(_evaluator, "_COUNT_MAX_ENTRIES", 0)
    monkeypatch.setattr(_evaluator, "_GEMM_MAX_ENTRIES", 0)
    monkeypatch.setattr(_evaluator, "_NUMPY_MAX_MADDS", 0)
    ann2 = _numeric(5, n=400)
    res2 = sis.fleiss_kappa(ann2, ci=Bootstrap(n=120, seed=7))
    np.testing.assert_allclose(res.details["replicates"], res2.details["replicates"], rtol=0, atol=1e-12)
    assert (res.ci_low, res.ci_high) == pytest.approx((res2.ci_low, res2.ci_high), abs=1e-12)


@pytest.mark.parametrize("coefficient", ["fleiss_kappa", "krippendorff_alpha", "conger_kappa", "gwet_ac1"])
def test_host_and_device_routes_give_the_same_interval(coefficient, monkeypatch):
    """A large batch runs as the sparse NumPy product when JAX's backend is the CPU, in JAX's dense
    product on a GPU: forcing each route gives the same replicates (same seed, same weights)."""
    monkeypatch.setattr(_evaluator, "_NUMPY_MAX_MADDS", 0)  # every batch is "large"
    seen = []
    real = _evaluator._evaluate_gemm

    def spy(prep, C, gemm, chance_weights, chunk, xp, side_by_side=False):
        seen.append("host" if side_by_side else xp.__name__)
        return real(prep, C, gemm, chance_weights, chunk, xp, side_by_side)

    monkeypatch.setattr(_evaluator, "_evaluate_gemm", spy)
    out = {}
    for route in ("host", "device"):
        monkeypatch.setattr(_evaluator, "LARGE_BATCH_ROUTE", route)
        seen.clear()
        out[route] = getattr(sis, coefficient)(_numeric(3, n=300), ci=Bootstrap(n=150, seed=9, chunk_size=64))
        assert ("host" in seen) == (route == "host") and ("jax.numpy" in seen) == (route == "device")
    a, b = out["host"], out["device"]
    np.testing.assert_allclose(a.details["replicates"], b.details["replicates"], rtol=0, atol=1e-12)
    assert (a.ci_low, a.ci_high, a.se) == pytest.approx((b.ci_low, b.ci_high, b.se), abs=1e-12)


def test_the_cpu_backend_chooses_the_host_route(monkeypatch):
    monkeypatch.setattr(_evaluator, "LARGE_BATCH_ROUTE", None)
    monkeypatch.setattr(_evaluator, "_DEFAULT_BACKEND", "cpu")
    assert _evaluator.products_on_host()
    monkeypatch.setattr(_evaluator, "_DEFAULT_BACKEND", "gpu")
    assert not _evaluator.products_on_host()


def test_a_device_scope_decides_the_route_over_the_default_backend(monkeypatch):
    """``use_device("cpu")`` after JAX started on a GPU runs the work on the CPU, so the sparse
    host product is the one to take (the default backend, read once, said GPU)."""
    from softirr_stats.base._device import use_device

    monkeypatch.setattr(_evaluator, "LARGE_BATCH_ROUTE", None)
    monkeypatch.setattr(_evaluator, "_DEFAULT_BACKEND", "gpu")
    with use_device("cpu"):
        assert _evaluator.products_on_host()
    assert not _evaluator.products_on_host()
    monkeypatch.setattr(_evaluator, "_DEFAULT_BACKEND", "cpu")
    monkeypatch.setattr("softirr_stats.agreement._evaluator.current_device", lambda: "cuda")
    assert not _evaluator.products_on_host()


@pytest.mark.parametrize("n_units", [50, _bootstrap._ROW_BINCOUNT_UNITS + 3])
def test_row_bincount_weights_equal_the_flat_draw(n_units):
    """The item weights (the stream itself) are unchanged: counts of the same uniform draws."""
    cfg = Bootstrap(n=40, seed=11)
    w = unit_weights(n_units, cfg, 0, 40)
    rng = _bootstrap._block_rng(11, 1, 0)
    pick = rng.integers(0, n_units, (_bootstrap.REPLICATE_BLOCK, n_units), dtype=np.int64)
    expect = np.stack([np.bincount(p, minlength=n_units) for p in pick])
    np.testing.assert_array_equal(w[:_bootstrap.REPLICATE_BLOCK], expect)


def _half_design(stat, cfg, strata, start, stop):
    """Toy design: each item kept twice or dropped, with probability 1/2 (weights 0 or 2)."""
    u = unit_weights(stat.n_items, cfg, start, stop, bayesian=True)  # any stream keyed by (seed, replicate)
    return 2.0 * (u > np.log(2.0)), None


def test_a_toy_bootstrap_design_is_one_record():
    ann = _numeric(6)
    BOOTSTRAP_DESIGNS["half"] = BootstrapDesign("half", "items", _half_design, None, strata=False,
                                                description="toy half-sampling")
    try:
        res = sis.fleiss_kappa(ann, ci=Bootstrap(n=60, design="half", seed=1))
        assert res.details["bootstrap_design"] == "half"
        assert np.isfinite(res.ci_low) and res.ci_low < res.value < res.ci_high
        with pytest.raises(ValueError, match="strata= applies to"):
            Bootstrap(design="half", strata=[0] * ann.n_items)
        with pytest.raises(ValueError, match="no jackknife"):
            sis.fleiss_kappa(ann, ci=Bootstrap(n=60, design="half", method="bca"))
    finally:
        del BOOTSTRAP_DESIGNS["half"]
    with pytest.raises(ValueError, match="design"):
        Bootstrap(design="half")


# ---------------------------------------------------------------------------- cost guards


def test_a_billion_replicates_are_refused_quickly(monkeypatch):
    monkeypatch.setattr(batching, "available_memory", lambda: 16 * 2**30)
    ann = _numeric(7, n=30)
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"Bootstrap\(n=1000000000\) on 30 items would need about .* GiB"):
        sis.fleiss_kappa(ann, ci=Bootstrap(n=10**9))
    assert time.perf_counter() - t0 < 5.0


def test_a_long_bootstrap_warns_with_the_estimate(monkeypatch):
    monkeypatch.setattr(_bootstrap, "BOOTSTRAP_BUDGET_SECONDS", 0.0)
    ann = _numeric(8, n=30)
    with pytest.warns(BootstrapCostWarning, match=r"Bootstrap\(n=5000\) is estimated to take about .* per replicate"):
        res = sis.fleiss_kappa(ann, ci=Bootstrap(n=5000, chunk_size=500, progress=False))
    assert len(res.details["replicates"]) == 5000


def test_chunk_size_is_capped_at_n_and_allocates_nothing_large():
    cfg = Bootstrap(n=50, chunk_size=10**9)
    assert cfg.chunk_size == 50
    ann = _numeric(9, n=30)
    tracemalloc.start()
    try:
        res = sis.fleiss_kappa(ann, ci=cfg)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert np.isfinite(res.ci_low) and peak < 64 * 2**20


def test_numpy_integer_seed_and_n_work():
    ann = _numeric(10, n=40)
    cfg = Bootstrap(n=np.int64(30), seed=np.int64(3))
    assert type(cfg.seed) is int and type(cfg.n) is int
    a = sis.fleiss_kappa(ann, ci=cfg)
    b = sis.fleiss_kappa(ann, ci=Bootstrap(n=30, seed=3))
    np.testing.assert_array_equal(a.details["replicates"], b.details["replicates"])


def test_ten_billion_sampled_chance_pairs_are_refused_with_the_estimate(monkeypatch):
    monkeypatch.setattr(batching, "available_memory", lambda: 16 * 2**30)
    ann = _numeric(11, n=30)
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"10000000000 chance pairs\) would need about 894.1 GiB of memory; 16.0 GiB"):
        prepare(ann, "pooled", resolve_similarity(ann), chance=sis.SampledPairs(n=10**10))
    assert time.perf_counter() - t0 < 5.0


def test_bootstrap_memory_estimate_grows_with_n():
    ann = _numeric(12, n=30)
    prep = prepare(ann, "pooled", resolve_similarity(ann))
    small, big = (_bootstrap.bootstrap_memory(prep, Bootstrap(n=n), 64) for n in (100, 10**6))
    assert big > small > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        batching.check_memory(small, "a small bootstrap", "")


# ------------------------------------------------------------------- EM against crowd-kit


@pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::DeprecationWarning")
def test_dawid_skene_and_mace_em_match_crowd_kit():
    """Per-rater accuracies of our EM within 1e-3 of crowd-kit's EM on the same data."""
    import pandas as pd
    from crowdkit.aggregation import MACE, DawidSkene

    from softirr_stats.models import dawid_skene_em, mace_em, simulate_dawid_skene

    k, r = 4, 6
    codes = simulate_dawid_skene(3000, r, k, accuracy=np.linspace(0.55, 0.9, r), missing=0.1, seed=3)["codes"]
    it, ra = np.nonzero(codes >= 0)
    df = pd.DataFrame({"task": it, "worker": ra, "label": codes[it, ra]})
    ours = dawid_skene_em(codes)
    ds = DawidSkene(n_iter=100, tol=1e-5).fit(df)
    pri = ds.priors_.reindex(range(k)).to_numpy()
    theirs = [float((pri * np.diag(ds.errors_.loc[w].reindex(index=range(k), columns=range(k)).fillna(0.0)
                                   .to_numpy())).sum()) for w in range(r)]
    np.testing.assert_allclose(ours.accuracy, theirs, atol=1e-3)
    m_ours = mace_em(codes)
    mace = MACE(n_restarts=1, n_iter=100, method="em", random_state=0).fit(df)
    theta = np.empty(r)
    theta[np.asarray(pd.factorize(df["worker"])[1])] = mace.spamming_[:, 1]
    np.testing.assert_allclose(m_ours.accuracy, theta + (1 - theta) / k, atol=1e-3)
