"""Analysis: what combines many public calls (the layer above the api, below reporting and the CLI).

- :func:`run_analysis` and its steps (:func:`read_input`, :func:`resolve_measures`): the one
  runner under every ``softirr`` command and the HTML report (``_runner.py``), with
  :func:`run_model` for the annotator models;
- :func:`sensitivity`: coefficients x similarities x chance settings as one tidy table, its
  coefficient list read from the coefficient registry (``_sensitivity.py``);
- :func:`scoring_plan`: exactly the label pairs a set of statistics will ask an estimator for,
  to fill a score cache before the analysis (``_scoring_plan.py``);
- :func:`write_judging_sheet` / :func:`read_judging_sheet`: a blinded judging sheet with its plan
  beside it, for prediction-powered agreement (``_sheet.py``).

Attributes load on first use: importing the package loads no pandas or JAX.
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.analysis._names": ("DISTANCE_COEFFICIENTS", "MULTILABEL_COEFFICIENTS", "SCORE_COEFFICIENTS",
                                      "coefficient_names", "level_forms", "measure_names"),
    "softirr_stats.analysis._runner": ("Analysis", "READER_OPTIONS", "read_input",
                                       "resolve_measures", "run_analysis", "ModelFit", "run_model"),
    "softirr_stats.analysis._sensitivity": ("COLUMNS", "coefficient_registry", "sensitivity"),
    "softirr_stats.analysis._scoring_plan": ("ScoringPlan", "cached_estimator", "scoring_plan"),
    "softirr_stats.analysis._sheet": ("plan_path_for", "read_judging_sheet", "sheet_plan_file",
                                      "write_judging_sheet"),
})

if TYPE_CHECKING:
    from softirr_stats.analysis._names import (
        DISTANCE_COEFFICIENTS,
        MULTILABEL_COEFFICIENTS,
        SCORE_COEFFICIENTS,
        coefficient_names,
        level_forms,
        measure_names,
    )
    from softirr_stats.analysis._runner import (
        READER_OPTIONS,
        Analysis,
        ModelFit,
        read_input,
        resolve_measures,
        run_analysis,
        run_model,
    )
    from softirr_stats.analysis._scoring_plan import ScoringPlan, cached_estimator, scoring_plan
    from softirr_stats.analysis._sensitivity import COLUMNS, coefficient_registry, sensitivity
    from softirr_stats.analysis._sheet import (
        plan_path_for,
        read_judging_sheet,
        sheet_plan_file,
        write_judging_sheet,
    )
