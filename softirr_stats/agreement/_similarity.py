"""The one resolver of ``similarity=`` / ``weights=``: a similarity over the vocabulary.

:func:`resolve_similarity` is what every entry point calls (the coefficient functions through
their registry records, ``sensitivity``, the analysis runner, the report and the command line),
so the same names mean the same thing everywhere. Its table of names is
:data:`SIMILARITY_NAMES`: the estimators' short names (``equivalence.MEASURES``) and the
categorical weight names (``WEIGHT_NAMES``). An estimator, a callable or a matrix is handed to the
equivalence layer's :func:`~softirr_stats.equivalence.resolve_label_similarity` (one memo of
scored label pairs per estimator and vocabulary; directional estimators symmetrised there).
Krippendorff's interval / ratio metrics as similarities are :func:`level_similarity`.
"""

import numbers
from typing import Any

import numpy as np

from softirr_stats.agreement._weights import WEIGHT_NAMES, krippendorff_distance, weight_matrix
from softirr_stats.base._suggest import did_you_mean
from softirr_stats.data import Annotations
from softirr_stats.equivalence import (
    MEASURE_NAMES,
    ExactMatchSimilarity,
    LabelSimilarity,
    MatrixSimilarity,
    check_similarity_matrix,
    estimator_from_name,
    resolve_label_similarity,
    split_measure_name,
)

__all__ = ["ExactMatchSimilarity", "LabelSimilarity", "MatrixSimilarity", "resolve_similarity", "level_similarity",
           "category_values", "check_rank_order", "estimator_from_name", "MEASURE_NAMES", "SIMILARITY_NAMES", "similarity_kind"]


def _names() -> dict[str, str]:
    return {**dict.fromkeys(MEASURE_NAMES, "measure"), **dict.fromkeys(WEIGHT_NAMES, "weights")}


#: The one table of names ``similarity=`` accepts, name -> ``"measure"`` (an equivalence estimator
#: of ``equivalence.MEASURES``, model-backed ones as ``"<name>:<model>"``) or ``"weights"`` (the
#: categorical weights of ``WEIGHT_NAMES``, the same matrix as ``weights=<name>``). Every entry point
#: reads it: the coefficient functions, ``sensitivity``, the runner and the ``--similarity`` option.
SIMILARITY_NAMES: dict[str, str] = _names()


def similarity_kind(name: str) -> str | None:
    """``"measure"``, ``"weights"`` or None (not a name of :data:`SIMILARITY_NAMES`) for a similarity name.

    A measure name may carry its model (``"nli:<model>"``); case and spaces are ignored. Estimators
    added to ``equivalence.MEASURES`` after import are found too.

    Parameters
    ----------
    name : str
        A similarity name, as ``similarity=`` takes it.

    Examples
    --------
    >>> similarity_kind("Linear"), similarity_kind("nli:models/x"), similarity_kind("levenstein")
    ('weights', 'measure', None)
    """
    from softirr_stats.equivalence import MEASURES

    key = name.strip().lower()
    if key in WEIGHT_NAMES:
        return "weights"
    head = split_measure_name(key)[0]
    return "measure" if head in MEASURES else None


def _unknown_name(name: str) -> ValueError:
    from softirr_stats.equivalence import MEASURES

    known = [*MEASURES, *WEIGHT_NAMES]
    return ValueError(f"similarity must be one of {known} (measure and weight names; a model-backed measure as "
                      f"'<name>:<model>'), a JSON estimator spec, @spec.json, an estimator, a callable or a K x K "
                      f"array; got {name!r}{did_you_mean(name, known)}")


class AsGivenWeights(MatrixSimilarity):
    """An asymmetric ``weights=`` matrix read as given: ``S[code of the earlier rater, code of the later]``.

    Examples
    --------
    >>> AsGivenWeights(np.array([[1.0, 0.5], [0.0, 1.0]])).asymmetric
    True
    """

    asymmetric = True


def category_values(ann: Annotations) -> np.ndarray:
    """Values on which weights are built, in vocabulary order: numeric labels, else positions 1..K.

    Text labels take their positions in the declared ``categories=`` order (their order of
    measurement); numeric labels take their values, whatever order they are declared in
    (:func:`check_rank_order` refuses an order of numbers that contradicts their values where
    only the order counts).

    Parameters
    ----------
    ann : Annotations
        The annotations whose vocabulary is weighted.

    Examples
    --------
    >>> category_values(Annotations.from_wide([["b", "a"], ["c", "c"]])).tolist()
    [1.0, 2.0, 3.0]
    >>> category_values(Annotations.from_wide([[2.5, 1.0]])).tolist()
    [1.0, 2.5]
    """
    if ann.kind == "numeric":
        return ann.values()
    return np.arange(1, len(ann.vocabulary) + 1, dtype=float)


