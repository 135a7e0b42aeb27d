"""Lines that only inform (how a number was computed) are notes, not warnings; problems stay warnings.

``AgreementResult.notes`` picks them out by ``agreement.NOTE_PREFIXES``: ``print(result)`` counts them as
notes and the command line writes them as ``note:`` lines on stderr (``--format csv`` / ``json``).
"""

import numpy as np
import pytest

import softirr_stats as sis
from softirr_stats.agreement import count_text
from softirr_stats.cli import main
from softirr_stats.equivalence import Levenshtein

ROWS = [["x", "x"], ["x", "y"], ["y", "y"], ["x", "y"], ["z", "z"]]


def _text_table(seed=0, n=40, r=3):
    rng = np.random.default_rng(seed)
    words = ["fever", "fevre", "cough", "cugh", "rash", "rashes"]
    return [[words[k] for k in rng.integers(0, len(words), r)] for _ in range(n)]


def test_categories_taken_from_the_observed_labels_is_a_note():
    r = sis.brennan_prediger(ROWS)
    assert r.notes and r.notes[0].startswith("q = 3 categories taken from the observed labels")
    assert count_text(r.warnings) == "1 note" and "(1 note: see .notes)" in str(r)
    assert "warnings=" not in repr(r) and "notes=1" in repr(r)


def test_the_chance_term_auto_chose_is_a_note():
    r = sis.fleiss_kappa(_text_table(), similarity=Levenshtein(), chance="auto")
    assert any(n.startswith("chance='auto' chose exact") for n in r.notes)


def test_the_resampled_chance_pairs_line_is_a_note():
    r = sis.fleiss_kappa(_text_table(1), similarity=Levenshtein(), chance=sis.SampledPairs(n=500, seed=0),
                         ci=sis.Bootstrap(n=50, seed=0))
    assert any(n.startswith("chance-term sampling error included") for n in r.notes)


def test_a_line_that_says_the_result_is_off_stays_a_warning():
    r = sis.fleiss_kappa([["a", "a"], ["a", "a"], ["a", "a"]])  # no variation: the value is undefined (nan)
    assert r.warnings and not r.notes
    assert "warning" in count_text(r.warnings)


def test_the_command_line_writes_the_categories_line_as_a_note(tmp_path, capsys):
    import pandas as pd

    path = tmp_path / "cat.csv"
    pd.DataFrame([(i, f"r{j}", lab) for i, row in enumerate(ROWS) for j, lab in enumerate(row)],
                 columns=["item", "rater", "label"]).to_csv(path, index=False)
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(path), "-c", "brennan_prediger", "--bootstrap", "0", "-f", "json"])
    err = capsys.readouterr().err
    assert ex.value.code == 0, err
    assert "note: q = 3 categories taken from the observed labels" in err and "warning: q =" not in err
