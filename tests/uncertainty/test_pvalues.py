"""z and p-values for H0: coefficient = 0 (analytic) and the permutation test.

Published values are checked in the peer modules (SAS / statsmodels and R irr in
tests/peers/test_statsmodels.py, irrCAC in tests/peers/test_irrcac.py); here: which variance is used when,
the fields and tables, and the permutation test's mechanics.
"""

import math
import warnings

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.agreement import point_estimate, resolve_similarity
from softirr_stats.uncertainty import Permutation, attach_permutation, permutation_values
from softirr_stats.uncertainty._permutation import permute_codes

# irrCAC's raw_4raters (K12, Gwet 2014): 12 units, 4 raters, one unit with a single rating
K12 = [[1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4],
       [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5], [None, None, 1, 1], [None, None, 3, None]]
ROWS = [["a", "a"], ["b", "b"], ["a", "a"], ["b", "a"], ["c", "c"], ["c", "c"], ["a", "b"], ["b", "b"]] * 2


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def test_no_test_without_a_request():
    r = sis.fleiss_kappa(ROWS)
    assert math.isnan(r.z) and math.isnan(r.p_value) and "test" not in r.details


def test_irrcac_convention_where_no_h0_variance_is_published():
    # Gwet's AC1 on K12: irrCAC's raw gwet p-value 0.00021 (test_gwet_raw4raters); z = value / se, t(11)
    r = sis.gwet_ac1(K12, ci="analytic")
    assert r.z == pytest.approx(r.value / r.se, rel=1e-12)
    assert round(r.p_value, 5) == 0.00021
    assert r.details["test"] == "analytic test of H0: coefficient = 0 (two-sided); irrCAC: value / se, Student t (11 df)"
    assert r.p_value == r.details["p_value_irrcac"]


def test_fleiss_with_missing_ratings_uses_irrcac():
    # Fleiss, Nee & Landis (1979) assume the same number of ratings per item: K12 has missing ones
    r = sis.fleiss_kappa(K12, ci="analytic")
    assert "irrCAC" in r.details["test"] and round(r.p_value, 5) == 0.00042  # test_fleiss_kappa_raw4raters


def test_h0_variance_for_complete_fleiss_and_two_rater_cohen():
    r = sis.fleiss_kappa(ROWS, ci="analytic")
    assert "Fleiss, Nee & Landis (1979)" in r.details["test"]
    assert r.z == pytest.approx(r.value / r.details["null_se"], rel=1e-12)
    c = sis.cohen_kappa(ROWS, ci="analytic")
    assert "Fleiss, Cohen & Everitt (1969)" in c.details["test"]
    # the soft (similarity) Cohen kappa uses the same H0 variance with S in place of the weights
    s = sis.cohen_kappa(ROWS, similarity=[[1, 0.5, 0], [0.5, 1, 0], [0, 0, 1]], ci="analytic")
    assert "Fleiss, Cohen & Everitt (1969)" in s.details["test"] and math.isfinite(s.z)


def test_alpha_uses_irrcac_with_its_df():
    # K12: 11 units with two or more ratings -> df 10 (R irrCAC krippen.alpha.raw), p 0.00046
    r = sis.krippendorff_alpha(K12, ci="analytic")
    assert r.details["analytic_df"] == 10 and r.details["analytic_n_items"] == 12
    assert round(r.p_value, 5) == 0.00046  # test_krippendorff_kappa_raw4raters
    assert round(r.ci_low, 3) == 0.419     # irrCAC's lower limit with df 10


def test_test_columns_in_to_frame():
    df = sis.fleiss_kappa(ROWS, ci="analytic").to_frame()
    assert {"z", "p_value", "test"} <= set(df.columns)


def test_zero_standard_error_gives_nan_with_a_reason():
    r = sis.percent_agreement([["a", "a"], ["b", "b"], ["a", "a"]], ci="analytic")
    assert math.isnan(r.p_value) and any("standard error is 0" in w for w in r.warnings)


# ------------------------------------------------------------------ permutation test

def test_permutations_keep_each_raters_labels_and_missing_cells():
    codes = np.array([[0, 1, -1], [1, -1, 2], [2, 2, 2], [0, 0, -1], [1, 1, 1]])
    p = permute_codes(codes, seed=3, start=0, stop=40)
    assert p.shape == (40, 5, 3)
    assert np.array_equal(p < 0, np.broadcast_to(codes < 0, p.shape))
    for j in range(3):
        assert (np.sort(p[:, :, j], axis=1) == np.sort(codes[:, j])).all()
    assert len({p[b].tobytes() for b in range(40)}) > 10  # the permutations differ


def test_permutations_do_not_depend_on_the_chunking():
    codes = np.arange(30).reshape(10, 3) % 4
    whole = permute_codes(codes, 7, 0, 600)
    assert np.array_equal(whole[250:530], permute_codes(codes, 7, 250, 530))
    ann = sis.Annotations.from_wide(ROWS)
    _, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    a = permutation_values(prep, Permutation(n=300, seed=1))
    b = permutation_values(prep, Permutation(n=300, seed=1, chunk_size=7))
    assert np.allclose(a, b, atol=1e-12, rtol=0)


