"""Prepare a coefficient once, then evaluate it for any batch of item/rater weights.

``prepare`` does everything that does not depend on the weights (encode pairs, score the
within-item pairs, build the chance operator or sample the chance pairs); ``evaluate``
runs the vmapped kernels over a batch of weights (chunked to bound memory). Point
estimates, every bootstrap design and the jackknife go through ``evaluate``.
"""

from __future__ import annotations

import logging
import math
import time
import warnings
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import Any, ClassVar

import numpy as np

from softirr_stats.agreement._category_weights import WEIGHTS_READ, CategoryWeights
from softirr_stats.agreement._chance import (
    DEFAULT_MAX_EXACT_PAIRS,
    BlockedQuad,
    DenseQuad,
    IdentityQuad,
    MonteCarlo,
    SampledPairs,
    make_quad,
    resolve_chance,
)
from softirr_stats.agreement._cost import (
    AUTO_BUDGET_SECONDS,
    ScoringCost,
    bar_callback,
    exact_chance_cost,
    scoring_progress,
    warn_long_labels,
    warn_slow_exact,
)
from softirr_stats.agreement._families import (
    ChanceFamily,
    Indicator,
    ItemBasics,
    count_labels,
    get_family,
    pair_sums_from_counts,
    rater_pair_groups,
)
from softirr_stats.agreement._kernels import Dims, FinishContext, KernelData
from softirr_stats.agreement._layout import RatingLayout, rating_layout
from softirr_stats.agreement._statistic import Statistic
from softirr_stats.agreement._weights import WEIGHT_NAMES
from softirr_stats.base._batching import check_memory, rows_per_chunk
from softirr_stats.base._device import current_device
from softirr_stats.base._jax import jit, lazy_module, x64
from softirr_stats.base._validation import SoftIRRWarning, user_stacklevel
from softirr_stats.data import Annotations
from softirr_stats.equivalence import LabelSimilarity, MatrixSimilarity

__all__ = ["Prepared", "prepare", "evaluate", "DegenerateWarning"]

jax = lazy_module("jax")  # imported at first use: small matrix-product evaluations run in NumPy
jnp = lazy_module("jax.numpy")

class DegenerateWarning(SoftIRRWarning):
    """A coefficient is undefined for these data (e.g. expected agreement is 1).

    Examples
    --------
    >>> import warnings, softirr_stats as sis
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = sis.fleiss_kappa([["a", "a"], ["a", "a"]])
    >>> any(issubclass(w.category, DegenerateWarning) for w in caught), r.value
    (True, nan)
    """


@dataclass
class ChancePairs:
    """Sampled chance pairs (rating indices) with their similarity and group (rater pair)."""

    item_a: np.ndarray
    item_b: np.ndarray
    group: np.ndarray  # rater-pair group for Cohen/Conger (0 otherwise)
    group_rv: np.ndarray  # (n_groups, 2) rater indices of each group (Conger)
    s: np.ndarray
    n_groups: int
    label: str
    permutation: np.ndarray | None = None  # Monte Carlo: permutation id of each pair


def bucket(x: int, minimum: int = 8) -> int:
    """Round up to 4 sizes per octave (<= 25% padding), so compiled kernels are reused across data sets.

    >>> [bucket(v) for v in (1, 9, 100, 1000)]
    [8, 10, 112, 1024]
    """
    x = max(int(x), minimum)
    p = 1 << (x - 1).bit_length()  # next power of two
    for frac in (5 / 8, 6 / 8, 7 / 8, 1.0):
        if p * frac >= x:
            return int(p * frac)
    return p  # pragma: no cover


@dataclass
class Padded:
    """Kernel inputs padded to bucketed sizes (padding entries carry zero weight)."""

    kd: KernelData
    n: int  # items incl. one dummy item that absorbs padded pairs / ratings
    nr: int
    ks: int
    n_groups: int


def _pad(x: np.ndarray, size: int, fill: float | int) -> np.ndarray:
    out = np.full(size, fill, dtype=x.dtype)
    out[: len(x)] = x
    return out


def _padded(kd: KernelData, n: int, nr: int, ks: int, n_groups: int) -> Padded:
    # generous minimum sizes: every small data set shares one compiled kernel per family
    n_p, nr_p, ks_p, g_p = bucket(n + 1, 64), bucket(nr, 4), bucket(ks, 8), bucket(n_groups, 8)
    p_p, m_p = bucket(len(kd.pair_item), 128), bucket(len(kd.rating_item), 128)
    dummy = n_p - 1
    arr = {k: np.asarray(v) for k, v in kd._asdict().items()}
    pk = KernelData(
        pair_item=_pad(arr["pair_item"], p_p, dummy), pair_ra=_pad(arr["pair_ra"], p_p, 0),
        pair_rb=_pad(arr["pair_rb"], p_p, 0), pair_sa=_pad(arr["pair_sa"], p_p, 0),
        pair_sb=_pad(arr["pair_sb"], p_p, 0), pair_s=_pad(arr["pair_s"], p_p, 0.0),
        pair_group=_pad(arr["pair_group"], p_p, 0),
        rating_item=_pad(arr["rating_item"], m_p, dummy), rating_rater=_pad(arr["rating_rater"], m_p, 0),
        rating_s=_pad(arr["rating_s"], m_p, 0),
    )
    return Padded(kd=pk, n=n_p, nr=nr_p, ks=ks_p, n_groups=g_p)


