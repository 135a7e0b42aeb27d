"""``softirr spans``: the span agreement of the Python API, from the real entry point."""

import json
import pathlib

import pytest

import softirr_stats as sis

BRATIAA = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "bratiaa_example"


def test_spans_equals_the_python_api_and_bratiaa(run_cli, tmp_path):
    code, out, err = run_cli("spans", str(BRATIAA), "--bootstrap", "200", "--seed", "3", "-f", "json",
                             "--json", str(tmp_path / "spans.json"))
    assert code == 0, err
    payload = json.loads(out)
    py = sis.span_agreement(BRATIAA, ci=sis.Bootstrap(n=200, seed=3, design="items"))
    mean = payload["results"][-1]
    assert mean["pair"] == "mean over pairs"
    assert mean["f1"] == py.value == pytest.approx(0.8903501522940479, abs=1e-15)  # bratiaa's mean pairwise F1
    assert (mean["ci_low"], mean["ci_high"]) == pytest.approx((py.ci_low, py.ci_high), abs=1e-12)
    assert len(payload["results"]) == 7 and payload["results"][0]["tp"] == 382  # 6 pairs of 4 annotators
    assert json.loads((tmp_path / "spans.json").read_text())["results"] == payload["results"]


def test_spans_overlap_table_and_bad_options(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")  # a narrower terminal breaks the pair column's text across lines
    code, out, _ = run_cli("spans", str(BRATIAA), "--match", "overlap:0.5", "--by", "all", "--bootstrap", "0")
    assert code == 0 and "mean over pairs" in out and "match = overlap:0.5" in out
    code, _, err = run_cli("spans", str(BRATIAA), "--match", "fuzzy")
    assert code == 2 and err.count("error:") == 1 and "--match must be one of exact, overlap" in err
    code, _, err = run_cli("spans", str(BRATIAA / "missing"))
    assert code == 2 and "does not exist" in err and "Traceback" not in err


def test_spans_markdown_has_one_interval_column_and_integer_counts(run_cli):
    code, out, err = run_cli("spans", str(BRATIAA), "--bootstrap", "50", "--seed", "1", "-f", "markdown")
    assert code == 0, err
    header, _, first = out.splitlines()[:3]
    assert header.count("| CI |") == 1 and header.count("CI") == 1
    cells = [c.strip() for c in first.strip("|").split("|")]
    assert cells[1:5] == ["7", "382", str(int(cells[3])), str(int(cells[4]))]  # documents and counts as integers
    assert cells[-1].startswith("[") and cells[-1].endswith("]")  # the merged [lo, hi] interval


def test_spans_title_names_the_default_interval(run_cli):
    """method auto: the mean's interval is the document jackknife's (logit scale), the pairs' the bootstrap's."""
    code, out, err = run_cli("spans", str(BRATIAA), "--bootstrap", "50", "--seed", "1", "-f", "json")
    assert code == 0, err
    title = json.loads(out)["title"]
    assert "mean jackknife-t-logit (documents left out one at a time)" in title
    assert "pairs document-bootstrap percentile, B = 50" in title
    code, out, err = run_cli("spans", str(BRATIAA), "--bootstrap", "50", "--method", "bca-t", "-f", "json")
    assert code == 0 and "95% document-bootstrap bca-t CI, B = 50" in json.loads(out)["title"]


@pytest.fixture()
def span_items(tmp_path):
    """A table of span items, as span Annotations write it: 'O' = annotated the document, no span here."""
    path = tmp_path / "span_items.csv"
    path.write_text("item,rater,label\nd:0-4,a,PER\nd:0-4,b,PER\nd:9-12,a,O\nd:9-12,b,LOC\ne:0-3,a,O\ne:0-3,b,O\n"
                    "e:5-9,a,PER\ne:5-9,b,PER\n")
    return path


@pytest.mark.parametrize(("given", "unmatched"), [([], "O"), (["--unmatched", "O"], "O"), (["--unmatched", ""], None),
                                                  (["--unmatched", "PER"], "PER")])
def test_unmatched_reaches_span_agreement(run_cli, span_items, given, unmatched):
    # span_agreement(unmatched=) had no CLI spelling, and a table of span items could not be read at all
    code, out, err = run_cli("spans", str(span_items), "--bootstrap", "200", *given, "-f", "json")
    assert code == 0, err
    rows = json.loads(out)["results"]
    py = sis.span_agreement(sis.read_annotations(span_items), unmatched=unmatched,
                            ci=sis.Bootstrap(n=200, seed=0, design="items"))
    assert rows[-1]["f1"] == pytest.approx(py.value, abs=1e-12)
    assert [rows[0][k] for k in ("tp", "fp", "fn")] == py.by_pair[["tp", "fp", "fn"]].values.tolist()[0]
    assert (rows[-1]["ci_low"], rows[-1]["ci_high"]) == pytest.approx((py.ci_low, py.ci_high), abs=1e-12)
    if unmatched != "O":  # the setting changes the counts: it was used
        other = sis.span_agreement(sis.read_annotations(span_items))
        assert other.by_pair[["tp", "fp", "fn"]].values.tolist() != py.by_pair[["tp", "fp", "fn"]].values.tolist()


@pytest.mark.parametrize(("which", "args", "needle"), [
    ("items", ["--unmatched", "X"], "--unmatched 'X' is not a label of"),
    ("items", ["--field", "x"], "--field is an option of the span exports"),
    ("brat", ["--unmatched", "O"], "--unmatched names the 'no span' label of a table of span items"),
])
def test_bad_unmatched_in_cli_spelling(run_cli, span_items, which, args, needle):
    code, out, err = run_cli("spans", str(span_items if which == "items" else BRATIAA), *args)
    assert code == 2 and out == "", err
    assert needle in err and err.count("\n") == 1, err


def _csv_rows(out):
    import csv
    import io

    return list(csv.DictReader(io.StringIO(out)))


def test_table_types_and_documents_equal_the_python_tables(run_cli):
    """bratiaa reports agreement per label and per document; by_type / by_document had no command-line output."""
    py = sis.span_agreement(BRATIAA, ci=sis.Bootstrap(n=200, seed=3, design="items"))
    code, out, err = run_cli("spans", str(BRATIAA), "--bootstrap", "200", "--seed", "3", "--table", "types",
                             "-f", "csv")
    assert code == 0, err
    rows = _csv_rows(out)
    assert [r["type"] for r in rows] == py.by_type["type"].tolist() == ["LOC", "MISC", "ORG", "PER"]
    for col in ("n_spans", "tp", "f1", "sd", "n_pairs", "ci_low", "ci_high"):
        assert [float(r[col]) for r in rows] == pytest.approx(py.by_type[col].tolist(), abs=1e-12), col
    code, out, err = run_cli("spans", str(BRATIAA), "--bootstrap", "0", "--table", "documents", "-f", "csv")
    assert code == 0, err
    rows = _csv_rows(out)
    assert list(rows[0]) == ["document", "n_spans", "f1", "sd", "n_pairs"]
    assert [r["document"] for r in rows] == py.by_document["document"].tolist() and len(rows) == 7
    for col in ("n_spans", "f1", "sd", "n_pairs"):
        assert [float(r[col]) for r in rows] == pytest.approx(py.by_document[col].tolist(), abs=1e-12), col
    code, out, err = run_cli("spans", str(BRATIAA), "--bootstrap", "0", "--table", "types", "--by", "all")
    assert code == 0 and "(all)" in out and "all types together (--by all)" in " ".join(out.split())


def test_json_holds_the_pairs_the_types_and_the_documents(run_cli, tmp_path):
    py = sis.span_agreement(BRATIAA, match="overlap", ci=sis.Bootstrap(n=100, seed=1, design="items"))
    code, out, err = run_cli("spans", str(BRATIAA), "--match", "overlap", "--bootstrap", "100", "--seed", "1",
                             "-f", "json", "--json", str(tmp_path / "s.json"))
    assert code == 0, err
    payload = json.loads(out)
    assert json.loads((tmp_path / "s.json").read_text())["by_document"] == payload["by_document"]
    assert [r["f1"] for r in payload["results"][:-1]] == pytest.approx(py.by_pair["f1"].tolist(), abs=1e-12)
    for key, table in (("by_type", py.by_type), ("by_document", py.by_document)):
        got = payload[key]
        for col in table.columns:
            values = [r[col] for r in got]
            if table[col].dtype.kind in "fiu":
                assert values == pytest.approx(table[col].tolist(), abs=1e-12), (key, col)
            else:
                assert values == table[col].tolist(), (key, col)


def test_help_shows_the_item_form_and_the_tables(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    code, out, _ = run_cli("spans", "--help")
    text = " ".join(out.split())
    assert code == 0 and "item = 'DOCUMENT:START-END'" in text and "':-'" not in text  # was eaten as markup
    assert "--table" in text and "types (F1 per span type" in text and "documents (F1 per document" in text
    # the per-type / per-document means leave out pairs without a span there, where bratiaa's are nan
    assert "the mean over the pairs with a span of the type / in the document (bratiaa gives nan" in text
    code, out, err = run_cli("spans", str(BRATIAA), "--table", "labels")
    assert code == 2 and out == "" and "--table" in err and "pairs, types, documents" in err


def test_each_span_note_is_printed_once(run_cli, tmp_path, monkeypatch):
    """A document only one annotator has makes span_f1 warn; the summary's warning (prefixed "span_f1: ")
    and the result's note are one note, printed once (it was printed twice, [1] and [3])."""
    monkeypatch.setenv("COLUMNS", "250")
    for who, docs in (("a", ("d0", "d1", "d2", "solo")), ("b", ("d0", "d1", "d2"))):
        (tmp_path / who).mkdir()
        for doc in docs:
            (tmp_path / who / f"{doc}.txt").write_text("Alice met Bob in Paris.\n")
            (tmp_path / who / f"{doc}.ann").write_text("T1\tPER 0 5\tAlice\n" + ("T2\tPER 10 13\tBob\n" if doc != "d1" else ""))
    code, out, err = run_cli("spans", str(tmp_path), "--bootstrap", "0")
    assert code == 0, err
    lines = [ln for ln in (out + err).splitlines() if "hold no span of an annotator pair" in ln]
    assert len(lines) == 1, out + err


def test_average_with_by_all_is_refused(run_cli):
    # --by all --average macro was accepted, ignored (one F1 over all spans has no types to average) and recorded as
    # average: macro
    for average in ("macro", "micro"):
        code, out, err = run_cli("spans", str(BRATIAA), "--bootstrap", "0", "--by", "all", "--average", average)
        assert code == 2 and out == "", err
        assert (f"error: --average {average} averages F1 over span types; --by all ignores types (one F1 over all "
                "spans): leave out one of them") in err, err
    code, out, err = run_cli("spans", str(BRATIAA), "--bootstrap", "0", "--by", "all", "-f", "json")
    assert code == 0 and json.loads(out)["meta"]["by"] == "all", err


def test_a_soft_type_match_with_by_all_is_refused_in_command_line_words(run_cli):
    # the library's "similarity= grades agreement on span types; by='all' ignores types (use by='type')"
    code, out, err = run_cli("spans", str(BRATIAA), "--bootstrap", "0", "--by", "all", "-m", "levenshtein")
    assert code == 2 and err.count("error:") == 1, err
    assert ("error: -m levenshtein grades agreement on span types; --by all ignores types: use --by type, or leave "
            "out -m") in err, err
    assert "by=" not in err and "similarity=" not in err, err
