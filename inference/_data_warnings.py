"""What the data let an annotator model say: the texts of ``annotator_agreement``'s warnings about its data.

Each function returns the text of one warning, or ``""`` where it does not apply; ``annotator_agreement`` raises
them (``inference._agreement``), so they reach the result's ``warnings``, ``softirr model``'s notes and its
``--json``:

* :func:`few_items_text`: fewer than :data:`~softirr_stats.uncertainty.FEW_ITEMS` (20) items, the bootstraps'
  threshold (``FewUnitsWarning``): the posterior leans on the priors;
* :func:`unanimous_text`: every item's raters agree (``PriorDominatedWarning``): the data hold no disagreement,
  so how far the model's kappa sits below 1 is its priors', not measured;
* :func:`few_rated_text`: raters who rated fewer than :data:`FEW_RATER_ITEMS` items (``FewUnitsWarning``): their
  accuracies are mostly their priors;
* :func:`set_labels_text`: set-valued (multi-label) ratings fitted by a categorical model, each distinct set one
  category (``FitWarning``).
"""

from collections.abc import Sequence
from typing import Any

import numpy as np

from softirr_stats.uncertainty import few_items_posterior_note

__all__ = ["FEW_RATER_ITEMS", "few_items_text", "few_rated_text", "items_per_rater", "set_labels_text",
           "unanimous_text"]

#: Below this many items a rater's accuracy is flagged (:func:`few_rated_text`): "a handful", the bootstraps'
#: smallest stratum (``uncertainty.FEW_PER_STRATUM``). With one rating the default Dawid-Skene fit of 40 items of 3
#: classes gave that rater 0.76 [0.52, 0.94] (NUTS), against the prior's 0.75 [0.44, 0.95] and 0.68-0.80 for the
#: raters of 40 items.
FEW_RATER_ITEMS = 5

#: What is known of a model's posterior on few items (docs/annotator_models.md, "The default Dawid-Skene prior: a
#: sweep of its weight"): the prior's weight moved the kappa of 20-item studies by 0.02-0.08, and on 30 items of
#: 10 classes every weight left it about 0.12 low, its 90% interval covering in 44-62% of 50 studies.
_FEW_ITEMS_CAVEAT = ("with so few items an annotator model's kappa and its interval lean on the model's priors, "
                     "which so few ratings cannot outweigh (the Dawid-Skene prior's weight moved the kappa of "
                     "20-item studies by 0.02-0.08, and on 30 items of 10 classes the 90% interval covered the true "
                     "kappa in 44-62% of simulated studies; docs/annotator_models.md, \"The default Dawid-Skene "
                     "prior: a sweep of its weight\"); inference.prior_sensitivity shows how far these data's kappa "
                     "moves with the prior")


def few_items_text(n_items: int) -> str:
    """The warning (``FewUnitsWarning``) of a model fitted to fewer than 20 items, the bootstraps' threshold.

    Examples
    --------
    >>> few_items_text(12).split(":")[0]
    '12 items behind the posterior interval (fewer than 20)'
    >>> few_items_text(20)
    ''
    """
    return few_items_posterior_note(n_items, _FEW_ITEMS_CAVEAT)


def _item_label_counts(data: Any) -> tuple[np.ndarray, np.ndarray]:
    """Per item: the number of ratings and the count of its most frequent label."""
    items, labels = np.asarray(data.items, dtype=np.int64), np.asarray(data.labels, dtype=np.int64)
    cells = np.bincount(items * data.n_classes + labels, minlength=data.n_items * data.n_classes)
    counts = cells.reshape(data.n_items, data.n_classes)
    return counts.sum(axis=1), counts.max(axis=1, initial=0)


def unanimous_text(data: Any, value: float) -> str:
    """The warning (``PriorDominatedWarning``) of a categorical model fitted to ratings that agree everywhere.

    Where every item rated twice or more got one label from all of its raters (observed agreement 1, Fleiss' kappa
    1) the likelihood is highest with every rater always right, and the model's kappa sits below 1 only as far as its
    priors on rater accuracy pull it; its interval is what the priors allow. ``""`` where some item's raters
    disagree, where no item was rated twice, or where every rating has one label (Fleiss' kappa undefined: its own
    warning). ``value`` is the model's kappa, named in the text.

    Examples
    --------
    >>> from softirr_stats.models import encode_annotations
    >>> unanimous_text(encode_annotations(np.array([[0, 0], [1, 1], [1, 1]])), 0.54).split(", ")[0]
    'every item rated twice or more got one label from all of its raters (3 items'
    >>> unanimous_text(encode_annotations(np.array([[0, 1], [1, 1]])), 0.3)
    ''
    """
    n, top = _item_label_counts(data)
    rated = n >= 2
    if not rated.any() or np.any(top[rated] < n[rated]) or np.unique(np.asarray(data.labels)).size < 2:
        return ""
    k = int(rated.sum())
    return (f"every item rated twice or more got one label from all of its raters ({k} items, observed agreement 1, "
            "Fleiss' kappa 1): the data hold no disagreement and are most likely with every rater always right, so "
            f"how far the model's kappa ({value:.3f}) sits below 1 is set by its priors on rater accuracy (their mean "
            "accuracy below 1 pulls it down), not measured, and its interval shows what the priors allow; report the "
            f"observed agreement of 1 on these {k} items, and rate more items (or check the model's kappa under other "
            "priors: inference.prior_sensitivity)")


