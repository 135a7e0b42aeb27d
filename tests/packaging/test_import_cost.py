"""Import cost: a bare ``import softirr_stats`` and ``softirr --help`` load no heavy package.

Each check runs in a fresh interpreter, since the test process has imported everything.
"""

import ast
import importlib
import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ["softirr_stats", "softirr_stats.agreement", "softirr_stats.calibration", "softirr_stats.data",
            "softirr_stats.equivalence", "softirr_stats.reporting", "softirr_stats.uncertainty", "softirr_stats.ppi",
            "softirr_stats.spans", "softirr_stats.api"]
# third-party top-level modules a bare import may load (the rest of sys.modules is the standard library)
BARE_IMPORT_ALLOWED = {"numpy", "softirr_stats"}  # numpy: the data model may load it eagerly
# typer renders --help with rich and inspects parameter types (pydantic when installed)
CLI_HELP_ALLOWED = BARE_IMPORT_ALLOWED | {"typer", "click", "rich", "markdown_it", "mdurl", "pygments",
                                          "shellingham", "annotated_doc", "typing_extensions", "pydantic",
                                          "pydantic_core", "annotated_types", "typing_inspection",
                                          "attr", "attrs"}  # rich.pretty uses attrs when installed (ray brings it)
HEAVY = ["jax", "jaxlib", "scipy", "pandas", "matplotlib", "torch", "transformers", "numpyro", "optax", "arviz",
         "rapidfuzz", "sklearn"]

_LOADED = """
import json, sys
{body}
print(json.dumps(sorted(sys.modules)))
"""


def _modules_after(body: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", _LOADED.format(body=body)], capture_output=True, text=True,
                         timeout=120, check=True, cwd=ROOT)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def _third_party(modules: set[str]) -> set[str]:
    tops = {m.split(".")[0] for m in modules}
    # editable-install finders and setuptools' shim are not imports of ours
    return {t for t in tops - set(sys.stdlib_module_names)
            if not t.startswith(("__editable__", "_distutils_hack", "_sysconfigdata")) and t != "__main__"}


def test_bare_import_loads_only_numpy():
    mods = _modules_after("import softirr_stats")
    assert not [h for h in HEAVY if h in mods]
    extra = _third_party(mods) - BARE_IMPORT_ALLOWED
    assert not extra, f"import softirr_stats loaded {sorted(extra)}; load them on first use instead"


@pytest.mark.parametrize("argv", [["--help"], ["agree", "--help"]])
def test_cli_help_does_not_import_jax(argv):
    body = ("from softirr_stats.cli import main\n"
            f"sys.argv = ['softirr', *{argv!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n")
    mods = _modules_after(body)
    assert "Usage" in subprocess.run([sys.executable, "-m", "softirr_stats.cli", *argv], capture_output=True,
                                     text=True, timeout=120, cwd=ROOT).stdout
    assert not [h for h in HEAVY if h in mods]
    extra = _third_party(mods) - CLI_HELP_ALLOWED
    assert not extra, f"softirr {' '.join(argv)} loaded {sorted(extra)}"


def test_small_point_estimates_and_intervals_run_without_jax():
    """The matrix-product path evaluates small batches in NumPy: no JAX import, nothing compiled."""
    mods = _modules_after("import softirr_stats as sis\n"
                          "table = [['a', 'a'], ['a', 'b'], ['b', 'b'], ['a', 'a']]\n"
                          "sis.cohen_kappa(table)\n"
                          "sis.krippendorff_alpha(table, ci=sis.Bootstrap(n=200))\n"
                          "sis.fleiss_kappa([[1, 1], [1, 2], [2, 3]], weights='quadratic')\n"
                          "sis.light_kappa([['a', 'a', 'b'], ['a', 'b', 'b'], ['b', 'b', 'a']])")
    assert "softirr_stats.agreement._evaluator" in mods
    assert "jax" not in mods


def test_vmapped_kernels_load_jax():
    """Paths that need the within-item pair list (rater-weight bootstraps) run the JAX kernels."""
    mods = _modules_after("import softirr_stats as sis\nsis.light_kappa([['a', 'a', 'b'], ['a', 'b', 'b'], "
                          "['b', 'b', 'a'], ['a', 'a', 'a']], ci=sis.Bootstrap(n=20, design='raters'))")
    assert "jax" in mods


