"""Reporting: plots of result tables (tidy tables come from the functions themselves)."""

from softirr_stats.reporting._plots import plot_sensitivity

__all__ = ["plot_sensitivity"]
