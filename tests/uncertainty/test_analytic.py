"""Analytic (linearised) standard errors against irrCAC, statsmodels and the item bootstrap."""

import math
import warnings

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa as sm_cohens_kappa

import softirr_stats as sis
from softirr_stats.agreement import as_annotations, point_estimate, resolve_similarity
from softirr_stats.uncertainty._analytic import (
    Analytic,
    analytic_interval,
    attach_analytic,
    reinterval,
)

NAN = None
# Krippendorff's 12 units x 4 coders = irrCAC::cac.raw4raters (docs/formulas/reference_values.md).
K12 = [[1, 1, NAN, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4], [4, 4, 4, 4],
       [1, 1, 2, 1], [2, 2, 2, 2], [NAN, 5, 5, 5], [NAN, NAN, 1, 1], [NAN, NAN, 3, NAN]]

# irrCAC::cont3x3abstractors (rows = rater A, columns = rater B), n = 100.
CONT3X3 = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])

# docs/formulas/reference_values.md: irrCAC 1.0 raw functions on K12, unrounded (R 4.2.2 on the package source).
# name -> (weights, coefficient, standard error)
K12_IRRCAC = {
    ("percent_agreement", None): (0.8181818182, 0.1256089599),
    ("percent_agreement", "quadratic"): (0.9753787879, 0.0906162783),
    ("gwet_ac1", None): (0.7754440681, 0.1429499506),
    ("gwet_ac1", "quadratic"): (0.9140007236, 0.1039622446),
    ("fleiss_kappa", None): (0.7611692754, 0.1530192035),
    ("fleiss_kappa", "quadratic"): (0.8649350649, 0.1460336108),
    ("brennan_prediger", None): (0.7727272727, 0.1447166199),
    ("brennan_prediger", "quadratic"): (0.9015151515, 0.1108943750),
    ("krippendorff_alpha", None): (0.7434210526, 0.1455738870),
    ("krippendorff_alpha", "quadratic"): (0.8491071429, 0.1291299657),
}
# irrCAC prints Conger's SE rounded to 5 decimals (docs/formulas/reference_values.md).
K12_CONGER_ROUNDED = {None: (0.7628174413, 0.14917), "quadratic": (0.85771, 0.14367)}
# AC1 on K12 with N_pop = 100 (finite-population correction), docs/formulas/reference_values.md.
K12_AC1_NPOP100_SE = 0.1340989403

# docs/formulas/reference_values.md: irrCAC 2-rater table functions on cont3x3abstractors (unrounded).
CONT3X3_IRRCAC = {
    ("cohen_kappa", None): (0.7964094022, 0.0589107183),
    ("cohen_kappa", "quadratic"): (0.8921568627, 0.0353515076),
    ("cohen_kappa", "linear"): (0.8429020280, 0.0478721216),
    ("scott_pi", None): (0.7962396962, 0.0590547333),
    ("gwet_ac1", None): (0.8493305482, 0.0432174675),
    ("brennan_prediger", None): (0.835, 0.0469334635),
    ("percent_agreement", None): (0.89, 0.0312889757),
    ("krippendorff_alpha", None): (0.7972584977, 0.0590547333),  # alpha's SE = Scott's (2 raters)
}


def _rows(table: np.ndarray) -> list[list[int]]:
    a, b = np.nonzero(table)
    return [[int(i), int(j)] for i, j in zip(a, b, strict=True) for _ in range(table[i, j])]


def _call(name: str, data, weights, **kw):
    fn = getattr(sis, name)
    if name == "krippendorff_alpha":
        return fn(data, level="interval" if weights == "quadratic" else "nominal", **kw)
    return fn(data, weights=weights, **kw)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # K12 has a single-rating unit (a documented warning)
        yield


