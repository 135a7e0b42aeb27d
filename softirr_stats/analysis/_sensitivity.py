"""Sensitivity analysis: one tidy table over coefficients x similarities x chance settings.

``sensitivity`` runs every requested coefficient (by name, from the public API) under every
equivalence measure and chance setting, each with its interval, and returns one tidy,
unrounded row per combination. Each similarity is scored once for the whole table: an
estimator is resolved once (``equivalence.resolve_label_similarity``) and that one object,
with its memo of scored label pairs, is passed as ``similarity=`` to every coefficient, so a
label pair scored for one coefficient is reused by every other. Each row's
``n_pairs_scored`` is the count its coefficient call returned.
"""

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from softirr_stats.agreement import (
    COEFFICIENTS,
    AgreementResult,
    as_annotations,
    default_coefficients,
    more_raters_hint,
    resolve_chance,
    resolve_similarity,
    similarity_kind,
)
from softirr_stats.analysis._names import (
    DISTANCE_COEFFICIENTS,
    MULTILABEL_COEFFICIENTS,
    SCORE_COEFFICIENTS,
    coefficient_names,
    level_forms,
)
from softirr_stats.api import estimate_point, estimate_with_interval
from softirr_stats.data import Annotations
from softirr_stats.equivalence import is_matrix_like
from softirr_stats.uncertainty import attach_interval, check_ci

__all__ = ["sensitivity", "coefficient_registry", "coefficient_names", "COLUMNS", "DISTANCE_OPTIONS",
           "MULTILABEL_COEFFICIENTS"]

#: the keyword options of distance_agreement a ``distance_*`` row takes (:func:`coefficient_registry`'s ``options``)
DISTANCE_OPTIONS = ("threshold", "kde", "kde_lower", "expected_pairs", "seed")
COLUMNS = (
    "coefficient", "similarity", "chance", "value", "observed", "expected", "ci_low", "ci_high", "se",
    "level", "ci_method", "n_items", "n_raters", "n_pairs_scored", "warnings",
)
PPI_COLUMNS = ("judge_only", "estimator_only", "n_judged")  # added when judgments= is given


@dataclass(frozen=True)
class CoefficientView:
    """How the table runs one name: a view of its registry record (``agreement.COEFFICIENTS``).

    Nothing here is declared twice: options, raters and the analytic variance are read from
    the record; the multi-label baselines (``multilabel_*``) run :func:`multilabel_agreement` and
    the distance measures (``distance_ks``, ``distance_sigma``) :func:`distance_agreement`, their
    public ``function`` with the fixed ``options`` (``baseline=``, ``method=``).
    """

    name: str
    accepts: frozenset[str]
    two_raters: bool = False
    sets_only: bool = False
    scores: bool = False  # a statistic of numeric scores (icc*, lin_ccc, kendall_w): its own public function
    analytic: bool = True
    record: Any = None
    options: tuple[tuple[str, Any], ...] = ()  # fixed keyword options of the function (a level form's level)
    function: str = ""  # the root's public function of a statistic outside the registry, which attaches its interval

    def estimate_point(self, ann: Any, **options: Any) -> tuple[AgreementResult, Any]:
        """``(result, statistic)``: the point estimate (no interval) and the statistic its interval uses."""
        if self.scores:
            from softirr_stats.api import score_statistic

            return score_statistic(self.name, ann), None
        if self.function:
            return self.public(ann, **options), None
        return estimate_point(self.record, ann, **options)

    def public(self, ann: Any, **options: Any) -> AgreementResult:
        """The view's own public function (``function``; on use: multi-label loads scipy.sparse), ``options`` as
        given (the fixed ones among them, as :func:`sensitivity` passes them)."""
        import softirr_stats

        return getattr(softirr_stats, self.function)(ann, **options)


def _level_view(name: str) -> CoefficientView | None:
    """``krippendorff_alpha:ordinal``: the coefficient at that level (``level=``). Only the nominal level takes a
    similarity (and judged pairs); ordinal alpha's chance is its own (it computes its metric from the counts)."""
    base, _, level = name.partition(":")
    rec = COEFFICIENTS.get(base)
    if rec is None or level not in rec.levels:
        return None
    accepts = frozenset(rec.options) - {"level"}
    if level != "nominal":
        accepts -= {"similarity", "weights", "judgments"}
    if level == "ordinal":
        accepts -= {"chance"}
    return CoefficientView(name, accepts, two_raters=rec.raters == "two", analytic=rec.analytic and level != "ordinal",
                           record=rec, options=(("level", level),))


