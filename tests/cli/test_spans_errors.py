"""``softirr spans``: a file it cannot read is one line in command-line words, as ``agree`` says it."""

import pathlib

import pytest

from softirr_stats.cli import main

WEBANNO = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "real_exports" / "webanno" / \
    "simpleSpanDiffWithLabelTest"


def _err(capsys, *args):
    with pytest.raises(SystemExit) as exit_:
        main([str(a) for a in args])
    return exit_.value.code, capsys.readouterr().err


@pytest.mark.parametrize("command", ["spans", "agree"])
def test_a_layer_with_two_features_names_the_flag_and_the_export_once(capsys, command):
    # spans said "pass feature= one of them" (the Python keyword) and named the export twice
    code, err = _err(capsys, command, WEBANNO, "--bootstrap", "0")
    assert code == 2 and err.count("error:") == 1, err
    assert "pass --feature one of them" in err and "feature=" not in err, err
    assert err.count(WEBANNO.name) == 1, err
    code, err = _err(capsys, command, WEBANNO, "--bootstrap", "0", "--feature", "bogus")
    assert code == 2 and "--feature must be one of ['PosValue', 'coarseValue']" in err, err


def test_the_feature_named_reads_as_agree_reads_it(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["spans", str(WEBANNO), "--bootstrap", "0", "--feature", "PosValue", "-f", "csv"])
    out, err = capsys.readouterr()
    assert exit_.value.code == 0, err
    assert out.splitlines()[0].startswith("pair,")


def test_too_few_documents_for_the_bootstrap_names_bootstrap_not_reading(capsys, tmp_path):
    """One document holds the pairs' spans: the default --bootstrap cannot resample documents. The file was read
    (it said "cannot read PATH" because the computation ran in the reading context); --bootstrap 0 is the way."""
    for who, ann in (("A", "T1\tPER 0 5\tMaria\nT2\tLOC 15 19\tRome\n"), ("B", "T1\tPER 0 5\tMaria\n")):
        (tmp_path / who).mkdir()
        (tmp_path / who / "doc1.txt").write_text("Maria lives in Rome.\n")
        (tmp_path / who / "doc1.ann").write_text(ann)
    code, err = _err(capsys, "spans", tmp_path)
    assert code == 2 and err.count("error:") == 1, err
    assert "cannot read" not in err, err
    assert err.startswith(f"error: --bootstrap 2000: {tmp_path}: a document bootstrap needs at least 2 documents"), err
    assert "(--bootstrap 0)" in err and "ci=None" not in err, err
    with pytest.raises(SystemExit) as exit_:
        main(["spans", str(tmp_path), "--bootstrap", "0", "-f", "csv"])
    out, err = capsys.readouterr()
    assert exit_.value.code == 0, err
    # by hand: A marks 2 spans, B 1, one matched: F1 = 2 * 1 / (2 + 1)
    assert float(out.splitlines()[1].split(",")[7]) == pytest.approx(2 / 3, abs=1e-12)


def test_a_file_that_cannot_be_read_still_says_so(capsys, tmp_path):
    (tmp_path / "spans.csv").write_text("document,annotator,start,end,type\nd1,A,0,5,PER\nd1,A,0,x,PER\n")
    code, err = _err(capsys, "spans", tmp_path / "spans.csv", "--bootstrap", "0")
    assert code == 2 and f"cannot read {tmp_path / 'spans.csv'}" in err, err
