"""A fit's size before it compiles, its progress bar, and Ctrl-C (issue: the user's hour, row 1)."""

import _thread
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats import models
from softirr_stats.cli import main
from softirr_stats.data import demo_path
from softirr_stats.inference import FitSize, FitSizeError, NutsConfig, fit
from softirr_stats.inference._fit import _fingerprint, _prepare_data, _run_nuts
from softirr_stats.inference._progress import FitInterrupted, Ticker, interruptibly
from softirr_stats.inference._size import check_fit_size, fit_size, format_seconds


def test_the_demo_is_refused_before_compiling_with_the_soft_model_named():
    ann = sis.read_annotations(demo_path())
    t0 = time.perf_counter()
    with pytest.raises(FitSizeError, match=r"226 distinct labels on 90 items, 195 of them given once") as err:
        fit("dawid_skene", ann)
    assert time.perf_counter() - t0 < 20  # sized by an abstract trace: nothing compiled, nothing sampled
    assert "model='soft'" in str(err.value) and "coarser label set" in str(err.value)
    size = err.value.size
    assert (size.n_classes, size.n_raters, size.n_parameters) == (226, 3, 3 * 226 * 226 + 226)
    # 153,454 parameters run deep trees: the leapfrog count grows with the dimension's fourth root, so the
    # estimate stays in tens of minutes (22 min before the categorical count fell from 31 to 15; 5 min flat)
    assert 20 * 60 < size.seconds < 40 * 60 and "a NUTS fit would take roughly 28 min" in str(err.value)
    assert isinstance(err.value, ValueError)


def test_the_cli_redirects_the_demo_in_one_line(capsys):
    with pytest.raises(SystemExit) as ex:
        main(["model", str(demo_path())])
    assert ex.value.code == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: --model dawid_skene on free-text labels: 226 distinct")
    assert "--model soft -m levenshtein" in err[0] and "check_size" not in err[0]  # CLI flags, not Python


def test_a_closed_label_set_passes_and_a_small_open_one_is_only_flagged():
    closed = models.encode_annotations(np.array([[0, 0, 1], [1, 1, 1], [2, 0, 2]] * 10))
    size = fit_size("dawid_skene", "categorical", models.dawid_skene, closed, "nuts", NutsConfig(), {})
    check_fit_size(size)  # no error
    assert size.n_parameters == 3 * 3 * 3 + 3 and not size.open_vocabulary
    small_open = models.encode_annotations(np.arange(90).reshape(30, 3) % 35)  # 35 labels: caveat after the fit
    check_fit_size(fit_size("dawid_skene", "categorical", models.dawid_skene, small_open, "svi",
                            sis.inference.SviConfig(steps=10), {}))


def test_size_line_and_rounded_times():
    size = FitSize("mace", "categorical", "svi", 10, 2, 3, 20, 1, 40, False, 2000, 12.0)
    assert size.describe() == ("mace by SVI: 10 items x 2 raters x 3 classes (1 labels given once), 40 parameters, "
                               "2,000 steps: roughly 12 s")
    assert [format_seconds(s) for s in (0.2, 89, 91, 5000, 7200, float("nan"))] == \
        ["1 s", "89 s", "2 min", "83 min", "2.0 h", "an unknown time"]


def test_a_long_fit_says_its_estimate_first(caplog):
    from softirr_stats.inference._fit import LONG_FIT_SECONDS, _announce

    quick = FitSize("mace", "categorical", "svi", 10, 2, 3, 20, 1, 40, False, 2000, LONG_FIT_SECONDS)
    long = FitSize("dawid_skene", "categorical", "nuts", 400, 5, 6, 2000, 0, 186, False, 12000, 480.0)
    with caplog.at_level("WARNING", logger="softirr_stats"):
        _announce(quick)
        _announce(long)
    said = [r.getMessage() for r in caplog.records]
    assert said == ["softirr_stats: fitting dawid_skene by NUTS: 400 items x 5 raters x 6 classes (0 labels given "
                    "once), 186 parameters, 12,000 iterations: roughly 8 min (compilation not included; Ctrl-C "
                    "stops it)"]


