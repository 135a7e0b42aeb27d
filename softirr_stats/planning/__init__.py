"""Planning a reliability study: how many items (or judged pairs) a target precision or power needs.

:func:`plan_items` plans from a pilot data set or from assumed values (coefficient, category
prevalences, raters), for every coefficient of the registry and the designs ``items``,
``items+raters`` and ``cluster`` (docs/planning.md).
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.planning._plan": ('DESIGNS', 'METHODS', 'PlanResult', 'PlanningWarning', 'plan_items',),
    "softirr_stats.planning._population": ('Population', 'build_population', 'influence_variance',),
}, internal={"softirr_stats.planning._plan": ('is_plan_warning',)})  # for softirr plan's note: / warning: lines

if TYPE_CHECKING:
    from softirr_stats.planning._plan import (
        DESIGNS,
        METHODS,
        PlanningWarning,
        PlanResult,
        is_plan_warning,
        plan_items,
    )
    from softirr_stats.planning._population import (
        Population,
        build_population,
        influence_variance,
    )
