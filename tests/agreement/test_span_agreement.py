"""span_agreement: pairwise F1 between annotators, against bratiaa and nervaluate, by hand, and its bootstrap."""

import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.spans._span_f1 import SpanStatistic, span_counts, span_table
from softirr_stats.uncertainty import draw_weights

FIXTURES = pathlib.Path(__file__).resolve().parents[1] / "fixtures"
BRATIAA_PROJECT = FIXTURES / "bratiaa_example"  # bratiaa's own example project (see its PROVENANCE.md)


def frame(rows):
    cols = ["document", "annotator", "start", "end", "type"]
    return pd.DataFrame(rows, columns=cols)


def read_ann_folder(root: pathlib.Path) -> pd.DataFrame:
    """A parser-independent reading of a brat project: <annotator>/<doc>.ann text-bound lines."""
    rows = []
    for ann in sorted(root.glob("*/*.ann")):
        for line in ann.read_text(encoding="utf-8").splitlines():
            if line.startswith("T"):
                typ, start, end = line.split("\t")[1].split(" ")
                rows.append((ann.stem, ann.parent.name, int(start), int(end), typ))
    return frame(rows)


# --------------------------------------------------------------------------- bratiaa


@pytest.fixture(scope="module")
def bratiaa_agreement():
    import bratiaa  # in the test extra

    return bratiaa.compute_f1_agreement(str(BRATIAA_PROJECT))


@pytest.fixture(scope="module")
def ours():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sis.data.ExportWarning)
        return sis.span_agreement(BRATIAA_PROJECT)


def test_bratiaa_example_total_to_the_last_digit(bratiaa_agreement, ours):
    mean, sd = bratiaa_agreement.mean_sd_total()
    assert ours.value == float(mean)
    assert ours.n_raters == 4 and ours.n_items == 7
    np.testing.assert_allclose(np.std(ours.by_pair["f1"].to_numpy()), sd, rtol=1e-13)
    # the published report of the example project (3 decimals)
    assert round(ours.value, 3) == 0.890


def test_bratiaa_example_per_label_per_document_and_pairs(bratiaa_agreement, ours):
    mean, sd = bratiaa_agreement.mean_sd_per_label()
    assert list(ours.by_type["type"]) == bratiaa_agreement.labels
    np.testing.assert_allclose(ours.by_type["f1"], mean, rtol=1e-14)
    np.testing.assert_allclose(ours.by_type["sd"], sd, rtol=1e-12)
    assert ours.by_type["f1"].round(3).tolist() == [0.819, 0.840, 0.906, 0.938]  # published report
    mean, sd = bratiaa_agreement.mean_sd_per_document()
    assert [d + ".ann" for d in ours.by_document["document"]] == bratiaa_agreement.documents
    np.testing.assert_allclose(ours.by_document["f1"], mean, rtol=1e-14)
    np.testing.assert_allclose(ours.by_document["sd"], sd, rtol=1e-12)
    m = bratiaa_agreement.compute_total_f1_matrix()
    idx = {a: i for i, a in enumerate(bratiaa_agreement.annotators)}
    theirs = [m[idx[a], idx[b]] for a, b in zip(ours.by_pair["annotator_a"], ours.by_pair["annotator_b"], strict=True)]
    np.testing.assert_allclose(ours.by_pair["f1"], theirs, rtol=1e-15)


def test_bratiaa_example_same_from_a_table_and_from_annotations(ours):
    table = sis.span_agreement(read_ann_folder(BRATIAA_PROJECT))
    assert table.value == ours.value
    pd.testing.assert_frame_equal(table.by_pair, ours.by_pair)
    ann = sis.read_annotations(BRATIAA_PROJECT, format="brat")  # the default span rule: exact, unmatched "O"
    via_ann = sis.span_agreement(ann)
    assert via_ann.value == ours.value
    pd.testing.assert_frame_equal(via_ann.by_type, ours.by_type)


def test_macro_average_on_bratiaa_example_is_mean_of_type_f1(ours):
    macro = sis.span_agreement(read_ann_folder(BRATIAA_PROJECT), average="macro")
    per_pair_type = macro.by_type["f1"].mean()  # every pair uses every type here
    np.testing.assert_allclose(macro.value, per_pair_type, rtol=1e-14)
    assert macro.value != ours.value


# --------------------------------------------------------------------------- nervaluate


def _shared_cases(seed: int, n_docs: int = 30):
    """Two annotators whose spans never compete: A's spans sit in disjoint slots of a token grid; B
    keeps, retypes, drops, shifts (inside the slot) or adds spans in empty slots. On such data the
    greedy matching of nervaluate and the one-to-one matching here find the same pairs."""
    rng = np.random.default_rng(seed)
    types = ["PER", "LOC", "ORG"]
    a_docs, b_docs, rows = [], [], []
    for d in range(n_docs):
        a_doc, b_doc = [], []
        for slot in range(int(rng.integers(0, 8))):
            base = slot * 20
            start, end = base + int(rng.integers(0, 5)), base + int(rng.integers(8, 14))
            typ = types[int(rng.integers(0, 3))]
            fate = rng.choice(["keep", "retype", "drop", "shift", "new"], p=[0.45, 0.15, 0.1, 0.15, 0.15])
            if fate != "new":
                a_doc.append((start, end, typ))
            if fate == "keep":
                b_doc.append((start, end, typ))
            elif fate == "retype":
                b_doc.append((start, end, types[(types.index(typ) + 1) % 3]))
            elif fate == "shift":
                b_doc.append((start + 1, end + 2, typ))
            elif fate == "new":
                b_doc.append((start, end, typ))
        a_docs.append([{"label": t, "start": s, "end": e - 1} for s, e, t in a_doc])  # nervaluate: end inclusive
        b_docs.append([{"label": t, "start": s, "end": e - 1} for s, e, t in b_doc])
        rows += [(f"doc{d:02d}", "a", s, e, t) for s, e, t in a_doc]
        rows += [(f"doc{d:02d}", "b", s, e, t) for s, e, t in b_doc]
    return a_docs, b_docs, frame(rows), types


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nervaluate_schemes_where_definitions_coincide(seed):
    import nervaluate  # in the test extra

    a_docs, b_docs, spans, types = _shared_cases(seed)
    res = nervaluate.Evaluator(a_docs, b_docs, tags=types, loader="dict").evaluate()
    strict = sis.span_agreement(spans, match="exact", by="type")
    exact = sis.span_agreement(spans, match="exact", by="all")
    ent_type = sis.span_agreement(spans, match="overlap", by="type")
    np.testing.assert_allclose(strict.value, res["overall"]["strict"].f1, rtol=1e-13)
    np.testing.assert_allclose(exact.value, res["overall"]["exact"].f1, rtol=1e-13)
    np.testing.assert_allclose(ent_type.value, res["overall"]["ent_type"].f1, rtol=1e-13)
    row = strict.by_pair.iloc[0]  # annotator a = nervaluate's true, b = its prediction
    assert row["tp"] == res["overall"]["strict"].correct
    np.testing.assert_allclose(row["precision"], res["overall"]["strict"].precision, rtol=1e-13)
    np.testing.assert_allclose(row["recall"], res["overall"]["strict"].recall, rtol=1e-13)
    for _, r in strict.by_type.iterrows():
        np.testing.assert_allclose(r["f1"], res["entities"][r["type"]]["strict"].f1, rtol=1e-13)


