"""Per-rater diagnostics: each rater against the rest (``leave_one_rater_out``) and against a reference.

``leave_one_rater_out`` gives, per rater, (1) the rater's chance-corrected agreement with the
other raters, ``kappa_vs_rest = (p_o - p_e) / (1 - p_e)`` with ``p_o`` the mean over the items the
rater rated of the mean similarity of its label with the others' labels, and ``p_e = p_r^T S
p_rest`` (the rater's label distribution against the others' pooled one on those items; with
two raters this is Cohen's kappa; ``S`` is ``similarity=`` / ``weights=``, or the metric of
Krippendorff's ``level=``), and (2) the chosen coefficient of the other raters
(``value_without``) and its change ``value_all - value_without`` with a paired interval from
:func:`softirr_stats.compare`. ``against_reference`` gives each rater's coefficient with the
reference rater, the confusion matrices, per-category agreement and the items with the largest
disagreement, ranked for review. Raters are looped over (a handful); items and label pairs are arrays.
"""

import html
import math
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import numpy as np

from softirr_stats.agreement import (
    ALPHA_LEVELS,
    as_annotations,
    get_coefficient,
    level_similarity,
    resolve_similarity,
)
from softirr_stats.api import estimate_with_interval
from softirr_stats.base._format import render
from softirr_stats.base._validation import check_choice
from softirr_stats.comparison._compare import _Units, compare
from softirr_stats.data import Annotations
from softirr_stats.uncertainty import (
    BOOTSTRAP_DESIGNS,
    WIDENED_NOTE,
    Bootstrap,
    draw_weights,
    few_units_factor,
    jackknife_strata,
    leave_one_out_weights,
    per_item_codes,
    replicate_interval,
)

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["leave_one_rater_out", "against_reference", "ReferenceResult", "kappa_vs_rest", "VS_REST_CHANCE_NOTE"]

_CHUNK = 256


def _similarity_matrix(data: Any, similarity: Any, weights: Any) -> tuple[np.ndarray, str]:
    sim = resolve_similarity(data, similarity=similarity, weights=weights)
    k = np.arange(len(data.vocabulary))
    return np.asarray(sim.block(k, k).values, dtype=np.float64), sim.name


def ordinal_similarity(codes: np.ndarray, n_labels: int) -> np.ndarray:
    """Krippendorff's ordinal metric as a similarity, ``1 - delta / max delta`` over the labels used.

    ``delta`` is the ordinal metric of the coincidence marginals (each label's count on the items
    with at least two ratings; codes in rank order), the metric ``krippendorff_alpha(level="ordinal")``
    uses; ``max delta`` is its largest value between two labels the ratings used (alpha is the
    nominal form with this similarity: it is invariant to rescaling the distance).

    Parameters
    ----------
    codes : int array (n_items, n_raters)
        Label codes in rank order, -1 for missing.
    n_labels : int
        Size of the vocabulary.

    Returns
    -------
    (n_labels, n_labels) array

    Examples
    --------
    >>> ordinal_similarity(np.array([[0, 0], [1, 2], [2, -1]]), 3).round(3).tolist()
    [[1.0, 0.64, 0.0], [0.64, 1.0, 0.84], [0.0, 0.84, 1.0]]
    """
    from softirr_stats.agreement import (
        ordinal_delta,  # the kernels' module: loaded when an ordinal level is asked
    )

    codes = np.asarray(codes)
    rated = codes >= 0
    pairable = rated & (rated.sum(axis=1) >= 2)[:, None]
    nk = np.bincount(codes[pairable], minlength=n_labels).astype(np.float64)
    delta = np.asarray(ordinal_delta(nk), dtype=np.float64)
    used = nk > 0
    top = float((delta * (used[:, None] & used[None, :])).max())
    return 1.0 - delta / (top if top > 0 else 1.0)


