"""``softirr_stats.compare``: the difference of two agreement statistics, paired where they share items.

Two statistics computed on the same items are correlated (the same items make both high or both
low), so the interval of their difference is not read off the two intervals. Every statistic of
the package is a function of item / rater / chance-pair weights (the ``Statistic`` protocol), so
the difference is bootstrapped by evaluating **both** statistics on **one** batch of weights
drawn once per replicate (docs/comparing.md):

- the items of the two statistics are put in one list (their union) and resampled within the
  strata "in both", "only in a", "only in b" (crossed with the user's strata): the same items
  give the paired bootstrap, disjoint items give two independent bootstraps (two rounds), partly
  overlapping items keep each set's size and pair the shared items;
- raters are resampled the same way when the design resamples raters (the same raters share
  their weights, different raters get independent weights);
- with one stratum (the same items) the weights are exactly those of each input's own interval
  (the same seed, design and counter-based streams), which is checked: the recomputed replicates
  of each statistic are compared with the replicates stored on the input.

``ci="analytic"``: the delta method on the per-item linearised terms of both coefficients
(Gwet's linearisation, :func:`softirr_stats.uncertainty.analytic_terms`): the variance of the
difference is that of the per-item differences of the terms (Gwet 2016, "Testing the difference of
correlated agreement coefficients"; the delta method for correlated kappas of Vanbelle & Albert 2008);
it reproduces Gwet's R package pairedCAC on its documented example. Independent items add the two
variances.
"""

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from softirr_stats.agreement import AgreementResult, DegenerateWarning, Prepared, Statistic
from softirr_stats.base._validation import SoftIRRWarning, user_stacklevel
from softirr_stats.comparison._comparison_result import ComparisonResult
from softirr_stats.uncertainty import (
    BOOTSTRAP_DESIGNS,
    Analytic,
    Bootstrap,
    FewUnitsWarning,
    analytic_terms,
    bca_p_value,
    draw_weights,
    excluded_estimate,
    few_items_analytic_note,
    few_items_note,
    few_units_factor,
    jackknife_strata,
    jackknife_values,
    normal_p,
    per_item_codes,
    percentile_interval,
    replicate_interval,
    resolve_method,
    stratified_few_units,
    unit_weights,
)

__all__ = ["compare", "ComparisonWarning", "statistic_of", "describe", "compare_statistics"]

#: Salts of the bootstrap's rater and chance-pair streams (softirr_stats/uncertainty/_bootstrap.py);
#: the replicate check of :func:`compare` fails loudly if they ever drift apart.
_RATER_STREAM, _CHANCE_STREAM = 2, 3
#: ``method="auto"`` gives the difference of two statistics on at most this many items (each) the jackknife-t
#: interval and test where it would give ``bca-t`` (:func:`_jackknife_t_applies`; docs/comparing.md, "Simulation").
AUTO_DIFFERENCE_MAX_ITEMS = 1000
#: Rows of weights evaluated per batch.
_CHUNK = 256


class ComparisonWarning(SoftIRRWarning):
    """Something about a comparison the reader should know (independent chance draws, fallbacks).

    Examples
    --------
    >>> issubclass(ComparisonWarning, UserWarning)
    True
    """


def statistic_of(result: Any, name: str) -> Statistic:
    """The prepared statistic a result carries (every coefficient function attaches it), or a clear error.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> statistic_of(sis.fleiss_kappa([["a", "a"], ["a", "b"]]), "a").n_items
    2
    >>> statistic_of(0.5, "a")
    Traceback (most recent call last):
    ...
    TypeError: a must be an AgreementResult returned by a softirr_stats coefficient function; got float
    """
    if not isinstance(result, AgreementResult):
        raise TypeError(f"{name} must be an AgreementResult returned by a softirr_stats coefficient function; "
                        f"got {type(result).__name__}")
    stat = result.details.get("statistic")
    if not isinstance(stat, Statistic):
        raise ValueError(f"{name} ({result.coefficient}) carries no prepared statistic to resample: compare() takes "
                         "results of the coefficient functions (sis.fleiss_kappa(...), sis.krippendorff_alpha(...), "
                         "...), not results built by hand or from a posterior")
    return stat


def describe(result: AgreementResult) -> str:
    """A short label: the coefficient, the measure and chance when they are not the defaults, and
    "prediction-powered" for an estimate with judged label pairs (``details["ppi"]``).

    Examples
    --------
    >>> describe(AgreementResult("fleiss_kappa", 0.5, 0.7, 0.4, 10, 3, similarity="indel"))
    'fleiss_kappa (indel)'
    >>> describe(AgreementResult("fleiss_kappa", 0.5, 0.7, 0.4, 10, 3, similarity="indel", details={"ppi": {}}))
    'fleiss_kappa (indel, prediction-powered)'
    """
    extra = [x for x in (result.similarity if result.similarity != "identity" else "",
                         result.chance if result.chance not in ("exact", "", "none") else "",
                         "prediction-powered" if "ppi" in result.details else "") if x]
    return result.coefficient + (f" ({', '.join(extra)})" if extra else "")


@dataclass(frozen=True)
class _Units:
    """The union of the two statistics' items (what the item weights are drawn for)."""

    items: tuple
    n_items: int
    n_raters: int
    n_chance_pairs: int = 0


@dataclass(frozen=True)
class _Layout:
    """How the two statistics' items and raters sit in one resampling frame."""

    union: tuple
    idx_a: np.ndarray
    idx_b: np.ndarray
    item_strata: np.ndarray | None  # on the union; None = one stratum
    raters: tuple
    ridx_a: np.ndarray | None
    ridx_b: np.ndarray | None
    rater_strata: np.ndarray | None
    n_common: int
    same_raters: bool


def _positions(ids: tuple, where: dict) -> np.ndarray:
    return np.fromiter((where[i] for i in ids), dtype=np.int64, count=len(ids))


def _layout(stat_a: Statistic, stat_b: Statistic, need_raters: bool, apart: bool = False) -> _Layout:
    items_a, items_b = _item_ids(stat_a, stat_b, apart)
    set_a = set(items_a)
    union = items_a + tuple(i for i in items_b if i not in set_a)
    where = {it: k for k, it in enumerate(union)}
    idx_a, idx_b = np.arange(len(items_a)), _positions(items_b, where)
    in_a = np.zeros(len(union), bool)
    in_a[idx_a] = True
    in_b = np.zeros(len(union), bool)
    in_b[idx_b] = True
    member = np.where(in_a & in_b, 0, np.where(in_a, 1, 2))
    n_common = int((in_a & in_b).sum())
    item_strata = None if len(np.unique(member)) == 1 else member
    ra, rb = stat_a.rater_ids, stat_b.rater_ids
    raters: tuple = ()
    ridx_a = ridx_b = rstrata = None
    same_raters = ra is not None and rb is not None and set(ra) == set(rb)
    if need_raters:
        if ra is None or rb is None:
            raise ValueError("a design that resamples raters needs the rater ids of both statistics; this statistic "
                             "does not carry them: use design='items', 'cluster' or 'bayesian'")
        set_ra = set(ra)
        raters = ra + tuple(r for r in rb if r not in set_ra)
        rwhere = {r: k for k, r in enumerate(raters)}
        ridx_a, ridx_b = np.arange(len(ra)), _positions(rb, rwhere)
        ia = np.isin(np.arange(len(raters)), ridx_a)
        ib = np.isin(np.arange(len(raters)), ridx_b)
        rmember = np.where(ia & ib, 0, np.where(ia, 1, 2))
        rstrata = None if len(np.unique(rmember)) == 1 else rmember
    return _Layout(union, idx_a, idx_b, item_strata, raters, ridx_a, ridx_b, rstrata, n_common, same_raters)


def _item_ids(stat_a: Statistic, stat_b: Statistic, apart: bool) -> tuple[tuple, tuple]:
    """The two item lists; ``apart``: b's items are other items even where the ids coincide (paired=False)."""
    items_a, items_b = tuple(stat_a.items), tuple(stat_b.items)
    return (items_a, tuple(("b", i) for i in items_b)) if apart else (items_a, items_b)


def _other_seed(seed: int, salt: int) -> int:
    """A seed for an independent stream (the second statistic's own chance pairs or raters)."""
    return int(np.random.SeedSequence([seed, 0x636D70, salt]).generate_state(1, np.uint64)[0] >> np.uint64(1))


