"""The persistent compile cache: on by default, moved or switched off by env var or API, and
a one-line notice when compilation takes a while. Each case runs in a fresh interpreter
(JAX's cache is process-wide)."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

_RUN = """
import jax, sys, warnings
warnings.simplefilter("ignore")
{pre}
import softirr_stats as sis
r = sis.light_kappa([["a", "a", "b"], ["b", "b", "b"], ["a", "c", "c"], ["c", "c", "a"]],
                    ci=sis.Bootstrap(n=20, design="raters", seed=0))  # rater weights: the JAX kernels
print(repr(r.value))
print(jax.config.jax_compilation_cache_dir)
"""


def _run(tmp_path, env_value, pre=""):
    env = {k: v for k, v in os.environ.items() if k not in ("SOFTIRR_COMPILE_CACHE", "JAX_COMPILATION_CACHE_DIR")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")  # where platformdirs puts the default cache
    if env_value is not None:
        env["SOFTIRR_COMPILE_CACHE"] = env_value
    out = subprocess.run([sys.executable, "-c", _RUN.format(pre=pre)], capture_output=True, text=True, env=env,
                         timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    value, where = out.stdout.strip().splitlines()[-2:]
    return float(value), (None if where == "None" else pathlib.Path(where)), out.stderr


def _entries(path):
    return [p for p in path.rglob("*") if p.is_file()] if path.exists() else []


def test_on_by_default_in_the_user_cache_dir(tmp_path):
    value, where, _ = _run(tmp_path, None)
    default = tmp_path / "xdg" / "softirr_stats" / "jax"
    assert where == default
    assert _entries(default), "compiled programs are written to the default directory"
    again, _, _ = _run(tmp_path, None)  # a second process reads them back
    assert again == value


def test_env_var_moves_and_disables(tmp_path):
    moved = tmp_path / "moved"
    value, where, _ = _run(tmp_path, str(moved))
    assert where == moved and _entries(moved)
    off_value, off_where, _ = _run(tmp_path, "0")
    assert off_where is None and off_value == value
    assert not _entries(tmp_path / "xdg"), "a disabled cache writes nothing"


def test_api_moves_and_disables(tmp_path):
    target = tmp_path / "api"
    pre = f"import softirr_stats\nassert softirr_stats.compile_cache({str(target)!r}) == __import__('pathlib').Path({str(target)!r})"
    _, where, _ = _run(tmp_path, "0", pre=pre)
    assert where == target and _entries(target)
    _, where, _ = _run(tmp_path, None, pre="import softirr_stats\nassert softirr_stats.compile_cache(False) is None")
    assert where is None and not _entries(tmp_path / "xdg")


def test_the_users_own_jax_cache_setting_is_kept(tmp_path):
    own = tmp_path / "own"
    _, where, _ = _run(tmp_path, None, pre=f"jax.config.update('jax_compilation_cache_dir', {str(own)!r})")
    assert where == own and not _entries(tmp_path / "xdg")


def test_notice_once_per_process_when_compiling_takes_a_while(tmp_path):
    # a zero budget: the notice fires during the first compile, and only once
    pre = "import softirr_stats.base._jax as J\nJ._notice.left = 0.0"
    _, _, err = _run(tmp_path, str(tmp_path / "c"), pre=pre)
    assert err.count("compiling JAX programs") == 1
    assert str(tmp_path / "c") in err


def test_bad_argument_names_what_was_expected():
    from softirr_stats.base._jax import compile_cache

    with pytest.raises(TypeError, match="path must be True, False, None or a path; got int"):
        compile_cache(3)


def test_no_notice_when_every_program_comes_from_the_cache(tmp_path):
    # a zero budget: any real compile would show the notice; reading programs back is not compiling
    pre = "import softirr_stats.base._jax as J\nJ._notice.left = 0.0"
    cache = str(tmp_path / "c")
    _, _, cold = _run(tmp_path, cache, pre=pre)
    assert cold.count("compiling JAX programs") == 1
    _, _, warm = _run(tmp_path, cache, pre=pre)
    assert "compiling JAX programs" not in warm


def test_notice_with_the_cache_off(tmp_path):
    _, _, err = _run(tmp_path, "0", pre="import softirr_stats.base._jax as J\nJ._notice.left = 0.0")
    assert err.count("compiling JAX programs") == 1 and "the compile cache is off" in err


def test_the_notice_names_what_is_compiled(caplog):
    from softirr_stats.base._jax import _CompileNotice, compiling

    for subject, expected in [(None, "compiling JAX programs once per machine for data of this shape;"),
                              ("for an SVI fit of mace (its optimisation steps and its draws)",
                               "compiling JAX programs for an SVI fit of mace (its optimisation steps")]:
        notice = _CompileNotice(0.0)
        caplog.clear()
        with caplog.at_level("WARNING", logger="softirr_stats"), \
                (compiling(subject) if subject else __import__("contextlib").nullcontext()):
            notice.fire(final=True)
        assert expected in caplog.text and "NUTS" not in caplog.text
