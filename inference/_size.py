"""The size of a fit, known before anything compiles: parameters, work, a rough time, a refusal.

:func:`fit_size` traces the model once (op by op, no compilation) and counts its latent
dimension; with the data's items, raters, classes and the labels given only once it tells
whether a categorical model is being asked to fit free text (every distinct string a class),
which no latent-class model describes and which can take hours: :func:`check_fit_size`
refuses that fit with one line that says what to do instead (the soft model, or a coarser
label set). :attr:`FitSize.seconds` is a rough estimate of the sampling or optimisation time
(compilation excluded), from a cost per unit of work measured on a 2-core machine.
"""

import math
from dataclasses import dataclass
from typing import Any

import jax
import numpy as np
from numpyro import handlers

__all__ = ["OPEN_VOCABULARY_MAX_CLASSES", "FitSize", "open_vocabulary", "FitSizeError", "check_fit_size", "fit_size", "format_seconds"]

#: A categorical model on labels that look like free text (:func:`~softirr_stats.inference.open_vocabulary`)
#: is refused above this many classes: ``n_raters x n_classes**2`` confusion parameters and an
#: enumeration over every class per rating, for a model that does not describe the data.
OPEN_VOCABULARY_MAX_CLASSES = 50

#: Seconds per unit of work (one gradient of the log density: latent dimension + ratings x
#: classes) and NUTS leapfrog steps per iteration assumed where the caller does not say (``fit``
#: passes its model kind's: ``ModelKind.nuts_leapfrog_per_iteration``, ``seconds_per_work``); a
#: rough guide: tree depth varies with the posterior. Also the custom kind's values.
SECONDS_PER_WORK = 1e-7
LEAPFROG_PER_ITERATION = 31
_SECONDS_PER_GRADIENT = 2e-5  # the fixed cost of one gradient evaluation in a compiled loop
#: The latent dimension up to which the leapfrog counts were measured (categorical fits of 30-130
#: parameters, soft fits of 51). Above it the count grows as the dimension's fourth root, as NUTS's
#: step size shrinks (Beskos et al. 2013): a categorical model on free text (150,000 parameters) runs
#: deep trees, not the 15 steps of a 3 x 3 confusion model.
_MEASURED_DIMENSION = 200


def open_vocabulary(data: Any) -> tuple[bool, float, int]:
    """Does a categorical model's data look like an open vocabulary (free text)?

    A categorical annotator model treats each distinct string as a class; with free text
    most ratings of an item are distinct strings, which no latent-class model describes.
    Flagged when there are at least 10 labels and either at least one label per two items,
    or the distinct labels per item exceed 60% of the ratings per item.

    Parameters
    ----------
    data : AnnotationData
        ``items``, ``labels``, ``n_items``, ``n_classes`` (as the fitted posterior holds).

    Returns
    -------
    (flag, distinct_per_item, n_labels)

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats.models import encode_annotations
    >>> codes = np.arange(90).reshape(30, 3) % 35          # 35 strings on 30 items x 3 raters
    >>> open_vocabulary(encode_annotations(codes))[0]
    True
    >>> open_vocabulary(encode_annotations(np.array([[0, 0, 1], [1, 1, 1]] * 15)))[0]
    False
    """
    items = np.asarray(data.items, dtype=np.int64)
    labels = np.asarray(data.labels, dtype=np.int64)
    k, n = int(data.n_classes), max(int(data.n_items), 1)
    rated = np.unique(items).size
    if rated == 0:
        return False, math.nan, k
    distinct = np.unique(items * k + labels).size / rated
    per_item = items.size / rated
    used = np.unique(labels).size
    flag = used >= 10 and (used >= 0.5 * n or (per_item > 1 and distinct >= 0.6 * per_item))
    return bool(flag), float(distinct), int(used)



class FitSizeError(ValueError):
    """A fit refused before compiling; ``size`` (:class:`FitSize`) holds the numbers behind it.

    Parameters
    ----------
    message : str
        The one line that says why and what to do instead.
    size : FitSize
        The fit's sizes.

    Examples
    --------
    >>> size = FitSize("mace", "categorical", "nuts", 9, 2, 60, 18, 18, 7200, True, 2000, 90.0)
    >>> FitSizeError("refused", size).size.n_classes
    60
    """

    def __init__(self, message: str, size: "FitSize") -> None:
        super().__init__(message)
        self.size = size


