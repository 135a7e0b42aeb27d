"""Numbers written with a decimal comma ("3,5"), as spreadsheets save CSV files in many locales:
``decimal=","`` on ``read_annotations`` reads them as numbers on every route (long, wide, pandas and
Arrow); without it they are categories and a LabelWarning, and the errors of ordered weights and
``level="interval"``, say how to read them."""

import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.data import LabelWarning
from softirr_stats.data._labels import decimal_comma_hint, decimal_comma_numbers, text_numbers

rng = np.random.default_rng(20261206)
#: 30 items x 3 raters of continuous scores, 8% missing, written with a decimal comma by pandas
SCORES = np.round(rng.normal(5, 2, size=(30, 1)) + rng.normal(0, 0.8, size=(30, 3)), 2)
SCORES[rng.random(SCORES.shape) < 0.08] = np.nan


def _long_frame() -> pd.DataFrame:
    df = pd.DataFrame(SCORES, index=[f"d{i}" for i in range(30)], columns=["r1", "r2", "r3"])
    return df.rename_axis("item").reset_index().melt("item", var_name="rater", value_name="label").dropna()


def test_text_numbers_with_a_decimal_comma():
    assert text_numbers(["3,5", "4", "-0,25"], decimal=",").tolist() == [3.5, 4.0, -0.25]
    assert text_numbers(["3,5", "4.5"], decimal=",") is None  # a point: not this convention, stays text
    assert text_numbers(["3,5", "3,50"], decimal=",") is None  # one number written two ways: text
    assert text_numbers(["3,5", "x"], decimal=",") is None
    assert text_numbers(["3,5"]) is None  # the default decimal mark is the point


@pytest.mark.parametrize("arrow", [True, False])
def test_long_semicolon_file_matches_pandas_decimal_reading(tmp_path, monkeypatch, arrow):
    """The peer: pandas.read_csv(sep=';', decimal=',') on the same file, then from_long."""
    from softirr_stats.data import _columnar

    if not arrow:
        monkeypatch.setattr(_columnar, "have_arrow", lambda: False)
    path = tmp_path / "scores.csv"
    _long_frame().to_csv(path, sep=";", decimal=",", index=False)
    assert "," in path.read_text()
    got = sis.read_annotations(path, sep=";", decimal=",")
    peer = pd.read_csv(path, sep=";", decimal=",", dtype={"item": str, "rater": str})
    want = sis.Annotations.from_long(peer)
    assert got.kind == want.kind == "numeric"
    assert got.items == want.items and got.raters == want.raters
    np.testing.assert_array_equal(got.values(), want.values())
    for level in ("interval", "ratio"):
        a = sis.krippendorff_alpha(got, level=level).value
        assert a == pytest.approx(sis.krippendorff_alpha(want, level=level).value, abs=1e-12)


def test_wide_file_with_decimal_comma_matches_the_krippendorff_package(tmp_path):
    krippendorff = pytest.importorskip("krippendorff")
    path = tmp_path / "wide.tsv"
    frame = pd.DataFrame(SCORES, columns=["r1", "r2", "r3"]).rename_axis("doc").reset_index()
    frame.to_csv(path, sep="\t", decimal=",", index=False)
    ann = sis.read_annotations(path, wide=True, item="doc", decimal=",")
    assert ann.kind == "numeric" and ann.raters == ("r1", "r2", "r3")
    want = krippendorff.alpha(reliability_data=SCORES.T, level_of_measurement="interval")
    assert sis.krippendorff_alpha(ann, level="interval").value == pytest.approx(want, abs=1e-9)


def test_without_decimal_the_labels_are_categories_and_a_warning_says_how_to_read_them(tmp_path):
    path = tmp_path / "scores.csv"
    _long_frame().to_csv(path, sep=";", decimal=",", index=False)
    with pytest.warns(LabelWarning, match=r"decimal comma .*decimal=','.*--reader-option decimal=,"):
        ann = sis.read_annotations(path, sep=";")
    assert ann.kind == "categorical"
    with pytest.warns(LabelWarning), pytest.raises(ValueError, match=r"needs numeric labels.*decimal=','"):
        sis.krippendorff_alpha(sis.read_annotations(path, sep=";"), level="interval")
    with pytest.warns(LabelWarning), pytest.raises(ValueError, match=r"orders the labels.*decimal comma"):
        sis.krippendorff_alpha(sis.read_annotations(path, sep=";"), similarity="linear")


