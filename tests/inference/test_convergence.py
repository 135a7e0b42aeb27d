"""Rank-normalised r_hat and bulk ESS against ArviZ, element by element."""

import warnings

import numpy as np
import pytest
from scipy import stats

from softirr_stats.inference._arviz import import_arviz
from softirr_stats.inference._convergence import _average_ranks, rank_diagnostics


def _ar1(rng: np.random.Generator, chains: int, draws: int, phi: float, width: int) -> np.ndarray:
    """AR(1) chains (phi < 0: antithetic, ESS above the draws) with a chain offset."""
    e = rng.normal(size=(chains, draws, width))
    x = np.empty_like(e)
    x[:, 0] = e[:, 0]
    for t in range(1, draws):  # a few hundred steps of test data
        x[:, t] = phi * x[:, t - 1] + e[:, t]
    return x + 0.3 * rng.normal(size=(chains, 1, width))


@pytest.mark.parametrize("chains", [2, 3, 4])
@pytest.mark.parametrize("draws", [4, 5, 7, 20, 101, 400])
@pytest.mark.parametrize("phi", [-0.6, 0.0, 0.5, 0.97])
def test_rank_rhat_and_bulk_ess_equal_arviz(chains, draws, phi):
    rng = np.random.default_rng(chains * 1000 + draws + int(phi * 100))
    x = _ar1(rng, chains, draws, phi, width=6)
    x[..., 5] = np.round(x[..., 5])  # ties: the average ranks
    rhat, ess = rank_diagnostics(x)
    az = import_arviz()
    np.testing.assert_allclose(rhat, az.rhat({"a": x}, method="rank")["a"].values, rtol=1e-10)
    np.testing.assert_allclose(ess, az.ess({"a": x}, method="bulk")["a"].values, rtol=1e-10)


def test_one_chain_compares_its_halves_where_arviz_gives_nan():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 1, (1, 200)), rng.normal(1, 1, (1, 200))], axis=1)
    rhat, ess = rank_diagnostics(x)
    assert rhat > 1.1 and np.isfinite(ess)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(import_arviz().rhat({"a": x}, method="rank")["a"].values)
    np.testing.assert_allclose(ess, import_arviz().ess({"a": x}, method="bulk")["a"].values, rtol=1e-10)


def test_a_shifted_tail_raises_the_rank_rhat_where_the_classic_one_stays_near_one():
    """Two chains with the same mean and different spread: the classic split r_hat (means only)
    stays at 1.00; the folded (tail) r_hat sees it."""
    from numpyro.diagnostics import split_gelman_rubin

    rng = np.random.default_rng(3)
    x = np.stack([rng.normal(0, 1, 1000), rng.normal(0, 2, 1000)])
    assert split_gelman_rubin(x) < 1.005
    assert rank_diagnostics(x)[0] > 1.05


def test_multi_dimensional_sites_keep_their_shape():
    x = np.random.default_rng(1).normal(size=(2, 50, 3, 4))
    rhat, ess = rank_diagnostics(x)
    assert rhat.shape == ess.shape == (3, 4)


@pytest.mark.parametrize("shape", [(2,), (2, 3), (3, 0)])
def test_too_few_draws_is_refused(shape):
    with pytest.raises(ValueError, match=">= 4 draws"):
        rank_diagnostics(np.zeros(shape))


def test_average_ranks_equal_scipy_with_and_without_ties():
    rng = np.random.default_rng(2)
    for rows in (rng.normal(size=(5, 31)), rng.integers(0, 4, size=(6, 40)).astype(float),
                 np.zeros((2, 9)), np.array([[2.0, 1.0, 2.0, 1.0]])):
        np.testing.assert_array_equal(_average_ranks(rows), stats.rankdata(rows, axis=1))
