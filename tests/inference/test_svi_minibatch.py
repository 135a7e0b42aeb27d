"""Minibatch (subsampled) SVI for the categorical annotator models.

The items plate of an :class:`ItemTable` is subsampled and its log-likelihood scaled by
``n_items / batch_size``: with every item in the batch the joint density (hence the ELBO)
equals the full-data one, and averaged over the batches of a partition of the items it equals
it too (the estimate is unbiased). The item-effect models sample their per-item effects inside
the plate (their prior scaled alike) and the guide reads the batch's rows of its per-item
parameters. Fits on minibatches recover the accuracies of EM and of the full-batch fit.
"""

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from numpyro import handlers
from numpyro.infer import Trace_ELBO, init_to_mean
from numpyro.infer.autoguide import AutoNormal
from numpyro.infer.util import log_density

from softirr_stats import inference, models
from softirr_stats.inference import SviConfig
from softirr_stats.inference._config import AUTO_BATCH_MIN_ITEMS, AUTO_BATCH_SIZE
from softirr_stats.inference._fit import _batched, _items_plate, resolve_batch_size
from softirr_stats.inference._lazy_adam import lazy_adam

MINIBATCH_MODELS = ["multinomial", "dawid_skene", "mace", "hierarchical_dawid_skene"]
ITEM_EFFECT_MODELS = ["item_difficulty", "logistic_random_effects"]
LOCAL = {"item_difficulty": "z", "logistic_random_effects": "u"}  # the per-item latent


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


# ------------------------------------------------------------------ per-item latents
def _batch_params(name, params, idx):
    """The global draws and the batch's rows of the per-item latent."""
    out = dict(params)
    out[LOCAL[name]] = params[LOCAL[name]][np.asarray(idx)]
    return out


@pytest.mark.parametrize("name", ITEM_EFFECT_MODELS)
def test_item_effects_with_every_item_in_the_batch_give_the_full_joint_density(small, name):
    params = _prior_draw(name, small)
    full = _log_joint(name, small, params)
    table = models.item_table(small)
    assert _log_joint(name, table, params) == pytest.approx(full, rel=1e-5)
    perm = np.random.default_rng(0).permutation(small.n_items)
    assert _log_joint(name, table, _batch_params(name, params, perm),
                      jnp.asarray(perm, jnp.int32)) == pytest.approx(full, rel=1e-5)


@pytest.mark.parametrize("name", ITEM_EFFECT_MODELS)
def test_item_effect_batches_of_a_partition_average_to_the_full_joint_density(small, name):
    # the per-item latents' prior is in the plate: scaled by n_items / batch_size like the
    # likelihood, so the partition average is the full joint (prior of every item included)
    params = _prior_draw(name, small, seed=1)
    full = _log_joint(name, small, params)
    b = 12
    table = models.item_table(small, b)
    perm = np.random.default_rng(1).permutation(small.n_items).reshape(-1, b)
    per_batch = [_log_joint(name, table, _batch_params(name, params, idx),
                            jnp.asarray(idx, jnp.int32)) for idx in perm]
    assert np.mean(per_batch) == pytest.approx(full, rel=1e-5)
    assert np.ptp(per_batch) > 1e-3 * abs(full)


@pytest.mark.parametrize("name", ITEM_EFFECT_MODELS)
def test_the_guide_reads_the_batch_rows_of_the_per_item_parameters(small, name):
    bmodel = _batched(models.MODEL_SPECS[name].model)
    table = models.item_table(small, 12)
    guide = AutoNormal(bmodel, init_loc_fn=init_to_mean(), init_scale=0.1,
                       create_plates=_items_plate)
    idx = jnp.asarray([5, 0, 59, 17, 3, 8, 41, 22, 30, 11, 2, 50], jnp.int32)
    with handlers.seed(rng_seed=0):
        guide(table, batch_index=idx)
    site = LOCAL[name]
    loc = jnp.arange(small.n_items * 6, dtype=jnp.float32).reshape(small.n_items, 3, 2)
    tiny = jnp.full((small.n_items, 3, 2), 1e-6)
    with handlers.trace() as tr, handlers.seed(rng_seed=1):
        handlers.substitute(guide, data={f"{site}_auto_loc": loc,
                                         f"{site}_auto_scale": tiny})(table, batch_index=idx)
    assert tr["items"]["value"].tolist() == idx.tolist()  # the guide's plate is the batch
    np.testing.assert_allclose(tr[site]["value"], loc[idx], atol=1e-4)  # and its rows
    assert tr[site]["scale"] == pytest.approx(small.n_items / 12)


