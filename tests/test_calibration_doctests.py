"""Run the calibration modules' docstring examples (they carry hand-checked values)."""

import doctest
import importlib

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

MODULES = [
    "softirr_stats.calibration._metrics",
    "softirr_stats.calibration._interval",
    "softirr_stats.calibration._calibrators",
    "softirr_stats.calibration._estimator",
    "softirr_stats.calibration._plot",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    globs = {"np": np, **vars(module)}
    result = doctest.testmod(module, globs=globs, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0
