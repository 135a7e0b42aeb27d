"""span_agreement's default interval: the document jackknife's Student-t interval on the logit scale.

Chosen by ``benchmarks/span_f1_coverage.py`` (docs/coverage.md, "Span F1"): with 20-80 documents it
covered 93.1-95.6% where the bootstrap's bca-t covered 91.4-94.2%.
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
from softirr_stats.spans import SpanWarning
from softirr_stats.uncertainty import logit_jackknife_t_interval


def _spans(n_docs: int = 24, seed: int = 0) -> pd.DataFrame:
    """Three annotators, two types, shifted boundaries, spurious spans, some documents without spans."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_docs):
        doc = f"doc{d:03d}"
        n = 0 if d % 6 == 0 else int(rng.integers(1, 9))
        for k in range(n):
            kind = ("PER", "ORG")[k % 2]
            for who, recall in (("a", 0.9), ("b", 0.75), ("c", 0.6)):
                if rng.random() < recall:
                    end = 20 * k + 5 + (rng.random() < 0.15)  # a boundary disagreement now and then
                    rows.append((doc, who, 20 * k, end, kind))
        if rng.random() < 0.4:
            rows.append((doc, "b", 500, 504, "PER"))  # a span of b's own
        if not any(r[0] == doc for r in rows):
            rows.append((doc, "a", None, None, None))  # a document without spans
    return pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "type"])


def test_default_interval_is_the_logit_jackknife_t_of_leave_one_document_out_values():
    spans = _spans(n_docs=16)
    with pytest.warns(SpanWarning, match="3 of 16 documents hold no span"):
        r = sis.span_agreement(spans, ci=sis.Bootstrap(n=200, seed=4))
    # the units are the documents that hold a span (every annotator annotated every document of a tidy table)
    docs = spans.dropna(subset=["start"])["document"].unique()
    assert len(docs) == 13 and r.n_items == 13 and r.details["n_documents"] == 16
    # leave-one-document-out values by re-running the statistic without the document
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanWarning)
        jack = np.array([sis.span_agreement(spans.loc[spans["document"] != d]).value for d in docs])
    lo, hi, note = logit_jackknife_t_interval(r.value, jack, 0.95)
    assert note == "" and r.ci_method == "jackknife-t-logit"
    assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)
    assert r.details["t_dof"] == len(docs) - 1 and "jackknife" in r.details["interval_rule"]
    # the bootstrap still gives the SE, the replicates and the pairs' percentile intervals
    assert r.se == pytest.approx(np.std(r.details["replicates"], ddof=1), rel=1e-12)
    assert r.details["bootstrap_n"] == 200 and (r.by_pair["ci_low"] <= r.by_pair["ci_high"]).all()
    assert "jackknife-t-logit" in str(r)


def test_explicit_methods_and_other_designs_keep_the_bootstrap_interval():
    spans = _spans()
    assert sis.span_agreement(spans, ci=sis.Bootstrap(n=100, seed=0, method="bca-t")).ci_method == "bootstrap-bca-t"
    assert sis.span_agreement(spans, ci=sis.Bootstrap(n=100, seed=0, method="bca")).ci_method == "bootstrap-bca"
    groups = {d: i % 6 for i, d in enumerate(spans["document"].unique())}
    cl = sis.span_agreement(spans, ci=sis.Bootstrap(n=100, seed=0, design="cluster", cluster=groups))
    assert cl.ci_method.startswith("bootstrap-")


def test_perfect_agreement_falls_back_to_the_original_scale():
    rows = [(f"d{d}", who, 10 * k, 10 * k + 4, "X") for d in range(6) for k in range(d % 3 + 1) for who in "ab"]
    with pytest.warns(sis.DegenerateWarning, match="identical"):  # every replicate is 1
        r = sis.span_agreement(pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "type"]),
                               ci=sis.Bootstrap(n=50, seed=0))
    assert r.value == 1.0 and (r.ci_low, r.ci_high) == (1.0, 1.0)
    assert any("original scale" in w for w in r.warnings)


