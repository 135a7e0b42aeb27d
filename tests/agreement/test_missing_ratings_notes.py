"""Missing ratings: where the common peers use only the complete items, the result says so and gives their number.

statsmodels' values are computed here (it is installed); R irr's come from tests/fixtures/peer_missing.json
(tests/fixtures/make_peer_missing.py: pyirr 0.84.1.2, the port of R irr 0.84.1, on the complete rows, as R's
``na.omit`` leaves them). The data are R irr's ``diagnoses`` and ``anxiety`` with a few ratings blanked;
the JSON holds them, and a test checks that it holds the script's data and blanked cells.
"""

import ast
import json
import math
import pathlib
import warnings

import krippendorff
import numpy as np
import pytest
from statsmodels.stats import inter_rater as smir

import softirr_stats as sis
from softirr_stats.agreement import COEFFICIENTS, MISSING_RATINGS
from softirr_stats.base._validation import SoftIRRWarning

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"
IRR = json.loads((FIXTURES / "peer_missing.json").read_text())
DIAGNOSES, ANXIETY = IRR["diagnoses"], IRR["anxiety"]  # R irr's data sets, as the script wrote them


def _blanked(rows, cells):
    out = [list(r) for r in rows]
    for i, j in cells:
        out[i][j] = None
    return out


DIAG = _blanked(DIAGNOSES, IRR["diagnoses_blank"])
ANX = [r[:2] for r in _blanked(ANXIETY, IRR["anxiety_blank"])]


def _complete(rows):
    return np.array([r for r in rows if None not in r], dtype=int)


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _note(res):
    notes = [w for w in res.warnings if w.startswith("missing ratings:")]
    assert len(notes) == 1, res.warnings
    return notes[0]


def test_every_coefficient_is_classified():
    assert set(MISSING_RATINGS) == set(COEFFICIENTS)
    for name, rec in MISSING_RATINGS.items():
        assert rec.how, name  # what the peers do, or why they agree with us


# --- statsmodels, computed here ----------------------------------------------------------------------------
def _sm_fleiss(rows, method="fleiss"):
    return smir.fleiss_kappa(smir.aggregate_raters(_complete(rows))[0], method=method)


@pytest.mark.parametrize(("coefficient", "peer", "rows", "kwargs"), [
    ("fleiss_kappa", lambda: _sm_fleiss(DIAG), DIAG, {}),
    ("brennan_prediger", lambda: _sm_fleiss(DIAG, "randolph"), DIAG, {}),
    ("scott_pi", lambda: _sm_fleiss(ANX), ANX, {}),
    ("cohen_kappa", lambda: smir.cohens_kappa(smir.to_table(_complete(ANX))[0]).kappa, ANX, {}),
    ("cohen_kappa", lambda: smir.cohens_kappa(smir.to_table(_complete(ANX))[0], wt="quadratic").kappa, ANX,
     {"weights": "quadratic"}),
])
def test_note_gives_statsmodels_number(coefficient, peer, rows, kwargs):
    fn = getattr(sis, coefficient)
    res = _quiet(fn, rows, **kwargs)
    expected = peer()
    assert res.details["complete_items_value"] == pytest.approx(expected, abs=1e-9)
    assert abs(res.value - expected) > 1e-3  # the difference the note explains
    note = _note(res)
    assert "statsmodels'" in note and f"{expected:.4f} there" in note
    n_complete = len(_complete(rows))
    assert f"only the {n_complete} rated by" in note and res.details["n_complete_items"] == n_complete
    # the call the note names reproduces the number
    ann = sis.Annotations.from_wide(rows)
    weights = f", weights={kwargs['weights']!r}" if kwargs else ""
    assert f"sis.{coefficient}(ann.complete_items(){weights})" in note
    again = _quiet(fn, ann.complete_items(), **kwargs)
    assert again.value == pytest.approx(expected, abs=1e-9)
    assert not any(w.startswith("missing ratings:") for w in again.warnings)


# --- R irr, from the fixture -----------------------------------------------------------------------------
@pytest.mark.parametrize(("coefficient", "key", "rows", "kwargs", "peer"), [
    ("fleiss_kappa", "kappam.fleiss(diagnoses)", DIAG, {}, "R irr's kappam.fleiss"),
    ("conger_kappa", "kappam.fleiss(diagnoses, exact=TRUE)", DIAG, {}, "R irr's kappam.fleiss(exact=TRUE)"),
    ("light_kappa", "kappam.light(diagnoses)", DIAG, {}, "R irr's kappam.light"),
    ("cohen_kappa", "kappa2(anxiety[,1:2])", ANX, {}, "R irr's kappa2"),
    ("cohen_kappa", "kappa2(anxiety[,1:2], 'squared')", ANX, {"weights": "quadratic"}, "R irr's kappa2"),
])
def test_note_gives_irr_number(coefficient, key, rows, kwargs, peer):
    res = _quiet(getattr(sis, coefficient), rows, **kwargs)
    assert res.details["complete_items_value"] == pytest.approx(IRR[key], abs=1e-9)
    note = _note(res)
    assert peer in note and f"{IRR[key]:.4f} there" in note


