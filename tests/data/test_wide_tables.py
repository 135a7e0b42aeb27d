"""Wide tables on disk (``read_annotations(path, wide=True)``), the long route's missing-column hints,
and the LabelWarning for texts that pandas and R read as missing values."""

import json
import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.data import LabelWarning
from softirr_stats.data._labels import MISSING_MARKERS

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"
IRRCAC = json.loads((FIXTURES / "peer_irrcac.json").read_text())
PEER = json.loads((FIXTURES / "peer_scores.json").read_text())


def _write_wide(path, rows, header, item_col=None, sep=","):
    """A wide table as R / irrCAC users keep it: empty cells for missing ratings."""
    lines = [sep.join(([item_col] if item_col else []) + header)]
    for i, row in enumerate(rows, 1):
        cells = ["" if v is None else str(v) for v in row]
        lines.append(sep.join(([f"u{i}"] if item_col else []) + cells))
    path.write_text("\n".join(lines) + "\n")
    return path


def _irrcac_value(method):
    (case,) = [c for c in IRRCAC["cases"] if c["data"] == "raw_4raters" and c["weights"] == "identity"
               and c["method"] == method and c["kind"] == "raw"]
    return case["expect"]["coefficient_value"]["value"]


@pytest.mark.parametrize(("method", "name"), [("fleiss", "fleiss_kappa"), ("gwet", "gwet_ac1"),
                                              ("bp", "brennan_prediger"), ("krippendorff", "krippendorff_alpha"),
                                              ("conger", "conger_kappa")])
def test_gwet_raw_4raters_read_wide_matches_irrcac(tmp_path, method, name):
    """Gwet's (2014) 12 units x 4 raters with missing ratings, in irrCAC's layout ('Units' + a column per
    rater, empty cells missing): read from the file it equals the in-memory table and irrCAC's figure."""
    rows = IRRCAC["datasets"]["raw_4raters"]
    path = _write_wide(tmp_path / "raw_4raters.csv", rows, ["Rater1", "Rater2", "Rater3", "Rater4"], "Units")
    ann = sis.read_annotations(path, wide=True, item="Units")
    mem = sis.Annotations.from_wide(rows)
    assert ann.raters == ("Rater1", "Rater2", "Rater3", "Rater4")
    assert ann.items == tuple(f"u{i}" for i in range(1, 13))
    assert ann.kind == "numeric" and ann.n_ratings == mem.n_ratings == sum(v is not None for r in rows for v in r)
    np.testing.assert_array_equal(ann.codes, mem.codes)
    value = getattr(sis, name)(ann).value
    assert value == pytest.approx(getattr(sis, name)(mem).value, abs=1e-15)
    assert round(value, 3) == pytest.approx(_irrcac_value(method), abs=1e-12)


def test_diagnoses_without_item_column_numbers_the_rows(tmp_path):
    """R irr's ``diagnoses`` (Fleiss 1971) as irr keeps it: six rater columns, no item column."""
    rows = PEER["data"]["diagnoses"]
    path = _write_wide(tmp_path / "diagnoses.csv", rows, [f"rater{j}" for j in range(1, 7)])
    ann = sis.read_annotations(path, wide=True, item="")
    assert ann.items == tuple(str(i) for i in range(1, 31)) and ann.n_raters == 6
    expected = sis.fleiss_kappa(sis.Annotations.from_wide(rows)).value
    assert sis.fleiss_kappa(ann).value == pytest.approx(expected, abs=1e-15)
    assert sis.fleiss_kappa(ann).value == pytest.approx(0.4302445, abs=1e-7)  # kappam.fleiss(diagnoses): 0.43
    assert "items are the rows, numbered from 1" in ann.read_notes[0]
    assert "'rater1'" in ann.read_notes[0] and "every column is read as a rater" in ann.read_notes[0]