@pytest.mark.parametrize("name", ITEM_EFFECT_MODELS)
def test_item_effect_elbo_on_batches_is_unbiased_for_the_full_elbo(small, name):
    model = models.MODEL_SPECS[name].model
    bmodel = _batched(model)
    table = models.item_table(small)
    guide = AutoNormal(bmodel, init_loc_fn=init_to_mean(), init_scale=0.1,
                       create_plates=_items_plate)
    every = jnp.arange(small.n_items, dtype=jnp.int32)
    with handlers.seed(rng_seed=0):
        guide(table, batch_index=every)
    params = {k: s["value"] for k, s in handlers.trace(handlers.seed(guide, 0)).get_trace(
        table, batch_index=every).items() if s["type"] == "param"}
    params = {k: v + 0.3 * jax.random.normal(jax.random.key(i), v.shape)
              if k.endswith("_loc") else v for i, (k, v) in enumerate(sorted(params.items()))}
    fguide = AutoNormal(model, init_loc_fn=init_to_mean(), init_scale=0.1)
    with handlers.seed(rng_seed=0):
        fguide(small)
    key = jax.random.key(4)
    elbo = Trace_ELBO(num_particles=1000)
    full = float(jax.jit(lambda p: elbo.loss(key, p, model, fguide, small))(params))

    @jax.jit
    def loss(params, table, idx):
        return elbo.loss(key, params, bmodel, guide, table, batch_index=idx)

    assert float(loss(params, table, every)) == pytest.approx(full, rel=1e-5)
    b = 12
    perm = np.random.default_rng(2).permutation(small.n_items).reshape(-1, b)
    est = [float(loss(params, table.with_batch_size(b), jnp.asarray(i, jnp.int32)))
           for i in perm]
    # Monte Carlo error of 1000 particles: ~5e-4 relative here
    assert np.mean(est) == pytest.approx(full, rel=3e-3)
    assert np.ptp(est) > 1e-2 * abs(full)


def test_lazy_adam_is_adam_where_every_gradient_is_non_zero():
    params = jnp.zeros(4)
    lazy, adam = lazy_adam(0.05), optax.adam(0.05)
    s1, s2 = lazy.init(params), adam.init(params)
    rng = np.random.default_rng(0)
    for _ in range(6):
        g = jnp.asarray(rng.normal(size=4) + 3.0, jnp.float32)
        u1, s1 = lazy.update(g, s1, params)
        u2, s2 = adam.update(g, s2, params)
        np.testing.assert_allclose(u1, u2, rtol=1e-5)


def test_lazy_adam_leaves_elements_without_a_gradient_alone():
    params = jnp.zeros(3)
    opt = lazy_adam(0.1)
    state = opt.init(params)
    _, state = opt.update(jnp.array([1.0, 1.0, 1.0]), state, params)
    upd, after = opt.update(jnp.array([2.0, 0.0, 0.0]), state, params)
    assert upd[1] == 0.0 and upd[2] == 0.0  # no stale momentum
    assert after.mu[1] == state.mu[1] and after.nu[1] == state.nu[1]
    assert after.seen.tolist() == [2, 1, 1] and int(after.count) == 2
    # the next visit of element 1 is the second Adam step of that element
    upd, _ = opt.update(jnp.array([0.0, 2.0, 0.0]), after, params)
    _, s = optax.adam(0.1).update(jnp.array([1.0]), optax.adam(0.1).init(jnp.zeros(1)))
    ref, _ = optax.adam(0.1).update(jnp.array([2.0]), s)
    assert float(upd[1]) == pytest.approx(float(ref[0]), rel=1e-5)


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


@pytest.fixture(scope="module")
def lre_fits():
    sim = models.simulate_dawid_skene(1500, 5, 3, accuracy=np.linspace(0.55, 0.95, 5),
                                      missing=0.2, seed=11)
    cfg = {"steps": 1500, "num_draws": 200}
    full = inference.fit("logistic_random_effects", sim["codes"], method="svi", progress=False,
                         config=SviConfig(batch_size=None, **cfg))
    mini = inference.fit("logistic_random_effects", sim["codes"], method="svi", progress=False,
                         config=SviConfig(batch_size=150, local_steps=9, **cfg))
    return full, mini


def test_minibatch_svi_with_item_effects_recovers_the_full_batch_fit(lre_fits):
    full, mini = lre_fits
    assert mini.extra["batch_size"] == 150
    # every item's effects are drawn, as on the full batch
    assert mini.samples["u"].shape == full.samples["u"].shape == (200, 1500, 3, 2)
    assert mini.samples["beta"].shape == (200, 5, 3, 3)
    # measured: accuracies within 0.002, kappa within 5e-4; the tolerances are about the
    # posterior sd (0.01 for the accuracies and 0.015 for kappa at 1,500 items)
    np.testing.assert_allclose(_accuracy(mini), _accuracy(full), atol=0.015)
    assert float(np.mean(mini.kappa)) == pytest.approx(float(np.mean(full.kappa)), abs=0.01)
    assert float(np.std(mini.kappa)) == pytest.approx(float(np.std(full.kappa)), rel=0.3)
    # the items' class posteriors (through each item's drawn effects) agree too; measured:
    # mean |difference| 0.003, the same most probable class for 99.6% of the items
    p_full, p_mini = full.class_probabilities(), mini.class_probabilities()
    assert np.abs(p_full - p_mini).mean() < 0.02
    assert (p_full.argmax(-1) == p_mini.argmax(-1)).mean() > 0.98


