"""Describe a value or a callable completely enough to key a persistent score cache.

A cache keyed by a description that misses something a score depends on hands one
estimator another's scores without a word. :func:`describe` therefore covers everything
that can change what a function returns: its code (bytecode, constants, nested code
objects), default and keyword-default values, the values captured in its closure, the
module-level names it reads, and recursively any callables among those (``functools.partial``,
bound methods, estimators through their own ``fingerprint``). Plain data (numbers, strings,
containers, NumPy arrays, compiled regular expressions) is described by value.

What cannot be described safely (an arbitrary object, e.g. a model held in a global) is
not guessed at: its description contains :data:`UNSAFE` and the reason, and the persistent
cache refuses such an estimator unless the user gives an explicit ``fingerprint=``.

:func:`estimator_fingerprint` is the identity of a
:class:`~softirr_stats.equivalence.BaseEstimator`: its module and qualified name, what its
``_settings()`` declare, and every constructor argument of every class in its hierarchy
(read back from the attribute of the same name), except arguments that only change how fast
or where scores are computed (:data:`RUNTIME_PARAMS`) or that hold a credential.
"""

from __future__ import annotations

import builtins
import enum
import functools
import hashlib
import inspect
import json
import os
import re
import types
from typing import Any

import numpy as np

__all__ = ["UNSAFE", "describe", "unsafe_reason", "estimator_fingerprint", "RUNTIME_PARAMS"]

#: Constructor parameters kept under another attribute name (device/dtype resolve lazily).
ATTR_ALIASES = {"device": "device_arg", "dtype": "dtype_arg"}
#: Constructor arguments that change how (fast, where) scores are computed, not their values;
#: they stay out of the fingerprint so one cache serves every batch size, device and worker
#: count. A class adds its own with a ``_fingerprint_ignore`` attribute.
RUNTIME_PARAMS = frozenset({"batch_size", "progress", "workers", "concurrency", "timeout", "max_retries",
                            "follow_redirects", "local_files_only", "device", "on_failure", "max_in_flight"})
#: Constructor arguments holding a credential (or where to find one): never in a fingerprint.
SECRET_PARAMS = frozenset({"api_key", "api_key_env"})
_TORCH_DTYPES = {"torch.float32": "fp32", "torch.float16": "fp16", "torch.bfloat16": "bf16"}

#: Marker inside a description that could not be derived safely (followed by the reason).
UNSAFE = "<unfingerprintable: "

_SCALARS = (type(None), bool, int, float, complex, str, bytes)
_MAX_DEPTH = 12


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def _unsafe(obj: Any, why: str) -> str:
    # id() keeps two distinct unsafe objects apart within one process (in-memory keys);
    # the persistent cache refuses any description holding the marker.
    return f"{UNSAFE}{why}; {type(obj).__module__}.{type(obj).__qualname__} at {id(obj):#x}>"


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            names |= _code_names(c)
    return names


def _describe_code(code: types.CodeType, seen: dict[int, str], depth: int) -> str:
    consts = ",".join(
        _describe_code(c, seen, depth + 1) if isinstance(c, types.CodeType) else _describe(c, seen, depth + 1)
        for c in code.co_consts
    )
    return (f"code({code.co_qualname if hasattr(code, 'co_qualname') else code.co_name};"
            f"bytes={_digest(code.co_code)};consts=[{consts}];names={list(code.co_names)};"
            f"args={code.co_argcount},{code.co_kwonlyargcount},{code.co_flags})")


def _describe_function(fn: types.FunctionType, seen: dict[int, str], depth: int) -> str:
    parts = [f"function {fn.__module__}.{fn.__qualname__}", _describe_code(fn.__code__, seen, depth)]
    if fn.__defaults__:
        parts.append("defaults=" + _describe(fn.__defaults__, seen, depth + 1))
    if fn.__kwdefaults__:
        parts.append("kwdefaults=" + _describe(fn.__kwdefaults__, seen, depth + 1))
    if fn.__closure__:
        cells = []
        for name, cell in zip(fn.__code__.co_freevars, fn.__closure__, strict=False):
            try:
                value = cell.cell_contents
            except ValueError:  # empty cell (not yet assigned)
                cells.append(f"{name}=<empty>")
                continue
            cells.append(f"{name}={_describe(value, seen, depth + 1)}")
        parts.append("closure=[" + ",".join(cells) + "]")
    glob = fn.__globals__
    used = []
    for name in sorted(_code_names(fn.__code__)):
        if name in glob:
            used.append(f"{name}={_describe(glob[name], seen, depth + 1)}")
        elif hasattr(builtins, name):
            continue  # a builtin (or an attribute name that no global shadows)
    if used:
        parts.append("globals=[" + ",".join(used) + "]")
    return "(" + ";".join(parts) + ")"