def _view(name: str) -> CoefficientView | None:
    if ":" in name:
        return _level_view(name)
    rec = COEFFICIENTS.get(name)
    if rec is not None:
        return CoefficientView(name, frozenset(rec.options), two_raters=rec.raters == "two", analytic=rec.analytic,
                               record=rec)
    if name in MULTILABEL_COEFFICIENTS:
        return CoefficientView(name, frozenset({"ci"}), sets_only=True, analytic=False, function="multilabel_agreement",
                               options=(("baseline", name.split("_", 1)[1]),))
    if name in DISTANCE_COEFFICIENTS:
        return CoefficientView(name, frozenset({"ci", "similarity", *DISTANCE_OPTIONS}), analytic=False,
                               function="distance_agreement", options=(("method", name.split("_", 1)[1]),))
    if name in SCORE_COEFFICIENTS:
        return CoefficientView(name, frozenset({"ci"}), two_raters=name == "lin_ccc", analytic=name != "kendall_w",
                               scores=True)
    return None


def coefficient_registry(options: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, CoefficientView]:
    """Name -> :class:`CoefficientView`, made from the coefficient registry at each call.

    ``options``: ``{name: {keyword: value}}``, fixed keyword options added to those views: the distance
    measures' ``threshold``, ``kde``, ``kde_lower``, ``expected_pairs`` and ``seed`` (:data:`DISTANCE_OPTIONS`,
    checked by :func:`~softirr_stats.api.check_distance_options`). A name or keyword that takes none raises a
    ValueError naming it.

    Examples
    --------
    >>> reg = coefficient_registry()
    >>> reg["cohen_kappa"].two_raters, "chance" in reg["fleiss_kappa"].accepts
    (True, True)
    >>> reg["krippendorff_alpha:ordinal"].options, "similarity" in reg["krippendorff_alpha:ordinal"].accepts
    ((('level', 'ordinal'),), False)
    >>> coefficient_registry({"distance_sigma": {"threshold": 0.01}})["distance_sigma"].options
    (('method', 'sigma'), ('threshold', 0.01))
    """
    reg = {name: view for name in (*coefficient_names(), *level_forms()) if (view := _view(name)) is not None}
    for name, given in (options or {}).items():
        if name not in DISTANCE_COEFFICIENTS:
            raise ValueError(f"options are taken by {', '.join(DISTANCE_COEFFICIENTS)}; got options for {name!r}")
        extra = [k for k in given if k not in DISTANCE_OPTIONS]
        if extra:
            raise ValueError(f"{name} takes the options {', '.join(DISTANCE_OPTIONS)}; got {extra[0]!r}")
        from softirr_stats.api import check_distance_options

        check_distance_options(**given)
        reg[name] = replace(reg[name], options=(*reg[name].options, *given.items()))
    return reg


# ---------------------------------------------------------------------------------------------
# similarities: resolved once per table (equivalence.resolve_label_similarity), scores shared


@dataclass
class SimilaritySpec:
    """One entry of ``similarities=``, resolved: ``identity``, categorical ``weights`` or ``resolved``."""

    label: str
    kind: str  # "identity" | "weights" | "resolved"
    value: Any = None  # a weight name or matrix (weights), the resolved similarity object (resolved)

    @property
    def shared(self) -> Any:
        return self.value if self.kind == "resolved" else None


def _entry(spec: Any) -> Any:
    """An entry of ``similarities=`` without its label (a ``(label, similarity)`` pair gives its similarity)."""
    if isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str) and not is_matrix_like(spec):
        return spec[1]
    return spec


def _similarity_entry(spec: Any, ann: Annotations, weights: Any, label: str | None = None) -> SimilaritySpec:
    """Read one entry of ``similarities=`` through the one resolver (``agreement.resolve_similarity``).

    A weight name stays a name (``kind="weights"``), so coefficients that take ``weights=`` get it
    there; everything else is resolved once to the object every coefficient shares.
    """
    if _entry(spec) is not spec:
        label, spec = spec
    if spec is None and weights is not None:  # the None entry stands for weights= when given
        if isinstance(weights, str):
            spec = weights
        else:
            return SimilaritySpec(label or "weights-matrix", "weights", np.asarray(weights, dtype=np.float64))
    name = label
    if isinstance(spec, str) and not spec.lstrip().startswith(("{", "@")):
        head, sep, model = spec.strip().partition(":")
        name = name or head.strip().lower() + sep + model.strip()  # the model keeps its case
        if similarity_kind(spec) == "weights":
            return SimilaritySpec(name, "weights", spec.strip().lower())
    elif isinstance(spec, str):
        name = name or spec.strip()
    shared = resolve_similarity(ann, similarity=spec)
    if shared.is_identity:
        return SimilaritySpec(name or "identity", "identity")
    if name is None:
        name = "matrix" if is_matrix_like(spec) else shared.name
    return SimilaritySpec(name, "resolved", shared)


