"""Table-driven: bad or unusual inputs through the API, each with its expected outcome.

Every row is ``(id, call, expected)``: ``call(tmp_path)`` runs one API call;
``expected`` is ``("value", v)`` (a finite value, compared to 1e-9), ``("nan", Warning, fragment)``
(nan plus a warning whose message contains the fragment) or ``("error", Exception, fragment)``
(the exception class and a fragment of its message). The CLI rows live with the CLI tests.
"""

import math
import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.agreement._evaluator import DegenerateWarning
from softirr_stats.base._validation import SoftIRRWarning
from softirr_stats.equivalence import Cached, Levenshtein, Masi, as_estimator

C = sis.cohen_kappa
F = sis.fleiss_kappa
A = sis.krippendorff_alpha
GOOD = [["a", "a"], ["b", "b"], ["a", "b"], ["c", "c"]]
GOOD3 = [["a", "a", "b"], ["b", "b", "b"], ["a", "c", "a"], ["c", "c", "c"]]


def csv(tmp_path, text, name="f.csv", raw=False):
    p = tmp_path / name
    p.write_bytes(text) if raw else p.write_text(text, encoding="utf-8")
    return p


def kappa_of(tmp_path, text, **kw):
    return C(sis.read_annotations(csv(tmp_path, text), **kw))


def foreign_db(tmp_path):
    p = tmp_path / "other.sqlite"
    con = sqlite3.connect(p)
    con.execute("CREATE TABLE orders (id INTEGER)")
    con.commit()
    con.close()
    return Cached(Levenshtein(), p)(["a"], ["b"])


def tampered(tmp_path, value):
    p = tmp_path / "t.sqlite"
    Cached(Levenshtein(), p)(["ab"], ["ac"])
    con = sqlite3.connect(p)
    con.execute("UPDATE scores SET score = ?", (value,))
    con.commit()
    con.close()
    return Cached(Levenshtein(), p)(["ab"], ["ac"])


class Opaque:
    t = 0.5


OPAQUE = Opaque()


def _const(v):
    return lambda a, b: [v] * len(a)