class _Sized(Exception):
    """Raised in place of a fit's announcement: the fit stops before compiling, its size in args[0]."""


def _stop_with_size(size):
    raise _Sized(size)


def test_a_soft_nuts_fit_is_estimated_with_its_own_tree_size(monkeypatch):
    """The soft model's NUTS runs 66-157 leapfrog steps per iteration (a categorical model ~31): its
    estimate used the categorical count and was 3-7 times short, so a 600-item fit of about a minute was
    estimated under LONG_FIT_SECONDS and ran without its announcement or its bar."""
    from softirr_stats.inference import _fit
    from softirr_stats.inference._kinds import MODEL_KINDS

    monkeypatch.setattr(_fit, "_announce", _stop_with_size)
    data = models.simulate_soft_scores(600, 3, seed=1, n_chance=1000)["data"]
    with pytest.raises(_Sized) as got:  # stopped before anything compiles
        fit(models.soft_agreement, data)
    size = got.value.args[0]
    encoded = _prepare_data("soft", data)
    categorical_count = fit_size("soft_agreement", "soft", models.soft_agreement, encoded, "nuts", NutsConfig(),
                                 {"priors": None})  # the 31 steps every model was estimated with before
    assert MODEL_KINDS["soft"].nuts_leapfrog_per_iteration == 120 and MODEL_KINDS["soft"].seconds_per_work == 1e-7
    assert size.seconds == pytest.approx(categorical_count.seconds * 120 / 31, rel=1e-12)
    assert size.seconds > _fit.LONG_FIT_SECONDS > categorical_count.seconds
    with pytest.raises(_Sized) as got:  # SVI is not a tree: one gradient a step, as before
        fit(models.soft_agreement, data, method="svi")
    assert got.value.args[0].seconds == pytest.approx(
        fit_size("soft_agreement", "soft", models.soft_agreement, encoded, "svi", sis.inference.SviConfig(),
                 {"priors": None}).seconds, rel=1e-12)



def test_a_categorical_fit_of_a_few_seconds_is_not_estimated_as_a_long_one(monkeypatch):
    """dawid_skene on 600 items x 3 raters x 3 classes ran in 3.2 s (10 leapfrog steps per iteration); the
    estimate of 31 steps and 1e-7 s per unit of work said 35 s, over LONG_FIT_SECONDS: a terminal drew a bar,
    and a program with the bar is compiled again in every process."""
    from softirr_stats.inference import _fit
    from softirr_stats.inference._kinds import MODEL_KINDS

    monkeypatch.setattr(_fit, "_announce", _stop_with_size)
    codes = models.simulate_dawid_skene(600, 3, 3, seed=1)["codes"]
    with pytest.raises(_Sized) as got:
        fit("dawid_skene", codes)
    kind = MODEL_KINDS["categorical"]
    assert (kind.nuts_leapfrog_per_iteration, kind.seconds_per_work) == (15, 5e-8)
    before = fit_size("dawid_skene", "categorical", models.dawid_skene, _prepare_data("categorical", codes), "nuts",
                      NutsConfig(), {"priors": None})
    assert got.value.args[0].seconds < _fit.LONG_FIT_SECONDS < before.seconds


