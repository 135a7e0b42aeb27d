"""``softirr describe`` and ``Annotations.describe`` / ``label_counts``: how a file was read, before any coefficient."""

import json
import pathlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import softirr_stats as sis
from softirr_stats.cli import main
from softirr_stats.data import demo_path


def _run(capsys, *args):
    with pytest.raises(SystemExit) as ex:
        main(["describe", *map(str, args)])
    out = capsys.readouterr()
    return ex.value.code, out.out, out.err


def test_label_counts_equal_a_groupby_of_the_long_table():
    ann = sis.read_annotations(demo_path())
    counts = ann.label_counts()
    long = ann.to_long()
    want = long.groupby(["label", "rater"]).size().unstack(fill_value=0)
    for rater in ann.raters:
        got = counts[str(rater)]
        assert (got[got > 0].sort_index() == want[rater][want[rater] > 0].sort_index()).all()
    assert counts["all"].sum() == ann.n_ratings and counts["all"].is_monotonic_decreasing
    described = ann.describe().set_index("rater")
    assert described.loc["all", "items_rated"] == int((ann.ratings_per_item > 0).sum())
    for rater in ann.raters:
        assert described.loc[rater, "items_rated"] == long["rater"].eq(rater).sum()
        assert described.loc[rater, "labels_used"] == long.loc[long["rater"].eq(rater), "label"].nunique()


def test_sets_and_numbers_are_counted_as_their_values():
    sets = sis.Annotations.from_long(pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
                                                   "label": [["x", "y"], ["y", "x"], ["x"], ["z"]]}))
    assert sets.label_counts()["all"].to_dict() == {"x|y": 2, "x": 1, "z": 1}
    nums = sis.Annotations.from_wide([[1, 2], [2, 2], [3, np.nan]], raters=["a", "b"])
    assert nums.describe()["labels_used"].tolist() == [3, 1, 3]


def test_raters_named_all_or_label_keep_their_own_counts(tmp_path, capsys):
    # a rater named 'label' crashed describe ("cannot insert label, already exists"); one named 'all' had its
    # row overwritten by the summary row; raters 1 and '1' shared one column
    path = tmp_path / "r.csv"
    path.write_text("item,rater,label\n1,all,x\n1,label,x\n2,all,y\n2,label,x\n3,all,y\n3,label,y\n")
    ann = sis.read_annotations(path)
    counts = ann.label_counts()
    assert counts.index.name == "(label)" and list(counts.columns) == ["all", "label", "(all)"]
    assert counts.loc["y"].tolist() == [2, 1, 3]
    described = ann.describe().set_index("rater")
    assert described.loc["all", "top_label"] == "y" and described.loc["all", "top_share"] == pytest.approx(2 / 3)
    assert described.loc["(all)", "top_share"] == pytest.approx(0.5)
    code, out, err = _run(capsys, path, "-f", "csv", "--table", "labels")
    assert code == 0, err
    assert pd.read_csv(pd.io.common.StringIO(out)).set_index("(label)").loc["x"].tolist() == [1, 2, 3]
    code, out, err = _run(capsys, path)
    assert code == 0 and "(all)" in out, err
    same = sis.Annotations.from_long(pd.DataFrame({"item": [1, 1, 2, 2], "rater": [1, "1", 1, "1"],
                                                   "label": ["x", "y", "x", "x"]}))
    assert list(same.label_counts().columns) == ["1", "1 #2", "all"]
    assert same.describe()["top_share"].tolist() == [1.0, 0.5, 0.75]


def test_the_command_shows_both_tables_and_a_label_spelt_two_ways(tmp_path, capsys):
    path = tmp_path / "r.csv"
    path.write_text("doc,ana,bo,notes\nd1,yes,Yes,x\nd2,no,no,y\nd3,yes,yes,z\n")
    code, out, err = _run(capsys, path, "--reader-option", "wide=[ana, bo]", "--item", "doc")
    assert code == 0, err
    text = " ".join(out.split())
    assert "r.csv: 3 items (3 rated by every rater), 2 raters, 6 ratings, 3 labels (categorical)" in text
    assert "Ratings per label" in text and "│ Yes │ 0 │ 1 │ 1 │" in text
    assert "read as a wide table" in text  # the reading note, numbered below the tables
    code, out, err = _run(capsys, path, "--reader-option", "wide=[ana, bo]", "--item", "doc", "-f", "json")
    payload = json.loads(out)
    assert [r["rater"] for r in payload["raters"]] == ["ana", "bo", "all"]
    assert {r["label"]: r["all"] for r in payload["labels"]} == {"yes": 3, "no": 2, "Yes": 1}
    assert "note: r.csv: read as a wide table" in err


