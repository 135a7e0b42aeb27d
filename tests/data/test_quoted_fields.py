"""Quotes in CSV / TSV tables: a stray opening quote that swallows the rows after it, or one the file ends inside,
is refused naming the line where the quoted field starts; ``quoting="none"`` reads quotes as plain text; quoted
fields that hold only a line break (free text) or a delimiter on one line keep working. Both reading routes (pyarrow
and pandas) and every entry (long, wide, a list of tables, the command line) give the same answer."""

import csv
import io

import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.cli import main
from softirr_stats.data import _columnar, read_table

SWALLOW = 'item\trater\tlabel\n1\ta\tx\n1\tb\tx\n2\ta\t"quoted start\n2\tb\ty\n3\ta\tz\n3\tb\tz"\n4\ta\tx\n4\tb\ty\n5\ta\tz\n5\tb\tz\n'
UNCLOSED = 'item\trater\tlabel\n1\ta\tz\n1\tb\tz\n2\ta\tz\n2\tb\t"x\n'


@pytest.fixture(params=["arrow", "pandas"])
def route(request, monkeypatch):
    if request.param == "pandas":
        monkeypatch.setattr(_columnar, "have_arrow", lambda: False)
    return request.param


def _peer_literal(text: str, sep: str) -> pd.DataFrame:
    """The table read with quotes as plain text by Python's csv module (the independent peer)."""
    rows = list(csv.reader(io.StringIO(text), delimiter=sep, quoting=csv.QUOTE_NONE))
    return pd.DataFrame(rows[1:], columns=rows[0])


@pytest.mark.parametrize("sep, suffix", [("\t", "tsv"), (",", "csv")])
def test_a_quote_that_swallows_rows_is_refused_naming_its_line(tmp_path, route, sep, suffix):
    path = tmp_path / f"swallow.{suffix}"
    path.write_text(SWALLOW.replace("\t", sep))
    with pytest.raises(ValueError) as err:
        sis.read_annotations(path)
    message = str(err.value)
    assert "\n" not in message and message.startswith(f"swallow.{suffix}: line 4: a quoted field starts there")
    assert "runs over 4 lines" in message and "pass quoting='none'" in message
    with pytest.raises(ValueError, match="line 4: a quoted field"):
        sis.read_annotations(path, wide=True, item="item")  # the wide route reads the same cells
    with pytest.raises(ValueError, match="line 4: a quoted field"):
        read_table(path)


def test_quoting_none_reads_quotes_as_plain_text(tmp_path, route):
    path = tmp_path / "swallow.tsv"
    path.write_text(SWALLOW)
    ann = sis.read_annotations(path, quoting="none")
    peer = sis.Annotations.from_long(_peer_literal(SWALLOW, "\t"))
    assert ann.n_ratings == 10 and ann.items == peer.items == ("1", "2", "3", "4", "5")
    assert ann.vocabulary == peer.vocabulary and (ann.codes == peer.codes).all()
    assert '"quoted start' in ann.vocabulary and 'z"' in ann.vocabulary
    assert sis.fleiss_kappa(ann).value == pytest.approx(sis.fleiss_kappa(peer).value, abs=1e-12)
    assert read_table(path, quoting="none")["label"].tolist() == _peer_literal(SWALLOW, "\t")["label"].tolist()


def test_an_unclosed_quote_is_one_line_naming_its_line(tmp_path, route):
    path = tmp_path / "q.tsv"
    path.write_text(UNCLOSED)
    with pytest.raises(ValueError) as err:
        sis.read_annotations(path)
    message = str(err.value)
    assert "\n" not in message and "EOF" not in message
    assert message.startswith("q.tsv: line 5: a quoted field starts there") and "never closed" in message
    assert "pass quoting='none'" in message
    ann = sis.read_annotations(path, quoting="none")
    assert ann.to_long()["label"].tolist() == ["z", "z", "z", '"x']


def test_legitimate_quoted_fields_keep_working(tmp_path, route):
    text = 'item,rater,label\n1,a,"multi\nline text"\n1,b,x\n2,a,"a, b"\n2,b,"a, b"\n3,a,"say ""hi"""\n3,b,y\n'
    path = tmp_path / "ok.csv"
    path.write_text(text)
    ann = sis.read_annotations(path)
    peer = pd.read_csv(io.StringIO(text), dtype=str)  # the CSV rule, read by pandas alone
    assert ann.to_long()["label"].tolist() == peer["label"].tolist() == [
        "multi\nline text", "x", "a, b", "a, b", 'say "hi"', "y"]
    assert ann.n_ratings == 6


def test_quoting_is_checked_and_only_for_delimited_text(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("item,rater,label\n1,a,x\n1,b,x\n")
    with pytest.raises(ValueError, match=r"quoting must be one of \['csv', 'none'\]; got 'nope'|"
                                         r"quoting must be one of \['csv', 'none'\].*got 'nope'"):
        sis.read_annotations(path, quoting="nope")
    jl = tmp_path / "a.jsonl"
    jl.write_text('{"item": 1, "rater": "a", "label": "x"}\n')
    with pytest.raises(ValueError, match="quoting= says how quotes in a CSV / TSV table are read; this file is read "
                                         "as 'jsonl'"):
        sis.read_annotations(jl, quoting="none")


def test_a_list_of_tables_passes_quoting_on(tmp_path, route):
    (tmp_path / "ana.csv").write_text('item,label\n1,"x\n2,y\n')
    (tmp_path / "bo.csv").write_text("item,label\n1,x\n2,y\n")
    paths = [tmp_path / "ana.csv", tmp_path / "bo.csv"]
    with pytest.raises(ValueError, match=r"ana\.csv: line 2: a quoted field starts there"):
        sis.read_annotations(paths)
    ann = sis.read_annotations(paths, quoting="none")
    assert ann.raters == ("ana", "bo") and ann.to_long()["label"].tolist() == ['"x', "x", "y", "y"]


def test_the_command_line_names_the_flag(tmp_path, capsys):
    path = tmp_path / "swallow.tsv"
    path.write_text(SWALLOW)
    with pytest.raises(SystemExit) as ex:
        main(["describe", str(path)])
    err = capsys.readouterr().err
    assert ex.value.code == 2 and err.count("\n") == 1
    assert "line 4: a quoted field starts there" in err and "pass --reader-option quoting=none" in err
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(path), "--reader-option", "quoting=none", "--bootstrap", "0", "-f", "json",
              "-c", "fleiss_kappa"])
    out = capsys.readouterr().out
    assert ex.value.code == 0
    import json

    value = json.loads(out[out.index("{"):])["results"][0]["value"]
    peer = sis.fleiss_kappa(sis.Annotations.from_long(_peer_literal(SWALLOW, "\t"))).value
    assert value == pytest.approx(peer, abs=1e-12)