@pytest.mark.slow  # two NUTS compilations (about 50 s on a loaded 2-core machine)
def test_the_progress_bar_does_not_change_the_draws(monkeypatch):
    """The bar is a host callback on the iteration counter: the same draws, bit for bit."""
    from softirr_stats.inference import _progress

    seen = []
    monkeypatch.setattr(_progress.Ticker, "close", lambda self: seen.append((self.done, self.phase)))
    codes = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]] * 4)
    data = _prepare_data("categorical", codes)
    cfg = NutsConfig(num_warmup=30, num_samples=20, num_chains=2)
    key = __import__("jax").random.key(3)
    kwargs = {"priors": None}
    plain, _ = _run_nuts(models.dawid_skene, data, key, cfg, kwargs, False,
                         _fingerprint("categorical", models.dawid_skene, data, cfg, kwargs))
    ticked, _ = _run_nuts(models.dawid_skene, data, key, cfg, kwargs, True, None)
    assert plain.keys() == ticked.keys()
    for name in plain:
        np.testing.assert_array_equal(plain[name], ticked[name])
    assert seen == [(2 * 50, "sampling")]  # every transition of both chains reached the bar


def test_the_svi_bar_does_not_change_the_fit_and_shows_its_steps(capsys):
    """SVI with the bar: NumPyro's scan of updates plus a host callback; the same draws, bit for bit."""
    from softirr_stats.inference import SviConfig

    codes = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]] * 4)
    cfg = SviConfig(steps=60, num_draws=20)
    plain = fit(models.dawid_skene, codes, method="svi", config=cfg, seed=2, progress=False)
    assert "SVI steps" not in capsys.readouterr().err
    ticked = fit(models.dawid_skene, codes, method="svi", config=cfg, seed=2, progress=True)
    err = capsys.readouterr().err
    assert "SVI steps" in err and "/60 [" in err
    np.testing.assert_array_equal(plain.extra["losses"], ticked.extra["losses"])
    for name in plain.samples:
        np.testing.assert_array_equal(plain.samples[name], ticked.samples[name])


def test_the_nuts_bar_text_reaches_stderr(capsys):
    cfg = NutsConfig(num_warmup=20, num_samples=10, num_chains=1)
    codes = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]] * 4)
    fit(models.dawid_skene, codes, config=cfg, seed=1, progress=True)
    err = capsys.readouterr().err
    assert "NUTS warm-up" in err and "/30 [" in err and "it/s" in err  # a short fit: its first frame


def test_softirr_progress_1_forces_the_bar_of_a_default_fit(monkeypatch, capsys):
    from softirr_stats.inference._fit import resolve_progress

    monkeypatch.setenv("SOFTIRR_PROGRESS", "1")
    assert resolve_progress(None) is True  # stderr is captured here, not a terminal
    cfg = NutsConfig(num_warmup=20, num_samples=10, num_chains=1)
    fit(models.dawid_skene, np.array([[0, 0], [1, 1], [1, 0]] * 4), config=cfg)  # a short fit
    assert "NUTS warm-up" in capsys.readouterr().err
    monkeypatch.setenv("SOFTIRR_PROGRESS", "0")
    assert resolve_progress(None) is False


