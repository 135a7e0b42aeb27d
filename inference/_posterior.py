"""The :class:`Posterior` returned by :func:`softirr_stats.inference.fit`."""

import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pandas as pd
from numpyro.diagnostics import effective_sample_size, split_gelman_rubin

from softirr_stats._validation import check_choice, check_level, check_positive_int
from softirr_stats.inference._arviz import to_inference_data
from softirr_stats.inference._config import PredictiveCheckWarning, PriorDominatedWarning
from softirr_stats.inference._diagnostics import DEFAULT_LEVEL
from softirr_stats.inference._postprocess import (
    STATISTICS,
    align_permutations,
    design_weights,
    implied_agreement,
    item_counts,
)
from softirr_stats.models import (
    MODEL_SPECS,
    SoftAgreementPriors,
    cell_probabilities,
    item_log_joint,
    score_cells,
)

__all__ = ["Posterior", "PredictiveCheck", "PriorContraction"]

_IMPLIED = ("observed_agreement", "expected_agreement", "expected_agreement_cohen", "kappa",
            "kappa_cohen")
_BATCH = 64  # draws per lax.map batch in post-processing


@dataclass(frozen=True)
class PredictiveCheck:
    """Posterior predictive check of an agreement statistic.

    Attributes
    ----------
    statistic : str
    observed : float
        The statistic on the observed data.
    replicated : ndarray, shape (n_draws,)
        The statistic on data replicated from each posterior draw on the observed design.
    p_value : float
        ``P(T(y_rep) >= T(y_obs))``; values near 0 or 1 flag misfit.

    Examples
    --------
    >>> import numpy as np
    >>> pc = PredictiveCheck("fleiss_kappa", 0.45, np.array([0.3, 0.4, 0.5, 0.6]), 0.5)
    >>> pc.statistic, pc.p_value
    ('fleiss_kappa', 0.5)
    """

    statistic: str
    observed: float
    replicated: np.ndarray
    p_value: float

    def __repr__(self) -> str:
        rep = np.asarray(self.replicated, dtype=np.float64)
        if rep.size:
            lo, hi = np.quantile(rep, [0.025, 0.975])
            shown = f"replicated: {rep.size} draws, mean {rep.mean():.4g}, 95% [{lo:.4g}, {hi:.4g}]"
        else:
            shown = "replicated: 0 draws"
        return (f"PredictiveCheck(statistic={self.statistic!r}, observed={self.observed:.4g}, "
                f"p_value={self.p_value:.3g}, {shown})")

    @property
    def failed(self) -> bool:
        """True when ``p_value`` is at most 0.01 or at least 0.99."""
        return bool(self.p_value <= 0.01 or self.p_value >= 0.99)

    def interval(self, level: float = DEFAULT_LEVEL) -> tuple[float, float]:
        """Equal-tailed interval of the replicated statistic."""
        level = check_level(level)
        lo, hi = np.quantile(self.replicated, [(1 - level) / 2, (1 + level) / 2])
        return float(lo), float(hi)


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


def _element_names(name: str, shape: tuple) -> list[str]:
    if not shape:
        return [name]
    return [f"{name}[{','.join(map(str, idx))}]" for idx in np.ndindex(*shape)]


def _map_draws(fn: Callable, xs: Any) -> Any:
    # one compiled program (the map with its batching reshapes) instead of a dozen eager ones,
    # each of which a new process traces, lowers and looks up in the compile cache
    return jax.jit(lambda ys: jax.lax.map(fn, ys, batch_size=_BATCH))(xs)



