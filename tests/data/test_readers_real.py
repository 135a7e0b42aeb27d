"""Real exports of the annotation tools, read into the items, raters and labels counted by hand.

The files under ``tests/fixtures/real_exports/`` come from the tools' own public repositories (test
resources and example data); ``PROVENANCE.md`` there gives repository, path, commit and licence
of each, and marks the few reconstructions. The expected numbers below were counted from the
files themselves (``grep -c '^T'``, ``awk`` over the offsets, reading the TSV by eye, a plain
``json`` loop over the Prodigy lines), not by running the readers.

The six failures reported in issue 21 each have a test here built on a real file (marked
"failure kind"), and so do the reader-side silent numbers of issue 20.
"""

import gzip
import json
import shutil
import warnings
import zipfile
from pathlib import Path

import pytest

import softirr_stats as sis
from softirr_stats.data import Annotations, ExportWarning, SpanRule, read_annotations
from softirr_stats.data._readers import EXPORT_FORMATS, OptionError, guess_format, reader_options
from softirr_stats.data._readers._common import coerce_bool

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real_exports"
BRAT, WEBANNO, LS, DOCCANO = REAL / "brat", REAL / "webanno", REAL / "label_studio", REAL / "doccano"


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return read_annotations(*args, **kwargs)


def _cells(ann: Annotations) -> dict:
    return {(str(i), str(r)): lab for i, r, lab in ann.to_long().itertuples(index=False)}


def _non_o_per_rater(ann: Annotations) -> dict:
    long = ann.to_long()
    return long[long["label"] != "O"].groupby("rater").size().to_dict()


@pytest.fixture(scope="module")
def pydata(tmp_path_factory):
    """Prodigy's pydata-ams-2023 db-out (42 annotators), stored gzipped, as the .jsonl it is."""
    path = tmp_path_factory.mktemp("prodigy") / "pydata-ams-2023.jsonl"
    path.write_bytes(gzip.decompress((REAL / "prodigy" / "pydata-ams-2023.jsonl.gz").read_bytes()))
    return path


def test_fixture_budget_and_provenance():
    files = [p for p in REAL.rglob("*") if p.is_file()]
    assert sum(p.stat().st_size for p in files) < 2_000_000
    provenance = (REAL / "PROVENANCE.md").read_text()
    for top in ("brat/", "webanno/", "label_studio/", "doccano/", "prodigy/"):
        assert top in provenance
    for repo in ("nlplab/brat", "kldtz/bratiaa", "inception-project/inception", "explosion/prodigy-recipes",
                 "doccano/doccano", "HumanSignal/label-studio-converter", "HumanSignal/label-studio"):
        assert repo in provenance


# ----------------------------------------------------------------------------------- brat
def test_brat_collection_is_documents_of_one_annotator():
    """Failure kind 1: brat's own corpora ship <doc>.txt/<doc>.ann pairs by one annotator."""
    ann = _quiet(BRAT / "ncbi_disease_collection", format="brat")
    # 3 documents, 28 distinct (document, start, end) over the 3 .ann files, all typed Disease
    assert ann.raters == ("ncbi_disease_collection",)
    assert ann.n_items == 28 and ann.vocabulary == ("Disease",)
    assert {str(i).split(":")[0] for i in ann.items} == {"PMID-10556298", "PMID-23402", "PMID-6585184"}
    assert "a collection of 3 documents by one annotator" in ann.read_notes[0]
    with pytest.raises(ValueError, match="no item has two or more ratings"):
        sis.krippendorff_alpha(ann)  # one annotator: the coefficient refuses, saying why
    # the override: the old reading (one document, per-annotator files) on request
    forced = _quiet(BRAT / "ncbi_disease_collection", format="brat", layout="annotators")
    assert forced.n_raters == 3 and "per-annotator files of one document" in forced.read_notes[0]


def test_brat_event_triggers_on_the_same_offsets_are_one_set_label():
    """Failure kind 2: T24 Catalysis 961 975 / T25 Ubiquitination 961 975 (BioNLP-ST 2011 EPI)."""
    ann = _quiet(BRAT / "epi_event_stacked", format="brat")
    # 25 text-bound annotations on 24 distinct offsets: 21 Protein, T22 Catalysis, T23 Ubiquitination
    assert ann.n_items == 24 and ann.kind == "set"
    cells = _cells(ann)
    assert cells[("PMID-18296627:961-975", "epi_event_stacked")] == frozenset({"Catalysis", "Ubiquitination"})
    assert sum(v == frozenset({"Protein"}) for v in cells.values()) == 21
    with pytest.raises(ValueError, match=r"has two spans at \[961, 975\)"):
        _quiet(BRAT / "epi_event_stacked", format="brat", span_rule="exact,separate")


