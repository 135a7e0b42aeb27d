"""Expectation-maximisation for Dawid-Skene and MACE in JAX, vectorised over long format.

For large studies (10^5 items, 10^6 ratings) a full posterior is rarely needed to
aggregate labels or rate annotators: the maximum-likelihood (or MAP, with ``smoothing``)
estimate by EM takes seconds. Each iteration is a handful of segment sums over the
observed rows (``jax.ops.segment_sum``), so missing cells cost nothing and the whole loop
runs inside one compiled ``lax.while_loop``.

* Dawid & Skene (1979): class prevalences ``pi`` (K,) and one confusion matrix per rater
  (J, K, K); started from the majority vote (the algorithm of crowd-kit's ``DawidSkene``).
* MACE (Hovy et al. 2013), its EM variant: competence ``theta`` (J,) and spam
  distributions ``epsilon`` (J, K), uniform class prior; started from the majority vote.
"""

import warnings
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from softirr_stats.base._validation import user_stacklevel
from softirr_stats.models._long_format import encode_annotations
from softirr_stats.models._warnings import ConvergenceWarning

__all__ = ["EMResult", "dawid_skene_em", "mace_em"]


@dataclass(frozen=True, eq=False)
class EMResult:
    """Point estimates of an annotator model fitted by EM.

    Attributes
    ----------
    model : {"dawid_skene", "mace"}
    prevalence : ndarray, shape (K,)
    confusion : ndarray, shape (J, K, K)
        ``confusion[j, c, k]`` = P(rater j says k | true class c).
    posterior : ndarray, shape (n_items, K)
        P(true class of item i = k | data) at the estimate.
    accuracy : ndarray, shape (J,)
        P(rater j gives the true label) ``= sum_c pi_c confusion[j, c, c]``.
    log_likelihood : float
        Marginal log-likelihood at the estimate.
    n_iter : int
    converged : bool
        The largest change of a posterior class probability fell below ``tol`` (False: EM stopped
        at ``n_iter`` iterations, and warned with a ``ConvergenceWarning``).
    params : dict
        Model-specific estimates (MACE: ``theta``, ``epsilon``).

    Examples
    --------
    >>> from softirr_stats.models import dawid_skene_em, simulate_dawid_skene
    >>> r = dawid_skene_em(simulate_dawid_skene(30, 3, 2, accuracy=0.9, seed=0)["codes"])
    >>> type(r).__name__, r.model, r.confusion.shape, r.converged
    ('EMResult', 'dawid_skene', (3, 2, 2), True)
    """

    model: str
    prevalence: np.ndarray
    confusion: np.ndarray
    posterior: np.ndarray
    accuracy: np.ndarray
    log_likelihood: float
    n_iter: int
    converged: bool
    params: dict

    def __repr__(self) -> str:
        acc = ", ".join(f"{a:.3f}" for a in self.accuracy[:6])
        more = ", ..." if self.accuracy.size > 6 else ""
        return (f"EMResult(model={self.model!r}, items={self.posterior.shape[0]}, "
                f"raters={self.accuracy.size}, classes={self.prevalence.size}, "
                f"accuracy=[{acc}{more}], log_likelihood={self.log_likelihood:.6g}, "
                f"n_iter={self.n_iter}, converged={self.converged})")

    def labels(self) -> np.ndarray:
        """``(n_items,)`` most probable class of each item."""
        return self.posterior.argmax(axis=1)


def _check(n_iter: Any, tol: Any, smoothing: Any) -> None:
    if isinstance(n_iter, bool) or not isinstance(n_iter, int | np.integer) or n_iter < 1:
        raise ValueError(f"n_iter must be a positive int; got {n_iter!r}")
    if not (isinstance(tol, int | float) and tol >= 0):
        raise ValueError(f"tol must be a non-negative number; got {tol!r}")
    if not (isinstance(smoothing, int | float) and smoothing >= 0):
        raise ValueError(f"smoothing must be a non-negative number; got {smoothing!r}")


def _majority(items: jnp.ndarray, onehot: jnp.ndarray, n_items: int) -> jnp.ndarray:
    counts = jax.ops.segment_sum(onehot, items, num_segments=n_items)
    return counts / jnp.maximum(counts.sum(axis=1, keepdims=True), 1.0)


def _normalise_posterior(log_joint: jnp.ndarray) -> tuple[jnp.ndarray, jnp.ndarray]:
    norm = jax.scipy.special.logsumexp(log_joint, axis=1, keepdims=True)
    return jnp.exp(log_joint - norm), norm.sum()


def _ds_m(t, items, raters, labels, n_raters, k, smoothing):
    pi = t.mean(axis=0)
    # counts[j * K + k, c] = sum over rows of rater j with label k of T[item, c]
    counts = jax.ops.segment_sum(t[items], raters * k + labels, num_segments=n_raters * k)
    conf = jnp.transpose(counts.reshape(n_raters, k, k), (0, 2, 1)) + smoothing
    conf = conf / jnp.maximum(conf.sum(axis=2, keepdims=True), 1e-30)
    return pi, conf