def _per_item(values: Any, items_a: tuple, items_b: tuple, union: tuple, name: str) -> dict | None:
    """``cluster=`` / ``strata=`` as a mapping item -> value (a sequence only when both item lists are equal)."""
    if values is None:
        return None
    if isinstance(values, dict):
        missing = [it for it in union if it not in values]
        if missing:
            raise ValueError(f"Bootstrap({name}=...) has no entry for items {missing[:5]}")
        return values
    seq = list(values)
    if items_a != items_b:
        raise ValueError(f"Bootstrap({name}=...) is a sequence aligned with one item list, but the two statistics "
                         f"have different items (or a different order): give {name}= as a mapping item -> value")
    if len(seq) != len(items_a):
        raise ValueError(f"{name} must have one entry per item ({len(items_a)}); got {len(seq)}")
    return dict(zip(items_a, seq, strict=True))


def _union_cfg(cfg: Bootstrap, lay: _Layout, items_a: tuple, items_b: tuple) -> Bootstrap:
    """``cfg`` for the union of the items: user strata crossed with the overlap strata, clusters by item."""
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    cluster = _per_item(cfg.cluster, items_a, items_b, lay.union, "cluster")
    strata = _per_item(cfg.strata, items_a, items_b, lay.union, "strata")
    if lay.item_strata is None and strata is None:
        return replace(cfg, cluster=None if cluster is None else [cluster[i] for i in lay.union], strata=None)
    if not rec.strata:
        raise ValueError(f"the two statistics have different items ({len(items_a)} and {len(items_b)}, "
                         f"{lay.n_common} shared): they are resampled within the strata 'shared', 'only a', 'only b', "
                         f"which design={cfg.design!r} does not allow; use design='items', 'cluster' or 'bayesian'")
    member = lay.item_strata if lay.item_strata is not None else np.zeros(len(lay.union), np.int64)
    user = [strata[i] for i in lay.union] if strata is not None else [""] * len(lay.union)
    combined = [f"{m}|{u}" for m, u in zip(member.tolist(), user, strict=True)]
    if cluster is not None:  # a cluster must sit in one stratum
        seen: dict = {}
        for c, s in zip((cluster[i] for i in lay.union), combined, strict=True):
            if seen.setdefault(c, s) != s:
                raise ValueError(f"cluster {c!r} has items in both statistics and items in only one of them (or in "
                                 "two strata): with partly overlapping items a cluster must be wholly shared or wholly "
                                 "in one statistic")
    return replace(cfg, cluster=None if cluster is None else [cluster[i] for i in lay.union], strata=combined)


#: The overlap strata of the union of the items, as a reader names them.
_MEMBERSHIP = ("shared by a and b", "only in a", "only in b")


def _pool_lone_strata(cfg: Bootstrap, lay: _Layout) -> tuple[Bootstrap, str]:
    """``cfg`` with each overlap stratum of one resampling unit pooled into the largest stratum beside it.

    Splitting partly shared items into the strata "shared", "only in a", "only in b" can leave a
    stratum with one unit (round 2 = round 1 plus one item). One unit cannot be resampled on its
    own (it would be drawn in every replicate, and the difference it makes would look certain), so
    it is resampled with the largest other overlap stratum of the same ``strata=`` value (usually
    the shared items): its sampling variability stays in the interval, and each statistic's size
    varies a little. A stratum of the user's ``strata=`` with one unit over all the items is left to
    the design check (the user's stratum is too small, not the overlap split).

    Examples
    --------
    >>> lay = _Layout((1, 2, 3), np.array([0, 1]), np.array([0, 1, 2]), np.array([0, 0, 2]), (), None, None,
    ...               None, 2, True)
    >>> cfg, note = _pool_lone_strata(Bootstrap(strata=["0|", "0|", "2|"]), lay)
    >>> cfg.strata, note[:62]
    (['0|', '0|', '0|'], '1 item only in b is resampled with the items shared by a and b')
    """
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    if lay.item_strata is None or cfg.strata is None or not rec.resamples_items:
        return cfg, ""
    n = len(lay.union)
    units = per_item_codes(cfg.cluster, lay.union, "cluster") if rec.resamples_clusters else np.arange(n)
    names, code = np.unique(np.asarray(cfg.strata, dtype=str), return_inverse=True)  # by whole arrays
    distinct = np.unique(np.stack([code.ravel(), np.asarray(units).ravel()]), axis=1)  # (stratum, unit) pairs
    size = dict(zip(names.tolist(), np.bincount(distinct[0], minlength=len(names)).tolist(), strict=True))
    user = [s.split("|", 1)[1] for s in size]
    big: dict[str, str] = {}  # the largest overlap stratum of each user stratum
    for s in sorted(size):
        u = s.split("|", 1)[1]
        if u not in big or size[s] > size[big[u]]:
            big[u] = s
    target = {s: big[s.split("|", 1)[1]] for s in sorted(size) if size[s] == 1 and s != big[s.split("|", 1)[1]]}
    if not target:
        return cfg, ""
    unit = "cluster" if rec.resamples_clusters else "item"
    parts = [f"1 {unit} {_MEMBERSHIP[int(s.split('|', 1)[0])]}"
             + (f" (stratum {s.split('|', 1)[1]!r})" if any(user) else "")
             + f" is resampled with the {unit}s {_MEMBERSHIP[int(t.split('|', 1)[0])]}"
             for s, t in target.items()]
    note = ("; ".join(parts) + f" (a stratum of one {unit} cannot be resampled on its own; each statistic's "
            "number of items varies a little between replicates)")
    return replace(cfg, strata=np.asarray([target.get(x, x) for x in size], dtype=object)[code].tolist()), note


def _check_rater_design(stat: Statistic, cfg: Bootstrap, name: str) -> None:
    if BOOTSTRAP_DESIGNS[cfg.design].resamples_raters and not stat.rater_designs:
        why = stat.no_rater_designs
        raise ValueError(f"Bootstrap design {cfg.design!r} is not supported for {name}: {why}; use design='items', "
                         "'cluster' or 'bayesian'")


def paired_replicates(stat_a: Statistic, stat_b: Statistic, cfg: Bootstrap, lay: _Layout,
                      apart: bool = False) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """Replicates of both statistics, each replicate evaluated on one shared draw of weights."""
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    items_a, items_b = _item_ids(stat_a, stat_b, apart)
    judged = rec.resamples_judged
    if judged and not (stat_a.judged_pairs and stat_b.judged_pairs):
        raise ValueError("Bootstrap(design='judged') resamples judged label pairs: both statistics need judgments= "
                         "or judge=")
    if apart and (cfg.cluster is not None or cfg.strata is not None):
        raise ValueError("paired=False does not take cluster= or strata= (the items of b are renamed apart from a's); "
                         "give the two data sets distinct item ids instead")
    ucfg, pooled = (cfg, "") if judged else _pool_lone_strata(_union_cfg(cfg, lay, items_a, items_b), lay)
    units = _Units(lay.union, len(lay.union), max(len(lay.raters), stat_a.n_raters))
    share_w = (stat_a.n_chance_pairs == stat_b.n_chance_pairs and items_a == items_b)
    cfg_b_w = cfg if share_w else replace(cfg, seed=_other_seed(cfg.seed, 1))
    chunk = min(cfg.chunk_size or _CHUNK, cfg.n)
    parts_a, parts_b = [], []
    for b0 in range(0, cfg.n, chunk):
        rows = min(cfg.n, b0 + chunk) - b0
        C = V = None
        if not judged:
            C, _, _ = draw_weights(units, ucfg, b0, b0 + chunk)
        if rec.resamples_raters:
            V = unit_weights(len(lay.raters), cfg, b0, b0 + chunk, strata=lay.rater_strata, stream=_RATER_STREAM)
        Wa = (unit_weights(stat_a.n_chance_pairs, cfg, b0, b0 + chunk, stream=_CHANCE_STREAM)
              if stat_a.n_chance_pairs else None)
        Wb = (unit_weights(stat_b.n_chance_pairs, cfg_b_w, b0, b0 + chunk, stream=_CHANCE_STREAM)
              if stat_b.n_chance_pairs else None)
        Ca = None if C is None else np.ascontiguousarray(C[:, lay.idx_a])
        Cb = None if C is None else np.ascontiguousarray(C[:, lay.idx_b])
        Va = None if V is None else V[:, lay.ridx_a]
        Vb = None if V is None else V[:, lay.ridx_b]
        parts_a.append(np.asarray(stat_a.evaluate(Ca, Va, Wa)["value"], dtype=np.float64)[:rows])
        parts_b.append(np.asarray(stat_b.evaluate(Cb, Vb, Wb)["value"], dtype=np.float64)[:rows])
    info = {"shared_chance_draws": bool(share_w and stat_a.n_chance_pairs),
            # b's own bootstrap drew its chance pairs from cfg's stream: another seed here gives other replicates
            "b_own_chance_draws": bool(share_w or not stat_b.n_chance_pairs),
            "exact_own_weights": lay.item_strata is None and lay.rater_strata is None and cfg.strata is None,
            "pooled_note": pooled}
    return np.concatenate(parts_a), np.concatenate(parts_b), info


