"""Reading at scale (issue #24 item 1): whole-column encoding equals the cell-by-cell path.

Three routes are compared on the same input:

- ``cells``: the cell-by-cell path (the columnar fast paths switched off);
- ``pandas``: pandas readers, then ``from_long`` by whole columns (pyarrow hidden);
- ``arrow``: pyarrow's CSV / JSON / Parquet readers and Arrow dictionary encoding (the default
  when pyarrow is installed).

Each must give the same items, raters (values and types, in the same order), vocabulary, kind,
categories and codes, or the same error / warning.
"""

import csv
import io
import json
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from softirr_stats import Annotations
from softirr_stats.data import _columnar, _input, _io, read_annotations

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")

ROUTES = ("cells", "pandas", "arrow")


def _route(monkeypatch: pytest.MonkeyPatch, route: str) -> None:
    monkeypatch.undo()
    if route == "cells":
        monkeypatch.setattr(_columnar, "read_long", lambda *a, **k: None)
        monkeypatch.setattr(_columnar, "frame_annotations", lambda *a, **k: None)
    elif route == "pandas":
        monkeypatch.setattr(_columnar, "have_arrow", lambda: False)


def _outcome(build):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            ann = build()
        except (ValueError, TypeError) as err:
            return ("error", type(err).__name__, str(err)), [str(w.message) for w in caught]
    return ("ok", ann.kind, repr(ann.items), repr(ann.raters), repr(ann.vocabulary), repr(ann.categories),
            ann.codes.tolist()), [str(w.message) for w in caught]


def _all_routes(monkeypatch, build, routes=ROUTES):
    out = {}
    for route in routes:
        _route(monkeypatch, route)
        out[route] = _outcome(build)
    monkeypatch.undo()
    return out


def _assert_same(monkeypatch, build, routes=ROUTES, expect_ok=None):
    out = _all_routes(monkeypatch, build, routes)
    first = out[routes[0]]
    for route in routes[1:]:
        assert out[route] == first, f"{route} differs from {routes[0]}:\n{out[route]}\n{first}"
    if expect_ok is not None:
        assert (first[0][0] == "ok") is expect_ok, first
    return first


def _write(tmp_path, name, text, mode="w"):
    p = tmp_path / name
    if mode == "w":
        p.write_text(text, encoding="utf-8", newline="")
    else:
        p.write_bytes(text)
    return p


CSV_CASES = {
    "basic": "item,rater,label\nb,x,pos\nb,y,neg\na,x,pos\na,y,\n",
    "numbers": "item,rater,label\n1,x,3\n1,y,01\n2,x,2\n2,y,\n10,x,3\n",
    "floats": "item,rater,label\n1,x,1\n1,y,2.5\n2,x,1e3\n2,y,-0\n",
    "nan text": "item,rater,label\n1,x,nan\n1,y,inf\n2,x,3\n2,y,3\n",
    "NA is a label": "item,rater,label\n007,x,NA\n007,y,NA\n7,x,no\n7,y,NA\n",
    "booleans": "item,rater,label\n1,x,true\n1,y,True\n2,x,false\n2,y,1\n",
    "whitespace": "item,rater,label\n a,x,pos\na ,x,pos \na,x, pos\na,y,\"pos\"\n",
    "quoted": 'item,rater,label\n"a,1",x,"say ""hi"""\n"a,1",y,"two\nlines"\nb,x,"c,d"\nb,y,plain\n',
    "bom crlf": "\ufeffitem,rater,label\r\nu1,r1,yes\r\nu1,r2,no\r\nu2,r1,yes\r\nu2,r2,yes\r\n",
    "unicode": "item,rater,label\n1,x,Café\n1,y,cafe\u0301\n2,x,ÉTÉ\n2,y,\u00e9t\u00e9\n",
    "duplicates": "item,rater,label\n1,x,a\n1,x,b\n2,x,a\n2,y,a\n2,y,c\n",
    "missing item": "item,rater,label\n1,x,a\n,y,b\n",
    "missing rater": "item,rater,label\n1,x,a\n1,,b\n",
    "all missing": "item,rater,label\n1,x,\n1,y,\n",
    "a rater with no rating": "item,rater,label\n1,x,a\n1,y,b\n1,z,\n2,x,a\n2,y,a\n2,z,\n",
    "two raters, one with no rating": "item,rater,label\n1,x,a\n1,z,\n2,x,a\n2,z,\n",
    "no label column": "item,rater,lab\n1,x,a\n1,y,b\n",
    "short rows": "item,rater,label\n1,x,a\n1,y\n2,x,b\n2,y,b\n",
    "trailing delimiter": "item,rater,label\n1,x,a,\n1,y,b,\n",
    "shifted": "item,rater,label\n1,x,a,z\n1,y,b,z\n",
    "column twice": "item,rater,label,label\n1,x,a,b\n",
    "extra columns": "time,item,note,rater,label\nt1,1,\"n,1\",x,a\nt2,1,,y,b\n",
    "one rater": "item,rater,label\n1,x,a\n2,x,b\n",
    "header only": "item,rater,label\n",
    "unterminated quote": 'item,rater,label\n1,x,a\n1,y,"b\n',
}


