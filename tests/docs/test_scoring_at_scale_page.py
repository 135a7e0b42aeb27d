"""docs/scoring_at_scale.md: every ```python block runs as written (blocks needing a cluster are fenced otherwise).

A block written as a doctest (``>>>``) is checked against the output it shows.
"""

import doctest
import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "scoring_at_scale.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_page_has_runnable_blocks():
    assert len(BLOCKS) >= 2


@pytest.mark.filterwarnings("ignore:.*items have (one|no) rating")
@pytest.mark.parametrize("k", range(len(BLOCKS)))
def test_block_runs(k, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = f"{DOC.name}[block {k}]"
    if BLOCKS[k].lstrip().startswith(">>>"):
        test = doctest.DocTestParser().get_doctest(BLOCKS[k], {"__name__": "__docs__"}, name, name, 0)
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        out: list[str] = []
        runner.run(test, out=out.append)
        assert runner.failures == 0 and runner.tries > 0, "".join(out)
        return
    exec(compile(BLOCKS[k], name, "exec"), {"__name__": "__docs__"})