def test_greedy_nervaluate_differs_where_spans_compete():
    """One-to-one maximum matching vs nervaluate's greedy pass: documented in docs/span_agreement.md."""
    import nervaluate

    # truth [0, 4] PER; predictions [0, 5] then [0, 4]: greedy lets the first (overlapping) one take the truth
    a = [[{"label": "PER", "start": 0, "end": 4}]]
    b = [[{"label": "PER", "start": 0, "end": 5}, {"label": "PER", "start": 0, "end": 4}]]
    res = nervaluate.Evaluator(a, b, tags=["PER"], loader="dict").evaluate()
    spans = frame([("d", "a", 0, 5, "PER"), ("d", "b", 0, 6, "PER"), ("d", "b", 0, 5, "PER")])
    assert res["overall"]["strict"].correct == 0
    assert sis.span_agreement(spans).by_pair["tp"].iloc[0] == 1.0
    np.testing.assert_allclose(sis.span_agreement(spans).value, 2 / 3)


# --------------------------------------------------------------------------- hand-computed


def test_hand_case_exact_overlap_and_thresholds():
    spans = frame([("d", "a", 0, 10, "X"), ("d", "b", 0, 5, "X")])  # IoU 0.5
    assert sis.span_agreement(spans).value == 0.0
    assert sis.span_agreement(spans, match="overlap").value == 1.0
    assert sis.span_agreement(spans, match="overlap:0.5").value == 1.0
    assert sis.span_agreement(spans, match="overlap:0.51").value == 0.0
    tenth = frame([("d", "a", 0, 30, "X"), ("d", "b", 27, 30, "X")])  # IoU exactly 3 / 30
    assert sis.span_agreement(tenth, match="overlap:0.1").value == 1.0
    assert sis.span_agreement(tenth, match="overlap:0.11").value == 0.0
    touching = frame([("d", "a", 0, 5, "X"), ("d", "b", 5, 9, "X")])  # end exclusive: no shared character
    assert sis.span_agreement(touching, match="overlap").value == 0.0


def test_hand_case_one_to_one_matching_counts_the_most_pairs():
    # b1 = a1 exactly; a2 overlaps only b1, b2 overlaps only a1 weakly. Any-overlap: 2 matches (a1-b2, a2-b1).
    spans = frame([("d", "a", 0, 10, "X"), ("d", "a", 2, 5, "X"), ("d", "b", 0, 10, "X"), ("d", "b", 9, 30, "X")])
    r = sis.span_agreement(spans, match="overlap")
    assert r.by_pair["tp"].iloc[0] == 2.0 and r.value == 1.0
    r = sis.span_agreement(spans, match="overlap:0.5")  # only a1-b1 is eligible
    assert r.by_pair["tp"].iloc[0] == 1.0 and r.value == 0.5
    # one span cannot match two: a = [0, 10); b = [0, 4), [5, 10)
    r = sis.span_agreement(frame([("d", "a", 0, 10, "X"), ("d", "b", 0, 4, "X"), ("d", "b", 5, 10, "X")]),
                           match="overlap")
    np.testing.assert_allclose(r.value, 2 * 1 / 3)


def test_hand_case_three_annotators_types_micro_macro_and_documents():
    spans = frame([
        ("d1", "a", 0, 4, "PER"), ("d1", "a", 10, 15, "LOC"),
        ("d1", "b", 0, 4, "PER"), ("d1", "b", 10, 15, "ORG"),
        ("d1", "c", 0, 4, "PER"),
        ("d2", "a", 3, 8, "PER"), ("d2", "b", 3, 8, "PER"), ("d2", "c", 3, 8, "PER"),
    ])
    r = sis.span_agreement(spans)
    # a-b: tp 2 of 3 + 3 spans -> 2/3; a-c: tp 2 of 3 + 2 -> 0.8; b-c: 0.8
    np.testing.assert_allclose(r.by_pair["f1"], [2 * 2 / 6, 2 * 2 / 5, 2 * 2 / 5])
    np.testing.assert_allclose(r.value, np.mean([2 / 3, 0.8, 0.8]))
    # macro: a-b: PER 1, LOC 0, ORG 0 -> 1/3; a-c: PER 1, LOC 0 -> 1/2; b-c: PER 1, ORG 0 -> 1/2
    macro = sis.span_agreement(spans, average="macro")
    np.testing.assert_allclose(macro.by_pair["f1"], [1 / 3, 1 / 2, 1 / 2])
    # by type: LOC only for pairs a-b, a-c (F1 0); PER 1 for every pair
    bt = r.by_type.set_index("type")
    assert bt.loc["PER", "f1"] == 1.0 and bt.loc["LOC", "f1"] == 0.0 and bt.loc["LOC", "n_pairs"] == 2
    # by='all': the retyped span matches
    np.testing.assert_allclose(sis.span_agreement(spans, by="all").by_pair["f1"], [1.0, 0.8, 0.8])
    bd = r.by_document.set_index("document")
    np.testing.assert_allclose(bd.loc["d2", "f1"], 1.0)


