"""Typed result containers for agreement coefficients."""

import math
import sys
from dataclasses import asdict, dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas loads when a table is asked for
    import pandas as pd

__all__ = ["AgreementResult", "CrossKappaResult", "MultilabelResult"]


@dataclass(frozen=True)
class AgreementResult:
    """One agreement coefficient with its observed/expected terms and (optional) interval.

    Attributes
    ----------
    coefficient : str
        Name of the statistic, e.g. ``"cohen_kappa"``.
    value : float
        The coefficient; ``nan`` when it is undefined (see ``warnings``).
    observed, expected : float
        Observed and chance (expected) agreement. For Krippendorff's alpha these are
        ``1 - D_o`` and ``1 - D_e``.
    n_items, n_raters : int
        Items and raters that entered the computation.
    ci_low, ci_high, se : float
        Interval bounds and standard error; ``nan`` when no interval was asked for.
    level : float
        Confidence (or credibility) level of the interval; ``nan`` without one.
    ci_method : str
        How the interval was made (``"bootstrap-percentile"``, ``"analytic"``, ...), or ``""``.
    similarity : str
        The equivalence measure or weights (``"identity"`` for exact matching).
    chance : str
        How chance agreement was computed (``"exact"``, ``"monte_carlo(D=3)"``, ...).
    chance_se : float
        Standard error of the chance term when it is estimated from sampled pairs.
    n_pairs_scored : int
        Label pairs the equivalence estimator scored (0 for identity / matrices).
    warnings : tuple of str
        Why a value is ``nan``, what was dropped, which option ``"auto"`` picked.
    details : dict
        Everything else (bootstrap settings and replicates, posterior, per-item terms).

    Examples
    --------
    >>> r = AgreementResult("percent_agreement", 0.8, 0.8, 0.0, 10, 2)
    >>> r.to_dict()["value"]
    0.8
    """

    coefficient: str
    value: float
    observed: float
    expected: float
    n_items: int
    n_raters: int
    ci_low: float = math.nan
    ci_high: float = math.nan
    se: float = math.nan
    level: float = math.nan
    ci_method: str = ""
    similarity: str = "identity"
    chance: str = "exact"
    chance_se: float = math.nan
    n_pairs_scored: int = 0
    warnings: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    # ------------------------------------------------------------------
    def _scalar_fields(self) -> dict[str, Any]:
        out = {}
        for f in fields(self):
            if f.name == "details":
                continue
            v = getattr(self, f.name)
            pd_ = sys.modules.get("pandas")  # no DataFrame exists before pandas is imported
            if pd_ is not None and isinstance(v, pd_.DataFrame):
                continue
            out[f.name] = "; ".join(v) if f.name == "warnings" else v
        return out

    def to_dict(self, *, details: bool = False) -> dict[str, Any]:
        """Flat dict of the scalar fields (JSON-friendly); ``details=True`` adds scalar details."""
        out = self._scalar_fields()
        for key in ("bootstrap_n", "bootstrap_seed", "bootstrap_design", "n_nan_replicates"):
            if key in self.details:
                out[key] = self.details[key]
        if details:
            for k, v in self.details.items():
                if isinstance(v, int | float | str | bool) and k not in out:
                    out[k] = v
        return out

    def to_frame(self) -> "pd.DataFrame":
        """One-row tidy DataFrame of :meth:`to_dict` (unrounded)."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])

    def with_interval(self, low: float, high: float, se: float, level: float, method: str,
                      **details: Any) -> "AgreementResult":
        """A copy carrying an interval (used by the uncertainty layer)."""
        merged = {**self.details, **details}
        return replace(self, ci_low=float(low), ci_high=float(high), se=float(se), level=float(level),
                       ci_method=method, details=merged)

    def __str__(self) -> str:
        ci = "" if math.isnan(self.ci_low) else f", {self.level:.0%} CI [{self.ci_low:.4f}, {self.ci_high:.4f}]"
        return f"{self.coefficient} = {self.value:.4f}{ci} (n_items={self.n_items}, n_raters={self.n_raters})"


@dataclass(frozen=True)
class CrossKappaResult(AgreementResult):
    """Cross-replication reliability: ``value`` is kappa_x; also the normalised form and IRRs."""

    normalized: float = math.nan
    irr_x: float = math.nan
    irr_y: float = math.nan


@dataclass(frozen=True)
class MultilabelResult(AgreementResult):
    """Multi-label agreement with label-wise decomposition and item diagnostics."""

    floor: float = math.nan
    raw_prevalence: float = math.nan
    by_label: "pd.DataFrame | None" = field(default=None, repr=False, compare=False)
    by_item: "pd.DataFrame | None" = field(default=None, repr=False, compare=False)


def _asdict(result: AgreementResult) -> dict[str, Any]:  # pragma: no cover - debugging helper
    return asdict(result)