@dataclass
class Prepared(Statistic):
    """A coefficient prepared once for any batch of item / rater weights (the Statistic protocol).

    Made by :func:`prepare`; :func:`evaluate` (or ``.evaluate(C, V, W)``) computes it for
    batches of weights.

    Attributes
    ----------
    ann : Annotations
    layout : RatingLayout
        The rating list (the within-item pair list is built on first use); ``design`` is its old name.
    sim : LabelSimilarity
    family : ChanceFamily
    support : ndarray
        Vocabulary codes that occur.
    rating_s : ndarray
        Support code of each rating.
    quad : Any
        The chance quadratic form (family-specific).
    chance_label : str
        How chance is computed (``"exact"``, ``"monte_carlo(D=3)"``, ...).
    chance_pairs : ChancePairs or None
        Sampled chance pairs, when chance is sampled.
    q_categories : int
        Number of declared categories (AC1, Brennan-Prediger).
    total_weight : float
        Sum of pair weights at unit weights.
    notes : list of str
        Notes for the result's warnings.
    padded : Padded or None
        Shapes padded for the compile cache.
    n_scored : int
        Label pairs newly scored for this coefficient (while preparing, and when the pair list is built).

    The within-item pair list and the kernel data built on it (``kd``, ``n_groups``) are made
    on first use: the matrix-product path with unit rater weights (point estimates, item
    bootstraps, analytic intervals) reads per-item pair sums from label counts instead
    (:meth:`item_pair_sums`) wherever the similarity over the support is known.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> type(prep).__name__, prep.n_items, prep.n_raters, prep.chance_label
    ('Prepared', 4, 2, 'exact')
    """

    ann: Annotations
    layout: RatingLayout
    sim: LabelSimilarity
    family: ChanceFamily
    support: np.ndarray
    quad: Any
    chance_label: str
    chance_pairs: ChancePairs | None
    q_categories: int
    total_weight: float
    notes: list[str] = field(default_factory=list)
    padded: Padded | None = None
    n_scored: int = 0  # label pairs newly scored (counts returned by the similarity)
    #: evaluate() takes item weights as JAX arrays on the device (Bootstrap(generator="jax"))
    device_weights: ClassVar[bool] = True

    @cached_property
    def _pair_data(self) -> tuple[KernelData, int]:
        d, sim = self.layout, self.sim
        remap = np.full(d.n_codes, -1, dtype=np.int64)
        remap[self.support] = np.arange(len(self.support))
        within = sim.pairs(d.pair_ca, d.pair_cb)
        self.n_scored += within.n_scored  # this object's own tally (the similarity returns the count)
        pair_s = within.values
        gid = d.pair_ra.astype(np.int64) * d.n_raters + d.pair_rb
        present_g = np.bincount(gid, minlength=d.n_raters * d.n_raters) > 0  # O(P), no sort
        group_of = np.cumsum(present_g) - 1
        kd = KernelData(  # numpy here; evaluate() moves the padded copy to the device once
            pair_item=d.pair_item, pair_ra=d.pair_ra, pair_rb=d.pair_rb,
            pair_sa=remap[d.pair_ca].astype(np.int32), pair_sb=remap[d.pair_cb].astype(np.int32),
            pair_s=np.asarray(pair_s, dtype=np.float64),
            pair_group=group_of[gid].astype(np.int32),
            rating_item=d.rating_item, rating_rater=d.rating_rater, rating_s=self.rating_s,
        )
        return kd, int(present_g.sum())

    @property
    def kd(self) -> KernelData:
        """Kernel data: the within-item pair list (scored) and the rating list (built on first use)."""
        return self._pair_data[0]

    @property
    def n_groups(self) -> int:
        """Rater pairs that share an item (from the pair list where it is built, else :attr:`rater_pairs`)."""
        if "_pair_data" in self.__dict__:
            return self._pair_data[1]
        return self.rater_pairs[1]

    @cached_property
    def rater_pairs(self) -> tuple[np.ndarray, int]:
        """Rater pairs that share an item, numbered as the pair list's ``pair_group`` (see
        :func:`~softirr_stats.agreement._families.rater_pair_groups`; no pair list)."""
        d = self.layout
        return rater_pair_groups(d.rating_item, d.rating_rater, d.n_items, d.n_raters)

    @property
    def similarity_known(self) -> bool:
        """Whether the similarity over the support is known without scoring a pair: identity, a
        given matrix, or the dense matrix of an exact chance term (scored already)."""
        return bool(self.sim.is_identity or self.sim.is_matrix or isinstance(self.quad, DenseQuad))

    def _support_similarity(self) -> np.ndarray | None:
        """S over the support (None: identity); only where :attr:`similarity_known`."""
        if self.sim.is_identity:
            return None
        if isinstance(self.quad, DenseQuad):
            return np.asarray(self.quad.S, dtype=np.float64)
        return np.asarray(self.sim.block(self.support, self.support).values, dtype=np.float64)

    @cached_property
    def rating_s(self) -> np.ndarray:
        """(M,) support code of each rating (int32; built on first use)."""
        d = self.layout
        if len(self.support) == d.n_codes:  # every code occurs: the support code is the code
            return d.rating_code.astype(np.int32, copy=False)
        remap = np.full(d.n_codes, -1, dtype=np.int32)
        remap[self.support] = np.arange(len(self.support), dtype=np.int32)
        return remap[d.rating_code]

    @cached_property
    def label_counts(self) -> np.ndarray | Indicator:
        """Per-item label counts over the support (n x ks): dense, or its non-zeros (an
        :class:`~softirr_stats.agreement._families.Indicator` with values) where the dense table
        would exceed ``_COUNT_MAX_ENTRIES``; made once (see :meth:`count_table`)."""
        return self.count_table(_COUNT_MAX_ENTRIES)

    def count_table(self, max_dense: int) -> np.ndarray | Indicator:
        """:attr:`label_counts` once made; else the dense table (one ``bincount`` over the rating
        list) up to ``max_dense`` entries, and beyond it the non-zeros straight from the wide code
        table (:attr:`RatingLayout.count_runs`, cached with the layout on the annotations: no rating
        list, no items x labels table; sorted by item, then label)."""
        made = self.__dict__.get("label_counts")
        if made is not None:
            return made
        n, ks, d = self.n, self.ks, self.layout
        if n * ks <= max_dense and d.ratings_built:  # the rating list exists: one bincount over it
            return count_labels(d.rating_item, self.rating_s, n, ks)
        rows, code, counts = d.count_runs
        if ks != d.n_codes:  # to support codes (a code that occurs is in the support)
            remap = np.full(d.n_codes, -1, dtype=np.int64)
            remap[self.support] = np.arange(ks)
            code = remap[code]
        if n * ks <= max_dense:
            dense = np.zeros((n, ks), dtype=np.int64)
            dense[rows, code] = counts  # exact: counts are small integers
            return dense
        return Indicator(rows=rows, cols=code, n=n, width=ks, values=counts, unique=True)

    def item_pair_sums(self) -> tuple[np.ndarray, np.ndarray]:
        """Per item: the sum of within-item pair similarities and the number of pairs (unit
        rater weights), from per-item label counts where the similarity over the support is
        known and that is cheaper (see :func:`count_route`), else from the pair list."""
        cached = self.__dict__.get("_item_pair_sums")
        if cached is not None:
            return cached
        d = self.layout
        r = d.r_i.astype(np.float64)
        count = r * (r - 1.0) / 2.0
        S: np.ndarray | None | bool = False
        if self.similarity_known and count_route(d, self.ks, self.sim.is_identity):
            S = self._support_similarity()
            if S is not None and not np.array_equal(S, S.T):  # the count form sums S over unordered pairs
                S = False
        if S is not False:
            total = pair_sums_from_counts(self.label_counts, S)
        else:
            total = np.bincount(self.kd.pair_item, weights=self.kd.pair_s, minlength=d.n_items)
        out = (total, count)
        self.__dict__["_item_pair_sums"] = out
        return out

    @property
    def n(self) -> int:
        return self.layout.n_items

    @property
    def nr(self) -> int:
        return self.layout.n_raters

    @property
    def ks(self) -> int:
        return len(self.support)

    @property
    def n_pairs_scored(self) -> int:
        """Label pairs newly scored for these data: while preparing, plus a streamed chance pass so far."""
        return int(self.n_scored + getattr(self.quad, "n_scored", 0))

    # --- the statistic protocol of the uncertainty layer (softirr_stats.uncertainty.Statistic)
    rater_designs = True  # raters may be resampled

    @property
    def supports_analytic(self) -> bool:
        """Whether ``ci="analytic"`` applies: the family record has linearised terms."""
        return self.family.supports_analytic

    @property
    def no_analytic(self) -> str:
        """Why there is no analytic variance ('' where there is one)."""
        return "" if self.supports_analytic else self.family.no_analytic

    @property
    def items(self) -> tuple:
        return self.ann.items

    @property
    def n_items(self) -> int:
        return self.n

    @property
    def n_raters(self) -> int:
        return self.nr

    @property
    def informative_items(self) -> np.ndarray:  # type: ignore[override]
        """Items that can change the coefficient: two ratings or more, or one where the family's chance term
        counts single ratings (``ChanceFamily.single_ratings``); an item without a rating never can."""
        return self.layout.r_i >= (1 if self.family.single_ratings else 2)

    @property
    def uninformative_items_are(self) -> str:  # type: ignore[override]
        return "items with a single rating or none" if not self.family.single_ratings else "items with no rating"

    @property
    def rater_ids(self) -> tuple:
        return tuple(self.ann.raters)

    @property
    def chance_categories(self) -> int | None:  # type: ignore[override]
        """q, where the family's chance term is fixed by the declared categories (AC1, Brennan-Prediger)."""
        return self.q_categories if self.family.chance == "categories" else None

    @property
    def category_weights(self) -> CategoryWeights | None:  # type: ignore[override]
        """Named weights over the categories they were built on (``ann.vocabulary``: the declared categories, else
        the observed labels), where the family reads them (:data:`WEIGHTS_READ`); None for exact matching, a
        measure or a matrix given as such."""
        sim, reads = self.sim, WEIGHTS_READ.get(self.family.chance)
        if reads is None or not isinstance(sim, MatrixSimilarity) or sim.name not in WEIGHT_NAMES:
            return None
        return CategoryWeights(sim.name, tuple(self.ann.vocabulary), sim.matrix, reads)

    @property
    def rating_labels(self) -> tuple:  # type: ignore[override]
        """The labels the ratings use (the vocabulary's entries at the support codes)."""
        return tuple(np.asarray(self.ann.vocabulary, dtype=object)[np.asarray(self.support, dtype=np.int64)].tolist())

    @property
    def n_chance_pairs(self) -> int:
        return 0 if self.chance_pairs is None else len(self.chance_pairs.s)

    def evaluate(self, C: Any = None, V: Any = None, W: Any = None) -> dict[str, np.ndarray]:
        """The coefficient for a batch of item / rater / chance-pair weights (see :func:`evaluate`)."""
        return evaluate(self, C, V, chance_weights=W)

    def leave_units_out(self, units: np.ndarray | None = None) -> dict[str, np.ndarray] | None:
        """Leave-one-unit-out outputs from the per-item features (see :func:`leave_units_out`), or None."""
        return leave_units_out(self, units)


