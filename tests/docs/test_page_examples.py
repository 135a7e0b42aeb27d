"""Every ```python block on every docs page runs, so the documentation cannot rot.

A page's blocks run in order in one namespace (a later block may use what an earlier one
built), in a fresh namespace per page, with the working directory set to a temporary folder
(examples that write files write there). Blocks that cannot run offline are fenced as
something else (```text, ```bash) with the reason in the prose. ``>>>`` examples outside fences
run as doctests (the same flags and checker as the library's docstrings, from tests/docs/conftest.py,
``NUMBER`` included: a float shown with d decimals matches any value that agrees to d decimals).

```console blocks are shell sessions: each ``$ `` line (continued by a trailing backslash) runs in
bash, in the page's folder, with this environment's ``softirr`` and ``python`` first on ``PATH``,
``COLUMNS=100`` and the variables an earlier command set (``DEMO=...``); its output (stdout and
stderr as a terminal interleaves them) is compared with the lines shown under it by the same
checker, and a failing command fails the page. The lines taken out before comparing are the ones
that appear or not with the machine's load: JAX's "compiling JAX programs" notice and the exact
chance pass's time estimate ("note: exact chance agreement: ... to score", printed above 3 s, an
estimate timed on the machine at hand). Every ```bash block
that calls ``softirr`` must be a console block (install lines excepted), so every command example
shows its output.

Pages in ``NLI_PAGES`` use an NLI model directory, ``my-nli-model``: the test builds a tiny randomly
initialised BERT cross-encoder (3 NLI labels, a word-level tokenizer) offline, once per session, and
copies it into the page's folder; the pages show the values it gives as ``...``.
"""

from __future__ import annotations

import doctest
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys
import warnings

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

DOCS = pathlib.Path(__file__).resolve().parents[2] / "docs"
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.MULTILINE | re.DOTALL)
PAGES = sorted(DOCS.rglob("*.md"))
_NOTICE = re.compile(r"^(softirr_stats: compiling JAX programs|note: exact chance agreement: .* to score;).*\n?",
                     re.MULTILINE)


def console_sessions(body: str) -> list[tuple[str, str]]:
    """``(command, shown output)`` pairs of a console block: ``$ `` lines, a trailing backslash continues."""
    sessions: list[list] = []
    cont = False
    for line in body.splitlines():
        if cont:
            sessions[-1][0] += "\n" + line
        elif line.startswith("$ "):
            sessions.append([line[2:], ""])
        elif sessions:
            sessions[-1][1] += line + "\n"
        elif line.strip():
            raise AssertionError(f"console block output before its first '$ ' command: {line!r}")
        cont = bool(sessions) and line.endswith("\\") and not sessions[-1][1]
    return [(c, o) for c, o in sessions]


def run_command(command: str, env: dict) -> tuple[int, str]:
    """Run one console command in bash (variables it sets are kept for the next); exit status and output."""
    state = shlex.quote(env["__DOCS_ENV"])
    script = f"set -a\nsource {state} 2>/dev/null\n{command}\n__rc=$?\nexport -p > {state}\nexit $__rc\n"
    proc = subprocess.run(["bash", "-c", script], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=600)
    return proc.returncode, _NOTICE.sub("", proc.stdout)


def _run_console(body: str, name: str, env: dict, checker: doctest.OutputChecker, flags: int) -> None:
    """Run each command of a console block and compare its output with the shown one."""
    for command, want in console_sessions(body):
        code, got = run_command(command, env)
        assert code == 0, f"{name}: `{command}` exited {code}:\n{got}"
        if not checker.check_output(want, got, flags):
            raise AssertionError(f"{name}: `{command}`\n" + checker.output_difference(
                doctest.Example(command, want), got, flags))


