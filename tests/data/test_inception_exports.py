"""INCEpTION / WebAnno TSV exports at their edges: a last token line without its tab, a curation-only
export, one annotator's export."""

import pytest

import softirr_stats as sis
from softirr_stats.cli import main

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
    with pytest.warns(UserWarning), pytest.raises(ValueError, match="no annotator's file: every file was skipped"):
        sis.read_annotations(tmp_path, format="webanno-tsv")


def test_one_annotator_export_names_the_annotator(tmp_path, capsys):
    (tmp_path / "annotation" / "doc1").mkdir(parents=True)
    (tmp_path / "annotation" / "doc1" / "admin.tsv").write_text(_TSV + "\t\n")
    with pytest.raises(SystemExit):
        main(["agree", str(tmp_path), "--input-format", "webanno-tsv", "--bootstrap", "0"])
    out = capsys.readouterr()
    assert "has one annotator ('admin'); agreement needs two or more: add the other annotators' exports" in \
        out.out + out.err
