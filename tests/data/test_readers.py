"""Readers for annotation-tool exports: each fixture parses into the Annotations its hand-written CSV gives.

The fixtures under tests/fixtures/exports/ follow each tool's published export format (see
docs/readers.md for the source of each); every expected file is written by hand.
"""

import json
import shutil
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.data import ExportWarning, SpanRule, read_annotations
from softirr_stats.data._readers import guess_format

EXPORTS = Path(__file__).resolve().parents[1] / "fixtures" / "exports"
pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")


def _cells(ann):
    ii, jj = np.nonzero(ann.codes >= 0)
    return {(str(ann.items[i]), str(ann.raters[j])): ann.vocabulary[ann.codes[i, j]] for i, j in zip(ii, jj, strict=True)}


def assert_same(got, want):
    """Same items, raters, label kind, vocabulary and ratings (ids compared as text)."""
    assert got.kind == want.kind
    assert got.vocabulary == want.vocabulary
    assert sorted(map(str, got.items)) == sorted(map(str, want.items))
    assert sorted(map(str, got.raters)) == sorted(map(str, want.raters))
    assert _cells(got) == _cells(want)
    assert got.n_ratings == want.n_ratings


CASES = [
    # (export path, format, options, expected file)
    ("label_studio/project-7-export.json", "label-studio", {"field": "sentiment"}, "label_studio/expected_sentiment.csv"),
    ("label_studio/project-7-export.json", "label-studio", {"field": "comment"}, "label_studio/expected_comment.csv"),
    ("label_studio/project-7-export.json", "label-studio", {"field": "topic"}, "label_studio/expected_topic.jsonl"),
    ("label_studio/project-7-export.json", "label-studio", {"field": "ner"}, "label_studio/expected_ner_exact.csv"),
    ("label_studio/project-7-export.json", "label-studio", {"field": "ner", "span_rule": SpanRule(match="overlap")},
     "label_studio/expected_ner_overlap.csv"),
    ("doccano/classification", "doccano", {}, "doccano/classification/expected.csv"),
    ("doccano/ner", "doccano", {}, "doccano/ner/expected_exact.csv"),
    ("doccano/ner", "doccano", {"span_rule": SpanRule(match="overlap")}, "doccano/ner/expected_overlap.csv"),
    ("prodigy/textcat_binary.jsonl", "prodigy", {}, "prodigy/textcat_binary_expected.csv"),
    ("prodigy/choice.jsonl", "prodigy", {}, "prodigy/choice_expected.csv"),
    ("prodigy/ner_manual.jsonl", "prodigy", {}, "prodigy/ner_manual_expected_exact.csv"),
    ("webanno/annotation", "webanno-tsv", {"layer": "NamedEntity"}, "webanno/expected_spans_exact.csv"),
    ("webanno/annotation", "webanno-tsv", {"layer": "webanno.custom.Sentiment", "unit": "document"},
     "webanno/expected_document.csv"),
    ("brat/by_annotator", "brat", {}, "brat/expected_exact.csv"),
    ("brat/by_annotator", "brat", {"span_rule": SpanRule(match="overlap")}, "brat/expected_overlap.csv"),
    ("brat/one_document", "brat", {}, "brat/one_document_expected_exact.csv"),
]


@pytest.mark.filterwarnings("ignore::softirr_stats.data.ExportWarning")
@pytest.mark.parametrize(("export", "fmt", "options", "expected"), CASES,
                         ids=[f"{c[1]}-{Path(c[3]).stem}" for c in CASES])
def test_export_equals_hand_written_table(export, fmt, options, expected):
    got = read_annotations(EXPORTS / export, format=fmt, **options)
    want = read_annotations(EXPORTS / expected)
    assert_same(got, want)


@pytest.mark.parametrize(("export", "fmt"), [
    ("label_studio/project-7-export.json", "label-studio"), ("doccano/classification", "doccano"),
    ("doccano/ner", "doccano"), ("prodigy/choice.jsonl", "prodigy"), ("webanno/annotation", "webanno-tsv"),
    ("webanno/annotation/doc1.txt/alice.tsv", "webanno-tsv"), ("brat/by_annotator", "brat"),
    ("brat/one_document", "brat"), ("label_studio/expected_sentiment.csv", "csv"),
    ("label_studio/expected_topic.jsonl", "jsonl"),
])
def test_format_is_guessed_from_content(export, fmt):
    assert guess_format(EXPORTS / export) == fmt


def test_guessed_format_is_a_note_not_a_warning(caplog):
    """Issue 33 row 3: every guessed read raised an ExportWarning (a red box in a notebook). The guess is
    information: a read note and an INFO log record; no warning, and none with format= given."""
    import logging

    from softirr_stats.data import guessed_formats

    path = EXPORTS / "doccano" / "classification"
    words = "classification: read as format='doccano' (guessed from its content; pass format='doccano' to choose it)"
    with warnings.catch_warnings(), caplog.at_level(logging.INFO, logger="softirr_stats"):
        warnings.simplefilter("error")
        guessed = read_annotations(path)
    assert guessed.read_notes[-1] == words and guessed_formats(guessed) == (words,)
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [("softirr_stats", logging.INFO, words)]
    caplog.clear()
    with warnings.catch_warnings(), caplog.at_level(logging.INFO, logger="softirr_stats"):
        warnings.simplefilter("error")
        explicit = read_annotations(path, format="doccano")
    assert guessed_formats(explicit) == () and not any("guessed" in n for n in explicit.read_notes)
    assert not caplog.records
    assert_same(guessed, explicit)


