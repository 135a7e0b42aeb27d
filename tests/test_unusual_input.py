"""Regression tests: unusual but legitimate input must never give a silently wrong number."""

import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats._validation import SoftIRRWarning


def _write(tmp_path, text, name="a.csv", mode="w"):
    p = tmp_path / name
    if mode == "wb":
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


# --- NA strings are labels ---------------------------------------------------------------
NA_CSV = "item,rater,label\n1,a,NA\n1,b,NA\n2,a,yes\n2,b,yes\n3,a,NA\n3,b,no\n4,a,no\n4,b,no\n"


@pytest.mark.parametrize("token", ["NA", "N/A", "None", "null", "NaN", "n/a", "nan", "NULL", "#N/A", "-"])
def test_na_strings_are_labels_by_default(tmp_path, token):
    p = _write(tmp_path, NA_CSV.replace("NA", token))
    ann = sis.read_annotations(p)
    assert token in ann.vocabulary and ann.n_ratings == 8
    assert sis.cohen_kappa(ann).value == pytest.approx(sis.cohen_kappa(sis.Annotations.from_wide(
        [["NA", "NA"], ["yes", "yes"], ["NA", "no"], ["no", "no"]])).value)


def test_na_values_opt_in_and_empty_cells_missing(tmp_path):
    p = _write(tmp_path, NA_CSV + "5,a,\n5,b,yes\n")
    ann = sis.read_annotations(p)
    assert ann.n_ratings == 9 and "" not in ann.vocabulary  # the empty cell is missing
    only = sis.read_annotations(p, na_values=["NA"])
    assert "NA" not in only.vocabulary and only.n_ratings == 6
    assert sis.read_annotations(p, na_values="NA").n_ratings == 6
    with pytest.raises(TypeError, match="na_values"):
        sis.read_annotations(p, na_values=[1])


def test_na_strings_in_tsv_and_jsonl(tmp_path):
    p = _write(tmp_path, NA_CSV.replace(",", "\t"), "a.tsv")
    assert "NA" in sis.read_annotations(p).vocabulary
    j = _write(tmp_path, '{"item": 1, "rater": "a", "label": "NA"}\n{"item": 1, "rater": "b", "label": null}\n'
               '{"item": 2, "rater": "a", "label": "x"}\n{"item": 2, "rater": "b", "label": "x"}\n', "a.jsonl")
    ann = sis.read_annotations(j)
    assert "NA" in ann.vocabulary and ann.n_ratings == 3
    assert sis.read_annotations(j, na_values=["NA"]).n_ratings == 2


# --- identifiers are text ------------------------------------------------------------------
def test_item_and_rater_identifiers_are_strings(tmp_path):
    p = _write(tmp_path, "item,rater,label\n007,01,x\n007,1,x\n7,01,y\n7,1,y\n")
    ann = sis.read_annotations(p)
    assert ann.items == ("007", "7") and ann.raters == ("01", "1")
    assert sis.cohen_kappa(ann).value == pytest.approx(1.0)  # was 0.4 with merged ids


def test_numeric_labels_stay_numeric(tmp_path):
    p = _write(tmp_path, "item,rater,label\n1,a,1\n1,b,2\n2,a,3\n2,b,3\n3,a,2\n3,b,2\n")
    ann = sis.read_annotations(p)
    assert ann.kind == "numeric" and ann.vocabulary == (1, 2, 3)
    p2 = _write(tmp_path, "item,rater,label\n1,a,1.5\n1,b,2\n2,a,3\n2,b,3\n", "f.csv")
    assert sis.read_annotations(p2).vocabulary == (1.5, 2.0, 3.0)
    p3 = _write(tmp_path, "item,rater,label\n1,a,1\n1,b,NA\n", "m.csv")
    assert sis.read_annotations(p3).kind == "categorical"  # "NA" keeps the column text


# --- files that cannot be read name the file ---------------------------------------------
def test_empty_undecodable_and_shifted_files(tmp_path):
    with pytest.raises(ValueError, match=r"e\.csv: the file is empty"):
        sis.read_annotations(_write(tmp_path, "", "e.csv"))
    with pytest.raises(ValueError, match=r"e\.jsonl: the file is empty"):
        sis.read_annotations(_write(tmp_path, "\n\n", "e.jsonl"))
    with pytest.raises(ValueError, match=r"latin\.csv: not UTF-8"):
        sis.read_annotations(_write(tmp_path, "item,rater,label\n1,a,caf\xe9\n".encode("latin-1"), "latin.csv", "wb"))
    with pytest.raises(ValueError, match=r"shift\.csv: some rows have more fields than the header"):
        sis.read_annotations(_write(tmp_path, "item,rater,label\n1,a,x,oops\n1,b,y,z\n", "shift.csv"))
    with pytest.warns(SoftIRRWarning, match="trailing"):
        ann = sis.read_annotations(_write(tmp_path, "item,rater,label\n1,a,x,\n1,b,x,\n2,a,y,\n2,b,y,\n", "tc.csv"))
    assert ann.items == ("1", "2") and ann.raters == ("a", "b") and ann.vocabulary == ("x", "y")


# --- unicode normalisation is opt-in --------------------------------------------------------
def test_unicode_normalisation_opt_in(tmp_path):
    decomposed, composed = "cafe\u0301", "caf\u00e9"
    wide = [[decomposed, composed], ["x", "x"], ["y", "y"]]
    assert len(sis.Annotations.from_wide(wide).vocabulary) == 4  # default: exact
    ann = sis.Annotations.from_wide(wide, normalize="NFC")
    assert ann.vocabulary == (composed, "x", "y")
    assert sis.cohen_kappa(ann).value == pytest.approx(1.0)
    folded = sis.Annotations.from_wide([["Heart", "heart"], ["x", "X"]], normalize="casefold")
    assert folded.vocabulary == ("heart", "x")
    sets = sis.Annotations.from_wide([[{decomposed}, {composed}], [{"a"}, {"a"}]], normalize="NFC")
    assert sets.vocabulary == (frozenset({"a"}), frozenset({composed}))
    p = _write(tmp_path, f"item,rater,label\n1,a,{decomposed}\n1,b,{composed}\n")
    assert sis.read_annotations(p, normalize="NFC").vocabulary == (composed,)
    with pytest.raises(ValueError, match="normalize must be one of"):
        sis.Annotations.from_wide(wide, normalize="nfc")