def test_a_terminal_of_zero_columns_still_gets_a_bar():
    """A pseudo-terminal without a size (``script``, ``docker exec -t``): tqdm alone draws nothing."""
    pty = pytest.importorskip("pty")
    code = ("from softirr_stats.inference._progress import progress_bar\n"
            "b = progress_bar(5, 'NUTS warm-up')\nb.update(5)\nb.refresh()\nb.close()\n")
    main_fd, child_fd = pty.openpty()  # a fresh pty reports 0 columns and 0 rows
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=child_fd, stdout=child_fd,
                            env={k: v for k, v in __import__("os").environ.items() if k != "COLUMNS"})
    __import__("os").close(child_fd)
    proc.wait(timeout=120)
    out = b""
    while True:
        try:
            chunk = __import__("os").read(main_fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    assert b"NUTS warm-up" in out and b"5/5" in out


def test_the_ticker_counts_phases_and_stops_on_request():
    t = Ticker(num_warmup=2, num_samples=2, num_chains=2, show=False)
    t(np.array([0, 0]))
    assert (t.done, t.phase) == (2, "warm-up")
    t(np.array([2, 2]))
    assert (t.done, t.phase) == (4, "sampling")
    t.stop.set()
    with pytest.raises(FitInterrupted):
        t(np.array([3, 3]))


def test_ctrl_c_leaves_the_wait_at_once():
    timer = threading.Timer(0.2, _thread.interrupt_main)
    timer.start()
    t0 = time.perf_counter()
    with pytest.raises(FitInterrupted):
        interruptibly(lambda: time.sleep(3))
    assert time.perf_counter() - t0 < 1.5


def test_interruptibly_hands_back_results_and_errors():
    assert interruptibly(lambda: 6 * 7) == 42
    with pytest.raises(ZeroDivisionError):
        interruptibly(lambda: 1 / 0)


@pytest.mark.slow
def test_ctrl_c_on_a_long_cli_fit_exits_130_at_once(tmp_path):
    rng = np.random.default_rng(1)
    rows = ["item,rater,label", *(f"i{i},r{r},c{rng.integers(0, 4)}" for i in range(200) for r in range(4))]
    (tmp_path / "long.csv").write_text("\n".join(rows) + "\n")
    out = tmp_path / "fit.json"
    proc = subprocess.Popen([sys.executable, "-m", "softirr_stats.cli", "model", str(tmp_path / "long.csv"),
                             "--warmup", "20000", "--samples", "20000", "--json", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = proc.stderr.readline()  # the estimate comes before anything compiles
    assert "fitting dawid_skene by NUTS: 200 items x 4 raters x 4 classes" in first
    time.sleep(1.0)
    t0 = time.perf_counter()
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert time.perf_counter() - t0 < 5  # 2 s on an idle machine; CI machines are loaded
    assert proc.returncode == 130 and stderr.strip().splitlines()[-1] == "error: interrupted"
    assert stdout == "" and not out.exists()  # nothing partial written


def test_the_compile_notice_is_told_what_each_fit_compiles(monkeypatch):
    """SVI is not called a NUTS fit; a package model's NUTS program is compiled once per shape of data."""
    from contextlib import contextmanager

    from softirr_stats.inference import SviConfig, _fit

    said = []

    @contextmanager
    def record(what):
        said.append(what)
        yield

    monkeypatch.setattr(_fit, "compiling", record)
    codes = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]] * 4)
    fit(models.dawid_skene, codes, method="svi", config=SviConfig(steps=20, num_draws=5), progress=False)
    assert said == ["for an SVI fit of dawid_skene (its optimisation steps and its draws), once per machine "
                    "and shape of data"]
    fit(models.dawid_skene, codes, config=NutsConfig(num_warmup=5, num_samples=5, num_chains=1), progress=False)
    assert said[1] == "for a NUTS fit of dawid_skene, once per machine and shape of data"


def test_a_short_fit_on_a_terminal_says_it_runs_without_a_bar(monkeypatch, caplog):
    """No bar by default for a fit under 30 s (its cached program runs): one line says so."""
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.delenv("SOFTIRR_PROGRESS", raising=False)
    monkeypatch.setattr(sys, "stderr", Terminal())
    cfg = NutsConfig(num_warmup=10, num_samples=10, num_chains=1)
    with caplog.at_level("INFO", logger="softirr_stats"):
        fit(models.dawid_skene, np.array([[0, 0], [1, 1], [1, 0]] * 4), config=cfg)
    said = [r.getMessage() for r in caplog.records]
    assert any("running dawid_skene by NUTS: 1 chain(s) x (10 warm-up + 10 draws) without a progress bar" in m
               and "SOFTIRR_PROGRESS=1" in m for m in said), said
    assert "NUTS warm-up" not in sys.stderr.getvalue()  # no bar was drawn
    caplog.clear()
    with caplog.at_level("INFO", logger="softirr_stats"):
        fit(models.dawid_skene, np.array([[0, 0], [1, 1], [1, 0]] * 4), config=cfg, progress=False)
    assert not any("without a progress bar" in r.getMessage() for r in caplog.records)
