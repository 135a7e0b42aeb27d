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

Specs are data, never code. A spec read from text (``softirr score -m '<json>'``,
``-m @spec.json``) is untrusted input: :func:`from_spec` builds only classes on an allow-list
- the package's estimators, classes registered with :func:`register_estimator` and classes
named by an installed package's ``softirr_stats.estimators`` entry point - and decodes a
``{"__callable__": "module:name"}`` value only for functions on the same kind of list
(:func:`register_callable`, the ``softirr_stats.callables`` entry-point group). The whole spec
is checked against the lists before any module is imported, so a spec that names another
module runs none of its code. ``trust_remote_code=True`` (model code from the hub) is refused
in a spec unless the Python caller passes ``trust_remote_code=True`` to :func:`from_spec`, and
a spec never carries an API key (``api_key_env="NAME"`` names the environment variable).
"""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from softirr_stats.equivalence._fingerprint import ATTR_ALIASES as _ATTR_ALIASES
from softirr_stats.equivalence._measures import MEASURES
from softirr_stats.equivalence._protocol import BaseEstimator, CallableEstimator

__all__ = ["EstimatorSpec", "to_spec", "from_spec", "register_estimator", "register_callable"]

_EST_KEY, _FN_KEY = "__estimator__", "__callable__"
#: Entry-point groups through which an installed package allows its estimators / functions.
ESTIMATOR_GROUP, CALLABLE_GROUP = "softirr_stats.estimators", "softirr_stats.callables"
#: Deepest nesting of a spec (estimators in estimators, lists in lists) that is decoded.
_MAX_DEPTH = 32
#: Parameters that hold a credential: a spec never carries their value.
_SECRET_PARAMS = frozenset({"api_key"})

_EQ = "softirr_stats.equivalence"
#: The package's estimators: private path -> public alias (both accepted in a spec).
#: The package's estimator classes a spec may name: those with a short name (``MEASURES``, the one
#: table of estimator names) and the two that have none; private path -> public path.
_BUILTIN_ESTIMATORS = {
    path: f"{_EQ}:{path.rsplit(':', 1)[1]}"
    for path in (*MEASURES.values(), f"{_EQ}._setmatch:SetMatch", f"{_EQ}._judge:OpenAICompatibleJudge")
}
#: The package's functions a spec may name (tokenizers, processors).
_BUILTIN_CALLABLES = frozenset({f"{_EQ}._string:whitespace_tokens", "rapidfuzz.utils:default_process"})

_user_estimators: dict[str, type] = {}
_user_callables: dict[str, Callable[..., Any]] = {}

_T = TypeVar("_T")


def register_estimator(cls: type[_T]) -> type[_T]:
    """Allow an estimator class in specs (``-m '<json>'``, ``@spec.json``, Ray workers).

    Specs read from text build only allow-listed classes: the package's estimators, the
    classes registered here in this process, and those named by an installed package's
    ``softirr_stats.estimators`` entry point (``[project.entry-points."softirr_stats.estimators"]
    thr = "mypkg.estimators:Thr"``). Usable as a class decorator.

    Parameters
    ----------
    cls : type
        A subclass of :class:`~softirr_stats.equivalence.BaseEstimator` defined at module level
        of an importable module.

    Returns
    -------
    type
        ``cls`` itself.

    Examples
    --------
    >>> from softirr_stats.equivalence import Levenshtein
    >>> register_estimator(Levenshtein) is Levenshtein
    True
    """
    if not (inspect.isclass(cls) and issubclass(cls, BaseEstimator)) or cls is CallableEstimator:
        raise TypeError(f"register_estimator takes a subclass of softirr_stats.equivalence.BaseEstimator; "
                        f"got {cls!r:.100}")
    _user_estimators[_path_of(cls, "estimator class")] = cls
    return cls


def register_callable(fn: _T) -> _T:
    """Allow a module-level function as a ``{"__callable__": "module:name"}`` value in specs.

    A spec may otherwise name only the package's own functions (``whitespace_tokens``) and
    those of an installed package's ``softirr_stats.callables`` entry point: a spec that names
    ``os:system`` as a processor is refused. Usable as a decorator.

    Parameters
    ----------
    fn : callable
        A function defined at module level of an importable module.

    Returns
    -------
    callable
        ``fn`` itself.

    Examples
    --------
    >>> from softirr_stats.equivalence._string import whitespace_tokens
    >>> register_callable(whitespace_tokens) is whitespace_tokens
    True
    >>> from_spec({"cls": "softirr_stats.equivalence:Jaccard", "params": {"tokenizer": {
    ...     "__callable__": "softirr_stats.equivalence._string:whitespace_tokens"}}}).name
    'jaccard'
    >>> from_spec({"cls": "softirr_stats.equivalence:Levenshtein", "params": {"processor": {
    ...     "__callable__": "os:system"}}})
    Traceback (most recent call last):
    ...
    ValueError: estimator spec at params['processor']: function 'os:system' is not on the allow-list, ...
    """
    if not callable(fn) or inspect.isclass(fn):
        raise TypeError(f"register_callable takes a module-level function; got {fn!r:.100}")
    _user_callables[_path_of(fn, "function")] = fn
    return fn


def _entry_point_paths(group: str) -> dict[str, str]:
    """``{"module:attr": "module:attr"}`` of an entry-point group's values (nothing imported)."""
    out: dict[str, str] = {}
    try:
        eps = importlib.metadata.entry_points(group=group)
    except Exception:  # noqa: BLE001 - a broken distribution must not open a hole or crash
        return out
    for ep in eps:
        value = ep.value.split("[", 1)[0].strip().replace(" ", "")
        out[value] = value
    return out


