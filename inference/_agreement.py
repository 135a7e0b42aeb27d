"""``annotator_agreement``: fit an annotator model and report its agreement with an interval."""

import warnings
from typing import Any

import numpy as np

from softirr_stats.agreement import AgreementResult
from softirr_stats.base._format import level_text
from softirr_stats.base._validation import check_choice, check_level, check_seed, user_stacklevel
from softirr_stats.equivalence import resolve_label_similarity
from softirr_stats.inference._config import (
    DEFAULT_LEVEL,
    FitWarning,
    NutsConfig,
    PriorDominatedWarning,
    SviConfig,
)
from softirr_stats.inference._data_warnings import (
    few_items_text,
    few_rated_text,
    set_labels_text,
    unanimous_text,
)
from softirr_stats.inference._fit import fit
from softirr_stats.inference._gold import MIN_GOLD, gold_pairs
from softirr_stats.inference._soft_profile import PROFILE_REACH, soft_profile_interval
from softirr_stats.models import MODEL_NAMES, encode_annotations, find_model, pair_scores
from softirr_stats.uncertainty import FewUnitsWarning

__all__ = ["PROFILE_MODES", "SVI_SOFT_WARNING", "annotator_agreement"]


def _similarity_name(similarity: Any, sim: Any, data: Any = None) -> str:
    """The similarity a result names: a matrix's, the resolved one's, else the one that scored a soft model's
    pairs (``PairScores.similarity``; ``"scores"`` for scores given directly), else exact matching."""
    if isinstance(similarity, np.ndarray) or (hasattr(similarity, "shape") and not callable(similarity)):
        return "matrix"
    if sim is not None:
        return sim.name
    if hasattr(data, "within_scores"):  # a soft model's pair scores: the measure that made them
        name = getattr(data, "similarity", None)
        return "matrix" if name == "similarity-matrix" else name or "scores"
    return "identity"


#: What ``annotator_agreement(..., model="soft", method="svi")`` warns without gold pairs, where
#: the profile-likelihood widening does not apply (``profile_interval`` "report" or "off", or the
#: Beta / histogram emission): with it (the default) the same 300 SVI intervals covered 98.3%, and
#: 88.0-93.7% on the other monotone shapes, so the default SVI fit is not warned.
SVI_SOFT_WARNING = (
    "the soft model by SVI without gold pairs: on calibrated-probability scores (an NLI model's or an LLM "
    "judge's P(equivalent)) SVI's 90% interval covered 80% of 300 simulated studies, its kappa 0.04 too high "
    "(the variational guide's error, not the model's: NUTS covered on the same studies); fit with "
    "method='nuts' (the default) or pass gold pairs (gold=; docs/annotator_models.md, \"NUTS rows\"); with "
    "the monotone emission (the default), profile_interval='widen' (the default) widened 300 of those 300 "
    "intervals, and the widened ones covered 98%")


#: What ``annotator_agreement``'s ``profile_interval`` takes.
PROFILE_MODES = ("widen", "report", "off")


def _add_profile(details: dict, post: Any, mode: str, level: float) -> None:
    """The soft model's profile-likelihood interval in ``details`` (``"profile_interval"``) and
    the mode (``"profile_mode"``), where it applies: the monotone emission, no gold pairs. Kept
    on the posterior per level: ``annotator_agreement(post)`` called again does not recompute it."""
    kind = post.model_kind
    if mode == "off" or kind.emission != "monotone" or post.data.n_gold:
        return
    key = ("profile_interval", float(level), kind.priors.monotone_bins)  # a function of the data: once per fit
    if key not in post._cache:
        post._cache[key] = soft_profile_interval(post.data, level, n_bins=kind.priors.monotone_bins)
    details["profile_interval"] = post._cache[key]
    details["profile_mode"] = mode


#: The opening words of the note a widened soft-model interval carries in
#: ``AgreementResult.warnings`` (one of ``agreement.NOTE_PREFIXES``: information, not a problem).
PROFILE_NOTE = "interval widened by the profile likelihood:"