def test_bratiaa_example_project():
    ann = _quiet(BRAT / "bratiaa_example_project")  # format guessed from the .ann files
    # 4 annotator folders x 7 documents; 455 distinct (document, start, end) over all 1567 spans
    assert ann.raters == ("Lisa", "Maria", "Max", "Peter")
    assert ann.n_items == 455 and ann.n_ratings == 455 * 4
    assert _non_o_per_rater(ann) == {"Lisa": 404, "Maria": 404, "Max": 358, "Peter": 401}
    assert ann.vocabulary == ("LOC", "MISC", "O", "ORG", "PER")
    assert ann.read_notes == ("brat: 4 annotator folders ['Lisa', 'Maria', 'Max', 'Peter'], 7 documents",
                              "bratiaa_example_project: read as format='brat' (guessed from its content; pass "
                              "format='brat' to choose it)")


def test_per_annotator_brat_folders_merged(tmp_path):
    """Failure kind 6 (merging): each annotator's folder is a collection of its own; a list merges them."""
    merged = _quiet([BRAT / "bratiaa_example_project" / "Lisa", BRAT / "bratiaa_example_project" / "Maria"])
    # 426 distinct (document, start, end) over Lisa's and Maria's spans
    assert merged.raters == ("Lisa", "Maria") and merged.n_items == 426
    assert _non_o_per_rater(merged) == {"Lisa": 404, "Maria": 404}
    for who in ("Lisa", "Maria"):
        shutil.copytree(BRAT / "bratiaa_example_project" / who, tmp_path / who)
    together = _quiet(tmp_path, format="brat")
    assert _cells(merged) == _cells(together)  # the same as one project folder with the two annotators
    with pytest.raises(ValueError, match="rater 'Lisa' annotates document .* in Lisa and in Lisa2"):
        shutil.copytree(BRAT / "bratiaa_example_project" / "Lisa", tmp_path / "copy" / "Lisa2")
        _quiet([BRAT / "bratiaa_example_project" / "Lisa", tmp_path / "copy" / "Lisa2"], format="brat",
               annotator="Lisa")


def test_brat_span_beyond_the_text_is_refused(tmp_path):
    """Issue 20: a span ending past the document's text (a real NCBI document, one offset moved)."""
    shutil.copytree(BRAT / "ncbi_disease_collection", tmp_path / "c")
    ann = tmp_path / "c" / "PMID-23402.ann"
    n = len((tmp_path / "c" / "PMID-23402.txt").read_text(encoding="utf-8"))
    ann.write_text(ann.read_text().replace("T1\tDisease 77 94", f"T1\tDisease 77 {n + 5}"), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"PMID-23402.ann, line 1: span \[77, {n + 5}\) ends beyond the text "
                                         rf"of 'PMID-23402' \({n} characters\)"):
        read_annotations(tmp_path / "c", format="brat")


def test_spans_beyond_the_text_in_json_exports(tmp_path, pydata):
    """Issue 20 for doccano (issue 1522's line) and Label Studio: a span past the text is refused."""
    line = json.loads((DOCCANO / "issue1522_data_field.jsonl").read_text())
    n = len(line["data"])
    line["label"][0] = [28, n + 3, "A"]
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "alice.jsonl").write_text(json.dumps(line))
    with pytest.raises(ValueError, match=rf"alice.jsonl, line 1: span \[28, {n + 3}\) ends beyond the text of '10' "
                                         rf"\({n} characters\)"):
        read_annotations(tmp_path / "d", format="doccano")
    tasks = json.loads((LS / "reconstructed_two_controls.json").read_text())
    tasks[0]["annotations"][0]["result"] = [{"from_name": "ner", "to_name": "text", "type": "labels",
                                             "value": {"start": 0, "end": 99, "labels": ["X"]}}]
    (tmp_path / "ls.json").write_text(json.dumps(tasks))
    with pytest.raises(ValueError, match=r"ls.json, annotation 1 of task 1: span \[0, 99\) ends beyond the text"):
        read_annotations(tmp_path / "ls.json", format="label-studio", field="ner")


