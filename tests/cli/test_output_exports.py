"""The exports users paste into papers or keep beside them: markdown / latex tables (test columns, escaped
captions, each note once), csv notes, the JSON's meta (inputs, version, command), the report's provenance."""

import csv
import hashlib
import io
import json
import re

import numpy as np
import pytest
from scipy import stats

import softirr_stats as sis
from softirr_stats.base._csvsafe import escape_cell
from softirr_stats.base._provenance import package_version
from softirr_stats.cli._output import Notes, render
from softirr_stats.data import demo_path


def _md_rows(text):
    return [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines() if line.startswith("|")]


@pytest.mark.parametrize("alternative, head", [("two-sided", "p"), ("greater", "p (greater)")])
def test_paper_tables_carry_the_tests_columns(tmp_path, alternative, head, run_cli, write_ratings):
    # -f markdown|latex dropped z, p and the benchmark; only a note about a "p" column was left
    path = write_ratings(tmp_path / "cat.csv")
    args = ["agree", path, "-c", "fleiss_kappa,gwet_ac1", "--bootstrap", "0", "--test", "--alternative", alternative]
    code, out, err = run_cli(*args, "-f", "json")
    assert code == 0, err
    rows = json.loads(out)["results"]
    key = {"p": "p_value", "p (greater)": "p_value_greater"}[head]
    code, md, err = run_cli(*args, "-f", "markdown")
    assert code == 0, err
    header, _, *body = _md_rows(md)
    assert header[header.index("Value") + 1:header.index("Items")] == ["z", head, "Benchmark"]
    for row, cells in zip(rows, body, strict=True):
        assert float(cells[header.index("z")]) == round(row["z"], 3)
        assert float(cells[header.index(head)]) == pytest.approx(row[key], abs=5e-4)
        assert cells[header.index("Benchmark")] == row["benchmark"]
    assert f"- {head}: permutation test of H0" in md  # the note names a column that is there
    code, tex, err = run_cli(*args, "-f", "latex")
    assert code == 0, err
    assert f"Value & z & {head} & Benchmark & Items" in tex


def test_markdown_captions_are_escaped(tmp_path, run_cli, write_ratings):
    path = write_ratings(tmp_path / "<img src=x onerror=alert(1)>_*x*_50%.csv")
    code, out, err = run_cli("agree", path, "-c", "fleiss_kappa", "--bootstrap", "0", "-f", "markdown")
    assert code == 0, err
    assert "<img" not in out and "&lt;img src=x onerror=alert(1)&gt;\\_\\*x\\*\\_50%.csv: 30 items" in out
    hostile = write_ratings(tmp_path / "h.csv", raters=("rater_1", "<b>bold</b>"))
    code, out, err = run_cli("compare", hostile, "--reference", "<b>bold</b>", "--bootstrap", "0",
                             "-f", "markdown")
    assert code == 0, err
    assert "<b>" not in out and "with &lt;b&gt;bold&lt;/b&gt;" in out


def test_each_warning_is_printed_once_and_the_caption_says_the_interval_once(tmp_path, run_cli, write_ratings):
    path = write_ratings(tmp_path / "cat.csv")
    few = "only 5 bootstrap replicates lie beyond each bound"
    for fmt in ("markdown", "latex"):
        code, out, err = run_cli("agree", path, "-c", "fleiss_kappa,gwet_ac1", "--bootstrap", "200",
                                 "-f", fmt)
        assert code == 0, err
        assert out.count(few) == 1 and out.count("q = 3 categories taken from the observed labels") == 1, out
        assert "bca-t intervals, B = 200" in out and "Intervals:" not in out  # the title already says it
        assert "Also noted" not in out and "% note:" not in out  # no note of the run's own: every one is a row's
    code, out, err = run_cli("agree", path, "-c", "fleiss_kappa,gwet_ac1", "--bootstrap", "200",
                             "-f", "markdown")
    assert re.search(r"\| gwet_ac1 \|.*\| 1, 2 \|$", out, flags=re.M), out  # the numbers in increasing order


