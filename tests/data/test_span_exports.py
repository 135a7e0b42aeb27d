"""Span exports read as the tidy span table reads the same spans: documents nobody marked a span in are kept,
and a span repeated by one annotator is counted once with the tidy table's SpanWarning."""

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.data import SpanRule, read_annotations
from softirr_stats.spans import SpanWarning

WEBANNO = Path(__file__).resolve().parents[1] / "fixtures" / "real_exports" / "webanno"
_REPEATED = "span(s) repeated by the same annotator (same document, offsets and type) were counted once"
_TSV_HEAD = "#FORMAT=WebAnno TSV 3.3\n#T_SP=de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity|value\n\n\n#Text=Mary in Paris\n"


def _brat(root: Path, files: dict[str, list[str]]) -> Path:
    for who, anns in files.items():
        (root / who).mkdir(parents=True, exist_ok=True)
        for k, text in enumerate(anns):
            (root / who / f"d{k}.ann").write_text(text)
    return root


def _tsv(*cells: str) -> str:
    """A one-sentence NamedEntity file: 'Mary in Paris', one label cell per token ('_' none)."""
    tokens = [("1-1", "0-4", "Mary"), ("1-2", "5-7", "in"), ("1-3", "8-13", "Paris")]
    return _TSV_HEAD + "".join(f"{n}\t{o}\t{t}\t{c}\t\n" for (n, o, t), c in zip(tokens, cells, strict=True))


def _same(a, b):
    """Two span agreement results agree: counts, tables and interval, to 1e-12."""
    assert (a.n_items, a.n_raters, a.n_spans) == (b.n_items, b.n_raters, b.n_spans)
    assert a.value == pytest.approx(b.value, abs=1e-12, nan_ok=True)
    for name in ("by_pair", "by_type", "by_document"):
        x, y = getattr(a, name), getattr(b, name)
        assert list(x.columns) == list(y.columns), name
        for col in x.columns:
            if x[col].dtype.kind in "fiu":
                np.testing.assert_allclose(x[col].to_numpy(float), y[col].to_numpy(float), atol=1e-12, rtol=0,
                                           err_msg=f"{name}.{col}")
            else:
                assert x[col].tolist() == y[col].tolist(), f"{name}.{col}"
    assert (a.ci_low, a.ci_high) == pytest.approx((b.ci_low, b.ci_high), abs=1e-12, nan_ok=True)


# the same spans as a tidy table: d1 declared for both annotators (a row with start, end and type missing)
_TIDY = pd.DataFrame({"document": ["d0", "d0", "d1", "d1", "d2", "d2", "d3", "d3"],
                      "annotator": ["ann", "bob"] * 4,
                      "start": [0, 0, None, None, 0, None, 3, 3], "end": [4, 4, None, None, 5, None, 9, 9],
                      "type": ["PER", "PER", None, None, "LOC", None, "ORG", "PER"]})
_BRAT = {"ann": ["T1\tPER 0 4\tMary\n", "", "T1\tLOC 0 5\tParis\n", "T1\tORG 3 9\tx\n"],
         "bob": ["T1\tPER 0 4\tMary\n", "", "", "T1\tPER 3 9\tx\n"]}


