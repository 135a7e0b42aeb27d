"""Item-padded ratings for minibatch (subsampled) SVI of the categorical annotator models.

A minibatch of items needs each item's ratings without a pass over the long format. The
:class:`ItemTable` holds them as two ``(n_items, m)`` arrays (``m`` = the most ratings any
item has; unused slots carry label ``-1``), so rows of a batch are gathered by one index
``table.labels[idx]`` inside a compiled SVI step. The per-item log-likelihood of a batch of
``B`` items is scaled by ``n_items / B`` (a subsampled ``numpyro.plate``), which makes the
ELBO estimate unbiased for the full-data ELBO (Hoffman et al. 2013, "Stochastic variational
inference", JMLR 14).

The models whose latent variables are all global once the item's class is summed out
(multinomial, Dawid-Skene, MACE, hierarchical Dawid-Skene) put only the likelihood in the
plate. The item-effect models (item difficulty, logistic random effects) also sample their
per-item latents inside it: a batch draws the effects of its items only, their prior is
scaled like the likelihood, and a mean-field guide (``AutoNormal``) keeps one location and
scale per item and reads the batch's rows of them (numpyro slices a ``param`` inside a
subsampled plate).
"""

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from softirr_stats.models._long_format import AnnotationData

__all__ = ["ItemTable", "item_table"]

MAX_PADDING = 8
"""Refuse a table with more than this many slots per rating (and over 1e6 slots)."""


@jax.tree_util.register_pytree_node_class
class ItemTable:
    """Ratings padded per item, for minibatch SVI (a JAX pytree: arrays are leaves).

    Attributes
    ----------
    raters, labels : array of int32, shape (n_items, m)
        Rater and label of each of the item's ratings; unused slots have label ``-1``
        (and rater 0).
    n_items, n_raters, n_classes : int
        Sizes, as in :class:`AnnotationData`.
    batch_size : int
        Items per minibatch (``n_items``: no subsampling).

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats.models import encode_annotations
    >>> t = item_table(encode_annotations(np.array([[0, 1], [-1, 1]])), batch_size=1)
    >>> t.labels.tolist(), t.raters.tolist(), t.batch_size
    ([[0, 1], [1, -1]], [[0, 1], [1, 0]], 1)
    """

    def __init__(self, raters: Any, labels: Any, n_items: int, n_raters: int, n_classes: int,
                 batch_size: int) -> None:
        self.raters = raters
        self.labels = labels
        self.n_items = int(n_items)
        self.n_raters = int(n_raters)
        self.n_classes = int(n_classes)
        self.batch_size = int(batch_size)

    def __repr__(self) -> str:
        return (f"ItemTable(n_items={self.n_items}, n_raters={self.n_raters}, "
                f"n_classes={self.n_classes}, slots={self.labels.shape[-1]}, "
                f"batch_size={self.batch_size})")

    @property
    def n_obs(self) -> int:
        """Number of observed ratings."""
        return int((np.asarray(self.labels) >= 0).sum())

    def tree_flatten(self) -> tuple:
        return (self.raters, self.labels), (self.n_items, self.n_raters, self.n_classes,
                                            self.batch_size)

    @classmethod
    def tree_unflatten(cls, aux: tuple, children: tuple) -> "ItemTable":
        return cls(*children, *aux)

    def with_batch_size(self, batch_size: int) -> "ItemTable":
        """The same table with another batch size (the arrays are shared)."""
        return ItemTable(self.raters, self.labels, self.n_items, self.n_raters,
                         self.n_classes, check_batch_size(batch_size, self.n_items))


def check_batch_size(batch_size: Any, n_items: int) -> int:
    """Validate a batch size: an int in ``[1, n_items]``.

    Examples
    --------
    >>> check_batch_size(64, 1000)
    64
    """
    if isinstance(batch_size, bool) or not isinstance(batch_size, int | np.integer):
        raise TypeError(f"batch_size must be an int, 'auto' or None; got {batch_size!r}")
    if not 1 <= int(batch_size) <= int(n_items):
        raise ValueError(f"batch_size must lie in [1, n_items = {n_items}]; got {batch_size}")
    return int(batch_size)