def test_stacked_spans_count_each_annotation():
    # a stacks X and Y on one span; b marks X there
    spans = frame([("d", "a", 0, 5, "X"), ("d", "a", 0, 5, "Y"), ("d", "b", 0, 5, "X")])
    np.testing.assert_allclose(sis.span_agreement(spans).value, 2 / 3)
    np.testing.assert_allclose(sis.span_agreement(spans, by="all").value, 2 / 3)
    both = frame([("d", "a", 0, 5, "X"), ("d", "a", 0, 5, "Y"), ("d", "b", 0, 5, "Y"), ("d", "b", 0, 5, "X")])
    assert sis.span_agreement(both, by="all").value == 1.0


def test_set_valued_labels_of_annotations_are_stacked_spans():
    # a stacked type set on one span (how a reader may give two types on one offset) is one span per type
    ann = sis.Annotations.from_wide([[{"X", "Y"}, {"X"}], [{"Z"}, None]], items=["d:0-5", "e:1-3"],
                                    raters=["a", "b"])
    r = sis.span_agreement(ann)
    assert r.n_spans == 4 and r.by_pair["n_documents"].iloc[0] == 1  # b did not annotate e
    np.testing.assert_allclose(r.value, 2 / 3)


def test_no_span_is_no_type_where_an_annotator_stacks_types(tmp_path):
    # a stack makes every label of the reader a set, so "no span here" came as {no-span} and was counted as a span
    # of type '\x00no-span' for each annotator without a span there: 0.4 where bratiaa gives 0.5
    for who, ann_text in (("A1", "T1\tPER 0 4\tJohn\nT2\tLOC 0 4\tJohn\nT3\tORG 8 12\tRome\n"),
                          ("A2", "T1\tPER 0 4\tJohn\n")):
        (tmp_path / who).mkdir()
        (tmp_path / who / "d.txt").write_text("John in Rome now.\n")
        (tmp_path / who / "d.ann").write_text(ann_text)
    r = sis.span_agreement(tmp_path)
    want = sis.span_agreement(frame([("d", "A1", 0, 4, "PER"), ("d", "A1", 0, 4, "LOC"), ("d", "A1", 8, 12, "ORG"),
                                     ("d", "A2", 0, 4, "PER")]))
    assert r.value == pytest.approx(0.5) == want.value and r.n_spans == 4
    assert set(r.by_type["type"]) == {"PER", "LOC", "ORG"}
    sets = sis.Annotations.from_wide([[frozenset({"PER", "LOC"}), frozenset({"PER"})], [frozenset({"ORG"}),
                                       frozenset({"O"})]], items=["d:0-4", "d:10-13"])
    assert sis.span_agreement(sets).value == pytest.approx(0.5)


def test_repeated_span_counted_once_with_a_warning():
    spans = frame([("d", "a", 0, 5, "X"), ("d", "a", 0, 5, "X"), ("d", "b", 0, 5, "X")])
    with pytest.warns(sis.spans.SpanWarning, match="counted once"):
        r = sis.span_agreement(spans)
    assert r.value == 1.0 and r.n_spans == 2


def test_documents_only_one_annotator_annotated_are_not_compared():
    # a rater missing from a document (not annotated) vs present with no span ("O")
    ann = sis.Annotations.from_wide([["X", "X"], ["X", "O"], ["X", None]], items=["d1:0-3", "d2:0-3", "d3:0-3"],
                                    raters=["a", "b"])
    r = sis.span_agreement(ann)
    assert r.by_pair["n_documents"].iloc[0] == 2  # d3 was not annotated by b
    np.testing.assert_allclose(r.value, 2 * 1 / 3)