def test_non_utf8_export_names_file_and_option(tmp_path):
    """Issue 20: a Latin-1 copy of a real (Spanish) bratiaa document."""
    src = BRAT / "bratiaa_example_project" / "Lisa"
    for f in src.iterdir():
        (tmp_path / f.name).write_bytes(f.read_text(encoding="utf-8").encode("latin-1"))
    with pytest.raises(ValueError, match=r"esp\.train-doc-\d+\.(txt|ann), line \d+: not UTF-8 text .*pass encoding="):
        read_annotations(tmp_path, format="brat")
    latin = _quiet(tmp_path, format="brat", encoding="latin-1", annotator="Lisa")
    assert _cells(latin) == _cells(_quiet(src, format="brat"))
    history = tmp_path / "history.json"  # a real Label Studio export with an "é" added, saved as Latin-1
    history.write_bytes((LS / "converter_csv_test_history.json").read_text().replace("Positive", "Positivé")
                        .encode("latin-1"))
    with pytest.raises(ValueError, match=r"^history.json, line \d+: not UTF-8 text \(byte b'\\xe9' at offset \d+\); "
                                         r"pass encoding="):
        read_annotations(history, format="label-studio")
    assert _cells(_quiet(history, format="label-studio", encoding="latin-1")) == {("6141", "sergei@heartex.e2e"): "Positivé"}


# ----------------------------------------------------------------------- INCEpTION / WebAnno
def test_webanno_stacked_org_orgpart_is_a_set():
    """INCEpTION's multipleStackedAnnotationsAreNotMergedTest: ORG[1]|ORGpart[2] vs ORG|ORG|ORGpart."""
    ann = _quiet(WEBANNO / "multipleStackedAnnotationsAreNotMergedTest", format="webanno-tsv")
    # one span, Champions League [40, 56); curator.tsv has no NamedEntity layer: nothing marked
    assert _cells(ann) == {
        ("multipleStackedAnnotationsAreNotMergedTest:40-56", "user1"): frozenset({"ORG", "ORGpart"}),
        ("multipleStackedAnnotationsAreNotMergedTest:40-56", "user2"): frozenset({"ORG", "ORGpart"}),
        ("multipleStackedAnnotationsAreNotMergedTest:40-56", "curator"): frozenset({"O"}),
    }


def test_webanno_stacked_separate_pairs_label_first():
    """Failure kind 3b: kept separate, the overlap rule pairs ORG with ORG and ORGpart with ORGpart
    (every candidate has IoU 1); user2's second ORG is the one difference."""
    ann = _quiet(WEBANNO / "multipleStackedAnnotationsAreNotMergedTest", format="webanno-tsv",
                 span_rule="overlap,separate")
    by_item: dict = {}
    for (item, rater), lab in _cells(ann).items():
        by_item.setdefault(item, {})[rater] = lab
    pairs = sorted((v["user1"], v["user2"]) for v in by_item.values())
    assert pairs == [("O", "ORG"), ("ORG", "ORG"), ("ORGpart", "ORGpart")]


def test_webanno_layer_absent_from_one_file_is_nothing_marked():
    """Failure kind 3: INCEpTION writes only the layers a file uses (curator.tsv: no #T_SP= line)."""
    ann = _quiet(WEBANNO / "simpleSpanDiffIncompleteTest", format="webanno-tsv", feature="PosValue")
    # user1 marks 'sentence' [17, 25) NE, user2 marks 'to' [26, 28) NE, the curator file nothing
    assert _cells(ann) == {
        ("simpleSpanDiffIncompleteTest:17-25", "user1"): "NE", ("simpleSpanDiffIncompleteTest:17-25", "user2"): "O",
        ("simpleSpanDiffIncompleteTest:17-25", "curator"): "O", ("simpleSpanDiffIncompleteTest:26-28", "user1"): "O",
        ("simpleSpanDiffIncompleteTest:26-28", "user2"): "NE", ("simpleSpanDiffIncompleteTest:26-28", "curator"): "O",
    }
    assert any("absent from 1 file(s) ['curator.tsv']" in n for n in ann.read_notes)


@pytest.mark.parametrize("folder, feature, expected", [
    ("simpleSpanDiffWithLabelTest", "PosValue", {"user1": "NN", "user2": "NE", "curator": "O"}),
    ("simpleSpanNoDiffWithLabelTest", "PosValue", {"user1": "NN", "user2": "NN", "curator": "NN"}),
    ("simpleSpanDiffWithLabelStackingTest", None, {"user1": "ORG", "user2": "ORG", "curator": "O"}),
    ("simpleSpanDiffMultiFeatureTest", "value", {"user1": "false", "user2": "false", "curator": "O"}),
])
def test_webanno_curation_test_suites(folder, feature, expected):
    ann = _quiet(WEBANNO / folder, format="webanno-tsv", **({"feature": feature} if feature else {}))
    assert ann.n_items == 1  # one annotated span in each of these one-sentence documents
    assert {r: lab for (_, r), lab in _cells(ann).items()} == expected


