"""The soft model's profile-likelihood interval (``inference._soft_profile``) and the widening of
``annotator_agreement``'s interval by it: its pieces are the model's monotone emission, EM reaches
the weights' maximum, the interval collapses where the scores identify kappa and spans the range
where they do not, and the widening happens where (and only where) it reaches beyond."""

import warnings

import numpy as np
import pytest

from softirr_stats import models
from softirr_stats.agreement import NOTE_PREFIXES
from softirr_stats.inference import (
    PROFILE_REACH,
    FitWarning,
    ProfileInterval,
    SviConfig,
    annotator_agreement,
    fit,
    soft_profile_interval,
)
from softirr_stats.inference import _agreement as agreement_module
from softirr_stats.inference._soft_profile import cell_bases, fit_emission, profile_interval


def _bands(rng, n_within=450, n_chance=1000, p=0.5, q=0.03):
    eq_w, eq_c = rng.random(n_within) < p, rng.random(n_chance) < q
    ws = np.where(eq_w, rng.uniform(0.6, 1.0, n_within), rng.uniform(0.0, 0.35, n_within))
    cs = np.where(eq_c, rng.uniform(0.6, 1.0, n_chance), rng.uniform(0.0, 0.35, n_chance))
    return eq_w, eq_c, ws, cs


def _heavy(rng, n_within=450, n_chance=1000, p=0.5, q=0.03):
    """Heavy tails: 15% of each component's scores uniform on [0, 1] (the shape both share)."""
    eq_w, eq_c = rng.random(n_within) < p, rng.random(n_chance) < q

    def draw(eq):
        n = eq.size
        tail = rng.random(n) < 0.15
        hi = np.where(tail, rng.uniform(0, 1, n), rng.uniform(0.6, 1.0, n))
        lo = np.where(tail, rng.uniform(0, 1, n), rng.uniform(0.0, 0.4, n))
        return np.where(eq, hi, lo)

    return draw(eq_w), draw(eq_c)


def test_pieces_are_the_models_monotone_emission():
    """Weights through the cell bases give the cell masses the library's model gives."""
    import jax.numpy as jnp

    from softirr_stats.models._soft import cell_probabilities

    nb = 10
    rng = np.random.default_rng(3)
    w1, w0 = rng.dirichlet(np.ones(nb)), rng.dirichlet(np.ones(nb))
    m1, m0 = 0.2, 0.3  # masses at exactly 1 and exactly 0
    a1, a0 = cell_bases(nb)
    f1 = np.r_[(1 - m1) * w1, m1] @ a1
    f0 = np.r_[(1 - m0) * w0, m0] @ a0
    params = {"equiv_weights": jnp.asarray(w1, jnp.float32), "nonequiv_weights": jnp.asarray(w0, jnp.float32),
              "equiv_atoms": jnp.asarray([m1, 1 - m1], jnp.float32),
              "nonequiv_atoms": jnp.asarray([m0, 1 - m0], jnp.float32)}
    model = np.asarray(cell_probabilities(params, "monotone", nb), np.float64)
    # the library folds exact 0 into the first cell and exact 1 into the last
    ours = np.stack([f0[:nb], f1[:nb]])
    ours[:, 0] += [f0[nb], f1[nb]]
    ours[:, -1] += [f0[nb + 1], f1[nb + 1]]
    np.testing.assert_allclose(ours, model, atol=1e-6)


def test_em_beats_the_generating_weights_and_a_coarser_run():
    nb = 10
    rng = np.random.default_rng(5)
    a1, a0 = cell_bases(nb)
    w1, w0 = rng.dirichlet(np.ones(nb + 1)), rng.dirichlet(np.ones(nb + 1))
    f1, f0 = w1 @ a1, w0 @ a0
    p, q = 0.45, 0.05
    G = rng.multinomial(400, p * f1 + (1 - p) * f0).astype(float)
    H = rng.multinomial(900, q * f1 + (1 - q) * f0).astype(float)

    def ll(v1, v0):
        g, h = p * (v1 @ a1) + (1 - p) * (v0 @ a0), q * (v1 @ a1) + (1 - q) * (v0 @ a0)
        return float(np.sum(np.where(G > 0, G * np.log(g), 0)) + np.sum(np.where(H > 0, H * np.log(h), 0)))

    short = fit_emission(G, H, [p], [q], n_bins=nb, iters=20)[0][0]
    best, e1, e0, _, _ = fit_emission(G, H, [p], [q], n_bins=nb, iters=2000)
    assert best[0] == pytest.approx(ll(e1[0], e0[0]), rel=1e-12)
    assert best[0] >= ll(w1, w0) - 1e-9
    assert best[0] >= short - 1e-9


