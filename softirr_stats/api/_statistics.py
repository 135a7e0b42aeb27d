"""Public multi-label, cross-replication and distance-distribution agreement.

``multilabel_agreement`` (Hamming agreement with pooled / AC1 / PABAK baselines, its exact
label-wise decomposition and the conditional minimum feasible agreement), ``cross_kappa``
(Wong, Paritosh & Aroyo 2021) and ``distance_agreement`` (Braylan, Alonso & Lease 2022).
Options are keyword-only; each returns a result dataclass from ``softirr_stats.agreement``.
"""

import math
import warnings
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.agreement import (
    BASELINES,
    ITEM_WEIGHTS,
    KDE_LOWER,
    AgreementResult,
    CrossKappaResult,
    DegenerateWarning,
    MultilabelResult,
    MultilabelStatistic,
    as_annotations,
    distance_samples,
    distance_statistic,
    kde_bandwidth,
    ks_greater,
    level_similarity,
    match_replications,
    multilabel_data,
    multilabel_summary,
    normalized_kappa,
    replication_alpha,
    resolve_similarity,
    sigma_kde,
    sigma_quantile,
    xrr_evaluate,
    xrr_prepare,
)
from softirr_stats.base._validation import (
    TooFewUnitsError,
    check_choice,
    check_positive_int,
    check_seed,
)
from softirr_stats.data import Annotations, single_rater_replication
from softirr_stats.uncertainty import attach_interval, check_ci

__all__ = ["multilabel_agreement", "cross_kappa", "check_distance_options", "distance_agreement", "read_spans",
           "span_agreement"]

XRR_LEVELS = ("nominal", "interval", "ratio")
DISTANCE_METHODS = ("ks", "sigma")


# ---------------------------------------------------------------------------------------------
# multi-label agreement


def _as_multilabel(ann: Any, labels: Any) -> Annotations:
    """Annotations of set-valued labels from ``ann``: a 0/1 array of 3 dimensions (items, raters, labels), as an
    ndarray or nested lists / tuples of numbers (None or NaN for a missing rating), is ``from_multilabel``'s;
    anything else is read as :func:`as_annotations` reads it (a wide table whose cells are sets of str)."""
    arr = _number_array_3d(ann)
    if arr is not None:
        return Annotations.from_multilabel(arr, labels=labels)
    return as_annotations(ann)


def _number_array_3d(data: Any) -> np.ndarray | None:
    """``data`` as an array when it is an array-like of numbers with 3 dimensions (None read as NaN), else None."""
    if isinstance(data, np.ndarray):
        arr = data
    elif isinstance(data, list | tuple):
        try:
            arr = np.asarray(data)
        except ValueError:  # ragged: a wide table whose cells are lists of labels
            return None
    else:
        return None
    if arr.ndim != 3:
        return None
    if arr.dtype.kind in "biuf":
        return arr
    if arr.dtype.kind == "O":  # numbers with None for a missing rating: no text (a "1" stays a label)
        is_number = np.frompyfunc(lambda v: v is None or (isinstance(v, int | float | np.number)), 1, 1)
        if np.asarray(is_number(arr), dtype=bool).all():
            return np.asarray(arr, dtype=np.float64)
    return None


