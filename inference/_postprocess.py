"""Vectorised posterior post-processing: implied agreement, replicated statistics, alignment."""

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from scipy.optimize import linear_sum_assignment

__all__ = [
    "align_permutations",
    "rater_pair_weights",
    "fleiss_kappa_counts",
    "implied_agreement",
    "item_counts",
    "percent_agreement_counts",
]


def rater_pair_weights(coannotation: np.ndarray) -> np.ndarray:
    """Normalise ``(J, J)`` co-annotation counts (zero diagonal) to weights summing to 1.

    Examples
    --------
    >>> rater_pair_weights(np.array([[0, 2], [2, 0]])).tolist()
    [[0.0, 0.5], [0.5, 0.0]]
    """
    co = np.asarray(coannotation, dtype=np.float64).copy()
    np.fill_diagonal(co, 0.0)
    total = co.sum()
    if total <= 0:
        raise ValueError("no item is rated by two different raters: rater-pair weights undefined")
    return co / total



def implied_agreement(pi: jnp.ndarray, response: jnp.ndarray, omega: jnp.ndarray,
                      weights: jnp.ndarray) -> jnp.ndarray:
    """Model-implied agreement terms of one posterior draw (docs/annotator_models.md).

    Parameters
    ----------
    pi : array, shape (K,)
        Class prevalences.
    response : array, shape (T, J, K, K)
        ``R[t, j, c, k]`` = P(rater j says k | class c, item-effect draw t).
    omega : array, shape (J, J)
        Weights of rater pairs from the rating layout (zero diagonal, sum 1; :func:`rater_pair_weights`).
    weights : array, shape (K, K)
        Agreement weights (identity for nominal agreement).

    Returns
    -------
    array, shape (5,)
        ``[P_o, P_e (Fleiss/Scott-type), P_e (Cohen/Conger-type), kappa_fleiss,
        kappa_cohen]``.

    Examples
    --------
    Two perfect raters on two equally likely classes: P_o = 1, P_e = 0.5, kappa = 1.

    >>> import jax.numpy as jnp
    >>> r = jnp.broadcast_to(jnp.eye(2), (1, 2, 2, 2))
    >>> om = jnp.array([[0.0, 0.5], [0.5, 0.0]])
    >>> implied_agreement(jnp.array([0.5, 0.5]), r, om, jnp.eye(2)).tolist()
    [1.0, 0.5, 0.5, 1.0, 1.0]
    """
    t = response.shape[0]
    rw = jnp.einsum("tjck,kl->tjcl", response, weights)
    orr = jnp.einsum("jm,tmcl->tjcl", omega, response)
    p_o = jnp.einsum("c,tjcl,tjcl->", pi, rw, orr) / t
    q = jnp.einsum("c,tjck->jk", pi, response) / t  # (J, K)
    qbar = omega.sum(axis=1) @ q
    pe_f = qbar @ weights @ qbar
    pe_c = jnp.einsum("jk,kl,jm,ml->", q, weights, omega, q)
    return jnp.stack([p_o, pe_f, pe_c, (p_o - pe_f) / (1.0 - pe_f), (p_o - pe_c) / (1.0 - pe_c)])


def item_counts(items: jnp.ndarray, labels: jnp.ndarray, n_items: int,
                n_classes: int) -> jnp.ndarray:
    """``(n_items, K)`` counts of each label per item from long-format rows.

    Parameters
    ----------
    items, labels : Array of int, shape (n_obs,)
        Item index and label of each rating.
    n_items, n_classes : int
        Shape of the table.

    Returns
    -------
    Array of shape (n_items, n_classes)

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> item_counts(jnp.array([0, 0, 1]), jnp.array([1, 1, 0]), 2, 2).tolist()
    [[0.0, 2.0], [1.0, 0.0]]
    """
    return jax.ops.segment_sum(jax.nn.one_hot(labels, n_classes, dtype=jnp.float32), items,
                               num_segments=n_items)


def percent_agreement_counts(counts: jnp.ndarray) -> jnp.ndarray:
    """Mean over items with >= 2 ratings of the share of agreeing rating pairs."""
    r = counts.sum(axis=1)
    ok = r >= 2
    pa_i = (counts * (counts - 1.0)).sum(axis=1) / jnp.where(ok, r * (r - 1.0), 1.0)
    return jnp.where(ok, pa_i, 0.0).sum() / jnp.maximum(ok.sum(), 1)


def fleiss_kappa_counts(counts: jnp.ndarray) -> jnp.ndarray:
    """Fleiss' kappa from an ``(n_items, K)`` count table, missing ratings allowed.

    Observed agreement averages over items with >= 2 ratings; class prevalences
    ``pi_k = mean_i r_ik / r_i`` over items with >= 1 rating (Fleiss 1971 for complete
    data; Gwet's generalisation without his small-sample epsilon for missing data).

    Parameters
    ----------
    counts : Array of shape (n_items, K)
        Ratings of each class per item.

    Returns
    -------
    Array
        A scalar (nan when no item has two ratings).

    Examples
    --------
    Fleiss (1971): 10 items, 14 raters, 5 classes, kappa = 0.210:

    >>> import jax.numpy as jnp
    >>> t = jnp.array([[0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
    ...                [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
    ...                [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]], dtype=jnp.float32)
    >>> round(float(fleiss_kappa_counts(t)), 3)
    0.21
    """
    r = counts.sum(axis=1)
    pa = percent_agreement_counts(counts)
    rated = r >= 1
    share = counts / jnp.where(rated, r, 1.0)[:, None]
    p = share.sum(axis=0) / jnp.maximum(rated.sum(), 1)
    pe = (p * p).sum()
    return (pa - pe) / (1.0 - pe)


STATISTICS: dict[str, Callable[[jnp.ndarray], jnp.ndarray]] = {
    "fleiss_kappa": fleiss_kappa_counts,
    "percent_agreement": percent_agreement_counts,
}


def align_permutations(mean_confusion: np.ndarray) -> np.ndarray:
    """Per-draw Hungarian alignment of latent classes to labels.

    Parameters
    ----------
    mean_confusion : ndarray, shape (S, K, K)
        ``M[s, c, k]`` = average P(label k | latent class c) in draw s.

    Returns
    -------
    ndarray of int, shape (S, K)
        ``sigma[s, c]`` = the label that latent class c stands for in draw s (maximises
        ``sum_c M[s, c, sigma(c)]``).

    Examples
    --------
    >>> m = np.array([[[0.1, 0.9], [0.8, 0.2]]])
    >>> align_permutations(m).tolist()
    [[1, 0]]
    """
    m = np.asarray(mean_confusion, dtype=np.float64)
    out = np.empty(m.shape[:2], dtype=np.int64)
    for s in range(m.shape[0]):  # S small K x K assignments; scipy's C loop dominates
        rows, cols = linear_sum_assignment(-m[s])
        out[s, rows] = cols
    return out