@pytest.mark.parametrize("fmt", ["tsv", "jsonl", "parquet"])
def test_wide_in_every_table_format(tmp_path, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    df = pd.DataFrame({"doc": ["a", "b", "c"], "x": ["pos", "neg", None], "y": ["pos", "pos", "neg"]})
    path = tmp_path / f"t.{fmt}"
    if fmt == "tsv":
        df.to_csv(path, sep="\t", index=False)
    elif fmt == "jsonl":
        df.to_json(path, orient="records", lines=True)
    else:
        df.to_parquet(path)
    ann = sis.read_annotations(path, wide=True, item="doc")
    assert ann.raters == ("x", "y") and ann.items == ("a", "b", "c") and ann.n_ratings == 5
    assert ann.vocabulary == ("neg", "pos")


def test_wide_csv_equals_from_wide_on_random_tables(tmp_path):
    """Free-text, numeric and sparse tables: the file read wide equals the same table in memory."""
    rng = np.random.default_rng(7)
    for case in range(6):
        n, r = rng.integers(2, 40), rng.integers(2, 7)
        pool = (["fatigue", "asthenia", "fever", "café", "a,b", 'say "x"'] if case % 2
                else [str(v) for v in range(5)])
        cells = rng.choice(np.asarray(pool, dtype=object), size=(n, r))
        cells[rng.random((n, r)) < 0.2] = None
        frame = pd.DataFrame(cells, columns=[f"r{j}" for j in range(r)], index=[f"i{i}" for i in range(n)])
        path = tmp_path / f"w{case}.csv"
        frame.rename_axis("item").reset_index().to_csv(path, index=False)
        got = sis.read_annotations(path, wide=True)
        mem = sis.Annotations.from_wide(frame if case % 2 else frame.map(lambda v: None if pd.isna(v) else int(v)))
        assert got.items == mem.items and got.raters == mem.raters and got.vocabulary == mem.vocabulary
        np.testing.assert_array_equal(got.codes, mem.codes)


def test_wide_errors_name_the_problem(tmp_path):
    wide = _write_wide(tmp_path / "w.csv", [[1, 2], [2, 2]], ["a", "b"], "doc")
    with pytest.raises(ValueError, match=r"item column 'item' not found; the columns are \['doc', 'a', 'b'\].*"
                                         r"item='' to number the rows"):
        sis.read_annotations(wide, wide=True)
    with pytest.raises(TypeError, match="rater= and label= name the columns of a long table"):
        sis.read_annotations(wide, wide=True, item="doc", rater="a")
    with pytest.raises(ValueError, match="one table"):
        sis.read_annotations([wide, wide], wide=True)
    with pytest.raises(TypeError, match=r"wide must be True, False or a list of the rater columns' names .*"
                                        r"--reader-option 'wide=\[r1, r2\]'"):
        sis.read_annotations(wide, wide="yes")
    long = tmp_path / "long.csv"
    long.write_text("item,rater,label\n1,a,x\n1,b,y\n2,a,x\n")
    with pytest.raises(ValueError, match=r"item '1' has 2 rows \(lines \[2, 3\].*leave out wide=True"):
        sis.read_annotations(long, wide=True)
    holes = tmp_path / "holes.csv"
    holes.write_text("doc,a,b\nd1,1,2\n,2,2\n")
    with pytest.raises(ValueError, match=r"item column 'doc' has empty cells \(lines \[3\]\)"):
        sis.read_annotations(holes, wide=True, item="doc")
    only = tmp_path / "only.csv"
    only.write_text("doc\nd1\n")
    with pytest.raises(ValueError, match="no rater column besides 'doc'"):
        sis.read_annotations(only, wide=True, item="doc")
    with pytest.raises(sis.data.OptionError if hasattr(sis.data, "OptionError") else ValueError,
                       match="apply only to export formats"):
        sis.read_annotations(wide, wide=True, item="doc", field="x")


def test_rows_that_are_wholly_empty_are_named_as_such(tmp_path):
    """Excel saves rows below a table as delimiters only (',,,,,'): they were refused as 'item column has empty cells
    (lines [14, 15])', as if ids were missing; they are named as empty rows to delete (and never dropped silently)."""
    excel = tmp_path / "excel.csv"
    excel.write_text("doc,ann_a,ann_b,,\r\nn01,x,y,,\r\nn02,x,x,,\r\n,,,,\r\n,,,,\r\n")
    with pytest.raises(ValueError, match=r"excel.csv: wide table: lines 4 and 5 are empty \(no item id, no rating\): "
                                         r"delete them"):
        sis.read_annotations(excel, wide=True, item="doc")
    long = tmp_path / "long.csv"
    long.write_text("item,rater,label\n1,a,x\n1,b,x\n,,\n")
    with pytest.raises(ValueError, match=r"item column 'item' has missing values in 1 row\(s\) \(line 4 of the "
                                         r"file\): the row is empty \(no item, rater or label\): delete it"):
        sis.read_annotations(long)


def test_long_read_of_a_wide_table_suggests_wide(tmp_path):
    wide = _write_wide(tmp_path / "w.csv", [[1, 2], [2, 2]], ["a", "b"], "item")
    with pytest.raises(ValueError, match=r"rater column 'rater', label column 'label' not found.*"
                                         r"a wide table \(one row per item, one column per rater\)\? pass wide=True"):
        sis.read_annotations(wide)


@pytest.mark.parametrize(("sep", "shown", "given"), [(";", "';'", "';'"), ("|", "'|'", "'|'"), ("\t", "tab", "'tab'")])
def test_long_read_with_another_delimiter_names_it(tmp_path, sep, shown, given):
    path = tmp_path / "x.csv"
    path.write_text("\n".join(sep.join(row) for row in (["item", "rater", "label"], ["1", "a", "x"], ["1", "b", "x"]))
                    + "\n")
    with pytest.raises(ValueError, match=rf"the header is one column that holds {shown} .*; pass sep={given}"):
        sis.read_annotations(path)
    ann = sis.read_annotations(path, sep=given.strip("'"))
    assert ann.items == ("1",) and ann.raters == ("a", "b") and ann.vocabulary == ("x",)


SEMI = 'item;rater;label\n1;a;"x;y"\n1;b;"x;y"\n2;a;1,5\n2;b;2\n3;a;z\n3;b;\n'


@pytest.mark.parametrize("arrow", [True, False])
def test_semicolon_csv_reads_as_the_comma_file(tmp_path, monkeypatch, arrow):
    """A ';' file as spreadsheets write it with a decimal comma: quoted fields may hold ';', and '1,5'
    is a text label there (no number rule guesses locales); both reading routes agree."""
    from softirr_stats.data import _columnar

    if not arrow:
        monkeypatch.setattr(_columnar, "have_arrow", lambda: False)
    semi = tmp_path / "s.csv"
    semi.write_text(SEMI)
    comma = tmp_path / "c.csv"
    comma.write_text(SEMI.replace(";", ",").replace('"x,y"', '"x;y"').replace("1,5", '"1,5"'))
    got, want = sis.read_annotations(semi, sep=";"), sis.read_annotations(comma)
    assert got.vocabulary == want.vocabulary == ("1,5", "2", "x;y", "z")
    np.testing.assert_array_equal(got.codes, want.codes)
    assert got.items == want.items and got.raters == want.raters


def test_sep_is_checked(tmp_path):
    path = tmp_path / "s.csv"
    path.write_text(SEMI)
    for bad in (";;", "a", '"', "\n"):
        with pytest.raises(ValueError, match="sep must be one character that is not a letter"):
            sis.read_annotations(path, sep=bad)
    with pytest.raises(TypeError, match="sep must be a one-character string"):
        sis.read_annotations(path, sep=5)
    js = tmp_path / "t.jsonl"
    js.write_text('{"item": 1, "rater": "a", "label": "x"}\n')
    with pytest.raises(ValueError, match="sep= is the delimiter of a CSV / TSV table; this file is read as 'jsonl'"):
        sis.read_annotations(js, sep=";")


def _label_warnings(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    return out, [str(w.message) for w in caught if issubclass(w.category, LabelWarning)]


def test_missing_markers_are_labels_and_named(tmp_path):
    path = tmp_path / "na.csv"
    path.write_text("item,rater,label\n1,a,NA\n1,b,NA\n2,a,yes\n2,b,null\n3,a,no\n3,b,no\n")
    ann, said = _label_warnings(lambda: sis.read_annotations(path))
    assert ann.vocabulary == ("NA", "no", "null", "yes") and ann.n_ratings == 6  # kept, as documented
    (msg,) = said
    assert "2 label(s)" in msg and "('NA', 'null')" in msg and "both 'NA' agree" in msg
    assert "na_values=['NA', 'null']" in msg and "--na-values NA,null" in msg
    assert "all numbers" not in msg
    ann, said = _label_warnings(lambda: sis.read_annotations(path, na_values=["NA", "null"]))
    assert ann.n_ratings == 3 and said == []


def test_missing_marker_among_numbers_says_they_became_categories():
    ann, said = _label_warnings(lambda: sis.Annotations.from_wide([["3", "NA"], ["2", "2"], ["1", "2"]]))
    assert ann.kind == "categorical"
    (msg,) = said
    assert "the other labels, all numbers, are read as categories" in msg


def test_ordinary_labels_do_not_warn():
    for labels in (["yes", "no"], ["na", "None of these", "n.a."], ["NAT", "null hypothesis"]):
        _, said = _label_warnings(lambda labels=labels: sis.Annotations.from_wide([labels, labels[::-1]]))
        assert said == [], labels


def test_blank_labels_are_named():
    """'' from pd.read_csv(keep_default_na=False) counted as an agreeing label with no word (irrCAC drops it):
    Fleiss 0.0878 on the auditor's file where the blanks as missing give 0.5."""
    df = pd.DataFrame({"a": ["yes", "", "no", "yes"], "b": ["yes", "", "no", "no"], "c": ["yes", " ", "no", "yes"]})
    with pytest.warns(LabelWarning, match=r"2 label\(s\) are empty or only white space \('', ' '\).*two blank "
                                          r"ratings agree"):
        sis.fleiss_kappa(df)
    with warnings.catch_warnings(record=True) as caught:  # the advice given: blanks missing, no LabelWarning
        warnings.simplefilter("always")
        sis.fleiss_kappa(df.replace(r"^\s*$", None, regex=True))
    # item 1 is left with no rating: said so, not "still counts where chance uses single ratings"
    assert [str(w.message) for w in caught] == ["1 of 4 items have no rating and count nowhere (first: [1])"]


def test_marker_set_is_pandas_default_less_the_empty_cell():
    from pandas._libs.parsers import STR_NA_VALUES

    assert MISSING_MARKERS == set(STR_NA_VALUES) - {""}


@pytest.mark.parametrize("suffix", [".ods", ".xls", ".xlsb", ".numbers"])
def test_a_workbook_not_read_is_named_with_the_way_to_read_it(tmp_path, suffix):
    import zipfile

    path = tmp_path / f"ratings{suffix}"
    with zipfile.ZipFile(path, "w") as zf:  # a workbook is a zip of XML parts
        zf.writestr("[Content_Types].xml", "<Types/>")
    with pytest.raises(ValueError, match=rf"a spreadsheet workbook \({suffix}\) is not read; save it as an Excel "
                                         r"workbook \(.xlsx, read directly\) or the sheet as CSV.*pandas.read_excel.*"
                                         r"Annotations.from_wide"):
        sis.read_annotations(path)


@pytest.mark.parametrize(("name", "what", "how"), [
    ("ratings.sav", r"an SPSS data file \(\.sav\)", "pandas.read_spss"),
    ("ratings.dta", r"a Stata data file \(\.dta\)", "pandas.read_stata"),
    ("ratings.RData", r"an R workspace \(\.RData\)", r"write.csv\(ratings, 'ratings.csv', row.names = FALSE\)"),
    ("ratings.rds", r"an R data file \(\.rds\)", "pyreadr"),
    ("ratings.sas7bdat", r"a SAS data set \(\.sas7bdat\)", "pandas.read_sas"),
])
@pytest.mark.parametrize("wide", [False, True])
def test_a_statistics_package_file_is_named_with_the_way_to_read_it(tmp_path, name, what, how, wide):
    path = tmp_path / name
    path.write_bytes(b"$FL2@(#) SPSS DATA FILE\x00\x01\x02")
    with pytest.raises(ValueError, match=rf"{what} is not read; save the table as CSV \(UTF-8\).*{how}.*"
                                         r"Annotations.from_wide"):
        sis.read_annotations(path, **(dict(wide=True, item="") if wide else {}))


#: a study table as researchers keep it (the shape of a published one: French text in cp1252, ';'-separated,
#: three raters' 0/1 votes among names, descriptions, dates and counts)
STUDY = [
    ["channel_name", "channel_description", "Keep ? 1= Yes, 0=No (Ana)", "Keep ? 1= Yes, 0=No (Bo)",
     "Keep ? 1= Yes, 0=No (Cy)", "channel_creation", "channel_subscribers", "channel_id", "keep_score"],
    ["Café Science", '"Vidéos; ""humour"" et sérieux"', "1", "1", "0", "2014-05-26T09:55:47.000Z", "67900", "UC1", "2"],
    ["Théâtre", "Des choses à voir", "0", "0", "0", "2015-05-07T20:46:58.000Z", "170", "UC2", "0"],
    ["Écrivain", "Je critique", "1", "1", "1", "2015-03-31T16:58:50.000Z", "69900", "UC3", "3"],
    ["noël", "", "0", "1", "", "2016-01-01T00:00:00.000Z", "12", "UC4", "1"],
]
VOTES = [c for c in STUDY[0] if c.startswith("Keep")]


def _study_file(tmp_path):
    path = tmp_path / "channels.csv"
    path.write_bytes(("\n".join(";".join(row) for row in STUDY) + "\n").encode("cp1252"))
    return path


def test_wide_list_names_the_rater_columns_and_leaves_the_others_out(tmp_path):
    path = _study_file(tmp_path)
    ann = sis.read_annotations(path, wide=VOTES, item="channel_id", sep=";", encoding="cp1252")
    mem = sis.Annotations.from_wide([[1, 1, 0], [0, 0, 0], [1, 1, 1], [0, 1, None]])
    assert ann.raters == tuple(VOTES) and ann.items == ("UC1", "UC2", "UC3", "UC4") and ann.kind == "numeric"
    np.testing.assert_array_equal(ann.codes, mem.codes)
    assert sis.fleiss_kappa(ann).value == pytest.approx(sis.fleiss_kappa(mem).value, abs=1e-15)
    (note,) = ann.read_notes
    assert "3 rater column(s) named by wide=: 'Keep ? 1= Yes, 0=No (Ana)'" in note
    assert "5 other column(s) left out: 'channel_name', 'channel_description', 'channel_creation'" in note
    # the order of the list is the raters' order; item='' numbers the rows
    ann = sis.read_annotations(path, wide=VOTES[::-1], item="", sep=";", encoding="cp1252")
    assert ann.raters == tuple(VOTES[::-1]) and ann.items == ("1", "2", "3", "4")
    assert "6 other column(s) left out" in ann.read_notes[0]


def test_every_column_as_raters_warns_when_they_mix_numbers_and_text(tmp_path):
    path = _study_file(tmp_path)
    with pytest.warns(LabelWarning, match=r"of the 8 columns read as raters, 5 hold numbers \('Keep \? 1= Yes, "
                                          r"0=No \(Ana\)'.*and 3 hold text \('channel_name', 'channel_description', "
                                          r"'channel_creation'\).*name the rater columns with wide=\[\.\.\.\]"):
        ann = sis.read_annotations(path, wide=True, item="channel_id", sep=";", encoding="cp1252")
    assert ann.n_raters == 8 and "name the rater columns with wide=[...]" in ann.read_notes[0]


@pytest.mark.parametrize("cells", [[["a", "b"], ["b", "b"]], [["1", "2"], ["2", "3"]], [["1", "x"], ["y", "2"]],
                                   [["1,5", "2"], ["2", "3,5"]]])
def test_rater_columns_of_one_kind_do_not_warn(tmp_path, cells):
    """Text raters, number raters, and raters who each mix numbers with text (one column, both kinds) are
    read silently; a decimal comma is a number with decimal=','."""
    path = _write_wide(tmp_path / "w.tsv", cells, ["a", "b"], "doc", sep="\t")
    with warnings.catch_warnings():
        warnings.simplefilter("error", LabelWarning)
        sis.read_annotations(path, wide=True, item="doc", decimal=",")


def test_wide_list_errors(tmp_path):
    path = _study_file(tmp_path)
    opts = dict(item="channel_id", sep=";", encoding="cp1252")
    with pytest.raises(ValueError, match=r"rater column\(s\) \['Keep \(Ana\)'\] not found; the columns are "
                                         r"\['channel_name'"):
        sis.read_annotations(path, wide=["Keep (Ana)", VOTES[1]], **opts)
    with pytest.raises(ValueError, match=r"'channel_id' is the item column \(item=\) and cannot also be a rater"):
        sis.read_annotations(path, wide=[*VOTES, "channel_id"], **opts)
    with pytest.raises(ValueError, match=r"\['Keep \? 1= Yes, 0=No \(Bo\)'\] appear more than once"):
        sis.read_annotations(path, wide=[VOTES[1], VOTES[1]], **opts)
    for bad in ([], [1, 2], "Keep"):
        with pytest.raises(TypeError, match="wide must be True, False or a list"):
            sis.read_annotations(path, wide=bad, **opts)


def test_a_wide_row_with_fewer_fields_than_the_header_is_refused(tmp_path):
    """'2,y,y' under 'item,r1,r2,r3' read as r3 missing for item 2 without a word."""
    path = tmp_path / "w.csv"
    path.write_text("item,r1,r2,r3\n1,x,x,x\n2,y,y\n3,x,,\n")
    with pytest.raises(ValueError, match=r"/w.csv: line 3 has 3 fields where the header has 4 \(\['item', 'r1', 'r2', "
                                         r"'r3'\]; 1 short row in all\)"):
        sis.read_annotations(path, wide=True)
    path.write_text("item,r1,r2,r3\n1,x,x,x\n2,y,y,\n3,x,,\n")  # empty fields written: missing ratings
    assert sis.read_annotations(path, wide=True).n_ratings == 6


@pytest.mark.parametrize("wide", [False, True])
def test_a_file_that_does_not_parse_names_the_delimiter_it_splits_on(tmp_path, wide):
    """Commas inside a ';' file's header ('Keep ? 1= Yes, 0=No') make a few columns, and the rows then
    have more fields: the error names sep=';' (read as UTF-8, and as cp1252 through the pandas route)."""
    path = _study_file(tmp_path)
    opts = dict(wide=True, item="channel_id") if wide else {}
    with pytest.raises(ValueError, match=r"(not found|cannot be parsed|line 2 has 1 field where the header has 4).*; "
                                         r"a ';'-separated file\? pass sep=';'$"):
        sis.read_annotations(path, encoding="cp1252", **opts)
    utf8 = tmp_path / "utf8.csv"
    utf8.write_text(path.read_text(encoding="cp1252"), encoding="utf-8")
    with pytest.raises(ValueError, match=r"; a ';'-separated file\? pass sep=';'$"):
        sis.read_annotations(utf8, **opts)
    tabs = tmp_path / "t.csv"
    tabs.write_text("doc\tKeep, Ana\tKeep, Bo\nd1\t1\t0\nd2\ta, b, c\t1\n")
    with pytest.raises(ValueError, match=r"a tab-separated file\? pass sep='tab'$"):
        sis.read_annotations(tabs, **opts)


def test_r_write_csv_row_names_are_the_items_with_item_empty(tmp_path):
    """R's write.csv(diagnoses) writes the row names under an empty header cell ("","rater1",...): item=''
    reads them as the items (not as a seventh rater), and the value is irr's."""
    rows = PEER["data"]["diagnoses"]
    path = tmp_path / "diagnoses.csv"
    header = '"",' + ",".join(f'"rater{j}"' for j in range(1, 7))
    path.write_text("\n".join([header, *(f'"{i}",' + ",".join(map(str, r)) for i, r in enumerate(rows, 1))]) + "\n")
    ann = sis.read_annotations(path, wide=True, item="")
    assert ann.n_raters == 6 and ann.items == tuple(str(i) for i in range(1, 31))
    assert sis.fleiss_kappa(ann).value == pytest.approx(0.4302445, abs=1e-7)
    assert "items from the first column, which has no header (row names, as R's write.csv" in ann.read_notes[0]
    with pytest.raises(ValueError, match=r"item column 'item' not found.*the first column has no header \(row names, "
                                         r"as R's write.csv and pandas' to_csv write them\): pass item='' to read it"):
        sis.read_annotations(path, wide=True)
    frame = pd.DataFrame(rows, columns=[f"r{j}" for j in range(6)])
    frame.to_csv(path)  # pandas' default keeps the index, under an empty header cell
    ann = sis.read_annotations(path, wide=True, item="")
    assert ann.n_raters == 6 and ann.items == tuple(str(i) for i in range(30))


def test_header_less_columns_are_left_out_when_empty_and_refused_when_they_hold_values(tmp_path):
    trailing = tmp_path / "t.csv"
    trailing.write_text("doc,a,b,\nd1,1,2,\nd2,2,2,\n")
    ann = sis.read_annotations(trailing, wide=True, item="doc")
    assert ann.raters == ("a", "b") and "1 empty column(s) with no header left out" in ann.read_notes[0]
    middle = tmp_path / "m.csv"
    middle.write_text("doc,a,,b\nd1,1,3,2\nd2,2,3,2\n")
    with pytest.raises(ValueError, match=r"column\(s\) \[3\] have no header but hold values.*wide=\[\.\.\.\] "
                                         r"\(pandas names them \['Unnamed: 2'\]\)"):
        sis.read_annotations(middle, wide=True, item="doc")
    assert sis.read_annotations(middle, wide=["a", "Unnamed: 2", "b"], item="doc").n_raters == 3


def test_parquet_item_column_kept_as_pandas_index_is_a_column(tmp_path):
    pytest.importorskip("pyarrow")
    df = pd.DataFrame({"a": ["x", "y", "x"], "b": ["x", "y", "y"]}, index=pd.Index(["d1", "d2", "d3"], name="doc"))
    path = tmp_path / "w.parquet"
    df.to_parquet(path)
    ann = sis.read_annotations(path, wide=True, item="doc")
    assert ann.items == ("d1", "d2", "d3") and ann.raters == ("a", "b")
    assert sis.data.read_table(path).columns.tolist() == ["doc", "a", "b"]


def test_a_json_array_of_records_is_a_table(tmp_path):
    """pandas' to_json(orient='records') (one JSON array) reads as the same table in JSON Lines does."""
    from softirr_stats.data import guess_format

    df = pd.DataFrame({"item": [1, 1, 2, 2, 3], "rater": ["a", "b", "a", "b", "a"], "label": [3, 3, 1, 2, None]})
    array, lines = tmp_path / "t.json", tmp_path / "t.jsonl"
    df.to_json(array, orient="records")
    df.to_json(lines, orient="records", lines=True)
    assert array.read_text().startswith("[{") and guess_format(array) == "jsonl"
    got, want = sis.read_annotations(array), sis.read_annotations(lines)
    assert got.items == want.items and got.raters == want.raters and got.vocabulary == want.vocabulary == (1, 2, 3)
    np.testing.assert_array_equal(got.codes, want.codes)
    wide = tmp_path / "w.json"
    pd.DataFrame({"doc": ["d1", "d2"], "a": ["x", "y"], "b": ["x", "x"]}).to_json(wide, orient="records")
    assert sis.read_annotations(wide, wide=True, item="doc").raters == ("a", "b")
    dup = tmp_path / "dup.json"
    pd.DataFrame({"doc": ["d1", "d1"], "a": ["x", "y"], "b": ["x", "x"]}).to_json(dup, orient="records")
    with pytest.raises(ValueError, match=r"item 'd1' has 2 rows \(records \[1, 2\]"):
        sis.read_annotations(dup, wide=True, item="doc")
    bad = tmp_path / "bad.json"
    bad.write_text('[{"item": 1, "rater": "a", "label": "x"}, 2]')
    with pytest.raises(ValueError, match=r"bad.json, record 2: each record must be a JSON object; got int"):
        sis.read_annotations(bad)


def test_decimal_comma_rater_columns_count_as_numbers_next_to_a_text_column(tmp_path):
    path = _write_wide(tmp_path / "w.csv", [["3,5", "4", "ok"], ["2,25", "2,25", "recheck"]], ["a", "b", "notes"],
                       "doc", sep=";")
    with pytest.warns(LabelWarning, match=r"2 hold numbers \('a', 'b'\) and 1 holds text \('notes'\)"):
        sis.read_annotations(path, wide=True, item="doc", sep=";")
