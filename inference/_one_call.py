"""``annotator_agreement``: fit an annotator model and report its agreement with an interval."""

from typing import Any

import numpy as np

from softirr_stats._validation import check_choice, check_level
from softirr_stats.agreement._result import AgreementResult
from softirr_stats.inference._config import NutsConfig, SviConfig
from softirr_stats.inference._fit import SOFT_NAMES, fit
from softirr_stats.models import MODEL_SPECS, encode_annotations, pair_scores
from softirr_stats.models._soft import _score_codes

__all__ = ["annotator_agreement"]


def _similarity_name(similarity: Any) -> str:
    if similarity is None:
        return "identity"
    if isinstance(similarity, np.ndarray) or hasattr(similarity, "shape"):
        return "matrix"
    return str(getattr(similarity, "name", None) or getattr(similarity, "__name__", None)
               or type(similarity).__name__)


def _vocabulary_matrix(similarity: Any, vocabulary: tuple) -> np.ndarray:
    """K x K agreement weights over the vocabulary, scored like the soft model's pairs."""
    k = len(vocabulary)
    if isinstance(similarity, np.ndarray) or (hasattr(similarity, "shape") and not callable(similarity)):
        ii, jj = np.indices((k, k))
        return _score_codes(ii.ravel(), jj.ravel(), vocabulary, similarity).reshape(k, k)
    ia, ib = np.triu_indices(k, 1)  # each unordered label pair scored once, mirrored
    w = np.eye(k)
    w[ia, ib] = w[ib, ia] = _score_codes(ia, ib, vocabulary, similarity)
    return w


def annotator_agreement(ann: Any, similarity: Any = None, model: str = "dawid_skene",
                        method: str = "nuts", level: float = 0.9, seed: int = 0, *,
                        config: NutsConfig | SviConfig | None = None, priors: Any = None,
                        n_chance: int | None = None, groups: Any = None,
                        predictive_check: bool = True, **model_kwargs: Any) -> AgreementResult:
    """Model-based agreement with a posterior interval, in one call.

    Categorical models (``"dawid_skene"``, ``"mace"``, ``"hierarchical_dawid_skene"``,
    ``"multinomial"``, ``"item_difficulty"``, ``"logistic_random_effects"``) report the
    model-implied Fleiss-type kappa (docs/formulas/annotator_models.md); a similarity (a (K, K) array or
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
        kappa and store it in ``details["predictive_check"]``.
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
    >>> r = annotator_agreement(Ann(), method="svi", config=SviConfig(steps=300, num_draws=200),
    ...                         predictive_check=False)
    >>> r.coefficient, r.ci_low < r.value < r.ci_high
    ('model_kappa', True)
    """
    valid = [*MODEL_SPECS, *SOFT_NAMES]
    model = check_choice("model", model, valid)
    method = check_choice("method", method, ["nuts", "svi"])
    level = check_level(level)
    q = [(1 - level) / 2, (1 + level) / 2]
    details: dict[str, Any] = {"model": model, "fit_method": method, "seed": seed}
    if model in SOFT_NAMES:
        data = pair_scores(ann, similarity, n_chance=n_chance, groups=groups, seed=seed)
        post = fit("soft_agreement", data, method=method, seed=seed, config=config,
                   priors=priors, **model_kwargs)
        draws = post.draws("kappa")
        observed = post.draws("pi_within")
        expected = post.draws("pi_chance")
        coefficient = "soft_model_kappa"
        n_items, n_raters = data.n_items, data.n_raters
        n_scored = 0 if similarity is None or hasattr(similarity, "shape") else (
            data.n_within + data.n_chance)
    else:
        if model_kwargs:
            raise TypeError(f"unexpected keyword arguments for model {model!r}: "
                            f"{sorted(model_kwargs)}")
        data = encode_annotations(ann)
        weights = None
        if similarity is not None:
            if data.vocabulary is None:
                raise ValueError("a similarity needs labels: pass Annotations with a "
                                 "vocabulary")
            weights = _vocabulary_matrix(similarity, data.vocabulary)
        post = fit(model, data, method=method, seed=seed, config=config, priors=priors)
        terms = post.implied_agreement(weights)
        draws, observed = terms["kappa"], terms["observed_agreement"]
        expected = terms["expected_agreement"]
        coefficient = "model_kappa"
        n_items, n_raters = data.n_items, data.n_raters
        n_scored = 0
        details["kappa_cohen"] = float(np.mean(terms["kappa_cohen"]))
        if predictive_check:
            details["predictive_check"] = post.predictive_check()
    lo, hi = np.quantile(draws, q)
    details.update(posterior=post, draws=draws)
    return AgreementResult(
        coefficient=coefficient, value=float(np.mean(draws)),
        observed=float(np.mean(observed)), expected=float(np.mean(expected)),
        n_items=int(n_items), n_raters=int(n_raters), ci_low=float(lo), ci_high=float(hi),
        se=float(np.std(draws, ddof=1)), level=level,
        ci_method=f"posterior ({model}, {method})", similarity=_similarity_name(similarity),
        chance="model", n_pairs_scored=int(n_scored), details=details)
