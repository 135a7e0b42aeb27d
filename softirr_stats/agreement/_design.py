"""The old path of :mod:`softirr_stats.agreement._layout` (the rating layout), re-exported."""

from softirr_stats.agreement._layout import Design, RatingLayout, build_design, rating_layout

__all__ = ["RatingLayout", "rating_layout", "Design", "build_design"]
