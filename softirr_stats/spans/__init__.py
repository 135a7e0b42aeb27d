"""Span agreement: pairwise F1 between annotators of character spans (docs/span_agreement.md).

``_span_f1.py`` holds the span table (one row per span, from a data frame or from the span readers'
``Annotations``), the one-to-one matching (exact, overlap, IoU; soft type matching through a
similarity), the per-document counts and :class:`SpanStatistic`, the ``Statistic`` the bootstrap
resamples documents with. The public function is ``softirr_stats.span_agreement``.

It sits right above ``agreement`` (its ``Statistic`` and result classes) and below ``uncertainty``.
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.spans._span_f1": ("SpanAgreementResult", "SpanStatistic", "SpanWarning"),
}, internal={  # for span_agreement (api/_statistics.py); not in __all__
    "softirr_stats.spans._span_f1": ("SPAN_AVERAGES", "SPAN_BY", "SpanTable", "informative_documents", "parse_match",
                                     "span_counts", "span_summary", "span_table", "span_table_from_annotations"),
})

if TYPE_CHECKING:
    from softirr_stats.spans._span_f1 import (
        SPAN_AVERAGES,
        SPAN_BY,
        SpanAgreementResult,
        SpanStatistic,
        SpanTable,
        SpanWarning,
        informative_documents,
        parse_match,
        span_counts,
        span_summary,
        span_table,
        span_table_from_annotations,
    )
