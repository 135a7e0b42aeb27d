"""``softirr report`` words its notes for the command line; ``build_report`` from Python keeps the Python calls.

The missing-ratings note gives the peers' number on the complete items and, for a Python caller, the call
that reproduces it (``sis.fleiss_kappa(ann.complete_items())``); no flag keeps the complete items only, so the
page a command wrote gives the number without the call (``cli_wording``, as ``softirr agree`` prints it).
"""

import re

import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.cli import main

#: three raters, one rating missing on two items: the common peers use the complete items only
ROWS = [["a", "a", "a"], ["a", "b", None], ["b", "b", "b"], ["a", "a", "b"], ["c", "c", None], ["b", "c", "c"],
        ["a", "a", "a"], ["c", "c", "c"]]


@pytest.fixture
def csv(tmp_path):
    path = tmp_path / "missing.csv"
    pd.DataFrame([(i, f"r{j}", lab) for i, row in enumerate(ROWS) for j, lab in enumerate(row) if lab is not None],
                 columns=["item", "rater", "label"]).to_csv(path, index=False)
    return path


def _notes(page):
    return [re.sub(r"<[^>]+>", "", p) for p in re.findall(r'<p class="note">\[\d+\].*?</p>', page)]


def test_the_command_line_report_gives_the_missing_ratings_note_without_a_python_call(csv, tmp_path, capsys):
    out = tmp_path / "r.html"
    with pytest.raises(SystemExit) as ex:
        main(["report", str(csv), "-o", str(out), "--bootstrap", "0", "-c", "fleiss_kappa"])
    assert ex.value.code == 0, capsys.readouterr().err
    notes = [n for n in _notes(out.read_text(encoding="utf-8")) if "missing ratings:" in n]
    assert notes, "the page has a missing-ratings note"
    assert all("complete_items()" not in n and "sis." not in n for n in notes), notes
    assert any(re.search(r"\(-?\d\.\d{4} there\)", n) for n in notes), notes  # the peers' number stays


def test_a_python_report_keeps_the_call_that_reproduces_the_peers_number(csv):
    page = sis.reporting.build_report(sis.read_annotations(csv), coefficients=["fleiss_kappa"], ci=None)
    assert any("sis.fleiss_kappa(ann.complete_items())" in n for n in _notes(page))


def test_how_an_export_folder_was_read_is_one_note_line(tmp_path, capsys):
    """The format guessed for a brat folder is said once on stderr (one ``note:`` line, in the command's spelling),
    and once in the page's summary."""
    import pathlib

    folder = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "bratiaa_example"
    page = tmp_path / "r.html"
    with pytest.raises(SystemExit) as exit_:
        main(["report", str(folder), "--bootstrap", "0", "-c", "fleiss_kappa", "-o", str(page)])
    out, err = capsys.readouterr()
    assert exit_.value.code == 0, err
    said = "bratiaa_example: read as --input-format brat (guessed from its content; pass --input-format brat to " \
           "choose it)"
    assert [ln for ln in err.splitlines() if "guessed" in ln] == [f"note: {said}"], err
    assert page.read_text().count("guessed from its content") == 1