def test_webanno_tsv3_suite_references():
    ann = _quiet(WEBANNO / "tsv3_suite", format="webanno-tsv")
    # 4 documents (one reference file each): 1 + 1 + 5 + 5 spans
    assert ann.raters == ("reference",) and ann.n_items == 12
    cells = _cells(ann)
    assert cells[("testMultiTokenSpanWithFeatureValue:0-16", "reference")] == "PERSON"
    assert cells[("testSentenceWithEmoji:10-12", "reference")] == "*"  # UTF-16 offsets, as INCEpTION writes
    assert sum(v == "NE" for v in cells.values()) == 5  # NE[1]|NE[2] stacked on each of 5 tokens: one NE


def test_webanno_truncated_file_is_refused(tmp_path):
    """Issue 20: a real TSV cut in the middle of its 'ORG[1]|ORGpart[2]' cell never yields 'ORG[1'."""
    text = (WEBANNO / "multipleStackedAnnotationsAreNotMergedTest" / "user1.tsv").read_text()
    cut = text[:text.index("ORG[1]|ORGpart[2]") + len("ORG[1")]
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "user1.tsv").write_text(cut)
    with pytest.raises(ValueError, match=r"user1.tsv, line 13: cell 'ORG\[1' is cut off"):
        read_annotations(tmp_path, format="webanno-tsv")
    short = text[:text.index("\tORG[1]|ORGpart[2]")]  # cut at a column boundary
    (tmp_path / "d" / "user1.tsv").write_text(short)
    with pytest.raises(ValueError, match=r"user1.tsv, line 13: 4 columns where the other token lines have 6; the file "
                                         r"looks cut off"):
        read_annotations(tmp_path, format="webanno-tsv")


def test_inception_project_zip(tmp_path):
    """The project export layout annotation/<document>/<user>.tsv, built from the real user files;
    the real curator file under curation/ is skipped with a note."""
    src = WEBANNO / "simpleSpanDiffIncompleteTest"
    zpath = tmp_path / "project.zip"
    with zipfile.ZipFile(zpath, "w") as zf:
        for user in ("user1", "user2"):
            zf.write(src / f"{user}.tsv", f"annotation/sentence.txt/{user}.tsv")
        zf.write(src / "curator.tsv", "curation/sentence.txt/CURATION_USER.tsv")
    assert guess_format(zpath) == "webanno-tsv"
    ann = _quiet(zpath, feature="PosValue")
    assert ann.raters == ("user1", "user2") and ann.n_items == 2
    assert any("curation/ (the curated result) skipped" in n for n in ann.read_notes)
    # INCEpTION's own test export keeps annotations as text, not TSV: refused, saying what to do
    with pytest.raises(ValueError, match=r"no WebAnno TSV files under annotation/.*holds \['.txt'\].*WebAnno TSV v3"):
        read_annotations(WEBANNO / "curated_project_3_6_1.zip", format="webanno-tsv")


# -------------------------------------------------------------------------------- Prodigy
def test_prodigy_repeated_answers(pydata):
    """Failure kind 4: 42 annotators; 46 repeated answers to the same question, 2 of them changed."""
    with pytest.warns(ExportWarning) as caught:
        ann = read_annotations(pydata)
    messages = [str(w.message) for w in caught]
    assert any("46 repeated answers of the same item by the same rater; 2 of them changed the answer; kept the "
               "last by timestamp" in m for m in messages)
    assert any("279 of 3372 records skipped (answer 'ignore')" in m for m in messages)
    assert ann.n_raters == 42 and ann.n_items == 117 and ann.n_ratings == 3372 - 279 - 46
    labels = ann.to_long()["label"].value_counts().to_dict()
    assert labels == {"accept": 1672, "reject": 1375}
    first = _quiet(pydata, duplicates="first")
    assert first.to_long()["label"].value_counts().to_dict() == {"accept": 1670, "reject": 1377}
    with pytest.raises(ValueError, match=r"pydata-ams-2023.jsonl, line \d+: rater '.*' labels item '.*' a second "
                                         r"time \(first at pydata-ams-2023.jsonl, line \d+\)"):
        _quiet(pydata, duplicates="error")
    with pytest.raises(OptionError, match=r"duplicates must be one of \['last', 'first', 'error'\]; got 'latest'"):
        _quiet(pydata, duplicates="latest")


def test_prodigy_multilabel_refuses_a_real_binary_export(pydata):
    """pydata-ams-2023 answers accept / reject to one label (the classification view): multilabel=True, which reads
    the accepted options of choice tasks as sets, is refused there rather than making sets of 'accept'."""
    with pytest.raises(ValueError, match=r"^pydata-ams-2023\.jsonl: multilabel=True reads the accepted options of "
                                         r"choice tasks as sets; this export holds binary answers"):
        _quiet(pydata, format="prodigy", multilabel=True)
    assert _quiet(pydata, format="prodigy", multilabel=False).kind == "categorical"