def multilabel_agreement(ann: Any, *, baseline: str = "fleiss", labels: Any = None, ci: Any = None) -> MultilabelResult:
    """Multi-label (Hamming) agreement, chance-corrected per label and decomposed label-wise.

    Parameters
    ----------
    ann : Annotations with set-valued labels, or a 0/1 array (items, raters, labels)
        The array may be nested lists of numbers (None or NaN for a missing rating).
        ``Annotations.from_multilabel`` keeps the declared label universe (never-selected
        labels count, as they do in the definition).
    baseline : {"fleiss", "ac1", "pabak"}
        Chance agreement per label j: pooled ``p_j^2 + (1 - p_j)^2``, AC1 ``2 p_j (1 - p_j)``,
        or PABAK ``1/2``; ``p_j`` is the label's prevalence pooled over raters.
    labels : sequence of str, optional
        The label universe (order of ``by_label``); default ``ann.label_universe``.
    ci : None or Bootstrap
        Every design is supported (items, raters, items+raters, cluster, bayesian).

    Returns
    -------
    MultilabelResult
        ``value`` = ``(A_o - A_e) / (1 - A_e)`` = ``sum_j weight_j * kappa_j``; ``observed`` =
        mean Hamming agreement ``A_o``; ``expected`` = ``A_e``; ``floor`` = the coefficient at
        the minimum Hamming agreement the label prevalences allow; ``raw_prevalence``;
        ``by_label`` (label, prevalence, observed, expected, coefficient, weight, floor_observed);
        ``by_item`` (item, n_raters, hamming_agreement, n_disagreeing_labels, coefficient).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.array([[[1, 0, 0], [1, 0, 0]], [[0, 1, 0], [0, 1, 1]], [[1, 1, 0], [0, 1, 0]]])
    >>> r = multilabel_agreement(x, baseline="pabak")
    >>> round(r.observed, 4), round(r.value, 4)
    (0.7778, 0.5556)
    """
    check_choice("baseline", baseline, BASELINES)
    check_ci(ci, analytic=False)
    ann = _as_multilabel(ann, labels)
    data = multilabel_data(ann, labels)
    if (data.mask.sum(axis=1) >= 2).sum() == 0:
        raise ValueError("no item has two or more ratings: agreement is undefined (no pairable item)")
    s = multilabel_summary(data, baseline)
    notes: list[str] = []
    if ann.unpairable_items:
        ann.warn_unpairable(stacklevel=3)
        notes.append(ann.unpairable_message())  # the warning's text: printed once with it
    bad = s["degenerate_labels"]
    if len(bad):
        names = [data.labels[k] for k in bad[:5]]
        msg = (f"{len(bad)} of {data.n_labels} labels have expected agreement 1 (selected by every rating or by "
               f"none, e.g. {names}): their label coefficient is nan and their weight 0; they still count in "
               "A_o and A_e")
        warnings.warn(msg, DegenerateWarning, stacklevel=2)
        notes.append(msg)
    if math.isnan(s["value"]):
        msg = "multilabel_agreement is undefined: expected agreement is 1 on every label"
        warnings.warn(msg, DegenerateWarning, stacklevel=2)
        notes.append(msg)
    by_label = pd.DataFrame({
        "label": list(data.labels), "prevalence": s["prevalence"], "observed": s["ao_j"], "expected": s["ae_j"],
        "coefficient": s["kappa_j"], "weight": s["weight"], "floor_observed": s["floor_j"],
    })
    by_item = pd.DataFrame({
        "item": list(ann.items), "n_raters": s["r_items"], "hamming_agreement": s["hamming_items"],
        "n_disagreeing_labels": s["n_disagreeing"], "coefficient": s["item_coefficient"],
    })
    result = MultilabelResult(
        coefficient=f"multilabel_{baseline}", value=s["value"], observed=s["pa"], expected=s["pe"],
        n_items=int((data.mask.sum(axis=1) >= 1).sum()), n_raters=int(data.mask.any(axis=0).sum()),
        similarity="hamming", chance=baseline, warnings=tuple(notes),
        details={"n_pairable_items": s["n_pairable_items"], "n_labels": data.n_labels, "labels": data.labels,
                 "minimum_observed": s["ao_min"], "hamming_alpha": s["hamming_alpha"],
                 "kappa_rating_weighted": s["kappa_rating_weighted"],
                 "n_pairable_ratings": s["n_pairable_ratings"]},
        floor=s["floor"], raw_prevalence=s["raw_prevalence"], by_label=by_label, by_item=by_item,
    )
    return attach_interval(result, MultilabelStatistic(data, baseline), ci)


# ---------------------------------------------------------------------------------------------
# cross-replication reliability


