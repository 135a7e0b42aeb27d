"""Imports flow down the layers of docs/architecture.md; heavy packages stay where they belong."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The layers of docs/architecture.md, bottom to top. A module may import its own layer and the
# layers below it, never one above. Root modules are placed explicitly; an unplaced module fails.
LAYERS = ["base", "data", "equivalence", "agreement", "uncertainty", "calibration", "api", "models", "inference",
          "analysis", "comparison", "reporting", "planning", "cli"]
PACKAGES = {"base", "data", "equivalence", "calibration", "agreement", "uncertainty", "api", "models", "inference",
            "reporting", "analysis", "comparison", "planning", "cli"}
TOP_LEVEL = {"models", "inference"}
# The root package holds only the public face: its __init__ re-exports every layer (lazily).
ROOT_MODULES = {"__init__": "cli"}
# Packages with no face of their own: their modules are imported by name (base: utilities that cost
# nothing to import; api: the functions whose face is the root namespace).
FACELESS = {"base", "api"}
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


def _string_targets(node):
    """Module names a call loads by string: ``import_module("m")``, ``__import__("m")`` and the module keys
    of the lazy ``attach(__name__, {"m": (...)})`` tables."""
    if not isinstance(node, ast.Call):
        return
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
    if name in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
        if isinstance(node.args[0].value, str):
            yield node.args[0].value
    if name == "attach":
        for arg in node.args[1:]:
            if isinstance(arg, ast.Dict):
                yield from (k.value for k in arg.keys if isinstance(k, ast.Constant) and isinstance(k.value, str))


def _imports(path):
    for node in ast.walk(ast.parse(path.read_text())):
        yield from _string_targets(node)
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
    assert not unplaced, f"place these root modules in ROOT_MODULES (tests/packaging/test_import_layers.py): {unplaced}"


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
            if rest[0] in PACKAGES and rest[0] != layer and rest[0] not in FACELESS:
                problems.append(f"{py.relative_to(ROOT)} ({layer}): {mod}")
    # the remaining reaches are listed here on purpose, so that a new one is a decision
    allowed = {line.strip() for line in (ROOT / "tests" / "fixtures" / "private_imports.txt").read_text().splitlines()
               if line.strip() and not line.startswith("#")}
    new = sorted(set(problems) - allowed)
    assert not new, "import through the package's __init__ instead:\n" + "\n".join(new)
    stale = sorted(allowed - set(problems))
    assert not stale, "fixed reaches: remove them from tests/fixtures/private_imports.txt:\n" + "\n".join(stale)


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
        if py.name != "__init__.py":
            seen.setdefault(py.name, []).append(str(py.relative_to(ROOT)))
    clashes = {name: paths for name, paths in seen.items() if len(paths) > 1}
    assert not clashes, f"modules with the same name in different packages: {clashes}"


def test_the_root_package_is_only_the_public_face():
    """Every module lives in a layer's package; the root holds ``__init__`` alone, and nothing imports a
    root-level private module (``softirr_stats._x``), by statement or by string."""
    root_modules = sorted(p.name for p in (ROOT / "softirr_stats").glob("*.py"))
    assert root_modules == ["__init__.py"], f"move these into a layer's package: {root_modules}"
    reaches = []
    for py, _ in _library_files():
        for mod in _imports(py):
            head, *rest = mod.split(".")
            if head == "softirr_stats" and rest and rest[0].startswith("_") and not rest[0].startswith("__"):
                reaches.append(f"{py.relative_to(ROOT)}: {mod}")
    assert not reaches, "imports of root-level private modules:\n" + "\n".join(reaches)


def test_string_imports_name_modules_that_exist():
    """``import_module`` / ``attach`` targets are counted as imports above, so each must be a real module."""
    import importlib.util

    missing = []
    for py, _ in _library_files():
        for node in ast.walk(ast.parse(py.read_text())):
            for target in _string_targets(node):
                if target.startswith("softirr_stats") and importlib.util.find_spec(target) is None:
                    missing.append(f"{py.relative_to(ROOT)}: {target}")
    assert not missing, missing


def test_type_checking_imports_match_the_lazy_tables():
    """What static tools see (``if TYPE_CHECKING:``) is what the lazy table loads, module for module."""
    import importlib.util

    problems = []
    for init in sorted((ROOT / "softirr_stats").rglob("__init__.py")) + [ROOT / "models" / "__init__.py",
                                                                        ROOT / "inference" / "__init__.py"]:
        tree = ast.parse(init.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
                for sub in ast.walk(node):
                    if isinstance(sub, ast.ImportFrom) and sub.module and sub.module.startswith("softirr_stats"):
                        if importlib.util.find_spec(sub.module) is None:
                            problems.append(f"{init.relative_to(ROOT)}: {sub.module} does not exist")
    assert not problems, problems
