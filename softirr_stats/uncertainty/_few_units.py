"""Small-sample correction for bootstraps that resample few units (raters, or clusters of items).

A bootstrap over ``U`` units estimates the between-unit variance by its plug-in value, which is
``(U - 1) / U`` of the unbiased one, and the sampling distribution of a coefficient over few units
has heavier tails than the bootstrap's. With 6 raters sampled from a population the
``items+raters`` percentile interval covered 88.6% at the 95% level (500 simulated studies of 200
items); with 15 clusters the ``cluster`` percentile interval covered 91.0% (docs/coverage.md,
"Few raters, few clusters").

The correction widens the interval's distances from the estimate by

    c = sqrt((v_i + f^2 v_u) / v),    f = t_{U-1}((1 + level) / 2) / z((1 + level) / 2)

where ``v`` is the bootstrap variance, ``v_u`` the unbiased between-unit variance and
``v_i = max(v - (U - 1) / U * v_u, 0)`` the rest (the item part of a two-way bootstrap). For the
``raters`` and ``cluster`` designs the whole variance is between units (``v_u = v U / (U - 1)``, so
``c = f sqrt(U / (U - 1))``); for ``items+raters`` ``v_u`` is the leave-one-rater-out jackknife
variance, so only the rater share is corrected, and ``v_i`` also loses the item x rater interaction that
the two-way (pigeonhole) bootstrap counts again (Owen 2007; :func:`_interaction_overcount`): with 3-4
raters and 60 items the interval was 2-10% wider than needed (docs/coverage.md, "Few raters"). The choice among four candidates was made by
simulation (``benchmarks/few_units_coverage.py``).

With ``strata=`` the ``cluster`` design draws ``n_h`` clusters within each stratum ``h``, and its variance is
``sum_h (n_h - 1) / n_h`` times each stratum's share of the unbiased one (half of it with 2 clusters per stratum),
not ``(U - 1) / U``. The correction is then (:func:`stratified_few_units`)

    c = t_d((1 + level) / 2) / z((1 + level) / 2) * sqrt(U / (U - H)),    d = U^2 / sum_h n_h^2 / (n_h - 1)

for ``H`` strata: each unit's share of the variance taken equal (``d = U - H`` for equal strata, ``U - 1`` and the
rule above without strata). With 10 clusters in 5 strata of 2 the interval that ignored the strata covered 83-86%
at the 95% level, this one 94%; the Satterthwaite degrees of freedom of the stratified jackknife
(``stratified_dof``, 1 df per stratum of 2) made it 50% wider than needed (97-98%; ``benchmarks/strata_coverage.py``,
docs/coverage.md, "Few units per stratum").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from softirr_stats.agreement import Statistic
    from softirr_stats.uncertainty._bootstrap import Bootstrap

__all__ = ["FEW_CLUSTERS", "FEW_ITEMS", "FEW_PER_STRATUM", "FEW_RATERS", "FewUnitsWarning", "few_items_analytic_note",
           "few_items_note", "few_items_posterior_note",
           "few_units_correction", "few_units_factor", "few_units_note", "small_strata_note", "stratified_few_units",
           "t_factor", "widen_interval"]

#: Below this many raters a rater design's interval is flagged (coverage depends on the correction).
FEW_RATERS = 8
#: Below this many clusters the cluster design's interval is flagged.
FEW_CLUSTERS = 10

#: Below this many items a bootstrap over items is flagged: the smallest size at which the default
#: interval was measured to hold its level (docs/coverage.md, "Small studies")
FEW_ITEMS = 20
#: coverage of the default 95% interval measured below FEW_ITEMS (items, percent over two generators x four
#: coefficients, 1,000 studies each; ``benchmarks/small_study_coverage.py --sizes 5 8 10 15``)
FEW_ITEMS_COVERAGE = ((5, 51, 79), (8, 74, 95), (10, 83, 97), (15, 91, 98))

#: Below this many items in a stratum a stratified bootstrap over items is flagged (:func:`small_strata_note`).
FEW_PER_STRATUM = 5

FEW_UNITS_CHOICES = ("t", "none")


class FewUnitsWarning(UserWarning):
    """A bootstrap resampled few raters, few clusters or few items: its interval's coverage is approximate.

    Examples
    --------
    >>> import warnings
    >>> import softirr_stats as sis
    >>> rows = [["a", "a", "b", "a"], ["b", "b", "b", "a"], ["a", "b", "a", "a"], ["b", "b", "b", "b"]] * 5
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     _ = sis.fleiss_kappa(rows, ci=sis.Bootstrap(n=100, design="raters", seed=0))
    >>> any(issubclass(w.category, FewUnitsWarning) for w in seen)
    True
    """


def t_factor(units: int, level: float, *, dof: float | None = None) -> float:
    """``t_{U-1}(q) / z(q)`` with ``q = (1 + level) / 2``: the Student-t widening for ``U`` units (``dof``: other,
    possibly fractional, degrees of freedom, as a stratified design's).

    Examples
    --------
    >>> round(t_factor(6, 0.95), 4)
    1.3115
    >>> round(t_factor(10_000, 0.95), 4)
    1.0001
    >>> t_factor(6, 0.95, dof=5.0) == t_factor(6, 0.95)
    True
    """
    from scipy import stats

    q = (1.0 + level) / 2.0
    return float(stats.t.ppf(q, units - 1 if dof is None else dof) / stats.norm.ppf(q))


def stratified_few_units(unit_strata: np.ndarray) -> tuple[float, float]:
    """Degrees of freedom and variance ratio of a stratified bootstrap over few units.

    A bootstrap that draws ``n_h`` units with replacement within each stratum has the variance
    ``sum_h (n_h - 1) / n_h V_h``, ``V_h`` stratum ``h``'s share of the unbiased variance. Taking each unit's
    share equal (``V_h`` proportional to ``n_h``), the unbiased variance is ``U / (U - H)`` times the bootstrap's
    for ``U`` units in ``H`` strata, and its Satterthwaite degrees of freedom are
    ``d = (sum_h V_h)^2 / sum_h V_h^2 / (n_h - 1) = U^2 / sum_h n_h^2 / (n_h - 1)`` (``U - H`` for equal strata,
    ``U - 1`` for one stratum). Shares estimated from the data (the stratified jackknife's, as ``bca-t`` takes
    them, :func:`~softirr_stats.uncertainty._intervals.stratified_dof`) have one degree of freedom each with
    strata of two units: their Satterthwaite degrees of freedom came out near half of ``U - H`` and the interval
    50% wider than needed (``benchmarks/strata_coverage.py``). Strata of one unit (which the bootstrap never
    varies) are left out.

    Parameters
    ----------
    unit_strata : int array of shape (U,)
        Each resampled unit's stratum.

    Returns
    -------
    (dof, ratio) : tuple of float
        ``(nan, nan)`` when no stratum has two units.

    Examples
    --------
    >>> stratified_few_units(np.repeat(np.arange(5), 2))  # 10 clusters, 5 strata of 2: U - H df, U / (U - H)
    (5.0, 2.0)
    >>> dof, ratio = stratified_few_units(np.zeros(10, dtype=int))  # no strata: the unstratified rule
    >>> round(dof, 12), round(ratio, 12)
    (9.0, 1.111111111111)
    """
    size = np.bincount(np.unique(np.asarray(unit_strata), return_inverse=True)[1]).astype(np.float64)
    size = size[size > 1]
    if size.size == 0:
        return math.nan, math.nan
    return float(size.sum() ** 2 / np.sum(size * size / (size - 1.0))), float(size.sum() / (size - 1.0).sum())


def _rater_variance(rater_jackknife: Callable[[], np.ndarray]) -> float:
    """Unbiased between-rater variance from the leave-one-rater-out jackknife."""
    jack = np.asarray(rater_jackknife(), dtype=np.float64)
    jack = jack[np.isfinite(jack)]
    r = len(jack)
    if r < 2:
        return math.nan
    return float((r - 1) / r * np.sum((jack - jack.mean()) ** 2))


def few_units_note(units: int, kind: str, corrected: bool, unit_strata: np.ndarray | None = None) -> str:
    """The note (and :class:`FewUnitsWarning` text) for a design that resampled ``units`` raters or clusters.

    Empty unless ``units`` is below :data:`FEW_RATERS` (raters) or :data:`FEW_CLUSTERS` (clusters).
    ``unit_strata``: each unit's stratum, when they were resampled within strata (the correction's degrees of
    freedom and its variance ratio ``U / (U - H)``, :func:`stratified_few_units`).

    Examples
    --------
    >>> few_units_note(3, "raters", True)[:58]
    '3 raters resampled (fewer than 8): the interval is for the'
    >>> few_units_note(12, "clusters", True)
    ''
    >>> few_units_note(6, "clusters", True, unit_strata=np.repeat(np.arange(3), 2)).split("(Student")[1]
    '-t correction with 3 df and the variance ratio U / (U - H) = 2 of 3 strata applied)'
    """
    few = FEW_RATERS if kind == "raters" else FEW_CLUSTERS
    if units >= few:
        return ""
    text = (f"{units} {kind} resampled (fewer than {few}): the interval is for the population of {kind} these "
            f"were sampled from, and its coverage with so few {kind} is approximate")
    if not corrected:
        return text
    n_strata = 1 if unit_strata is None else len(np.unique(unit_strata))
    dof, ratio = stratified_few_units(unit_strata) if n_strata > 1 else (math.nan, math.nan)
    if not dof >= 1.0:
        return text + f" (Student-t correction with {units - 1} df applied)"
    return text + (f" (Student-t correction with {dof:.3g} df and the variance ratio U / (U - H) = {ratio:.3g} of "
                   f"{n_strata} strata applied)")


def small_strata_note(unit_strata: np.ndarray | None, design: Any, unit: str = "items") -> str:
    """The note (and :class:`FewUnitsWarning` text) for a stratified bootstrap over items with small strata.

    A bootstrap that draws ``n_h`` items with replacement within a stratum gives that stratum
    ``(n_h - 1) / n_h`` of its unbiased variance (a Bayesian bootstrap ``(n_h - 1) / (n_h + 1)``): with strata of
    2 items, half. The interval is not widened for it (``bca-t`` takes the stratified degrees of freedom only);
    this note says so when some stratum has fewer than :data:`FEW_PER_STRATUM` items. Empty otherwise, and for
    designs that do not resample items one by one (the ``cluster`` design's correction accounts for its strata,
    :func:`stratified_few_units`). ``unit_strata`` holds the strata of the items that are units of the interval
    (those that can change the value, ``uncertainty.informative_units``), and ``unit`` says what they are: a
    stratum left with one such item has no variance to resample (``stratified_dof`` leaves it out) and is
    counted here as a stratum of 1; one left with none is no stratum of the interval.

    Examples
    --------
    >>> from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS
    >>> small_strata_note(np.repeat(np.arange(10), 2), BOOTSTRAP_DESIGNS["items"]).split(":")[0]
    '10 of 10 strata have fewer than 5 items (smallest 2)'
    >>> small_strata_note(np.repeat(np.arange(2), 8), BOOTSTRAP_DESIGNS["items"])
    ''
    >>> small_strata_note(np.array([0, 1, 1, 1, 1, 1]), BOOTSTRAP_DESIGNS["items"], unit="items that can change "
    ...                   "the value").split(": a bootstrap")[0]
    '1 of 2 strata have fewer than 5 items that can change the value (smallest 1)'
    """
    if (unit_strata is None or not design.resamples_items or design.resamples_clusters
            or design.resamples_judged or design.resamples_raters):
        return ""
    size = np.bincount(np.unique(np.asarray(unit_strata), return_inverse=True)[1])
    small = size[size < FEW_PER_STRATUM]
    if small.size == 0:
        return ""
    m = int(small.min())
    kept = "none" if m == 1 else f"{m - 1}/{m + 1}" if design.fractional else f"{m - 1}/{m}"
    return (f"{small.size} of {size.size} strata have fewer than {FEW_PER_STRATUM} {unit} (smallest {m}): a "
            f"bootstrap within so small strata under-estimates their variance ({kept} of it in a stratum of {m}), "
            "and the interval is too narrow (the default 95% interval covered 91% with strata of 2 items and 91-93% "
            "with strata of 4, the percentile one 80% and 86-88%; docs/coverage.md, \"Few units per stratum\"): "
            "merge small strata where the design allows")


def few_items_note(n_items: int, design: Any, unit: str = "items", caveat: str = "", *, where: str = "") -> str:
    """The note (and :class:`FewUnitsWarning` text) for a bootstrap over fewer than :data:`FEW_ITEMS` items.

    Empty for larger studies and for designs that do not resample items one by one (raters, clusters,
    judged pairs), which have their own rules. ``unit`` names what an item is (span F1: ``"documents"``);
    ``caveat`` is what is known of the statistic's coverage with so few of them
    (``Statistic.few_items_caveat``), ``""`` for the coverage of kappa and alpha measured at 5-15 items
    (:data:`FEW_ITEMS_COVERAGE`). ``where`` says which sample ``n_items`` counts, when there are several
    (the difference of two statistics on different items, ``softirr_stats.compare``), after "(fewer than 20)".

    Examples
    --------
    >>> from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS
    >>> few_items_note(8, BOOTSTRAP_DESIGNS["items"]).split(":")[0]
    '8 items resampled (fewer than 20)'
    >>> few_items_note(20, BOOTSTRAP_DESIGNS["items"]), few_items_note(8, BOOTSTRAP_DESIGNS["cluster"])
    ('', '')
    >>> few_items_note(8, BOOTSTRAP_DESIGNS["items"], unit="documents", caveat="not measured")
    '8 documents resampled (fewer than 20): not measured: read it as rough, and give more documents where a conclusion rests on it'
    >>> few_items_note(8, BOOTSTRAP_DESIGNS["items"], where=" in each of two samples").split(":")[0]
    '8 items resampled (fewer than 20) in each of two samples'
    """
    if (n_items >= FEW_ITEMS or not design.resamples_items or design.resamples_clusters
            or design.resamples_judged):
        return ""
    if not caveat:
        caveat = (f"with so few {unit} the interval covers less often than its level says (simulated 95% "
                  f"intervals of kappa and alpha covered {_measured()} items, 94-98% from {FEW_ITEMS}; "
                  "docs/coverage.md, \"Small studies\")")
    return _few_items_text(f"{n_items} {unit} resampled", unit, caveat, where)


def few_items_analytic_note(n_items: int, unit: str = "items", *, where: str = "") -> str:
    """The note (and :class:`FewUnitsWarning` text) for a delta-method interval over fewer than :data:`FEW_ITEMS`
    items: :func:`few_items_note`'s wording for an interval that resamples nothing.

    Its variance is the spread of the per-item linearised terms of so few items; its coverage there was not
    measured, and the bootstrap's was short (:data:`FEW_ITEMS_COVERAGE`). ``where`` says which sample
    ``n_items`` counts, as for :func:`few_items_note` (``softirr_stats.compare(..., ci="analytic")``).

    Examples
    --------
    >>> few_items_analytic_note(12).split(":")[0]
    '12 items behind the delta-method interval (fewer than 20)'
    >>> few_items_analytic_note(20)
    ''
    """
    if n_items >= FEW_ITEMS:
        return ""
    caveat = (f"its variance is the spread of the per-item terms of so few {unit}, and its coverage there was not "
              f"measured (simulated 95% bootstrap intervals of kappa and alpha covered {_measured()} items, 94-98% "
              f"from {FEW_ITEMS}; docs/coverage.md, \"Small studies\")")
    return _few_items_text(f"{n_items} {unit} behind the delta-method interval", unit, caveat, where)


def few_items_posterior_note(n_items: int, caveat: str, unit: str = "items") -> str:
    """The note (and :class:`FewUnitsWarning` text) for a posterior interval of a model fitted to fewer than
    :data:`FEW_ITEMS` items: :func:`few_items_note`'s wording and threshold for an interval that resamples nothing.

    ``caveat`` says what is known of the model's posterior on so few items (an annotator model's:
    ``inference._data_warnings``).

    Examples
    --------
    >>> few_items_posterior_note(12, "the priors weigh").split(":")[0]
    '12 items behind the posterior interval (fewer than 20)'
    >>> few_items_posterior_note(20, "the priors weigh")
    ''
    """
    if n_items >= FEW_ITEMS:
        return ""
    return _few_items_text(f"{n_items} {unit} behind the posterior interval", unit, caveat, "")


def _measured() -> str:
    """The coverage measured below :data:`FEW_ITEMS` items, for reading (``"51-79% at 5, ..."``)."""
    return ", ".join(f"{lo}-{hi}% at {n}" for n, lo, hi in FEW_ITEMS_COVERAGE)


def _few_items_text(subject: str, unit: str, caveat: str, where: str) -> str:
    """The few-items note's one wording: ``subject (fewer than 20)where: caveat: read it as rough, ...``."""
    more = "rate more items" if unit == "items" else f"give more {unit}"
    return (f"{subject} (fewer than {FEW_ITEMS}){where}: {caveat}: read it as rough, and {more} where a conclusion "
            "rests on it")