def _agreement_matrix(data: Annotations, coef: Any, similarity: Any, weights: Any,
                      options: dict[str, Any]) -> tuple[np.ndarray, str]:
    """The label similarity of ``kappa_vs_rest`` and of the disagreements with a reference: the
    ``similarity=`` / ``weights=`` given, or, for Krippendorff's alpha at a ``level=`` other than
    nominal, the level's metric as a similarity (``1 - delta / max delta``, the similarity with
    which the nominal form gives the level's alpha; ordinal: :func:`ordinal_similarity` of all
    the data's ratings)."""
    level = options.get("level", "nominal") if "level" in coef.options else "nominal"
    if level == "nominal":
        return _similarity_matrix(data, similarity, weights)
    check_choice("level", level, ALPHA_LEVELS)
    if level != "ordinal":
        sim = level_similarity(data, level, similarity)
        k = np.arange(len(data.vocabulary))
        return np.asarray(sim.block(k, k).values, dtype=np.float64), sim.name
    if similarity is not None:
        raise ValueError("similarity= replaces the level's distance; use level='nominal' with a similarity "
                         f"(got level={level!r})")
    if data.kind == "set":
        raise ValueError("ordinal alpha needs ordered labels (numbers, or categories= in order)")
    return ordinal_similarity(np.asarray(data.codes), len(data.vocabulary)), "ordinal-distance"


