"""Prediction-powered agreement: a coefficient on many automatically scored label pairs, corrected by a
small sample of pairs a judge (human or model) scored.

The room holds the whole path of ``judgments=`` (docs/ppi.md):

- ``_judging.py``: the judging plan (which distinct label pairs to send to a judge, drawn from the
  coefficient's own term weights) and :func:`read_judgments`, the one reader of filled-in judgments;
- ``_ppi_terms.py``: the term weights of the judged pairs, one ``JudgedWeights`` record per chance
  family (named by the family record's ``judged`` field), and the delta-method variance;
- ``_ppi_statistic.py``: the prediction-powered estimate as a ``Statistic`` (:class:`PpiStatistic`);
- ``_ppi_intervals.py``: the estimate with the interval ``uncertainty.attach_interval`` gives it
  (:func:`apply_ppi`, what ``judgments=`` of a coefficient function calls).

It sits above ``uncertainty`` (its intervals) and below ``api``; nothing under it imports it.
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.ppi._judging": ("JudgingPlan", "judging_plan", "read_judgments"),
    "softirr_stats.ppi._ppi_statistic": ("PpiStatistic", "ppi_result", "superpopulation_estimand"),
}, internal={  # for api's coefficient functions, the judging sheets and the report; not in __all__
    "softirr_stats.ppi._judging": ("COEFFICIENT_FAMILIES", "label_codes", "label_text"),
    "softirr_stats.ppi._ppi_intervals": ("apply_ppi",),
})

if TYPE_CHECKING:
    from softirr_stats.ppi._judging import (
        COEFFICIENT_FAMILIES,
        JudgingPlan,
        judging_plan,
        label_codes,
        label_text,
        read_judgments,
    )
    from softirr_stats.ppi._ppi_intervals import apply_ppi
    from softirr_stats.ppi._ppi_statistic import PpiStatistic, ppi_result, superpopulation_estimand