def test_machine_formats_and_the_label_limit(tmp_path, capsys):
    code, out, _ = _run(capsys, demo_path(), "-f", "csv")
    frame = pd.read_csv(pd.io.common.StringIO(out))
    assert code == 0 and frame["rater"].tolist() == ["annotator_1", "annotator_2", "annotator_3", "all"]
    code, out, _ = _run(capsys, demo_path(), "-f", "csv", "--table", "labels", "--labels", "0")
    assert len(pd.read_csv(pd.io.common.StringIO(out))) == len(sis.read_annotations(demo_path()).vocabulary)
    code, out, _ = _run(capsys, demo_path(), "-f", "csv", "--table", "labels", "--labels", "5")
    assert len(pd.read_csv(pd.io.common.StringIO(out))) == 5
    code, _, err = _run(capsys, demo_path(), "--labels", "-1")
    assert code == 2 and "--labels must be 0 (every label) or a positive number" in err
    code, _, err = _run(capsys, demo_path(), "--table", "items")
    assert code == 2 and "--table" in err
    out_json = tmp_path / "d.json"
    code, _, _ = _run(capsys, demo_path(), "--json", out_json)
    assert json.loads(out_json.read_text())["meta"]["n_ratings"] == sis.read_annotations(demo_path()).n_ratings



def test_the_complete_items_are_counted_in_the_title_and_the_json(tmp_path, capsys):
    # describe did not say how many items every rater rated (what the ANOVA statistics and the peers' kappas use)
    path = tmp_path / "r.csv"
    path.write_text("item,rater,label\n1,a,x\n1,b,x\n1,c,y\n2,a,x\n2,b,y\n3,a,y\n3,b,y\n3,c,y\n4,c,x\n")
    complete = sis.read_annotations(path).complete_items().n_items
    assert complete == 2
    code, out, err = _run(capsys, path)
    assert code == 0, err
    text = " ".join(out.split())
    assert "r.csv: 4 items (2 rated by every rater), 3 raters, 9 ratings, 2 labels (categorical)" in text
    code, out, err = _run(capsys, path, "-f", "json")
    payload = json.loads(out)
    assert payload["meta"]["n_complete_items"] == 2 and "4 items (2 rated by every rater)" in payload["title"]
    code, out, _ = _run(capsys, demo_path(), "-f", "json")
    ann = sis.read_annotations(demo_path())
    assert json.loads(out)["meta"]["n_complete_items"] == int((ann.ratings_per_item == ann.n_raters).sum())

# ------------------------------------------------------------------------------ labels that differ only in case
def test_case_variants_group_labels_that_differ_only_in_letter_case_most_used_first():
    from softirr_stats.data._describe import case_variants

    with pytest.warns(sis.data.LabelWarning, match="'Fatigue' and 'Fatigue '"):
        ann = sis.Annotations.from_wide([["Fatigue", "fatigue"], ["pain", "Pain"], ["pain", "PAIN"],
                                         ["Straße", "STRASSE"], ["fever", "fever"], ["Fatigue ", "fever"]])
    # "Fatigue " differs from "Fatigue" by a space only: that is the look-alike warning's, not a case variant of its own
    assert case_variants(ann) == [["PAIN", "Pain", "pain"], ["Fatigue", "Fatigue ", "fatigue"], ["STRASSE", "Straße"]]
    same = sis.Annotations.from_wide([["yes", "no"], ["yes", "yes"]])
    assert case_variants(same) == []
    nums = sis.Annotations.from_wide([[1, 2], [2, 2]])
    assert case_variants(nums) == []


def test_case_variants_of_terms_inside_set_labels():
    from softirr_stats.data._describe import case_note, case_variants

    sets = sis.Annotations.from_long(pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
                                                   "label": [["Fever", "cough"], ["fever"], ["Cough"], ["x"]]}))
    assert case_variants(sets) == [["Cough", "cough"], ["Fever", "fever"]]
    assert case_note(sets)[0].startswith("4 terms inside set labels in 2 groups differ only in letter case")


