"""Categorical annotator models (Paun et al. 2018) in NumPyro.

Each model is a plain function ``model(data, priors=None)`` over :class:`AnnotationData`.
The true class ``c_i`` of each item is summed out by hand: the log-likelihood of item i
under class c is the sum over its observed ratings of ``log R_j(y | c, .)`` (a segment sum
over the long-format rows), and ``log sum_c pi_c exp(.)`` is added with
``numpyro.factor``. No enumeration machinery (funsor) is needed, and missing cells are
simply absent rows.

For every model this module also provides two pure functions of one posterior draw
(a dict of sample-site values), named by its record in :data:`~softirr_stats.models.ANNOTATOR_MODELS`
(``models/_table.py``):

``derive(params, data) -> (log_pi, obs_log_response)``
    ``log_pi`` of shape (K,) and ``obs_log_response`` of shape (n_obs, K, K): the log
    probability that observed row n's rater gives each label l to an item of class c.
``response(params, key, n_mc, n_raters) -> (pi, R)``
    ``pi`` (K,) and response distributions ``R`` of shape (T, J, K, K) (T = 1 without
    item effects; otherwise ``n_mc`` Monte Carlo draws of the item effect), from which
    the model-implied agreement is computed.
"""

from typing import Any

import jax
import jax.numpy as jnp
import numpyro
import numpyro.distributions as dist
from jax.scipy.special import logsumexp

from softirr_stats.models._long_format import AnnotationData
from softirr_stats.models._minibatch import ItemTable, batch_log_lik, item_slot_log_lik
from softirr_stats.models._priors import (
    DawidSkenePriors,
    HierarchicalPriors,
    MacePriors,
    MultinomialPriors,
)

__all__ = [
    "dawid_skene",
    "hierarchical_dawid_skene",
    "item_difficulty",
    "logistic_random_effects",
    "mace",
    "multinomial",
]


# ----------------------------------------------------------------------------- helpers
def _resolve_priors(priors: Any, cls: type, model: str) -> Any:
    if priors is None:
        return cls()
    if not isinstance(priors, cls):
        raise TypeError(f"priors for {model} must be a {cls.__name__}; got "
                        f"{type(priors).__name__}")
    return priors


def _check_data(data: Any, model: str) -> AnnotationData | ItemTable:
    if isinstance(data, ItemTable):
        return data
    if not isinstance(data, AnnotationData):
        raise TypeError(f"{model} expects AnnotationData (see softirr_stats.models."
                        f"encode_annotations); got {type(data).__name__}")
    return data