def cross_kappa(ann_x: Any, ann_y: Any, *, similarity: Any = None, level: str = "nominal",
                item_weights: str = "ratings", ci: Any = None) -> CrossKappaResult:
    """Cross-replication reliability ``kappa_x`` (Wong, Paritosh & Aroyo 2021) and its normalised form.

    Parameters
    ----------
    ann_x, ann_y : Annotations or wide tables
        Two replications of the same annotation task; items are matched by id, and items
        rated in only one replication are ignored (``details["n_items_only_x"]`` / ``_y``).
        The vocabularies may differ: distances live on their union (``details["vocabulary"]``).
        A replication may have a single rater (one expert against a crowd): give it as a wide
        table with one column (a long table: ``df.pivot(index="item", columns="rater",
        values="label")``); its IRR is then nan, and so is ``normalized``.
    similarity : None, estimator, callable or matrix over the union vocabulary
        Distance ``1 - s``; None is exact matching (nominal).
    level : {"nominal", "interval", "ratio"}
        Numeric levels use Krippendorff's metric (squared difference for interval).
    item_weights : {"ratings", "equal"}
        ``"ratings"`` weights item i by ``R_x,i + R_y,i`` (the paper's eqs. 9-11 and Google's
        reference code); ``"equal"`` weights items equally. Identical with balanced designs.
    ci : None or Bootstrap (designs items, cluster, bayesian)

    Returns
    -------
    CrossKappaResult
        ``value`` = kappa_x = ``1 - d_o / d_e``; ``observed`` = ``1 - d_o``; ``expected`` =
        ``1 - d_e``; ``irr_x``, ``irr_y`` = Krippendorff's alpha of each replication on the
        matched items with the same distance; ``normalized`` = ``kappa_x / sqrt(irr_x irr_y)``
        (nan, with a warning, unless both IRRs are positive).

    Examples
    --------
    Google's reference test (nominal, two labels, two extra items in X): 0.1818182.

    >>> x = [["B", "B", None], ["B", "B", "B"], ["A", "A", None], ["A", "A", "A"], ["A", "B", None],
    ...      ["A", "A", "A"], ["A", "A", "B"]]
    >>> y = [["B", "B"], ["A", "B"], ["A", "B"], ["A", "B"], ["A", "A"]]
    >>> r = cross_kappa(Annotations.from_wide(x, items=range(1, 8)), Annotations.from_wide(y, items=range(1, 6)))
    >>> round(r.value, 7), r.details["n_items_only_x"]
    (0.1818182, 2)
    """
    check_choice("level", level, XRR_LEVELS)
    check_choice("item_weights", item_weights, ITEM_WEIGHTS)
    check_ci(ci, analytic=False, rater_designs="the two replications have different raters")
    with single_rater_replication():  # kappa_x is defined for a replication of one rater; nothing else is
        ax, ay = as_annotations(ann_x), as_annotations(ann_y)
    data = match_replications(ax, ay)
    sim = level_similarity(data.union, level, similarity)
    prep = xrr_prepare(data, sim, item_weights)
    out = xrr_evaluate(prep)
    kx, d_o, d_e = float(out["value"][0]), float(out["d_o"][0]), float(out["d_e"][0])
    notes: list[str] = []
    if data.n_only_x or data.n_only_y:
        notes.append(f"ignored items rated in one replication only: {data.n_only_x} in X, {data.n_only_y} in Y")
    if math.isnan(kx):
        msg = ("cross_kappa is undefined: expected cross-replication disagreement d_e is 0 (both replications "
               "use one label, or labels the similarity treats as equivalent)")
        warnings.warn(msg, DegenerateWarning, stacklevel=2)
        notes.append(msg)
    irr_notes: list[str] = []
    irr_x, prep_x = replication_alpha(data, "x", sim, irr_notes)
    irr_y, prep_y = replication_alpha(data, "y", sim, irr_notes)
    prep.irr_prep.update(x=prep_x, y=prep_y)
    norm = float(normalized_kappa(kx, irr_x, irr_y))
    if math.isnan(norm):
        irr_notes.append(f"normalized kappa_x is undefined: it needs IRR_X > 0 and IRR_Y > 0; got {irr_x!r} and "
                             f"{irr_y!r}")
    for m in irr_notes:
        warnings.warn(m, DegenerateWarning, stacklevel=2)
    notes += irr_notes
    union = data.union
    result = CrossKappaResult(
        coefficient="cross_kappa", value=kx, observed=1.0 - d_o, expected=1.0 - d_e,
        n_items=union.n_items, n_raters=int((union.codes >= 0).any(axis=0).sum()), similarity=sim.name,
        chance="exact", n_pairs_scored=prep.n_scored + sum(p.n_pairs_scored for p in (prep_x, prep_y) if p is not None),
        warnings=tuple(notes),
        details={"d_o": d_o, "d_e": d_e, "n_items_only_x": data.n_only_x, "n_items_only_y": data.n_only_y,
                 "items_only_x": data.x_items_only, "items_only_y": data.y_items_only,
                 "item_weights": item_weights, "n_cross_pairs": prep.n_cross_pairs, "level": level,
                 "vocabulary": union.vocabulary},
        normalized=norm, irr_x=irr_x, irr_y=irr_y,
    )
    out = attach_interval(result, prep, ci)
    note = _normalized_interval_note(out.details)
    if note:
        warnings.warn(note, DegenerateWarning, stacklevel=2)
        out = replace(out, warnings=(*out.warnings, note))
    return out


#: above this share of undefined normalised replicates, the normalised interval is said not to be reliable
_NORMALIZED_NAN_SHARE = 0.10


