"""docs/scoring_at_scale.md: every ```python block runs as written (blocks needing a cluster are fenced otherwise)."""

import pathlib
import re

import pytest

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "scoring_at_scale.md"
BLOCKS = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)


def test_page_has_runnable_blocks():
    assert len(BLOCKS) >= 2


@pytest.mark.filterwarnings("ignore:.*fewer than two ratings")
@pytest.mark.parametrize("k", range(len(BLOCKS)))
def test_block_runs(k, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(BLOCKS[k], f"{DOC.name}[block {k}]", "exec"), {"__name__": "__docs__"})
