"""What differs between kinds of annotator model: one class per kind, chosen once by ``Posterior``.

:class:`~softirr_stats.inference.Posterior` keeps what every fit has (draws, summaries,
intervals, r_hat / ESS, the prior comparison, ``to_arviz``). What only one kind of model
defines lives on its kind object, built once when the posterior is:

- :class:`CategoricalKind` (Dawid-Skene, MACE, item difficulty, ...): the encoding of
  annotations, the model-implied agreement (``kappa``, ``kappa_cohen``, their terms),
  latent-class alignment, rater accuracies, class posteriors, labels replicated on the
  observed design and the predictive check of an agreement statistic;
- :class:`SoftKind` (the soft Beta-mixture / monotone model): the encoding into pair
  scores, the score-distribution check and the per-rater, per-pair and per-group agreement
  and the calibration map;
- :class:`ModelKind` (any other NumPyro model, ``kind="custom"``): none of these.

``Posterior`` asks its kind by method name (``Posterior.implied_agreement`` is the kind's
``implied_agreement``), so a quantity a kind does not define is refused with one message
naming the kinds that do, and a new kind is one class here registered in :data:`MODEL_KINDS`
(``tests/inference/test_posterior_kinds.py`` adds a toy one and removes it).
"""

import warnings
from collections.abc import Callable
from functools import cached_property
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from softirr_stats.base._validation import check_choice, check_level, check_positive_int
from softirr_stats.inference._config import DEFAULT_LEVEL, PredictiveCheckWarning, interval_columns
from softirr_stats.inference._data_warnings import items_per_rater
from softirr_stats.inference._gold import GOLD_HOW
from softirr_stats.inference._postprocess import (
    STATISTICS,
    align_permutations,
    implied_agreement,
    item_counts,
    rater_pair_weights,
)
from softirr_stats.inference._size import LEAPFROG_PER_ITERATION, SECONDS_PER_WORK, open_vocabulary
from softirr_stats.models import (
    MODEL_SPECS,
    PairScores,
    SoftAgreementPriors,
    cell_probabilities,
    encode_annotations,
    item_log_joint,
    pair_scores,
    score_cells,
)

__all__ = ["MODEL_KINDS", "CategoricalKind", "ModelKind", "SoftKind", "model_kind"]

IMPLIED = ("observed_agreement", "expected_agreement", "expected_agreement_cohen", "kappa",
           "kappa_cohen")
#: Categorical models whose latent classes are the labels by construction (no alignment).
LABELLED_CLASSES = frozenset({"mace"})
_BATCH = 64  # draws per lax.map batch in post-processing
#: The soft model's score check warns at ``p <= SCORE_CHECK_P``. Calibrated by simulation
#: (paper_repro/soft_model_check_study.py; docs/annotator_models.md, "The score check's
#: threshold"): with the monotone emission it flagged every fit on shapes the emission cannot
#: hold and no fit on shapes it holds.
SCORE_CHECK_P = 0.01
#: ... and when the fitted components share more than this much of their score mass
#: (posterior mean of ``sum_cells min(f0, f1)``): chosen on half of the simulated studies,
#: tested on the other half (same docs section).
COMPONENT_OVERLAP = 0.5


def map_draws(fn: Callable, xs: Any) -> Any:
    """``jax.lax.map`` over posterior draws in batches of 64.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> map_draws(lambda x: 2 * x, jnp.arange(3.0)).tolist()
    [0.0, 2.0, 4.0]
    """
    # one compiled program (the map with its batching reshapes) instead of a dozen eager ones,
    # each of which a new process traces, lowers and looks up in the compile cache
    return jax.jit(lambda ys: jax.lax.map(fn, ys, batch_size=_BATCH))(xs)