ROWS = [
    # --- tables and constructors ------------------------------------------------------------
    ("empty-list", lambda t: C([]), ("error", ValueError, "no rows")),
    ("one-rater", lambda t: F([["a"], ["b"]]), ("error", ValueError, "at least two raters")),
    ("no-pairable-item", lambda t: F([["a", None], [None, "b"]]), ("error", ValueError, "no item has two or more ratings")),
    ("all-missing", lambda t: C([[None, None], [None, None]]), ("error", ValueError, "every label is missing")),
    ("ragged-rows", lambda t: C([["a", "b"], ["a"]]), ("error", ValueError, "same number of raters")),
    ("3d-array", lambda t: C(np.zeros((2, 2, 2))), ("error", ValueError, "2-D")),
    ("mixed-kinds", lambda t: C([["a", 1], ["b", 2]]), ("error", TypeError, "labels mix kinds")),
    ("unhashable-dict", lambda t: C([[{"a": 1}, "b"], ["a", "b"]]), ("error", TypeError, "hashable")),
    ("inf-label", lambda t: C([[1.0, math.inf], [2.0, 2.0]]), ("error", TypeError, "finite")),
    ("set-with-int", lambda t: A([[{"a", 1}, {"a"}], [{"b"}, {"b"}]]), ("error", TypeError, "only strings")),
    ("bad-ann-type", lambda t: C("a,b"), ("error", TypeError, "wide table")),
    ("dup-item-rater", lambda t: sis.Annotations.from_long(pd.DataFrame({"item": [1, 1], "rater": ["a", "a"], "label": ["x", "y"]})),
     ("error", ValueError, "duplicate (item, rater)")),
    ("missing-column", lambda t: sis.Annotations.from_long(pd.DataFrame({"doc": [1]}), item="item"),
     ("error", ValueError, "item column 'item' not found")),
    ("missing-item-id", lambda t: sis.Annotations.from_long(pd.DataFrame({"item": [1, None], "rater": ["a", "b"], "label": ["x", "y"]})),
     ("error", ValueError, "item column 'item' has missing values")),
    ("long-not-df", lambda t: sis.Annotations.from_long([[1, "a", "x"]]), ("error", TypeError, "DataFrame")),
    # a long DataFrame given where a wide table is read: its columns would be three raters (a kappa of nonsense)
    ("long-df-to-coefficient", lambda t: F(pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b"] * 2,
                                                         "label": ["x", "x", "y", "x"]})),
     ("error", ValueError, "sis.Annotations.from_long(df, item='item', rater='rater', label='label')")),
    ("long-df-other-names", lambda t: sis.icc(pd.DataFrame({"Doc": [1, 1], "Annotator": ["a", "b"], "Score": [1, 2]})),
     ("error", ValueError, "from_long(df, item='Doc', rater='Annotator', label='Score')")),
    ("long-df-to-model", lambda t: sis.annotator_agreement(pd.DataFrame({"item": [1, 1], "rater": ["a", "b"],
                                                                         "label": ["x", "y"]})),
     ("error", ValueError, "looks like a long table")),
    ("wide-df-with-rater-names", lambda t: F(pd.DataFrame({"ana": ["x", "y", "x"], "bo": ["x", "y", "y"]})),
     ("value", F([["x", "x"], ["y", "y"], ["x", "y"]]).value)),
    ("categories-dup", lambda t: C(GOOD, categories=["a", "a", "b", "c"]), ("error", ValueError, "distinct")),
    ("categories-missing", lambda t: C(GOOD, categories=["a", "b"]), ("error", ValueError, "not in the declared categories")),
    ("normalize-typo", lambda t: sis.Annotations.from_wide(GOOD, normalize="nfc"), ("error", ValueError, "normalize must be one of")),
    ("normalize-nfc", lambda t: C(sis.Annotations.from_wide([["e\u0301", "\u00e9"], ["x", "x"], ["x", "e\u0301"]],
                                                            normalize="NFC")),
     ("value", C([["\u00e9", "\u00e9"], ["x", "x"], ["x", "\u00e9"]]).value)),
    ("unicode-exact-default", lambda t: sis.percent_agreement([["e\u0301", "\u00e9"], ["x", "x"]]), ("value", 0.5)),
    ("cohen-3-raters", lambda t: C(GOOD3), ("error", ValueError, "exactly two raters")),
    ("scott-3-raters", lambda t: sis.scott_pi(GOOD3), ("error", ValueError, "exactly two raters")),
    # --- degenerate statistics ----------------------------------------------------------------
    ("constant-column", lambda t: C([["a", "a"], ["a", "a"]]), ("nan", DegenerateWarning, "expected (chance) agreement is 1")),
    ("constant-fleiss", lambda t: F([["x", "x", "x"]] * 3), ("nan", DegenerateWarning, "expected (chance) agreement is 1")),
    ("constant-alpha", lambda t: A([[1, 1], [1, 1]]), ("nan", DegenerateWarning, "undefined")),
    ("single-item-pair", lambda t: sis.percent_agreement([["a", "b"]]), ("value", 0.0)),
    ("perfect", lambda t: C([["a", "a"], ["b", "b"]]), ("value", 1.0)),
    ("unpairable-items", lambda t: F([["a", "a"], ["b", None], ["c", "c"]]).n_items, ("value", 3)),
    # --- weights and similarity ------------------------------------------------------------------
    ("weights-typo", lambda t: C(GOOD, weights="linaer"), ("error", ValueError, "weights must be one of")),
    ("weights-text-no-order", lambda t: C([["low", "high"], ["mid", "mid"], ["low", "low"]], weights="linear"),
     ("error", ValueError, "in Python: categories=")),
    ("weights-text-ordered", lambda t: C([["low", "high"], ["mid", "mid"], ["low", "low"]], weights="linear",
                                         categories=["low", "mid", "high"]),
     ("value", C([[0, 2], [1, 1], [0, 0]], weights="linear").value)),
    ("weights-and-similarity", lambda t: C(GOOD, weights="linear", similarity=Levenshtein()),
     ("error", ValueError, "not both")),
    ("weights-on-sets", lambda t: C([[{"a"}, {"b"}], [{"a"}, {"a"}]], weights="linear"), ("error", ValueError, "similarity= for sets")),
    ("weights-matrix-shape", lambda t: C(GOOD, weights=np.eye(2)), ("error", ValueError, "weights")),
    ("similarity-bad-type", lambda t: C(GOOD, similarity=3), ("error", TypeError, "similarity must be")),
    ("similarity-out-of-range", lambda t: C(GOOD, similarity=lambda a, b: [2.0] * len(a)), ("error", ValueError, "[0, 1]")),
    ("similarity-nan", lambda t: C(GOOD, similarity=lambda a, b: [math.nan] * len(a)), ("error", ValueError, "nan")),
    ("similarity-wrong-length", lambda t: C(GOOD, similarity=lambda a, b: [0.5]), ("error", ValueError, "shape")),
    ("levenshtein-on-numbers", lambda t: C([[1, 2], [3, 3]], similarity=Levenshtein()), ("error", TypeError, "compares strings")),
    ("masi-default-exact", lambda t: float(Masi()([frozenset({"a", "b"})], [frozenset("abcd")])[0]), ("value", 0.5 * 2 / 3)),
    ("masi-rounded", lambda t: float(Masi(exact=False)([frozenset({"a", "b"})], [frozenset("abcd")])[0]), ("value", 0.5 * 0.67)),
    ("alpha-level-typo", lambda t: A(GOOD, level="nominl"), ("error", ValueError, "level must be one of")),
    ("chance-typo", lambda t: F(GOOD3, chance="permute"), ("error", ValueError, "chance must be one of")),
    ("ci-typo", lambda t: F(GOOD3, ci="bootstrap"), ("error", ValueError, "ci must be")),
    # --- bootstrap configuration --------------------------------------------------------------------
    ("boot-chunk-negative", lambda t: sis.Bootstrap(chunk_size=-3), ("error", ValueError, "chunk_size must be >= 1")),
    ("boot-seed-float", lambda t: sis.Bootstrap(seed=1.5), ("error", TypeError, "seed must be an integer")),
    ("boot-seed-huge", lambda t: sis.Bootstrap(seed=2**70), ("error", ValueError, "2**63 - 1")),
    ("boot-n-1", lambda t: sis.Bootstrap(n=1), ("error", ValueError, "n must be >= 2")),
    ("boot-level-1", lambda t: sis.Bootstrap(level=1.0), ("error", ValueError, "level must be in (0, 1)")),
    ("boot-design-typo", lambda t: sis.Bootstrap(design="item"), ("error", ValueError, "design must be one of")),
    ("boot-cluster-missing", lambda t: sis.Bootstrap(design="cluster"), ("error", ValueError, "needs cluster=")),
    ("boot-one-cluster", lambda t: F(GOOD3, ci=sis.Bootstrap(n=20, design="cluster", cluster=[0] * 4)),
     ("error", ValueError, "at least 2 clusters to resample")),
    ("boot-singleton-strata", lambda t: F(GOOD3, ci=sis.Bootstrap(n=20, strata=[0, 1, 2, 3])),
     ("error", ValueError, "at least 2 items per stratum")),
    ("boot-two-raters", lambda t: C(GOOD, ci=sis.Bootstrap(n=20, design="raters")),
     ("error", ValueError, "needs at least 3; got 2")),
    ("sampled-pairs-n2-se", lambda t: sis.scott_pi([["a", "b"], ["b", "b"], ["a", "a"]] * 3,
                                                   chance=sis.SampledPairs(n=2, seed=3)).chance_se,
     ("nan", None, "")),
    ("sampled-pairs-n1", lambda t: sis.SampledPairs(n=1), ("error", ValueError, "n must be >= 2")),
    # --- files ---------------------------------------------------------------------------------------
    ("file-missing", lambda t: sis.read_annotations(t / "nope.csv"), ("error", FileNotFoundError, "nope.csv")),
    ("file-empty", lambda t: sis.read_annotations(csv(t, "")), ("error", ValueError, "f.csv: the file is empty")),
    ("file-header-only", lambda t: sis.read_annotations(csv(t, "item,rater,label\n")), ("error", ValueError, "no rows")),
    ("file-latin1", lambda t: sis.read_annotations(csv(t, "item,rater,label\n1,a,\xe9t\xe9\n".encode("latin-1"), raw=True)),
     ("error", ValueError, "f.csv: not UTF-8")),
    ("file-bad-extension", lambda t: sis.read_annotations(csv(t, "x", name="f.docx")), ("error", ValueError, "pass format= one of")),
    ("file-workbook", lambda t: sis.read_annotations(csv(t, "x", name="f.xlsx")),
     ("error", ValueError, "f.xlsx: not an Excel workbook (.xlsx is a zip archive; this file is not one)")),
    ("file-old-workbook", lambda t: sis.read_annotations(csv(t, "x", name="f.xls")),
     ("error", ValueError, "a spreadsheet workbook (.xls) is not read; save it as an Excel workbook (.xlsx")),
    ("file-shifted-columns", lambda t: sis.read_annotations(csv(t, "item,rater,label\n1,a,x,extra\n1,b,x,more\n")),
     ("error", ValueError, "more fields than the header")),
    ("file-trailing-comma", lambda t: kappa_of(t, "item,rater,label\n1,a,x,\n1,b,x,\n2,a,y,\n2,b,y,\n"),
     ("value", 1.0)),
    ("file-bad-jsonl", lambda t: sis.read_annotations(csv(t, '{"item": 1\n', name="f.jsonl")), ("error", ValueError, "line 1: not valid JSON")),
    ("file-jsonl-array", lambda t: sis.read_annotations(csv(t, '[1, 2]\n', name="f.jsonl")), ("error", ValueError, "pass format= one of")),
    ("file-wrong-column", lambda t: sis.read_annotations(csv(t, "doc,rater,label\n1,a,x\n")), ("error", ValueError, "item column 'item' not found")),
    ("file-NA-label", lambda t: kappa_of(t, "item,rater,label\n1,a,NA\n1,b,NA\n2,a,x\n2,b,x\n3,a,NA\n3,b,x\n"),
     ("value", C([["NA", "NA"], ["x", "x"], ["NA", "x"]]).value)),
    ("file-null-label", lambda t: kappa_of(t, "item,rater,label\n1,a,null\n1,b,null\n2,a,x\n2,b,x\n"), ("value", 1.0)),
    ("file-NA-opt-in", lambda t: sis.read_annotations(csv(t, "item,rater,label\n1,a,NA\n1,b,x\n2,a,y\n"),
                                                      na_values=["NA"]).n_ratings, ("value", 2)),
    ("file-ids-007", lambda t: kappa_of(t, "item,rater,label\n007,a,x\n007,b,x\n7,a,y\n7,b,y\n"), ("value", 1.0)),
    ("file-numeric-labels", lambda t: sis.read_annotations(csv(t, "item,rater,label\n1,a,2\n1,b,10\n")).vocabulary[1],
     ("value", 10)),
    ("file-na-values-type", lambda t: sis.read_annotations(csv(t, "item,rater,label\n1,a,x\n"), na_values=[3]),
     ("error", TypeError, "na_values")),
    # --- caches ----------------------------------------------------------------------------------------
    ("cache-global-object", lambda t: Cached(as_estimator(lambda a, b: [OPAQUE.t] * len(a)), t / "c.sqlite"),
     ("error", ValueError, "holds an object whose state cannot be described")),
    ("cache-closure-safe", lambda t: Cached(as_estimator(_const(0.25)), t / "c.sqlite")(["a"], ["b"])[0],
     ("value", 0.25)),
    ("cache-explicit-fingerprint", lambda t: Cached(as_estimator(lambda a, b: [OPAQUE.t] * len(a)), t / "c.sqlite",
                                                    fingerprint="opaque-v1")(["a"], ["b"])[0], ("value", 0.5)),
    ("cache-opaque-object", lambda t: Cached(as_estimator(lambda a, b, o=OPAQUE: [o.t] * len(a)), t / "c.sqlite"),
     ("error", ValueError, "cannot derive a safe cache fingerprint")),
    ("cache-foreign-db", foreign_db, ("error", sqlite3.DatabaseError, "not a softirr score cache")),
    ("cache-tampered-high", lambda t: tampered(t, 1.5), ("error", ValueError, "holds 1.5")),
    ("cache-tampered-text", lambda t: tampered(t, "zero"), ("error", ValueError, "holds 'zero'")),
    ("cache-batch-size", lambda t: Cached(Levenshtein(), t / "c.sqlite", batch_size=0), ("error", ValueError, "batch_size")),
    ("cache-empty-fingerprint", lambda t: Cached(Levenshtein(), t / "c.sqlite", fingerprint=" "), ("error", ValueError, "fingerprint must be")),
    ("cache-no-dir", lambda t: Cached(Levenshtein(), t / "x" / "y" / "c.sqlite")(["a"], ["b"]), ("error", sqlite3.OperationalError, "c.sqlite")),
]