def _warnings_of(fn, *args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(*args)
    return [w for w in caught]


def test_no_span_on_shared_documents_is_nan_with_a_warning():
    spans = frame([("d", "b", None, None, None), ("d", "d", None, None, None), ("e", "a", 0, 3, "X"),
                   ("e", "c", 0, 3, "X")])
    with pytest.warns(sis.DegenerateWarning, match="left out of the mean"):
        r = sis.span_agreement(spans)
    # b and d marked nothing: a-b, a-d, b-c, c-d have F1 0, a-c 1, b-d is undefined
    np.testing.assert_allclose(r.by_pair["f1"], [0.0, 1.0, 0.0, 0.0, np.nan, 0.0])
    np.testing.assert_allclose(r.value, 1 / 5)
    # precision / recall of a pair where one side marked nothing: nan, now said (sklearn warns likewise)
    caught = [str(w.message) for w in _warnings_of(sis.span_agreement, spans)]
    assert any("precision is undefined (nan) for 3 pair(s) where annotator_b marked no span on the shared "
               "documents: ['a-b', 'a-d', 'c-d']" in m for m in caught)
    assert any("recall is undefined (nan) for 1 pair(s) where annotator_a marked no span on the shared documents: "
               "['b-c']" in m for m in caught)
    np.testing.assert_array_equal(np.isnan(r.by_pair["precision"]), [True, False, True, False, True, True])
    only_empty = frame([("d", "a", None, None, None), ("d", "b", None, None, None)])
    with pytest.warns(sis.DegenerateWarning, match="undefined"):
        assert np.isnan(sis.span_agreement(only_empty).value)


# --------------------------------------------------------------------------- invariances


def _bigger_case(seed=3):
    _, _, spans, _ = _shared_cases(seed, n_docs=20)
    rng = np.random.default_rng(seed)
    third = spans.loc[spans["annotator"] == "a"].copy()
    third["annotator"] = "c"
    third = third.loc[rng.random(len(third)) < 0.7]
    return pd.concat([spans, third], ignore_index=True)


@pytest.mark.parametrize("kw", [{}, {"match": "overlap"}, {"by": "all"}, {"average": "macro"}])
def test_invariant_to_annotator_names_row_order_and_document_names(kw):
    spans = _bigger_case()
    base = sis.span_agreement(spans, **kw)
    swapped = spans.assign(annotator=spans["annotator"].map({"a": "z", "b": "y", "c": "x"}))
    swapped = swapped.sample(frac=1.0, random_state=0)
    swapped["document"] = "x_" + swapped["document"].str[::-1]
    other = sis.span_agreement(swapped, **kw)
    np.testing.assert_allclose(other.value, base.value, rtol=1e-14)
    np.testing.assert_allclose(np.sort(other.by_pair["f1"]), np.sort(base.by_pair["f1"]), rtol=1e-14)
    # swapping the two annotators of a pair swaps FP and FN
    ab = base.by_pair.set_index(["annotator_a", "annotator_b"]).loc[("a", "b")]
    zy = other.by_pair.set_index(["annotator_a", "annotator_b"]).loc[("y", "z")]
    assert (ab["fp"], ab["fn"], ab["tp"]) == (zy["fn"], zy["fp"], zy["tp"])


# --------------------------------------------------------------------------- soft type matching


def test_soft_matching_with_exact_equals_hard():
    spans = _bigger_case()
    types = sorted(spans["type"].unique())
    exact_fn = lambda a, b: (np.asarray(a, dtype=object) == np.asarray(b, dtype=object)).astype(float)  # noqa: E731
    for kw in ({}, {"match": "overlap"}, {"average": "macro"}):
        hard = sis.span_agreement(spans, **kw)
        for sim in (np.eye(len(types)), exact_fn, sis.equivalence.Exact()):
            soft = sis.span_agreement(spans, similarity=sim, **kw)
            assert soft.value == pytest.approx(hard.value, rel=1e-15)
            pd.testing.assert_frame_equal(soft.by_pair, hard.by_pair)
            pd.testing.assert_frame_equal(soft.by_type, hard.by_type)


def test_soft_matching_credits_the_equivalence_probability():
    spans = frame([("d", "a", 0, 4, "fever"), ("d", "b", 0, 4, "pyrexia"), ("d", "a", 6, 9, "cough"),
                   ("d", "b", 6, 9, "cough")])
    S = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.8], [0.0, 0.8, 1.0]])  # cough, fever, pyrexia
    r = sis.span_agreement(spans, similarity=S)
    np.testing.assert_allclose(r.by_pair["tp"], [1.8])
    np.testing.assert_allclose(r.value, 2 * 1.8 / 4)
    bt = r.by_type.set_index("type")
    np.testing.assert_allclose(bt.loc[["fever", "pyrexia"], "tp"], [0.4, 0.4])
    np.testing.assert_allclose(bt.loc[["fever", "pyrexia"], "f1"], [0.8, 0.8])
    assert sis.span_agreement(spans).value == 0.5
    # the matching maximises the total credit: a's span could pair with either of b's stacked types
    stack = frame([("d", "a", 0, 4, "fever"), ("d", "b", 0, 4, "cough"), ("d", "b", 0, 4, "pyrexia")])
    np.testing.assert_allclose(sis.span_agreement(stack, similarity=S).by_pair["tp"], [0.8])
    lev = sis.span_agreement(spans, similarity="levenshtein")
    assert 0.5 < lev.value < 1.0 and lev.similarity == "levenshtein"
    assert lev.n_pairs_scored == 1  # only fever-pyrexia meets on a candidate match (cough-cough is equal)


# --------------------------------------------------------------------------- bootstrap


def test_vectorised_bootstrap_equals_recomputing_on_resampled_documents():
    spans = _bigger_case()
    cfg = sis.Bootstrap(n=6, seed=11)
    tab = span_table(spans)
    stat = SpanStatistic(span_counts(tab), tab.documents, len(tab.annotators))
    C, _, _ = draw_weights(stat, cfg, 0, cfg.n)
    reps = stat.evaluate(C)["value"]
    docs = np.asarray(tab.documents)
    for b in range(cfg.n):
        parts = [spans.loc[spans["document"] == d].assign(document=f"{d}#{k}")
                 for d, w in zip(docs, C[b], strict=True) for k in range(int(w))]
        again = sis.span_agreement(pd.concat(parts, ignore_index=True)).value
        np.testing.assert_allclose(reps[b], again, rtol=1e-13)
    r = sis.span_agreement(spans, ci=cfg)
    np.testing.assert_array_equal(r.details["replicates"], reps)


def test_interval_fields_tables_and_seed():
    spans = _bigger_case()
    r = sis.span_agreement(spans, ci=sis.Bootstrap(n=300, seed=1))
    assert r.ci_low <= r.value <= r.ci_high and r.se > 0
    assert r.details["bootstrap_design"] == "items" and r.ci_method == "jackknife-t-logit"  # method="auto", <= 1000 documents
    assert (r.by_pair["ci_low"] <= r.by_pair["ci_high"]).all() and (r.by_type["ci_low"] <= r.by_type["ci_high"]).all()
    again = sis.span_agreement(spans, ci=sis.Bootstrap(n=300, seed=1))
    assert (again.ci_low, again.ci_high) == (r.ci_low, r.ci_high)
    groups = {d: int(d[-2:]) % 5 for d in spans["document"].unique()}
    cl = sis.span_agreement(spans, ci=sis.Bootstrap(n=200, design="cluster", cluster=groups, seed=0))
    assert cl.ci_low <= cl.ci_high
    bca = sis.span_agreement(spans, ci=sis.Bootstrap(n=200, method="bca", seed=0))
    assert bca.ci_low <= bca.ci_high
    assert "Spans" in r.to_markdown()


