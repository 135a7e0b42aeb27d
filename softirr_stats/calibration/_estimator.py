"""A calibrated equivalence estimator, and fitting one from human-judged pairs.

The estimator protocol (``softirr_stats.equivalence``) is duck-typed here: any callable
``est(a_seq, b_seq) -> array`` of scores in [0, 1], with optional ``name``, ``symmetric``
and ``fingerprint`` attributes.
"""

import copy
import hashlib
import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.base._validation import check_seed
from softirr_stats.calibration._calibrators import CALIBRATORS, _Calibrator
from softirr_stats.calibration._checks import (
    Strategy,
    check_positive_int,
    check_sample_weight,
    check_strategy,
    check_unit_interval,
)
from softirr_stats.calibration._metrics import (
    brier_score,
    debiased_l2_calibration_error,
    expected_calibration_error,
    log_loss,
    maximum_calibration_error,
)

_RANGE_TOL = 1e-6  # scores this far outside [0, 1] are float round-off and are clipped


def _base_name(estimator: Any) -> str:
    name = getattr(estimator, "name", None)
    if isinstance(name, str) and name:
        return name
    return str(getattr(estimator, "__name__", type(estimator).__name__))


def _base_fingerprint(estimator: Any) -> str:
    fp = getattr(estimator, "fingerprint", None)
    if callable(fp):
        fp = fp()
    if fp is None:
        mod = getattr(estimator, "__module__", "?")
        qual = getattr(estimator, "__qualname__", type(estimator).__qualname__)
        return f"callable:{mod}.{qual}"
    return str(fp)


def _object_array(seq: Sequence[Any], argname: str) -> np.ndarray:
    if isinstance(seq, str | bytes):
        raise TypeError(f"{argname} must be a sequence of labels, not a single string")
    if isinstance(seq, np.ndarray):
        seq = seq.tolist()
    try:
        n = len(seq)
    except TypeError:
        raise TypeError(
            f"{argname} must be a sequence of labels; got {type(seq).__name__}"
        ) from None
    return np.fromiter(seq, dtype=object, count=n)


