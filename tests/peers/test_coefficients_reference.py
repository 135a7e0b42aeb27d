"""Coefficients against published worked examples and peer packages (to 1e-9)."""

import krippendorff
import numpy as np
import pytest
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import binary_distance, masi_distance
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

import softirr_stats as sis
from softirr_stats.agreement import weight_matrix
from softirr_stats.equivalence import Exact, Masi

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")

N = None
# Krippendorff's reliability data = irrCAC::cac.raw4raters (docs/formulas/reference_values.md)
K12 = [[1, 1, N, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4],
       [1, 1, 2, 1], [2, 2, 2, 2], [N, 5, 5, 5], [N, N, 1, 1], [N, N, 3, N]]
# irrCAC::cont3x3abstractors
ABSTRACTORS = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
# Fleiss (1971): 10 subjects x 14 raters, counts per category
FLEISS71 = np.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
                     [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])


def _table_rows(table):
    a, b = np.nonzero(table)
    return [[int(i) + 1, int(j) + 1] for i, j in zip(a, b, strict=True) for _ in range(table[i, j])]


def _counts_rows(counts):
    return [[k for k, c in enumerate(r) for _ in range(c)] for r in counts]


# ----------------------------------------------------------------- published values
@pytest.mark.parametrize(("level", "expected"), [
    ("nominal", 0.7434210526), ("ordinal", 0.8153875038), ("interval", 0.8491071429), ("ratio", 0.7974027747)])
def test_krippendorff_k12_published(level, expected):
    assert sis.krippendorff_alpha(K12, level=level).value == pytest.approx(expected, abs=1e-10)


def test_krippendorff_k12_terms():
    r = sis.krippendorff_alpha(K12)
    assert 1 - r.observed == pytest.approx(0.2, abs=1e-12)
    assert 1 - r.expected == pytest.approx(0.7794871795, abs=1e-10)
    assert r.n_items == 12 and r.n_raters == 4


@pytest.mark.parametrize(("fn", "weights", "expected"), [
    (sis.percent_agreement, None, 0.8181818182), (sis.gwet_ac1, None, 0.7754440681),
    (sis.fleiss_kappa, None, 0.7611692754), (sis.brennan_prediger, None, 0.7727272727),
    (sis.conger_kappa, None, 0.7628174413),
    (sis.percent_agreement, "quadratic", 0.9753787879), (sis.gwet_ac1, "quadratic", 0.9140007236),
    (sis.fleiss_kappa, "quadratic", 0.8649350649), (sis.brennan_prediger, "quadratic", 0.9015151515),
])
def test_gwet_family_k12_irrcac(fn, weights, expected):
    """irrCAC 1.0 values on cac.raw4raters (docs/formulas/reference_values.md, unrounded)."""
    assert fn(K12, weights=weights).value == pytest.approx(expected, abs=1e-10)


def test_gwet_family_k12_expected_terms():
    assert sis.gwet_ac1(K12).expected == pytest.approx(0.1903211806, abs=1e-10)
    assert sis.fleiss_kappa(K12).expected == pytest.approx(0.2387152778, abs=1e-10)
    assert sis.conger_kappa(K12).expected == pytest.approx(0.2334251607, abs=1e-10)
    assert sis.gwet_ac1(K12, weights="quadratic").expected == pytest.approx(0.7137044271, abs=1e-10)
    assert sis.fleiss_kappa(K12, weights="quadratic").expected == pytest.approx(0.8177083333, abs=1e-10)


@pytest.mark.parametrize(("weights", "expected"), [
    ("linear", 0.80038), ("ordinal", 0.83364), ("circular", 0.78998), ("bipolar", 0.83499), ("ratio", 0.79740)])
def test_weighted_alpha_k12_irrcac(weights, expected):
    """irrCAC krippen.alpha.raw(weights=...) = alpha with distance 1 - w (5 decimals published)."""
    ann = sis.Annotations.from_wide(K12)
    w = weight_matrix(weights, ann.values())
    assert sis.krippendorff_alpha(ann, similarity=w).value == pytest.approx(expected, abs=5e-6)


def test_conger_quadratic_k12_irrcac():
    assert sis.conger_kappa(K12, weights="quadratic").value == pytest.approx(0.85771, abs=5e-6)


@pytest.mark.parametrize(("fn", "weights", "expected"), [
    (sis.cohen_kappa, None, 0.7964094022), (sis.cohen_kappa, "quadratic", 0.8921568627),
    (sis.cohen_kappa, "linear", 0.8429020280), (sis.scott_pi, None, 0.7962396962),
    (sis.krippendorff_alpha, None, 0.7972584977), (sis.gwet_ac1, None, 0.8493305482),
    (sis.brennan_prediger, None, 0.835), (sis.percent_agreement, None, 0.89),
])
def test_two_raters_abstractors_irrcac(fn, weights, expected):
    rows = _table_rows(ABSTRACTORS)
    kw = {} if fn is sis.krippendorff_alpha else {"weights": weights}
    assert fn(rows, **kw).value == pytest.approx(expected, abs=1e-10)