def _ds_e(pi, conf, items, raters, labels, n_items):
    rows = jnp.log(jnp.maximum(conf, 1e-30))[raters, :, labels]  # (n_obs, K)
    log_joint = jnp.log(jnp.maximum(pi, 1e-30)) + jax.ops.segment_sum(
        rows, items, num_segments=n_items)
    return _normalise_posterior(log_joint)


def _mace_response(theta: jnp.ndarray, eps: jnp.ndarray) -> jnp.ndarray:
    k = eps.shape[1]
    eye = jnp.eye(k, dtype=eps.dtype)
    return theta[:, None, None] * eye + (1 - theta)[:, None, None] * eps[:, None, :]


def _mace_e(theta, eps, items, raters, labels, n_items):
    k = eps.shape[1]
    resp = _mace_response(theta, eps)
    rows = jnp.log(jnp.maximum(resp, 1e-30))[raters, :, labels]
    log_joint = -jnp.log(float(k)) + jax.ops.segment_sum(rows, items, num_segments=n_items)
    return _normalise_posterior(log_joint)


def _mace_m(t, theta, eps, items, raters, labels, n_raters, k, smoothing):
    """Expected competence / spam counts given T and the current theta, epsilon."""
    th, ep = theta[raters], eps[raters, labels]
    comp = th / (th + (1 - th) * ep)  # P(competent | true class = label)
    t_y = jnp.take_along_axis(t[items], labels[:, None], axis=1)[:, 0]
    competent = t_y * comp
    n_j = jax.ops.segment_sum(jnp.ones_like(t_y), raters, num_segments=n_raters)
    theta_new = (jax.ops.segment_sum(competent, raters, num_segments=n_raters) + smoothing) / (
        n_j + 2 * smoothing)
    spam = jax.ops.segment_sum(1.0 - competent, raters * k + labels,
                               num_segments=n_raters * k).reshape(n_raters, k) + smoothing
    return theta_new, spam / spam.sum(axis=1, keepdims=True)


def _while(step, state0, t0, n_iter, tol):
    def cond(c):
        i, _, _, delta, _ = c
        return (i < n_iter) & (delta > tol)

    def body(c):
        i, state, t, _, _ = c
        new_state, t_new, ll = step(state, t)
        return i + 1, new_state, t_new, jnp.max(jnp.abs(t_new - t)), ll

    init = (jnp.asarray(0), state0, t0, jnp.asarray(jnp.inf, t0.dtype),
            jnp.asarray(0.0, t0.dtype))
    return jax.lax.while_loop(cond, body, init)


def _warn_unconverged(name: str, n_iter: int, delta: float, tol: float) -> None:
    """Warn (:class:`ConvergenceWarning`) that EM stopped at its iteration limit, saying how to go on."""
    warnings.warn(f"{name} stopped after n_iter={n_iter} iterations without converging (the largest change of "
                  f"a posterior class probability in the last one was {delta:.2g}, above tol={tol:g}): the "
                  f"estimates are not the maximum yet; raise n_iter (e.g. {name}(..., n_iter={10 * n_iter}))",
                  ConvergenceWarning, stacklevel=user_stacklevel())


def _arrays(ann: Any):
    data = encode_annotations(ann)
    items, raters, labels = (jnp.asarray(a) for a in (data.items, data.raters, data.labels))
    onehot = jax.nn.one_hot(labels, data.n_classes, dtype=jnp.float32)
    return data, items, raters, labels, onehot