def few_units_factor(reps: np.ndarray, design: Any, units: int, level: float, *, n_items: int = 0,
                     rater_jackknife: Callable[[], np.ndarray] | None = None,
                     item_replicates: Callable[[], np.ndarray] | None = None,
                     unit_strata: np.ndarray | None = None) -> float:
    """The widening factor of a bootstrap interval over few units: the one rule of the package.

    Every interval that resamples raters or clusters goes through this function: a coefficient's
    (:func:`few_units_correction`), the difference of two coefficients (``softirr_stats.compare``)
    and any other statistic of weights; each passes its own replicates and, for ``items+raters``, its own
    leave-one-rater-out values and item-only replicates at the same seed.

    Parameters
    ----------
    reps : ndarray
        The bootstrap replicates (non-finite ones are left out).
    design : BootstrapDesign
        What the bootstrap resampled (``resamples_raters``, ``resamples_items``, ``resamples_clusters``).
    units : int
        The number of raters (rater designs) or clusters resampled.
    level : float
        The interval's level (the Student-t quantile's).
    n_items : int
        Items resampled (``items+raters``: the interaction's algebra).
    rater_jackknife, item_replicates : callable, optional
        ``items+raters`` only: the leave-one-rater-out values and the item-only replicates at the same item
        weights, computed on demand. Without the jackknife the whole variance is widened (as for ``raters``).
    unit_strata : int array of shape (units,), optional
        Each unit's stratum, for a design resampled within strata (``cluster`` with ``strata=``): the factor is
        then ``t_d / z * sqrt(U / (U - H))`` (:func:`stratified_few_units`); with one stratum, the rule without.

    Returns
    -------
    float
        ``c = sqrt((v_i + f^2 v_u) / v)`` (module docstring); 1 for designs that resample neither raters nor
        clusters, for fewer than 2 units and for replicates without spread.

    Examples
    --------
    >>> from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS
    >>> reps = np.random.default_rng(0).normal(size=500)
    >>> round(few_units_factor(reps, BOOTSTRAP_DESIGNS["raters"], 5, 0.95), 4)  # t_4 / z * sqrt(5 / 4)
    1.5838
    >>> few_units_factor(reps, BOOTSTRAP_DESIGNS["items"], 5, 0.95)
    1.0
    >>> strata = np.repeat(np.arange(5), 2)  # 10 clusters in 5 strata of 2: t_5 / z * sqrt(10 / 5)
    >>> round(few_units_factor(reps, BOOTSTRAP_DESIGNS["cluster"], 10, 0.95, unit_strata=strata), 4)
    1.8548
    """
    if not (design.resamples_raters or design.resamples_clusters) or units < 2:
        return 1.0
    finite = reps[np.isfinite(reps)]
    v = float(np.var(finite, ddof=1)) if len(finite) > 1 else math.nan
    if not (v > 0):
        return 1.0
    if unit_strata is not None and len(np.unique(unit_strata)) > 1:  # within strata: their df and deflation
        dof, ratio = stratified_few_units(unit_strata)
        if dof >= 1.0:
            return t_factor(units, level, dof=dof) * math.sqrt(ratio)
    f = t_factor(units, level)
    whole = f * math.sqrt(units / (units - 1.0))
    if design.resamples_raters and design.resamples_items:  # items and raters: only the rater share is widened
        v_u = _rater_variance(rater_jackknife) if rater_jackknife is not None else math.nan
        if not math.isfinite(v_u):
            return whole
        v_u = min(v_u, v * units / (units - 1.0))
        v_i = max(v - (units - 1.0) / units * v_u - _interaction_overcount(n_items, units, item_replicates, v, v_u),
                  0.0)
        return float(math.sqrt((v_i + f * f * v_u) / v))
    return whole


