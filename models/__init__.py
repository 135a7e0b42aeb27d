"""NumPyro annotator models (installed as ``softirr_stats.models``).

Plain model functions ``model(data, priors=None)``: the categorical models of Paun et al.
(2018) over :class:`AnnotationData` (long format, missing cells allowed, latent class
summed out by hand) and the soft-agreement Beta-mixture model over :class:`PairScores`.
Fit them with :func:`softirr_stats.inference.fit`.

The models are listed once, in :data:`ANNOTATOR_MODELS` (``models/_table.py``); names load their
module on first use, so reading the table imports no NumPyro.
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.models._categorical": ('dawid_skene', 'full_logits', 'hierarchical_dawid_skene', 'item_difficulty', 'item_log_joint', 'logistic_random_effects', 'mace', 'multinomial',),
    "softirr_stats.models._em": ('EMResult', 'dawid_skene_em', 'mace_em',),
    "softirr_stats.models._long_format": ('AnnotationData', 'encode_annotations',),
    "softirr_stats.models._minibatch": ('ItemTable', 'item_table',),
    "softirr_stats.models._priors": ('DawidSkenePriors', 'HierarchicalPriors', 'MacePriors', 'MultinomialPriors', 'SoftAgreementPriors',),
    "softirr_stats.models._simulate": ('simulate_dawid_skene', 'simulate_mace', 'simulate_soft_scores',),
    "softirr_stats.models._soft": ('PairScores', 'beta_mixture_params', 'cell_probabilities', 'gap_pieces', 'pair_scores', 'score_cells', 'soft_agreement', 'within_logits',),
    "softirr_stats.models._table": ('ANNOTATOR_MODELS', 'EMISSIONS', 'MODEL_NAMES', 'MODEL_SPECS', 'AnnotatorModel', 'find_model',),
}, internal={  # for inference; not in __all__
    "softirr_stats.models._gamma_dirichlet": ('GammaDirichlet', 'gamma_dirichlet_sites',),
    "softirr_stats.models._soft": ('HISTOGRAM_NEEDS_GOLD', 'cell_log_density', 'within_responsibilities',),
    "softirr_stats.models._table": ('DEFAULT_EMISSION',),
    "softirr_stats.models._soft_separation": ('pair_scores_gap',),
    "softirr_stats.models._warnings": ('ConvergenceWarning', 'FitWarning',),  # inference re-exports them
})

if TYPE_CHECKING:
    from softirr_stats.models._categorical import (
        dawid_skene,
        full_logits,
        hierarchical_dawid_skene,
        item_difficulty,
        item_log_joint,
        logistic_random_effects,
        mace,
        multinomial,
    )
    from softirr_stats.models._em import (
        EMResult,
        dawid_skene_em,
        mace_em,
    )
    from softirr_stats.models._gamma_dirichlet import GammaDirichlet, gamma_dirichlet_sites
    from softirr_stats.models._long_format import (
        AnnotationData,
        encode_annotations,
    )
    from softirr_stats.models._minibatch import (
        ItemTable,
        item_table,
    )
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
        HISTOGRAM_NEEDS_GOLD,
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
    from softirr_stats.models._soft_separation import pair_scores_gap
    from softirr_stats.models._table import (
        ANNOTATOR_MODELS,
        DEFAULT_EMISSION,
        EMISSIONS,
        MODEL_NAMES,
        MODEL_SPECS,
        AnnotatorModel,
        find_model,
    )
    from softirr_stats.models._warnings import ConvergenceWarning, FitWarning