def _similarity_kwargs(sim: SimilaritySpec, coef: CoefficientView, ann: Annotations) -> dict[str, Any]:
    if sim.kind == "identity":
        return {}
    if sim.kind == "resolved":
        return {"similarity": sim.value}
    # categorical weights: pass weights= where the coefficient takes them, else the matrix as similarity
    if "weights" in coef.accepts:
        return {"weights": sim.value}
    return {"similarity": sim.value}  # a weight name or matrix as similarity=: the same matrix


# ---------------------------------------------------------------------------------------------
# intervals


def _run_with_ci(coef: CoefficientView, ann: Annotations, kwargs: dict[str, Any], ci: Any,
                 judgments: Any = None) -> AgreementResult:
    """The point estimate with its interval; where no analytic interval applies, a note instead.

    ``ci`` was resolved once for the table (``uncertainty.check_ci``); the statistic's interval is
    attached by ``attach_interval`` (or, for a statistic outside the registry, by its public
    function), which says itself what the statistic allows.
    """
    if judgments is not None:  # the prediction-powered estimate: the registry's public path
        return estimate_with_interval(coef.record, ann, **kwargs, judgments=judgments, ci=ci)
    if coef.scores and ci is not None:  # its own function: the exact F / Fisher-z interval, or the bootstrap
        from softirr_stats.api import score_statistic
        from softirr_stats.uncertainty import Bootstrap

        if not coef.analytic and not isinstance(ci, Bootstrap):
            return _with_note(score_statistic(coef.name, ann), f"no analytic interval: {coef.name} has none; use "
                                                                "ci=softirr_stats.Bootstrap(...)")
        return score_statistic(coef.name, ann, ci)
    if coef.function and ci is not None:  # a statistic outside the registry: its public function attaches the interval
        try:
            return coef.public(ann, **kwargs, ci=ci)
        except ValueError as err:
            return _no_analytic(lambda: coef.public(ann, **kwargs), ci, err)
    result, stat = coef.estimate_point(ann, **kwargs)
    if ci is None:
        return result
    try:
        return attach_interval(result, stat, ci)
    except ValueError as err:
        return _no_analytic(lambda: result, ci, err)


def _no_analytic(point: Any, ci: Any, err: ValueError) -> AgreementResult:
    """No analytic variance, or sampled chance: the point estimate (``point()``, computed only then) and why; any
    other failure raises ``err``."""
    from softirr_stats.uncertainty import Analytic  # with an interval only

    if not isinstance(ci, Analytic):
        raise err
    return _with_note(point(), f"no analytic interval: {err}")


def _with_note(res: AgreementResult, note: str) -> AgreementResult:
    return replace(res, warnings=(*res.warnings, note))


# ---------------------------------------------------------------------------------------------


def _chance_label(ch: Any) -> str:
    return ch if isinstance(ch, str) else ch.label


def _set_hint(ann: Annotations) -> str:
    """How text labels that list terms are read as sets (``data.set_cells_hint``), for the skip note."""
    from softirr_stats.data import set_cells_hint

    return set_cells_hint(ann.vocabulary)


def _note_row(coefficient: str, similarity: str, chance: str, ann: Annotations, note: str) -> dict[str, Any]:
    """A row that did not run (skipped, or an error): no value, and no items used and no pairs scored (0)."""
    row: dict[str, Any] = dict.fromkeys(COLUMNS, math.nan)
    row.update(coefficient=coefficient, similarity=similarity, chance=chance, ci_method="", n_items=0,
               n_raters=ann.n_raters, n_pairs_scored=0, warnings=note, _warnings=(note,))
    return row


def _add_note(row: dict[str, Any], note: str) -> None:
    """Add ``note`` to a table row's warnings (the joined column and the whole tuple)."""
    row["_warnings"] = (*row["_warnings"], note)
    row["warnings"] = "; ".join(row["_warnings"])