def test_render_compares_notes_as_raw_texts():
    # a caught warning ("FewUnitsWarning: x") and a row's "x", and a text escaped for markdown ("[...]"), came
    # back under "Also noted"
    rows = [{"coefficient": "fleiss_kappa", "value": 0.5, "warnings": ["widened [a]", "q = 3 (categories=[...])"]}]
    notes = Notes(["FewUnitsWarning: widened [a]", "q = 3 (categories=[...])", "read as a wide table"])
    for fmt, mark in (("markdown", "- "), ("latex", "% note: ")):
        out = render(rows, ["coefficient", "value"], fmt, "t", notes=notes)
        assert out.count("widened") == 1 and out.count("q = 3") == 1, out
        assert f"{mark}read as a wide table" in out


def test_chance_auto_is_a_note_in_one_wording_that_csv_leaves_alone(run_cli):
    code, out, err = run_cli("agree", demo_path(), "-c", "fleiss_kappa", "-m", "exact,indel",
                             "--chance", "auto", "--bootstrap", "0", "-f", "csv")
    assert code == 0, err
    said = [ln for ln in err.splitlines() if "--chance auto" in ln]
    assert said == ["note: chance term chosen by --chance auto: exact over 226 labels (25425 label pairs, "
                    "vectorised or already known)"], err
    cells = [r["warnings"] for r in csv.DictReader(io.StringIO(out))]
    assert len(cells) == 2 and all(c.startswith("chance term chosen by --chance auto: exact") for c in cells), out
    code, out, err = run_cli("agree", demo_path(), "-c", "fleiss_kappa", "-m", "exact,indel",
                             "--chance", "auto", "--bootstrap", "0", "-f", "json")
    chosen = {w for r in json.loads(out)["results"] for w in r["warnings"] if "--chance auto" in w}
    assert len(chosen) == 1, chosen
    assert escape_cell("--chance auto chose") == "'--chance auto chose"  # user text starting with "-" stays guarded


