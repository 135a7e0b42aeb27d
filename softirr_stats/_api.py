"""Public agreement coefficients: point estimate (agreement layer) + interval (uncertainty layer).

Every function takes an :class:`~softirr_stats.Annotations` (or a wide table: rows = items,
columns = raters) and returns an :class:`~softirr_stats.AgreementResult`. Options are
keyword-only. ``similarity=`` makes a coefficient soft (None = exact matching; an
equivalence estimator, any callable ``(a_seq, b_seq) -> scores``, or a K x K array indexed like
``ann.vocabulary``); ``weights=`` gives categorical agreement weights; ``chance=`` chooses
how chance agreement is computed; ``ci=`` asks for an interval. ``judgments=`` (a judged plan
from ``judging_plan``) or ``judge=`` (an expensive equivalence estimator) makes a soft
coefficient prediction-powered: the estimate of the coefficient computed with the judge.
"""

from typing import Any

from softirr_stats._validation import check_choice
from softirr_stats.agreement import (
    AgreementResult,
    as_annotations,
    point_estimate,
    resolve_similarity,
)
from softirr_stats.agreement._engine import Prepared
from softirr_stats.agreement._similarity import MatrixSimilarity, VocabSimilarity
from softirr_stats.agreement._weights import krippendorff_distance
from softirr_stats.data import Annotations
from softirr_stats.uncertainty import Analytic, Bootstrap, attach_analytic, attach_bootstrap
from softirr_stats.uncertainty._ppi import apply_ppi

__all__ = [
    "percent_agreement", "cohen_kappa", "scott_pi", "fleiss_kappa", "conger_kappa", "light_kappa",
    "krippendorff_alpha", "gwet_ac1", "brennan_prediger",
]

ALPHA_LEVELS = ("nominal", "ordinal", "interval", "ratio")


def _with_ci(result: AgreementResult, prep: Prepared, ci: Any) -> AgreementResult:
    if ci is None:
        return result
    if isinstance(ci, Bootstrap):
        return attach_bootstrap(result, prep, ci)
    if isinstance(ci, Analytic) or (isinstance(ci, str) and ci == "analytic"):
        return attach_analytic(result, prep, ci if isinstance(ci, Analytic) else None)
    raise ValueError(f"ci must be None, 'analytic', softirr_stats.Analytic(...) or softirr_stats.Bootstrap(...); got {ci!r}")


def _run(ann: Annotations, family: str, name: str, sim: VocabSimilarity, chance: Any, ci: Any,
         notes: list[str] | None = None, judgments: Any = None, judge: Any = None) -> AgreementResult:
    result, prep = point_estimate(ann, family=family, coefficient=name, sim=sim, chance=chance, extra_notes=notes)
    if judgments is not None or judge is not None:  # prediction-powered: the judge's coefficient
        return apply_ppi(result, prep, judgments, judge, ci)
    return _with_ci(result, prep, ci)


def _two_raters(ann: Annotations, name: str) -> None:
    if ann.n_raters != 2:
        raise ValueError(f"{name} is defined for exactly two raters; got {ann.n_raters} "
                         "(use fleiss_kappa, conger_kappa, light_kappa or krippendorff_alpha)")


def percent_agreement(ann: Any, *, similarity: Any = None, weights: Any = None, categories: Any = None,
                      ci: Any = None) -> AgreementResult:
    """Mean (soft) agreement of within-item rating pairs, no chance correction.

    Examples
    --------
    >>> r = percent_agreement([["a", "a"], ["b", "c"], ["c", "c"], ["a", "b"]])
    >>> r.value
    0.5
    """
    ann = as_annotations(ann, categories)
    sim = resolve_similarity(ann, similarity=similarity, weights=weights)
    return _run(ann, "percent", "percent_agreement", sim, "exact", ci)