def _widen_by_profile(details: dict, value: float, lo: float, hi: float,
                      ci_method: str) -> tuple[float, float, str, float, tuple[str, ...]]:
    """The interval after the profile check, where the profile interval reaches beyond
    ``[lo, hi]`` by more than :data:`PROFILE_REACH` half-widths.

    ``"widen"`` reports the union. Where the two intervals overlap (the posterior sits in the
    range the likelihood leaves open, as on heavy-tailed or calibrated scores) that is a note, not
    a warning: the reported interval carries the range, and the fits that cover are not warned
    (issue 34). Where they do not overlap, the posterior and the likelihood disagree (an
    unconverged SVI fit, an emission that does not hold): a ``FitWarning`` (and no note). ``value``
    is the posterior mean, named in the messages. ``"report"`` keeps the posterior interval and warns, since the interval
    reported may then miss. Returns the interval, its ``ci_method``, the widening factor (the
    union's width over the posterior interval's: the SE is scaled by it, as the bootstraps'
    few-units correction does) and the note lines. Records ``details["profile_reach"]`` and
    ``details["ci_widened"]``."""
    prof = details.get("profile_interval")
    if prof is None:
        return lo, hi, ci_method, 1.0, ()
    reach = prof.reach(lo, hi)
    widen = details["profile_mode"] == "widen" and reach > PROFILE_REACH
    details.update(profile_reach=reach, ci_widened=widen)
    if reach <= PROFILE_REACH:
        return lo, hi, ci_method, 1.0, ()
    union = (min(lo, prof.lower), max(hi, prof.upper))
    agree = prof.lower <= hi and lo <= prof.upper  # the two intervals overlap
    said = (f"reported: the union [{union[0]:.3f}, {union[1]:.3f}]" if widen else
            f"the union [{union[0]:.3f}, {union[1]:.3f}] is the interval to report "
            "(profile_interval='widen')")
    what = (f"the soft kappa's prior-free profile-likelihood interval [{prof.lower:.3f}, {prof.upper:.3f}] "
            f"reaches {reach:.1f} half-widths beyond its posterior interval [{lo:.3f}, {hi:.3f}] (the population "
            f"kappas the likelihood cannot tell apart at {level_text(prof.level)}: [{prof.set_lower:.3f}, "
            f"{prof.set_upper:.3f}]; the interval is of this study's kappa over them)")
    why = ("where the scores leave kappa partly open (a tail or slope both components share: heavy tails, "
           "calibrated probabilities) the posterior's place in that range is the emission prior's, and an "
           f"inexact fit (SVI) moves it too; {said}. On heavy-tailed scores the posterior's 90% interval "
           "covered 83.7% of 300 simulated studies, the union 91.7%; gold pairs (gold=) identify the emission "
           "(docs/annotator_models.md, \"The profile-likelihood widening\")")
    if not widen:
        warnings.warn(f"{what}: {why}", FitWarning, stacklevel=user_stacklevel())
        return lo, hi, ci_method, 1.0, ()
    if not agree:
        warnings.warn(
            f"{what}, and the two intervals do not overlap (posterior mean {value:.3f}): the posterior and "
            "the likelihood disagree, so the fit (an SVI fit of too few steps) or the emission's shape (the "
            f"score check) is suspect; {said}, which keeps both (docs/annotator_models.md, \"The "
            "profile-likelihood widening\")", FitWarning, stacklevel=user_stacklevel())
    factor = (union[1] - union[0]) / (hi - lo) if hi > lo else 1.0
    notes = (f"{PROFILE_NOTE} {what}; {why}",) if agree else ()  # the warning says it otherwise
    return union[0], union[1], f"{ci_method} widened to the profile-likelihood interval", factor, notes


def _as_input(ann: Any) -> Any:
    """``ann`` as the models read it: Annotations, encoded data and integer code matrices as they are; a wide table of
    labels (a DataFrame, nested lists, an array of text) as the coefficients read it (a long DataFrame is refused
    with the call that builds it)."""
    import sys

    pd_ = sys.modules.get("pandas")
    frame = pd_ is not None and isinstance(ann, pd_.DataFrame)
    if frame or isinstance(ann, list | tuple) or (isinstance(ann, np.ndarray) and not (
            np.issubdtype(ann.dtype, np.integer) or np.issubdtype(ann.dtype, np.floating))):
        from softirr_stats.agreement import as_annotations

        return as_annotations(ann)
    return ann


