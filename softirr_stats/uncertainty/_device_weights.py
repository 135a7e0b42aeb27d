"""Replicate weights drawn by ``jax.random`` where the kernels run (``Bootstrap(generator="jax")``).

The same design as the host generator: blocks of :data:`BLOCK` replicates, block ``j`` of stream
``salt`` keyed by ``fold_in(fold_in(key(seed), salt), j)``, so replicate ``b`` depends on
(seed, stream, b) only: the same under any chunking, in any process (Ray actors included) and on
any JAX backend (threefry is the same counter-based generator on the CPU and on a GPU). Item
counts are multinomial (``n`` uniform draws and a bincount per replicate; within strata, each slot
draws a unit of its own stratum) or Dirichlet(1) scaled to the stratum size (``bayesian``). The
weights stay on JAX's default device: on a GPU no replicate weight crosses to the host.

The streams differ from the host generator's (NumPy's SFC64), so the two give different
replicates, and intervals that differ within Monte Carlo error, for the same seed.

Examples
--------
>>> import numpy as np
>>> draw = device_unit_sampler(6, None, False, salt=1)
>>> w = np.asarray(draw(0, 0, 20))
>>> w.shape, bool((w.sum(axis=1) == 6).all())
((20, 6), True)
>>> bool((np.asarray(draw(0, 5, 9)) == w[5:9]).all())  # any chunking: the same replicates
True
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

__all__ = ["BLOCK", "GENERATORS", "device_unit_sampler"]

#: Replicates per key block (as the host generator's ``REPLICATE_BLOCK``).
BLOCK = 16
#: ``Bootstrap(generator=...)`` names: NumPy's SFC64 on the host, or ``jax.random`` on JAX's device.
GENERATORS = ("numpy", "jax")


@lru_cache(maxsize=64)
def _block_program(n_units: int, n_blocks: int, bayesian: bool, strata_key: bytes | None) -> Any:
    """One compiled program: ``n_blocks`` key blocks -> (n_blocks * BLOCK, n_units) float64 weights."""
    import jax
    import jax.numpy as jnp

    if strata_key is not None:
        st = np.frombuffer(strata_key, dtype=np.int64)
        size_np = np.bincount(st)
        first_np = np.concatenate([[0], np.cumsum(size_np)[:-1]])
        order_np = np.argsort(st, kind="stable")
    k = BLOCK

    def one_block(key: Any) -> Any:
        if bayesian:
            e = jax.random.exponential(key, (k, n_units), dtype=jnp.float64)
            if strata_key is None:
                return e / e.sum(axis=1, keepdims=True) * n_units
            sts = jnp.asarray(st)
            tot = jax.vmap(lambda row: jax.ops.segment_sum(row, sts, num_segments=len(size_np)))(e)
            return e / tot[:, sts] * jnp.asarray(size_np, dtype=jnp.float64)[sts]
        if strata_key is None:
            pick = jax.random.randint(key, (k, n_units), 0, n_units)
        else:
            # slot i (in stratum order) draws a unit of its own stratum; the counts land on the units
            sorted_st = jnp.asarray(st[order_np])
            size, first = jnp.asarray(size_np)[sorted_st], jnp.asarray(first_np)[sorted_st]
            u = jax.random.uniform(key, (k, n_units), dtype=jnp.float64)
            slot = first + jnp.minimum((u * size).astype(jnp.int64), size - 1)
            pick = jnp.asarray(order_np)[slot]
        return jax.vmap(lambda row: jnp.bincount(row, length=n_units))(pick).astype(jnp.float64)

    def run(keys: Any) -> Any:
        return jax.vmap(one_block)(keys).reshape(n_blocks * k, n_units)

    return jax.jit(run)


def device_unit_sampler(n_units: int, strata: np.ndarray | None, bayesian: bool, salt: int) -> Any:
    """``f(seed, start, stop)`` -> a JAX float64 array (stop - start, n_units) of replicate weights.

    Parameters
    ----------
    n_units : int
        Items (or clusters, raters, chance pairs) resampled.
    strata : ndarray of int, optional
        Each unit's stratum code: units are drawn within strata.
    bayesian : bool
        Dirichlet(1) weights scaled to the stratum size instead of multinomial counts.
    salt : int
        The stream (item, rater or chance-pair weights).
    """
    strata_key = None if strata is None else np.ascontiguousarray(strata, dtype=np.int64).tobytes()

    def draw(seed: int, start: int, stop: int) -> Any:
        import jax

        from softirr_stats.base._jax import x64

        j0, j1 = start // BLOCK, -(-stop // BLOCK)
        with x64():
            base = jax.random.fold_in(jax.random.key(seed % 2**63), salt)
            keys = jax.vmap(lambda j: jax.random.fold_in(base, j))(jax.numpy.arange(j0, j1, dtype=jax.numpy.uint32))
            out = _block_program(n_units, j1 - j0, bayesian, strata_key)(keys)
            return out[start - j0 * BLOCK: stop - j0 * BLOCK]

    return draw
