"""From (annotations, family, similarity, chance) to a point-estimate AgreementResult."""

import math
import sys
import warnings
from typing import Any

import numpy as np

from softirr_stats.agreement._evaluator import (
    DegenerateWarning,
    Prepared,
    chance_se_problem,
    chance_standard_error,
    evaluate,
    prepare,
    warn_degenerate,
)
from softirr_stats.agreement._families import ChanceFamily
from softirr_stats.agreement._result import AgreementResult
from softirr_stats.base._validation import user_stacklevel
from softirr_stats.data import Annotations
from softirr_stats.equivalence import LabelSimilarity

__all__ = ["as_annotations", "point_estimate"]


def as_annotations(data: Any, categories: Any = None) -> Annotations:
    """Accept Annotations, or a wide table (DataFrame / array / nested lists: rows = items).

    Parameters
    ----------
    data : Annotations, DataFrame, array or nested lists
        Annotations are returned as they are; a wide table has one row per item, one column
        per rater and None/NaN for a missing rating.
    categories : sequence, optional
        The declared label order (passed to ``Annotations.from_wide``).

    Returns
    -------
    Annotations

    Examples
    --------
    >>> ann = as_annotations([["a", "b"], ["a", None]])
    >>> ann.n_items, ann.n_raters, ann.vocabulary
    (2, 2, ('a', 'b'))
    """
    if isinstance(data, Annotations):
        if categories is None or (data.categories is not None and tuple(categories) == data.categories):
            return data
        long = data.to_long()
        if data.kind == "set":
            raise ValueError("categories= applies to categorical or numeric labels, not sets")
        import pandas as pd

        out = Annotations.from_long(long, categories=list(categories))
        # keep item / rater order and items without ratings
        return Annotations.from_wide(
            pd.DataFrame(np.asarray(data.vocabulary + (None,), dtype=object)[data.codes],
                         index=pd.Index(data.items), columns=pd.Index(data.raters)),
            categories=list(out.vocabulary))
    pd_ = sys.modules.get("pandas")  # a DataFrame exists only once pandas is imported
    if pd_ is not None and isinstance(data, pd_.DataFrame):
        _refuse_long_frame(data)
    if isinstance(data, np.ndarray | list | tuple) or (pd_ is not None and isinstance(data, pd_.DataFrame)):
        return Annotations.from_wide(data, categories=categories)
    raise TypeError(
        "ann must be softirr_stats.Annotations or a wide table (DataFrame, array or nested lists with "
        f"rows = items, columns = raters); got {type(data).__name__}"
    )


def _refuse_long_frame(frame: Any) -> None:
    """A ValueError for a long table (a row per rating: item, rater and label columns) passed where a wide table
    is read: its columns would be taken for raters, and the coefficient would be computed on nonsense.

    Examples
    --------
    >>> import pandas as pd
    >>> _refuse_long_frame(pd.DataFrame({"ana": ["a"], "bo": ["b"]}))  # a wide table: nothing to say
    >>> try:
    ...     _refuse_long_frame(pd.DataFrame({"item": [1], "rater": ["ana"], "label": ["a"]}))
    ... except ValueError as err:
    ...     print(str(err)[:72])
    this DataFrame looks like a long table (a row per rating: columns 'item'
    """
    from softirr_stats.data import guess_roles

    roles = guess_roles(frame.columns)
    if len(roles) < 2:
        return
    found = ", ".join(repr(c) for c in roles.values())
    call = ", ".join(f"{k}={v!r}" for k, v in roles.items())
    raise ValueError(f"this DataFrame looks like a long table (a row per rating: columns {found}), but a DataFrame "
                     "given to a coefficient is read as a wide table (a row per item, a column per rater), which "
                     f"would make each of its {frame.shape[1]} columns a rater; build the annotations first: "
                     f"sis.Annotations.from_long(df, {call})")


def point_estimate(ann: Annotations, *, family: "str | ChanceFamily", coefficient: str, sim: LabelSimilarity,
                   chance: Any = "exact", extra_notes: list[str] | None = None) -> tuple[AgreementResult, Prepared]:
    """Prepare and evaluate a coefficient at unit weights.

    Parameters
    ----------
    ann : Annotations
    family : str or ChanceFamily
        The coefficient's chance family.
    coefficient : str
        The name reported in the result.
    sim : LabelSimilarity
        The resolved similarity.
    chance : "exact", MonteCarlo or SampledPairs
        How chance agreement is computed.
    extra_notes : list of str, optional
        Notes added to the result's warnings.

    Returns
    -------
    (AgreementResult, Prepared)
        The result at unit weights and the prepared coefficient (for intervals).

    Examples
    --------
    >>> from softirr_stats import Annotations
    >>> from softirr_stats.agreement import resolve_similarity
    >>> ann = Annotations.from_wide([["a", "a"], ["a", "b"], ["b", "b"], ["a", "a"]])
    >>> res, prep = point_estimate(ann, family="pooled", coefficient="fleiss_kappa", sim=resolve_similarity(ann))
    >>> res.coefficient, round(res.value, 4)
    ('fleiss_kappa', 0.4667)
    """
    notes = list(extra_notes or [])
    prep = prepare(ann, family, sim, chance=chance)
    out = evaluate(prep)
    pa, pe, value = float(out["pa"][0]), float(out["pe"][0]), float(out["value"][0])
    notes += prep.notes
    notes += warn_degenerate(coefficient, pa, pe, value)
    if not prep.layout.pairable.all():  # the note carries the warning's own count
        ann.warn_unpairable(stacklevel=user_stacklevel() + 1)  # warned one frame down
        notes.append(ann.unpairable_message())  # the warning's text: printed once with it
    se_problem = chance_se_problem(prep)
    if se_problem:
        notes.append(se_problem)
    details: dict[str, Any] = {
        "n_pairable_items": int((prep.layout.r_i >= 2).sum()),
        "n_within_item_pairs": prep.layout.n_pairs,
        "n_labels": len(ann.vocabulary),
    }
    if "kappa_g" in out:
        details["pairwise"] = out["kappa_g"][0][: prep.n_groups]
        n_pairs = math.comb(prep.layout.n_raters_present, 2)
        if prep.n_groups < n_pairs:  # a rater pair with no item in common has no kappa of its own
            said = (f"{n_pairs - prep.n_groups} of {n_pairs} rater pairs share no item and have no pairwise "
                    f"kappa: {coefficient} averages the {prep.n_groups} pair(s) that do")
            warnings.warn(f"{coefficient}: {said}", DegenerateWarning, stacklevel=user_stacklevel())
            notes.append(said)
    result = AgreementResult(
        coefficient=coefficient,
        value=value,
        observed=pa,
        expected=pe,
        n_items=int((prep.layout.r_i >= 1).sum()),
        n_raters=prep.layout.n_raters_present,
        similarity=sim.name,
        chance="none" if prep.family.chance == "none" else prep.chance_label,
        chance_se=chance_standard_error(prep),
        n_pairs_scored=prep.n_pairs_scored,
        warnings=tuple(notes),
        details=details,
    )
    return result, prep