#: The named weights built on the labels' ranks rather than their values (irrCAC's ordinal weights)
RANK_WEIGHTS = ("ordinal",)


def check_rank_order(ann: Annotations, what: str) -> None:
    """Numeric labels are ranked by their values: a declared order of them that is not the values' order is refused.

    A statistic of ranks (``weights="ordinal"``, ``level="ordinal"``) would otherwise take the ranks from
    the declared positions (``categories=[1, 3, 2]`` ranks 3 below 2) while the distance weights
    (linear, quadratic, ...) and the interval metric follow the values. The values' order ascending or
    descending gives the same ranks' distances and is accepted. Text labels are ranked in their
    declared order: that is how an ordinal scale of text labels is declared.

    Parameters
    ----------
    ann : Annotations
        The annotations.
    what : str
        The option that ranks the labels, named in the message (``"weights='ordinal'"``).

    Examples
    --------
    >>> check_rank_order(Annotations.from_wide([[1, 2], [3, 3]], categories=[3, 2, 1]), "weights='ordinal'")
    >>> check_rank_order(Annotations.from_wide([[1, 2], [3, 3]], categories=[1, 3, 2]), "weights='ordinal'")
    Traceback (most recent call last):
    ...
    ValueError: weights='ordinal' ranks the labels, and numeric labels are ranked by their values; the declared categories put them in another order, [1, 3, 2]. Declare them in the values' order, [1, 2, 3] (on the command line: --categories 1,2,3), or leave the order out; text labels are ranked in their declared order
    """
    if ann.kind != "numeric":
        return
    vals = list(ann.vocabulary)
    pairs = list(zip(vals, vals[1:], strict=False))
    if all(a < b for a, b in pairs) or all(a > b for a, b in pairs):
        return
    ranked = sorted(vals)

    def shown(v: list[Any], sep: str = ", ") -> str:
        return sep.join(map(str, v[:10])) + (f"{sep}..." if len(v) > 10 else "")

    raise ValueError(
        f"{what} ranks the labels, and numeric labels are ranked by their values; the declared categories put them "
        f"in another order, [{shown(vals)}]. Declare them in the values' order, [{shown(ranked)}] (on the command "
        f"line: --categories {shown(ranked, ',')}), or leave the order out; text labels are ranked in their declared "
        "order")


def check_weight_order(ann: Annotations, weights: str) -> None:
    """Named ordered weights need an order: numeric labels or declared ``categories=``.

    Text labels ("low", "medium", "high") have no order of their own; sorting them
    alphabetically would silently weight "high" next to "low". Numeric labels are ordered by
    their values (:func:`check_rank_order` for the weights built on ranks).
    """
    if weights == "identity":
        return
    if weights in RANK_WEIGHTS:
        check_rank_order(ann, f"weights={weights!r}")
    if ann.kind != "categorical" or ann.categories is not None:
        return
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in ann.vocabulary):
        return
    from softirr_stats.data import decimal_comma_hint

    shown = ", ".join(repr(v) for v in ann.vocabulary[:6]) + (", ..." if len(ann.vocabulary) > 6 else "")
    hint = decimal_comma_hint(ann.vocabulary)
    if hint:
        raise ValueError(f"weights={weights!r} orders the labels, but these are text labels ({shown}): {hint}")
    raise ValueError(
        f"weights={weights!r} orders the labels, but these are text labels with no declared order "
        f"({shown}); declare them in order (on the command line: --categories low,medium,high; in Python: "
        f"categories=['low', 'medium', 'high']), or use numeric labels")


