"""One chunking policy for batches of replicates (bootstrap weights, vmapped evaluation).

Every batched computation in the package splits its replicates into chunks of
:func:`rows_per_chunk` rows, so that the float64 work arrays of one chunk stay within one
memory budget. Chunk sizes only change how work is grouped, never a result: a replicate's
random weights depend on the seed and the replicate's index alone.
"""

__all__ = ["CHUNK_BUDGET_BYTES", "available_memory", "check_memory", "format_bytes", "rows_per_chunk"]

CHUNK_BUDGET_BYTES = 128 * 2**20  # float64 work arrays of one chunk


def rows_per_chunk(floats_per_row: int, *, budget_bytes: int = CHUNK_BUDGET_BYTES, maximum: int = 1024) -> int:
    """Replicates per chunk for ``floats_per_row`` float64 values of work per replicate.

    Examples
    --------
    >>> rows_per_chunk(10_000), rows_per_chunk(10**8), rows_per_chunk(1)
    (1024, 1, 1024)
    """
    return int(max(1, min(maximum, budget_bytes // (8 * max(int(floats_per_row), 1)))))


def available_memory() -> int:
    """Bytes of memory available to a new allocation: ``MemAvailable`` of ``/proc/meminfo``
    (Linux), else the physical memory, else 16 GiB when neither can be read.

    Examples
    --------
    >>> available_memory() > 0
    True
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        import os

        return int(os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return 16 * 2**30


def format_bytes(n: float) -> str:
    """``n`` bytes in the largest binary unit that keeps it >= 1.

    Examples
    --------
    >>> format_bytes(3 * 2**30), format_bytes(512)
    ('3.0 GiB', '512 B')
    """
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{int(n)} B"


def check_memory(need_bytes: float, what: str, alternative: str) -> None:
    """Refuse (ValueError) a request whose estimated memory exceeds what is available now,
    with the estimate and the alternative, before any of it is allocated.

    Examples
    --------
    >>> check_memory(1024, "a small table", "use less")
    >>> check_memory(2**70, "Bootstrap(n=10**20)", "use a smaller n")
    Traceback (most recent call last):
    ...
    ValueError: Bootstrap(n=10**20) would need about 1073741824.0 TiB of memory; ...
    """
    have = available_memory()
    if need_bytes > have:
        raise ValueError(f"{what} would need about {format_bytes(need_bytes)} of memory; "
                         f"{format_bytes(have)} is available on this machine. {alternative}")
