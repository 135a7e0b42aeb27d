"""The posterior predictive check of an agreement statistic (:class:`PredictiveCheck`) and the observed data
it compares with (:func:`observed_on_fitted_design`); the kinds of model compute it, ``Posterior`` returns it."""

from dataclasses import dataclass
from typing import Any

import numpy as np

from softirr_stats.base._validation import check_level
from softirr_stats.inference._config import DEFAULT_LEVEL

__all__ = ["PredictiveCheck", "observed_on_fitted_design", "upper_tail_p"]


def upper_tail_p(observed: float, replicated: Any) -> float:
    """``P(T_rep >= T_obs)`` over the replicates on which the statistic is defined.

    A replicate whose statistic is undefined (nan: e.g. Fleiss' kappa of a replicated data set
    that uses one label) is neither above nor below the observed value, so it is left out;
    nan when the observed statistic is undefined or no replicate is defined.

    Examples
    --------
    >>> import numpy as np
    >>> upper_tail_p(0.5, np.array([0.2, 0.6, np.nan, 0.9]))
    0.6666666666666666
    >>> upper_tail_p(np.nan, np.array([0.2, 0.6]))
    nan
    """
    rep = np.asarray(replicated, dtype=np.float64).ravel()
    rep = rep[np.isfinite(rep)]
    if not np.isfinite(observed) or not rep.size:
        return float("nan")
    return float(np.mean(rep >= observed))