def test_fleiss_1971():
    """Fleiss (1971) worked example: kappa = 0.20993 (statsmodels agrees)."""
    r = sis.fleiss_kappa(_counts_rows(FLEISS71))
    assert r.value == pytest.approx(fleiss_kappa(FLEISS71), abs=1e-12)
    assert r.value == pytest.approx(0.2099, abs=1e-4)


def test_alpha_equals_pi_plus_small_sample_term():
    """Two raters, no missing data: alpha = pi + (1 - pi) / (2n) (docs/formulas/coefficients.md, 'Krippendorff's alpha')."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 4, 57)
    b = np.where(rng.random(57) < 0.5, a, rng.integers(0, 4, 57))
    rows = np.stack([a, b], 1).tolist()
    pi = sis.scott_pi(rows).value
    assert sis.krippendorff_alpha(rows).value == pytest.approx(pi + (1 - pi) / (2 * 57), abs=1e-12)


# ----------------------------------------------------------------- peer packages, random data
def _random_ratings(seed, n_items, n_raters, n_cats, p_missing=0.0, agree=0.6):
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, n_cats, n_items)
    x = np.where(rng.random((n_items, n_raters)) < agree, truth[:, None], rng.integers(0, n_cats, (n_items, n_raters)))
    x = x.astype(float) + 1.0
    x[rng.random(x.shape) < p_missing] = np.nan
    return x


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_vs_sklearn(seed, weights):
    x = _random_ratings(seed, 150, 2, 5)
    ours = sis.cohen_kappa(x.tolist(), weights=weights).value
    assert ours == pytest.approx(cohen_kappa_score(x[:, 0], x[:, 1], weights=weights), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_cohen_vs_statsmodels_table(seed):
    x = _random_ratings(seed, 120, 2, 4).astype(int)
    table = np.zeros((4, 4))
    np.add.at(table, (x[:, 0] - 1, x[:, 1] - 1), 1)
    assert sis.cohen_kappa(x.tolist()).value == pytest.approx(cohens_kappa(table).kappa, abs=1e-12)
    lin = cohens_kappa(table, wt="linear").kappa
    assert sis.cohen_kappa(x.tolist(), weights="linear").value == pytest.approx(lin, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_fleiss_vs_statsmodels_random(seed):
    x = _random_ratings(seed, 80, 6, 4).astype(int)
    table, _ = aggregate_raters(x)
    assert sis.fleiss_kappa(x.tolist()).value == pytest.approx(fleiss_kappa(table), abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_alpha_vs_krippendorff_random_missing(seed, level):
    x = _random_ratings(seed, 60, 5, 6, p_missing=0.3)
    ours = sis.krippendorff_alpha(x.tolist(), level=level).value
    ref = krippendorff.alpha(reliability_data=x.T, level_of_measurement=level)
    assert ours == pytest.approx(ref, abs=1e-9)


def test_nltk_alpha_pi_kappa_complete_data():
    x = _random_ratings(7, 40, 3, 4).astype(int)
    triples = [(f"r{j}", f"i{i}", int(x[i, j])) for i in range(40) for j in range(3)]
    task = AnnotationTask(data=triples, distance=binary_distance)
    assert sis.krippendorff_alpha(x.tolist()).value == pytest.approx(task.alpha(), abs=1e-9)
    assert sis.light_kappa(x.tolist()).value == pytest.approx(task.kappa(), abs=1e-9)


def test_soft_alpha_with_masi_matches_nltk():
    rng = np.random.default_rng(2)
    pool = ["a", "b", "c", "d"]
    sets = [[frozenset(rng.choice(pool, rng.integers(1, 4), replace=False)) for _ in range(3)] for _ in range(25)]
    triples = [(f"r{j}", f"i{i}", sets[i][j]) for i in range(25) for j in range(3)]
    task = AnnotationTask(data=triples, distance=masi_distance)
    ours = sis.krippendorff_alpha(sets, similarity=Masi(exact=True)).value  # nltk >= 3.9 uses 2/3, 1/3
    assert ours == pytest.approx(task.alpha(), abs=1e-9)


# ----------------------------------------------------------------- soft = hard under exact match
@pytest.mark.parametrize("fn", [sis.percent_agreement, sis.cohen_kappa, sis.scott_pi, sis.fleiss_kappa,
                                sis.conger_kappa, sis.light_kappa, sis.krippendorff_alpha, sis.gwet_ac1,
                                sis.brennan_prediger])
def test_soft_with_exact_equals_hard(fn):
    x = _random_ratings(11, 70, 2, 5, p_missing=0.1)
    labels = np.where(np.isnan(x), None, np.char.add("label-", np.nan_to_num(x).astype(int).astype(str))).tolist()
    ann = sis.Annotations.from_wide(labels)
    hard = fn(ann).value

    def exact_callable(a, b):  # goes through the scoring path (ScoredSimilarity), not the identity shortcut
        return np.array([float(u == v) for u, v in zip(a, b, strict=True)])

    assert fn(ann, similarity=Exact()).value == pytest.approx(hard, abs=1e-12)
    assert fn(ann, similarity=np.eye(len(ann.vocabulary))).value == pytest.approx(hard, abs=1e-12)
    assert fn(ann, similarity=exact_callable).value == pytest.approx(hard, abs=1e-12)