#: Label counts (items x support labels) the count route may hold, and how many multiply-adds
#: (items x labels^2, one matrix product) it may spend per within-item pair it replaces.
_COUNT_MAX_ENTRIES = 40_000_000
_COUNT_MADDS_PER_PAIR = 256  # measured: ~0.3 ns per multiply-add, ~100 ns per pair-list entry


def count_route(d: RatingLayout, ks: int, identity: bool) -> bool:
    """Whether per-item pair sums come from label counts (True) or from the pair list.

    The count table is dense up to ``_COUNT_MAX_ENTRIES`` entries and sparse (its non-zeros,
    at most one per rating) beyond. Identity similarity: always (``O(M)``). A similarity
    matrix over ``ks`` labels: when the ``n ks^2`` multiply-adds of ``N S`` (in blocks of
    items) cost less than the pair list they replace.
    """
    n = d.n_items
    return identity or n * ks * ks <= _COUNT_MADDS_PER_PAIR * max(d.n_pairs, 1)


def _exact_pairs_needed(sim: LabelSimilarity, ks: int) -> int:
    if sim.is_identity or sim.is_matrix or sim.vectorised_matrix:
        return 0  # nothing to score, or a vectorised matrix path (rapidfuzz cdist, embeddings)
    return ks * (ks - 1) // 2


def sim_is_scored(sim: LabelSimilarity) -> bool:
    """Whether the similarity calls an estimator (not identity, not a given matrix)."""
    return not (sim.is_identity or sim.is_matrix)