@pytest.mark.parametrize(("name", "weights"), list(K12_IRRCAC))
def test_k12_matches_irrcac_raw(name, weights):
    coef, se = K12_IRRCAC[(name, weights)]
    r = _call(name, K12, weights, ci="analytic")
    assert r.value == pytest.approx(coef, abs=1e-9)
    assert r.se == pytest.approx(se, abs=1e-9)
    assert r.ci_method == "analytic" and r.level == 0.95
    assert r.details["analytic_form"] == "raw"
    # irrCAC interval: coef +- t_{n-1} SE with the upper limit truncated at 1 (n = 12 rated units;
    # alpha: n = 11 units with two or more ratings, R irrCAC krippen.alpha.raw)
    h = (2.228138851986274 if name == "krippendorff_alpha" else 2.200985160082949) * r.se  # qt(0.975, 10 | 11)
    assert r.ci_low == pytest.approx(coef - h, abs=1e-8)
    assert r.ci_high == pytest.approx(min(1.0, coef + h), abs=1e-8)


@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_k12_conger_matches_irrcac_rounded(weights):
    coef, se = K12_CONGER_ROUNDED[weights]
    r = sis.conger_kappa(K12, weights=weights, ci="analytic")
    assert r.value == pytest.approx(coef, abs=6e-6)
    assert round(r.se, 5) == se


def test_k12_ac1_finite_population():
    ann = as_annotations(K12)
    res, prep = point_estimate(ann, family="ac1", coefficient="gwet_ac1", sim=resolve_similarity(ann))
    out = attach_analytic(res, prep, Analytic(population=100))
    assert out.se == pytest.approx(K12_AC1_NPOP100_SE, abs=1e-9)
    assert out.se == pytest.approx(K12_IRRCAC[("gwet_ac1", None)][1] * math.sqrt(1 - 12 / 100), abs=1e-9)
    # re-deriving the interval from a default analytic result gives the same numbers
    again = reinterval(sis.gwet_ac1(K12, ci="analytic"), Analytic(population=100))
    assert again.se == pytest.approx(out.se, rel=1e-12)
    assert (again.ci_low, again.ci_high) == pytest.approx((out.ci_low, out.ci_high), rel=1e-12)


@pytest.mark.parametrize(("name", "weights"), list(CONT3X3_IRRCAC))
def test_cont3x3_matches_irrcac_table(name, weights):
    coef, se = CONT3X3_IRRCAC[(name, weights)]
    r = _call(name, _rows(CONT3X3), weights if name != "krippendorff_alpha" else None, ci="analytic")
    assert r.value == pytest.approx(coef, abs=1e-9)
    assert r.se == pytest.approx(se, abs=1e-9)
    assert r.details["analytic_form"] == "table"


def test_cont3x3_cohen_interval_matches_irrcac():
    r = sis.cohen_kappa(_rows(CONT3X3), ci="analytic")
    assert (round(r.ci_low, 3), round(r.ci_high, 3)) == (0.68, 0.913)  # irrCAC kappa2.table


@pytest.mark.parametrize(("weights", "sm_wt"), [(None, None), ("linear", "linear"), ("quadratic", "quadratic")])
def test_cohen_matches_statsmodels_std_kappa(weights, sm_wt):
    # statsmodels' std_kappa is the FCE (1969) non-null asymptotic SE (divisor n); its std_kappa0
    # is the null SE, which must never be used for an interval.
    rng = np.random.default_rng(3)
    table = rng.integers(0, 30, (4, 4)) + np.diag(rng.integers(20, 60, 4))
    sm = sm_cohens_kappa(table, wt=sm_wt) if sm_wt else sm_cohens_kappa(table)
    r = sis.cohen_kappa(_rows(table), weights=weights, ci="analytic")
    assert r.value == pytest.approx(sm.kappa, abs=1e-12)
    assert r.se == pytest.approx(sm.std_kappa, rel=1e-10)
    assert not r.se == pytest.approx(sm.std_kappa0, rel=1e-3)