# --- peers that treat missing ratings as we do: no note ------------------------------------------------------
def test_alpha_equals_krippendorff_and_has_no_note():
    res = _quiet(sis.krippendorff_alpha, DIAG)
    data = np.array([[np.nan if v is None else v for v in r] for r in DIAG], dtype=float).T
    assert res.value == pytest.approx(krippendorff.alpha(data, level_of_measurement="nominal"), abs=1e-9)
    assert not any(w.startswith("missing ratings:") for w in res.warnings)
    assert "complete_items_value" not in res.details


@pytest.mark.parametrize("coefficient", ["gwet_ac1", "percent_agreement"])
def test_same_handling_has_no_note(coefficient):
    res = _quiet(getattr(sis, coefficient), DIAG)
    assert not any(w.startswith("missing ratings:") for w in res.warnings)


def test_no_note_on_complete_data_or_without_a_peer():
    assert not _quiet(sis.fleiss_kappa, DIAGNOSES).warnings
    # a soft similarity or a weight matrix has no peer to compare with
    soft = np.eye(5) * 0.5 + 0.5
    res = _quiet(sis.fleiss_kappa, DIAG, similarity=soft)
    assert not any(w.startswith("missing ratings:") for w in res.warnings)
    res = _quiet(sis.fleiss_kappa, DIAG, chance="mc:3")
    assert not any(w.startswith("missing ratings:") for w in res.warnings)


def test_complete_items_keeps_vocabulary_and_raters():
    ann = sis.Annotations.from_wide(DIAG)
    sub = ann.complete_items()
    assert sub.n_items == 26 and sub.raters == ann.raters and sub.vocabulary == ann.vocabulary
    assert (sub.ratings_per_item == ann.n_raters).all()


def test_note_is_shown_in_print_markdown_and_the_cli(tmp_path):
    from typer.testing import CliRunner

    from softirr_stats.cli import app

    res = _quiet(sis.fleiss_kappa, DIAG)
    assert str(res).endswith("(1 note: see .notes)") and "warning" not in str(res)
    assert repr(res).endswith(", notes=1)") and "warnings=" not in repr(res)
    assert res.notes == res.warnings and res.notes[0].startswith("missing ratings:")
    assert "Notes: missing ratings:" in res.to_markdown() and "Warnings:" not in res.to_markdown()
    path = tmp_path / "diag.csv"
    path.write_text("item,rater,label\n" + "".join(f"{i},r{j},{v}\n" for i, r in enumerate(DIAG)
                                                   for j, v in enumerate(r) if v is not None))
    out = CliRunner().invoke(app, ["agree", str(path), "--coefficient", "fleiss_kappa"])
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.split())
    # the CLI's notes show it, with the peers' number but not the Python call (no flag keeps complete items)
    assert "] missing ratings:" in text and "statsmodels' fleiss_kappa" in text  # after the note on numeric labels
    assert f"({res.details['complete_items_value']:.4f} there)" in text and "ann.complete_items()" not in text
    # csv / json: the notes go to stderr, this one as a note, not a warning
    out = CliRunner().invoke(app, ["agree", str(path), "--coefficient", "fleiss_kappa", "-f", "csv"])
    assert out.exit_code == 0, out.output
    assert "note: missing ratings:" in out.stderr and "warning: missing ratings" not in out.stderr


def test_notes_and_warnings_are_counted_apart():
    """A warning (an item with a single rating) next to the note: print counts each kind, markdown lists each."""
    rows = [["a", "a", "b"], ["a", None, None], ["b", "b", None], ["a", "b", "b"], ["b", "b", "b"]]
    res = _quiet(sis.fleiss_kappa, rows)
    assert len(res.warnings) == 2 and len(res.notes) == 1
    assert str(res).endswith("(1 warning, 1 note: see .warnings)")
    assert repr(res).endswith(", warnings=1, notes=1)")
    md = res.to_markdown()
    assert "Warnings: 1 of 5 items have one rating" in md and "Notes: missing ratings:" in md
    # the one channel: sensitivity tables and the paper tables number both
    table, notes = sis.reporting.table_with_notes([res])
    assert len(notes) == 2 and any(n.startswith("missing ratings:") for n in notes)
    assert not math.isnan(IRR["kappam.fleiss(diagnoses)"])


def test_no_complete_item_gives_an_undefined_peer_number_not_an_error():
    """Every item misses a rating: the peers have nothing to compute on (found by the invariance tests)."""
    import math

    cells = [["fatigue", "asthenia", None], [None, "fatigue", "fatigue"], ["asthenia", None, "asthenia"]]
    res = sis.fleiss_kappa(cells)
    assert math.isfinite(res.value)
    note = next(w for w in res.warnings if w.startswith("missing ratings"))
    assert "only the 0 rated by all 3 raters (undefined there" in note
    assert res.details["n_complete_items"] == 0 and math.isnan(res.details["complete_items_value"])