def test_separated_scores_identify_kappa():
    """Bands with a gap: every kappa of the profile's set gives the same realized estimate, the
    share of equivalent pairs against the chance pairs' share, and the interval is that estimate
    -+ its chance-pair spread (no equivalent pair is in doubt)."""
    eq_w, eq_c, ws, cs = _bands(np.random.default_rng(11))
    r = profile_interval(ws, cs, iters=300)
    pw, pc = eq_w.mean(), eq_c.mean()
    assert r.estimate == pytest.approx((pw - pc) / (1 - pc), abs=1e-6)
    half = 1.6448536 * np.sqrt(pc * (1 - pc) / 1000) * (1 - pw) / (1 - pc) ** 2
    assert r.upper - r.lower == pytest.approx(2 * half, rel=0.02)
    assert r.set_upper - r.set_lower > 0.05  # the population kappa stays open; the realized one does not
    assert not r.at_edge and r.level == 0.9


def test_shared_tail_leaves_a_range():
    """Heavy tails: the interval is several times wider than on separated bands of the same size."""
    rng = np.random.default_rng(2)
    _, _, ws, cs = _bands(rng)
    bands = profile_interval(ws, cs, iters=300)
    heavy = profile_interval(*_heavy(rng), iters=300)
    assert heavy.upper - heavy.lower > 4 * (bands.upper - bands.lower)


def test_exact_match_scores_collapse_to_one_estimate():
    """Scores of exact 0 / 1 only (exact matching): nothing is in doubt, so the interval is the
    realized kappa -+ the chance pairs' spread, whatever kappa the set allows."""
    rng = np.random.default_rng(4)
    ws = (rng.random(300) < 0.6).astype(float)
    cs = (rng.random(800) < 0.1).astype(float)
    r = profile_interval(ws, cs, iters=200)
    pw, pc = ws.mean(), cs.mean()
    assert r.estimate == pytest.approx((pw - pc) / (1 - pc), abs=1e-9)
    half = 1.6448536 * np.sqrt(pc * (1 - pc) / 800) * (1 - pw) / (1 - pc) ** 2
    assert r.upper - r.lower == pytest.approx(2 * half, rel=1e-3)


def test_a_wide_set_grows_the_grid():
    """Few pairs on overlapping scores: the set is wider than the first grid's 0.3 either side,
    so the grid grows until the set is inside it (or spans every kappa)."""
    rng = np.random.default_rng(8)
    eq = rng.random(30) < 0.5
    ws = np.where(eq, rng.beta(1.7, 0.7, 30), rng.beta(0.7, 1.7, 30))
    cs = rng.beta(0.7, 1.7, 40)
    r = profile_interval(ws, cs, iters=100, kappa_span=0.05, kappa_step=0.01)
    assert r.set_upper - r.set_lower > 0.1
    assert not r.at_edge or (r.set_lower <= -0.98 or r.set_upper >= 0.998)


def test_perfect_agreement_stops_at_one():
    """Every within-item pair scores 1 (a measure that calls every pair of the study equivalent):
    the set reaches kappa's bound, which is said (``at_edge``), and the interval stops at 1."""
    rng = np.random.default_rng(6)
    ws = np.where(rng.random(250) < 0.9, 1.0, rng.uniform(0.9, 1.0, 250))
    cs = rng.uniform(0.0, 0.3, 1000)
    r = profile_interval(ws, cs, iters=200)
    assert r.at_edge and r.set_upper >= 0.998 and r.upper <= 1.0
    assert r.estimate == pytest.approx(1.0, abs=1e-6)


