"""Annotator models: encoding, exact log densities, invariances (fast, no fitting)."""

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from numpyro.infer.util import log_density
from scipy.special import logsumexp
from scipy.stats import dirichlet
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

from softirr_stats import models
from softirr_stats.data import Annotations
from softirr_stats.inference._postprocess import (
    align_permutations,
    fleiss_kappa_counts,
    implied_agreement,
    item_counts,
    rater_pair_weights,
)
from softirr_stats.models import AnnotationData, encode_annotations


class DuckAnn:
    def __init__(self, codes, vocabulary):
        self.codes = np.asarray(codes)
        self.vocabulary = tuple(vocabulary)
        self.n_items, self.n_raters = self.codes.shape


def test_encode_from_annotations_and_raw_codes():
    ann = Annotations.from_wide([["a", "b", None], ["b", "b", "a"]])
    d = encode_annotations(ann)
    assert (d.n_items, d.n_raters, d.n_classes, d.n_obs) == (2, 3, 2, 5)
    assert d.vocabulary == ("a", "b")
    np.testing.assert_array_equal(d.codes(), ann.codes)
    duck = encode_annotations(DuckAnn([[0, 2], [-1, 1]], ["x", "y", "z"]))
    assert duck.n_classes == 3 and duck.labels.tolist() == [0, 2, 1]
    raw = encode_annotations(np.array([[0, 1], [1, -1]]), n_classes=4)
    assert raw.n_classes == 4 and raw.items.tolist() == [0, 0, 1]
    np.testing.assert_array_equal(raw.coannotation(), [[0, 1], [1, 0]])


@pytest.mark.parametrize("codes, err", [
    (np.array([0, 1]), ValueError),
    (np.array([[0.5, 1.0]]), TypeError),
    (np.array([[-2, 1]]), ValueError),
    (np.array([[-1, -1]]), ValueError),
])
def test_encode_rejects_bad_input(codes, err):
    with pytest.raises(err):
        encode_annotations(codes)


def test_priors_validate():
    with pytest.raises(ValueError, match="confusion_diagonal"):
        models.DawidSkenePriors(confusion_diagonal=0.0)
    with pytest.raises(ValueError, match="score_eps"):
        models.SoftAgreementPriors(score_eps=0.7)
    with pytest.raises(TypeError, match="DawidSkenePriors"):
        log_density(models.dawid_skene, (encode_annotations([[0, 1]]),),
                    {"priors": models.MacePriors()}, {})


def _ds_data():
    codes = np.array([[0, 0, 1], [1, 1, -1], [2, 1, 2], [-1, 0, 0]])
    return encode_annotations(codes, n_classes=3), codes


def test_dawid_skene_log_density_matches_brute_force():
    data, codes = _ds_data()
    rng = np.random.default_rng(0)
    pi = rng.dirichlet(np.ones(3))
    beta = rng.dirichlet(np.ones(3), size=(3, 3))
    lp, _ = log_density(models.dawid_skene, (data,), {}, {"pi": pi, "beta": beta})
    conc = 4.0 * (0.75 * np.eye(3) + 0.25 / 2 * (1.0 - np.eye(3)))  # default: mean 0.75, weight 4
    prior = dirichlet.logpdf(pi, np.ones(3)) + sum(
        dirichlet.logpdf(beta[j, c], conc[c]) for j in range(3) for c in range(3))
    lik = 0.0
    for i in range(codes.shape[0]):
        terms = [np.log(pi[c]) + sum(np.log(beta[j, c, codes[i, j]])
                                     for j in range(3) if codes[i, j] >= 0) for c in range(3)]
        lik += logsumexp(terms)
    np.testing.assert_allclose(float(lp), prior + lik, rtol=1e-5)


