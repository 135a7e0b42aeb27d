"""Reporting: plots of result tables, Markdown / LaTeX tables for papers, the self-contained HTML report."""

from softirr_stats.reporting._html import build_report
from softirr_stats.reporting._plots import plot_sensitivity
from softirr_stats.reporting._tables import to_latex, to_markdown

__all__ = ["build_report", "plot_sensitivity", "to_latex", "to_markdown"]
