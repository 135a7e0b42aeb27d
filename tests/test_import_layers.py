"""Imports flow down the layers of docs/architecture.md; heavy packages stay where they belong."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The layers of docs/architecture.md, bottom to top. A module may import its own layer and the
# layers below it, never one above. Root modules are placed explicitly; an unplaced module fails.
LAYERS = ["base", "data", "equivalence", "agreement", "uncertainty", "calibration", "api", "models", "inference",
          "analysis", "reporting", "cli"]
PACKAGES = {"data", "equivalence", "calibration", "agreement", "uncertainty", "models", "inference", "reporting",
            "analysis", "cli"}
TOP_LEVEL = {"models", "inference"}
ROOT_MODULES = {  # softirr_stats/<module>.py -> layer
    "__init__": "cli",  # the package namespace re-exports every layer (lazily)
    "_lazy": "base", "_jax": "base", "_batching": "base", "_validation": "base", "_format": "base",
    "_coefficients": "api", "_statistics": "api", "_permutation_test": "api",
    "_sensitivity": "analysis", "_scoring_plan": "analysis",  # old import paths, kept: they re-export analysis/
}
# old import paths kept as one-line re-exports of the modules that moved into analysis/
COMPAT_MODULES = {"softirr_stats/_sensitivity.py", "softirr_stats/_scoring_plan.py"}
ALLOWED_HEAVY = {
    "transformers": {"equivalence", "cli"},  # the CLI only checks that the extra is installed
    "torch": {"equivalence"},
    "numpyro": {"models", "inference"},
    "optax": {"inference"},
    "arviz": {"inference"},
    "ray": {"equivalence", "uncertainty"},  # uncertainty: Bootstrap(backend="ray")
    "typer": {"cli"},
}
KERNEL_MODULES = ["softirr_stats/agreement/_kernels.py", "softirr_stats/agreement/_families.py",
                  "softirr_stats/agreement/_linearised.py", "softirr_stats/agreement/_evaluator.py",
                  "softirr_stats/agreement/_chance.py", "softirr_stats/agreement/_sampling.py"]


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == "softirr_stats" and node.level == 0:
            yield from (f"softirr_stats.{a.name}" for a in node.names)  # from softirr_stats import equivalence
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module


def _layer_of_module(parts: list[str]) -> str | None:
    """Layer of ``softirr_stats.<parts>`` (None: not a softirr_stats module)."""
    if not parts:
        return "api"  # ``import softirr_stats`` (inside functions of the upper layers): the public namespace
    if parts[0] in PACKAGES:
        return parts[0]
    return ROOT_MODULES.get(parts[0])


def _library_files():
    for folder in ("softirr_stats", "models", "inference"):
        for py in (ROOT / folder).rglob("*.py"):
            rel = py.relative_to(ROOT)
            if folder in TOP_LEVEL:
                yield py, folder
                continue
            parts = list(rel.parts[1:])
            if len(parts) > 1:
                yield py, parts[0]
            else:
                yield py, _layer_of_module([parts[0][:-3]])


def test_every_module_has_a_layer():
    unplaced = [str(py.relative_to(ROOT)) for py, layer in _library_files() if layer is None]
    assert not unplaced, f"place these root modules in ROOT_MODULES (tests/test_import_layers.py): {unplaced}"


def test_layers_import_only_downwards():
    problems = []
    for py, layer in _library_files():
        if layer is None:
            continue
        rank = LAYERS.index(layer)
        for mod in _imports(py):
            head, *rest = mod.split(".")
            if head == "softirr_stats":
                target = _layer_of_module(rest)
                if target is not None and LAYERS.index(target) > rank:
                    problems.append(f"{py.relative_to(ROOT)}: {layer} imports {mod} ({target})")
            if head in ALLOWED_HEAVY and layer not in ALLOWED_HEAVY[head]:
                problems.append(f"{py.relative_to(ROOT)}: {head} not allowed in {layer}")
    assert not problems, "\n".join(problems)


def test_kernels_use_no_pandas():
    bad = [m for m in KERNEL_MODULES if "pandas" in {x.split(".")[0] for x in _imports(ROOT / m)}]
    assert not bad, f"pandas in the kernel modules: {bad}"


def test_other_packages_are_reached_through_their_init():
    """A module imports another package's private module only where the package re-exports nothing."""
    problems = []
    for py, layer in _library_files():
        for mod in _imports(py):
            head, *rest = mod.split(".")
            if head != "softirr_stats" or len(rest) < 2 or not rest[1].startswith("_"):
                continue
            if rest[0] in PACKAGES and rest[0] != layer:
                problems.append(f"{py.relative_to(ROOT)} ({layer}): {mod}")
    # the remaining reaches are listed here on purpose, so that a new one is a decision
    allowed = {line.strip() for line in (ROOT / "tests" / "data" / "private_imports.txt").read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    new = sorted(set(problems) - allowed)
    assert not new, "import through the package's __init__ instead:\n" + "\n".join(new)
    stale = sorted(allowed - set(problems))
    assert not stale, "fixed reaches: remove them from tests/data/private_imports.txt:\n" + "\n".join(stale)


# ``similarity=`` becomes scores in one place: equivalence/_label_similarity.py (its resolver, its one
# memo of scored label pairs, the symmetrising of directional estimators). Outside the equivalence
# package nothing scores label pairs itself; the PPI judge scores judged pairs, not a similarity.
SCORERS = {"score_pairs", "similarity_matrix", "ScoredSimilarity"}
SCORING_ALLOWED = {"softirr_stats/agreement/_ppi_statistic.py"}  # the PPI judge scores judged pairs


def test_similarity_is_scored_through_one_path():
    bad = []
    for py, layer in _library_files():
        rel = str(py.relative_to(ROOT))
        if layer == "equivalence" or rel in SCORING_ALLOWED:
            continue
        for node in ast.walk(ast.parse(py.read_text())):
            if isinstance(node, ast.ImportFrom) and any(a.name in SCORERS for a in node.names):
                bad.append(f"{rel}: imports {[a.name for a in node.names if a.name in SCORERS]}")
    assert not bad, "score label pairs through equivalence.resolve_label_similarity:\n" + "\n".join(bad)


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


def test_module_names_are_unique_across_packages():
    """A module name says what it holds; two packages never use one name for different things."""
    seen: dict[str, list[str]] = {}
    for py, _ in _library_files():
        if py.name != "__init__.py" and str(py.relative_to(ROOT)) not in COMPAT_MODULES:
            seen.setdefault(py.name, []).append(str(py.relative_to(ROOT)))
    clashes = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not clashes, f"modules with the same name in different packages: {clashes}"
