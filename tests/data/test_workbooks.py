"""Excel workbooks read by the rules of a CSV file: long and wide, a list of them, the sheet
chosen, what Excel leaves in cells (errors, formulas without values, dates), and hostile archives."""

import warnings
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.cli import main
from softirr_stats.data._labels import LabelWarning

openpyxl = pytest.importorskip("openpyxl")


def _workbook(path, sheets):
    """``sheets``: {title: rows}; written by openpyxl (no formula is computed)."""
    wb = openpyxl.Workbook()
    wb.remove(wb.active)
    for title, rows in sheets.items():
        ws = wb.create_sheet(title)
        for row in rows:
            ws.append(row)
    wb.save(path)
    return path


LONG = [["item", "rater", "label"], [1, "ana", "yes"], [1, "bo", "yes"], [2, "ana", "no"], [2, "bo", "yes"],
        [3, "ana", "no"], [3, "bo", "no"]]


def test_a_long_sheet_reads_as_the_same_table_in_csv(tmp_path):
    book = _workbook(tmp_path / "r.xlsx", {"Sheet1": LONG})
    csv = tmp_path / "r.csv"
    csv.write_text("\n".join(",".join(map(str, r)) for r in LONG) + "\n")
    a, b = sis.read_annotations(book), sis.read_annotations(csv)
    assert (a.items, a.raters, a.vocabulary) == (b.items, b.raters, b.vocabulary)
    np.testing.assert_array_equal(a.codes, b.codes)
    assert a.read_notes == ()  # one sheet: nothing to say


def test_wide_numbers_equal_the_peers_on_pandas_read_excel(tmp_path):
    rng = np.random.default_rng(7)
    truth = rng.integers(1, 6, size=40)
    cells = [[int(t + rng.integers(-1, 2)) if rng.random() > 0.1 else None for _ in range(3)] for t in truth]
    rows = [["patient", "r1", "r2", "r3", "comment"]] + [[f"p{i}", *c, "ok"] for i, c in enumerate(cells)]
    book = _workbook(tmp_path / "w.xlsx", {"scores": rows})
    ann = sis.read_annotations(book, wide=["r1", "r2", "r3"], item="patient")
    assert ann.kind == "numeric" and ann.n_raters == 3
    import krippendorff

    peer = pd.read_excel(book, engine="openpyxl")[["r1", "r2", "r3"]].to_numpy(dtype=float).T
    for level in ("nominal", "interval"):
        ours = sis.krippendorff_alpha(ann, level=level).value
        assert ours == pytest.approx(krippendorff.alpha(reliability_data=peer, level_of_measurement=level),
                                     abs=1e-12)


def test_the_sheet_read_is_named_and_another_can_be_picked(tmp_path):
    book = _workbook(tmp_path / "b.xlsx", {"Round 1": LONG, "Round 2": [LONG[0], [1, "ana", "x"], [1, "bo", "y"]]})
    ann = sis.read_annotations(book)
    assert ann.read_notes[0] == ("b.xlsx: read sheet 'Round 1' (1 of 2: 'Round 1', 'Round 2'); sheet= picks another "
                                 "(--reader-option sheet=NAME)")
    for pick in ("Round 2", 1):
        assert sis.read_annotations(book, sheet=pick).vocabulary == ("x", "y")
    with pytest.raises(ValueError, match=r"no sheet named 'round 2'; the sheets are \['Round 1', 'Round 2'\] "
                                         r"\(did you mean 'Round 2'\?\)"):
        sis.read_annotations(book, sheet="round 2")
    with pytest.raises(ValueError, match=r"sheet=2 but the workbook has 2 sheet\(s\)"):
        sis.read_annotations(book, sheet=2)
    years = _workbook(tmp_path / "y.xlsx", {"2023": LONG, "2024": [LONG[0], [1, "ana", "x"], [1, "bo", "y"]]})
    assert sis.read_annotations(years, sheet=2024).vocabulary == ("x", "y")  # the command line's sheet=2024
    assert sis.read_annotations(book, sheet="1").vocabulary == ("x", "y")  # no sheet named "1": the position
    with pytest.raises(TypeError, match="sheet must be a sheet's name or its position"):
        sis.read_annotations(book, sheet=1.0)
    csv = tmp_path / "r.csv"
    csv.write_text("item,rater,label\n1,a,x\n")
    with pytest.raises(ValueError, match="sheet= picks a sheet of an Excel workbook; r.csv is read as 'csv'"):
        sis.read_annotations(csv, sheet="x")