def test_prodigy_annotator_id_zero_is_the_rater(tmp_path, pydata):
    """Issue 20: _annotator_id 0 is an annotator, not a missing one (no fall-back to the session)."""
    lines = pydata.read_text().splitlines()[:40]
    recs = [json.loads(line) for line in lines]
    recs[0]["_annotator_id"] = 0
    path = tmp_path / "zero.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs))
    ann = _quiet(path, format="prodigy")
    assert "0" in ann.raters and recs[0]["_session_id"] not in ann.raters


def test_prodigy_files_without_annotator_ids_are_named_after_the_file(tmp_path):
    """prodigy-recipes' annotated_reddit-INSULT-textcat.jsonl has no _annotator_id / _session_id (one annotator's
    db-out): in a list read with rater_from='file' each file is one rater (every task was refused before)."""
    text = gzip.decompress((REAL / "prodigy" / "annotated_reddit-INSULT-textcat.jsonl.gz").read_bytes()).decode()
    recs = [json.loads(line) for line in text.splitlines()]
    assert not any("_annotator_id" in r or "_session_id" in r for r in recs)
    flipped = [dict(r, answer={"accept": "reject", "reject": "accept"}.get(r["answer"], r["answer"]))
               if k < 60 else r for k, r in enumerate(recs)]  # a second annotator who differs on the first 60 tasks
    (tmp_path / "alice.jsonl").write_text(text)
    (tmp_path / "bob.jsonl").write_text("".join(json.dumps(r) + "\n" for r in flipped))
    files = [tmp_path / "alice.jsonl", tmp_path / "bob.jsonl"]
    ann = _quiet(files, rater_from="file")
    kept = {r["_task_hash"]: r["answer"] for r in recs if r["answer"] != "ignore"}  # the last answer of a repeat
    differ = {r["_task_hash"] for r in flipped[:60] if r["answer"] != "ignore"}
    assert ann.raters == ("alice", "bob") and ann.n_items == len(kept) == 441
    assert ann.to_long().query("rater == 'alice'")["label"].value_counts().to_dict() == {
        a: list(kept.values()).count(a) for a in ("accept", "reject")}
    assert sis.percent_agreement(ann).value == pytest.approx(1 - len(differ) / len(kept), abs=1e-12)
    with pytest.raises(ValueError, match="rater_from='file'"):  # the refusal names the way out
        _quiet(files)


# -------------------------------------------------------------------------------- doccano
def test_doccano_data_field_is_recognised():
    """Failure kind 5: doccano 1.4-1.5 name the text field 'data' (doccano issue 1522)."""
    path = DOCCANO / "issue1522_data_field.jsonl"
    assert guess_format(path) == "doccano"
    ann = _quiet(path)
    assert ann.n_items == 3 and ann.raters == ("issue1522_data_field",)
    assert sorted(ann.items) == ["10:28-34", "10:55-89", "10:9-23"]


def test_doccano_old_multi_user_exports():
    cls = _quiet(DOCCANO / "download_text_classification.jsonl", format="doccano")
    # 3 examples, each labelled by user 1 with a label id
    assert _cells(cls) == {("1", "1"): "1", ("2", "1"): "2", ("3", "1"): "2"}
    seq = _quiet(DOCCANO / "download_sequence_labeling.jsonl", format="doccano")
    assert _cells(seq) == {("1:0-2", "1"): "2", ("2:0-15", "1"): "1", ("3:10-15", "1"): "1"}


# doccano's label file ("Export labels" on a project's label page) for the two examples above: the ids
# their annotations use, named by what the example texts say ("Terrible customer service." -> 1)
_CLS_LABELS = [{"id": 1, "text": "negative", "prefix_key": None, "suffix_key": "n", "background_color": "#FF0000",
                "text_color": "#ffffff"}, {"id": 2, "text": "positive", "prefix_key": None, "suffix_key": "p",
                                           "background_color": "#00FF00", "text_color": "#ffffff"}]