def test_reach():
    r = ProfileInterval(0.5, 0.40, 0.70, 0.4, 0.6, False, 0.9)
    assert r.reach(0.45, 0.65) == pytest.approx(0.5)  # 0.05 above, half-width 0.1
    assert r.reach(0.30, 0.80) < 0  # inside
    assert r.reach(0.5, 0.5) == float("inf")
    assert ProfileInterval(0.5, 0.5, 0.5, 0.5, 0.5, False, 0.9).reach(0.5, 0.5) == 0.0


def test_notebook_view():
    html = ProfileInterval(0.5, 0.42, 0.58, 0.44, 0.999, True, 0.9)._repr_html_()
    assert "(90%)" in html and "0.999" in html and "reaches a bound of kappa" in html
    assert "<table" in html


def test_bad_input():
    with pytest.raises(ValueError, match=r"within_scores must be non-empty scores in \[0, 1\]"):
        profile_interval([0.2, 1.5], [0.1])
    with pytest.raises(ValueError, match="chance_scores must be non-empty"):
        profile_interval([0.2], [])
    with pytest.raises(ValueError, match="level"):
        profile_interval([0.2], [0.1], level=1.5)
    with pytest.raises(TypeError, match="PairScores"):
        soft_profile_interval([0.2, 0.3])


# --- annotator_agreement: where and how the profile interval widens the posterior interval ----

