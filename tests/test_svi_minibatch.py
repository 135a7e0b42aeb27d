"""Minibatch (subsampled) SVI for the categorical annotator models.

The items plate of an :class:`ItemTable` is subsampled and its log-likelihood scaled by
``n_items / batch_size``: with every item in the batch the joint density (hence the ELBO)
equals the full-data one, and averaged over the batches of a partition of the items it equals
it too (the estimate is unbiased). Fits on minibatches recover the accuracies of EM and of the
full-batch fit.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from numpyro import handlers
from numpyro.infer import Trace_ELBO, init_to_mean
from numpyro.infer.autoguide import AutoNormal
from numpyro.infer.util import log_density

from softirr_stats import inference, models
from softirr_stats.inference import SviConfig
from softirr_stats.inference._config import AUTO_BATCH_MIN_ITEMS, AUTO_BATCH_SIZE
from softirr_stats.inference._fit import _batched, resolve_batch_size

MINIBATCH_MODELS = ["multinomial", "dawid_skene", "mace", "hierarchical_dawid_skene"]


@pytest.fixture(scope="module")
def small():
    sim = models.simulate_dawid_skene(60, 4, 3, accuracy=[0.6, 0.7, 0.8, 0.9], missing=0.25,
                                      seed=3)
    return models.encode_annotations(sim["codes"])


def _prior_draw(name, data, seed=0):
    def draw(key):
        tr = handlers.trace(handlers.seed(models.MODEL_SPECS[name].model, key)).get_trace(data)
        return {k: s["value"] for k, s in tr.items()
                if s["type"] == "sample" and not s["is_observed"]}

    return jax.jit(draw)(jax.random.key(seed))


def _log_joint(name, data, params, batch_index=None):
    """log p(params, y) (one compiled program per model and data kind: fast to test)."""
    fn = _batched(models.MODEL_SPECS[name].model)

    @jax.jit
    def joint(data, params, batch_index):
        kwargs = {} if batch_index is None else {"batch_index": batch_index}
        return log_density(fn, (data,), kwargs, params)[0]

    if isinstance(data, models.AnnotationData):  # not a pytree: closed over
        return float(jax.jit(lambda p: log_density(fn, (data,), {}, p)[0])(params))
    return float(joint(data, params, batch_index))


# ------------------------------------------------------------------ the padded table
def test_item_table_holds_every_rating_once():
    codes = np.array([[0, 1, -1], [-1, -1, 2], [1, 1, 1], [-1, 0, -1]])
    data = models.encode_annotations(codes, n_classes=3)
    t = models.item_table(data)
    assert t.labels.shape == (4, 3) and t.batch_size == 4 and t.n_obs == data.n_obs
    it, slot = np.nonzero(t.labels >= 0)
    got = sorted(zip(it.tolist(), t.raters[it, slot].tolist(), t.labels[it, slot].tolist(),
                     strict=True))
    want = sorted(zip(data.items.tolist(), data.raters.tolist(), data.labels.tolist(),
                      strict=True))
    assert got == want


def test_item_table_keeps_repeated_ratings():
    data = models.AnnotationData(items=np.array([0, 0, 0, 1]), raters=np.array([0, 0, 1, 1]),
                                 labels=np.array([1, 1, 0, 0]), n_items=2, n_raters=2,
                                 n_classes=2)
    t = models.item_table(data)
    assert t.labels.tolist() == [[1, 1, 0], [0, -1, -1]]
    assert t.raters.tolist()[0] == [0, 0, 1]


def test_item_table_refuses_an_unbalanced_design():
    n = 200_000  # one item with 100 ratings, the rest one each: 2e7 slots for 2e5 ratings
    items = np.concatenate([np.zeros(100, int), np.arange(1, n)])
    data = models.AnnotationData(items=items, raters=np.zeros(items.size, int),
                                 labels=np.zeros(items.size, int), n_items=n, n_raters=1,
                                 n_classes=2)
    with pytest.raises(ValueError, match="item 0 has 100 ratings"):
        models.item_table(data)


# ------------------------------------------------------------------ the subsample scaling
@pytest.mark.parametrize("name", MINIBATCH_MODELS)
def test_all_items_in_the_batch_give_the_full_joint_density(small, name):
    params = _prior_draw(name, small)
    full = _log_joint(name, small, params)
    table = models.item_table(small)  # batch_size = n_items: no subsampling
    assert _log_joint(name, table, params) == pytest.approx(full, rel=1e-5)
    # the same with an explicit permutation of all items as the batch
    perm = jnp.asarray(np.random.default_rng(0).permutation(small.n_items), jnp.int32)
    assert _log_joint(name, table, params, perm) == pytest.approx(full, rel=1e-5)


@pytest.mark.parametrize("name", MINIBATCH_MODELS)
def test_batches_of_a_partition_average_to_the_full_joint_density(small, name):
    params = _prior_draw(name, small, seed=1)
    full = _log_joint(name, small, params)
    b = 12  # 60 items: 5 batches
    table = models.item_table(small, b)
    perm = np.random.default_rng(1).permutation(small.n_items).reshape(-1, b)
    per_batch = [_log_joint(name, table, params, jnp.asarray(idx, jnp.int32)) for idx in perm]
    assert np.mean(per_batch) == pytest.approx(full, rel=1e-5)
    assert np.ptp(per_batch) > 1e-3 * abs(full)  # the batches really differ


def test_the_batch_log_likelihood_is_scaled_by_items_over_batch(small):
    table = models.item_table(small, 15)
    params = _prior_draw("dawid_skene", small)
    model = handlers.substitute(handlers.seed(models.dawid_skene, 0), params)
    idx = jnp.arange(15, dtype=jnp.int32)
    with handlers.trace() as tr, handlers.substitute(data={"items": idx}):
        model(table)
    assert tr["obs"]["scale"] == pytest.approx(small.n_items / 15)
    assert tr["obs"]["fn"].log_factor.shape == (15,)


def test_elbo_with_every_item_in_the_batch_equals_the_full_elbo(small):
    guide = AutoNormal(models.dawid_skene, init_loc_fn=init_to_mean(), init_scale=0.1)
    with handlers.seed(rng_seed=0):
        guide(small)  # sets the guide up (its parameters are global: one set for both)
    params = {k: s["value"] for k, s in handlers.trace(handlers.seed(guide, 0)).get_trace(
        small).items() if s["type"] == "param"}
    key = jax.random.key(4)
    elbo = Trace_ELBO(num_particles=4)
    bmodel = _batched(models.dawid_skene)
    full = float(jax.jit(lambda p: elbo.loss(key, p, models.dawid_skene, guide, small))(params))

    @jax.jit
    def loss(params, table, idx):
        return elbo.loss(key, params, bmodel, guide, table, batch_index=idx)

    table = models.item_table(small)
    every = jnp.arange(small.n_items, dtype=jnp.int32)
    assert float(loss(params, table, every)) == pytest.approx(full, rel=1e-5)
    b = 20
    btable = models.item_table(small, b)
    perm = np.random.default_rng(2).permutation(small.n_items).reshape(-1, b)
    est = [float(loss(params, btable, jnp.asarray(i, jnp.int32))) for i in perm]
    assert np.mean(est) == pytest.approx(full, rel=1e-5)
    assert np.ptp(est) > 1e-3 * abs(full)


# ------------------------------------------------------------------ fitting
@pytest.fixture(scope="module")
def ds_fits():
    sim = models.simulate_dawid_skene(1500, 5, 3, accuracy=np.linspace(0.55, 0.95, 5),
                                      missing=0.2, seed=11)
    em = models.dawid_skene_em(sim["codes"])
    cfg = {"steps": 800, "num_draws": 200}
    full = inference.fit("dawid_skene", sim["codes"], method="svi", progress=False,
                         config=SviConfig(batch_size=None, **cfg))
    mini = inference.fit("dawid_skene", sim["codes"], method="svi", progress=False,
                         config=SviConfig(batch_size=150, **cfg))
    return em, full, mini


def _accuracy(post):
    return post.rater_accuracy()["accuracy"].to_numpy()


def test_minibatch_svi_recovers_the_em_and_full_batch_accuracies(ds_fits):
    em, full, mini = ds_fits
    assert mini.extra["batch_size"] == 150 and full.extra["batch_size"] is None
    assert mini.samples["beta"].shape == full.samples["beta"].shape == (200, 5, 3, 3)
    # tolerance 0.015: the posterior sd of each accuracy is ~0.01 at 1,500 items
    np.testing.assert_allclose(_accuracy(mini), em.accuracy, atol=0.015)
    np.testing.assert_allclose(_accuracy(mini), _accuracy(full), atol=0.015)
    assert np.all(np.isfinite(mini.extra["losses"]))
    assert mini.extra["losses"].shape == (800,)


def test_minibatch_fit_of_a_model_with_a_deterministic_site():
    sim = models.simulate_dawid_skene(120, 3, 2, accuracy=0.85, seed=5)
    post = inference.fit("hierarchical_dawid_skene", sim["codes"], method="svi",
                         progress=False, config=SviConfig(steps=50, num_draws=20, batch_size=40))
    assert post.samples["beta"].shape == (20, 3, 2, 2)
    assert np.all(np.isfinite(post.samples["beta"]))


# ------------------------------------------------------------------ choosing the batch size
def test_auto_is_off_for_small_data_and_on_for_large_data():
    small = models.encode_annotations(np.zeros((AUTO_BATCH_MIN_ITEMS - 1, 2), int), n_classes=2)
    large = models.encode_annotations(np.zeros((AUTO_BATCH_MIN_ITEMS, 2), int), n_classes=2)
    assert resolve_batch_size("auto", "dawid_skene", "categorical", small) is None
    assert resolve_batch_size("auto", "dawid_skene", "categorical", large) == AUTO_BATCH_SIZE
    assert resolve_batch_size("auto", "item_difficulty", "categorical", large) is None
    assert resolve_batch_size(None, "dawid_skene", "categorical", large) is None
    assert SviConfig().batch_size == "auto"


@pytest.mark.parametrize("bad", [0, -5, 1.5, "big", True, "AUTO"])
def test_bad_batch_size_in_the_config(bad):
    with pytest.raises(ValueError, match="batch_size"):
        SviConfig(batch_size=bad)


def test_batch_size_larger_than_the_items():
    codes = models.simulate_dawid_skene(30, 3, 2, seed=0)["codes"]
    with pytest.raises(ValueError, match=r"batch_size must lie in \[1, n_items = 30\]; got 31"):
        inference.fit("dawid_skene", codes, method="svi", config=SviConfig(batch_size=31))
    with pytest.raises(ValueError, match="batch_size"):
        models.item_table(models.encode_annotations(codes), 0)


@pytest.mark.parametrize("name", ["item_difficulty", "logistic_random_effects"])
def test_item_effect_models_refuse_minibatches(name):
    codes = models.simulate_dawid_skene(30, 3, 2, seed=0)["codes"]
    with pytest.raises(ValueError, match="per-item latent effects"):
        inference.fit(name, codes, method="svi", config=SviConfig(batch_size=10))
    table = models.item_table(models.encode_annotations(codes), 10)
    with pytest.raises(ValueError, match="per-item latent effects"):
        handlers.seed(models.MODEL_SPECS[name].model, 0)(table)


def test_other_models_refuse_minibatches():
    def custom(data, priors=None):
        pass

    with pytest.raises(ValueError, match="custom is not a categorical annotator model"):
        inference.fit(custom, np.zeros(3), method="svi", config=SviConfig(batch_size=2))
