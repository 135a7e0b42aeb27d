"""Comparing agreement: differences of two statistics, the alternative annotator test, per-rater diagnostics.

``compare`` (paired where the statistics share items, independent otherwise), ``compare_groups``
(two rater groups on the same items, with a permutation test), ``replacement_test`` (can an
automatic annotator replace a human? Calderon, Reichart & Dror 2025), ``leave_one_rater_out``
and ``against_reference`` (docs/comparing.md).
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.comparison._compare": ('ComparisonWarning', 'compare',),
    "softirr_stats.comparison._groups": ('compare_groups',),
    "softirr_stats.comparison._replacement": ('FewHumansWarning', 'ReplacementResult', 'replacement_test',),
    "softirr_stats.comparison._per_rater": ('ReferenceResult', 'against_reference', 'leave_one_rater_out',),
    "softirr_stats.comparison._comparison_result": ('ComparisonResult',),
}, internal={  # the per-rater notes' wording, which the command line rewords, and the groups' check it runs
    "softirr_stats.comparison._per_rater": ('VS_REST_CHANCE_NOTE',),  # before any work; not in __all__
    "softirr_stats.comparison._groups": ('check_groups',),
})

if TYPE_CHECKING:
    from softirr_stats.comparison._compare import ComparisonWarning, compare
    from softirr_stats.comparison._comparison_result import ComparisonResult
    from softirr_stats.comparison._groups import check_groups, compare_groups
    from softirr_stats.comparison._per_rater import (
        VS_REST_CHANCE_NOTE,
        ReferenceResult,
        against_reference,
        leave_one_rater_out,
    )
    from softirr_stats.comparison._replacement import (
        FewHumansWarning,
        ReplacementResult,
        replacement_test,
    )
