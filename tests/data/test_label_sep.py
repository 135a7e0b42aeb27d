"""``label_sep=``: a CSV / TSV (or workbook) cell that lists several terms (``fever|cough``) read as a set label.

Multi-label data kept in a spreadsheet write a rating's terms in one cell; without a way to read them as sets,
``multilabel_fleiss`` skipped the file ("needs set-valued annotations") and one row per term failed as duplicate
(item, rater) rows, neither message saying how to read them.
"""

import json
import warnings

import pandas as pd
import pytest

import softirr_stats as sis

ROWS = [("n1", "A", "fever|cough"), ("n1", "B", "cough|fever"), ("n2", "A", "headache"), ("n2", "B", "headache|nausea"),
        ("n3", "A", "rash"), ("n3", "B", "rash"), ("n4", "A", "dyspnea|chest pain"), ("n4", "B", "chest pain"),
        ("n5", "A", "fatigue|fever|cough"), ("n5", "B", "fatigue|cough"), ("n6", "A", "nausea"), ("n6", "B", "vomiting")]


def _jsonl(tmp_path):
    path = tmp_path / "terms.jsonl"
    path.write_text("".join(json.dumps({"item": i, "rater": r, "label": t.split("|")}) + "\n" for i, r, t in ROWS))
    return sis.read_annotations(path)


def _csv(tmp_path, sep="|", name="terms.csv"):
    path = tmp_path / name
    path.write_text("item,rater,label\n" + "".join(f'{i},{r},"{t.replace("|", sep)}"\n' for i, r, t in ROWS))
    return path


def test_cells_listing_terms_are_read_as_sets(tmp_path):
    ann = sis.read_annotations(_csv(tmp_path), label_sep="|")
    want = _jsonl(tmp_path)
    assert ann.kind == "set" and ann.vocabulary == want.vocabulary and ann.codes.tolist() == want.codes.tolist()
    assert sis.multilabel_agreement(ann).value == pytest.approx(0.6685082872928181, abs=1e-12)
    assert sis.multilabel_agreement(ann).value == sis.multilabel_agreement(want).value
    # a separator of several characters, and one the CSV must quote
    assert sis.read_annotations(_csv(tmp_path, " / ", "b.csv"), label_sep=" / ").vocabulary == want.vocabulary
    assert sis.read_annotations(_csv(tmp_path, ",", "c.csv"), label_sep=",").vocabulary == want.vocabulary


def test_wide_tables_lists_of_files_and_tsv(tmp_path):
    want = _jsonl(tmp_path)
    wide = tmp_path / "wide.csv"
    frame = pd.DataFrame(ROWS, columns=["item", "rater", "label"]).pivot(index="item", columns="rater", values="label")
    frame.reset_index().to_csv(wide, index=False)
    ann = sis.read_annotations(wide, wide=True, label_sep="|")
    assert ann.kind == "set" and ann.vocabulary == want.vocabulary and ann.codes.tolist() == want.codes.tolist()
    paths = []
    for who in ("A", "B"):
        p = tmp_path / f"{who}.tsv"
        p.write_text("item\tlabel\n" + "".join(f"{i}\t{t}\n" for i, r, t in ROWS if r == who))
        paths.append(p)
    merged = sis.read_annotations(paths, label_sep="|")
    assert merged.kind == "set" and merged.codes.tolist() == want.codes.tolist()


def test_empty_terms_and_formats_without_text_cells_are_refused(tmp_path):
    path = tmp_path / "e.csv"
    path.write_text("item,rater,label\n1,a,fever|\n1,b,fever\n")
    with pytest.raises(ValueError, match=r"label cell 'fever\|' holds an empty term"):
        sis.read_annotations(path, label_sep="|")
    _jsonl(tmp_path)
    with pytest.raises(ValueError, match=r"label_sep= splits the text cells of a CSV / TSV table.*'jsonl'"):
        sis.read_annotations(tmp_path / "terms.jsonl", label_sep="|")
    with pytest.raises(ValueError, match=r"label_sep must be a non-empty string"):
        sis.read_annotations(_csv(tmp_path), label_sep="")
    with warnings.catch_warnings(record=True) as caught:  # the terms are checked as terms: a stray space is named
        warnings.simplefilter("always")
        path.write_text("item,rater,label\n1,a,fever |cough\n1,b,fever|cough\n")
        sis.read_annotations(path, label_sep="|")
    assert any("terms inside set labels" in str(w.message) for w in caught)


def test_messages_point_to_label_sep(tmp_path):
    """multi-label agreement on cells that list terms, and one row per term, now say how to read sets."""
    plain = sis.read_annotations(_csv(tmp_path))
    assert plain.kind == "categorical"
    with pytest.raises(TypeError, match=r"e.g. 'cough\|fever'.*label_sep='\|' on read_annotations"):
        sis.multilabel_agreement(plain)
    table = sis.sensitivity(plain, coefficients=["multilabel_fleiss"])
    note = table["warnings"].iloc[0]
    assert "label_sep='|'" in note and "--reader-option 'label_sep=|'" in note, note
    onerow = tmp_path / "onerow.csv"
    onerow.write_text("item,rater,label\n" + "".join(f"{i},{r},{t}\n" for i, r, c in ROWS for t in c.split("|")))
    with pytest.raises(ValueError, match=r"duplicate \(item, rater\) rows.*one row per term.*label_sep="):
        sis.read_annotations(onerow)
    with pytest.raises(ValueError, match=r"one row per term"):  # the DataFrame route says it too
        sis.Annotations.from_long(pd.read_csv(onerow, dtype=str))
    twice = tmp_path / "twice.csv"
    twice.write_text("item,rater,label\n1,a,x\n1,a,x\n1,b,y\n")
    with pytest.raises(ValueError, match=r"duplicate \(item, rater\) rows") as err:  # a rating given twice: no hint
        sis.read_annotations(twice)
    assert "one row per term" not in str(err.value)