def _has_short_name(path: str) -> bool:
    """An estimator class with a short name (``equivalence.MEASURES``) is allowed as it is."""
    from softirr_stats.equivalence._measures import MEASURES

    return path in MEASURES.values()


def _allowed_estimator(path: str, allow: frozenset[str]) -> str | None:
    """The import path to use for an allowed estimator class, or None (nothing imported)."""
    if path in _BUILTIN_ESTIMATORS or path in _user_estimators or path in allow or _has_short_name(path):
        return path
    for private, public in _BUILTIN_ESTIMATORS.items():
        if path == public:
            return private
    return _entry_point_paths(ESTIMATOR_GROUP).get(path)


def _allowed_callable(path: str, allow: frozenset[str]) -> str | None:
    if path in _BUILTIN_CALLABLES or path in _user_callables or path in allow:
        return path
    return _entry_point_paths(CALLABLE_GROUP).get(path)


def _refused(kind: str, path: Any, where: str) -> ValueError:
    if kind == "estimator":
        how = ("softirr_stats.equivalence.register_estimator(cls) in Python, or an entry point in the "
               f"{ESTIMATOR_GROUP!r} group of an installed package")
        known = sorted(set(_BUILTIN_ESTIMATORS.values()) | set(_user_estimators))
        listed = f"; allowed: {', '.join(known)}"
    else:
        how = ("softirr_stats.equivalence.register_callable(fn) in Python, or an entry point in the "
               f"{CALLABLE_GROUP!r} group of an installed package")
        listed = f"; allowed: {', '.join(sorted(_BUILTIN_CALLABLES | set(_user_callables)))}"
    return ValueError(f"estimator spec{where}: {kind} {path!r:.200} is not on the allow-list, so it was not "
                      f"imported (a spec is data and may name only allowed code): allow it with {how}{listed}")


