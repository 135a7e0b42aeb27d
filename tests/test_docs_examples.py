"""Every ```python block on every docs page runs, so the documentation cannot rot.

A page's blocks run in order in one namespace (a later block may use what an earlier one
built), in a fresh namespace per page, with the working directory set to a temporary folder
(examples that write files write there). Blocks that cannot run offline are fenced as
something else (```text, ```bash) with the reason in the prose. ``>>>`` examples outside fences
run as doctests (the same flags as the library's docstrings).
"""

from __future__ import annotations

import doctest
import pathlib
import re
import warnings

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"
FENCE = re.compile(r"^(?P<indent>[ \t]*)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$",
                   re.MULTILINE | re.DOTALL)
PAGES = sorted(DOCS.rglob("*.md"))


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(line number, source)`` of each ```python fence, indentation removed."""
    blocks = []
    for m in FENCE.finditer(text):
        if m.group("info").strip().split(" ")[0] not in ("python", "py"):
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


def _has_code(page: pathlib.Path) -> bool:
    text = page.read_text()
    return bool(python_blocks(text)) or ">>>" in prose_doctests(text)


CODE_PAGES = [p for p in PAGES if _has_code(p)]


@pytest.mark.parametrize("page", CODE_PAGES, ids=[str(p.relative_to(DOCS)) for p in CODE_PAGES])
def test_page_examples_run(page: pathlib.Path, tmp_path, monkeypatch) -> None:
    text = page.read_text()
    blocks = python_blocks(text)
    has_doctest = ">>>" in prose_doctests(text)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": f"docs_{page.stem}"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # examples show warnings on purpose (degenerate cases)
        for line, source in blocks:
            if source.lstrip().startswith(">>>"):  # a fenced doctest: run it and check its output
                _run_doctest(source, namespace, f"{page}:{line}", line)
                continue
            code = compile(source, f"{page}:{line}", "exec")
            exec(code, namespace)  # noqa: S102 - running the documentation is the point
        if has_doctest:
            _run_doctest(prose_doctests(text), namespace, str(page), 0)


def _run_doctest(source: str, globs: dict, name: str, line: int) -> None:
    test = doctest.DocTestParser().get_doctest(source, globs, name, name, line)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    out: list[str] = []
    with np.printoptions(precision=8, linewidth=75, suppress=False, legacy=False):
        runner.run(test, out=out.append, clear_globs=False)
    globs.update(test.globs)  # DocTest copies its globals: carry the names to the next block
    assert runner.failures == 0, "".join(out)