def _normalized_interval_note(details: dict) -> str:
    """What the normalised kappa_x interval leaves out: the replicates where IRR_X <= 0 or IRR_Y <= 0 (nan), so the
    interval is conditional on both IRRs being positive in the resample; '' where none was left out (or no
    interval was asked for, or none exists).

    Examples
    --------
    >>> print(_normalized_interval_note({"normalized_replicates": np.array([0.5, np.nan, 0.7, 0.6]),
    ...                                  "normalized_n_nan_replicates": 1}))  # doctest: +ELLIPSIS
    normalized kappa_x interval: 1 of 4 bootstrap replicates (25.0%) had IRR_X <= 0 or IRR_Y <= 0 ... not reliable...
    >>> _normalized_interval_note({"normalized_replicates": np.array([0.5, 0.7]), "normalized_n_nan_replicates": 0})
    ''
    """
    n_nan = details.get("normalized_n_nan_replicates", 0)
    reps = details.get("normalized_replicates")
    if not n_nan or reps is None or n_nan == len(reps):  # all undefined: the point value's note says why
        return ""
    share = n_nan / len(reps)
    text = (f"normalized kappa_x interval: {n_nan} of {len(reps)} bootstrap replicates ({share:.1%}) had IRR_X <= 0 "
            "or IRR_Y <= 0 in the resample (normalized undefined) and were left out, so the interval is conditional "
            "on both IRRs being positive")
    if share > _NORMALIZED_NAN_SHARE:
        text += (f"; with more than {_NORMALIZED_NAN_SHARE:.0%} of the replicates left out it is not reliable: report "
                 "kappa_x's interval, and the normalized value without one")
    return text


# ---------------------------------------------------------------------------------------------
# distance-distribution agreement (Braylan et al. 2022)


def check_distance_options(*, method: str = "ks", threshold: float = 0.05, kde: bool = True, kde_lower: str = "zero",
                           expected_pairs: Any = "all", seed: int = 0) -> None:
    """Validate :func:`distance_agreement`'s options (a ValueError or TypeError naming the keyword), before any data.

    Examples
    --------
    >>> check_distance_options(threshold=0.01, kde=False, expected_pairs=500)
    >>> check_distance_options(threshold=5)
    Traceback (most recent call last):
    ...
    ValueError: threshold must be a number in (0, 1); got 5
    """
    check_choice("method", method, DISTANCE_METHODS)
    check_choice("kde_lower", kde_lower, KDE_LOWER)
    if isinstance(threshold, bool) or not isinstance(threshold, int | float) or not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must be a number in (0, 1); got {threshold!r}")
    if not isinstance(kde, bool):
        raise TypeError(f"kde must be True or False; got {kde!r}")
    if not (isinstance(expected_pairs, str) and expected_pairs == "all"):
        if isinstance(expected_pairs, str):
            raise ValueError(f"expected_pairs must be 'all' or a positive integer; got {expected_pairs!r}")
        check_positive_int(expected_pairs, "expected_pairs")
    check_seed(seed)


