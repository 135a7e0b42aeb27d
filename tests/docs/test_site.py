"""The documentation site builds with ``mkdocs build --strict``, and the API reference is complete.

mkdocs, the Material theme and mkdocstrings come with the ``[docs]`` extra, which the README's
test command installs; a missing tool is a failure here (the site would silently stop being
checked otherwise), with the install command in the message.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = ("softirr_stats", "softirr_stats.agreement", "softirr_stats.data", "softirr_stats.equivalence",
            "softirr_stats.calibration", "softirr_stats.uncertainty", "softirr_stats.reporting",
            "softirr_stats.models", "softirr_stats.inference", "softirr_stats.comparison",
            "softirr_stats.planning", "softirr_stats.ppi", "softirr_stats.spans")


def _nav_files(nav) -> list[str]:
    out: list[str] = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        out += _nav_files(value) if isinstance(value, list) else [value]
    return out


def _config() -> dict:
    try:
        import yaml  # PyYAML comes with mkdocs (the [docs] extra)
    except ImportError:
        pytest.fail("PyYAML is missing: pip install -e '.[docs]' (the README's test command does)")
    # mkdocs.yml uses no custom YAML tags, so the safe loader reads it
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text())


def test_every_page_is_in_the_nav_and_every_nav_entry_exists():
    nav = set(_nav_files(_config()["nav"]))
    pages = {str(p.relative_to(ROOT / "docs")) for p in (ROOT / "docs").rglob("*.md")}
    assert sorted(nav - pages) == [], "nav entries without a page"
    assert sorted(pages - nav) == [], "pages missing from the nav in mkdocs.yml"


def _documented() -> str:
    return "\n".join(p.read_text() for p in (ROOT / "docs" / "api").glob("*.md"))


@pytest.mark.parametrize("package", PACKAGES)
def test_api_reference_lists_every_exported_callable(package):
    """Each class or function in a package's ``__all__`` has an entry in docs/api/.

    An entry is ``::: <package>`` (mkdocstrings renders the package's ``__all__``), or
    ``::: <where>.<name>`` with ``<where>`` the package, its top level or the defining module
    (``models``/``inference`` are addressed by their source folders, which is how the API
    reference finds them).
    """
    module = importlib.import_module(package)
    text = _documented()
    missing = []
    for name in module.__all__:
        obj = getattr(module, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            continue
        home = obj.__module__.rsplit(".", 1)[0] if obj.__module__.count(".") > 1 else obj.__module__
        own = re.sub(r"^softirr_stats\.(models|inference)", r"\1", obj.__module__)
        entries = {f"::: {package}\n", f"::: {home}\n", f"::: {package}.{name}\n",
                   f"::: softirr_stats.{name}\n", f"::: {own}.{name}\n"}
        if not any(e in text for e in entries):
            missing.append(name)
    assert missing == [], f"add to docs/api/ ({package}): {missing}"


def test_mkdocs_build_strict(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings_handlers") is None:
        pytest.fail("mkdocs is not installed: pip install -e '.[docs]' (the README's test command does)")
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-8000:]
    assert (tmp_path / "site" / "index.html").exists()
    assert (tmp_path / "site" / "api" / "coefficients" / "index.html").read_text().count('class="doc doc-heading"') >= 12
