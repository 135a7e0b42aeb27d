"""Ctrl-C: ``error: interrupted`` (one line) on stderr and exit 130 within 2 s (issue 35, row 22).

Each row starts the real command line in a subprocess, waits until it is inside the long step
(a marker file written when the step is entered, or the kernel saying the process waits on a
FIFO), sends SIGINT and times the exit.
"""

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="uses /proc and FIFOs")

RUNNER = textwrap.dedent("""
    import importlib, pathlib, sys
    mark, target, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if target:  # "module:attr" (the mark at its first call) or "module:attr@N" (at its N-th)
        target, _, nth = target.partition("@")
        modname, _, attr = target.partition(":")
        owner = importlib.import_module(modname)
        *path, name = attr.split(".")
        for p in path:
            owner = getattr(owner, p)
        orig = getattr(owner, name)
        calls = []
        def entered(*a, **k):
            calls.append(1)
            if len(calls) == int(nth or 1):
                pathlib.Path(mark).touch()
            return orig(*a, **k)
        setattr(owner, name, entered)
    from softirr_stats.cli import main
    main(args)
""")


def _interrupt(tmp_path, args, target="", ready=None, limit=120.0):
    mark = tmp_path / "entered"
    # a crash (a signal ending the process) prints its traceback: a failure says what happened
    env = {**os.environ, "SOFTIRR_PROGRESS": "0", "PYTHONFAULTHANDLER": "1"}
    proc = subprocess.Popen([sys.executable, "-c", RUNNER, str(mark), target, *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        t0 = time.monotonic()
        ready = ready or (lambda _proc: mark.exists())
        while not ready(proc):
            assert proc.poll() is None, f"finished before the long step: {proc.communicate()}"
            assert time.monotonic() - t0 < limit, "never reached the long step"
            time.sleep(0.05)
        time.sleep(0.3)  # well inside the step
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        return proc.returncode, time.monotonic() - sent, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


#: What /proc/.../wchan reads while a process waits in a FIFO's open (by kernel version).
_FIFO_WAITS = ("wait_for_partner", "fifo_open", "pipe_wait")


def _waits_on_fifo(proc):
    try:
        return Path(f"/proc/{proc.pid}/wchan").read_text() in _FIFO_WAITS
    except OSError:
        return False


def _long_labels(path, n):
    import random

    rnd = random.Random(0)
    a = "".join(rnd.choice("abcdefgh ") for _ in range(n))
    b = "".join(rnd.choice("abcdefgh ") for _ in range(n))
    path.write_text(f"item,rater,label\n1,r1,{a}\n1,r2,{b}\n2,r1,x\n2,r2,y\n3,r1,x\n3,r2,x\n")
    return path


def _many_items(path):
    rows = [f"{i},{r},{(i * 7 + r * (i % 3)) % 5}" for i in range(20_000) for r in range(6)]
    path.write_text("item,rater,label\n" + "\n".join(rows) + "\n")
    return path


def _assert_said_interrupted(rc, dt, err, within=2.0):
    """Exit 130 within ``within`` s, ``error: interrupted`` as the last line of stderr and the only error;
    a failure shows the exit status and the whole stderr (an empty stderr fails here, not as an
    IndexError)."""
    said = f"exit status {rc} {dt:.2f} s after the signal; stderr: {err!r}"
    assert rc == 130, said
    assert err.strip().splitlines()[-1:] == ["error: interrupted"], said
    assert err.count("error:") == 1, said
    assert dt < within, said


def test_interrupt_while_opening_a_fifo(tmp_path):
    fifo = tmp_path / "in.csv"
    os.mkfifo(fifo)
    rc, dt, err = _interrupt(tmp_path, ["agree", str(fifo)], ready=_waits_on_fifo)
    assert (rc, err.strip()) == (130, "error: interrupted")
    assert dt < 2.0


def test_interrupt_during_a_bootstrap(tmp_path):
    """In the bootstrap's second chunk: JAX imported and the chunk's program compiled."""
    data = _many_items(tmp_path / "many.csv")
    rc, dt, err = _interrupt(tmp_path, ["agree", str(data), "-c", "fleiss_kappa", "--bootstrap", "200000"],
                             target="softirr_stats.uncertainty._bootstrap:evaluate_chunk@2")
    _assert_said_interrupted(rc, dt, err)


def test_interrupt_during_the_first_jax_import(tmp_path):
    """At the bootstrap's first chunk, where the command imports JAX: the interrupt waits for the
    import's end (raised inside JAX's extension module's initialisation, it crashed the process with
    a segmentation fault and no message), so it may take as long as the rest of the import."""
    data = _many_items(tmp_path / "many.csv")
    rc, dt, err = _interrupt(tmp_path, ["agree", str(data), "-c", "fleiss_kappa", "--bootstrap", "200000"],
                             target="softirr_stats.uncertainty._bootstrap:evaluate_chunk")
    _assert_said_interrupted(rc, dt, err, within=30.0)


def test_interrupt_during_edit_distance_scoring(tmp_path):
    data = _long_labels(tmp_path / "long.csv", 600_000)  # one pair: about 20 s of edit distance
    rc, dt, err = _interrupt(tmp_path, ["agree", str(data), "-m", "levenshtein", "--bootstrap", "0"],
                             target="rapidfuzz.process:cpdist")
    _assert_said_interrupted(rc, dt, err)


def test_each_command_line_in_one_process_says_it_once(tmp_path, capsys):
    """``main`` run twice in one process (a notebook, a test): each interrupt is reported."""
    from softirr_stats.cli import main

    fifo = tmp_path / "in2.csv"
    os.mkfifo(fifo)
    for _ in range(2):
        stuck: list = []
        sender = threading.Thread(target=_interrupt_main_thread_on_fifo, args=(fifo, stuck), daemon=True)
        sender.start()
        with pytest.raises(SystemExit) as info:
            main(["agree", str(fifo)])
        sender.join()
        assert not stuck, "the command never left the FIFO's open on SIGINT (the FIFO was opened to unblock it)"
        assert info.value.code == 130
        assert capsys.readouterr().err.strip() == "error: interrupted"


def _interrupt_main_thread_on_fifo(fifo, stuck, limit=120.0):
    """SIGINT to the main thread once the kernel says it waits on the FIFO's open (a signal sent at a
    fixed delay could land before, on a loaded machine while the command still imports). If it never
    blocks there within ``limit``, or is still blocked 30 s after the signal: open the FIFO's other
    end, so that the test fails, not hangs."""
    main = threading.main_thread()
    wchan = Path(f"/proc/self/task/{main.native_id}/wchan")
    t0, sent = time.monotonic(), None
    while time.monotonic() - t0 < limit:
        try:
            blocked = wchan.read_text() in _FIFO_WAITS
        except OSError:
            blocked = False
        if sent is None and blocked:
            time.sleep(0.1)  # well inside the open
            signal.pthread_kill(main.ident, signal.SIGINT)
            sent = time.monotonic()
        elif sent is not None and (not blocked or time.monotonic() - sent > 30.0):
            break  # left the open (the test checks how), or the signal did not take it out
        time.sleep(0.02)
    if sent is not None and time.monotonic() - sent <= 30.0:
        return
    stuck.append(True)
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))  # ENXIO when no reader waits
    except OSError:
        pass
