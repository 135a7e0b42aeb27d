"""Every progress bar of the package follows one rule and shows on every terminal.

``SOFTIRR_PROGRESS=0`` (``softirr --quiet``) silenced some bars (bootstrap, cost estimate, columnar readers,
fits) but not others (the embedding batches, the pair-scoring blocks, the cache fill, the readers' record
bar, the parse timer), which asked tqdm whether stderr was a terminal and nothing else. And on a
pseudo-terminal that reports 0 columns (``script``, ``docker exec -t``, some CI runners) only the fit bars
were drawn: tqdm sized the others from the terminal and drew nothing, while the cost warning printed.
"""

import io
import os
import warnings

import numpy as np
import pytest

from softirr_stats.base._bars import FALLBACK_COLUMNS, bars_wanted, progress_bar


class _Terminal(io.StringIO):
    """A captured stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _run_batches(show):
    from softirr_stats.equivalence._torch import run_batches

    rows, _ = run_batches(lambda idx: idx[:, None].astype(float), np.ones(10), batch_size=2, desc="embedding",
                          progress=show)
    assert rows.shape == (10, 1)


def _similarity_matrix(show):
    from softirr_stats.equivalence import similarity_matrix

    class Half:
        name, symmetric = "half", True

        def __call__(self, a, b):
            return np.full(len(a), 0.5)

    similarity_matrix(Half(), [f"label{i}" for i in range(12)], block_size=5, progress=show)


def _fill_bar(show):
    from softirr_stats.equivalence._fill import _Progress

    bar = _Progress(10, "scoring pairs", show)
    bar.update(10)
    bar.close()


def _reader_bar(show, monkeypatch):
    from softirr_stats.data import _input
    from softirr_stats.data._readers._common import progress

    monkeypatch.setattr(_input, "BIG_INPUT", 0)
    assert list(progress(range(5), total=5, desc="reading records", nbytes=10)) == [0, 1, 2, 3, 4]


def _parse_timer(show, monkeypatch):
    from softirr_stats.data import _input

    monkeypatch.setattr(_input, "BIG_INPUT", 0)
    with _input.parsing(10, "parsing x.csv"):
        pass


def _slow_bootstrap_bar(show, monkeypatch):
    import softirr_stats as sis
    from softirr_stats.uncertainty import _bootstrap

    monkeypatch.setattr(_bootstrap, "BOOTSTRAP_BUDGET_SECONDS", 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bar = _bootstrap._warn_slow_bootstrap(sis.Bootstrap(n=64, progress=show), 16, 1.0)
    if bar is not None:
        bar.update(64)
        bar.close()


# the bars made with progress=None (the default: the package's rule decides)
SITES = {"embedding batches": lambda mp: _run_batches(None), "pair-scoring blocks": lambda mp: _similarity_matrix(None),
         "cache fill": lambda mp: _fill_bar(None), "reader records": lambda mp: _reader_bar(None, mp),
         "parse timer": lambda mp: _parse_timer(None, mp), "bootstrap": lambda mp: _slow_bootstrap_bar(None, mp)}


@pytest.mark.parametrize("site", list(SITES))
def test_softirr_progress_0_silences_every_bar_on_a_terminal(site, monkeypatch):
    err = _Terminal()
    monkeypatch.setattr("sys.stderr", err)
    monkeypatch.delenv("SOFTIRR_PROGRESS", raising=False)
    SITES[site](monkeypatch)
    assert "\r" in err.getvalue() or "%" in err.getvalue() or ":" in err.getvalue(), "drawn on a terminal"
    err.seek(0)
    err.truncate()
    monkeypatch.setenv("SOFTIRR_PROGRESS", "0")  # softirr --quiet
    SITES[site](monkeypatch)
    assert err.getvalue() == ""


def test_the_rule_reads_progress_then_the_environment_then_the_terminal(monkeypatch):
    monkeypatch.setattr("sys.stderr", io.StringIO())
    monkeypatch.delenv("SOFTIRR_PROGRESS", raising=False)
    assert (bars_wanted(), bars_wanted(True)) == (False, True)
    monkeypatch.setenv("SOFTIRR_PROGRESS", "1")  # drawn on a log file too
    assert bars_wanted() and not bars_wanted(False)
    monkeypatch.setattr("sys.stderr", _Terminal())
    monkeypatch.setenv("SOFTIRR_PROGRESS", "0")
    assert not bars_wanted() and bars_wanted(True)


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
@pytest.mark.parametrize("site", ["bootstrap", "pair-scoring blocks", "embedding batches"])
def test_bars_are_drawn_on_a_terminal_of_0_columns(site, monkeypatch):
    """A pseudo-terminal without a size (as ``script`` or ``docker exec -t`` make): the bar is drawn at
    ``$COLUMNS`` (or 80) columns, as the fit bars were."""
    master, slave = os.openpty()  # a new pseudo-terminal reports 0 x 0
    try:
        assert os.get_terminal_size(slave) == (0, 0)
        err = os.fdopen(slave, "w", closefd=False)
        monkeypatch.setattr("sys.stderr", err)
        monkeypatch.delenv("SOFTIRR_PROGRESS", raising=False)
        monkeypatch.delenv("COLUMNS", raising=False)
        SITES[site](monkeypatch)
        err.flush()
        os.set_blocking(master, False)
        try:
            drawn = os.read(master, 1 << 16).decode(errors="replace")
        except BlockingIOError:
            drawn = ""
    finally:
        os.close(slave)
        os.close(master)
    lines = [line for line in drawn.replace("\r\n", "\r").split("\r") if line.strip()]
    assert lines, "no bar was drawn"
    assert max(len(line) for line in lines) <= FALLBACK_COLUMNS
    assert any("|" in line or "/" in line for line in lines)


def test_a_disabled_bar_still_counts_and_iterates():
    bar = progress_bar(3, "quiet", show=False)
    bar.update(3)
    assert bar.disable and list(progress_bar(desc="quiet", show=False, iterable=range(3))) == [0, 1, 2]
