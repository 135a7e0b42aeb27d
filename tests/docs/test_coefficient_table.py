"""The docs' table of public statistics (docs/coefficients.md) is the registry's table."""

import re
from pathlib import Path

from softirr_stats.agreement._registry import (
    COEFFICIENTS,
    coefficient_table_markdown,
    statistic_records,
)

PAGE = Path(__file__).resolve().parents[2] / "docs" / "coefficients.md"
START, END = "<!-- registry-table:start -->\n", "<!-- registry-table:end -->"


def test_docs_statistics_table_is_generated_from_the_registry():
    text = PAGE.read_text()
    assert text.count(START) == 1 and text.count(END) == 1, f"{PAGE.name} needs one {START.strip()} ... {END} block"
    on_page = text[text.index(START) + len(START):text.index(END)]
    expected = coefficient_table_markdown()
    assert on_page == expected, (f"docs/coefficients.md's registry table differs from the registry; paste between "
                                 f"the markers:\n{expected}")
    names = re.findall(r"^\| `(\w+)`", on_page, flags=re.M)
    assert names == list(statistic_records())


def test_docs_formula_table_names_every_coefficient():
    """The hand-written formula table (p_a, p_e, missing ratings) has one row per coefficient."""
    text = PAGE.read_text()
    section = text[text.index("## The coefficients"):text.index(START)]
    table = section[section.index("| function | p_a |"):]
    rows = re.findall(r"^\| `(\w+)`", table.split("\n\n")[0], flags=re.M)
    assert rows == list(COEFFICIENTS)