def test_more_than_1000_documents_use_the_percentile_interval():
    rows = [(f"d{d}", who, 0, 4, "X") for d in range(1001) for who in "ab"]
    rows += [(f"d{d}", "b", 10, 14, "X") for d in range(0, 1001, 3)]
    r = sis.span_agreement(pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "type"]),
                           ci=sis.Bootstrap(n=50, seed=0))
    assert r.ci_method == "bootstrap-percentile" and math.isfinite(r.ci_low)


def test_an_interval_formed_on_the_original_scale_is_not_named_logit():
    import pandas as pd

    spans = pd.DataFrame([("d1", "a", 0, 4, "X"), ("d1", "b", 0, 4, "X"), ("d2", "a", 0, 4, "X"),
                          ("d2", "b", 5, 9, "X"), ("d3", "a", 0, 4, "Y"), ("d3", "b", 0, 4, "Y")],
                         columns=["document", "annotator", "start", "end", "type"])
    r = sis.span_agreement(spans, ci=sis.Bootstrap(n=200, seed=0))  # leave-one-out values at 1: no logit
    assert any("original scale" in w for w in r.warnings)
    assert r.ci_method == "jackknife-t" and "original scale" in r.details["interval_rule"]


# --------------------------------------------------------------------------- the interval's units


def _brat(root, spans: pd.DataFrame) -> None:
    """One folder per annotator, one ``.ann`` file per document it annotated."""
    for (who, doc), g in spans.groupby(["annotator", "document"]):
        (root / who).mkdir(parents=True, exist_ok=True)
        (root / who / f"{doc}.ann").write_text("".join(f"T{k}\t{t} {s} {e}\tx\n" for k, (s, e, t) in
                                                       enumerate(zip(g.start, g.end, g.type, strict=True), 1)))


_THREE = pd.DataFrame({"document": ["d1"] * 4 + ["d2"] * 4 + ["d3"] * 3,
                       "annotator": ["a", "a", "b", "b", "a", "a", "b", "b", "a", "a", "b"],
                       "start": [0, 10, 0, 11, 0, 10, 0, 10, 0, 10, 0], "end": [5, 15, 5, 15, 5, 15, 5, 15, 5, 15, 5],
                       "type": ["X"] * 11})


def _logit_t_by_hand(tp: np.ndarray, total: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """The jackknife-t interval on the logit scale from per-document TP and n_a + n_b (one pair)."""
    from scipy import stats

    f = 2 * tp.sum() / total.sum()
    loo = 2 * (tp.sum() - tp) / (total.sum() - total)
    lj = np.log(loo / (1 - loo))
    n = tp.size
    se = np.sqrt((n - 1) / n * np.sum((lj - lj.mean()) ** 2))
    t = stats.t.ppf((1 + level) / 2, n - 1)
    centre = np.log(f / (1 - f))
    return 1 / (1 + np.exp(-(centre - t * se))), 1 / (1 + np.exp(-(centre + t * se)))


def test_documents_only_one_annotator_saw_do_not_narrow_the_interval(tmp_path):
    """15 documents only annotator a has: F1 0.7273 on 3 shared documents; the interval stayed (0.060, 0.991)
    with them (it narrowed to (0.228, 0.960), 17 df instead of 2)."""
    _brat(tmp_path / "three", _THREE)
    extra = pd.DataFrame({"document": [f"s{i:02d}" for i in range(15)], "annotator": "a", "start": 0, "end": 5,
                          "type": "X"})
    _brat(tmp_path / "more", pd.concat([_THREE, extra], ignore_index=True))
    ci = sis.Bootstrap(n=2000, seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sis.FewUnitsWarning)
        base = sis.span_agreement(tmp_path / "three", ci=ci)
        with pytest.warns(SpanWarning, match="15 of 18 documents hold no span of an annotator pair"):
            more = sis.span_agreement(tmp_path / "more", ci=ci)
    # per document TP and n_a + n_b: d1 1 of 4, d2 2 of 4, d3 1 of 3
    lo, hi = _logit_t_by_hand(np.array([1.0, 2.0, 1.0]), np.array([4.0, 4.0, 3.0]))
    for r in (base, more):
        assert r.value == pytest.approx(8 / 11, abs=1e-15) and r.ci_method == "jackknife-t-logit"
        assert (r.ci_low, r.ci_high) == pytest.approx((lo, hi), abs=1e-12)
        assert r.n_items == 3 and r.details["t_dof"] == 2 and r.by_pair["n_documents"].tolist() == [3]
        assert r.details["n_nan_replicates"] == 0
    assert round(more.ci_low, 3) == 0.060 and round(more.ci_high, 3) == 0.991
    assert more.details["n_documents"] == 18 and more.details["n_informative_documents"] == 3
    assert more.se == base.se  # the same replicates: only the 3 informative documents are resampled
    np.testing.assert_array_equal(more.details["replicates"], base.details["replicates"])


def _six_documents() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    rows = []
    for d in range(6):
        for k in range(4):
            rows.append((f"d{d}", "a", 10 * k, 10 * k + 5, "X"))
            if rng.random() < 0.7:
                rows.append((f"d{d}", "b", 10 * k, 10 * k + 5, "X"))
            elif rng.random() < 0.5:
                rows.append((f"d{d}", "b", 10 * k, 10 * k + 4, "X"))
    return pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "type"])