def _choose_auto(sim: LabelSimilarity, support: np.ndarray, uses_chance: bool, max_exact_pairs: int,
                 cost: ScoringCost | None) -> tuple[Any, list[str]]:
    """``chance="auto"``: exact within the pair limit and the time budget, else SampledPairs."""
    if not uses_chance:
        return "exact", []
    ks = len(support)
    need = _exact_pairs_needed(sim, ks)
    seconds = cost.seconds if cost is not None else 0.0
    if need <= max_exact_pairs and seconds <= AUTO_BUDGET_SECONDS:
        how = "scored one by one" if need else "vectorised or already known"
        est = f", estimated {cost.describe_time()}" if cost is not None and cost.n_probed else ""
        return "exact", [f"chance='auto' chose exact over {ks} labels ({ks * (ks - 1) // 2} label pairs, {how}{est})"]
    why = (f"exact would score {need} label pairs (limit {max_exact_pairs})" if need > max_exact_pairs
           else f"exact would score {cost.describe()} (budget {AUTO_BUDGET_SECONDS:g} s)")  # type: ignore[union-attr]
    return SampledPairs(n=20_000), [f"chance='auto' chose SampledPairs(n=20000): {why}; chance_se "
                                    "reports the sampling error of the chance term"]


def prepare(ann: Annotations, family: str | ChanceFamily, sim: LabelSimilarity, *, chance: Any = "exact",
            max_exact_pairs: int = DEFAULT_MAX_EXACT_PAIRS, progress: bool | None = None) -> Prepared:
    """Everything a coefficient needs that does not depend on the weights.

    ``family`` is a :class:`~softirr_stats.agreement._families.ChanceFamily` or its name. Before
    an exact chance pass with a scored similarity its cost is estimated from a timed probe (see
    :mod:`softirr_stats.agreement._cost`); ``progress`` shows a bar for a long pass (None: on a
    terminal only).

    Parameters
    ----------
    ann : Annotations
    family : str or ChanceFamily
        The coefficient's chance family.
    sim : LabelSimilarity
        The resolved similarity.
    chance : "exact", MonteCarlo or SampledPairs
        How chance agreement is computed.
    max_exact_pairs : int
        Largest number of label pairs exact chance scores before ``chance="auto"`` samples.
    progress : bool, optional
        Progress bar for a long exact pass (None: on a terminal only).

    Returns
    -------
    Prepared

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"]])
    >>> prep = prepare(ann, "pooled", resolve_similarity(ann))
    >>> evaluate(prep)["value"].round(4).tolist()
    [0.3333]
    """
    family = get_family(family)
    chance = resolve_chance(chance)
    t0 = time.perf_counter()
    d = rating_layout(ann)
    if not d.pairable.any():
        one = (f"; the annotations have a single rater ({ann.raters[0]!r}): agreement needs two or more (a "
               "single-rater replication is compared with another by cross_kappa)") if ann.n_raters == 1 else ""
        raise ValueError(f"no item has two or more ratings: agreement is undefined (no pairable item){one}")
    support = d.support
    notes: list[str] = []
    uses_chance = family.chance == "support"
    cost = None
    n_scored = 0  # summed from the counts the similarity returns
    if sim_is_scored(sim):
        warn_long_labels(ann.vocabulary, support, sim)
        if uses_chance and not isinstance(chance, MonteCarlo | SampledPairs):
            cost, n_scored = exact_chance_cost(sim, support)
    if chance == "auto":
        chance, auto_note = _choose_auto(sim, support, uses_chance, max_exact_pairs, cost)
        notes += auto_note
    chance_pairs = None
    quad = None
    label = "exact"
    if isinstance(chance, MonteCarlo | SampledPairs):
        if family.sampler is None:
            raise ValueError(f"chance={chance!r} is available for Scott/Fleiss, Cohen/Conger and alpha; "
                             f"this coefficient ({family.name}) needs chance='exact'")
        n_draw = chance.n if isinstance(chance, SampledPairs) else chance.permutations * d.n_ratings
        check_memory(float(n_draw) * _BYTES_PER_CHANCE_PAIR, f"chance={chance!r} ({n_draw} chance pairs)",
                     "Use fewer pairs (SampledPairs(n=20_000) reports the chance term's standard error, "
                     "usually well below the items' sampling error) or chance='exact'.")
        a, b, g, groups, perm = family.sampler(d, chance)
        scored = sim.pairs(d.rating_code[a], d.rating_code[b])
        n_scored += scored.n_scored
        chance_pairs = ChancePairs(d.rating_item[a], d.rating_item[b], g, groups, scored.values,
                                   n_groups=len(groups), label=chance.label, permutation=perm)
        label = chance.label
    elif uses_chance:
        if cost is not None:
            warn_slow_exact(cost)
        with scoring_progress(cost or ScoringCost(0, 0.0, 0), progress):
            quad, n_quad = make_quad(sim, support, bar_callback())
        n_scored += n_quad
        if isinstance(quad, BlockedQuad):  # scores lazily, block by block, when evaluated
            quad.cost, quad.progress = cost, progress
    q_cat = len(ann.vocabulary)
    total = 0.0
    if family.chance == "categories":
        tot = sim.total()
        total, n_scored = float(tot.values), n_scored + tot.n_scored
        if ann.kind == "set":  # no category set is declared for sets (categories= is refused on them)
            notes.append(f"q = {q_cat} categories taken from the observed labels: the distinct label sets")
        elif ann.categories is None:
            notes.append(f"q = {q_cat} categories taken from the observed labels; declaring the full category "
                         "set fixes q (on the command line: --categories A,B,C; in Python: "
                         "Annotations(..., categories=[...]))")
    prep = Prepared(ann=ann, layout=d, sim=sim, family=family, support=support, quad=quad, chance_label=label,
                    chance_pairs=chance_pairs, q_categories=q_cat, total_weight=total, notes=notes,
                    n_scored=n_scored)
    if not prep.similarity_known:  # a scored similarity without a dense operator: score the
        _ = prep.kd  # within-item pairs now, as part of preparing (as before the pair list was lazy)
    _log.info("chance term of %s (%s chance, %s): %d label pairs scored, %.2f s", family.name,
              family.chance, label, n_scored, time.perf_counter() - t0)
    return prep


_log = logging.getLogger(__name__)  # under "softirr_stats": `softirr -v` shows its INFO lines

