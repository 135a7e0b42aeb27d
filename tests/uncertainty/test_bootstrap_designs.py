"""Bootstrap designs as weight batches: each design checked against an independent construction.

- vmap over a batch of weights == one evaluation per weight vector;
- multinomial item weights == recomputing the coefficient on index-resampled data (1e-12);
- items+raters: product weights == a brute-force pair enumeration on the expanded data with
  the self-pairs of a duplicated rater left out, and (simulation) including those self-pairs
  would inflate agreement;
- same seed -> same interval; the chunk size does not change a replicate;
- cluster weights == resampling clusters by index; strata keep their sizes; Bayesian
  weights sum to n (per stratum);
- NaN replicates are counted and reported; BCa matches scipy's implementation.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from scipy.stats import _resampling as scipy_resampling

import softirr_stats as sis
from softirr_stats.agreement import evaluate, point_estimate, resolve_similarity
from softirr_stats.data import Annotations
from softirr_stats.uncertainty import Bootstrap, draw_weights

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.base._validation.SoftIRRWarning")
LABELS = np.array(["a", "b", "c", "d"], dtype=object)


def _ratings(seed: int, n: int, r: int, k: int = 4, missing: float = 0.0, acc: float = 0.6) -> np.ndarray:
    """(n, r) object array of labels from a latent-class model, None = missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, n)
    codes = np.where(rng.random((n, r)) < acc, truth[:, None], rng.integers(0, k, (n, r)))
    out = LABELS[codes].astype(object)
    out[rng.random((n, r)) < missing] = None
    out[:, :2][np.all(out[:, :2] == None, axis=1)] = "a"  # noqa: E711 - keep every item non-empty
    return out


def _prep(ann: Annotations, family: str, weights=None):
    sim = resolve_similarity(ann, weights=weights)
    return point_estimate(ann, family=family, coefficient=family, sim=sim)


def _resample(table: np.ndarray, item_counts: np.ndarray) -> np.ndarray:
    return table[np.repeat(np.arange(len(item_counts)), item_counts)]


# ---------------------------------------------------------------------------------- vmap


@pytest.mark.parametrize("family", ["alpha", "pooled", "per_rater", "ac1", "light"])
def test_vmap_batch_equals_loop(family):
    ann = Annotations.from_wide(_ratings(1, 25, 4, missing=0.15))
    _, prep = _prep(ann, family)
    rng = np.random.default_rng(2)
    C = rng.gamma(1.0, size=(5, prep.n))
    V = rng.gamma(1.0, size=(5, prep.nr))
    batch = evaluate(prep, C, V)["value"]
    loop = [evaluate(prep, C[b], V[b])["value"][0] for b in range(5)]
    np.testing.assert_allclose(batch, loop, rtol=0, atol=1e-13)
    only_c = evaluate(prep, C)["value"]
    np.testing.assert_allclose(only_c, [evaluate(prep, C[b])["value"][0] for b in range(5)], rtol=0, atol=1e-13)


# ---------------------------------------------------------------- items == index resampling

COEFFICIENTS = [
    ("alpha nominal", lambda t, cats, ci=None: sis.krippendorff_alpha(t, categories=cats, ci=ci), 4, 0.15),
    ("alpha interval", lambda t, cats, ci=None: sis.krippendorff_alpha(t, level="interval", categories=cats, ci=ci),
     4, 0.15),
    ("fleiss", lambda t, cats, ci=None: sis.fleiss_kappa(t, categories=cats, ci=ci), 4, 0.15),
    ("conger", lambda t, cats, ci=None: sis.conger_kappa(t, categories=cats, ci=ci), 3, 0.0),
    ("cohen quadratic", lambda t, cats, ci=None: sis.cohen_kappa(t, weights="quadratic", categories=cats, ci=ci), 2,
     0.0),
    ("ac1", lambda t, cats, ci=None: sis.gwet_ac1(t, categories=cats, ci=ci), 3, 0.1),
    ("brennan_prediger", lambda t, cats, ci=None: sis.brennan_prediger(t, categories=cats, ci=ci), 3, 0.1),
    ("light", lambda t, cats, ci=None: sis.light_kappa(t, categories=cats, ci=ci), 3, 0.0),
]