def annotator_agreement(ann: Any, similarity: Any = None, model: str = "dawid_skene",
                        method: str = "nuts", level: float = DEFAULT_LEVEL, seed: int = 0, *,
                        config: NutsConfig | SviConfig | None = None, priors: Any = None,
                        n_chance: int | None = None, groups: Any = None, gold: Any = None,
                        predictive_check: bool = True, prior_check: bool = True,
                        profile_interval: str = "widen", progress: bool | None = None,
                        check_size: bool = True, **model_kwargs: Any) -> AgreementResult:
    """Model-based agreement with a posterior interval, in one call.

    Categorical models (``"dawid_skene"``, ``"mace"``, ``"hierarchical_dawid_skene"``,
    ``"multinomial"``, ``"item_difficulty"``, ``"logistic_random_effects"``) report the
    model-implied Fleiss-type kappa (docs/annotator_models.md); a similarity (a (K, K) array or
    an estimator scored on the vocabulary) turns it into a weighted kappa. ``"soft"`` fits
    the Beta-mixture model to the equivalence scores of within-item and cross-item pairs
    and reports ``(pi_within - pi_chance) / (1 - pi_chance)``; human-judged pairs (``gold``)
    pin down which scores are equivalent where the scores alone cannot (docs/annotator_models.md,
    "Gold pairs").

    An existing fit can be passed instead of the annotations: ``annotator_agreement(post)``
    summarises that :class:`Posterior` (no refit; ``model``, ``method``, ``config``,
    ``priors`` and the soft-model options are then those of the fit and must not be given);
    its checks are those of a fresh fit (``predictive_check`` runs the model's check and, for a
    categorical model, the per-rater check into ``details["rater_check"]``).

    Parameters
    ----------
    ann : Annotations or Posterior
        Anything with ``.codes`` (items x raters, -1 = missing) and ``.vocabulary``, or a
        :class:`Posterior` from :func:`softirr_stats.inference.fit`.
    similarity : None, (K, K) array, estimator or callable
        Equivalence of labels; ``None`` = exact match.
    model : str
    method : {"nuts", "svi"}
    level : float
        Level of the equal-tailed posterior (credible) interval; 0.95 by default, as for
        every other interval of the package.
    seed : int
    config : NutsConfig or SviConfig, optional
    priors : prior config, optional
    n_chance, groups : optional
        Soft model only: number of chance pairs and label groups (see
        :func:`softirr_stats.models.pair_scores`); a categorical model refuses them
        (``ValueError``), as it refuses ``gold``.
    gold : optional
        Soft model only: gold pairs, human 0/1 judgments of label pairs, fitted with the
        model's pairs (a semi-supervised fit: the judged pairs' component is known). Either
        ``(scores, labels)`` (two numeric 1-d arrays: scores in [0, 1] on the similarity's
        scale, 0/1 judgments), or labelled pairs scored here with ``similarity``, the same
        similarity as the model's pairs: a DataFrame with columns ``label_a``, ``label_b``,
        ``judgment`` (or ``equivalent``) in {0, 1} and optionally ``draws`` (a judged sheet
        of ``softirr judge plan`` as :func:`softirr_stats.analysis.read_judging_sheet` reads
        it, the sheet that feeds the prediction-powered estimate), or a sequence of
        ``(label_a, label_b, equivalent)`` triples (:func:`gold_pairs`). Gold pairs should be
        a random sample of the data's pairs (a uniform judging plan), not chosen by score.
        ``details["n_gold"]`` records how many were fitted (0 without); fewer than
        :data:`MIN_GOLD` warn (``FitWarning``).
    predictive_check : bool
        Categorical models: run the posterior predictive check of the observed Fleiss
        kappa and store it in ``details["predictive_check"]``, and the per-rater check
        (:func:`rater_predictive_check`) in ``details["rater_check"]``; each warns
        (``PredictiveCheckWarning``) when it fails.
    prior_check : bool
        Compare the kappa posterior with its prior (``details["prior_contraction"]``);
        warns (``PriorDominatedWarning``) when it barely moved.
    profile_interval : {"widen", "report", "off"}
        Soft model with the monotone emission and no gold pairs: the prior-free
        profile-likelihood interval of kappa (:func:`soft_profile_interval`), stored in
        ``details["profile_interval"]``. Where it reaches beyond the posterior interval by more
        than :data:`PROFILE_REACH` of its half-width the scores leave kappa partly open (the
        posterior's place in that range is the emission prior's). ``"widen"`` (the default) then
        reports the union of the two intervals (``details["ci_widened"]``; ``ci_method`` says so)
        with a note in ``warnings`` (``.notes``; a ``FitWarning`` instead where the two intervals
        do not overlap: they disagree); ``"report"`` keeps the posterior
        interval and a ``FitWarning`` says so. On heavy-tailed scores the posterior's 90% interval
        covered 83.7% over 300 simulated studies, the union 91.7% (docs/annotator_models.md, "The
        profile-likelihood widening"). Ignored by the categorical models.
    progress : bool, optional
        Progress bar of the fit (default: when stderr is a terminal).
    check_size : bool
        Size the fit before compiling it (:func:`softirr_stats.inference.fit`'s ``check_size``):
        a categorical model on labels that look like free text is refused with a ``FitSizeError``
        naming the alternatives; ``False`` fits anyway.
    **model_kwargs
        Passed to the model (e.g. ``item_effects=True`` for ``"soft"``).

    Returns
    -------
    AgreementResult
        ``value`` = posterior mean, ``ci_low`` / ``ci_high`` = posterior interval (the soft
        model's widened to its union with the profile-likelihood interval where
        ``details["ci_widened"]``), ``se`` = posterior sd (times the widening's
        ``details["profile_factor"]`` where widened); ``observed`` / ``expected`` = posterior means of the two terms;
        ``details["posterior"]`` is the :class:`Posterior`, ``details["draws"]`` the kappa
        draws.

    Raises
    ------
    ValueError
        ``model="soft"`` where every pair scores one value (all 1: every label the same or equivalent; all 0):
        the scores cannot tell equivalent pairs apart and the soft kappa is undefined. A categorical model on
        annotations with one category only (declare the others with ``categories=``).

    Warns
    -----
    FitWarning
        ``model="soft"`` by SVI without gold pairs, unless the profile-likelihood widening
        applies (:data:`SVI_SOFT_WARNING`: its interval was measured too high on
        calibrated-probability scores, which the widening repairs); fewer than ``MIN_GOLD`` gold
        pairs; the soft model's profile interval reaches beyond the posterior interval with
        ``profile_interval="report"``, or does not overlap it. The fit's own warnings (``ConvergenceWarning``, the score and
        predictive checks) pass through, and every warning raised by the fit and its checks is also kept in the
        result's ``warnings`` (the one channel its tables and the command line number).
    PriorDominatedWarning
        A categorical model on data where every rating has the same label: the sample Fleiss kappa is
        undefined, the data carry no information about agreement, and the kappa reported is the prior's. A
        categorical model on ratings that agree on every item (observed agreement 1, with two or more labels): the
        data hold no disagreement, so how far the kappa sits below 1 (and its interval) is the priors'.
    FewUnitsWarning
        Fewer than 20 items (``uncertainty.FEW_ITEMS``, the bootstraps' threshold): the posterior leans on the
        priors. A categorical model with raters who rated fewer than 5 items
        (``inference._data_warnings.FEW_RATER_ITEMS``): their accuracies are mostly the prior's.
    FitWarning
        Also: a categorical model on set-valued (multi-label) ratings, each distinct set one category
        (``multilabel_agreement`` compares them label by label).

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats.inference import SviConfig
    >>> class Ann:
    ...     codes = np.array([[0, 0, 0], [1, 1, 0], [1, 1, 1], [0, 0, 1]] * 10)
    ...     vocabulary = ("no", "yes")
    >>> r = annotator_agreement(Ann(), method="svi", config=SviConfig(steps=300),
    ...                         predictive_check=False, prior_check=False, progress=False)
    >>> r.coefficient, r.ci_low < r.value < r.ci_high, r.level
    ('model_kappa', True, 0.95)
    >>> again = annotator_agreement(r.details["posterior"], predictive_check=False, prior_check=False)
    >>> again.value == r.value
    True
    """
    with warnings.catch_warnings(record=True) as caught:  # the fit's and the checks' warnings: kept, then passed on
        warnings.simplefilter("always")
        res = _annotator_agreement(ann, similarity, model, method, level, seed, config=config, priors=priors,
                                   n_chance=n_chance, groups=groups, gold=gold, predictive_check=predictive_check,
                                   prior_check=prior_check, profile_interval=profile_interval, progress=progress,
                                   check_size=check_size, **model_kwargs)
    return _with_warnings(res, caught)


