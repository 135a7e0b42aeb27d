"""Label identity is decided once (issue 35 rows 10, 11, 12, 23; docs/unusual_input.md "Label identity").

One table of cases, read through every reader that turns cells into labels: CSV (the Arrow and
the pandas routes), TSV, JSON Lines, a Label Studio CSV export, ``Annotations.from_long`` and
``from_wide``. Each case lists two raters' labels per item; the expectation is the number of
distinct labels (nothing merged), the kind, and the warning (a ``LabelWarning`` counting the
texts kept apart), identical for every reader that sees the same cells.
"""

import json
import time
import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.data import LabelWarning, _columnar, _labels
from softirr_stats.data._labels import check_labels, check_names, text_numbers

pytestmark = pytest.mark.filterwarnings("ignore::softirr_stats.UnpairableItemsWarning")

BIG = 2**53


def _csv(tmp_path, pairs, sep=",", name="t.csv"):
    path = tmp_path / name
    lines = [sep.join(("item", "rater", "label"))]
    for i, (a, b) in enumerate(pairs):
        lines += [sep.join((str(i), "r1", a)), sep.join((str(i), "r2", b))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _label_studio(tmp_path, pairs):
    path = tmp_path / "ls.csv"
    rows = ["id,annotator,annotation_id,sentiment"]
    k = 0
    for i, (a, b) in enumerate(pairs):
        for who, lab in (("r1", a), ("r2", b)):
            rows.append(f"{i},{who},{k},{lab}")
            k += 1
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def _read(reader, tmp_path, monkeypatch, pairs):
    """Annotations of ``pairs`` (text cells) through ``reader``."""
    if reader == "csv-arrow":
        return sis.read_annotations(_csv(tmp_path, pairs))
    if reader == "csv-pandas":
        monkeypatch.setattr(_columnar, "have_arrow", lambda: False)
        return sis.read_annotations(_csv(tmp_path, pairs))
    if reader == "tsv":
        return sis.read_annotations(_csv(tmp_path, pairs, sep="\t", name="t.tsv"))
    if reader == "label-studio-csv":
        return sis.read_annotations(_label_studio(tmp_path, pairs), format="label-studio")
    if reader == "from_long":
        return sis.Annotations.from_long(pd.DataFrame({
            "item": [i for i, _ in enumerate(pairs) for _ in (0, 1)], "rater": ["r1", "r2"] * len(pairs),
            "label": pd.Series([x for p in pairs for x in p], dtype=object)}))
    if reader == "from_wide":
        return sis.Annotations.from_wide([list(p) for p in pairs])
    raise AssertionError(reader)


TEXT_READERS = ("csv-arrow", "csv-pandas", "tsv", "label-studio-csv")
ALL_READERS = (*TEXT_READERS, "from_long", "from_wide")

# (case id, pairs of text cells, distinct labels expected, kind expected from the text readers,
#  the warning's words or None); from_long / from_wide get the same texts (never converted to numbers)
CASES = [
    ("row12: 01 / 1", [("01", "1"), ("1", "1"), ("2", "2")], 3, "categorical", "one number written differently"),
    ("row12: 1.0 / 1", [("1.0", "1"), ("1", "1"), ("2", "2")], 3, "categorical", "one number written differently"),
    ("row12: ' 1' / 1", [(" 1", "1"), ("1", "1"), ("2", "2")], 3, "categorical", "one number written differently"),
    ("row12: 1e3 / 1000", [("1e3", "1000"), ("1000", "1000"), ("2", "2")], 3, "categorical",
     "one number written differently"),
    ("row12: -0 / 0", [("-0", "0"), ("0", "0"), ("2", "2")], 3, "categorical", "one number written differently"),
    ("row12: 0.50 / 0.5", [("0.50", "0.5"), ("0.5", "0.5"), ("2", "2")], 3, "categorical",
     "one number written differently"),
    ("row11: 1_000 / 1000", [("1_000", "1000"), ("1000", "1000"), ("2", "2")], 3, "categorical",
     "one number written differently"),
    ("row11: full-width 1 / 1", [("\uff11", "1"), ("1", "1"), ("2", "2")], 3, "categorical",
     "one number written differently"),
    ("row11: 2**53+1 / 2**53", [(str(BIG + 1), str(BIG)), (str(BIG), str(BIG)), ("0.5", "0.5")], 3, "numeric", None),
    ("2**63+1 / 2**63", [(str(2**63 + 1), str(2**63)), ("1", "1")], 3, "numeric", None),
    ("0.1 / 0.10000000000000000001", [("0.1", "0.10000000000000000001"), ("0.1", "0.1")], 2, "categorical",
     "numbers float64 cannot tell apart"),
    ("plain integers", [("1", "2"), ("10", "10"), ("-3", "+4")], 5, "numeric", None),
    ("plain decimals", [("1.0", "2.5"), ("1e-3", "2.5")], 3, "numeric", None),
    ("row23: NFD / NFC", [("cafe\u0301", "caf\u00e9"), ("tea", "tea")], 3, "categorical", "normalize='NFC'"),
    ("row23: full-width", [("\uff43\uff41\uff46\uff45", "cafe"), ("tea", "tea")], 3, "categorical",
     "normalize='NFKC'"),
    ("row23: zero-width space", [("ca\u200bfe", "cafe"), ("tea", "tea")], 3, "categorical", "invisible (zero-width)"),
    ("row23: trailing space", [("cafe ", "cafe"), ("tea", "tea")], 3, "categorical", "spaces, control characters"),
    ("NUL", [("cafe\x00", "cafe"), ("tea", "tea")], 3, "categorical", "spaces, control characters"),
    ("SOH", [("cafe\x01", "cafe"), ("tea", "tea")], 3, "categorical", "spaces, control characters"),
    ("ESC", [("cafe\x1b", "cafe"), ("tea", "tea")], 3, "categorical", "spaces, control characters"),
    ("DEL", [("cafe\x7f", "cafe"), ("tea", "tea")], 3, "categorical", "spaces, control characters"),
    ("C1 CSI", [("cafe\x9b", "cafe"), ("tea", "tea")], 3, "categorical", "spaces, control characters"),
    ("unit separator", [("cafe\x1f", "cafe"), ("tea", "tea")], 3, "categorical", "spaces, control characters"),
    ("tag character", [("cafe\U000e0061", "cafe"), ("tea", "tea")], 3, "categorical", "spaces, control characters"),
    ("row23: case is not a look-alike", [("Cafe", "cafe"), ("tea", "tea")], 3, "categorical", None),
    ("Cyrillic a in a Latin word", [("c\u0430fe", "cafe"), ("tea", "tea")], 3, "categorical",
     "'c\\u0430fe' has a Cyrillic letter (U+0430)"),
    ("Russian labels", [("\u0434\u0430", "\u043d\u0435\u0442"), ("\u0434\u0430", "\u0434\u0430")], 2, "categorical",
     None),
    ("free text", [("fever", "pyrexia"), ("cough", "cough")], 3, "categorical", None),
]


def _outcome(reader, tmp_path, monkeypatch, pairs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ann = _read(reader, tmp_path, monkeypatch, pairs)
    return ann, [str(w.message) for w in caught if issubclass(w.category, LabelWarning)]


@pytest.mark.parametrize("reader", ALL_READERS)
@pytest.mark.parametrize("case, pairs, distinct, kind, words", CASES, ids=[c[0] for c in CASES])
def test_labels_keep_their_identity(tmp_path, monkeypatch, reader, case, pairs, distinct, kind, words):
    ann, said = _outcome(reader, tmp_path, monkeypatch, pairs)
    assert len(ann.vocabulary) == distinct, (ann.vocabulary, said)
    if reader in TEXT_READERS:
        assert ann.kind == kind
    else:
        assert ann.kind == "categorical"  # Python strings stay text
    if words is None:
        assert said == []
    else:
        assert len(said) == 1 and words in said[0], said
        assert "kept apart" in said[0]
    # the first item's two labels differ, so they never count as agreement
    assert ann.codes[0, 0] != ann.codes[0, 1]


@pytest.mark.parametrize("case, pairs, distinct, kind, words", CASES, ids=[c[0] for c in CASES])
def test_every_text_reader_gives_the_same_labels(tmp_path, monkeypatch, case, pairs, distinct, kind, words):
    """One rule: every text reader gives the same vocabulary (values and types) and the same warning."""
    seen = {}
    for reader in ("csv-arrow", "csv-pandas", "label-studio-csv"):
        monkeypatch.undo()
        ann, said = _outcome(reader, tmp_path, monkeypatch, pairs)
        seen[reader] = (repr(ann.vocabulary), ann.kind, said)
    assert len(set(map(repr, seen.values()))) == 1, seen


def test_row10_big_integers_next_to_a_half_every_reader(tmp_path, monkeypatch):
    """2**53 + 1 and 2**53 with one 0.5 label: three labels on every route, the kappa of the labels as text."""
    pairs = [(BIG + 1, BIG), (BIG, BIG), (0.5, 0.5), (BIG + 1, BIG + 1), (BIG, 0.5), (0.5, 0.5)]
    as_text = sis.cohen_kappa([[str(a), str(b)] for a, b in pairs]).value
    csv_path = _csv(tmp_path, [(str(a), str(b)) for a, b in pairs])
    jsonl = tmp_path / "t.jsonl"
    jsonl.write_text("".join(json.dumps({"item": i, "rater": r, "label": lab}) + "\n"
                             for i, p in enumerate(pairs) for r, lab in zip(("r1", "r2"), p, strict=True)))
    long = pd.DataFrame({"item": [i for i, _ in enumerate(pairs) for _ in (0, 1)], "rater": ["r1", "r2"] * len(pairs),
                         "label": pd.Series([x for p in pairs for x in p], dtype=object)})
    builds = {"csv": lambda: sis.read_annotations(csv_path), "jsonl": lambda: sis.read_annotations(jsonl),
              "from_long": lambda: sis.Annotations.from_long(long),
              "from_wide": lambda: sis.Annotations.from_wide([list(p) for p in pairs])}
    for route in ("arrow", "pandas"):
        monkeypatch.undo()
        if route == "pandas":
            monkeypatch.setattr(_columnar, "have_arrow", lambda: False)
        for name, build in builds.items():
            ann = build()
            assert ann.vocabulary == (0.5, BIG, BIG + 1), (route, name, ann.vocabulary)
            assert [type(v) for v in ann.vocabulary] == [float, int, int], (route, name)
            assert sis.cohen_kappa(ann).value == pytest.approx(as_text, abs=1e-12), (route, name)


def test_a_float64_column_beyond_2_53_is_named():
    """pandas made a column of integers and a float into float64 before softirr saw it: said, not hidden."""
    df = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"], "label": [BIG + 1, BIG, 0.5, 0.5]})
    assert df["label"].dtype == np.float64
    with pytest.warns(LabelWarning, match=r"whole numbers beyond 2\*\*53.*Python ints"):
        sis.Annotations.from_long(df)


def test_look_alike_hint_reaches_the_command_line(tmp_path):
    from typer.testing import CliRunner

    from softirr_stats.cli import app

    path = _csv(tmp_path, [("cafe\u0301", "caf\u00e9"), ("tea", "tea"), ("tea", "caf\u00e9")])
    out = CliRunner().invoke(app, ["agree", str(path), "-c", "percent_agreement", "--bootstrap", "0"])
    assert out.exit_code == 0, out.output
    flat = " ".join(out.output.split())  # the table wraps long notes
    assert "LabelWarning" in flat and "--reader-option normalize=NFC" in flat, out.output
    merged = CliRunner().invoke(app, ["agree", str(path), "-c", "percent_agreement", "--bootstrap", "0",
                                      "--reader-option", "normalize=NFC"])
    assert merged.exit_code == 0 and "LabelWarning" not in merged.output, merged.output


def test_normalize_reaches_export_readers(tmp_path):
    """normalize= was dropped for export formats: now it maps their labels too."""
    path = _label_studio(tmp_path, [("cafe\u0301", "caf\u00e9"), ("tea", "tea")])
    assert len(sis.read_annotations(path, format="label-studio", normalize="NFC").vocabulary) == 2


@pytest.mark.parametrize("texts, expected", [
    (["1", "2", "10"], [1, 2, 10]),
    (["1", "2.5"], [1.0, 2.5]),
    (["0.5", str(BIG + 1)], [0.5, BIG + 1]),
    ([str(10**30), "1"], [10**30, 1]),
    (["1", "nan"], None), (["inf", "1"], None), (["1", "1,5"], None), (["1", "0x10"], None),
    (["1", " 2"], None), (["01", "1"], None), (["1e400", "1"], None), (["\u0661", "1"], None),
])
def test_text_numbers_rule(texts, expected):
    out = text_numbers(texts)
    if expected is None:
        assert out is None
    else:
        assert out.tolist() == expected and [type(v) for v in out] == [type(v) for v in expected]


def test_the_rule_is_vectorised_over_distinct_labels():
    """200,000 distinct numbers and 200,000 distinct texts: decided by whole arrays, in well under the
    time a Python loop over them takes, and without recursion (issue 35 row 1)."""
    numbers = np.arange(200_000).astype(str).astype(object)
    t0 = time.perf_counter()
    out = text_numbers(numbers)
    assert out is not None and out[-1] == 199_999
    texts = np.asarray([f"label {k}" for k in range(200_000)], dtype=object)
    assert text_numbers(texts) is None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_labels(list(texts) + ["label 7 ", "label \u200b8"], "categorical")
    assert len(caught) == 1 and "4 text labels in 2 group(s) look alike" in str(caught[0].message)
    assert time.perf_counter() - t0 < 20


def test_many_distinct_labels_read_on_every_route(tmp_path, monkeypatch):
    """Row 1 kept fixed: 1,500 distinct numbers with one written twice, on both CSV routes."""
    pairs = [(str(k), str(k)) for k in range(1500)] + [("7.0", "7")]
    for route in ("arrow", "pandas"):
        monkeypatch.undo()
        if route == "pandas":
            monkeypatch.setattr(_columnar, "have_arrow", lambda: False)
        with pytest.warns(LabelWarning, match="2 text labels in 1 group"):
            ann = sis.read_annotations(_csv(tmp_path, pairs))
        assert ann.kind == "categorical" and len(ann.vocabulary) == 1501


#: one text per kind of character that prints as nothing or as a space, next to its plain form
_HIDDEN = ["\x00", "\x01", "\x08", "\x0b", "\x0c", "\x0e", "\x1b", "\x1c", "\x1f", "\x7f", "\x85", "\x9b", "\xa0",
           "\xad", "\u200b", "\u202e", "\u2028", "\u3000", "\ufeff", "\U000e0001", "\U000e0061", "\U000e007f"]


@pytest.mark.parametrize("n_plain", [3, 5000], ids=["small vocabulary", "large vocabulary"])
def test_control_and_invisible_characters_are_named_at_every_vocabulary_size(tmp_path, n_plain):
    """'x' and 'x\\x00' were two labels without a word (alpha 0.40 for 1.0); U+001C-U+001F were named only under
    4,096 labels (pyarrow's \\s is ASCII only). Both routes now say the same for every hidden character."""
    pad = [(f"l{k}", f"l{k}") for k in range(n_plain)]
    for ch in _HIDDEN:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ann = sis.read_annotations(_csv(tmp_path, [*pad, ("cafe", "cafe" + ch)]))
        said = [str(w.message) for w in caught if issubclass(w.category, LabelWarning)]
        assert len(ann.vocabulary) == n_plain + 2, repr(ch)
        assert len(said) == 1 and "2 text labels in 1 group(s) look alike" in said[0], (repr(ch), said)
        assert "\x1b" not in said[0] and "\x00" not in said[0]  # named by their escapes


def test_printed_forms_are_the_same_on_both_routes():
    texts = np.asarray([f"w{k}" for k in range(4200)] + [f" a{ch}b{k} " if k % 2 else f"a{ch * 2}b {ch}"
                                                          for k, ch in enumerate(_HIDDEN * 3)], dtype=object)
    assert _labels._arrow(len(texts)) is not None
    fast = _labels.printed_forms(texts)
    slow = (np.fromiter(map(_labels._skeleton_py, texts), dtype=object, count=len(texts)),
            np.fromiter((_labels._PLAIN_RE.fullmatch(t) is not None for t in texts), dtype=bool, count=len(texts)))
    assert fast[1].tolist() == slow[1].tolist()
    assert fast[0].tolist() == slow[0].tolist()
    many = np.asarray([f"a{ch}b{k}" for k in range(200) for ch in _HIDDEN], dtype=object)  # >= 4,096 to normalise
    assert _labels._skeletons(many).tolist() == [_labels._skeleton_py(t) for t in many]


#: texts that print alike by a letter of another script, and what the warning says of them (the letter escaped)
_SCRIPT_LOOKALIKES = [
    (("c\u0430fe", "cafe"), "'c\\u0430fe' has a Cyrillic letter (U+0430)"),
    (("\u0421AFE", "CAFE"), "'\\u0421AFE' has a Cyrillic letter (U+0421)"),
    (("\u039fK", "OK"), "'\\u039fK' has a Greek letter (U+039F)"),
    (("h\u0585me", "home"), "'h\\u0585me' has an Armenian letter (U+0585)"),
    (("\u1d04at", "cat"), "'\\u1d04at' has a Latin small capital letter (U+1D04)"),
    (("\u0441\u043e\u0440\u0435", "\u0441\u043e\u0440e"), "'\u0441\u043e\u0440\\u0435' has a Cyrillic letter (U+0435)"),
    (("\u0441\u0430f\u0435", "cafe"), "'\\u0441\\u0430f\\u0435' has Cyrillic letters (U+0430, U+0435, U+0441)"),
]


@pytest.mark.parametrize("n_pad", [3, 5000], ids=["small vocabulary", "large vocabulary"])
def test_letters_of_other_scripts_that_print_as_latin_are_named(tmp_path, n_pad):
    """'cafe' and 'cafe' with a Cyrillic a (U+0430) were two labels without a word (alpha dropped): they print alike.
    Named at every vocabulary size (5,000 Cyrillic labels next to them take the pyarrow route), with the letter
    escaped so that the message shows the difference; the Cyrillic vocabulary itself is not warned about."""
    pad = [(f"\u043c\u0435\u0442\u043a\u0430 {k}",) * 2 for k in range(n_pad)]  # "metka k", in Cyrillic
    for pair, words in _SCRIPT_LOOKALIKES:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ann = sis.read_annotations(_csv(tmp_path, [*pad, pair]))
        said = [str(w.message) for w in caught if issubclass(w.category, LabelWarning)]
        assert len(ann.vocabulary) == n_pad + 2, pair  # kept apart: nothing changed
        assert len(said) == 1 and "2 text labels in 1 group(s) look alike" in said[0], (pair, said)
        assert words in said[0] and "write each label in one script" in said[0], (pair, said)
        assert "normalize=" not in said[0].split("does not change")[1], said[0]  # no pointer to what cannot help


def test_the_normalize_pointer_names_the_form_that_merges(tmp_path):
    """The pointer to where normalize= is passed follows the groups it merges, with that form: NFC for a
    composed / decomposed pair, NFKC where a compatibility form is among them."""
    cases = [((("caf\u00e9", "cafe\u0301"),), "--reader-option normalize=NFC)"),
             ((("caf\u00e9", "cafe\u0301"), ("\uff21B", "AB")), "--reader-option normalize=NFKC)")]
    for pairs, pointer in cases:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            sis.read_annotations(_csv(tmp_path, [("tea", "tea"), *pairs]))
        said = [str(w.message) for w in caught if issubclass(w.category, LabelWarning)]
        assert len(said) == 1 and said[0].count("normalize= on read_annotations") == 1, said
        assert said[0].endswith(pointer), said[0]


@pytest.mark.parametrize("n_pad", [3, 5000], ids=["small vocabulary", "large vocabulary"])
def test_a_vocabulary_wholly_in_another_script_is_not_a_look_alike(tmp_path, n_pad):
    """Russian or Greek labels fold to look-alike keys too, but no two distinct texts share one: no warning."""
    pad = [(f"\u043c\u0435\u0442\u043a\u0430 {k}", f"\u03b5\u03c4\u03b9\u03ba\u03ad\u03c4\u03b1 {k}")
           for k in range(n_pad)]
    words = [("\u0434\u0430", "\u043d\u0435\u0442"), ("\u043d\u0435\u0442", "\u043d\u0435\u0442"),
             ("\u03bd\u03b1\u03b9", "\u039f\u03a7\u0399"), ("\u0421\u041e\u0420", "\u0441\u043e\u0440")]
    with warnings.catch_warnings():
        warnings.simplefilter("error", LabelWarning)
        ann = sis.read_annotations(_csv(tmp_path, [*pad, *words]))
        check_names(sorted({w for p in words for w in p}), "rater names")
    assert len(ann.vocabulary) == 2 * n_pad + 6


def test_skeletons_fold_the_same_letters_on_both_routes():
    """The pyarrow route (from 4,096 texts) folds by one lookup over code points; Python's per text: one answer."""
    letters = "".join(map(chr, _labels._LATIN_LOOKALIKES))
    texts = np.asarray([f"{letters[k % len(letters)]}x{k}\u0301 " for k in range(4200)] + [letters], dtype=object)
    assert _labels._arrow(len(texts)) is not None
    fast = _labels._skeletons(texts)
    assert fast.tolist() == [_labels._skeleton_py(t) for t in texts]
    assert fast[-1].isascii() and fast[-1].isalpha()


@pytest.mark.parametrize("text, what, expected", [
    ("item,rater,label\n1,a,x\n1 ,b,x\n2,a,y\n2,b,y\n", "item ids", ("'1' and '1 '", 3, 2)),
    ("item,rater,label\n1,a,x\n1\u200b,b,x\n2,a,y\n2,b,y\n", "item ids", ("'1' and '1\\u200b'", 3, 2)),
    ("item,rater,label\nAB,a,x\n\u0410B,b,x\n2,a,y\n2,b,y\n", "item ids",
     ("'\\u0410B' has a Cyrillic letter (U+0410)", 3, 2)),
    ("item,rater,label\n1,ann,x\n1,\u0430nn,x\n2,ann,y\n2,\u0430nn,y\n", "rater names",
     ("'ann' and '\\u0430nn'", 2, 2)),
    ("item,rater,label\n1,ann,x\n1,ann ,x\n2,ann,y\n2,ann ,y\n", "rater names", ("'ann' and 'ann '", 2, 2)),
    ("item,rater,label\n1,caf\u00e9,x\n1,cafe\u0301,x\n2,caf\u00e9,y\n2,cafe\u0301,y\n", "rater names",
     ("normalize('NFC'", 2, 2)),
    ("item,r1,r1 ,r2\n1,x,y,x\n2,y,y,y\n", "rater names", ("'r1' and 'r1 '", 2, 3)),
])
def test_item_ids_and_rater_names_that_print_alike_are_named(tmp_path, text, what, expected):
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    words, n_items, n_raters = expected
    with pytest.warns(LabelWarning, match=f"2 {what} in 1 group") as caught:
        ann = sis.read_annotations(path, **({"wide": True, "item": "item"} if "r1" in text else {}))
    assert any(words in str(w.message) for w in caught)
    assert (ann.n_items, ann.n_raters) == (n_items, n_raters)  # kept apart: nothing changed


def test_case_and_numbers_written_differently_are_not_id_lookalikes():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_names(["Ann", "ann", "007", "7", "1.0", "1"], "rater names")
        check_names(list(range(10)) + [1.5], "item ids")
        sis.Annotations.from_long(pd.DataFrame({"item": ["007", "7"] * 2, "rater": ["a", "a", "b", "b"],
                                                "label": ["x", "y", "x", "y"]}))


def test_id_lookalikes_are_found_by_whole_arrays():
    ids = np.asarray([f"item {k}" for k in range(200_000)] + ["item 7 "], dtype=object)
    t0 = time.perf_counter()
    with pytest.warns(LabelWarning, match="2 item ids in 1 group"):
        check_names(ids, "item ids")
    assert time.perf_counter() - t0 < 10


def test_huge_look_alike_labels_are_quoted_short(tmp_path):
    big = "A" * 1_000_000
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sis.read_annotations(_csv(tmp_path, [(big, big + " "), ("x", "x"), (" " * 500_000, "x")]))
    said = [str(w.message) for w in caught if issubclass(w.category, LabelWarning)]
    assert said and max(map(len, said)) < 1200, [len(m) for m in said]
    alike = next(m for m in said if "look alike" in m)
    assert "(1000000 characters)" in alike and " ' (1000001 characters)" in alike  # the trailing space in view


# ------------------------------------------------------------------------------ terms inside set labels
def _terms_jsonl(tmp_path, a_terms):
    """Two raters' term sets on three notes; rater a writes ``a_terms`` on the first."""
    path = tmp_path / "terms.jsonl"
    rows = [("n1", "a", a_terms), ("n1", "b", ["cough", "fever"]), ("n2", "a", ["rash"]), ("n2", "b", ["rash"]),
            ("n3", "a", ["fatigue", "fever"]), ("n3", "b", ["fatigue"])]
    path.write_text("".join(json.dumps({"item": i, "rater": r, "label": t}) + "\n" for i, r, t in rows))
    return path


def test_terms_inside_set_labels_that_look_alike_are_named(tmp_path):
    """'fever ' and 'fever' inside sets were two terms without a word (a plain label gets a LabelWarning): the
    look-alike check now runs over the distinct terms of the set labels, and says they are terms."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ann = sis.read_annotations(_terms_jsonl(tmp_path, ["fever ", "cough"]))
    said = [str(w.message) for w in caught if issubclass(w.category, LabelWarning)]
    assert ann.kind == "set" and len(said) == 1, said
    assert said[0].startswith("2 terms inside set labels in 1 group(s) look alike but differ (e.g. 'fever' and "
                              "'fever ')"), said[0]
    assert "kept apart as distinct terms" in said[0] and "spaces" in said[0], said[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sis.read_annotations(_terms_jsonl(tmp_path, ["fever", "cough"]))
    assert not [w for w in caught if issubclass(w.category, LabelWarning)]


def test_terms_inside_set_labels_get_the_normalize_pointer_and_the_number_check():
    sets = [[{"caf\u00e9", "tea"}, {"cafe\u0301"}], [{"1", "x"}, {"01"}]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ann = sis.Annotations.from_wide(sets)
    said = sorted(str(w.message) for w in caught if issubclass(w.category, LabelWarning))
    assert ann.kind == "set" and len(said) == 2, said
    assert said[0].startswith("2 terms inside set labels in 1 group(s) are one number written differently"), said
    assert said[1].startswith("2 terms inside set labels in 1 group(s) look alike"), said
    assert "normalize='NFC' would merge 1 group(s)" in said[1], said
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sis.Annotations.from_wide(sets[:1], normalize="NFC")
    assert not [w for w in caught if issubclass(w.category, LabelWarning)]