def _check_own(result: AgreementResult, reps: np.ndarray, cfg: Bootstrap, name: str) -> str:
    """Whether ``reps`` reproduce the replicates stored on the input (the same weights)."""
    own, req = result.details.get("replicates"), result.details.get("ci_request")
    if own is None or not isinstance(req, Bootstrap):
        return f"{name}: no bootstrap replicates on the input to check against"
    same_request = (req.n, req.seed, req.design, req.cluster, req.strata) == (cfg.n, cfg.seed, cfg.design,
                                                                               cfg.cluster, cfg.strata)
    if not same_request:
        return f"{name}: the input's own interval used another request (seed, n or design); replicates recomputed"
    own = np.asarray(own, dtype=np.float64)
    if own.shape != reps.shape or not np.allclose(own, reps, rtol=1e-9, atol=1e-12, equal_nan=True):
        raise RuntimeError(f"{name}: the replicates recomputed on the shared weights differ from the input's own "
                           "replicates with the same seed and design; please report this")  # pragma: no cover
    return f"{name}: replicates identical to the input's own interval (same weights)"


def _few_units_factor(stat_a: Statistic, stat_b: Statistic, cfg: Bootstrap, lay: _Layout, d: np.ndarray,
                      apart: bool) -> tuple[float, str]:
    """The few-units widening of the difference: the inputs' own rule (``uncertainty.few_units_factor``) applied
    to the difference's replicates ``d``, its leave-one-rater-out values and its item-only replicates at the
    same item weights (``items+raters`` with the same raters; other raters: the whole variance is widened). The
    cluster design counts the clusters that can change the difference (:func:`_moving_clusters`)."""
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    if cfg.few_units == "none" or not (rec.resamples_raters or rec.resamples_clusters):
        return 1.0, ""
    jack = item = strata = None
    if rec.resamples_clusters:  # the clusters that can change the difference, as the inputs count theirs
        keep = _moving_clusters(stat_a, stat_b, cfg, lay)
        units, kind = int(np.count_nonzero(keep)), "clusters"
        strata = _unit_strata(stat_a, stat_b, cfg, lay, apart)
        strata = strata[keep] if strata is not None else None
    else:
        units, kind = min(stat_a.n_raters, stat_b.n_raters), "raters"
        if rec.resamples_items and _jackknife_aligned(cfg, lay):
            def jack() -> np.ndarray:
                return _jackknife_difference(stat_a, stat_b, replace(cfg, design="raters"), lay)

            def item() -> np.ndarray:
                ra, rb, _ = paired_replicates(stat_a, stat_b, replace(cfg, design="items"), lay, apart)
                return ra - rb
    factor = few_units_factor(d, rec, units, cfg.level, n_items=len(lay.union), rater_jackknife=jack,
                              item_replicates=item, unit_strata=strata)
    n_strata = len(np.unique(strata)) if strata is not None else 1
    dof = stratified_few_units(strata)[0] if n_strata > 1 else units - 1.0
    within = f" within {n_strata} strata" if n_strata > 1 else ""
    ratio = (f", and the variance the resampling within strata leaves out: {units} / ({units} - {n_strata})"
             if n_strata > 1 else "")
    # said at any number of units, as the inputs' own intervals say it (a widening is never silent)
    note = (f"{units} {kind} resampled{within}: the difference's interval is widened by the factor {factor:.3f} of "
            f"the inputs' own intervals (Student-t, {dof:.3g} df{ratio})" if factor != 1.0 else "")
    return factor, note


def _interval_units(stat_a: Statistic, stat_b: Statistic, lay: _Layout) -> tuple[int, int]:
    """The items of each of the two samples that can change the difference: its few-items count per sample.

    An item bootstrap of a difference draws each statistic's items (the same ones when paired, each set on its
    own when the items are disjoint, within the strata "shared", "only in a", "only in b" when partly shared),
    and each coefficient's interval rests on its own items. So the units are counted per sample, not over the
    union of the two: an item of a sample counts when it can change a (``Statistic.informative_items``, the
    inputs' own rule, :func:`~softirr_stats.uncertainty.interval_items`) or, shared, can change b. Paired, both
    counts are the shared items that can change either statistic; the few-items note and the Student-t degrees
    of freedom of ``bca-t`` take that count (the smaller of the two otherwise).

    Examples
    --------
    >>> import softirr_stats as sis
    >>> a = statistic_of(sis.fleiss_kappa([["x", "x"], ["x", "y"]] * 6), "a")
    >>> b = statistic_of(sis.fleiss_kappa(sis.Annotations.from_wide([["x", "y"]] * 30, items=range(100, 130))), "b")
    >>> _interval_units(a, b, _layout(a, b, False))  # two independent samples: each its own count
    (12, 30)
    """
    n = len(lay.union)
    in_a, in_b = np.zeros(n, bool), np.zeros(n, bool)
    in_a[lay.idx_a] = True
    in_b[lay.idx_b] = True
    moves = _moving_items(stat_a, stat_b, lay)
    return int(np.count_nonzero(moves & in_a)), int(np.count_nonzero(moves & in_b))


def _moving_items(stat_a: Statistic, stat_b: Statistic, lay: _Layout) -> np.ndarray:
    """Which items of the union can change the difference: those that can change a or b
    (``Statistic.informative_items``; every item of a statistic that names none)."""
    moves = np.zeros(len(lay.union), bool)
    for stat, idx in ((stat_a, lay.idx_a), (stat_b, lay.idx_b)):
        mask = stat.informative_items
        moves[idx] |= np.ones(len(idx), bool) if mask is None else np.asarray(mask, dtype=bool)
    return moves


def _moving_clusters(stat_a: Statistic, stat_b: Statistic, cfg: Bootstrap, lay: _Layout) -> np.ndarray:
    """Which clusters of the union of the items (numbered as the cluster bootstrap numbers them) hold an item that
    can change the difference (:func:`_moving_items`): the units of its few-clusters factor and note and of its
    jackknife, as ``uncertainty.informative_clusters`` counts each input's. A cluster whose items all carry a
    single rating changes neither Krippendorff's alpha nor a difference of two alphas.

    Examples
    --------
    >>> import warnings, softirr_stats as sis
    >>> ann = sis.Annotations.from_wide([["x", "x"], ["x", "y"], ["y", None], ["x", None]])
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     a = statistic_of(sis.krippendorff_alpha(ann), "a")
    >>> _moving_clusters(a, a, Bootstrap(design="cluster", cluster=[0, 1, 2, 2]), _layout(a, a, False)).tolist()
    [True, True, False]
    """
    clusters = _per_item(cfg.cluster, tuple(stat_a.items), tuple(stat_b.items), lay.union, "cluster") or {}
    codes = per_item_codes(clusters, lay.union, "cluster")
    moves = _moving_items(stat_a, stat_b, lay).astype(np.float64)
    return np.bincount(codes, weights=moves, minlength=int(codes.max()) + 1) > 0


