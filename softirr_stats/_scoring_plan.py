"""Moved to :mod:`softirr_stats.analysis` (``analysis/_scoring_plan.py``); this name keeps old imports working."""

from softirr_stats.analysis._scoring_plan import ScoringPlan, cached_estimator, scoring_plan

__all__ = ["ScoringPlan", "scoring_plan", "cached_estimator"]