def _check_tree(d: Any, allow: frozenset[str], trust_remote_code: bool, where: str, depth: int = 0) -> None:
    """Check every class and function a spec (dict form) names, before anything is imported."""
    if depth > _MAX_DEPTH:
        raise ValueError(f"estimator spec{where}: nested more than {_MAX_DEPTH} levels deep")
    if not isinstance(d, dict) or not isinstance(d.get("cls"), str):
        raise TypeError(f"an estimator spec must be a dict with a 'cls' string; got {d!r:.200}")
    mod, sep, qual = d["cls"].partition(":")
    if not sep or not mod or not qual:
        raise ValueError(f"estimator spec{where}: 'cls' must be 'module:QualName'; got {d['cls']!r:.200}")
    if _allowed_estimator(d["cls"], allow) is None:
        raise _refused("estimator", d["cls"], where)
    params = d.get("params") or {}
    if not isinstance(params, dict):
        raise TypeError(f"spec 'params' must be a dict; got {type(params).__name__}")
    for name, value in params.items():
        if name in _SECRET_PARAMS and value is not None:
            raise ValueError(f"estimator spec{where}: parameter {name!r} holds a literal credential; a spec never "
                             f"carries a key: give {name}_env='NAME OF AN ENVIRONMENT VARIABLE' instead")
        if name == "trust_remote_code" and value and not trust_remote_code:
            raise ValueError(f"estimator spec{where}: trust_remote_code=true would run model code downloaded "
                             "from the hub; a spec cannot ask for it (construct the estimator in Python, or "
                             "pass trust_remote_code=True to from_spec)")
        _check_value(value, allow, trust_remote_code, f"{where or ' at'} params[{name!r}]", depth + 1)


def _check_value(v: Any, allow: frozenset[str], trust_remote_code: bool, where: str, depth: int) -> None:
    if depth > _MAX_DEPTH:
        raise ValueError(f"estimator spec{where}: nested more than {_MAX_DEPTH} levels deep")
    if isinstance(v, list):
        for i, x in enumerate(v):
            _check_value(x, allow, trust_remote_code, f"{where}[{i}]", depth + 1)
    elif isinstance(v, dict):
        if set(v) == {_EST_KEY}:
            _check_tree(v[_EST_KEY], allow, trust_remote_code, where, depth + 1)
        elif set(v) == {_FN_KEY}:
            if not isinstance(v[_FN_KEY], str) or _allowed_callable(v[_FN_KEY], allow) is None:
                raise _refused("function", v[_FN_KEY], where)
        else:
            for k, x in v.items():
                _check_value(x, allow, trust_remote_code, f"{where}[{k!r}]", depth + 1)


def spec_paths(spec: EstimatorSpec | dict[str, Any]) -> frozenset[str]:
    """Every class and function path a spec names (for a trusted caller to pass on as ``allow``)."""
    d = spec.to_dict() if isinstance(spec, EstimatorSpec) else spec
    out = {d["cls"]}

    def walk(v: Any) -> None:
        if isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            if set(v) == {_EST_KEY}:
                out.update(spec_paths(v[_EST_KEY]))
            elif set(v) == {_FN_KEY}:
                out.add(v[_FN_KEY])
            else:
                for x in v.values():
                    walk(x)

    walk(d.get("params") or {})
    return frozenset(out)


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
        except RecursionError:
            raise ValueError(f"estimator spec is nested too deeply to read (more than {_MAX_DEPTH} levels "
                             "are refused)") from None
        return cls.from_dict(d)

    def build(self, *, allow: Iterable[str] = (), trust_remote_code: bool = False) -> Any:
        """Instantiate the estimator (no model is loaded until it first scores); see :func:`from_spec`."""
        return from_spec(self, allow=allow, trust_remote_code=trust_remote_code)


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


def _decode(value: Any, allow: frozenset[str]) -> Any:
    """Decode a parameter value already checked by :func:`_check_tree`."""
    if isinstance(value, list):
        return [_decode(v, allow) for v in value]
    if isinstance(value, dict):
        if set(value) == {_EST_KEY}:
            return _build(EstimatorSpec.from_dict(value[_EST_KEY]), allow)
        if set(value) == {_FN_KEY}:
            path = _allowed_callable(value[_FN_KEY], allow)
            if path is None:  # pragma: no cover - _check_tree refused it already
                raise _refused("function", value[_FN_KEY], "")
            fn = _import(path, "function")
            if path in _user_callables and fn is not _user_callables[path]:
                raise ValueError(f"function {path!r} imports as another object than the one registered")
            return fn
        return {k: _decode(v, allow) for k, v in value.items()}
    return value


