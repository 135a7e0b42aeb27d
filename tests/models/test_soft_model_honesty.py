"""The soft model on perfectly separable scores measures its leak (and warns when it rivals the
interval); with ``drop_gap_pieces=True`` the leak across the gap is gone but the interval is
too narrow, and it warns too; fitted components that overlap warn."""

import re
import warnings

import numpy as np
import pytest

from softirr_stats.inference import PredictiveCheckWarning, SviConfig, fit
from softirr_stats.inference._soft_check import SEPARATION_RATIO, separation_leak
from softirr_stats.models import PairScores, gap_pieces
from softirr_stats.models._soft_separation import score_gap

CFG = SviConfig(steps=400, num_draws=200, guide="multivariate_normal", learning_rate=0.05)


def _study(shape: str, seed: int, n_items: int = 80, n_chance: int = 300) -> PairScores:
    """3 raters (accuracy 0.6-0.8) naming one of 30 concepts; scores by shape."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 30, n_items)
    ok = rng.random((n_items, 3)) < np.array([0.6, 0.7, 0.8])
    concepts = np.where(ok, truth[:, None], rng.integers(0, 30, (n_items, 3)))
    ra, rb = np.triu_indices(3, 1)
    items = np.repeat(np.arange(n_items), ra.size)
    wa, wb = np.tile(ra, n_items), np.tile(rb, n_items)
    eq_w = concepts[items, wa] == concepts[items, wb]
    flat = concepts.ravel()
    xa, xb = rng.integers(0, flat.size, n_chance), rng.integers(0, flat.size, n_chance)
    eq_c = flat[xa] == flat[xb]

    def draw(eq: np.ndarray) -> np.ndarray:
        n = eq.size
        hi, lo = rng.uniform(0.6, 1.0, n), rng.uniform(0.0, 0.35, n)
        if shape == "point_masses":
            hi = np.where(rng.random(n) < 0.5, 1.0, hi)
            lo = np.where(rng.random(n) < 0.5, 0.0, lo)
        if shape == "heavy_tails":
            tail = rng.random(n) < 0.15
            hi = np.where(tail, rng.uniform(0, 1, n), hi)
            lo = np.where(tail, rng.uniform(0, 1, n), lo)
        return np.where(eq, hi, lo)

    return PairScores(within_scores=draw(eq_w), within_raters=np.stack([wa, wb], 1),
                      within_items=items, chance_scores=draw(eq_c), n_raters=3,
                      n_items=n_items)


def test_score_gap_finds_bands_only():
    bands = _study("bands", 0)
    lo, hi = score_gap(np.r_[bands.within_scores, bands.chance_scores])
    assert lo <= 0.35 and hi >= 0.6 and hi - lo >= 0.25
    masses = _study("point_masses", 0)
    assert score_gap(np.r_[masses.within_scores, masses.chance_scores]) is not None
    tails = _study("heavy_tails", 0)
    assert score_gap(np.r_[tails.within_scores, tails.chance_scores]) is None
    assert score_gap([0.5]) is None
    assert score_gap(np.r_[np.zeros(500), [1.0]]) is None  # one side under min_share


def test_gap_pieces_masks():
    bands = _study("bands", 0)
    keep1, keep0 = gap_pieces(bands, 20)
    lo, hi = score_gap(np.r_[bands.within_scores, bands.chance_scores])
    edges = np.linspace(0, 1, 21)
    # kept equivalent pieces U[e_b, 1] start above the cell of the largest score under the gap,
    # kept non-equivalent pieces U[0, e_{b+1}] end at or below the cell of the smallest over it
    assert edges[:-1][keep1].min() > lo - 0.05 and edges[:-1][keep1].min() >= int(lo * 20 + 1) / 20
    assert edges[1:][keep0].max() <= int(hi * 20) / 20 + 1e-12
    assert keep1[-1] and keep0[0] and not keep1[0] and not keep0[-1]
    assert gap_pieces(_study("heavy_tails", 0), 20) is None


@pytest.mark.parametrize("shape,seed", [("bands", 1), ("point_masses", 2)])
def test_dropping_the_gap_pieces_removes_the_leak_and_still_warns(shape, seed):
    data = _study(shape, seed)
    post = fit("soft", data, method="svi", seed=0, config=CFG, progress=False,
               emission="monotone", drop_gap_pieces=True)
    keep1, keep0 = gap_pieces(data, 20)
    w1, w0 = post.samples["equiv_weights"], post.samples["nonequiv_weights"]
    assert (w1[:, ~keep1] == 0).all() and (w0[:, ~keep0] == 0).all()
    np.testing.assert_allclose(w1.sum(1), 1.0, rtol=1e-5)
    out = separation_leak(post, warn=False)
    assert out is not None and out["leak"] < 1e-6, out
    # every within-item pair is classified by its side of the gap: pi_within is the share
    share = float((data.within_scores >= 0.5).mean())
    assert abs(float(post.samples["pi_within"].mean()) - share) < 2e-3
    assert out["pieces_dropped"]
    # the interval is then too narrow under SVI (coverage study): the check says so
    with pytest.warns(PredictiveCheckWarning, match="drop_gap_pieces=True"):
        post.score_check()


@pytest.mark.parametrize("shape,seed", [("bands", 1), ("point_masses", 2)])
def test_separable_scores_measure_the_leak_and_warn_when_it_rivals_the_interval(shape, seed):
    post = fit("soft", _study(shape, seed), method="svi", seed=0, config=CFG, progress=False,
               emission="monotone")
    out = separation_leak(post, warn=False)
    # the leak is the model's upward bias of pi_within on these scores: positive
    assert out is not None and out["gap"][0] <= 0.35
    assert out["leak"] >= 0.2 * out["half_width"] > 0, out
    # the warning fires at the calibrated share of the half-width (1), not below it
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        post.score_check()
    warned = any("separate perfectly" in str(w.message) for w in rec)
    assert warned == (out["leak"] >= SEPARATION_RATIO * out["half_width"]), out
    # the old threshold (a fifth of the half-width) is one argument away
    with pytest.warns(PredictiveCheckWarning, match="separate perfectly") as rec:
        separation_leak(post, min_ratio=0.2)
    msg = next(str(w.message) for w in rec if "separate perfectly" in str(w.message))
    assert "raising pi_within by" in msg
    with warnings.catch_warnings():
        warnings.simplefilter("error", PredictiveCheckWarning)
        post.score_check(warn=False)


def _posterior_with_components(data: PairScores, equiv_piece: int, nonequiv_piece: int):
    """A monotone-emission posterior whose 50 draws put all weight on one piece each."""
    import jax

    from softirr_stats.inference import Posterior

    nb, s = 20, 50
    w1, w0 = np.zeros((s, nb)), np.zeros((s, nb))
    w1[:, equiv_piece], w0[:, nonequiv_piece] = 1.0, 1.0
    samples = {"equiv_weights": w1, "nonequiv_weights": w0,
               "equiv_atoms": np.tile([0.01, 0.99], (s, 1)),
               "nonequiv_atoms": np.tile([0.01, 0.99], (s, 1)),
               "pi_within": np.full(s, 0.5), "pi_chance": np.full(s, 0.05),
               "kappa": np.full(s, 0.47)}
    return Posterior(model_name="soft_agreement", kind="soft",
                     samples_by_chain={k: v[None] for k, v in samples.items()}, data=data,
                     method="svi", priors=None, model_kwargs={"emission": "monotone"},
                     extra={}, key=jax.random.key(0))


def test_overlapping_components_warn_and_separated_ones_do_not():
    data = _study("heavy_tails", 0)  # no score gap: the separation check stays out of it
    # both components uniform on [0, 1] (the widest pieces): all mass shared
    same = _posterior_with_components(data, 0, 19)
    with pytest.warns(PredictiveCheckWarning, match="overlap") as rec:
        same.score_check()
    assert any(re.search(r"\(0\.9\d of their mass is shared", str(w.message)) for w in rec)
    # U[0.6, 1] against U[0, 0.35]: nothing shared, no overlap warning
    apart = _posterior_with_components(data, 12, 6)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        apart.score_check()
    # the overlap warning's own words (the predictive check's text may name "overlapping bulks" as a cause)
    assert not any("of their mass is shared" in str(w.message) for w in rec)