@dataclass(frozen=True)
class FitSize:
    """How big a fit is, known before it compiles.

    Attributes
    ----------
    model, kind, method : str
        The model's name, its kind (``"categorical"``, ``"soft"``, ``"custom"``) and
        ``"nuts"`` or ``"svi"``.
    n_items, n_raters, n_classes, n_ratings : int
        The data's sizes (``n_classes`` 0 for the soft and custom models).
    n_singletons : int
        Labels given exactly once in the whole data set.
    n_parameters : int
        The model's latent (unconstrained) dimension.
    open_vocabulary : bool
        A categorical model on what looks like free text.
    iterations : int
        NUTS: chains x (warm-up + draws); SVI: optimisation steps.
    seconds : float
        Rough time of sampling or optimisation, compilation excluded.

    Examples
    --------
    >>> FitSize("mace", "categorical", "svi", 10, 2, 3, 20, 1, 40, False, 2000, 12.0).n_parameters
    40
    """

    model: str
    kind: str
    method: str
    n_items: int
    n_raters: int
    n_classes: int
    n_ratings: int
    n_singletons: int
    n_parameters: int
    open_vocabulary: bool
    iterations: int
    seconds: float

    def describe(self) -> str:
        """One line: the fit's sizes and the rough time.

        Examples
        --------
        >>> FitSize("dawid_skene", "categorical", "nuts", 90, 3, 226, 270, 180, 153450, True, 2000,
        ...         700.0).describe()
        'dawid_skene by NUTS: 90 items x 3 raters x 226 classes (180 labels given once), 153,450 parameters, 2,000 iterations: roughly 12 min'
        """
        classes = (f" x {self.n_classes} classes ({self.n_singletons} labels given once)"
                   if self.kind == "categorical" else "")
        return (f"{self.model} by {self.method.upper()}: {self.n_items} items x {self.n_raters} raters{classes}, "
                f"{self.n_parameters:,} parameters, {self.iterations:,} {'iterations' if self.method == 'nuts' else 'steps'}"
                f": roughly {format_seconds(self.seconds)}")


def format_seconds(seconds: float) -> str:
    """``seconds`` rounded for a person: '40 s', '12 min', '3.5 h'.

    Parameters
    ----------
    seconds : float
        A duration (nan: 'an unknown time').

    Examples
    --------
    >>> format_seconds(3.2), format_seconds(700.0), format_seconds(12600.0)
    ('3 s', '12 min', '3.5 h')
    """
    if not math.isfinite(seconds):
        return "an unknown time"
    if seconds < 90:
        return f"{max(seconds, 1.0):.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def _latent_dimension(fn: Any, data: Any, kwargs: dict) -> int:
    """Size of the model's latent sample sites (an abstract trace: no arithmetic, nothing compiles)."""
    def latent(key: jax.Array) -> list:
        tr = handlers.trace(handlers.seed(fn, key)).get_trace(data, **kwargs)
        return [site["value"] for site in tr.values() if site["type"] == "sample" and not site["is_observed"]
                and not site.get("infer", {}).get("enumerate")]

    return int(sum(math.prod(v.shape) for v in jax.eval_shape(latent, jax.random.key(0))))