def _few_items_of_difference(stat_a: Statistic, stat_b: Statistic, cfg: "Bootstrap | Analytic", lay: _Layout,
                             counts: tuple[int, int]) -> str:
    """The few-items note of the difference: the inputs' own note (:func:`few_items_note`) on the smaller of the
    two samples' counts (:func:`_interval_units`), naming both counts when the items are not all shared; for the
    delta method (``Analytic``) the same note for an interval that resamples nothing
    (:func:`~softirr_stats.uncertainty.few_items_analytic_note`)."""
    n_a, n_b = counts
    units = min(n_a, n_b)
    where = ""
    if lay.n_common < len(lay.union):
        shared = f", {lay.n_common} of them shared" if lay.n_common else ""
        kind = "partly shared" if lay.n_common else "independent"
        which = "each" if n_a == n_b else "the smaller"
        where = (f" in {which} of the two {kind} samples (a: {n_a} {stat_a.unit_name}, b: {n_b}{shared}; each "
                 "coefficient's interval, and so the difference's, rests on its own sample)")
    names = {stat_a.unit_name, stat_b.unit_name}
    unit = names.pop() if len(names) == 1 else "items"
    if isinstance(cfg, Analytic):
        return few_items_analytic_note(units, unit, where=where)
    caveat = "; ".join(dict.fromkeys(c for c in (stat_a.few_items_caveat, stat_b.few_items_caveat) if c))
    return few_items_note(units, BOOTSTRAP_DESIGNS[cfg.design], unit=unit, caveat=caveat, where=where)


def _unit_strata(stat_a: Statistic, stat_b: Statistic, cfg: Bootstrap, lay: _Layout,
                 apart: bool) -> np.ndarray | None:
    """Each resampled unit's stratum on the union of the items (a cluster's for ``cluster``, an item's for the item
    designs; the user's strata crossed with the overlap strata, as the replicates were drawn:
    :func:`paired_replicates`), or None when the units were drawn without strata."""
    if apart:
        return None
    items_a, items_b = _item_ids(stat_a, stat_b, apart)
    ucfg, _ = _pool_lone_strata(_union_cfg(cfg, lay, items_a, items_b), lay)
    return jackknife_strata(_Units(lay.union, len(lay.union), max(len(lay.raters), stat_a.n_raters)), ucfg)


def _bootstrap_p(d: np.ndarray, diff: float, method: str, factor: float, se: float,
                 jack: np.ndarray | None = None, dof: float | None = None) -> tuple[float, str]:
    """Two-sided p-value of H0: difference = 0 that inverts the reported interval (``jack``: the BCa
    jackknife of the difference, for the bca methods; ``dof``: the interval's Student-t df for bca-t, by default
    ``len(jack) - 1``)."""
    d = d[np.isfinite(d)]
    if d.size == 0 or not math.isfinite(diff):
        return math.nan, "none"
    if method in ("bca", "bca-t"):
        if not (se > 0):  # no spread at all: a difference of exactly 0 is no evidence against H0
            return (1.0, "no spread in the replicates of the difference") if diff == 0 else (math.nan, "none")
        # the widened interval diff -+ factor (diff - bound) leaves 0 out where the unwidened one leaves out
        # diff (1 - 1 / factor)
        if method != "bca-t" or jack is None:
            dof = None
        elif dof is None:
            dof = float(len(jack) - 1) if len(jack) > 1 else None
        p = bca_p_value(d, diff, jack, diff * (1.0 - 1.0 / factor), dof) if jack is not None else math.nan
        if math.isfinite(p):
            return p, f"inversion of the {method} interval (bootstrap replicates and the jackknife)"
        return normal_p(diff / se, "two-sided"), "normal approximation z = difference / bootstrap SE"
    t0 = diff * (1.0 - 1.0 / factor) if method == "percentile" else diff * (1.0 + 1.0 / factor)
    lower = (1.0 + float(np.sum(d <= t0))) / (d.size + 1.0)
    upper = (1.0 + float(np.sum(d >= t0))) / (d.size + 1.0)
    return min(1.0, 2.0 * min(lower, upper)), f"inversion of the {method} interval (bootstrap replicates)"


def _jackknife_aligned(cfg: Bootstrap, lay: _Layout) -> bool:
    """Whether leave-one-unit-out values of the two statistics can be aligned (BCa of the difference)."""
    return lay.item_strata is None and (not BOOTSTRAP_DESIGNS[cfg.design].resamples_raters or lay.same_raters)


def _jackknife_difference(stat_a: Statistic, stat_b: Statistic, cfg: Bootstrap, lay: _Layout) -> np.ndarray:
    """Leave-one-unit-out values of the difference (BCa), the units aligned between the two statistics."""
    if lay.item_strata is not None:
        raise ValueError("method='bca' needs both statistics on the same items; use method='percentile' or 'basic'")
    if BOOTSTRAP_DESIGNS[cfg.design].resamples_raters and not lay.same_raters:
        raise ValueError("method='bca' with a rater design needs both statistics on the same raters; use "
                         "method='percentile' or 'basic'")
    ca = _per_item(cfg.cluster, tuple(stat_a.items), tuple(stat_b.items), lay.union, "cluster")
    ja = jackknife_values(stat_a, replace(cfg, cluster=ca))
    jb = jackknife_values(stat_b, replace(cfg, cluster=ca))
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    if rec.resamples_items and not rec.resamples_clusters:  # items, bayesian, items+raters: leave-one-item-out
        order = np.argsort(lay.idx_b)  # b's leave-one-out rows in a's item order
        jb = jb[order]
    elif rec.resamples_raters:
        jb = jb[np.argsort(lay.ridx_b)]
    if rec.resamples_clusters:  # a cluster that cannot change the difference is no unit (as in the inputs' own)
        return (ja - jb)[_moving_clusters(stat_a, stat_b, cfg, lay)]
    return ja - jb


def _jackknife_t_applies(cfg: Bootstrap, lay: _Layout, method: str) -> bool:
    """Whether ``method="auto"`` gives the difference the jackknife-t interval and test.

    Where ``auto`` stands for ``bca-t`` (the item designs, at most ``AUTO_BCA_MAX_UNITS`` items) and the two
    statistics are on the same items (paired) or on disjoint items (independent), without ``strata=``. With
    few items the bootstrap intervals of a difference rejected a true H0 too often (Fleiss' kappa of humans +
    judge A against humans + judge B, equally accurate judges, 2,000 studies per cell: bca-t 9.3-9.8% at 20
    items, 8.6% at 30 with 5 humans, 6.2-6.5% at 50), the jackknife-t 4.0-5.8% at 20-200 items, paired or on
    30 + 30 disjoint items (docs/comparing.md, "The size at few items").
    """
    if cfg.method != "auto" or method != "bca-t" or cfg.strata is not None:
        return False
    if max(len(lay.idx_a), len(lay.idx_b)) > AUTO_DIFFERENCE_MAX_ITEMS:
        return False
    return lay.n_common == 0 or (lay.n_common == len(lay.union) and _jackknife_aligned(cfg, lay))


def _jackknife_t(diff: float, var_a: float, var_b: float | None, dof_a: float, dof_b: float | None,
                level: float) -> tuple[float, float, float, float, float]:
    """The jackknife-t interval and two-sided p-value of a difference: ``diff / se`` against Student's t.

    Paired (``var_b`` None): ``var_a`` is the jackknife variance of the difference and the df are ``dof_a``
    (its items less one). Independent: the two samples' jackknife variances add, with the Welch-Satterthwaite
    df of ``dof_a`` and ``dof_b``.

    Returns
    -------
    (low, high, se, p, dof) : tuple of float
        nan where the SE is undefined; a difference of 0 with an SE of 0 has p = 1.

    Examples
    --------
    >>> [round(x, 4) for x in _jackknife_t(0.1, 0.0025, None, 29.0, None, 0.95)]
    [-0.0023, 0.2023, 0.05, 0.0549, 29.0]
    >>> [round(x, 4) for x in _jackknife_t(0.1, 0.0016, 0.0009, 29.0, 29.0, 0.95)]
    [-0.0003, 0.2003, 0.05, 0.0506, 53.7834]
    """
    from scipy.special import stdtr, stdtrit

    if var_b is None:
        var, dof = var_a, dof_a
    else:
        var = var_a + var_b
        den = var_a**2 / dof_a + var_b**2 / dof_b if dof_a > 0 and dof_b is not None and dof_b > 0 else 0.0
        dof = var**2 / den if den > 0 else math.nan
    se = math.sqrt(var) if math.isfinite(var) and var >= 0 else math.nan
    if se == 0.0 and diff == 0.0:
        return 0.0, 0.0, 0.0, 1.0, dof
    if not (se > 0 and math.isfinite(dof) and dof > 0):
        return math.nan, math.nan, se, math.nan, dof
    h = float(stdtrit(dof, 0.5 + level / 2.0)) * se
    return diff - h, diff + h, se, float(2.0 * stdtr(dof, -abs(diff / se))), dof


