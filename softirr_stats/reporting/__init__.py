"""Reporting: plots of result tables and the self-contained HTML report."""

from softirr_stats.reporting._html import build_report
from softirr_stats.reporting._plots import plot_sensitivity

__all__ = ["build_report", "plot_sensitivity"]