def cohen_kappa(ann: Any, *, weights: Any = None, similarity: Any = None, chance: Any = "exact",
                categories: Any = None, ci: Any = None,
                judgments: Any = None, judge: Any = None) -> AgreementResult:
    """Cohen's kappa for two raters (weighted, or soft with ``similarity=``).

    ``p_o`` is the mean agreement over items both raters rated; chance uses each rater's own
    label distribution over the items that rater rated (Gwet/Conger's treatment of missing
    ratings; with complete data this is Cohen 1960/1968 exactly).

    Examples
    --------
    irrCAC's ``cont3x3abstractors`` table (Cohen's kappa 0.7964094022):

    >>> import numpy as np
    >>> table = np.array([[13, 0, 0], [0, 20, 7], [0, 4, 56]])
    >>> a, b = np.nonzero(table)
    >>> rows = [[i, j] for i, j in zip(a, b) for _ in range(table[i, j])]
    >>> round(cohen_kappa(rows).value, 10)
    0.7964094022
    """
    ann = as_annotations(ann, categories)
    _two_raters(ann, "cohen_kappa")
    sim = resolve_similarity(ann, similarity=similarity, weights=weights)
    return _run(ann, "conger", "cohen_kappa", sim, chance, ci, judgments=judgments, judge=judge)


def scott_pi(ann: Any, *, weights: Any = None, similarity: Any = None, chance: Any = "exact",
             categories: Any = None, ci: Any = None,
             judgments: Any = None, judge: Any = None) -> AgreementResult:
    """Scott's pi for two raters: chance from the pooled label distribution."""
    ann = as_annotations(ann, categories)
    _two_raters(ann, "scott_pi")
    sim = resolve_similarity(ann, similarity=similarity, weights=weights)
    return _run(ann, "pooled", "scott_pi", sim, chance, ci, judgments=judgments, judge=judge)


def fleiss_kappa(ann: Any, *, weights: Any = None, similarity: Any = None, chance: Any = "exact",
                 categories: Any = None, ci: Any = None,
                 judgments: Any = None, judge: Any = None) -> AgreementResult:
    """Fleiss' kappa (multi-rater Scott); missing ratings as Gwet (2014) generalises it.

    Examples
    --------
    Fleiss (1971): 10 subjects, 14 raters, 5 categories (Wikipedia's worked example).

    >>> counts = [[0,0,0,0,14],[0,2,6,4,2],[0,0,3,5,6],[0,3,9,2,0],[2,2,8,1,1],
    ...           [7,7,0,0,0],[3,2,6,3,0],[2,5,3,2,2],[6,5,2,1,0],[0,2,2,3,7]]
    >>> rows = [[k for k, c in enumerate(r) for _ in range(c)] for r in counts]
    >>> round(fleiss_kappa(rows).value, 3)
    0.21
    """
    ann = as_annotations(ann, categories)
    sim = resolve_similarity(ann, similarity=similarity, weights=weights)
    return _run(ann, "pooled", "fleiss_kappa", sim, chance, ci, judgments=judgments, judge=judge)


def conger_kappa(ann: Any, *, weights: Any = None, similarity: Any = None, chance: Any = "exact",
                 categories: Any = None, ci: Any = None,
                 judgments: Any = None, judge: Any = None) -> AgreementResult:
    """Conger's (1980) multi-rater Cohen kappa: chance from each rater's own distribution."""
    ann = as_annotations(ann, categories)
    sim = resolve_similarity(ann, similarity=similarity, weights=weights)
    return _run(ann, "conger", "conger_kappa", sim, chance, ci, judgments=judgments, judge=judge)


def light_kappa(ann: Any, *, weights: Any = None, similarity: Any = None, categories: Any = None,
                ci: Any = None) -> AgreementResult:
    """Light's (1971) kappa: the mean of Cohen's kappa over all rater pairs.

    Each pair's kappa uses the items both raters rated; ``details["pairwise"]`` holds them.
    """
    ann = as_annotations(ann, categories)
    sim = resolve_similarity(ann, similarity=similarity, weights=weights)
    return _run(ann, "light", "light_kappa", sim, "exact", ci)


