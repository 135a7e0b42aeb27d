"""Benchmark scales (Landis-Koch, Fleiss, Altman, ...) and Gwet's probabilistic benchmarking.

Expected cumulative probabilities: irrCAC's benchmark tests (afergadis/irrCAC,
test/unit/irrCAC/benchmark/test_benchmark.py, coefficient 0.67 with standard error 0.15) and the
example of its ``Benchmark`` docstring (a custom scale given from the top band down).
"""

import math

import pytest

import softirr_stats as sis
from softirr_stats.agreement._benchmark_scales import BENCHMARK_SCALES, benchmark_value


@pytest.mark.parametrize(("scale", "cumprob"), [
    ("altman", [0.18168, 0.67511, 0.96356, 0.99912, 1.0]),                # test_altman
    ("cicchetti-sparrow", [0.28699, 0.67511, 0.96356, 1.0]),              # test_cicchetti_sparrow
    ("fleiss", [0.28699, 0.96356, 1.0]),                                  # test_fleiss
    ("landis-koch", [0.18168, 0.67511, 0.96356, 0.99912, 1.0, 1.0]),      # test_landis_koch
    ("regier", [0.18168, 0.67511, 0.96356, 0.99912, 1.0]),                # test_regier
])
def test_irrcac_cumulative_probabilities(scale, cumprob):
    b = benchmark_value(0.67, 0.15, scale=scale, method="probabilistic")
    assert [round(p, 5) for p in b.cumulative] == cumprob
    assert b.band == b.bands[[c >= 0.95 for c in b.cumulative].index(True)][0]


def test_altman_interpretation_is_moderate_not_good():
    # irrCAC's docstring: 0.67 (SE 0.15) is "Moderate" on Altman's scale, although 0.6 < 0.67 <= 0.8
    r = sis.AgreementResult("cohen_kappa", 0.67, 0.8, 0.4, 50, 2, se=0.15)
    assert r.benchmark("altman", method="probabilistic").band == "moderate"
    assert r.benchmark("altman").band == "good"


def test_custom_scale_from_the_top_down():
    # irrCAC's Benchmark docstring: lb=[0.6, 0.3, 0.0], ub=[1.0, 0.6, 0.3] -> [0.67511, 0.99308, 1.0]
    bands = [("excellent", 0.6, 1.0), ("acceptable", 0.3, 0.6), ("poor", 0.0, 0.3)]
    b = benchmark_value(0.67, 0.15, scale=bands, method="probabilistic")
    assert [round(p, 5) for p in b.cumulative] == [0.67511, 0.99308, 1.0]
    assert b.band == "acceptable"


def test_custom_scale_in_ascending_order_is_read_from_the_top():
    # irrCAC's test_custom_scale gives the bands bottom-up and accumulates in that order
    # ([0.00691, 0.32488, 1.0]); the rule retains the highest band reaching 95%, so we always
    # accumulate from the top band down (docs/peer_conventions.md): the same bands give
    # [0.67511, 0.99308, 1.0]
    up = [("poor", 0.0, 0.3), ("acceptable", 0.3, 0.6), ("excellent", 0.6, 1.0)]
    b = benchmark_value(0.67, 0.15, scale=up, method="probabilistic")
    assert [round(p, 5) for p in b.cumulative] == [0.67511, 0.99308, 1.0]


def test_probabilities_sum_to_one_on_a_full_scale():
    for name in ("landis-koch", "fleiss", "altman"):
        b = benchmark_value(0.3, 0.2, scale=name, method="probabilistic")
        assert sum(b.probabilities) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(("value", "band"), [(0.81, "almost perfect"), (0.8, "substantial"), (0.61, "substantial"),
                                             (0.41, "moderate"), (0.2, "slight"), (0.0, "poor"), (-0.3, "poor"),
                                             (1.0, "almost perfect")])
def test_landis_koch_point_bands(value, band):
    assert benchmark_value(value, scale="landis-koch").band == band


def test_result_benchmark_from_an_analytic_interval():
    rows = [["a", "a"], ["b", "b"], ["a", "a"], ["b", "a"], ["c", "c"], ["c", "c"], ["a", "a"], ["b", "b"]] * 3
    r = sis.fleiss_kappa(rows, ci="analytic")
    b = r.benchmark("probabilistic")
    assert b.scale == "landis-koch" and b.method == "probabilistic" and b.se == r.se
    assert str(b).startswith(f"{b.band} agreement on the Landis & Koch (1977) scale")
    assert b.to_dict()["benchmark_band"] == b.band


def test_probabilistic_needs_a_standard_error():
    r = sis.fleiss_kappa([["a", "a"], ["a", "b"], ["b", "b"]])
    with pytest.raises(ValueError, match="needs a positive standard error"):
        r.benchmark("fleiss", method="probabilistic")


def test_undefined_value_has_no_band():
    b = benchmark_value(math.nan, scale="fleiss")
    assert b.band is None and math.isnan(b.low) and "no band" in str(b)


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"scale": "landis"}, "scale must be one of"),
    ({"scale": []}, "every band needs low < high"),
    ({"scale": [("x", 0.5, 0.2)]}, "every band needs low < high"),
    ({"method": "bayes"}, "method must be one of"),
    ({"threshold": 1.5}, "threshold must be a probability"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        benchmark_value(0.5, 0.1, **kwargs)


def test_scales_cover_minus_one_to_one_where_irrcac_does():
    for name in ("landis-koch", "fleiss", "altman"):
        bands = BENCHMARK_SCALES[name][0]
        assert bands[0][2] == 1.0 and bands[-1][1] == -1.0
        assert all(a[1] == b[2] for a, b in zip(bands, bands[1:], strict=False))
