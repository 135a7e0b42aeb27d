"""A progress bar never leaves stderr's last line half drawn: not when the work raises, not before ``error:``.

A tqdm bar redraws its line with a carriage return and writes no line end until it closes. A bar left
open by an exception stayed on the last line of stderr: the command line's ``error:`` line was written
over it and the shell prompt landed after the bar's remains.
"""

import numpy as np
import pytest
import typer

from softirr_stats.base._bars import close_bars
from softirr_stats.cli._errors import guarded
from softirr_stats.equivalence import similarity_matrix


class _FailsOnSecondBlock:
    """A pair estimator (no vectorised matrix path) whose second call raises."""

    name = "fails_on_second_block"
    symmetric = True

    def __init__(self):
        self.calls = 0

    def __call__(self, a, b):
        self.calls += 1
        if self.calls == 2:
            raise RuntimeError("the model went away")
        return np.full(len(a), 0.5)


def test_the_pair_scoring_bar_ends_its_line_when_the_estimator_raises(capsys):
    """A guard: the bar iterates the blocks, and its generator closes the bar as the raising frame unwinds."""
    with pytest.raises(RuntimeError, match="went away"):
        similarity_matrix(_FailsOnSecondBlock(), [f"label{i}" for i in range(12)], block_size=5, progress=True)
    err = capsys.readouterr().err
    assert "scoring _FailsOnSecondBlock" in err  # the bar was drawn
    assert err.endswith("\n"), repr(err[-80:])  # and closed: its line ended
    assert close_bars() == 0  # nothing left open


def _work_that_raises_with_a_bar_open():
    from tqdm.auto import tqdm

    bar = tqdm(total=100, desc="long work", leave=False)
    bar.update(40)
    raise ValueError("the input ran out")


def test_the_error_line_of_the_command_line_starts_on_a_line_of_its_own(capsys):
    with pytest.raises(typer.Exit):
        guarded(_work_that_raises_with_a_bar_open)()
    err = capsys.readouterr().err
    before, sep, after = err.rpartition("error: the input ran out")
    assert sep and after == "\n", repr(err[-120:])
    assert "long work" in before  # the bar was drawn ...
    assert before.rsplit("\r", 1)[-1].strip() == "", repr(before[-120:])  # ... and cleared before the error line
    assert close_bars() == 0


def test_close_bars_without_any_bar_is_a_no_op():
    assert close_bars() == 0