def distance_agreement(ann: Any, *, similarity: Any = None, method: str = "ks", threshold: float = 0.05,
                       kde: bool = True, kde_lower: str = "zero", expected_pairs: Any = "all",
                       seed: int = 0, ci: Any = None) -> AgreementResult:
    """Braylan, Alonso & Lease (2022) agreement from within- vs cross-item distance distributions.

    Parameters
    ----------
    ann : Annotations or a wide table
    similarity : None, estimator, callable or K x K matrix
        Distance ``d = 1 - s`` (None: exact matching, distances 0/1).
    method : {"ks", "sigma"}
        Which measure is ``value``; both are in ``details``.
    threshold : float in (0, 1)
        sigma's significance level (0.05 in the reference code).
    kde : bool
        sigma from a Gaussian KDE of the expected distances (reference default) or, with
        False, from their ``threshold`` quantile (``d < quantile``, strict).
    kde_lower : {"zero", "-inf"}
        Lower limit of the KDE integral; ``"zero"`` matches the reference code.
    expected_pairs : "all" or int
        All cross-item pairs (exact; counted from label totals) or a seeded sample of that
        many cross-item pairs (with replacement).
    seed : int
        Seed of the sample of expected pairs.
    ci : None or Bootstrap
        Every design is supported (items, raters, items+raters, cluster, bayesian). A
        replicate recomputes both distance samples from the resampled items and raters (their
        weights multiply the pairs they form); sampled expected pairs are resampled too. The
        measure not chosen by ``method`` gets a percentile interval in ``details``
        (``sigma_ci_low`` / ``sigma_ci_high`` or ``ks_ci_low`` / ``ks_ci_high``).

    Returns
    -------
    AgreementResult
        ``value`` = KS or sigma; ``observed`` / ``expected`` = ``1 - mean(D_o)`` and
        ``1 - mean(D_e)``; ``details`` holds ``ks``, ``sigma``, ``sigma_method``,
        ``flat_alpha`` (``1 - mean(D_o)/mean(D_e)``), ``quantile``, ``bandwidth`` and the
        numbers of pairs.

    Examples
    --------
    The Braylan toy (docs/formulas/reference_values.md): KS 0.9047619048, sigma 6/7, flat alpha 0.8.

    >>> rows = [[1.0, 2.0, 1.5], [5.0, 5.5, None], [9.0, 7.0, 8.0]]
    >>> sim = lambda a, b: 1 - np.abs(np.asarray(a) - np.asarray(b)) / 10
    >>> r = distance_agreement(rows, similarity=sim)
    >>> round(r.value, 10), round(r.details["sigma"], 10), round(r.details["flat_alpha"], 10)
    (0.9047619048, 0.8571428571, 0.8)
    >>> from softirr_stats import Bootstrap
    >>> r = distance_agreement(rows, similarity=sim, ci=Bootstrap(n=200, seed=0))
    >>> bool(r.ci_low <= r.value <= r.ci_high), r.details["bootstrap_design"]
    (True, 'items')
    """
    check_distance_options(method=method, threshold=threshold, kde=kde, kde_lower=kde_lower,
                           expected_pairs=expected_pairs, seed=seed)
    check_ci(ci, analytic=False)
    ann = as_annotations(ann)
    sim = resolve_similarity(ann, similarity=similarity)
    s = distance_samples(ann, sim, expected_pairs, seed)
    notes = list(s.notes)
    mean_o = float(np.sum(s.obs * s.obs_w) / s.n_obs)
    mean_e = float(np.sum(s.exp * s.exp_w) / s.n_exp)
    flat_alpha = 1.0 - mean_o / mean_e if mean_e > 0 else math.nan
    ks = ks_greater(s.obs, s.obs_w, s.exp, s.exp_w)
    sig_q, quant = sigma_quantile(s, threshold)
    bandwidth = math.nan
    sigma_method = "quantile"
    sigma = sig_q
    if kde:
        bandwidth = kde_bandwidth(s.exp, s.exp_w) if s.n_exp > 1 else 0.0
        if bandwidth > 0 and math.isfinite(bandwidth):
            sigma = sigma_kde(s, threshold, kde_lower, bandwidth)
            sigma_method = f"kde(lower={kde_lower})"
        else:
            msg = ("the expected distances are constant (or a single pair): their KDE is singular, so sigma uses "
                   "the quantile variant (d < quantile(D_e, threshold))")
            warnings.warn(msg, DegenerateWarning, stacklevel=2)
            notes.append(msg)
    if math.isnan(flat_alpha):
        notes.append("flat alpha is undefined: every expected distance is 0")
    value = ks if method == "ks" else sigma
    d = {"ks": ks, "sigma": sigma, "sigma_method": sigma_method, "sigma_quantile": sig_q, "quantile": quant,
         "bandwidth": bandwidth, "flat_alpha": flat_alpha, "threshold": float(threshold),
         "n_observed_pairs": int(round(s.n_obs)), "n_expected_pairs": int(round(s.n_exp)),
         "expected_pairs": s.expected_label, "seed": seed, "mean_observed_distance": mean_o,
         "mean_expected_distance": mean_e}
    d_ann = ann.ratings_per_item
    result = AgreementResult(
        coefficient=f"braylan_{method}", value=float(value), observed=1.0 - mean_o, expected=1.0 - mean_e,
        n_items=int((d_ann >= 1).sum()), n_raters=int((ann.codes >= 0).any(axis=0).sum()), similarity=sim.name,
        chance=f"cross-item pairs: {s.expected_label}", n_pairs_scored=s.n_scored, warnings=tuple(notes),
        details=d,
    )
    if ci is None:
        return result
    stat = distance_statistic(ann, sim, method=method, threshold=float(threshold), kde=kde, kde_lower=kde_lower,
                              expected_pairs=expected_pairs, seed=seed)
    return attach_interval(result, stat, ci)


# ---------------------------------------------------------------------------------------------
# span agreement (pairwise F1 between annotators)

#: Label the span reader gives "annotated the document, no span here" while span_agreement reads.
_NO_SPAN = "\x00no-span"