@pytest.mark.parametrize(("name", "fn", "raters", "missing"), COEFFICIENTS, ids=[c[0] for c in COEFFICIENTS])
def test_item_weights_equal_index_resampling(name, fn, raters, missing):
    table = _ratings(3, 30, raters, missing=missing)
    cats = list(LABELS)
    if "interval" in name:  # numeric labels for interval alpha
        table = np.where(table == None, None, np.vectorize(lambda s: "abcd".find(s) if s else 0)(table))  # noqa: E711
        table = table.astype(object)
        cats = [0, 1, 2, 3]
    cfg = Bootstrap(n=6, seed=11)
    reps = fn(table, cats, ci=cfg).details["replicates"]
    _, prep = _prep(Annotations.from_wide(table), "percent")  # item weights depend only on n and the seed
    C, V, _ = draw_weights(prep, cfg, 0, cfg.n)
    assert V is None
    counts = np.asarray(C)
    np.testing.assert_array_equal(counts, np.round(counts))
    counts = counts.astype(int)
    np.testing.assert_array_equal(counts.sum(axis=1), len(table))
    assert (counts == 0).any()  # real resamples: some items left out
    direct = [fn(_resample(table, c), cats).value for c in counts]
    np.testing.assert_allclose(reps, direct, rtol=0, atol=1e-12)


# ------------------------------------------------------------------------- items + raters


def _alpha_expanded(codes: np.ndarray, c: np.ndarray, v: np.ndarray, *, self_pairs: bool) -> float:
    """Nominal alpha on the data expanded by integer item counts c and rater counts v.

    Brute force over value instances: an item copy holds v_j copies of rater j's value.
    Within-item pairs are ordered pairs of instances; with ``self_pairs=False`` the pairs of
    two copies of the same original rater are left out (docs/formulas/resampling.md, 'Two-way bootstrap').
    """
    d_o_num = n_pairable = 0.0
    values = []
    for i in range(codes.shape[0]):
        inst = [(j, codes[i, j]) for j in range(codes.shape[1]) if codes[i, j] >= 0 for _ in range(v[j])]
        pairs = [(a, b) for p, a in enumerate(inst) for q, b in enumerate(inst)
                 if p != q and (self_pairs or a[0] != b[0])]
        if not pairs:
            continue
        dbar = np.mean([a[1] != b[1] for a, b in pairs])
        for _ in range(c[i]):
            d_o_num += len(inst) * dbar
            n_pairable += len(inst)
            values += [x[1] for x in inst]
    values = np.asarray(values)
    n = len(values)
    counts = np.bincount(values)
    d_e = (n * n - np.sum(counts**2)) / (n * (n - 1))
    return 1.0 - (d_o_num / n_pairable) / d_e


def test_items_raters_product_weights_equal_brute_force_without_self_pairs():
    ann = Annotations.from_wide(_ratings(5, 12, 4, missing=0.2))
    _, prep = _prep(ann, "alpha")
    cfg = Bootstrap(n=8, design="items+raters", seed=3)
    C, V, _ = draw_weights(prep, cfg, 0, cfg.n)
    C, V = np.asarray(C).astype(int), np.asarray(V).astype(int)
    assert (V > 1).any()  # some rater is duplicated
    got = evaluate(prep, C, V)["value"]
    want = [_alpha_expanded(ann.codes, C[b], V[b], self_pairs=False) for b in range(cfg.n)]
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    reps = sis.krippendorff_alpha(ann, ci=cfg).details["replicates"]
    np.testing.assert_allclose(reps, want, rtol=0, atol=1e-12)


def test_rater_resampling_with_self_pairs_would_inflate_agreement():
    """Simulation: duplicating a rater and pairing it with itself adds spurious agreement.

    The naive two-way bootstrap (index-resample the columns, then the krippendorff package
    on the duplicated columns) is biased upwards; with self-pairs excluded the replicates
    centre on the estimate.
    """
    import krippendorff

    table = _ratings(7, 40, 5, acc=0.4)
    ann = Annotations.from_wide(table)
    est, prep = _prep(ann, "alpha")
    cfg = Bootstrap(n=200, design="raters", seed=0)
    _, V, _ = draw_weights(prep, cfg, 0, cfg.n)
    V = np.asarray(V).astype(int)
    ours = evaluate(prep, None, V)["value"]
    data = ann.codes.T.astype(float)
    data[data < 0] = np.nan
    naive = np.array([krippendorff.alpha(reliability_data=data[np.repeat(np.arange(5), v)],
                                         level_of_measurement="nominal") for v in V[:60]])
    assert abs(np.nanmean(ours) - est.value) < 0.02
    assert np.mean(naive) - est.value > 0.1
    assert np.mean(naive) > np.nanmean(ours[:60]) + 0.1
    # replicates where no rater is duplicated are identical under both
    same = (V[:60] <= 1).all(axis=1)
    np.testing.assert_allclose(naive[same], ours[:60][same], atol=1e-12)


