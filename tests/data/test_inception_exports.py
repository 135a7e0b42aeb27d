"""INCEpTION / WebAnno TSV exports at their edges: a last token line without its tab, a curation-only
export, one annotator's export."""

import zipfile
from pathlib import Path

import pytest

import softirr_stats as sis
from softirr_stats.cli import main
from softirr_stats.data._readers import guess_format

CURATED = Path(__file__).resolve().parents[1] / "fixtures" / "real_exports" / "webanno" / "curated_project_3_6_1.zip"
_SKIPPED = r"1 curation file\(s\) found and skipped \(curation is the adjudicated result, not an annotator\); to " \
    r"read it as one more rater, beside the annotators' exports: on the command line --reader-option " \
    r"include_curation=true; in Python include_curation=True"

_TSV = "#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Span|label\n\n\n#Text=a b\n1-1\t0-1\ta\tX\t\n1-2\t2-3\tb\tY"


def test_inception_last_token_line_without_trailing_tab_is_read(tmp_path):
    """INCEpTION's own relationLabelTest/user1.tsv ends so: complete, not cut off."""
    for user in ("user1", "user2"):
        (tmp_path / "annotation" / "doc1").mkdir(parents=True, exist_ok=True)
        (tmp_path / "annotation" / "doc1" / f"{user}.tsv").write_text(_TSV + "\n")
    ann = sis.read_annotations(tmp_path, format="webanno-tsv")
    assert (ann.n_items, ann.n_raters) == (2, 2)


def test_inception_curation_only_export_says_so(tmp_path):
    (tmp_path / "annotation" / "doc1").mkdir(parents=True)
    (tmp_path / "annotation" / "doc1" / "CURATION_USER.tsv").write_text(_TSV + "\t\n")
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="no annotator's file: every file was skipped.*"
                                                                     + _SKIPPED):
        sis.read_annotations(tmp_path, format="webanno-tsv")
    ann = sis.read_annotations(tmp_path, format="webanno-tsv", include_curation=True)
    assert ann.raters == ("CURATION_USER",) and ann.n_items == 2


def _curation_only(tmp_path, kind):
    """A folder or zip holding only curation/doc1.txt/CURATION_USER.tsv."""
    if kind == "folder":
        (tmp_path / "curation" / "doc1.txt").mkdir(parents=True)
        (tmp_path / "curation" / "doc1.txt" / "CURATION_USER.tsv").write_text(_TSV + "\t\n")
        return tmp_path
    path = tmp_path / "project.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("curation/doc1.txt/CURATION_USER.tsv", _TSV + "\t\n")
    return path


@pytest.mark.parametrize("kind, words", [
    ("folder", r"no annotator's .tsv files \(expected annotation/<document>/<user>.tsv\); "),
    ("zip", r"no WebAnno TSV files under annotation/<document>/<user>.tsv \(annotation/ holds nothing\); "),
])
def test_curation_only_folder_or_zip_counts_the_skipped_curation(tmp_path, kind, words):
    """Issue 33 row 5: an export whose only file is the curation file said it had no .tsv file or no span
    layer; it says the curation file was found, skipped and how to read it."""
    path = _curation_only(tmp_path, kind)
    with pytest.raises(ValueError, match=words + _SKIPPED):
        sis.read_annotations(path, format="webanno-tsv")
    assert guess_format(path) == "webanno-tsv"
    ann = sis.read_annotations(path, format="webanno-tsv", include_curation=True)
    assert ann.raters == ("CURATION_USER",) and ann.items == ("doc1.txt:0-1", "doc1.txt:2-3")
    assert not any("curation/" in n for n in ann.read_notes)


def test_the_real_curated_project_names_its_skipped_curation_file():
    """INCEpTION's own test export: annotation/ holds admin.txt, curation/ one WebAnno TSV file."""
    with pytest.raises(ValueError, match=r"annotation/ holds \['.txt'\]\); " + _SKIPPED):
        sis.read_annotations(CURATED, format="webanno-tsv")
    ann = sis.read_annotations(CURATED, format="webanno-tsv", include_curation=True)
    assert ann.raters == ("CURATION_USER",) and ann.n_ratings == ann.n_items >= 1


def test_include_curation_compares_the_curator_with_the_annotators(tmp_path):
    for who, label in (("alice", "X"), ("bob", "Z")):
        (tmp_path / "annotation" / "doc1").mkdir(parents=True, exist_ok=True)
        (tmp_path / "annotation" / "doc1" / f"{who}.tsv").write_text(_TSV.replace("\tX\t", f"\t{label}\t") + "\t\n")
    (tmp_path / "curation" / "doc1").mkdir(parents=True)
    (tmp_path / "curation" / "doc1" / "CURATION_USER.tsv").write_text(_TSV + "\t\n")
    assert sis.read_annotations(tmp_path, format="webanno-tsv").raters == ("alice", "bob")
    ann = sis.read_annotations(tmp_path, format="webanno-tsv", include_curation="true")
    assert ann.raters == ("CURATION_USER", "alice", "bob")


def test_cli_curation_only_export_names_the_reader_option(tmp_path, capsys):
    path = _curation_only(tmp_path, "zip")
    with pytest.raises(SystemExit):
        main(["agree", str(path), "--input-format", "webanno-tsv", "--bootstrap", "0"])
    out = capsys.readouterr()
    assert "1 curation file(s) found and skipped" in out.err + out.out
    assert "--reader-option include_curation=true" in out.err + out.out


def test_one_annotator_export_names_the_annotator(tmp_path, capsys):
    (tmp_path / "annotation" / "doc1").mkdir(parents=True)
    (tmp_path / "annotation" / "doc1" / "admin.tsv").write_text(_TSV + "\t\n")
    with pytest.raises(SystemExit):
        main(["agree", str(tmp_path), "--input-format", "webanno-tsv", "--bootstrap", "0"])
    out = capsys.readouterr()
    assert "has one annotator ('admin'); agreement needs two or more: add the other annotators' exports" in \
        out.out + out.err
