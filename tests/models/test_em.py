"""EM Dawid-Skene / MACE in JAX against a plain numpy EM and the Bayesian fits."""

import numpy as np
import pytest

from softirr_stats import models


def numpy_ds_em(codes: np.ndarray, k: int, n_iter: int = 100, tol: float = 1e-5):
    """Reference EM (majority-vote start, maximum likelihood), dense numpy."""
    obs = codes >= 0
    onehot = np.zeros(codes.shape + (k,))
    onehot[obs] = np.eye(k)[codes[obs]]
    t = onehot.sum(1)
    t /= t.sum(1, keepdims=True)
    for _ in range(n_iter):
        pi = t.mean(0)
        conf = np.einsum("ic,ijk->jck", t, onehot)
        conf /= np.maximum(conf.sum(-1, keepdims=True), 1e-30)
        logp = np.log(np.maximum(pi, 1e-30)) + np.einsum(
            "ijk,jck->ic", onehot, np.log(np.maximum(conf, 1e-30)))
        new = np.exp(logp - logp.max(1, keepdims=True))
        new /= new.sum(1, keepdims=True)
        done = np.abs(new - t).max() <= tol
        t = new
        if done:
            break
    pi = t.mean(0)
    conf = np.einsum("ic,ijk->jck", t, onehot)
    conf /= np.maximum(conf.sum(-1, keepdims=True), 1e-30)
    return pi, conf, t


@pytest.fixture(scope="module")
def sim():
    return models.simulate_dawid_skene(400, 5, 4, accuracy=[0.5, 0.6, 0.7, 0.8, 0.9],
                                       missing=0.2, seed=3)


def test_dawid_skene_em_matches_numpy_em(sim):
    res = models.dawid_skene_em(sim["codes"])
    pi, conf, t = numpy_ds_em(sim["codes"], 4)
    np.testing.assert_allclose(res.prevalence, pi, atol=1e-4)
    np.testing.assert_allclose(res.confusion, conf, atol=1e-4)
    np.testing.assert_allclose(res.posterior, t, atol=1e-3)
    assert res.n_iter == 100 or res.converged
    assert models.dawid_skene_em(sim["codes"], n_iter=2000, tol=1e-3).converged
    np.testing.assert_array_less(np.abs(res.accuracy - sim["accuracy"]), 0.06)
    assert (res.labels() == sim["truth"]).mean() > 0.85
    text = repr(res)
    assert "dawid_skene" in text and len(text) < 300


def test_em_agrees_with_the_bayesian_fit(sim):
    from softirr_stats.inference import SviConfig, fit

    post = fit(models.dawid_skene, sim["codes"], method="svi", seed=0, progress=False,
               config=SviConfig(steps=800, num_draws=300, learning_rate=0.05))
    em = models.dawid_skene_em(sim["codes"], smoothing=1.0)
    acc = post.rater_accuracy()["accuracy"].to_numpy()
    np.testing.assert_array_less(np.abs(acc - em.accuracy), 0.05)
    assert (post.aggregated_labels() == em.labels()).mean() > 0.97


def test_mace_em_recovers_competence():
    sim = models.simulate_mace(3000, 5, 3, competence=[0.3, 0.5, 0.7, 0.8, 0.9], seed=5)
    res = models.mace_em(sim["codes"])
    np.testing.assert_array_less(np.abs(res.params["theta"] - sim["theta"]), 0.06)
    np.testing.assert_array_less(np.abs(res.accuracy - sim["accuracy"]), 0.04)
    np.testing.assert_allclose(res.confusion.sum(-1), 1.0, atol=1e-5)


def test_em_validates():
    with pytest.raises(ValueError, match="n_iter"):
        models.dawid_skene_em([[0, 1]], n_iter=0)
    with pytest.raises(ValueError, match="smoothing"):
        models.mace_em([[0, 1]], smoothing=-1.0)


def test_em_stopped_at_n_iter_warns_with_the_iterations_used(sim):
    from softirr_stats.inference import ConvergenceWarning

    for fn, name in ((models.dawid_skene_em, "dawid_skene_em"), (models.mace_em, "mace_em")):
        with pytest.warns(ConvergenceWarning, match=rf"^{name} stopped after n_iter=2 iterations without "
                                                    rf"converging .* raise n_iter \(e.g. {name}\(\.\.\., n_iter=20\)\)"):
            res = fn(sim["codes"], n_iter=2)
        assert res.n_iter == 2 and not res.converged


def test_converged_em_does_not_warn(sim):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert models.dawid_skene_em(sim["codes"], n_iter=2000).converged
        assert models.mace_em(sim["codes"], n_iter=2000).converged
