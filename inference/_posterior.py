"""The :class:`Posterior` returned by :func:`softirr_stats.inference.fit`."""

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd

from softirr_stats.base._validation import check_level, check_positive_int
from softirr_stats.inference._arviz import to_inference_data
from softirr_stats.inference._config import DEFAULT_LEVEL, PriorDominatedWarning, interval_columns
from softirr_stats.inference._convergence import rank_diagnostics
from softirr_stats.inference._kinds import model_kind, unavailable
from softirr_stats.inference._predictive_check import PredictiveCheck

__all__ = ["Posterior", "PredictiveCheck", "PriorContraction"]


@dataclass(frozen=True)
class PriorContraction:
    """How far the posterior of a quantity moved from its prior.

    Attributes
    ----------
    name : str
    prior_mean, prior_sd, posterior_mean, posterior_sd : float
    contraction : float
        ``1 - posterior_var / prior_var`` (Betancourt's posterior contraction): 0 means
        the data taught nothing about the quantity, 1 that they pinned it.
    z : float
        ``(posterior_mean - prior_mean) / prior_sd``.

    Examples
    --------
    >>> pc = PriorContraction("accuracy[r1]", 0.75, 0.2, 0.9, 0.05, 1 - 0.05**2 / 0.2**2, (0.9 - 0.75) / 0.2)
    >>> round(pc.contraction, 4), round(pc.z, 2)
    (0.9375, 0.75)
    """

    name: str
    prior_mean: float
    prior_sd: float
    posterior_mean: float
    posterior_sd: float
    contraction: float
    z: float

    @property
    def barely_moved(self) -> bool:
        """Contraction below 0.25 and the posterior mean within half a prior sd."""
        return bool(self.contraction < 0.25 and abs(self.z) < 0.5)


def _element_labels(parameters: Any, sites: list[str], post: Any, data: Any) -> list[str]:
    """Each summary row's element read by rater, true class and given label (``""`` where unknown).

    (J, K, K) sites (confusions) by rater, true class and given label; MACE's ``epsilon`` (J, K), the
    label a rater gives when guessing, by rater and given label; (K,) sites by class, (J,) by rater.
    """
    raters = getattr(data, "rater_names", None) or ()
    classes = getattr(data, "vocabulary", None) or ()
    n_r, n_k = len(raters), len(classes)
    out = []
    for param in parameters:
        name, _, idx = str(param).partition("[")
        index = [int(i) for i in idx.rstrip("]").split(",")] if idx else []
        shape = post.samples[name].shape[1:] if name in post.samples else ()
        label = ""
        if n_r and n_k and len(shape) == 3 and tuple(shape) == (n_r, n_k, n_k):
            r, k, g = index
            label = f"rater {raters[r]}, true {classes[k]}, given {classes[g]}"
        elif name == "epsilon" and n_r and n_k and tuple(shape) == (n_r, n_k):  # MACE: the label when guessing
            r, g = index
            label = f"rater {raters[r]}, given {classes[g]} when guessing"
        elif n_k and len(shape) == 1 and shape[0] == n_k and (name == "pi" or n_k != n_r):
            label = f"true {classes[index[0]]}"
        elif n_r and len(shape) == 1 and shape[0] == n_r:
            label = f"rater {raters[index[0]]}"
        out.append(label)
    return out


def readable_elements(elements: list[str], posterior: Any) -> list[str]:
    """``beta[0,2,1]`` as ``beta: rater r1, true C, given B`` (the ``label`` column of
    :meth:`Posterior.summary`) where the fit knows its raters and classes; else as it is.

    Examples
    --------
    >>> import numpy as np
    >>> from types import SimpleNamespace
    >>> post = SimpleNamespace(samples={"beta": np.zeros((4, 2, 2, 2)), "mu": np.zeros(4)})
    >>> data = SimpleNamespace(rater_names=("ann", "bob"), vocabulary=("neg", "pos"))
    >>> readable_elements(["beta[1,0,1]", "mu", ""], SimpleNamespace(**vars(post), data=data))
    ['beta: rater bob, true neg, given pos', 'mu', '']
    """
    known = [e for e in elements if e]
    try:
        labels = dict(zip(known, _element_labels(known, [], posterior, getattr(posterior, "data", None)),
                          strict=True))
    except (ValueError, IndexError, TypeError, AttributeError, KeyError):  # a custom model's sites
        labels = {}
    return [f"{e.partition('[')[0]}: {labels[e]}" if labels.get(e) else e for e in elements]


