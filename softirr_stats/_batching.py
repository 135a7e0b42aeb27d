"""One chunking policy for batches of replicates (bootstrap weights, vmapped evaluation).

Every batched computation in the package splits its replicates into chunks of
:func:`rows_per_chunk` rows, so that the float64 work arrays of one chunk stay within one
memory budget. Chunk sizes only change how work is grouped, never a result: a replicate's
random weights depend on the seed and the replicate's index alone.
"""

__all__ = ["CHUNK_BUDGET_BYTES", "rows_per_chunk"]

CHUNK_BUDGET_BYTES = 128 * 2**20  # float64 work arrays of one chunk


def rows_per_chunk(floats_per_row: int, *, budget_bytes: int = CHUNK_BUDGET_BYTES, maximum: int = 1024) -> int:
    """Replicates per chunk for ``floats_per_row`` float64 values of work per replicate.

    Examples
    --------
    >>> rows_per_chunk(10_000), rows_per_chunk(10**8), rows_per_chunk(1)
    (1024, 1, 1024)
    """
    return int(max(1, min(maximum, budget_bytes // (8 * max(int(floats_per_row), 1)))))