def test_error_cells_are_missing_with_a_note_and_the_header_may_start_lower(tmp_path):
    rows = [[None], [None], ["doc", "a", "b"], ["d1", "#N/A", 2], ["d2", 1, 1], ["d3", 2, "#DIV/0!"], [None],
            ["d4", 3, 3]]
    book = _workbook(tmp_path / "e.xlsx", {"S": rows})
    ann = sis.read_annotations(book, wide=True, item="doc")
    assert ann.items == ("d1", "d2", "d3", "d4") and ann.n_ratings == 6
    assert "e.xlsx: sheet 'S': the header is row 3 (the rows above it are empty)" in ann.read_notes
    assert ("e.xlsx: 2 cell(s) of sheet 'S' hold an Excel error (#N/A, #DIV/0!, ...) and are read as missing "
            "ratings") in ann.read_notes


def test_formulas_without_saved_values_are_warned_by_column(tmp_path):
    rows = [["doc", "a", "b", "mean"], ["d1", 1, 2, "=AVERAGE(B2:C2)"], ["d2", 2, "=1+1", "=AVERAGE(B3:C3)"]]
    book = _workbook(tmp_path / "f.xlsx", {"S": rows})
    with pytest.warns(LabelWarning, match=r"holds formulas with no saved value, read as empty cells, in 'b' \(1\), "
                                          r"'mean' \(2\): .*open and save it in Excel or LibreOffice"):
        ann = sis.read_annotations(book, wide=["a", "b"], item="doc")
    assert ann.n_ratings == 3


def test_cells_are_the_text_of_their_stored_values(tmp_path):
    import datetime

    rows = [["item", "rater", "label"], [1, "a", datetime.datetime(2024, 5, 1)], [1, "b", datetime.datetime(2024, 5, 1)],
            [2, "a", True], [2, "b", "TRUE"], [3, "a", 2.5], [3, "b", "2.5"]]
    ann = sis.read_annotations(_workbook(tmp_path / "c.xlsx", {"S": rows}))
    assert ann.vocabulary == ("2.5", "2024-05-01", "TRUE")
    assert sis.percent_agreement(ann).value == 1.0


def test_decimal_comma_text_cells(tmp_path):
    rows = [["doc", "a", "b"], ["d1", "3,5", "3,5"], ["d2", "1,25", "2"], ["d3", "4", "4,5"]]
    book = _workbook(tmp_path / "d.xlsx", {"S": rows})
    ann = sis.read_annotations(book, wide=True, item="doc", decimal=",")
    assert ann.kind == "numeric" and ann.vocabulary == (1.25, 2.0, 3.5, 4.0, 4.5)


def test_row_names_written_by_pandas_to_excel(tmp_path):
    frame = pd.DataFrame({"r1": ["a", "b", "a"], "r2": ["a", "b", "b"]}, index=["u1", "u2", "u3"])
    book = tmp_path / "p.xlsx"
    frame.to_excel(book)  # the index, under an empty header cell, as the first column
    ann = sis.read_annotations(book, wide=True, item="")
    assert ann.items == ("u1", "u2", "u3") and ann.raters == ("r1", "r2")


def test_one_workbook_per_annotator(tmp_path):
    for who, labels in {"alice": ["x", "y", "x"], "bob": ["x", "y", "y"]}.items():
        _workbook(tmp_path / f"{who}.xlsx", {"S": [["item", "label"], *[[i, lab] for i, lab in enumerate(labels)]]})
    ann = sis.read_annotations([tmp_path / "alice.xlsx", tmp_path / "bob.xlsx"])
    assert ann.raters == ("alice", "bob") and sis.percent_agreement(ann).value == pytest.approx(2 / 3)


def test_a_column_named_twice_is_refused_as_in_a_csv(tmp_path):
    book = _workbook(tmp_path / "d.xlsx", {"S": [["item", "rater", "rater", "label"], [1, "a", "x", "yes"]]})
    with pytest.raises(ValueError, match=r"column 'rater' appears twice in the header of sheet 'S' \(columns 2 and 3"):
        sis.read_annotations(book)


def test_values_right_of_the_header_are_refused(tmp_path):
    book = _workbook(tmp_path / "v.xlsx", {"S": [["item", "rater", "label"], [1, "a", "x", "stray"]]})
    with pytest.raises(ValueError, match=r"holds values right of its header's last column .*name those columns"):
        sis.read_annotations(book)