def _result_row(name: str, res: AgreementResult, similarity: str, n_scored: int) -> dict[str, Any]:
    row = {
        "coefficient": name, "similarity": similarity, "chance": res.chance, "value": res.value,
        "observed": res.observed, "expected": res.expected, "ci_low": res.ci_low, "ci_high": res.ci_high,
        "se": res.se, "level": res.level, "ci_method": res.ci_method, "n_items": res.n_items,
        "n_raters": res.n_raters, "n_pairs_scored": n_scored, "warnings": "; ".join(res.warnings),
        "_warnings": tuple(res.warnings),
    }
    ppi = (res.details or {}).get("ppi")
    if isinstance(ppi, dict):
        row.update(judge_only=ppi.get("judge_only", math.nan), estimator_only=ppi.get("estimator_only", math.nan),
                   n_judged=ppi.get("n_judged", ppi.get("n_draws", math.nan)))
    return row


def _default_coefficients(ann: Annotations, views: dict[str, CoefficientView]) -> tuple[str, ...]:
    base = default_coefficients(ann.n_raters)
    if ann.kind == "set":
        base = base + tuple(m for m in MULTILABEL_COEFFICIENTS if m in views)
    return base


def _chance_term(view: CoefficientView) -> str:
    """What a coefficient that takes no ``chance=`` has instead, as its note says it: no chance term (percent
    agreement, a family whose chance is ``"none"``; a statistic of numeric scores) or one of its own (AC1,
    Brennan-Prediger, Light's mean of Cohen's kappas, ordinal alpha, the multi-label baselines).

    >>> reg = coefficient_registry()
    >>> _chance_term(reg["percent_agreement"]), _chance_term(reg["gwet_ac1"]), _chance_term(reg["icc2"])
    ('has no chance term', 'has its own chance term', 'has no chance term (a statistic of numeric scores)')
    """
    if view.scores:
        return "has no chance term (a statistic of numeric scores)"
    family = getattr(view.record, "family", None)
    return "has no chance term" if getattr(family, "chance", None) == "none" else "has its own chance term"


def _as_tuple(x: Any) -> tuple:
    """A single option, or a sequence of options, as a tuple of options."""
    if x is None or isinstance(x, str | np.ndarray) or not isinstance(x, Iterable):
        return (x,)
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and not isinstance(x[1], str):
        return (x,)  # one (label, similarity) pair
    return tuple(x)


def _declared(ann: Any, categories: Any) -> tuple[Annotations, Any]:
    """``(annotations, categories left for the coefficients)``: set-valued labels take ``categories`` as their label
    universe (:meth:`~softirr_stats.Annotations.with_label_universe`, the multi-label rows' ``labels=``), the other
    kinds as their declared category set (``as_annotations``), which the coefficients that take ``categories=``
    get too."""
    data = as_annotations(ann)
    if categories is None or data.kind != "set":
        return as_annotations(ann, categories), categories
    try:
        return data.with_label_universe(categories), None
    except (ValueError, TypeError) as err:
        raise type(err)(f"categories= is the label universe of these set-valued labels: {err}") from None


