"""Binned calibration errors, the Brier score and reliability-diagram data.

Everything here is the *class-1 reliability* form (docs/formulas/calibration.md): a score ``s`` is read
as the estimated probability ``P(a == b)`` and compared with the human label ``y`` (0/1 or
a fraction of judges in [0, 1]); it is not the top-label ("confidence") form.

Bins follow scikit-learn's ``calibration_curve`` exactly: ``strategy="uniform"`` uses the
edges ``linspace(0, 1, bins + 1)``, ``strategy="quantile"`` the edges
``np.percentile(scores, linspace(0, 100, bins + 1))``; a score goes to bin
``searchsorted(edges[1:-1], score)`` (so bins are ``[0, e1], (e1, e2], ..., (e_{B-1}, 1]``),
and empty bins are dropped.

Every statistic is computed from per-bin sums (count, sum of scores, of labels, of squared
labels), so one function of those sums gives the point estimate and, from a matrix of
multinomial weights, a whole batch of bootstrap replicates without a Python loop over
replicates.
"""

from dataclasses import asdict, dataclass, field
from typing import Literal, cast

import numpy as np
import pandas as pd

from softirr_stats.agreement import Statistic
from softirr_stats.calibration._checks import Strategy as Strategy
from softirr_stats.calibration._checks import (
    check_choice,
    check_positive_int,
    check_scores_labels,
    check_strategy,
)

Metric = Literal["ece", "mce", "debiased_l2", "brier", "log_loss"]
METRICS: tuple[str, ...] = ("brier", "debiased_l2", "ece", "log_loss", "mce")


# ----------------------------------------------------------------------------- binning
def bin_edges(scores: np.ndarray, bins: int, strategy: str) -> np.ndarray:
    """Bin edges exactly as ``sklearn.calibration.calibration_curve`` computes them."""
    if strategy == "uniform":
        return np.linspace(0.0, 1.0, bins + 1)
    return np.percentile(scores, np.linspace(0, 1, bins + 1) * 100)