#: Bytes per sampled chance pair while drawing and scoring them (indices, groups, scores, temporaries).
_BYTES_PER_CHANCE_PAIR = 96


def _vmapped_stage1(family: ChanceFamily, kd: KernelData, C: jax.Array, V: jax.Array, dims: Dims) -> dict[str, jax.Array]:
    """vmap of the family's stage 1 over the leading axis of whichever of C (B, n) / V (B, R) is 2-D.

    Weights that do not vary (1-D) are not batched, so everything that depends only on
    them (e.g. per-item observed agreement in the item bootstrap) is computed once.
    """
    fn = partial(family.kernel("stage1"), kd, dims=dims)
    return jax.vmap(lambda c, v: fn(c, v), in_axes=(0 if C.ndim == 2 else None, 0 if V.ndim == 2 else None))(C, V)


@partial(jit, static_argnames=("family", "dims"))
def _stage1_batch(kd: KernelData, C: jax.Array, V: jax.Array, *, family: ChanceFamily, dims: Dims) -> dict[str, jax.Array]:
    return _vmapped_stage1(family, kd, C, V, dims)


def _finish(prep: Prepared, s1: dict[str, jax.Array], C: jax.Array, W: jax.Array | None) -> dict[str, jax.Array]:
    ctx = FinishContext(quad=prep.quad, chance_pairs=prep.chance_pairs, q_categories=prep.q_categories,
                        total_weight=prep.total_weight, ordered=weights_as_given(prep))
    return prep.family.kernel("finish")(s1, C, W, ctx)


def _quad_jax(S: jax.Array | None, p: jax.Array, q: jax.Array) -> jax.Array:
    """``p^T S q`` over the (padded) support; S None = identity."""
    if S is None:
        return jnp.sum(p * q, axis=-1)
    k = S.shape[0]
    return jnp.einsum("...k,kl,...l->...", p[..., :k], S, q[..., :k])


@partial(jit, static_argnames=("family", "dims", "q_categories", "total_weight"))
def _evaluate_fused(kd: KernelData, C: jax.Array, V: jax.Array, S: jax.Array | None, *, family: ChanceFamily,
                    dims: Dims, q_categories: int, total_weight: float) -> dict[str, jax.Array]:
    """Stage 1 and the exact chance term in one compiled program (dense or identity S)."""
    s1 = _vmapped_stage1(family, kd, C, V, dims)
    ctx = FinishContext(quad=partial(_quad_jax, S), chance_pairs=None, q_categories=q_categories,
                        total_weight=total_weight)
    return family.kernel("finish")(s1, C, None, ctx)


def _auto_chunk(prep: Prepared, vary_c: bool, vary_v: bool, width: int | None = None) -> int:
    """Replicates per chunk; ``width`` = features per replicate of the matrix-product path."""
    per = prep.n if vary_c else 0
    if vary_v:
        per += 3 * prep.layout.n_pairs + 2 * prep.layout.n_ratings
    else:
        per += 2 * prep.layout.n_ratings
    per += prep.family.width(prep.ks, prep.nr, prep.n_groups) if width is None else width
    if prep.chance_pairs is not None:
        per += 3 * len(prep.chance_pairs.s)
    return rows_per_chunk(per)


def evaluate(prep: Prepared, C: Any = None, V: Any = None, *, chance_weights: Any = None,
             chunk_size: int | None = None) -> dict[str, np.ndarray]:
    """Evaluate the prepared coefficient for a batch of weights.

    Parameters
    ----------
    C : array (B, n_items) of item weights, (n_items,) for fixed weights, or None (ones).
    V : array (B, n_raters) of rater weights, (n_raters,) for fixed weights, or None (ones).
    chance_weights : array (B, n_chance_pairs), optional
        Resampling weights of sampled chance pairs (bootstrap of the chance term).
    chunk_size : int, optional
        Replicates per vmapped chunk; by default :func:`softirr_stats.base._batching.rows_per_chunk`.

    Returns
    -------
    dict
        float64 arrays of shape (B,): ``value``, ``pa``, ``pe``.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> evaluate(prep, np.array([[1.0, 1, 1, 1], [2, 0, 1, 1]]))["value"].round(4).tolist()
    [0.4667, 1.0]
    """
    # item weights drawn on JAX's device (Bootstrap(generator="jax")) stay there for JAX's product;
    # every other route reads them in host memory
    on_device = C is not None and _is_jax_array(C)
    C = np.ones(prep.n) if C is None else C if on_device else np.asarray(C, dtype=np.float64)
    V = np.ones(prep.nr) if V is None else np.asarray(V, dtype=np.float64)
    if C.shape[-1] != prep.n or V.shape[-1] != prep.nr:
        raise ValueError(f"weights must have {prep.n} items / {prep.nr} raters; got shapes {C.shape}, {V.shape}")
    if C.ndim == 1 and V.ndim == 1:
        C = C[None, :]
    vary_c, vary_v = C.ndim == 2, V.ndim == 2
    b = C.shape[0] if vary_c else V.shape[0]
    if vary_c and vary_v and C.shape[0] != V.shape[0]:
        raise ValueError(f"C and V must have the same number of replicates; got {C.shape[0]} and {V.shape[0]}")
    ordered = weights_as_given(prep)  # asymmetric weights as given: the segment kernels' ordered chance term
    fused = not ordered and prep.chance_pairs is None and (
        prep.quad is None or isinstance(prep.quad, IdentityQuad | DenseQuad))
    gemm = _gemm_features(prep) if (vary_c and not vary_v and np.all(V == 1.0) and not ordered) else None
    width = None if gemm is None else sum(blk.shape[1] for blk in gemm.values())
    chunk = chunk_size or _auto_chunk(prep, vary_c, vary_v, width)
    if gemm is not None:
        if prep.chance_pairs is None and (b == 1 or b * _gemm_cost(gemm) <= _NUMPY_MAX_MADDS):
            with np.errstate(divide="ignore", invalid="ignore"):  # undefined values are nan, as in JAX
                return _evaluate_gemm(prep, _on_host(C), gemm, chance_weights, chunk, np)
        sparse_fits = prep.chance_pairs is None and _gemm_cost(gemm) <= _GEMM_SPARSE_MAX_NNZ
        if (b == 1 or prep.n * width <= _GEMM_MAX_ENTRIES) and not (sparse_fits and products_on_host()):
            with x64():  # F side by side on the device (a GPU; or a sampled chance term)
                return _evaluate_gemm(prep, C, gemm, chance_weights, chunk, jnp)
        C = _on_host(C)
        if sparse_fits:  # large, or JAX on the CPU only: F sparse in host memory, one pass per chunk
            # a weight row and its transposed copy; item-major weights (the bootstrap's) need no copy
            sparse_chunk = chunk_size or (b if C.T.flags.c_contiguous else rows_per_chunk(2 * prep.n + width))
            with np.errstate(divide="ignore", invalid="ignore"):
                return _evaluate_gemm(prep, C, gemm, chance_weights, sparse_chunk, np, side_by_side=True)
        chunk = chunk_size or _auto_chunk(prep, vary_c, vary_v)  # the segment kernels below
    C = _on_host(C)
    if prep.padded is None:  # built on first use (the matrix-product path needs none)
        prep.padded = _padded(prep.kd, prep.n, prep.nr, prep.ks, prep.n_groups)
    pp = prep.padded
    with x64():
        kd = _device_kd(pp)
        S = jnp.asarray(prep.quad.S) if isinstance(prep.quad, DenseQuad) else None
        outs: list[dict[str, Any]] = []
        for b0 in range(0, b, chunk):  # chunks of replicates bound memory
            nb = min(chunk, b - b0)
            pad = chunk - nb if b > chunk else 0  # pad the last chunk: one compiled shape
            Cb = _pad_weights(C[b0:b0 + chunk] if vary_c else C, pp.n, pad if vary_c else 0)
            Vb = _pad_weights(V[b0:b0 + chunk] if vary_v else V, pp.nr, pad if vary_v else 0)
            dims = Dims(n=pp.n, nr=pp.nr, ks=pp.ks, n_groups=pp.n_groups)
            if fused:
                res = _evaluate_fused(kd, Cb, Vb, S, family=prep.family, dims=dims, q_categories=prep.q_categories,
                                      total_weight=float(prep.total_weight))
            else:
                s1 = _stage1_batch(kd, Cb, Vb, family=prep.family, dims=dims)
                C2 = Cb if vary_c else jnp.broadcast_to(Cb, (nb + pad, pp.n))
                W = None
                if chance_weights is not None:
                    W = jnp.asarray(_pad_weights(np.asarray(chance_weights)[b0:b0 + chunk], None, pad))
                res = _finish(prep, s1, C2, W)
            outs.append({k: np.asarray(v)[:nb] for k, v in res.items()})
        return {k: np.concatenate([o[k] for o in outs]) for k in outs[0]}


