"""Cross-replication reliability (Wong, Paritosh & Aroyo 2021, ACL): kappa_x and its normalised form.

Two replications X and Y rate the same items (by item id). With ``D(a, b) = 1 - s(a, b)``,

``kappa_x = 1 - d_o(X, Y) / d_e(X, Y)``

- ``d_o = sum_i w_i dbar_i / sum_i w_i`` where ``dbar_i`` is the mean distance over the
  ``R_x,i * R_y,i`` cross pairs of item i and ``w_i = R_x,i + R_y,i`` (the paper's missing-data
  weights, eqs. 9-11, as in Google's reference implementation ``XrrMetrics.WITH_MISSING_DATA``);
  ``item_weights="equal"`` gives every item weight 1;
- ``d_e`` = mean distance over all ``N_x * N_y`` pairs (x from X's ratings, y from Y's ratings,
  matched items only): chance from the two replications' own marginals.

Items rated in only one replication are ignored. Everything is a function of item weights
``c`` (bootstrap designs over items are batches of weights).
"""

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from softirr_stats.agreement._evaluator import Prepared, evaluate
from softirr_stats.agreement._point import point_estimate
from softirr_stats.agreement._statistic import Statistic
from softirr_stats.data import Annotations
from softirr_stats.equivalence import LabelSimilarity

__all__ = ["XrrData", "match_replications", "xrr_prepare", "xrr_evaluate", "ITEM_WEIGHTS"]

ITEM_WEIGHTS = ("ratings", "equal")


@dataclass
class XrrData:
    """Two replications on their matched items, over one (union) vocabulary."""

    union: Annotations  # matched items x (X raters + Y raters), union vocabulary
    n_raters_x: int
    n_only_x: int
    n_only_y: int
    x_items_only: tuple = ()
    y_items_only: tuple = ()

    @property
    def codes_x(self) -> np.ndarray:
        return self.union.codes[:, : self.n_raters_x]

    @property
    def codes_y(self) -> np.ndarray:
        return self.union.codes[:, self.n_raters_x:]

    def replication(self, which: str) -> Annotations | None:
        """One replication on the matched items, coded in the union vocabulary (None if one rater)."""
        codes = self.codes_x if which == "x" else self.codes_y
        raters = self.union.raters[: self.n_raters_x] if which == "x" else self.union.raters[self.n_raters_x:]
        if codes.shape[1] < 2:
            return None
        u = self.union
        return Annotations(codes, u.vocabulary, items=u.items, raters=[r[1] for r in raters], kind=u.kind,  # type: ignore[arg-type]
                           categories=u.categories, label_universe=u.label_universe)


def _present_items(ann: Annotations) -> dict:
    has = np.asarray((ann.codes >= 0).any(axis=1))
    return {it: i for i, it in enumerate(ann.items) if has[i]}


def match_replications(ann_x: Annotations, ann_y: Annotations) -> XrrData:
    """Match items by id (items with a rating in both), pool the vocabularies."""
    px, py = _present_items(ann_x), _present_items(ann_y)
    matched = [it for it in px if it in py]
    if not matched:
        raise ValueError("ann_x and ann_y share no rated item (items are matched by id); "
                         f"first items: X {list(px)[:3]!r}, Y {list(py)[:3]!r}")
    if ann_x.kind != ann_y.kind:
        raise TypeError(f"both replications need the same kind of label; got {ann_x.kind} and {ann_y.kind}")
    rows_x = np.asarray([px[it] for it in matched])
    rows_y = np.asarray([py[it] for it in matched])
    vx = np.asarray(ann_x.vocabulary + (None,), dtype=object)[ann_x.codes[rows_x]]
    vy = np.asarray(ann_y.vocabulary + (None,), dtype=object)[ann_y.codes[rows_y]]
    cells = np.concatenate([vx, vy], axis=1)
    raters = [("x", r) for r in ann_x.raters] + [("y", r) for r in ann_y.raters]
    categories = None
    if ann_x.categories is not None or ann_y.categories is not None:
        categories = list(dict.fromkeys(list(ann_x.categories or ann_x.vocabulary)
                                        + list(ann_y.categories or ann_y.vocabulary)))
    # every rater kept, also one that rated none of the matched items: the columns split at ann_x.n_raters
    union = Annotations._from_cells(None, None, cells.ravel(), matched, raters, categories)
    universe = None
    if ann_x.label_universe is not None or ann_y.label_universe is not None:
        universe = tuple(dict.fromkeys(list(ann_x.label_universe or ()) + list(ann_y.label_universe or ())))
        union = Annotations(union.codes, union.vocabulary, items=union.items, raters=union.raters, kind=union.kind,  # type: ignore[arg-type]
                            categories=union.categories, label_universe=universe)
    only_x = tuple(it for it in px if it not in py)
    only_y = tuple(it for it in py if it not in px)
    return XrrData(union, ann_x.n_raters, len(only_x), len(only_y), only_x, only_y)


