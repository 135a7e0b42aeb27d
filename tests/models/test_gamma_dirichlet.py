"""Dirichlet sites drawn as normalised Gammas (models/_gamma_dirichlet.py): the same distribution,
the same density of the soft model's sites, clear errors."""

import jax
import numpy as np
import numpyro
import numpyro.distributions as dist
import pytest
from numpyro.infer import Predictive
from numpyro.infer.util import log_density

from softirr_stats import models
from softirr_stats.models import GammaDirichlet, gamma_dirichlet_sites


def test_moments_are_the_dirichlets():
    """The emission's sparse prior (0.2 per piece) and uneven concentrations: mean and variance
    of the normalised Gamma draws against the Dirichlet's, within Monte Carlo error."""
    alpha = np.array([0.2, 0.2, 0.2, 1.0, 3.0])

    def model():
        numpyro.sample("w", dist.Dirichlet(alpha))

    w = np.asarray(Predictive(gamma_dirichlet_sites(model, ["w"]), num_samples=40_000)(jax.random.key(0))["w"],
                   np.float64)
    a0 = alpha.sum()
    mean, var = alpha / a0, alpha * (a0 - alpha) / (a0 ** 2 * (a0 + 1))
    assert np.allclose(w.sum(-1), 1.0, atol=1e-5)
    assert np.all(np.abs(w.mean(0) - mean) < 5 * np.sqrt(var / w.shape[0]))
    assert np.allclose(w.var(0), var, rtol=0.05)


def test_batched_site_keeps_its_shape():
    def model():
        numpyro.sample("w", dist.Dirichlet(np.ones(3)).expand((4,)))

    draws = Predictive(gamma_dirichlet_sites(model, ["w"]), num_samples=5)(jax.random.key(1))
    assert draws["w"].shape == (5, 4, 3) and draws["w_gamma"].shape == (5, 4, 3)
    assert np.allclose(np.asarray(draws["w"]).sum(-1), 1.0, atol=1e-5)


def test_soft_model_likelihood_is_unchanged():
    """At the same pieces and atoms the reparametrised soft model's likelihood term equals the
    model's own: only the prior's coordinates change."""
    rng = np.random.default_rng(0)
    data = models.PairScores(within_scores=rng.uniform(size=30), within_raters=[[0, 1], [0, 2], [1, 2]] * 10,
                             within_items=np.repeat(np.arange(10), 3), chance_scores=rng.uniform(size=40),
                             n_raters=3, n_items=10)
    sites = ("equiv_weights", "nonequiv_weights", "equiv_atoms", "nonequiv_atoms")
    trace = numpyro.handlers.trace(numpyro.handlers.seed(gamma_dirichlet_sites(models.soft_agreement, sites),
                                                         0)).get_trace(data)
    for name in sites:
        assert trace[name]["type"] == "deterministic" and trace[f"{name}_gamma"]["type"] == "sample"
    values = {k: v["value"] for k, v in trace.items() if v["type"] in ("sample", "deterministic")}
    plain = numpyro.handlers.trace(numpyro.handlers.substitute(numpyro.handlers.seed(models.soft_agreement, 0),
                                                               data=values)).get_trace(data)
    assert float(plain["obs"]["fn"].log_prob(plain["obs"]["value"]).sum()) == pytest.approx(
        float(trace["obs"]["fn"].log_prob(trace["obs"]["value"]).sum()), rel=1e-6)
    assert np.isfinite(float(log_density(gamma_dirichlet_sites(models.soft_agreement, sites), (data,), {},
                                         {k: v for k, v in values.items() if k.endswith("_gamma")
                                          or trace[k]["type"] == "sample"})[0]))


def test_errors():
    def observed():
        numpyro.sample("w", dist.Dirichlet(np.ones(3)), obs=np.array([0.2, 0.3, 0.5]))

    def not_dirichlet():
        numpyro.sample("w", dist.Normal(0.0, 1.0))

    with pytest.raises(ValueError, match="latent sites only"):
        numpyro.handlers.seed(gamma_dirichlet_sites(observed, ["w"]), 0)()
    with pytest.raises(TypeError, match="expects a Dirichlet"):
        numpyro.handlers.seed(gamma_dirichlet_sites(not_dirichlet, ["w"]), 0)()
    assert isinstance(GammaDirichlet(), numpyro.infer.reparam.Reparam)
