"""Small input-validation helpers shared by every layer.

Messages follow one pattern: the argument's name, what was expected, what was given.
"""

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

__all__ = ["check_choice", "check_level", "check_positive_int", "ModelRequiredError", "SimilarityMismatchError",
           "SoftIRRWarning", "TooFewRatersError"]


class SoftIRRWarning(UserWarning):
    """Base class of the warnings softirr_stats emits (degenerate statistics, dropped data)."""


class ModelRequiredError(ValueError):
    """A similarity name whose estimator needs a model (``nli``, ``llm_judge``, ``embedding``) was given none.

    Examples
    --------
    >>> issubclass(ModelRequiredError, ValueError)
    True
    """


class SimilarityMismatchError(ValueError):
    """A similarity that cannot score the labels of these annotations (a string measure on numbers, ...).

    Examples
    --------
    >>> issubclass(SimilarityMismatchError, ValueError)
    True
    """


class TooFewRatersError(ValueError):
    """The data have fewer raters (annotators) than the statistic compares: a property of the data, not the call.

    Examples
    --------
    >>> issubclass(TooFewRatersError, ValueError)
    True
    """


def check_choice(name: str, value: Any, choices: Iterable[str]) -> str:
    """Return ``value`` if it is one of ``choices``; else raise a ValueError listing them.

    Examples
    --------
    >>> check_choice("level", "nominal", ["nominal", "interval"])
    'nominal'
    """
    options: Sequence[str] = sorted(choices)
    if not isinstance(value, str) or value not in options:
        raise ValueError(f"{name} must be one of {list(options)}; got {value!r}")
    return value


def check_level(level: float, name: str = "level") -> float:
    """Validate a confidence/credibility level in (0, 1)."""
    try:
        value = float(level)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number in (0, 1); got {level!r}") from None
    if not 0.0 < value < 1.0 or not np.isfinite(value):
        raise ValueError(f"{name} must be in (0, 1); got {level!r}")
    return value


def check_positive_int(value: Any, name: str, minimum: int = 1) -> int:
    """Validate an integer >= ``minimum`` (bools are rejected)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise TypeError(f"{name} must be an integer >= {minimum}; got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}; got {value}")
    return int(value)