def _with_warnings(res: AgreementResult, caught: list[warnings.WarningMessage]) -> AgreementResult:
    """``res`` with the warnings raised while it was made in its ``warnings`` (once each, after its own lines),
    each warning also re-issued where it was raised (the user's filters decide what is shown)."""
    from dataclasses import replace

    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)
    said = [" ".join(str(w.message).split()) for w in caught if issubclass(w.category, UserWarning)]
    return replace(res, warnings=tuple(dict.fromkeys((*res.warnings, *said))))


def _annotator_agreement(ann: Any, similarity: Any, model: str, method: str, level: float, seed: int, *,
                         config: NutsConfig | SviConfig | None, priors: Any, n_chance: int | None, groups: Any,
                         gold: Any, predictive_check: bool, prior_check: bool, profile_interval: str,
                         progress: bool | None, check_size: bool = True, **model_kwargs: Any) -> AgreementResult:
    """:func:`annotator_agreement` without its warnings kept in the result."""
    from softirr_stats.inference._posterior import Posterior

    if isinstance(ann, Posterior):
        return _from_posterior(ann, similarity, level, predictive_check, prior_check, profile_interval,
                               given={"model": model != "dawid_skene", "method": method != "nuts",
                                      "seed": seed != 0, "config": config is not None,
                                      "priors": priors is not None, "n_chance": n_chance is not None,
                                      "groups": groups is not None, "progress": progress is not None,
                                      "gold": gold is not None, "check_size": check_size is not True,
                                      **{k: True for k in model_kwargs}})
    ann = _as_input(ann)
    model = check_choice("model", model, MODEL_NAMES)
    method = check_choice("method", method, ["nuts", "svi"])
    profile_interval = check_choice("profile_interval", profile_interval, PROFILE_MODES)
    level = check_level(level)
    seed = check_seed(seed)
    details: dict[str, Any] = {"model": model, "fit_method": method, "seed": seed}
    sim = None
    if gold is not None and not find_model(model).soft:
        raise ValueError(f"gold pairs are for the soft model (model='soft'); model={model!r} fits the labels "
                         "themselves (judged pairs correct a coefficient through judgments=, the "
                         "prediction-powered estimate)")
    soft_only = [name for name, value in (("n_chance", n_chance), ("groups", groups)) if value is not None]
    if soft_only and not find_model(model).soft:
        raise ValueError(f"{' and '.join(soft_only)} {'are' if len(soft_only) > 1 else 'is'} for the soft model "
                         f"(model='soft': chance pairs and label groups of its pair scores); model={model!r} fits "
                         "the labels themselves and has no pairs to draw or group")
    if find_model(model).soft:  # the table says which models read pair scores
        sim = resolve_label_similarity(tuple(ann.vocabulary), similarity)  # shared with pair_scores
        judged = None if gold is None else gold_pairs(gold, tuple(ann.vocabulary), sim)
        if judged is not None and judged.n < MIN_GOLD:
            warnings.warn(f"{judged.n} gold pairs: below {MIN_GOLD}, the fewest with which the soft model's "
                          "interval was measured to cover where the scores alone do not tell the equivalent "
                          "pairs apart (calibrated scores; docs/annotator_models.md, \"Gold pairs\"); judge more "
                          "pairs", FitWarning, stacklevel=user_stacklevel())
        data = pair_scores(ann, sim, n_chance=n_chance, groups=groups, seed=seed,
                           gold=None if judged is None else (judged.scores, judged.labels))
        _check_scores_vary(data)
        details["n_gold"] = data.n_gold
        if judged is not None:
            details["gold_source"] = judged.source
        post = fit(find_model(model).name, data, method=method, seed=seed, config=config,
                   priors=priors, progress=progress, check_size=check_size, **model_kwargs)
        if method == "svi" and judged is None and not (profile_interval == "widen"
                                                       and post.model_kind.emission == "monotone"):
            # the widening (the default, monotone emission) repairs what this warns of: said otherwise
            warnings.warn(SVI_SOFT_WARNING, FitWarning, stacklevel=user_stacklevel())
        draws = post.draws("kappa")
        observed = post.draws("pi_within")
        expected = post.draws("pi_chance")
        coefficient = "soft_model_kappa"
        _warn_data(data, draws, categorical=False)
        if predictive_check:
            details["score_check"] = post.score_check()
        _add_profile(details, post, profile_interval, level)
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
                   progress=progress, check_size=check_size)
        _warn_one_label(data)
        terms = post.implied_agreement(weights)
        draws, observed = terms["kappa"], terms["observed_agreement"]
        expected = terms["expected_agreement"]
        _warn_data(data, draws, categorical=True)
        coefficient = "model_kappa"
        n_items, n_raters = data.n_items, data.n_raters
        details["kappa_cohen"] = float(np.mean(terms["kappa_cohen"]))
        if predictive_check:
            details["predictive_check"] = post.predictive_check()
            from softirr_stats.inference._rater_check import rater_predictive_check

            details["rater_check"] = rater_predictive_check(post)
    return _result(post, details, coefficient, draws, observed, expected, n_items, n_raters, level,
                   model, method, similarity, sim, n_scored, prior_check)