def _equal_mask(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise exact identity of two object arrays of labels."""
    if a.size == 0:
        return np.zeros(0, dtype=bool)
    return np.asarray(a == b, dtype=bool).reshape(a.shape)


def _check_raw_scores(raw: Any, n: int, name: str) -> np.ndarray:
    try:
        s = np.asarray(raw, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise TypeError(
            f"estimator {name!r} must return an array of floats; got {type(raw).__name__}"
        ) from None
    if s.shape != (n,):
        raise ValueError(f"estimator {name!r} returned {s.size} scores for {n} pairs")
    bad = ~np.isfinite(s) | (s < -_RANGE_TOL) | (s > 1.0 + _RANGE_TOL)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"estimator {name!r} returned {float(s[k])!r} for pair {k}; scores must be finite "
            "and in [0, 1]"
        )
    return np.clip(s, 0.0, 1.0)


class CalibratedEstimator:
    """An equivalence estimator whose scores go through a fitted calibration map.

    Usable wherever an estimator is (``similarity=``): ``est(a_seq, b_seq)`` returns the
    calibrated ``P(a_i == b_i)``; pairs of identical labels still score exactly 1 (they
    are never recalibrated).

    Parameters
    ----------
    estimator : callable
        ``estimator(a_seq, b_seq) -> array`` of raw scores in [0, 1]; its ``name``,
        ``symmetric`` and ``fingerprint`` attributes are used when present.
    calibrator : fitted calibrator
        A fitted :class:`PlattCalibrator`, :class:`TemperatureCalibrator`,
        :class:`BetaCalibrator` or :class:`IsotonicCalibrator`.

    Attributes
    ----------
    name : str
        ``"<base name>+<method>"``, e.g. ``"levenshtein+beta"``.
    symmetric : bool
        The base estimator's (a monotone map of a symmetric score is symmetric);
        False when the base does not say.
    fingerprint : str
        The base fingerprint, the calibration method and a digest of its settings and
        fitted parameters: a new fit gives a new cache identity.
    report : pandas.DataFrame or None
        Set by :func:`fit_calibrator`: calibration metrics before and after.
    oof_scores : numpy.ndarray or None
        Set by :func:`fit_calibrator` with ``cv``: cross-fitted calibrated scores.

    Examples
    --------
    >>> def overlap(a, b):  # a toy estimator: shared first letter
    ...     return np.array([0.8 if x[0] == y[0] else 0.1 for x, y in zip(a, b)])
    >>> from softirr_stats.calibration import PlattCalibrator
    >>> s, y = [0.1, 0.1, 0.1, 0.8, 0.8, 0.8], [0, 0, 1, 1, 1, 0]
    >>> cal = PlattCalibrator(target_smoothing=False).fit(s, y)
    >>> est = CalibratedEstimator(overlap, cal)
    >>> est(["apple", "apple", "kiwi"], ["avocado", "apple", "pear"]).round(3).tolist()
    [0.667, 1.0, 0.333]
    >>> est.name
    'overlap+platt'

    """

    def __init__(self, estimator: Callable[..., Any], calibrator: _Calibrator) -> None:
        if not callable(estimator):
            raise TypeError(
                "estimator must be callable (a_seq, b_seq) -> array of scores; "
                f"got {type(estimator).__name__}"
            )
        if not isinstance(calibrator, _Calibrator):
            raise TypeError(
                "calibrator must be one of PlattCalibrator, TemperatureCalibrator, "
                f"BetaCalibrator, IsotonicCalibrator; got {type(calibrator).__name__}"
            )
        if not calibrator.is_fitted:
            raise ValueError("calibrator is not fitted; call calibrator.fit(scores, labels)")
        self.estimator = estimator
        self.calibrator = calibrator
        self.base_name = _base_name(estimator)
        self.name = f"{self.base_name}+{calibrator.method}"
        self.symmetric = bool(getattr(estimator, "symmetric", False))
        self.report: pd.DataFrame | None = None
        self.oof_scores: np.ndarray | None = None

    @property
    def fingerprint(self) -> str:
        """Base fingerprint + calibration method + digest of config and parameters."""
        payload = json.dumps(
            {
                "method": self.calibrator.method,
                "config": self.calibrator.config,
                "params": self.calibrator.params,
            },
            sort_keys=True,
            default=repr,
        )
        digest = hashlib.sha256(payload.encode()).hexdigest()[:16]
        return f"{_base_fingerprint(self.estimator)}+calibrated:{self.calibrator.method}:{digest}"

    def __call__(self, a: Sequence[Any], b: Sequence[Any], /) -> np.ndarray:
        aa = _object_array(a, "a")
        bb = _object_array(b, "b")
        if aa.size != bb.size:
            raise ValueError(f"a and b must have the same length; got {aa.size} and {bb.size}")
        if aa.size == 0:
            return np.zeros(0, dtype=np.float64)
        raw = _check_raw_scores(self.estimator(a, b), aa.size, self.base_name)
        out = np.asarray(self.calibrator.predict(raw), dtype=np.float64)
        out[_equal_mask(aa, bb)] = 1.0
        return out

    def __repr__(self) -> str:
        return f"CalibratedEstimator({self.estimator!r}, {self.calibrator!r})"


def _make_calibrator(method: object) -> _Calibrator:
    if isinstance(method, _Calibrator):
        return _fresh(method)
    if method not in CALIBRATORS:
        raise ValueError(f"method must be one of {sorted(CALIBRATORS)}; got {method!r}")
    return CALIBRATORS[str(method)]()


def _fresh(calibrator: _Calibrator) -> _Calibrator:
    """An unfitted copy with the same configuration."""
    clone = copy.deepcopy(calibrator)
    clone._params = None
    return clone


def _stratified_folds(labels: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Fold index per pair; strata are label >= 1/2, dealt round-robin in random order."""
    rng = np.random.default_rng(seed)
    stratum = (labels >= 0.5).astype(np.intp)
    order = np.lexsort((rng.permutation(labels.size), stratum))
    folds = np.empty(labels.size, dtype=np.intp)
    folds[order] = np.arange(labels.size) % k
    return folds


def _metric_rows(
    which: str, scores: np.ndarray, labels: np.ndarray, bins: int, strategy: Strategy
) -> list[dict[str, Any]]:
    values = {
        "ece": expected_calibration_error(scores, labels, bins, strategy),
        "mce": maximum_calibration_error(scores, labels, bins, strategy),
        "debiased_l2": debiased_l2_calibration_error(scores, labels, bins, strategy),
        "brier": brier_score(scores, labels),
        "log_loss": log_loss(scores, labels),
    }
    return [
        {
            "scores": which,
            "metric": m,
            "value": v,
            "bins": bins,
            "strategy": strategy,
            "n": int(scores.size),
        }
        for m, v in values.items()
    ]


def fit_calibrator(
    estimator: Callable[..., Any],
    pairs_a: Sequence[Any],
    pairs_b: Sequence[Any],
    human_labels: object,
    method: str | _Calibrator = "beta",
    cv: int | None = None,
    *,
    sample_weight: object = None,
    seed: int = 0,
    bins: int = 10,
    strategy: Strategy = "quantile",
) -> CalibratedEstimator:
    """Calibrate an equivalence estimator on a small set of human-judged pairs.

    Scores the pairs with ``estimator``, fits the calibration map on (score, label)
    (pairs of identical labels are left out: they always score 1 and are never
    recalibrated), and returns a :class:`CalibratedEstimator`.

    Parameters
    ----------
    estimator : callable
        Equivalence estimator ``(a_seq, b_seq) -> array`` of scores in [0, 1].
    pairs_a, pairs_b : sequence of labels
        The judged pairs.
    human_labels : array-like of shape (n,)
        1 = equivalent, 0 = not; or the fraction of judges who said "equivalent".
    method : {"beta", "platt", "temperature", "isotonic"} or a calibrator, default "beta"
        Beta calibration is the recommended default for [0, 1] scores (docs/formulas/calibration.md);
        isotonic needs roughly 1000+ pairs. An (unfitted) calibrator instance sets options.
    cv : int, optional
        With ``cv=k`` (k >= 2) the map is also cross-fitted over ``k`` stratified folds:
        each pair's calibrated score comes from a map fitted without it (``oof_scores``),
        which gives an honest estimate of the calibration after recalibration. The
        returned estimator is always fitted on all pairs.
    sample_weight : array-like, optional
        Weights of the pairs in the fit (the report's metrics are unweighted).
    seed : int, default 0
        Seed for the fold assignment.
    bins, strategy
        Binning of the ECE/MCE/debiased-l2 rows of the report (default: 10 equal-mass
        bins, the recommended evaluation).

    Returns
    -------
    CalibratedEstimator
        ``.report`` is a tidy DataFrame (``scores``: ``"raw"``, ``"calibrated_in_sample"``
        and, with ``cv``, ``"calibrated_cross_fitted"``; ``metric``: ``ece``, ``mce``,
        ``debiased_l2``, ``brier``, ``log_loss``; ``value``, ``bins``, ``strategy``, ``n``).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> truth = rng.uniform(size=300)                       # P(equivalent) of 300 pairs
    >>> raw = truth**3                                      # an under-confident estimator
    >>> labels = (rng.uniform(size=300) < truth).astype(float)
    >>> lookup = dict(zip(range(300), raw))
    >>> def est(a, b):
    ...     return np.array([lookup[i] for i in a])
    >>> cal = fit_calibrator(est, list(range(300)), [-1] * 300, labels, cv=5)
    >>> table = cal.report.pivot(index="metric", columns="scores", values="value")
    >>> bool(table.loc["ece", "calibrated_cross_fitted"] < table.loc["ece", "raw"])
    True
    """
    aa = _object_array(pairs_a, "pairs_a")
    bb = _object_array(pairs_b, "pairs_b")
    if aa.size != bb.size:
        raise ValueError(
            f"pairs_a and pairs_b must have the same length; got {aa.size} and {bb.size}"
        )
    y = check_unit_interval(human_labels, "human_labels")
    if y.size != aa.size:
        raise ValueError(
            f"human_labels must have one label per pair; got {y.size} labels for {aa.size} pairs"
        )
    w = check_sample_weight(sample_weight, y.size)
    bins = check_positive_int(bins, "bins")
    strategy = check_strategy(strategy)
    template = _make_calibrator(method)
    if cv is not None:
        cv = check_positive_int(cv, "cv", minimum=2)
    seed = check_seed(seed)

    raw = _check_raw_scores(estimator(pairs_a, pairs_b), aa.size, _base_name(estimator))
    keep = ~_equal_mask(aa, bb)
    raw, y, w = raw[keep], y[keep], w[keep]

    final = _fresh(template).fit(raw, y, sample_weight=w)
    result = CalibratedEstimator(estimator, final)
    rows = _metric_rows("raw", raw, y, bins, strategy)
    rows += _metric_rows("calibrated_in_sample", final.predict(raw), y, bins, strategy)

    if cv is not None:
        if cv > y.size:
            raise ValueError(
                f"cv must be <= the number of non-identical pairs ({y.size}); got {cv}"
            )
        folds = _stratified_folds(y, cv, seed)
        oof = np.empty(y.size)
        for k in range(cv):  # loop over folds (k fits), not over pairs
            test = folds == k
            try:
                fitted = _fresh(template).fit(raw[~test], y[~test], sample_weight=w[~test])
            except ValueError as err:
                raise ValueError(
                    f"cv={cv}: cannot fit on the training part of fold {k}: {err}"
                ) from None
            oof[test] = fitted.predict(raw[test])
        result.oof_scores = oof
        rows += _metric_rows("calibrated_cross_fitted", oof, y, bins, strategy)
    result.report = pd.DataFrame(rows)
    return result
