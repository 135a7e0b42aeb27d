"""Several long tables read as one (``read_annotations([alice.csv, bob.csv])``): each annotator's own file, with
no rater column (the file names the rater) or with one, merged; clashes name both files."""

import json

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

import softirr_stats as sis
from softirr_stats.cli import app


def _write(folder, name, text):
    path = folder / name
    path.write_text(text)
    return path


def test_one_file_per_annotator_without_a_rater_column(tmp_path):
    a = _write(tmp_path, "alice.csv", "item,label\n1,3\n2,4\n3,2\n")
    b = _write(tmp_path, "bob.csv", "item,label\n1,3\n2,5\n4,1\n")
    ann = sis.read_annotations([a, b])
    want = sis.Annotations.from_long(pd.DataFrame({"item": ["1", "2", "3", "1", "2", "4"],
                                                   "rater": ["alice"] * 3 + ["bob"] * 3, "label": [3, 4, 2, 3, 5, 1]}))
    assert ann.raters == ("alice", "bob") and ann.items == want.items and ann.kind == "numeric"
    np.testing.assert_array_equal(ann.codes, want.codes)
    assert sis.krippendorff_alpha(ann, level="interval").value == pytest.approx(
        sis.krippendorff_alpha(want, level="interval").value, abs=1e-15)
    (note,) = ann.read_notes
    assert note.startswith("merged 2 tables: alice.csv (rater named after the file), bob.csv (rater named after")


def test_tables_with_and_without_a_rater_column_and_of_two_formats(tmp_path):
    a = _write(tmp_path, "batch1.csv", "item,rater,label\n1,ann,x\n1,bo,y\n")
    b = _write(tmp_path, "cy.jsonl", "\n".join(json.dumps({"item": "1", "label": v}) for v in ["x"]) + "\n")
    ann = sis.read_annotations([a, b])
    assert ann.raters == ("ann", "bo", "cy") and ann.codes.tolist() == [[0, 1, 0]]
    assert "batch1.csv (raters from column 'rater'), cy.jsonl (rater named after the file)" in ann.read_notes[0]


def test_numbers_are_decided_over_every_file(tmp_path):
    """'1' is a number in a file of numbers and a text next to 'x' in another: over the merged column it is text
    in both, so the two raters' '1' agree."""
    a = _write(tmp_path, "a.csv", "item,label\n1,1\n2,2\n")
    b = _write(tmp_path, "b.csv", "item,label\n1,1\n2,x\n")
    ann = sis.read_annotations([a, b])
    assert ann.kind == "categorical" and ann.vocabulary == ("1", "2", "x")
    assert sis.percent_agreement(ann).value == pytest.approx(0.5)


def test_a_csv_and_a_typed_file_share_item_ids_raters_and_numbers(tmp_path):
    """A CSV reads the id 1 as the text '1', a JSON lines or Parquet file as the number 1: merged they are one
    item (they were two, and three files gave a Fleiss kappa over items no two files shared)."""
    rng = np.random.default_rng(3)
    truth = rng.integers(1, 4, 60)
    cols = {r: np.where(rng.random(60) < 0.7, truth, rng.integers(1, 4, 60)) for r in ("alice", "bob", "carol")}
    _write(tmp_path, "alice.csv", "item,label\n" + "".join(f"{i},{v}\n" for i, v in enumerate(cols["alice"])))
    _write(tmp_path, "bob.jsonl", "".join(json.dumps({"item": i, "label": int(v)}) + "\n"
                                          for i, v in enumerate(cols["bob"])))
    pd.DataFrame({"item": np.arange(60, dtype=float), "label": cols["carol"].astype(float)}).to_parquet(
        tmp_path / "carol.parquet")
    ann = sis.read_annotations([tmp_path / "alice.csv", tmp_path / "bob.jsonl", tmp_path / "carol.parquet"])
    assert ann.n_items == 60 and ann.raters == ("alice", "bob", "carol") and set(ann.items) == set(map(str, range(60)))
    assert ann.kind == "numeric" and ann.vocabulary == (1, 2, 3)
    want = sis.fleiss_kappa(np.column_stack([cols[r] for r in ("alice", "bob", "carol")]))
    assert sis.fleiss_kappa(ann).value == pytest.approx(want.value, abs=1e-12)
    # text labels next to numbers stay text in every file; a rater column from a typed file too
    _write(tmp_path, "dan.csv", "item,rater,label\n0,7,x\n1,7,1\n")
    _write(tmp_path, "eve.jsonl", '{"item": 0, "rater": 7.0, "label": 2}\n{"item": 2, "rater": 8, "label": 1}\n')
    with pytest.raises(ValueError, match="rater '7' rates item '0' in dan.csv"):
        sis.read_annotations([tmp_path / "dan.csv", tmp_path / "eve.jsonl"])


