"""The command line on a wide table (``--reader-option wide=true``) and the reading hints, worded as flags."""

import json

import pytest
from typer.testing import CliRunner

from softirr_stats.cli import app

runner = CliRunner()

WIDE = "Units,Rater1,Rater2,Rater3\nu1,a,a,a\nu2,b,b,\nu3,a,b,b\nu4,c,c,c\n"


def test_agree_reads_a_wide_table_and_lists_its_raters(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text(WIDE)
    out_json = tmp_path / "o.json"
    res = runner.invoke(app, ["agree", str(path), "--reader-option", "wide=true", "--item", "Units",
                              "-c", "fleiss_kappa", "--bootstrap", "0", "--json", str(out_json)])
    assert res.exit_code == 0, res.output
    assert "read as a wide table (items from column 'Units'; 3 rater column(s): 'Rater1', 'Rater2', 'Rater3')" \
        in " ".join(res.output.split())
    (row,) = json.loads(out_json.read_text())["results"]
    import softirr_stats as sis

    expected = sis.fleiss_kappa(sis.Annotations.from_wide([["a", "a", "a"], ["b", "b", None], ["a", "b", "b"],
                                                           ["c", "c", "c"]])).value
    assert row["value"] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(("args", "said"), [
    ([], "pass --reader-option wide=true, with --item naming its item column (--item 'Units' if the first column "
         "names the items; --item '' numbers the rows)"),
    (["--reader-option", "wide=true"], "name the column of item identifiers (--item 'doc'), or pass --item '' "),
    (["--reader-option", "wide=true", "--item", "Units", "--rater", "x"], "--rater and --label name the columns"),
])
def test_wide_table_errors_are_worded_as_flags(tmp_path, args, said):
    path = tmp_path / "w.csv"
    path.write_text(WIDE)
    res = runner.invoke(app, ["agree", str(path), "-c", "fleiss_kappa", "--bootstrap", "0", *args])
    assert res.exit_code == 2
    assert said in " ".join(res.output.split())


def test_semicolon_file_is_named(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("item;rater;label\n1;a;x\n1;b;x\n")
    res = runner.invoke(app, ["agree", str(path), "--bootstrap", "0"])
    assert res.exit_code == 2
    assert "the header is one column that holds ';' (a ';'-separated file?); pass --reader-option 'sep=;'" \
        in " ".join(res.output.split())
    res = runner.invoke(app, ["agree", str(path), "--bootstrap", "0", "-c", "percent_agreement",
                              "--reader-option", "sep=;"])
    assert res.exit_code == 0, res.output


def test_na_labels_are_noted_with_the_flag_that_makes_them_missing(tmp_path):
    path = tmp_path / "na.csv"
    path.write_text("item,rater,label\n1,a,NA\n1,b,NA\n2,a,x\n2,b,y\n3,a,x\n3,b,x\n")
    res = runner.invoke(app, ["agree", str(path), "-c", "cohen_kappa", "--bootstrap", "0"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "LabelWarning: 1 label(s) are texts that pandas (and, for 'NA', R) reads as a missing value ('NA')" in text
    assert "--na-values NA on the command line" in text
    res = runner.invoke(app, ["agree", str(path), "-c", "cohen_kappa", "--bootstrap", "0", "--na-values", "NA"])
    assert res.exit_code == 0 and "LabelWarning" not in res.output


def test_decimal_comma_numbers_are_read_with_the_reader_option(tmp_path):
    path = tmp_path / "d.csv"
    path.write_text("doc;r1;r2\nd1;3,5;3,5\nd2;4,25;4\nd3;1,0;1,5\nd4;2;2,5\n")
    base = ["agree", str(path), "--reader-option", "sep=;", "--reader-option", "wide=true", "--item", "doc",
            "-c", "krippendorff_alpha", "--bootstrap", "0"]
    res = runner.invoke(app, [*base, "-m", "quadratic"])
    assert res.exit_code == 1  # the row cannot be computed, and says why
    said = " ".join(res.output.split())
    assert "decimal comma" in said and "--reader-option decimal=," in said
    out_json = tmp_path / "o.json"
    res = runner.invoke(app, [*base, "-m", "quadratic", "--reader-option", "decimal=,", "--json", str(out_json)])
    assert res.exit_code == 0, res.output
    import softirr_stats as sis

    want = sis.krippendorff_alpha(sis.Annotations.from_wide([[3.5, 3.5], [4.25, 4], [1.0, 1.5], [2, 2.5]]),
                                  level="interval").value
    (row,) = json.loads(out_json.read_text())["results"]
    assert row["value"] == pytest.approx(want, abs=1e-12)


def test_report_lists_how_the_file_was_read_as_notes_and_reading_warnings_as_warnings(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("doc;r1;r2;r3\nd1;3,5;3,5;3\nd2;4,25;4;4\nd3;1,25;1,5;1\nd4;2;2,5;2\n")
    page = tmp_path / "r.html"
    res = runner.invoke(app, ["report", str(path), "--reader-option", "sep=;", "--reader-option", "wide=true",
                              "--item", "doc", "--bootstrap", "0", "-o", str(page)])
    assert res.exit_code == 0, res.output
    lines = res.stderr.splitlines()
    assert any(line.startswith("note: w.csv: read as a wide table") for line in lines), lines
    assert any(line.startswith("warning: LabelWarning:") and "decimal comma" in line for line in lines), lines
    html = page.read_text()
    assert '<p class="note">w.csv: read as a wide table (items from column &#x27;doc&#x27;' in html
    assert '<p class="note warn">LabelWarning: labels read as categories' in html
    assert "--reader-option decimal=," in html


def test_wide_takes_the_rater_columns_as_a_json_list(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text('doc,name,"Keep, Ana","Keep, Bo",views\nd1,Café,1,1,10\nd2,Thé,0,1,20\nd3,Noël,1,1,30\n')
    out_json = tmp_path / "o.json"
    res = runner.invoke(app, ["agree", str(path), "--reader-option", 'wide=["Keep, Ana", "Keep, Bo"]', "--item", "doc",
                              "-c", "percent_agreement", "--bootstrap", "0", "--json", str(out_json)])
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert "2 rater column(s) named by wide=: 'Keep, Ana', 'Keep, Bo'; 2 other column(s) left out: 'name', 'views'" \
        in said
    (row,) = json.loads(out_json.read_text())["results"]
    assert row["value"] == pytest.approx(2 / 3, abs=1e-12)
    res = runner.invoke(app, ["agree", str(path), "--reader-option", "wide=true", "--item", "doc",
                              "-c", "percent_agreement", "--bootstrap", "0"])
    said = " ".join(res.output.split())
    assert "holds text ('name')" in said and "--reader-option 'wide=[r1, r2]'" in said


def test_wide_takes_bare_rater_names_in_brackets(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("doc,name,a,b\nd1,x,1,1\nd2,y,0,1\nd3,z,1,1\n")
    out_json = tmp_path / "o.json"
    res = runner.invoke(app, ["agree", str(path), "--reader-option", "wide=[a, b]", "--item", "doc",
                              "-c", "percent_agreement", "--bootstrap", "0", "--json", str(out_json)])
    assert res.exit_code == 0, res.output
    assert "2 rater column(s) named by wide=: 'a', 'b'; 1 other column(s) left out: 'name'" in " ".join(res.output.split())
    (row,) = json.loads(out_json.read_text())["results"]
    assert row["value"] == pytest.approx(2 / 3, abs=1e-12)


@pytest.mark.parametrize("command", [["agree", "-f", "csv", "--bootstrap", "0"], ["agree", "-f", "json", "--bootstrap", "0"],
                                     ["sensitivity", "-f", "csv", "--bootstrap", "0"],
                                     ["compare", "-m", "exact", "-m", "levenshtein", "-f", "csv", "--bootstrap", "50"]])
def test_machine_formats_print_how_the_file_was_read_as_a_note_and_warnings_as_warnings(tmp_path, command):
    path = tmp_path / "w.csv"
    path.write_text("doc;r1;r2;r3;name\nd1;3,5;3,5;3;x\nd2;4,25;4;4;y\nd3;1,25;1,5;1;z\nd4;2;2,5;2;w\n")
    res = runner.invoke(app, [command[0], str(path), "--reader-option", "sep=;", "--reader-option", "wide=[r1, r2, r3]",
                              "--item", "doc", *command[1:]])
    assert res.exit_code == 0, res.output
    lines = res.stderr.splitlines()
    assert any(line.startswith("note: w.csv: read as a wide table") for line in lines), lines
    assert not any(line.startswith("warning: w.csv: read as") for line in lines), lines
    assert any(line.startswith("warning: LabelWarning:") and "decimal comma" in line for line in lines), lines


def test_blank_labels_are_made_missing_by_the_flag_the_warning_names(tmp_path):
    """A label that is one space: --na-values ' ' was accepted and dropped (each value stripped, empty ones left
    out), and the warning's advice na_values=[''] does not match ' '. A value of only white space given alone is
    kept as written, and the warning names the spellings that match the blanks found."""
    path = tmp_path / "blank.csv"
    path.write_text("item,rater,label\n1,a,yes\n1,b, \n2,a,no\n2,b,no\n3,a,yes\n3,b,yes\n4,a,no\n4,b,\n")
    res = runner.invoke(app, ["agree", str(path), "-c", "fleiss_kappa", "--bootstrap", "0", "-f", "json"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.stderr.split())
    assert "na_values=[' '] on read_annotations, --na-values ' ' on the command line" in text, text
    assert json.loads(res.stdout)["meta"]["n_labels"] == 3
    res = runner.invoke(app, ["agree", str(path), "-c", "fleiss_kappa", "--bootstrap", "0", "-f", "json",
                              "--na-values", " "])
    assert res.exit_code == 0 and "LabelWarning" not in res.stderr, res.output
    assert json.loads(res.stdout)["meta"]["n_labels"] == 2
    import softirr_stats as sis

    ann = sis.read_annotations(path, na_values=[" "])  # the Python spelling the warning names
    assert ann.vocabulary == ("no", "yes")


def test_multi_label_cells_are_read_as_sets_with_the_reader_option(tmp_path):
    """Cells like 'fever|cough' were skipped by multilabel_fleiss ("needs set-valued annotations") with no pointer:
    the note names --reader-option 'label_sep=|', which reads them as sets (the value of the JSON Lines twin)."""
    path = tmp_path / "terms.csv"
    path.write_text("note,annotator,terms\nn1,A,fever|cough\nn1,B,cough|fever\nn2,A,headache\nn2,B,headache|nausea\n"
                    "n3,A,rash\nn3,B,rash\nn4,A,dyspnea|chest pain\nn4,B,chest pain\nn5,A,fatigue|fever|cough\n"
                    "n5,B,fatigue|cough\nn6,A,nausea\nn6,B,vomiting\n")
    base = ["agree", str(path), "--item", "note", "--rater", "annotator", "--label", "terms", "-c", "multilabel_fleiss",
            "--bootstrap", "0", "-f", "json"]
    res = runner.invoke(app, base)
    assert res.exit_code == 1, res.output
    assert "--reader-option 'label_sep=|' on the command line" in " ".join(res.output.split())
    res = runner.invoke(app, [*base, "--reader-option", "label_sep=|"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["results"][0]["value"] == pytest.approx(0.6685082872928181, abs=1e-12)
    onerow = tmp_path / "onerow.csv"
    onerow.write_text("note,annotator,term\nn1,A,fever\nn1,A,cough\nn1,B,cough\nn2,A,rash\nn2,B,rash\n")
    res = runner.invoke(app, ["agree", str(onerow), "--item", "note", "--rater", "annotator", "--label", "term"])
    assert res.exit_code == 2
    assert "one row per term of a multi-label rating?" in res.stderr and "'label_sep=|'" in res.stderr, res.stderr


def test_an_empty_rater_column_is_no_rater(tmp_path):
    """A column with no rating counted as a rater: the raters bootstrap resampled 4 raters (a different interval),
    the title and plans said 4 raters; it is left out, with a warning naming it."""
    rows = "".join(f"u{i},{a},{b},{c},\n" for i, (a, b, c) in enumerate(
        ["aab", "bbb", "abb", "ccc", "aca", "bbc", "aaa", "cbc", "abc", "bba"]))
    with_empty, without = tmp_path / "e.csv", tmp_path / "n.csv"
    with_empty.write_text("Units,r1,r2,r3,r4\n" + rows)
    without.write_text("Units,r1,r2,r3\n" + rows.replace(",\n", "\n"))
    outs = []
    for path in (with_empty, without):
        res = runner.invoke(app, ["agree", str(path), "--reader-option", "wide=true", "--item", "Units",
                                  "-c", "fleiss_kappa", "--design", "raters", "--bootstrap", "300", "-f", "json"])
        assert res.exit_code == 0, res.output
        outs.append(res)
    said = " ".join(outs[0].output.split())
    assert "warning: UnratedRatersWarning: rater 'r4' has no rating" in said
    assert "3 raters resampled" in said and "4 raters" not in said

    def row(res):
        text = res.stdout
        return json.loads(text[text.index("{"):])["results"][0]

    a, b = row(outs[0]), row(outs[1])
    assert (a["n_raters"], a["ci_low"], a["ci_high"]) == (b["n_raters"], b["ci_low"], b["ci_high"])
    res = runner.invoke(app, ["plan", str(with_empty), "--reader-option", "wide=true", "--item", "Units",
                              "--halfwidth", "0.3", "-f", "csv"])
    assert res.exit_code == 0, res.output
    assert "raters" in res.stdout.splitlines()[0] and ",3," in res.stdout.splitlines()[1], res.stdout