def test_title_rows_above_the_header_are_left_out_with_a_note(tmp_path, capsys):
    """A title and a line on the study above the table (common in hand-kept sheets): the header is the row that names
    the columns asked for, found among the first rows; the rows above it are left out, and a note says which."""
    title = [["Coding sheet, round 2"], [], ["Coders: Ana, Bo", None, "2024-05-01"]]
    book = _workbook(tmp_path / "t.xlsx", {"S": [*title, ["item", "rater", "label"], [1, "Ana", "x"], [1, "Bo", "x"],
                                                 [2, "Ana", "y"], [2, "Bo", "x"]]})
    ann = sis.read_annotations(book)
    assert ann.raters == ("Ana", "Bo") and ann.n_items == 2 and ann.n_ratings == 4
    assert ann.read_notes[0] == ("t.xlsx: sheet 'S': the header is row 4, the first that names the columns ['item', "
                                 "'rater', 'label']; the 2 row(s) above it were left out ('Coding sheet, round 2'; "
                                 "'Coders: Ana, Bo | 2024-05-01')")
    wide = _workbook(tmp_path / "w.xlsx", {"S": [["Round 2"], ["doc", "Ana", "Bo"], ["d1", "x", "x"], ["d2", "y", "x"]]})
    assert sis.read_annotations(wide, wide=True, item="doc").raters == ("Ana", "Bo")
    assert sis.read_annotations(wide, wide=["Bo", "Ana"], item="doc").raters == ("Bo", "Ana")
    # the columns asked for are named nowhere: the refusal says what to do about a title row
    with pytest.raises(ValueError, match=r"values right of its header's last column .* if that row is a title above "
                                         r"the table, name the table's columns \(item=, rater=, label=, or wide=\)"):
        sis.read_annotations(wide)
    # one sheet per annotator, each under its own title; and the command line
    per = _workbook(tmp_path / "p.xlsx", {"Ana": [["Ana's sheet"], ["item", "label"], [1, "x"], [2, "y"]],
                                          "Bo": [["item", "label"], [1, "x"], [2, "x"]]})
    assert sis.read_annotations(per, sheet="*").codes.tolist() == [[0, 0], [1, 0]]
    with pytest.raises(SystemExit) as ex:
        main(["describe", str(book)])
    assert ex.value.code == 0
    assert "the header is row 4" in " ".join(capsys.readouterr().out.split())


def test_a_guide_sheet_with_a_title_row_is_passed_over_for_the_sheet_with_the_columns(tmp_path):
    book = _workbook(tmp_path / "g.xlsx", {"Guide": [["How to code"], ["one row per document"]],
                                           "Codes": [["Round 2"], ["study", "coder", "design"], ["s1", "ana", "rct"],
                                                     ["s1", "bo", "rct"]]})
    with pytest.raises(ValueError, match=r"sheet 'Codes' has these columns: pass sheet='Codes'"):
        sis.read_annotations(book, item="study", rater="coder", label="design")
    assert sis.read_annotations(book, item="study", rater="coder", label="design", sheet="Codes").n_ratings == 2


def test_hostile_archives_are_refused_before_parsing(tmp_path, monkeypatch):
    (tmp_path / "n.xlsx").write_text("item,rater,label\n")
    with pytest.raises(ValueError, match=r"n.xlsx: not an Excel workbook \(.xlsx is a zip archive"):
        sis.read_annotations(tmp_path / "n.xlsx")
    (tmp_path / "locked.xlsx").write_bytes(bytes.fromhex("d0cf11e0a1b11ae1") + bytes(504))  # an OLE container
    with pytest.raises(ValueError, match=r"locked.xlsx: a password-protected workbook .*remove the password"):
        sis.read_annotations(tmp_path / "locked.xlsx")
    with zipfile.ZipFile(tmp_path / "z.xlsx", "w") as zf:
        zf.writestr("readme.txt", "hello")
    with pytest.raises(ValueError, match="a zip archive without xl/workbook.xml"):
        sis.read_annotations(tmp_path / "z.xlsx")
    book = _workbook(tmp_path / "big.xlsx", {"S": LONG})
    monkeypatch.setenv("SOFTIRR_MAX_UNPACKED", "1000")  # the unpack cap, as for exports in archives
    with pytest.raises(ValueError, match="unpack"):
        sis.read_annotations(book)
    monkeypatch.delenv("SOFTIRR_MAX_UNPACKED")
    bomb = ('<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>'
            '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1">'
            '<c r="A1" t="inlineStr"><is><t>&lol2;</t></is></c></row></sheetData></worksheet>')
    with zipfile.ZipFile(book) as zin, zipfile.ZipFile(tmp_path / "e.xlsx", "w") as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            zout.writestr(info, bomb.encode() if info.filename == "xl/worksheets/sheet1.xml" else data)
    with pytest.raises(ValueError, match="e.xlsx: cannot be read as an Excel workbook"):
        sis.read_annotations(tmp_path / "e.xlsx")


