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
