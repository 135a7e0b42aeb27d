"""Reporting: plots of result tables, Markdown / LaTeX tables for papers, the self-contained HTML report."""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.reporting._comparison_plot": ('comparison_section', 'plot_comparisons',),
    "softirr_stats.reporting._html": ('build_report', 'weighted_reliability'),
    "softirr_stats.reporting._plots": ('plot_sensitivity',),
    "softirr_stats.reporting._summary": ('SensitivitySummary', 'sensitivity_summary',),
    "softirr_stats.reporting._tables": ('interval_note', 'paper_table', 'table_with_notes', 'to_latex', 'to_markdown',),
}, internal={"softirr_stats.reporting._html": ('model_summary',)})  # for softirr model; not in __all__

if TYPE_CHECKING:
    from softirr_stats.reporting._comparison_plot import (
        comparison_section,
        plot_comparisons,
    )
    from softirr_stats.reporting._html import (
        build_report,
        model_summary,
        weighted_reliability,
    )
    from softirr_stats.reporting._plots import (
        plot_sensitivity,
    )
    from softirr_stats.reporting._summary import (
        SensitivitySummary,
        sensitivity_summary,
    )
    from softirr_stats.reporting._tables import (
        interval_note,
        paper_table,
        table_with_notes,
        to_latex,
        to_markdown,
    )