class ModelKind:
    """The quantities of one kind of annotator model; this base class is the custom kind.

    A subclass sets :attr:`name` (the ``Posterior.kind`` it serves), may override the class
    attributes and hooks below, and adds the methods only its models define (a ``Posterior``
    method of the same name delegates to it). It is built once per posterior.

    Attributes
    ----------
    name : str
        The kind (``Posterior.kind``).
    derived_names : tuple of str
        Quantities ``Posterior.draws`` computes besides the sample sites.
    default_summary : tuple of str
        Derived quantities added to ``summary()`` and ``to_arviz()`` by default.
    alpha_name : str
        The quantity ``Posterior.alpha`` returns.
    check : str or None
        The name of the kind's posterior predictive check method (run by
        :func:`~softirr_stats.inference.diagnostics` and ``annotator_agreement``).
    coefficient : str or None
        ``AgreementResult.coefficient`` of ``annotator_agreement`` on this kind.
    nuisance_sites : tuple of str
        Sites whose single elements the data identify only weakly or only jointly (the
        pieces of a flexible emission, an intercept on a ridge with the rater effects,
        non-centred ``z`` of random effects), while the quantities built from them, which
        stay under the strict rule, are identified (``component_mean``,
        ``pi_within_expected``, ``kappa``). Their elements' r_hat is held to
        ``NutsConfig.nuisance_rhat_threshold`` (1.05) instead of ``rhat_threshold`` (1.01),
        and their ESS gives no caveat (see :func:`~softirr_stats.inference.diagnostics`).
    nuts_gamma_sites : tuple of str
        Dirichlet sites a NUTS fit draws as normalised Gamma variables
        (:class:`~softirr_stats.models._gamma_dirichlet.GammaDirichlet`: the same prior and
        posterior, another sampler geometry; SVI keeps the model's own parametrisation). The
        posterior keeps the sites themselves, not the Gamma coordinates.
    nuts_target_accept : float
        NUTS's target acceptance when ``NutsConfig.target_accept`` is None (the default).
    nuts_leapfrog_per_iteration : int
        Leapfrog steps per NUTS iteration that :func:`~softirr_stats.inference.fit`'s time
        estimate (:attr:`~softirr_stats.inference.FitSize.seconds`) assumes for the kind.
    seconds_per_work : float
        The estimate's seconds per unit of work of one gradient (latent dimension + ratings x
        classes) for the kind.

    Examples
    --------
    >>> ModelKind.name, ModelKind.check, MODEL_KINDS["categorical"].check
    ('custom', None, 'predictive_check')
    >>> "intercept" in MODEL_KINDS["soft"].nuisance_sites, ModelKind.nuisance_sites
    (True, ())
    """

    name: ClassVar[str] = "custom"
    derived_names: ClassVar[tuple[str, ...]] = ()
    default_summary: ClassVar[tuple[str, ...]] = ()
    alpha_name: ClassVar[str] = "alpha"
    check: ClassVar[str | None] = None
    coefficient: ClassVar[str | None] = None
    nuisance_sites: ClassVar[tuple[str, ...]] = ()
    nuts_gamma_sites: ClassVar[tuple[str, ...]] = ()
    nuts_target_accept: ClassVar[float] = 0.8
    nuts_leapfrog_per_iteration: ClassVar[int] = LEAPFROG_PER_ITERATION
    seconds_per_work: ClassVar[float] = SECONDS_PER_WORK

    def __init__(self, posterior: Any) -> None:
        self.post = posterior

    @staticmethod
    def encode(data: Any) -> Any:
        """The data as the kind's models take them (custom models: unchanged)."""
        return data

    def derived(self, name: str) -> np.ndarray | None:
        """Draws of a derived quantity in :attr:`derived_names` (None for any other name)."""
        return None

    def shown_kappa(self) -> np.ndarray | None:
        """Kappa draws for ``repr`` when they are already at hand (never computed for it)."""
        return None

    def diagnostic_fields(self) -> dict[str, Any]:
        """Extra :class:`~softirr_stats.inference.FitDiagnostics` fields of the kind."""
        return {}


