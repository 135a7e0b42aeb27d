"""The annotator-model table: one :class:`AnnotatorModel` record per model, read by everything else.

``inference.fit`` (a name to its kind and NumPyro function), ``annotator_agreement`` (the names it
accepts, and which take pair scores), the categorical kind's post-processing (``derive`` /
``response``), the ``softirr model`` / ``softirr report`` choices and help, and
:data:`MODEL_SPECS` (the categorical rows) all read :data:`ANNOTATOR_MODELS`. Adding a model is
one record here (plus its functions in their module).

The hooks are written as ``"module:attribute"`` and loaded on first use, so reading the table
(the CLI's ``--help``) imports neither NumPyro nor JAX.
"""

import importlib
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ANNOTATOR_MODELS", "EMISSIONS", "MODEL_NAMES", "MODEL_SPECS", "AnnotatorModel", "find_model"]

_CATEGORICAL = "softirr_stats.models._categorical"
_PRIORS = "softirr_stats.models._priors"
_SOFT = "softirr_stats.models._soft"

#: The soft model's emissions (``soft_agreement(..., emission=)``, ``annotator_agreement(..., model="soft",
#: emission=)``, ``softirr model --emission``): the score distribution of each component. Listed here, beside
#: the models, so that the command line reads them without importing NumPyro.
EMISSIONS = ("beta", "monotone", "histogram")
#: The default emission of :func:`~softirr_stats.models.soft_agreement`: shape-constrained histograms. Over 300
#: simulated studies per score shape (docs/annotator_models.md, "Which emission by default")
#: its 90% kappa interval covered 88-90% on bands, exact 0/1 and heavy tails and 80% on
#: calibrated probabilities, where the Beta emission covered 30-74% and 39%; where the
#: monotone shape fails (bimodal, overlapping interior bulks) both miss, and the monotone's
#: score check says so on every such fit.
DEFAULT_EMISSION = "monotone"


@dataclass(frozen=True)
class AnnotatorModel:
    """One annotator model: its names, its kind and the functions a fit needs.

    Attributes
    ----------
    name : str
        The model's name (``Posterior.model_name``).
    kind : str
        Its kind, a key of :data:`softirr_stats.inference._kinds.MODEL_KINDS` (``"categorical"``
        models read annotations; ``"soft"`` ones read pair scores of a similarity).
    hooks : dict of str to str
        ``"model"`` (the NumPyro model function) and ``"priors"`` (its priors dataclass); for a
        categorical model also ``"derive"`` (posterior draws -> prevalence and confusion draws)
        and ``"response"`` (per-rating log response probabilities), each as ``"module:attribute"``.
    aliases : tuple of str
        Other names accepted for it (the CLI's ``soft``).
    item_effects : bool
        Whether the model has item effects (item difficulty).

    Examples
    --------
    >>> rec = ANNOTATOR_MODELS["dawid_skene"]
    >>> rec.kind, rec.soft, rec.priors.__name__, rec.item_effects
    ('categorical', False, 'DawidSkenePriors', False)
    >>> find_model("soft").name, find_model("soft").soft
    ('soft_agreement', True)
    """

    name: str
    kind: str
    hooks: dict[str, str] = field(default_factory=dict)
    aliases: tuple[str, ...] = ()
    item_effects: bool = False

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the model is known by: its name, then its aliases."""
        return (self.name, *self.aliases)

    @property
    def soft(self) -> bool:
        """Whether it models pair scores of a similarity (``similarity=`` applies)."""
        return self.kind == "soft"

    def hook(self, which: str) -> Any:
        """The object of hook ``which`` (imported on first use)."""
        try:
            module, attribute = self.hooks[which].split(":")
        except KeyError:
            raise AttributeError(f"annotator model {self.name!r} has no {which!r} hook; it has "
                                 f"{sorted(self.hooks)}") from None
        return getattr(importlib.import_module(module), attribute)

    @property
    def model(self) -> Any:
        """The NumPyro model function."""
        return self.hook("model")

    @property
    def priors(self) -> type:
        """The priors dataclass."""
        return self.hook("priors")

    @property
    def derive(self) -> Any:
        """Posterior draws -> prevalence and confusion draws (categorical models)."""
        return self.hook("derive")

    @property
    def response(self) -> Any:
        """Per-rating log response probabilities, for class posteriors (categorical models)."""
        return self.hook("response")


def _categorical(name: str, priors: str, derive: str, response: str, *, item_effects: bool = False) -> AnnotatorModel:
    return AnnotatorModel(name, "categorical", {
        "model": f"{_CATEGORICAL}:{name}", "priors": f"{_PRIORS}:{priors}",
        "derive": f"{_CATEGORICAL}:{derive}", "response": f"{_CATEGORICAL}:{response}"}, item_effects=item_effects)


#: The annotator models by name, in the order the CLI lists them.
ANNOTATOR_MODELS: dict[str, AnnotatorModel] = {rec.name: rec for rec in (
    _categorical("dawid_skene", "DawidSkenePriors", "_derive_dawid_skene", "_response_dawid_skene"),
    _categorical("mace", "MacePriors", "_derive_mace", "_response_mace"),
    _categorical("hierarchical_dawid_skene", "HierarchicalPriors", "_derive_hds", "_response_hds"),
    _categorical("multinomial", "MultinomialPriors", "_derive_multinomial", "_response_multinomial"),
    _categorical("item_difficulty", "HierarchicalPriors", "_derive_item_difficulty", "_response_item_difficulty",
                 item_effects=True),
    _categorical("logistic_random_effects", "HierarchicalPriors", "_derive_lre", "_response_lre", item_effects=True),
    AnnotatorModel("soft_agreement", "soft", {"model": f"{_SOFT}:soft_agreement",
                                              "priors": f"{_PRIORS}:SoftAgreementPriors"}, aliases=("soft",)),
)}

_BY_NAME = {n: rec for rec in ANNOTATOR_MODELS.values() for n in rec.names}
#: The categorical rows of the table (what the categorical kind post-processes), by name.
MODEL_SPECS: dict[str, AnnotatorModel] = {n: rec for n, rec in ANNOTATOR_MODELS.items() if rec.kind == "categorical"}
#: Every name a model is accepted by (``model=`` of ``fit`` / ``annotator_agreement``, ``--model``).
MODEL_NAMES: tuple[str, ...] = tuple(_BY_NAME)


def find_model(name: str) -> AnnotatorModel:
    """The record of the model called ``name`` (its name or an alias).

    Parameters
    ----------
    name : str
        One of :data:`MODEL_NAMES`.

    Returns
    -------
    AnnotatorModel

    Raises
    ------
    ValueError
        If no model has that name; the message lists them.

    Examples
    --------
    >>> find_model("mace").name
    'mace'
    >>> find_model("dawid")
    Traceback (most recent call last):
    ...
    ValueError: model must be one of ['dawid_skene', 'hierarchical_dawid_skene', 'item_difficulty', 'logistic_random_effects', 'mace', 'multinomial', 'soft', 'soft_agreement']; got 'dawid'
    """
    try:
        return _BY_NAME[name]
    except (KeyError, TypeError):
        raise ValueError(f"model must be one of {sorted(MODEL_NAMES)}; got {name!r}") from None