@pytest.mark.parametrize("case", sorted(CSV_CASES))
def test_csv_every_route_reads_what_the_cell_path_reads(monkeypatch, tmp_path, case):
    path = _write(tmp_path, "r.csv", CSV_CASES[case])
    _assert_same(monkeypatch, lambda: read_annotations(path))


def test_csv_options_on_every_route(monkeypatch, tmp_path):
    path = _write(tmp_path, "r.csv", CSV_CASES["unicode"] + "3,x,NA\n3,y,n/a\n")
    for kw in ({"normalize": "NFC+casefold"}, {"na_values": ["NA", "n/a"]}, {"na_values": "NA"},
               {"categories": ["Café", "cafe\u0301", "ÉTÉ", "été", "NA", "n/a", "unused"]},
               {"categories": ["Café"]}, {"normalize": "bad"}):
        _assert_same(monkeypatch, lambda kw=kw: read_annotations(path, **kw))
    tsv = _write(tmp_path, "r.tsv", CSV_CASES["basic"].replace(",", "\t"))
    assert _assert_same(monkeypatch, lambda: read_annotations(tsv), expect_ok=True)
    renamed = _write(tmp_path, "s.csv", "doc,who,text\n1,x,a\n1,y,b\n")
    _assert_same(monkeypatch, lambda: read_annotations(renamed, item="doc", rater="who", label="text"), expect_ok=True)
    latin = _write(tmp_path, "l.csv", "item,rater,label\n1,x,caf\xe9\n1,y,the\n".encode("latin-1"), mode="b")
    _assert_same(monkeypatch, lambda: read_annotations(latin), expect_ok=False)
    _assert_same(monkeypatch, lambda: read_annotations(latin, encoding="latin-1"), expect_ok=True)


@pytest.mark.parametrize("codec", ["utf-16", "utf-32", "utf-16-be"])
def test_a_utf16_file_is_named_with_the_encoding_to_pass(monkeypatch, tmp_path, codec):
    """Excel's "Unicode text" is UTF-16 with a byte-order mark: the error said 'not UTF-8 text ... pass
    encoding='latin-1'', which reads it as garbage; it now names the encoding that reads it."""
    wide = codec[:6]
    for name, text in (("u.csv", "item,rater,label\n1,x,caf\u00e9\n1,y,the\n"),
                       ("u.jsonl", '{"item": 1, "rater": "x", "label": "caf\u00e9"}\n'
                                   '{"item": 1, "rater": "y", "label": "the"}\n')):
        data = ("\ufeff" + text).encode(codec) if codec.endswith("-be") else text.encode(codec)
        path = _write(tmp_path, name, data, mode="b")
        out = _assert_same(monkeypatch, lambda path=path: read_annotations(path), expect_ok=False)
        assert (f"this file is {wide.upper()} (byte-order mark), not UTF-8 text: pass encoding='{wide}' "
                f"(--reader-option encoding={wide})") in out[0][2]
        ok = _assert_same(monkeypatch, lambda path=path: read_annotations(path, encoding=wide), expect_ok=True)
        assert ok[0][4] == "('café', 'the')"


def test_rows_with_fewer_fields_than_the_header_are_refused(monkeypatch, tmp_path):
    """pandas fills the fields a row lacks with empty cells: '4,x' made a rater 'x' with no rating and '3,a' a
    missing rating, without a word (Arrow refused the file and handed it to pandas). Every route now names the
    line; an empty last field written with its delimiter ('3,a,') is a missing rating, as before."""
    short = _write(tmp_path, "short.csv", "item,rater,label\n1,a,x\n1,b,x\n2,a,y\n2,b,y\n3,a\n3,b,x\n4,x\n")
    out = _assert_same(monkeypatch, lambda: read_annotations(short), expect_ok=False)
    assert ("/short.csv: line 6 has 2 fields where the header has 3 (['item', 'rater', 'label']; 2 short rows in "
            "all): its values cannot be placed in their columns") in out[0][2]
    tsv = _write(tmp_path, "short.tsv", "item\trater\tlabel\n1\ta\tx\n\n1\tb\n")
    out = _assert_same(monkeypatch, lambda: read_annotations(tsv), expect_ok=False)
    assert "/short.tsv: line 4 has 2 fields where the header has 3" in out[0][2]
    fine = ("item,rater,label\n1,a,x\n1,b,x\n   \n2,a,\n2,b,\"y\nz\"\n", "item,rater,label,\n1,a,x\n1,b,x\n")
    for k, text in enumerate(fine):  # an empty last field, a blank line, a quoted line break; a header's empty cell
        path = _write(tmp_path, f"fine{k}.csv", text)
        _assert_same(monkeypatch, lambda path=path: read_annotations(path), expect_ok=True)