def test_doccano_label_ids_are_noted_and_named_by_label_names(tmp_path):
    """Exports before doccano 1.2 write label ids (doccano issues 113, 156, 295): an ExportWarning says so,
    and label_names= (the project's label file, or a mapping) reads their names."""
    cls_path = DOCCANO / "download_text_classification.jsonl"
    with pytest.warns(ExportWarning, match=r"labels are numbers \(1, 2\): doccano's label ids.*label_names="):
        read_annotations(cls_path, format="doccano")
    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps(_CLS_LABELS))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        named = read_annotations(cls_path, format="doccano", label_names=str(labels))
    assert not [w for w in caught if "label ids" in str(w.message)]
    assert _cells(named) == {("1", "1"): "negative", ("2", "1"): "positive", ("3", "1"): "positive"}
    # the command line's --reader-option label_names={"1": ..., "2": ...} arrives as a dict (read as JSON)
    seq = _quiet(DOCCANO / "download_sequence_labeling.jsonl", format="doccano", label_names={"1": "PER", 2: "ORG"})
    assert _cells(seq) == {("1:0-2", "1"): "ORG", ("2:0-15", "1"): "PER", ("3:10-15", "1"): "PER"}
    # names are left alone without label_names (no warning), and a name is not an id of label_names
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_annotations(DOCCANO / "issue1522_data_field.jsonl")
    assert not [w for w in caught if "label ids" in str(w.message)]
    with pytest.raises(ValueError, match=r"label 'A' is not an id of label_names \(ids: 1, 2\)"):
        _quiet(DOCCANO / "issue1522_data_field.jsonl", label_names={1: "x", 2: "y"})
    with pytest.raises(ValueError, match=r"label 2 is not an id of label_names \(ids: 1\)"):
        _quiet(cls_path, format="doccano", label_names={1: "negative"})


@pytest.mark.parametrize("spec, match", [
    ({1: "neg", 2: "neg"}, r"ids \['1', '2'\] share the name 'neg'"),
    ([{"id": 1, "text": "a"}, {"id": 1, "text": "b"}], r"label id '1' is listed twice"),
    ([{"id": 1}], r"needs an integer or text 'id' and a non-empty 'text'"),
    ({1: ""}, r"must map a label id to a non-empty name"),
    ({}, r"no labels"),
    (3, r"label_names must be a path"),
    ("missing.json", r"no file 'missing.json'"),
    ("utf16", r"labels.json: the label file is not UTF-8 text; re-save it as UTF-8"),
])
def test_doccano_label_names_refused(spec, match, tmp_path):
    if spec == "utf16":  # the export's encoding= advice would not apply: the label file has its own
        spec = tmp_path / "labels.json"
        spec.write_bytes(json.dumps(_CLS_LABELS).encode("utf-16"))
    with pytest.raises((ValueError, TypeError, FileNotFoundError), match=match):
        _quiet(DOCCANO / "download_text_classification.jsonl", format="doccano", label_names=spec)


def test_doccano_label_names_on_the_command_line(tmp_path):
    from typer.testing import CliRunner

    from softirr_stats.cli import app

    labels = tmp_path / "labels.json"
    labels.write_text(json.dumps(_CLS_LABELS))
    res = CliRunner().invoke(app, ["describe", str(DOCCANO / "download_text_classification.jsonl"), "--input-format",
                                   "doccano", "--reader-option", f"label_names={labels}"])
    assert res.exit_code == 0, res.output
    assert "negative" in res.output and "positive" in res.output and "label ids" not in res.output
    res = CliRunner().invoke(app, ["describe", str(DOCCANO / "download_text_classification.jsonl"), "--input-format",
                                   "doccano"])
    assert res.exit_code == 0 and "label_names=" in res.output, res.output


def test_doccano_export_without_ids_is_refused_as_doccano():
    """doccano's own export example has no ids: read as doccano (not the long-table reader) and refused."""
    path = DOCCANO / "export_example_sequence_labeling_no_id.jsonl"
    assert guess_format(path) == "doccano"
    with pytest.raises(ValueError, match=r"line 1: example has no usable 'id'"):
        _quiet(path)


# ---------------------------------------------------------------------------- Label Studio
@pytest.mark.parametrize("name, item, rater, label", [
    ("converter_csv_test2.json", "4", "test@heartex.com", 'Yes " "" \n \t \t а б в \n'),
    ("converter_csv_test_history.json", "6141", "sergei@heartex.e2e", "Positive"),
    ("previous_export.json", "1234", "annotator_from_past@project.com", "Cat"),  # one task object
])
def test_label_studio_single_annotator_exports(name, item, rater, label):
    """Failure kind 6: a single-annotator export reads (n_raters = 1)."""
    ann = _quiet(LS / name)
    assert _cells(ann) == {(item, rater): label} and ann.n_raters == 1


def test_label_studio_image_regions_are_refused_by_name():
    with pytest.raises(ValueError, match=r"result types \['rectanglelabels'\] are not read"):
        _quiet(LS / "converter_csv_test.json")
    with pytest.raises(ValueError, match=r"result types \['polygonlabels'\] are not read"):
        _quiet(LS / "converter_json_min_source.json")


def test_label_studio_real_csv_without_a_control_column():
    """label-studio-converter's own CSV output (tab-separated) holds data fields only."""
    path = LS / "converter_csv_test2_result.csv"
    assert guess_format(path) == "label-studio"
    with pytest.raises(ValueError, match=r"mixes the task's data fields and the controls \['_row_id', "):
        _quiet(path)