def test_mace_log_density_matches_brute_force():
    data, codes = _ds_data()
    theta = np.array([0.9, 0.6, 0.3])
    eps = np.random.default_rng(1).dirichlet(np.ones(3), size=3)
    pri = models.MacePriors()
    lp, tr = log_density(models.mace, (data,), {}, {"theta": theta, "epsilon": eps})
    lik = 0.0
    for i in range(codes.shape[0]):
        terms = [np.log(1 / 3) + sum(np.log(theta[j] * (codes[i, j] == c)
                                            + (1 - theta[j]) * eps[j, codes[i, j]])
                                     for j in range(3) if codes[i, j] >= 0) for c in range(3)]
        lik += logsumexp(terms)
    assert float(tr["obs"]["fn"].log_prob(tr["obs"]["value"]).sum()) == pytest.approx(lik,
                                                                                      rel=1e-5)
    assert pri.competence_a == 2.0


def _random_params(model, data, seed=0):
    from numpyro import handlers

    tr = handlers.trace(handlers.seed(model, jax.random.key(seed))).get_trace(data)
    return {k: v["value"] for k, v in tr.items() if v["type"] == "sample" and not v["is_observed"]}


ALL_CATEGORICAL = sorted(models.MODEL_SPECS)


@pytest.mark.parametrize("name", ALL_CATEGORICAL)
def test_log_density_invariant_to_row_order(name):
    data, _ = _ds_data()
    spec = models.MODEL_SPECS[name]
    params = _random_params(spec.model, data)
    perm = np.random.default_rng(2).permutation(data.n_obs)
    shuffled = AnnotationData(items=data.items[perm], raters=data.raters[perm],
                              labels=data.labels[perm], n_items=data.n_items,
                              n_raters=data.n_raters, n_classes=data.n_classes)
    a, _ = log_density(spec.model, (data,), {}, params)
    b, _ = log_density(spec.model, (shuffled,), {}, params)
    assert np.isfinite(float(a))
    np.testing.assert_allclose(float(a), float(b), rtol=1e-5)


@pytest.mark.parametrize("name", ALL_CATEGORICAL)
def test_item_log_joint_normalises_to_marginal(name):
    """softmax of the per-item joint sums to 1; response rows are distributions."""
    data, _ = _ds_data()
    spec = models.MODEL_SPECS[name]
    params = _random_params(spec.model, data, seed=3)
    log_pi, obs = spec.derive(params, data)
    np.testing.assert_allclose(np.exp(obs).sum(-1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(np.exp(log_pi).sum(), 1.0, rtol=1e-5)
    pi, r = spec.response(params, jax.random.key(0), 8, data.n_raters)
    assert r.shape[1:] == (data.n_raters, 3, 3)
    np.testing.assert_allclose(np.asarray(r).sum(-1), 1.0, rtol=1e-5)


def test_full_logits_reference_category():
    off = jnp.arange(6.0).reshape(3, 2)
    np.testing.assert_array_equal(models.full_logits(off), [[0, 0, 1], [2, 0, 3], [4, 5, 0]])


# ---------------------------------------------------------------- implied agreement kernel
def _implied_brute(pi, r, omega, w):
    t, j, k, _ = r.shape
    po = pe_c = 0.0
    for a, b in itertools.permutations(range(j), 2):
        jab = np.einsum("c,tck,tcl->kl", pi, r[:, a], r[:, b]) / t
        po += omega[a, b] * (w * jab).sum()
        qa = np.einsum("c,tck->k", pi, r[:, a]) / t
        qb = np.einsum("c,tck->k", pi, r[:, b]) / t
        pe_c += omega[a, b] * qa @ w @ qb
    q = np.einsum("c,tjck->jk", pi, r) / t
    qbar = omega.sum(1) @ q
    pe_f = qbar @ w @ qbar
    return np.array([po, pe_f, pe_c, (po - pe_f) / (1 - pe_f), (po - pe_c) / (1 - pe_c)])


def test_implied_agreement_matches_brute_force_and_is_permutation_invariant():
    rng = np.random.default_rng(4)
    t, j, k = 3, 4, 3
    pi = rng.dirichlet(np.ones(k))
    r = rng.dirichlet(np.ones(k) + 5 * np.eye(k)[0], size=(t, j, k))
    co = rng.integers(1, 5, (j, j)).astype(float)
    co = co + co.T
    omega = rater_pair_weights(co)
    w = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.5], [0.0, 0.5, 1.0]])
    got = np.asarray(implied_agreement(jnp.asarray(pi), jnp.asarray(r), jnp.asarray(omega),
                                       jnp.asarray(w)))
    np.testing.assert_allclose(got, _implied_brute(pi, r, omega, w), rtol=1e-4)
    perm = np.array([2, 0, 1])  # relabel the latent classes (label switching)
    got2 = np.asarray(implied_agreement(jnp.asarray(pi[perm]), jnp.asarray(r[:, :, perm]),
                                        jnp.asarray(omega), jnp.asarray(w)))
    np.testing.assert_allclose(got2, got, rtol=1e-4, atol=1e-6)