@pytest.mark.parametrize("ci", [None, sis.Bootstrap(n=300, seed=4, design="items")])
def test_a_brat_document_nobody_marked_counts_as_in_the_tidy_table(tmp_path, ci):
    """d1.ann is empty for both annotators: the brat route dropped it (2 documents, by_document d0, d2)."""
    root = _brat(tmp_path / "brat", _BRAT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the bootstrap's few-documents notes
        export, tidy = sis.span_agreement(root, ci=ci), sis.span_agreement(_TIDY, ci=ci)
    # d1 is counted as a document both annotated (n_documents 4); as it holds no span it is no unit of the
    # interval: n_items counts the 3 informative documents, on both routes
    assert export.details["n_documents"] == 4 and export.by_pair["n_documents"].tolist() == [4]
    assert export.n_items == tidy.n_items == 3
    assert export.by_document["document"].tolist() == ["d0", "d1", "d2", "d3"]
    assert ci is None or np.isfinite([export.ci_low, export.ci_high]).all()
    _same(export, tidy)


def test_span_annotations_of_an_export_keep_its_empty_documents(tmp_path):
    """The Annotations of the export (exact rule) give the same span agreement as the export's path."""
    root = _brat(tmp_path / "brat", _BRAT)
    ann = read_annotations(root, format="brat", span_rule="exact")
    assert _pairs(ann) == {("d1", "ann"), ("d1", "bob")}
    assert ann.items == ("d0:0-4", "d2:0-5", "d3:3-9")  # d1 gives no item (no span to rate) ...
    _same(sis.span_agreement(ann), sis.span_agreement(_TIDY))


def test_a_webanno_document_nobody_marked_counts_as_in_the_tidy_table(tmp_path):
    """INCEpTION writes a file per annotator and document; d1 holds no NamedEntity for either user."""
    files = {"d0": (_tsv("PER", "_", "_"), _tsv("PER", "_", "_")), "d1": (_tsv("_", "_", "_"), _tsv("_", "_", "_")),
             "d2": (_tsv("_", "_", "LOC"), _tsv("_", "_", "_")), "d3": (_tsv("_", "_", "ORG"), _tsv("_", "_", "PER"))}
    for doc, (ann, bob) in files.items():
        (tmp_path / "annotation" / doc).mkdir(parents=True)
        (tmp_path / "annotation" / doc / "ann.tsv").write_text(ann)
        (tmp_path / "annotation" / doc / "bob.tsv").write_text(bob)
    tidy = _TIDY.assign(start=[0, 0, None, None, 8, None, 8, 8], end=[4, 4, None, None, 13, None, 13, 13])
    export = sis.span_agreement(tmp_path, format="webanno-tsv")
    assert export.by_document["document"].tolist() == ["d0", "d1", "d2", "d3"]
    _same(export, sis.span_agreement(tidy))


def test_merged_per_annotator_exports_keep_the_empty_documents(tmp_path):
    """Per-annotator exports read one by one and merged (read_annotations([...])) keep them too."""
    root = _brat(tmp_path / "brat", _BRAT)
    parts = [read_annotations(root / who, format="brat", layout="documents", annotator=who) for who in _BRAT]
    merged = read_annotations([root / "ann", root / "bob"], format="brat", layout="documents")
    assert [p.n_items for p in parts] == [3, 2]
    assert _pairs(merged) == {("d1", "ann"), ("d1", "bob")}  # ... but its annotators are kept
    _same(sis.span_agreement(merged), sis.span_agreement(_TIDY))


def _pairs(ann):
    from softirr_stats.data import documents_without_spans

    return set(documents_without_spans(ann).itertuples(index=False, name=None))


# ------------------------------------------------------------------ a span repeated by one annotator
def test_a_repeated_brat_span_warns_as_the_tidy_table_does(tmp_path):
    """T1 PER 0 4 and T2 PER 0 4 in one file were merged silently; now the tidy table's SpanWarning, naming the
    annotator, the document and how many, at the caller's line."""
    root = _brat(tmp_path / "dup", {"ann": ["T1\tPER 0 4\tMary\nT2\tPER 0 4\tMary\nT3\tLOC 10 15\tParis\n"],
                                    "bob": ["T1\tPER 0 4\tMary\n"]})
    with pytest.warns(SpanWarning) as caught:
        export = sis.span_agreement(root)
    repeated = [w for w in caught if _REPEATED in str(w.message)]
    assert len(repeated) == 1 and repeated[0].filename == __file__
    assert str(repeated[0].message) == (f"1 {_REPEATED}: annotator 'ann' in document 'd0': 1 (ann/d0.ann, line 2)")
    tidy_spans = pd.DataFrame({"document": ["d0"] * 4, "annotator": ["ann", "ann", "ann", "bob"],
                               "start": [0, 0, 10, 0], "end": [4, 4, 15, 4], "type": ["PER", "PER", "LOC", "PER"]})
    with pytest.warns(SpanWarning) as tidy_caught:
        tidy = sis.span_agreement(tidy_spans)
    assert str(tidy_caught[0].message) == f"1 {_REPEATED}"  # the same words, the export's naming who and where
    assert export.value == pytest.approx(tidy.value, abs=1e-12) == pytest.approx(2 / 3, abs=1e-12)
    assert export.by_pair[["tp", "fp", "fn"]].values.tolist() == tidy.by_pair[["tp", "fp", "fn"]].values.tolist()


def test_inception_org_stacked_twice_warns_once_naming_user_and_document():
    """INCEpTION's multipleStackedAnnotationsAreNotMergedTest: user2 stacks ORG twice on 'Champions League'."""
    with pytest.warns(SpanWarning) as caught:
        ann = read_annotations(WEBANNO / "multipleStackedAnnotationsAreNotMergedTest", format="webanno-tsv")
    repeated = [str(w.message) for w in caught if issubclass(w.category, SpanWarning)]
    assert repeated == [f"1 {_REPEATED}: annotator 'user2' in document 'multipleStackedAnnotationsAreNotMergedTest'"
                        ": 1 (user2.tsv, line 13)"]
    assert ann.n_items == 1  # {ORG, ORGpart} for both users
    with warnings.catch_warnings():
        warnings.simplefilter("error", SpanWarning)  # kept apart: nothing counted once, nothing to warn of
        read_annotations(WEBANNO / "multipleStackedAnnotationsAreNotMergedTest", format="webanno-tsv",
                         span_rule="overlap,separate")


def test_many_repeats_are_counted_and_the_first_pairs_named(tmp_path):
    files = {f"a{k}": ["T1\tPER 0 4\tx\nT2\tPER 0 4\tx\nT3\tPER 0 4\tx\n"] for k in range(7)}
    root = _brat(tmp_path / "many", files)
    with pytest.warns(SpanWarning) as caught:
        read_annotations(root, format="brat", layout="annotators")
    (text,) = [str(w.message) for w in caught if issubclass(w.category, SpanWarning)]
    assert text.startswith(f"14 {_REPEATED}: annotator 'a0' in document 'd0': 2 (first at a0/d0.ann, line 2); ")
    assert text.endswith("; and 2 more annotator / document pairs") and text.count("annotator 'a") == 5


def test_merged_exports_warn_of_a_repeat_once(tmp_path):
    root = _brat(tmp_path / "dup", {"ann": ["T1\tPER 0 4\tMary\nT2\tPER 0 4\tMary\n"], "bob": ["T1\tPER 0 4\tM\n"]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        read_annotations([root / "ann", root / "bob"], format="brat", layout="documents")
    assert sum(issubclass(w.category, SpanWarning) for w in caught) == 1


def test_span_rule_separate_still_refuses_or_keeps_repeats(tmp_path):
    root = _brat(tmp_path / "dup", {"ann": ["T1\tPER 0 4\tMary\nT2\tPER 0 4\tMary\n"], "bob": ["T1\tPER 0 4\tM\n"]})
    with pytest.raises(ValueError, match="has two spans at"):
        read_annotations(root, format="brat", span_rule=SpanRule(stacked="separate"))