@pytest.mark.parametrize("cfg", [sis.Bootstrap(n=1000, seed=0), sis.Bootstrap(n=1000, seed=0, method="percentile"),
                                 sis.Bootstrap(n=1000, seed=0, method="bca"),
                                 sis.Bootstrap(n=1000, seed=0, design="bayesian"),
                                 sis.Bootstrap(n=1000, seed=0, strata={**{f"d{d}": d % 2 for d in range(6)},
                                                                       **{f"e{i:02d}": 0 for i in range(30)}})],
                         ids=["auto", "percentile", "bca", "bayesian", "strata"])
def test_declared_empty_documents_leave_every_interval_unchanged(cfg):
    """30 documents both annotators annotated and nobody marked: the default interval moved from
    (0.526, 0.805) to (0.550, 0.790) with them (35 df instead of 5); now every interval stays, to the bit for
    the bootstrap ones (the replicates are drawn over the informative documents only)."""
    base = _six_documents()
    empty = pd.DataFrame({"document": [f"e{i:02d}" for i in range(30) for _ in range(2)], "annotator": ["a", "b"] * 30,
                          "start": np.nan, "end": np.nan, "type": None})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sis.FewUnitsWarning)
        r0 = sis.span_agreement(base, ci=cfg)
        with pytest.warns(SpanWarning, match="30 of 36 documents"):
            r1 = sis.span_agreement(pd.concat([base, empty], ignore_index=True), ci=cfg)
    assert r1.value == r0.value and r1.n_items == r0.n_items == 6 and r1.details["n_documents"] == 36
    assert (r1.ci_low, r1.ci_high, r1.se) == pytest.approx((r0.ci_low, r0.ci_high, r0.se), abs=1e-12)
    assert r1.ci_method == r0.ci_method and r1.details["n_nan_replicates"] == 0
    pd.testing.assert_frame_equal(r1.by_pair, r0.by_pair.assign(n_documents=36))
    if cfg.method == "auto" and cfg.design == "items":  # the logit jackknife-t, checked by hand (one pair)
        tab = base.assign(both=base.groupby(["document", "start", "end"])["annotator"].transform("nunique") == 2)
        tp = tab.groupby("document")["both"].sum().to_numpy() / 2
        total = tab.groupby("document").size().to_numpy().astype(float)
        assert (r1.ci_low, r1.ci_high) == pytest.approx(_logit_t_by_hand(tp, total), abs=1e-12)
        assert r1.details["t_dof"] == 5


