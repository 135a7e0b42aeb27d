"""The compact sensitivity view (issue 33 row 3: "the sensitivity frame is 22 columns with a tall
warnings column"; "warnings once per cause, collected, not repeated per row")."""

import html

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.analysis import COLUMNS
from softirr_stats.reporting import SensitivitySummary, sensitivity_summary
from softirr_stats.reporting._summary import SUMMARY_COLUMNS

ANN = sis.Annotations.from_wide([
    ["fatigue", "fatigued", "tiredness"], ["fever", "high fever", "fever"],
    ["cough", "coughing", "dry cough"], ["rash", "skin rash", "rash"],
    ["headache", "migraine", "headache"], ["nausea", "nausea", "vomiting"],
] * 4)  # 24 items: no few-items note among the ones counted below
MC_NOTE = "no analytic interval: analytic standard errors need chance='exact'"


@pytest.fixture(scope="module")
def frame():
    return sis.sensitivity(ANN, coefficients=["fleiss_kappa", "krippendorff_alpha", "cohen_kappa"],
                           similarities=[None, "indel"], chance=["exact", sis.MonteCarlo(permutations=5, seed=0)],
                           ci="analytic")


def test_each_warning_once_and_rows_refer_by_number(frame):
    view = sis.sensitivity_summary(frame)
    assert isinstance(view, SensitivitySummary)
    assert sis.sensitivity_summary is sensitivity_summary
    # the frame is unchanged: sensitivity() still returns its tidy table
    assert list(frame.columns) == list(COLUMNS) and len(frame) == 12
    assert list(view.table.columns) == list(SUMMARY_COLUMNS) and len(view.table) == len(frame)
    # 4 Monte Carlo rows share one note; the 4 cohen_kappa rows another: two notes, each once
    assert frame["warnings"].str.startswith(MC_NOTE).sum() == 4
    assert len(view.notes) == 2 and view.notes[0].startswith(MC_NOTE)
    assert view.notes[1] == ("skipped: cohen_kappa needs exactly 2 raters; the data have 3 (use conger_kappa, "
                             "fleiss_kappa, light_kappa or krippendorff_alpha)")
    refs = dict(zip(zip(frame["coefficient"], frame["chance"], strict=True), view.table["notes"], strict=True))
    assert refs["fleiss_kappa", "monte_carlo(D=5)"] == "1" and refs["fleiss_kappa", "exact"] == ""
    assert refs["cohen_kappa", "exact"] == "2"
    # values unrounded, straight from the frame
    np.testing.assert_array_equal(view.table["value"].to_numpy(), frame["value"].to_numpy())
    np.testing.assert_array_equal(view.table["ci_low"].to_numpy(), frame["ci_low"].to_numpy())
    assert view.level == 0.95 and view.interval == "Intervals: 95% analytic."


def test_text_and_html_views_print_each_note_once(frame):
    view = sensitivity_summary(frame)
    text = str(view)
    lines = text.splitlines()
    assert lines[0].split() == ["coefficient", "similarity", "chance", "value", "95%", "CI", "items", "notes"]
    assert text.count(MC_NOTE) == 1 and "[1] " + MC_NOTE in text and "[2] skipped: cohen_kappa" in text
    first = frame.iloc[0]
    assert f"[{first.ci_low:.3f}, {first.ci_high:.3f}]" in lines[1]
    assert max(map(len, lines[:13])) < 100  # compact: one line per row, no warnings column
    page = view._repr_html_()
    assert page.startswith("<div><table") and page.count(html.escape(MC_NOTE)) == 1
    assert "Sensitivity: 12 rows, 2 distinct notes" in page and "95% CI" in page
    assert 'text-align:right">[' in page  # intervals right-aligned like numbers
    assert repr(view).startswith("SensitivitySummary: 12 rows, 2 distinct notes\n")


def test_a_row_with_two_warnings_keeps_both_whole():
    """Warnings are read whole from attrs["warnings"]; once the rows are sorted, from each row's text."""
    df = pd.DataFrame({"coefficient": ["a", "b"], "value": [0.5, 0.6],
                       "warnings": ["x; with a semicolon; y", "y"]})
    df.attrs["warnings"] = [("x; with a semicolon", "y"), ("y",)]
    view = sensitivity_summary(df)
    assert view.notes == ("x; with a semicolon", "y") and list(view.table["notes"]) == ["1, 2", "2"]
    resorted = sensitivity_summary(df.sort_values("value", ascending=False))
    assert resorted.notes == ("y", "x; with a semicolon; y") and list(resorted.table["notes"]) == ["1", "2"]
    # settings that never vary from their defaults are left out of the view, kept in the table
    assert str(view).splitlines()[0].split() == ["coefficient", "value", "notes"]
    assert list(view.to_frame().columns) == list(SUMMARY_COLUMNS)


def test_bad_input_names_what_is_wrong():
    with pytest.raises(TypeError, match="results must be a pandas DataFrame from sensitivity\\(\\); got list"):
        sensitivity_summary([1, 2])
    with pytest.raises(ValueError, match=r"must have the columns \['coefficient', 'value'\].*missing \['value'\]"):
        sensitivity_summary(pd.DataFrame({"coefficient": ["a"]}))