TWO_CONTROLS = {  # reconstructed_two_controls*: 3 tasks x 2 annotators, a choices and a textarea control
    "sentiment": {("1", "a@x.org"): {"Negative"}, ("1", "b@x.org"): {"Negative"}, ("2", "a@x.org"): {"Positive"},
                  ("2", "b@x.org"): {"Positive", "Neutral"}, ("3", "a@x.org"): {"Positive"},
                  ("3", "b@x.org"): {"Neutral"}},
    "notes": {("1", "a@x.org"): {"rude", "slow"}, ("1", "b@x.org"): {"rude"}, ("2", "b@x.org"): {"mixed"},
              ("3", "a@x.org"): {"cheap"}, ("3", "b@x.org"): {"cheap", "price"}},
}


@pytest.mark.parametrize("name", ["reconstructed_two_controls.json", "reconstructed_two_controls_min.json",
                                  "reconstructed_two_controls.csv"])
def test_label_studio_json_min_and_csv(name):
    with pytest.raises(ValueError, match=r"\['notes', 'sentiment'(, 'text')?\].*field="):
        _quiet(LS / name)  # JSON-MIN and CSV mix the data field 'text' in
    sentiment = _quiet(LS / name, field="sentiment")
    assert {k: set(v) for k, v in _cells(sentiment).items()} == TWO_CONTROLS["sentiment"]
    joined = _quiet(LS / name, field="notes")  # default: a textarea's lines joined into one string
    assert _cells(joined)[("1", "a@x.org")] == "rude\nslow" and joined.kind == "categorical"
    sets = _quiet(LS / name, field="notes", textarea="set")
    assert {k: set(v) for k, v in _cells(sets).items()} == TWO_CONTROLS["notes"] and sets.kind == "set"


def test_label_studio_exports_of_two_annotators_merged(tmp_path):
    """Per-annotator exports (each annotator's own project) merged by a list or a folder."""
    tasks = json.loads((LS / "reconstructed_two_controls.json").read_text())
    for who in ("a@x.org", "b@x.org"):
        mine = [{**t, "annotations": [a for a in t["annotations"] if a["completed_by"]["email"] == who]}
                for t in tasks]
        (tmp_path / f"{who.split('@')[0]}.json").write_text(json.dumps(mine))
    whole = _quiet(LS / "reconstructed_two_controls.json", field="sentiment")
    listed = _quiet([tmp_path / "a.json", tmp_path / "b.json"], field="sentiment")
    folder = _quiet(tmp_path, field="sentiment")
    assert _cells(listed) == _cells(whole) == _cells(folder)
    assert listed.read_notes[-1].startswith("merged 2 exports: ['a.json', 'b.json']")
    by_file = _quiet([tmp_path / "a.json", tmp_path / "b.json"], field="sentiment", rater_from="file")
    assert by_file.raters == ("a", "b")
    with pytest.raises(ValueError, match=r"rater 'a@x.org' rates item '1' in a.json and in a2.json"):
        shutil.copy(tmp_path / "a.json", tmp_path / "a2.json")
        _quiet([tmp_path / "a.json", tmp_path / "a2.json"], field="sentiment")


def test_label_studio_deep_nesting_and_huge_numbers(tmp_path):
    """Issue 20: one-line errors naming the file (and record) for JSON the parser cannot hold."""
    deep = tmp_path / "deep.json"
    deep.write_text('[{"id": 1, "annotations": [], "data": ' + "[" * 100_000 + "]" * 100_000 + "}]")
    with pytest.raises(ValueError, match=r"^deep.json: JSON nested too deeply to read") as err:
        read_annotations(deep, format="label-studio")
    assert "\n" not in str(err.value)
    task = json.loads((LS / "converter_csv_test_history.json").read_text())
    task[0]["annotations"][0]["result"][0] = {"from_name": "stars", "to_name": "text", "type": "rating",
                                              "value": {"rating": 1}}
    big = tmp_path / "big.json"
    big.write_text(json.dumps(task, indent=1).replace('"rating": 1', '"rating": 1' + "0" * 400))
    with pytest.raises(ValueError, match=r"^big.json, annotation 1 of task 1: value.rating 10{19}\.\.\. \(401 digits\) "
                                         r"is beyond the float range"):
        read_annotations(big, format="label-studio")
    line = tmp_path / "big.jsonl"
    line.write_text('{"item": 1, "rater": "a", "label": 1e999}\n')
    with pytest.raises(ValueError, match=r"^big.jsonl, line 1: number 1e999 is beyond the float range"):
        read_annotations(line)
    line.write_text('{"item": 1, "rater": "a", "label": 5}\n{"item": 1, "rater": "b", "label": 1' + "0" * 400 + "}\n")
    with pytest.raises(ValueError, match=r"^big.jsonl, line 2: 'label' 10{19}\.\.\. \(401 digits\) is beyond"):
        read_annotations(line)


