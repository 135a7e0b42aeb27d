"""Imports flow down the layers of docs/architecture.md; heavy packages stay where they belong."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The layers of docs/architecture.md, bottom to top. A module may import its own layer and the
# layers below it, never one above. Root modules are placed explicitly; an unplaced module fails.
LAYERS = ["base", "data", "equivalence", "agreement", "spans", "uncertainty", "calibration", "ppi", "api", "models",
          "inference", "analysis", "comparison", "reporting", "planning", "cli"]
PACKAGES = set(LAYERS)
TOP_LEVEL = {"models", "inference"}
# The root package holds only the public face: its __init__ re-exports every layer (lazily).
ROOT_MODULES = {"__init__": "cli"}
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
        for arg in [*node.args[1:], *(k.value for k in node.keywords if k.arg == "internal")]:
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


# --------------------------------------------------------------------------------- the module graph
# Every library module is a node; an edge is an import that runs: a statement anywhere in the module (at module
# level or inside a function) or a string import (``import_module``). ``from softirr_stats.<pkg> import name`` goes
# to the module that defines ``name`` (read from the package's lazy table or its own imports). Not edges: imports
# under ``if TYPE_CHECKING:`` (they never run) and a package ``__init__``'s lazy table (the face lists its modules
# and imports one only when a name is used; the edge is then the user's, resolved as above).


def _module_of(py: pathlib.Path) -> str:
    parts = list(py.relative_to(ROOT).with_suffix("").parts)
    if parts[0] in TOP_LEVEL:
        parts.insert(0, "softirr_stats")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _statements(tree: ast.AST):
    """``(module, names or None, in TYPE_CHECKING)`` for every import of a module tree, string imports included."""
    def walk(node: ast.AST, checking: bool):
        for child in ast.iter_child_nodes(node):
            inner = checking or (isinstance(child, ast.If) and getattr(child.test, "id", None) == "TYPE_CHECKING")
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name, None, inner
            elif isinstance(child, ast.ImportFrom) and child.module and child.level == 0:
                yield child.module, [a.name for a in child.names], inner
            elif (isinstance(child, ast.Call) and (child.func.attr if isinstance(child.func, ast.Attribute)
                                                   else getattr(child.func, "id", None)) in ("import_module", "__import__")
                  and child.args and isinstance(child.args[0], ast.Constant) and isinstance(child.args[0].value, str)):
                yield child.args[0].value, None, inner
            yield from walk(child, inner)
    yield from walk(tree, False)


def _face_tables(trees: dict[str, ast.AST]) -> dict[str, dict[str, str]]:
    """Package -> {public name: the module that defines it}, from each ``__init__``'s lazy table and imports."""
    tables: dict[str, dict[str, str]] = {}
    for module, tree in trees.items():
        table: dict[str, str] = {}
        assigned = {t.id: n.value for n in tree.body if isinstance(n, ast.Assign) for t in n.targets
                    if isinstance(t, ast.Name)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "attach":
                for arg in [*node.args[1:2], *(k.value for k in node.keywords if k.arg == "internal")]:
                    arg = assigned.get(arg.id, arg) if isinstance(arg, ast.Name) else arg
                    if isinstance(arg, ast.Dict):
                        for key, value in zip(arg.keys, arg.values, strict=True):
                            for name in ast.literal_eval(value):
                                table[name] = key.value
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("softirr_stats"):
                table.update({a.asname or a.name: node.module for a in node.names})
        tables[module] = table
    return tables


def _library_paths():
    for folder in ("softirr_stats", *sorted(TOP_LEVEL)):
        yield from sorted((ROOT / folder).rglob("*.py"))


def _module_graph() -> tuple[dict[str, set[str]], list[tuple[str, str]]]:
    """(edges between library modules, every ``(importing file, imported module)`` of a softirr_stats module)."""
    paths = {_module_of(py): py for py in _library_paths()}
    trees = {m: ast.parse(py.read_text()) for m, py in paths.items()}
    inits = {m for m, py in paths.items() if py.name == "__init__.py"}
    tables = _face_tables({m: trees[m] for m in inits})
    edges: dict[str, set[str]] = {m: set() for m in paths}
    reaches: list[tuple[str, str]] = []
    for module, tree in trees.items():
        rel = str(paths[module].relative_to(ROOT))
        for target, names, checking in _statements(tree):
            if not target.startswith("softirr_stats"):
                continue
            resolved = []
            for name in names or [None]:
                if name is None or f"{target}.{name}" in paths:  # a module, named as written
                    written = target if name is None else f"{target}.{name}"
                    resolved.append(written)
                    reaches.append((rel, written))
                else:  # a name: its defining module, read from the face
                    found = tables.get(target, {}).get(name, target)
                    resolved.append(found if found in paths else target)
                    reaches.append((rel, f"{target}.{name}" if name.startswith("_") else target))
            if checking:
                continue  # names a type for static tools and never runs (PEP 484's way to avoid a circle)
            edges[module].update(r for r in resolved if r in paths and r != module)
    return edges, reaches


def _package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _private_reaches(reaches: list[tuple[str, str]]) -> list[str]:
    """Imports of another package's private module (``softirr_stats.<pkg>._x``, at any depth)."""
    out = []
    for rel, target in reaches:
        own = _package_of(_module_of(ROOT / rel))
        parts = target.split(".")
        if len(parts) < 3 or parts[1] == own or parts[1] in TOOLKIT or rel in ROOT_FACE:
            continue
        if any(p.startswith("_") and not p.startswith("__") for p in parts[2:]):
            out.append(f"{rel}: {target}")
    return sorted(set(out))


# ``base`` is the one toolkit whose modules are imported by name (docs/architecture.md): it has no face. The root
# ``__init__`` is the public face of every package; its lazy table names the modules that define the public names.
TOOLKIT = {"base"}
ROOT_FACE = {"softirr_stats/__init__.py"}


def test_no_package_imports_another_packages_private_module():
    """Packages meet at their faces: ``from softirr_stats.agreement import Statistic``, never
    ``softirr_stats.agreement._statistic`` from another package (``base`` excepted)."""
    reaches = _private_reaches(_module_graph()[1])
    assert not reaches, ("import these through the package's __init__ (add the name to its lazy table and its "
                         "TYPE_CHECKING block):\n" + "\n".join(reaches))


def _circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_circles():
    """No module imports, directly or through others, a module that imports it, not even inside a function."""
    circles = _circles(_module_graph()[0])
    assert not circles, "import circles (move what both sides need into a module of its own):\n" + "\n".join(
        " <-> ".join(c) for c in circles)


def test_the_graph_helpers_see_a_circle_and_a_private_reach():
    """The two checks above fail on a toy circle and a toy reach (so that a silent helper cannot pass them)."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    reaches = [("softirr_stats/reporting/_x.py", "softirr_stats.agreement._statistic"),
               ("softirr_stats/reporting/_x.py", "softirr_stats.base._validation"),
               ("softirr_stats/reporting/_x.py", "softirr_stats.reporting._html"),
               ("softirr_stats/reporting/_x.py", "softirr_stats.agreement")]
    assert _private_reaches(reaches) == ["softirr_stats/reporting/_x.py: softirr_stats.agreement._statistic"]
    edges, _ = _module_graph()
    assert "softirr_stats.agreement._statistic" in edges["softirr_stats.spans._span_f1"]  # resolved through the face


# ``similarity=`` becomes scores in one place: equivalence/_label_similarity.py (its resolver, its one
# memo of scored label pairs, the symmetrising of directional estimators). Outside the equivalence
# package nothing scores label pairs itself; the PPI judge scores judged pairs, not a similarity.
SCORERS = {"score_pairs", "similarity_matrix", "ScoredSimilarity"}
SCORING_ALLOWED = {"softirr_stats/ppi/_ppi_statistic.py"}  # the PPI judge scores judged pairs


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