def _element_names(name: str, shape: tuple) -> list[str]:
    if not shape:
        return [name]
    return [f"{name}[{','.join(map(str, idx))}]" for idx in np.ndindex(*shape)]



class Posterior:
    """Posterior draws of an annotator model and the quantities derived from them.

    Created by :func:`softirr_stats.inference.fit`; not meant to be built by hand.

    What every fit has (draws, summaries, intervals, r_hat / ESS, the prior comparison) is
    computed here; what only one kind of model defines (the categorical models' implied
    agreement, accuracies, class posteriors and replicated labels, the soft model's score
    check and per-rater agreement) is computed by :attr:`model_kind`, the kind object chosen
    once from ``kind`` (``inference/_kinds.py``). A method of another kind raises
    ``ValueError`` naming the kinds that have it.

    Attributes
    ----------
    model_name : str
    kind : {"categorical", "soft", "custom"}
    model_kind : ModelKind
        The kind's quantities (``CategoricalKind``, ``SoftKind`` or the custom ``ModelKind``).
    method : {"nuts", "svi"}
    data : AnnotationData or PairScores
    samples : dict of str to ndarray
        Draws of every latent and deterministic site, shape (n_draws, *site_shape), chains
        concatenated.
    samples_by_chain : dict of str to ndarray
        The same, shape (n_chains, n_draws_per_chain, *site_shape) (SVI: one "chain").
    extra : dict
        ``diverging`` (NUTS) or ``losses``, ``guide``, ``params`` (SVI).
    """

    def __init__(self, *, model_name: str, kind: str, samples_by_chain: dict, data: Any,
                 method: str, priors: Any, model_kwargs: dict, extra: dict,
                 key: jax.Array) -> None:
        self.model_name = model_name
        self.kind = kind
        self.method = method
        self.data = data
        self.priors = priors
        self.model_kwargs = dict(model_kwargs)
        self.extra = extra
        self.samples_by_chain = samples_by_chain
        self._key = key
        first = next(iter(samples_by_chain.values()))
        self.num_chains, self.num_draws_per_chain = int(first.shape[0]), int(first.shape[1])
        self.samples = {k: v.reshape((-1,) + v.shape[2:]) for k, v in samples_by_chain.items()}
        self._cache: dict = {}
        self.model_kind = model_kind(kind, self)

    def __repr__(self) -> str:
        sites = ", ".join(f"{k} {tuple(v.shape[1:])}" if v.ndim > 1 else k
                          for k, v in self.samples.items())
        text = (f"Posterior(model={self.model_name!r}, method={self.method!r}, "
                f"draws={self.num_draws}, chains={self.num_chains}; sites: {sites}")
        kappa = self.samples.get("kappa")
        if kappa is None:
            kappa = self.model_kind.shown_kappa()
        if kappa is not None:
            lo, hi = np.quantile(kappa, [0.025, 0.975])
            text += f"; kappa {np.mean(kappa):.3f}, 95% credible interval [{lo:.3f}, {hi:.3f}]"
        return text + ")"

    def _repr_html_(self) -> str:
        """The headline quantities (kappa and the model's summary quantities) and the sites, for notebooks."""
        from softirr_stats.base._html_repr import frame_html

        names = [n for n in ("kappa", *self.model_kind.default_summary) if n in self.samples
                 or n in self.model_kind.default_summary]
        table = self.summary(params=list(dict.fromkeys(names))) if names else None
        sites = ", ".join(f"{k} {tuple(v.shape[1:])}" if v.ndim > 1 else k for k, v in self.samples.items())
        caption = (f"Posterior: {self.model_name} by {self.method.upper()}, {self.num_chains} chain(s) x "
                   f"{self.num_draws_per_chain} draws")
        if table is None:
            return frame_html((["sites"], [[sites]]), caption)
        low, high = interval_columns(table.attrs["level"])
        notes = [f"sites: {sites}", f"{low}, {high}: equal-tailed interval; .summary() "
                 "for every parameter, labelled by rater and class"]
        return frame_html(table.drop(columns=["label"]), caption, notes)

    @property
    def num_draws(self) -> int:
        """Total number of posterior draws (all chains)."""
        return self.num_chains * self.num_draws_per_chain

    # ------------------------------------------------------------------ generic tools
    def _draw_keys(self) -> jax.Array:
        return jax.random.split(self._key, self.num_draws)

    def _params(self) -> dict:
        return {k: jnp.asarray(v) for k, v in self.samples.items()}

    def _of_kind(self, method: str) -> Callable:
        """The kind's ``method``; ``ValueError`` naming the kinds that have it otherwise."""
        fn = getattr(self.model_kind, method, None)
        if not callable(fn):
            raise unavailable(self, method)
        return fn

    def draws(self, name: str) -> np.ndarray:
        """Posterior draws of a sample site or a derived quantity, shape (n_draws, ...).

        Derived quantities of categorical models: ``kappa`` (Fleiss/Scott-type),
        ``alpha`` (equal to it at the population level), ``kappa_cohen``
        (Cohen/Conger-type), ``observed_agreement``, ``expected_agreement``,
        ``expected_agreement_cohen``.
        """
        if name in self.samples:
            return np.asarray(self.samples[name])
        derived = self.model_kind.derived(name) if name in self.model_kind.derived_names else None
        if derived is not None:
            return derived
        known = sorted(self.samples) + list(self.model_kind.derived_names)
        raise KeyError(f"unknown parameter {name!r}; available: {known}")

    def interval(self, name: str, level: float = DEFAULT_LEVEL) -> tuple[Any, Any]:
        """Equal-tailed posterior interval ``(low, high)`` of ``name`` at ``level``.

        Floats for scalar quantities, arrays (the site's shape) otherwise.
        """
        level = check_level(level)
        d = self.draws(name)
        lo, hi = np.quantile(d, [(1 - level) / 2, (1 + level) / 2], axis=0)
        if np.ndim(lo) == 0:
            return float(lo), float(hi)
        return lo, hi

    def _chain_shaped(self, arr: np.ndarray) -> np.ndarray:
        return np.asarray(arr).reshape((self.num_chains, self.num_draws_per_chain)
                                       + np.shape(arr)[1:])

    def _diagnostics(self, arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Rank-normalised split r_hat and bulk ESS of a (chain, draw, ...) array, the estimators
        the diagnostics' targets are set for (NaN r_hat for SVI draws; NaN both for a constant
        element, fewer than 4 draws or a non-finite draw)."""
        arr = np.asarray(arr, dtype=np.float64)
        if self.method == "svi":
            shape = arr.shape[2:]
            return np.full(shape, np.nan), np.full(shape, float(arr.shape[0] * arr.shape[1]))
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.num_draws_per_chain < 4:
                shape = arr.shape[2:]
                return np.full(shape, np.nan), np.full(shape, np.nan)
            rhat, ess = rank_diagnostics(arr)
        bad = np.all(arr == arr[:1, :1], axis=(0, 1)) | ~np.all(np.isfinite(arr), axis=(0, 1))
        return np.where(bad, np.nan, rhat), np.where(bad, np.nan, ess)

    def _rhat_offenders(self, threshold: float,
                        nuisance_threshold: float | None = None) -> list[tuple[str, float]]:
        """Elements whose split r_hat exceeds ``threshold``, largest first; the elements of the
        model kind's ``nuisance_sites`` against ``nuisance_threshold`` (None: ``threshold``)."""
        nuisance = set(self.model_kind.nuisance_sites)
        bad = []
        for name, arr in self.samples_by_chain.items():
            rhat, _ = self._diagnostics(arr)
            limit = threshold if nuisance_threshold is None or name not in nuisance \
                else nuisance_threshold
            for el, r in zip(_element_names(name, arr.shape[2:]), np.ravel(rhat), strict=True):
                if np.isfinite(r) and r > limit:
                    bad.append((el, float(r)))
        return sorted(bad, key=lambda t: -t[1])

    def summary(self, level: float = DEFAULT_LEVEL, params: list[str] | None = None) -> pd.DataFrame:
        """Tidy table, one row per scalar element: parameter, mean, sd, the interval, r_hat, ess.

        Parameters
        ----------
        level : float
            Level of the equal-tailed interval.
        params : list of str, optional
            Sites / derived quantities to include (default: every site, plus ``kappa``
            and ``kappa_cohen`` for categorical models). Names look like ``beta[1,2,0]``.

        Returns
        -------
        DataFrame
            ``parameter, label, mean, sd, lower_95%, upper_95%, r_hat, ess`` (the interval's columns carry
            its level: ``lower_90%`` at ``level=0.9``, :func:`interval_columns`); ``label`` reads an
            element by rater, true class and given label where the fit knows them
            (``beta[1,2,0]`` of Dawid-Skene: ``rater b, true neg, given pos``), else ``""``;
            ``attrs["level"]`` holds the level too.
        """
        level = check_level(level)
        if params is None:
            params = list(self.samples) + list(self.model_kind.default_summary)
        rows = []
        q = [(1 - level) / 2, (1 + level) / 2]
        for name in params:
            d = self.draws(name)
            chains = self._chain_shaped(d)
            rhat, ess = self._diagnostics(chains)
            flat = d.reshape(d.shape[0], -1).astype(np.float64)
            lo, hi = np.quantile(flat, q, axis=0)
            for i, el in enumerate(_element_names(name, d.shape[1:])):
                rows.append((el, flat[:, i].mean(), flat[:, i].std(ddof=1) if len(flat) > 1
                             else np.nan, lo[i], hi[i], np.ravel(rhat)[i], np.ravel(ess)[i]))
        out = pd.DataFrame(rows, columns=["parameter", "mean", "sd", *interval_columns(level), "r_hat", "ess"])
        out.insert(1, "label", _element_labels(out["parameter"], params, self, self.data))
        out.attrs["level"] = level  # the equal-tailed interval's level, also in its columns' names
        return out

    def to_arviz(self) -> Any:
        """``arviz.InferenceData`` of the draws (arviz 0.x; derived kappa included)."""
        post = dict(self.samples_by_chain)
        for name in self.model_kind.default_summary:
            post[name] = self._chain_shaped(self.draws(name))
        stats = None
        if "diverging" in self.extra:
            stats = {"diverging": self.extra["diverging"]}
        return to_inference_data(post, stats)

    @property
    def kappa(self) -> np.ndarray:
        """Model-implied Fleiss/Scott-type kappa per draw (soft model: soft kappa)."""
        return self.draws("kappa")

    @property
    def alpha(self) -> np.ndarray:
        """Model-implied Krippendorff-type alpha per draw (= Fleiss-type kappa, population level)."""
        return self.draws(self.model_kind.alpha_name)

    @property
    def kappa_cohen(self) -> np.ndarray:
        """Model-implied Cohen/Conger-type kappa per draw."""
        return self.draws("kappa_cohen")

    def prior_contraction(self, name: str = "kappa", num_draws: int = 500,
                          *, warn: bool = True) -> PriorContraction:
        """Compare the posterior of ``name`` with its prior (drawn from the model's prior).

        Parameters
        ----------
        name : str
            A sample site or derived quantity (``"kappa"`` by default).
        num_draws : int
            Prior draws.
        warn : bool
            Warn when the posterior barely moved (:attr:`PriorContraction.barely_moved`).

        Returns
        -------
        PriorContraction

        Warns
        -----
        PriorDominatedWarning
            The reported quantity is (almost) what the prior says: the data do not inform it.
        """
        num_draws = check_positive_int(num_draws, "num_draws")
        fn = self.extra.get("model")
        if fn is None:
            raise ValueError("prior_contraction needs the model function (fit with "
                             "softirr_stats.inference.fit)")
        from numpyro.infer import Predictive

        key = jax.random.fold_in(self._key, 11)
        predict = Predictive(fn, num_samples=num_draws)
        # one compiled program for the prior draws (the data are constants of it), not one per operation
        draws = jax.jit(lambda k: predict(k, self.data, priors=self.priors, **self.model_kwargs))(key)
        samples = {k: np.asarray(v)[None] for k, v in draws.items()
                   if k != "obs" and not k.startswith("_")}
        prior = Posterior(model_name=self.model_name, kind=self.kind, samples_by_chain=samples,
                          data=self.data, method="svi", priors=self.priors,
                          model_kwargs=self.model_kwargs, extra={"model": fn},
                          key=jax.random.fold_in(self._key, 12))
        pr = np.asarray(prior.draws(name), np.float64)
        po = np.asarray(self.draws(name), np.float64)
        if pr.ndim != 1:
            raise ValueError(f"prior_contraction needs a scalar quantity; {name!r} has shape "
                             f"{pr.shape[1:]}")
        pr, po = pr[np.isfinite(pr)], po[np.isfinite(po)]
        psd, qsd = float(pr.std(ddof=1)), float(po.std(ddof=1))
        with np.errstate(invalid="ignore", divide="ignore"):
            res = PriorContraction(name=name, prior_mean=float(pr.mean()), prior_sd=psd,
                                   posterior_mean=float(po.mean()), posterior_sd=qsd,
                                   contraction=float(1.0 - qsd**2 / psd**2),
                                   z=float((po.mean() - pr.mean()) / psd))
        if warn and res.barely_moved:
            warnings.warn(
                f"the posterior of {name} barely moved from its prior (prior {res.prior_mean:.3f}"
                f" +- {psd:.3f}, posterior {res.posterior_mean:.3f} +- {qsd:.3f}, contraction "
                f"{res.contraction:.2f}): the reported value reflects the prior more than the "
                "data", PriorDominatedWarning, stacklevel=2)
        return res

    # ------------------------------------------------------------------ categorical models
    # (each delegates to CategoricalKind in inference/_kinds.py; other kinds refuse)
    def implied_agreement(self, weights: Any = None, n_mc: int = 64) -> dict[str, np.ndarray]:
        """Model-implied agreement per draw (docs/annotator_models.md).

        ``P_o = sum_{j != j'} omega_jj' sum_kk' w_kk' J_jj'(k, k')`` with ``J_jj'(k,k') =
        sum_c pi_c E[R_j(k|c) R_j'(k'|c)]`` and design weights ``omega`` proportional to
        the co-annotation counts of the fitted data; Fleiss/Scott-type ``P_e =
        qbar^T W qbar`` and Cohen/Conger-type ``P_e = sum_{j != j'} omega_jj' q_j^T W q_j'``
        (``q_j``: rater j's label distribution). Both kappas are invariant to permutations of
        the latent classes.

        Parameters
        ----------
        weights : (K, K) array, optional
            Agreement weights (identity by default).
        n_mc : int
            Monte Carlo draws of the item effect (item-difficulty / random-effects models).

        Returns
        -------
        dict of str to ndarray of shape (n_draws,)
            ``observed_agreement``, ``expected_agreement``, ``expected_agreement_cohen``,
            ``kappa``, ``kappa_cohen``.
        """
        return self._of_kind("implied_agreement")(weights, n_mc)

    def class_alignment(self, n_mc: int = 64) -> np.ndarray:
        """``(n_draws, K)`` label assigned to each latent class in each draw (Hungarian).

        Aligns on the rating-weighted mean confusion of each draw with
        ``scipy.optimize.linear_sum_assignment``; identity for MACE, whose classes are
        labels by construction.
        """
        return self._of_kind("class_alignment")(n_mc)

    def rater_accuracy_draws(self, n_mc: int = 64) -> np.ndarray:
        """``(n_draws, J)`` P(rater j gives the true label), latent classes aligned."""
        return self._of_kind("rater_accuracy_draws")(n_mc)

    def rater_accuracy(self, level: float = DEFAULT_LEVEL, n_mc: int = 64) -> pd.DataFrame:
        """Per-rater P(correct) ``sum_c pi_c R_j(c | c)``: mean, sd and posterior interval.

        Label-switching safe: latent classes are aligned to labels per draw
        (:meth:`class_alignment`).

        Returns
        -------
        DataFrame with columns rater, n_items (the items the rater rated: with a handful or fewer the accuracy
        and its interval are mostly the prior's, and ``annotator_agreement`` warns), accuracy, sd, lower_95%,
        upper_95% (the level in the names)
        """
        return self._of_kind("rater_accuracy")(level, n_mc)

    def class_probabilities(self, n_mc: int = 64) -> np.ndarray:
        """``(n_items, K)`` posterior P(true label of item i = k), averaged over draws.

        Latent classes are mapped to labels per draw by :meth:`class_alignment`.
        """
        return self._of_kind("class_probabilities")(n_mc)

    def aggregated_labels(self, n_mc: int = 64, *, as_labels: bool | None = None) -> np.ndarray:
        """``(n_items,)`` label of highest posterior probability per item.

        Parameters
        ----------
        n_mc : int
            Monte Carlo draws of the item effect (item-difficulty / random-effects models).
        as_labels : bool, optional
            ``None`` (default): the labels themselves (an object array of
            ``data.vocabulary`` entries) when the model was fitted on Annotations, else (a
            codes array, which has no vocabulary) the codes. ``False``: the integer codes
            (positions in ``data.vocabulary``). ``True``: labels, and an error without a
            vocabulary.

        Examples
        --------
        >>> import numpy as np, softirr_stats as sis
        >>> from softirr_stats import inference, models
        >>> ann = sis.Annotations.from_wide([["no", "no", "no"], ["yes", "yes", "no"]] * 10)
        >>> post = inference.fit(models.dawid_skene, ann, method="svi", progress=False,
        ...                      config=inference.SviConfig(steps=200, num_draws=100))
        >>> post.aggregated_labels()[:2].tolist(), post.aggregated_labels(as_labels=False)[:2].tolist()
        (['no', 'yes'], [0, 1])
        """
        return self._of_kind("aggregated_labels")(n_mc, as_labels=as_labels)

    def replicated(self, statistic: Callable[[Any], Any], n_draws: int | None = None, *, salt: int = 7) -> np.ndarray:
        """``statistic(y)`` of labels ``y`` replicated on the observed design, one per posterior draw.

        Each draw's true classes and ratings are simulated from the categorical model (vectorised over
        draws); ``salt`` keys the random stream (each check has its own).

        Parameters
        ----------
        statistic : callable
            Labels of the observed cells (JAX array) -> statistic (JAX array).
        n_draws : int, optional
            Use the first ``n_draws`` posterior draws (default all).
        salt : int
            Folded into the posterior's key.

        Returns
        -------
        ndarray
            ``(draws, ...)`` float64.

        Examples
        --------
        >>> import numpy as np
        >>> from softirr_stats import inference, models
        >>> post = inference.fit(models.dawid_skene, np.array([[0, 0], [1, 1], [0, 1]] * 5), method="svi",
        ...                      progress=False, config=inference.SviConfig(steps=50, num_draws=20))
        >>> post.replicated(lambda y: y.sum(), n_draws=10).shape
        (10,)
        """
        return self._of_kind("replicated")(statistic, n_draws, salt=salt)

    def predictive_check(self, ann_or_data: Any = None, statistic: str = "fleiss_kappa",
                         n_draws: int | None = None, *, warn: bool = True) -> PredictiveCheck:
        """Posterior predictive check of an agreement statistic .

        For each posterior draw, a replicate data set is simulated on the *observed*
        design (the same item/rater cells): true classes from ``pi``, ratings from the
        rater responses (item effects at their posterior values). The statistic is
        computed on each replicate with a vectorised kernel of this module, and
        ``p_value = P(T_rep >= T_obs)`` over the replicates where it is defined: a replicate
        whose statistic is undefined (Fleiss' kappa of one label) is left out and counted in
        ``n_undefined``; where the observed statistic is undefined the check is not run
        (``p_value`` nan, ``note`` says why).

        Parameters
        ----------
        ann_or_data : Annotations, AnnotationData or codes, optional
            Data for the observed statistic; must have the fitted design. Default: the
            fitted data.
        statistic : {"fleiss_kappa", "percent_agreement"}
        n_draws : int, optional
            Use only the first ``n_draws`` posterior draws.
        warn : bool
            Warn when the check fails (``p_value <= 0.01`` or ``>= 0.99``).

        Returns
        -------
        PredictiveCheck

        Warns
        -----
        PredictiveCheckWarning
            The model does not reproduce the observed statistic.
        """
        return self._of_kind("predictive_check")(ann_or_data, statistic, n_draws, warn=warn,
                                                 stacklevel=2)

    # ------------------------------------------------------------------ soft model
    # (each delegates to SoftKind in inference/_kinds.py; other kinds refuse)
    def score_check(self, *, warn: bool = True, seed: int = 0) -> PredictiveCheck:
        """Soft model: posterior predictive check of the score distributions.

        Scores are counted in the model's equal cells (``priors.monotone_bins``, exact 0
        and 1 in the end cells) separately for within-item and chance pairs. Each draw
        gives cell probabilities ``p F1 + (1 - p) F0`` (``p`` = ``pi_within`` /
        ``pi_chance``) and a replicate of the counts; the discrepancy is Pearson's
        chi-square against the posterior predictive mean counts (plus 0.5), for the
        observed and each replicated set, and ``p_value = P(D_rep >= D_obs)``.

        Returns
        -------
        PredictiveCheck
            ``statistic = "score_chi2"``, ``observed`` = mean observed discrepancy.

        Warns
        -----
        PredictiveCheckWarning
            ``p_value <= 0.01`` (``inference._kinds.SCORE_CHECK_P``): the emission does not
            reproduce the scores, so the soft kappa may be biased (with the default
            monotone emission: the shape does not hold; judge pairs and use them as gold
            pairs). The fitted components share more than half their score mass
            (``inference._kinds.COMPONENT_OVERLAP``): the scores barely separate the two, so
            the kappa rests on the emission's shape. Perfectly separable scores whose
            leaked share is large against the interval (``inference._soft_check.
            separation_leak``). The thresholds were calibrated by simulation to flag the
            fits whose 90% interval missed (docs/annotator_models.md).
        """
        return self._of_kind("score_check")(warn=warn, seed=seed, stacklevel=2)

    def rater_agreement(self, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """Soft model: per rater, mean P(equivalent | score) over the rater's within-item pairs.

        Returns
        -------
        DataFrame with columns rater, n_pairs, agreement, lower_95%, upper_95%, kappa,
        kappa_lower_95%, kappa_upper_95% (the level in the names;
        ``kappa = (agreement - pi_chance) / (1 - pi_chance)``).
        """
        return self._of_kind("rater_agreement")(level)

    def pair_agreement(self, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """Soft model: per rater pair (a < b) with shared items, mean P(equivalent | score).

        Returns
        -------
        DataFrame with columns rater_a, rater_b, n_pairs, agreement, lower_95%, upper_95%
        """
        return self._of_kind("pair_agreement")(level)

    def label_contributions(self, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """Soft model: per label group, its additive contribution to soft kappa.

        Each within-item pair counts half for the group of each of its two labels;
        ``contribution_g = sum_{pairs} h_g (p_pair - pi_chance) / (n_within (1 -
        pi_chance))`` so that contributions sum to ``kappa`` in every draw.

        Returns
        -------
        DataFrame with columns group, weight (share of pair ends), agreement, contribution,
        lower_95%, upper_95%
        """
        return self._of_kind("label_contributions")(level)

    def calibration_map(self, scores: Any, base_rate: Any = "within",
                        level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """Soft model: P(equivalent | score) from the fitted Beta mixture.

        ``pi f1(s) / (pi f1(s) + (1 - pi) f0(s))`` per draw, with ``pi`` the base rate:
        ``"within"`` (posterior ``pi_within``), ``"chance"`` (``pi_chance``) or a number
        in (0, 1).

        Returns
        -------
        DataFrame with columns score, probability, lower_95%, upper_95%
        """
        return self._of_kind("calibration_map")(scores, base_rate, level)
