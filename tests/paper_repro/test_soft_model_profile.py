"""The profile-likelihood interval of the soft model's kappa (paper_repro/soft_model_profile.py):
its pieces are the model's monotone emission, EM reaches the weights' maximum, the interval
collapses where the scores identify kappa and spans the range where they do not, rows resume."""

import csv
import doctest
import importlib.util
import pathlib
import sys

import numpy as np
import pytest

if importlib.util.find_spec("paper_repro") is None:  # top-level folder, not pip-installed
    sys.path.append(str(pathlib.Path(__file__).resolve().parents[2]))

from paper_repro import soft_model_profile as prof  # noqa: E402


def test_docstring_examples():
    assert doctest.testmod(prof).failed == 0


def test_pieces_are_the_models_monotone_emission():
    """Weights through the script's cell bases give the cell masses the library's model gives."""
    import jax.numpy as jnp

    from softirr_stats.models._soft import cell_probabilities

    nb = 10
    rng = np.random.default_rng(3)
    w1, w0 = rng.dirichlet(np.ones(nb)), rng.dirichlet(np.ones(nb))
    m1, m0 = 0.2, 0.3  # masses at exactly 1 and exactly 0
    a1, a0 = prof.cell_bases(nb)
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
    a1, a0 = prof.cell_bases(nb)
    w1, w0 = rng.dirichlet(np.ones(nb + 1)), rng.dirichlet(np.ones(nb + 1))
    f1, f0 = w1 @ a1, w0 @ a0
    p, q = 0.45, 0.05
    G = rng.multinomial(400, p * f1 + (1 - p) * f0).astype(float)
    H = rng.multinomial(900, q * f1 + (1 - q) * f0).astype(float)

    def ll(v1, v0):
        g, h = p * (v1 @ a1) + (1 - p) * (v0 @ a0), q * (v1 @ a1) + (1 - q) * (v0 @ a0)
        return float(np.sum(np.where(G > 0, G * np.log(g), 0)) + np.sum(np.where(H > 0, H * np.log(h), 0)))

    short = prof.fit_emission(G, H, [p], [q], n_bins=nb, iters=20)[0][0]
    best, e1, e0, _, _ = prof.fit_emission(G, H, [p], [q], n_bins=nb, iters=2000)
    assert best[0] == pytest.approx(ll(e1[0], e0[0]), rel=1e-12)
    assert best[0] >= ll(w1, w0) - 1e-9
    assert best[0] >= short - 1e-9


def test_separated_scores_identify_kappa():
    """Bands with a gap: every kappa of the profile's set gives the same realized estimate, the
    share of equivalent pairs against the chance pairs' share, and the interval is that estimate
    -+ its chance-pair spread (no equivalent pair is in doubt)."""
    rng = np.random.default_rng(11)
    eq_w, eq_c = rng.random(450) < 0.5, rng.random(1000) < 0.03
    ws = np.where(eq_w, rng.uniform(0.6, 1.0, 450), rng.uniform(0.0, 0.35, 450))
    cs = np.where(eq_c, rng.uniform(0.6, 1.0, 1000), rng.uniform(0.0, 0.35, 1000))
    r = prof.profile_interval(ws, cs, iters=300)
    pw, pc = eq_w.mean(), eq_c.mean()
    assert r["estimate"] == pytest.approx((pw - pc) / (1 - pc), abs=1e-6)
    half = 1.6448536 * np.sqrt(pc * (1 - pc) / 1000) * (1 - pw) / (1 - pc) ** 2
    assert r["upper"] - r["lower"] == pytest.approx(2 * half, rel=0.02)
    assert r["set_upper"] - r["set_lower"] > 0.05  # the population kappa stays open; the realized one does not


def test_shared_tail_leaves_a_range():
    """Heavy tails (a uniform tail in both components): the interval is several times wider than
    on the separated bands of the same study."""
    from paper_repro.soft_model_robustness import simulate_study

    width = {}
    for shape in ("bands", "heavy_tails"):
        d = simulate_study(shape, 1000)["data"]
        r = prof.profile_interval(d.within_scores, d.chance_scores, iters=300)
        width[shape] = r["upper"] - r["lower"]
    assert width["heavy_tails"] > 4 * width["bands"]


def test_rows_resume_and_tabulate(tmp_path):
    out = tmp_path / "rows.csv"
    first = prof.run(["bands"], 2, 1000, str(out))
    again = prof.run(["bands"], 2, 1000, str(out))
    assert len(first) == 2 and again == []
    with open(out) as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["seed"]) for r in rows] == [1000, 1001]
    assert set(rows[0]) == set(prof.COLUMNS)
    text = prof.table(rows)
    assert "| bands | 2 |" in text


def test_compare_with_the_posterior_rows():
    """Union coverage and the reach count, on two studies by hand: study 1 the posterior misses
    (truth above it) and the profile reaches 1 half-width above it; study 2 both cover."""
    rows = [{"shape": "heavy_tails", "seed": "1", "truth": "0.50", "lower": "0.44", "upper": "0.52"},
            {"shape": "heavy_tails", "seed": "2", "truth": "0.50", "lower": "0.47", "upper": "0.53"}]
    nuts = [{"shape": "heavy_tails", "seed": "1", "emission": "monotone", "lower": "0.44", "upper": "0.48"},
            {"shape": "heavy_tails", "seed": "2", "emission": "monotone", "lower": "0.46", "upper": "0.54"},
            {"shape": "heavy_tails", "seed": "1", "emission": "beta", "lower": "0.0", "upper": "1.0"},
            {"shape": "bands", "seed": "1", "emission": "monotone", "lower": "0.4", "upper": "0.6"}]
    text = prof.compare(rows, nuts)
    assert text.splitlines()[-1] == ("| heavy_tails | 2 | 100.0%, 0.070 | 50.0%, 0.060 | 100.0%, 0.080 "
                                     "| 1/1, 0/1 |")