def test_command_line_reads_a_workbook_with_its_sheet(tmp_path, capsys):
    book = _workbook(tmp_path / "b.xlsx", {"Notes": [["nothing here"]], "Ratings": LONG})
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(book), "--reader-option", "sheet=Ratings", "-c", "cohen_kappa", "--bootstrap", "0",
              "-f", "csv"])
    assert ex.value.code == 0
    out = capsys.readouterr()
    value = float(out.out.splitlines()[1].split(",")[3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = sis.cohen_kappa(sis.read_annotations(book, sheet="Ratings")).value
    assert value == pytest.approx(want, abs=1e-12)
    assert "note: b.xlsx: read sheet 'Ratings' (2 of 2: 'Notes', 'Ratings')" in out.err


def test_a_big_sheet_shows_a_progress_bar(tmp_path, monkeypatch):
    from softirr_stats.data import _input
    from softirr_stats.data._readers import _common

    seen = []
    real = _common.progress

    def spy(iterable, **kw):
        out = real(iterable, **kw)
        seen.append((out is not iterable, kw["desc"]))
        return out

    monkeypatch.setattr(_common, "progress", spy)
    book = _workbook(tmp_path / "r.xlsx", {"S": LONG})
    sis.read_annotations(book)
    monkeypatch.setattr(_input, "BIG_INPUT", 0)
    sis.read_annotations(book)
    assert seen == [(False, "reading r.xlsx"), (True, "reading r.xlsx")]


# --- real material: two coders' workbooks of a published meta-analysis (CC BY 4.0; PROVENANCE.md) -------------

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real_exports" / "excel"
CODERS = [REAL / "AI_Adoption_MASEM_Coding_v3_R1.xlsx", REAL / "AI_Adoption_MASEM_Coding_v3_R2.xlsx"]


@pytest.mark.parametrize("column", ["theoretical_framework", "ai_type", "education_level", "sample_type", "country"])
def test_two_coders_workbooks_agree_with_the_peer_on_pandas_read_excel(column):
    """One workbook per coder, the coded studies on the third of seven sheets: read as a list (the coder named after
    the file), alpha equals the krippendorff package's on the same sheets read by pandas.read_excel (which reads
    the text "NA" as missing: here na_values=["NA"] does the same)."""
    import krippendorff

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ann = sis.read_annotations(CODERS, sheet="STUDY_METADATA", item="study_id", label=column, na_values=["NA"])
        ours = sis.krippendorff_alpha(ann).value
    assert ann.raters == ("AI_Adoption_MASEM_Coding_v3_R1", "AI_Adoption_MASEM_Coding_v3_R2")
    assert ann.read_notes[0].startswith("AI_Adoption_MASEM_Coding_v3_R1.xlsx: read sheet 'STUDY_METADATA' (3 of 7: "
                                        "'GUIDE', 'ASSIGNMENT', 'STUDY_METADATA'")
    sheets = [pd.read_excel(p, sheet_name="STUDY_METADATA", engine="openpyxl").dropna(subset=["study_id"])
              .set_index("study_id")[column] for p in CODERS]
    ids = sorted(set(sheets[0].index) | set(sheets[1].index))
    assert ann.n_items == len(ids) == 117
    values = sorted({str(v) for s in sheets for v in s.dropna()})
    code = {v: k for k, v in enumerate(values)}
    data = np.array([[code[str(s[i])] if i in s.index and pd.notna(s[i]) else np.nan for i in ids] for s in sheets])
    assert ours == pytest.approx(krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=1e-12)


def test_the_real_coders_numbers_are_numbers():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ann = sis.read_annotations(CODERS, sheet="STUDY_METADATA", item="study_id", label="sample_size")
    assert ann.kind == "numeric" and all(float(v).is_integer() for v in ann.vocabulary)
    assert sis.krippendorff_alpha(ann, level="ratio").value > 0.9  # sample sizes copied from the same papers


def test_header_cells_over_two_lines_are_named_as_they_read(tmp_path):
    """Alt+Enter in a header cell: 'R1\\nscore' is named 'R1 score' on the command line; the match and the
    rename are noted; a name two columns fit, or a misspelt one, is an error naming the columns."""
    rows = [["Study\nID", "R1\nscore", "R2 \n score", "R3 score", "notes"], ["s1", 1, 2, 2, "x"], ["s2", 3, 3, 3, "y"]]
    book = _workbook(tmp_path / "h.xlsx", {"S": rows})
    ann = sis.read_annotations(book, wide=["R1 score", "R2 score", "R3 score"], item="Study ID")
    assert ann.raters == ("R1 score", "R2 score", "R3 score") and ann.items == ("s1", "s2")
    assert ("h.xlsx: read column(s) 'Study\\nID' as 'Study ID', 'R1\\nscore' as 'R1 score', 'R2 \\n score' as "
            "'R2 score' (names are compared with every run of spaces and line breaks as one space)") in ann.read_notes
    long = _workbook(tmp_path / "l.xlsx", {"S": [["item", "rater\nname", "label"], [1, "a", "x"], [1, "b", "x"]]})
    assert sis.read_annotations(long, rater="rater name").raters == ("a", "b")
    with pytest.raises(ValueError, match=r"rater column\(s\) \['R4 score'\] not found \(did you mean 'R3 score'\?\)"):
        sis.read_annotations(book, wide=["R4 score"], item="Study ID")
    twice = _workbook(tmp_path / "t.xlsx", {"S": [["doc", "a b", "a\nb"], ["d", 1, 2]]})
    with pytest.raises(ValueError, match=r"rater column\(s\) \['a  b'\] not found"):
        sis.read_annotations(twice, wide=["a  b"], item="doc")
    csv = tmp_path / "h.csv"  # the same rule for a CSV header with a quoted line break
    csv.write_text('doc,"R1\nscore",R2\nd1,1,1\nd2,2,1\n')
    assert sis.read_annotations(csv, wide=["R1 score", "R2"], item="doc").raters == ("R1 score", "R2")


def test_a_first_sheet_that_is_no_table_points_at_the_sheet_with_the_columns(tmp_path, capsys):
    """The coders' workbooks open on a guide: the error names the sheet that holds the columns asked for."""
    with pytest.raises(ValueError, match=r"sheet 'GUIDE' holds values right of its header's last column.*sheet 'GUIDE' "
                                         r"was read \(the first of 7\); sheet 'STUDY_METADATA' has these columns: pass "
                                         r"sheet='STUDY_METADATA'"):
        sis.read_annotations(CODERS[0], item="study_id", wide=["ai_type", "year"])
    with pytest.raises(ValueError, match=r"the workbook has 7 sheets \('GUIDE', 'ASSIGNMENT', .*pass sheet= to read "
                                         r"another"):
        sis.read_annotations(CODERS[0], item="no_such_column", wide=["ai_type"])
    rows = [["doc", "a", "b"], ["d1", "x", "x"]]
    book = _workbook(tmp_path / "b.xlsx", {"Readme": [["nothing"]], "Data": rows})
    with pytest.raises(ValueError, match=r"item column 'doc' not found.*sheet 'Data' has these columns: pass "
                                         r"sheet='Data'"):
        sis.read_annotations(book, wide=True, item="doc")
    with pytest.raises(SystemExit):
        main(["agree", str(book), "--reader-option", "wide=true", "--item", "doc", "--bootstrap", "0"])
    assert "pass --reader-option 'sheet=Data'" in capsys.readouterr().err


def test_small_numbers_in_date_formatted_cells_are_warned(tmp_path):
    """Ratings typed into cells formatted as dates: Excel shows 3 as 1900-01-03, and that is what is read."""
    wb = openpyxl.Workbook()
    for row in (["doc", "a", "b"], ["d1", 3, 3], ["d2", 1, 2]):
        wb.active.append(row)
    for cell in ("C2", "C3"):
        wb.active[cell].number_format = "yyyy-mm-dd"
    wb.save(tmp_path / "d.xlsx")
    with pytest.warns(LabelWarning, match=r"cells formatted as dates that hold dates of early 1900, in 'b' "
                                          r"\(1900-01-03\).*format the column as numbers") as caught:
        sis.read_annotations(tmp_path / "d.xlsx", wide=["a", "b"], item="doc")
    assert any(w.filename == __file__ for w in caught if issubclass(w.category, LabelWarning))  # points at the caller


def test_one_sheet_per_annotator(tmp_path, capsys):
    wb = openpyxl.Workbook()
    wb.active.title = "Guide"
    wb.active.append(["How to code: one row per document"])
    for who, labels in {"Ana": ["x", "y", "x"], "Bo.v2": ["x", "y", "y"], "Cy": ["y", "y", "x"]}.items():
        ws = wb.create_sheet(who)
        ws.append(["item", "label"])
        for i, lab in enumerate(labels):
            ws.append([i, lab])
    wb.save(tmp_path / "coding.xlsx")
    ann = sis.read_annotations(tmp_path / "coding.xlsx", sheet=["Ana", "Bo.v2", 3])
    assert ann.raters == ("Ana", "Bo.v2", "Cy") and ann.codes.tolist() == [[0, 0, 1], [1, 1, 1], [0, 1, 0]]
    assert ann.read_notes[-1].startswith("merged 3 sheets: coding.xlsx [Ana] (rater named after the sheet)")
    per_file = [tmp_path / f"{w}.csv" for w in ("Ana", "Bo.v2", "Cy")]
    for path, labels in zip(per_file, (["x", "y", "x"], ["x", "y", "y"], ["y", "y", "x"]), strict=True):
        path.write_text("item,label\n" + "".join(f"{i},{lab}\n" for i, lab in enumerate(labels)))
    assert sis.fleiss_kappa(ann).value == pytest.approx(sis.fleiss_kappa(sis.read_annotations(per_file)).value,
                                                        abs=1e-12)
    with pytest.raises(ValueError, match=r"sheet 'Guide' has no column 'item', 'label' in its header; read the sheets "
                                         r"that have them: pass sheet=\['Ana', 'Bo.v2', 'Cy'\]"):
        sis.read_annotations(tmp_path / "coding.xlsx", sheet="*")
    with pytest.raises(ValueError, match=r"names the sheet\(s\) \['Ana'\] twice"):
        sis.read_annotations(tmp_path / "coding.xlsx", sheet=["Ana", 1])
    with pytest.raises(ValueError, match="wide=True reads one sheet"):
        sis.read_annotations(tmp_path / "coding.xlsx", sheet=["Ana", "Cy"], wide=True)
    with pytest.raises(SystemExit):
        main(["agree", str(tmp_path / "coding.xlsx"), "--reader-option", "sheet=*", "--bootstrap", "0"])
    assert "pass --reader-option 'sheet=[Ana, Bo.v2, Cy]'" in capsys.readouterr().err
    with pytest.raises(SystemExit) as ex:
        main(["agree", str(tmp_path / "coding.xlsx"), "--reader-option", "sheet=[Ana, Bo.v2, Cy]", "--bootstrap", "0",
              "-c", "fleiss_kappa", "-f", "csv"])
    assert ex.value.code == 0
    assert float(capsys.readouterr().out.splitlines()[1].split(",")[3]) == pytest.approx(sis.fleiss_kappa(ann).value)


def test_the_formula_passes_run_only_where_the_sheet_holds_formulas(tmp_path, monkeypatch):
    """Empty cells are common (missing ratings); the two further passes that look for formulas without a saved
    value run only when a byte scan finds a formula element in the sheet's XML."""
    from softirr_stats.data import _workbook

    calls = []
    monkeypatch.setattr(_workbook, "_warn_unsaved_formulas", lambda *a: calls.append(a[2]))
    book = tmp_path / "plain.xlsx"
    _workbook_rows(book, [["doc", "a", "b"], ["d1", 1, 2], ["d2", 2, None]])
    sis.read_annotations(book, wide=True, item="doc")
    assert calls == []
    with_formula = tmp_path / "f.xlsx"
    _workbook_rows(with_formula, [["doc", "a", "b", "mean"], ["d1", 1, 2, "=AVERAGE(B2:C2)"], ["d2", 2, None, None]])
    sis.read_annotations(with_formula, wide=["a", "b"], item="doc")
    assert calls == ["Sheet"]


def _workbook_rows(path, rows):
    wb = openpyxl.Workbook()
    for row in rows:
        wb.active.append(row)
    wb.save(path)