def leave_units_out(prep: Prepared, units: np.ndarray | None = None) -> dict[str, np.ndarray] | None:
    """The coefficient with each unit's items left out in turn, in time and memory linear in the items.

    With fixed rater weights stage 1 is ``C @ F`` (:func:`_gemm_features`), so the sums with the
    items of unit ``u`` weighted 0 are the total ``1 @ F`` minus the unit's own rows of ``F``:
    no ``U x n`` weight matrix, no ``U`` products over every item. The family's finish kernel
    then runs on those sums, block by block. The values are those of :func:`evaluate` on the
    leave-one-out weight rows, to rounding (``tests/uncertainty/test_bootstrap_designs.py``).

    Parameters
    ----------
    prep : Prepared
    units : int array of shape (n_items,), optional
        Each item's unit (0 .. U - 1); None: every item is its own unit.

    Returns
    -------
    dict or None
        ``value``, ``pa``, ``pe`` (and the family's other outputs), one row per unit; None where the
        coefficient has no per-item features (its family, or sampled chance pairs, or an asymmetric
        weight matrix used as given): the caller evaluates the weight rows instead.

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> leave_units_out(prep)["value"].round(4).tolist()
    [0.3333, 1.0, -0.2, 0.3333]
    >>> bool(np.allclose(leave_units_out(prep)["value"], evaluate(prep, 1.0 - np.eye(4))["value"]))
    True
    """
    if prep.chance_pairs is not None or weights_as_given(prep):
        return None
    gemm = _gemm_features(prep)
    if gemm is None:
        return None
    F, layout = _sparse_gemm_matrix(prep, gemm)  # n x width, its non-zeros only
    if units is not None:  # a unit's share: the sum of its items' rows
        import scipy.sparse as sparse

        units = np.asarray(units, dtype=np.int64)
        to_units = sparse.csr_matrix((np.ones(prep.n), (units, np.arange(prep.n))),
                                     shape=(int(units.max()) + 1, prep.n))
        F = (to_units @ F).tocsr()
    total = np.asarray(F.sum(axis=0)).ravel()
    rows = rows_per_chunk(2 * F.shape[1], maximum=1 << 16)
    outs: list[dict[str, np.ndarray]] = []
    with np.errstate(divide="ignore", invalid="ignore"):  # undefined values are nan, as in evaluate
        for u0 in range(0, F.shape[0], rows):  # blocks of units bound memory
            G_all = total[None, :] - F[u0:u0 + rows].toarray()
            s1 = _stage1_gemm(prep, {k: G_all[:, sl] for k, sl in layout.items()})
            outs.append({k: np.asarray(v) for k, v in _finish(prep, s1, None, None).items()})
    return {k: np.concatenate([o[k] for o in outs]) for k in outs[0]}


def _is_jax_array(x: Any) -> bool:
    """Whether ``x`` is a JAX array (checked without importing JAX)."""
    return type(x).__module__.startswith(("jax", "jaxlib"))


def _on_host(x: Any) -> np.ndarray:
    """``x`` as a float64 NumPy array (a JAX array is copied from its device)."""
    return np.asarray(x, dtype=np.float64)


_GEMM_MAX_ENTRIES = 40_000_000  # n_items x features, float64: 320 MB at most (on the device, JAX)
#: Non-zeros of F held as one sparse (CSR) matrix in host memory for a large batch in NumPy
#: (12 bytes each: 1.5 GiB at most); beyond it a batch runs the segment-sum kernels.
_GEMM_SPARSE_MAX_NNZ = 2**27


