"""The public functions: coefficients (``_coefficients``), the other statistics (``_statistics``, ``_score_statistics``,
``_categorical_statistics``) and the permutation test (``_permutation_test``).

Their face is the root namespace: ``import softirr_stats as sis; sis.fleiss_kappa(...)`` (the layers above reach a
public function by name there too). This package's own face holds what the layers above share besides the public
functions: the estimate of a registry record with and without its interval (``estimate_point``,
``estimate_with_interval``: ``sensitivity``, ``compare``, ``plan_items``), a coefficient's public function by name
(``public_function``, coefficients added with ``register`` included), a score statistic by name
(``score_statistic``, and ``TESTS_AT_ANY_NULL``: those whose test takes a null and a side) the check of ``distance_agreement``'s options (``check_distance_options``) and the reading half of ``span_agreement``
(``read_spans``: ``softirr spans`` reads in its reading context, then computes outside it).
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {}, internal={  # for the layers above; the public API is the root's
    "softirr_stats.api._coefficients": ('estimate_point', 'estimate_with_interval', 'public_function',),
    "softirr_stats.api._score_statistics": ('TESTS_AT_ANY_NULL', 'score_statistic',),
    "softirr_stats.api._statistics": ('check_distance_options', 'read_spans',),
})

if TYPE_CHECKING:
    from softirr_stats.api._coefficients import (
        estimate_point,
        estimate_with_interval,
        public_function,
    )
    from softirr_stats.api._score_statistics import TESTS_AT_ANY_NULL, score_statistic
    from softirr_stats.api._statistics import check_distance_options, read_spans