def full_logits(off: jnp.ndarray) -> jnp.ndarray:
    """Insert a zero diagonal: ``(..., K, K-1)`` off-diagonal logits -> ``(..., K, K)``.

    Row c of the result is the logit vector over labels for true class c, with the
    correct label's logit fixed at 0 (the reference category).

    Parameters
    ----------
    off : Array of shape (..., K, K-1)
        Off-diagonal logits of each row.

    Returns
    -------
    Array of shape (..., K, K)

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> full_logits(jnp.array([[1.0], [2.0]])).tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    off = jnp.asarray(off)
    k = off.shape[-2]
    c = jnp.arange(k)[:, None]
    kk = jnp.arange(k)[None, :]
    idx = jnp.clip(kk - (kk > c), 0, k - 2)  # (K, K)
    idx = jnp.broadcast_to(idx, off.shape[:-2] + (k, k))
    return jnp.take_along_axis(off, idx, axis=-1) * (1.0 - jnp.eye(k, dtype=off.dtype))


def item_log_joint(log_pi: jnp.ndarray, obs_log_response: jnp.ndarray,
                   data: AnnotationData) -> jnp.ndarray:
    """``(n_items, K)`` log p(c_i = c, y_i) from per-row log responses ``(n_obs, K, K)``.

    Parameters
    ----------
    log_pi : Array of shape (K,)
        Log class prevalences.
    obs_log_response : Array of shape (n_obs, K, K)
        ``log P(label | true class)`` of each rating's rater (and item).
    data : AnnotationData
        The ratings.

    Returns
    -------
    Array of shape (n_items, K)

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> import numpy as np
    >>> from softirr_stats.models import encode_annotations
    >>> data = encode_annotations(np.array([[0, 0], [1, -1]]), n_classes=2)
    >>> resp = jnp.log(jnp.array([[0.9, 0.1], [0.2, 0.8]]))  # P(label | true class), every rating
    >>> out = item_log_joint(jnp.log(jnp.array([0.5, 0.5])), jnp.broadcast_to(resp, (3, 2, 2)), data)
    >>> jnp.exp(out).round(4).tolist()
    [[0.405, 0.02], [0.05, 0.4]]
    """
    labels = jnp.asarray(data.labels)
    obs_lp = jnp.take_along_axis(obs_log_response, labels[:, None, None], axis=2)[..., 0]
    per_item = jax.ops.segment_sum(obs_lp, jnp.asarray(data.items), num_segments=data.n_items)
    return per_item + log_pi


def _likelihood(log_pi: jnp.ndarray, obs_log_response: jnp.ndarray,
                data: AnnotationData) -> None:
    joint = item_log_joint(log_pi, obs_log_response, data)
    numpyro.factor("obs", logsumexp(joint, axis=-1).sum())


def _rater_likelihood(log_pi: jnp.ndarray, log_resp: jnp.ndarray,
                      data: AnnotationData | ItemTable) -> None:
    """The likelihood from per-rater log responses ``(J, K, K)``.

    On :class:`ItemTable` data the items are a subsampled plate ``"items"`` of
    ``data.batch_size`` items (numpyro scales the batch's log-likelihood by
    ``n_items / batch_size``; substitute the plate's indices to choose the batch).
    """
    if isinstance(data, ItemTable):
        with numpyro.plate("items", data.n_items, subsample_size=data.batch_size) as idx:
            numpyro.factor("obs", batch_log_lik(log_pi, log_resp, data.raters[idx],
                                                data.labels[idx]))
    else:
        _likelihood(log_pi, log_resp[jnp.asarray(data.raters)], data)


def _dirichlet_rows(k: int, priors: Any) -> dist.Dirichlet:
    return dist.Dirichlet(jnp.asarray(priors.row_concentration(k), dtype=jnp.float32))


def _class_prior(k: int, concentration: float) -> dist.Dirichlet:
    return dist.Dirichlet(jnp.full((k,), concentration, dtype=jnp.float32))


def _std_normal(shape: tuple) -> dist.Distribution:
    return dist.Normal(jnp.zeros(shape, dtype=jnp.float32), 1.0)


def _offdiag_locations(k: int, priors: HierarchicalPriors) -> dist.Distribution:
    return dist.Normal(jnp.full((k, k - 1), priors.offdiag_logit(k), dtype=jnp.float32),
                       priors.location_scale)


def _scales(k: int, priors: HierarchicalPriors) -> dist.Distribution:
    return dist.HalfNormal(jnp.full((k, k - 1), priors.scale_scale, dtype=jnp.float32))


# ----------------------------------------------------------------------------- models
def multinomial(data: AnnotationData, priors: MultinomialPriors | None = None) -> None:
    """Pooled multinomial model (Paun et al. 2018, Fig. 1): one confusion for all raters.

    ``pi ~ Dir(a)`` (K,), ``zeta[c] ~ Dir(alpha_c)`` (K, K), ``y_ij ~ Cat(zeta[c_i])``;
    ``alpha_c`` has prior mean accuracy 0.75 and 4 pseudo-ratings for every K.

    Parameters
    ----------
    data : AnnotationData or ItemTable
        Long-format ratings (``n_obs`` rows, K = ``data.n_classes``); an
        :class:`ItemTable` (:func:`item_table`) makes the items a subsampled plate.
    priors : MultinomialPriors, optional

    Examples
    --------
    >>> import numpy as np
    >>> from numpyro.infer.util import log_density
    >>> from softirr_stats.models import encode_annotations
    >>> d = encode_annotations(np.array([[0, 0], [1, 1]]))
    >>> p = {"pi": np.array([0.5, 0.5]), "zeta": np.array([[0.9, 0.1], [0.1, 0.9]])}
    >>> bool(np.isfinite(log_density(multinomial, (d,), {}, p)[0]))
    True
    """
    data = _check_data(data, "multinomial")
    priors = _resolve_priors(priors, MultinomialPriors, "multinomial")
    k = data.n_classes
    params = {"pi": numpyro.sample("pi", _class_prior(k, priors.class_concentration)),
              "zeta": numpyro.sample("zeta", _dirichlet_rows(k, priors))}
    if isinstance(data, ItemTable):
        log_zeta = jnp.log(params["zeta"])
        _rater_likelihood(jnp.log(params["pi"]),
                          jnp.broadcast_to(log_zeta, (data.n_raters,) + log_zeta.shape), data)
    else:
        _likelihood(*_derive_multinomial(params, data), data)


def _derive_multinomial(params: dict, data: AnnotationData):
    log_zeta = jnp.log(params["zeta"])
    return jnp.log(params["pi"]), jnp.broadcast_to(log_zeta, (data.n_obs,) + log_zeta.shape)


def _response_multinomial(params: dict, key: Any, n_mc: int, n_raters: int):
    zeta = params["zeta"]
    return params["pi"], jnp.broadcast_to(zeta, (1, n_raters) + zeta.shape)


def dawid_skene(data: AnnotationData, priors: DawidSkenePriors | None = None) -> None:
    """Dawid-Skene (1979) model (Paun et al. 2018, Fig. 2): one confusion per rater.

    ``pi ~ Dir(a)`` (K,), ``beta[j, c] ~ Dir(alpha_c)`` (J, K, K),
    ``y_ij ~ Cat(beta[j, c_i])``.

    Parameters
    ----------
    data : AnnotationData or ItemTable
        Long-format ratings; J = ``data.n_raters``, K = ``data.n_classes``. An
        :class:`ItemTable` (:func:`item_table`) makes the items a subsampled plate
        (minibatch SVI).
    priors : DawidSkenePriors, optional
        Default rows: prior mean accuracy 0.75, 4 pseudo-ratings, for every K (see
        :class:`DawidSkenePriors`).

    Examples
    --------
    >>> import numpy as np
    >>> from numpyro.infer.util import log_density
    >>> from softirr_stats.models import encode_annotations
    >>> d = encode_annotations(np.array([[0, 0], [1, 1]]))
    >>> beta = np.tile(np.array([[0.9, 0.1], [0.1, 0.9]]), (2, 1, 1))
    >>> lp, _ = log_density(dawid_skene, (d,), {}, {"pi": np.array([0.5, 0.5]), "beta": beta})
    >>> bool(np.isfinite(lp))
    True
    """
    data = _check_data(data, "dawid_skene")
    priors = _resolve_priors(priors, DawidSkenePriors, "dawid_skene")
    k, j = data.n_classes, data.n_raters
    rows = _dirichlet_rows(k, priors)
    params = {"pi": numpyro.sample("pi", _class_prior(k, priors.class_concentration)),
              "beta": numpyro.sample("beta", rows.expand((j, k)))}
    _rater_likelihood(jnp.log(params["pi"]), jnp.log(params["beta"]), data)


def _derive_dawid_skene(params: dict, data: AnnotationData):
    return jnp.log(params["pi"]), jnp.log(params["beta"])[jnp.asarray(data.raters)]


def _response_dawid_skene(params: dict, key: Any, n_mc: int, n_raters: int):
    return params["pi"], params["beta"][None]


def mace(data: AnnotationData, priors: MacePriors | None = None) -> None:
    """MACE (Hovy et al. 2013; Paun et al. 2018, Fig. 3).

    ``c_i`` uniform over K classes; rater j is competent with probability
    ``theta[j] ~ Beta`` (J,) and then gives the true label, otherwise draws from
    ``epsilon[j] ~ Dir`` (J, K):
    ``R_j(k | c) = theta_j 1[k = c] + (1 - theta_j) epsilon_jk``.

    Parameters
    ----------
    data : AnnotationData or ItemTable
        An :class:`ItemTable` (:func:`item_table`) makes the items a subsampled plate.
    priors : MacePriors, optional

    Examples
    --------
    >>> import numpy as np
    >>> from numpyro.infer.util import log_density
    >>> from softirr_stats.models import encode_annotations
    >>> d = encode_annotations(np.array([[0, 0], [1, 1]]))
    >>> p = {"theta": np.array([0.9, 0.8]), "epsilon": np.full((2, 2), 0.5)}
    >>> bool(np.isfinite(log_density(mace, (d,), {}, p)[0]))
    True
    """
    data = _check_data(data, "mace")
    priors = _resolve_priors(priors, MacePriors, "mace")
    k, j = data.n_classes, data.n_raters
    params = {
        "theta": numpyro.sample("theta", dist.Beta(
            jnp.full((j,), priors.competence_a, dtype=jnp.float32), priors.competence_b)),
        "epsilon": numpyro.sample("epsilon", dist.Dirichlet(
            jnp.full((j, k), priors.spam_concentration, dtype=jnp.float32))),
    }
    r = _mace_response(params["theta"], params["epsilon"])
    _rater_likelihood(jnp.full((k,), -jnp.log(float(k)), dtype=r.dtype), jnp.log(r), data)


def _mace_response(theta: jnp.ndarray, epsilon: jnp.ndarray) -> jnp.ndarray:
    theta, epsilon = jnp.asarray(theta), jnp.asarray(epsilon)
    k = epsilon.shape[-1]
    eye = jnp.eye(k, dtype=epsilon.dtype)
    return theta[:, None, None] * eye + (1.0 - theta)[:, None, None] * epsilon[:, None, :]


def _derive_mace(params: dict, data: AnnotationData):
    r = _mace_response(params["theta"], params["epsilon"])
    k = r.shape[-1]
    log_pi = jnp.full((k,), -jnp.log(float(k)), dtype=r.dtype)
    return log_pi, jnp.log(r)[jnp.asarray(data.raters)]


def _response_mace(params: dict, key: Any, n_mc: int, n_raters: int):
    r = _mace_response(params["theta"], params["epsilon"])
    k = r.shape[-1]
    return jnp.full((k,), 1.0 / k, dtype=r.dtype), r[None]


def hierarchical_dawid_skene(data: AnnotationData,
                             priors: HierarchicalPriors | None = None) -> None:
    """Hierarchical (partially pooled) Dawid-Skene (Paun et al. 2018, Fig. 4).

    Logits over labels for rater j and true class c: 0 for the correct label and
    ``zeta[c] + omega[c] * z[j, c]`` for the K-1 wrong ones, with
    ``zeta ~ N(-d_K, 1)`` (K, K-1) (``d_K``: see :class:`HierarchicalPriors`), ``omega ~ HalfNormal(1)`` (K, K-1),
    ``z ~ N(0, 1)`` (J, K, K-1) (non-centred). ``beta`` (J, K, K) is recorded as the
    rater confusion probabilities.

    Parameters
    ----------
    data : AnnotationData or ItemTable
        An :class:`ItemTable` (:func:`item_table`) makes the items a subsampled plate.
    priors : HierarchicalPriors, optional

    Examples
    --------
    >>> import numpy as np
    >>> from numpyro.infer.util import log_density
    >>> from softirr_stats.models import encode_annotations
    >>> d = encode_annotations(np.array([[0, 0], [1, 1]]))
    >>> p = {"pi": np.array([.5, .5]), "zeta": -np.ones((2, 1)), "omega": np.ones((2, 1)),
    ...      "z": np.zeros((2, 2, 1))}
    >>> bool(np.isfinite(log_density(hierarchical_dawid_skene, (d,), {}, p)[0]))
    True
    """
    data = _check_data(data, "hierarchical_dawid_skene")
    priors = _resolve_priors(priors, HierarchicalPriors, "hierarchical_dawid_skene")
    k, j = data.n_classes, data.n_raters
    params = {"pi": numpyro.sample("pi", _class_prior(k, priors.class_concentration)),
              "zeta": numpyro.sample("zeta", _offdiag_locations(k, priors)),
              "omega": numpyro.sample("omega", _scales(k, priors)),
              "z": numpyro.sample("z", _std_normal((j, k, k - 1)))}
    log_beta = _hds_log_beta(params)
    numpyro.deterministic("beta", jnp.exp(log_beta))
    _rater_likelihood(jnp.log(params["pi"]), log_beta, data)


def _hds_log_beta(params: dict) -> jnp.ndarray:
    off = params["zeta"] + params["omega"] * params["z"]
    return jax.nn.log_softmax(full_logits(off), axis=-1)


def _derive_hds(params: dict, data: AnnotationData):
    return jnp.log(params["pi"]), _hds_log_beta(params)[jnp.asarray(data.raters)]


def _response_hds(params: dict, key: Any, n_mc: int, n_raters: int):
    return params["pi"], jnp.exp(_hds_log_beta(params))[None]


def item_difficulty(data: AnnotationData | ItemTable,
                    priors: HierarchicalPriors | None = None) -> None:
    """Item-difficulty model (Paun et al. 2018; pooled raters, item effects).

    Item i of class c has label logits 0 (correct) and ``eta[c] + chi[c] * z[i, c]``
    (wrong labels), ``eta ~ N(-d_K, 1)`` (K, K-1), ``chi ~ HalfNormal(1)`` (K, K-1),
    ``z ~ N(0, 1)`` (I, K, K-1); every rater draws from the item's distribution.

    Parameters
    ----------
    data : AnnotationData or ItemTable
        An :class:`ItemTable` (:func:`item_table`) makes the items a subsampled plate:
        ``z`` is drawn for the batch's items only (shape (B, K, K-1)), its prior scaled
        like the likelihood.
    priors : HierarchicalPriors, optional

    Examples
    --------
    >>> import numpy as np
    >>> from numpyro.infer.util import log_density
    >>> from softirr_stats.models import encode_annotations
    >>> d = encode_annotations(np.array([[0, 0], [1, 1]]))
    >>> p = {"pi": np.array([.5, .5]), "eta": -np.ones((2, 1)), "chi": np.ones((2, 1)),
    ...      "z": np.zeros((2, 2, 1))}
    >>> bool(np.isfinite(log_density(item_difficulty, (d,), {}, p)[0]))
    True
    """
    data = _check_data(data, "item_difficulty")
    priors = _resolve_priors(priors, HierarchicalPriors, "item_difficulty")
    k, n = data.n_classes, data.n_items
    params = {"pi": numpyro.sample("pi", _class_prior(k, priors.class_concentration)),
              "eta": numpyro.sample("eta", _offdiag_locations(k, priors)),
              "chi": numpyro.sample("chi", _scales(k, priors))}
    if isinstance(data, ItemTable):
        with numpyro.plate("items", n, subsample_size=data.batch_size) as idx:
            z = numpyro.sample("z", _std_normal((k, k - 1)).to_event(2))  # (B, K, K-1)
            log_r = jax.nn.log_softmax(full_logits(params["eta"] + params["chi"] * z),
                                       axis=-1)  # (B, K, K)
            numpyro.factor("obs", item_slot_log_lik(jnp.log(params["pi"]), log_r,
                                                    data.labels[idx]))
        return
    params["z"] = numpyro.sample("z", _std_normal((n, k, k - 1)))
    _likelihood(*_derive_item_difficulty(params, data), data)


def _derive_item_difficulty(params: dict, data: AnnotationData):
    off = params["eta"] + params["chi"] * params["z"]  # (I, K, K-1)
    log_r = jax.nn.log_softmax(full_logits(off), axis=-1)
    return jnp.log(params["pi"]), log_r[jnp.asarray(data.items)]


def _response_item_difficulty(params: dict, key: Any, n_mc: int, n_raters: int):
    eta, chi = params["eta"], params["chi"]
    eps = jax.random.normal(key, (n_mc,) + eta.shape, dtype=eta.dtype)
    r = jax.nn.softmax(full_logits(eta + chi * eps), axis=-1)  # (T, K, K)
    return params["pi"], jnp.broadcast_to(r[:, None], (n_mc, n_raters) + r.shape[1:])


def logistic_random_effects(data: AnnotationData | ItemTable,
                            priors: HierarchicalPriors | None = None) -> None:
    """Logistic random-effects model (Paun et al. 2018): rater and item effects.

    Logits for rater j, item i of class c: 0 (correct) and
    ``beta_off[j, c] - theta[i, c]`` (wrong labels), with ``beta_off[j, c] = zeta[c] +
    omega[c] * z[j, c]`` as in :func:`hierarchical_dawid_skene` and item effects
    ``theta[i, c] = chi[c] * u[i, c]`` (``u ~ N(0, 1)``, shape (I, K, K-1)); a larger
    ``theta`` makes the item easier. ``beta`` (J, K, K) records the confusion of an
    average item.

    Parameters
    ----------
    data : AnnotationData or ItemTable
        An :class:`ItemTable` (:func:`item_table`) makes the items a subsampled plate:
        ``u`` is drawn for the batch's items only (shape (B, K, K-1)), its prior scaled
        like the likelihood.
    priors : HierarchicalPriors, optional

    Examples
    --------
    >>> import numpy as np
    >>> from numpyro.infer.util import log_density
    >>> from softirr_stats.models import encode_annotations
    >>> d = encode_annotations(np.array([[0, 0], [1, 1]]))
    >>> p = {"pi": np.array([.5, .5]), "zeta": -np.ones((2, 1)), "omega": np.ones((2, 1)),
    ...      "z": np.zeros((2, 2, 1)), "chi": np.ones((2, 1)), "u": np.zeros((2, 2, 1))}
    >>> bool(np.isfinite(log_density(logistic_random_effects, (d,), {}, p)[0]))
    True
    """
    data = _check_data(data, "logistic_random_effects")
    priors = _resolve_priors(priors, HierarchicalPriors, "logistic_random_effects")
    k, j, n = data.n_classes, data.n_raters, data.n_items
    params = {"pi": numpyro.sample("pi", _class_prior(k, priors.class_concentration)),
              "zeta": numpyro.sample("zeta", _offdiag_locations(k, priors)),
              "omega": numpyro.sample("omega", _scales(k, priors)),
              "z": numpyro.sample("z", _std_normal((j, k, k - 1))),
              "chi": numpyro.sample("chi", _scales(k, priors))}
    numpyro.deterministic("beta", jnp.exp(_hds_log_beta(params)))
    if isinstance(data, ItemTable):
        beta_off = params["zeta"] + params["omega"] * params["z"]  # (J, K, K-1)
        with numpyro.plate("items", n, subsample_size=data.batch_size) as idx:
            u = numpyro.sample("u", _std_normal((k, k - 1)).to_event(2))  # (B, K, K-1)
            off = beta_off[data.raters[idx]] - (params["chi"] * u)[:, None]  # (B, m, K, K-1)
            log_r = jax.nn.log_softmax(full_logits(off), axis=-1)  # (B, m, K, K)
            numpyro.factor("obs", item_slot_log_lik(jnp.log(params["pi"]), log_r,
                                                    data.labels[idx]))
        return
    params["u"] = numpyro.sample("u", _std_normal((n, k, k - 1)))
    _likelihood(*_derive_lre(params, data), data)


def _derive_lre(params: dict, data: AnnotationData):
    beta_off = params["zeta"] + params["omega"] * params["z"]  # (J, K, K-1)
    theta = params["chi"] * params["u"]  # (I, K, K-1)
    off = beta_off[jnp.asarray(data.raters)] - theta[jnp.asarray(data.items)]
    return jnp.log(params["pi"]), jax.nn.log_softmax(full_logits(off), axis=-1)


def _response_lre(params: dict, key: Any, n_mc: int, n_raters: int):
    beta_off = params["zeta"] + params["omega"] * params["z"]  # (J, K, K-1)
    chi = params["chi"]
    theta = chi * jax.random.normal(key, (n_mc,) + chi.shape, dtype=chi.dtype)  # (T, K, K-1)
    r = jax.nn.softmax(full_logits(beta_off[None] - theta[:, None]), axis=-1)
    return params["pi"], r  # (T, J, K, K)