def weights_as_given(prep: Prepared) -> bool:
    """Whether the coefficient uses an asymmetric weight matrix as given (rater order matters).

    Only the per-rater chance family (Cohen, Conger) has a chance term that depends on the
    matrix's asymmetric part; the observed term always reads ``S[code of rater a, code of rater b]``
    for rater a before rater b (``agreement._weights.check_weight_matrix`` refuses asymmetric
    matrices where the coefficient has no rater order).
    """
    return prep.family.rater_order and bool(prep.sim.asymmetric)


def _gemm_features(prep: Prepared) -> dict[str, np.ndarray] | None:
    """Per-item feature blocks F (each n x f) such that, with fixed rater weights, stage 1 is ``C @ F``.

    Everything that does not depend on the item weights is computed once here; a batch of
    item-weight vectors then costs one matrix product (the fast path of the point estimate and
    of the item, cluster and Bayesian bootstraps). Returns None when the family has no features
    or the size does not allow it.
    """
    fam = prep.family
    if fam.features is None:
        return None
    cached = prep.__dict__.get("_gemm")
    if cached is not None:
        return cached
    n, ks = prep.n, prep.ks
    d = prep.layout
    basics = ItemBasics(  # on demand: each family reads only some of the pair sums, rating list and counts
        n=n, ks=ks, nr=prep.nr, pair_sums=prep.item_pair_sums, r=d.r_i.astype(np.float64),
        ratings=lambda: (d.rating_item.astype(np.int64), d.rating_rater.astype(np.int64),
                         prep.rating_s.astype(np.int64)),
        counts=prep.count_table, max_dense=_GEMM_MAX_ENTRIES, rater_pairs=lambda: prep.rater_pairs,
        similarity_known=prep.similarity_known)
    feats = fam.features(basics)
    if feats is None:  # too large for dense blocks
        return None
    out = {name: block if isinstance(block, Indicator) else block.reshape(n, -1) for name, block in feats}
    prep.__dict__["_gemm"] = out
    return out


def _times(C: np.ndarray, block: np.ndarray | Indicator) -> np.ndarray:
    """``C @ block`` in NumPy (a sparse indicator block without densifying it)."""
    return block.times(C) if isinstance(block, Indicator) else C @ block


def _gemm_cost(gemm: dict[str, Any]) -> int:
    """Multiply-adds of one replicate of ``C @ F`` (non-zeros for indicator blocks)."""
    return sum(len(b.rows) if isinstance(b, Indicator) else b.size for b in gemm.values())


#: Multiply-adds (replicates x items x features) up to which a batch of the matrix-product path
#: runs in NumPy (no JAX import, nothing to compile); larger batches run in JAX (any device).
_NUMPY_MAX_MADDS = 2**24


#: Route of a large matrix-product batch: None chooses (:func:`products_on_host`), ``"host"``
#: forces the sparse NumPy product, ``"device"`` JAX's dense product where F fits (the two give
#: the same values to rounding).
LARGE_BATCH_ROUTE: str | None = None


def products_on_host() -> bool:
    """Whether a large batch of the matrix-product path runs as the sparse NumPy product rather than in JAX.

    True when JAX's default backend is the CPU: there the sparse product (single-threaded, one
    pass over F's non-zeros per chunk) beats XLA's dense product, stays fast when the machine is
    oversubscribed (where a multi-threaded BLAS ``C @ F`` slows down tenfold) and compiles
    nothing (docs/performance.md); with a GPU or TPU, JAX runs it. Inside ``use_device("cpu")``
    (``--device cpu``) the work is on the CPU whatever JAX's default backend, so the host route is
    taken; inside ``use_device("cuda")`` JAX's. :data:`LARGE_BATCH_ROUTE` overrides the choice.

    Examples
    --------
    >>> isinstance(products_on_host(), bool)
    True
    """
    if LARGE_BATCH_ROUTE is not None:
        return LARGE_BATCH_ROUTE == "host"
    scoped = current_device()
    if scoped != "auto":
        return scoped == "cpu"
    global _DEFAULT_BACKEND
    if _DEFAULT_BACKEND is None:
        _DEFAULT_BACKEND = str(jax.default_backend())
    return _DEFAULT_BACKEND == "cpu"


_DEFAULT_BACKEND: str | None = None


def _evaluate_gemm(prep: Prepared, C: np.ndarray, gemm: dict[str, np.ndarray], chance_weights: Any, chunk: int,
                   xp: Any, side_by_side: bool = False) -> dict[str, np.ndarray]:
    """Fixed rater weights: stage 1 as ``C @ F``, then the family's finish kernel, in namespace ``xp``."""
    b = C.shape[0]
    if side_by_side:
        F = _sparse_gemm_matrix(prep, gemm)
    else:
        F = None if b == 1 or xp is np else _gemm_matrix(prep, gemm, xp)
    outs: list[dict[str, Any]] = []
    for b0 in range(0, b, chunk):  # chunks of replicates bound memory
        Cn = C[b0:b0 + chunk]
        Cr = xp.asarray(Cn, dtype=xp.float64)
        if F is None:  # NumPy, or one replicate: block by block, no copy of the blocks side by side
            G = {k: xp.asarray(_times(Cn, blk)) for k, blk in gemm.items()}
        elif side_by_side:  # F^T (CSC) times the weights item-major: one pass over F and the weights
            G_all = np.asarray(F[0].T @ np.ascontiguousarray(Cn.T)).T
            G = {k: G_all[:, sl] for k, sl in F[1].items()}
        else:  # a batch: one matrix product
            G_all = Cr @ F[0]
            G = {k: G_all[:, sl] for k, sl in F[1].items()}
        s1 = _stage1_gemm(prep, G)
        W = None if chance_weights is None else xp.asarray(np.asarray(chance_weights)[b0:b0 + chunk])
        outs.append({k: np.asarray(v) for k, v in _finish(prep, s1, Cr, W).items()})
    return {k: np.concatenate([o[k] for o in outs]) for k in outs[0]}