def test_interval_coverage_sanity():
    """Simulated corpora with a known population F1: 2 q E[n] / ((1 + q) E[n] + mu)."""
    rng = np.random.default_rng(2026)
    q, mu, lam, n_docs, n_sims = 0.8, 0.6, 3.0, 40, 120
    truth = 2 * q * (lam + 1) / ((1 + q) * (lam + 1) + mu)
    hits = 0
    for s in range(n_sims):
        rows = []
        for d in range(n_docs):
            n = int(rng.poisson(lam)) + 1
            kept = rng.random(n) < q
            extra = int(rng.poisson(mu))
            rows += [(f"d{d}", "a", 10 * k, 10 * k + 5, "X") for k in range(n)]
            rows += [(f"d{d}", "b", 10 * k, 10 * k + 5, "X") for k in range(n) if kept[k]]
            rows += [(f"d{d}", "b", 1000 + 10 * k, 1000 + 10 * k + 5, "X") for k in range(extra)]
        r = sis.span_agreement(frame(rows), ci=sis.Bootstrap(n=400, seed=s))
        hits += r.ci_low <= truth <= r.ci_high
    coverage = hits / n_sims
    assert 0.85 <= coverage <= 0.995, coverage


# --------------------------------------------------------------------------- input paths and bad input


def test_csv_span_table_path(tmp_path):
    spans = _bigger_case()
    path = tmp_path / "spans.csv"
    spans.to_csv(path, index=False)
    assert sis.span_agreement(path).value == sis.span_agreement(spans).value


def test_bad_input():
    spans = frame([("d", "a", 0, 4, "X"), ("d", "b", 0, 4, "X")])
    with pytest.raises(ValueError, match=r"match must be one of \['exact', 'overlap', 'overlap:<IoU>'\]"):
        sis.span_agreement(spans, match="lenient")
    for bad in ("overlap:0", "overlap:1.5", "overlap:x", "overlap:"):
        with pytest.raises(ValueError, match="match must be one of"):
            sis.span_agreement(spans, match=bad)
    with pytest.raises(ValueError, match=r"by must be one of \['all', 'type'\]"):
        sis.span_agreement(spans, by="token")
    with pytest.raises(ValueError, match=r"average must be one of \['macro', 'micro'\]"):
        sis.span_agreement(spans, average="weighted")
    with pytest.raises(ValueError, match="needs at least two; got 1"):
        sis.span_agreement(spans.loc[spans["annotator"] == "a"])
    with pytest.raises(ValueError, match=r"lacks column\(s\) \['type'\]"):
        sis.span_agreement(spans.drop(columns="type"))
    with pytest.raises(ValueError, match="0 <= start <= end"):  # [4, 4) is a zero-length span; [4, 3) no span
        sis.span_agreement(frame([("d", "a", 4, 3, "X"), ("d", "b", 0, 4, "X")]))
    with pytest.raises(ValueError, match="integer character offsets"):
        sis.span_agreement(frame([("d", "a", 1.5, 4, "X"), ("d", "b", 0, 4, "X")]))
    with warnings.catch_warnings():  # an offset beyond int64 was cast to -2**63 with a numpy RuntimeWarning
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match=r"span column 'end': row 0 has 1000000000000000000000000000000, too "
                                             r"large for a character offset \(offsets must be below 2\*\*53"):
            sis.span_agreement(frame([("d", "a", 0, 10**30, "X"), ("d", "b", 0, 4, "X")]))
    with pytest.raises(ValueError, match="some of start, end, type missing"):
        sis.span_agreement(frame([("d", "a", 1, 4, None), ("d", "b", 0, 4, "X")]))
    with pytest.raises(ValueError, match="ignores types"):
        sis.span_agreement(spans, by="all", similarity="levenshtein")
    with pytest.raises(ValueError, match="no analytic variance"):
        sis.span_agreement(spans, ci="analytic")
    with pytest.raises(ValueError, match="annotator pairs are fixed"):
        sis.span_agreement(spans, ci=sis.Bootstrap(design="raters"))
    with pytest.raises(ValueError, match="at least 2 documents"):
        sis.span_agreement(spans, ci=sis.Bootstrap(n=10))
    with pytest.raises(TypeError, match="apply only when ann_or_path is a path"):
        sis.span_agreement(spans, field="label")
    with pytest.raises(TypeError, match="ann_or_path must be a DataFrame"):
        sis.span_agreement([("d", "a", 0, 4, "X")])
    not_spans = sis.Annotations.from_wide([["x", "y"]], items=["item1"], raters=["a", "b"])
    with pytest.raises(ValueError, match="<document>:<start>-<end>"):
        sis.span_agreement(not_spans)


def test_a_span_row_with_some_of_start_end_type_missing_is_named_by_document_and_annotator():
    """The refusal said 'span row 2 has ...': the position of the row once the table had been re-indexed, which
    a user cannot find in a file or a filtered DataFrame. It names document, annotator and the row's values, as the
    refusal of a span with end < start does."""
    spans = frame([("d1", "a", 0, 4, "PER"), ("d1", "b", 0, 4, "PER"), ("d2", "b", 7, 9, None),
                   ("d2", "a", None, 9, "LOC"), ("d3", "a", None, None, None)])  # the last declares d3 annotated
    spans.index = [10, 11, 12, 13, 14]
    with pytest.raises(ValueError) as err:
        sis.span_agreement(spans)
    assert str(err.value) == ("a span row has some of start, end, type missing: document 'd2', annotator 'b' has start "
                              "7, end 9, type missing (2 such row(s) in all); a span needs all three (a row with all "
                              "three missing declares an annotated document)")
    with pytest.raises(ValueError, match=r"document 'd2', annotator 'a' has start missing, end 9, type 'LOC' \(1 such"):
        sis.span_agreement(spans.drop(index=12))


