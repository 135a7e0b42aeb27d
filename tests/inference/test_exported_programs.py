"""Kept NUTS programs are trusted by content, not by name (issue 35, rows 5-7).

- A program file copied over another's name is detected (its header names the program it
  holds), not used, rebuilt, and named in a warning: the fit gives the right posterior.
- A damaged file (bytes flipped anywhere, truncated, empty, foreign) is detected by its
  checksum before use, rebuilt and named in a warning; the next process reads the new one.
- An unwritable cache home warns once and runs uncached instead of failing.
"""

import errno
import os
import subprocess
import sys

import numpy as np
import pytest

import softirr_stats.base._jax as J
from softirr_stats import models
from softirr_stats.inference import NutsConfig, fit

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.inference.ConvergenceWarning")  # short chains

A = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1], [2, 2, 2], [2, 1, 2]] * 3)
B = np.array([[0, 1, 0], [1, 1, 1], [2, 1, 1], [0, 0, 0], [2, 2, 1], [1, 1, 2]] * 4)  # another shape: data sets of one shape share one program
SMALL = NutsConfig(num_warmup=40, num_samples=30)


def _fit(codes):
    post = fit(models.dawid_skene, codes, method="nuts", seed=1, config=SMALL, progress=False)
    return {k: np.asarray(v) for k, v in post.samples_by_chain.items()}


def _same(x, y):
    return x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x)


def _programs(program_cache):
    return {p.stat().st_mtime_ns: p for p in (program_cache / "exported").glob("*.jaxexport")}


def _new_process():
    J._EXPORTED.clear()  # as in a new process: only the files are left


def test_a_program_copied_over_another_name_is_detected_and_rebuilt(program_cache):
    a = _fit(A)
    (file_a,) = (program_cache / "exported").glob("*.jaxexport")
    b = _fit(B)
    (file_b,) = set((program_cache / "exported").glob("*.jaxexport")) - {file_a}
    assert not _same(a, b)
    file_b.write_bytes(file_a.read_bytes())  # A's program under B's name
    _new_process()
    with pytest.warns(J.CompileCacheWarning, match=rf"{file_b.name}.*another program than its name says"):
        again = _fit(B)
    assert _same(again, b)  # B's posterior, not A's
    _new_process()
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", J.CompileCacheWarning)
        assert _same(_fit(B), b)  # replaced: read back without a warning


def _flip(blob, where, n=8):
    out = bytearray(blob)
    for i in range(where, min(where + n, len(out))):
        out[i] ^= 0xFF
    return bytes(out)


DAMAGE = {
    "8 bytes flipped in the middle": lambda b: _flip(b, len(b) // 2),
    "8 bytes flipped near the end": lambda b: _flip(b, len(b) - 9),
    "8 bytes flipped in the header": lambda b: _flip(b, 3),
    "8 bytes flipped in the key": lambda b: _flip(b, len(J._FILE_MAGIC) + 5),
    "8 bytes flipped in the checksum": lambda b: _flip(b, len(J._FILE_MAGIC) + 45),
    "truncated": lambda b: b[: len(b) // 3],
    "empty": lambda b: b"",
    "a file of the earlier format": lambda b: b[b.index(b"\n", len(J._FILE_MAGIC) + 41) + 1:],
    "foreign": lambda b: b"not a program",
}


def _whole(path):
    """The file's header names it and its checksum matches: what a reader checks."""
    import hashlib

    raw = path.read_bytes()
    head, _, rest = raw[len(J._FILE_MAGIC):].partition(b"\n")
    checksum, _, blob = rest.partition(b"\n")
    return raw.startswith(J._FILE_MAGIC) and head == path.stem.encode() and \
        hashlib.sha256(blob).hexdigest().encode() == checksum


def _double(x):
    return 2.0 * x + 1.0


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_program_file_is_detected_before_use_rebuilt_and_named(program_cache, damage):
    x = np.arange(4.0, dtype=np.float32)
    J.exported_program(_double, (x,), b"double")
    (kept,) = (program_cache / "exported").glob("*.jaxexport")
    assert _whole(kept)
    kept.write_bytes(DAMAGE[damage](kept.read_bytes()))
    _new_process()
    with pytest.warns(J.CompileCacheWarning, match=rf"{kept.name}.*(damaged|not a softirr program|another program)"):
        program = J.exported_program(_double, (x,), b"double")
    np.testing.assert_array_equal(np.asarray(program.call(x)), 2.0 * x + 1.0)
    assert _whole(kept)  # rebuilt and replaced


def test_a_nuts_program_with_8_bytes_flipped_is_rebuilt_and_gives_the_same_draws(program_cache):
    first = _fit(A)
    (kept,) = (program_cache / "exported").glob("*.jaxexport")
    kept.write_bytes(DAMAGE["8 bytes flipped in the middle"](kept.read_bytes()))
    _new_process()
    with pytest.warns(J.CompileCacheWarning, match=rf"{kept.name}.*damaged"):
        again = _fit(A)
    assert _same(again, first)
    assert _whole(kept)


def test_a_program_for_other_shapes_under_the_right_name_is_not_used(program_cache, monkeypatch):
    x = np.arange(4.0, dtype=np.float32)
    J.exported_program(_double, (x,), b"double")
    (kept,) = (program_cache / "exported").glob("*.jaxexport")
    _new_process()
    other = np.arange(6.0, dtype=np.float32)  # the same key forced onto another shape's file name
    program, why = J._load(kept, kept.stem, (other,))
    assert program is None and "other shapes" in why


def test_an_unwritable_cache_directory_keeps_the_program_in_memory(program_cache, monkeypatch):
    def refuse(*args, **kwargs):
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(J.os, "replace", refuse)
    J._CACHE_WARNED.clear()
    with pytest.warns(J.CompileCacheWarning, match="cannot be written.*Read-only file system.*running without it"):
        first = _fit(A)
    assert not list((program_cache / "exported").glob("*"))  # no file, no temporary left behind
    assert _same(_fit(A), first)


@pytest.mark.parametrize("home", ["{tmp}/a-file/cache"])  # mkdir fails (a file in the way), even as root
def test_a_read_only_cache_home_runs_uncached_with_one_warning(tmp_path, home):
    (tmp_path / "a-file").write_text("not a directory")
    env = {k: v for k, v in os.environ.items() if k != J.ENV_VAR}
    env["XDG_CACHE_HOME"] = home.format(tmp=tmp_path)
    data = tmp_path / "small.csv"  # a class model on 3 labels (the demo's free text is refused before any fit)
    data.write_text("item,rater,label\n" + "".join(f"{i},r{j},{'abc'[(i * (j + 1)) % 3]}\n"
                                                    for i in range(20) for j in range(3)))
    proc = subprocess.run([sys.executable, "-m", "softirr_stats.cli", "model", str(data), "--method", "svi",
                           "--steps", "20"], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    said = proc.stdout + proc.stderr  # the warning is one of the command's numbered notes
    assert said.count("cannot be written") == 1, said
    assert "running without it" in said and "Traceback" not in said
