"""Packaging guards: every subpackage is declared; no bare models/inference."""

import importlib.util
import pathlib
import subprocess
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_subpackage_is_declared():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    roots = {"softirr_stats": "softirr_stats", **cfg.get("package-dir", {})}
    found = {".".join((pkg, *init.parent.relative_to(ROOT / d).parts))
             for pkg, d in roots.items() for init in (ROOT / d).rglob("__init__.py")}
    missing = sorted(found - set(cfg["packages"]))
    assert not missing, f"add to [tool.setuptools].packages in pyproject.toml: {missing}"


def test_models_and_inference_live_inside_the_package():
    assert importlib.util.find_spec("softirr_stats.models") is not None
    assert importlib.util.find_spec("softirr_stats.inference") is not None
    code = "import importlib.util as u; print(u.find_spec('models') is None and u.find_spec('inference') is None)"
    out = subprocess.run([sys.executable, "-c", code], cwd="/", capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_py_typed_and_demo_data_ship():
    assert (ROOT / "softirr_stats" / "py.typed").exists()
    from softirr_stats.data import demo_path

    assert demo_path().exists()
