"""benchmarks/compare_size_small.py at smoke size: its vectorised kernel (Fleiss' kappa under item weights, the
candidates' p-values) equals ``sis.compare`` on the same weights, paired and on disjoint items."""

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def css():
    spec = importlib.util.spec_from_file_location("compare_size_small", ROOT / "benchmarks" / "compare_size_small.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["compare_size_small"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("kind, n, humans", [("paired", 20, 2), ("paired", 30, 5), ("unpaired", 30, 2)])
def test_kernel_equals_compare(css, kind, n, humans):
    """Replicates, the percentile, bca-t, auto (jackknife-t) and analytic p-values, to 1e-12."""
    assert css.check(kind, n, humans, 200, studies=2) < 1e-12


def test_a_chunk_of_studies_has_every_candidate(css):
    out = css.simulate("paired", 20, 2, 0, 4, 100)
    assert set(out) == {"difference", *css.METHODS} and all(np.shape(v) == (4,) for v in out.values())
    assert all(np.all((v >= 0) & (v <= 1)) for k, v in out.items() if k != "difference")