def test_bad_reader_input(tmp_path):
    with pytest.raises(TypeError, match="match= instead of span_rule="):
        sis.span_agreement(BRATIAA_PROJECT, format="brat", span_rule=sis.data.SpanRule())
    one = tmp_path / "proj" / "solo"
    one.mkdir(parents=True)
    (one / "doc.ann").write_text("T1\tX 0 3\tabc\n")
    with pytest.raises(ValueError, match="two"):
        sis.span_agreement(tmp_path / "proj", format="brat")


@pytest.mark.filterwarnings("ignore::softirr_stats.data.ExportWarning")
def test_annotations_read_with_the_overlap_span_rule_are_refused():
    """Items of the overlap rule are named by the union of matched spans: on bratiaa's project they gave 0.94551,
    neither the exact F1 (0.89035) nor the overlap F1 (0.94639) of the spans."""
    from softirr_stats.data._readers import span_rules

    exact = sis.span_agreement(BRATIAA_PROJECT).value
    overlap = sis.span_agreement(BRATIAA_PROJECT, match="overlap").value
    assert round(exact, 5) == 0.89035 and round(overlap, 5) == 0.94639
    for rule in ("overlap", "overlap:0.5", sis.data.SpanRule(match="overlap", stacked="separate")):
        ann = sis.read_annotations(BRATIAA_PROJECT, format="brat", span_rule=rule)
        assert span_rules(ann)[0].match == "overlap"
        with pytest.raises(ValueError, match=r"read with span_rule=SpanRule\(match='overlap'.*Pass the export's path "
                                             r"instead .*match='overlap'.*or read it with span_rule='exact'"):
            sis.span_agreement(ann)
    # per-annotator folders merged: the rule they were matched again under is recorded too
    folders = [BRATIAA_PROJECT / "Lisa", BRATIAA_PROJECT / "Maria"]
    with pytest.raises(ValueError, match="read with span_rule=SpanRule"):
        sis.span_agreement(sis.read_annotations(folders, format="brat", span_rule="overlap"))
    merged = sis.read_annotations(folders, format="brat")
    assert span_rules(merged) == (sis.data.SpanRule(),)
    pair = sis.span_agreement(BRATIAA_PROJECT).by_pair.set_index(["annotator_a", "annotator_b"])
    assert sis.span_agreement(merged).value == pytest.approx(pair.loc[("Lisa", "Maria"), "f1"], abs=1e-15)
    # the exact rule (the default) is read as before; Annotations built otherwise carry no rule
    assert sis.span_agreement(sis.read_annotations(BRATIAA_PROJECT, format="brat")).value == exact
    built = sis.Annotations.from_wide([["PER", "PER"], ["O", "LOC"]], items=["d:0-4", "d:9-12"], raters=["a", "b"])
    assert span_rules(built) == () and sis.span_agreement(built).value == pytest.approx(2 / 3, abs=1e-15)


@pytest.mark.parametrize("kind,threshold,same_type", [("overlap", 0.0, True), ("overlap", 0.0, False),
                                                      ("overlap", 0.4, False), ("exact", np.nan, False)])
def test_candidate_join_equals_all_pairs(kind, threshold, same_type):
    from softirr_stats.spans._span_f1 import _overlap_edges

    rng = np.random.default_rng(5)
    n = 300
    start = rng.integers(0, 60, n)
    spans = frame([(f"d{rng.integers(0, 4)}", f"r{rng.integers(0, 3)}", int(s), int(s + rng.integers(1, 12)),
                    "XY"[rng.integers(0, 2)]) for s in start])
    spans = spans.drop_duplicates()
    tab = span_table(spans)
    i, j = _overlap_edges(tab, kind, threshold, same_type)
    got = set(zip(i.tolist(), j.tolist(), strict=True))
    want = set()
    for a in range(tab.n_spans):
        for b in range(tab.n_spans):
            if tab.doc[a] != tab.doc[b] or tab.rater[a] >= tab.rater[b] or (same_type and tab.type[a] != tab.type[b]):
                continue
            inter = min(tab.end[a], tab.end[b]) - max(tab.start[a], tab.start[b])
            union = tab.end[a] - tab.start[a] + tab.end[b] - tab.start[b] - inter
            if kind == "exact":
                ok = tab.start[a] == tab.start[b] and tab.end[a] == tab.end[b]
            else:
                ok = inter > 0 and inter >= threshold * union
            if ok:
                want.add((a, b))
    assert got == want and len(want) > 5


def test_signature_is_data_then_keyword_only_options():
    import inspect

    params = list(inspect.signature(sis.span_agreement).parameters.values())
    assert [p.name for p in params[:-1]] == ["ann_or_path", "match", "by", "average", "similarity", "format",
                                             "unmatched", "ci"]
    assert params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:-1])
    assert params[-1].kind is inspect.Parameter.VAR_KEYWORD  # the export reader's options
    assert sis.span_agreement.__module__ == "softirr_stats.api._statistics" and "span_agreement" in sis.__all__


EXPORTS = FIXTURES / "exports"
SPAN_EXPORTS = [  # (export, format, reader options, the reader's expected exact-rule ratings)
    ("label_studio/project-7-export.json", "label-studio", {"field": "ner"}, "label_studio/expected_ner_exact.csv"),
    ("doccano/ner", "doccano", {}, "doccano/ner/expected_exact.csv"),
    ("prodigy/ner_manual.jsonl", "prodigy", {}, "prodigy/ner_manual_expected_exact.csv"),
    ("webanno/annotation", "webanno-tsv", {"layer": "NamedEntity"}, "webanno/expected_spans_exact.csv"),
    ("brat/by_annotator", "brat", {}, "brat/expected_exact.csv"),
]