def _check_scores_vary(data: Any) -> None:
    """Refuse (``ValueError``) pair scores that are all one value: they cannot tell the equivalent pairs from the
    others, so the soft model has nothing to fit and its kappa is undefined (all 1: chance agreement 1)."""
    parts = [data.within_scores, data.chance_scores]
    if data.gold_scores is not None:
        parts.append(data.gold_scores)
    scores = np.concatenate([np.asarray(p, dtype=np.float64).ravel() for p in parts])
    if scores.size == 0 or scores.min() != scores.max():
        return
    value = float(scores[0])
    why = ("chance agreement is 1 as well, so kappa is 0/0" if value == 1.0 else
           "the scores say nothing about which pairs are equivalent")
    raise ValueError(f"every label pair scores {value:g} under the similarity ({data.n_within} within-item and "
                     f"{data.n_chance} chance pairs{' and the gold pairs' if data.n_gold else ''} alike): {why}; "
                     "the soft model's kappa is undefined on these data (report it as undefined, or use a "
                     "similarity whose scores vary)")


def _warn_one_label(data: Any) -> None:
    """Warn (``PriorDominatedWarning``) when every rating of a categorical model's data has one label: the
    sample Fleiss kappa is undefined and the data say nothing about agreement, so the kappa is the prior's."""
    used = np.unique(np.asarray(data.labels))
    if used.size != 1:
        return
    vocab = getattr(data, "vocabulary", None)
    label = repr(vocab[int(used[0])]) if vocab else f"code {int(used[0])}"
    warnings.warn(f"every rating has the same label ({label}, one of the {data.n_classes} categories): Fleiss' "
                  "kappa is undefined on these data (no chance-corrected agreement to measure), so they carry "
                  "no information about agreement, and the model's kappa and its interval are its prior's, not "
                  "a measurement; report the agreement as undefined", PriorDominatedWarning,
                  stacklevel=user_stacklevel())