def _jackknife_variance(jack: np.ndarray) -> tuple[float, int]:
    """The jackknife variance ``(m - 1) / m * sum (J_i - mean J)^2`` of the finite leave-one-out values, and m.

    Examples
    --------
    >>> _jackknife_variance(np.array([1.0, 2.0, 3.0, np.nan]))
    (1.3333333333333333, 3)
    """
    j = jack[np.isfinite(jack)]
    m = len(j)
    if m < 2:
        return math.nan, m
    return float((m - 1.0) / m * np.sum((j - j.mean()) ** 2)), m


def _jackknife_t_of_difference(stat_a: Statistic, stat_b: Statistic, cfg: Bootstrap, lay: _Layout, diff: float,
                               counts: tuple[int, int], jackknife: Any) -> dict[str, Any]:
    """The jackknife-t interval and test of the difference (:func:`_jackknife_t`), with its rule and test texts.

    Paired: the leave-one-item-out values of the difference (``jackknife()``, the ones BCa uses), Student's t
    with the items that can change it less one (``counts``, as ``bca-t``). Independent items: each statistic's
    own leave-one-item-out values; the two variances add (Welch-Satterthwaite df).
    """
    if lay.n_common == len(lay.union):
        var, m = _jackknife_variance(jackknife())
        var_b, dof_a, dof_b = None, counts[0] - 1.0, None
        kind = f"the jackknife SE of the paired difference ({m} items left out in turn), Student's t"
    else:
        var, m_a = _jackknife_variance(jackknife_values(stat_a, cfg))
        var_b, m_b = _jackknife_variance(jackknife_values(stat_b, cfg))
        dof_a, dof_b = counts[0] - 1.0, counts[1] - 1.0
        kind = (f"the two samples' jackknife variances added ({m_a} and {m_b} items left out in turn), Student's "
                "t with Welch-Satterthwaite df")
    low, high, se, p, dof = _jackknife_t(diff, var, var_b, dof_a, dof_b, cfg.level)
    dof_text = f"{dof:.3g} df" if math.isfinite(dof) else "no df"
    return {"low": low, "high": high, "se": se, "p": p, "dof": dof,
            "rule": (f"method='auto': jackknife-t, {dof_text} ({cfg.design} design, {min(counts)} <= "
                     f"{AUTO_DIFFERENCE_MAX_ITEMS} items: the difference over its jackknife SE, which held the size "
                     "of the test where the bootstrap intervals of a difference did not)"),
            "test": f"Student t on {kind} ({dof_text})",
            "why_not": ("no jackknife SE of the difference (fewer than 2 defined leave-one-out values, or no spread "
                        "with a difference that is not 0): the bootstrap interval is given")}