def krippendorff_alpha(ann: Any, *, level: str = "nominal", similarity: Any = None, chance: Any = "exact",
                       categories: Any = None, ci: Any = None,
                       judgments: Any = None, judge: Any = None) -> AgreementResult:
    """Krippendorff's alpha (nominal, ordinal, interval, ratio, or soft with ``similarity=``).

    Soft alpha uses the distance ``1 - P(a == b)``. ``observed``/``expected`` are
    ``1 - D_o`` and ``1 - D_e``.

    Examples
    --------
    Krippendorff's reliability data (12 units, 4 coders): nominal 0.743, interval 0.849.

    >>> nan = None
    >>> k12 = [[1,1,nan,1],[2,2,3,2],[3,3,3,3],[3,3,3,3],[2,2,2,2],[1,2,3,4],[4,4,4,4],
    ...        [1,1,2,1],[2,2,2,2],[nan,5,5,5],[nan,nan,1,1],[nan,nan,3,nan]]
    >>> import warnings; warnings.simplefilter("ignore")
    >>> round(krippendorff_alpha(k12).value, 10), round(krippendorff_alpha(k12, level="interval").value, 10)
    (0.7434210526, 0.8491071429)
    """
    check_choice("level", level, ALPHA_LEVELS)
    ann = as_annotations(ann, categories)
    notes: list[str] = []
    if level == "nominal":
        sim = resolve_similarity(ann, similarity=similarity)
        return _run(ann, "alpha", "krippendorff_alpha", sim, chance, ci, judgments=judgments, judge=judge)
    if similarity is not None:
        raise ValueError(f"similarity= replaces the level's distance; use level='nominal' with a similarity "
                         f"(got level={level!r})")
    if level == "ordinal":
        if ann.kind == "set":
            raise ValueError("ordinal alpha needs ordered labels (numbers, or categories= in order)")
        if ann.kind != "numeric" and ann.categories is None:
            notes.append("ordinal alpha ranks text labels in vocabulary (sorted) order; declare categories= to set the order")
        return _run(ann, "alpha_ordinal", "krippendorff_alpha", VocabSimilarity(len(ann.vocabulary)), "exact", ci,
                    notes, judgments=judgments, judge=judge)
    if ann.kind != "numeric":
        raise ValueError(f"level={level!r} needs numeric labels; these are {ann.kind}")
    delta = krippendorff_distance(level, ann.values())
    top = delta.max()
    sim = MatrixSimilarity(1.0 - delta / top if top > 0 else 1.0 - delta, name=f"{level}-distance")
    return _run(ann, "alpha", "krippendorff_alpha", sim, chance, ci, notes, judgments=judgments, judge=judge)


def gwet_ac1(ann: Any, *, weights: Any = None, similarity: Any = None, categories: Any = None,
             ci: Any = None,
             judgments: Any = None, judge: Any = None) -> AgreementResult:
    """Gwet's AC1 (AC2 with ``weights=``); q is the declared number of categories."""
    ann = as_annotations(ann, categories)
    sim = resolve_similarity(ann, similarity=similarity, weights=weights)
    name = "gwet_ac2" if weights is not None and not (isinstance(weights, str) and weights == "identity") else "gwet_ac1"
    return _run(ann, "ac1", name, sim, "exact", ci, judgments=judgments, judge=judge)


def brennan_prediger(ann: Any, *, weights: Any = None, similarity: Any = None, categories: Any = None,
                     ci: Any = None,
                     judgments: Any = None, judge: Any = None) -> AgreementResult:
    """Brennan-Prediger (1981) coefficient (PABAK for two categories): chance ``T_w / q^2``."""
    ann = as_annotations(ann, categories)
    sim = resolve_similarity(ann, similarity=similarity, weights=weights)
    return _run(ann, "bp", "brennan_prediger", sim, "exact", ci, judgments=judgments, judge=judge)
