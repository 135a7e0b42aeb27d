"""Compiled programs across many fits in one process: shared by shape, released within bounds.

A research script may call :func:`~softirr_stats.inference.fit` hundreds of times in one
process (a simulation, a sweep over subsets). Three things keep it up and fast:

- **The data are arguments of the NUTS program, not constants in it.** A package model's data
  (:class:`~softirr_stats.models.AnnotationData`, :class:`~softirr_stats.models.PairScores`)
  enter the compiled run as its array arguments, their sizes as constants
  (:func:`data_arguments`): data sets of one shape share one program, compiled once per
  machine and once per process. A model that reads the values of its data while it is traced
  (``soft_agreement(..., drop_gap_pieces=True)`` chooses its pieces from the scores) falls
  back to a program of its own data set (:func:`needs_values` names the errors that tell).
- **JAX's in-memory caches are released within bounds** (:func:`after_fit`): every compiled
  program is code in memory maps of the process (the kernel allows 65,530 by default), and
  JAX keeps each program until ``jax.clear_caches()``. They are released when more than
  :data:`PROGRAMS_KEPT` distinct programs were fitted since the last release or, on Linux,
  when the process holds :data:`MAPS_HEADROOM` more memory maps than after it; a program
  fitted again before then runs without compiling.
- **The C heap is given back after each fit** (:func:`trim_heap`): LLVM's compiles allocate
  hundreds of MiB that glibc keeps after they are freed; ``malloc_trim(0)`` returns them.
"""

import dataclasses
import sys
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["MAPS_HEADROOM", "PROGRAMS_KEPT", "after_fit", "data_arguments", "map_count", "needs_values",
           "release_programs", "trim_heap"]

#: Distinct compiled fit programs kept in memory before JAX's caches are released.
PROGRAMS_KEPT = 8
#: Memory maps the process may gain over its count after the last release before the next one (Linux).
MAPS_HEADROOM = 2000

def needs_values() -> tuple[type[Exception], ...]:
    """The errors of tracing a model that reads the values of its data, not only their shapes.

    Examples
    --------
    >>> [e.__name__ for e in needs_values()][:2]
    ['ConcretizationTypeError', 'TracerArrayConversionError']
    """
    import jax

    return (jax.errors.ConcretizationTypeError, jax.errors.TracerArrayConversionError,
            jax.errors.TracerBoolConversionError, jax.errors.TracerIntegerConversionError)


def data_arguments(kind: str, data: Any) -> tuple[dict[str, np.ndarray], Callable[[dict], Any], dict] | None:
    """The arrays of a package model's data, a function that rebuilds the data from them, its skeleton.

    ``(arrays, rebuild, skeleton)``: ``arrays`` maps each array field of the data (a frozen
    dataclass) to its value; ``rebuild(arrays)`` gives back the data object with those arrays
    (traced ones inside a compiled program: no validation runs on them); ``skeleton`` is the
    data without its values (the other fields, and the shape and dtype of each array), what a
    program that takes the arrays as arguments depends on. ``None`` for a custom model's data
    (its model may do anything with them) and for data that are not a dataclass.

    The fields the package models never read (names, the vocabulary, a count of scored
    pairs) are left at their defaults in the program: data sets that differ only in them
    share it, and a model that began to read one would see ``None`` rather than another data
    set's value.

    Examples
    --------
    >>> from softirr_stats.models import encode_annotations
    >>> arrays, rebuild, skeleton = data_arguments("categorical", encode_annotations([[0, 1], [1, 1]]))
    >>> sorted(arrays), rebuild(arrays).n_items, skeleton["labels"]
    (['items', 'labels', 'raters'], 2, ('array', (4,), 'int32'))
    >>> data_arguments("custom", encode_annotations([[0, 1], [1, 1]])) is None
    True
    """
    if kind == "custom" or not dataclasses.is_dataclass(data) or isinstance(data, type):
        return None
    cls = type(data)
    hidden = _hidden_fields().get(cls, ())
    values = {f.name: f.default if f.name in hidden else getattr(data, f.name) for f in dataclasses.fields(data)}
    arrays = {k: v for k, v in values.items() if isinstance(v, np.ndarray) and v.dtype != object}
    static = {k: v for k, v in values.items() if k not in arrays}
    skeleton = {**static, **{k: ("array", v.shape, str(v.dtype)) for k, v in arrays.items()}}

    def rebuild(leaves: dict) -> Any:
        obj = object.__new__(cls)  # the values were checked when `data` was built
        for name, value in {**static, **leaves}.items():
            object.__setattr__(obj, name, value)
        return obj

    return arrays, rebuild, skeleton


def _hidden_fields() -> dict[type, tuple[str, ...]]:
    """Per data class, the fields the package models do not read (for people: names, bookkeeping)."""
    from softirr_stats.models import AnnotationData, PairScores

    return {AnnotationData: ("vocabulary", "rater_names", "item_names"),
            PairScores: ("group_names", "rater_names", "n_pairs_scored")}


def map_count() -> int | None:
    """Memory maps of this process (lines of ``/proc/self/maps``); None where there is no such file.

    Examples
    --------
    >>> n = map_count()
    >>> n is None or n > 0
    True
    """
    try:
        with open("/proc/self/maps", "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return None


def trim_heap() -> bool:
    """Give the C heap's free memory back to the system (glibc's ``malloc_trim(0)``).

    Returns whether it was done: False where the C library is not glibc.

    Examples
    --------
    >>> isinstance(trim_heap(), bool)
    True
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # musl and others: no malloc_trim
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    trim(0)
    return True


_seen: "OrderedDict[Any, None]" = OrderedDict()
_maps_after_release: list[int | None] = []


def release_programs() -> None:
    """Drop every compiled program JAX keeps in memory, then give the freed heap back."""
    import jax

    jax.clear_caches()
    _seen.clear()
    trim_heap()
    _maps_after_release[:] = [map_count()]


def after_fit(program: Any) -> bool:
    """Count the fit's program; release JAX's caches when the bounds are passed. Returns whether it did.

    ``program`` names what the fit compiled (a hashable key; ``None`` for a program of this
    fit alone, as when the data are constants in it). Releases when more than
    :data:`PROGRAMS_KEPT` distinct programs ran since the last release, or when the process
    gained more than :data:`MAPS_HEADROOM` memory maps since then; otherwise trims the heap.

    Examples
    --------
    >>> _ = [after_fit(("shape", 3)) for _ in range(3 * PROGRAMS_KEPT)]  # one program, again and again
    >>> after_fit(("shape", 3))
    False
    """
    _seen[object() if program is None else program] = None
    if not _maps_after_release:
        _maps_after_release.append(map_count())
    now, then = map_count(), _maps_after_release[0]
    if len(_seen) > PROGRAMS_KEPT or (now is not None and then is not None and now - then > MAPS_HEADROOM):
        release_programs()
        return True
    trim_heap()
    return False
