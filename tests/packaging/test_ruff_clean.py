"""The library's code stays clean under the project's ruff rules ([tool.ruff] in pyproject.toml).

ruff comes with the ``test`` extra, which the README's test command (the one CI runs) installs, so
this check runs wherever the suite does. It lints the folders the wheel is built from (the
package and the folders its package-dir mapping ships inside it: ``models/``, ``inference/``), and the
tests, benchmarks and study scripts.
"""

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _library_folders() -> list[str]:
    mapped = PYPROJECT["tool"]["setuptools"].get("package-dir", {}).values()
    return sorted({"softirr_stats", *mapped})


def _ruff(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    assert importlib.util.find_spec("ruff") is not None, (
        "ruff is not installed: install the test extra (pip install -e '.[test]'), as the README's test command does")
    return subprocess.run([sys.executable, "-m", "ruff", *args], cwd=ROOT, input=stdin, capture_output=True,
                          text=True, timeout=300)


def test_ruff_is_a_test_dependency():
    extras = PYPROJECT["project"]["optional-dependencies"]["test"]
    assert any(re.match(r"ruff\b", req) for req in extras), extras


def test_the_configured_rules_are_in_force():
    """A stray import order is found with the project's settings: the clean result below is not
    an empty rule set or a folder ruff skips."""
    proc = _ruff("check", "--no-cache", "--output-format", "concise", "--stdin-filename",
                 "softirr_stats/_probe.py", "-", stdin="import sys\nimport os\n\nprint(os, sys)\n")
    assert proc.returncode == 1 and "I001" in proc.stdout, proc.stdout + proc.stderr


def test_library_folders_are_ruff_clean():
    folders = _library_folders()
    assert {"softirr_stats", "models", "inference"} <= set(folders)
    proc = _ruff("check", "--no-cache", "--output-format", "concise", *folders)
    assert proc.returncode == 0, (
        f"ruff check {' '.join(folders)} reports findings (fix them; `ruff check --fix` sorts imports):\n"
        + proc.stdout + proc.stderr)


def test_tests_benchmarks_and_studies_are_ruff_clean():
    """The code around the library (its tests, the benchmarks, the paper's study scripts) is held to the same
    rules, so that a finding there is new, not one of many known ones."""
    folders = ["tests", "benchmarks", "paper_repro"]
    proc = _ruff("check", "--no-cache", "--output-format", "concise", *folders)
    assert proc.returncode == 0, (
        f"ruff check {' '.join(folders)} reports findings (fix them; `ruff check --fix` sorts imports):\n"
        + proc.stdout + proc.stderr)