def _bin_sums(
    scores: np.ndarray, labels: np.ndarray, binids: np.ndarray, bins: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per-bin (count, sum of scores, sum of labels, sum of squared labels), shape (1, bins).

    The same ``bincount`` calls as sklearn, so bin means agree with it bit for bit.
    """
    count = np.bincount(binids, minlength=bins).astype(np.float64)
    sum_s = np.bincount(binids, weights=scores, minlength=bins)
    sum_y = np.bincount(binids, weights=labels, minlength=bins)
    sum_yy = np.bincount(binids, weights=labels * labels, minlength=bins)
    return count[None], sum_s[None], sum_y[None], sum_yy[None]


def _binned_metric(
    metric: str,
    count: np.ndarray,
    sum_s: np.ndarray,
    sum_y: np.ndarray,
    sum_yy: np.ndarray,
    p: float,
) -> np.ndarray:
    """One value per row from per-bin sums (empty bins are dropped)."""
    n = count.sum(axis=-1)
    nonempty = count > 0
    safe = np.where(nonempty, count, 1.0)
    mean_s = sum_s / safe
    mean_y = sum_y / safe
    gap = np.where(nonempty, np.abs(mean_y - mean_s), 0.0)
    if metric == "mce":
        return np.where(nonempty, gap, -np.inf).max(axis=-1)
    if metric == "ece":
        if np.isinf(p):
            return np.where(nonempty, gap, -np.inf).max(axis=-1)
        return ((count * gap**p).sum(axis=-1) / n) ** (1.0 / p)
    # debiased squared CE (Kumar, Liang & Ma 2019): a bin's plug-in gap^2 minus the
    # sampling variance of its mean label, estimated without bias; bins with < 2 items
    # contribute 0, as in the authors' code. For 0/1 labels the variance term is
    # mean_y (1 - mean_y) / (n_b - 1); for fractional labels it is the within-bin
    # sample variance / n_b.
    big = count >= 2
    denom = np.where(big, safe * (safe - 1.0), 1.0)
    var_of_mean = np.where(big, np.maximum(sum_yy - sum_y * sum_y / safe, 0.0) / denom, 0.0)
    per_bin = np.where(big, gap * gap - var_of_mean, 0.0)
    return (count * per_bin).sum(axis=-1) / n


def _log_loss_terms(scores: np.ndarray, labels: np.ndarray, eps: float) -> np.ndarray:
    s = np.clip(scores, eps, 1.0 - eps)
    return -(labels * np.log(s) + (1.0 - labels) * np.log1p(-s))


def _check_p(p: object) -> float:
    try:
        value = float(p)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise TypeError(f"p must be a number >= 1 (or inf); got {p!r}") from None
    if not value >= 1.0:
        raise ValueError(f"p must be a number >= 1 (or inf); got {p!r}")
    return value


# ----------------------------------------------------------------------------- metrics
def expected_calibration_error(
    scores: object,
    labels: object,
    bins: int = 10,
    strategy: Strategy = "uniform",
    *,
    p: float = 1,
) -> float:
    """Binned expected calibration error, class-1 reliability form (docs/formulas/calibration.md).

    ``ECE_p = (sum_b (n_b / n) |ybar_b - sbar_b|^p)^(1/p)`` over the non-empty bins, with
    ``ybar_b`` and ``sbar_b`` the mean label and mean score of bin ``b``.

    Parameters
    ----------
    scores : array-like of shape (n,)
        Estimated probabilities ``P(a == b)`` in [0, 1].
    labels : array-like of shape (n,)
        Human judgments: 0/1, or the fraction of judges who said "equivalent", in [0, 1].
    bins : int, default 10
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bin edges, exactly as in
        ``sklearn.calibration.calibration_curve``. Equal-mass bins are less biased
        (Roelofs et al. 2022) and are the recommended choice for reporting.
    p : float, default 1
        Order of the norm; ``p = 1`` is the usual ECE, ``p = inf`` the MCE.

    Returns
    -------
    float

    Examples
    --------
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0]
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1, 1]
    >>> round(expected_calibration_error(s, y, bins=3), 6)  # (3*.2 + 2*.025 + 4*.15) / 9
    0.138889
    """
    s, y = check_scores_labels(scores, labels)
    bins = check_positive_int(bins, "bins")
    strategy = check_strategy(strategy)
    p = _check_p(p)
    edges = bin_edges(s, bins, strategy)
    stats = _bin_sums(s, y, np.searchsorted(edges[1:-1], s), bins)
    return float(_binned_metric("ece", *stats, p=p)[0])


def maximum_calibration_error(
    scores: object, labels: object, bins: int = 10, strategy: Strategy = "uniform"
) -> float:
    """Maximum calibration error ``max_b |ybar_b - sbar_b|`` over the non-empty bins.

    Same bins and conventions as :func:`expected_calibration_error`.

    Parameters
    ----------
    scores : array-like of float in [0, 1]
        Estimated probabilities that the pairs are equivalent.
    labels : array-like in [0, 1]
        Human judgments: 0/1, or the fraction of judges who called the pair equivalent.
    bins : int, default 10
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins (scikit-learn's ``calibration_curve`` conventions).

    Examples
    --------
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0]
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1, 1]
    >>> round(maximum_calibration_error(s, y, bins=3), 12)
    0.2
    """
    s, y = check_scores_labels(scores, labels)
    bins = check_positive_int(bins, "bins")
    strategy = check_strategy(strategy)
    edges = bin_edges(s, bins, strategy)
    stats = _bin_sums(s, y, np.searchsorted(edges[1:-1], s), bins)
    return float(_binned_metric("mce", *stats, p=1.0)[0])


def debiased_l2_calibration_error(
    scores: object,
    labels: object,
    bins: int = 10,
    strategy: Strategy = "quantile",
    *,
    squared: bool = False,
) -> float:
    """Debiased l2 calibration error of Kumar, Liang & Ma (2019).

    The squared form is ``sum_b (n_b/n) [(ybar_b - sbar_b)^2 - v_b]`` where ``v_b`` is an
    unbiased estimate of the variance of ``ybar_b``: ``ybar_b (1 - ybar_b) / (n_b - 1)``
    for 0/1 labels, the within-bin sample variance of ``y`` over ``n_b`` for fractional
    labels. Bins with fewer than two items contribute 0 (as in the authors' code).

    Parameters
    ----------
    scores, labels : array-like of shape (n,)
        As in :func:`expected_calibration_error`.
    bins : int, default 10
    strategy : {"quantile", "uniform"}, default "quantile"
        Equal-mass bins by default, as Kumar et al. use.
    squared : bool, default False
        Return the unbiased estimate of the squared error, which can be negative.
        Otherwise return ``sqrt(max(squared, 0))``, the authors' ``unbiased_l2_ce``.

    Examples
    --------
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0]
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1, 1]
    >>> round(debiased_l2_calibration_error(s, y, bins=3, strategy="uniform", squared=True), 6)
    -0.032083
    """
    s, y = check_scores_labels(scores, labels)
    bins = check_positive_int(bins, "bins")
    strategy = check_strategy(strategy)
    edges = bin_edges(s, bins, strategy)
    stats = _bin_sums(s, y, np.searchsorted(edges[1:-1], s), bins)
    sq = float(_binned_metric("debiased_l2", *stats, p=2.0)[0])
    return sq if squared else float(np.sqrt(max(sq, 0.0)))


def brier_score(scores: object, labels: object) -> float:
    """Mean squared difference ``mean((s - y)^2)`` between scores and labels.

    Parameters
    ----------
    scores : array-like of float in [0, 1]
        Estimated probabilities that the pairs are equivalent.
    labels : array-like in [0, 1]
        Human judgments: 0/1, or the fraction of judges who called the pair equivalent.

    Examples
    --------
    >>> round(brier_score([0.9, 0.2, 0.6], [1, 0, 0]), 6)  # (0.01 + 0.04 + 0.36) / 3
    0.136667
    """
    s, y = check_scores_labels(scores, labels)
    return float(np.mean((s - y) ** 2))


def log_loss(scores: object, labels: object, *, eps: float = 1e-15) -> float:
    """Mean negative log-likelihood (cross-entropy) of the labels under the scores.

    Scores are clipped to ``[eps, 1 - eps]``; fractional labels give the cross-entropy.

    Parameters
    ----------
    scores : array-like of float in [0, 1]
        Estimated probabilities that the pairs are equivalent.
    labels : array-like in [0, 1]
        Human judgments: 0/1, or the fraction of judges who called the pair equivalent.
    eps : float, default 1e-15
        Clipping bound of the scores.

    Examples
    --------
    >>> round(log_loss([0.9, 0.2, 0.6], [1, 0, 0]), 6)
    0.414932
    """
    s, y = check_scores_labels(scores, labels)
    return float(np.mean(_log_loss_terms(s, y, eps)))


def reliability_diagram(
    scores: object, labels: object, bins: int = 10, strategy: Strategy = "uniform"
) -> pd.DataFrame:
    """Reliability-diagram data: one row per non-empty bin.

    Parameters
    ----------
    scores : array-like of float in [0, 1]
        Estimated probabilities that the pairs are equivalent.
    labels : array-like in [0, 1]
        Human judgments: 0/1, or the fraction of judges who called the pair equivalent.
    bins : int, default 10
        Number of bins.
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width or equal-mass bins (scikit-learn's ``calibration_curve`` conventions).

    Returns
    -------
    pandas.DataFrame
        Columns ``bin`` (index among all ``bins`` bins), ``lower``, ``upper`` (bin edges),
        ``count``, ``mean_score``, ``mean_label``. ``mean_label`` and ``mean_score`` are
        exactly sklearn's ``calibration_curve`` output (``prob_true``, ``prob_pred``).

    Examples
    --------
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.65, 0.7, 0.8, 0.9, 1.0]
    >>> y = [0, 0, 0, 0, 1, 1, 1, 1, 1]
    >>> reliability_diagram(s, y, bins=3)[["bin", "count", "mean_score", "mean_label"]]
       bin  count  mean_score  mean_label
    0    0      3       0.200         0.0
    1    1      2       0.525         0.5
    2    2      4       0.850         1.0
    """
    s, y = check_scores_labels(scores, labels)
    bins = check_positive_int(bins, "bins")
    strategy = check_strategy(strategy)
    edges = bin_edges(s, bins, strategy)
    binids = np.searchsorted(edges[1:-1], s)
    count = np.bincount(binids, minlength=bins)
    sum_s = np.bincount(binids, weights=s, minlength=bins)
    sum_y = np.bincount(binids, weights=y, minlength=bins)
    keep = count != 0
    idx = np.flatnonzero(keep)
    return pd.DataFrame(
        {
            "bin": idx,
            "lower": edges[idx],
            "upper": edges[idx + 1],
            "count": count[keep],
            "mean_score": sum_s[keep] / count[keep],
            "mean_label": sum_y[keep] / count[keep],
        }
    )


# ----------------------------------------------------------------------------- bootstrap
@dataclass(frozen=True)
class CalibrationInterval:
    """A calibration metric with a bootstrap interval (returned by ``calibration_error_ci``).

    Parameters
    ----------
    metric : str
        The metric (``"ece"``, ``"mce"``, ``"debiased_l2"``, ``"brier"`` or ``"log_loss"``).
    estimate : float
        The metric on the data.
    ci_low, ci_high : float
        The interval's limits.
    se : float
        Standard deviation of the replicates.
    level : float
        Confidence level.
    n_boot : int
        Number of bootstrap replicates.
    n : int
        Number of scored pairs.
    bins : int
    strategy : str
        Binning, as in :func:`expected_calibration_error`.
    replicates : ndarray of shape (n_boot,)
        The bootstrap replicates.
    method : str
        Interval method used (``"percentile"``, ``"basic"``, ``"bca"`` or ``"bca-t"``).
    design : str
        Bootstrap design (``"items"``, ``"cluster"`` or ``"bayesian"``).
    seed : int
        Seed of the replicate generator.
    few_units_factor : float
        The factor the interval's distances from the estimate and ``se`` were widened by
        for few clusters (``Bootstrap(few_units="t")``, the coefficients' rule); 1.0 when
        nothing was widened.

    Examples
    --------
    >>> r = CalibrationInterval("brier", 0.1, 0.05, 0.2, 0.04, 0.95, 500, 40, 10, "uniform", np.zeros(500))
    >>> r.to_dict()["ci_high"], r.method
    (0.2, 'percentile')
    """

    metric: str
    estimate: float
    ci_low: float
    ci_high: float
    se: float
    level: float
    n_boot: int
    n: int
    bins: int
    strategy: str
    replicates: np.ndarray = field(repr=False, compare=False)
    method: str = "percentile"
    design: str = "items"
    seed: int = 0
    few_units_factor: float = 1.0

    def to_dict(self) -> dict[str, object]:
        """Scalar fields as a dict (without the replicates)."""
        out = asdict(self)
        out.pop("replicates")
        return out

    def to_frame(self) -> pd.DataFrame:
        """One-row tidy DataFrame of :meth:`to_dict`."""
        return pd.DataFrame([self.to_dict()])


def _resample_percentiles(sorted_s: np.ndarray, cum: np.ndarray, bins: int) -> np.ndarray:
    """``np.percentile(resample, linspace(0, 100, bins + 1))`` for every row at once.

    ``cum[r, j]`` is the number of items of resample ``r`` among the ``j + 1`` smallest
    scores (cumulative counts in sorted order; a row's total is its sample size), so the
    ``k``-th smallest value
    of the resample is ``sorted_s[#{j : cum[r, j] <= k}]``. numpy's "linear" method
    (virtual index, bounds and two-sided lerp) is replicated operation for operation, so
    the edges equal what ``np.percentile`` returns on the explicitly resampled data.
    """
    m, n = cum.shape
    total = cum[:, -1:]  # items in each resample (n for the item bootstrap; varies with clusters)
    q = np.true_divide(np.linspace(0, 1, bins + 1) * 100, 100)
    virtual = (total - 1) * q
    prev = np.floor(virtual)
    nxt = prev + 1
    above = virtual >= total - 1
    prev = np.where(above, total - 1, prev)
    nxt = np.where(above, total - 1, nxt)
    gamma = virtual - np.where(above, -1.0, prev)  # numpy's gamma (irrelevant when above)
    offsets = (np.arange(m) * (float(cum.max()) + 1.0))[:, None]
    flat = (cum + offsets).ravel()

    def kth(k: np.ndarray) -> np.ndarray:
        pos = np.searchsorted(flat, (k + offsets).ravel(), side="right")
        return sorted_s[pos.reshape(m, -1) - np.arange(m)[:, None] * n]

    a, b = kth(prev), kth(nxt)
    diff = b - a
    out = a + diff * gamma
    hi = np.broadcast_to(gamma >= 0.5, out.shape)
    out[hi] = (b - diff * (1 - gamma))[hi]
    return out


def _metric_batch(
    metric: str,
    s: np.ndarray,
    y: np.ndarray,
    weights: np.ndarray | None,
    bins: int,
    strategy: str,
    p: float,
    order: np.ndarray,
) -> np.ndarray:
    """The metric for each row of an ``(m, n)`` integer weight matrix (None: weights 1).

    Column ``j`` of ``weights`` is the weight of the ``j``-th smallest score
    (``order = argsort(s)``): drawing the multinomial weights directly in sorted order
    saves a gather over the whole matrix.

    With weights, everything is a few vectorised passes over the weight matrix, whatever
    the number of bins (no BLAS: threaded BLAS thrashes on small shared machines).
    """
    if metric in ("brier", "log_loss"):
        terms = (s - y) ** 2 if metric == "brier" else _log_loss_terms(s, y, 1e-15)
        if weights is None:
            return np.array([terms.mean()])
        return (weights * terms[order]).sum(axis=1) / weights.sum(axis=1)
    stats: tuple[np.ndarray, ...]
    if weights is None:
        edges = bin_edges(s, bins, strategy)
        stats = _bin_sums(s, y, np.searchsorted(edges[1:-1], s), bins)
    else:
        # ``weights`` are indexed by the sorted scores; a bin is then a run of columns
        m, n = weights.shape
        ss, ys = s[order], y[order]
        wf = weights.astype(np.float64)
        quantities = (None, ss, ys, ys * ys)
        if strategy == "uniform":
            # fixed runs: contiguous column-slice sums, one loop step per bin
            cuts = np.searchsorted(ss, np.linspace(0.0, 1.0, bins + 1)[1:-1], side="right")
            bounds = np.concatenate([[0], cuts, [n]])
            stats = tuple(
                np.stack(
                    [
                        (wf[:, lo:hi] if q is None else wf[:, lo:hi] * q[lo:hi]).sum(axis=1)
                        for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)
                    ],
                    axis=1,
                )
                for q in quantities
            )
        else:
            # each resample has its own edges: differences of cumulative sums at its runs
            cum_w = np.cumsum(wf, axis=1)
            interior = _resample_percentiles(ss, cum_w, bins)[:, 1:-1]
            # bin k holds the scores in (edge_k, edge_k+1]: it ends after the scores <= edge_k+1
            ends = np.concatenate(
                [np.searchsorted(ss, interior, side="right"), np.full((m, 1), n, dtype=np.intp)],
                axis=1,
            )
            take = np.maximum(ends - 1, 0)

            def per_bin(cum: np.ndarray) -> np.ndarray:
                at = np.where(ends > 0, np.take_along_axis(cum, take, axis=1), 0.0)
                return np.diff(at, axis=1, prepend=0.0)

            stats = tuple(
                per_bin(cum_w if q is None else np.cumsum(wf * q, axis=1)) for q in quantities
            )
    p_eff = 2.0 if metric == "debiased_l2" else p
    count, sum_s, sum_y, sum_yy = stats
    return _binned_metric(metric, count, sum_s, sum_y, sum_yy, p=p_eff)


@dataclass(frozen=True, eq=False)
class CalibrationStatistic(Statistic):
    """A calibration metric prepared for batches of item weights (the statistic protocol).

    The uncertainty layer's bootstraps evaluate it like any agreement statistic: ``evaluate(C)``
    gives ``{"value": ...}`` with one metric value per row of item (pair) weights ``C``
    (B, n); weights are multiplicities, so a row equals the metric on the data with item ``j``
    repeated ``C[b, j]`` times (quantile bin edges are recomputed on every row). Raters are not
    a dimension here (``n_raters`` is 1 and rater designs are refused). Built by
    :func:`calibration_statistic`.

    Parameters
    ----------
    metric : str
        One of ``METRICS``.
    scores, labels : ndarray of shape (n,)
        Validated scores and labels.
    bins : int
    strategy : {"uniform", "quantile"}
    p : float
        The ``p`` of the ECE.

    Examples
    --------
    >>> stat = calibration_statistic([0.1, 0.4, 0.8, 0.9], [0, 1, 1, 1], metric="brier")
    >>> stat.evaluate(np.array([[1, 1, 1, 1], [2, 0, 1, 1]]))["value"].round(4).tolist()
    [0.105, 0.0175]
    """

    metric: str
    scores: np.ndarray
    labels: np.ndarray
    bins: int
    strategy: str
    p: float

    n_raters = 1
    n_chance_pairs = 0
    rater_designs = False
    supports_analytic = False

    @property
    def items(self) -> tuple:
        return tuple(range(self.scores.size))

    @property
    def n_items(self) -> int:
        return int(self.scores.size)

    def evaluate(self, C: object = None, V: object = None, W: object = None) -> dict[str, np.ndarray]:
        """``{"value": (B,)}``: the metric for each row of item weights ``C`` (None: the data)."""
        order = np.argsort(self.scores, kind="stable")
        weights = None if C is None else np.atleast_2d(np.asarray(C, dtype=np.float64))[:, order]
        value = _metric_batch(self.metric, self.scores, self.labels, weights, self.bins, self.strategy, self.p, order)
        return {"value": np.asarray(value, dtype=np.float64)}


def calibration_statistic(
    scores: object,
    labels: object,
    *,
    metric: Metric = "ece",
    bins: int = 10,
    strategy: Strategy = "uniform",
    p: float = 1,
) -> CalibrationStatistic:
    """Validate the inputs of a calibration metric and prepare it for batches of weights.

    Parameters
    ----------
    scores, labels : array-like of shape (n,)
        As in :func:`expected_calibration_error`.
    metric : {"ece", "mce", "debiased_l2", "brier", "log_loss"}, default "ece"
        ``"debiased_l2"`` is the *squared* (unclipped, unbiased) form.
    bins, strategy, p
        As in :func:`expected_calibration_error` (``p`` only matters for ``"ece"``).

    Returns
    -------
    CalibrationStatistic

    Examples
    --------
    >>> stat = calibration_statistic([0.1, 0.4, 0.8, 0.9], [0, 1, 1, 1], bins=2)
    >>> round(float(stat.evaluate()["value"][0]), 4), stat.n_items
    (0.2, 4)
    """
    s, y = check_scores_labels(scores, labels)
    return CalibrationStatistic(
        metric=cast(Metric, check_choice(metric, "metric", METRICS)),
        scores=s,
        labels=y,
        bins=check_positive_int(bins, "bins"),
        strategy=check_strategy(strategy),
        p=_check_p(p),
    )
