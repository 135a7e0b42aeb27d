"""Input checks shared by the calibration module (API boundary only)."""

from collections.abc import Sequence
from typing import Literal, cast

import numpy as np

Strategy = Literal["uniform", "quantile"]
STRATEGIES: tuple[str, ...] = ("quantile", "uniform")


def check_unit_interval(values: object, name: str) -> np.ndarray:
    """Return ``values`` as a 1-D float64 array in [0, 1] or raise naming ``name``."""
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a 1-D array of numbers in [0, 1]; got {type(values).__name__}"
        ) from None
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D; got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} must not be empty")
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = np.flatnonzero(bad)
        raise ValueError(
            f"{name} must be finite; got {float(arr[idx[0]])!r} at positions {idx[:5].tolist()}"
        )
    out = (arr < 0.0) | (arr > 1.0)
    if out.any():
        idx = np.flatnonzero(out)
        raise ValueError(
            f"{name} must lie in [0, 1]; got {float(arr[idx[0]])!r} at positions {idx[:5].tolist()}"
        )
    return arr


def check_scores_labels(scores: object, labels: object) -> tuple[np.ndarray, np.ndarray]:
    """Validate a (scores, labels) pair: both in [0, 1], same length."""
    s = check_unit_interval(scores, "scores")
    y = check_unit_interval(labels, "labels")
    if s.shape != y.shape:
        raise ValueError(f"scores and labels must have the same length; got {s.size} and {y.size}")
    return s, y


def check_sample_weight(sample_weight: object, n: int) -> np.ndarray:
    """Validate non-negative finite weights of length ``n`` (None means ones)."""
    if sample_weight is None:
        return np.ones(n, dtype=np.float64)
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"sample_weight must be a 1-D array of numbers; got {type(sample_weight).__name__}"
        ) from None
    if w.shape != (n,):
        raise ValueError(f"sample_weight must have shape ({n},); got {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("sample_weight must be finite and non-negative")
    if w.sum() <= 0:
        raise ValueError("sample_weight must have a positive sum")
    return w


def check_strategy(strategy: object) -> Strategy:
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {list(STRATEGIES)}; got {strategy!r}")
    return cast(Strategy, strategy)


def check_positive_int(value: object, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return int(value)


def check_choice(value: object, name: str, choices: Sequence[str]) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {sorted(choices)}; got {value!r}")
    return str(value)


def check_fit_data(scores: np.ndarray, labels: np.ndarray, min_points: int = 2) -> None:
    """Refuse data a calibration map cannot be fitted on (too few points, one class)."""
    if scores.size < min_points:
        raise ValueError(
            f"fitting a calibrator needs at least {min_points} scored pairs; got {scores.size}"
        )
    if np.all(labels == labels[0]):
        raise ValueError(
            "labels are all equal to "
            f"{float(labels[0])!r}; fitting a calibrator needs both equivalent (1) and "
            "non-equivalent (0) pairs"
        )