def test_csv_at_a_few_thousand_rows_numbers_and_duplicates(monkeypatch, tmp_path):
    """Above the distinct-value thresholds (numeric labels decided on the distinct labels)."""
    rng = np.random.default_rng(3)
    n = 3000
    items = rng.permutation(n // 3).repeat(3)
    raters = np.tile(["r2", "r10", "r1"], n // 3)
    labels = rng.choice(["1", "2", "3.5", "04", ""], n)
    body = "".join(f"{i},{r},{lab}\n" for i, r, lab in zip(items, raters, labels, strict=True))
    path = _write(tmp_path, "n.csv", "item,rater,label\n" + body)
    out = _assert_same(monkeypatch, lambda: read_annotations(path), expect_ok=True)
    assert out[0][1] == "numeric"
    dup = _write(tmp_path, "d.csv", "item,rater,label\n" + body + "5,r1,2\n17,r2,1\n")
    _assert_same(monkeypatch, lambda: read_annotations(dup), expect_ok=False)



@pytest.mark.parametrize("kind", ["text", "numbers"])
def test_csv_with_more_than_a_thousand_distinct_labels(monkeypatch, tmp_path, kind):
    """Free text of real size: 1,500 distinct labels (issue 35 row 1: the distinct-value path recursed)."""
    n = 3000
    items = np.arange(n // 2).repeat(2)
    raters = np.tile(["r1", "r2"], n // 2)
    labels = [f"finding {k}" if kind == "text" else str(k) for k in np.arange(n) // 2]
    body = "".join(f"{i},{r},{lab}\n" for i, r, lab in zip(items, raters, labels, strict=True))
    path = _write(tmp_path, "many.csv", "item,rater,label\n" + body)
    out = _assert_same(monkeypatch, lambda: read_annotations(path), expect_ok=True)
    assert out[0][1] == ("numeric" if kind == "numbers" else "categorical")
    ann = read_annotations(path)
    assert len(ann.vocabulary) == n // 2
    from softirr_stats import percent_agreement

    assert percent_agreement(ann).value == 1.0


CELL = st.one_of(st.sampled_from(["", "NA", "a", "b", "1", "2.0", " a", "a,b", 'q"q', "x\ny", "é", "e\u0301", "-0"]),
                 st.text(alphabet='ab1 ,"\n\t-.', max_size=4))


@given(st.lists(st.tuples(st.sampled_from(["i1", "i2", "007", "7", "é"]), st.sampled_from(["r1", "r2", "R"]), CELL),
                min_size=1, max_size=12))
def test_csv_fuzzed_cells_every_route(tmp_path_factory, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["item", "rater", "label"])
    w.writerows(rows)
    path = tmp_path_factory.mktemp("fuzz") / "f.csv"
    path.write_text(buf.getvalue(), encoding="utf-8", newline="")
    with pytest.MonkeyPatch.context() as mp:
        _assert_same(mp, lambda: read_annotations(path))


def _jsonl(rows):
    return "".join(json.dumps(r) + "\n" for r in rows)


JSONL_CASES = {
    "strings": _jsonl([{"item": "b", "rater": "x", "label": "pos"}, {"item": "a", "rater": "y", "label": None},
                       {"item": "a", "rater": "x", "label": "neg"}, {"item": "b", "rater": "y"},
                       {"item": "c", "rater": "y", "label": "neg"}]),  # y rates c: a rater with no rating is left out
    "int ids, int labels with nulls": _jsonl([{"item": 10, "rater": 1, "label": 3}, {"item": 2, "rater": 1, "label": None},
                                             {"item": 2, "rater": 2, "label": 1}, {"item": 10, "rater": 2, "label": 3}]),
    "int labels": _jsonl([{"item": 10, "rater": 1, "label": 3}, {"item": 2, "rater": 1, "label": 2 ** 60 + 1},
                          {"item": 2, "rater": 2, "label": 1}, {"item": 10, "rater": 2, "label": 3}]),
    "floats": _jsonl([{"item": "a", "rater": "x", "label": 1}, {"item": "a", "rater": "y", "label": 2.5},
                      {"item": "b", "rater": "x", "label": -0.0}, {"item": "b", "rater": "y", "label": 0}]),
    "booleans": _jsonl([{"item": "a", "rater": "x", "label": True}, {"item": "a", "rater": "y", "label": False},
                        {"item": "b", "rater": "x", "label": None}, {"item": "b", "rater": "y", "label": True}]),
    "booleans and numbers": _jsonl([{"item": "a", "rater": "x", "label": True}, {"item": "a", "rater": "y", "label": 1}]),
    "text and numbers": _jsonl([{"item": "a", "rater": "x", "label": "1"}, {"item": "a", "rater": "y", "label": 1}]),
    "int and text ids": _jsonl([{"item": 1, "rater": "x", "label": "a"}, {"item": "1", "rater": "y", "label": "a"},
                                {"item": 1, "rater": "y", "label": "b"}]),
    "sets": _jsonl([{"item": "a", "rater": "x", "label": ["p", "q"]}, {"item": "a", "rater": "y", "label": ["q"]}]),
    "big integer": _jsonl([{"item": "a", "rater": "x", "label": 2 ** 70}, {"item": "a", "rater": "y", "label": 1}]),
    "huge integer": '{"item": "a", "rater": "x", "label": 1' + "0" * 400 + '}\n{"item": "a", "rater": "y", "label": 1}\n',
    "huge elsewhere": '{"item": "a", "rater": "x", "label": 1, "n": 1' + "0" * 400 + '}\n'
                      '{"item": "a", "rater": "y", "label": 1, "n": 2}\n',
    "NaN literal": '{"item": "a", "rater": "x", "label": NaN}\n{"item": "a", "rater": "y", "label": 1.5}\n'
                   '{"item": "b", "rater": "y", "label": 1.5}\n{"item": "b", "rater": "x", "label": 2.5}\n',
    "blank lines": '{"item": "a", "rater": "x", "label": "p"}\n\n  \n{"item": "a", "rater": "y", "label": "q"}\n\n',
    "no final newline": '{"item": "a", "rater": "x", "label": "p"}\n{"item": "a", "rater": "y", "label": "q"}',
    "two objects on a line": '{"item": "a", "rater": "x", "label": "p"} {"item": "a", "rater": "y", "label": "q"}\n',
    "line separator in a string": '{"item": "a", "rater": "x", "label": "p\u2028q"}\n{"item": "a", "rater": "y", "label": "q"}\n',
    "bom": "\ufeff" + _jsonl([{"item": "a", "rater": "x", "label": "p"}, {"item": "a", "rater": "y", "label": "p"}]),
    "duplicates": _jsonl([{"item": 1, "rater": "x", "label": "p"}, {"item": 1, "rater": "x", "label": "q"},
                          {"item": 2, "rater": "y", "label": "q"}]),
    "missing item": _jsonl([{"item": 1, "rater": "x", "label": "p"}, {"rater": "y", "label": "q"}]),
    "not an object": '{"item": 1, "rater": "x", "label": "p"}\n[1, 2]\n',
    "nested extra column": _jsonl([{"item": 1, "rater": "x", "label": "p", "meta": {"t": 1}},
                                   {"item": 1, "rater": "y", "label": "p", "meta": {"t": [2]}}]),
    "repeated key": '{"item": 1, "rater": "x", "label": "p", "label": "q"}\n{"item": 1, "rater": "y", "label": "q"}\n',
    "float ids": _jsonl([{"item": 1.5, "rater": "x", "label": "p"}, {"item": 1.5, "rater": "y", "label": "q"}]),
}


@pytest.mark.parametrize("case", sorted(JSONL_CASES))
def test_jsonl_every_route_reads_what_the_cell_path_reads(monkeypatch, tmp_path, case):
    path = _write(tmp_path, "r.jsonl", JSONL_CASES[case])
    _assert_same(monkeypatch, lambda: read_annotations(path))
    _assert_same(monkeypatch, lambda: read_annotations(path, na_values=["p", "NA"]))


#: JSON Lines whose first line says "text" for a column and a later line does not (or the reverse)
AFTER_THE_HEAD = {
    "number after text": '{"item": "a", "rater": "x", "label": "p"}\n{"item": "a", "rater": "y", "label": 1}\n',
    "boolean after text": '{"item": "a", "rater": "x", "label": "p"}\n{"item": "a", "rater": "y", "label": true}\n',
    "list after text": '{"item": "a", "rater": "x", "label": "p"}\n{"item": "a", "rater": "y", "label": ["p"]}\n',
    "object after text": '{"item": "a", "rater": "x", "label": "p"}\n{"item": "a", "rater": "y", "label": {"p": 1}}\n',
    "int id after text": '{"item": "a", "rater": "x", "label": "p"}\n{"item": 2, "rater": "y", "label": "q"}\n',
    "text after a null": '{"item": "a", "rater": "x", "label": null}\n{"item": "a", "rater": "y", "label": "q"}\n'
                         '{"item": "b", "rater": "y", "label": "q"}\n{"item": "b", "rater": "x", "label": "q"}\n',
    "text after a number": '{"item": "a", "rater": "x", "label": 1.5}\n{"item": "a", "rater": "y", "label": "q"}\n',
    "text after an int id": '{"item": 1, "rater": "x", "label": "p"}\n{"item": "b", "rater": "y", "label": "q"}\n',
}


@pytest.mark.parametrize("case", sorted(AFTER_THE_HEAD))
def test_jsonl_types_that_change_after_the_head(monkeypatch, tmp_path, case):
    """The text columns of the first lines are declared to Arrow's parser (no type inference for
    them); a later value of another type reads as it does without the declaration."""
    path = _write(tmp_path, "r.jsonl", AFTER_THE_HEAD[case])
    head = _columnar._HEAD_BYTES
    _columnar._HEAD_BYTES = 44  # the first line only (set by hand: each route's monkeypatch is undone)
    try:
        _assert_same(monkeypatch, lambda: read_annotations(path))
        _assert_same(monkeypatch, lambda: read_annotations(path, na_values=["p"]))
    finally:
        _columnar._HEAD_BYTES = head


def test_jsonl_text_columns_are_declared_from_the_head(tmp_path):
    path = _write(tmp_path, "r.jsonl", '{"item": "a", "rater": 3, "label": "p", "note": "x"}\n'
                                       '{"item": "a", "rater": 4, "label": null, "note": "y"}\n')
    schema = _columnar._text_schema(path, ("item", "rater", "label"))
    assert schema.names == ["item", "label"] and all(str(t) == "string" for t in schema.types)
    assert _columnar._text_schema(_write(tmp_path, "n.jsonl", '{"item": 1, "rater": 2, "label": 3}\n'),
                                  ("item", "rater", "label")) is None
    assert _columnar._text_schema(_write(tmp_path, "bad.jsonl", "{not json\n"), ("item", "rater", "label")) is None


def test_gzipped_tables_take_the_pandas_route(monkeypatch, tmp_path):
    import gzip

    path = _write(tmp_path, "r.jsonl.gz", gzip.compress(JSONL_CASES["strings"].encode()), mode="b")
    _assert_same(monkeypatch, lambda: read_annotations(path, format="jsonl"), expect_ok=True)
    path = _write(tmp_path, "r.csv.gz", gzip.compress(CSV_CASES["basic"].encode()), mode="b")
    _assert_same(monkeypatch, lambda: read_annotations(path, format="csv"))



def test_a_plain_table_named_gz_reads_as_the_text_it_is(monkeypatch, tmp_path):
    """A JSON Lines file named .jsonl.gz that is not gzip: Arrow, given the path, unpacked it by its name and
    failed with an OSError (zlib: incorrect header check); every route now reads the text."""
    path = _write(tmp_path, "r.jsonl.gz", JSONL_CASES["strings"])
    _assert_same(monkeypatch, lambda: read_annotations(path, format="jsonl"), expect_ok=True)


FRAMES = {
    "object text": lambda: pd.DataFrame({"item": ["b", "a", "b", "a"], "rater": ["x", "x", "y", "y"],
                                         "label": ["p", None, "q", float("nan")]}, dtype=object),
    "str dtype": lambda: pd.DataFrame({"item": ["b", "a", "b", "a"], "rater": ["x", "x", "y", "y"],
                                       "label": ["p", None, "q", "p"]}).astype("string"),
    "int ids, float labels": lambda: pd.DataFrame({"item": [3, 1, 3, 1], "rater": [2, 2, 1, 1],
                                                   "label": [0.5, np.nan, -0.0, 0.0]}),
    "int labels": lambda: pd.DataFrame({"item": [3, 1, 3, 1], "rater": ["b", "b", "a", "a"], "label": [1, 2, 2, 1]}),
    "bool labels": lambda: pd.DataFrame({"item": [3, 1, 3, 1], "rater": ["b", "b", "a", "a"],
                                         "label": [True, False, True, True]}),
    "object numbers": lambda: pd.DataFrame({"item": ["a", "a", "b", "b"], "rater": ["x", "y", "x", "y"],
                                            "label": [1, 1.0, None, 2 ** 70]}, dtype=object),
    "object booleans": lambda: pd.DataFrame({"item": ["a", "a", "b", "b"], "rater": ["x", "y", "x", "y"],
                                             "label": [True, None, False, True]}, dtype=object),
    "booleans and numbers": lambda: pd.DataFrame({"item": ["a", "a"], "rater": ["x", "y"], "label": [True, 1]},
                                                 dtype=object),
    "mixed ids": lambda: pd.DataFrame({"item": [1, "1", 1, "1"], "rater": ["x", "x", "y", "y"],
                                       "label": ["p", "q", "p", "q"]}, dtype=object),
    "nullable ints": lambda: pd.DataFrame({"item": pd.array([2, 1, 2, 1], dtype="Int64"), "rater": ["x", "x", "y", "y"],
                                           "label": pd.array([1, None, 2, 2], dtype="Int64")}),
    "categorical": lambda: pd.DataFrame({"item": ["b", "a", "b", "a"], "rater": ["x", "x", "y", "y"],
                                         "label": pd.Categorical(["p", "q", None, "p"])}),
    "sets": lambda: pd.DataFrame({"item": ["a", "a"], "rater": ["x", "y"], "label": [["p"], ["p", "q"]]}),
    "infinite": lambda: pd.DataFrame({"item": ["a", "a"], "rater": ["x", "y"], "label": [1.0, np.inf]}),
    "duplicates": lambda: pd.DataFrame({"item": [1, 1, 2, 2, 2], "rater": ["x", "x", "x", "y", "y"],
                                        "label": ["a", "b", "a", "a", None]}),
    "missing rater": lambda: pd.DataFrame({"item": [1, 1], "rater": ["x", None], "label": ["a", "b"]}),
    "surrogates": lambda: pd.DataFrame({"item": ["\ud800", "a"] * 1000, "rater": np.repeat(["x", "y"], 1000),
                                        "label": ["p"] * 2000}).assign(item=lambda d: d["item"] + d.index.astype(str)),
    "many ids": lambda: pd.DataFrame({"item": np.repeat([f"i{k}" for k in np.random.default_rng(0).permutation(2000)], 2),
                                      "rater": ["r10", "r9"] * 2000, "label": ["p", "q", "q", None] * 1000}),
}


@pytest.mark.parametrize("case", sorted(FRAMES))
def test_from_long_by_columns_equals_the_cell_path(monkeypatch, case):
    _assert_same(monkeypatch, lambda: Annotations.from_long(FRAMES[case]()), routes=("cells", "arrow", "pandas"))
    _assert_same(monkeypatch, lambda: Annotations.from_long(FRAMES[case](), normalize="NFC+casefold"),
                 routes=("cells", "arrow"))


def test_from_long_categories_by_columns(monkeypatch):
    df = FRAMES["object text"]()
    for cats in (["q", "p", "unused"], ["p"], ["p", None], ["p", "p", "q"]):
        _assert_same(monkeypatch, lambda cats=cats: Annotations.from_long(df, categories=cats), routes=("cells", "arrow"))


PARQUET_FRAMES = ("object text", "int ids, float labels", "int labels", "bool labels", "object booleans",
                  "nullable ints", "categorical", "sets", "duplicates", "many ids")


@pytest.mark.parametrize("case", PARQUET_FRAMES)
def test_parquet_round_trip(monkeypatch, tmp_path, case):
    """A frame written to Parquet reads back as ``from_long`` of the frame pandas reads from it."""
    df = FRAMES[case]()
    path = tmp_path / "r.parquet"
    df.to_parquet(path)
    want = _outcome(lambda: Annotations.from_long(pd.read_parquet(path)))
    got = _assert_same(monkeypatch, lambda: read_annotations(path), routes=("cells", "arrow"))
    if want[0][0] == "error":  # the reader names the file, and the rows by their place in it (from 1)
        message = want[0][2].replace("rows of (1, 'x'): index 0 and 1", "rows of (1, 'x'): rows 1 and 2 of the file")
        want = (("error", want[0][1], f"r.parquet: {message}"), want[1])
    assert got == want
    if want[0][0] == "ok" and case != "nullable ints":  # written and read back: the frame's own Annotations
        assert want == _outcome(lambda: Annotations.from_long(df))


def test_parquet_options_and_errors(monkeypatch, tmp_path):
    df = pd.DataFrame({"doc": ["a", "a", "b", "b"], "who": ["x", "y", "x", "y"], "text": ["p", "NA", "q", "p"]})
    path = tmp_path / "r.pq"
    df.to_parquet(path)
    got = _assert_same(monkeypatch, lambda: read_annotations(path, item="doc", rater="who", label="text",
                                                             na_values=["NA"]), routes=("cells", "arrow"))
    assert got[0][4] == "('p', 'q')"
    _assert_same(monkeypatch, lambda: read_annotations(path), routes=("cells", "arrow"), expect_ok=False)
    assert read_annotations(path, item="doc", rater="who", label="text", format="parquet").n_ratings == 4
    bad = _write(tmp_path, "bad.parquet", b"PAR1 not really", mode="b")
    with pytest.raises(ValueError, match=r"bad\.parquet: cannot be read as Parquet"):
        read_annotations(bad)
    monkeypatch.setattr(_columnar, "have_arrow", lambda: False)
    with pytest.raises(ImportError, match=r"pyarrow.*softirr-stats\[parquet\]"):
        read_annotations(path, item="doc", rater="who", label="text")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_big_input_shows_a_progress_bar_on_a_terminal(monkeypatch, tmp_path):
    path = _write(tmp_path, "big.csv", CSV_CASES["basic"])
    jl = _write(tmp_path, "big.jsonl", JSONL_CASES["strings"])
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    read_annotations(path)
    read_annotations(jl)
    assert term.getvalue() == ""  # small: no bar
    monkeypatch.setattr(_input, "BIG_INPUT", 0)
    read_annotations(path)
    assert "reading big.csv" in term.getvalue()
    read_annotations(jl)
    assert "parsing big.jsonl" in term.getvalue()
    pq = tmp_path / "big.parquet"
    FRAMES["many ids"]().to_parquet(pq)
    read_annotations(pq)
    assert "reading big.parquet" in term.getvalue()
    monkeypatch.setenv("SOFTIRR_PROGRESS", "0")
    term.seek(0)
    term.truncate()
    read_annotations(path)
    assert term.getvalue() == ""
    pipe = io.StringIO()  # not a terminal: no bar, even when big
    monkeypatch.delenv("SOFTIRR_PROGRESS")
    monkeypatch.setattr(sys, "stderr", pipe)
    read_annotations(path)
    assert pipe.getvalue() == ""


def test_the_arrow_route_is_taken_and_encodes_by_columns(monkeypatch, tmp_path):
    """The default route with pyarrow reads through Arrow (no pandas CSV parse, no cell path)."""
    path = _write(tmp_path, "r.csv", CSV_CASES["numbers"])
    monkeypatch.setattr(_io, "read_table", lambda *a, **k: pytest.fail("the pandas reader was used"))
    ann = read_annotations(path)
    assert ann.items == ("1", "2", "10") and ann.vocabulary == (1, 2, 3)  # digit ids by value (id_order)
    jl = _write(tmp_path, "r.jsonl", JSONL_CASES["int ids, int labels with nulls"])
    assert read_annotations(jl).vocabulary == (1.0, 3.0)


def test_a_soft_kappa_on_a_few_thousand_labels_loads_neither_arrow_nor_pandas():
    """Sorting 2,000 distinct labels takes NumPy 1 ms; loading pyarrow and the pandas it pulls in took 0.9 s
    of bench_cold's soft-Cohen row. Arrow sorts only from ARROW_SORT_MIN_COLD labels in a fresh process."""
    import subprocess
    import sys

    code = ("import sys, numpy as np, softirr_stats as sis\n"
            "from softirr_stats.equivalence import Levenshtein\n"
            "w = np.array([f'label {i:05d}' for i in range(2000)], dtype=object)\n"
            "r = sis.cohen_kappa(np.stack([w, w[::-1]], axis=1), similarity=Levenshtein())\n"
            "assert r.n_items == 2000\n"
            "assert 'pyarrow' not in sys.modules and 'pandas' not in sys.modules, "
            "[m for m in ('pyarrow', 'pandas') if m in sys.modules]\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_text_order_is_code_point_order_by_either_route(monkeypatch):
    from softirr_stats.data import _columnar

    rng = np.random.default_rng(5)
    pool = ["a", "B", "é", "z", "ß", "日本", "😀", " ", "a b", "Z"]
    uniq = np.array(sorted({"".join(rng.choice(pool, 4)) for _ in range(3000)}, key=lambda s: rng.random()),
                    dtype=object)
    want = sorted(uniq.tolist())
    assert uniq[_columnar._text_order(uniq)].tolist() == want  # NumPy: fewer than ARROW_SORT_MIN_COLD labels
    if _columnar.have_arrow():
        monkeypatch.setattr(_columnar, "ARROW_SORT_MIN_COLD", 0)
        monkeypatch.setattr(_columnar, "ARROW_SORT_MIN_WARM", 0)
        assert uniq[_columnar._text_order(uniq)].tolist() == want  # Arrow's UTF-8 byte order


def test_text_ids_take_one_natural_order_digit_ids_by_value():
    ids = np.array(["10", "b", "2", "007", "x10", "7", "x9", "0", "", "99999999999999999999999"], dtype=object)
    got = ids[_columnar.id_order(ids)].tolist()
    # digit ids by value ("007" and "7" two ids, by their text), then the others in code-point order
    assert got == ["0", "2", "007", "7", "10", "99999999999999999999999", "", "b", "x10", "x9"]
    plain = np.array(["b", "a", "c"], dtype=object)
    assert plain[_columnar.id_order(plain)].tolist() == sorted(plain)


@pytest.mark.parametrize("ids", ["int", "zero-padded"])
def test_a_file_read_either_way_orders_its_items_alike_and_bootstraps_alike(tmp_path, ids):
    # read_annotations (text ids '0', '1', '10', ...) and from_long(pd.read_csv(f)) (integers 0, 1, 2, ...) ordered
    # the items differently, so the same seed gave each item another bootstrap weight and other intervals
    import softirr_stats as sis

    rng = np.random.default_rng(0)
    truth = rng.integers(0, 3, 60)
    name = (lambda i: str(i)) if ids == "int" else (lambda i: f"{i:03d}" if i % 2 else str(i))
    rows = [(name(i), f"r{j}", int(truth[i] if rng.random() < 0.7 else rng.integers(0, 3)))
            for i in range(60) for j in range(3)]
    path = tmp_path / "pilot.csv"
    pd.DataFrame(rows, columns=["item", "rater", "label"]).to_csv(path, index=False)
    text = read_annotations(path)
    by_pandas = Annotations.from_long(pd.read_csv(path, dtype={"item": str} if ids != "int" else None))
    cells = Annotations.from_long(pd.read_csv(path, dtype=object).astype({"label": int}))  # the cell path
    assert [str(i) for i in by_pandas.items] == list(text.items) == list(cells.items)
    assert list(text.items[:3]) == ([name(0), name(1), name(2)])
    B = sis.Bootstrap(n=300, seed=0)
    ref = sis.fleiss_kappa(text, ci=B)
    for other in (by_pandas, cells):
        r = sis.fleiss_kappa(other, ci=B)
        assert (r.ci_low, r.ci_high) == (ref.ci_low, ref.ci_high)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plans = [sis.plan_items("fleiss_kappa", halfwidth=0.1, pilot=a, method="bootstrap", bootstrap=300, seed=0)
                 for a in (text, by_pandas)]
    assert plans[0].n == plans[1].n
    assert abs(plans[0].to_frame()["se_at_n"][0] - plans[1].to_frame()["se_at_n"][0]) < 1e-12


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le"])
def test_a_utf16_file_without_its_byte_order_mark_is_named_with_the_encoding_to_pass(monkeypatch, tmp_path, codec):
    """UTF-16 without a byte-order mark decodes as UTF-8 without an error (its zero bytes are UTF-8): the CSV
    was refused for its field counts ('line 6 has 1 field where the header has 3 (['i\\x00t\\x00e\\x00m\\x00', ...'),
    a UTF-16-BE one for lacking its columns, and encoding='utf-16' raised a bare 'UTF-16 stream does not start
    with BOM'. Every route now names the file and the encoding that reads it."""
    rows = "item,rater,label\n1,x,caf\u00e9\n1,y,the\n2,x,the\n2,y,the\n"
    for name, text in (("u.csv", rows), ("u.tsv", rows.replace(",", "\t")),
                       ("u.jsonl", "".join(json.dumps({"item": i, "rater": r, "label": lab}) + "\n"
                                           for i, r, lab in (line.split(",") for line in rows.split()[1:])))):
        path = _write(tmp_path, name, text.encode(codec), mode="b")
        for asked in ("utf-8", "latin-1", codec[:6]):
            out = _assert_same(monkeypatch, lambda path=path, asked=asked: read_annotations(path, encoding=asked),
                               expect_ok=False)
            instead = f"which encoding='{codec[:6]}' needs" if asked == codec[:6] else f"not {'UTF-8' if asked == 'utf-8' else asked} text"
            zeros = "a zero byte" if codec.startswith("utf-16") else "three zero bytes"
            assert out[0][2] == (f"{path if name != 'u.jsonl' else name}: this file is {codec.upper()} text without a "
                                 f"byte-order mark ({zeros} beside each character), {instead}: pass encoding="
                                 f"'{codec}' (--reader-option encoding={codec}), or re-save it as UTF-8"), out[0][2]
        ok = _assert_same(monkeypatch, lambda path=path: read_annotations(path, encoding=codec), expect_ok=True)
        assert ok[0][4] == "('café', 'the')"
    wide = _write(tmp_path, "w.csv", "doc,ana,bo\nd1,x,y\nd2,x,x\n".encode(codec), mode="b")
    with pytest.raises(ValueError, match=rf"w\.csv: this file is {codec.upper()} text without a byte-order mark"):
        read_annotations(wide, wide=True, item="doc")
    assert read_annotations(wide, wide=True, item="doc", encoding=codec).raters == ("ana", "bo")
    with_mark = _write(tmp_path, "m.csv", rows.encode(codec[:6]), mode="b")  # with its mark: read as before
    assert read_annotations(with_mark, encoding=codec[:6]).vocabulary == ("café", "the")