# ----------------------------------------------------------- reproducibility and chunking


def test_same_seed_same_interval_and_chunk_size_does_not_matter():
    table = _ratings(9, 40, 3, missing=0.1)
    base = sis.fleiss_kappa(table, ci=Bootstrap(n=300, seed=4, method="bca"))
    again = sis.fleiss_kappa(table, ci=Bootstrap(n=300, seed=4, method="bca"))
    chunked = sis.fleiss_kappa(table, ci=Bootstrap(n=300, seed=4, method="bca", chunk_size=7))
    other = sis.fleiss_kappa(table, ci=Bootstrap(n=300, seed=5, method="bca"))
    assert (base.ci_low, base.ci_high) == (again.ci_low, again.ci_high)
    np.testing.assert_array_equal(base.details["replicates"], again.details["replicates"])
    np.testing.assert_allclose(chunked.details["replicates"], base.details["replicates"], rtol=0, atol=1e-13)
    assert chunked.ci_low == pytest.approx(base.ci_low, abs=1e-13)
    assert chunked.ci_high == pytest.approx(base.ci_high, abs=1e-13)
    assert (other.ci_low, other.ci_high) != (base.ci_low, base.ci_high)
    assert base.details["bootstrap_seed"] == 4 and base.details["bootstrap_n"] == 300
    # replicate b depends only on (seed, b): a longer run starts with the same replicates
    longer = sis.fleiss_kappa(table, ci=Bootstrap(n=310, seed=4))
    np.testing.assert_allclose(longer.details["replicates"][:300], base.details["replicates"], rtol=0, atol=1e-13)


# -------------------------------------------------------------- cluster, strata, bayesian


def test_cluster_design_equals_resampling_clusters_by_index():
    table = _ratings(13, 24, 3)
    cluster = np.repeat(np.arange(8), 3)[np.random.default_rng(0).permutation(24)]  # 8 clusters of 3 items
    cfg = Bootstrap(n=6, design="cluster", cluster=list(cluster), seed=2)
    res = sis.krippendorff_alpha(table, ci=cfg)
    _, prep = _prep(Annotations.from_wide(table), "alpha")
    C, _, _ = draw_weights(prep, cfg, 0, cfg.n)
    C = np.asarray(C).astype(int)
    for b in range(cfg.n):
        per_cluster = [np.unique(C[b, cluster == g]) for g in range(8)]
        assert all(len(u) == 1 for u in per_cluster)  # clusters move as a whole
        counts = np.array([u[0] for u in per_cluster])
        assert counts.sum() == 8
        rows = np.concatenate([np.flatnonzero(cluster == g) for g in range(8) for _ in range(counts[g])])
        direct = sis.krippendorff_alpha(table[rows]).value
        assert res.details["replicates"][b] == pytest.approx(direct, abs=1e-12)
    # the jackknife for BCa leaves out whole clusters
    from softirr_stats.uncertainty._bootstrap import jackknife_values

    jack = jackknife_values(prep, cfg)
    assert len(jack) == 8
    assert jack[0] == pytest.approx(sis.krippendorff_alpha(table[cluster != 0]).value, abs=1e-12)


def test_strata_preserved_and_bayesian_weights_sum_to_n():
    table = _ratings(17, 30, 3)
    strata = np.array([0] * 5 + [1] * 10 + [2] * 15)[np.random.default_rng(1).permutation(30)]
    _, prep = _prep(Annotations.from_wide(table), "alpha")
    sizes = np.bincount(strata)
    for design in ("items", "bayesian"):
        cfg = Bootstrap(n=50, design=design, strata=list(strata), seed=1)
        C = np.asarray(draw_weights(prep, cfg, 0, cfg.n)[0])
        assert C.shape == (50, 30) and (C >= 0).all()
        per_stratum = np.stack([C[:, strata == h].sum(axis=1) for h in range(3)], axis=1)
        np.testing.assert_allclose(per_stratum, np.broadcast_to(sizes, (50, 3)), rtol=1e-12)
    cfg = Bootstrap(n=400, design="bayesian", seed=3)
    C = np.asarray(draw_weights(prep, cfg, 0, cfg.n)[0])
    np.testing.assert_allclose(C.sum(axis=1), 30, rtol=1e-12)
    assert (C > 0).all() and not np.allclose(C, np.round(C))  # continuous Dirichlet, not counts
    # Dirichlet(1,...,1) * n: each weight has mean 1 and variance (n - 1) / (n + 1)
    assert C.mean() == pytest.approx(1.0, abs=1e-9)
    assert C.var() == pytest.approx(29 / 31, rel=0.1)
    # items design: multinomial counts, E = 1, Var = 1 - 1/n
    C = np.asarray(draw_weights(prep, Bootstrap(n=400, seed=3), 0, 400)[0])
    assert C.var() == pytest.approx(1 - 1 / 30, rel=0.1)