def observed_on_fitted_design(data: Any, ann_or_data: Any = None) -> Any:
    """The observed labels to check a fit against: the fitted data, or ``ann_or_data`` encoded on
    the fitted design (same items, raters and observed cells; anything else is refused).

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats.models import encode_annotations
    >>> data = encode_annotations(np.array([[0, 1], [1, 1]]), n_classes=2)
    >>> observed_on_fitted_design(data) is data
    True
    """
    if ann_or_data is None:
        return data
    from softirr_stats.models import encode_annotations

    obs = encode_annotations(ann_or_data, n_classes=data.n_classes)
    if (obs.n_items, obs.n_raters) != (data.n_items, data.n_raters) or not (
            np.array_equal(obs.items, data.items) and np.array_equal(obs.raters, data.raters)):
        raise ValueError("ann_or_data must have the fitted design (same items, raters and observed cells)")
    return obs

class Posterior:
    """Posterior draws of an annotator model and the quantities derived from them.

    Created by :func:`softirr_stats.inference.fit`; not meant to be built by hand.

    Attributes
    ----------
    model_name : str
    kind : {"categorical", "soft", "custom"}
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

    def __repr__(self) -> str:
        sites = ", ".join(f"{k} {tuple(v.shape[1:])}" if v.ndim > 1 else k
                          for k, v in self.samples.items())
        text = (f"Posterior(model={self.model_name!r}, method={self.method!r}, "
                f"draws={self.num_draws}, chains={self.num_chains}; sites: {sites}")
        kappa = self.samples.get("kappa")
        if kappa is None:
            cached = [v for k, v in self._cache.items() if isinstance(k, tuple)
                      and k[0] == "implied" and k[1] == np.eye(self.data.n_classes).tobytes()]
            kappa = cached[0]["kappa"] if cached else None
        if kappa is not None:
            lo, hi = np.quantile(kappa, [0.025, 0.975])
            text += f"; kappa {np.mean(kappa):.3f}, 95% credible interval [{lo:.3f}, {hi:.3f}]"
        return text + ")"

    @property
    def num_draws(self) -> int:
        """Total number of posterior draws (all chains)."""
        return self.num_chains * self.num_draws_per_chain

    # ------------------------------------------------------------------ generic tools
    def _draw_keys(self) -> jax.Array:
        return jax.random.split(self._key, self.num_draws)

    def _params(self) -> dict:
        return {k: jnp.asarray(v) for k, v in self.samples.items()}

    def _require(self, kind: str, what: str) -> None:
        if self.kind != kind:
            raise ValueError(f"{what} is available for {kind} models; this posterior is of "
                             f"the {self.kind} model {self.model_name!r}")

    def draws(self, name: str) -> np.ndarray:
        """Posterior draws of a sample site or a derived quantity, shape (n_draws, ...).

        Derived quantities of categorical models: ``kappa`` (Fleiss/Scott-type),
        ``alpha`` (equal to it at the population level), ``kappa_cohen``
        (Cohen/Conger-type), ``observed_agreement``, ``expected_agreement``,
        ``expected_agreement_cohen``.
        """
        if name in self.samples:
            return np.asarray(self.samples[name])
        if self.kind == "categorical":
            if name == "alpha":
                name = "kappa"
            if name in _IMPLIED:
                return self.implied_agreement()[name]
        known = sorted(self.samples) + (["alpha", *_IMPLIED] if self.kind == "categorical" else [])
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
        """r_hat and ESS of a (chain, draw, ...) array (NaN r_hat for SVI draws)."""
        arr = np.asarray(arr, dtype=np.float64)
        if self.method == "svi":
            shape = arr.shape[2:]
            return np.full(shape, np.nan), np.full(shape, float(arr.shape[0] * arr.shape[1]))
        with np.errstate(invalid="ignore", divide="ignore"):
            if self.num_draws_per_chain < 4:
                shape = arr.shape[2:]
                return np.full(shape, np.nan), np.full(shape, np.nan)
            rhat = np.asarray(split_gelman_rubin(arr))
            ess = np.asarray(effective_sample_size(arr))
        const = np.all(arr == arr[:1, :1], axis=(0, 1))
        return np.where(const, np.nan, rhat), np.where(const, np.nan, ess)

    def _rhat_offenders(self, threshold: float) -> list[tuple[str, float]]:
        bad = []
        for name, arr in self.samples_by_chain.items():
            rhat, _ = self._diagnostics(arr)
            for el, r in zip(_element_names(name, arr.shape[2:]), np.ravel(rhat), strict=True):
                if np.isfinite(r) and r > threshold:
                    bad.append((el, float(r)))
        return sorted(bad, key=lambda t: -t[1])

    def summary(self, level: float = DEFAULT_LEVEL, params: list[str] | None = None) -> pd.DataFrame:
        """Tidy table, one row per scalar element: parameter, mean, sd, lower, upper, r_hat, ess.

        Parameters
        ----------
        level : float
            Level of the equal-tailed interval (lower, upper).
        params : list of str, optional
            Sites / derived quantities to include (default: every site, plus ``kappa``
            and ``kappa_cohen`` for categorical models). Names look like ``beta[1,2,0]``.
        """
        level = check_level(level)
        if params is None:
            params = list(self.samples)
            if self.kind == "categorical":
                params += ["kappa", "kappa_cohen"]
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
        return pd.DataFrame(rows, columns=["parameter", "mean", "sd", "lower", "upper",
                                           "r_hat", "ess"])

    def to_arviz(self) -> Any:
        """``arviz.InferenceData`` of the draws (arviz 0.x; derived kappa included)."""
        post = dict(self.samples_by_chain)
        if self.kind == "categorical":
            for name in ("kappa", "kappa_cohen"):
                post[name] = self._chain_shaped(self.draws(name))
        stats = None
        if "diverging" in self.extra:
            stats = {"diverging": self.extra["diverging"]}
        return to_inference_data(post, stats)

    # ------------------------------------------------------------------ categorical models
    @property
    def _spec(self) -> Any:
        self._require("categorical", "this quantity")
        return MODEL_SPECS[self.model_name]

    def _responses(self, n_mc: int) -> Callable:
        spec, j = self._spec, self.data.n_raters

        def one(args: tuple) -> tuple:
            params, key = args
            return spec.response(params, key, n_mc, j)

        return one

    def implied_agreement(self, weights: Any = None, n_mc: int = 64) -> dict[str, np.ndarray]:
        """Model-implied agreement per draw (docs/annotator_models.md).

        ``P_o = sum_{j != j'} omega_jj' sum_kk' w_kk' J_jj'(k, k')`` with ``J_jj'(k,k') =
        sum_c pi_c E[R_j(k|c) R_j'(k'|c)]`` and design weights ``omega`` proportional to
        the co-annotation counts of the fitted data; Fleiss/Scott-type ``P_e =
        qbar' W qbar`` and Cohen/Conger-type ``P_e = sum omega_jj' q_j' W q_j'``. Both
        kappas are invariant to permutations of the latent classes.

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
        spec = self._spec
        k = self.data.n_classes
        n_mc = check_positive_int(n_mc, "n_mc") if spec.item_effects else 1
        if weights is None:
            w = np.eye(k)
        else:
            w = np.asarray(weights, dtype=np.float64)
            if w.shape != (k, k):
                raise ValueError(f"weights must have shape (K, K) = ({k}, {k}); got {w.shape}")
        cache_key = ("implied", w.tobytes(), n_mc)
        if cache_key not in self._cache:
            omega = jnp.asarray(design_weights(self.data.coannotation()), dtype=jnp.float32)
            wj = jnp.asarray(w, dtype=jnp.float32)
            resp = self._responses(n_mc)

            def one(args: tuple) -> jnp.ndarray:
                pi, r = resp(args)
                return implied_agreement(pi, r, omega, wj)

            out = np.asarray(_map_draws(one, (self._params(), self._draw_keys())), np.float64)
            self._cache[cache_key] = dict(zip(_IMPLIED, out.T, strict=True))
        return self._cache[cache_key]

    @property
    def kappa(self) -> np.ndarray:
        """Model-implied Fleiss/Scott-type kappa per draw (soft model: soft kappa)."""
        return self.draws("kappa")

    @property
    def alpha(self) -> np.ndarray:
        """Model-implied Krippendorff-type alpha per draw (= Fleiss-type kappa, population level)."""
        return self.draws("kappa") if self.kind == "soft" else self.draws("alpha")

    @property
    def kappa_cohen(self) -> np.ndarray:
        """Model-implied Cohen/Conger-type kappa per draw."""
        return self.draws("kappa_cohen")

    def _mean_responses(self, n_mc: int) -> tuple[np.ndarray, np.ndarray]:
        """Per draw: pi (S, K) and the item-effect-averaged responses (S, J, K, K)."""
        key = ("mean_resp", n_mc)
        if key not in self._cache:
            resp = self._responses(n_mc)

            def one(args: tuple) -> tuple:
                pi, r = resp(args)
                return pi, r.mean(axis=0)

            pi, r = _map_draws(one, (self._params(), self._draw_keys()))
            self._cache[key] = (np.asarray(pi, np.float64), np.asarray(r, np.float64))
        return self._cache[key]

    def class_alignment(self, n_mc: int = 64) -> np.ndarray:
        """``(n_draws, K)`` label assigned to each latent class in each draw (Hungarian).

        Aligns on the rating-weighted mean confusion of each draw with
        ``scipy.optimize.linear_sum_assignment``; identity for MACE, whose classes are
        labels by construction.
        """
        key = ("align", n_mc)
        if key not in self._cache:
            k = self.data.n_classes
            if self.model_name == "mace":
                sigma = np.broadcast_to(np.arange(k), (self.num_draws, k)).copy()
            else:
                _, r = self._mean_responses(n_mc)
                n_j = np.bincount(self.data.raters, minlength=self.data.n_raters).astype(float)
                m = np.einsum("j,sjck->sck", n_j / n_j.sum(), r)
                sigma = align_permutations(m)
            self._cache[key] = sigma
        return self._cache[key]

    def rater_accuracy_draws(self, n_mc: int = 64) -> np.ndarray:
        """``(n_draws, J)`` P(rater j gives the true label), latent classes aligned."""
        pi, r = self._mean_responses(n_mc)
        sigma = self.class_alignment(n_mc)
        # r[s, j, c, sigma[s, c]]
        diag = np.take_along_axis(r, sigma[:, None, :, None], axis=3)[..., 0]  # (S, J, K)
        return np.einsum("sc,sjc->sj", pi, diag)

    def rater_accuracy(self, level: float = DEFAULT_LEVEL, n_mc: int = 64) -> pd.DataFrame:
        """Per-rater P(correct) ``sum_c pi_c R_j(c | c)``: mean, sd and posterior interval.

        Label-switching safe: latent classes are aligned to labels per draw
        (:meth:`class_alignment`).

        Returns
        -------
        DataFrame with columns rater, accuracy, sd, lower, upper
        """
        level = check_level(level)
        acc = self.rater_accuracy_draws(n_mc)
        lo, hi = np.quantile(acc, [(1 - level) / 2, (1 + level) / 2], axis=0)
        names = self.data.rater_names or tuple(range(self.data.n_raters))
        return pd.DataFrame({"rater": list(names), "accuracy": acc.mean(axis=0),
                             "sd": acc.std(axis=0, ddof=1), "lower": lo, "upper": hi})

    def class_probabilities(self, n_mc: int = 64) -> np.ndarray:
        """``(n_items, K)`` posterior P(true label of item i = k), averaged over draws.

        Latent classes are mapped to labels per draw by :meth:`class_alignment`.
        """
        key = ("class_probs", n_mc)
        if key not in self._cache:
            spec, data = self._spec, self.data
            onehot = jax.nn.one_hot(jnp.asarray(self.class_alignment(n_mc)), data.n_classes,
                                    dtype=jnp.float32)  # (S, K, K): latent c -> label

            def body(acc: jnp.ndarray, args: tuple) -> tuple:
                params, perm = args
                joint = item_log_joint(*spec.derive(params, data), data)
                return acc + jax.nn.softmax(joint, axis=-1) @ perm, None

            init = jnp.zeros((data.n_items, data.n_classes), dtype=jnp.float32)
            total, _ = jax.lax.scan(body, init, (self._params(), onehot))
            self._cache[key] = np.asarray(total, np.float64) / self.num_draws
        return self._cache[key]

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
        codes = self.class_probabilities(n_mc).argmax(axis=1)
        if as_labels is None:
            as_labels = self.data.vocabulary is not None
        if not as_labels:
            return codes
        if self.data.vocabulary is None:
            raise ValueError("as_labels=True needs data with a vocabulary (fit on Annotations)")
        vocab = np.empty(len(self.data.vocabulary), dtype=object)
        vocab[:] = list(self.data.vocabulary)
        return vocab[codes]

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
        self._require("categorical", "replicated")
        data, spec = self.data, self._spec
        items, n_items = jnp.asarray(data.items), data.n_items
        s = self.num_draws if n_draws is None else min(check_positive_int(n_draws, "n_draws"), self.num_draws)
        params = {name: v[:s] for name, v in self._params().items()}
        keys = jax.random.split(jax.random.fold_in(self._key, salt), s)

        def one(args: tuple) -> jnp.ndarray:
            p, key = args
            log_pi, obs_logr = spec.derive(p, data)
            k1, k2 = jax.random.split(key)
            c = jax.random.categorical(k1, log_pi, shape=(n_items,))
            rows = jnp.take_along_axis(obs_logr, c[items][:, None, None], axis=1)[:, 0, :]
            return statistic(jax.random.categorical(k2, rows, axis=-1))

        return np.asarray(_map_draws(one, (params, keys)), np.float64)

    def predictive_check(self, ann_or_data: Any = None, statistic: str = "fleiss_kappa",
                         n_draws: int | None = None, *, warn: bool = True) -> PredictiveCheck:
        """Posterior predictive check of an agreement statistic .

        For each posterior draw, a replicate data set is simulated on the *observed*
        design (the same item/rater cells): true classes from ``pi``, ratings from the
        rater responses (item effects at their posterior values). The statistic is
        computed on each replicate with a vectorised kernel of this module.

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
        self._require("categorical", "predictive_check")
        statistic = check_choice("statistic", statistic, STATISTICS)
        stat = STATISTICS[statistic]
        data = self.data
        obs = observed_on_fitted_design(data, ann_or_data)
        items = jnp.asarray(data.items)
        n_items, k = data.n_items, data.n_classes
        t_obs = float(stat(item_counts(jnp.asarray(obs.items), jnp.asarray(obs.labels),
                                       n_items, k)))
        rep = self.replicated(lambda y: stat(item_counts(items, y, n_items, k)), n_draws, salt=7)
        check = PredictiveCheck(statistic=statistic, observed=t_obs, replicated=rep,
                                p_value=float(np.mean(rep >= t_obs)))
        if warn and check.failed:
            lo, hi = check.interval(DEFAULT_LEVEL)
            warnings.warn(
                f"posterior predictive check fails for {self.model_name}: observed {statistic} "
                f"{t_obs:.3f}, replicated 95% [{lo:.3f}, {hi:.3f}] (p = {check.p_value:.3f}); "
                "the model does not reproduce the data, so its agreement estimates are not "
                "to be trusted (try another model or prior)", PredictiveCheckWarning,
                stacklevel=2)
        return check

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

    # ------------------------------------------------------------------ soft model
    def _soft_params(self) -> dict:
        return {k: v for k, v in self._params().items()
                if k in ("intercept", "rater_scale", "rater_z", "item_scale", "item_z")}

    def _soft_aggregates(self) -> dict[str, np.ndarray]:
        """Per draw: mean P(equivalent | score) per rater (S, J), rater pair (S, J, J), group
        (S, G), each pair's share scaled by ``pi_within / mean`` so that the Bernoulli spread
        term of ``pi_within`` is shared out and the group contributions sum to kappa."""
        if "soft_aggr" not in self._cache:
            self._require("soft", "this quantity")
            data = self.data
            j = data.n_raters
            wr = jnp.asarray(data.within_raters)
            pair_id = jnp.minimum(wr[:, 0], wr[:, 1]) * j + jnp.maximum(wr[:, 0], wr[:, 1])
            g = data.n_groups

            from softirr_stats.models._soft import within_responsibilities

            emission, priors = self._emission, self._soft_priors

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

            params = {k: v for k, v in self._params().items() if k != "kappa"}
            params["pi_within"] = jnp.asarray(self.samples["pi_within"])
            r, pp, gg = _map_draws(one, params)
            n_r = np.bincount(data.within_raters.ravel(), minlength=j).astype(np.float64)
            n_pair = np.bincount(np.asarray(pair_id), minlength=j * j).astype(np.float64)
            n_g = (0.5 * (np.bincount(data.within_groups[:, 0], minlength=g)
                          + np.bincount(data.within_groups[:, 1], minlength=g))
                   if g else np.zeros(0))
            self._cache["soft_aggr"] = {
                "rater_sum": np.asarray(r, np.float64), "n_rater": n_r,
                "pair_sum": np.asarray(pp, np.float64).reshape(-1, j, j), "n_pair":
                n_pair.reshape(j, j), "group_sum": np.asarray(gg, np.float64)[:, :g], "n_group": n_g}
        return self._cache["soft_aggr"]

    @property
    def _emission(self) -> str:
        return self.model_kwargs.get("emission", "beta")

    @property
    def _soft_priors(self) -> SoftAgreementPriors:
        return self.priors if self.priors is not None else SoftAgreementPriors()

    def _cell_probabilities(self, n_bins: int) -> np.ndarray:
        """``(n_draws, 2, n_bins)`` cell probabilities of [non-equivalent, equivalent]."""
        key = ("cells", n_bins)
        if key not in self._cache:
            names = ("mean_logit0", "mean_gap_logit", "concentration", "equiv_weights",
                     "nonequiv_weights", "equiv_atoms", "nonequiv_atoms", "equiv_hist",
                     "nonequiv_hist")
            params = {k: v for k, v in self._params().items() if k in names}
            emission = self._emission

            def one(p: dict) -> jnp.ndarray:
                return cell_probabilities(p, emission, n_bins)

            self._cache[key] = np.asarray(_map_draws(one, params), np.float64)
        return self._cache[key]

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
            ``p_value <= 0.01``: the emission model does not reproduce the scores, so the
            soft kappa may be biased (try ``emission="monotone"`` or gold pairs).
        """
        self._require("soft", "score_check")
        nb = self._soft_priors.monotone_bins
        probs = np.clip(self._cell_probabilities(nb), 0.0, None)  # (S, 2, B)
        data = self.data
        rng = np.random.default_rng(seed)
        d_obs = np.zeros(self.num_draws)
        d_rep = np.zeros(self.num_draws)
        for scores, p in ((data.within_scores, self.draws("pi_within")),
                          (data.chance_scores, self.draws("pi_chance"))):
            cells = score_cells(scores, nb)
            cells = np.where(cells == nb, 0, np.where(cells == nb + 1, nb - 1, cells))
            obs = np.bincount(cells, minlength=nb).astype(np.float64)
            mix = p[:, None] * probs[:, 1] + (1 - p[:, None]) * probs[:, 0]
            mix = mix / mix.sum(axis=1, keepdims=True)
            # replicates from the posterior predictive; both compared with its mean counts
            rep = rng.multinomial(scores.size, mix)
            expect = scores.size * mix.mean(axis=0) + 0.5
            d_obs += ((obs - expect) ** 2 / expect).sum()
            d_rep += ((rep - expect) ** 2 / expect).sum(axis=1)
        check = PredictiveCheck(statistic="score_chi2", observed=float(d_obs.mean()),
                                replicated=d_rep, p_value=float(np.mean(d_rep >= d_obs)))
        if warn and check.p_value <= 0.01:
            warnings.warn(
                f"posterior predictive check of the score distribution fails (chi-square "
                f"{check.observed:.1f} observed vs {np.median(d_rep):.1f} replicated, p = "
                f"{check.p_value:.3f}): the {self._emission!r} emission does not fit these "
                "scores and the soft kappa may be biased; try emission='monotone' or gold pairs",
                PredictiveCheckWarning, stacklevel=2)
        if warn:  # separable scores: the interval is narrower than the model's bias there
            from softirr_stats.inference._soft_check import separation_leak

            separation_leak(self)
        return check

    def _chance(self) -> np.ndarray:
        return np.asarray(self.samples["pi_chance"], np.float64)

    def rater_agreement(self, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """Soft model: per rater, mean P(equivalent | score) over the rater's within-item pairs.

        Returns
        -------
        DataFrame with columns rater, n_pairs, agreement, lower, upper, kappa,
        kappa_lower, kappa_upper (``kappa = (agreement - pi_chance) / (1 - pi_chance)``).
        """
        self._require("soft", "rater_agreement")
        level = check_level(level)
        a = self._soft_aggregates()
        with np.errstate(invalid="ignore", divide="ignore"):
            agr = a["rater_sum"] / a["n_rater"]
        pc = self._chance()[:, None]
        kap = (agr - pc) / (1 - pc)
        q = [(1 - level) / 2, (1 + level) / 2]
        names = self.data.rater_names or tuple(range(self.data.n_raters))
        lo, hi = np.quantile(agr, q, axis=0)
        klo, khi = np.quantile(kap, q, axis=0)
        return pd.DataFrame({"rater": list(names), "n_pairs": a["n_rater"].astype(int),
                             "agreement": agr.mean(0), "lower": lo, "upper": hi,
                             "kappa": kap.mean(0), "kappa_lower": klo, "kappa_upper": khi})

    def pair_agreement(self, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """Soft model: per rater pair (a < b) with shared items, mean P(equivalent | score).

        Returns
        -------
        DataFrame with columns rater_a, rater_b, n_pairs, agreement, lower, upper
        """
        self._require("soft", "pair_agreement")
        level = check_level(level)
        a = self._soft_aggregates()
        ia, ib = np.nonzero(np.triu(a["n_pair"] > 0, 1) | np.triu(a["n_pair"].T > 0, 1))
        n = a["n_pair"][ia, ib]
        agr = a["pair_sum"][:, ia, ib] / n
        lo, hi = np.quantile(agr, [(1 - level) / 2, (1 + level) / 2], axis=0)
        names = self.data.rater_names or tuple(range(self.data.n_raters))
        return pd.DataFrame({"rater_a": [names[i] for i in ia], "rater_b": [names[i] for i in ib],
                             "n_pairs": n.astype(int), "agreement": agr.mean(0), "lower": lo,
                             "upper": hi})

    def label_contributions(self, level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """Soft model: per label group, its additive contribution to soft kappa.

        Each within-item pair counts half for the group of each of its two labels;
        ``contribution_g = sum_{pairs} h_g (p_pair - pi_chance) / (n_within (1 -
        pi_chance))`` so that contributions sum to ``kappa`` in every draw.

        Returns
        -------
        DataFrame with columns group, weight (share of pair ends), agreement, contribution,
        lower, upper
        """
        self._require("soft", "label_contributions")
        level = check_level(level)
        a = self._soft_aggregates()
        if not self.data.n_groups:
            raise ValueError("the PairScores carry no within_groups; build them with "
                             "softirr_stats.models.pair_scores(..., groups=...)")
        pc = self._chance()[:, None]
        n_w = self.data.n_within
        contrib = (a["group_sum"] - a["n_group"] * pc) / (n_w * (1 - pc))
        with np.errstate(invalid="ignore", divide="ignore"):
            agr = (a["group_sum"] / a["n_group"]).mean(0)
        lo, hi = np.quantile(contrib, [(1 - level) / 2, (1 + level) / 2], axis=0)
        names = self.data.group_names or tuple(range(self.data.n_groups))
        return pd.DataFrame({"group": list(names)[: self.data.n_groups],
                             "weight": a["n_group"] / n_w, "agreement": agr,
                             "contribution": contrib.mean(0), "lower": lo, "upper": hi})

    def calibration_map(self, scores: Any, base_rate: Any = "within",
                        level: float = DEFAULT_LEVEL) -> pd.DataFrame:
        """Soft model: P(equivalent | score) from the fitted Beta mixture.

        ``pi f1(s) / (pi f1(s) + (1 - pi) f0(s))`` per draw, with ``pi`` the base rate:
        ``"within"`` (posterior ``pi_within``), ``"chance"`` (``pi_chance``) or a number
        in (0, 1).

        Returns
        -------
        DataFrame with columns score, probability, lower, upper
        """
        self._require("soft", "calibration_map")
        level = check_level(level)
        s = np.asarray(scores, dtype=np.float64).ravel()
        if not np.all((s >= 0) & (s <= 1)):
            raise ValueError("scores must lie in [0, 1]")
        if isinstance(base_rate, str):
            check_choice("base_rate", base_rate, ["within", "chance"])
            pi = np.asarray(self.samples["pi_" + base_rate], np.float64)
        else:
            pi = np.full(self.num_draws, check_level(base_rate, "base_rate"))
        prior = self._soft_priors
        if self._emission == "beta":
            from scipy.special import betaln

            from softirr_stats.models import beta_mixture_params

            a, b = beta_mixture_params({k: jnp.asarray(self.samples[k]) for k in
                                        ("mean_logit0", "mean_gap_logit", "concentration")})
            a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
            sc = np.clip(s, prior.score_eps, 1 - prior.score_eps)[None, :]
            l0 = ((a[:, :1] - 1) * np.log(sc) + (b[:, :1] - 1) * np.log1p(-sc)
                  - betaln(a[:, :1], b[:, :1]))
            l1 = ((a[:, 1:] - 1) * np.log(sc) + (b[:, 1:] - 1) * np.log1p(-sc)
                  - betaln(a[:, 1:], b[:, 1:]))
        else:
            from softirr_stats.models._soft import cell_log_density

            nb = prior.monotone_bins
            emission = self._emission
            names = ("equiv_weights", "nonequiv_weights", "equiv_atoms", "nonequiv_atoms",
                     "equiv_hist", "nonequiv_hist")
            table = np.asarray(_map_draws(lambda p: cell_log_density(p, emission, nb), {
                k: jnp.asarray(self.samples[k]) for k in names if k in self.samples}),
                np.float64)
            cells = score_cells(s, nb)
            l0, l1 = table[:, 0, cells], table[:, 1, cells]
        logit = np.log(pi)[:, None] - np.log1p(-pi)[:, None] + l1 - l0
        prob = 1.0 / (1.0 + np.exp(-logit))
        lo, hi = np.quantile(prob, [(1 - level) / 2, (1 + level) / 2], axis=0)
        return pd.DataFrame({"score": s, "probability": prob.mean(0), "lower": lo, "upper": hi})