@pytest.mark.parametrize("cells", [
    [["fatigue", "asthenia", None], [None, "fatigue", "fatigue"], ["asthenia", None, "asthenia"]],  # none complete
    [["fatigue", "fatigue", "fatigue"], [None, "asthenia", "fatigue"], ["asthenia", None, "asthenia"]],  # one
])
def test_too_few_complete_items_suggest_no_call(cells):
    """With fewer than two complete items the note offers no ``sis.fleiss_kappa(ann.complete_items())``: on none
    that call raises "annotations are empty"; on one the peers' number is not computed."""
    note = _note(_quiet(sis.fleiss_kappa, cells))
    assert note.endswith("(undefined there)") and "sis." not in note, note


def test_an_undefined_peer_number_on_complete_items_keeps_its_call():
    """Two complete items of one label: the call runs and says why it is nan (expected agreement 1)."""
    cells = [["a", "a", "a"], ["a", "a", "a"], ["a", "b", None], [None, "b", "b"]]
    note = _note(_quiet(sis.fleiss_kappa, cells))
    assert note.endswith("(undefined there: sis.fleiss_kappa(ann.complete_items()))"), note
    ann = sis.Annotations.from_wide(cells)
    with pytest.warns(sis.DegenerateWarning, match="expected"):
        assert math.isnan(sis.fleiss_kappa(ann.complete_items()).value)


def test_the_fixture_holds_its_scripts_data():
    """peer_missing.json was written by make_peer_missing.py from the data and blanks the script holds
    (read from its source: running it needs pyirr), and the complete rows are the ones counted here."""
    tree = ast.parse((FIXTURES / "make_peer_missing.py").read_text())
    literals = {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in {"DIAGNOSES", "ANXIETY", "DIAGNOSES_BLANK", "ANXIETY_BLANK"}}
    assert literals == {"DIAGNOSES": IRR["diagnoses"], "ANXIETY": IRR["anxiety"],
                        "DIAGNOSES_BLANK": IRR["diagnoses_blank"], "ANXIETY_BLANK": IRR["anxiety_blank"]}
    assert np.shape(DIAGNOSES) == (30, 6) and np.shape(ANXIETY) == (20, 3)  # irr's diagnoses and anxiety
    assert len(_complete(DIAG)) == IRR["n_complete(diagnoses)"]
    assert len(_complete(ANX)) == IRR["n_complete(anxiety[,1:2])"]


def test_a_peer_number_that_rounds_to_zero_reads_0_not_minus_0():
    """Chance-corrected values of exactly zero come out as tiny negatives in floating point."""
    from softirr_stats.agreement import missing_ratings_note

    ann = sis.Annotations.from_wide([["a", "a", "b"], ["a", None, "a"], ["b", "b", "b"]])
    note = missing_ratings_note("fleiss_kappa", ann, similarity="identity", chance="exact",
                                complete_value=-1e-17, call="fleiss_kappa(ann.complete_items())")
    assert "(0.0000 there" in note


def test_light_kappa_says_when_a_rater_pair_shares_no_item():
    # raters 0 and 2 never rate the same item: the mean runs over 2 pairs, which was said nowhere
    rows = [[1, 1, None], [2, 2, None], [1, 2, None], [2, 1, None],
            [None, 1, 1], [None, 2, 2], [None, 2, 1], [None, 1, 2], [None, 1, 1]]
    with pytest.warns(sis.DegenerateWarning, match="1 of 3 rater pairs share no item"):
        r = sis.light_kappa(rows)
    pairs = [sis.cohen_kappa([row[:2] for row in rows[:4]]).value, sis.cohen_kappa([row[1:] for row in rows[4:]]).value]
    assert r.value == pytest.approx(np.mean(pairs), abs=1e-12) and len(r.details["pairwise"]) == 2
    assert any("averages the 2 pair(s) that do" in w for w in r.warnings)
    with warnings.catch_warnings():
        warnings.simplefilter("error", sis.DegenerateWarning)
        sis.light_kappa([[1, 1, 2], [2, 2, 2], [1, 2, 1]])  # every pair shares items: nothing to say


@pytest.mark.parametrize("ratings", [[[1, 1, None], [2, None, None], [1, 2, 2], [3, 3, 3]],
                                     [["a", "a"], ["a", "a"]]], ids=["unpairable", "degenerate"])
def test_point_estimate_warnings_point_at_the_users_call(ratings):
    """UnpairableItemsWarning and DegenerateWarning name the caller's line, not the library's."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sis.fleiss_kappa(ratings)
    ours = [w for w in caught if issubclass(w.category, SoftIRRWarning)]
    assert ours and all(w.filename == __file__ for w in ours), [(w.filename, w.lineno) for w in ours]