def test_strata_constant_within_cluster_is_checked():
    table = _ratings(17, 6, 3)
    _, prep = _prep(Annotations.from_wide(table), "alpha")
    cfg = Bootstrap(n=5, design="cluster", cluster=[0, 0, 1, 1, 2, 2], strata=[0, 1, 0, 0, 1, 1])
    with pytest.raises(ValueError, match="strata must be constant within each cluster"):
        draw_weights(prep, cfg, 0, 5)


# ------------------------------------------------------------------------------ nan, BCa


def test_nan_replicates_are_counted_and_reported():
    # every item but the last is unanimous "a": a resample without the last item has D_e = 0
    table = [["a", "a", "a"]] * 5 + [["a", "b", "b"]]
    cfg = Bootstrap(n=400, seed=0)
    res = sis.krippendorff_alpha(table, ci=cfg)
    reps = res.details["replicates"]
    _, prep = _prep(Annotations.from_wide(table), "alpha")
    C = np.asarray(draw_weights(prep, cfg, 0, cfg.n)[0])
    expected_nan = int((C[:, 5] == 0).sum())
    assert 100 < expected_nan < 200  # (5/6)^6 = 33% of the resamples miss the last item
    assert res.details["n_nan_replicates"] == expected_nan == int(np.isnan(reps).sum())
    assert any(f"{expected_nan} of 400 bootstrap replicates" in w for w in res.warnings)
    finite = reps[np.isfinite(reps)]
    assert res.ci_low == pytest.approx(np.percentile(finite, 2.5), abs=1e-15)
    assert res.ci_high == pytest.approx(np.percentile(finite, 97.5), abs=1e-15)


def test_bca_matches_scipy_on_a_mean_like_statistic():
    """Percent agreement of two raters is the mean of per-item agreement indicators."""
    rng = np.random.default_rng(21)
    a = rng.integers(0, 3, 60)
    b = np.where(rng.random(60) < 0.7, a, rng.integers(0, 3, 60))
    x = (a == b).astype(float)
    table = np.stack([a, b], axis=1)
    cfg = Bootstrap(n=4000, seed=5, method="bca", level=0.9)
    res = sis.percent_agreement(table, ci=cfg)
    reps = res.details["replicates"]
    assert res.value == pytest.approx(x.mean(), abs=1e-15)
    # scipy's own BCa levels computed from OUR replicates: identical interval
    a1, a2, _ = scipy_resampling._bca_interval((x,), np.mean, axis=-1, alpha=0.05, theta_hat_b=reps[None, :],
                                               batch=None, xp=np)
    want = np.percentile(reps, [100 * float(np.squeeze(a1)), 100 * float(np.squeeze(a2))])
    np.testing.assert_allclose([res.ci_low, res.ci_high], want, rtol=0, atol=1e-12)
    # and scipy's complete BCa bootstrap (its own resamples) agrees up to Monte Carlo error
    sp = scipy.stats.bootstrap((x,), np.mean, n_resamples=4000, confidence_level=0.9, method="BCa",
                               random_state=np.random.default_rng(0)).confidence_interval
    step = 1 / 60  # the statistic lives on a grid of 1/60
    assert res.ci_low == pytest.approx(sp.low, abs=step + 1e-9)
    assert res.ci_high == pytest.approx(sp.high, abs=step + 1e-9)
    basic = sis.percent_agreement(table, ci=Bootstrap(n=4000, seed=5, method="basic", level=0.9))
    lo, hi = np.percentile(reps, [5, 95])
    assert (basic.ci_low, basic.ci_high) == pytest.approx((2 * x.mean() - hi, 2 * x.mean() - lo), abs=1e-12)