def test_implied_kappa_of_perfect_raters_is_one():
    r = np.broadcast_to(np.eye(3), (1, 4, 3, 3))
    omega = rater_pair_weights(np.ones((4, 4)))
    out = np.asarray(implied_agreement(jnp.full(3, 1 / 3), jnp.asarray(r), jnp.asarray(omega),
                                       jnp.eye(3)))
    np.testing.assert_allclose(out, [1, 1 / 3, 1 / 3, 1, 1], rtol=1e-6)


def test_fleiss_kappa_counts_matches_statsmodels():
    rng = np.random.default_rng(5)
    for _ in range(5):
        codes = rng.integers(0, 4, (30, 5))
        counts = np.stack([(codes == k).sum(1) for k in range(4)], 1)
        ours = fleiss_kappa_counts(item_counts(jnp.asarray(np.repeat(np.arange(30), 5)),
                                               jnp.asarray(codes.ravel()), 30, 4))
        np.testing.assert_allclose(float(ours), sm_fleiss(counts), rtol=1e-5)


def test_fleiss_kappa_counts_missing_data_by_hand():
    counts = jnp.array([[2.0, 0.0], [1.0, 1.0], [0.0, 3.0], [1.0, 0.0]])
    pa = (1.0 + 0.0 + 1.0) / 3
    p = np.array([1.0 + 0.5 + 0.0 + 1.0, 0.0 + 0.5 + 1.0 + 0.0]) / 4
    pe = (p ** 2).sum()
    assert float(fleiss_kappa_counts(counts)) == pytest.approx((pa - pe) / (1 - pe), rel=1e-6)


def test_align_permutations_undoes_a_relabelling():
    rng = np.random.default_rng(6)
    m = rng.dirichlet(np.ones(4) * 0.3, size=(5, 4)) + 3 * np.eye(4)
    perms = np.array([rng.permutation(4) for _ in range(5)])
    shuffled = np.stack([m[s][:, perms[s]] for s in range(5)])  # column k' = label perms[k']
    sigma = align_permutations(shuffled)
    np.testing.assert_array_equal(perms[np.arange(5)[:, None], sigma], np.tile(np.arange(4), (5, 1)))


# ---------------------------------------------------------------- soft model data
def test_pair_scores_by_hand_and_with_a_matrix():
    ann = DuckAnn([[0, 1, -1], [2, 2, 0]], ["a", "b", "c"])
    ps = models.pair_scores(ann, n_chance=50, seed=1)
    assert ps.within_raters.tolist() == [[0, 1], [0, 1], [0, 2], [1, 2]]
    assert ps.within_items.tolist() == [0, 1, 1, 1]
    assert ps.within_scores.tolist() == [0.0, 1.0, 0.0, 0.0]
    assert ps.n_chance == 50 and set(np.unique(ps.chance_scores)) <= {0.0, 1.0}
    s = np.array([[1.0, 0.5, 0.0], [0.5, 1.0, 0.2], [0.0, 0.2, 1.0]])
    ps2 = models.pair_scores(ann, s, n_chance=10)
    assert ps2.within_scores.tolist() == [0.5, 1.0, 0.0, 0.0]
    ps3 = models.pair_scores(ann, lambda a, b: np.array([0.3 if x != y else 1.0
                                                         for x, y in zip(a, b, strict=True)]),
                             n_chance=5)
    assert ps3.within_scores.tolist() == [0.3, 1.0, 0.3, 0.3]
    ps4 = models.pair_scores(ann, groups=["g", "g", "h"], n_chance=5)
    assert ps4.group_names == ("g", "h") and ps4.within_groups.tolist() == [[0, 0], [1, 1],
                                                                             [1, 0], [1, 0]]


