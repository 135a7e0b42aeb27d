"""The installed ``softirr`` console script, run in a subprocess: exit codes and stderr.

Every user error must exit non-zero with one ``error: ...`` line on stderr (no traceback, nothing
on stdout); a coefficient that fails for the data makes the status 1 unless ``--keep-going``.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from softirr_stats.data import demo_path

SOFTIRR = shutil.which("softirr", path=str(Path(sys.executable).parent)) or shutil.which("softirr")
pytestmark = pytest.mark.skipif(SOFTIRR is None, reason="the softirr console script is not installed")
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "TOKENIZERS_PARALLELISM": "false", "HF_HUB_OFFLINE": "1",
       "MPLBACKEND": "Agg", "COLUMNS": "80"}


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([SOFTIRR, *args], capture_output=True, text=True, env=ENV, timeout=timeout, check=False)


def one_error_line(proc: subprocess.CompletedProcess) -> str:
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    assert proc.stdout == ""
    return lines[0]


@pytest.fixture
def three_raters(tmp_path):
    f = tmp_path / "three.csv"
    f.write_text("item,rater,label\n1,a,1\n1,b,2\n1,c,1\n2,a,2\n2,b,2\n2,c,2\n3,a,1\n3,b,1\n3,c,3\n4,a,1\n")
    return f


def test_help_lists_every_command():
    proc = run("--help")
    assert proc.returncode == 0
    for cmd in ("agree", "demo", "sensitivity", "model", "report"):
        assert cmd in proc.stdout


def test_mistyped_measure_is_one_line_on_stderr():
    proc = run("agree", str(demo_path()), "-m", "levenstein", "--bootstrap", "0")
    assert proc.returncode == 2
    line = one_error_line(proc)
    assert "--similarity" in line and "'levenstein'" in line and "levenshtein" in line


def test_incompatible_measure_and_mistyped_coefficient_read_the_same(three_raters):
    measure = run("agree", str(three_raters), "-m", "levenshtein", "--bootstrap", "0")
    assert measure.returncode == 2
    assert "--similarity levenshtein cannot score these labels" in one_error_line(measure)
    coef = run("agree", str(three_raters), "-c", "kappa_of_doom", "--bootstrap", "0")
    assert coef.returncode == 2
    assert "unknown --coefficient 'kappa_of_doom'" in one_error_line(coef)


def test_flags_are_named_and_unwritable_json_fails_first(three_raters, tmp_path):
    boot = run("agree", str(three_raters), "--bootstrap", "-1")
    assert boot.returncode == 2 and "--bootstrap" in one_error_line(boot)
    bad = tmp_path / "no_such_dir" / "out.json"
    proc = run("agree", str(three_raters), "--json", str(bad))
    assert proc.returncode == 2
    assert f"--json {bad} cannot be written" in one_error_line(proc)  # no table: nothing was computed
    missing = run("agree", str(tmp_path / "absent.csv"))
    assert missing.returncode == 2 and "does not exist" in one_error_line(missing)


def test_failing_coefficient_sets_the_status_and_is_shown_whole(three_raters):
    proc = run("agree", str(three_raters), "-c", "cohen_kappa,fleiss_kappa", "--bootstrap", "0")
    assert proc.returncode == 1
    errors = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(errors) == 1 and errors[0].startswith("error: 1 of 2 results cannot be computed")
    assert "cohen_kappa, exact: skipped: cohen_kappa needs exactly 2 raters; the data have 3" in errors[0]
    assert "fleiss_kappa" in proc.stdout and "0.1795" in proc.stdout  # the other coefficient is printed
    assert "…" not in proc.stdout  # nothing truncated when piped
    # the unpairable item is reported in the terminal, once, as a numbered note below the table
    assert proc.stdout.count("UnpairableItemsWarning: 1 of 4 items") == 1
    assert "[1] " in proc.stdout or "[2] " in proc.stdout
    kept = run("agree", str(three_raters), "-c", "cohen_kappa,fleiss_kappa", "--bootstrap", "0", "--keep-going")
    assert kept.returncode == 0 and kept.stderr == "" and "cohen_kappa needs exactly 2 raters" in kept.stdout


def test_csv_output_is_machine_readable(three_raters):
    proc = run("agree", str(three_raters), "-c", "fleiss_kappa", "--bootstrap", "0", "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    header, row = proc.stdout.splitlines()[:2]
    assert header.startswith("similarity,coefficient,chance,value,ci_low,ci_high")
    assert row.startswith("exact,fleiss_kappa,exact,0.1794871794871")