class CategoricalKind(ModelKind):
    """Categorical annotator models (the ``kind="categorical"`` rows of :data:`softirr_stats.models.ANNOTATOR_MODELS`).

    Examples
    --------
    >>> MODEL_KINDS["categorical"] is CategoricalKind, CategoricalKind.default_summary
    (True, ('kappa', 'kappa_cohen'))
    """

    name = "categorical"
    derived_names = ("alpha", *IMPLIED)
    default_summary = ("kappa", "kappa_cohen")
    check = "predictive_check"
    coefficient = "model_kappa"
    # Measured (2 x (500 + 500), an idle 2-core machine, the program from the compile cache): dawid_skene
    # 150 / 600 items x 3 raters x 3 classes ran 18 / 10 leapfrog steps per iteration in 1.1 / 3.2 s, 300 x
    # 5 x 5 ran 20 in 10.9 s; mace 7 steps (1.0 s at 150 x 3 x 3, 3.9 s at 300 x 5 x 5). The estimate with
    # 31 steps and 1e-7 s per unit of work said 9.8 / 34.9 / 48.5 s and 9.7 / 47.9 s (4-12 times long):
    # fits of a few seconds drew a bar in a terminal, and a program with the bar is compiled again in
    # every process. 15 steps and 5e-8 s: 2.7 / 8.7 / 12.0 s and 2.6 / 11.9 s (1.1-3 times long).
    nuts_leapfrog_per_iteration = 15
    seconds_per_work = 5e-8

    @staticmethod
    def encode(data: Any) -> Any:
        """Annotations, codes or AnnotationData -> AnnotationData (long format)."""
        return encode_annotations(data)

    @cached_property
    def spec(self) -> Any:
        """The model's record in :data:`softirr_stats.models.ANNOTATOR_MODELS` (its ``derive`` / ``response``)."""
        return MODEL_SPECS[self.post.model_name]

    def derived(self, name: str) -> np.ndarray | None:
        if name == "alpha":
            name = "kappa"
        return self.implied_agreement()[name] if name in IMPLIED else None

    def shown_kappa(self) -> np.ndarray | None:
        eye = np.eye(self.post.data.n_classes).tobytes()
        cached = [v for k, v in self.post._cache.items() if isinstance(k, tuple)
                  and k[0] == "implied" and k[1] == eye]
        return cached[0]["kappa"] if cached else None

    def diagnostic_fields(self) -> dict[str, Any]:
        flag, per_item, used = open_vocabulary(self.post.data)
        return {"n_labels": used, "labels_per_item": per_item, "open_vocabulary": flag}

    def similarity_weights(self, similarity: Any) -> tuple[Any, Any, int]:
        """``(weights, resolved similarity, pairs scored)`` of ``similarity`` on the vocabulary."""
        if similarity is None:
            return None, None, 0
        data = self.post.data
        if data.vocabulary is None:
            raise ValueError("a similarity needs labels: the posterior was fitted without a vocabulary")
        from softirr_stats.equivalence import resolve_label_similarity

        idx = np.arange(len(data.vocabulary))  # K x K weights, scored like every other statistic
        sim = resolve_label_similarity(data.vocabulary, similarity)
        scored = sim.block(idx, idx)
        return scored.values, sim, scored.n_scored

    def agreement_terms(self, weights: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """``(kappa, observed, expected, details)`` draws for ``annotator_agreement``."""
        terms = self.implied_agreement(weights)
        return (terms["kappa"], terms["observed_agreement"], terms["expected_agreement"],
                {"kappa_cohen": float(np.mean(terms["kappa_cohen"]))})

    # ------------------------------------------------------------------ responses
    def _responses(self, n_mc: int) -> Callable:
        spec, j = self.spec, self.post.data.n_raters

        def one(args: tuple) -> tuple:
            params, key = args
            return spec.response(params, key, n_mc, j)

        return one

    def _mean_responses(self, n_mc: int) -> tuple[np.ndarray, np.ndarray]:
        """Per draw: pi (S, K) and the item-effect-averaged responses (S, J, K, K)."""
        post = self.post
        key = ("mean_resp", n_mc)
        if key not in post._cache:
            resp = self._responses(n_mc)

            def one(args: tuple) -> tuple:
                pi, r = resp(args)
                return pi, r.mean(axis=0)

            pi, r = map_draws(one, (post._params(), post._draw_keys()))
            post._cache[key] = (np.asarray(pi, np.float64), np.asarray(r, np.float64))
        return post._cache[key]

    # ------------------------------------------------------------------ derived quantities
    def implied_agreement(self, weights: Any = None, n_mc: int = 64) -> dict[str, np.ndarray]:
        """See :meth:`Posterior.implied_agreement`."""
        post, spec = self.post, self.spec
        k = post.data.n_classes
        n_mc = check_positive_int(n_mc, "n_mc") if spec.item_effects else 1
        if weights is None:
            w = np.eye(k)
        else:
            w = np.asarray(weights, dtype=np.float64)
            if w.shape != (k, k):
                raise ValueError(f"weights must have shape (K, K) = ({k}, {k}); got {w.shape}")
        cache_key = ("implied", w.tobytes(), n_mc)
        if cache_key not in post._cache:
            omega = jnp.asarray(rater_pair_weights(post.data.coannotation()), dtype=jnp.float32)
            wj = jnp.asarray(w, dtype=jnp.float32)
            resp = self._responses(n_mc)

            def one(args: tuple) -> jnp.ndarray:
                pi, r = resp(args)
                return implied_agreement(pi, r, omega, wj)

            out = np.asarray(map_draws(one, (post._params(), post._draw_keys())), np.float64)
            post._cache[cache_key] = dict(zip(IMPLIED, out.T, strict=True))
        return post._cache[cache_key]

    def class_alignment(self, n_mc: int = 64) -> np.ndarray:
        """See :meth:`Posterior.class_alignment`."""
        post = self.post
        key = ("align", n_mc)
        if key not in post._cache:
            k = post.data.n_classes
            if post.model_name in LABELLED_CLASSES:
                sigma = np.broadcast_to(np.arange(k), (post.num_draws, k)).copy()
            else:
                _, r = self._mean_responses(n_mc)
                n_j = np.bincount(post.data.raters, minlength=post.data.n_raters).astype(float)
                m = np.einsum("j,sjck->sck", n_j / n_j.sum(), r)
                sigma = align_permutations(m)
            post._cache[key] = sigma
        return post._cache[key]

    def rater_accuracy_draws(self, n_mc: int = 64) -> np.ndarray:
        """See :meth:`Posterior.rater_accuracy_draws`."""
        pi, r = self._mean_responses(n_mc)
        sigma = self.class_alignment(n_mc)
        diag = np.take_along_axis(r, sigma[:, None, :, None], axis=3)[..., 0]  # r[s, j, c, sigma[s, c]]
        return np.einsum("sc,sjc->sj", pi, diag)

    def rater_accuracy(self, level: float = DEFAULT_LEVEL, n_mc: int = 64) -> pd.DataFrame:
        """See :meth:`Posterior.rater_accuracy`."""
        level = check_level(level)
        acc = self.rater_accuracy_draws(n_mc)
        lo, hi = np.quantile(acc, [(1 - level) / 2, (1 + level) / 2], axis=0)
        data = self.post.data
        names = data.rater_names or tuple(range(data.n_raters))
        low, high = interval_columns(level)
        out = pd.DataFrame({"rater": list(names), "n_items": items_per_rater(data), "accuracy": acc.mean(axis=0),
                            "sd": acc.std(axis=0, ddof=1), low: lo, high: hi})
        out.attrs["level"] = level
        return out

    def class_probabilities(self, n_mc: int = 64) -> np.ndarray:
        """See :meth:`Posterior.class_probabilities`."""
        post = self.post
        key = ("class_probs", n_mc)
        if key not in post._cache:
            spec, data = self.spec, post.data
            onehot = jax.nn.one_hot(jnp.asarray(self.class_alignment(n_mc)), data.n_classes,
                                    dtype=jnp.float32)  # (S, K, K): latent c -> label

            def body(acc: jnp.ndarray, args: tuple) -> tuple:
                params, perm = args
                joint = item_log_joint(*spec.derive(params, data), data)
                return acc + jax.nn.softmax(joint, axis=-1) @ perm, None

            init = jnp.zeros((data.n_items, data.n_classes), dtype=jnp.float32)
            total, _ = jax.lax.scan(body, init, (post._params(), onehot))
            post._cache[key] = np.asarray(total, np.float64) / post.num_draws
        return post._cache[key]

    def aggregated_labels(self, n_mc: int = 64, *, as_labels: bool | None = None) -> np.ndarray:
        """See :meth:`Posterior.aggregated_labels`."""
        codes = self.class_probabilities(n_mc).argmax(axis=1)
        vocabulary = self.post.data.vocabulary
        if as_labels is None:
            as_labels = vocabulary is not None
        if not as_labels:
            return codes
        if vocabulary is None:
            raise ValueError("as_labels=True needs data with a vocabulary (fit on Annotations)")
        vocab = np.empty(len(vocabulary), dtype=object)
        vocab[:] = list(vocabulary)
        return vocab[codes]

    def replicated(self, statistic: Callable[[Any], Any], n_draws: int | None = None, *,
                   salt: int = 7) -> np.ndarray:
        """See :meth:`Posterior.replicated`."""
        post, spec = self.post, self.spec
        data = post.data
        items, n_items = jnp.asarray(data.items), data.n_items
        s = post.num_draws if n_draws is None else min(check_positive_int(n_draws, "n_draws"),
                                                       post.num_draws)
        params = {name: v[:s] for name, v in post._params().items()}
        keys = jax.jit(lambda key: jax.random.split(jax.random.fold_in(key, salt), s))(post._key)

        def one(args: tuple) -> jnp.ndarray:
            p, key = args
            log_pi, obs_logr = spec.derive(p, data)
            k1, k2 = jax.random.split(key)
            c = jax.random.categorical(k1, log_pi, shape=(n_items,))
            rows = jnp.take_along_axis(obs_logr, c[items][:, None, None], axis=1)[:, 0, :]
            return statistic(jax.random.categorical(k2, rows, axis=-1))

        return np.asarray(map_draws(one, (params, keys)), np.float64)

    def predictive_check(self, ann_or_data: Any = None, statistic: str = "fleiss_kappa",
                         n_draws: int | None = None, *, warn: bool = True,
                         stacklevel: int = 2) -> Any:
        """See :meth:`Posterior.predictive_check`."""
        from softirr_stats.inference._predictive_check import (
            PredictiveCheck,
            observed_on_fitted_design,
            upper_tail_p,
        )

        post = self.post
        statistic = check_choice("statistic", statistic, STATISTICS)
        stat = STATISTICS[statistic]
        data = post.data
        obs = observed_on_fitted_design(data, ann_or_data)
        items = jnp.asarray(data.items)
        n_items, k = data.n_items, data.n_classes
        # one compiled program, not one per operation (each costs a lowering and a cache lookup)
        t_obs = float(jax.jit(lambda i, y: stat(item_counts(i, y, n_items, k)))(jnp.asarray(obs.items),
                                                                                jnp.asarray(obs.labels)))
        rep = self.replicated(lambda y: stat(item_counts(items, y, n_items, k)), n_draws, salt=7)
        check = PredictiveCheck(statistic=statistic, observed=t_obs, replicated=rep,
                                p_value=upper_tail_p(t_obs, rep))  # nan replicates left out
        if warn and check.failed:
            lo, hi = check.interval(DEFAULT_LEVEL)
            left_out = f"; {check.note}" if check.n_undefined else ""
            warnings.warn(
                f"posterior predictive check fails for {post.model_name}: observed {statistic} "
                f"{t_obs:.3f}, replicated 95% [{lo:.3f}, {hi:.3f}], {check.p_text}{left_out}; "
                "the model does not reproduce the data, so its agreement estimates are not "
                "to be trusted (try another model or prior)", PredictiveCheckWarning,
                stacklevel=stacklevel + 1)
        return check


class SoftKind(ModelKind):
    """The soft-agreement model (:func:`softirr_stats.models.soft_agreement`) over pair scores.

    Examples
    --------
    >>> SoftKind.alpha_name, SoftKind.check, SoftKind.coefficient
    ('kappa', 'score_check', 'soft_model_kappa')
    """

    name = "soft"
    alpha_name = "kappa"
    check = "score_check"
    coefficient = "soft_model_kappa"
    # NUTS draws the monotone emission's Dirichlet sites as normalised Gammas, at target
    # acceptance 0.9: the fits of separable scores with a divergent transition went from most
    # to a minority. Measured: docs/annotator_models.md, "Divergences: the Gamma parametrisation".
    nuts_gamma_sites = ("equiv_weights", "nonequiv_weights", "equiv_weights_kept",
                        "nonequiv_weights_kept", "equiv_atoms", "nonequiv_atoms")
    nuts_target_accept = 0.9
    # Measured at the default settings (2 x (500 + 500), Gamma map, 0.9): 66 leapfrog steps per
    # iteration on bands, 81 on exact 0/1, 105 on heavy tails, 140-157 on calibrated and on
    # simulate_soft_scores' scores, against the 31 of a categorical model: fit's estimate for a
    # soft NUTS fit was 3-7 times too short (4.3 s for fits of 12-30 s at 150 items x 3 raters).
    nuts_leapfrog_per_iteration = 120
    # The pieces of the monotone / histogram emission (adjacent pieces trade weight: the
    # density, component_mean and kappa mix where a single piece does not), and the
    # intercept and rater / item z (with 3 raters the intercept and the rater effects'
    # mean lie on a ridge only the prior closes; z alone trades off with its scale).
    # Measured: docs/annotator_models.md, "Convergence of the soft model's NUTS fits".
    # The scales of the rater / item effects too: with 3 raters the scale is its prior's nearly
    # alone; in 1,056 NUTS fits its r_hat was the one above 1.01 in 322, which covered as the
    # others did (92.5% against 92.0%; kappa's r_hat median 0.999 in them): "Divergences: the
    # Gamma parametrisation" in docs/annotator_models.md.
    nuisance_sites = ("equiv_weights", "nonequiv_weights", "equiv_weights_kept",
                      "nonequiv_weights_kept", "equiv_hist", "nonequiv_hist", "intercept",
                      "rater_z", "item_z", "rater_scale", "item_scale")

    @staticmethod
    def encode(data: Any) -> Any:
        """PairScores as they are; Annotations scored by exact match."""
        if isinstance(data, PairScores):
            return data
        if hasattr(data, "codes") and hasattr(data, "vocabulary"):
            return pair_scores(data)
        raise TypeError("the soft-agreement model needs PairScores (softirr_stats.models."
                        f"pair_scores) or Annotations; got {type(data).__name__}")

    @property
    def emission(self) -> str:
        """The fitted emission (``"beta"``, ``"monotone"`` or ``"histogram"``)."""
        from softirr_stats.models import DEFAULT_EMISSION

        return self.post.model_kwargs.get("emission", DEFAULT_EMISSION)

    @property
    def priors(self) -> SoftAgreementPriors:
        """The fitted priors (the defaults when none were given)."""
        return self.post.priors if self.post.priors is not None else SoftAgreementPriors()

    def similarity_weights(self, similarity: Any) -> tuple[Any, Any, int]:
        """The scores are the similarity already: ``(None, None, pairs scored)``."""
        if similarity is not None:
            raise TypeError("a soft-model posterior was fitted on scores already; similarity cannot be given")
        return None, None, int(getattr(self.post.data, "n_pairs_scored", 0))

    def agreement_terms(self, weights: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """``(kappa, pi_within, pi_chance, {"n_gold": ...})`` draws for ``annotator_agreement``."""
        post = self.post
        return (post.draws("kappa"), post.draws("pi_within"), post.draws("pi_chance"),
                {"n_gold": int(getattr(post.data, "n_gold", 0))})

    def _chance(self) -> np.ndarray:
        return np.asarray(self.post.samples["pi_chance"], np.float64)

    def _aggregates(self) -> dict[str, np.ndarray]:
        """Per draw: mean P(equivalent | score) per rater (S, J), rater pair (S, J, J), group
        (S, G), each pair's share scaled by ``pi_within / mean`` so that the Bernoulli spread
        term of ``pi_within`` is shared out and the group contributions sum to kappa."""
        post = self.post
        if "soft_aggr" not in post._cache:
            data = post.data
            j = data.n_raters
            wr = jnp.asarray(data.within_raters)
            pair_id = jnp.minimum(wr[:, 0], wr[:, 1]) * j + jnp.maximum(wr[:, 0], wr[:, 1])
            g = data.n_groups

            from softirr_stats.models import within_responsibilities

            emission, priors = self.emission, self.priors

            def one(params: dict) -> tuple:
                p = within_responsibilities(params, data, emission, priors)
                p = p * params["pi_within"] / jnp.maximum(p.mean(), 1e-30)
                per_rater = (jax.ops.segment_sum(p, wr[:, 0], j)
                             + jax.ops.segment_sum(p, wr[:, 1], j))
                per_pair = jax.ops.segment_sum(p, pair_id, j * j)
                if g:
                    wg = jnp.asarray(data.within_groups)
                    per_group = 0.5 * (jax.ops.segment_sum(p, wg[:, 0], g)
                                       + jax.ops.segment_sum(p, wg[:, 1], g))
                else:
                    per_group = jnp.zeros(1, dtype=p.dtype)  # placeholder
                return per_rater, per_pair, per_group

            params = {k: v for k, v in post._params().items() if k != "kappa"}
            params["pi_within"] = jnp.asarray(post.samples["pi_within"])
            r, pp, gg = map_draws(one, params)
            n_r = np.bincount(data.within_raters.ravel(), minlength=j).astype(np.float64)
            n_pair = np.bincount(np.asarray(pair_id), minlength=j * j).astype(np.float64)
            n_g = (0.5 * (np.bincount(data.within_groups[:, 0], minlength=g)
                          + np.bincount(data.within_groups[:, 1], minlength=g))
                   if g else np.zeros(0))
            post._cache["soft_aggr"] = {
                "rater_sum": np.asarray(r, np.float64), "n_rater": n_r,
                "pair_sum": np.asarray(pp, np.float64).reshape(-1, j, j), "n_pair":
                n_pair.reshape(j, j), "group_sum": np.asarray(gg, np.float64)[:, :g], "n_group": n_g}
        return post._cache["soft_aggr"]

    def _cell_probabilities(self, n_bins: int) -> np.ndarray:
        """``(n_draws, 2, n_bins)`` cell probabilities of [non-equivalent, equivalent]."""
        post = self.post
        key = ("cells", n_bins)
        if key not in post._cache:
            names = ("mean_logit0", "mean_gap_logit", "concentration", "equiv_weights",
                     "nonequiv_weights", "equiv_atoms", "nonequiv_atoms", "equiv_hist",
                     "nonequiv_hist")
            params = {k: v for k, v in post._params().items() if k in names}
            emission = self.emission

            def one(p: dict) -> jnp.ndarray:
                return cell_probabilities(p, emission, n_bins)

            post._cache[key] = np.asarray(map_draws(one, params), np.float64)
        return post._cache[key]

    def score_check(self, *, warn: bool = True, seed: int = 0, stacklevel: int = 2) -> Any:
        """See :meth:`Posterior.score_check`."""
        from softirr_stats.inference._predictive_check import PredictiveCheck

        post = self.post
        nb = self.priors.monotone_bins
        from softirr_stats.inference._soft_check import score_check_statistic

        probs = np.clip(self._cell_probabilities(nb), 0.0, None)  # (S, 2, B)
        data = post.data
        p_value, d_obs, d_rep = score_check_statistic(
            probs, post.draws("pi_within"), post.draws("pi_chance"), data.within_scores,
            data.chance_scores, nb, np.random.default_rng(seed))
        check = PredictiveCheck(statistic="score_chi2", observed=float(d_obs.mean()),
                                replicated=d_rep, p_value=p_value)
        n_gold = int(getattr(data, "n_gold", 0))
        if warn and check.p_value <= SCORE_CHECK_P:
            if self.emission != "monotone":
                advice = ("the soft kappa may be biased; try emission='monotone' (the default)"
                          + ("" if n_gold else f" or gold pairs ({GOLD_HOW})"))
            elif n_gold:
                advice = (f"the monotone shape does not hold (e.g. bimodal scores, or bulks inside "
                          f"(0, 1)), and the {n_gold} gold pairs in the fit do not make up for it (in "
                          "simulations with 200 gold pairs such fits covered 1-13% at 90%); "
                          "emission='histogram' with 200 gold pairs covered 88% on overlapping bulks "
                          "(40% with 50), not bimodal or separable scores: compare it with the "
                          "prediction-powered estimate of the same judged pairs")
            else:
                advice = ("the monotone shape does not hold (e.g. bimodal scores, or bulks inside "
                          "(0, 1)): in simulations every such fit's kappa was too high and its "
                          "interval missed. Judge some pairs and use them for the "
                          "prediction-powered estimate (softirr agree --judgments SHEET). Gold "
                          f"pairs ({GOLD_HOW}) do not repair the monotone shape (such fits covered "
                          "1-13% with 200 gold pairs); emission='histogram' with 200 gold pairs "
                          "covered 88% on overlapping bulks, not bimodal scores "
                          "(docs/annotator_models.md, \"Gold pairs\")")
            warnings.warn(
                f"posterior predictive check of the score distribution fails (chi-square "
                f"{check.observed:.1f} observed vs {np.median(d_rep):.1f} replicated), "
                f"{check.p_text}: the {self.emission!r} emission does not fit these "
                f"scores; {advice}", PredictiveCheckWarning, stacklevel=stacklevel + 1)
        if warn:  # components that share much of their score mass: kappa rests on the shape
            overlap = float(np.minimum(probs[:, 0], probs[:, 1]).sum(axis=1).mean())
            if overlap > COMPONENT_OVERLAP:
                warnings.warn(
                    f"the fitted equivalent and non-equivalent score distributions overlap "
                    f"({overlap:.2f} of their mass is shared, over {COMPONENT_OVERLAP}): the "
                    f"scores barely tell the two apart, so the kappa rests on the "
                    f"{self.emission!r} emission's shape, which the scores cannot confirm; "
                    "in simulations the 90% interval of such fits missed the study's kappa "
                    "far more often than stated. "
                    + (f"The fit has {n_gold} gold pairs; judge more pairs, or use the "
                       "prediction-powered estimate" if n_gold else
                       f"Judge some pairs and pass them as gold pairs ({GOLD_HOW}; with 50-200 "
                       "gold pairs the 90% interval on calibrated scores covered 87.7-92.0% in "
                       "simulations, 80.3% without), or use the prediction-powered estimate"),
                    PredictiveCheckWarning,
                    stacklevel=stacklevel + 1)
        if warn:  # separable scores: the interval is narrower than the model's bias there
            from softirr_stats.inference._soft_check import separation_leak

            separation_leak(post, stacklevel=stacklevel + 2)
        return check

    def rater_agreement(self, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """See :meth:`Posterior.rater_agreement`."""
        level = check_level(level)
        a = self._aggregates()
        with np.errstate(invalid="ignore", divide="ignore"):
            agr = a["rater_sum"] / a["n_rater"]
        pc = self._chance()[:, None]
        kap = (agr - pc) / (1 - pc)
        q = [(1 - level) / 2, (1 + level) / 2]
        data = self.post.data
        names = data.rater_names or tuple(range(data.n_raters))
        lo, hi = np.quantile(agr, q, axis=0)
        klo, khi = np.quantile(kap, q, axis=0)
        (low, high), (klow, khigh) = interval_columns(level), interval_columns(level, "kappa_")
        out = pd.DataFrame({"rater": list(names), "n_pairs": a["n_rater"].astype(int),
                            "agreement": agr.mean(0), low: lo, high: hi,
                            "kappa": kap.mean(0), klow: klo, khigh: khi})
        out.attrs["level"] = level
        return out

    def pair_agreement(self, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """See :meth:`Posterior.pair_agreement`."""
        level = check_level(level)
        a = self._aggregates()
        ia, ib = np.nonzero(np.triu(a["n_pair"] > 0, 1) | np.triu(a["n_pair"].T > 0, 1))
        n = a["n_pair"][ia, ib]
        agr = a["pair_sum"][:, ia, ib] / n
        lo, hi = np.quantile(agr, [(1 - level) / 2, (1 + level) / 2], axis=0)
        data = self.post.data
        names = data.rater_names or tuple(range(data.n_raters))
        low, high = interval_columns(level)
        out = pd.DataFrame({"rater_a": [names[i] for i in ia], "rater_b": [names[i] for i in ib],
                            "n_pairs": n.astype(int), "agreement": agr.mean(0), low: lo, high: hi})
        out.attrs["level"] = level
        return out

    def label_contributions(self, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """See :meth:`Posterior.label_contributions`."""
        level = check_level(level)
        a = self._aggregates()
        data = self.post.data
        if not data.n_groups:
            raise ValueError("the PairScores carry no within_groups; build them with "
                             "softirr_stats.models.pair_scores(..., groups=...)")
        pc = self._chance()[:, None]
        n_w = data.n_within
        contrib = (a["group_sum"] - a["n_group"] * pc) / (n_w * (1 - pc))
        with np.errstate(invalid="ignore", divide="ignore"):
            agr = (a["group_sum"] / a["n_group"]).mean(0)
        lo, hi = np.quantile(contrib, [(1 - level) / 2, (1 + level) / 2], axis=0)
        names = data.group_names or tuple(range(data.n_groups))
        low, high = interval_columns(level)
        out = pd.DataFrame({"group": list(names)[: data.n_groups],
                            "weight": a["n_group"] / n_w, "agreement": agr,
                            "contribution": contrib.mean(0), low: lo, high: hi})
        out.attrs["level"] = level
        return out

    def calibration_map(self, scores: Any, base_rate: Any = "within",
                        level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """See :meth:`Posterior.calibration_map`."""
        post = self.post
        level = check_level(level)
        s = np.asarray(scores, dtype=np.float64).ravel()
        if not np.all((s >= 0) & (s <= 1)):
            raise ValueError("scores must lie in [0, 1]")
        if isinstance(base_rate, str):
            check_choice("base_rate", base_rate, ["within", "chance"])
            pi = np.asarray(post.samples["pi_" + base_rate], np.float64)
        else:
            pi = np.full(post.num_draws, check_level(base_rate, "base_rate"))
        l0, l1 = _EMISSION_LOG_DENSITY.get(self.emission, _cell_log_densities)(self, s)
        with np.errstate(divide="ignore", over="ignore"):  # a draw of pi at 0 or 1: probability 0 or 1
            logit = np.log(pi)[:, None] - np.log1p(-pi)[:, None] + l1 - l0
            prob = 1.0 / (1.0 + np.exp(-logit))
        lo, hi = np.quantile(prob, [(1 - level) / 2, (1 + level) / 2], axis=0)
        low, high = interval_columns(level)
        out = pd.DataFrame({"score": s, "probability": prob.mean(0), low: lo, high: hi})
        out.attrs["level"] = level
        return out


def _beta_log_densities(kind: SoftKind, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per draw, the log density of each score under the two Beta components."""
    from scipy.special import betaln

    from softirr_stats.models import beta_mixture_params

    samples = kind.post.samples
    a, b = beta_mixture_params({k: jnp.asarray(samples[k]) for k in
                                ("mean_logit0", "mean_gap_logit", "concentration")})
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    eps = kind.priors.score_eps
    sc = np.clip(s, eps, 1 - eps)[None, :]
    l0 = ((a[:, :1] - 1) * np.log(sc) + (b[:, :1] - 1) * np.log1p(-sc)
          - betaln(a[:, :1], b[:, :1]))
    l1 = ((a[:, 1:] - 1) * np.log(sc) + (b[:, 1:] - 1) * np.log1p(-sc)
          - betaln(a[:, 1:], b[:, 1:]))
    return l0, l1


def _cell_log_densities(kind: SoftKind, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per draw, the log density of each score's cell (monotone and histogram emissions)."""
    from softirr_stats.models import cell_log_density

    samples = kind.post.samples
    nb = kind.priors.monotone_bins
    emission = kind.emission
    names = ("equiv_weights", "nonequiv_weights", "equiv_atoms", "nonequiv_atoms",
             "equiv_hist", "nonequiv_hist")
    table = np.asarray(map_draws(lambda p: cell_log_density(p, emission, nb), {
        k: jnp.asarray(samples[k]) for k in names if k in samples}), np.float64)
    cells = score_cells(s, nb)
    return table[:, 0, cells], table[:, 1, cells]


_EMISSION_LOG_DENSITY = {"beta": _beta_log_densities}

#: Kind name -> its class; ``Posterior(kind=...)`` builds one of these once.
MODEL_KINDS: dict[str, type[ModelKind]] = {k.name: k for k in (CategoricalKind, SoftKind, ModelKind)}


def model_kind(kind: str, posterior: Any) -> ModelKind:
    """The kind object of ``posterior`` (``kind`` one of :data:`MODEL_KINDS`).

    Examples
    --------
    >>> type(model_kind("soft", None)).__name__
    'SoftKind'
    """
    cls = MODEL_KINDS.get(kind)
    if cls is None:
        raise ValueError(f"kind must be one of {sorted(MODEL_KINDS)}; got {kind!r}")
    return cls(posterior)


def unavailable(posterior: Any, method: str) -> ValueError:
    """The error for a quantity the posterior's kind does not define, naming the kinds that do."""
    kinds = [name for name, cls in MODEL_KINDS.items() if callable(getattr(cls, method, None))]
    where = " or ".join(kinds) if kinds else "no"
    return ValueError(f"{method} is available for {where} models; this posterior is of the "
                      f"{posterior.kind} model {posterior.model_name!r}")
