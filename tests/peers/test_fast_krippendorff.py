"""fast-krippendorff's published cases, run against softirr_stats (figures only, no peer code).

Source of every value: the test suite of fast-krippendorff (pln-fing-udelar/fast-krippendorff,
``tests/test_krippendorff.py``, ``tests/test_dict_input.py``, ``tests/test_circular_bipolar.py``,
``tests/test_subsamples.py``); the reliability data are Krippendorff (2011), *Computing
Krippendorff's Alpha-Reliability*. fast-krippendorff's data are coders x units; ours are
items x raters, hence the transposes. Cases that test the peer's own helpers, options we do
not have (``all_reliability_data``, ``dtype``, custom metric callables) or its messages are
not applicable; the documented differences are in docs/peer_conventions.md.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.agreement import weight_matrix

NAN = np.nan
# tests/test_krippendorff.py: Krippendorff (2011) example C, 3 coders x 15 units
DATA_C = [
    [NAN, NAN, NAN, NAN, NAN, 3, 4, 1, 2, 1, 1, 3, 3, NAN, 3],
    [1, NAN, 2, 1, 3, 3, 4, 3, NAN, NAN, NAN, NAN, NAN, NAN, NAN],
    [NAN, NAN, 2, 1, 3, 4, 4, NAN, 2, 1, 1, 3, 3, NAN, 4],
]
# tests/test_krippendorff.py: Krippendorff (2011) example with 4 coders x 12 units
DATA_K12 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


def _items(coders_by_units):
    """Coders x units (the peer's layout) -> items x raters (ours)."""
    return np.asarray(coders_by_units, dtype=object).T.tolist()


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # single-rating units warn (documented); values are what is tested
        yield


def _alpha(data, **kw):
    return sis.krippendorff_alpha(_items(data), **kw).value


def test_nominal_reliability_data():
    assert round(_alpha(DATA_C, level="nominal"), 6) == 0.691358  # test_nominal_metric_reliability_data


def test_nominal_value_counts():
    # test_nominal_metric_value_counts: the same data given as per-unit value counts (values 1..4)
    counts = np.array([[1, 0, 0, 0], [0, 0, 0, 0], [0, 2, 0, 0], [2, 0, 0, 0], [0, 0, 2, 0], [0, 0, 2, 1],
                       [0, 0, 0, 3], [1, 0, 1, 0], [0, 2, 0, 0], [2, 0, 0, 0], [2, 0, 0, 0], [0, 0, 2, 0],
                       [0, 0, 2, 0], [0, 0, 0, 0], [0, 0, 1, 1]])
    rows = []  # each unit's values spread over as many rater slots as it has values
    for u, c in enumerate(counts):
        vals = [v + 1 for v in range(4) for _ in range(c[v])]
        rows.extend({"item": u, "rater": k, "label": v} for k, v in enumerate(vals))
    ann = sis.Annotations.from_long(pd.DataFrame(rows))
    assert round(sis.krippendorff_alpha(ann).value, 6) == 0.691358


def test_ordinal():
    assert round(_alpha(DATA_K12, level="ordinal"), 3) == 0.815  # test_ordinal_metric


def test_interval():
    assert round(_alpha(DATA_C, level="interval"), 6) == 0.810845  # test_interval_metric


def test_ratio():
    assert round(_alpha(DATA_K12, level="ratio"), 3) == 0.797  # test_ratio_metric


def test_ratio_with_zeros():
    assert _alpha([[0, 1, 2], [0, 1, 2]], level="ratio") == 1.0  # test_ratio_metric_with_zeros


def test_string_labels_nominal():
    data = [["pos", "neg", "neu", None], ["pos", "neg", "neu", "pos"], ["pos", "neg", "pos", "pos"]]
    assert round(_alpha(data), 6) == 0.722222  # test_string_labels_nominal


def test_string_labels_ordinal_with_domain():
    # test_string_labels_ordinal_with_domain: value_domain = our categories= (declared order)
    m = {1: "very low", 2: "low", 3: "mid", 4: "high", 5: "very high"}
    data = [[None if (isinstance(v, float) and math.isnan(v)) else m[int(v)] for v in row] for row in DATA_K12]
    domain = ["very low", "low", "mid", "high", "very high"]
    assert round(_alpha(data, level="ordinal", categories=domain), 3) == 0.815


def test_custom_absolute_distance_as_similarity():
    # test_custom_distance_metric: delta = |v1 - v2|; alpha is invariant to rescaling the distance,
    # so similarity = 1 - |v1 - v2| / max gives the same alpha (labels 1, 2, 3, 4)
    x = np.array([1.0, 2.0, 3.0, 4.0])
    sim = 1.0 - np.abs(x[:, None] - x[None, :]) / 3.0
    assert round(_alpha([[1, 2, 3], [1, 2, 4]], similarity=sim), 6) == 0.761905


def test_perfect_agreement():
    data = [[1, 2, 3, 4]] * 3  # test_perfect_agreement
    assert _alpha(data, level="nominal") == 1.0
    assert _alpha(data, level="interval") == 1.0


def test_dict_input_sequence_of_dicts_matches_dense_matrix():
    # test_dict_input_sequence_of_dicts_matches_dense_matrix: coder dicts {unit: value} = a long table
    dense = [[NAN, NAN, 3, 4, 1], [1, NAN, 3, 4, 3], [NAN, 2, 3, 4, 2]]
    dicts = [{2: 3, 3: 4, 4: 1}, {0: 1, 2: 3, 3: 4, 4: 3}, {1: 2, 2: 3, 3: 4, 4: 2}]
    long = pd.DataFrame([{"item": u, "rater": c, "label": v} for c, d in enumerate(dicts) for u, v in d.items()])
    for level in ("nominal", "ordinal", "interval", "ratio"):
        a = sis.krippendorff_alpha(sis.Annotations.from_long(long), level=level).value
        assert a == pytest.approx(_alpha(dense, level=level), abs=1e-12)


def test_dict_of_dicts_interval():
    # test_dict_input_dict_of_dicts
    d = {"coder1": {"A": 1, "B": 2, "C": 3}, "coder2": {"A": 1, "B": 2, "C": 4}, "coder3": {"B": 2, "C": 3}}
    long = pd.DataFrame([{"item": u, "rater": c, "label": v} for c, x in d.items() for u, v in x.items()])
    a = sis.krippendorff_alpha(sis.Annotations.from_long(long), level="interval").value
    assert a == pytest.approx(_alpha([[1, 2, 3], [1, 2, 4], [NAN, 2, 3]], level="interval"), abs=1e-12)


def test_dict_input_with_none_and_nan_values():
    # test_dict_input_with_none_and_nan_values: None / NaN values are missing ratings
    with_missing = [[1, None, 3], [1, 2, NAN], [NAN, 2, 3]]
    clean = pd.DataFrame([{"item": u, "rater": c, "label": v}
                          for c, d in enumerate([{"u1": 1, "u3": 3}, {"u1": 1, "u2": 2}, {"u2": 2, "u3": 3}])
                          for u, v in d.items()])
    assert _alpha(with_missing) == pytest.approx(
        sis.krippendorff_alpha(sis.Annotations.from_long(clean)).value, abs=1e-12)


def test_dict_input_string_labels():
    # test_dict_input_string_labels: c1 = (pos, neg), c2 = (pos, pos) -> 0.0
    assert _alpha([["pos", "neg"], ["pos", "pos"]]) == pytest.approx(0.0, abs=1e-12)


def test_standard_array():
    assert _alpha(np.array([[1, 2], [1, 2]])) == pytest.approx(1.0)  # test_standard_array_and_value_counts
    assert _alpha([["a", "b"], ["a", "b"]]) == pytest.approx(1.0)


def _metric_alpha(data, metric):
    """Circular / bipolar alpha: our named weights give 1 - delta / max(delta) for Krippendorff's
    circular (U = range + 1) and bipolar metrics, and alpha is invariant to rescaling delta."""
    ann = sis.Annotations.from_wide(_items(data))
    return sis.krippendorff_alpha(ann, similarity=weight_matrix(metric, ann.values())).value


def test_circular_exact_hand_calculation():
    # test_circular_metric_exact_hand_calculation / _value_counts / dict input: 0.5625
    assert round(_metric_alpha([[0, 1, 2, 3], [0, 2, 2, 0]], "circular"), 6) == 0.5625


def test_bipolar_exact_hand_calculation():
    # test_bipolar_metric_exact_hand_calculation / _value_counts / dict input: 18 / 23
    assert round(_metric_alpha([[-1, 0, 1], [-1, 1, 1]], "bipolar"), 6) == round(18 / 23, 6)


def test_large_integer_categories_not_collapsed():
    # test_large_integer_categories_not_collapsed: 2**53 and 2**53 + 1 stay two labels; alpha 0.0
    data = [[2**53, 2**53 + 1], [2**53, 2**53]]
    ann = sis.Annotations.from_wide(_items(data))
    assert ann.vocabulary == (2**53, 2**53 + 1)
    assert _alpha(data) == 0.0
    assert _metric_alpha(data, "circular") == 0.0
    assert _metric_alpha(data, "bipolar") == 0.0
    assert _alpha(data, level="interval") == 0.0


def test_error_insufficient_coders_per_unit():
    # test_error_insufficient_coders_per_unit: no unit with two values
    with pytest.raises(ValueError, match="no item has two or more ratings"):
        sis.krippendorff_alpha(_items([[1, NAN], [NAN, 2]]))


def test_error_out_of_domain():
    # test_error_out_of_domain: a value outside the declared domain
    with pytest.raises(ValueError, match="labels not in the declared categories"):
        sis.krippendorff_alpha(_items([[1, 2], [1, 3]]), categories=[1, 2])


def test_single_value_domain_is_nan_with_a_reason():
    # test_error_single_value_in_domain raises; we return nan with the reason (docs/peer_conventions.md)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = sis.krippendorff_alpha([[1, 1], [1, 1]])
    assert math.isnan(r.value) and any("undefined" in str(w.message) for w in caught)


def test_zero_expected_disagreement_is_nan_not_one():
    # test_subsample_zero_disagreement_equal_total: fast-krippendorff 1.0 with domain [0, 1] and
    # only 0 observed; ours nan (D_e = 0: alpha = 1 - 0/0 is undefined), docs/peer_conventions.md
    r = sis.krippendorff_alpha([[0, 0], [0, 0]], categories=[0, 1])
    assert math.isnan(r.value) and r.warnings


def test_ratio_refuses_negative_values():
    """(-2, 2) got distance 0 (c + k = 0), so opposite signs counted as perfect agreement (0.9996 here);
    the krippendorff package gives the same number. Ratio alpha measures from an absolute zero."""
    with pytest.raises(ValueError, match=r"level='ratio' needs values of at least 0 .* smallest value here is -3"):
        _alpha([[-2, -1, 3, 4, -3], [2, 1, 3, 5, -3]], level="ratio")


def test_ordinal_alpha_reports_observed_and_expected_agreement_on_a_unit_scale():
    """Ordinal alpha's metric is in squared rank counts: observed and expected agreement are
    1 - D / delta_max (the largest distance between two ranks the ratings used), in [0, 1], and
    alpha = (po - pe) / (1 - pe) as for every coefficient (they were 1 - D: -359 on 60 ratings)."""
    data = np.array(DATA_C, dtype=float).T
    r = sis.krippendorff_alpha(sis.Annotations.from_wide(data), level="ordinal")
    assert 0.0 <= r.expected <= r.observed <= 1.0
    assert (r.observed - r.expected) / (1.0 - r.expected) == pytest.approx(r.value, abs=1e-12)
    # by hand: D_o and D_e from the coincidence matrix, the metric from its marginals
    vals = sorted({v for v in data.ravel() if v == v})
    o = np.zeros((len(vals), len(vals)))
    for row in data:
        got = [vals.index(v) for v in row if v == v]
        if len(got) < 2:
            continue
        for i, a in enumerate(got):
            for j, b in enumerate(got):
                if i != j:
                    o[a, b] += 1.0 / (len(got) - 1)
    nk = o.sum(axis=1)
    n = nk.sum()
    cum = np.cumsum(nk)
    delta = np.array([[(cum[max(c, k)] - cum[min(c, k)] + (nk[min(c, k)] - nk[max(c, k)]) / 2.0) ** 2
                       for k in range(len(vals))] for c in range(len(vals))])
    d_o = (o * delta).sum() / n
    d_e = (np.outer(nk, nk) * delta).sum() / (n * (n - 1.0))
    assert r.value == pytest.approx(1.0 - d_o / d_e, abs=1e-12)
    assert r.observed == pytest.approx(1.0 - d_o / delta.max(), abs=1e-12)
    assert r.expected == pytest.approx(1.0 - d_e / delta.max(), abs=1e-12)
