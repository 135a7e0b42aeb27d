"""Reporting: plots of result tables, Markdown / LaTeX tables for papers, the self-contained HTML report."""

from typing import TYPE_CHECKING

from softirr_stats._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.reporting._html": ('build_report',),
    "softirr_stats.reporting._plots": ('plot_sensitivity',),
    "softirr_stats.reporting._tables": ('to_latex', 'to_markdown',),
})

if TYPE_CHECKING:
    from softirr_stats.reporting._html import (
        build_report,
    )
    from softirr_stats.reporting._plots import (
        plot_sensitivity,
    )
    from softirr_stats.reporting._tables import (
        to_latex,
        to_markdown,
    )
