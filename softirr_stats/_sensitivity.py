"""Moved to :mod:`softirr_stats.analysis` (``analysis/_sensitivity.py``); this name keeps old imports working."""

from softirr_stats.analysis._sensitivity import COLUMNS, coefficient_registry, sensitivity

__all__ = ["sensitivity", "coefficient_registry", "COLUMNS"]