def test_json_meta_traces_the_result_to_its_inputs(tmp_path, run_cli, write_ratings):
    a, b = write_ratings(tmp_path / "a.csv", raters=("r1", "r2")), write_ratings(tmp_path / "b.csv", seed=2, raters=("r3",))
    code, out, err = run_cli("agree", a, b, "-c", "fleiss_kappa,gwet_ac1", "-m", "exact",
                             "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    meta = doc["meta"]
    assert meta["softirr_stats_version"] == package_version()
    assert meta["inputs"] == [{"path": str(p), "sha256": hashlib.sha256(p.read_bytes()).hexdigest()} for p in (a, b)]
    assert meta["command"].startswith("softirr agree ") and str(b) in meta["command"]
    assert meta["coefficients"] == ["fleiss_kappa", "gwet_ac1"] and meta["similarities"] == ["exact"]
    ann = sis.read_annotations([a, b])
    for row in doc["results"]:
        assert isinstance(row["warnings"], list)
        want = getattr(sis, row["coefficient"])(ann)
        assert row["value"] == pytest.approx(want.value, abs=1e-12)
    gwet = next(r for r in doc["results"] if r["coefficient"] == "gwet_ac1")
    # a warning holding "; " stays whole: the list is what AgreementResult.to_json() gives
    assert any(w.startswith("q = 3 categories") and "; declaring" in w for w in gwet["warnings"]), gwet
    code, out, err = run_cli("sensitivity", a, b, "-c", "fleiss_kappa", "--bootstrap", "0", "-f", "json")
    assert code == 0, err
    assert [x["path"] for x in json.loads(out)["meta"]["inputs"]] == [str(a), str(b)]


def test_report_lists_every_input_file(tmp_path, run_cli, write_ratings):
    a, b = write_ratings(tmp_path / "a.csv", raters=("r1", "r2")), write_ratings(tmp_path / "b.csv", seed=2, raters=("r3",))
    page_path = tmp_path / "r.html"
    code, _, err = run_cli("report", a, b, "-c", "fleiss_kappa", "--bootstrap", "0", "-o", page_path)
    assert code == 0, err
    page = page_path.read_text()
    for p in (a, b):
        assert hashlib.sha256(p.read_bytes()).hexdigest() in page and f"<code>{p.name}</code>" in page
    assert "<h1>Agreement report: a.csv and 1 more</h1>" in page


# ------------------------------------------------------------------ p-values too small for four decimals
def _agreeing(path, n, agree, seed=0):
    """``n`` items, three raters who give the item's label with probability ``agree`` (else one at random)."""
    rng = np.random.default_rng(seed)
    lines = ["item,rater,label"]
    for i in range(n):
        truth = "abc"[rng.integers(3)]
        lines += [f"i{i},{r},{truth if rng.random() < agree else 'abc'[rng.integers(3)]}" for r in ("r1", "r2", "r3")]
    path.write_text("\n".join(lines) + "\n")
    return path


def _terminal_cell(table, row_start, head):
    """The cell under ``head`` in the terminal table's row whose first cell is ``row_start``."""
    header = next(ln for ln in table.splitlines() if ln.startswith("┃"))
    heads = [c.strip() for c in header.strip("┃").split("┃")]
    rows = [[c.strip() for c in ln.strip("│").split("│")] for ln in table.splitlines() if ln.startswith("│")]
    return next(r for r in rows if r[0] == row_start)[heads.index(head)]


@pytest.mark.parametrize("n_items", [200, 600])
def test_a_tiny_p_prints_in_scientific_form_never_as_zero(tmp_path, monkeypatch, n_items, run_cli):
    """`agree --test` printed p = 2.2e-222 as 0.0000 (read: p is zero). 200 items of near-perfect agreement give
    z = 31.8, p = 2.2e-222; 600 give a z whose p underflows to 0.0 and prints as <1e-300."""
    monkeypatch.setenv("COLUMNS", "200")
    path = _agreeing(tmp_path / "study.csv", n_items, 0.97)
    py = sis.kappa_test(sis.read_annotations(path), coefficient="fleiss_kappa")
    # independently: the two-sided normal tail of z, and its log where it underflows
    assert py.p_value == pytest.approx(2 * stats.norm.sf(abs(py.z)), rel=1e-12, abs=0.0)
    log10_p = (np.log(2) + stats.norm.logsf(abs(py.z))) / np.log(10)
    if n_items == 200:
        assert 1e-300 < py.p_value < 1e-4
        shown = f"{py.p_value:.2g}"
        assert shown == "2.2e-222" and float(shown) == pytest.approx(py.p_value, rel=0.05)
    else:
        assert py.p_value == 0.0 and log10_p < -300
        shown = "<1e-300"
    args = ["agree", path, "-c", "fleiss_kappa", "--bootstrap", "0", "--test", "--test-method", "analytic"]
    code, out, err = run_cli(*args, "-f", "json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["p_value"] == pytest.approx(py.p_value, rel=1e-12, abs=0.0)
    code, table, err = run_cli(*args)
    assert code == 0, err
    assert _terminal_cell(table, "exact", "p") == shown and "0.0000 │" not in table, table
    code, md, err = run_cli(*args, "-f", "markdown")
    header, _, row = _md_rows(md)
    assert row[header.index("p")] == shown.replace("<", "&lt;"), md
    code, tex, err = run_cli(*args, "-f", "latex")
    tex_p = shown.replace("<", "\\textless{}")
    assert f"& {tex_p} & almost perfect" in tex, tex
    code, out, err = run_cli(*args, "-f", "csv")  # data stay unrounded
    assert float(next(csv.DictReader(io.StringIO(out)))["p_value"]) == py.p_value
    assert f'<td style="text-align:right">{shown.replace("<", "&lt;")}</td>' in py._repr_html_()
    assert f"| {shown.replace('<', '&lt;')} |" in py.to_markdown()


def test_compare_prints_a_tiny_p_in_scientific_form(tmp_path, monkeypatch, run_cli):
    monkeypatch.setenv("COLUMNS", "200")
    a, b = _agreeing(tmp_path / "a.csv", 600, 0.97, seed=1), _agreeing(tmp_path / "b.csv", 600, 0.0, seed=2)
    py = sis.compare(sis.fleiss_kappa(sis.read_annotations(a), ci="analytic"),
                     sis.fleiss_kappa(sis.read_annotations(b), ci="analytic"), ci="analytic")
    # independently: the two-sided Student t p of difference / se, n - 1 df (as Gwet's pairedCAC)
    assert py.details["test"] == "Student t on the delta-method SE (599 df)"
    assert py.p_value == pytest.approx(2 * stats.t.sf(abs(py.difference / py.se), 599), rel=1e-9, abs=0.0)
    assert 1e-300 < py.p_value < 1e-4
    shown = f"{py.p_value:.2g}"
    code, out, err = run_cli("compare", a, b, "-c", "fleiss_kappa", "--analytic", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["results"][0]["p_value"] == pytest.approx(py.p_value, rel=1e-12, abs=0.0)
    code, table, err = run_cli("compare", a, b, "-c", "fleiss_kappa", "--analytic")
    assert code == 0, err
    assert _terminal_cell(table, "a.csv", "p_value") == shown, table
    code, md, err = run_cli("compare", a, b, "-c", "fleiss_kappa", "--analytic", "-f", "markdown")
    header, _, row = _md_rows(md)
    assert row[header.index("p_value")] == shown, md
    assert f"| {shown} |" in py.to_markdown() and f">{shown}</td>" in py._repr_html_()
    assert f"p = {shown}" in str(py) and f"p={shown}" in repr(py)


# ------------------------------------------------------------------ our own notes in csv cells
def test_test_notes_open_with_a_word_so_csv_keeps_them_and_hostile_names_stay_guarded(tmp_path, run_cli, write_ratings):
    """`--test`'s row warnings began "--test:", which the csv guard quoted ("'--test: ..."): our own text, yet a
    formula to a spreadsheet. They open with a word now, as --chance auto's note does; a file name that begins with
    "=" or "-" is still quoted."""
    from softirr_stats.cli._options import CLI_NOTE_PREFIXES, TEST_NOTE

    for own in (*CLI_NOTE_PREFIXES, TEST_NOTE):  # every opening the command line writes itself passes the guard
        assert escape_cell(own + "x") == own + "x", own
    path = write_ratings(tmp_path / "cat.csv")
    code, out, err = run_cli("agree", path, "-c", "fleiss_kappa", "--chance", "mc:20", "--bootstrap", "0",
                             "--test", "-f", "csv")
    assert code == 0, err
    cell = next(csv.DictReader(io.StringIO(out)))["warnings"]
    assert cell == f"{TEST_NOTE}fleiss_kappa is tested with exact chance only; got monte_carlo(D=20)", out
    assert escape_cell(cell) == cell and "'" not in out.split("\n", 1)[1].split(",")[0]
    assert f"warning: {TEST_NOTE}fleiss_kappa is tested with exact chance only" in err
    code, out, err = run_cli("agree", path, "-c", "fleiss_kappa", "--chance", "mc:20", "--bootstrap", "0",
                             "--test", "-f", "json")
    assert json.loads(out)["results"][0]["warnings"] == [cell]  # json: the same text
    a = write_ratings(tmp_path / "=HYPERLINK(1).csv")
    b = write_ratings(tmp_path / "-2+3.csv", seed=2)
    code, out, err = run_cli("compare", a, b, "-c", "fleiss_kappa", "--analytic", "-f", "csv")
    assert code == 0, err
    row = next(csv.reader(io.StringIO(out.splitlines()[1])))
    assert row[:2] == ["'=HYPERLINK(1).csv", "'-2+3.csv"], out


def _library_refusal(call):
    with pytest.raises(ValueError) as err:
        call()
    return str(err.value)


def test_no_reworded_message_opens_with_a_flag_so_csv_cells_keep_them(tmp_path, run_cli, write_ratings):
    """The command-line wording made a library message's subject a flag (``Bootstrap(design='raters')`` ->
    ``--design raters``, the few-units refusal -> ``--cluster site``), and the csv guard quoted the cell
    (``'--cluster site needs ...``): our own text, yet a formula to a spreadsheet. A row's texts open with a word
    now (stderr's own lines keep the flag first: ``error: --emission histogram is ...``)."""
    from softirr_stats.cli._grid import row_wording
    from softirr_stats.cli._options import few_units_wording

    two = [["a", "b"], ["a", "a"], ["b", "b"], ["c", "a"]]
    said = [_library_refusal(lambda: sis.fleiss_kappa(two, ci=sis.Bootstrap(n=20, design="raters"))),
            _library_refusal(lambda: sis.fleiss_kappa(two[:1] * 3, ci=sis.Bootstrap(n=20, cluster=[0, 0, 0],
                                                                                    design="cluster"))),
            _library_refusal(lambda: sis.cohen_kappa(two, weights="linear")),
            "method='auto': BCa with t quantiles, 69 df (items design, 70 <= 1000 items)",
            "design='cluster' needs design_effect=, cluster_size= and icc=, or (with a pilot) cluster="]
    assert said[0].startswith("Bootstrap(design='raters')") and said[1].startswith("Bootstrap(design='cluster')")
    for text in said:
        for worded in (row_wording(text), row_wording(f"error: {text}"), few_units_wording(text, "site", None)):
            assert escape_cell(worded) == worded and escape_cell(worded.removeprefix("error: ")) == worded.removeprefix(
                "error: "), worded
    assert row_wording(said[0]).startswith("the option --design raters resamples raters and needs at least 3; got 2")
    assert row_wording(said[1]).startswith("the option --cluster COLUMN needs at least 2 clusters to resample; got 1")
    assert few_units_wording(said[1], "site", None).startswith(
        "the option --cluster site needs at least 2 clusters to resample; got 1")
    # through the command: the error cell and the warning cell of the row are written as they read
    path = tmp_path / "two.csv"
    path.write_text("item,rater,label\n" + "".join(f"i{i},{r},{v}\n" for i, row in enumerate(two * 3)
                                                   for r, v in zip(("r1", "r2"), row, strict=True)))
    code, out, err = run_cli("agree", path, "-c", "fleiss_kappa", "--bootstrap", "50", "--design", "raters", "-f", "csv")
    assert code == 1, err
    row = next(csv.DictReader(io.StringIO(out)))
    assert row["error"].startswith("the option --design raters resamples raters and needs at least 3; got 2"), out
    assert row["warnings"] == f"error: {row['error']}" and "'" not in out.splitlines()[1].split(",")[-1][:1]
    sited = write_ratings(tmp_path / "sited.csv", n=12)
    lines = sited.read_text().splitlines()
    sited.write_text("\n".join([lines[0] + ",site,region"] + [f"{x},s{int(x.split(',')[0][1:]) % 4},"
                                                              f"{'R1' if int(x.split(',')[0][1:]) % 4 else 'R2'}"
                                                              for x in lines[1:]]) + "\n")
    code, out, err = run_cli("agree", sited, "-c", "fleiss_kappa", "--bootstrap", "50", "--cluster", "site",
                             "--strata", "region", "-f", "csv")
    assert code == 1, err
    row = next(csv.DictReader(io.StringIO(out)))
    assert row["error"].startswith("the option --cluster site needs at least 2 clusters in each stratum of --strata "
                                   "region; got 1 in 1 of 2 strata"), out
    assert escape_cell(row["error"]) == row["error"] and escape_cell(row["warnings"]) == row["warnings"]
