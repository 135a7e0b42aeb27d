"""The SVI objective in sorted site order: NumPyro's ``Trace_ELBO`` value, one program in every process.

NumPyro's ``Trace_ELBO`` forms its per-site terms in the order of a ``set`` of site names, so the
SVI program changed with the process's string-hash seed and JAX's persistent compilation cache
missed in nearly every new process. ``OrderedTraceELBO`` gives the same value (up to the order
of the additions) and the same program whatever the hash seed.
"""

import os
import subprocess
import sys
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from numpyro.infer import SVI, Trace_ELBO
from numpyro.infer.autoguide import AutoNormal

from softirr_stats import inference, models
from softirr_stats.inference._elbo import OrderedTraceELBO


def _soft_data():
    rng = np.random.default_rng(0)
    return models.PairScores(within_scores=rng.uniform(size=30), within_raters=[[0, 1], [0, 2], [1, 2]] * 10,
                             within_items=np.repeat(np.arange(10), 3), chance_scores=rng.uniform(size=40),
                             n_raters=3, n_items=10)


@pytest.mark.parametrize("particles", [1, 4])
def test_value_equals_numpyros_trace_elbo(particles):
    data = _soft_data()
    model = models.soft_agreement

    def loss(elbo):
        svi = SVI(model, AutoNormal(model), optax.adam(0.01), elbo)
        state = svi.init(jax.random.key(1), data)
        for _ in range(3):  # a few steps away from the initial point
            state, _ = svi.update(state, data)
        return float(svi.evaluate(state, data))

    ours, theirs = loss(OrderedTraceELBO(particles)), loss(Trace_ELBO(num_particles=particles))
    assert np.isfinite(ours)
    assert ours == pytest.approx(theirs, rel=1e-6)


def test_fit_uses_it_and_gives_the_same_fit():
    data = _soft_data()
    cfg = inference.SviConfig(steps=200, num_draws=50)
    post = inference.fit(models.soft_agreement, data, method="svi", seed=0, config=cfg, progress=False)
    losses = np.asarray(post.extra["losses"])
    assert losses.shape == (200,) and np.isfinite(losses).all()
    assert losses[-20:].mean() < losses[:20].mean()  # the objective is optimised, not only evaluated
    kappa = np.asarray(post.samples_by_chain["kappa"])
    assert kappa.shape == (1, 50) and np.isfinite(kappa).all()


_LOWER = textwrap.dedent("""
    import hashlib, jax, numpy as np, optax
    import numpyro, numpyro.distributions as dist
    from numpyro.infer import SVI
    from numpyro.infer.autoguide import AutoNormal
    from softirr_stats.inference._elbo import OrderedTraceELBO

    def model(y):  # nine latent sites: their set order differs between most hash seeds
        total = 0.0
        for name in ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"]:
            total = total + numpyro.sample(name, dist.Normal(0.0, 1.0))
        numpyro.sample("y", dist.Normal(total, 1.0), obs=y)

    y = jax.numpy.ones(5)
    svi = SVI(model, AutoNormal(model), optax.adam(0.1), OrderedTraceELBO())
    state = svi.init(jax.random.key(0), y)
    text = jax.jit(lambda s: svi.update(s, y)).lower(state).as_text(debug_info=False)
    print(hashlib.sha256(text.encode()).hexdigest())
""")


def test_program_is_the_same_whatever_the_hash_seed():
    """The optimisation step lowers to the same program under three string-hash seeds (three
    processes), so the persistent compilation cache finds it in a new process."""
    digests = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "JAX_PLATFORMS": "cpu"}
        out = subprocess.run([sys.executable, "-c", _LOWER], env=env, capture_output=True, text=True,
                             timeout=300, check=True)
        digests.add(out.stdout.strip().splitlines()[-1])
    assert len(digests) == 1


def test_loss_is_a_scalar_array():
    def model():
        import numpyro
        import numpyro.distributions as dist

        numpyro.sample("a", dist.Normal(0.0, 1.0))

    svi = SVI(model, AutoNormal(model), optax.adam(0.1), OrderedTraceELBO(2))
    state = svi.init(jax.random.key(0))
    loss = svi.evaluate(state)
    assert jnp.shape(loss) == () and bool(jnp.isfinite(loss))
