"""Imports flow down the layers of docs/architecture.md; heavy packages stay where they belong."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
LAYERS = ["data", "equivalence", "calibration", "agreement", "uncertainty", "models", "inference", "reporting"]
TOP_LEVEL = {"models", "inference"}
ALLOWED_HEAVY = {
    "transformers": {"equivalence"},
    "torch": {"equivalence"},
    "numpyro": {"models", "inference"},
    "optax": {"inference"},
    "arviz": {"inference"},
}


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def test_layers_import_only_downwards():
    problems = []
    for rank, layer in enumerate(LAYERS):
        folder = ROOT / layer if layer in TOP_LEVEL else ROOT / "softirr_stats" / layer
        for py in folder.rglob("*.py"):
            for mod in _imports(py):
                head, *rest = mod.split(".")
                if head == "softirr_stats" and rest and rest[0] in LAYERS and LAYERS.index(rest[0]) > rank:
                    problems.append(f"{py.relative_to(ROOT)}: {layer} imports {mod}")
                if head in ALLOWED_HEAVY and layer not in ALLOWED_HEAVY[head]:
                    problems.append(f"{py.relative_to(ROOT)}: {head} not allowed in {layer}")
    assert not problems, "\n".join(problems)


def test_no_relative_imports():
    bad = []
    for folder in (ROOT / "softirr_stats", ROOT / "models", ROOT / "inference"):
        for py in folder.rglob("*.py"):
            for node in ast.walk(ast.parse(py.read_text())):
                if isinstance(node, ast.ImportFrom) and node.level:
                    bad.append(str(py.relative_to(ROOT)))
    assert not bad, bad


def test_no_pickle_in_library():
    bad = []
    for folder in (ROOT / "softirr_stats", ROOT / "models", ROOT / "inference"):
        for py in folder.rglob("*.py"):
            mods = set(_imports(py))
            if mods & {"pickle", "cloudpickle", "dill", "joblib"}:
                bad.append(str(py.relative_to(ROOT)))
    assert not bad, bad
