"""Calibration of equivalence-estimator scores against human judgments.

Metrics (class-1 reliability form, sklearn's bin edges): :func:`expected_calibration_error`,
:func:`maximum_calibration_error`, :func:`debiased_l2_calibration_error`, :func:`brier_score`,
:func:`log_loss`, :func:`reliability_diagram`, :func:`plot_reliability_diagram`, and
:func:`calibration_error_ci` (item bootstrap). Calibration maps: :class:`BetaCalibrator`
(recommended default), :class:`PlattCalibrator`, :class:`TemperatureCalibrator`,
:class:`IsotonicCalibrator`. :func:`fit_calibrator` turns an estimator and a few
human-judged pairs into a :class:`CalibratedEstimator` usable as ``similarity=``.
"""

from softirr_stats.calibration._calibrators import (
    BetaCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    TemperatureCalibrator,
)
from softirr_stats.calibration._estimator import CalibratedEstimator, fit_calibrator
from softirr_stats.calibration._metrics import (
    CalibrationInterval,
    brier_score,
    calibration_error_ci,
    debiased_l2_calibration_error,
    expected_calibration_error,
    log_loss,
    maximum_calibration_error,
    reliability_diagram,
)
from softirr_stats.calibration._plot import plot_reliability_diagram

__all__ = [
    "BetaCalibrator",
    "CalibratedEstimator",
    "CalibrationInterval",
    "IsotonicCalibrator",
    "PlattCalibrator",
    "TemperatureCalibrator",
    "brier_score",
    "calibration_error_ci",
    "debiased_l2_calibration_error",
    "expected_calibration_error",
    "fit_calibrator",
    "log_loss",
    "maximum_calibration_error",
    "plot_reliability_diagram",
    "reliability_diagram",
]
