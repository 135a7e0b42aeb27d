"""statsmodels' ``test_inter_rater.py`` cases and the R ``irr`` values it quotes, run against softirr_stats.

Source of every value: statsmodels (statsmodels/stats/tests/test_inter_rater.py): the SAS
printouts for Cohen's kappa on ``table10`` (kappa, ASE, H0 ASE, Z, p-values), Randolph's online
calculator for Fleiss' / free-marginal kappa, Wikipedia's Fleiss' kappa example, and R ``irr``
(``kappa2`` on the ``anxiety`` data, ``kappam.fleiss`` on Fleiss' (1971) ``diagnoses``). Only the
figures are used; the data are re-expanded from the published tables. The helpers
``to_table`` / ``aggregate_raters`` and fractional-count tables are not applicable; the interval
convention (statsmodels and SAS: normal quantile; ours: Student t with n - 1 df, as irrCAC) is
documented in docs/peer_conventions.md.
"""

import math

import numpy as np
import pytest

import softirr_stats as sis

# Wikipedia's Fleiss' kappa example as quoted by statsmodels (subjects x categories, counts)
TABLE1 = [[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
          [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]]
TABLE10 = np.array([[0, 4, 1], [0, 8, 0], [0, 1, 5]])  # SAS example (rows = rater 1)
# R irr's anxiety data (20 subjects x 3 raters), as statsmodels reproduces it
ANXIETY = np.array([[3, 3, 2], [3, 6, 1], [3, 4, 4], [4, 6, 4], [5, 2, 3], [5, 4, 2], [2, 2, 1], [3, 4, 6],
                    [5, 3, 1], [2, 3, 1], [2, 2, 1], [6, 3, 2], [1, 3, 3], [5, 3, 3], [2, 2, 1], [2, 2, 1],
                    [1, 1, 3], [2, 3, 3], [4, 3, 2], [3, 4, 2]])
# Fleiss (1971) diagnoses, 30 subjects x 6 raters (R irr's `diagnoses`, statsmodels' copy)
DIAGNOSES = [[4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5], [2, 2, 2, 4, 4, 4],
             [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4], [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5],
             [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4], [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5],
             [3, 3, 3, 3, 3, 5], [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
             [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4], [1, 4, 4, 4, 4, 5],
             [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4], [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5]]


def _counts_to_rows(counts):
    """Subjects x categories counts -> one row of ratings per subject (rater slots in order)."""
    return [[k for k, c in enumerate(row) for _ in range(int(c))] for row in counts]


def _table_to_rows(table):
    a, b = np.nonzero(table)
    return [[int(i), int(j)] for i, j in zip(a, b, strict=True) for _ in range(table[i, j])]


def _toeplitz(disagreement):
    """R irr's numeric weight vector: disagreement by |i - j|, as agreement 1 - d / max(d)."""
    d = np.asarray(disagreement, dtype=float)
    k = len(d)
    dist = np.abs(np.subtract.outer(np.arange(k), np.arange(k)))
    return 1.0 - d[dist] / d.max()


def test_fleiss_kappa_wikipedia():
    assert round(sis.fleiss_kappa(_counts_to_rows(TABLE1)).value, 3) == 0.210  # test_fleiss_kappa


@pytest.mark.parametrize(("counts", "fleiss", "randolph"), [
    ([[7, 1], [3, 5]], 0.161905, 0.214286),          # test_fleis_randolph (Randolph's calculator)
    ([[7, 0], [0, 7]], 1.0, 1.0),
    ([[6, 1, 0], [0, 7, 0]], 0.708333, 0.785714),
])
def test_fleiss_and_free_marginal_randolph(counts, fleiss, randolph):
    rows = _counts_to_rows(counts)
    q = list(range(len(counts[0])))  # Randolph's free-marginal kappa = Brennan-Prediger with q columns
    assert sis.fleiss_kappa(rows).value == pytest.approx(fleiss, abs=6e-6)
    assert sis.brennan_prediger(rows, categories=q).value == pytest.approx(randolph, abs=6e-6)


def test_free_marginal_all_one_category_is_one():
    # test_fleis_randolph: [[7, 0], [7, 0]] with method="unif" -> 1 (declared q = 2)
    assert sis.brennan_prediger(_counts_to_rows([[7, 0], [7, 0]]), categories=[0, 1]).value == 1.0


@pytest.mark.parametrize(("weights", "sas"), [
    # TestUnweightedCohens: kappa, ASE, [95% CI], ASE under H0, Z, one-sided, two-sided p
    (None, (0.4842, 0.1380, 0.2137, 0.7547, 0.1484, 3.2626, 0.0006, 0.0011)),
    # TestWeightedCohens: weights=[0, 1, 2] (linear)
    ("linear", (0.4701, 0.1457, 0.1845, 0.7558, 0.1426, 3.2971, 0.0005, 0.0010)),
])
def test_cohen_kappa_sas(weights, sas):
    kappa, ase, lo, hi, ase0, z, p1, p2 = sas
    r = sis.cohen_kappa(_table_to_rows(TABLE10), weights=weights, ci="analytic")
    assert round(r.value, 4) == kappa
    assert round(r.se, 4) == ase
    assert round(r.details["null_se"], 4) == ase0
    assert round(r.z, 4) == z
    assert round(r.p_value / 2, 4) == p1
    assert round(r.p_value, 4) == p2
    # the interval: SAS / statsmodels use the normal quantile, we use Student t(n - 1) (irrCAC);
    # with the normal quantile our SE gives SAS's limits
    assert round(r.value - 1.959963984540054 * r.se, 4) == lo
    assert round(r.value + 1.959963984540054 * r.se, 4) == hi


@pytest.mark.parametrize(("cols", "weights", "value", "z", "p"), [
    # test_cohens_kappa_irr, R: kappa2(anxiety[,2:3]) and its weighted variants
    ((1, 2), None, -0.006289308, -0.0604067, 0.9518317),
    ((1, 2), "linear", 0.1459075, 1.282472, 0.1996772),          # "equal"
    ((1, 2), "quadratic", 0.2520325, 1.437451, 0.1505898),       # "squared"
    ((1, 2), [0, 0, 1, 1, 2], 0.2391304, 1.223734, 0.2210526),   # c(0,0,1,1,2)
    # R: kappa2(anxiety[,1:2], c(0,0,0,1,1,1)) and c(0,0,1,1,2,2), quoted in the same test
    ((0, 1), [0, 0, 0, 1, 1, 1], 0.1891892, 0.5079002, 0.6115233),
    ((0, 1), [0, 0, 1, 1, 2, 2], 0.2820513, 1.257410, 0.2086053),
])
def test_cohen_kappa_r_irr(cols, weights, value, z, p):
    x = ANXIETY[:, list(cols)]
    # R irr weights factor levels by position (the levels present: 5 for raters 2-3, 6 for 1-2);
    # text labels with declared categories give us the same positions
    levels = sorted(set(x.ravel().tolist()))
    rows = [[str(v) for v in row] for row in x.tolist()]
    w = weights if weights is None or isinstance(weights, str) else _toeplitz(weights)
    r = sis.cohen_kappa(rows, weights=w, categories=[str(v) for v in levels], ci="analytic")
    assert r.value == pytest.approx(value, abs=5e-7)
    assert r.z == pytest.approx(z, abs=5e-6)
    assert r.p_value == pytest.approx(p, abs=5e-7)


def test_fleiss_kappa_r_irr():
    # test_fleiss_kappa_irr, R: kappam.fleiss(diagnoses): kappa 0.4302445, z 17.65183, p 0
    r = sis.fleiss_kappa(DIAGNOSES, ci="analytic")
    assert r.value == pytest.approx(0.4302445, abs=5e-8)
    assert r.z == pytest.approx(17.65183, abs=5e-6)
    assert r.p_value < 1e-60 and "Fleiss, Nee & Landis (1979)" in r.details["test"]


def test_cohen_kappa_weights_merging_categories():
    # test_cohenskappa_weights: weights that merge levels give kappa (and its variance) of the
    # merged table; the table is statsmodels' RandomState(9743678) draw
    rs = np.random.RandomState(9743678)
    table = rs.randint(0, 10, size=(5, 5)) + 5 * np.eye(5, dtype=int)
    mat = np.array([[1, 1, 1, 0, 0], [0, 0, 0, 1, 1]])
    table_agg = mat @ table @ mat.T
    g = (np.arange(5) > 2).astype(float)
    w = 1.0 - np.abs(g[:, None] - g[None, :])
    r1 = sis.cohen_kappa(_table_to_rows(table), weights=w, ci="analytic")
    r2 = sis.cohen_kappa(_table_to_rows(table_agg), ci="analytic")
    assert r1.value == pytest.approx(r2.value, abs=1e-12)
    assert r1.se == pytest.approx(r2.se, abs=1e-12)
    assert not math.isnan(r1.z) and r1.z == pytest.approx(r2.z, abs=1e-9)