def test_case_variants_that_also_differ_otherwise_are_said_so_with_what_merges_them():
    """'Never ' and 'never' were said to "differ only in letter case" with normalize='casefold' as the remedy, after
    which a look-alike warning about the space appeared: one note now says both, and what merges them."""
    from softirr_stats.data._describe import case_note

    def note(a, b):
        return case_note(sis.Annotations.from_wide([[a, b], ["yes", "yes"], ["no", "no"]]))[0]

    spaced = note("never", "Never ")
    assert spaced.startswith("2 labels in 1 group differ in letter case and in spaces or invisible characters "
                             "('Never ' and 'never'): "), spaced
    assert "normalize='casefold' merges the case only, if case carries no meaning here; no normalize= changes spaces or " \
           "invisible characters: clean those labels in the file" in spaced, spaced
    wide_letters = note("cafe", "\uff23\uff41\uff46\uff45")  # full-width 'Cafe': NFKC and case
    assert "differ in letter case and in Unicode form" in wide_letters, wide_letters
    assert wide_letters.endswith("normalize='NFKC+casefold' merges them if case carries no meaning here"), wide_letters
    folded = sis.Annotations.from_wide([["cafe", "\uff23\uff41\uff46\uff45"]], normalize="NFKC+casefold")
    assert len(folded.vocabulary) == 1
    # some groups differ in case only, one also by a space: the count of each, the example of the latter
    mixed = case_note(sis.Annotations.from_wide([["Pain", "pain"], ["never", "Never "], ["pain", "pain"]]))[0]
    assert mixed.startswith("4 labels in 2 groups differ in letter case ('Pain' and 'pain'; 1 more group); 1 of the groups "
                            "also in spaces or invisible characters ('Never ' and 'never')"), mixed
    # case only: the wording the documentation shows is kept
    assert note("Fatigue", "fatigue").startswith("2 labels in 1 group differ only in letter case ('Fatigue' and "
                                                 "'fatigue'): ")


def test_readers_note_case_variants_once_and_casefold_removes_the_note(tmp_path):
    path = tmp_path / "r.csv"
    path.write_text("item,rater,label\n1,a,Fatigue\n1,b,fatigue\n2,a,pain\n2,b,pain\n")
    ann = sis.read_annotations(path)
    notes = [n for n in ann.read_notes if "letter case" in n]
    assert notes == ["2 labels in 1 group differ only in letter case ('Fatigue' and 'fatigue'): each counts as a "
                     "label of its own (string measures count the case as an edit); normalize='casefold' merges them "
                     "if case carries no meaning here"]
    folded = sis.read_annotations(path, normalize="casefold")
    assert not [n for n in folded.read_notes if "letter case" in n]
    assert sis.cohen_kappa(folded).value == 1.0
    # a list of files (one per annotator) is noted once, for the merged data
    (tmp_path / "a.csv").write_text("item,label\n1,Fatigue\n2,pain\n3,Pain\n")
    (tmp_path / "b.csv").write_text("item,label\n1,fatigue\n2,pain\n3,pain\n")
    merged = sis.read_annotations([tmp_path / "a.csv", tmp_path / "b.csv"], rater_from="file")
    assert [n[:50] for n in merged.read_notes if "letter case" in n] == [
        "4 labels in 2 groups differ only in letter case ('"]


def test_the_command_line_notes_case_variants_with_its_flag(tmp_path, capsys):
    path = tmp_path / "r.csv"
    path.write_text("item,rater,label\n1,a,Fatigue\n1,b,fatigue\n2,a,pain\n2,b,pain\n")
    code, out, err = _run(capsys, path)
    assert code == 0, err
    text = " ".join(out.split())
    assert "differ only in letter case ('Fatigue' and 'fatigue')" in text
    assert "--reader-option normalize=casefold merges them" in text
    code, out, err = _run(capsys, path, "--reader-option", "normalize=casefold")
    assert code == 0, err
    assert "letter case" not in out


_CASED = st.text(alphabet=st.sampled_from(list("aAbBßSsİiıIΣσς ǅǆǄ\u00e9E\u0301")), min_size=1, max_size=4)


