"""Fixtures of the command-line tests: running ``softirr`` in-process, and a small ratings table."""

from collections.abc import Callable

import numpy as np
import pytest

from softirr_stats.cli import main


@pytest.fixture
def run_cli(capsys) -> Callable[..., tuple[int, str, str]]:
    """``run_cli("agree", path, ...)``: ``(exit code, stdout, stderr)`` of the command (arguments as ``str``)."""

    def run(*args: object) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as ex:
            main([str(a) for a in args])
        out = capsys.readouterr()
        return ex.value.code, out.out, out.err

    return run


@pytest.fixture
def write_ratings() -> Callable[..., object]:
    """``write_ratings(path, seed=1, raters=("r1", "r2", "r3"), n=30)``: a long csv (item, rater, label) of ``n``
    items over labels a, b, c, each rater right on about 70% + 10% of them; returns ``path``."""

    def write(path, seed=1, raters=("r1", "r2", "r3"), n=30):
        rng = np.random.default_rng(seed)
        lines = ["item,rater,label"]
        for i in range(n):
            truth = "abc"[rng.integers(3)]
            lines += [f"i{i},{r},{truth if rng.random() < 0.7 else 'abc'[rng.integers(3)]}" for r in raters]
        path.write_text("\n".join(lines) + "\n")
        return path

    return write
