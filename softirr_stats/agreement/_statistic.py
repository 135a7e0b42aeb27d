"""The one protocol every agreement statistic implements for the uncertainty layer.

A statistic is *prepared* once (everything that does not depend on the weights) and then
*evaluated* for any batch of item weights ``C`` (B, n_items), rater weights ``V``
(B, n_raters) and chance-pair weights ``W`` (B, n_chance_pairs). 1-D or None weights are held
fixed. The bootstrap designs, the jackknife and the point estimate are all calls of
``evaluate``; :func:`softirr_stats.uncertainty.attach_interval` is written once against this
protocol (the coefficients' ``Prepared``, multi-label agreement, cross-replication kappa).
"""

from typing import Any, Protocol, runtime_checkable

import numpy as np

__all__ = ["Statistic"]


@runtime_checkable
class Statistic(Protocol):
    """A prepared statistic that can be evaluated for batches of weights.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> isinstance(prep, Statistic), prep.n_items, prep.evaluate()["value"].round(4).tolist()
    (True, 4, [0.4667])
    """

    @property
    def items(self) -> tuple:
        """Item ids, in the order of the item weights (strata and clusters map onto them)."""
        ...

    @property
    def n_items(self) -> int: ...

    @property
    def n_raters(self) -> int: ...

    @property
    def n_chance_pairs(self) -> int:
        """Sampled chance pairs resampled with the weights (0 when chance is exact)."""
        ...

    rater_designs: bool  # False when raters cannot be resampled (e.g. two replications)
    supports_analytic: bool  # True when ci="analytic" may apply

    def evaluate(self, C: Any = None, V: Any = None, W: Any = None) -> dict[str, np.ndarray]:
        """``{"value", "pa", "pe", ...}``, each of shape (B,)."""
        ...