@dataclass(frozen=True)
class PredictiveCheck:
    """Posterior predictive check of an agreement statistic.

    Attributes
    ----------
    statistic : str
    observed : float
        The statistic on the observed data (nan where it is undefined on them: then the check
        is not run, ``p_value`` is nan and :attr:`note` says why).
    replicated : ndarray, shape (n_draws,)
        The statistic on data replicated from each posterior draw on the observed design
        (nan on a replicate where it is undefined, e.g. Fleiss' kappa of one label).
    p_value : float
        ``P(T(y_rep) >= T(y_obs))`` over the replicates where the statistic is defined
        (:func:`upper_tail_p`): the plain share of :attr:`n_draws` draws, so 0 means below ``1 / n_draws``
        (:func:`~softirr_stats.base._format.format_draw_p` prints it so); values near 0 or 1 flag misfit.

    Examples
    --------
    >>> import numpy as np
    >>> pc = PredictiveCheck("fleiss_kappa", 0.45, np.array([0.3, 0.4, 0.5, 0.6]), 0.5)
    >>> pc.statistic, pc.p_value
    ('fleiss_kappa', 0.5)
    >>> PredictiveCheck("fleiss_kappa", 0.45, np.array([0.3, np.nan, 0.5, 0.6]), 2 / 3).note
    '1 of 4 replicated data sets have an undefined fleiss_kappa (e.g. one label used); the p-value, mean and interval are over the other 3'
    """

    statistic: str
    observed: float
    replicated: np.ndarray
    p_value: float

    @property
    def defined(self) -> np.ndarray:
        """The replicated values where the statistic is defined (finite)."""
        rep = np.asarray(self.replicated, dtype=np.float64).ravel()
        return rep[np.isfinite(rep)]

    @property
    def n_draws(self) -> int:
        """How many replicated draws ``p_value`` is a share of: those where the statistic is defined."""
        return int(self.defined.size)

    @property
    def p_text(self) -> str:
        """``p_value`` for reading (:func:`~softirr_stats.base._format.format_draw_p`, 3 decimals): a share of 0
        as ``p < 1/n_draws``, not ``p = 0.000``.

        Examples
        --------
        >>> PredictiveCheck("fleiss_kappa", 0.9, np.linspace(0.3, 0.5, 500), 0.0).p_text
        'p < 0.002 (none of 500 draws)'
        """
        from softirr_stats.base._format import format_draw_p

        return format_draw_p(self.p_value, self.n_draws or None, 3)

    @property
    def n_undefined(self) -> int:
        """How many replicated data sets have an undefined statistic (nan)."""
        return int(np.asarray(self.replicated).size - self.defined.size)

    @property
    def replicated_mean(self) -> float:
        """Mean of the replicated statistic where it is defined (nan where it is nowhere)."""
        rep = self.defined
        return float(rep.mean()) if rep.size else float("nan")

    @property
    def note(self) -> str:
        """Why the check was not run, or how many replicates it left out; ``""`` when neither."""
        n = int(np.asarray(self.replicated).size)
        if not np.isfinite(self.observed):
            return (f"not run: the observed {self.statistic} is undefined on these data (e.g. every rating "
                    "has the same label, so there is no chance-corrected agreement to compare)")
        if self.n_undefined == n and n:
            return f"not run: the {self.statistic} of every replicated data set is undefined"
        if self.n_undefined:
            return (f"{self.n_undefined} of {n} replicated data sets have an undefined {self.statistic} (e.g. "
                    f"one label used); the p-value, mean and interval are over the other {n - self.n_undefined}")
        return ""

    def __repr__(self) -> str:
        """One line: the statistic, the observed value, the p-value as a share of the draws (``p < 0.002``
        where none of 500 draws was as extreme, as :attr:`p_text` reads it) and the replicated distribution.

        Examples
        --------
        >>> PredictiveCheck("fleiss_kappa", 0.9, np.linspace(0.3, 0.5, 500), 0.0)
        PredictiveCheck(statistic='fleiss_kappa', observed=0.9, p < 0.002, replicated: 500 draws, mean 0.4, 95% [0.305, 0.495])
        """
        from softirr_stats.base._format import format_draw_p

        rep = self.defined
        if rep.size:
            lo, hi = np.quantile(rep, [0.025, 0.975])
            shown = f"replicated: {rep.size} draws, mean {rep.mean():.4g}, 95% [{lo:.4g}, {hi:.4g}]"
        else:
            shown = "replicated: 0 draws"
        note = f"; {self.note}" if self.note else ""
        # the share as format_draw_p reads it (p < 1/N, not p_value=0); the draws are counted beside it
        p = format_draw_p(self.p_value, self.n_draws or None, 3, count=False, na="p = nan")
        return f"PredictiveCheck(statistic={self.statistic!r}, observed={self.observed:.4g}, {p}, {shown}{note})"

    def _repr_html_(self) -> str:
        """Observed statistic, the replicated distribution and the p-value, for notebooks.

        Examples
        --------
        >>> c = PredictiveCheck("fleiss_kappa", 0.5, np.linspace(0.4, 0.6, 101), 0.5)
        >>> "fleiss_kappa" in c._repr_html_() and "0.595" in c._repr_html_()
        True
        """
        from softirr_stats.base._format import format_draw_p
        from softirr_stats.base._html_repr import frame_html

        rep = self.defined
        lo, hi = np.quantile(rep, [0.025, 0.975]) if rep.size else (np.nan, np.nan)
        rows = [("observed", self.observed), ("replicated mean", self.replicated_mean),
                ("replicated 2.5%", lo), ("replicated 97.5%", hi),
                ("p-value", format_draw_p(self.p_value, self.n_draws or None, 4, name="", na="nan")),
                ("replicated draws", int(rep.size))]
        if self.n_undefined:
            rows.append(("replicated draws undefined", self.n_undefined))
        notes = ["p-value: share of replicated values at or above the observed one; near 0 or 1 the "
                 "model does not reproduce the statistic"]
        return frame_html((["quantity", "value"], rows), f"Posterior predictive check of {self.statistic}",
                          notes + ([self.note] if self.note else []))

    @property
    def failed(self) -> bool:
        """True when ``p_value`` is at most 0.01 or at least 0.99 (False when the check was not run)."""
        return bool(self.p_value <= 0.01 or self.p_value >= 0.99)

    def interval(self, level: float = DEFAULT_LEVEL) -> tuple[float, float]:
        """Equal-tailed interval of the replicated statistic where it is defined ((nan, nan) where nowhere)."""
        level = check_level(level)
        rep = self.defined
        if not rep.size:
            return float("nan"), float("nan")
        lo, hi = np.quantile(rep, [(1 - level) / 2, (1 + level) / 2])
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