def _warn_data(data: Any, draws: np.ndarray, categorical: bool) -> None:
    """Warn of what the data let the model say (``inference._data_warnings``): fewer than 20 items (every model;
    ``FewUnitsWarning``, the bootstraps' threshold) and, for a categorical model, ratings that agree on every item
    (``PriorDominatedWarning``: the kappa below 1 is the priors'), raters who rated fewer than 5 items
    (``FewUnitsWarning``) and set labels fitted as whole categories (``FitWarning``)."""
    said = [(few_items_text(data.n_items), FewUnitsWarning)]
    if categorical:
        said += [(unanimous_text(data, float(np.mean(draws))), PriorDominatedWarning),
                 (few_rated_text(data), FewUnitsWarning), (set_labels_text(data.vocabulary), FitWarning)]
    for text, category in said:
        if text:
            warnings.warn(text, category, stacklevel=user_stacklevel())


def _result(post: Any, details: dict, coefficient: str, draws: np.ndarray, observed: np.ndarray,
            expected: np.ndarray, n_items: int, n_raters: int, level: float, model: str, method: str,
            similarity: Any, sim: Any, n_scored: int, prior_check: bool) -> AgreementResult:
    q = [(1 - level) / 2, (1 + level) / 2]
    if prior_check:
        details["prior_contraction"] = post.prior_contraction("kappa")
    lo, hi = np.quantile(draws, q)
    ci_method = f"posterior ({model}, {method})"
    value = float(np.mean(draws))
    lo, hi, ci_method, factor, notes = _widen_by_profile(details, value, float(lo), float(hi), ci_method)
    if factor != 1.0:
        details["profile_factor"] = factor
    details.update(posterior=post, draws=draws)
    return AgreementResult(
        coefficient=coefficient, value=value,
        observed=float(np.mean(observed)), expected=float(np.mean(expected)),
        n_items=int(n_items), n_raters=int(n_raters), ci_low=float(lo), ci_high=float(hi),
        se=float(np.std(draws, ddof=1)) * factor, level=level,
        ci_method=ci_method, similarity=_similarity_name(similarity, sim, post.data),
        chance="model", n_pairs_scored=int(n_scored), warnings=notes, details=details)