def resolve_similarity(
    ann: Annotations,
    *,
    similarity: Any = None,
    weights: Any = None,
) -> LabelSimilarity:
    """Turn the ``similarity=`` / ``weights=`` arguments into a similarity over ``ann.vocabulary``.

    ``weights=`` (a name from ``WEIGHT_NAMES`` or a K x K matrix) is handled here; ``similarity=``
    goes to :func:`~softirr_stats.equivalence.resolve_label_similarity`, so a similarity object
    passed in (for instance one shared by several coefficients) is used as it is.

    Parameters
    ----------
    ann : Annotations
        The annotations; the similarity is over ``ann.vocabulary``.
    similarity : None, str, estimator, callable, array or similarity object
        Soft agreement: a name of :data:`SIMILARITY_NAMES` (a weight name gives the same matrix as
        ``weights=<name>``), a JSON estimator spec or ``@spec.json``, or anything
        :func:`~softirr_stats.equivalence.resolve_label_similarity` takes.
    weights : str or array, optional
        Categorical agreement weights (``WEIGHT_NAMES`` or a K x K matrix); not with ``similarity``.
        (Which coefficient takes which option is its registry record's ``options``.)

    Examples
    --------
    >>> ann = Annotations.from_wide([[1, 2], [2, 3], [3, 3]])
    >>> resolve_similarity(ann, weights="linear").block(np.arange(3), np.arange(3)).values[0].tolist()
    [1.0, 0.5, 0.0]
    >>> resolve_similarity(ann, similarity="linear").block(np.arange(3), np.arange(3)).values[0].tolist()
    [1.0, 0.5, 0.0]
    """
    k = len(ann.vocabulary)
    if similarity is not None and weights is not None:
        raise ValueError("give weights= (categorical agreement weights) or similarity= (soft), not both")
    if isinstance(similarity, str) and not similarity.lstrip().startswith(("{", "@")):
        kind = similarity_kind(similarity)
        if kind is None:
            raise _unknown_name(similarity)
        if kind == "weights":  # a weight name as similarity=: the same matrix as weights=<name>
            similarity, weights = None, similarity.strip().lower()
    if weights is not None:
        if isinstance(weights, str):
            if weights not in WEIGHT_NAMES:
                raise ValueError(f"weights must be one of {list(WEIGHT_NAMES)} or a K x K array; got {weights!r}"
                                 f"{did_you_mean(weights, WEIGHT_NAMES)}")
            if ann.kind == "set":
                raise ValueError("named weights need categorical or numeric labels; use similarity= for sets")
            check_weight_order(ann, weights)
            m = weight_matrix(weights, category_values(ann))
            sim = MatrixSimilarity(m, name=weights)
            return sim if weights != "identity" else ExactMatchSimilarity(k)
        arr = np.asarray(weights, dtype=np.float64) if isinstance(weights, np.ndarray | list | tuple) else None
        if arr is not None and arr.shape == (k, k) and not np.array_equal(arr, arr.T):
            check_similarity_matrix(arr, k, "weights")  # range / diagonal; used as given (no symmetrising)
            return AsGivenWeights(arr, name="weights-matrix")  # the registry refuses it without a rater order
        return MatrixSimilarity(check_similarity_matrix(weights, k, "weights"), name="weights-matrix")
    return resolve_label_similarity(ann.vocabulary, similarity)


def level_similarity(ann: Annotations, level: str, similarity: Any = None) -> LabelSimilarity:
    """Krippendorff's metric as a similarity: nominal (or ``similarity=``), interval or ratio.

    ``1 - delta / max(delta)``: alpha is invariant to rescaling the distance. Ordinal is not
    a fixed similarity (its metric depends on the data) and is handled by its own family.

    Parameters
    ----------
    ann : Annotations
        The annotations (numeric labels for interval / ratio).
    level : {"nominal", "interval", "ratio"}
        Krippendorff's level of measurement.
    similarity : optional
        With ``level="nominal"`` only: a soft similarity, as for :func:`resolve_similarity`.

    Examples
    --------
    >>> ann = Annotations.from_wide([[1, 2], [2, 3], [3, 3]])
    >>> level_similarity(ann, "interval").block(np.arange(3), np.arange(3)).values[0].tolist()
    [1.0, 0.75, 0.0]
    """
    if level == "nominal":
        return resolve_similarity(ann, similarity=similarity)
    if similarity is not None:
        raise ValueError(f"similarity= replaces the level's distance; use level='nominal' with a similarity "
                         f"(got level={level!r})")
    if level not in ("interval", "ratio"):
        raise ValueError(f"level must be one of ['nominal', 'interval', 'ratio'] here; got {level!r}")
    if ann.kind != "numeric":
        from softirr_stats.data import decimal_comma_hint

        hint = decimal_comma_hint(ann.vocabulary) if ann.kind == "categorical" else ""
        raise ValueError(f"level={level!r} needs numeric labels; these are {ann.kind}" + (f": {hint}" if hint else ""))
    delta = krippendorff_distance(level, ann.values())
    top = delta.max()
    return MatrixSimilarity(1.0 - delta / top if top > 0 else 1.0 - delta, name=f"{level}-distance")
