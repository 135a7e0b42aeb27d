"""The equivalence-estimator protocol, label checks and output validation.

An *equivalence estimator* is any callable ``est(a_seq, b_seq) -> np.ndarray`` that
returns float64 estimates of ``P(a_i == b_i)`` in ``[0, 1]`` (one per pair, same
length as the inputs), with attributes ``name`` (str), ``symmetric`` (bool: whether
``est(a, b) == est(b, a)``) and ``fingerprint`` (a stable string identifying the
estimator, its settings and model, used as the persistent-cache key).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from softirr_stats.equivalence._fingerprint import describe, estimator_fingerprint

__all__ = ["Estimator", "BaseEstimator", "Labels", "as_estimator", "label_key"]

#: A sequence of labels (list, tuple, 1-D object array, ...).
Labels = Sequence[Any] | np.ndarray

#: Absolute tolerance accepted on scores slightly outside [0, 1] (float round-off); such
#: values are clipped. Anything further out is an error.
_RANGE_TOL = 1e-6


@runtime_checkable
class Estimator(Protocol):
    """Protocol of an equivalence estimator.

    ``est(a_seq, b_seq)`` returns a float64 array of ``P(a_i == b_i)`` in ``[0, 1]``
    with the inputs' length; ``name``, ``symmetric`` and ``fingerprint`` describe it.

    Examples
    --------
    >>> from softirr_stats.equivalence import Jaccard
    >>> isinstance(Jaccard(), Estimator), Jaccard()(["a b"], ["a"]).tolist()
    (True, [0.5])
    """

    name: str
    symmetric: bool

    @property
    def fingerprint(self) -> str: ...  # pragma: no cover - protocol

    def __call__(self, a: Labels, b: Labels, /) -> np.ndarray: ...  # pragma: no cover


# --------------------------------------------------------------------------------------
# labels
# --------------------------------------------------------------------------------------
def missing_kind(x: Any) -> str | None:
    """Name the missing-value marker ``x`` is (None, NaN, pandas' NA, NaT), or None if it is a value.

    >>> [missing_kind(v) for v in (None, float("nan"), np.float32("nan"), np.datetime64("NaT"), "a")]
    ['None', 'NaN', 'NaN', 'NaT', None]
    """
    if x is None:
        return "None"
    kind = type(x).__name__
    if kind in ("NAType", "NaTType") and type(x).__module__.startswith("pandas"):
        return "pd.NA" if kind == "NAType" else "NaT"
    if isinstance(x, (float, complex, np.floating, np.complexfloating)) and np.isnan(x):
        return "NaN"
    if isinstance(x, (np.datetime64, np.timedelta64)) and np.isnat(x):
        return "NaT"
    return None


def check_label(x: Any, where: str) -> Hashable:
    """Return a canonical hashable label, or raise naming the position ``where``.

    ``set`` becomes ``frozenset`` and ``list`` becomes ``tuple``; ``None``, NaN, pandas' NA
    and NaT are rejected (missing ratings must be dropped before scoring).
    """
    missing = missing_kind(x)
    if missing is not None:
        raise ValueError(f"{where} is {missing}; missing labels cannot be scored (drop them first)")
    if isinstance(x, (set, frozenset)):
        return frozenset(x)
    if isinstance(x, list):
        return tuple(x)
    try:
        hash(x)
    except TypeError:
        raise TypeError(
            f"{where} must be a hashable label (str, number, frozenset or tuple of str); "
            f"got {type(x).__name__}"
        ) from None
    return x


def as_label_array(seq: Any, argname: str) -> np.ndarray:
    """1-D object array of canonical labels; tuples/frozensets stay single elements."""
    if isinstance(seq, (str, bytes)):
        raise TypeError(f"{argname} must be a sequence of labels, not a single {type(seq).__name__}")
    if isinstance(seq, np.ndarray):
        if seq.ndim != 1:
            raise ValueError(f"{argname} must be one-dimensional; got shape {seq.shape}")
        seq = seq.tolist()
    try:
        items = list(seq)
    except TypeError:
        raise TypeError(f"{argname} must be a sequence of labels; got {type(seq).__name__}") from None
    out = np.empty(len(items), dtype=object)
    for i, x in enumerate(items):
        out[i] = check_label(x, f"{argname}[{i}]")
    return out


def check_pair_inputs(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate two label sequences of equal length; return object arrays."""
    aa = as_label_array(a, "a")
    bb = as_label_array(b, "b")
    if aa.shape[0] != bb.shape[0]:
        raise ValueError(
            f"a and b must have the same length (element-wise pairs); got {aa.shape[0]} and {bb.shape[0]}"
        )
    return aa, bb


def equal_mask(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise ``a_i == b_i`` for object arrays (exact label identity)."""
    if a.size == 0:
        return np.zeros(0, dtype=bool)
    eq = a == b
    return np.asarray(eq, dtype=bool).reshape(a.shape)


def label_key(x: Hashable) -> str:
    """Canonical, type-tagged text serialisation of a label (used as a cache key).

    Strings map to ``"s:" + text``; frozensets to a sorted JSON list of their elements'
    keys; tuples to a JSON list in order; numbers to a tagged ``repr``.

    Parameters
    ----------
    x : hashable
        A label: str, number, frozenset or tuple of labels.

    Examples
    --------
    >>> label_key("heart attack")
    's:heart attack'
    >>> label_key(frozenset({"b", "a"}))
    'f:["s:a", "s:b"]'
    """
    if isinstance(x, str):
        return "s:" + x
    if isinstance(x, frozenset):
        return "f:" + json.dumps(sorted(label_key(e) for e in x), ensure_ascii=False)
    if isinstance(x, tuple):
        return "t:" + json.dumps([label_key(e) for e in x], ensure_ascii=False)
    if isinstance(x, (bool, np.bool_)):
        return "b:" + str(bool(x))
    if isinstance(x, (int, np.integer)):
        return "i:" + str(int(x))
    if isinstance(x, (float, np.floating)):
        return "r:" + repr(float(x))
    return "o:" + type(x).__name__ + ":" + repr(x)


def check_strings(arr: np.ndarray, argname: str, name: str, hint: str = "") -> None:
    """Raise TypeError naming the first non-string label in ``arr``."""
    ok = np.fromiter((isinstance(x, str) for x in arr), dtype=bool, count=arr.shape[0])
    if not ok.all():
        k = int(np.flatnonzero(~ok)[0])
        raise TypeError(f"{name} compares strings; {argname}[{k}] is {type(arr[k]).__name__} "
                        f"({short_repr(arr[k])}){hint}")


def short_repr(x: Any, limit: int = 80) -> str:
    r = repr(x)
    return r if len(r) <= limit else r[: limit - 5] + "...'" + f" (len {len(x) if hasattr(x, '__len__') else '?'})"


# --------------------------------------------------------------------------------------
# output validation
# --------------------------------------------------------------------------------------
def check_scores(scores: Any, a: Labels, b: Labels, name: str, *,
                 allow_nan: bool = False) -> np.ndarray:
    """Validate an estimator's output: float64, right length, finite, in [0, 1].

    Values within ``1e-6`` of the interval are clipped (float round-off). Errors name
    the first offending pair. ``allow_nan`` lets NaN through (an estimator that reports
    failures as NaN; the engine never allows it).
    """
    n = len(a)
    try:
        s = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(
            f"estimator {name!r} must return an array of floats; got {type(scores).__name__}"
        ) from None
    if s.ndim == 2 and 1 in s.shape:
        s = s.reshape(-1)
    if s.shape != (n,):
        raise ValueError(
            f"estimator {name!r} returned shape {s.shape} for {n} pairs; expected ({n},)"
        )
    bad = ~np.isfinite(s) | (s < -_RANGE_TOL) | (s > 1.0 + _RANGE_TOL)
    if allow_nan:
        bad &= ~np.isnan(s)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"estimator {name!r} returned {float(s[k])!r} for pair {k} "
            f"({short_repr(a[k])}, {short_repr(b[k])}); scores must be finite and in [0, 1] "
            f"({int(bad.sum())} bad value(s) in total)"
        )
    return np.clip(s, 0.0, 1.0)


# --------------------------------------------------------------------------------------
# base class and callable wrapper
# --------------------------------------------------------------------------------------
class BaseEstimator:
    """Base class: input validation, identical pairs score 1, output validation.

    Subclasses implement ``_score(a, b) -> array`` on object arrays of non-identical
    pairs, and ``_settings()`` returning the dict that enters the fingerprint.

    Examples
    --------
    >>> import numpy as np
    >>> class FirstLetter(BaseEstimator):
    ...     name = "first_letter"
    ...     def _score(self, a, b):
    ...         return np.array([float(x[0] == y[0]) for x, y in zip(a, b)])
    ...     def _settings(self):
    ...         return {}
    >>> FirstLetter()(["fever", "fever", "cough"], ["fatigue", "fever", "rash"]).tolist()
    [1.0, 1.0, 0.0]
    """

    name: str = "estimator"
    symmetric: bool = True
    _allow_nan: bool = False

    def _settings(self) -> dict[str, Any]:
        return {}

    @property
    def fingerprint(self) -> str:
        """Stable identity string: module, class, settings and every constructor argument.

        See :func:`~softirr_stats.equivalence._fingerprint.estimator_fingerprint`.
        """
        return estimator_fingerprint(self)

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def _check_inputs(self, a: np.ndarray, b: np.ndarray) -> None:
        """Hook: type checks on the validated label arrays (raise naming the position)."""

    def __call__(self, a: Labels, b: Labels, /) -> np.ndarray:
        aa, bb = check_pair_inputs(a, b)
        self._check_inputs(aa, bb)
        out = np.ones(aa.shape[0], dtype=np.float64)
        todo = ~equal_mask(aa, bb)
        if todo.any():
            sa, sb = aa[todo], bb[todo]
            out[todo] = check_scores(self._score(sa, sb), sa, sb, self.name, allow_nan=self._allow_nan)
        return out

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self._settings().items())
        return f"{type(self).__name__}({args})"


class CallableEstimator(BaseEstimator):
    """A user callable ``fn(a_seq, b_seq) -> array`` wrapped as an :class:`Estimator`."""

    def __init__(self, fn: Callable[..., Any], *, name: str | None = None,
                 symmetric: bool = False, fingerprint: str | None = None) -> None:
        if not callable(fn):
            raise TypeError(f"estimator must be callable; got {type(fn).__name__}")
        self.fn = fn
        self.name = name or getattr(fn, "__name__", None) or type(fn).__name__
        self.symmetric = bool(symmetric)
        self._fingerprint = fingerprint

    @property
    def fingerprint(self) -> str:
        if self._fingerprint is not None:
            return self._fingerprint
        # code, constants, defaults, captured values, read globals and nested callables
        # (a description marked unsafe makes the persistent cache ask for fingerprint=)
        return f"callable:{describe(self.fn)}:symmetric={self.symmetric}"

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return self.fn(a.tolist(), b.tolist())

    def __repr__(self) -> str:
        return f"as_estimator({self.name}, symmetric={self.symmetric})"


def _is_estimator(obj: Any) -> bool:
    return callable(obj) and all(hasattr(obj, k) for k in ("name", "symmetric", "fingerprint"))


def as_estimator(obj: Any, *, name: str | None = None, symmetric: bool | None = None,
                 fingerprint: str | None = None) -> Estimator:
    """Return ``obj`` as an :class:`Estimator`, wrapping a plain callable if needed.

    Parameters
    ----------
    obj : Estimator or callable
        An estimator (returned unchanged unless options are given), or any callable
        ``fn(a_seq, b_seq) -> array`` of ``P(a_i == b_i)``.
    name : str, optional
        Name of the wrapped callable (default: its ``__name__``).
    symmetric : bool, optional
        Whether ``fn(a, b) == fn(b, a)``; default False for plain callables, which
        makes the engine score both directions.
    fingerprint : str, optional
        Cache identity; default derived from everything that can change the callable's
        result (code, constants, defaults, captured values, read globals, nested
        callables). Give one when the callable holds state that cannot be described (a
        model object, a connection): the persistent cache refuses it otherwise.

    Returns
    -------
    Estimator
        Its call validates outputs (finite, in [0, 1], right length), with errors naming
        the offending pair.

    Examples
    --------
    >>> est = as_estimator(lambda a, b: [float(x[0] == y[0]) for x, y in zip(a, b)],
    ...                    name="first_letter", symmetric=True)
    >>> est(["apple", "pear"], ["avocado", "plum"]).tolist()
    [1.0, 1.0]
    >>> est.name, est.symmetric
    ('first_letter', True)
    """
    if _is_estimator(obj) and name is None and symmetric is None and fingerprint is None:
        return obj
    if _is_estimator(obj):
        name = name or obj.name
        symmetric = obj.symmetric if symmetric is None else symmetric
        fingerprint = fingerprint or obj.fingerprint
    if not callable(obj):
        raise TypeError(
            f"similarity/estimator must be an Estimator or a callable (a_seq, b_seq) -> array; "
            f"got {type(obj).__name__}"
        )
    return CallableEstimator(obj, name=name, symmetric=bool(symmetric), fingerprint=fingerprint)