def _from_posterior(post: Any, similarity: Any, level: float, predictive_check: bool, prior_check: bool,
                    profile_interval: str, given: dict[str, bool]) -> AgreementResult:
    """:func:`annotator_agreement` of an existing fit (nothing is refitted)."""
    extra = sorted(k for k, v in given.items() if v)
    if extra:
        raise TypeError(f"annotator_agreement(posterior) summarises an existing fit; {extra} belong to "
                        "the fit and cannot be given here (refit with annotator_agreement(ann, ...))")
    level = check_level(level)
    profile_interval = check_choice("profile_interval", profile_interval, PROFILE_MODES)
    details: dict[str, Any] = {"model": post.model_name, "fit_method": post.method, "refit": False}
    kind = post.model_kind
    if kind.coefficient is None:
        raise ValueError(f"annotator_agreement needs a categorical or soft model's posterior; {post.model_name!r} "
                         "is a custom model (use post.draws(...) directly)")
    data, coefficient = post.data, kind.coefficient
    weights, sim, n_scored = kind.similarity_weights(similarity)
    draws, observed, expected, extra = kind.agreement_terms(weights)
    details.update(extra)
    if kind.name == "categorical":
        _warn_one_label(data)
    _warn_data(data, draws, categorical=kind.name == "categorical")
    if predictive_check:  # the kind's check: details["predictive_check"] or details["score_check"]
        details[kind.check] = getattr(post, kind.check)()
        if callable(getattr(kind, "replicated", None)):  # a categorical model: the per-rater check, as a fit has it
            from softirr_stats.inference._rater_check import rater_predictive_check

            details["rater_check"] = rater_predictive_check(post)
    if kind.name == "soft":
        _add_profile(details, post, profile_interval, level)
    return _result(post, details, coefficient, draws, observed, expected, data.n_items, data.n_raters, level,
                   post.model_name, post.method, similarity, sim, n_scored, prior_check)