@pytest.mark.filterwarnings("ignore::softirr_stats.data.ExportWarning")  # the fixtures' skipped records
@pytest.mark.parametrize("export,fmt,options,expected", SPAN_EXPORTS, ids=[e[1] for e in SPAN_EXPORTS])
def test_every_span_export_reads_like_its_expected_ratings(export, fmt, options, expected):
    """The path (read with the exact rule, 'no span' as a private label) gives what the hand-written
    expected ratings give (items '<document>:<start>-<end>', 'O' = annotated, no span)."""
    by_hand = sis.read_annotations(EXPORTS / expected)
    for kw in ({}, {"match": "overlap"}, {"by": "all"}):
        from_path = sis.span_agreement(EXPORTS / export, format=fmt, **options, **kw)
        want = sis.span_agreement(by_hand, **kw)
        assert from_path.value == pytest.approx(want.value, rel=1e-15, nan_ok=True)
        # a task both annotated without a span (Label Studio's and doccano's task 3) is no item of the hand-written
        # ratings, which cannot hold it; the export's path counts it as a shared document, with no span
        empty = {"label-studio": ["3"], "doccano": ["3"]}.get(fmt, [])
        shared = want.by_pair.assign(n_documents=want.by_pair["n_documents"] + len(empty))
        pd.testing.assert_frame_equal(from_path.by_pair, shared)
        assert sorted(set(from_path.by_document["document"]) - set(want.by_document["document"])) == empty
        assert from_path.n_spans == want.n_spans > 0


@pytest.mark.filterwarnings("ignore::softirr_stats.data.ExportWarning")
def test_label_studio_ner_by_hand():
    # rater 1: PER [0,10), ORG, LOC | PER, LOC; rater 2: PER [0,4), ORG, LOC | PER, ORG (same offsets otherwise)
    path = EXPORTS / "label_studio" / "project-7-export.json"
    assert sis.span_agreement(path, format="label-studio", field="ner").value == pytest.approx(2 * 3 / 10, abs=1e-15)
    assert sis.span_agreement(path, format="label-studio", field="ner", match="overlap").value == pytest.approx(0.8)
    assert sis.span_agreement(path, format="label-studio", field="ner", by="all").value == pytest.approx(0.8)


def test_text_column_is_carried_and_other_designs_run():
    spans = _bigger_case().assign(text="some words")
    base = sis.span_agreement(spans.drop(columns="text"))
    assert sis.span_agreement(spans).value == base.value
    strata = {d: int(d[-1]) % 2 for d in spans["document"].unique()}
    for cfg in (sis.Bootstrap(n=200, design="bayesian", seed=0), sis.Bootstrap(n=200, strata=strata, seed=0)):
        r = sis.span_agreement(spans, ci=cfg)
        assert r.ci_low < r.ci_high and r.details["resampling_unit"] == "documents"


@pytest.mark.parametrize("column, other, what", [("type", "X ", "span types"), ("type", "X\u200b", "span types"),
                                                 ("document", "d1 ", "span documents"),
                                                 ("annotator", "a ", "annotators")])