def few_units_correction(stat: Statistic, cfg: Bootstrap, reps: np.ndarray, design: Any, *,
                         n_clusters: Callable[[], int] | None = None,
                         rater_jackknife: Callable[[], np.ndarray] | None = None,
                         item_replicates: Callable[[], np.ndarray] | None = None,
                         unit_strata: np.ndarray | None = None, unit: str = "items") -> tuple[float, str]:
    """The widening factor for ``cfg``'s design and a note saying what the interval covers.

    Parameters
    ----------
    stat : Statistic
        The prepared statistic (its raters, items, and for ``items+raters`` its jackknife).
    cfg : Bootstrap
        The request; ``cfg.few_units == "none"`` turns the correction off (the note stays).
    reps : ndarray
        The bootstrap replicates of the value.
    design : BootstrapDesign
        The record of ``cfg.design`` (what it resamples).
    n_clusters, rater_jackknife, item_replicates : callable, optional
        The number of clusters (for a design over clusters), the leave-one-rater-out values and the
        item-only bootstrap replicates at the same seed (for one over items and raters), computed on
        demand by the bootstrap engine that calls this function
        (``uncertainty._bootstrap``), so that this module does not import it.
    unit_strata : int array, optional
        Each counted unit's stratum with ``strata=`` (clusters' for ``cluster``, items' for the item designs;
        ``uncertainty.jackknife_strata`` restricted to the units that can change the value,
        ``uncertainty.informative_units``): the cluster design's factor then accounts for the strata, and an item
        design with small strata gets :func:`small_strata_note`.
    unit : str
        What the counted items are, for :func:`small_strata_note`.

    Returns
    -------
    (factor, note) : tuple of (float, str)
        ``factor >= 1`` from :func:`few_units_factor` (1 for designs that do not resample few units); ``note``
        is empty unless fewer than :data:`FEW_RATERS` raters or :data:`FEW_CLUSTERS` clusters were resampled, or
        an item design's strata are small (:func:`small_strata_note`).

    Examples
    --------
    >>> import softirr_stats as sis
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> from softirr_stats.uncertainty import BOOTSTRAP_DESIGNS, Bootstrap, bootstrap_replicates
    >>> ann = sis.Annotations.from_wide([["a", "a", "b"], ["a", "b", "b"], ["b", "b", "b"], ["a", "a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> cfg = Bootstrap(n=200, design="raters", seed=0)
    >>> reps = bootstrap_replicates(prep, cfg)["value"]
    >>> factor, note = few_units_correction(prep, cfg, reps, BOOTSTRAP_DESIGNS["raters"])
    >>> round(factor, 3), note.startswith("3 raters resampled")
    (2.689, True)
    """
    rec = design
    if rec.resamples_raters:
        units, kind = stat.n_raters, "raters"
    elif rec.resamples_clusters:
        units, kind = n_clusters() if n_clusters is not None else 0, "clusters"
    else:
        return 1.0, small_strata_note(unit_strata, rec, unit)
    strata = unit_strata if rec.resamples_clusters else None
    note = few_units_note(units, kind, cfg.few_units != "none", unit_strata=strata)
    if cfg.few_units == "none":
        return 1.0, note
    return few_units_factor(reps, rec, units, cfg.level, n_items=stat.n_items, rater_jackknife=rater_jackknife,
                            item_replicates=item_replicates, unit_strata=strata), note