def test_calibration_metrics_load_no_jax():
    """Only ``calibration_error_ci`` needs the uncertainty layer (and JAX); the metrics do not."""
    mods = _modules_after("from softirr_stats.calibration import expected_calibration_error\n"
                          "expected_calibration_error([0.1, 0.9], [0, 1])")
    assert "jax" not in mods


@pytest.mark.parametrize("package", PACKAGES)
def test_every_lazy_name_resolves(package):
    mod = importlib.import_module(package)
    for name in mod.__all__:
        assert getattr(mod, name) is not None, f"{package}.{name}"
        assert name in dir(mod)
    # tab completion lists the package's names, not the helpers its __init__ imports
    assert not {"attach", "TYPE_CHECKING", "base", "annotations"} & set(dir(mod)), package
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        mod.not_a_name  # noqa: B018


def _imported_names(path: pathlib.Path) -> tuple[set[str], set[str]]:
    """Names a package ``__init__`` imports eagerly, and those in its ``if TYPE_CHECKING:`` block."""
    eager: set[str] = set()
    static: set[str] = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom):
            eager |= {a.asname or a.name for a in node.names}
        elif isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for imp in node.body:
                static |= {a.asname or a.name for a in imp.names}
    return eager, static


def _internal_names(path: pathlib.Path) -> set[str]:
    """Names of the ``internal=`` table of a package's ``attach`` call (the face's names for the other packages)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "attach":
            for kw in node.keywords:
                if kw.arg == "internal" and isinstance(kw.value, ast.Dict):
                    names |= {n for v in kw.value.values for n in ast.literal_eval(v)}
    return names


@pytest.mark.parametrize("package", PACKAGES)
def test_static_imports_match_lazy_exports(package):
    """The ``if TYPE_CHECKING:`` block (what mypy and IDEs see) lists exactly the lazy names, the public ones
    (``__all__``) and those the face offers only to the library's other packages."""
    mod = importlib.import_module(package)
    internal = _internal_names(pathlib.Path(mod.__file__))
    eager, static = _imported_names(pathlib.Path(mod.__file__))
    assert static == (set(mod.__all__) | internal) - eager
    for name in internal:
        assert name not in mod.__all__ and getattr(mod, name) is not None, f"{package}.{name}"


# what `softirr agree FILE --bootstrap 0` (the cold-start row of benchmarks/bench_cold.py) must not load:
# each costs start-up time and none is needed for a point estimate under exact match
AGREE_POINT_UNNEEDED = [
    "scipy", "jax", "torch", "http.client", "ssl",
    "softirr_stats.api._statistics",  # multi-label / distance / cross-kappa: scipy.sparse
    "softirr_stats.agreement._distance", "softirr_stats.agreement._xrr", "softirr_stats.agreement._multilabel",
    "softirr_stats.equivalence._judge", "softirr_stats.equivalence._http", "softirr_stats.equivalence._torch",
    "softirr_stats.equivalence._spec",
    "softirr_stats.uncertainty._bootstrap", "softirr_stats.uncertainty._analytic",  # no interval asked for
]


def test_cli_agree_point_estimate_loads_only_what_it_uses(tmp_path):
    csv = tmp_path / "four.csv"
    csv.write_text("item,rater,label\n" + "".join(f"d{i},r{j},{'ab'[(i + j) % 2]}\n" for i in range(4) for j in range(3)))
    body = ("from softirr_stats.cli import main\n"
            f"sys.argv = ['softirr', 'agree', {str(csv)!r}, '--bootstrap', '0']\n"
            "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n")
    mods = _modules_after(body)
    assert "softirr_stats.agreement._evaluator" in mods  # it did compute the coefficient
    loaded = [m for m in AGREE_POINT_UNNEEDED if m in mods]
    assert not loaded, f"softirr agree --bootstrap 0 loaded {loaded}; import them on first use instead"


def test_interval_modules_load_when_an_interval_is_asked_for():
    """The lazy imports above still reach the interval code (check_ci / attach_interval)."""
    mods = _modules_after("import softirr_stats as sis\n"
                          "sis.fleiss_kappa([['a', 'a'], ['a', 'b'], ['b', 'b'], ['a', 'a']], ci='analytic')")
    assert "softirr_stats.uncertainty._analytic" in mods
    assert "softirr_stats.uncertainty._bootstrap" in mods  # check_ci tells a Bootstrap from an Analytic