def dawid_skene_em(ann: Any, *, n_iter: int = 100, tol: float = 1e-5,
                   smoothing: float = 0.0) -> EMResult:
    """Dawid-Skene by EM from a majority-vote start (JAX, one compiled loop).

    Parameters
    ----------
    ann : Annotations, AnnotationData or codes array (items x raters, -1 = missing)
    n_iter : int
        Maximum number of EM iterations.
    tol : float
        Stop when no posterior class probability changes by more than ``tol``.
    smoothing : float
        Pseudo-count added to every confusion cell in the M step (0 = maximum
        likelihood, as crowd-kit; > 0 = a MAP estimate under a flat Dirichlet).

    Returns
    -------
    EMResult

    Warns
    -----
    ConvergenceWarning
        EM stopped at ``n_iter`` iterations before the change fell below ``tol``
        (``EMResult.converged`` is False): raise ``n_iter``.

    Examples
    --------
    >>> from softirr_stats.models import simulate_dawid_skene
    >>> sim = simulate_dawid_skene(500, 4, 3, accuracy=[0.9, 0.8, 0.7, 0.6], seed=0)
    >>> res = dawid_skene_em(sim["codes"])
    >>> bool((res.labels() == sim["truth"]).mean() > 0.8), res.accuracy.shape
    (True, (4,))
    """
    _check(n_iter, tol, smoothing)
    data, items, raters, labels, onehot = _arrays(ann)
    n_items, n_raters, k = data.n_items, data.n_raters, data.n_classes
    sm = float(smoothing)

    @jax.jit
    def run(items, raters, labels, onehot):
        t0 = _majority(items, onehot, n_items)

        def step(state, t):
            pi, conf = _ds_m(t, items, raters, labels, n_raters, k, sm)
            t_new, ll = _ds_e(pi, conf, items, raters, labels, n_items)
            return (pi, conf), t_new, ll

        pi0, conf0 = _ds_m(t0, items, raters, labels, n_raters, k, sm)
        i, _, t, delta, _ = _while(step, (pi0, conf0), t0, n_iter, tol)
        pi, conf = _ds_m(t, items, raters, labels, n_raters, k, sm)  # M step at the end
        _, ll = _ds_e(pi, conf, items, raters, labels, n_items)
        return i, t, delta, pi, conf, ll

    i, t, delta, pi, conf, ll = run(items, raters, labels, onehot)
    converged = bool(float(delta) <= tol)
    if not converged:
        _warn_unconverged("dawid_skene_em", int(i), float(delta), tol)
    pi, conf = np.asarray(pi, np.float64), np.asarray(conf, np.float64)
    acc = np.einsum("c,jcc->j", pi, conf)
    return EMResult(model="dawid_skene", prevalence=pi, confusion=conf,
                    posterior=np.asarray(t, np.float64), accuracy=acc,
                    log_likelihood=float(ll), n_iter=int(i),
                    converged=converged, params={})


def mace_em(ann: Any, *, n_iter: int = 100, tol: float = 1e-5,
            smoothing: float = 0.0) -> EMResult:
    """MACE by EM (Hovy et al. 2013) from a majority-vote start (JAX, one compiled loop).

    ``P(label k | class c) = theta_j 1[k = c] + (1 - theta_j) epsilon_jk`` with a uniform
    class prior.

    Parameters
    ----------
    ann : Annotations, AnnotationData or codes array (items x raters, -1 = missing)
    n_iter, tol : see :func:`dawid_skene_em`
    smoothing : float
        Pseudo-count added to the competent/spamming counts and to every spam cell.

    Returns
    -------
    EMResult
        ``params`` holds ``theta`` (J,) and ``epsilon`` (J, K); ``confusion`` is the
        implied response matrix and ``prevalence`` is uniform.

    Warns
    -----
    ConvergenceWarning
        EM stopped at ``n_iter`` iterations before the change fell below ``tol``: raise ``n_iter``.

    Examples
    --------
    >>> from softirr_stats.models import simulate_mace
    >>> sim = simulate_mace(2000, 5, 3, competence=[0.3, 0.5, 0.7, 0.8, 0.9], seed=0)
    >>> res = mace_em(sim["codes"])
    >>> bool(abs(res.accuracy - sim["accuracy"]).max() < 0.05)
    True
    """
    _check(n_iter, tol, smoothing)
    data, items, raters, labels, onehot = _arrays(ann)
    n_items, n_raters, k = data.n_items, data.n_raters, data.n_classes
    sm = float(smoothing)

    @jax.jit
    def run(items, raters, labels, onehot):
        t0 = _majority(items, onehot, n_items)
        t_y = jnp.take_along_axis(t0[items], labels[:, None], axis=1)[:, 0]
        n_j = jax.ops.segment_sum(jnp.ones_like(t_y), raters, num_segments=n_raters)
        theta0 = jnp.clip(jax.ops.segment_sum(t_y, raters, num_segments=n_raters) / n_j,
                          0.05, 0.95)
        freq = jax.ops.segment_sum(onehot, raters, num_segments=n_raters) + 1.0
        eps0 = freq / freq.sum(axis=1, keepdims=True)

        def step(state, t):
            theta, eps = state
            t_new, ll = _mace_e(theta, eps, items, raters, labels, n_items)
            return _mace_m(t_new, theta, eps, items, raters, labels, n_raters, k, sm), t_new, ll

        i, (theta, eps), t, delta, _ = _while(step, (theta0, eps0), t0, n_iter, tol)
        t, ll = _mace_e(theta, eps, items, raters, labels, n_items)
        return i, t, delta, theta, eps, ll

    i, t, delta, theta, eps, ll = run(items, raters, labels, onehot)
    converged = bool(float(delta) <= tol)
    if not converged:
        _warn_unconverged("mace_em", int(i), float(delta), tol)
    theta, eps = np.asarray(theta, np.float64), np.asarray(eps, np.float64)
    conf = np.asarray(_mace_response(jnp.asarray(theta), jnp.asarray(eps)), np.float64)
    pi = np.full(k, 1.0 / k)
    acc = np.einsum("c,jcc->j", pi, conf)
    return EMResult(model="mace", prevalence=pi, confusion=conf,
                    posterior=np.asarray(t, np.float64), accuracy=acc,
                    log_likelihood=float(ll), n_iter=int(i),
                    converged=converged, params={"theta": theta, "epsilon": eps})