# --------------------------------------------------------------------------- options, CSV
def test_csv_with_two_label_columns_is_refused(tmp_path):
    """Issue 20: pandas would read the first 'label' and rename the second 'label.1'."""
    path = tmp_path / "two.csv"
    path.write_text("item,rater,label,label\n1,a,x,y\n1,b,x,x\n")
    with pytest.raises(ValueError, match=r"two.csv: column 'label' appears twice in the header \(columns 3 and 4\)"):
        read_annotations(path)


def test_every_reader_option_is_a_keyword_of_read_annotations():
    for fmt in EXPORT_FORMATS:
        options = reader_options(fmt)
        assert "encoding" in options and ("span_rule" in options)
        with pytest.raises(OptionError, match=rf"unknown option\(s\) \['nope'\] for format='{fmt}'; valid options: "):
            read_annotations(BRAT / "bratiaa_example_project", format=fmt, nope=1)
    with pytest.raises(ValueError, match="valid options"):  # a ValueError (and a TypeError) for the CLI
        read_annotations(LS / "previous_export.json", fields="label")


def test_options_given_as_command_line_strings():
    a = _quiet(WEBANNO / "multipleStackedAnnotationsAreNotMergedTest", format="webanno-tsv",
               span_rule="overlap:0.5,separate")
    b = _quiet(WEBANNO / "multipleStackedAnnotationsAreNotMergedTest", format="webanno-tsv",
               span_rule=SpanRule(match="overlap", min_overlap=0.5, stacked="separate"))
    assert _cells(a) == _cells(b)
    assert SpanRule.parse("overlap:0.25,unmatched=none") == SpanRule(match="overlap", min_overlap=0.25, unmatched=None)
    with pytest.raises(ValueError, match="the IoU after 'overlap:' must be a number"):
        SpanRule.parse("overlap:half")
    assert coerce_bool("x", "false") is False and coerce_bool("x", "TRUE") is True
    with pytest.raises(OptionError, match="x must be true or false; got 'maybe'"):
        coerce_bool("x", "maybe")


def test_concat_clash_kind_and_one_rater():
    one = Annotations.concat([_quiet(LS / "converter_csv_test_history.json")])
    assert one.n_raters == 1
    with pytest.raises(ValueError, match="rater 'sergei@heartex.e2e' rates item '6141' in first and in second"):
        Annotations.concat([one, one], names=["first", "second"])
    numeric = Annotations.from_wide([[1, 2], [2, 2]])
    with pytest.raises(ValueError, match="different label kinds"):
        Annotations.concat([one, numeric])


def test_big_inputs_show_a_progress_bar(monkeypatch, pydata):
    """A read that takes over about 2 s (by its size) goes through a tqdm bar (shown on a terminal)."""
    from tqdm.auto import tqdm

    from softirr_stats.data import _input
    from softirr_stats.data._readers import _common

    seen = []
    real = _common.progress

    def spy(iterable, **kwargs):
        out = real(iterable, **kwargs)
        seen.append(isinstance(out, tqdm))
        return out

    monkeypatch.setattr(_common, "progress", spy)
    _quiet(pydata, format="prodigy")
    _quiet(BRAT / "bratiaa_example_project", format="brat")
    assert seen == [False, False]  # small: no bar
    monkeypatch.setattr(_input, "BIG_INPUT", 0)
    _quiet(pydata, format="prodigy")
    _quiet(BRAT / "bratiaa_example_project", format="brat")
    _quiet(LS / "reconstructed_two_controls.json", field="sentiment")
    assert seen[2:] == [True, True, True]


def test_a_gzipped_export_reads_as_the_file_it_holds(pydata):
    """Exports are often shared gzipped (``prodigy db-out ... | gzip``): read transparently, same result."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = sis.read_annotations(pydata, format="prodigy")
        packed = sis.read_annotations(REAL / "prodigy" / "pydata-ams-2023.jsonl.gz", format="prodigy")
    assert (packed.items, packed.raters, packed.vocabulary) == (plain.items, plain.raters, plain.vocabulary)
    assert (packed.codes == plain.codes).all() and packed.n_raters == 42


def test_a_corrupt_gzip_export_is_one_line_naming_the_file(tmp_path):
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(b"\x1f\x8b" + bytes(range(40)))
    with pytest.raises(ValueError, match=r"bad\.jsonl\.gz: a gzip file that cannot be decompressed"):
        sis.read_annotations(bad, format="prodigy")
