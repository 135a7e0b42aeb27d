"""``annotator_agreement``: fit an annotator model and report its agreement with an interval."""

from typing import Any

import numpy as np

from softirr_stats._validation import check_choice, check_level
from softirr_stats.agreement._result import AgreementResult
from softirr_stats.equivalence import resolve_label_similarity
from softirr_stats.inference._config import NutsConfig, SviConfig
from softirr_stats.inference._fit import SOFT_NAMES, fit
from softirr_stats.models import MODEL_SPECS, encode_annotations, pair_scores

__all__ = ["annotator_agreement"]


def _similarity_name(similarity: Any, sim: Any) -> str:
    if isinstance(similarity, np.ndarray) or (hasattr(similarity, "shape") and not callable(similarity)):
        return "matrix"
    return "identity" if sim is None else sim.name


def annotator_agreement(ann: Any, similarity: Any = None, model: str = "dawid_skene",
                        method: str = "nuts", level: float = 0.9, seed: int = 0, *,
                        config: NutsConfig | SviConfig | None = None, priors: Any = None,
                        n_chance: int | None = None, groups: Any = None,
                        predictive_check: bool = True, prior_check: bool = True,
                        progress: bool | None = None, **model_kwargs: Any) -> AgreementResult:
    """Model-based agreement with a posterior interval, in one call.

    Categorical models (``"dawid_skene"``, ``"mace"``, ``"hierarchical_dawid_skene"``,
    ``"multinomial"``, ``"item_difficulty"``, ``"logistic_random_effects"``) report the
    model-implied Fleiss-type kappa (docs/annotator_models.md); a similarity (a (K, K) array or
    an estimator scored on the vocabulary) turns it into a weighted kappa. ``"soft"`` fits
    the Beta-mixture model to the equivalence scores of within-item and cross-item pairs
    and reports ``(pi_within - pi_chance) / (1 - pi_chance)``.

    Parameters
    ----------
    ann : Annotations
        Anything with ``.codes`` (items x raters, -1 = missing) and ``.vocabulary``.
    similarity : None, (K, K) array, estimator or callable
        Equivalence of labels; ``None`` = exact match.
    model : str
    method : {"nuts", "svi"}
    level : float
        Level of the equal-tailed posterior interval.
    seed : int
    config : NutsConfig or SviConfig, optional
    priors : prior config, optional
    n_chance, groups : optional
        Soft model only: number of chance pairs and label groups (see
        :func:`softirr_stats.models.pair_scores`).
    predictive_check : bool
        Categorical models: run the posterior predictive check of the observed Fleiss
        kappa and store it in ``details["predictive_check"]``, and the per-rater check
        (:func:`rater_predictive_check`) in ``details["rater_check"]``; each warns
        (``PredictiveCheckWarning``) when it fails.
    prior_check : bool
        Compare the kappa posterior with its prior (``details["prior_contraction"]``);
        warns (``PriorDominatedWarning``) when it barely moved.
    progress : bool, optional
        Progress bar of the fit (default: when stderr is a terminal).
    **model_kwargs
        Passed to the model (e.g. ``item_effects=True`` for ``"soft"``).

    Returns
    -------
    AgreementResult
        ``value`` = posterior mean, ``ci_low`` / ``ci_high`` = posterior interval, ``se`` =
        posterior sd; ``observed`` / ``expected`` = posterior means of the two terms;
        ``details["posterior"]`` is the :class:`Posterior`, ``details["draws"]`` the kappa
        draws.

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats.inference import SviConfig
    >>> class Ann:
    ...     codes = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]] * 10)
    ...     vocabulary = ("no", "yes")
    >>> r = annotator_agreement(Ann(), method="svi", config=SviConfig(steps=300),
    ...                         predictive_check=False, prior_check=False, progress=False)
    >>> r.coefficient, r.ci_low < r.value < r.ci_high
    ('model_kappa', True)
    """
    valid = [*MODEL_SPECS, *SOFT_NAMES]
    model = check_choice("model", model, valid)
    method = check_choice("method", method, ["nuts", "svi"])
    level = check_level(level)
    q = [(1 - level) / 2, (1 + level) / 2]
    details: dict[str, Any] = {"model": model, "fit_method": method, "seed": seed}
    sim = None
    if model in SOFT_NAMES:
        sim = resolve_label_similarity(tuple(ann.vocabulary), similarity)  # shared with pair_scores
        data = pair_scores(ann, sim, n_chance=n_chance, groups=groups, seed=seed)
        post = fit("soft_agreement", data, method=method, seed=seed, config=config,
                   priors=priors, progress=progress, **model_kwargs)
        draws = post.draws("kappa")
        observed = post.draws("pi_within")
        expected = post.draws("pi_chance")
        coefficient = "soft_model_kappa"
        if predictive_check:
            details["score_check"] = post.score_check()
        n_items, n_raters = data.n_items, data.n_raters
        n_scored = data.n_pairs_scored
    else:
        if model_kwargs:
            raise TypeError(f"unexpected keyword arguments for model {model!r}: "
                            f"{sorted(model_kwargs)}")
        data = encode_annotations(ann)
        weights = None
        n_scored = 0
        if similarity is not None:
            if data.vocabulary is None:
                raise ValueError("a similarity needs labels: pass Annotations with a "
                                 "vocabulary")
            idx = np.arange(len(data.vocabulary))  # K x K weights, scored like every other statistic
            sim = resolve_label_similarity(data.vocabulary, similarity)
            scored = sim.block(idx, idx)
            weights, n_scored = scored.values, scored.n_scored
        post = fit(model, data, method=method, seed=seed, config=config, priors=priors,
                   progress=progress)
        terms = post.implied_agreement(weights)
        draws, observed = terms["kappa"], terms["observed_agreement"]
        expected = terms["expected_agreement"]
        coefficient = "model_kappa"
        n_items, n_raters = data.n_items, data.n_raters
        details["kappa_cohen"] = float(np.mean(terms["kappa_cohen"]))
        if predictive_check:
            details["predictive_check"] = post.predictive_check()
            from softirr_stats.inference._rater_check import rater_predictive_check

            details["rater_check"] = rater_predictive_check(post)
    if prior_check:
        details["prior_contraction"] = post.prior_contraction("kappa")
    lo, hi = np.quantile(draws, q)
    details.update(posterior=post, draws=draws)
    return AgreementResult(
        coefficient=coefficient, value=float(np.mean(draws)),
        observed=float(np.mean(observed)), expected=float(np.mean(expected)),
        n_items=int(n_items), n_raters=int(n_raters), ci_low=float(lo), ci_high=float(hi),
        se=float(np.std(draws, ddof=1)), level=level,
        ci_method=f"posterior ({model}, {method})", similarity=_similarity_name(similarity, sim),
        chance="model", n_pairs_scored=int(n_scored), details=details)