def test_clashes_and_ambiguous_names_are_refused(tmp_path):
    a = _write(tmp_path, "alice.csv", "item,label\n1,x\n2,y\n")
    a2 = _write(tmp_path, "more.csv", "item,rater,label\n2,alice,x\n3,bob,y\n")
    with pytest.raises(ValueError, match=r"rater 'alice' rates item '2' in alice.csv \(line 3 of the file\) and in "
                                         r"more.csv \(line 2 of the file\)"):
        sis.read_annotations([a, a2])
    twice = _write(tmp_path, "bob.csv", "item,label\n1,x\n\n2,y\n1,z\n")
    with pytest.raises(ValueError, match=r"rater 'bob' rates item '1' twice in bob.csv \(lines 2 and 5 of the file\)"):
        sis.read_annotations([a, twice])
    (tmp_path / "other").mkdir()
    same = _write(tmp_path / "other", "alice.csv", "item,label\n1,x\n")
    with pytest.raises(ValueError, match=r"2 files are named 'alice': rename them after their annotators"):
        sis.read_annotations([a, same])
    with pytest.raises(ValueError, match=r"more.csv: rater_from='file' names each file's one rater after the file, "
                                         r"but this file has 2 raters"):
        sis.read_annotations([a, a2], rater_from="file")
    nolabel = _write(tmp_path, "x.csv", "item,code\n1,x\n")
    with pytest.raises(ValueError, match=r"x.csv: label column 'label' not found; the columns are \['item', 'code'\]"):
        sis.read_annotations([a, nolabel])


def test_the_command_line_merges_per_annotator_files(tmp_path):
    a = _write(tmp_path, "alice.csv", "doc,code\n1,x\n2,y\n3,x\n")
    b = _write(tmp_path, "bob.csv", "doc,code\n1,x\n2,x\n3,x\n")
    res = CliRunner().invoke(app, ["agree", str(a), str(b), "--item", "doc", "--label", "code", "-c",
                                   "percent_agreement", "--bootstrap", "0", "-f", "json"])
    assert res.exit_code == 0, res.output
    (row,) = json.loads(res.stdout)["results"]
    assert row["value"] == pytest.approx(2 / 3) and "merged 2 tables" in res.output


def test_the_same_file_given_twice_is_refused(tmp_path):
    """One file twice (the same path, another spelling of it, a link to it) would be two annotators who always
    agree: refused naming both spellings; two different files with the same content are two annotators."""
    alice = tmp_path / "alice.csv"
    alice.write_text("item,label\n1,a\n2,b\n3,a\n")
    link = tmp_path / "link.csv"
    link.symlink_to(alice)
    for other in (alice, tmp_path / "." / "alice.csv", link):
        with pytest.raises(ValueError, match=r"the same file is given twice \(as .*alice\.csv and .*\.csv\)"):
            sis.read_annotations([alice, other])
    copy = tmp_path / "bob.csv"
    copy.write_text(alice.read_text())
    ann = sis.read_annotations([alice, copy])
    assert ann.raters == ("alice", "bob") and ann.n_items == 3


def test_the_command_line_says_the_same_file_was_given_twice(tmp_path):
    alice = tmp_path / "alice.csv"
    alice.write_text("item,label\n1,a\n2,b\n3,a\n")
    res = CliRunner().invoke(app, ["agree", str(alice), str(alice), "--bootstrap", "0"])
    assert res.exit_code == 2
    assert "the same file is given twice" in res.output and "are named" not in res.output


def test_per_annotator_files_with_other_column_names_get_the_call_that_reads_them(tmp_path):
    """`softirr agree ann_a.csv ann_b.csv` (columns doc, finding) suggested --reader-option wide=true, which is then
    refused for a list of files; the hint now names the columns of the files, and that call reads them."""
    a = _write(tmp_path, "ann_a.csv", "doc,finding\nn01,fatigue\nn02,chest pain\nn03,nausea\n")
    b = _write(tmp_path, "ann_b.csv", "doc,finding\nn01,asthenia\nn02,chest pain\nn03,nausea\n")
    with pytest.raises(ValueError, match=r"ann_a.csv: item column 'item', label column 'label' not found; the columns "
                                         r"are \['doc', 'finding'\]: one annotator's table per file\? pass "
                                         r"item='doc', label='finding' \(each file's rater is named after the file\)$"):
        sis.read_annotations([a, b])
    assert sis.read_annotations([a, b], item="doc", label="finding").raters == ("ann_a", "ann_b")
    res = CliRunner().invoke(app, ["agree", str(a), str(b), "--bootstrap", "0"])
    assert res.exit_code == 2
    flat = " ".join(res.stderr.split())
    assert "pass --item 'doc' --label 'finding'" in flat and "wide" not in flat, flat
    res = CliRunner().invoke(app, ["agree", str(a), str(b), "--item", "doc", "--label", "finding", "--bootstrap", "0"])
    assert res.exit_code == 0, res.output
    # a label column the names do not tell among several: the item named, label= asked for
    c = _write(tmp_path, "ann_c.csv", "doc,finding,comment\nn01,x,ok\n")
    with pytest.raises(ValueError, match=r"pass item='doc' and label= naming the label column"):
        sis.read_annotations([c, a])
    # one file writes the given name otherwise: renaming it, not passing its name (which the others lack)
    d = _write(tmp_path, "ann_d.csv", "doc,Finding\nn01,tiredness\n")
    with pytest.raises(ValueError, match=r"ann_d.csv: label column 'finding' not found .*: rename 'Finding' to "
                                         r"'finding' in this file's header"):
        sis.read_annotations([a, d], item="doc", label="finding")