def _gemm_matrix(prep: Prepared, blocks: dict[str, np.ndarray], xp: Any) -> tuple[Any, dict[str, slice]]:
    """The feature blocks side by side (in namespace ``xp``: one matrix product per batch), and where each lies."""
    key = f"_gemm_F_{xp.__name__}"
    cached = prep.__dict__.get(key)
    if cached is not None:
        return cached
    layout: dict[str, slice] = {}
    start = 0
    for name, block in blocks.items():
        layout[name] = slice(start, start + block.shape[1])
        start += block.shape[1]
    F = np.empty((prep.n, start))  # filled block by block: no second copy of a densified block
    for name, block in blocks.items():
        if isinstance(block, Indicator) and block.unique:  # one entry per cell: scattered in place
            F[:, layout[name]] = 0.0
            F[block.rows, layout[name].start + block.cols] = 1.0 if block.values is None else block.values
        elif isinstance(block, Indicator):
            F[:, layout[name]] = block.dense()
        else:
            F[:, layout[name]] = block
    out = (F if xp is np else xp.asarray(F, dtype=xp.float64), layout)
    prep.__dict__[key] = out
    return out


def _sparse_gemm_matrix(prep: Prepared, blocks: dict[str, Any]) -> tuple[Any, dict[str, slice]]:
    """The feature blocks side by side as one sparse CSR matrix (n x width; zeros dropped) and
    where each block lies: a large batch then costs one pass over the non-zeros per chunk."""
    cached = prep.__dict__.get("_gemm_F_sparse")
    if cached is not None:
        return cached
    import scipy.sparse as sparse

    layout: dict[str, slice] = {}
    rows, cols, vals = [], [], []
    start = 0
    for name, block in blocks.items():
        width = block.shape[1]
        layout[name] = slice(start, start + width)
        if isinstance(block, Indicator):
            rows.append(block.rows)
            cols.append(block.cols + start)
            vals.append(np.ones(block.nnz) if block.values is None else block.values)
        else:
            i, j = np.nonzero(block)
            rows.append(i)
            cols.append(j + start)
            vals.append(block[i, j])
        start += width
    F = sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(prep.n, start))  # duplicates (a non-unique indicator) are summed
    out = (F, layout)
    prep.__dict__["_gemm_F_sparse"] = out
    return out


def _stage1_gemm(prep: Prepared, G: dict[str, jax.Array]) -> dict[str, jax.Array]:
    """Stage-1 outputs from the products ``C @ F_block`` (fixed rater weights): the family record's own."""
    return prep.family.from_products(G, prep.nr, prep.ks)  # type: ignore[misc]


def _pad_weights(x: np.ndarray, width: int | None, extra_rows: int) -> jax.Array:
    """Zero weights for padded units (columns), unit weights for padded replicates (rows)."""
    if width is not None and x.shape[-1] < width:
        x = np.concatenate([x, np.zeros((*x.shape[:-1], width - x.shape[-1]))], axis=-1)
    if extra_rows:
        x = np.concatenate([x, np.ones((extra_rows, *x.shape[1:]))])
    return jnp.asarray(x, dtype=jnp.float64)


def _device_kd(pp: Padded) -> KernelData:
    """The padded kernel data on the device (float64 pair scores), transferred once."""
    cached = getattr(pp, "_device", None)
    if cached is None:
        cached = jax.device_put(pp.kd._replace(pair_s=np.asarray(pp.kd.pair_s, dtype=np.float64)))
        pp._device = cached  # type: ignore[attr-defined]
    return cached


#: Fewest sampled chance pairs (per rater pair for Cohen-type coefficients) that carry a
#: standard error; below it the sample SD is too unstable (two equal scores give SE 0).
MIN_PAIRS_FOR_SE = 30


def chance_se_problem(prep: Prepared) -> str:
    """Why a sampled chance term has no standard error ('' when it has one)."""
    cp = prep.chance_pairs
    if cp is None or cp.permutation is not None:
        return ""
    cnt = np.bincount(cp.group, minlength=cp.n_groups)
    if cnt.min() < MIN_PAIRS_FOR_SE:
        per = " per rater pair" if cp.n_groups > 1 else ""
        return (f"chance_se is nan: {cp.label} drew {int(cnt.min())} chance pairs{per}, fewer than the "
                f"{MIN_PAIRS_FOR_SE} a standard error needs; use a larger n")
    return ""


def chance_standard_error(prep: Prepared) -> float:
    """SE of a sampled chance term (nan for exact chance, or with too few sampled pairs).

    Parameters
    ----------
    prep : Prepared

    Returns
    -------
    float

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import point_estimate, resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> chance_standard_error(prep)  # exact chance: no sampling error
    nan
    """
    cp = prep.chance_pairs
    if cp is None or chance_se_problem(prep):
        return math.nan
    if cp.permutation is not None:
        n_perm = int(cp.permutation.max()) + 1
        if n_perm < 2:
            return math.nan
        means = np.bincount(cp.permutation, weights=cp.s) / np.bincount(cp.permutation)
        return float(means.std(ddof=1) / math.sqrt(n_perm))
    if cp.n_groups == 1:
        return float(cp.s.std(ddof=1) / math.sqrt(len(cp.s)))
    cnt = np.bincount(cp.group, minlength=cp.n_groups)
    mean = np.bincount(cp.group, weights=cp.s, minlength=cp.n_groups) / np.maximum(cnt, 1)
    var = np.bincount(cp.group, weights=(cp.s - mean[cp.group]) ** 2, minlength=cp.n_groups) / np.maximum(cnt - 1, 1)
    ok = cnt > 1
    return float(math.sqrt(np.sum(var[ok] / cnt[ok])) / ok.sum())


def warn_degenerate(coefficient: str, pa: float, pe: float, value: float) -> list[str]:
    """Warnings (emitted and returned) for an undefined coefficient."""
    msgs = []
    if math.isnan(value):
        if pe >= 1.0 - 1e-15:
            msgs.append(f"{coefficient} is undefined: expected (chance) agreement is 1 - every rating "
                        "uses the same label (or labels the similarity treats as equivalent), so there "
                        "is no variation to correct for chance")
        else:
            msgs.append(f"{coefficient} is undefined for these data (observed {pa!r}, expected {pe!r})")
        for m in msgs:
            warnings.warn(m, DegenerateWarning, stacklevel=user_stacklevel())
    return msgs
