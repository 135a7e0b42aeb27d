"""Resolve ``similarity=`` / ``weights=`` into a similarity over the vocabulary.

``similarity=`` itself is resolved in one place, the equivalence layer's
:func:`~softirr_stats.equivalence.resolve_label_similarity` (one memo of scored label pairs per
estimator and vocabulary; directional estimators symmetrised there). This module adds what
belongs to agreement: categorical ``weights=`` (named or a matrix) and Krippendorff's
interval / ratio metrics as similarities.
"""

import numbers
import warnings
from typing import Any

import numpy as np

from softirr_stats.agreement._weights import WEIGHT_NAMES, krippendorff_distance, weight_matrix
from softirr_stats.data import Annotations
from softirr_stats.equivalence import (
    MEASURE_NAMES,
    ExactMatchSimilarity,
    LabelSimilarity,
    MatrixSimilarity,
    check_similarity_matrix,
    estimator_from_name,
    resolve_label_similarity,
)

__all__ = ["ExactMatchSimilarity", "LabelSimilarity", "MatrixSimilarity", "resolve_similarity", "level_similarity",
           "category_values", "estimator_from_name", "MEASURE_NAMES"]



def __getattr__(name: str) -> Any:
    """``VocabSimilarity``: the deprecated name of ``ExactMatchSimilarity`` (with a warning).

    ``softirr_stats.agreement`` exported it before the similarity path moved to the
    equivalence layer; the new name says what the class is (exact matching, the identity kind
    of :class:`~softirr_stats.equivalence.LabelSimilarity`).
    """
    if name == "VocabSimilarity":
        warnings.warn("VocabSimilarity is deprecated; use softirr_stats.equivalence.ExactMatchSimilarity "
                      "(the same class)", DeprecationWarning, stacklevel=2)
        return ExactMatchSimilarity
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class AsGivenWeights(MatrixSimilarity):
    """An asymmetric ``weights=`` matrix read as given: ``S[code of the earlier rater, code of the later]``.

    Examples
    --------
    >>> AsGivenWeights(np.array([[1.0, 0.5], [0.0, 1.0]])).asymmetric
    True
    """

    asymmetric = True


def category_values(ann: Annotations) -> np.ndarray:
    """Values on which weights are built: numeric labels, else positions 1..K.

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


def check_weight_order(ann: Annotations, weights: str) -> None:
    """Named ordered weights need an order: numeric labels or declared ``categories=``.

    Text labels ("low", "medium", "high") have no order of their own; sorting them
    alphabetically would silently weight "high" next to "low".
    """
    if weights == "identity" or ann.kind != "categorical" or ann.categories is not None:
        return
    if all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in ann.vocabulary):
        return
    shown = ", ".join(repr(v) for v in ann.vocabulary[:6]) + (", ..." if len(ann.vocabulary) > 6 else "")
    raise ValueError(
        f"weights={weights!r} orders the labels, but these are text labels with no declared order "
        f"({shown}); pass categories=[...] listing them in order (e.g. categories=['low', 'medium', "
        f"'high']), or use numeric labels")


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
        Soft agreement (see :func:`~softirr_stats.equivalence.resolve_label_similarity`).
    weights : str or array, optional
        Categorical agreement weights (``WEIGHT_NAMES`` or a K x K matrix); not with ``similarity``.
        (Which coefficient takes which option is its registry record's ``options``.)

    Examples
    --------
    >>> ann = Annotations.from_wide([[1, 2], [2, 3], [3, 3]])
    >>> resolve_similarity(ann, weights="linear").block(np.arange(3), np.arange(3)).values[0].tolist()
    [1.0, 0.5, 0.0]
    """
    k = len(ann.vocabulary)
    if similarity is not None and weights is not None:
        raise ValueError("give weights= (categorical agreement weights) or similarity= (soft), not both")
    if weights is not None:
        if isinstance(weights, str):
            if weights not in WEIGHT_NAMES:
                raise ValueError(f"weights must be one of {list(WEIGHT_NAMES)} or a K x K array; got {weights!r}")
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
        raise ValueError(f"level={level!r} needs numeric labels; these are {ann.kind}")
    delta = krippendorff_distance(level, ann.values())
    top = delta.max()
    return MatrixSimilarity(1.0 - delta / top if top > 0 else 1.0 - delta, name=f"{level}-distance")