def _describe(obj: Any, seen: dict[int, str], depth: int) -> str:
    if depth > _MAX_DEPTH:
        return _unsafe(obj, "nested too deeply to describe")
    if isinstance(obj, bool) or obj is None:
        return repr(obj)
    if isinstance(obj, _SCALARS):
        return f"{type(obj).__name__}:{obj!r}"
    if isinstance(obj, enum.Enum):
        return f"enum:{type(obj).__module__}.{type(obj).__qualname__}.{obj.name}"
    if isinstance(obj, np.generic):
        return f"np.{obj.dtype}:{obj.item()!r}"
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            return f"ndarray(object,{obj.shape},{_describe(obj.tolist(), seen, depth + 1)})"
        return f"ndarray({obj.dtype.str},{obj.shape},{_digest(np.ascontiguousarray(obj).tobytes())})"
    if isinstance(obj, re.Pattern):
        return f"re({obj.pattern!r},{obj.flags})"
    if isinstance(obj, types.ModuleType):
        return f"module:{obj.__name__}"
    if isinstance(obj, os.PathLike):
        return f"path:{os.fspath(obj)!r}"
    if type(obj).__module__ == "torch" and type(obj).__name__ in ("device", "dtype"):
        return _TORCH_DTYPES.get(str(obj), str(obj))  # the spelling an estimator spec uses
    key = id(obj)
    if key in seen:  # a cycle (e.g. a recursive function reading its own global name)
        return f"<see {seen[key]}>"
    if isinstance(obj, (tuple, list)):
        seen[key] = type(obj).__name__
        return f"{type(obj).__name__}[" + ",".join(_describe(x, seen, depth + 1) for x in obj) + "]"
    if isinstance(obj, (set, frozenset)):
        seen[key] = type(obj).__name__
        return f"{type(obj).__name__}{{" + ",".join(sorted(_describe(x, seen, depth + 1) for x in obj)) + "}"
    if isinstance(obj, dict):
        seen[key] = "dict"
        items = sorted(f"{_describe(k, seen, depth + 1)}:{_describe(v, seen, depth + 1)}" for k, v in obj.items())
        return "dict{" + ",".join(items) + "}"
    fp = getattr(obj, "fingerprint", None)
    if callable(obj) and isinstance(fp, str) and not isinstance(obj, type):
        return f"estimator[{fp}]"
    if isinstance(obj, types.FunctionType):
        seen[key] = f"{obj.__module__}.{obj.__qualname__}"
        return _describe_function(obj, seen, depth)
    if isinstance(obj, functools.partial):
        seen[key] = "partial"
        return (f"partial({_describe(obj.func, seen, depth + 1)},args={_describe(obj.args, seen, depth + 1)},"
                f"kw={_describe(obj.keywords, seen, depth + 1)})")
    if isinstance(obj, types.MethodType):
        seen[key] = "method"
        return f"method({_describe(obj.__func__, seen, depth + 1)},self={_describe(obj.__self__, seen, depth + 1)})"
    if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType, types.WrapperDescriptorType,
                        types.MethodDescriptorType, types.MethodWrapperType, types.ClassMethodDescriptorType)):
        owner = getattr(obj, "__self__", None)
        if owner is not None and not isinstance(owner, (type, types.ModuleType)):
            # a builtin bound to an instance: its state matters ("abc".startswith)
            return f"builtin({getattr(obj, '__qualname__', obj.__name__)},self={_describe(owner, seen, depth + 1)})"
        mod = getattr(obj, "__module__", None) or getattr(owner, "__name__", "") or ""
        return f"builtin:{mod}.{getattr(obj, '__qualname__', obj.__name__)}"
    if isinstance(obj, np.ufunc):
        return f"ufunc:numpy.{obj.__name__}"
    if isinstance(obj, type):
        return f"class:{obj.__module__}.{obj.__qualname__}"
    return _unsafe(obj, "holds an object whose state cannot be described")