@pytest.mark.parametrize("family", ["percent", "pooled", "ac1", "bp", "alpha", "per_rater"])
def test_gemm_fast_path_equals_segment_kernels(family, monkeypatch):
    """Fixed rater weights: stage 1 as one matrix product C @ F equals the vmapped kernels."""
    from softirr_stats.agreement import _evaluator, evaluate, point_estimate, resolve_similarity

    rng = np.random.default_rng(4)
    x = rng.integers(0, 5, (120, 4)).astype(float)
    x[rng.random(x.shape) < 0.2] = np.nan
    ann = sis.Annotations.from_wide(x)
    sim = resolve_similarity(ann) if family == "alpha" else resolve_similarity(ann, weights="quadratic")
    _, prep = point_estimate(ann, family=family, coefficient=family, sim=sim)
    C = rng.multinomial(120, np.ones(120) / 120, size=9).astype(float)
    fast = evaluate(prep, C)["value"]
    assert "_gemm" in prep.__dict__
    monkeypatch.setattr(_evaluator, "_gemm_features", lambda prep: None)  # the vmapped segment kernels
    slow = evaluate(prep, C)["value"]
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)


def test_missing_cluster_or_strata_ids_are_refused_and_ids_keep_their_kind():
    # a missing id pooled every such item into one cluster ("nan"), and 1 and '1' were one cluster
    from softirr_stats.uncertainty._bootstrap import per_item_codes

    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, (60, 3))
    for ids in ([np.nan] * 30 + list(range(30)), [None] * 60, [pd.NA] + list(range(59))):
        with pytest.raises(ValueError, match="cluster has no value for item 0"):
            sis.fleiss_kappa(x, ci=sis.Bootstrap(n=50, design="cluster", cluster=ids))
    with pytest.raises(ValueError, match="strata has no value for item"):
        sis.fleiss_kappa(x, ci=sis.Bootstrap(n=50, strata=[None] + [k % 2 for k in range(59)]))
    assert per_item_codes(["b", "a", "10", "2", 1, "1"], tuple(range(6)), "cluster").tolist() == [5, 4, 2, 3, 0, 1]
    as_ints = sis.fleiss_kappa(x, ci=sis.Bootstrap(n=50, design="cluster", cluster=[i // 3 for i in range(60)]))
    as_texts = sis.fleiss_kappa(x, ci=sis.Bootstrap(n=50, design="cluster", cluster=[str(i // 3) for i in range(60)]))
    assert (as_ints.ci_low, as_ints.ci_high) == (as_texts.ci_low, as_texts.ci_high)


@pytest.mark.parametrize("make", [lambda: sis.Bootstrap(level="0.9"), lambda: sis.Analytic(level="0.9"),
                                  lambda: sis.MonteCarlo(permutations=3, seed=1.0),
                                  lambda: sis.SampledPairs(n=100, seed=True)])
def test_levels_and_seeds_of_the_wrong_type_are_refused_when_made(make):
    with pytest.raises(TypeError, match="must be a number in|must be an integer"):
        make()


# ---------------------------------------------------------------------------------- jackknife


@pytest.mark.parametrize("family", ["percent", "pooled", "ac1", "bp", "alpha", "per_rater"])
@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_jackknife_from_per_item_sums_equals_leave_one_out_weight_rows(family, weights):
    """The BCa jackknife takes each item's own share from the total sums (linear in the items): the values of
    the statistic evaluated on every leave-one-item-out (and leave-one-cluster-out) weight row."""
    from softirr_stats.uncertainty._bootstrap import jackknife_values, per_item_codes

    rng = np.random.default_rng(6)
    x = rng.integers(0, 5, (150, 4)).astype(float)
    x[rng.random(x.shape) < 0.25] = np.nan
    ann = sis.Annotations.from_wide(x)
    _, prep = point_estimate(ann, family=family, coefficient=family, sim=resolve_similarity(ann, weights=weights))
    assert prep.leave_units_out() is not None  # the linear-time path applies
    by_items = jackknife_values(prep, Bootstrap(n=50))
    np.testing.assert_allclose(by_items, evaluate(prep, 1.0 - np.eye(prep.n))["value"], rtol=0, atol=1e-12)
    cluster = [f"c{i % 23}" for i in range(150)]
    by_clusters = jackknife_values(prep, Bootstrap(n=50, design="cluster", cluster=cluster))
    codes = per_item_codes(cluster, prep.items, "cluster")  # the clusters in the order of their ids
    rows = (codes[None, :] != np.arange(23)[:, None]).astype(float)
    np.testing.assert_allclose(by_clusters, evaluate(prep, rows)["value"], rtol=0, atol=1e-12)


def test_jackknife_of_many_items_is_linear_in_the_items(monkeypatch):
    """No leave-one-out weight row is made for a statistic with per-item sums: 20,000 items (the rows would
    hold 400 million weights) take well under a second."""
    import time

    from softirr_stats.uncertainty import _bootstrap

    monkeypatch.setattr(_bootstrap, "leave_one_out_weights", lambda *a: pytest.fail("weight rows were made"))
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, (20_000, 5)).astype(float)
    _, prep = point_estimate(sis.Annotations.from_wide(x), family="pooled", coefficient="fleiss_kappa",
                             sim=resolve_similarity(sis.Annotations.from_wide(x[:2])))
    started = time.perf_counter()
    jack = _bootstrap.jackknife_values(prep, Bootstrap(n=50, method="bca"))
    assert time.perf_counter() - started < 5.0
    assert jack.shape == (20_000,) and np.isfinite(jack).all()


def test_a_slow_jackknife_warns_with_its_estimate_and_shows_a_bar(monkeypatch):
    """A statistic without per-item sums (Light's kappa over ~60 distinct labels, where a replicate's rater
    pairs x labels^2 block would outgrow the pair list) evaluates a weight row per item: a long one says so
    before it runs on, at the user's line, and counts every item on a bar."""
    from softirr_stats.uncertainty import _bootstrap

    bars = []
    real = _bootstrap._warn_slow_jackknife

    def kept(*args, **kwargs):
        bars.append(real(*args, **kwargs))
        return bars[-1]

    monkeypatch.setattr(_bootstrap, "BOOTSTRAP_BUDGET_SECONDS", 0.0)
    monkeypatch.setattr(_bootstrap, "_warn_slow_jackknife", kept)
    monkeypatch.setattr(_bootstrap, "rows_per_chunk", lambda *a, **k: 16)  # blocks of 16 leave-one-out rows
    ann = Annotations.from_wide(np.random.default_rng(3).integers(0, 80, (60, 3)))
    _, prep = _prep(ann, "light")
    assert prep.leave_units_out() is None and prep.n_groups * prep.ks**2 > 4096
    with pytest.warns(_bootstrap.BootstrapCostWarning, match="jackknife .* 60 items") as rec:
        jack = _bootstrap.jackknife_values(prep, Bootstrap(n=50, method="bca", progress=True))
    assert rec[0].filename == __file__
    np.testing.assert_allclose(jack, evaluate(prep, 1.0 - np.eye(60))["value"], rtol=0, atol=1e-12)
    assert len(bars) == 1 and bars[0].n == 60


@pytest.mark.parametrize(("name", "stratified"), [(n, s) for n, rec in sis.uncertainty.BOOTSTRAP_DESIGNS.items()
                                                   if rec.resamples_items for s in (False, True)[:1 + rec.strata]])
def test_too_few_units_advice_follows_the_design_record(name, stratified):
    # "fewer than 2 units per stratum" advised design='items' to every design but items itself (the cluster design,
    # whose items are not independent; a stratified design, whose items design has the same one-item stratum) and
    # "split the data into more clusters" to designs without clusters
    rec = sis.uncertainty.BOOTSTRAP_DESIGNS[name]
    n = 6
    ann = Annotations.from_wide([["a", "a", "b"], ["b", "b", "b"], ["a", "b", "a"], ["b", "a", "b"],
                                 ["a", "a", "a"], ["b", "b", "a"]][:n if stratified or rec.resamples_clusters else 1])
    cluster = [0, 0, 1, 1, 2, 2] if stratified else [0] * n
    ci = Bootstrap(n=20, design=name, cluster=cluster if rec.resamples_clusters else None,
                   strata=([0, 0, 0, 0, 1, 1] if rec.resamples_clusters else [0, 0, 1, 1, 1, 2]) if stratified else None)
    with pytest.raises(ValueError) as err:
        sis.fleiss_kappa(ann, ci=ci)
    text = str(err.value)
    head, _, advice = text.partition("would collapse to a point. ")
    unit = "clusters" if rec.resamples_clusters else "items"
    assert head.startswith(f"Bootstrap(design={name!r}) needs at least 2 {unit} "
                           + ("per stratum to resample; got 1 in 1 of" if stratified else "to resample; got 1 in total"))
    assert advice == sis.uncertainty.too_few_units_advice(rec, stratified=stratified)
    assert "design=" not in advice and advice.endswith(sis.uncertainty.TOO_FEW_UNITS_POINT)
    assert ("strata=" in advice) is stratified and ("cluster" in advice) is rec.resamples_clusters