def test_guessed_formats_of_merged_exports_are_kept_and_the_cli_notes_them(tmp_path, capsys):
    import json

    from softirr_stats.analysis import read_input
    from softirr_stats.cli import main
    from softirr_stats.data import guessed_formats

    task = {"id": 1, "data": {"text": "x"}, "annotations": []}
    for who, lab in (("alice", "a"), ("bob", "b")):
        result = [{"from_name": "s", "to_name": "t", "type": "choices", "value": {"choices": [lab]}}]
        (tmp_path / f"{who}.json").write_text(json.dumps([{**task, "annotations": [
            {"completed_by": who, "result": result}]}]))
    paths = [tmp_path / "alice.json", tmp_path / "bob.json"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ann = read_annotations(paths)
    assert [g.split(":")[0] for g in guessed_formats(ann)] == ["alice.json", "bob.json"]
    _, notes = read_input(paths)
    assert notes[:2] == list(guessed_formats(ann)) and not any(n.startswith("ExportWarning") for n in notes)
    with pytest.raises(SystemExit):
        main(["agree", *map(str, paths), "--bootstrap", "0"])
    out = capsys.readouterr().out
    assert "alice.json: read as --input-format label-studio (guessed from its content; pass --input-format " \
           "label-studio to choose it)" in " ".join(out.split())


def test_ambiguous_folder_asks_for_format(tmp_path):
    shutil.copytree(EXPORTS / "brat" / "by_annotator", tmp_path / "mix")
    shutil.copy(EXPORTS / "doccano" / "classification" / "alice.jsonl", tmp_path / "mix")
    with pytest.raises(ValueError, match=r"several formats \['brat', 'doccano'\].*pass format="):
        read_annotations(tmp_path / "mix")


def test_unrecognised_file_asks_for_format(tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("hello\n")
    with pytest.raises(ValueError, match="pass format="):
        read_annotations(p)


def test_json_too_deep_or_too_long_while_guessing_is_a_one_line_value_error(tmp_path):
    """Guessing the format parses the first line: JSON nested past the parser's depth raised a RecursionError
    from the Python API, a 5,000-digit number a bare ValueError (Python's integer digit limit)."""
    deep = '{"item": 1, "rater": "a", "label": ' + "[" * 100_000 + "]" * 100_000 + "}\n"
    p = _write(tmp_path / "deep.jsonl", deep)
    with pytest.raises(ValueError, match=r"^deep.jsonl: JSON nested too deeply to read") as err:
        read_annotations(p)
    assert "\n" not in str(err.value)
    _write(tmp_path / "folder" / "a.jsonl", deep)  # a folder of Prodigy exports is told by its first line too
    _write(tmp_path / "folder" / "b.jsonl", deep)
    with pytest.raises(ValueError, match=r"^a.jsonl: JSON nested too deeply to read"):
        read_annotations(tmp_path / "folder")
    long = _write(tmp_path / "long.jsonl", '{"item": 1, "rater": "a", "label": ' + "1" * 5000 + "}\n")
    with pytest.raises(ValueError, match=r"^long.jsonl, line 1: number 1{20}\.\.\. \(5000 digits\) is beyond the float"):
        read_annotations(long)


def test_a_key_twice_in_one_json_object_is_refused(tmp_path, monkeypatch):
    """json.loads keeps the last value of a repeated key without a word: {"label": "x", "label": "y"} was read as
    "y". Refused on every route (Arrow refuses it too, and the reader that names the line takes over)."""
    from softirr_stats.data import _columnar

    table = _write(tmp_path / "t.jsonl", '{"item": 1, "rater": "a", "label": "x"}\n'
                                         '{"item": 1, "rater": "b", "label": "x", "label": "y"}\n')
    words = (r"^t.jsonl, line 2: the key 'label' appears twice in one JSON object \(values 'x' and 'y'\): only one "
             r"could be read")
    with pytest.raises(ValueError, match=words):
        read_annotations(table)
    monkeypatch.setattr(_columnar, "have_arrow", lambda: False)
    with pytest.raises(ValueError, match=words):
        read_annotations(table)
    task = {"text": "t", "_input_hash": 1, "_task_hash": 1, "answer": "accept", "label": "A"}
    prodigy = _write(tmp_path / "p.jsonl", json.dumps({**task, "_annotator_id": "a"}) + "\n"
                     + json.dumps(task)[:-1] + ', "_annotator_id": "b", "meta": {"n": 1, "n": 2}}\n')
    with pytest.raises(ValueError, match=r"^p.jsonl, line 2: the key 'n' appears twice in one JSON object"):
        read_annotations(prodigy, format="prodigy")


def test_doccano_zip_as_exported(tmp_path):
    archive = tmp_path / "project.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for who in ("alice", "bob"):
            zf.write(EXPORTS / "doccano" / "classification" / f"{who}.jsonl", f"{who}.jsonl")
    assert guess_format(archive) == "doccano"
    assert_same(read_annotations(archive, format="doccano"),
                read_annotations(EXPORTS / "doccano" / "classification" / "expected.csv"))


def test_doccano_relation_project_entities(tmp_path):
    for who, label in [("alice", "PER"), ("bob", "ORG")]:
        ents = [{"id": 7, "label": label, "start_offset": 0, "end_offset": 4}]
        _write(tmp_path / "d" / f"{who}.jsonl", json.dumps({"id": 1, "text": "Acme", "entities": ents, "relations": []}))
    assert _cells(read_annotations(tmp_path / "d", format="doccano")) == {("1:0-4", "alice"): "PER",
                                                                          ("1:0-4", "bob"): "ORG"}


def test_doccano_old_single_file_format(tmp_path):
    p = tmp_path / "all.jsonl"
    rows = [{"id": 1, "text": "a", "annotations": [{"label": "pos", "user": 1}, {"label": "pos", "user": 2}]},
            {"id": 2, "text": "b", "annotations": [{"label": "neg", "user": 1}, {"label": "pos", "user": 2}]}]
    p.write_text("\n".join(json.dumps(r) for r in rows))
    ann = read_annotations(p, format="doccano")
    assert _cells(ann) == {("1", "1"): "pos", ("1", "2"): "pos", ("2", "1"): "neg", ("2", "2"): "pos"}


def test_label_studio_cancelled_annotations_are_reported():
    with pytest.warns(ExportWarning, match=r"1 of 7 records skipped \(cancelled"):
        ann = read_annotations(EXPORTS / "label_studio" / "project-7-export.json", format="label-studio",
                               field="sentiment")
    assert "3" not in ann.raters  # the cancelled annotation's user labelled nothing


def test_label_studio_before_1_0_completions(tmp_path):
    tasks = json.loads((EXPORTS / "label_studio" / "project-7-export.json").read_text())
    for task in tasks:
        task["completions"] = task.pop("annotations")
    p = _write(tmp_path / "old.json", json.dumps(tasks))
    assert guess_format(p) == "label-studio"
    with pytest.warns(ExportWarning, match="cancelled"):
        ann = read_annotations(p, format="label-studio", field="sentiment")
    assert_same(ann, read_annotations(EXPORTS / "label_studio" / "expected_sentiment.csv"))


def test_label_studio_rating_is_numeric(tmp_path):
    def ann(user, stars):
        return {"completed_by": user, "result": [{"from_name": "stars", "type": "rating", "value": {"rating": stars}}]}
    tasks = [{"id": 1, "data": {}, "annotations": [ann(1, 4), ann(2, 5)]},
             {"id": 2, "data": {}, "annotations": [ann(1, 2), ann(2, 2)]}]
    ann = read_annotations(_write(tmp_path / "r.json", json.dumps(tasks)), format="label-studio")
    assert ann.kind == "numeric" and ann.vocabulary == (2, 4, 5)


def test_label_studio_needs_field_when_several_controls():
    with pytest.raises(ValueError, match=r"several controls.*\['comment', 'ner', 'sentiment', 'topic'\].*field="):
        read_annotations(EXPORTS / "label_studio" / "project-7-export.json", format="label-studio")
    with pytest.raises(ValueError, match="field must be one of"):
        read_annotations(EXPORTS / "label_studio" / "project-7-export.json", format="label-studio", field="mood")


def test_prodigy_ignored_answers_are_reported():
    with pytest.warns(ExportWarning, match=r"1 of 6 records skipped \(answer 'ignore'\)"):
        ann = read_annotations(EXPORTS / "prodigy" / "textcat_binary.jsonl", format="prodigy")
    assert ann.unpairable_items == ("2099123456",)


def test_prodigy_multiple_choice_gives_sets(tmp_path):
    rows = [{"text": "t", "options": [{"id": "A"}, {"id": "B"}], "accept": acc, "_input_hash": h, "_task_hash": h,
             "answer": "accept", "_annotator_id": who}
            for h, who, acc in [(1, "x", ["A", "B"]), (1, "y", ["A"]), (2, "x", ["B"]), (2, "y", [])]]
    ann = read_annotations(_write(tmp_path / "c.jsonl", "\n".join(json.dumps(r) for r in rows)), format="prodigy")
    assert _cells(ann) == {("1", "x"): frozenset({"A", "B"}), ("1", "y"): frozenset({"A"}),
                           ("2", "x"): frozenset({"B"})}
    assert ("2", "y") not in _cells(ann) and "y" in ann.raters  # nothing accepted: a missing rating


def test_prodigy_ner_teach_is_a_binary_task(tmp_path):
    rows = [{"text": "Paris", "spans": [{"start": 0, "end": 5, "label": "GPE"}], "_input_hash": 1, "_task_hash": h,
             "_view_id": "ner", "answer": a, "_annotator_id": who}
            for h, who, a in [(7, "ner-a", "accept"), (7, "ner-b", "reject")]]
    p = _write(tmp_path / "teach.jsonl", "\n".join(json.dumps(r) for r in rows))
    assert _cells(read_annotations(p, format="prodigy")) == {("7", "ner-a"): "accept", ("7", "ner-b"): "reject"}


def test_webanno_skips_initial_and_curated_files(tmp_path):
    shutil.copytree(EXPORTS / "webanno" / "annotation", tmp_path / "annotation")
    shutil.copy(tmp_path / "annotation" / "doc1.txt" / "alice.tsv", tmp_path / "annotation" / "doc1.txt" / "CURATION_USER.tsv")
    with pytest.warns(ExportWarning, match=r"1 of 5 records skipped \(INITIAL_CAS / CURATION_USER"):
        ann = read_annotations(tmp_path / "annotation", format="webanno-tsv", layer="NamedEntity")
    assert_same(ann, read_annotations(EXPORTS / "webanno" / "expected_spans_exact.csv"))


def test_unknown_option_lists_valid_ones():
    with pytest.raises(TypeError, match=r"unknown option\(s\) \['fields'\].*valid options: \['field'"):
        read_annotations(EXPORTS / "label_studio" / "project-7-export.json", format="label-studio", fields="x")
    with pytest.raises(TypeError, match="item=, rater= and label= name the columns"):
        read_annotations(EXPORTS / "brat" / "by_annotator", format="brat", rater="annotator")
    with pytest.raises(TypeError, match="apply only to export formats"):
        read_annotations(EXPORTS / "label_studio" / "expected_sentiment.csv", field="x")


def test_readers_feed_the_coefficients():
    ann = read_annotations(EXPORTS / "brat" / "by_annotator", format="brat")
    r = sis.fleiss_kappa(ann)
    assert r.n_items == 7 and r.n_raters == 3 and np.isfinite(r.value)


# ---------------------------------------------------------------- malformed files name file and record
def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_label_studio_csv_cells_that_only_start_like_json_stay_texts(tmp_path):
    # '[deleted] rude and slow' in a data column made the whole export unreadable ("not valid JSON")
    path = tmp_path / "project.csv"
    path.write_text(
        "annotation_id,annotator,created_at,id,lead_time,sentiment,text,updated_at\n"
        "1,1,2024-01-01,10,1.2,Positive,[deleted] rude and slow,2024-01-01\n"
        "2,2,2024-01-01,10,1.2,Positive,[deleted] rude and slow,2024-01-01\n"
        "3,1,2024-01-01,11,1.2,[Other],{great} staff,2024-01-01\n"
        "4,2,2024-01-01,11,1.2,\"{\"\"choices\"\": [\"\"Negative\"\"]}\",{great} staff,2024-01-01\n")
    ann = read_annotations(path, format="label-studio", field="sentiment")
    assert ann.items == ("10", "11") and ann.vocabulary == ("Negative", "Positive", "[Other]")
    assert ann.to_long().set_index(["item", "rater"])["label"].to_dict() == {
        ("10", "1"): "Positive", ("10", "2"): "Positive", ("11", "1"): "[Other]", ("11", "2"): "Negative"}


def test_label_studio_malformed(tmp_path):
    p = _write(tmp_path / "ls.json", '[{"id": 1, "annotations": [{"completed_by": 1, "result": []}]}, 5]')
    with pytest.raises(ValueError, match="ls.json"):
        read_annotations(p, format="label-studio")
    task = {"id": 1, "annotations": [
        {"completed_by": 1, "result": [{"from_name": "s", "type": "choices", "value": {"choices": ["a"]}}]},
        {"completed_by": 2, "result": [{"from_name": "s", "type": "choices", "value": {"choices": "b"}}]}]}
    p = _write(tmp_path / "ls2.json", json.dumps([task]))
    with pytest.raises(ValueError, match=r"ls2.json, annotation 2 of task 1: value.choices must be a list"):
        read_annotations(p, format="label-studio")
    p = _write(tmp_path / "ls3.json", '[{"id": 1, "annotations": [}]')
    with pytest.raises(ValueError, match=r"ls3.json, line 1, column \d+: not valid JSON"):
        read_annotations(p, format="label-studio")
    task["annotations"][1]["value"] = None
    task["annotations"][1]["completed_by"] = 1
    task["annotations"][1]["result"][0]["value"]["choices"] = ["b"]
    p = _write(tmp_path / "ls4.json", json.dumps([task]))
    with pytest.raises(ValueError, match=r"ls4.json, annotation 2 of task 1: rater '1' labels item '1' a second time "
                                         r"\(first at ls4.json, annotation 1 of task 1\)"):
        read_annotations(p, format="label-studio", duplicates="error")
    with pytest.warns(ExportWarning, match="1 repeated annotations .* 1 of them changed the answer; kept the last in file order"):
        last = read_annotations(p, format="label-studio")  # default: the last answer counts, with a warning
    assert last.to_long()["label"].tolist() == ["b"]


def test_doccano_malformed(tmp_path):
    _write(tmp_path / "d" / "alice.jsonl", '{"id": 1, "text": "x", "label": ["a"]}\n{"id": 2, "text": "y", "label": ["a"\n')
    _write(tmp_path / "d" / "bob.jsonl", '{"id": 1, "text": "x", "label": ["a"]}\n')
    with pytest.raises(ValueError, match=r"alice.jsonl, line 2: not valid JSON"):
        read_annotations(tmp_path / "d", format="doccano")
    _write(tmp_path / "e" / "alice.jsonl", '{"id": 1, "text": "x", "label": [[5, 2, "PER"]]}\n')
    _write(tmp_path / "e" / "bob.jsonl", '{"id": 1, "text": "x", "label": [[0, 2, "PER"]]}\n')
    with pytest.raises(ValueError, match=r"alice.jsonl, line 1: span offsets must satisfy 0 <= start <= end"):
        read_annotations(tmp_path / "e", format="doccano")
    _write(tmp_path / "f" / "alice.jsonl", '{"text": "x", "label": ["a"]}\n')
    with pytest.raises(ValueError, match=r"alice.jsonl, line 1: example has no usable 'id'"):
        read_annotations(tmp_path / "f", format="doccano")
    p = _write(tmp_path / "g" / "alice.jsonl", '{"id": 1, "text": "x", "label": ["a"]}\n')
    one = read_annotations(p, format="doccano")  # one annotator's export reads (to be merged)
    assert one.n_raters == 1 and "one rater ('alice')" in one.read_notes[0]
    with pytest.raises(ValueError, match="no item has two or more ratings"):
        sis.krippendorff_alpha(one)


def test_prodigy_malformed(tmp_path):
    good = {"text": "x", "_input_hash": 1, "_task_hash": 2, "label": "A", "answer": "accept", "_annotator_id": "d-a"}
    bad = {**good, "_annotator_id": None, "_session_id": None}
    p = _write(tmp_path / "p.jsonl", json.dumps(good) + "\n\n" + json.dumps(bad) + "\n")
    with pytest.raises(ValueError, match=r"p.jsonl, line 3: task has no '_annotator_id' or '_session_id'"):
        read_annotations(p, format="prodigy")
    p = _write(tmp_path / "q.jsonl", json.dumps({**good, "answer": "maybe"}) + "\n")
    with pytest.raises(ValueError, match=r"q.jsonl, line 1: 'answer' must be"):
        read_annotations(p, format="prodigy")
    with pytest.raises(ValueError, match=r"task must be one of \['auto', 'binary', 'choice', 'spans'\]"):
        read_annotations(p, format="prodigy", task="ner")
    huge = {"_input_hash": 1, "_task_hash": 2, "answer": "accept", "spans": [{"start": 0, "end": 10**30, "label": "P"}]}
    p = _write(tmp_path / "h.jsonl", json.dumps({**huge, "_annotator_id": "a"}) + "\n"
               + json.dumps({**huge, "_annotator_id": "b"}) + "\n")  # no text: nothing bounds the offsets but this
    with pytest.raises(ValueError, match=r"h.jsonl, line 1: span \[0, 10{30}\) in '1' ends beyond any text's length"):
        read_annotations(p, format="prodigy", task="spans")


def test_webanno_stacked_and_escaped_values(tmp_path):
    head = ("#FORMAT=WebAnno TSV 3.3\n#T_SP=de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity|value\n\n\n"
            "#Text=New York City\n")
    alice = head + "1-1\t0-3\tNew\tLOC[1]|ORG[2]\t\n1-2\t4-8\tYork\tLOC[1]|ORG[2]\t\n1-3\t9-13\tCity\tLOC[1]\t\n"
    bob = head + "1-1\t0-3\tNew\tA\\|B[3]\t\n1-2\t4-8\tYork\tA\\|B[3]\t\n1-3\t9-13\tCity\tLOC\\_x\t\n"
    _write(tmp_path / "a" / "doc" / "alice.tsv", alice)
    _write(tmp_path / "a" / "doc" / "bob.tsv", bob)
    ann = read_annotations(tmp_path / "a", format="webanno-tsv", span_rule=SpanRule(unmatched=None))
    assert _cells(ann) == {("doc:0-13", "alice"): "LOC", ("doc:0-8", "alice"): "ORG", ("doc:0-8", "bob"): "A|B",
                           ("doc:9-13", "bob"): "LOC_x"}


def test_webanno_malformed(tmp_path):
    src = (EXPORTS / "webanno" / "annotation" / "doc1.txt" / "alice.tsv").read_text().splitlines()
    src[8] = src[8].replace("5-10", "5_10")
    _write(tmp_path / "a" / "doc1.txt" / "alice.tsv", "\n".join(src))
    shutil.copy(EXPORTS / "webanno" / "annotation" / "doc1.txt" / "bob.tsv", tmp_path / "a" / "doc1.txt")
    with pytest.raises(ValueError, match=r"doc1.txt/alice.tsv, line 9: the offsets column must read 'begin-end'"):
        read_annotations(tmp_path / "a", format="webanno-tsv", layer="NamedEntity")
    _write(tmp_path / "b" / "d" / "x.tsv", "#FORMAT=WebAnno TSV 2\n")
    with pytest.raises(ValueError, match=r"d/x.tsv, line 1: expected a '#FORMAT=WebAnno TSV 3.x' header"):
        read_annotations(tmp_path / "b", format="webanno-tsv")
    with pytest.raises(ValueError, match=r"several span layers.*pass layer="):
        read_annotations(EXPORTS / "webanno" / "annotation", format="webanno-tsv")
    with pytest.raises(ValueError, match=r"layer must be one of"):
        read_annotations(EXPORTS / "webanno" / "annotation", format="webanno-tsv", layer="Lemma")


def test_brat_malformed(tmp_path):
    _write(tmp_path / "a" / "alice" / "d.ann", "T1\tPER 0 4\tJohn\nT2\tLOC x 9\tParis\n")
    _write(tmp_path / "a" / "bob" / "d.ann", "T1\tPER 0 4\tJohn\n")
    with pytest.raises(ValueError, match=r"alice/d.ann, line 2: offsets must be integers"):
        read_annotations(tmp_path / "a", format="brat")
    with pytest.raises(ValueError, match=r"one .ann file holds one annotator"):
        read_annotations(tmp_path / "a" / "bob" / "d.ann", format="brat")
    _write(tmp_path / "a" / "carol.ann", "T1\tPER 0 4\tJohn\n")
    with pytest.raises(ValueError, match=r"holds both .ann files and folders of .ann files"):
        read_annotations(tmp_path / "a", format="brat")
    _write(tmp_path / "b" / "alice" / "d.ann", "T1\tPER 0 4\tJohn\nT2\tLOC 0 4\tJohn\n")
    _write(tmp_path / "b" / "bob" / "d.ann", "T1\tPER 0 4\tJohn\n")
    with pytest.raises(ValueError, match=r"alice/d.ann, line 2: rater 'alice' has two spans at \[0, 4\)"):
        read_annotations(tmp_path / "b", format="brat", span_rule=SpanRule(stacked="separate"))
    stacked = read_annotations(tmp_path / "b", format="brat")  # default: stacked spans -> one set label
    assert _cells(stacked) == {("d:0-4", "alice"): frozenset({"LOC", "PER"}), ("d:0-4", "bob"): frozenset({"PER"})}


# ---------------------------------------------------------------- the span rule
def _brat(tmp_path, anns):
    for who, text in anns.items():
        _write(tmp_path / who / "d.ann", text)
    return tmp_path


def test_overlap_rule_does_not_chain_and_respects_min_overlap(tmp_path):
    root = _brat(tmp_path, {"a": "T1\tX 0 10\t-\n", "b": "T1\tX 0 4\t-\n", "c": "T1\tX 5 10\t-\n"})
    ann = read_annotations(root, format="brat", span_rule=SpanRule(match="overlap"))
    # c overlaps a but not b (already matched to a): it starts an item of its own
    assert _cells(ann) == {("d:0-10", "a"): "X", ("d:0-10", "b"): "X", ("d:0-10", "c"): "O",
                           ("d:5-10", "a"): "O", ("d:5-10", "b"): "O", ("d:5-10", "c"): "X"}
    strict = read_annotations(root, format="brat", span_rule=SpanRule(match="overlap", min_overlap=0.5))
    assert sorted(map(str, strict.items)) == ["d:0-10", "d:0-4", "d:5-10"]  # IoU 0.4 and 0.5 are not > 0.5


def test_overlap_rule_is_a_maximum_weight_assignment(tmp_path):
    # b's first span overlaps a's second best (IoU 6/14 vs 4/14 with a's first); matching it greedily
    # would leave both b's second span (IoU 0.8 with a's second) and a's first unmatched. The
    # Hungarian assignment maximises the total IoU: 0-10 with 6-16 and 10-20 with 12-20.
    root = _brat(tmp_path, {"a": "T1\tX 0 10\t-\nT2\tY 10 20\t-\n", "b": "T1\tX 6 16\t-\nT2\tY 12 20\t-\n"})
    ann = read_annotations(root, format="brat", span_rule=SpanRule(match="overlap"))
    assert _cells(ann) == {("d:0-16", "a"): "X", ("d:0-16", "b"): "X", ("d:10-20", "a"): "Y", ("d:10-20", "b"): "Y"}


def test_overlap_rule_names_items_with_the_same_extent_apart(tmp_path):
    root = _brat(tmp_path, {"a": "T1\tX 0 4\t-\nT2\tY 0 4\t-\n", "b": "T1\tX 0 4\t-\n"})
    cells = _cells(read_annotations(root, format="brat", span_rule=SpanRule(match="overlap", stacked="separate")))
    assert {item for item, _ in cells} == {"d:0-4", "d:0-4#2"}
    assert sorted(v for (_, r), v in cells.items() if r == "a") == ["X", "Y"]
    assert sorted(v for (_, r), v in cells.items() if r == "b") == ["O", "X"]


def test_unmatched_none_leaves_ratings_missing(tmp_path):
    root = _brat(tmp_path, {"a": "T1\tX 0 4\t-\nT2\tY 6 9\t-\n", "b": "T1\tX 0 4\t-\n"})
    ann = read_annotations(root, format="brat", span_rule=SpanRule(unmatched=None))
    assert _cells(ann) == {("d:0-4", "a"): "X", ("d:0-4", "b"): "X", ("d:6-9", "a"): "Y"}


def test_discontinuous_brat_span_counts_as_its_extent(tmp_path):
    root = _brat(tmp_path, {"a": "T1\tX 0 4;8 12\tab cd\n", "b": "T1\tX 0 12\tab xx cd\n"})
    assert sorted(map(str, read_annotations(root, format="brat").items)) == ["d:0-12"]


@pytest.mark.parametrize("kwargs", [{"match": "fuzzy"}, {"min_overlap": 1.0}, {"min_overlap": -0.1}])
def test_span_rule_validates(kwargs):
    with pytest.raises(ValueError, match="SpanRule"):
        SpanRule(**kwargs)


def test_readers_are_imported_lazily():
    import subprocess
    import sys

    code = ("import sys, softirr_stats; "
            "print(any(m.startswith('softirr_stats.data._readers.') and not m.endswith(('_common', '_spans')) "
            "for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------ every reader warning points at the user's call
def _warned_here(call, category):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    mine = [w for w in caught if issubclass(w.category, category)]
    assert mine, f"no {category.__name__}"
    assert {w.filename for w in mine} == {__file__}, [(w.filename, str(w.message)[:60]) for w in mine]


def test_reader_warnings_point_at_the_callers_line(tmp_path):
    """Warnings are raised at the line that called read_annotations, however deep the reader that found the problem
    (a level counted by hand broke whenever a frame was added)."""
    from softirr_stats.data import LabelWarning

    _warned_here(lambda: read_annotations(EXPORTS / "prodigy" / "textcat_binary.jsonl", format="prodigy"),
                 ExportWarning)
    _warned_here(lambda: read_annotations(EXPORTS / "label_studio" / "project-7-export.json", format="label-studio",
                                          field="sentiment"), ExportWarning)
    shutil.copytree(EXPORTS / "webanno" / "annotation", tmp_path / "annotation")
    shutil.copy(tmp_path / "annotation" / "doc1.txt" / "alice.tsv",
                tmp_path / "annotation" / "doc1.txt" / "CURATION_USER.tsv")
    _warned_here(lambda: read_annotations(tmp_path / "annotation", format="webanno-tsv", layer="NamedEntity"),
                 ExportWarning)
    trailing = _write(tmp_path / "t.csv", "item,rater,label\n1,x,a,\n1,y,b,\n")
    _warned_here(lambda: read_annotations(trailing), UserWarning)
    alike = _write(tmp_path / "alike.csv", "item,rater,label\n1,x,yes\n1,y,yes \n")
    _warned_here(lambda: read_annotations(alike), LabelWarning)
    mixed = _write(tmp_path / "w.csv", "doc,r1,r2,r3\nd1,1,a,x\nd2,2,b,y\n")
    _warned_here(lambda: read_annotations(mixed, wide=True, item="doc"), LabelWarning)
    a, b = _write(tmp_path / "a.csv", "item,label\n1,yes\n"), _write(tmp_path / "b.csv", "item,label\n1,yes \n")
    _warned_here(lambda: read_annotations([a, b], rater_from="file"), LabelWarning)  # re-raised after the merge


# ------------------------------------------------------------------ bad rows are named by their place in the file
def test_rows_without_an_item_and_duplicate_rows_are_named_by_their_lines(tmp_path):
    """The error names the file and the lines to fix (blank lines counted as the editor counts them), whichever route
    read the file; a DataFrame's rows by their index, as ``df.loc`` takes it."""
    empty_item = _write(tmp_path / "e.csv", "item,rater,label\n1,a,x\n\n,b,y\n2,a,x\n")
    with pytest.raises(ValueError, match=r"^e.csv: item column 'item' has missing values in 1 row\(s\) "
                                         r"\(line 4 of the file\)"):
        read_annotations(empty_item)
    dup = _write(tmp_path / "d.csv", "item,rater,label\n1,a,x\n1,b,y\n\n2,a,x\n1,a,z\n")
    with pytest.raises(ValueError, match=r"^d.csv: duplicate \(item, rater\) rows: 2 rows share an \(item, rater\) "
                                         r"pair; first ones: \('1', 'a'\); rows of \('1', 'a'\): lines 2 and 6 of "
                                         r"the file(?:$|; one row per term of a multi-label rating\?)"):
        read_annotations(dup)
    lines = _write(tmp_path / "d.jsonl", "\n".join(json.dumps(r) for r in [
        {"item": 1, "rater": "a", "label": "x"}, {"item": 2, "rater": "a", "label": "x"},
        {"item": 2, "rater": "a", "label": "y"}]))
    with pytest.raises(ValueError, match=r"^d.jsonl: duplicate .* rows of \(2, 'a'\): lines 2 and 3 of the file(?:$|; one row per term of a multi-label rating\?)"):
        read_annotations(lines)
    frame = pd.DataFrame({"item": [1, 1, 2, 1], "rater": ["a", "b", "a", "a"], "label": ["x", "y", "x", "z"]},
                         index=[10, 11, 12, 13])
    with pytest.raises(ValueError, match=r"rows of \(1, 'a'\): index 10 and 13(?:$|; one row per term of a multi-label rating\?)"):
        sis.Annotations.from_long(frame)
    frame.loc[11, "rater"] = None
    with pytest.raises(ValueError, match=r"rater column 'rater' has missing values in 1 row\(s\) \(index 11\)"):
        sis.Annotations.from_long(frame)


def test_workbook_rows_are_named_by_their_sheet_row(tmp_path):
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.Workbook()
    for row in (["Round 2"], ["item", "rater", "label"], [1, "a", "x"], [None, "b", "y"], [1, "a", "z"]):
        wb.active.append(row)
    wb.save(tmp_path / "s.xlsx")
    with pytest.raises(ValueError, match=r"^s.xlsx: item column 'item' has missing values in 1 row\(s\) "
                                         r"\(sheet row 4\)"):
        read_annotations(tmp_path / "s.xlsx")
    wb.active["A4"] = 2
    wb.save(tmp_path / "s.xlsx")
    with pytest.raises(ValueError, match=r"rows of \('1', 'a'\): sheet rows 3 and 5(?:$|; one row per term of a multi-label rating\?)"):
        read_annotations(tmp_path / "s.xlsx")


def test_a_title_line_above_a_csv_header_is_named_in_the_error(tmp_path):
    """A CSV saved from a sheet with a title row: the error says which line is the header (the lines above it are
    deleted by hand: a CSV's first line is its header, as every CSV reader takes it)."""
    one = _write(tmp_path / "t.csv", "Coding sheet v2\nitem,rater,label\n1,a,x\n1,b,x\n")
    with pytest.raises(ValueError, match=r"more fields than the header .*; line 2 names the columns 'item', 'rater', "
                                         r"'label': the lines above it \(a title\?\) are no header: delete them$"):
        read_annotations(one)
    padded = _write(tmp_path / "p.csv", "Coding sheet v2,,\n,,\nitem,rater,label\n1,a,x\n1,b,x\n")
    with pytest.raises(ValueError, match=r"not found; the columns are .*; line 3 names the columns"):
        read_annotations(padded)
    wide = _write(tmp_path / "w.csv", "Round 2\ndoc,Ana,Bo\n1,x,x\n2,y,x\n")
    with pytest.raises(ValueError, match=r"line 2 names the columns 'doc'"):
        read_annotations(wide, wide=True, item="doc")
    plain = _write(tmp_path / "n.csv", "a,b\n1,2\n")
    with pytest.raises(ValueError, match=r"not found; the columns are \['a', 'b'\]") as err:
        read_annotations(plain)
    assert "names the columns" not in str(err.value)


def test_lines_are_counted_as_a_csv_reader_counts_them(tmp_path):
    """A form feed or a Unicode line separator inside a cell ends no line (str.splitlines would split there and the
    lines named would be off by one)."""
    path = tmp_path / "u.csv"
    path.write_text("item,rater,label\n1,a,x\u2028y\n1,b,p\x0cq\n  \n1,a,z\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"rows of \('1', 'a'\): lines 2 and 5 of the file(?:$|; one row per term of a multi-label rating\?)"):
        read_annotations(path)


def test_a_long_table_with_its_own_column_names_gets_them_in_the_error(tmp_path, capsys):
    """Columns named for their roles (doc / annotator / finding): the error gives the call, not the wide-table guess."""
    path = _write(tmp_path / "nd.csv", "doc,Annotator,finding\n1,ana,fever\n1,bo,fever\n")
    with pytest.raises(ValueError, match=r"a long table with other column names\? pass item='doc', "
                                         r"rater='Annotator', label='finding'$"):
        read_annotations(path)
    assert read_annotations(path, item="doc", rater="Annotator", label="finding").n_ratings == 2
    from softirr_stats.cli import main

    with pytest.raises(SystemExit) as ex:
        main(["agree", str(path), "--bootstrap", "0"])
    assert ex.value.code == 2
    assert "pass --item 'doc' --rater 'Annotator' --label 'finding'" in capsys.readouterr().err
    wide = _write(tmp_path / "w.csv", "doc,ana,bo\n1,x,x\n")  # no rater column: the wide-table guess stays
    with pytest.raises(ValueError, match=r"a wide table \(one row per item, one column per rater\)\? pass wide=True"):
        read_annotations(wide)


# --- multilabel=True: a multi-label project whose answers each hold one label stays set-valued --------------------

_ONE_LABEL_EACH = {"alice": {1: ["fever"], 2: ["cough"], 3: ["fever"], 4: ["rash"]},
                   "bob": {1: ["fever"], 2: ["fever"], 3: ["fever"], 4: ["rash"]}}


def _doccano_project(folder, answers):
    folder.mkdir()
    for who, labs in answers.items():
        (folder / f"{who}.jsonl").write_text("".join(json.dumps({"id": i, "text": "t", "label": lab}) + "\n"
                                                     for i, lab in labs.items()))
    return folder


def test_doccano_multilabel_option_keeps_one_label_answers_as_sets(tmp_path):
    root = _doccano_project(tmp_path / "p", _ONE_LABEL_EACH)
    assert read_annotations(root, format="doccano").kind == "categorical"  # the documented collapse stays
    ann = read_annotations(root, format="doccano", multilabel=True)
    assert ann.kind == "set" and ann.vocabulary == (frozenset({"cough"}), frozenset({"fever"}), frozenset({"rash"}))
    r = sis.multilabel_agreement(ann, labels=["fever", "cough", "rash"])
    # by hand: Hamming agreement 1, 1/3, 1, 1 -> A_o = 5/6; prevalences 5/8, 1/8, 2/8 -> A_e = 124/192;
    # (A_o - A_e) / (1 - A_e) = 9/17 (on one label per answer it equals Fleiss' kappa of the plain labels)
    assert r.value == pytest.approx(9 / 17, abs=1e-12)
    assert r.value == pytest.approx(sis.fleiss_kappa(read_annotations(root, format="doccano")).value, abs=1e-12)
    assert read_annotations(root, format="doccano", multilabel="true").kind == "set"  # command-line spelling


def test_label_studio_multilabel_option_and_what_it_refuses(tmp_path):
    tasks = [{"id": i, "data": {"text": "t"}, "annotations": [
        {"completed_by": who, "result": [{"from_name": "sym", "to_name": "text", "type": "choices",
                                          "value": {"choices": labs[i]}}]}
        for who, labs in _ONE_LABEL_EACH.items()]} for i in range(1, 5)]
    path = tmp_path / "ls.json"
    path.write_text(json.dumps(tasks))
    assert read_annotations(path, format="label-studio").kind == "categorical"
    ann = read_annotations(path, format="label-studio", multilabel=True)
    assert ann.kind == "set" and sis.multilabel_agreement(ann, labels=["fever", "cough", "rash"]).value == \
        pytest.approx(9 / 17, abs=1e-12)
    spans = tmp_path / "spans.jsonl"
    spans.write_text(json.dumps({"id": 1, "text": "Maria", "label": [[0, 5, "PER"]], "username": "a"}) + "\n")
    with pytest.raises(ValueError, match="multilabel=True reads category labels"):
        read_annotations(spans, format="doccano", multilabel=True)


def test_multilabel_reader_option_on_the_command_line(tmp_path, capsys):
    from softirr_stats.cli import main

    root = _doccano_project(tmp_path / "p", _ONE_LABEL_EACH)
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(root), "--input-format", "doccano", "--reader-option", "multilabel=true", "-c",
              "multilabel_fleiss", "--bootstrap", "0", "-f", "csv"])
    out, err = capsys.readouterr()
    assert ex.value.code == 0, err
    import io

    assert pd.read_csv(io.StringIO(out))["value"][0] == pytest.approx(9 / 17, abs=1e-12)


# --------------------------------------------------------------------- NaN / Infinity tokens, list identifiers
@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_tokens_in_json_are_refused_naming_the_line(tmp_path, token):
    # Python's json reads them; a NaN label became a silent missing rating and turned 1, 2 into 1.0, 2.0
    rows = ['{"item":1,"rater":"a","label":1}', '{"item":1,"rater":"b","label":1}',
            '{"item":2,"rater":"a","label":2}', f'{{"item":2,"rater":"b","label":{token}}}']
    jl = tmp_path / "nan.jsonl"
    jl.write_text("\n".join(rows) + "\n")
    arr = tmp_path / "records.json"
    arr.write_text("[\n" + ",\n".join(rows) + "\n]\n")
    for path, line in ((jl, 4), (arr, 5)):
        with pytest.raises(ValueError) as err:
            read_annotations(path)
        assert str(err.value) == (f"{path.name}, line {line}: number {token} is not a JSON number (NaN, Infinity and "
                                  "-Infinity are not JSON); labels and scores must be finite numbers: write null "
                                  "for a missing value")
    # written null, the rating is missing and the labels stay integers
    jl.write_text("\n".join(rows).replace(token, "null"))
    assert read_annotations(jl).vocabulary == (1, 2)


def test_a_label_studio_rating_nan_is_refused_naming_the_line(tmp_path):
    res = lambda v: {"from_name": "r", "to_name": "text", "type": "rating", "value": {"rating": v}}  # noqa: E731
    tasks = [{"id": 1, "data": {"text": "t"}, "annotations": [{"completed_by": 1, "result": [res(4)]},
                                                             {"completed_by": 2, "result": [res(float("nan"))]}]}]
    path = tmp_path / "ls.json"
    path.write_text(json.dumps(tasks, indent=1))  # json.dumps writes NaN
    line = path.read_text().splitlines().index(next(x for x in path.read_text().splitlines() if "NaN" in x)) + 1
    with pytest.raises(ValueError, match=rf"^ls\.json, line {line}: number NaN is not a JSON number"):
        read_annotations(path, format="label-studio")


@pytest.mark.parametrize("column, value, shown", [("item", [1, 2], "a list [1, 2]"),
                                                  ("rater", {"id": 3}, "an object {'id': 3}")])
def test_an_identifier_that_is_a_list_or_object_is_refused_naming_column_value_and_line(tmp_path, column, value,
                                                                                      shown):
    rows = [{"item": 1, "rater": "a", "label": "x"}, {"item": 1, "rater": "b", "label": "x"},
            {"item": 2, "rater": "a", "label": "y"}]
    rows[2][column] = value
    path = tmp_path / "ids.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows))
    with pytest.raises(ValueError) as err:
        read_annotations(path)
    article = "an" if column == "item" else "a"
    assert str(err.value) == (f"ids.jsonl: the {column} column {column!r} holds {shown} at line 3 of the file (1 such "
                              f"cell(s) in all); {article} {column} identifier must be text or a number")


def test_two_label_studio_tasks_with_one_id_and_different_data_are_refused(tmp_path):
    ch = lambda u, v: {"completed_by": u, "result": [  # noqa: E731
        {"from_name": "s", "to_name": "text", "type": "choices", "value": {"choices": [v]}}]}
    tasks = [{"id": 1, "data": {"text": "first text"}, "annotations": [ch(1, "a"), ch(2, "a")]},
             {"id": 1, "data": {"text": "a different text"}, "annotations": [ch(1, "b"), ch(2, "b")]},
             {"id": 2, "data": {"text": "t"}, "annotations": [ch(1, "b"), ch(2, "a")]}]
    path = tmp_path / "dup.json"
    path.write_text(json.dumps(tasks))
    with pytest.raises(ValueError, match=r"^dup\.json, task 2: task id 1 is also the id of task 1 in dup\.json, "
                                         r"whose data differ: two different tasks share an id"):
        read_annotations(path, format="label-studio")
    # the same task exported twice (same data) is one item answered again: the repeats are counted, the last kept
    tasks[1]["data"] = {"text": "first text"}
    path.write_text(json.dumps(tasks))
    with pytest.warns(ExportWarning, match="2 repeated annotations of the same item by the same rater"):
        ann = read_annotations(path, format="label-studio")
    assert ann.items == ("1", "2") and ann.to_long()["label"].tolist() == ["b", "b", "b", "a"]


# --- Prodigy choice tasks: multilabel=True, as doccano and Label Studio take it ------------------------------------

def _prodigy_choice(path, answers, options=("fever", "cough", "rash")):
    """A db-out of a choice recipe (textcat.manual without --exclusive): each task's ``accept`` lists the ids."""
    rows = [{"text": "t", "options": [{"id": o, "text": o} for o in options], "_input_hash": i, "_task_hash": 100 + i,
             "_view_id": "choice", "accept": labs, "answer": "accept", "_annotator_id": f"ds-{who}",
             "_session_id": f"ds-{who}"} for who, by_item in answers.items() for i, labs in by_item.items()]
    return _write(path, "".join(json.dumps(r) + "\n" for r in rows))


def test_prodigy_multilabel_option_keeps_one_label_answers_as_sets(tmp_path):
    path = _prodigy_choice(tmp_path / "choice.jsonl", _ONE_LABEL_EACH)
    assert read_annotations(path, format="prodigy").kind == "categorical"  # the documented collapse stays the default
    ann = read_annotations(path, format="prodigy", multilabel=True)
    assert ann.kind == "set" and ann.vocabulary == (frozenset({"cough"}), frozenset({"fever"}), frozenset({"rash"}))
    # the same 9/17 as doccano's and Label Studio's reading of these answers (by hand above)
    assert sis.multilabel_agreement(ann, labels=["fever", "cough", "rash"]).value == pytest.approx(9 / 17, abs=1e-12)
    assert read_annotations(path, format="prodigy", multilabel="true").kind == "set"  # command-line spelling
    # one two-label answer makes every label a set by default: multilabel=True reads that file alike
    two = {who: dict(labs) for who, labs in _ONE_LABEL_EACH.items()}
    two["alice"][2] = ["cough", "fever"]
    path2 = _prodigy_choice(tmp_path / "two.jsonl", two)
    default, sets = read_annotations(path2, format="prodigy"), read_annotations(path2, format="prodigy", multilabel=True)
    assert default.kind == sets.kind == "set" and _cells(default) == _cells(sets)
    # an empty accept list stays a missing rating
    empty = {who: dict(labs) for who, labs in _ONE_LABEL_EACH.items()}
    empty["bob"][4] = []
    assert ("4", "ds-bob") not in _cells(read_annotations(_prodigy_choice(tmp_path / "e.jsonl", empty),
                                                          format="prodigy", multilabel=True))


def test_prodigy_multilabel_on_the_choice_fixture_and_what_it_refuses(tmp_path):
    ann = read_annotations(EXPORTS / "prodigy" / "choice.jsonl", format="prodigy", multilabel=True)
    want = read_annotations(EXPORTS / "prodigy" / "choice_expected.csv")
    assert _cells(ann) == {key: frozenset({lab}) for key, lab in _cells(want).items()}
    with pytest.warns(ExportWarning), pytest.raises(ValueError, match=r"^textcat_binary\.jsonl: multilabel=True reads "
                                                                      r"the accepted options of choice tasks"):
        read_annotations(EXPORTS / "prodigy" / "textcat_binary.jsonl", format="prodigy", multilabel=True)
    with pytest.raises(ValueError, match="multilabel=True reads category labels"):
        read_annotations(EXPORTS / "prodigy" / "ner_manual.jsonl", format="prodigy", multilabel=True)


def _min_record(i, text, who, label, aid, **more):
    """One JSON-MIN record (label-studio-converter's json_min: the task's data, id, the controls, annotator, ...)."""
    return {"text": text, "id": i, "sentiment": label, **more, "annotator": who, "annotation_id": aid,
            "created_at": f"2022-11-04T18:{aid:02d}:00.000000Z", "updated_at": f"2022-11-04T18:{aid:02d}:00.000000Z",
            "lead_time": 5.1}


def test_two_json_min_tasks_with_one_id_and_different_data_are_refused(tmp_path):
    """Two exports concatenated: task 1 of the second project merged with task 1 of the first, silently (its two
    annotators became raters of the first project's item). The full JSON export was refused; JSON-MIN and CSV too."""
    first = [_min_record(1, "first text", "a@x.org", "pos", 1), _min_record(1, "first text", "b@x.org", "pos", 2),
             _min_record(2, "t", "a@x.org", "neg", 3), _min_record(2, "t", "b@x.org", "pos", 4)]
    second = [_min_record(1, "a different text", "c@x.org", "neg", 5),
              _min_record(1, "a different text", "d@x.org", "neg", 6)]
    path = _write(tmp_path / "dup.json", json.dumps(first + second))
    with pytest.raises(ValueError) as err:
        read_annotations(path, format="label-studio", field="sentiment")
    assert str(err.value) == ("dup.json, record 5: task id 1 is also the id of record 1 in dup.json, whose data differ "
                              "(text 'first text' and 'a different text'): two different tasks share an id (exports "
                              "of two projects concatenated?), and their annotations would be merged as one item's; "
                              "give them distinct ids, or read the exports one by one")
    csv_path = tmp_path / "dup.csv"
    pd.DataFrame(first + second).to_csv(csv_path, index=False)
    with pytest.raises(ValueError, match=r"^dup\.csv, row 6: task id '1' is also the id of row 2 in dup\.csv, whose "
                                         r"data differ \(text 'first text' and 'a different text'\)"):
        read_annotations(csv_path, format="label-studio", field="sentiment")
    # one task annotated twice by one annotator (same data) is a repeat, as before
    again = first + [_min_record(1, "first text", "a@x.org", "neg", 7)]
    path.write_text(json.dumps(again))
    with pytest.warns(ExportWarning, match="1 repeated annotations of the same item by the same rater"):
        ann = read_annotations(path, format="label-studio", field="sentiment")
    assert _cells(ann)[("1", "a@x.org")] == "neg"


def test_json_min_records_of_one_task_may_differ_in_their_other_controls(tmp_path):
    """A second control (a single choice, a plain string in JSON-MIN, as a text field is) differs between the
    annotators of one task: the text they share says it is one task."""
    recs = [_min_record(1, "first text", "a@x.org", "pos", 1, topic="food"),
            _min_record(1, "first text", "b@x.org", "pos", 2, topic="staff"),
            _min_record(2, "t", "a@x.org", "neg", 3, topic="food", notes={"text": ["x", "y"]}),
            _min_record(2, "t", "b@x.org", "pos", 4, topic="price")]
    path = _write(tmp_path / "two_controls.json", json.dumps(recs))
    for field, want in (("sentiment", "pos"), ("topic", "food")):
        assert _cells(read_annotations(path, format="label-studio", field=field))[("1", "a@x.org")] == want


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
def test_an_export_in_utf16_without_its_byte_order_mark_names_the_encoding_to_pass(tmp_path, codec):
    """Its zero bytes are UTF-8: a doccano line failed as 'not valid JSON', a Label Studio array was no export at
    all. The format is still told from the content, and the reader names the file and the encoding to pass."""
    doccano = tmp_path / "alice.jsonl"
    doccano.write_bytes("".join(json.dumps({"id": i, "text": "t", "label": [lab]}) + "\n"
                                for i, lab in ((1, "pos"), (2, "neg"))).encode(codec))
    tasks = [{"id": i, "data": {"text": "t"}, "annotations": [
        {"completed_by": who, "result": [{"from_name": "s", "to_name": "text", "type": "choices",
                                          "value": {"choices": [lab]}}]} for who, lab in ((1, "a"), (2, "b"))]}
             for i in (1, 2)]
    studio = tmp_path / "project.json"
    studio.write_bytes(json.dumps(tasks, indent=2).encode(codec))
    for path, fmt in ((doccano, "doccano"), (studio, "label-studio")):
        assert guess_format(path) == fmt
        with pytest.raises(ValueError) as err:
            read_annotations(path)
        assert str(err.value) == (f"{path.name}: this file is {codec.upper()} text without a byte-order mark (a zero "
                                  f"byte beside each character), not UTF-8 text: pass encoding='{codec}' "
                                  f"(--reader-option encoding={codec}), or re-save it as UTF-8")
        assert read_annotations(path, encoding=codec).n_ratings in (2, 4)


@pytest.mark.parametrize("value, shown", [
    ({"name": "x"}, "an object {'name': 'x'}"),
    ([1, 2], "a list [1, 2] (1 is no text)"),
    ([["x"]], "a list [['x']] (['x'] is no text)"),
    (["x", None], "a list ['x', None] (None is no text)"),
    (["x", {"a": 1}], "a list ['x', {'a': 1}] ({'a': 1} is no text)")])
def test_a_label_that_is_an_object_or_a_list_of_non_text_is_refused_naming_the_line(tmp_path, value, shown):
    """'labels must be hashable (str, number, or a set/list of str); got dict' named neither the column nor the
    line; a list label (a set of labels) holding a number said which element but not where."""
    rows = [{"item": 1, "rater": "a", "label": ["x"]}, {"item": 1, "rater": "b", "label": ["x", "y"]},
            {"item": 2, "rater": "a", "label": ["y"]}, {"item": 2, "rater": "b", "label": value}]
    path = _write(tmp_path / "labels.jsonl", "\n".join(json.dumps(r) for r in rows))
    with pytest.raises(TypeError) as err:
        read_annotations(path)
    assert str(err.value) == (f"labels.jsonl: the label column 'label' holds {shown} at line 4 of the file (1 such "
                              "cell(s) in all); a label is text, a number, or a list of text (a set of labels)")
    records = _write(tmp_path / "records.json", json.dumps(rows))  # a JSON array of records, one line
    with pytest.raises(TypeError, match=r"^records\.json: the label column 'label' holds .* at row 4 "
                                         r"of the file \(1 such cell\(s\) in all\)"):
        read_annotations(records)
    one, two = _write(tmp_path / "one.jsonl", "\n".join(json.dumps(r) for r in rows[:2])), \
        _write(tmp_path / "two.jsonl", "\n".join(json.dumps(r) for r in rows[2:]))
    with pytest.raises(TypeError, match=r"^two\.jsonl: the label column 'label' holds .* at line 2 of the file"):
        read_annotations([one, two])  # a list of tables: each file names its own lines
    wide = _write(tmp_path / "wide.jsonl", "\n".join(json.dumps({"doc": r["item"], "ana": ["x"], "bo": r["label"]})
                                                     for r in rows[1::2]))
    with pytest.raises(TypeError, match=r"^wide\.jsonl: the rater column 'bo' holds .* at line 2 of the file"):
        read_annotations(wide, wide=True, item="doc")  # was 'unhashable type: 'dict''
    rows[3]["label"] = ["x"]  # lists of text are sets of labels
    path.write_text("\n".join(json.dumps(r) for r in rows))
    assert read_annotations(path).kind == "set"


TABLE_CASES = [c for c in CASES if c[3].endswith(".csv")]


@pytest.mark.filterwarnings("ignore::softirr_stats.data.ExportWarning")
@pytest.mark.parametrize(("export", "fmt", "options", "expected"), TABLE_CASES,
                         ids=[f"{c[1]}-{Path(c[3]).stem}" for c in TABLE_CASES])
def test_na_values_make_an_export_label_missing_as_a_table_cell(export, fmt, options, expected):
    # na_values= was dropped for every export (a Label Studio "Neutral" still counted): a label equal to one of
    # them is a missing rating, as the same cell of the hand-written table is
    plain = read_annotations(EXPORTS / export, format=fmt, **options)
    na = str(plain.vocabulary[0])
    try:
        want = read_annotations(EXPORTS / expected, na_values=[na])
    except ValueError as err:  # the label is all one rater gave: a table needs two raters with ratings, an export
        assert "has no rating" in str(err)  # may hold one annotator (read with others later): left out, said
        from softirr_stats.data import UnratedRatersWarning

        with pytest.warns(UnratedRatersWarning, match="has no rating"):
            got = read_annotations(EXPORTS / export, format=fmt, na_values=[na], **options)
        assert got.n_raters == plain.n_raters - 1 and na not in got.vocabulary
        return
    got = read_annotations(EXPORTS / export, format=fmt, na_values=[na], **options)
    assert_same(got, want)
    assert na not in got.vocabulary and got.n_ratings < plain.n_ratings


@pytest.mark.filterwarnings("ignore::softirr_stats.data.ExportWarning")
def test_na_values_leave_a_term_out_of_a_label_set():
    # a set-valued rating (several choices) loses the term; a set left empty is a missing rating, and the ratings
    # that are left single labels read as labels, as an export where nobody chose two
    path = EXPORTS / "label_studio" / "project-7-export.json"
    got = read_annotations(path, field="topic", na_values=["Travel"])
    assert got.kind == "categorical" and "Travel" not in got.vocabulary
    assert _cells(got) == {("1", "1"): "Business / Companies", ("1", "2"): "Business",
                           ("3", "1"): "Business / Services", ("3", "2"): "Business / Services"}
    kept = read_annotations(path, field="topic", na_values="Travel", multilabel=True)
    assert kept.kind == "set" and _cells(kept)[("3", "1")] == frozenset({"Business / Services"})
    assert ("2", "1") not in _cells(kept) and ("2", "2") not in _cells(kept)
    with pytest.raises(TypeError, match="na_values must be a string or a list of strings"):
        read_annotations(path, field="topic", na_values=[1])


@pytest.mark.filterwarnings("ignore::softirr_stats.data.ExportWarning")
def test_na_values_apply_to_span_exports_merged_file_by_file():
    # per-annotator span exports are matched again all together: the label is left out there too
    folder = EXPORTS / "doccano" / "ner"
    files = sorted(folder.glob("*.jsonl"))
    got = read_annotations(files, format="doccano", na_values=["LOC"])
    assert "LOC" not in got.vocabulary
    assert_same(got, read_annotations(folder, format="doccano", na_values=["LOC"]))
    with pytest.raises(ValueError, match="every label is one of na_values"):
        read_annotations(EXPORTS / "label_studio" / "project-7-export.json", field="sentiment",
                         na_values=["Positive", "Negative", "Neutral"])
