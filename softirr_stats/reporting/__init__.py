"""Reporting: plots of result tables (tidy tables come from the functions themselves)."""

from typing import TYPE_CHECKING

from softirr_stats._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {"softirr_stats.reporting._plots": ("plot_sensitivity",)})

if TYPE_CHECKING:
    from softirr_stats.reporting._plots import plot_sensitivity
