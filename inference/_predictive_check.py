"""The posterior predictive check of an agreement statistic (:class:`PredictiveCheck`) and the observed data
it compares with (:func:`observed_on_fitted_design`); the kinds of model compute it, ``Posterior`` returns it."""

from dataclasses import dataclass
from typing import Any

import numpy as np

from softirr_stats.base._validation import check_level
from softirr_stats.inference._config import DEFAULT_LEVEL

__all__ = ["PredictiveCheck", "observed_on_fitted_design"]


@dataclass(frozen=True)
class PredictiveCheck:
    """Posterior predictive check of an agreement statistic.

    Attributes
    ----------
    statistic : str
    observed : float
        The statistic on the observed data.
    replicated : ndarray, shape (n_draws,)
        The statistic on data replicated from each posterior draw on the observed design.
    p_value : float
        ``P(T(y_rep) >= T(y_obs))``; values near 0 or 1 flag misfit.

    Examples
    --------
    >>> import numpy as np
    >>> pc = PredictiveCheck("fleiss_kappa", 0.45, np.array([0.3, 0.4, 0.5, 0.6]), 0.5)
    >>> pc.statistic, pc.p_value
    ('fleiss_kappa', 0.5)
    """

    statistic: str
    observed: float
    replicated: np.ndarray
    p_value: float

    def __repr__(self) -> str:
        rep = np.asarray(self.replicated, dtype=np.float64)
        if rep.size:
            lo, hi = np.quantile(rep, [0.025, 0.975])
            shown = f"replicated: {rep.size} draws, mean {rep.mean():.4g}, 95% [{lo:.4g}, {hi:.4g}]"
        else:
            shown = "replicated: 0 draws"
        return (f"PredictiveCheck(statistic={self.statistic!r}, observed={self.observed:.4g}, "
                f"p_value={self.p_value:.3g}, {shown})")

    def _repr_html_(self) -> str:
        """Observed statistic, the replicated distribution and the p-value, for notebooks.

        Examples
        --------
        >>> c = PredictiveCheck("fleiss_kappa", 0.5, np.linspace(0.4, 0.6, 101), 0.5)
        >>> "fleiss_kappa" in c._repr_html_() and "0.595" in c._repr_html_()
        True
        """
        from softirr_stats.base._html_repr import frame_html

        rep = np.asarray(self.replicated, dtype=np.float64)
        lo, hi = np.quantile(rep, [0.025, 0.975]) if rep.size else (np.nan, np.nan)
        rows = [("observed", self.observed), ("replicated mean", rep.mean() if rep.size else np.nan),
                ("replicated 2.5%", lo), ("replicated 97.5%", hi), ("p-value", self.p_value),
                ("replicated draws", int(rep.size))]
        return frame_html((["quantity", "value"], rows), f"Posterior predictive check of {self.statistic}",
                          ["p-value: share of replicated values at or above the observed one; near 0 or 1 the "
                           "model does not reproduce the statistic"])

    @property
    def failed(self) -> bool:
        """True when ``p_value`` is at most 0.01 or at least 0.99."""
        return bool(self.p_value <= 0.01 or self.p_value >= 0.99)

    def interval(self, level: float = DEFAULT_LEVEL) -> tuple[float, float]:
        """Equal-tailed interval of the replicated statistic."""
        level = check_level(level)
        lo, hi = np.quantile(self.replicated, [(1 - level) / 2, (1 + level) / 2])
        return float(lo), float(hi)


def observed_on_fitted_design(data: Any, ann_or_data: Any = None) -> Any:
    """The observed labels to check a fit against: the fitted data, or ``ann_or_data`` encoded on
    the fitted design (same items, raters and observed cells; anything else is refused).

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats.models import encode_annotations
    >>> data = encode_annotations(np.array([[0, 1], [1, 1]]), n_classes=2)
    >>> observed_on_fitted_design(data) is data
    True
    """
    if ann_or_data is None:
        return data
    from softirr_stats.models import encode_annotations

    obs = encode_annotations(ann_or_data, n_classes=data.n_classes)
    if (obs.n_items, obs.n_raters) != (data.n_items, data.n_raters) or not (
            np.array_equal(obs.items, data.items) and np.array_equal(obs.raters, data.raters)):
        raise ValueError("ann_or_data must have the fitted design (same items, raters and observed cells)")
    return obs
