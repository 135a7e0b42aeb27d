"""NumPyro annotator models (installed as ``softirr_stats.models``).

Plain model functions ``model(data, priors=None)``: the categorical models of Paun et al.
(2018) over :class:`AnnotationData` (long format, missing cells allowed, latent class
summed out by hand) and the soft-agreement Beta-mixture model over :class:`PairScores`.
Fit them with :func:`softirr_stats.inference.fit`.
"""

from softirr_stats.models._categorical import (
    MODEL_SPECS,
    ModelSpec,
    dawid_skene,
    full_logits,
    hierarchical_dawid_skene,
    item_difficulty,
    item_log_joint,
    logistic_random_effects,
    mace,
    multinomial,
)
from softirr_stats.models._em import EMResult, dawid_skene_em, mace_em
from softirr_stats.models._long_format import AnnotationData, encode_annotations
from softirr_stats.models._minibatch import ItemTable, item_table
from softirr_stats.models._priors import (
    DawidSkenePriors,
    HierarchicalPriors,
    MacePriors,
    MultinomialPriors,
    SoftAgreementPriors,
)
from softirr_stats.models._simulate import (
    simulate_dawid_skene,
    simulate_mace,
    simulate_soft_scores,
)
from softirr_stats.models._soft import (
    EMISSIONS,
    PairScores,
    beta_mixture_params,
    cell_log_density,
    cell_probabilities,
    gap_pieces,
    pair_scores,
    score_cells,
    soft_agreement,
    within_logits,
    within_responsibilities,
)

# cell_log_density, within_responsibilities and pair_scores_gap: for inference, not in __all__
from softirr_stats.models._soft_separation import pair_scores_gap

__all__ = [
    "EMISSIONS",
    "MODEL_SPECS",
    "AnnotationData",
    "DawidSkenePriors",
    "EMResult",
    "HierarchicalPriors",
    "ItemTable",
    "MacePriors",
    "ModelSpec",
    "MultinomialPriors",
    "PairScores",
    "SoftAgreementPriors",
    "beta_mixture_params",
    "cell_probabilities",
    "gap_pieces",
    "dawid_skene",
    "dawid_skene_em",
    "encode_annotations",
    "full_logits",
    "hierarchical_dawid_skene",
    "item_difficulty",
    "item_log_joint",
    "item_table",
    "logistic_random_effects",
    "mace",
    "mace_em",
    "multinomial",
    "pair_scores",
    "simulate_dawid_skene",
    "simulate_mace",
    "simulate_soft_scores",
    "score_cells",
    "soft_agreement",
    "within_logits",
]