def _interaction_overcount(n_items: int, n_raters: int, item_replicates: Callable[[], np.ndarray] | None,
                           v_p: float, v_r: float) -> float:
    """The item x rater interaction the two-way bootstrap's item share counts once too often.

    For a statistic linear in a crossed array (``A``, ``B``, ``E``: the item, rater and interaction parts of
    its variance) the two-way replicates' variance is ``v_p = (n-1)/n A + (R-1)/R B + c E`` with
    ``c = (n-1)/n + (R-1)/R + (n-1)(R-1)/(n R)`` (Owen 2007), the item-only replicates' at the same item
    weights ``v_i = (n-1)/n (A + E)``, and the rater jackknife's ``v_r = B + E``. So
    ``E_hat = n R / ((n-1)(R-1)) (v_p - v_i - (R-1)/R v_r)`` (clipped to ``[0, min(n/(n-1) v_i, v_r)]``), and
    the item share ``v_p - (R-1)/R v_r`` holds ``(n-1)/n (1 + (R-1)/R) E`` that the rater share ``v_r``
    already carries. Returns that amount (0 when it cannot be estimated). Costs one item-only bootstrap
    at the same seed (the same item weights).
    """
    n, r = float(n_items), float(n_raters)
    if n < 2 or r < 2 or item_replicates is None:
        return 0.0
    item = np.asarray(item_replicates(), dtype=np.float64)
    item = item[np.isfinite(item)]
    if len(item) < 2:
        return 0.0
    v_i = float(np.var(item, ddof=1))
    e = n * r / ((n - 1.0) * (r - 1.0)) * (v_p - v_i - (r - 1.0) / r * v_r)
    e = min(max(e, 0.0), n / (n - 1.0) * v_i, v_r)
    return (n - 1.0) / n * (1.0 + (r - 1.0) / r) * e


def widen_interval(lo: float, hi: float, estimate: float, factor: float) -> tuple[float, float]:
    """Scale the distances of ``(lo, hi)`` from ``estimate`` by ``factor``.

    Examples
    --------
    >>> [round(x, 12) for x in widen_interval(0.4, 0.7, 0.6, 2.0)]
    [0.2, 0.8]
    """
    if factor == 1.0 or not (math.isfinite(lo) and math.isfinite(hi) and math.isfinite(estimate)):
        return lo, hi
    return estimate - factor * (estimate - lo), estimate + factor * (hi - estimate)


def check_few_units(value: Any) -> str:
    """Validate ``Bootstrap(few_units=...)``."""
    from softirr_stats.base._validation import check_choice

    check_choice("few_units", value, FEW_UNITS_CHOICES)
    return value