def _check_span_rule(ann: Annotations) -> None:
    """Refuse span Annotations a reader made under the overlap span rule (recorded by the reader,
    ``data._readers.span_rules``): their items are named by the union of the spans matched across annotators,
    which are nobody's offsets, so F1 on them is neither the exact nor the overlap F1 of the spans."""
    from softirr_stats.data import span_rules

    odd = [rule for rule in span_rules(ann) if rule.match != "exact"]
    if odd:
        raise ValueError(f"span_agreement needs span Annotations read with the exact span rule; these were read with "
                         f"span_rule={odd[0]!r}, whose items are named by the union of the spans matched across "
                         "annotators (nobody's offsets), so their F1 would be neither the exact nor the overlap F1. "
                         "Pass the export's path instead and choose the matching with match= (span_agreement(path, "
                         "match='overlap') or match='overlap:<IoU>'), or read it with span_rule='exact'")


def read_spans(spans: Any, *, format: str | None, unmatched: str | None, reader_options: dict) -> Any:
    """A :class:`SpanTable` from a tidy DataFrame, span Annotations or a file / folder (a SpanTable as it is): what
    ``span_agreement`` reads, apart from what it computes (``softirr spans`` reads in its reading context only)."""
    from pathlib import Path

    from softirr_stats.data import SpanRule, read_annotations, read_table
    from softirr_stats.spans import SpanTable, span_table, span_table_from_annotations

    if isinstance(spans, SpanTable):
        if reader_options:
            raise TypeError(f"reader options {sorted(reader_options)} apply only when ann_or_path is a path; got "
                            "a SpanTable")
        return spans

    if reader_options and not isinstance(spans, str | Path):
        raise TypeError(f"reader options {sorted(reader_options)} apply only when ann_or_path is a path; got "
                        f"{type(spans).__name__}")
    if isinstance(spans, pd.DataFrame):
        return span_table(spans)
    if isinstance(spans, Annotations):
        _check_span_rule(spans)
        return span_table_from_annotations(spans, unmatched=unmatched)
    if isinstance(spans, str | Path):
        from softirr_stats.data import EXPORT_FORMATS, guess_format

        if "span_rule" in reader_options:
            raise TypeError("span_agreement reads the spans themselves (the exact span rule); choose the matching "
                            "with match= instead of span_rule=")
        fmt = format if format is not None else guess_format(spans, columns=("document", "annotator", "type"))
        if fmt not in EXPORT_FORMATS:
            if reader_options:
                raise TypeError(f"options {sorted(reader_options)} apply only to export formats "
                                f"{sorted(EXPORT_FORMATS)}; this file is read as {fmt!r}")
            return span_table(read_table(spans, format=fmt))
        ann = read_annotations(spans, format=fmt, span_rule=SpanRule(match="exact", unmatched=_NO_SPAN),
                               **reader_options)
        return span_table_from_annotations(ann, unmatched=_NO_SPAN)
    raise TypeError("ann_or_path must be a DataFrame with columns document, annotator, start, end, type; span "
                    f"Annotations; or the path of a span export; got {type(spans).__name__}")


