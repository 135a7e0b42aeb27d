"""Calibration of equivalence-estimator scores against human judgments.

Metrics (class-1 reliability form, sklearn's bin edges): :func:`expected_calibration_error`,
:func:`maximum_calibration_error`, :func:`debiased_l2_calibration_error`, :func:`brier_score`,
:func:`log_loss`, :func:`reliability_diagram`, :func:`plot_reliability_diagram`, and
:func:`calibration_error_ci` (a bootstrap interval from ``ci=Bootstrap(...)``, the uncertainty
layer's bootstrap). Calibration maps: :class:`BetaCalibrator`
(recommended default), :class:`PlattCalibrator`, :class:`TemperatureCalibrator`,
:class:`IsotonicCalibrator`. :func:`fit_calibrator` turns an estimator and a few
human-judged pairs into a :class:`CalibratedEstimator` usable as ``similarity=``.
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.calibration._calibrators": ("BetaCalibrator", "IsotonicCalibrator", "PlattCalibrator", "TemperatureCalibrator"),
    "softirr_stats.calibration._estimator": ("CalibratedEstimator", "fit_calibrator"),
    "softirr_stats.calibration._metrics": ("CalibrationInterval", "CalibrationStatistic", "brier_score", "calibration_statistic", "debiased_l2_calibration_error", "expected_calibration_error", "log_loss", "maximum_calibration_error", "reliability_diagram"),
    "softirr_stats.calibration._interval": ("BinnedMetricWarning", "calibration_error_ci"),
    "softirr_stats.calibration._plot": ("plot_reliability_diagram",),
})

if TYPE_CHECKING:
    from softirr_stats.calibration._calibrators import (
        BetaCalibrator,
        IsotonicCalibrator,
        PlattCalibrator,
        TemperatureCalibrator,
    )
    from softirr_stats.calibration._estimator import CalibratedEstimator, fit_calibrator
    from softirr_stats.calibration._interval import BinnedMetricWarning, calibration_error_ci
    from softirr_stats.calibration._metrics import (
        CalibrationInterval,
        CalibrationStatistic,
        brier_score,
        calibration_statistic,
        debiased_l2_calibration_error,
        expected_calibration_error,
        log_loss,
        maximum_calibration_error,
        reliability_diagram,
    )
    from softirr_stats.calibration._plot import plot_reliability_diagram