@dataclass
class XrrPrepared(Statistic):
    data: XrrData
    sim: LabelSimilarity
    item_weights: str
    r_x: np.ndarray  # (n,)
    r_y: np.ndarray
    dbar: np.ndarray  # (n,) mean cross-pair distance of each item
    counts_x: Any  # sparse (n, Ksx)
    counts_y: Any  # sparse (n, Ksy)
    dist_block: np.ndarray  # (Ksx, Ksy) distances between X's and Y's labels
    n_cross_pairs: int
    irr_prep: dict[str, Prepared | None] = field(default_factory=dict)
    n_scored: int = 0  # label pairs newly scored for the cross pairs (counts returned by the similarity)

    @property
    def n(self) -> int:
        return len(self.r_x)

    # --- the statistic protocol of the uncertainty layer
    rater_designs = False  # the two replications have different raters
    supports_analytic = False
    n_chance_pairs = 0

    @property
    def items(self) -> tuple:
        return self.data.union.items

    @property
    def n_items(self) -> int:
        return self.n

    @property
    def n_raters(self) -> int:
        return self.data.union.n_raters

    @property
    def rater_ids(self) -> tuple:
        return tuple(self.data.union.raters)

    def evaluate(self, C: Any = None, V: Any = None, W: Any = None) -> dict[str, np.ndarray]:
        """kappa_x, and the normalised kappa_x with both IRRs recomputed, for item weights ``C``."""
        out = xrr_evaluate(self, C)
        if self.irr_prep:
            c = np.ones((1, self.n)) if C is None else np.atleast_2d(np.asarray(C, dtype=np.float64))
            ix, iy = irr_replicates(self, c)
            out["normalized"] = normalized_kappa(out["value"], ix, iy)
        return out

    extra_outputs = ("normalized",)  # replicated beside value; the bootstrap gives them an interval


def _ratings(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ii, jj = np.nonzero(codes >= 0)
    return ii, codes[ii, jj]


def _counts(items: np.ndarray, codes: np.ndarray, support: np.ndarray, n: int) -> Any:
    import scipy.sparse as sp  # on first use: scipy.sparse costs ~0.1 s to import

    col = np.searchsorted(support, codes)
    return sp.csr_matrix((np.ones(len(items)), (items, col)), shape=(n, len(support)))


def xrr_prepare(data: XrrData, sim: LabelSimilarity, item_weights: str = "ratings") -> XrrPrepared:
    """Score the cross pairs once: per-item mean cross distance and the X-by-Y label distances."""
    n = data.union.n_items
    ix, cx = _ratings(data.codes_x)
    iy, cy = _ratings(data.codes_y)
    r_x = np.bincount(ix, minlength=n)
    r_y = np.bincount(iy, minlength=n)
    # every cross pair (X rating, Y rating) of an item, built without a loop over items
    start_y = np.concatenate([[0], np.cumsum(r_y)[:-1]])
    rep = r_y[ix]
    first = np.repeat(np.arange(len(ix)), rep)
    offs = np.arange(int(rep.sum())) - np.repeat(np.cumsum(rep) - rep, rep)
    second = start_y[ix[first]] + offs
    cross = sim.pairs(cx[first], cy[second])
    d_pairs = 1.0 - cross.values
    dbar = np.bincount(ix[first], weights=d_pairs, minlength=n) / (r_x * r_y)
    sx, sy = np.unique(cx), np.unique(cy)
    block = sim.block(sx, sy)
    return XrrPrepared(data, sim, item_weights, r_x.astype(np.float64), r_y.astype(np.float64), dbar,
                       _counts(ix, cx, sx, n), _counts(iy, cy, sy, n), 1.0 - block.values, int(len(first)),
                       n_scored=cross.n_scored + block.n_scored)


def xrr_evaluate(prep: XrrPrepared, C: Any = None) -> dict[str, np.ndarray]:
    """kappa_x, d_o and d_e for a batch of item weights C (B, n) (None: ones)."""
    C = np.ones((1, prep.n)) if C is None else np.atleast_2d(np.asarray(C, dtype=np.float64))
    w = prep.r_x + prep.r_y if prep.item_weights == "ratings" else np.ones(prep.n)
    d_o = (C @ (w * prep.dbar)) / (C @ w)
    tx = np.asarray((prep.counts_x.T @ C.T).T)  # (B, Ksx) weighted label totals
    ty = np.asarray((prep.counts_y.T @ C.T).T)
    d_e = np.einsum("bk,kl,bl->b", tx, prep.dist_block, ty) / ((C @ prep.r_x) * (C @ prep.r_y))
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(d_e > 0, 1.0 - d_o / np.where(d_e > 0, d_e, 1.0), np.nan)
    return {"value": value, "d_o": d_o, "d_e": d_e, "pa": 1.0 - d_o, "pe": 1.0 - d_e}


def replication_alpha(data: XrrData, which: str, sim: LabelSimilarity, notes: list[str]) -> tuple[float, Prepared | None]:
    """Krippendorff's alpha of one replication on the matched items, with the same distance."""
    ann = data.replication(which)
    name = "X" if which == "x" else "Y"
    if ann is None:
        notes.append(f"IRR_{name} is undefined: replication {name} has a single rater")
        return math.nan, None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            res, prep = point_estimate(ann, family="alpha", coefficient=f"irr_{which}", sim=sim)
        except ValueError as err:
            notes.append(f"IRR_{name} is undefined: {err}")
            return math.nan, None
    notes.extend(f"IRR_{name}: {w.message}" for w in caught if issubclass(w.category, UserWarning))
    return res.value, prep


def normalized_kappa(kappa_x: Any, irr_x: Any, irr_y: Any) -> np.ndarray:
    """``kappa_x / sqrt(IRR_X * IRR_Y)``; nan unless both IRRs are positive."""
    ix, iy = np.asarray(irr_x, dtype=np.float64), np.asarray(irr_y, dtype=np.float64)
    ok = (ix > 0) & (iy > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(ok, np.asarray(kappa_x) / np.sqrt(np.where(ok, ix * iy, 1.0)), np.nan)


def irr_replicates(prep: XrrPrepared, C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """IRR_X and IRR_Y for a batch of item weights (nan where undefined)."""
    out = []
    for which in ("x", "y"):
        p = prep.irr_prep.get(which)
        out.append(np.full(len(C), np.nan) if p is None else evaluate(p, C)["value"])
    return out[0], out[1]

