"""The CLI's SIGINT handler: a Ctrl-C that lands inside an import waits for the import's end.

A KeyboardInterrupt raised inside an extension module's initialisation (JAX's first import at a
command's first JAX use) ended the process with a segmentation fault and no message. Each case runs
in a child process: the handler is process-wide and the test must not leave it behind.
"""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="signal.raise_signal(SIGINT) semantics")

PREAMBLE = """\
import signal, sys, time
signal.signal(signal.SIGINT, signal.default_int_handler)
sys.path.insert(0, sys.argv[1])
from softirr_stats.base import _interrupt
"""


def _run_child(tmp_path, module: str, module_text: str, program: str) -> list[str]:
    """Write ``module``.py into ``tmp_path``, run ``program`` after :data:`PREAMBLE` in a child
    Python, and return its stdout's lines (the child must exit 0)."""
    (tmp_path / f"{module}.py").write_text(textwrap.dedent(module_text))
    out = subprocess.run([sys.executable, "-c", PREAMBLE + textwrap.dedent(program), str(tmp_path)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def test_a_ctrl_c_inside_an_import_is_raised_after_it(tmp_path):
    lines = _run_child(tmp_path, "interrupted_import", """
        import signal, time
        signal.raise_signal(signal.SIGINT)  # Ctrl-C in the middle of a module's import
        time.sleep(0.5)
        DONE = True
        """, """
        previous = _interrupt.install()
        assert previous is not None
        try:
            import interrupted_import
            print("import finished:", interrupted_import.DONE, flush=True)
            time.sleep(10)  # the retry raises the held interrupt here
            print("never interrupted", flush=True)
        except KeyboardInterrupt:
            print("interrupted after the import:", "interrupted_import" in sys.modules, flush=True)
        finally:
            _interrupt.handled()
            _interrupt.restore(previous)
        """)
    assert lines == ["import finished: True", "interrupted after the import: True"]


def test_an_import_that_hangs_is_interrupted_after_the_hold(tmp_path):
    lines = _run_child(tmp_path, "hangs", """
        import signal, time
        signal.raise_signal(signal.SIGINT)
        time.sleep(20)  # an import that hangs
        """, """
        _interrupt.HOLD_SECONDS = 0.5
        previous = _interrupt.install()
        t0 = time.monotonic()
        try:
            import hangs
            print("import finished", flush=True)
        except KeyboardInterrupt:
            print("interrupted inside the import", time.monotonic() - t0 < 5, "hangs" not in sys.modules,
                  flush=True)
        finally:
            _interrupt.handled()
            _interrupt.restore(previous)
        """)
    assert lines == ["interrupted inside the import True True"]


def test_a_program_that_runs_inside_an_import_is_interrupted_at_once(tmp_path):
    """Only imports that begin after the handler's install are held: a module that runs the whole
    command when imported would otherwise never see its Ctrl-C."""
    lines = _run_child(tmp_path, "whole_program", """
        import signal, time
        from softirr_stats.base import _interrupt
        previous = _interrupt.install()  # the command starts inside this module's import
        try:
            signal.raise_signal(signal.SIGINT)
            time.sleep(0.2)  # not held: raised here, not by a retry
            print("not interrupted", flush=True)
        except KeyboardInterrupt:
            print("interrupted at once", flush=True)
        finally:
            _interrupt.handled()
            _interrupt.restore(previous)
        """, "import whole_program\n")
    assert lines == ["interrupted at once"]


def test_importing_sees_the_import_machinery_on_the_stack(tmp_path, monkeypatch):
    from softirr_stats.base._interrupt import importing

    (tmp_path / "looks_at_its_stack.py").write_text("import sys\n"
                                                    "def look():\n    return sys._getframe(1)\n"
                                                    "FRAME = look()\n")
    monkeypatch.syspath_prepend(tmp_path)
    import looks_at_its_stack

    assert importing(looks_at_its_stack.FRAME)
    assert not importing(sys._getframe())
    assert not importing(looks_at_its_stack.FRAME, stop=looks_at_its_stack.FRAME)  # the import began below it
    del looks_at_its_stack.FRAME  # the frame holds the import's frames alive