def items_per_rater(data: Any) -> np.ndarray:
    """``(n_raters,)`` the number of distinct items each rater rated (``Posterior.rater_accuracy``'s ``n_items``).

    Examples
    --------
    >>> from softirr_stats.models import encode_annotations
    >>> items_per_rater(encode_annotations(np.array([[0, 1, -1], [1, -1, -1]]))).tolist()
    [2, 1, 0]
    """
    pairs = np.unique(np.asarray(data.items, dtype=np.int64) * data.n_raters + np.asarray(data.raters))
    return np.bincount(pairs % data.n_raters, minlength=data.n_raters)


def few_rated_text(data: Any, few: int = FEW_RATER_ITEMS) -> str:
    """The warning (``FewUnitsWarning``) naming the raters who rated fewer than ``few`` items.

    A rater's accuracy (``Posterior.rater_accuracy``, ``softirr model``'s ``accuracy[rater]`` rows) and per-rater
    check rest on that rater's ratings: with one or two of them the accuracy and its interval are mostly the
    prior's (the model's kappa weighs each pair of raters by the items they share, so it is little moved). The first four such raters are named with their counts.

    Examples
    --------
    >>> from softirr_stats.models import encode_annotations
    >>> few_rated_text(encode_annotations(np.array([[0, 1, 0]] + [[0, 1, -1]] * 6)))[:52]
    'rater 2 rated 1 item (fewer than 5): its accuracy an'
    >>> few_rated_text(encode_annotations(np.array([[0, 1]] * 5)))
    ''
    """
    per_rater = items_per_rater(data)
    low = np.flatnonzero(per_rater < few)
    if low.size == 0:
        return ""
    names = data.rater_names or tuple(range(data.n_raters))

    def rated(j: int) -> str:
        return f"{per_rater[j]} item{'' if per_rater[j] == 1 else 's'}"

    def who(j: int) -> str:
        return f"rater {names[j]!r}" if isinstance(names[j], str) else f"rater {names[j]}"

    where = "Posterior.rater_accuracy's n_items column"
    if low.size == 1:
        j = int(low[0])
        return (f"{who(j)} rated {rated(j)} (fewer than {few}): its accuracy and accuracy interval (the "
                f"accuracy[{names[j]}] row; {where}) are mostly the prior's, not a measurement of that rater: read "
                "them as rough")
    shown = ", ".join(f"{who(int(j))}: {rated(int(j))}" for j in low[:4])
    more = f", {low.size - 4} more" if low.size > 4 else ""
    return (f"{low.size} of {data.n_raters} raters rated fewer than {few} items ({shown}{more}): their accuracies "
            f"and accuracy intervals (their accuracy rows; {where}) are mostly the prior's, not measurements of those "
            "raters: read them as rough")


def set_labels_text(vocabulary: Sequence[Any] | None) -> str:
    """The warning (``FitWarning``) of a categorical model fitted to set-valued (multi-label) ratings.

    The model takes each distinct set as one category: ``{a}`` against ``{a, b}`` is as full a disagreement as
    ``{a}`` against ``{b}``, and no label is compared on its own. ``""`` for other labels.

    Examples
    --------
    >>> set_labels_text((frozenset("a"), frozenset("ab")))[:80]
    'the labels are sets (multi-label ratings): each distinct set of labels is one ca'
    >>> set_labels_text(("a", "b"))
    ''
    """
    sets = [v for v in (vocabulary or ()) if isinstance(v, frozenset)]
    if not sets:
        return ""
    widest = max(sets, key=len)
    shown = "{" + ", ".join(sorted(map(str, widest))) + "}"
    return (f"the labels are sets (multi-label ratings): each distinct set of labels is one category of the model "
            f"({len(sets)} sets, e.g. {shown}), so a set against one that shares some of its labels counts as a "
            "full disagreement, as much as against a set that shares none, and no label is compared on its own; "
            "for agreement label by label use multilabel_agreement (on the command line: softirr agree -c "
            "multilabel_fleiss), or the soft model with a set similarity (model='soft', similarity='jaccard')")
