"""Paper tables of several results (``reporting.to_markdown`` / ``to_latex`` / ``paper_table``): the test's
columns, escaped captions and notes, note numbers."""

import math

import pandas as pd

import softirr_stats as sis
from softirr_stats import reporting
from softirr_stats.reporting._tables import number_warnings, table_with_notes

X = [["a", "a", "a"], ["b", "b", "a"], ["b", "b", "b"], ["c", "c", "c"], ["a", "b", "a"], ["c", "c", "b"],
     ["a", "a", "a"], ["b", "c", "b"], ["c", "c", "c"], ["a", "a", "b"], ["b", "b", "b"], ["c", "a", "c"]]


def _rows(table: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip("|").split("|")] for line in table.splitlines() if line.startswith("|")]


def test_several_tested_results_show_z_and_the_p_of_each_alternative():
    # reporting.to_markdown([r1, r2]) left out z and p, which r.to_markdown() of one result shows
    ann = sis.Annotations.from_wide(X)
    greater = sis.permutation_test(sis.fleiss_kappa, ann, n=199, seed=0, alternative="greater")
    two = sis.kappa_test(ann, coefficient="fleiss_kappa")
    table, _ = table_with_notes([greater, two])
    head, _, *body = _rows(table)
    assert head[head.index("Value") + 1:head.index("Items")] == ["95% CI", "SE", "z", "p", "p (greater)"]
    z, p, pg = (head.index(h) for h in ("z", "p", "p (greater)"))
    assert float(body[0][z]) == round(greater.z, 3) and float(body[1][z]) == round(two.z, 3)
    assert body[0][p] == "—" and float(body[0][pg]) == round(greater.p_value, 3)  # one-sided: not under "p"
    # p = 2.4e-05: below 0.0001, two significant digits (base._format.format_p), the API's p to those digits
    assert body[1][pg] == "—" and body[1][p] == f"{two.p_value:.2g}" == "2.4e-05"
    assert math.isclose(float(body[1][p]), two.p_value, rel_tol=5e-2)
    text = reporting.to_markdown([greater, two])
    assert "Tests: fleiss_kappa: permutation" in text and "one-sided, H1: more agreement than chance" in text
    latex = reporting.to_latex([greater, two], caption="Agreement")
    assert "z & p & p (greater)" in latex and r"95\% analytic. Tests: fleiss\_kappa: permutation" in latex


def test_untested_results_get_no_test_columns():
    ann = sis.Annotations.from_wide(X)
    text = reporting.to_markdown([sis.fleiss_kappa(ann), sis.gwet_ac1(ann)])
    assert _rows(text)[0][:4] == ["Coefficient", "Value", "Items", "Raters"] and "Test" not in text


def test_a_frame_with_the_command_lines_test_columns():
    df = pd.DataFrame({"coefficient": ["fleiss_kappa", "gwet_ac1"], "value": [0.41, 0.52], "z": [2.5, 3.25],
                       "p_value_less": [0.99, 0.999], "benchmark": ["moderate", "moderate"]})
    head, _, first, _ = _rows(reporting.to_markdown(df))
    assert head == ["Coefficient", "Value", "z", "p (less)", "Benchmark"]
    assert first == ["fleiss_kappa", "0.410", "2.500", "0.990", "moderate"]


def test_markdown_captions_and_notes_are_text_as_the_cells_are():
    hostile = "<img src=x onerror=alert(1)>_*x*_50%"
    df = pd.DataFrame({"coefficient": ["fleiss_kappa"], "value": [0.5], "warnings": [(f"label {hostile} is rare",)]})
    for obj in (df, df.drop(columns="warnings"), df[["value"]]):
        text = reporting.to_markdown(obj, caption=f"{hostile}.csv")
        assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;\\_\\*x\\*\\_50%.csv" in text, text
    ann = sis.Annotations.from_wide(X)
    single = reporting.to_markdown(sis.fleiss_kappa(ann), caption="<b>bold</b>")
    assert "<b>" not in single and "&lt;b&gt;bold&lt;/b&gt;" in single


def test_a_rows_note_numbers_increase():
    assert number_warnings([["a", "b"], [], ["b"], ["c", "a"]]) == (["a", "b", "c"], ["1, 2", "", "2", "1, 3"])
