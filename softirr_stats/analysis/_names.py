"""The names the analysis accepts: coefficients (the registry's, then the multi-label baselines, the distance
measures and the statistics of scores) and
measures (the equivalence package's one table, ``equivalence.MEASURES``, model-backed ones included).

Kept apart from the runner and the sensitivity table, which both read them, so that neither
imports the other for a list of names.
"""

__all__ = ["DISTANCE_COEFFICIENTS", "MULTILABEL_COEFFICIENTS", "SCORE_COEFFICIENTS", "coefficient_names", "level_forms",
           "measure_names"]

# The multi-label baselines are statistics of the api layer (multilabel_agreement), not records of the
# coefficient registry.
MULTILABEL_COEFFICIENTS = ("multilabel_fleiss", "multilabel_ac1", "multilabel_pabak")
# Braylan, Alonso & Lease's (2022) measures from within- vs cross-item distances (api: distance_agreement, method=
# "ks" | "sigma"), spelled here for the same reason (api._statistics.DISTANCE_METHODS ties them).
DISTANCE_COEFFICIENTS = ("distance_ks", "distance_sigma")
# Statistics of numeric scores (api: icc by form, lin_ccc, kendall_w), spelled here so that the CLI's
# --help loads no NumPy (tests/peers/test_scores_cli.py ties them to api._score_statistics.SCORE_STATISTICS).
SCORE_COEFFICIENTS = ("icc1", "icc2", "icc3", "icc1k", "icc2k", "icc3k", "lin_ccc", "kendall_w")


def coefficient_names() -> tuple[str, ...]:
    """Every name the table (and the ``--coefficient`` option of the CLI) accepts, registry first.

    Examples
    --------
    >>> names = coefficient_names()
    >>> names[-1], "fleiss_kappa" in names, "icc2" in names
    ('kendall_w', True, True)
    """
    from softirr_stats.agreement import COEFFICIENTS

    return (*COEFFICIENTS, *MULTILABEL_COEFFICIENTS, *DISTANCE_COEFFICIENTS, *SCORE_COEFFICIENTS)


def level_forms() -> tuple[str, ...]:
    """``NAME:LEVEL`` for each level of measurement of a registry coefficient that has them: the table (and the
    CLI's ``-c``) runs ``krippendorff_alpha:ordinal`` as ``krippendorff_alpha(ann, level="ordinal")``.

    Examples
    --------
    >>> level_forms()[:2]
    ('krippendorff_alpha:nominal', 'krippendorff_alpha:ordinal')
    """
    from softirr_stats.agreement import COEFFICIENTS

    return tuple(f"{name}:{level}" for name, rec in COEFFICIENTS.items() for level in rec.levels)


def measure_names() -> tuple[str, ...]:
    """Every estimator name a command accepts: the keys of ``equivalence.MEASURES``, read at each call.

    Examples
    --------
    >>> measure_names()[:2], measure_names()[-2:]
    (('exact', 'levenshtein'), ('nli', 'llm_judge'))
    """
    from softirr_stats.equivalence import MEASURES

    return tuple(MEASURES)