def test_soft_is_weighted_formula_with_w_equal_s():
    # docs/formulas/coefficients.md ('Soft generalisations'): soft Fleiss / Cohen / alpha are the weighted formulas with W = S.
    labels = ["fever", "fevers", "cough", "coughing", "rash"]
    rng = np.random.default_rng(0)
    data = np.asarray(labels, dtype=object)[rng.integers(0, 5, (60, 3))].tolist()
    ann = as_annotations(data)

    def sim(a, b):
        return np.array([1.0 if x == y else (0.8 if x[:4] == y[:4] else 0.1) for x, y in zip(a, b, strict=True)])

    voc = list(ann.vocabulary)
    s = np.array([[1.0 if x == y else (0.8 if x[:4] == y[:4] else 0.1) for y in voc] for x in voc])
    for name in ("fleiss_kappa", "conger_kappa", "gwet_ac1", "percent_agreement"):
        fn = getattr(sis, name)
        by_est = fn(ann, similarity=sim, ci="analytic")
        by_s = fn(ann, similarity=s, ci="analytic")
        assert by_est.value == pytest.approx(by_s.value, abs=1e-12)
        assert by_est.se == pytest.approx(by_s.se, rel=1e-10)
        if name != "gwet_ac1":  # a weights= matrix is the same W
            assert fn(ann, weights=s, ci="analytic").se == pytest.approx(by_est.se, rel=1e-10)
    a_est = sis.krippendorff_alpha(ann, similarity=sim, ci="analytic")
    a_mat = sis.krippendorff_alpha(ann, similarity=s, ci="analytic")
    assert a_est.se == pytest.approx(a_mat.se, rel=1e-10) and a_est.se > 0


def test_analytic_se_close_to_item_bootstrap():
    # 500 items, 4 raters, 10% missing; the linearised SE estimates the item-sampling SE.
    rng = np.random.default_rng(1)
    n, r, k = 500, 4, 4
    truth = rng.integers(0, k, n)
    codes = np.where(rng.random((n, r)) < 0.6, truth[:, None], rng.integers(0, k, (n, r))).astype(object)
    codes[rng.random((n, r)) < 0.1] = None
    data = codes.tolist()
    a = sis.fleiss_kappa(data, ci="analytic").se
    b = sis.fleiss_kappa(data, ci=sis.Bootstrap(n=600, seed=0)).se
    assert abs(a / b - 1) < 0.1, (a, b)


def test_cohen_with_missing_uses_raw_form_and_tracks_bootstrap():
    # Gwet's form counts single-rating items as zero-agreement terms (irrCAC), which makes it
    # conservative when many items have one rating (here 10%): within 15% of the bootstrap, above it.
    rng = np.random.default_rng(5)
    n = 400
    a = rng.integers(0, 3, n)
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 3, n)).astype(object)
    b[rng.random(n) < 0.1] = None
    data = [[int(x), y] for x, y in zip(a, b, strict=True)]
    res = sis.cohen_kappa(data, ci="analytic")
    assert res.details["analytic_form"] == "raw"
    boot = sis.cohen_kappa(data, ci=sis.Bootstrap(n=600, seed=1)).se
    assert 1.0 <= res.se / boot < 1.15


def test_validation_errors():
    with pytest.raises(ValueError, match="level"):
        Analytic(level=1.5)
    with pytest.raises(TypeError, match="population"):
        Analytic(population=10.5)
    with pytest.raises(ValueError, match="form must be one of"):
        Analytic(form="exact")
    ann = as_annotations(K12)
    res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    with pytest.raises(ValueError, match=r"population must be >= the number of rated items \(12\); got 5"):
        attach_analytic(res, prep, Analytic(population=5))
    with pytest.raises(ValueError, match="Light's kappa.*Bootstrap"):
        sis.light_kappa(K12, ci="analytic")
    with pytest.raises(ValueError, match="ordinal alpha.*Bootstrap"):
        sis.krippendorff_alpha(K12, level="ordinal", ci="analytic")
    with pytest.raises(ValueError, match="chance='exact'"):
        sis.fleiss_kappa(K12, chance=sis.SampledPairs(n=200), ci="analytic")


def test_interval_helper_truncates_upper_limit_only():
    lo, hi = analytic_interval(0.95, 0.1, 20, 0.95)
    assert hi == 1.0 and lo < 0.95 - 0.2
    assert all(math.isnan(x) for x in analytic_interval(math.nan, 0.1, 20, 0.95))