def fit_size(name: str, kind: str, fn: Any, data: Any, method: str, config: Any, kwargs: dict, *,
             leapfrog_per_iteration: int = LEAPFROG_PER_ITERATION,
             seconds_per_work: float = SECONDS_PER_WORK) -> FitSize:
    """The :class:`FitSize` of fitting ``fn`` to the encoded ``data`` by ``method`` under ``config``.

    ``leapfrog_per_iteration`` and ``seconds_per_work`` are what the time estimate assumes: the
    model kind's ``nuts_leapfrog_per_iteration`` (15 for a categorical model, 120 for the soft one)
    and ``seconds_per_work`` (5e-8 and 1e-7), which :func:`~softirr_stats.inference.fit` passes. The
    count grows as the fourth root of the latent dimension above the 200 it was measured at.

    Examples
    --------
    >>> from softirr_stats import models
    >>> from softirr_stats.inference import NutsConfig
    >>> data = models.encode_annotations(np.array([[0, 0, 1], [1, 1, 1], [2, 0, 2]] * 10))
    >>> size = fit_size("dawid_skene", "categorical", models.dawid_skene, data, "nuts", NutsConfig(), {})
    >>> size.n_parameters, size.n_classes, size.open_vocabulary, size.iterations
    (30, 3, False, 2000)
    >>> longer = fit_size("dawid_skene", "categorical", models.dawid_skene, data, "nuts", NutsConfig(), {},
    ...                   leapfrog_per_iteration=62)
    >>> round(longer.seconds / size.seconds, 6)
    2.0
    """
    n_params = _latent_dimension(fn, data, kwargs)
    iterations = (config.num_chains * (config.num_warmup + config.num_samples) if method == "nuts"
                  else config.steps)
    n_items = int(getattr(data, "n_items", 0) or 0)
    n_raters = int(getattr(data, "n_raters", 0) or 0)
    if kind == "categorical":
        labels = np.asarray(data.labels, dtype=np.int64)
        counts = np.bincount(labels, minlength=int(data.n_classes)) if labels.size else np.zeros(0, int)
        n_classes, n_ratings = int(data.n_classes), int(labels.size)
        singletons, open_vocab = int((counts == 1).sum()), open_vocabulary(data)[0]
    else:
        n_classes, singletons, open_vocab = 0, 0, False
        n_ratings = int(np.size(getattr(data, "within_scores", ())))
    work = n_params + n_ratings * max(n_classes, 1)
    per_gradient = _SECONDS_PER_GRADIENT + seconds_per_work * work
    leapfrog = leapfrog_per_iteration * max(1.0, n_params / _MEASURED_DIMENSION) ** 0.25
    gradients = iterations * (leapfrog if method == "nuts" else 1)
    return FitSize(name, kind, method, n_items, n_raters, n_classes, n_ratings, singletons, n_params,
                   bool(open_vocab), int(iterations), float(gradients * per_gradient))


def check_fit_size(size: FitSize) -> None:
    """Refuse a categorical model on free-text labels (:class:`FitSizeError`), before compiling.

    An open vocabulary (:func:`~softirr_stats.inference.open_vocabulary`) of more than
    :data:`OPEN_VOCABULARY_MAX_CLASSES` classes is refused: the message says to use the soft
    model, which scores label pairs by a similarity, or to map the labels to a coarser set.

    Examples
    --------
    >>> big = FitSize("dawid_skene", "categorical", "nuts", 90, 3, 226, 270, 180, 153450, True, 2000, 700.0)
    >>> check_fit_size(big)
    Traceback (most recent call last):
    ...
    softirr_stats.inference._size.FitSizeError: dawid_skene on free-text labels: 226 distinct labels on 90 items, 180 of them given once; a categorical model treats every string as a class (153,450 parameters; a NUTS fit would take roughly 12 min) and does not describe free text. Fit the soft model instead (model='soft' with a similarity, e.g. similarity='levenshtein'), or map the labels to a coarser label set first (check_size=False fits anyway)
    """
    if size.kind != "categorical" or not size.open_vocabulary or size.n_classes <= OPEN_VOCABULARY_MAX_CLASSES:
        return
    raise FitSizeError(
        f"{size.model} on free-text labels: {size.n_classes} distinct labels on {size.n_items} items, "
        f"{size.n_singletons} of them given once; a categorical model treats every string as a class "
        f"({size.n_parameters:,} parameters; {'an SVI' if size.method == 'svi' else 'a NUTS'} fit would take "
        f"roughly {format_seconds(size.seconds)}) and does not describe free text. Fit the soft model instead "
        "(model='soft' with a similarity, e.g. similarity='levenshtein'), or map the labels to a coarser label set "
        "first (check_size=False fits anyway)",
        size)