@pytest.fixture(scope="module")
def soft_post():
    data = models.simulate_soft_scores(40, 3, seed=1)["data"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit("soft", data, method="svi", config=SviConfig(steps=200, num_draws=200), progress=False)


def _summarise(post, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = annotator_agreement(post, predictive_check=False, prior_check=False, **kw)
    return r, [w for w in caught if "profile-likelihood interval" in str(w.message)]


def _patch_profile(monkeypatch, post, prof):
    """The profile interval the next summaries see: ``prof`` (the ones kept on the fit forgotten)."""
    monkeypatch.setattr(agreement_module, "soft_profile_interval", lambda *a, **k: prof)
    for key in [k for k in post._cache if isinstance(k, tuple) and k[0] == "profile_interval"]:
        monkeypatch.delitem(post._cache, key)


def test_the_profile_is_computed_from_the_fits_data(soft_post):
    r, _ = _summarise(soft_post, level=0.9)
    prof = r.details["profile_interval"]
    assert prof == soft_profile_interval(soft_post.data, 0.9)
    assert r.details["profile_reach"] == pytest.approx(prof.reach(*np.quantile(r.details["draws"], [0.05, 0.95])))


def test_the_profile_is_kept_on_the_fit_per_level(soft_post, monkeypatch):
    calls = []
    real = agreement_module.soft_profile_interval
    monkeypatch.setattr(agreement_module, "soft_profile_interval", lambda *a, **k: calls.append(a[1]) or real(*a, **k))
    for key in [k for k in soft_post._cache if isinstance(k, tuple) and k[0] == "profile_interval"]:
        monkeypatch.delitem(soft_post._cache, key)
    first, _ = _summarise(soft_post, level=0.8)
    again, _ = _summarise(soft_post, level=0.8)
    other, _ = _summarise(soft_post, level=0.7)
    assert calls == [0.8, 0.7]  # once per level
    assert again.details["profile_interval"] == first.details["profile_interval"]
    assert (again.ci_low, again.ci_high) == (first.ci_low, first.ci_high)
    assert other.details["profile_interval"].level == 0.7


def test_widen_report_off(soft_post, monkeypatch):
    """A profile interval reaching above the posterior interval: "widen" reports the union (SE
    scaled by the same factor) with a note, not a warning, while the posterior mean lies inside the
    profile interval; "report" warns and keeps the posterior interval; "off" computes nothing; one
    inside the posterior interval changes nothing and says nothing."""
    base, _ = _summarise(soft_post, profile_interval="off")
    assert "profile_interval" not in base.details and base.ci_method == "posterior (soft_agreement, svi)"
    assert base.warnings == ()
    lo, hi = base.ci_low, base.ci_high
    above = ProfileInterval(hi, lo, hi + (hi - lo), lo, hi, False, 0.95)  # reaches 2 half-widths above
    _patch_profile(monkeypatch, soft_post, above)
    wide, said = _summarise(soft_post)
    assert (wide.ci_low, wide.ci_high) == (pytest.approx(lo), pytest.approx(hi + (hi - lo)))
    assert wide.details["ci_widened"] and wide.details["profile_reach"] == pytest.approx(2.0)
    assert wide.se == pytest.approx(base.se * 2.0) and wide.details["profile_factor"] == pytest.approx(2.0)
    assert wide.value == base.value
    assert wide.ci_method.endswith("widened to the profile-likelihood interval")
    assert said == []  # the widened interval carries the range: a note, not a warning
    assert len(wide.notes) == 1 and wide.notes == wide.warnings
    assert wide.notes[0].startswith(agreement_module.PROFILE_NOTE) and "reported: the union" in wide.notes[0]
    assert agreement_module.PROFILE_NOTE in NOTE_PREFIXES and "1 note" in str(wide)
    kept, said = _summarise(soft_post, profile_interval="report")
    assert (kept.ci_low, kept.ci_high, kept.se) == (lo, hi, base.se) and not kept.details["ci_widened"]
    assert len(said) == 1 and said[0].category is FitWarning and "profile_interval='widen'" in str(said[0].message)
    assert kept.warnings == (str(said[0].message),)  # raised, and kept in the result's one channel of warnings
    inside = ProfileInterval(0.5 * (lo + hi), lo + 0.1 * (hi - lo), hi + PROFILE_REACH * 0.4 * (hi - lo), lo, hi,
                             False, 0.95)
    _patch_profile(monkeypatch, soft_post, inside)
    same, said = _summarise(soft_post)
    assert (same.ci_low, same.ci_high) == (lo, hi) and not same.details["ci_widened"] and said == []
    assert same.warnings == ()
    with pytest.raises(ValueError, match="profile_interval must be one of"):
        annotator_agreement(soft_post, profile_interval="union")


def test_a_profile_interval_apart_from_the_posterior_warns(soft_post, monkeypatch):
    """Where the profile interval and the posterior interval do not overlap, the likelihood and the posterior
    disagree (an unconverged SVI fit, a shape the emission does not hold): the union is reported
    and a FitWarning says why (the note would say it twice)."""
    base, _ = _summarise(soft_post, profile_interval="off")
    lo, hi = base.ci_low, base.ci_high
    apart = ProfileInterval(hi + 2 * (hi - lo), hi + (hi - lo), hi + 3 * (hi - lo), hi + (hi - lo),
                            hi + 3 * (hi - lo), False, 0.95)
    _patch_profile(monkeypatch, soft_post, apart)
    wide, said = _summarise(soft_post)
    assert (wide.ci_low, wide.ci_high) == (pytest.approx(lo), pytest.approx(hi + 3 * (hi - lo)))
    assert len(said) == 1 and said[0].category is FitWarning
    message = str(said[0].message)
    assert f"the two intervals do not overlap (posterior mean {base.value:.3f})" in message
    assert "the posterior and the likelihood disagree" in message
    assert wide.warnings == (message,)  # raised and kept once in the result (no note beside it saying it again)


def test_no_profile_with_gold_pairs_or_another_emission():
    sim = models.simulate_soft_scores(40, 3, n_gold=30, seed=2)
    cfg = SviConfig(steps=100, num_draws=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gold = fit("soft", sim["data"], method="svi", config=cfg, progress=False)
        beta = fit("soft", models.simulate_soft_scores(40, 3, seed=2)["data"], method="svi", config=cfg,
                   progress=False, emission="beta")
    for post in (gold, beta):
        r, said = _summarise(post)
        assert "profile_interval" not in r.details and said == []


def test_categorical_models_ignore_it():
    codes = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]] * 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        post = fit("dawid_skene", codes, method="svi", config=SviConfig(steps=100, num_draws=100),
                   progress=False)
    r, said = _summarise(post)
    assert "profile_interval" not in r.details and said == []
