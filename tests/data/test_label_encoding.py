"""The NumPy / dict label encoder (small tables, pandas not imported) equals the pandas one."""

import math
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from softirr_stats import Annotations
from softirr_stats.data import _annotations as A

CELLS = st.one_of(
    st.none(), st.just(float("nan")),
    st.sampled_from(["a", "b", "fatigue", "asthenia", "B"]),
)
NUMBERS = st.one_of(st.none(), st.just(float("nan")), st.integers(-3, 3), st.sampled_from([0.5, 2.25]))
SETS = st.one_of(st.none(), st.frozensets(st.sampled_from(["x", "y", "z"]), min_size=1, max_size=2),
                 st.lists(st.sampled_from(["x", "y"]), min_size=1, max_size=2, unique=True))


def _both(monkeypatch, build):
    monkeypatch.setattr(A, "_use_pandas", lambda n: True)
    with_pandas = build()
    monkeypatch.setattr(A, "_use_pandas", lambda n: False)
    without = build()
    return with_pandas, without


def _same(a: Annotations, b: Annotations) -> None:
    assert a.kind == b.kind
    assert a.vocabulary == b.vocabulary
    np.testing.assert_array_equal(a.codes, b.codes)


@pytest.mark.parametrize("cells", [CELLS, NUMBERS, SETS], ids=["text", "numbers", "sets"])
def test_both_encoders_give_the_same_annotations(monkeypatch, cells):
    @given(st.lists(st.lists(cells, min_size=3, max_size=3), min_size=1, max_size=12))
    def check(rows):
        present = [v for r in rows for v in r if not (v is None or (isinstance(v, float) and math.isnan(v)))]
        assume(present)  # all missing: both raise (test_empty_and_unhashable_cells_fail_the_same_way)
        rated = sum(any(not (r[j] is None or (isinstance(r[j], float) and math.isnan(r[j]))) for r in rows)
                    for j in range(3))
        assume(rated >= 2)  # one rater with ratings: both refuse it (tests/data/test_unrated_raters.py)
        a, b = _both(monkeypatch, lambda: Annotations.from_wide(rows))
        _same(a, b)

    check()


def test_numeric_arrays_and_order_of_first_appearance(monkeypatch):
    table = np.array([[3.0, np.nan], [1.0, 3.0], [2.0, 2.0]])
    a, b = _both(monkeypatch, lambda: Annotations.from_wide(table))
    _same(a, b)
    codes, uniques = A.factorize(np.array([5, 1, 5, 3]))
    assert codes.tolist() == [0, 1, 0, 2] and [int(u) for u in uniques] == [5, 1, 3]


def test_empty_and_unhashable_cells_fail_the_same_way(monkeypatch):
    for use in (True, False):
        monkeypatch.setattr(A, "_use_pandas", lambda n, use=use: use)
        with pytest.raises(ValueError, match="every label is missing"):
            Annotations.from_wide([[None, float("nan")]])
        with pytest.raises(TypeError, match="mix kinds"):
            Annotations.from_wide([["a", 1]])


def test_a_small_table_is_encoded_without_importing_pandas():
    code = ("import sys, softirr_stats as sis; r = sis.cohen_kappa([['a', 'a'], ['a', 'b'], ['b', 'b']]); "
            "print('pandas' in sys.modules, round(r.value, 6))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "0.4"]