def describe(obj: Any) -> str:
    """Return a deterministic description of ``obj`` covering everything a result can depend on.

    Parameters
    ----------
    obj : Any
        A value, a container of values, or a callable (function, lambda, closure,
        ``functools.partial``, bound method, builtin, estimator).

    Returns
    -------
    str
        The same text for equal values and identical code in every process; different
        text when a captured value, a default, a constant, a read global or a nested
        callable differs. Objects that cannot be described are marked with
        :data:`UNSAFE` (see :func:`unsafe_reason`).

    Examples
    --------
    >>> def at(t):
    ...     return lambda a, b: [float(len(x) > t) for x in a]
    >>> describe(at(0.5)) == describe(at(0.5)), describe(at(0.5)) == describe(at(0.95))
    (True, False)
    >>> unsafe_reason(describe(object())) is not None
    True
    """
    return _describe(obj, {}, 0)


def unsafe_reason(description: str) -> str | None:
    """The first reason a description could not be derived safely, or None when it is safe."""
    k = description.find(UNSAFE)
    if k < 0:
        return None
    end = description.find(">", k)
    return description[k + len(UNSAFE): end if end > 0 else None]


@functools.lru_cache(maxsize=512)
def _constructor_params(cls: type) -> dict[str, inspect.Parameter]:
    """Named constructor parameters of every class in ``cls``'s hierarchy (most derived first)."""
    out: dict[str, inspect.Parameter] = {}
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None or klass is object:
            continue
        try:
            params = inspect.signature(init).parameters
        except (TypeError, ValueError):  # pragma: no cover - a C-level __init__
            continue
        for i, (name, p) in enumerate(params.items()):
            if i == 0 or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                continue  # self, *args, **kwargs (passed on to a parent, whose names are read)
            out.setdefault(name, p)
    return out


def estimator_state(est: Any) -> dict[str, Any]:
    """The values that identify an estimator: ``_settings()`` plus its constructor arguments.

    A declared setting wins over the constructor argument of the same name (e.g. a model
    path is replaced by the identity of its files). An argument the estimator does not keep
    under its own name (or ``device_arg``/``dtype_arg``) is marked :data:`UNSAFE`.
    """
    state = dict(est._settings())
    ignore = RUNTIME_PARAMS | SECRET_PARAMS | frozenset(getattr(est, "_fingerprint_ignore", ()))
    for name in tuple(_constructor_params(type(est))):
        if name in state or name in ignore:
            continue
        attr = ATTR_ALIASES.get(name, name)
        if attr in getattr(est, "__dict__", {}) or hasattr(type(est), attr) and not callable(getattr(type(est), attr)):
            state[name] = getattr(est, attr)
        else:
            state[name] = (f"{UNSAFE}constructor argument {name!r} is not kept as an attribute of the same "
                           f"name, so what it changes cannot be seen>")
    return state


def estimator_fingerprint(est: Any) -> str:
    """Identity of an estimator object: ``module:QualName:{state as sorted JSON}``.

    Parameters
    ----------
    est : BaseEstimator
        Any estimator with ``_settings()``.

    Returns
    -------
    str
        Equal for two estimators of one class built with equal arguments (in any process);
        different for another class (also one of the same name in another module) or any
        argument that changes the scores. Unsafe parts are marked with :data:`UNSAFE`.

    Examples
    --------
    >>> from softirr_stats.equivalence import Levenshtein
    >>> estimator_fingerprint(Levenshtein())
    'softirr_stats.equivalence._string:Levenshtein:{"processor": null}'
    >>> estimator_fingerprint(Levenshtein(workers=1)) == estimator_fingerprint(Levenshtein(workers=4))
    True
    """
    cls = type(est)
    state = json.dumps({k: _jsonable(v) for k, v in estimator_state(est).items()}, sort_keys=True,
                       default=describe, ensure_ascii=False)
    return f"{cls.__module__}:{cls.__qualname__}:{state}"


def _jsonable(value: Any) -> Any:
    """``value`` when JSON (with :func:`describe` for the rest) can encode it, else its description
    (e.g. a dict keyed by tuples)."""
    try:
        json.dumps(value, sort_keys=True, default=describe)
    except (TypeError, ValueError):
        return describe(value)
    return value