def test_each_permuted_value_is_the_coefficient_of_that_permuted_data_set():
    ann = sis.Annotations.from_wide(K12)
    _, prep = point_estimate(ann, family="alpha", coefficient="krippendorff_alpha", sim=resolve_similarity(ann))
    vals = permutation_values(prep, Permutation(n=5, seed=2, chunk_size=2))
    perm = permute_codes(np.asarray(ann.codes), 2, 0, 5)
    for b in range(5):
        one = sis.Annotations(perm[b], ann.vocabulary, kind=ann.kind)
        assert vals[b] == pytest.approx(sis.krippendorff_alpha(one).value, abs=1e-12)


def test_permutation_test_public_function():
    r = sis.permutation_test(sis.fleiss_kappa, ROWS, n=299, seed=0, ci="analytic")
    assert r.ci_method == "analytic" and math.isfinite(r.ci_low)  # the interval is kept
    assert r.details["test"] == "permutation (labels permuted within raters), B=299"
    assert 1 / 300 <= r.p_value < 0.05 and r.z > 2
    again = sis.permutation_test("fleiss_kappa", ROWS, n=299, seed=0)
    assert again.p_value == r.p_value and again.z == r.z


def test_permutation_test_on_soft_agreement():
    r = sis.permutation_test("krippendorff_alpha", ROWS, n=199, similarity="levenshtein")
    assert r.similarity == "levenshtein" and 0 < r.p_value <= 1 and math.isfinite(r.z)


def test_permutation_p_value_is_large_without_agreement():
    rng = np.random.default_rng(0)
    rows = rng.integers(0, 3, size=(60, 3)).tolist()  # independent raters
    r = sis.permutation_test("fleiss_kappa", rows, n=199, seed=0)
    assert r.p_value > 0.05


def test_permutation_refuses_sampled_chance_and_bad_settings():
    with pytest.raises(ValueError, match="needs chance='exact'"):
        sis.permutation_test("fleiss_kappa", ROWS, n=20, chance=sis.MonteCarlo(permutations=3, seed=0))
    with pytest.raises((TypeError, ValueError), match="n must be"):
        sis.Permutation(n=0)
    with pytest.raises(ValueError, match="seed must be"):
        sis.Permutation(seed=-1)
    with pytest.raises(TypeError, match="Permutation"):
        ann = sis.Annotations.from_wide(ROWS)
        res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
        attach_permutation(res, prep, "permutation")


def test_permutation_p_value_formula_counts_ties_half():
    ann = sis.Annotations.from_wide(ROWS)
    res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    cfg = Permutation(n=399, seed=4)
    v = permutation_values(prep, cfg)
    t = res.value
    above, below = np.sum(v > t + 1e-12), np.sum(v < t - 1e-12)
    ties = 399 - above - below + 1
    expected = min(1.0, 2 * min(above + ties / 2, below + ties / 2) / 400)
    out = attach_permutation(res, prep, cfg)
    assert out.p_value == pytest.approx(expected, abs=1e-15)
    assert out.z == pytest.approx((t - v.mean()) / v.std(ddof=1), rel=1e-12)


def test_permutation_alternatives_are_the_tail_counts_of_the_permuted_values():
    """greater: P_upper = (#{T_b > T} + (#{T_b = T} + 1) / 2) / (B + 1), the mid-p form of (1 + #{T_b >= T}) / (B + 1);
    less: P_lower; two-sided: twice the smaller (unchanged). Counted here from the permuted values themselves."""
    ann = sis.Annotations.from_wide(ROWS)
    res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    v = permutation_values(prep, Permutation(n=399, seed=4))
    t = res.value
    above, below = np.sum(v > t + 1e-12), np.sum(v < t - 1e-12)
    ties = 399 - above - below + 1
    assert ties > 1  # the data have tied permuted values: the half counting matters
    upper, lower = (above + ties / 2) / 400, (below + ties / 2) / 400
    got = {a: sis.permutation_test("fleiss_kappa", ROWS, n=399, seed=4, alternative=a)
           for a in ("two-sided", "greater", "less")}
    assert got["greater"].p_value == pytest.approx(upper, abs=1e-15)
    assert got["less"].p_value == pytest.approx(lower, abs=1e-15)
    assert got["two-sided"].p_value == pytest.approx(min(1.0, 2 * min(upper, lower)), abs=1e-15)
    for a, r in got.items():
        assert r.details["alternative"] == a and r.z == got["two-sided"].z
        assert r.details["p_value_greater"] == got["greater"].p_value
        assert r.details["p_value_less"] == got["less"].p_value
    assert got["greater"].details["test"].endswith("one-sided, H1: more agreement than chance")
    with pytest.raises(ValueError, match="alternative must be one of"):
        sis.permutation_test("fleiss_kappa", ROWS, n=20, alternative="bigger")


