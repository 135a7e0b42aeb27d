"""Property-based fuzzing of the readers and every coefficient on small odd tables.

Arbitrary small tables (missing cells, unicode, NA-like strings, duplicate-looking ids,
constant columns) either give a finite value in the coefficient's range, nan with a
DegenerateWarning, or a ValueError naming the problem: never another exception, never a hang
(each example has a deadline).
"""

import math
import warnings
from datetime import timedelta

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import softirr_stats as sis
from softirr_stats.agreement._evaluator import DegenerateWarning

COEFFICIENTS = {
    "percent_agreement": sis.percent_agreement, "cohen_kappa": sis.cohen_kappa, "scott_pi": sis.scott_pi,
    "fleiss_kappa": sis.fleiss_kappa, "conger_kappa": sis.conger_kappa, "light_kappa": sis.light_kappa,
    "krippendorff_alpha": sis.krippendorff_alpha, "gwet_ac1": sis.gwet_ac1,
    "brennan_prediger": sis.brennan_prediger,
}
KAPPA_FORM = ("cohen_kappa", "scott_pi", "fleiss_kappa", "conger_kappa", "gwet_ac1", "brennan_prediger")
TEXT = st.sampled_from(["a", "b", "NA", "null", "None", "n/a", "caf\u00e9", "cafe\u0301", "x y", " a", "\u00df", "A"])
NUMBER = st.sampled_from([0, 1, 2, 5, -1, 2.5])
FUZZ = settings(max_examples=25, deadline=timedelta(seconds=30), derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@st.composite
def wide_tables(draw):
    cell = draw(st.sampled_from([TEXT, NUMBER]))  # one kind of label per table
    n = draw(st.integers(1, 6))
    r = draw(st.integers(1, 4))
    missing = draw(st.floats(0, 0.6))
    rows = [[None if draw(st.floats(0, 1)) < missing else draw(cell) for _ in range(r)] for _ in range(n)]
    if draw(st.booleans()) and r > 1:  # a constant column
        for row in rows:
            row[0] = rows[0][0]
    return rows


def _outcome_ok(name, fn, data):
    """Run one coefficient; check the allowed outcomes."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res = fn(data)
        except ValueError as exc:
            assert str(exc), name  # a message, naming the problem
            return "error"
    v = res.value
    if math.isnan(v):
        assert any(issubclass(w.category, DegenerateWarning) for w in caught), (name, data, res.warnings)
        return "nan"
    assert math.isfinite(v) and v <= 1 + 1e-9, (name, data, v)
    if name == "percent_agreement":
        assert v >= -1e-12, (name, data, v)
    elif name in KAPPA_FORM:  # (p_o - p_e) / (1 - p_e) with p_o >= 0; not -1: tiny samples go below
        assert -1e-12 <= res.observed <= 1 + 1e-12, (name, data, res)
        assert v >= -res.expected / (1 - res.expected) - 1e-9, (name, data, res)
    return "value"


@FUZZ
@given(wide_tables())
def test_every_coefficient_on_arbitrary_small_tables(rows):
    try:
        ann = sis.Annotations.from_wide(rows)
    except ValueError:
        return  # e.g. every cell missing: a clear error
    for name, fn in COEFFICIENTS.items():
        _outcome_ok(name, fn, ann)


@FUZZ
@given(wide_tables(), st.booleans())
def test_from_long_and_duplicate_looking_ids(rows, stringify):
    recs = [{"item": (f"{i:03d}" if stringify else i), "rater": f"r{j}", "label": v}
            for i, row in enumerate(rows) for j, v in enumerate(row)]
    recs += [{"item": str(i), "rater": f"r{j}", "label": v}
             for i, row in enumerate(rows[:1]) for j, v in enumerate(row)]  # "0" next to "000" / 0
    df = pd.DataFrame(recs)
    try:
        ann = sis.Annotations.from_long(df)
    except ValueError:
        return
    assert ann.n_items == len(set(df["item"].tolist()))
    _outcome_ok("fleiss_kappa", sis.fleiss_kappa, ann)


@FUZZ
@given(wide_tables())
def test_read_annotations_round_trip(tmp_path_factory, rows):
    path = tmp_path_factory.mktemp("fuzz") / "t.csv"
    recs = [{"item": f"0{i}", "rater": f"r{j}", "label": v} for i, row in enumerate(rows) for j, v in enumerate(row)]
    pd.DataFrame(recs, columns=["item", "rater", "label"]).to_csv(path, index=False)
    try:
        ann = sis.read_annotations(path)
    except ValueError:
        return
    # every non-empty label survives as itself ("NA", "null" included); identifiers stay text
    kept = {v for row in rows for v in row if v is not None and v != ""}
    def canon(v):  # pandas writes a numeric column with missing cells as floats ("0.0")
        return float(v) if isinstance(v, int | float) else v

    assert {canon(v) for v in ann.vocabulary} == {canon(v) for v in kept}
    assert all(isinstance(i, str) for i in ann.items)
    for name, fn in COEFFICIENTS.items():
        _outcome_ok(name, fn, ann)


@pytest.mark.parametrize("name", sorted(COEFFICIENTS))
def test_coefficients_on_a_constant_table_are_nan_with_a_reason(name):
    outcome = _outcome_ok(name, COEFFICIENTS[name], [["x", "x"], ["x", "x"], ["x", "x"]])
    assert outcome in ("nan", "value")
