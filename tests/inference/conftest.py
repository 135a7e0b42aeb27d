"""What the inference tests share: a fresh compile cache for the tests of kept NUTS programs."""

from __future__ import annotations

import pytest

import softirr_stats.base._jax as J


@pytest.fixture
def program_cache(tmp_path):
    """A fresh compile cache (kept programs go to its ``exported/`` folder) and no program
    remembered by this process; the suite's cache again after the test."""
    import jax

    previous = jax.config.jax_compilation_cache_dir
    J.compile_cache(tmp_path / "jax")
    J._EXPORTED.clear()
    yield tmp_path / "jax"
    J._EXPORTED.clear()
    J.compile_cache(previous or False)
