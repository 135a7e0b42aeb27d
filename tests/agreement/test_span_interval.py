"""span_agreement's default interval: the document jackknife's Student-t interval on the logit scale.

Chosen by ``benchmarks/span_f1_coverage.py`` (docs/coverage.md, "Span F1"): with 20-80 documents it
covered 93.1-95.6% where the bootstrap's bca-t covered 91.4-94.2%.
"""

import math

import numpy as np
import pandas as pd
import pytest

import softirr_stats as sis
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
    docs = spans["document"].unique()
    r = sis.span_agreement(spans, ci=sis.Bootstrap(n=200, seed=4))
    # leave-one-document-out values by re-running the statistic without the document
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
