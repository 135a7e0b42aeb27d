"""``lazy_adam``: Adam whose moments move only where the gradient is non-zero (minibatch SVI)."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

__all__ = ["lazy_adam"]


class _LazyAdamState(NamedTuple):
    count: jax.Array  # global step (the learning-rate schedule's clock)
    mu: Any
    nu: Any
    seen: Any  # per element: the steps that had a gradient (bias correction)


def lazy_adam(learning_rate: optax.Schedule | float, b1: float = 0.9, b2: float = 0.999,
              eps: float = 1e-8) -> optax.GradientTransformation:
    """Adam whose moments move only where the gradient is non-zero (per element).

    In minibatch SVI the per-item guide parameters of the items outside a batch have a zero
    gradient; plain Adam would keep moving them on stale momentum and decay their moments
    between visits. Here an element's moments, bias correction and value change only on the
    steps whose batch holds its item, so each visit is one Adam step on that item's
    parameters; global parameters (a gradient every step) follow plain Adam.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> opt = lazy_adam(0.1)
    >>> params = jnp.zeros(3)
    >>> upd, state = opt.update(jnp.array([1.0, 0.0, -2.0]), opt.init(params), params)
    >>> upd.round(3).tolist()
    [-0.1, 0.0, 0.1]
    """
    schedule = learning_rate if callable(learning_rate) else (lambda _: learning_rate)

    def init(params: Any) -> _LazyAdamState:
        zeros = jax.tree_util.tree_map(jnp.zeros_like, params)
        seen = jax.tree_util.tree_map(lambda p: jnp.zeros(jnp.shape(p), jnp.int32), params)
        return _LazyAdamState(jnp.zeros((), jnp.int32), zeros,
                              jax.tree_util.tree_map(jnp.zeros_like, params), seen)

    def update(grads: Any, state: _LazyAdamState, params: Any = None) -> tuple:
        lr = schedule(state.count)

        def one(g, m, v, t):
            active = g != 0
            t = t + active.astype(t.dtype)
            m = jnp.where(active, b1 * m + (1 - b1) * g, m)
            v = jnp.where(active, b2 * v + (1 - b2) * g * g, v)
            tf = jnp.maximum(t, 1).astype(g.dtype)
            step = (m / (1 - b1 ** tf)) / (jnp.sqrt(v / (1 - b2 ** tf)) + eps)
            return jnp.where(active, -lr * step, 0.0).astype(g.dtype), m, v, t

        out = jax.tree_util.tree_map(one, grads, state.mu, state.nu, state.seen)
        pick = [jax.tree_util.tree_map(lambda o, i=i: o[i], out,
                                       is_leaf=lambda x: isinstance(x, tuple))
                for i in range(4)]
        return pick[0], _LazyAdamState(state.count + 1, pick[1], pick[2], pick[3])

    return optax.GradientTransformation(init, update)