@settings(deadline=None)
@given(st.lists(st.lists(_CASED, min_size=2, max_size=2), min_size=1, max_size=12))
def test_case_variants_equal_a_plain_python_grouping(rows):
    """The array route (factorised codes, pyarrow folding ASCII texts) groups as str.casefold on each printed text."""
    import warnings

    from softirr_stats.data._describe import case_variants
    from softirr_stats.data._labels import _skeleton_py

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # look-alike labels are warned about; not what is checked here
        ann = sis.Annotations.from_wide(rows)
    texts = sorted({t for row in rows for t in row})
    groups: dict[str, set[str]] = {}
    for t in texts:
        groups.setdefault(_skeleton_py(t).casefold(), set()).add(t)
    want = sorted(sorted(g) for g in groups.values() if len({_skeleton_py(t) for t in g}) > 1)
    assert sorted(case_variants(ann)) == want
    from unittest import mock

    from softirr_stats.data import _labels

    with mock.patch.object(_labels, "_ARROW_MIN", 0):  # the pyarrow route, used from a few thousand labels on
        assert sorted(case_variants(ann)) == want


def _hostile(tmp_path):
    path = tmp_path / "ansi.csv"
    link = "\x1b]8;;http://evil.example\x1b\\click\x1b]8;;\x1b\\"
    rows = ["item,rater,label"]
    for i, lab in enumerate([link, "\x1b[2J\x1b[Hcleared", "ok", "L" * 5000]):
        rows += [f"{i},a,{lab}", f"{i},b\x1b[1mBOLD,{lab}"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("fmt", ["table", "markdown", "latex"])
def test_control_characters_in_labels_and_names_are_shown_escaped(tmp_path, capsys, fmt, monkeypatch):
    """A label or rater name holding ESC [2J or an OSC 8 hyperlink was printed raw: it could clear or repaint
    the table; it is shown by its escapes, and a 5,000-character label is cut for reading."""
    monkeypatch.setenv("COLUMNS", "200")  # a narrow terminal breaks the cut label's note over two lines
    path = _hostile(tmp_path)
    for table in ("raters", "labels"):
        code, out, err = _run(capsys, path, "-f", fmt, "--table", table)
        assert code == 0, err
        assert "\x1b" not in out and "\x1b" not in err
        assert "x1b" in out and "L" * 5000 not in out
    assert "(5000 characters)" in out  # the label table: a long label cut for reading


def test_csv_shows_control_characters_escaped_and_json_keeps_the_labels_exact(tmp_path, capsys):
    path = _hostile(tmp_path)
    code, out, _ = _run(capsys, path, "-f", "csv", "--table", "labels")
    assert code == 0 and "\x1b" not in out and "L" * 5000 in out  # escaped, not cut
    assert out.splitlines()[0] == "label,a,b\\x1b[1mBOLD,all" and "\\x1b[2J\\x1b[Hcleared,1,1,2" in out
    code, out, _ = _run(capsys, path, "-f", "json")
    assert code == 0 and "\x1b[2J\x1b[Hcleared" in {r["label"] for r in json.loads(out)["labels"]}


def test_numeric_labels_print_exactly_not_to_four_decimals(tmp_path, capsys):
    """0.12341 and 0.12342 both printed 0.1234, 1e-07 and 1e-05 both 0.0000 (the top label too)."""
    path = tmp_path / "n.csv"
    path.write_text("item,rater,label\n1,a,0.12341\n1,b,0.12342\n2,a,0.5\n2,b,1e-05\n3,a,1e-7\n3,b,2\n")
    code, out, err = _run(capsys, path)
    assert code == 0, err
    cells = {c.strip() for line in out.splitlines() for c in line.split("│")}
    assert {"0.12341", "0.12342", "1e-07", "1e-05", "2", "0.5"} <= cells and "0.0000" not in cells
    for fmt in ("csv", "markdown"):
        code, out, err = _run(capsys, path, "-f", fmt, "--table", "labels")
        assert code == 0 and "0.12341" in out and "0.12342" in out and "1e-07" in out, err
    code, out, err = _run(capsys, path, "-f", "json")  # the json keeps the numbers
    assert sorted(r["label"] for r in json.loads(out)["labels"]) == [1e-07, 1e-05, 0.12341, 0.12342, 0.5, 2]


LS = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "exports" / "label_studio" / "project-7-export.json"


@pytest.mark.filterwarnings("ignore::softirr_stats.data.ExportWarning")
def test_na_values_reach_the_export_reader(capsys):
    # --na-values Neutral still counted Neutral in a Label Studio export
    code, out, err = _run(capsys, LS, "--field", "sentiment", "--na-values", "Neutral", "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    want = sis.read_annotations(LS, field="sentiment", na_values=["Neutral"])
    assert want.n_ratings == 5 and "Neutral" not in want.vocabulary
    assert doc["meta"]["n_ratings"] == want.n_ratings
    assert {r["label"]: r["all"] for r in doc["labels"]} == {"Positive": 3, "Negative": 2}
