"""Every exported function and class has a numpydoc Parameters section and a runnable example.

The exported names are those in ``softirr_stats.__all__`` and in each subpackage's ``__all__``
(including ``softirr_stats.models`` and ``softirr_stats.inference``); constants and modules are
skipped. The examples themselves run in tests/docs/test_doctests.py.

Rules:

- a function (or a class whose constructor takes arguments) needs ``Parameters``; a class may
  document its fields under ``Attributes`` instead (numpydoc's section for a record's fields:
  for a result dataclass the two would repeat each other). Warnings and protocols take no
  constructor arguments of their own.
- everything needs ``Examples`` with at least one ``>>>`` line.
"""

import importlib
import inspect
import re
import typing

import pytest

NAMESPACES = ("softirr_stats", "softirr_stats.data", "softirr_stats.equivalence", "softirr_stats.calibration",
              "softirr_stats.agreement", "softirr_stats.uncertainty", "softirr_stats.reporting", "softirr_stats.comparison",
              "softirr_stats.models", "softirr_stats.inference", "softirr_stats.ppi", "softirr_stats.spans")

# Exempt on purpose, each with its reason. Keep this list short: prefer an example with a stub.
EXEMPT = {
    # made only by inference.fit: a fit compiles a NumPyro program (tens of seconds even for
    # 20 items with SVI); fit's own docstring example builds and uses one
    "softirr_stats.inference._posterior.Posterior": "needs a fitted model (seconds to compile); see fit",
}


def _section(doc: str, name: str) -> bool:
    return re.search(rf"^\s*{name}\n\s*-{{{len(name)}}}\s*$", doc, flags=re.M) is not None


def _takes_arguments(obj) -> bool:
    if inspect.isclass(obj):
        if issubclass(obj, BaseException) and obj.__init__ is BaseException.__init__:
            return False
        if getattr(obj, "_is_protocol", False):
            return False
        try:
            params = inspect.signature(obj).parameters
        except (TypeError, ValueError):
            return False
    else:
        params = inspect.signature(obj).parameters
    return any(p.name != "self" for p in params.values())


def _exported() -> dict[str, object]:
    """Qualified name of the defining module + object name -> object, each object once."""
    out: dict[str, object] = {}
    for ns in NAMESPACES:
        mod = importlib.import_module(ns)
        for name in mod.__all__:
            obj = getattr(mod, name)
            if inspect.ismodule(obj) or not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            if obj in (typing.Any,):
                continue
            out.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    return out


EXPORTED = _exported()


def test_the_enumeration_finds_the_public_api():
    assert len(EXPORTED) > 150
    for key in ("softirr_stats.api._statistics.distance_agreement", "softirr_stats.calibration._interval.calibration_error_ci",
                "softirr_stats.uncertainty._bootstrap.Bootstrap"):
        assert key in EXPORTED, key
    stale = sorted(set(EXEMPT) - set(EXPORTED))
    assert not stale, f"exempt names that are no longer exported (remove them from EXEMPT): {stale}"


@pytest.mark.parametrize("key", sorted(set(EXPORTED) - set(EXEMPT)))
def test_numpydoc_parameters_and_examples(key):
    obj = EXPORTED[key]
    doc = inspect.getdoc(obj) or ""
    missing = []
    if _takes_arguments(obj) and not (_section(doc, "Parameters")
                                      or (inspect.isclass(obj) and _section(doc, "Attributes"))):
        missing.append("Parameters")
    if not (_section(doc, "Examples") and ">>>" in doc[doc.find("Examples"):]):
        missing.append("Examples (with >>> lines)")
    assert not missing, f"{key}: the docstring lacks {', '.join(missing)}"
