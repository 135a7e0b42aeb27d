"""Reporting: plots of result tables and Markdown / LaTeX tables for papers."""

from softirr_stats.reporting._plots import plot_sensitivity
from softirr_stats.reporting._tables import to_latex, to_markdown

__all__ = ["plot_sensitivity", "to_latex", "to_markdown"]
