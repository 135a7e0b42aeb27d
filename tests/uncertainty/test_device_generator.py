"""``Bootstrap(generator="jax")``: replicate weights drawn by ``jax.random`` where the kernels run.

The same contract as the host generator (tests/uncertainty/test_bootstrap_generator.py): replicate ``b`` depends on
(seed, stream, b) only, whatever the chunking; the design's constraints hold (counts sum to the
number of units, within strata); the weights have the multinomial / Dirichlet moments.
"""

import warnings

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.uncertainty._device_weights import BLOCK, device_unit_sampler

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

CODES = np.random.default_rng(0).integers(0, 4, (60, 3)).astype(object)
CODES[np.random.default_rng(1).random((60, 3)) < 0.1] = None
ANN = sis.Annotations.from_wide(CODES.tolist())
CLUSTERS = [i // 5 for i in range(60)]
STRATA = [i % 2 for i in range(60)]

DESIGNS = [("items", {}), ("bayesian", {}), ("raters", {}), ("items+raters", {}), ("cluster", {"cluster": CLUSTERS}),
           ("items", {"strata": STRATA}), ("bayesian", {"strata": STRATA})]


@pytest.mark.parametrize(("design", "extra"), DESIGNS)
def test_the_same_interval_under_any_chunking(design, extra):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = sis.fleiss_kappa(ANN, ci=sis.Bootstrap(n=120, design=design, generator="jax", seed=3, **extra))
        b = sis.fleiss_kappa(ANN, ci=sis.Bootstrap(n=120, design=design, generator="jax", seed=3, chunk_size=16,
                                                   **extra))
    assert np.isfinite([a.ci_low, a.ci_high]).all()
    assert a.ci_low == pytest.approx(b.ci_low, abs=1e-12) and a.ci_high == pytest.approx(b.ci_high, abs=1e-12)


@pytest.mark.parametrize(("start", "stop"), [(0, 1), (3, 40), (16, 32), (15, 17), (100, 131)])
def test_a_slice_of_replicates_is_the_same_replicates(start, stop):
    draw = device_unit_sampler(7, None, False, salt=1)
    whole = np.asarray(draw(11, 0, 160))
    assert np.array_equal(np.asarray(draw(11, start, stop)), whole[start:stop])
    assert not np.array_equal(np.asarray(device_unit_sampler(7, None, False, salt=2)(11, 0, 160)), whole)


def test_counts_stay_within_strata_and_have_the_multinomial_moments():
    strata = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2])
    w = np.asarray(device_unit_sampler(10, strata, False, salt=1)(0, 0, 4 * BLOCK))
    for s in range(3):
        assert (w[:, strata == s].sum(axis=1) == (strata == s).sum()).all()
    assert (w == np.round(w)).all() and (w >= 0).all()
    big = np.asarray(device_unit_sampler(1000, None, False, salt=1)(5, 0, 512))
    assert big.mean() == pytest.approx(1.0, abs=1e-12)  # every row sums to n
    assert big.var() == pytest.approx(1 - 1 / 1000, rel=0.02)  # Multinomial(n, 1/n): var 1 - 1/n


def test_dirichlet_weights_sum_to_the_stratum_sizes():
    strata = np.array([0, 1, 1, 1, 0, 1])
    w = np.asarray(device_unit_sampler(6, strata, True, salt=1)(2, 0, 32))
    assert np.allclose(w[:, strata == 0].sum(axis=1), 2) and np.allclose(w[:, strata == 1].sum(axis=1), 4)
    assert (w > 0).all()


def test_the_two_generators_agree_within_monte_carlo_error():
    rng = np.random.default_rng(4)
    truth = rng.integers(0, 3, 200)
    codes = np.where(rng.random((200, 3)) < 0.7, truth[:, None], rng.integers(0, 3, (200, 3)))
    ann = sis.Annotations.from_wide(codes.tolist())
    host = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=1000, seed=1))
    dev = sis.fleiss_kappa(ann, ci=sis.Bootstrap(n=1000, seed=1, generator="jax"))
    assert host.value == dev.value
    assert dev.se == pytest.approx(host.se, rel=0.15)  # the SE of a bootstrap SE at B = 1000 is about 2.2%
    assert abs(dev.ci_low - host.ci_low) < 0.5 * host.se and abs(dev.ci_high - host.ci_high) < 0.5 * host.se


def test_device_weights_reach_the_matrix_product_route_without_a_host_copy(monkeypatch):
    import jax.numpy as jnp

    from softirr_stats.agreement import _evaluator, point_estimate, resolve_similarity

    _, prep = point_estimate(ANN, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ANN))
    w = np.asarray(device_unit_sampler(60, None, False, salt=1)(0, 0, 64))
    monkeypatch.setattr(_evaluator, "LARGE_BATCH_ROUTE", "device")
    monkeypatch.setattr(_evaluator, "_NUMPY_MAX_MADDS", 0)  # force the JAX product for this small batch
    seen = []
    real = _evaluator._on_host
    monkeypatch.setattr(_evaluator, "_on_host", lambda x: seen.append(type(x).__module__) or real(x))
    from softirr_stats.base._jax import x64

    with x64():
        got = _evaluator.evaluate(prep, jnp.asarray(w))["value"]
    assert not any(m.startswith("jax") for m in seen)  # no JAX array was copied to the host
    assert np.allclose(got, _evaluator.evaluate(prep, w)["value"], rtol=0, atol=1e-12)


def test_an_unknown_generator_is_refused():
    with pytest.raises(ValueError, match=r"generator must be one of \['jax', 'numpy'\]"):
        sis.Bootstrap(generator="torch")