def sensitivity(
    ann: Any,
    *,
    coefficients: Sequence[str] | None = None,
    similarities: Sequence[Any] = (None,),
    chance: Sequence[Any] = ("exact",),
    ci: Any = None,
    weights: Any = None,
    categories: Any = None,
    registry: dict[str, CoefficientView] | None = None,
    judgments: Any = None,
) -> pd.DataFrame:
    """Agreement under every coefficient x similarity x chance setting, as one tidy table.

    Parameters
    ----------
    ann : Annotations or a wide table (rows = items, columns = raters)
    coefficients : sequence of str, optional
        Names of public coefficient functions (``"cohen_kappa"``, ``"fleiss_kappa"``,
        ``"krippendorff_alpha"``, ``"gwet_ac1"``, ... and ``"multilabel_fleiss"``,
        ``"multilabel_ac1"``, ``"multilabel_pabak"`` for set-valued labels), or ``NAME:LEVEL`` for
        Krippendorff's levels of measurement (``"krippendorff_alpha:ordinal"``: ``level="ordinal"``;
        only the nominal level takes a similarity). Default: Cohen,
        Scott, alpha, AC1, Brennan-Prediger and percent agreement for two raters; Fleiss,
        Conger, alpha, AC1, Brennan-Prediger and percent agreement otherwise (plus the
        multi-label baselines for set-valued labels). A two-rater coefficient on data with
        more raters gives a *note row* (``value`` nan, the reason in ``warnings``) rather than
        an error, so one call can cover several data sets.
    similarities : sequence, default (None,)
        Each entry is None (exact matching, or ``weights=`` when given), a measure name
        (``"levenshtein"``, ``"jaccard"``, ``"embedding"``, ...), a weight name
        (``"linear"``, ``"quadratic"``, ...), an equivalence estimator or any callable
        ``(a_seq, b_seq) -> scores``, a K x K array indexed like ``ann.vocabulary``, or a
        ``(label, similarity)`` tuple naming any of these. Each estimator is scored once for
        the whole table: its label pairs are shared by every coefficient.
    chance : sequence, default ("exact",)
        ``"exact"``, ``"auto"``, ``MonteCarlo(...)``, ``SampledPairs(...)`` or their text forms
        ``"mc:D"`` and ``"sampled:N"`` (``agreement.resolve_chance``). Coefficients whose
        chance term takes no option (AC1, Brennan-Prediger, percent agreement, Light, the
        multi-label baselines) get one row per similarity, with their own chance label.
    ci : None, "analytic", Analytic(...) or Bootstrap(...)
        Interval for every row. Where no analytic formula exists (Light's kappa, ordinal
        alpha, sampled chance, the multi-label baselines) the row carries the point estimate
        and a note saying so.
    weights : str or array, optional
        Categorical weights used for the ``None`` similarity entry; refused when ``similarities=`` has none
        (as a coefficient refuses ``weights=`` with a ``similarity=``).
    categories : sequence, optional
        Declared category set (``categories=`` of the coefficient functions). For set-valued
        (multi-label) annotations, the label universe of the ``multilabel_*`` rows, as
        ``multilabel_agreement(ann, labels=)`` takes it (a label no rating selects counts; every
        selected label must be one of them); as on the command line (``--categories``), the other
        rows' labels are the sets themselves, which no category list declares. The statistics of
        numeric scores (the ICCs, Lin's CCC, Kendall's W) use the scores' values, which declared
        categories do not change: their rows say so in a note.
    registry : dict, optional
        Name -> :class:`CoefficientView`; default :func:`coefficient_registry`.
    judgments : DataFrame, optional
        Judged label pairs (:func:`~softirr_stats.read_judgments`): every coefficient that takes
        ``judgments=`` gives its prediction-powered estimate, with the columns ``judge_only``,
        ``estimator_only`` and ``n_judged`` beside it; the others give a note row.

    Returns
    -------
    pandas.DataFrame
        One row per (coefficient, similarity, chance), unrounded (``coefficient`` is the
        requested name, e.g. ``gwet_ac1`` also for its weighted AC2 rows), with columns
        ``coefficient, similarity, chance, value, observed, expected, ci_low, ci_high, se,
        level, ci_method, n_items, n_raters, n_pairs_scored, warnings``. ``n_items`` counts the
        items the row's coefficient used (0 on a note row: skipped or an error, ``value`` nan);
        ``n_pairs_scored`` counts the label pairs the estimator newly scored for that row (0 when
        every pair was already scored for an earlier row); ``df.attrs["n_pairs_scored"]`` has the totals per
        similarity and ``df.attrs["warnings"]`` each row's warnings as a tuple.
        :func:`~softirr_stats.sensitivity_summary` gives a compact view of it (the essential
        columns, each distinct warning once, numbered).

    Examples
    --------
    irrCAC's ``cont3x3abstractors`` table, exact and quadratic weights:

    >>> import numpy as np
    >>> t = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    >>> rows = [[i, j] for i, j in zip(*np.nonzero(t)) for _ in range(t[i, j])]
    >>> df = sensitivity(rows, coefficients=["cohen_kappa", "scott_pi"],
    ...                  similarities=[None, "quadratic"], ci="analytic")
    >>> print(df[["coefficient", "similarity", "value", "se"]].round(6).to_string(index=False))
    coefficient similarity    value       se
    cohen_kappa   identity 0.796409 0.058911
    cohen_kappa  quadratic 0.892157 0.035352
       scott_pi   identity 0.796240 0.059055
       scott_pi  quadratic 0.892109 0.035395
    """
    ann, categories = _declared(ann, categories)
    reg = coefficient_registry() if registry is None else registry
    names = _default_coefficients(ann, reg) if coefficients is None else _as_tuple(coefficients)
    if not names:
        raise ValueError("coefficients must list at least one name, e.g. ('fleiss_kappa',), or be None for the "
                         "defaults of this design")
    for name in names:
        if not isinstance(name, str) or name not in reg:
            from softirr_stats.base._suggest import did_you_mean

            raise ValueError(f"coefficients must be names from {sorted(reg)}; got {name!r}{did_you_mean(name, reg)}")
    chances = tuple(resolve_chance(ch) for ch in _as_tuple(chance))  # the text forms parsed once, here
    if not chances:
        raise ValueError("chance must list at least one setting, e.g. ('exact',)")
    sims_in = _as_tuple(similarities)
    if not sims_in:
        raise ValueError("similarities must list at least one entry, e.g. (None,)")
    if weights is not None and not any(_entry(s) is None for s in sims_in):  # as a coefficient refuses both
        shown = repr(weights) if isinstance(weights, str) else "a matrix"
        raise ValueError(f"weights={shown} is used for the None entry of similarities=, and similarities= has none "
                         "(so it would be ignored): add None to similarities=, or list the weight name there "
                         "(similarities=[..., 'quadratic']) without weights=")
    cfg = check_ci(ci)
    sims = [_similarity_entry(s, ann, weights) for s in sims_in]
    rows: list[dict[str, Any]] = []
    for name in names:  # a handful of coefficients x similarities x chance settings
        spec = reg[name]
        takes_sim = "similarity" in spec.accepts or "weights" in spec.accepts
        takes_chance = "chance" in spec.accepts
        for sim in sims:
            if not takes_sim and sim.kind != "identity":
                rows.append(_note_row(name, sim.label, "", ann, f"skipped: {name} takes no similarity or weights"))
                continue
            for ch in chances if takes_chance else chances[:1]:
                label_ch = _chance_label(ch) if takes_chance else ""
                if spec.two_raters and ann.n_raters != 2:  # a note row, so one call covers several data sets
                    instead = f" ({more_raters_hint(name)})" if spec.record is not None else ""  # lin_ccc: no kappa
                    rows.append(_note_row(name, sim.label, label_ch, ann, f"skipped: {name} needs exactly 2 raters; "
                                          f"the data have {ann.n_raters}{instead}"))
                    continue
                if spec.sets_only and ann.kind != "set":
                    rows.append(_note_row(name, sim.label, label_ch, ann,
                                          f"skipped: {name} needs set-valued (multi-label) annotations"
                                          + (f"; {_set_hint(ann)}" if ann.kind == "categorical" else "")))
                    continue
                if judgments is not None and "judgments" not in spec.accepts:
                    rows.append(_note_row(name, sim.label, label_ch, ann,
                                          f"skipped: {name} has no prediction-powered estimate (judgments=)"))
                    continue
                kwargs = {**_similarity_kwargs(sim, spec, ann), **dict(spec.options)}
                if takes_chance:
                    kwargs["chance"] = ch
                if "categories" in spec.accepts and categories is not None:
                    kwargs["categories"] = categories
                try:
                    res = _run_with_ci(spec, ann, kwargs, cfg, judgments)
                except (ValueError, TypeError) as err:
                    rows.append(_note_row(name, sim.label, label_ch, ann, f"error: {err}"))
                    continue
                rows.append(_result_row(name, res, sim.label, res.n_pairs_scored if sim.shared is not None else 0))
                if spec.scores and ann.categories is not None:  # the scores' values, never a category set
                    _add_note(rows[-1], f"{name} is a statistic of the numeric scores: the declared categories "
                                        f"({len(ann.categories)}) do not change it")
                unused = [_chance_label(c) for c in chances if _chance_label(c) != "exact"]
                if not takes_chance and unused:  # AC1, Brennan-Prediger, Light: their own chance term; others none
                    _add_note(rows[-1], f"{name} {_chance_term(spec)}; chance {', '.join(unused)} not used")
                if name == "krippendorff_alpha" and sim.label == "ordinal":
                    _add_note(rows[-1], "alpha with ordinal weights (Gwet's, rank distances), not Krippendorff's "
                                        "ordinal alpha (a metric from the label frequencies), which the command "
                                        "line gives as -c krippendorff_alpha:ordinal (in Python: "
                                        "krippendorff_alpha(ann, level='ordinal'))")
    df = pd.DataFrame(rows, columns=list(COLUMNS) + (list(PPI_COLUMNS) if judgments is not None else []))
    df.attrs["warnings"] = [r["_warnings"] for r in rows]  # each row's warnings, whole (the column joins them)
    totals = df.groupby("similarity", sort=False)["n_pairs_scored"].sum()
    df.attrs["n_pairs_scored"] = {s.label: int(totals.get(s.label, 0)) if s.shared is not None else 0 for s in sims}
    return df