def span_agreement(ann_or_path: Any, *, match: str = "exact", by: str = "type", average: str = "micro",
                   similarity: Any = None, format: str | None = None, unmatched: str | None = "O",
                   ci: Any = None, **reader_options: Any) -> Any:
    """Pairwise F1 between annotators of spans (Hripcsak & Rothschild 2005), with document-bootstrap intervals.

    Every pair of annotators is compared on the documents both annotated: ``F1 = 2 TP / (n_a +
    n_b)``, TP the spans matched one-to-one (see ``docs/span_agreement.md``). ``value`` is the
    mean over pairs; it equals bratiaa's mean pairwise F1 with ``match="exact"``.

    Parameters
    ----------
    ann_or_path : DataFrame, Annotations, str or Path
        The spans: a tidy table with columns ``document, annotator, start, end, type`` (``text`` optional;
        offsets end-exclusive; every annotator is taken to have annotated every document in it;
        a row with start, end and type missing declares a document without spans); span
        :class:`Annotations` read with the exact span rule (those a reader made under the overlap rule
        are refused: pass the path); or the path of a span export
        (brat, WebAnno TSV, Label Studio, doccano, Prodigy; a CSV / TSV / JSONL span table),
        whose reader tells who annotated which document; or a span table read already
        (``softirr_stats.api.read_spans``).
    match : {"exact", "overlap", "overlap:<IoU>"}
        When two spans may match: identical offsets; at least one shared character; or a
        character IoU of at least the given number in (0, 1].
    by : {"type", "all"}
        ``"type"``: spans match only within a type (and each type is reported); ``"all"``:
        types are ignored (boundary agreement).
    average : {"micro", "macro"}
        A pair's F1 from the counts pooled over types, or the mean of its per-type F1.
    similarity : None, estimator, callable, measure name or K x K array
        Soft type matching (``by="type"``): spans match whatever their types, and a matched pair
        credits ``P(type_a == type_b)`` instead of 1 or 0. Exact matching gives the hard numbers.
    ci : None or Bootstrap
        A document bootstrap (``design="items"``: documents are the resampling unit;
        ``"cluster"`` groups documents, ``"bayesian"``); ``by_pair`` and ``by_type`` get
        percentile intervals too. Rater designs are refused (pairs are fixed). The units are the
        informative documents, those holding a span of an annotator whose partner in a pair
        annotated the document too (``n_items``; the others change no F1 and are named in a
        ``SpanWarning``). With ``method="auto"`` (the default), the items design and at most 1,000
        of them, the value's interval is the document jackknife's Student-t interval on the logit
        scale (``ci_method`` ``"jackknife-t-logit"``, ``n_items - 1`` df; docs/coverage.md, "Span
        F1"); the bootstrap gives ``se``. Few units are handled as for every coefficient: a
        ``FewUnitsWarning`` below 20 documents or 10 clusters, and ``few_units=`` widens a cluster
        design's interval (and the tables' bounds) by the Student-t factor.
    format : str, optional
        The export format of a path (default: guessed).
    unmatched : str or None
        With :class:`Annotations`: the label meaning "annotated, no span" (the span rule's
        ``"O"``).
    **reader_options
        Options of the export reader (``field=``, ``layer=``, ``feature=``, ...).

    Returns
    -------
    SpanAgreementResult
        ``value`` (mean pairwise F1), ``by_pair``, ``by_type``, ``by_document`` (tidy tables).

    Examples
    --------
    >>> import pandas as pd
    >>> spans = pd.DataFrame({
    ...     "document": ["d1", "d1", "d1", "d1", "d1"], "annotator": ["ann", "ann", "bob", "bob", "bob"],
    ...     "start": [0, 10, 0, 10, 20], "end": [4, 15, 4, 14, 25], "type": ["PER", "LOC", "PER", "LOC", "ORG"]})
    >>> r = span_agreement(spans)
    >>> round(r.value, 4), r.by_pair[["tp", "fp", "fn"]].values.tolist()
    (0.4, [[1.0, 2.0, 1.0]])
    >>> round(span_agreement(spans, match="overlap").value, 4)
    0.8
    >>> r.by_type[["type", "f1"]].values.tolist()
    [['LOC', 0.0], ['ORG', 0.0], ['PER', 1.0]]
    """
    import numpy as np

    from softirr_stats.spans import (
        SPAN_AVERAGES,
        SPAN_BY,
        SpanStatistic,
        informative_documents,
        parse_match,
        span_counts,
        span_summary,
    )
    from softirr_stats.uncertainty import (
        BOOTSTRAP_DESIGNS,
        LOGIT_JACKKNIFE_T,
        TOO_FEW_UNITS_POINT,
        Bootstrap,
        draw_weights,
        few_units_handling,
        jackknife_strata,
        jackknife_values,
        logit_jackknife_t_interval,
        percentile_interval,
        resolve_method,
        summarize_replicates,
    )

    parse_match(match)
    check_choice("by", by, SPAN_BY)
    check_choice("average", average, SPAN_AVERAGES)
    cfg = check_ci(ci, analytic=False, rater_designs="the annotator pairs are fixed")
    tab = read_spans(ann_or_path, format=format, unmatched=unmatched, reader_options=reader_options)
    counts = span_counts(tab, match=match, by=by, similarity=similarity)
    stat = SpanStatistic(counts, tab.documents, len(tab.annotators), average)
    sim_name = counts.similarity
    if not isinstance(cfg, Bootstrap):  # None (check_ci refuses "analytic" here)
        return span_summary(stat, tab, match=match, by=by, similarity_name=sim_name)
    # the interval's units are the informative documents (those adding to some pair's span count): the others
    # change no F1 under any weights, and counted as units they would add degrees of freedom, few-units
    # counts and replicates that drew none of the informative ones (nan)
    keep = informative_documents(counts)
    if keep.sum() < 2:
        raise TooFewUnitsError(f"a document bootstrap needs at least 2 documents that hold a span of an annotator pair who "
                         f"both annotated them (documents are the resampling unit); got {int(keep.sum())} of "
                         f"{len(tab.documents)} documents. Give more documents annotated by two or more annotators, "
                         f"or {TOO_FEW_UNITS_POINT}")
    unit = stat.on_documents(keep)
    cfg = _design_on_documents(cfg, tab.documents, keep)
    parts: dict[str, list] = {"value": [], "pair": [], "type": []}
    from softirr_stats.base._batching import rows_per_chunk

    step = rows_per_chunk(unit.n_items + 4 * len(counts.pairs) * len(counts.types), maximum=512)
    for start in range(0, cfg.n, step):  # chunks of replicates (bounded memory), each one matrix product
        C, _, _ = draw_weights(unit, cfg, start, min(start + step, cfg.n))
        t = unit.tables(C)
        for k in parts:
            parts[k].append(t[k])
    reps = {k: np.concatenate(v) for k, v in parts.items()}
    unit_strata = jackknife_strata(unit, cfg)
    # the few-units rule of every coefficient (FewUnitsWarning, the Student-t factor of few clusters)
    factor, notes = few_units_handling(unit, cfg, reps["value"], unit_strata)
    point = unit.tables()
    bounds = {k: _widened(np.array([percentile_interval(reps[k][:, j], cfg.level) for j in range(reps[k].shape[1])],
                                   dtype=np.float64).reshape(-1, 2), point[k][0], factor)
              for k in ("pair", "type")}  # one row per pair / type
    result = span_summary(stat, tab, match=match, by=by, similarity_name=sim_name, intervals=bounds)
    rec = BOOTSTRAP_DESIGNS[cfg.design]
    one_by_one = rec.resamples_items and not (rec.resamples_clusters or rec.resamples_raters or rec.fractional)
    if cfg.method == "auto" and one_by_one and resolve_method("auto", cfg.design, unit.n_items)[0] == "bca-t":
        # F1 is a ratio of sums over documents of unequal length: where "auto" would give bca-t (<= 1,000
        # documents), the value's interval is the document jackknife's Student-t interval on the logit scale
        # (bca-t covered 91.4-93.7% at 20-80 documents on long-tailed documents; this one 93.1-95.6%,
        # docs/coverage.md, "Span F1")
        jack = jackknife_values(unit, cfg)
        lo, hi, note = logit_jackknife_t_interval(result.value, jack, cfg.level)
        if math.isfinite(lo):
            out = summarize_replicates(result, reps["value"], replace(cfg, method="percentile"), lambda: jack, notes,
                                       widen=factor)
            on_logit = "original scale" not in note  # a value at 0 or 1 has no logit: formed on the F1 scale
            rule = (f"method='auto' for span F1 (items design, {unit.n_items} <= 1000 informative documents): "
                    f"Student-t with {unit.n_items - 1} df and the leave-one-document-out jackknife SE on the "
                    f"{'logit' if on_logit else 'original'} scale")
            out = out.with_interval(lo, hi, out.se, cfg.level, LOGIT_JACKKNIFE_T if on_logit else "jackknife-t",
                                    interval_rule=rule, t_dof=unit.n_items - 1)
            return replace(out, warnings=(*out.warnings, note)) if note else out
    return summarize_replicates(result, reps["value"], cfg, lambda: jackknife_values(unit, cfg), notes,
                                widen=factor, unit_strata=unit_strata)