def item_table(data: AnnotationData, batch_size: int | None = None,
               *, device: bool = False) -> ItemTable:
    """Pad the long-format ratings per item (one stable sort, no loop over items).

    Parameters
    ----------
    data : AnnotationData
    batch_size : int, optional
        Items per minibatch, in ``[1, n_items]``; default ``n_items`` (no subsampling).
    device : bool
        Put the arrays on the default JAX device (``jax.device_put``) instead of keeping
        them as NumPy arrays.

    Returns
    -------
    ItemTable

    Raises
    ------
    ValueError
        ``batch_size`` outside ``[1, n_items]``, or a design so unbalanced that the padded
        table would hold more than 8 slots per rating (one item with very many ratings):
        fit such data on the full batch.

    Examples
    --------
    >>> import numpy as np
    >>> from softirr_stats.models import encode_annotations
    >>> t = item_table(encode_annotations(np.array([[0, 0, -1], [1, 0, 1]])))
    >>> t.labels.tolist(), t.batch_size
    ([[0, 0, -1], [1, 0, 1]], 2)
    """
    if not isinstance(data, AnnotationData):
        raise TypeError(f"item_table expects AnnotationData; got {type(data).__name__}")
    n = data.n_items
    batch_size = n if batch_size is None else check_batch_size(batch_size, n)
    counts = np.bincount(data.items, minlength=n)
    m = max(int(counts.max()), 1)
    slots = n * m
    if slots > max(MAX_PADDING * data.n_obs, 10**6):
        worst = int(counts.argmax())
        raise ValueError(
            f"cannot minibatch these ratings: item {worst} has {m} ratings, so the per-item "
            f"table would hold {slots:,} slots for {data.n_obs:,} ratings (over "
            f"{MAX_PADDING} per rating); fit on the full batch (batch_size=None)")
    order = np.argsort(data.items, kind="stable")
    it = data.items[order]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pos = np.arange(data.n_obs) - starts[it]
    raters = np.zeros((n, m), dtype=np.int32)
    labels = np.full((n, m), -1, dtype=np.int32)
    raters[it, pos] = data.raters[order]
    labels[it, pos] = data.labels[order]
    if device:
        raters, labels = jax.device_put(raters), jax.device_put(labels)
    return ItemTable(raters, labels, n, data.n_raters, data.n_classes, batch_size)


def slot_log_lik(log_pi: jnp.ndarray, slot_lp: jnp.ndarray,
                 labels: jnp.ndarray) -> jnp.ndarray:
    """``(B,)`` log p(y_i) from ``slot_lp`` (B, m, K) = log P(slot's label | class c).

    Unused slots (label ``-1``) count for nothing.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> lp = jnp.log(jnp.array([[[0.9, 0.2], [0.5, 0.5]]]))  # one item, 2 slots, 2 classes
    >>> out = slot_log_lik(jnp.log(jnp.array([0.5, 0.5])), lp, jnp.array([[0, -1]]))
    >>> round(float(jnp.exp(out[0])), 4)
    0.55
    """
    lp = jnp.where((labels >= 0)[..., None], slot_lp, 0.0).sum(axis=-2)
    return jax.scipy.special.logsumexp(lp + log_pi, axis=-1)


def batch_log_lik(log_pi: jnp.ndarray, log_resp: jnp.ndarray, raters: jnp.ndarray,
                  labels: jnp.ndarray) -> jnp.ndarray:
    """``(B,)`` log p(y_i) of a batch: ``logsumexp_c(log pi_c + sum_r log R_j(y | c))``.

    ``log_resp`` (J, K, K) holds ``log P(label | class)`` per rater; ``raters`` and
    ``labels`` (B, m) are rows of an :class:`ItemTable` (label ``-1``: unused slot).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> lr = jnp.log(jnp.array([[[0.9, 0.1], [0.2, 0.8]]]))  # one rater
    >>> out = batch_log_lik(jnp.log(jnp.array([0.5, 0.5])), lr, jnp.zeros((1, 2), int),
    ...                     jnp.array([[0, -1]]))
    >>> round(float(jnp.exp(out[0])), 4)
    0.55
    """
    lab = jnp.where(labels >= 0, labels, 0)
    return slot_log_lik(log_pi, log_resp[raters, :, lab], labels)  # (B, m, K): indices lead


def item_slot_log_lik(log_pi: jnp.ndarray, log_resp: jnp.ndarray,
                      labels: jnp.ndarray) -> jnp.ndarray:
    """``(B,)`` log p(y_i) with a log response per slot ``(B, m, K, K)`` or per item
    ``(B, K, K)`` (broadcast over the item's slots); ``labels`` (B, m) as in
    :func:`batch_log_lik`.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> lr = jnp.log(jnp.array([[[0.9, 0.1], [0.2, 0.8]]]))  # one item's response (1, K, K)
    >>> out = item_slot_log_lik(jnp.log(jnp.array([0.5, 0.5])), lr, jnp.array([[0, -1]]))
    >>> round(float(jnp.exp(out[0])), 4)
    0.55
    """
    lab = jnp.where(labels >= 0, labels, 0)
    if log_resp.ndim == 3:  # per item: rows of the (label, class) transpose, one per slot
        lp = jnp.take_along_axis(jnp.swapaxes(log_resp, -1, -2), lab[:, :, None], axis=1)
    else:
        idx = jnp.broadcast_to(lab[:, :, None, None], log_resp.shape[:-1] + (1,))
        lp = jnp.take_along_axis(log_resp, idx, axis=-1)[..., 0]
    return slot_log_lik(log_pi, lp, labels)  # lp: (B, m, K)