def kappa_vs_rest(codes: np.ndarray, S: np.ndarray, C: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Each rater's chance-corrected agreement with the other raters, for a batch of item weights.

    Parameters
    ----------
    codes : int array (n_items, n_raters)
        Label codes, -1 for missing.
    S : array (K, K)
        Label similarity (the identity for exact matching).
    C : array (B, n_items), optional
        Item weights (default: one row of ones).

    Returns
    -------
    dict
        ``value``, ``po``, ``pe`` of shape (B, n_raters), and ``n_items`` (n_raters,).

    Examples
    --------
    Two raters: Cohen's kappa.

    >>> codes = np.array([[0, 0], [0, 1], [1, 1], [1, 1]])
    >>> kappa_vs_rest(codes, np.eye(2))["value"].round(4).tolist()
    [[0.5, 0.5]]
    """
    codes = np.asarray(codes)
    n, R = codes.shape
    K = S.shape[0]
    C = np.ones((1, n)) if C is None else np.atleast_2d(np.asarray(C, dtype=np.float64))
    M = codes >= 0
    onehot = np.zeros((n, R, K))
    ii, rr = np.nonzero(M)
    onehot[ii, rr, codes[ii, rr]] = 1.0
    k = M.sum(axis=1, keepdims=True) - M  # others who rated item i, for rater r
    A = (M & (k >= 1)).astype(np.float64)  # (n, R): r rated i and someone else did
    tot = onehot.sum(axis=1)  # (n, K) all labels of item i
    rest = (tot[:, None, :] - onehot) / np.where(k >= 1, k, 1)[:, :, None]  # (n, R, K) others' label shares
    sim_to_rest = np.einsum("irk,kl,irl->ir", onehot, S, rest)  # mean similarity of r's label with the others'
    den = C @ A  # (B, R)
    with np.errstate(invalid="ignore", divide="ignore"):
        po = (C @ (A * sim_to_rest)) / den
        P = np.einsum("bi,irk->brk", C, A[:, :, None] * onehot) / den[:, :, None]
        Q = np.einsum("bi,irk->brk", C, A[:, :, None] * rest) / den[:, :, None]
        pe = np.einsum("brk,kl,brl->br", P, S, Q)
        value = (po - pe) / (1.0 - pe)
    return {"value": value, "po": po, "pe": pe, "n_items": A.sum(axis=0).astype(int)}


def _item_weights(items: tuple, n_raters: int, cfg: Bootstrap) -> Any:
    if BOOTSTRAP_DESIGNS[cfg.design].resamples_raters or BOOTSTRAP_DESIGNS[cfg.design].resamples_judged:
        raise ValueError(f"kappa_vs_rest resamples items: use Bootstrap(design='items', 'cluster' or 'bayesian'); "
                         f"got design={cfg.design!r}")
    units = _Units(tuple(items), len(items), n_raters)
    for b0 in range(0, cfg.n, _CHUNK):
        rows = min(cfg.n, b0 + _CHUNK) - b0
        C, _, _ = draw_weights(units, cfg, b0, b0 + rows)
        yield C


def _vs_rest_interval(codes: np.ndarray, S: np.ndarray, value: np.ndarray, items: tuple,
                      cfg: Bootstrap) -> tuple[np.ndarray, np.ndarray, str, list[str]]:
    """Each rater's ``kappa_vs_rest`` interval by ``cfg.method`` (``auto`` resolved as for the coefficients;
    BCa's jackknife leaves out one item, or one cluster), the method used and what the interval rule said."""
    n, R = codes.shape
    units = n
    if BOOTSTRAP_DESIGNS[cfg.design].resamples_clusters:
        units = int(np.unique(per_item_codes(cfg.cluster, tuple(items), "cluster")).size)
    reps = np.concatenate([kappa_vs_rest(codes, S, C)["value"] for C in _item_weights(items, R, cfg)])
    jack: list[np.ndarray] = []

    def jackknife() -> np.ndarray:
        if not jack:
            jack.append(np.concatenate([kappa_vs_rest(codes, S, C)["value"]
                                        for C, _ in leave_one_out_weights(cfg, tuple(items), n, R)]))
        return jack[0]

    rec = BOOTSTRAP_DESIGNS[cfg.design]
    strata = jackknife_strata(SimpleNamespace(items=tuple(items)), cfg) if rec.resamples_clusters else None
    bounds, notes, factors = [], [], []
    by_note: dict[str, list[int]] = {}
    method = cfg.method
    for r in range(R):  # a handful of raters
        v = float(value[r])
        lo, hi, method, note, details = replicate_interval(reps[:, r], v, cfg,
                                                           lambda r=r: jackknife()[:, r], units, n_units_given=False)
        # the coefficients' own few-units rule for clusters (t quantiles, the strata's variance share)
        f = few_units_factor(reps[:, r], rec, units, cfg.level, unit_strata=strata) if cfg.few_units == "t" else 1.0
        if f != 1.0 and np.isfinite(lo) and np.isfinite(hi):
            lo, hi = v - f * (v - lo), v + f * (hi - v)
            factors.append(f)
        bounds.append((lo, hi))
        if details.get("interval_rule"):
            notes.append(details["interval_rule"])
        if note:
            by_note.setdefault(note, []).append(r)
    # one line per note, naming the raters only when not every rater has it
    notes += [text if len(who) == R else f"rater{'s' if len(who) > 1 else ''} {', '.join(map(str, who))}: {text}"
              for text, who in by_note.items()]
    if factors:
        shown = f"{min(factors):.3f}" if f"{min(factors):.3f}" == f"{max(factors):.3f}" else \
            f"{min(factors):.3f}-{max(factors):.3f}"
        notes.append(f"kappa_vs_rest: {WIDENED_NOTE} x{shown} (Student-t quantiles "
                     f"for the {units} clusters" + (f" within {len(np.unique(strata))} strata" if strata is not None
                                                    else "") + ", as the coefficients' own intervals)")
    out = np.asarray(bounds, dtype=np.float64)
    return out[:, 0], out[:, 1], method, list(dict.fromkeys(notes))


def _without_rater(data: Annotations, rater: Any) -> Annotations:
    """The data without ``rater``, on all of the data's items.

    An item only ``rater`` rated stays, with no rating: it adds nothing to the coefficient of the
    others (an item needs two ratings to add agreement, one to add to a chance term), and both
    statistics stay on the same items, so :func:`compare` pairs them item by item.

    Examples
    --------
    >>> ann = Annotations.from_wide([["a", "a", "b"], ["a", None, None], ["b", "b", "b"]])
    >>> w = _without_rater(ann, 0)
    >>> w.items, w.raters, w.codes[1].tolist()
    ((0, 1, 2), (1, 2), [-1, -1])
    """
    pos = [j for j, x in enumerate(data.raters) if x != rater]
    return Annotations(np.asarray(data.codes)[:, pos], data.vocabulary, items=list(data.items),
                       raters=[data.raters[j] for j in pos], kind=data.kind,  # type: ignore[arg-type]
                       categories=data.categories, label_universe=data.label_universe)


#: kappa_vs_rest's chance term is the exact quadratic form over the labels: it builds the label similarity in full,
#: so a sampled chance term (chance=MonteCarlo / SampledPairs) would only add noise to it
VS_REST_CHANCE_NOTE = ("kappa_vs_rest: chance agreement exact (the rater's and the rest's label shares over the "
                       "full label similarity); the chance setting ({chance}) applies to value_all, value_without "
                       "and change")


def leave_one_rater_out(ann: Any, coefficient: str = "fleiss_kappa", *, ci: Any = None, similarity: Any = None,
                        weights: Any = None, **options: Any) -> "pd.DataFrame":
    """Each rater against the rest: agreement with the others, and the coefficient without the rater.

    Parameters
    ----------
    ann : Annotations or wide table
        At least 3 raters.
    coefficient : str
        The coefficient of the group (``value_all``, ``value_without``).
    ci : None, "analytic", Analytic or Bootstrap
        Intervals: ``kappa_vs_rest`` takes item designs (the bootstrap, by its ``method``, ``auto``
        resolved as for the coefficients; ``"analytic"`` gives it none), ``value_without`` the
        coefficient's own, ``change`` the paired one of :func:`compare`. Both coefficients are on all
        the data's items: an item only the left-out rater rated stays in the data of the others with
        no rating (it adds nothing to their coefficient), so the comparison pairs every item.
    similarity, weights :
        Soft agreement or categorical weights, used by both columns.
    **options
        Further options of the coefficient (``level=``, ``chance=``, ...). ``chance=`` applies to
        ``value_all``, ``value_without`` and ``change``; ``kappa_vs_rest``'s chance term is always
        exact (it builds the label similarity in full, so a sampled chance term would only add
        noise), and ``vs_rest_notes`` says so when ``chance=`` is not exact. Krippendorff's ``level=``
        other than nominal gives ``kappa_vs_rest`` the level's metric as its similarity,
        ``1 - delta / max delta`` over the labels used (interval: squared differences, the same as
        ``similarity="quadratic"``; ratio: ``((a - b) / (a + b))^2``; ordinal: the metric of all the
        data's coincidence marginals, :func:`ordinal_similarity`, fixed across bootstrap replicates):
        the nominal form of alpha with that similarity is the level's alpha.

    Returns
    -------
    DataFrame
        One row per rater: rater, n_items, kappa_vs_rest, vs_rest_ci_low, vs_rest_ci_high,
        value_without, without_ci_low, without_ci_high, change (= value_all - value_without),
        change_ci_low, change_ci_high, change_p_value; ``frame.attrs``: ``value_all``,
        ``coefficient``, ``vs_rest_method`` (how the ``kappa_vs_rest`` interval was made, e.g.
        ``"bootstrap-bca"``), ``vs_rest_notes`` (the interval rule of ``method="auto"``, BCa's notes, and
        :data:`VS_REST_CHANCE_NOTE` where ``chance=`` is not exact) and ``chance`` (the chance label of
        ``value_all``, e.g. ``"monte_carlo(D=5)"``).

    Examples
    --------
    >>> import softirr_stats as sis
    >>> rows = [["a", "a", "a"], ["b", "b", "a"], ["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"]] * 4
    >>> t = sis.leave_one_rater_out(rows, "fleiss_kappa")
    >>> t["kappa_vs_rest"].round(3).tolist(), t["change"].round(3).tolist()
    ([0.583, 0.583, 0.167], [0.278, 0.278, -0.556])
    """
    import pandas as pd

    coef = get_coefficient(coefficient)
    data = as_annotations(ann, options.get("categories"))
    if data.n_raters < 3:
        raise ValueError(f"leave_one_rater_out needs at least 3 raters (the rest must still have two); got "
                         f"{data.n_raters}")
    sim_opts = {k: v for k, v in (("similarity", similarity), ("weights", weights)) if v is not None}
    S, _ = _agreement_matrix(data, coef, similarity, weights, options)
    codes = np.asarray(data.codes)
    point = kappa_vs_rest(codes, S)
    vs_lo = vs_hi = np.full(data.n_raters, math.nan)
    vs_method, vs_notes = "none", []
    if isinstance(ci, Bootstrap):
        vs_lo, vs_hi, vs_method, vs_notes = _vs_rest_interval(codes, S, point["value"][0], data.items, ci)
    full = estimate_with_interval(coef, data, **options, **sim_opts, ci=ci)
    if full.chance not in ("exact", ""):  # the setting reached the coefficients, not kappa_vs_rest: said
        vs_notes = [*vs_notes, VS_REST_CHANCE_NOTE.format(chance=full.chance)]
    rows = []
    for j, r in enumerate(data.raters):
        without = estimate_with_interval(coef, _without_rater(data, r), **options, **sim_opts, ci=ci)
        cmp = compare(full, without, ci=ci) if ci is not None else None
        rows.append({"rater": r, "n_items": int(point["n_items"][j]), "kappa_vs_rest": float(point["value"][0, j]),
                     "vs_rest_ci_low": float(vs_lo[j]), "vs_rest_ci_high": float(vs_hi[j]),
                     "value_without": without.value, "without_ci_low": without.ci_low,
                     "without_ci_high": without.ci_high, "change": full.value - without.value,
                     "change_ci_low": cmp.ci_low if cmp else math.nan, "change_ci_high": cmp.ci_high if cmp else math.nan,
                     "change_p_value": cmp.p_value if cmp else math.nan})
    frame = pd.DataFrame(rows)
    frame.attrs["value_all"] = full.value
    frame.attrs["coefficient"] = coef.name
    frame.attrs["vs_rest_method"] = f"bootstrap-{vs_method}" if isinstance(ci, Bootstrap) else vs_method
    frame.attrs["vs_rest_notes"] = vs_notes
    frame.attrs["chance"] = full.chance
    return frame


@dataclass(frozen=True)
class ReferenceResult:
    """Each rater against a reference (gold) rater.

    Attributes
    ----------
    reference : Any
        The reference rater.
    coefficient, similarity : str
    by_rater : DataFrame
        rater, n_items, value, ci_low, ci_high, se, observed, expected, level, ci_method (how the
        interval was made, e.g. ``"bootstrap-bca"``; with a bootstrap also bootstrap_n,
        bootstrap_design and bootstrap_seed).
    confusion : DataFrame
        rater, reference_label, rater_label, count (the non-zero cells).
    by_category : DataFrame
        rater, category, n_reference, n_rater, n_both, specific_agreement, recall, precision,
        mean_similarity (of the rater's label with the reference on items the reference put in the category).
    disagreements : DataFrame
        Items ranked by disagreement with the reference (lowest mean similarity first): item,
        reference_label, n_raters, n_disagreeing, mean_similarity, then one column per rater.
    warnings : tuple of str
    interval : str
        How the intervals were made (level, method, and the bootstrap's B, design and seed), the
        note under the tables; ``""`` without intervals.

    Examples
    --------
    >>> import softirr_stats as sis
    >>> rows = [["a", "a", "b"], ["b", "b", "b"], ["a", "b", "a"], ["b", "b", "b"]] * 5
    >>> r = sis.against_reference(rows, reference=0)
    >>> r.by_rater["rater"].tolist(), r.by_rater["value"].round(3).tolist()
    ([1, 2], [0.5, 0.5])
    """

    reference: Any
    coefficient: str
    similarity: str
    by_rater: "pd.DataFrame" = field(repr=False, compare=False)
    confusion: "pd.DataFrame" = field(repr=False, compare=False)
    by_category: "pd.DataFrame" = field(repr=False, compare=False)
    disagreements: "pd.DataFrame" = field(repr=False, compare=False)
    warnings: tuple[str, ...] = ()
    interval: str = ""

    def to_frame(self) -> "pd.DataFrame":
        """The per-rater table (tidy, unrounded)."""
        return self.by_rater.copy()

    def __str__(self) -> str:
        parts = [f"{r.rater}: {r.value:.3f}" for r in self.by_rater.itertuples()]
        return f"{self.coefficient} against reference {self.reference} (similarity: {self.similarity}): " + ", ".join(parts)

    def to_markdown(self, *, digits: int = 3, top: int = 10) -> str:
        """The per-rater table and the ``top`` items with the largest disagreement, in Markdown."""
        table = render(self.by_rater, "markdown", digits=digits, columns=self._columns())
        if self.interval:
            table += f"\n\n{self.interval}"
        worst = render(self.disagreements.head(top), "markdown", digits=digits)
        return f"{self}\n\n{table}\n\nItems with the largest disagreement with {self.reference}:\n\n{worst}"

    def to_latex(self, *, digits: int = 3, caption: str | None = None, label: str | None = None) -> str:
        """The per-rater table as booktabs LaTeX (the caption, when given, ends with how the intervals were made)."""
        if caption is not None and self.interval:
            caption = f"{caption.rstrip().rstrip('.')}. {self.interval}" if caption.strip() else self.interval
        return render(self.by_rater, "latex", digits=digits, columns=self._columns(), caption=caption, label=label)

    def _columns(self) -> list[str]:
        cols = ["rater", "n_items", "value"]
        if self.by_rater[["ci_low", "ci_high"]].notna().any().any():
            cols += ["ci", "se"]
        return cols + ["observed", "expected"]

    def _repr_html_(self) -> str:
        return (f"<p>{html.escape(str(self))}</p>" + self.by_rater.to_html(index=False)
                + (f"<p><small>{html.escape(self.interval)}</small></p>" if self.interval else "")
                + "<p>Largest disagreements</p>" + self.disagreements.head(10).to_html(index=False))


def against_reference(ann: Any, reference: Any, *, coefficient: str = "cohen_kappa", similarity: Any = None,
                      weights: Any = None, ci: Any = None, top: int | None = None, **options: Any) -> ReferenceResult:
    """Each rater (or model) against a reference rater: coefficient with interval, confusion, per category, worst items.

    Parameters
    ----------
    ann : Annotations or wide table
        The raters and the reference.
    reference : rater id
        The reference (gold) rater.
    coefficient : str
        A two-rater coefficient for each (rater, reference) pair (default Cohen's kappa).
    similarity, weights :
        Soft agreement or categorical weights (also the ``mean_similarity`` columns).
    ci : None, "analytic", Analytic or Bootstrap
        Interval of each rater's coefficient.
    top : int, optional
        Keep only the ``top`` most disagreeing items (None: all items the reference rated).
    **options
        Further options of the coefficient. Krippendorff's ``level=`` other than nominal gives the
        ``mean_similarity`` columns (and so the ranking of the disagreements) the level's metric as
        a similarity, as for :func:`leave_one_rater_out` (ordinal: the metric of all the data's ratings).

    Returns
    -------
    ReferenceResult

    Examples
    --------
    >>> import softirr_stats as sis
    >>> rows = [["a", "a", "b"], ["b", "b", "b"], ["a", "b", "a"], ["b", "b", "b"]] * 5
    >>> r = sis.against_reference(rows, reference=0, top=2)
    >>> r.disagreements[["reference_label", "n_disagreeing"]].values.tolist()
    [['a', 1], ['a', 1]]
    """
    import pandas as pd

    coef = get_coefficient(coefficient)
    data = as_annotations(ann, options.get("categories"))
    if reference not in data.raters:
        raise ValueError(f"reference {reference!r} is not a rater of the data; raters are {list(data.raters)}")
    if data.n_raters < 2:
        raise ValueError("against_reference needs the reference and at least one other rater")
    sim_opts = {k: v for k, v in (("similarity", similarity), ("weights", weights)) if v is not None}
    S, sim_name = _agreement_matrix(data, coef, similarity, weights, options)
    codes = np.asarray(data.codes)
    g = data.raters.index(reference)
    others = [j for j in range(data.n_raters) if j != g]
    y_ref = codes[:, g]
    rows, notes = [], []
    for j in others:
        r = data.raters[j]
        both = (y_ref >= 0) & (codes[:, j] >= 0)
        if both.sum() < 2:
            notes.append(f"rater {r!r} shares fewer than 2 items with the reference and is left out")
            continue
        res = estimate_with_interval(coef, data.subset_raters([reference, r]), **options, **sim_opts, ci=ci)
        rows.append({"rater": r, "n_items": int(both.sum()), "value": res.value, "ci_low": res.ci_low,
                     "ci_high": res.ci_high, "se": res.se, "observed": res.observed, "expected": res.expected,
                     "level": res.level, "ci_method": res.ci_method,
                     **({"bootstrap_n": ci.n, "bootstrap_design": ci.design, "bootstrap_seed": ci.seed}
                        if isinstance(ci, Bootstrap) else {})})
    by_rater = pd.DataFrame(rows)
    K = len(data.vocabulary)
    Y = codes[:, others]  # (n, R-1)
    pair = (y_ref[:, None] >= 0) & (Y >= 0)
    ii, jj = np.nonzero(pair)
    cube = np.bincount(jj * K * K + y_ref[ii] * K + Y[ii, jj], minlength=len(others) * K * K).reshape(len(others), K, K)
    rj, rk, rl = np.nonzero(cube)
    vocab = np.asarray(data.vocabulary, dtype=object)
    names = np.asarray([data.raters[j] for j in others], dtype=object)
    confusion = pd.DataFrame({"rater": names[rj], "reference_label": vocab[rk], "rater_label": vocab[rl],
                              "count": cube[rj, rk, rl]})
    n_ref = cube.sum(axis=2)  # (R-1, K): the reference put the item in k
    n_rat = cube.sum(axis=1)  # the rater put it in k
    n_both = np.einsum("rkk->rk", cube)
    simsum = np.zeros((len(others), K))
    np.add.at(simsum, (jj, y_ref[ii]), S[Y[ii, jj], y_ref[ii]])
    with np.errstate(invalid="ignore", divide="ignore"):
        by_category = pd.DataFrame({
            "rater": np.repeat(names, K), "category": np.tile(vocab, len(others)),
            "n_reference": n_ref.ravel(), "n_rater": n_rat.ravel(), "n_both": n_both.ravel(),
            "specific_agreement": (2.0 * n_both / (n_ref + n_rat)).ravel(),
            "recall": (n_both / n_ref).ravel(), "precision": (n_both / n_rat).ravel(),
            "mean_similarity": (simsum / n_ref).ravel()})
    sims = np.where(pair, S[np.where(pair, Y, 0), np.where(pair, y_ref[:, None], 0)], np.nan)
    n_pair = pair.sum(axis=1)
    with np.errstate(invalid="ignore"):
        mean_sim = np.where(n_pair > 0, np.nansum(sims, axis=1) / np.where(n_pair > 0, n_pair, 1), np.nan)
    n_dis = (pair & (Y != y_ref[:, None])).sum(axis=1)
    keep = np.flatnonzero(n_pair > 0)
    order = keep[np.lexsort((-n_dis[keep], mean_sim[keep]))]
    if top is not None:
        order = order[:int(top)]
    labels = np.where(Y >= 0, vocab[np.where(Y >= 0, Y, 0)], None)
    dis = pd.DataFrame({"item": np.asarray(data.items, dtype=object)[order], "reference_label": vocab[y_ref[order]],
                        "n_raters": n_pair[order], "n_disagreeing": n_dis[order], "mean_similarity": mean_sim[order]})
    for c, name in enumerate(names):
        dis[str(name)] = labels[order, c]
    return ReferenceResult(reference, coef.name, sim_name, by_rater, confusion, by_category,
                           dis.reset_index(drop=True), tuple(notes), _interval_text(by_rater, ci))


def _interval_text(by_rater: "pd.DataFrame", ci: Any) -> str:
    """How the per-rater intervals were made, for the note under the tables (``""`` without intervals).

    Examples
    --------
    >>> import pandas as pd
    >>> _interval_text(pd.DataFrame({"level": [0.95], "ci_method": ["bootstrap-bca"]}), Bootstrap(n=200, seed=3))
    'Intervals: 95% bootstrap-bca, B=200, design=items, seed=3.'
    """
    if ci is None or by_rater.empty:
        return ""
    methods = ", ".join(dict.fromkeys(str(m) for m in by_rater["ci_method"]))
    text = f"Intervals: {float(by_rater['level'].iloc[0]) * 100:g}% {methods}"
    if isinstance(ci, Bootstrap):
        text += f", B={ci.n}, design={ci.design}, seed={ci.seed}"
    return text + "."