def test_as_given_cohen_weights_analytic_se_is_fleiss_cohen_everitt():
    # irrCAC's cont4x4diagnosis with its custom (asymmetric) weights; FCE (1969) with w used as given
    t = np.array([[40, 4, 4, 17], [6, 25, 2, 13], [4, 1, 21, 12], [15, 5, 9, 45]])
    w = np.array([[1.0, 0.67, 0.33, 0.0], [0.0, 1.0, 0.67, 0.33], [0.0, 0.0, 1.0, 0.67], [0.33, 0.0, 0.0, 1.0]])
    a, b = np.nonzero(t)
    rows = [[int(i), int(j)] for i, j in zip(a, b, strict=True) for _ in range(t[i, j])]
    n = t.sum()
    p = t / n
    p1, p2 = p.sum(1), p.sum(0)
    pa, pe = float((w * p).sum()), float(p1 @ w @ p2)
    k = (pa - pe) / (1 - pe)
    w1, w2 = w @ p2, p1 @ w
    var = (float((p * (w - (w1[:, None] + w2[None, :]) * (1 - k)) ** 2).sum()) - (k - pe * (1 - k)) ** 2) / (
        n * (1 - pe) ** 2)
    r = sis.cohen_kappa(rows, weights=w, ci="analytic")
    assert r.value == pytest.approx(k, abs=1e-12) and round(r.value, 3) == 0.439  # irrCAC 0.439
    assert r.se == pytest.approx(math.sqrt(var), rel=1e-10)
    with pytest.raises(ValueError, match="no analytic variance"):
        sis.conger_kappa([[0, 1, 1], [1, 0, 1], [0, 0, 1], [1, 1, 0]], weights=[[1, 0.5], [0, 1]], ci="analytic")


def test_a_degenerate_permutation_distribution_gives_nan_z_with_a_warning():
    # Fleiss' kappa on continuous scores by exact matching: every label distinct, every permuted value the same
    # (sd ~1e-17), and z = (T - mean) / sd was reported as -9.997 with p = 1
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 2))
    with pytest.warns(sis.DegenerateWarning, match="permutation test degenerate"):
        r = sis.permutation_test(sis.fleiss_kappa, x, n=199, seed=0)
    vals = permutation_values(point_estimate(sis.Annotations.from_wide(x), family="pooled", coefficient="fleiss_kappa",
                                             sim=resolve_similarity(sis.Annotations.from_wide(x)))[1],
                              Permutation(n=199, seed=0))
    assert np.ptp(vals) < 1e-14  # the permuted values are one value
    # independently: no pair of ratings agrees, p_e = sum_k p_k^2 = 80 / 80^2
    assert abs(r.value - (0.0 - 1 / 80) / (1 - 1 / 80)) < 1e-12
    assert math.isnan(r.z) and r.p_value == 1.0  # T is that value: every permuted one ties with it
    assert any(w.startswith("permutation test degenerate") for w in r.warnings)
    # a permutation distribution with spread keeps its z
    rows = [["a", "a"], ["b", "b"], ["a", "b"], ["c", "c"], ["b", "b"], ["a", "a"]] * 5
    t = sis.permutation_test(sis.fleiss_kappa, rows, n=199, seed=0)
    assert math.isfinite(t.z) and not any("degenerate" in w for w in t.warnings)
    assert abs(t.z - (t.value - t.details["permutation_mean"]) / t.details["permutation_sd"]) < 1e-12


def test_lin_ccc_refuses_a_null_of_minus_one():
    # atanh(-1) = -inf gave z = inf and p = 0 for any data
    rng = np.random.default_rng(3)
    x = rng.normal(size=30)
    X = np.column_stack([x, 0.8 * x + 0.3 + 0.5 * rng.normal(size=30)])
    with pytest.raises(ValueError, match=r"null must be in \(-1, 1\) for lin_ccc's Fisher z test"):
        sis.lin_ccc(X, null=-1.0)
    r = sis.lin_ccc(X, null=-0.5)  # just above -1 the test is Lin's, as before
    n, (mx, my), (sx, sy) = len(x), X.mean(axis=0), X.var(axis=0)
    sxy = np.mean((X[:, 0] - mx) * (X[:, 1] - my))
    pc, rr = 2 * sxy / (sx + sy + (mx - my) ** 2), sxy / math.sqrt(sx * sy)
    u = (mx - my) / (sx * sy) ** 0.25
    vz = ((1 - rr**2) * pc**2 / ((1 - pc**2) * rr**2) + 2 * pc**3 * (1 - pc) * u**2 / (rr * (1 - pc**2) ** 2)
          - pc**4 * u**4 / (2 * rr**2 * (1 - pc**2) ** 2)) / (n - 2)  # Lin (1989), the variance of atanh(rho_c)
    assert abs(r.z - (math.atanh(pc) - math.atanh(-0.5)) / math.sqrt(vz)) < 1e-9