def test_a_cluster_given_as_a_sequence_over_all_documents_is_cut_to_the_informative_ones():
    base = _six_documents()
    empty = pd.DataFrame({"document": ["e0", "e0", "e1", "e1"], "annotator": ["a", "b"] * 2, "start": np.nan,
                          "end": np.nan, "type": None})
    spans = pd.concat([base, empty], ignore_index=True)
    docs = sorted(spans["document"].unique())  # d0..d5, e0, e1
    by_name = {d: ("c" + d[-1]) if d.startswith("d") else "c0" for d in docs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r_map = sis.span_agreement(spans, ci=sis.Bootstrap(n=300, seed=2, design="cluster", cluster=by_name))
        r_seq = sis.span_agreement(spans, ci=sis.Bootstrap(n=300, seed=2, design="cluster",
                                                           cluster=[by_name[d] for d in docs]))
        r_base = sis.span_agreement(base, ci=sis.Bootstrap(n=300, seed=2, design="cluster", cluster=by_name))
    assert (r_seq.ci_low, r_seq.ci_high) == (r_map.ci_low, r_map.ci_high) == (r_base.ci_low, r_base.ci_high)
    with pytest.raises(ValueError, match=r"cluster must have one entry per item \(8\); got 6"):
        sis.span_agreement(spans, ci=sis.Bootstrap(n=300, seed=2, design="cluster", cluster=list(range(6))))


def test_fewer_than_two_informative_documents_refuse_the_bootstrap():
    spans = pd.concat([_THREE.loc[_THREE["document"] == "d1"],
                       pd.DataFrame({"document": ["e"] * 2, "annotator": ["a", "b"], "start": np.nan, "end": np.nan,
                                     "type": None})], ignore_index=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SpanWarning)
        assert sis.span_agreement(spans).value == 0.5  # the point estimate is given
        with pytest.raises(ValueError, match=r"at least 2 documents that hold a span of an annotator pair .* got 1 "
                                             r"of 2 documents.*ci=None"):
            sis.span_agreement(spans, ci=sis.Bootstrap(n=100, seed=0))


# --------------------------------------------------------------------------- few units


def _corpus(n_docs: int, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_docs):
        for k in range(5):
            rows.append((f"d{d:02d}", "a", 10 * k, 10 * k + 5, "X"))
            if rng.random() < 0.75:
                rows.append((f"d{d:02d}", "b", 10 * k, 10 * k + 5, "X"))
            if rng.random() < 0.2:
                rows.append((f"d{d:02d}", "b", 10 * k + 60, 10 * k + 65, "X"))
    return pd.DataFrame(rows, columns=["document", "annotator", "start", "end", "type"])


@pytest.mark.parametrize("n_docs", [2, 8])
@pytest.mark.parametrize("method", ["auto", "percentile"])
def test_few_documents_warn_as_few_items_do(n_docs, method):
    """The warning names the unit (documents) and span F1's own measured coverage, not kappa's and alpha's
    at 5-15 items (it said "8 items resampled ... kappa and alpha covered 51-79% at 5 ...")."""
    with pytest.warns(sis.FewUnitsWarning, match=f"^{n_docs} documents resampled \\(fewer than 20\\)") as seen:
        r = sis.span_agreement(_corpus(n_docs), ci=sis.Bootstrap(n=500, seed=0, method=method))
    said = [str(w.message) for w in seen if issubclass(w.category, sis.FewUnitsWarning)]
    assert len(said) == 1 and said[0] in r.warnings
    assert said[0] == (f"{n_docs} documents resampled (fewer than 20): span F1's default interval covered 93.1-97.0% "
                       "at 20-80 documents (docs/coverage.md, \"Span F1\"); with fewer its coverage was not "
                       "measured, and an interval over so few units likely covers less often than its level says: "
                       "read it as rough, and give more documents where a conclusion rests on it")
    assert r.n_items == n_docs and r.details.get("t_dof") == (n_docs - 1 if method == "auto" else None)
    with warnings.catch_warnings():
        warnings.simplefilter("error", sis.FewUnitsWarning)
        sis.span_agreement(_corpus(20), ci=sis.Bootstrap(n=200, seed=0, method=method))  # 20 documents: none


def test_few_clusters_widen_the_interval_as_for_fleiss_kappa():
    """24 documents in 4 clusters: few_units='t' and 'none' gave the same interval, with no warning. Now the
    basic interval's distances from the estimate (and the tables' bounds) grow by t_3 / z * sqrt(4 / 3), the
    factor fleiss_kappa's cluster interval gets on the same 4 clusters."""
    from scipy import stats

    spans = _corpus(24)
    cluster = {f"d{d:02d}": f"c{d % 4}" for d in range(24)}
    factor = stats.t.ppf(0.975, 3) / stats.norm.ppf(0.975) * np.sqrt(4 / 3)

    def run(fn, data, few):
        cfg = sis.Bootstrap(n=2000, seed=0, design="cluster", cluster=cluster, few_units=few)
        with pytest.warns(sis.FewUnitsWarning, match="4 clusters resampled"):
            return fn(data, ci=cfg)

    t, none = run(sis.span_agreement, spans, "t"), run(sis.span_agreement, spans, "none")
    assert t.ci_method == none.ci_method == "bootstrap-basic"
    assert t.details["few_units_factor"] == pytest.approx(factor, rel=1e-12)
    assert (t.ci_low, t.ci_high) == pytest.approx((t.value - factor * (t.value - none.ci_low),
                                                   t.value + factor * (none.ci_high - t.value)), abs=1e-12)
    assert t.se == pytest.approx(factor * none.se, rel=1e-12)
    for table in ("by_pair", "by_type"):  # the percentile bounds of the tables, widened the same way
        a, b = getattr(t, table), getattr(none, table)
        np.testing.assert_allclose(a["ci_low"], b["f1"] - factor * (b["f1"] - b["ci_low"]), atol=1e-12)
        np.testing.assert_allclose(a["ci_high"], b["f1"] + factor * (b["ci_high"] - b["f1"]), atol=1e-12)
    ann = sis.Annotations.from_wide(np.random.default_rng(3).integers(0, 2, size=(24, 2)).tolist(),
                                    items=[f"d{d:02d}" for d in range(24)])
    kt, kn = run(sis.fleiss_kappa, ann, "t"), run(sis.fleiss_kappa, ann, "none")
    assert kt.details["few_units_factor"] == t.details["few_units_factor"]
    assert (kt.ci_high - kt.value) / (kn.ci_high - kn.value) == pytest.approx(factor, rel=1e-12)


def test_clusters_of_uninformative_documents_are_not_units():
    """A cluster whose documents hold no pair's span adds no unit: 9 clusters of spans and 3 of empty documents
    warn about 9 clusters, and give the interval of the 9."""
    spans = _corpus(18)
    cluster = {f"d{d:02d}": f"c{d % 9}" for d in range(18)}
    empty = pd.DataFrame({"document": [f"e{i}" for i in range(6) for _ in range(2)], "annotator": ["a", "b"] * 6,
                          "start": np.nan, "end": np.nan, "type": None})
    more = {**cluster, **{f"e{i}": f"z{i % 3}" for i in range(6)}}
    with pytest.warns(sis.FewUnitsWarning, match="9 clusters resampled"):
        r0 = sis.span_agreement(spans, ci=sis.Bootstrap(n=500, seed=0, design="cluster", cluster=cluster))
    with pytest.warns(sis.FewUnitsWarning, match="9 clusters resampled"), pytest.warns(SpanWarning):
        r1 = sis.span_agreement(pd.concat([spans, empty], ignore_index=True),
                                ci=sis.Bootstrap(n=500, seed=0, design="cluster", cluster=more))
    assert (r1.ci_low, r1.ci_high) == (r0.ci_low, r0.ci_high)