def test_a_thousands_separator_is_named_as_the_other_reading():
    hint = decimal_comma_hint(["1,000", "2,500", "750"])
    assert "decimal=','" in hint and "reads '1,000' as 1.0" in hint
    assert "thousands" not in decimal_comma_hint(["1,5", "2"])


@pytest.mark.parametrize("labels", [["yes", "no"], ["1", "2.5"], ["1,5", "x"], ["1,5,3", "2"], ["NA", "n/a"], []])
def test_no_warning_for_other_labels(labels):
    assert decimal_comma_numbers(labels) == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", LabelWarning)
        if labels and "NA" not in labels:
            sis.Annotations.from_wide([labels, labels])


def test_decimal_is_checked(tmp_path):
    csv = tmp_path / "a.csv"
    csv.write_text("item,rater,label\n1,a,2\n1,b,3\n")
    with pytest.raises(ValueError, match=r"decimal must be '\.' or ','; got ';'"):
        sis.read_annotations(csv, decimal=";")
    jsonl = tmp_path / "a.jsonl"
    jsonl.write_text('{"item": 1, "rater": "a", "label": 2.5}\n{"item": 1, "rater": "b", "label": 3}\n')
    with pytest.raises(ValueError, match=r"decimal= is the decimal mark .* read as 'jsonl'"):
        sis.read_annotations(jsonl, decimal=",")
    with pytest.raises(ValueError, match=r"read as 'jsonl'"):
        sis.read_annotations(jsonl, decimal=",", wide=True, item="item")
    assert sis.read_annotations(jsonl, decimal=".").kind == "numeric"


def test_decimal_reaches_every_file_of_a_list(tmp_path):
    paths = []
    for batch, labs in {"one": ["1,5", "2"], "two": ["1,5", "2,5"]}.items():
        p = tmp_path / f"{batch}.csv"
        p.write_text("item;rater;label\n" + "".join(f"{batch}{i};{who};{lab}\n" for i, lab in enumerate(labs)
                                                   for who in ("a", "b")))
        paths.append(p)
    ann = sis.read_annotations(paths, sep=";", decimal=",")
    assert ann.kind == "numeric" and ann.vocabulary == (1.5, 2.0, 2.5) and ann.n_items == 4


@pytest.mark.parametrize("arrow", [True, False])
def test_decimal_comma_on_numbers_with_a_point_says_so(tmp_path, monkeypatch, arrow):
    """The reverse mistake: decimal=',' on a file written with points read every label as a category and said
    nothing of decimal=','; icc then failed with 'these labels are categorical (e.g. '1.0')'. A LabelWarning now
    names the option, as the decimal-comma file without it gets one."""
    from softirr_stats.data import _columnar

    if not arrow:
        monkeypatch.setattr(_columnar, "have_arrow", lambda: False)
    path = tmp_path / "scores.csv"
    _long_frame().to_csv(path, index=False)
    with pytest.warns(LabelWarning, match=r"decimal point \('.*'\).*decimal=',' was given \(--reader-option "
                                          r"decimal=, on the command line\).*leave it out"):
        ann = sis.read_annotations(path, decimal=",")
    assert ann.kind == "categorical"
    wide = tmp_path / "wide.csv"
    pd.DataFrame(SCORES, columns=["r1", "r2", "r3"]).rename_axis("doc").reset_index().to_csv(wide, index=False)
    with pytest.warns(LabelWarning, match=r"decimal=',' was given"):
        sis.read_annotations(wide, wide=True, item="doc", decimal=",")
    with warnings.catch_warnings():
        warnings.simplefilter("error", LabelWarning)
        assert sis.read_annotations(path).kind == "numeric"