def test_blocked_similarity_path_equals_dense(monkeypatch):
    # Large supports use row blocks of S scored on demand; the SE must not change.
    import softirr_stats.agreement._chance as chance_mod

    rng = np.random.default_rng(4)
    labels = [f"label{i:02d}" for i in range(12)]
    data = np.asarray(labels, dtype=object)[rng.integers(0, 12, (40, 3))].tolist()

    def sim(a, b):
        return np.array([1.0 if x == y else 0.5 * (x[-1] == y[-1]) for x, y in zip(a, b, strict=True)])

    dense = {f: getattr(sis, f)(data, similarity=sim, ci="analytic").se
             for f in ("fleiss_kappa", "conger_kappa", "krippendorff_alpha")}
    monkeypatch.setattr(chance_mod, "DENSE_SUPPORT_LIMIT", 4)
    for f, se in dense.items():
        assert getattr(sis, f)(data, similarity=sim, ci="analytic").se == pytest.approx(se, rel=1e-12)


def test_degenerate_cases():
    # perfect agreement: SE 0 and a zero-width interval at 1, no truncation note
    r = sis.fleiss_kappa([["a", "a"], ["b", "b"], ["c", "c"]], ci="analytic")
    assert (r.value, r.se, r.ci_low, r.ci_high) == (1.0, 0.0, 1.0, 1.0)
    assert not any("truncated" in w for w in r.warnings)
    # undefined coefficient (every rating the same label): nan interval and a note, no crash
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        c = sis.fleiss_kappa([["a", "a"], ["a", "a"], ["a", "a"]], ci="analytic")
    assert math.isnan(c.value) and math.isnan(c.se) and math.isnan(c.ci_low)
    assert any("analytic standard error undefined" in w for w in c.warnings)
    # a single item: no variance
    one = sis.fleiss_kappa([["a", "b", "a"]], ci="analytic")
    assert math.isnan(one.se) and not math.isnan(one.value)


def test_a_zero_se_note_says_what_is_undefined_where_the_h0_variance_gives_the_test():
    # the note said "z and the p-value are undefined (nan)" beside a p-value of 6e-27
    rows = [["a", "a", "a"], ["b", "b", "b"], ["a", "a", "a"], ["c", "c", "c"]] * 5
    r = sis.fleiss_kappa(rows, ci="analytic")
    assert 0 <= r.p_value < 1e-6
    (said,) = [w for w in r.warnings if w.startswith("test of H0")]
    assert "the p-value uses the variance under H0" in said and "p-value are undefined" not in said


def test_few_items_give_the_comparisons_note_for_one_coefficient():
    """A single coefficient's delta-method interval over fewer than 20 items said nothing, where
    ``compare(..., ci="analytic")`` said "12 items behind the delta-method interval (fewer than 20) ...": the same
    note (``few_items_analytic_note``, the threshold ``FEW_ITEMS``), counting the items that can change the value."""
    from softirr_stats.uncertainty import FEW_ITEMS, FewUnitsWarning, few_items_analytic_note

    rng = np.random.default_rng(0)
    rows = rng.integers(0, 3, (12, 3)).tolist()
    with pytest.warns(FewUnitsWarning, match=r"^12 items behind the delta-method interval \(fewer than 20\)"):
        r = sis.fleiss_kappa(rows, ci="analytic")
    assert few_items_analytic_note(12) in r.warnings
    other = sis.fleiss_kappa(rng.integers(0, 3, (12, 3)).tolist(), ci="analytic")
    cmp = sis.compare(r, other, ci="analytic", paired=False)  # the comparison's own note, per sample
    assert any(w.startswith("12 items behind the delta-method interval") for w in cmp.warnings)
    # alpha: an item with a single rating cannot change it, and is not counted (19 rated items, 18 pairable)
    alpha_rows = rng.integers(0, 3, (19, 2)).astype(object)
    alpha_rows[0, 1] = None
    with pytest.warns(FewUnitsWarning, match=r"^18 items behind"):
        sis.krippendorff_alpha(alpha_rows.tolist(), ci="analytic")
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewUnitsWarning)  # FEW_ITEMS items or more: nothing to say
        at = sis.fleiss_kappa(rng.integers(0, 3, (FEW_ITEMS, 3)).tolist(), ci="analytic")
    assert not any("delta-method interval (fewer than" in w for w in at.warnings)
