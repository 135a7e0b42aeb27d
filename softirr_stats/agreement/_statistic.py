"""The one base class every agreement statistic derives from for the uncertainty layer.

A statistic is *prepared* once (everything that does not depend on the weights) and then
*evaluated* for any batch of item weights ``C`` (B, n_items), rater weights ``V``
(B, n_raters) and chance-pair weights ``W`` (B, n_chance_pairs). 1-D or None weights are held
fixed. The bootstrap designs, the jackknife and the point estimate are all calls of
``evaluate``; :func:`softirr_stats.uncertainty.attach_interval` is written once against this
class (the coefficients' ``Prepared``, multi-label agreement, cross-replication kappa, distance
agreement, span F1, the prediction-powered estimate, calibration metrics).

As numpyro's ``MCMCKernel`` does, the optional hooks are members of the base class with
documented defaults; the uncertainty layer reads them as attributes and probes nothing. A
statistic overrides only what it has.
"""

from typing import Any, ClassVar

import numpy as np

__all__ = ["Statistic"]

#: The note a bootstrap adds when it resamples sampled chance pairs (``Statistic.resampled_pairs_note``).
RESAMPLED_PAIRS_NOTE = "chance-term sampling error included: the chance pairs are resampled in every replicate"


class Statistic:
    """A prepared statistic that can be evaluated for batches of weights (the base class).

    A subclass provides ``items`` (item ids, in the order of the item weights; strata and
    clusters map onto them), ``n_items``, ``n_raters`` and :meth:`evaluate` (as attributes,
    dataclass fields or properties); everything else has a default here.

    Attributes
    ----------
    n_chance_pairs : int, default 0
        Sampled chance pairs resampled with the weights (0 when chance is exact).
    rater_designs : bool, default True
        Whether raters may be resampled (``Bootstrap(design="raters" | "items+raters")``).
    no_rater_designs : str
        Why raters cannot be resampled, when ``rater_designs`` is False (the error message).
    supports_analytic : bool, default False
        Whether ``ci="analytic"`` may apply.
    no_analytic : str, default ""
        Why there is no analytic variance (the error message), when ``supports_analytic`` is False.
    analytic_variance : None or method
        None: the analytic interval is the agreement layer's linearised one
        (``uncertainty.attach_analytic``). A statistic with its own variance defines the method
        ``analytic_variance() -> (variance, df, notes, details)`` (``uncertainty.attach_own_variance``).
    judged_pairs : bool, default False
        Whether the statistic holds judged label pairs that ``Bootstrap(design="judged")`` resamples.
    resampled_pairs_note : str
        The note a bootstrap adds when ``n_chance_pairs`` > 0 ("" for none).
    device_weights : bool, default False
        Whether :meth:`evaluate` takes item weights as JAX arrays on the device
        (``Bootstrap(generator="jax")``); otherwise they are copied to host memory first.
    rater_ids : tuple or None, default None
        The rater ids, in the order of the rater weights ``V`` (None when the statistic does not
        know them: ``compare`` then resamples no raters and matches the two statistics by items).
    extra_outputs : tuple of str, default ()
        Keys of :meth:`evaluate`'s output, beside ``value``, that the bootstrap also gives an
        interval (``<name>_ci_low`` / ``<name>_ci_high`` in ``details``).
    informative_items : bool array of shape (n_items,) or None, default None
        The items whose weight can change the value (a coefficient's items with two ratings or more where
        single ratings add nothing, ``ChanceFamily.single_ratings``); None: every item. The few-items count
        and the Student-t degrees of freedom of an item bootstrap's interval are theirs
        (``uncertainty.interval_items``); the bootstrap still draws every item.
    uninformative_items_are : str
        What the other items are, for the note that names them (e.g. "items with a single rating or none").
    unit_name : str, default "items"
        What an item is, in the notes of the uncertainty layer (span F1: "documents").
    few_items_caveat : str, default ""
        What is known of the interval's coverage below 20 items, for the few-items warning
        (:func:`~softirr_stats.uncertainty.few_items_note`; "": the coverage of kappa and alpha measured at
        5-15 items).
    chance_categories : int or None, default None
        The number of categories q the value depends on (the declared categories of a chance term fixed by
        them: AC1 / AC2, Brennan-Prediger); None where the value does not depend on q. ``compare`` refuses
        two data sets whose q differ.
    rating_labels : tuple or None, default None
        The distinct labels the ratings use (None where the statistic does not know them); ``compare``
        notes two data sets that share none.
    category_weights : CategoryWeights or None, default None
        Named weights (``linear``, ``ordinal``, ...) over the categories they were built on, and what of them the
        value reads (``agreement._category_weights``); None where the value does not depend on the category list
        through its weights. ``compare`` refuses two data sets whose weights weigh their shared labels differently
        where the value reads them.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> isinstance(prep, Statistic), prep.n_items, prep.evaluate()["value"].round(4).tolist()
    (True, 4, [0.4667])
    >>> prep.judged_pairs, prep.extra_outputs, prep.rater_ids
    (False, (), (0, 1))
    >>> Statistic.informative_items is None, Statistic.unit_name
    (True, 'items')
    >>> prep.chance_categories is None, prep.rating_labels, prep.category_weights
    (True, ('a', 'b'), None)
    """

    n_chance_pairs: ClassVar[int] = 0
    rater_designs: ClassVar[bool] = True
    no_rater_designs: ClassVar[str] = "the statistic's raters cannot be resampled"
    supports_analytic: ClassVar[bool] = False
    no_analytic: ClassVar[str] = ""
    analytic_variance: ClassVar[Any] = None
    judged_pairs: ClassVar[bool] = False
    resampled_pairs_note: ClassVar[str] = RESAMPLED_PAIRS_NOTE
    extra_outputs: ClassVar[tuple[str, ...]] = ()
    rater_ids: ClassVar[tuple | None] = None
    device_weights: ClassVar[bool] = False
    informative_items: ClassVar[np.ndarray | None] = None
    uninformative_items_are: ClassVar[str] = "items whose weight cannot change the value"
    unit_name: ClassVar[str] = "items"
    few_items_caveat: ClassVar[str] = ""
    chance_categories: ClassVar[int | None] = None
    rating_labels: ClassVar[tuple | None] = None
    category_weights: ClassVar[Any] = None

    def evaluate(self, C: Any = None, V: Any = None, W: Any = None) -> dict[str, np.ndarray]:
        """``{"value", "pa", "pe", ...}``, each of shape (B,), for item / rater / chance-pair weights."""
        raise NotImplementedError(f"{type(self).__name__} must define evaluate(C, V, W)")

    def leave_units_out(self, units: np.ndarray | None = None) -> dict[str, np.ndarray] | None:
        """The outputs with each unit's items left out in turn (item weights 0, every other item 1), or None.

        The jackknife of the item and cluster bootstrap designs (BCa). A statistic whose item sums can be
        taken apart (leave-one-out sums = total minus the unit's own share) gives them here in time and
        memory linear in the items; None (the default) makes the caller evaluate one weight row per unit.

        Parameters
        ----------
        units : int array of shape (n_items,), optional
            Each item's unit (0 .. U - 1); None: every item is its own unit.

        Returns
        -------
        dict or None
            As :meth:`evaluate`, one row per unit.
        """
        return None