def _widened(bounds: np.ndarray, estimates: np.ndarray, factor: float) -> np.ndarray:
    """Percentile bounds (k, 2) with their distances from ``estimates`` (k,) scaled by the few-units ``factor``
    (:func:`~softirr_stats.uncertainty._few_units.widen_interval` row by row; a nan estimate or bound stays)."""
    if factor == 1.0:
        return bounds
    est = np.asarray(estimates, dtype=np.float64)
    ok = np.isfinite(est) & np.isfinite(bounds).all(axis=1)
    out = bounds.copy()
    out[ok, 0] = est[ok] - factor * (est[ok] - bounds[ok, 0])
    out[ok, 1] = est[ok] + factor * (bounds[ok, 1] - est[ok])
    return out


def _design_on_documents(cfg: Any, documents: tuple, keep: np.ndarray) -> Any:
    """``cfg`` over the documents ``keep`` selects: a ``cluster=`` or ``strata=`` given as a sequence aligned
    with all ``documents`` is checked against them and cut to the kept ones (a mapping is looked up as it is)."""
    from collections.abc import Mapping

    from softirr_stats.uncertainty import per_item_codes

    changes = {}
    for name in ("cluster", "strata"):
        values = getattr(cfg, name)
        if values is None or isinstance(values, Mapping):
            continue
        per_item_codes(values, documents, name)  # one entry per document read, or a clear error
        changes[name] = pd.Series(list(values), dtype=object)[keep].tolist()
    return replace(cfg, **changes) if changes else cfg