# --- issue 20 (trust): specs are data, caches never mix estimators, the judge parser, cache errors ----------
class _Thr(Levenshtein):
    def __init__(self, t):
        super().__init__()
        self.t = t

    def _score(self, a, b):
        return (super()._score(a, b) >= self.t).astype(float)


class _Hidden(Levenshtein):
    def __init__(self, t):
        super().__init__()
        self._t = t


def _thr_pair(t):
    Cached(_Thr(0.1), t / "c.sqlite")(["abcd"], ["abxy"])
    return Cached(_Thr(0.9), t / "c.sqlite")(["abcd"], ["abxy"])[0]


def _spec(params, cls="softirr_stats.equivalence._string:Levenshtein"):
    from softirr_stats.equivalence import from_spec

    return from_spec({"cls": cls, "params": params})


def _parse(text):
    from softirr_stats.equivalence import parse_probability

    v = parse_probability(text)
    return -1.0 if v is None else v


ROWS += [
    ("spec-os-system", lambda t: _spec({"processor": {"__callable__": "os:system"}}), ("error", ValueError, "not on the allow-list")),
    ("spec-builtin-eval", lambda t: _spec({"processor": {"__callable__": "builtins:eval"}}), ("error", ValueError, "not on the allow-list")),
    ("spec-foreign-class", lambda t: _spec({}, cls="subprocess:Popen"), ("error", ValueError, "so it was not imported")),
    ("spec-public-alias", lambda t: _spec({}, cls="softirr_stats.equivalence:Levenshtein")(["ab"], ["ac"])[0], ("value", 0.5)),
    ("spec-remote-code", lambda t: _spec({"model": "x", "trust_remote_code": True}, cls="softirr_stats.equivalence:Nli"),
     ("error", ValueError, "trust_remote_code=true")),
    ("spec-literal-key", lambda t: _spec({"base_url": "https://h/v1", "model": "m", "api_key": "sk-1"},
                                         cls="softirr_stats.equivalence:OpenAICompatibleJudge"), ("error", ValueError, "literal credential")),
    ("spec-deep-json", lambda t: sis.equivalence.from_spec("[" * 200_000 + "]" * 200_000), ("error", ValueError, "nested too deeply")),
    ("spec-no-colon", lambda t: _spec({}, cls="softirr_stats.equivalence.Exact"), ("error", ValueError, "module:QualName")),
    ("cache-subclass-params", lambda t: _thr_pair(t), ("value", 0.0)),
    ("cache-unkept-argument", lambda t: Cached(_Hidden(0.3), t / "c.sqlite"), ("error", ValueError, "Pass fingerprint=")),
    ("cache-directory", lambda t: Cached(Levenshtein(), t)(["a"], ["b"]), ("error", ValueError, "is a directory")),
    ("cache-garbage-file", lambda t: Cached(Levenshtein(), csv(t, "x" * 5000, name="g.sqlite")).n_cached(),
     ("error", ValueError, "g.sqlite' is not a SQLite database")),
    ("judge-parse-last-cue", lambda t: _parse("Step 1: compare. Step 2: weigh. Probability: 0.05"), ("value", 0.05)),
    ("judge-parse-negative", lambda t: _parse("-0.5"), ("value", -1.0)),
    ("judge-parse-above-1", lambda t: _parse("Probability: 1.5"), ("value", -1.0)),
    ("judge-parse-percent", lambda t: _parse("I'd put it at 85%"), ("value", 0.85)),
    ("judge-userinfo-url", lambda t: sis.equivalence.OpenAICompatibleJudge("https://u:p@h/v1", "m"), ("error", ValueError, "user name or password")),
    ("similarity-asymmetric-symmetrised", lambda t: C(GOOD, similarity=[[1, .2, 0], [.6, 1, 0], [0, 0, 1]]).value,
     ("value", C(GOOD, similarity=[[1, .4, 0], [.4, 1, 0], [0, 0, 1]]).value)),
]


def _check(outcome, expected, caught):
    kind = expected[0]
    if kind == "value":
        if expected[1] is None:  # only: it ran without an error
            return
        got = outcome.value if hasattr(outcome, "value") else outcome
        assert got == pytest.approx(expected[1], abs=1e-9)
        return
    got = outcome.value if hasattr(outcome, "value") else outcome
    assert isinstance(got, float) and math.isnan(got), got
    if expected[1] is not None:
        msgs = [str(w.message) for w in caught if issubclass(w.category, expected[1])]
        assert any(expected[2] in m for m in msgs), msgs


@pytest.mark.parametrize("name, call, expected", ROWS, ids=[r[0] for r in ROWS])
def test_bad_input(tmp_path, name, call, expected):
    if expected[0] == "error":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SoftIRRWarning)
            with pytest.raises(expected[1]) as info:
                call(tmp_path)
        assert expected[2] in str(info.value), str(info.value)
        return
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcome = call(tmp_path)
    _check(outcome, expected, caught)


def test_table_is_large_enough():
    assert len(ROWS) >= 60