def test_minibatch_item_difficulty_fit_draws_every_item():
    sim = models.simulate_dawid_skene(120, 3, 2, accuracy=0.85, seed=5)
    post = inference.fit("item_difficulty", sim["codes"], method="svi", progress=False,
                         config=SviConfig(steps=60, num_draws=20, batch_size=40, local_steps=2))
    assert post.extra["batch_size"] == 40 and post.extra["losses"].shape == (60,)
    assert post.samples["z"].shape == (20, 120, 2, 1)
    assert np.all(np.isfinite(post.samples["z"])) and np.all(np.isfinite(post.kappa))


def test_local_steps_must_be_a_positive_int():
    with pytest.raises(ValueError, match="local_steps"):
        SviConfig(local_steps=0)


# ------------------------------------------------------------------ choosing the batch size
def test_auto_is_off_for_small_data_and_on_for_large_data():
    small = models.encode_annotations(np.zeros((AUTO_BATCH_MIN_ITEMS - 1, 2), int), n_classes=2)
    large = models.encode_annotations(np.zeros((AUTO_BATCH_MIN_ITEMS, 2), int), n_classes=2)
    assert resolve_batch_size("auto", "dawid_skene", "categorical", small) is None
    assert resolve_batch_size("auto", "dawid_skene", "categorical", large) == AUTO_BATCH_SIZE
    assert resolve_batch_size("auto", "item_difficulty", "categorical", large) == AUTO_BATCH_SIZE
    assert resolve_batch_size("auto", "logistic_random_effects", "categorical", small) is None
    assert resolve_batch_size("auto", "soft_agreement", "soft", large) is None
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


@pytest.mark.parametrize("name", ITEM_EFFECT_MODELS)
def test_item_effect_models_need_the_mean_field_guide_to_minibatch(name):
    codes = models.simulate_dawid_skene(30, 3, 2, seed=0)["codes"]
    with pytest.raises(ValueError, match="per-item latent effects.*guide='normal'"):
        inference.fit(name, codes, method="svi",
                      config=SviConfig(batch_size=10, guide="multivariate_normal"))
    large = models.encode_annotations(np.zeros((AUTO_BATCH_MIN_ITEMS, 2), int), n_classes=2)
    assert resolve_batch_size("auto", name, "categorical", large, "multivariate_normal") is None
    assert resolve_batch_size(10, name, "categorical", large) == 10


def test_other_models_refuse_minibatches():
    def custom(data, priors=None):
        pass

    with pytest.raises(ValueError, match="custom cannot be fitted on minibatches of items: is "
                                         "not a categorical annotator model"):
        inference.fit(custom, np.zeros(3), method="svi", config=SviConfig(batch_size=2))


def test_the_soft_model_refuses_minibatches_and_auto_keeps_it_on_the_full_data():
    from softirr_stats.data import Annotations

    codes = Annotations(models.simulate_dawid_skene(40, 3, 2, accuracy=0.8, seed=0)["codes"],
                        ["no", "yes"])
    with pytest.raises(ValueError, match="soft_agreement cannot be fitted on minibatches of "
                                         "items: the soft-agreement model's likelihood runs "
                                         "over pairs of ratings"):
        inference.fit("soft", codes, method="svi", config=SviConfig(batch_size=8))
    assert resolve_batch_size("auto", "soft_agreement", "soft", object()) is None
    post = inference.fit("soft", codes, method="svi", progress=False,
                         config=SviConfig(steps=20, num_draws=10))  # "auto": the full data
    assert post.extra["batch_size"] is None


def test_the_minibatch_bar_ends_its_line_when_a_step_raises(monkeypatch):
    """A step that raises (or Ctrl-C) still closes the bar, so the error line starts on a line of its own."""
    from softirr_stats.inference import _progress

    closed = []

    class Bar:
        def update(self, n):
            pass

        def close(self):
            closed.append(True)

    calls = []

    def failing(fn):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return fn()

    monkeypatch.setattr(_progress, "progress_bar", lambda total, desc, unit="it": Bar())
    monkeypatch.setattr(_progress, "interruptibly", failing)
    sim = models.simulate_dawid_skene(200, 3, 2, accuracy=0.8, seed=0)
    with pytest.raises(KeyboardInterrupt):
        inference.fit(models.dawid_skene, sim["codes"], method="svi", seed=0, progress=True,
                      config=inference.SviConfig(steps=60, num_draws=20, batch_size=40))
    assert len(calls) == 2 and closed == [True]