def _ratio(va: Any, vb: Any) -> Any:
    va, vb = np.asarray(va, dtype=np.float64), np.asarray(vb, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((va > 0) & (vb > 0), va / np.where(vb > 0, vb, 1.0), np.nan)


def _bootstrap_compare(a: AgreementResult, b: AgreementResult, stat_a: Statistic, stat_b: Statistic,
                       cfg: Bootstrap, labels: tuple[str, str], apart: bool = False) -> ComparisonResult:
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    _check_rater_design(stat_a, cfg, "a")
    _check_rater_design(stat_b, cfg, "b")
    lay = _layout(stat_a, stat_b, rec.resamples_raters, apart)
    ra, rb, info = paired_replicates(stat_a, stat_b, cfg, lay, apart)
    notes: list[str] = [info["pooled_note"]] if info["pooled_note"] else []
    rules: list[str] = []  # what method="auto" stood for: information, not a warning (as on AgreementResult)
    checks = []
    if info["exact_own_weights"]:
        checks = [_check_own(a, ra, cfg, "a"), _check_own(b, rb, cfg, "b") if info["b_own_chance_draws"] else
                  "b: its sampled chance pairs were drawn from a stream of their own (they differ in number from a's); "
                  "replicates recomputed"]
    if stat_a.n_chance_pairs or stat_b.n_chance_pairs:
        notes.append("sampled chance pairs / judged draws resampled " + (
            "with one shared stream (the same number of draws on the same items)" if info["shared_chance_draws"]
            else "independently for the two statistics: their sampling errors are treated as independent (exact "
                 "chance, or one plan of judged pairs for both, pairs them)"))
        if not info["shared_chance_draws"]:  # the note's own words: a list of both says it once
            warnings.warn(notes[-1], ComparisonWarning, stacklevel=4)
    diff = a.value - b.value
    d = ra - rb
    finite = np.isfinite(d)
    n_nan = int((~finite).sum())
    if n_nan:
        notes.append(f"{n_nan} of {cfg.n} replicates of the difference were undefined (nan) and left out")
    se = float(np.std(d[finite], ddof=1)) if finite.sum() > 1 else math.nan
    counts = _interval_units(stat_a, stat_b, lay)
    # items resampled one by one: the inputs' units (items that can change a value), per sample (the smaller)
    by_item = rec.resamples_items and not rec.resamples_clusters and not rec.resamples_judged
    n_units = min(counts) if by_item else len(lay.union)
    method, why = resolve_method(cfg.method, cfg.design, n_units)  # "auto": the inputs' own rule
    jack: list[np.ndarray] = []  # the jackknife, computed once for the interval and its test

    def jackknife() -> np.ndarray:
        if not jack:
            jack.append(_jackknife_difference(stat_a, stat_b, cfg, lay))
        return jack[0]

    jk = _jackknife_t_of_difference(stat_a, stat_b, cfg, lay, diff, counts, jackknife) \
        if _jackknife_t_applies(cfg, lay, method) else None
    if jk is not None and not math.isfinite(jk["p"]):  # no jackknife SE: the bootstrap's rule, and why
        notes.append(jk["why_not"])
        jk = None
    if jk is not None:
        method, why = "jackknife-t", jk["rule"]
    elif method.startswith("bca") and cfg.method == "auto" and not _jackknife_aligned(cfg, lay):
        method, why = "percentile", ("method='auto': percentile (BCa's jackknife needs both statistics on the "
                                     "same items, and on the same raters for a rater design)")
    if why:
        rules.append(why)
    strata = None
    rule: dict[str, Any] = {}
    if jk is not None:  # few items: the difference over its jackknife SE against Student's t
        lo, hi, note = jk["low"], jk["high"], ""
        rule["t_dof"] = jk["dof"]
    else:
        # the coefficients' interval rule (bca-t: Student's t with one df fewer than the jackknife's units, or the
        # stratified jackknife's Satterthwaite df with strata=; same items only)
        strata = _unit_strata(stat_a, stat_b, cfg, lay, apart) if _jackknife_aligned(cfg, lay) else None
        unit_mask = None
        if strata is not None and by_item:  # the strata count the items that can change the difference, as the
            moves = _moving_items(stat_a, stat_b, lay)  # inputs' do
            if not moves.all():
                strata, unit_mask = strata[moves], moves
        elif strata is not None and rec.resamples_clusters:  # and the clusters (the jackknife leaves the others out)
            strata = strata[_moving_clusters(stat_a, stat_b, cfg, lay)]
        lo, hi, method, note, rule = replicate_interval(d, diff, replace(cfg, method=method), jackknife, n_units,
                                                        unit_strata=strata, n_units_given=by_item,
                                                        unit_mask=unit_mask)
    if strata is not None and "t_dof" in rule and rules:  # as the inputs' rule says it
        rules[-1] = rules[-1].replace(f"{n_units - 1} df", f"{rule['t_dof']:.3g} df (Satterthwaite, "
                                      f"{len(np.unique(strata))} strata)")
    if note:
        notes.append(note)
    factor, few_note = _few_units_factor(stat_a, stat_b, cfg, lay, d, apart)
    if factor != 1.0 and math.isfinite(lo) and math.isfinite(hi):
        lo, hi = diff - factor * (diff - lo), diff + factor * (hi - diff)
        se *= factor
    if few_note:
        notes.append(few_note)
    items_note = _few_items_of_difference(stat_a, stat_b, cfg, lay, counts)
    if items_note:  # warned as the inputs' own (one text per cause: paired, it is theirs word for word)
        notes.append(items_note)
        warnings.warn(items_note, FewUnitsWarning, stacklevel=user_stacklevel())
    excluded = excluded_estimate(diff, lo, hi, d, what="difference")
    if excluded:  # the coefficients' own check, on the difference: its interval and test are not to be read
        notes.append(excluded)
        warnings.warn(f"compare({labels[0]}, {labels[1]}): {excluded}", DegenerateWarning, stacklevel=3)
    if jk is not None:
        se, p, test = jk["se"], jk["p"], jk["test"]
    else:
        p, test = _bootstrap_p(d, diff, method, factor, se, jack[0] if jack else None, rule.get("t_dof"))
    paired = lay.n_common > 0
    kind = "paired" if lay.n_common == len(lay.union) else ("independent" if not paired else "partly paired")
    rr = _ratio(ra, rb)
    ratio = float(_ratio(a.value, b.value))
    r_lo, r_hi = percentile_interval(rr, cfg.level) if np.isfinite(rr).sum() > 1 else (math.nan, math.nan)
    details = {"replicates": d, "replicates_a": ra, "replicates_b": rb, "n_replicates": cfg.n, "test": test,
               "seed": cfg.seed, "ratio_ci_low": r_lo, "ratio_ci_high": r_hi, "weights_check": tuple(checks),
               "few_units_factor": factor, "kind": kind, "interval_items": counts}
    if "t_dof" in rule:
        details["t_dof"] = rule["t_dof"]
    if rules:
        details["interval_rule"] = "; ".join(rules)
    if jk is not None:  # the bootstrap's SE of the difference, beside the jackknife's the test uses
        details["bootstrap_se"] = float(np.std(d[finite], ddof=1)) if finite.sum() > 1 else math.nan
    label = f"{kind} jackknife-t" if jk is not None else f"{kind} bootstrap-{method}"
    return ComparisonResult(labels[0], labels[1], float(a.value), float(b.value), float(diff), ratio, float(lo),
                            float(hi), se, cfg.level, p, label, cfg.design, paired,
                            len(stat_a.items), len(stat_b.items), lay.n_common,
                            tuple(notes), details)


def _terms_centered(stat: Statistic, name: str) -> tuple[np.ndarray, np.ndarray, bool]:
    """Per-item linearised terms (centred), on the statistic's items, and the mask of items they cover."""
    if not isinstance(stat, Prepared):
        raise ValueError(f"ci='analytic' needs per-item linearised terms, which {name} ({type(stat).__name__}) does "
                         "not have; use ci=softirr_stats.Bootstrap(...)")
    terms = analytic_terms(stat)
    r_i = np.asarray(stat.layout.r_i)
    mask = r_i >= 1
    if len(terms.phi) != int(mask.sum()):
        mask = r_i >= 2
    if len(terms.phi) != int(mask.sum()):  # pragma: no cover - consistency guard
        raise ValueError(f"the linearised terms of {name} cover an unknown item set; use a bootstrap")
    # Krippendorff's terms linearise alpha' (no small-sample term); alpha = (1 - eps) alpha' + eps with eps
    # fixed by the design, so the terms of alpha are scaled by 1 - eps = (1 - alpha) / (1 - alpha')
    # (Gwet's pairedCAC does the same); 1 for every other coefficient
    scale = (1.0 - terms.coef) / (1.0 - terms.center) if terms.coef != terms.center and terms.center != 1.0 else 1.0
    full = np.zeros(len(r_i))
    full[mask] = scale * (terms.phi - terms.center)
    return full, mask, terms.complete_two_raters


def _paired_term_differences(pa: np.ndarray, ma: np.ndarray, pb: np.ndarray,
                             mb: np.ndarray) -> tuple[np.ndarray, int]:
    """Per-item differences of two statistics' centred terms on the items either covers, and their number.

    An item one statistic's terms do not cover (too few ratings in it) does not move that statistic: its
    term there is 0. The terms of a statistic average to it over the items they cover, so on the ``m``
    items of the union they are scaled by ``m / covered`` (the same influence per unit of item weight);
    with the same coverage this is the plain difference of the terms.

    Examples
    --------
    >>> dd, m = _paired_term_differences(np.array([0.2, -0.2, 0.0]), np.array([True, True, False]),
    ...                                  np.array([0.1, -0.2, 0.1]), np.array([True, True, True]))
    >>> dd.round(3).tolist(), m
    ([0.2, -0.1, -0.1], 3)
    """
    both = ma | mb
    m = int(both.sum())
    ka, kb = int(ma.sum()), int(mb.sum())
    sa = m / ka if ka else 0.0
    sb = m / kb if kb else 0.0
    return (sa * np.where(ma, pa, 0.0) - sb * np.where(mb, pb, 0.0))[both], m


def _analytic_compare(a: AgreementResult, b: AgreementResult, stat_a: Statistic, stat_b: Statistic,
                      cfg: Analytic, labels: tuple[str, str], apart: bool = False) -> ComparisonResult:
    from scipy.special import stdtr, stdtrit

    items_a, items_b = _item_ids(stat_a, stat_b, apart)
    common = set(items_a) & set(items_b)
    diff = a.value - b.value
    paired = set(items_a) == set(items_b)
    if not (math.isfinite(a.value) and math.isfinite(b.value)):  # no linearised terms of an undefined coefficient
        said = f"{labels[0] if not math.isfinite(a.value) else labels[1]} is undefined: no analytic interval"
        warnings.warn(f"compare({labels[0]}, {labels[1]}): {said}", DegenerateWarning, stacklevel=user_stacklevel())
        return ComparisonResult(labels[0], labels[1], float(a.value), float(b.value), float(diff),
                                float(_ratio(a.value, b.value)), math.nan, math.nan, math.nan, cfg.level, math.nan,
                                f"{'paired' if paired else 'independent'} delta method", "analytic", paired,
                                len(items_a), len(items_b), len(common), (said,),
                                {"test": "none (a coefficient is undefined)", "kind": "paired" if paired else
                                 "independent"})
    if cfg.population is not None and cfg.population < max(len(items_a), len(items_b)):
        raise ValueError(f"population must be >= the number of rated items ({max(len(items_a), len(items_b))}); "
                         f"got {cfg.population}")
    pa, ma, two_a = _terms_centered(stat_a, "a")
    pb, mb, two_b = _terms_centered(stat_b, "b")
    form = cfg.form if cfg.form != "auto" else ("table" if two_a and two_b else "raw")
    notes: list[str] = []
    if set(items_a) == set(items_b):
        where = {it: k for k, it in enumerate(items_a)}
        order = _positions(items_b, where)
        pa_b, ma_b = np.zeros_like(pa), np.zeros_like(ma)
        pa_b[order], ma_b[order] = pb, mb
        dd, m = _paired_term_differences(pa, ma, pa_b, ma_b)
        if not np.array_equal(ma, ma_b):
            notes.append(f"the linearised terms of a cover {int(ma.sum())} items and those of b {int(ma_b.sum())} "
                         f"(an item with too few ratings in a statistic does not move it); the per-item differences "
                         f"are taken over the {m} items either covers")
        f = 0.0 if cfg.population is None else m / cfg.population
        div = m * (m - 1.0) if form == "raw" else float(m) * m
        se = math.sqrt(max(0.0, (1.0 - f) * float(np.sum(dd * dd)) / div)) if m >= 2 else math.nan
        df = float(m - 1)
        kind, paired, n_terms = "paired", True, m
    elif not common:
        def var(p: np.ndarray, mask: np.ndarray) -> tuple[float, int]:
            m = int(mask.sum())
            div = m * (m - 1.0) if form == "raw" else float(m) * m
            f = 0.0 if cfg.population is None else m / cfg.population  # each sample's finite-population factor
            return ((1.0 - f) * float(np.sum(p[mask] ** 2)) / div if m >= 2 else math.nan), m
        va, m_a = var(pa, ma)
        vb, m_b = var(pb, mb)
        se = math.sqrt(va + vb)
        df = (va + vb) ** 2 / (va**2 / max(m_a - 1, 1) + vb**2 / max(m_b - 1, 1)) if va + vb > 0 else math.nan
        kind, paired, n_terms = "independent", False, min(m_a, m_b)
        notes.append(f"independent items: the two variances add (Welch-Satterthwaite df = {df:.1f})")
    else:
        raise ValueError(f"the two statistics share {len(common)} of their {len(items_a)} and {len(items_b)} items: "
                         "the analytic comparison needs the same items (paired) or disjoint items (independent); "
                         "use ci=softirr_stats.Bootstrap(...), which resamples the shared and the other items in "
                         "their own strata")
    test = f"Student t on the delta-method SE ({df:.3g} df)"
    if math.isfinite(se) and se > 0 and math.isfinite(df):
        h = float(stdtrit(df, 0.5 + cfg.level / 2.0)) * se
        lo, hi = diff - h, diff + h
        p = float(2.0 * stdtr(df, -abs(diff / se)))
    elif se == 0.0 and diff == 0.0:  # as the bootstrap's: no spread and no difference is no evidence against H0
        lo = hi = 0.0
        p, test = 1.0, ("no spread in the per-item terms of the difference (the same statistic twice, or two that "
                        "move together item by item): variance 0")
    else:
        lo = hi = p = math.nan
        said = _no_analytic_se(se, diff, n_terms, kind)
        notes.append(said)
        test = "none (no delta-method variance)"
        warnings.warn(f"compare({labels[0]}, {labels[1]}): {said}", DegenerateWarning, stacklevel=user_stacklevel())
    # few items: the bootstrap comparison's note and count (per sample, the items that can change the difference)
    lay = _layout(stat_a, stat_b, False, apart)
    counts = _interval_units(stat_a, stat_b, lay)
    items_note = _few_items_of_difference(stat_a, stat_b, cfg, lay, counts) if math.isfinite(lo) else ""
    if items_note:
        notes.append(items_note)
        warnings.warn(items_note, FewUnitsWarning, stacklevel=user_stacklevel())
    details = {"test": test, "analytic_form": form, "analytic_df": df, "kind": kind, "interval_items": counts}
    return ComparisonResult(labels[0], labels[1], float(a.value), float(b.value), float(diff),
                            float(_ratio(a.value, b.value)), lo, hi, se, cfg.level, p, f"{kind} delta method",
                            "analytic", paired, len(items_a), len(items_b), len(common), tuple(notes), details)


def _no_analytic_se(se: float, diff: float, n_items: int, kind: str = "paired") -> str:
    """Why the delta-method interval and test of a difference are undefined (nan): too few items, or a variance of
    0 under a difference that is not 0 (``kind``: ``"paired"`` or ``"independent"`` items).

    Examples
    --------
    >>> _no_analytic_se(float("nan"), 0.1, 1)
    'no analytic interval or p-value: the delta-method variance of the difference needs at least 2 items with linearised terms; got 1'
    """
    if n_items < 2 or not math.isfinite(se):
        where = " in each of the two independent samples" if kind == "independent" else ""
        return ("no analytic interval or p-value: the delta-method variance of the difference needs at least 2 items "
                f"with linearised terms{where}; got {n_items}")
    return (f"no analytic interval or p-value: the delta-method variance of the difference is 0 (its per-item terms "
            f"are all 0) while the difference is {diff:.6g}; use ci=softirr_stats.Bootstrap(...)")


def _same_data(stat_a: Statistic, stat_b: Statistic) -> bool:
    """The same items and the same raters (raters unknown to both statistics, e.g. span F1: items decide)."""
    ra, rb = stat_a.rater_ids, stat_b.rater_ids
    same_raters = (ra is None and rb is None) or (ra is not None and rb is not None and set(ra) == set(rb))
    return set(stat_a.items) == set(stat_b.items) and same_raters


def _resolve_ci(a: AgreementResult, b: AgreementResult, ci: Any) -> "Bootstrap | Analytic":
    if ci is not None:
        if isinstance(ci, str) and ci == "analytic":
            return Analytic()
        if isinstance(ci, Bootstrap | Analytic):
            return ci
        raise ValueError(f"ci must be None (the inputs' own interval request), 'analytic', "
                         f"softirr_stats.Analytic(...) or softirr_stats.Bootstrap(...); got {ci!r}")
    ra, rb = a.details.get("ci_request"), b.details.get("ci_request")
    if ra is None and rb is None:
        return Bootstrap()
    if ra is None or rb is None or ra != rb:
        raise ValueError(f"a and b were computed with different intervals ({ra!r} and {rb!r}); pass ci= to compare() "
                         "to compare them on one (e.g. ci=softirr_stats.Bootstrap(n=2000, seed=0))")
    return ra


def compare_statistics(a: AgreementResult, b: AgreementResult, stat_a: Statistic, stat_b: Statistic, cfg: Any,
                       labels: tuple[str, str], apart: bool = False) -> ComparisonResult:
    """The comparison of two prepared statistics under one validated interval request (the engine of :func:`compare`)."""
    if isinstance(cfg, Analytic):
        return _analytic_compare(a, b, stat_a, stat_b, cfg, labels, apart)
    return _bootstrap_compare(a, b, stat_a, stat_b, cfg, labels, apart)


def compare(a: AgreementResult, b: AgreementResult, *, ci: Any = None, paired: bool | None = None,
            labels: tuple[str, str] | None = None) -> ComparisonResult:
    """Compare two agreement statistics: their difference with an interval, SE and a test of equality.

    Paired when the two were computed on the same items (two measures, chance baselines or
    coefficients on the same annotations; two rater groups on the same items): both statistics
    are evaluated on **one** draw of bootstrap weights per replicate, so the correlation their
    shared items induce is in the interval. Independent when the items are disjoint (two
    rounds): each set of items is resampled on its own. Partly overlapping items are resampled
    within the strata "shared", "only in a", "only in b", which keeps each set's size and pairs
    the shared items. Never judge a difference by whether two intervals overlap: that ignores
    the correlation of paired statistics and is conservative even for independent ones.

    Parameters
    ----------
    a, b : AgreementResult
        Results of the coefficient functions (``sis.krippendorff_alpha(...)``, ...; soft,
        prediction-powered, multi-label and cross-replication statistics included).
    ci : None, "analytic", Analytic or Bootstrap
        None: the interval request both inputs were computed with (they must agree; a plain
        ``Bootstrap()`` when neither has one). A ``Bootstrap`` takes any design the two statistics
        allow (items, raters, items+raters, cluster, bayesian, strata, judged). With ``method="auto"``
        and the items or bayesian design on at most 1,000 items, the same or disjoint items and no
        ``strata=``, the interval and test are the jackknife-t (the difference over its jackknife SE,
        Student's t), which held the test's size at 20-50 items where the bootstrap intervals of a
        difference did not (docs/comparing.md, "Simulation"). ``"analytic"``:
        the delta method on both coefficients' per-item linearised terms (same or disjoint items).
    paired : bool, optional
        None (default): items are matched by their ids (``ann.items``). False: the two statistics'
        items are different items even where their ids coincide (two rounds read from wide tables
        both number their rows 0, 1, ...). True: require the same items (an error otherwise).
    labels : (str, str), optional
        Names of the two statistics in tables (default: coefficient and measure).

    Returns
    -------
    ComparisonResult
        ``value_a``, ``value_b``, ``difference = value_a - value_b``, ``ratio``, ``ci_low``,
        ``ci_high``, ``se``, ``p_value`` (two-sided, H0: equal), ``method``, ``design``, ``paired``
        and the item counts; with a bootstrap, ``details["replicates_a"]`` / ``["replicates_b"]`` and
        ``details["weights_check"]`` (each input's own replicates reproduced from the shared weights).

    Raises
    ------
    TypeError
        When ``a`` or ``b`` is not an AgreementResult of a coefficient function.
    ValueError
        When the two statistics are on different data (other items or raters) and are not the
        same coefficient with the same measure and chance (the difference would mix the two);
        when the inputs' interval requests differ and ``ci`` is not given; for an analytic
        comparison on partly overlapping items or of a statistic without linearised terms.

    Examples
    --------
    Two measures on the same annotations (paired):

    >>> import softirr_stats as sis
    >>> rows = [["fever", "pyrexia"], ["cough", "cough"], ["rash", "fever"], ["cough", "tussis"],
    ...         ["fever", "fever"], ["rash", "rash"]] * 5
    >>> B = sis.Bootstrap(n=500, seed=1)
    >>> cmp = sis.compare(sis.fleiss_kappa(rows, similarity="indel", ci=B), sis.fleiss_kappa(rows, ci=B))
    >>> cmp.paired, round(cmp.difference, 4), bool(cmp.ci_low <= cmp.difference <= cmp.ci_high)
    (True, 0.0367, True)
    >>> print(cmp.details["weights_check"][0])
    a: replicates identical to the input's own interval (same weights)
    """
    if paired is not None and not isinstance(paired, bool | np.bool_):
        raise TypeError(f"paired must be True, False or None (decided from the items); got {paired!r}")
    paired = None if paired is None else bool(paired)
    if labels is not None and (isinstance(labels, str) or not isinstance(labels, Sequence) or len(labels) != 2):
        raise TypeError(f"labels must be a pair of names (label of a, label of b); got {labels!r}")
    stat_a, stat_b = statistic_of(a, "a"), statistic_of(b, "b")
    if paired is True and set(stat_a.items) != set(stat_b.items):
        in_a, in_b = set(stat_a.items), set(stat_b.items)  # once: per item, the message took quadratic time
        only_a = [i for i in stat_a.items if i not in in_b]
        only_b = [i for i in stat_b.items if i not in in_a]
        raise ValueError(f"paired=True needs the two statistics on the same items; {len(only_a)} items are only in a "
                         f"(e.g. {only_a[:3]}) and {len(only_b)} only in b (e.g. {only_b[:3]})")
    apart = paired is False
    if apart or not _same_data(stat_a, stat_b):
        key_a, key_b = (a.coefficient, a.similarity, a.chance), (b.coefficient, b.similarity, b.chance)
        if key_a != key_b:
            raise ValueError(
                f"mismatched coefficients: a is {describe(a)} and b is {describe(b)} on different data (other items "
                "or raters); a difference between data sets must use the same coefficient, measure and chance, else it "
                "mixes the two changes. Compare two statistics on the same annotations, or the same statistic on two "
                "data sets")
        _check_categories(a, stat_a, stat_b)
        _check_category_weights(a, stat_a, stat_b)
    vocabulary_note = _no_shared_labels(stat_a, stat_b) if apart or not _same_data(stat_a, stat_b) else ""
    cfg = _resolve_ci(a, b, ci)
    row_note = _row_number_pairing(stat_a.items, stat_b.items) if paired is None else ""
    if row_note:
        warnings.warn(f"compare: {row_note}", SoftIRRWarning, stacklevel=user_stacklevel())
    names = labels if labels is not None else (describe(a), describe(b))
    if names[0] == names[1]:
        names = (f"{names[0]} [a]", f"{names[1]} [b]")
    out = compare_statistics(a, b, stat_a, stat_b, cfg, (str(names[0]), str(names[1])), apart)
    added = tuple(x for x in (row_note, vocabulary_note) if x)
    return replace(out, warnings=(*out.warnings, *added)) if added else out


def _check_categories(a: AgreementResult, stat_a: Statistic, stat_b: Statistic) -> None:
    """Refuse two data sets whose coefficient depends on the number of categories q (``Statistic.chance_categories``:
    AC1 / AC2, Brennan-Prediger) and whose q differ: their difference would be mostly the change of q.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> a = sis.brennan_prediger([["x", "x"], ["x", "y"]], categories=["x", "y"])
    >>> b = sis.brennan_prediger([["x", "x"], ["y", "y"]], categories=["x", "y", "z"])
    >>> _check_categories(a, statistic_of(a, "a"), statistic_of(b, "b"))
    Traceback (most recent call last):
    ...
    ValueError: mismatched categories: brennan_prediger's chance term depends on the number of categories q, and a has q = 2 while b has q = 3 on different data (other items or raters): the difference would be mostly the change of q. Declare the same categories for both (in Python: categories=[...] on both coefficients or Annotations; on the command line: --categories A,B,C)
    """
    qa, qb = stat_a.chance_categories, stat_b.chance_categories
    if qa is None or qb is None or qa == qb:
        return
    raise ValueError(f"mismatched categories: {a.coefficient}'s chance term depends on the number of categories q, and "
                     f"a has q = {qa} while b has q = {qb} on different data (other items or raters): the difference "
                     "would be mostly the change of q. Declare the same categories for both (in Python: "
                     "categories=[...] on both coefficients or Annotations; on the command line: --categories A,B,C)")


def _check_category_weights(a: AgreementResult, stat_a: Statistic, stat_b: Statistic) -> None:
    """Refuse two data sets whose named weights (linear, ordinal, ...; ``Statistic.category_weights``) are built on
    category lists that weigh their shared labels differently where the coefficient reads them
    (``agreement.weights_clash``): positions shifted by a missing category, or a value range that AC2,
    Brennan-Prediger or percent agreement read. The difference would mix the change of weights with the change
    of agreement. Kappa and alpha on two ranges of one value scale are compared (a common scale of the distances
    cancels in them).

    Examples
    --------
    >>> import softirr_stats as sis
    >>> a = sis.gwet_ac1([[0, 0], [0, 1], [1, 1]], categories=[0, 1, 2], weights="linear")
    >>> b = sis.gwet_ac1([[0, 0], [1, 1], [0, 5]], categories=[0, 1, 5], weights="linear")
    >>> _check_category_weights(a, statistic_of(a, "a"), statistic_of(b, "b"))
    Traceback (most recent call last):
    ...
    ValueError: mismatched categories: gwet_ac2's linear weights are built on the categories, a's [0, 1, 2] and b's [0, 1, 5] on different data (other items or raters), and they weigh 0 and 1 0.5 in a and 0.8 in b: the difference would mix the change of weights with the change of agreement. Declare the same categories for both (in Python: categories=[...] on both coefficients or Annotations; on the command line: --categories A,B,C)
    """
    from softirr_stats.agreement import weights_clash

    wa, wb = stat_a.category_weights, stat_b.category_weights
    if wa is None or wb is None:
        return
    clash = weights_clash(wa, wb)
    if not clash:
        return
    raise ValueError(f"mismatched categories: {a.coefficient}'s {wa.name} weights are built on the categories, a's "
                     f"{_listed(wa.categories)} and b's {_listed(wb.categories)} on different data (other items or "
                     f"raters), and {clash}: the difference would mix the change of weights with the change of "
                     "agreement. Declare the same categories for both (in Python: categories=[...] on both "
                     "coefficients or Annotations; on the command line: --categories A,B,C)")


def _listed(categories: tuple, most: int = 12) -> str:
    """A category list as Python writes it, cut after ``most`` entries.

    Examples
    --------
    >>> _listed((1, 2, 3)), _listed(tuple(range(20)), most=3)
    ('[1, 2, 3]', '[0, 1, 2, ... 17 more]')
    """
    shown = ", ".join(map(repr, categories[:most]))
    return f"[{shown}, ... {len(categories) - most} more]" if len(categories) > most else f"[{shown}]"


def _no_shared_labels(stat_a: Statistic, stat_b: Statistic) -> str:
    """A note where two data sets' ratings share no label (``Statistic.rating_labels``; "" otherwise, or where unknown):
    two vocabularies (a/b/c against 0/1/2) may name the same categories differently.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> a = statistic_of(sis.fleiss_kappa([["a", "b"], ["c", "c"]]), "a")
    >>> b = statistic_of(sis.fleiss_kappa([[0, 1], [2, 2]]), "b")
    >>> _no_shared_labels(a, b)[:80]
    "no shared labels: a's ratings use 'a', 'b', 'c' and b's 0, 1, 2, none in common;"
    >>> _no_shared_labels(a, a)
    ''
    """
    la, lb = stat_a.rating_labels, stat_b.rating_labels
    if not la or not lb or set(la) & set(lb):
        return ""

    def listed(labels: tuple) -> str:
        return ", ".join(map(repr, labels[:5])) + (f" and {len(labels) - 5} more" if len(labels) > 5 else "")

    return (f"no shared labels: a's ratings use {listed(la)} and b's {listed(lb)}, none in common; the difference is "
            "of agreement on two different label sets. If they name the same categories, recode one data set so that "
            "a category has one label in both")


def _row_number_pairing(items_a: Any, items_b: Any) -> str:
    """What to say where two tables' items are their row numbers (no ids) and their lengths differ: they pair by
    row position on the rows they share, which is rarely what two differently sized tables mean.

    Examples
    --------
    >>> _row_number_pairing(range(80), range(100))[:59]
    'both tables name their items by row number (0-79 and 0-99),'
    >>> _row_number_pairing(range(80), range(80)), _row_number_pairing(["d1", "d2"], range(3))
    ('', '')
    """
    a, b = tuple(items_a), tuple(items_b)
    if len(a) == len(b) or a != tuple(range(len(a))) or b != tuple(range(len(b))):
        return ""
    return (f"both tables name their items by row number (0-{len(a) - 1} and 0-{len(b) - 1}), so they are paired "
            f"by position on the {min(len(a), len(b))} rows they share; if row k is not the same item in both, pass "
            "paired=False (independent samples), or give the rows their item ids (a DataFrame index, item=)")