def test_pair_scores_with_an_estimator_and_real_annotations():
    from softirr_stats.equivalence import Levenshtein

    ann = Annotations.from_wide([["heart attack", "heart attacks"], ["flu", "flu"],
                                 ["cold", "flu"]])
    ps = models.pair_scores(ann, Levenshtein(), n_chance=20, seed=0)
    assert ps.within_scores[1] == 1.0 and 0.8 < ps.within_scores[0] < 1.0
    with pytest.raises(ValueError, match="no item has two"):
        models.pair_scores(DuckAnn([[0, -1], [-1, 1]], ["a", "b"]))


def test_pair_scores_validation():
    with pytest.raises(ValueError, match="within_scores must lie"):
        models.PairScores(within_scores=[1.2], within_raters=[[0, 1]], within_items=[0],
                          chance_scores=[0.1], n_raters=2, n_items=1)
    with pytest.raises(ValueError, match="two different raters"):
        models.PairScores(within_scores=[0.2], within_raters=[[1, 1]], within_items=[0],
                          chance_scores=[0.1], n_raters=2, n_items=1)
    with pytest.raises(ValueError, match="together"):
        models.PairScores(within_scores=[0.2], within_raters=[[0, 1]], within_items=[0],
                          chance_scores=[0.1], n_raters=2, n_items=1, gold_scores=[0.3])


def test_soft_log_density_by_hand():
    from scipy.stats import beta as beta_dist

    d = models.PairScores(within_scores=[0.9, 0.3], within_raters=[[0, 1], [0, 1]],
                          within_items=[0, 1], chance_scores=[0.2], n_raters=2, n_items=2,
                          gold_scores=[0.8], gold_labels=[1])
    p = {"mean_logit0": 0.0, "mean_gap_logit": 0.0, "concentration": np.array([4.0, 6.0]),
         "pi_chance": 0.25, "intercept": 0.5, "within_share_z": 0.0}
    _, tr = log_density(models.soft_agreement, (d,), {"rater_effects": False, "emission": "beta"},
                        p)
    f0 = beta_dist(2.0, 2.0).pdf
    f1 = beta_dist(4.5, 1.5).pdf  # mu1 = 0.75, concentration 6
    pw = 1 / (1 + np.exp(-0.5))
    want = (np.log(pw * f1(0.9) + (1 - pw) * f0(0.9)) + np.log(pw * f1(0.3) + (1 - pw) * f0(0.3))
            + np.log(0.25 * f1(0.2) + 0.75 * f0(0.2)) + np.log(f1(0.8)))
    got = float(tr["obs"]["fn"].log_prob(tr["obs"]["value"]).sum())
    assert got == pytest.approx(want, rel=1e-5)
    # kappa: the share of equivalent pairs among the observed within-item pairs (each pair's
    # P(equivalent | score); within_share_z = 0 drops the Bernoulli spread)
    resp = [pw * f1(s) / (pw * f1(s) + (1 - pw) * f0(s)) for s in (0.9, 0.3)]
    assert float(tr["pi_within_expected"]["value"]) == pytest.approx(pw, rel=1e-5)
    assert float(tr["kappa"]["value"]) == pytest.approx((np.mean(resp) - 0.25) / 0.75, rel=1e-5)


def test_simulators_shapes_and_truth():
    sim = models.simulate_dawid_skene(200, 4, 3, accuracy=[1.0, 0.9, 0.5, 0.0], missing=0.3,
                                      seed=0)
    codes = sim["codes"]
    assert codes.shape == (200, 4) and (codes >= 0).sum(1).min() >= 1
    obs0 = codes[:, 0] >= 0
    assert (codes[obs0, 0] == sim["truth"][obs0]).all()
    obs3 = codes[:, 3] >= 0
    assert not (codes[obs3, 3] == sim["truth"][obs3]).any()
    m = models.simulate_mace(100, 3, 4, competence=1.0, seed=0)
    assert (m["codes"] == m["truth"][:, None]).all()
