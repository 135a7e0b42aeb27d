"""Shippable estimator specs: ``(class path, constructor parameters)``, JSON-safe.

A spec is what a remote worker receives instead of an estimator object: it names the
estimator's class by import path and lists the constructor arguments that rebuild it, so
each worker builds its estimator (and loads its model) once, from files it can read itself.
Nothing is pickled: :meth:`EstimatorSpec.to_json` is plain JSON, and
:func:`from_spec` only instantiates subclasses of
:class:`~softirr_stats.equivalence.BaseEstimator`.

Every built-in estimator converts (``Exact``, ``Levenshtein``, ``Indel``, ``Lcs``, ``Jaccard``,
``Dice``, ``Masi``, ``SetMatch``, ``Embedding``, ``Nli``, ``LlmJudge``,
``OpenAICompatibleJudge``), and so does a user subclass of ``BaseEstimator`` defined at
module level whose constructor arguments are kept as attributes of the same name. A plain
callable, a lambda, a class defined inside a function, or an estimator whose state is not
recoverable from its constructor is refused with a ``TypeError`` saying why. The round trip
is checked: the rebuilt estimator must have the same ``fingerprint``.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
from dataclasses import dataclass, field
from typing import Any

from softirr_stats.equivalence._protocol import BaseEstimator, CallableEstimator

__all__ = ["EstimatorSpec", "to_spec", "from_spec"]

#: Constructor parameters kept under another attribute name (device/dtype resolve lazily).
_ATTR_ALIASES = {"device": "device_arg", "dtype": "dtype_arg"}
_EST_KEY, _FN_KEY = "__estimator__", "__callable__"


@dataclass(frozen=True)
class EstimatorSpec:
    """An estimator as ``(class path, parameters)``: shippable to a worker, JSON-safe.

    Attributes
    ----------
    cls : str
        ``"module:QualName"`` of a :class:`~softirr_stats.equivalence.BaseEstimator` subclass.
    params : dict
        Constructor keyword arguments (JSON values; nested estimators and module-level
        functions are encoded as ``{"__estimator__": spec}`` / ``{"__callable__": path}``).
    fingerprint : str or None
        The original estimator's fingerprint; :meth:`build` checks the rebuilt one matches.

    Examples
    --------
    >>> from softirr_stats.equivalence import Levenshtein
    >>> spec = to_spec(Levenshtein())
    >>> spec.cls
    'softirr_stats.equivalence._string:Levenshtein'
    >>> EstimatorSpec.from_json(spec.to_json()).build().fingerprint == Levenshtein().fingerprint
    True
    """

    cls: str
    params: dict[str, Any] = field(default_factory=dict)
    fingerprint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"cls": self.cls, "params": self.params, "fingerprint": self.fingerprint}

    def to_json(self) -> str:
        """The spec as a JSON string (sorted keys)."""
        return json.dumps(self.to_dict(), sort_keys=True, ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: Any) -> EstimatorSpec:
        if not isinstance(d, dict) or not isinstance(d.get("cls"), str):
            raise TypeError(f"an estimator spec must be a dict with a 'cls' string; got {d!r:.200}")
        params = d.get("params") or {}
        if not isinstance(params, dict):
            raise TypeError(f"spec 'params' must be a dict; got {type(params).__name__}")
        extra = set(d) - {"cls", "params", "fingerprint"}
        if extra:
            raise ValueError(f"unknown key(s) in estimator spec: {sorted(extra)}; expected cls, params, fingerprint")
        return cls(d["cls"], dict(params), d.get("fingerprint"))

    @classmethod
    def from_json(cls, text: str) -> EstimatorSpec:
        """Parse :meth:`to_json` output (or a hand-written ``{"cls": ..., "params": ...}``)."""
        try:
            d = json.loads(text)
        except json.JSONDecodeError as err:
            raise ValueError(f"estimator spec is not valid JSON: {err}") from None
        return cls.from_dict(d)

    def build(self) -> Any:
        """Instantiate the estimator (no model is loaded until it first scores)."""
        return from_spec(self)


# --------------------------------------------------------------------------------------
# encoding of parameter values
# --------------------------------------------------------------------------------------
def _import(path: str, what: str) -> Any:
    mod, sep, qual = path.partition(":")
    if not sep or not mod or not qual:
        raise ValueError(f"{what} must be 'module:QualName'; got {path!r}")
    try:
        obj: Any = importlib.import_module(mod)
    except ImportError as err:
        raise ImportError(f"cannot import module {mod!r} of {what} {path!r}: {err}") from err
    for part in qual.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise ImportError(f"{what} {path!r}: module {mod!r} has no attribute {qual!r}") from None
    return obj


def _path_of(obj: Any, what: str) -> str:
    mod, qual = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not mod or not qual or "<" in qual or mod == "__main__":
        raise TypeError(
            f"{what} {obj!r:.80} cannot be shipped to a worker: only classes and functions defined at "
            f"module level of an importable module can (got module={mod!r}, qualname={qual!r})")
    path = f"{mod}:{qual}"
    try:
        same = _import(path, what) is obj
    except ImportError:
        same = False
    if not same:
        raise TypeError(f"{what} {obj!r:.80} is not importable as {path!r}; it cannot be shipped to a worker")
    return path


def _encode(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (list, tuple)):
        return [_encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        if _EST_KEY in value or _FN_KEY in value:
            raise TypeError(f"{where}: dict keys {_EST_KEY!r}/{_FN_KEY!r} are reserved in estimator specs")
        return {k: _encode(v, f"{where}[{k!r}]") for k, v in value.items()}
    if isinstance(value, BaseEstimator):
        return {_EST_KEY: to_spec(value).to_dict()}
    mod = type(value).__module__
    if mod == "torch" and type(value).__name__ in ("device", "dtype"):
        text = str(value)
        return {"torch.float32": "fp32", "torch.float16": "fp16", "torch.bfloat16": "bf16"}.get(text, text)
    if inspect.isfunction(value) or inspect.isbuiltin(value):
        return {_FN_KEY: _path_of(value, f"{where} (a function)")}
    if callable(value):
        raise TypeError(f"{where} is a {type(value).__name__} object; only module-level functions, "
                        "estimators and JSON values can be shipped to a worker")
    raise TypeError(f"{where} has type {type(value).__name__}; an estimator spec holds JSON values "
                    "(str, number, bool, None, lists), paths, estimators and module-level functions")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if isinstance(value, dict):
        if set(value) == {_EST_KEY}:
            return from_spec(EstimatorSpec.from_dict(value[_EST_KEY]))
        if set(value) == {_FN_KEY}:
            return _import(value[_FN_KEY], "function")
        return {k: _decode(v) for k, v in value.items()}
    return value


# --------------------------------------------------------------------------------------
# public
# --------------------------------------------------------------------------------------
def to_spec(estimator: Any) -> EstimatorSpec:
    """The shippable spec of an estimator: class path + constructor parameters.

    Parameters
    ----------
    estimator : BaseEstimator
        A built-in estimator or a module-level ``BaseEstimator`` subclass whose constructor
        arguments are kept as same-named attributes (``device``/``dtype`` as
        ``device_arg``/``dtype_arg``).

    Returns
    -------
    EstimatorSpec

    Raises
    ------
    TypeError
        For plain callables (``as_estimator(fn)``), ``Cached`` (ship its ``.base``; the cache
        stays with the driver), locally defined classes, parameters that are neither JSON
        values, paths, estimators nor module-level functions, or an estimator that the
        constructor cannot rebuild with the same fingerprint.

    Examples
    --------
    >>> from softirr_stats.equivalence import Masi, SetMatch, Levenshtein
    >>> to_spec(Masi(exact=True)).params
    {'exact': True, 'tokenizer': None}
    >>> from_spec(to_spec(SetMatch(Levenshtein()))).name
    'setmatch(levenshtein)'
    """
    from softirr_stats.equivalence._cache import Cached

    if isinstance(estimator, Cached):
        raise TypeError("Cached cannot be shipped to a worker; pass its .base (the cache file stays with the "
                        "process that writes it)")
    if isinstance(estimator, CallableEstimator) or not isinstance(estimator, BaseEstimator):
        raise TypeError(
            f"only estimator classes (subclasses of softirr_stats.equivalence.BaseEstimator) can be shipped "
            f"to a worker as a spec; got {type(estimator).__name__} ({getattr(estimator, 'name', '?')!r}). "
            "An arbitrary callable cannot be rebuilt remotely: write it as a BaseEstimator subclass in an "
            "importable module")
    cls = type(estimator)
    path = _path_of(cls, "estimator class")
    params: dict[str, Any] = {}
    init = inspect.signature(cls.__init__).parameters if cls.__init__ is not object.__init__ else {}
    for name, p in init.items():
        if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise TypeError(f"{cls.__name__}.__init__ takes *{name}; its spec cannot be recovered")
            continue
        attr = _ATTR_ALIASES.get(name, name)
        if not hasattr(estimator, attr):
            raise TypeError(f"{cls.__name__} keeps no attribute {attr!r} for its constructor argument {name!r}; "
                            "its spec cannot be recovered")
        params[name] = _encode(getattr(estimator, attr), f"{cls.__name__}.{name}")
    spec = EstimatorSpec(path, params, estimator.fingerprint)
    rebuilt = from_spec(EstimatorSpec(path, params, None))
    if rebuilt.fingerprint != estimator.fingerprint:
        raise TypeError(f"{cls.__name__} rebuilt from its constructor arguments has fingerprint "
                        f"{rebuilt.fingerprint!r:.200}, not {estimator.fingerprint!r:.200}: it holds state the "
                        "constructor does not set, so it cannot be shipped as a spec")
    return spec


def from_spec(spec: EstimatorSpec | dict[str, Any] | str) -> Any:
    """Build the estimator a spec describes (a spec, its dict, or its JSON text).

    Only subclasses of :class:`~softirr_stats.equivalence.BaseEstimator` are instantiated.
    When the spec carries a fingerprint, the built estimator must match it (a different
    package version or model files would otherwise fill a cache under the wrong key).

    Parameters
    ----------
    spec : EstimatorSpec, dict or str
        A spec, its ``to_dict()`` or its JSON text.

    Returns
    -------
    BaseEstimator

    Examples
    --------
    >>> from_spec('{"cls": "softirr_stats.equivalence._string:Jaccard", "params": {}}').name
    'jaccard'
    """
    if isinstance(spec, str):
        spec = EstimatorSpec.from_json(spec)
    elif isinstance(spec, dict):
        spec = EstimatorSpec.from_dict(spec)
    elif not isinstance(spec, EstimatorSpec):
        raise TypeError(f"spec must be an EstimatorSpec, a dict or JSON text; got {type(spec).__name__}")
    cls = _import(spec.cls, "estimator class")
    if not (inspect.isclass(cls) and issubclass(cls, BaseEstimator)) or cls is CallableEstimator:
        raise TypeError(f"{spec.cls!r} is not an estimator class (a subclass of BaseEstimator)")
    est = cls(**{k: _decode(v) for k, v in spec.params.items()})
    if spec.fingerprint is not None and est.fingerprint != spec.fingerprint:
        raise ValueError(f"estimator built from the spec has fingerprint {est.fingerprint!r:.200}; the spec "
                         f"expects {spec.fingerprint!r:.200} (different package version or model files?)")
    return est