def _console_env(folder: pathlib.Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(PATH=os.pathsep.join([str(pathlib.Path(sys.executable).parent), env.get("PATH", "")]),
               COLUMNS="100", TERM="dumb", NO_COLOR="1", PYTHONWARNINGS="ignore",
               __DOCS_ENV=str(folder / ".docs_env.sh"))
    return env


def python_blocks(text: str, kinds: tuple[str, ...] = ("python", "py")) -> list[tuple[int, str]]:
    """``(line number, source)`` of each ```python fence (or of ``kinds``), indentation removed."""
    blocks = []
    for m in FENCE.finditer(text):
        if m.group("info").strip().split(" ")[0] not in kinds:
            continue
        indent = len(m.group("indent"))
        body = "\n".join(line[indent:] for line in m.group("body").splitlines())
        blocks.append((text.count("\n", 0, m.start()) + 2, body))
    return blocks


def prose_doctests(text: str) -> str:
    """The page with every fenced block blanked out, so only ``>>>`` examples in prose remain."""
    return FENCE.sub(lambda m: "\n" * m.group(0).count("\n"), text)


def test_pages_exist_and_blocks_are_found():
    assert PAGES, f"no docs pages under {DOCS}"
    assert sum(len(python_blocks(p.read_text())) for p in PAGES) >= 20


def test_fence_parser():
    text = "a\n```python\nx = 1\n```\n\n```text\nnot code\n```\n  ```python\n  y = 2\n  ```\n"
    assert python_blocks(text) == [(3, "x = 1"), (10, "y = 2")]
    assert ">>>" not in prose_doctests("```python\n>>> 1\n```\n")


def test_checker_number_tolerance(doc_checker, doctest_flags):
    c, flags = doc_checker, doctest_flags
    assert c.check_output("value 0.4713\n", "value 0.47134028\n", flags)
    assert not c.check_output("value 0.4713\n", "value 0.4719\n", flags)
    assert not c.check_output("3 items\n", "4 items\n", flags)
    number = doctest.OPTIONFLAGS_BY_NAME["NUMBER"]
    assert flags & number and flags & doctest.ELLIPSIS and flags & doctest.NORMALIZE_WHITESPACE
    # "..." and shortened numbers together: a cell that differs from machine to machine is left out
    want = "│ kappa │ 0.60 │ 0.7 │\n│ min bulk ESS (beta: ...) │ ... │ >= 200 │\n"
    got = "│ kappa  │ 0.6011 │ 0.7407 │\n│ min bulk ESS (beta: rater r1, true a) │ 248.2 │ >= 200 │\n"
    assert c.check_output(want, got, flags)
    assert not c.check_output(want, got.replace("0.6011", "0.6111"), flags)  # a shown number off
    assert not c.check_output(want, got.replace(">= 200", ">= 100"), flags)  # text outside the "..."
    assert not c.check_output(want, got + "extra line\n", flags)
    assert not c.check_output("value 0.4713\n", "value 0.47134028\n", flags & ~number)


def test_load_dependent_notices_are_taken_out():
    got = ("note: exact chance agreement: 25425 label pairs, about 12 s (0.473 ms per pair measured on 64) to "
           "score; Ctrl-C stops it (sampled chance estimates it with a standard error instead: chance='auto' or "
           "'sampled:N' in Python, --chance auto on softirr agree, sensitivity and report)\n"
           "softirr_stats: compiling JAX programs (once per machine)...\n"
           " table\nnote: another note stays\n")
    assert _NOTICE.sub("", got) == " table\nnote: another note stays\n"


def test_console_parser():
    body = "$ A=1\n$ echo $A \\\n  two\n1 two\n$ true\n"
    assert console_sessions(body) == [("A=1", ""), ("echo $A \\\n  two", "1 two\n"), ("true", "")]


NLI_PAGES = {"soft_agreement.md", "scoring_at_scale.md"}
NLI_WORDS = ["fever", "high", "cough", "coughing", "rash", "skin", "headache", "migraine", "fatigue", "fatigued",
             "nausea", "pain", "chest"]


@pytest.fixture(scope="session")
def tiny_nli_model(tmp_path_factory, save_tiny_nli) -> pathlib.Path:
    """A tiny random NLI cross-encoder saved as a model directory (no download: built from a config)."""
    pytest.importorskip("torch", reason="the [transformers] extra")
    pytest.importorskip("transformers", reason="the [transformers] extra")
    return save_tiny_nli(tmp_path_factory.mktemp("docs_nli") / "my-nli-model", NLI_WORDS)


def test_tiny_nli_model_is_a_loadable_nli_cross_encoder(tiny_nli_model):
    from softirr_stats.equivalence import Nli

    scores = Nli(str(tiny_nli_model), local_files_only=True, progress=False)(["fever", "rash"], ["high fever", "rash"])
    assert scores.shape == (2,) and np.all((scores >= 0) & (scores <= 1))
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in tiny_nli_model.iterdir()}


def test_nli_pages_are_the_pages_that_use_the_model_directory():
    assert {p.name for p in PAGES if "my-nli-model" in p.read_text()} == NLI_PAGES


def _has_code(page: pathlib.Path) -> bool:
    text = page.read_text()
    return bool(python_blocks(text, ("python", "py", "console"))) or ">>>" in prose_doctests(text)


CODE_PAGES = [p for p in PAGES if _has_code(p)]


@pytest.mark.parametrize("page", CODE_PAGES, ids=[str(p.relative_to(DOCS)) for p in CODE_PAGES])
def test_page_examples_run(page: pathlib.Path, tmp_path, monkeypatch, request, doc_checker,
                           doctest_flags) -> None:
    text = page.read_text()
    if page.name in NLI_PAGES:
        shutil.copytree(request.getfixturevalue("tiny_nli_model"), tmp_path / "my-nli-model")
    blocks = python_blocks(text, ("python", "py", "console"))
    consoles = {line for line, _ in python_blocks(text, ("console",))}
    has_doctest = ">>>" in prose_doctests(text)
    monkeypatch.chdir(tmp_path)
    env = _console_env(tmp_path)
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # examples show warnings on purpose (degenerate cases)
        for line, source in blocks:
            if line in consoles:
                _run_console(source, f"{page}:{line}", env, doc_checker, doctest_flags)
                continue
            if source.lstrip().startswith(">>>"):  # a fenced doctest: run it and check its output
                _run_doctest(source, namespace, f"{page}:{line}", line, doc_checker, doctest_flags)
                continue
            code = compile(source, f"{page}:{line}", "exec")
            exec(code, namespace)  # noqa: S102 - running the documentation is the point
        if has_doctest:
            _run_doctest(prose_doctests(text), namespace, str(page), 0, doc_checker, doctest_flags)


def _run_doctest(source: str, globs: dict, name: str, line: int, checker: doctest.OutputChecker,
                 flags: int) -> None:
    test = doctest.DocTestParser().get_doctest(source, globs, name, name, line)
    runner = doctest.DocTestRunner(checker=checker, optionflags=flags)
    out: list[str] = []
    with np.printoptions(precision=8, linewidth=75, suppress=False, legacy=False):
        runner.run(test, out=out.append, clear_globs=False)
    globs.update(test.globs)  # DocTest copies its globals: carry the names to the next block
    assert runner.failures == 0, "".join(out)


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(DOCS)) for p in PAGES])
def test_command_examples_show_their_output(page: pathlib.Path) -> None:
    """A shell example that runs ``softirr`` is a console block (so it runs here and shows its output)."""
    bare = [line for line, body in python_blocks(page.read_text(), ("bash", "sh", "shell", ""))
            if re.search(r"(^|[\s;&|(])softirr\s", body) and "pip install" not in body]
    assert bare == [], f"{page.name}: make the softirr examples at lines {bare} ```console blocks with their output"
