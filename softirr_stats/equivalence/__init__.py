"""Equivalence estimators ``P(a == b)`` and the scoring engine.

Protocol: ``est(a_seq, b_seq) -> np.ndarray`` of ``P(a_i == b_i)`` in [0, 1] (float64,
same length), with attributes ``name``, ``symmetric`` and ``fingerprint``. Any callable
becomes an estimator through :func:`as_estimator`. Every statistic reaches the
scores through :func:`resolve_label_similarity` (``similarity=`` to one object over the
vocabulary, with one memo of scored label pairs), built on :func:`score_pairs` (element-wise
pairs, de-duplicated) and :func:`similarity_matrix` (vocabulary x vocabulary).
"""

from typing import TYPE_CHECKING

from softirr_stats.base._lazy import attach

__getattr__, __dir__, __all__ = attach(__name__, {
    "softirr_stats.equivalence._cache": ('Cached', 'CacheError', 'CacheWarning', 'CacheWriteError',),
    "softirr_stats.equivalence._embedding": ('Embedding',),
    "softirr_stats.equivalence._pair_scoring": ('ScoreStats', 'is_identity', 'low_rank_factor', 'score_pairs', 'similarity_matrix',),
    "softirr_stats.equivalence._fill": ('FillReport', 'fill_cache',),
    "softirr_stats.equivalence._gguf": ('SMOLLM2_FILE', 'gguf_model_dir', 'smollm2_gguf',),
    "softirr_stats.equivalence._label_similarity": ('MEASURES', 'MEASURE_NAMES', 'ExactMatchSimilarity', 'LabelSimilarity', 'MatrixSimilarity', 'ScoredSimilarity', 'Scores', 'check_similarity_matrix', 'estimator_from_name', 'is_matrix_like', 'resolve_label_similarity', 'split_measure_name',),
    "softirr_stats.equivalence._judge": ('LlmJudge', 'OpenAICompatibleJudge', 'parse_probability',),
    "softirr_stats.equivalence._nli": ('Nli',),
    "softirr_stats.equivalence._protocol": ('BaseEstimator', 'Estimator', 'as_estimator', 'label_key',),
    "softirr_stats.equivalence._ray": ('RayBackend',),
    "softirr_stats.equivalence._setmatch": ('SetMatch',),
    "softirr_stats.equivalence._spec": ('EstimatorSpec', 'from_spec', 'register_callable', 'register_estimator',
                                        'to_spec',),
    "softirr_stats.equivalence._string": ('Dice', 'Exact', 'Indel', 'Jaccard', 'Lcs', 'Levenshtein', 'Masi',),
}, internal={"softirr_stats.equivalence._fill": ('unique_pairs',)})  # for the scoring plan; not in __all__

if TYPE_CHECKING:
    from softirr_stats.equivalence._cache import (
        Cached,
        CacheError,
        CacheWarning,
        CacheWriteError,
    )
    from softirr_stats.equivalence._embedding import (
        Embedding,
    )
    from softirr_stats.equivalence._fill import (
        FillReport,
        fill_cache,
        unique_pairs,
    )
    from softirr_stats.equivalence._gguf import SMOLLM2_FILE, gguf_model_dir, smollm2_gguf
    from softirr_stats.equivalence._judge import (
        LlmJudge,
        OpenAICompatibleJudge,
        parse_probability,
    )
    from softirr_stats.equivalence._label_similarity import (
        MEASURE_NAMES,
        MEASURES,
        ExactMatchSimilarity,
        LabelSimilarity,
        MatrixSimilarity,
        ScoredSimilarity,
        Scores,
        check_similarity_matrix,
        estimator_from_name,
        is_matrix_like,
        resolve_label_similarity,
        split_measure_name,
    )
    from softirr_stats.equivalence._nli import (
        Nli,
    )
    from softirr_stats.equivalence._pair_scoring import (
        ScoreStats,
        is_identity,
        low_rank_factor,
        score_pairs,
        similarity_matrix,
    )
    from softirr_stats.equivalence._protocol import (
        BaseEstimator,
        Estimator,
        as_estimator,
        label_key,
    )
    from softirr_stats.equivalence._ray import (
        RayBackend,
    )
    from softirr_stats.equivalence._setmatch import (
        SetMatch,
    )
    from softirr_stats.equivalence._spec import (
        EstimatorSpec,
        from_spec,
        register_callable,
        register_estimator,
        to_spec,
    )
    from softirr_stats.equivalence._string import (
        Dice,
        Exact,
        Indel,
        Jaccard,
        Lcs,
        Levenshtein,
        Masi,
    )
