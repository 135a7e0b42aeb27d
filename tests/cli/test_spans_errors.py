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


# the spellings docs/readers.md documents for a span rule, each through both flags (cli._options parsed them itself
# and refused all but exact / overlap / overlap:IOU)
SPELLINGS = ["exact", "exact,unmatched=none", "overlap:0.5,separate", "overlap,unmatched=none", "exact,separate",
             "overlap:0.2,set,unmatched=MISSED"]


@pytest.fixture
def brat_project(tmp_path):
    for who, text in {"alice": "T1\tPER 0 10\tJohn Smith\nT2\tLOC 20 26\tBerlin\n",
                      "bob": "T1\tPER 0 4\tJohn\nT2\tLOC 20 26\tBerlin\nT3\tORG 30 35\tACME.\n",
                      "carol": "T1\tPER 0 10\tJohn Smith\nT2\tORG 20 26\tBerlin\n"}.items():
        (tmp_path / "br" / who).mkdir(parents=True)
        (tmp_path / "br" / who / "doc1.ann").write_text(text)
    return tmp_path / "br"


# --span-rule where the command has it (agree), --reader-option span_rule= where it has not (compare): the reader
# option spelling of a flag the command has is refused (tests/cli/test_dedicated_reader_flags.py)
ROUTES = [("agree", "--span-rule"), ("compare", "--reader-option")]
COMPARE = ["-c", "krippendorff_alpha", "-c", "fleiss_kappa", "--bootstrap", "10"]


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("command, flag", ROUTES)
def test_every_documented_span_rule_spelling_reads_as_the_python_api(capsys, brat_project, spelling, command, flag):
    import json

    import softirr_stats as sis
    from softirr_stats.data import SpanRule, read_annotations

    args = [flag, spelling if flag == "--span-rule" else f"span_rule={spelling}"]
    rest = ["-c", "krippendorff_alpha", "--bootstrap", "0"] if command == "agree" else COMPARE
    with pytest.raises(SystemExit) as exit_:
        main([command, str(brat_project), *args, *rest, "-f", "json", "--input-format", "brat"])
    out, err = capsys.readouterr()
    assert exit_.value.code == 0, err
    got = json.loads(out[out.index("{"):])["results"][0]
    ann = read_annotations(brat_project, format="brat", span_rule=SpanRule.parse(spelling))
    want = sis.krippendorff_alpha(ann)
    if command == "agree":
        assert got["n_items"] == ann.n_items
    assert got["value" if command == "agree" else "value_a"] == pytest.approx(want.value, abs=1e-12)


@pytest.mark.parametrize("command, flag, shown", [(*ROUTES[0], "--span-rule"),
                                                  (*ROUTES[1], "--reader-option span_rule=")])
def test_a_bad_span_rule_names_its_flag_and_what_is_wrong(capsys, brat_project, command, flag, shown):
    for bad, why in [("overlap:2", "min_overlap must lie in [0, 1)"), ("exact,foo", "unknown part 'foo'"),
                     ("weird", "match must be one of ['exact', 'overlap']")]:
        code, err = _err(capsys, command, brat_project, flag, bad if flag == "--span-rule" else f"span_rule={bad}",
                         *(["--bootstrap", "0"] if command == "agree" else COMPARE))
        assert code == 2 and err.count("\n") == 1, err
        assert f"error: {shown} must be exact, overlap or overlap:IOU" in err and why in err, err