def test_names_that_print_alike_are_kept_apart_with_a_warning(column, other, what):
    """'X' and 'X ' were two types (F1 0.5) without a word; they stay two, and the warning says so."""
    rows = [("d1", "a", 0, 5, "X"), ("d1", "b", 0, 5, "X"), ("d1", "a", 10, 15, "Y"), ("d1", "b", 10, 15, "Y")]
    spans = frame(rows)
    spans.loc[1 if column != "annotator" else 2, column] = other
    with pytest.warns(sis.data.LabelWarning, match=f"2 {what} in 1 group.*print alike"):
        tab = span_table(spans)
    assert len(getattr(tab, {"type": "types", "document": "documents", "annotator": "annotators"}[column])) == \
        (2 if column == "document" else 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", sis.data.LabelWarning)
        span_table(frame(rows))


def test_pairs_without_a_span_of_a_type_or_in_a_document_are_left_out_where_bratiaa_gives_nan(tmp_path):
    """Only A marks LOC (and only C MISC); only A marks a span in doc2: those pairs' F1 is 0/0. bratiaa averages
    over every pair (nan); here the mean and SD are over the pairs with a span there (docs/span_agreement.md)."""
    import bratiaa

    txt = "Maria Gomez met Acme in Rome.\n"
    anns = {"A": "T1\tPER 0 11\tMaria Gomez\nT2\tORG 16 20\tAcme\nT3\tLOC 24 28\tRome\n",
            "B": "T1\tPER 0 11\tMaria Gomez\nT2\tORG 16 20\tAcme\n",
            "C": "T1\tPER 0 11\tMaria Gomez\nT2\tMISC 16 20\tAcme\n"}
    for who, a in anns.items():
        (tmp_path / who).mkdir()
        (tmp_path / who / "doc1.txt").write_text(txt)
        (tmp_path / who / "doc1.ann").write_text(a)
        (tmp_path / who / "doc2.txt").write_text("Peter.\n")
        (tmp_path / who / "doc2.ann").write_text("T1\tPER 0 5\tPeter\n" if who == "A" else "")
    (tmp_path / "annotation.conf").write_text("[entities]\nPER\nORG\nLOC\nMISC\n[relations]\n[events]\n[attributes]\n")
    theirs = bratiaa.compute_f1_agreement(str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = sis.span_agreement(tmp_path)
    assert r.value == float(theirs.mean_sd_total()[0])  # the total is the same
    by_type = r.by_type.set_index("type")
    mean, sd = theirs.mean_sd_per_label()
    for label, m, s in zip(theirs.labels, mean, sd, strict=True):
        if label in ("LOC", "MISC"):  # bratiaa: nan; here A~B and A~C (LOC) or A~C and B~C (MISC), F1 0 each
            assert np.isnan(m) and np.isnan(s)
            assert (by_type.loc[label, "f1"], by_type.loc[label, "sd"], by_type.loc[label, "n_pairs"]) == (0.0, 0.0, 2)
        else:  # every pair has a span of the type: the same numbers
            assert by_type.loc[label, "n_pairs"] == 3
            assert by_type.loc[label, "f1"] == pytest.approx(m, abs=1e-12)
            assert by_type.loc[label, "sd"] == pytest.approx(s, abs=1e-12)
    # by hand: ORG F1 per pair A~B 1, A~C 0 (C typed Acme MISC), B~C 0 -> mean 1/3; PER 2/3 (A~B, A~C: 2*1/(2+1)), 1
    assert by_type.loc["ORG", "f1"] == pytest.approx(1 / 3, abs=1e-12)
    assert by_type.loc["PER", "f1"] == pytest.approx((2 / 3 + 2 / 3 + 1) / 3, abs=1e-12)
    by_doc = r.by_document.set_index("document")
    mean, sd = theirs.mean_sd_per_document()
    doc = dict(zip(theirs.documents, zip(mean, sd, strict=True), strict=True))
    assert by_doc.loc["doc1", "f1"] == pytest.approx(doc["doc1.ann"][0], abs=1e-12)
    assert by_doc.loc["doc1", "sd"] == pytest.approx(doc["doc1.ann"][1], abs=1e-12)
    assert np.isnan(doc["doc2.ann"][0])  # bratiaa: B~C have no span in doc2
    assert (by_doc.loc["doc2", "f1"], by_doc.loc["doc2", "n_pairs"]) == (0.0, 2)  # A~B, A~C: F1 0 each


# ------------------------------------------------------------------------------------ zero-length spans
ZERO = [("d", "a", 4, 4, "PER"), ("d", "a", 0, 9, "LOC"), ("d", "a", 12, 12, "PER"),
        ("d", "b", 4, 4, "PER"), ("d", "b", 0, 9, "LOC"), ("d", "b", 13, 13, "PER"),
        ("d", "c", 0, 4, "PER"), ("d", "c", 4, 9, "PER")]


@pytest.mark.parametrize("match", ["exact", "overlap", "overlap:0.5"])
@pytest.mark.parametrize("by", ["type", "all"])
def test_zero_length_spans_match_only_an_identical_zero_length_span(match, by):
    # by hand: a~b match [4,4) PER and [0,9) LOC (2 of 3 + 3 spans); c's spans touch the zero-length ones and
    # share characters with [0,9) LOC only (another type: a match under by="all" and overlap, one per span)
    r = sis.span_agreement(frame(ZERO), match=match, by=by)
    ac = bc = 0.0
    if by == "all" and match == "overlap":
        ac = bc = 2 * 1 / (3 + 2)  # [0,9) ~ one of c's two halves (IoU 4/9 or 5/9)
    if by == "all" and match == "overlap:0.5":
        ac = bc = 2 * 1 / (3 + 2)  # [0,9) ~ [4,9) (IoU 5/9 >= 0.5)
    np.testing.assert_allclose(r.by_pair["f1"].to_numpy(), [2 * 2 / 6, ac, bc], atol=1e-12)
    assert r.value == pytest.approx((2 * 2 / 6 + ac + bc) / 3, abs=1e-12)


def test_a_refused_span_names_its_document_and_annotator_not_a_row():
    with pytest.raises(ValueError) as err:
        span_table(frame([("d1", "a", 0, 4, "PER"), ("notes.txt", "bob", 9, 3, "LOC")]))
    message = str(err.value)
    assert "document 'notes.txt', annotator 'bob' has a 'LOC' span [9, 3)" in message and "row" not in message


def _inception_zero_length(root: pathlib.Path) -> pathlib.Path:
    """INCEpTION's tsv3 suite testZeroLengthSpansWithoutFeatureValues (reference.tsv), as two users' files."""
    text = ("#FORMAT=WebAnno TSV 3.3\n#T_SP=webanno.custom.Span|value\n\n\n#Text=This is a test .\n"
            "1-1\t0-4\tThis\t_\t\n1-1.1\t0-0\t\t*\t\n1-2\t5-7\tis\t_\t\n1-3\t8-9\ta\t_\t\n1-4\t10-14\ttest\t_\t\n"
            "1-5\t15-16\t.\t_\t\n1-5.1\t16-16\t\t*\t\n")
    doc = root / "annotation" / "doc1.txt"
    doc.mkdir(parents=True)
    (doc / "user1.tsv").write_text(text)
    (doc / "user2.tsv").write_text(text.replace("1-5.1\t16-16\t\t*", "1-5.1\t16-16\t\t_"))
    return root / "annotation"


def test_inception_zero_length_spans_read_and_count_as_spans(tmp_path):
    path = _inception_zero_length(tmp_path)
    ann = sis.read_annotations(path, format="webanno-tsv")
    assert ann.items == ("doc1.txt:0-0", "doc1.txt:16-16")
    r = sis.span_agreement(path, format="webanno-tsv")
    # user1 marked [0,0) and [16,16), user2 [0,0) only: F1 = 2 * 1 / (2 + 1)
    assert r.value == pytest.approx(2 / 3, abs=1e-12)
    assert r.value == pytest.approx(sis.span_agreement(ann).value, abs=1e-12)
    assert sis.span_agreement(path, format="webanno-tsv", match="overlap").value == pytest.approx(2 / 3, abs=1e-12)


def test_brat_reads_zero_length_spans_as_webanno_does(tmp_path):
    for who, text in {"alice": "T1\tPER 4 4\t\nT2\tLOC 0 9\tJohn Smit\n", "bob": "T1\tPER 4 4\t\nT2\tPER 0 4\tJohn\n"}.items():
        (tmp_path / who).mkdir()
        (tmp_path / who / "doc1.ann").write_text(text)
    ann = sis.read_annotations(tmp_path, format="brat")
    assert ann.items == ("doc1:0-4", "doc1:0-9", "doc1:4-4")
    assert ann.to_long().query("item == 'doc1:4-4'")["label"].tolist() == ["PER", "PER"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no 0/0 in the reader's IoU
        over = sis.read_annotations(tmp_path, format="brat", span_rule="overlap")
    # the zero-length spans pair with each other (IoU 1), never with [0,4) or [0,9) (IoU 0)
    assert sorted(over.items) == ["doc1:0-9", "doc1:4-4"]
    long = over.to_long()
    assert long.query("item == 'doc1:4-4'")["label"].tolist() == ["PER", "PER"]
    assert sis.span_agreement(tmp_path, format="brat").value == pytest.approx(2 * 1 / 4, abs=1e-12)