def _build(spec: EstimatorSpec, allow: frozenset[str]) -> Any:
    path = _allowed_estimator(spec.cls, allow)
    if path is None:  # pragma: no cover - _check_tree refused it already
        raise _refused("estimator", spec.cls, "")
    cls = _import(path, "estimator class")
    if path in _user_estimators and cls is not _user_estimators[path]:
        raise ValueError(f"estimator class {path!r} imports as another object than the one registered")
    if not (inspect.isclass(cls) and issubclass(cls, BaseEstimator)) or cls is CallableEstimator:
        raise TypeError(f"{spec.cls!r} is not an estimator class (a subclass of BaseEstimator)")
    for name in getattr(cls, "_secret_params", ()):
        if spec.params.get(name) is not None:
            raise ValueError(f"estimator spec of {cls.__name__}: parameter {name!r} holds a literal credential; "
                             f"a spec never carries a key: give {name}_env='NAME OF AN ENVIRONMENT VARIABLE'")
    est = cls(**{k: _decode(v, allow) for k, v in spec.params.items()})
    if spec.fingerprint is not None and est.fingerprint != spec.fingerprint:
        raise ValueError(f"estimator built from the spec has fingerprint {est.fingerprint!r:.200}; the spec "
                         f"expects {spec.fingerprint!r:.200} (different package version or model files?)")
    return est


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
        if name in getattr(cls, "_secret_params", ()) or name in _SECRET_PARAMS:
            if getattr(estimator, attr, None) is not None:
                raise ValueError(
                    f"{cls.__name__}.{name} holds a literal key; a spec (shipped to Ray workers, written to "
                    f"files) never carries one: construct it with {name}_env='OPENAI_API_KEY' (the name of an "
                    f"environment variable set where the estimator runs) instead of {name}=")
            params[name] = None
            continue
        if not hasattr(estimator, attr):
            raise TypeError(f"{cls.__name__} keeps no attribute {attr!r} for its constructor argument {name!r}; "
                            "its spec cannot be recovered")
        params[name] = _encode(getattr(estimator, attr), f"{cls.__name__}.{name}")
    spec = EstimatorSpec(path, params, estimator.fingerprint)
    # the caller holds the object, so its classes and functions are trusted for the round trip
    rebuilt = from_spec(EstimatorSpec(path, params, None), allow=spec_paths(spec), trust_remote_code=True)
    if rebuilt.fingerprint != estimator.fingerprint:
        raise TypeError(f"{cls.__name__} rebuilt from its constructor arguments has fingerprint "
                        f"{rebuilt.fingerprint!r:.200}, not {estimator.fingerprint!r:.200}: it holds state the "
                        "constructor does not set, so it cannot be shipped as a spec")
    return spec


def from_spec(spec: EstimatorSpec | dict[str, Any] | str, *, allow: Iterable[str] = (),
              trust_remote_code: bool = False) -> Any:
    """Build the estimator a spec describes (a spec, its dict, or its JSON text).

    A spec is untrusted data: every class it names must be on the allow-list (the package's
    estimators, :func:`register_estimator`, the ``softirr_stats.estimators`` entry-point
    group) and every ``{"__callable__": ...}`` function too (:func:`register_callable`, the
    ``softirr_stats.callables`` group). The whole spec is checked before any module is
    imported; anything else is refused with a ``ValueError`` naming it, and nothing runs.
    When the spec carries a fingerprint, the built estimator must match it (a different
    package version or model files would otherwise fill a cache under the wrong key).

    Parameters
    ----------
    spec : EstimatorSpec, dict or str
        A spec, its ``to_dict()`` or its JSON text.
    allow : iterable of str, optional
        Further ``"module:QualName"`` paths the caller trusts for this call (the Ray backend
        passes the paths of the estimator object it was given).
    trust_remote_code : bool, default False
        Allow ``trust_remote_code=true`` in the spec (model code downloaded from the hub).

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
    if isinstance(allow, str):
        raise TypeError("allow must be an iterable of 'module:QualName' strings, not one string")
    allowed = frozenset(allow)
    _check_tree(spec.to_dict(), allowed, bool(trust_remote_code), "")
    return _build(spec, allowed)
