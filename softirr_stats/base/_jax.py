"""JAX helpers: float64 without touching the user's global configuration; the compile cache.

Importing this module does not import JAX: :func:`x64` and :func:`jit` import it at their
first use, so a module can declare compiled kernels and still be imported cheaply.

Compiled programs are kept between processes in JAX's persistent compilation cache, in the
user cache directory (``~/.cache/softirr_stats/jax`` on Linux). It is switched on at the
package's first JAX use (never by ``import softirr_stats``) unless the user configured JAX's
own cache already. Control it with the environment variable ``SOFTIRR_COMPILE_CACHE`` (``0`` /
``off`` disables it, a path moves it) or with :func:`compile_cache`.
"""

import contextlib
import importlib
import logging
import os
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

from softirr_stats.base._env import flag_word
from softirr_stats.base._validation import SoftIRRWarning

__all__ = ["x64", "jit", "lazy_module", "namespace", "compile_cache", "default_cache_dir", "exported_program", "ENV_VAR",
           "CompileCacheWarning", "compiling"]

F = TypeVar("F", bound=Callable[..., Any])

ENV_VAR = "SOFTIRR_COMPILE_CACHE"
_MIN_COMPILE_SECS = 0.0  # keep every program: the small eager ones of a point estimate add up in a new process
_NOTICE_AFTER_SECS = 2.0
_log = logging.getLogger("softirr_stats")


@contextmanager
def x64() -> Iterator[None]:
    """Enable 64-bit JAX types inside the block only (restores the previous setting).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> with x64():
    ...     print(jnp.ones(1).dtype)
    float64
    """
    import jax

    _ensure_initialised()
    with jax.enable_x64(True):
        yield


def jit(fn: F | None = None, **jit_kwargs: Any) -> Any:
    """``jax.jit`` applied at the first call, so that defining a kernel does not import JAX.

    Use as ``@jit`` or ``@partial(jit, static_argnames=...)``, like ``jax.jit``.

    Examples
    --------
    >>> @jit
    ... def double(x):
    ...     return 2 * x
    >>> int(double(3))
    6
    """
    if fn is None:
        return lambda f: jit(f, **jit_kwargs)
    compiled: list[Any] = []

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not compiled:
            import jax

            _ensure_initialised()
            compiled.append(jax.jit(fn, **jit_kwargs))
        return compiled[0](*args, **kwargs)

    return wrapper


class _LazyModule(types.ModuleType):
    """A module imported at its first attribute access (``jnp = lazy_module("jax.numpy")``)."""

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        _ensure_initialised()
        return getattr(importlib.import_module(self.__name__), attr)


def lazy_module(name: str) -> Any:
    """``name`` as a module object that imports the real module when first used.

    Examples
    --------
    >>> jnp = lazy_module("jax.numpy")
    >>> int(jnp.add(1, 2))
    3
    """
    return _LazyModule(name)


def namespace(x: Any) -> Any:
    """The array namespace of ``x``: NumPy for NumPy arrays and scalars, else ``jax.numpy``.

    One kernel source serves both: a function written against ``xp = namespace(x)`` runs in
    NumPy on NumPy input (no JAX import, nothing to compile) and traces under ``jax.jit``.

    Examples
    --------
    >>> import numpy as np
    >>> namespace(np.ones(2)).__name__
    'numpy'
    """
    import numpy as np

    if isinstance(x, np.ndarray | np.generic | float | int):
        return np
    import jax.numpy as jnp

    return jnp


def default_cache_dir() -> Path:
    """The per-user directory of compiled programs (platformdirs' user cache dir + ``jax``).

    Examples
    --------
    >>> default_cache_dir().name
    'jax'
    """
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("softirr_stats", appauthor=False)) / "jax"


def _from_env() -> Path | None:
    """``SOFTIRR_COMPILE_CACHE``: a path, or a boolean word (``base._env.flag_word``, the one reading of the
    package's on/off variables; ``none`` also turns it off); unset or empty is on, in the default directory."""
    value = os.environ.get(ENV_VAR, "").strip()
    on = flag_word(value) if value.lower() != "none" else False
    if on is False:
        return None
    if on or not value:
        return default_cache_dir()
    return Path(value).expanduser()


def compile_cache(path: "str | os.PathLike[str] | bool | None" = True) -> Path | None:
    """Turn the persistent compilation cache on, move it, or turn it off, for this process.

    Parameters
    ----------
    path : True, False, None or a path
        True: the default directory (:func:`default_cache_dir`); a path: that directory
        (created when needed); False or None: no cache (every new process compiles again).

    Returns
    -------
    The directory in use, or None when the cache is off.

    Notes
    -----
    JAX's cache is process-wide: this sets ``jax_compilation_cache_dir``. Clearing the
    cache is deleting the directory. The environment variable ``SOFTIRR_COMPILE_CACHE``
    (``0`` to disable, or a path) sets the default for new processes.

    Examples
    --------
    >>> import tempfile, jax
    >>> previous = jax.config.jax_compilation_cache_dir
    >>> where = compile_cache(tempfile.mkdtemp())
    >>> compile_cache(False) is None
    True
    >>> _ = compile_cache(previous or False)  # back to what it was
    """
    _ensure_initialised()
    if path is True:
        target: Path | None = default_cache_dir()
    elif path is False or path is None:
        target = None
    elif isinstance(path, str | os.PathLike):
        target = Path(path).expanduser()
    else:
        raise TypeError(f"path must be True, False, None or a path; got {type(path).__name__}: {path!r}")
    _apply(target)
    return target


def _apply(target: Path | None) -> None:
    import jax
    from jax.experimental.compilation_cache import compilation_cache as cc

    if target is not None:
        target.mkdir(parents=True, exist_ok=True)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", _MIN_COMPILE_SECS)
    jax.config.update("jax_compilation_cache_dir", None if target is None else str(target))
    cc.reset_cache()  # JAX reads the directory once per process; make the change take effect


_EXPORTED: dict[str, Any] = {}  # fingerprint -> jax.export.Exported, for this process
_EXPORTED_KEPT = 32
_EXPORT_FORMAT = b"softirr exported program 2"
#: A kept program file: this line, the key it was built for (its file name), the SHA-256 of
#: the serialised program, then the program. Checked before the program is used.
_FILE_MAGIC = b"softirr-exported-program 2\n"


class CompileCacheWarning(SoftIRRWarning):
    """A compiled-program file was damaged or not the program named (rebuilt), or the cache is unusable."""


def exported_program(fn: Callable[..., Any], args: tuple, fingerprint: bytes | None) -> Any:
    """``jax.export`` of ``jax.jit(fn)`` at ``args``, kept on disk beside the compile cache.

    A large program (a whole NUTS run) spends most of a warm start tracing ``fn`` in Python
    and lowering it, before the persistent compile cache can even be asked. The exported
    program (StableHLO, serialised by JAX as a flatbuffer, no pickle) is stored under
    ``exported/`` in the compile cache directory, named by a hash of ``fingerprint`` and of
    the JAX version, and read back instead of tracing; call it with ``.call(*args)``.

    ``fingerprint`` must identify everything the program depends on besides the shapes and
    dtypes of ``args`` (the code, the data closed over, the settings); None keeps the program
    in this process only. A file that cannot be read is traced again and replaced. Nothing
    is stored when the compile cache is off or ``flatbuffers`` is missing.

    Examples
    --------
    >>> import numpy as np
    >>> program = exported_program(lambda x: 2 * x, (np.float32(3.0),), None)
    >>> float(program.call(np.float32(3.0)))
    6.0
    """
    import hashlib

    import jax
    from jax import export

    _ensure_initialised()
    if fingerprint is None:
        return export.export(jax.jit(fn))(*args)
    sig = repr([(tuple(getattr(a, "shape", ())), str(getattr(a, "dtype", type(a).__name__)))
                for a in jax.tree.leaves(args)])
    digest = hashlib.sha256(b"\0".join([_EXPORT_FORMAT, jax.__version__.encode(), sig.encode(), fingerprint,
                                         jax.default_backend().encode()])).hexdigest()[:40]
    if digest in _EXPORTED:
        return _EXPORTED[digest]
    where = jax.config.jax_compilation_cache_dir
    path = Path(where) / "exported" / f"{digest}.jaxexport" if where else None
    program = None
    if path is not None and path.is_file():
        program, why = _load(path, digest, args)
        if program is None:
            import warnings

            warnings.warn(f"the compiled program {path} {why}; it is not used: traced again and replaced",
                          CompileCacheWarning, stacklevel=3)
    if program is None:
        program = export.export(jax.jit(fn))(*args)
        if path is not None:
            _store(program, path)
    if len(_EXPORTED) >= _EXPORTED_KEPT:  # a long session fitting many data sets: forget the oldest
        _EXPORTED.pop(next(iter(_EXPORTED)))
    _EXPORTED[digest] = program
    return program


def _load(path: Path, digest: str, args: tuple) -> tuple[Any, str]:
    """The program kept in ``path`` if it is the one named ``digest`` and whole; else (None, why).

    Trusted by content, not by name: the header must name ``digest`` (a file copied over
    another's name names its own), the SHA-256 of the program must match (a damaged file does
    not), and the program must take arguments of the shapes of ``args``.
    """
    import hashlib

    import jax
    from jax import export

    try:
        raw = path.read_bytes()
    except OSError as err:
        return None, f"cannot be read ({err.strerror or err})"
    if not raw.startswith(_FILE_MAGIC):
        return None, "is not a softirr program file (damaged, or written by something else)"
    head, _, rest = raw[len(_FILE_MAGIC):].partition(b"\n")
    checksum, _, blob = rest.partition(b"\n")
    if head != digest.encode():
        return None, "holds another program than its name says (copied over it?)"
    if hashlib.sha256(blob).hexdigest().encode() != checksum:
        return None, "is damaged (its checksum does not match)"
    try:
        program = export.deserialize(bytearray(blob))
    except Exception as err:  # noqa: BLE001 - whole but unreadable (another JAX build): trace again
        return None, f"cannot be read back ({type(err).__name__})"
    want = [(tuple(getattr(a, "shape", ())), str(getattr(a, "dtype", ""))) for a in jax.tree.leaves(args)]
    have = [(tuple(a.shape), str(a.dtype)) for a in program.in_avals]
    if [w[0] for w in want] != [h[0] for h in have]:
        return None, "takes arguments of other shapes than this call"
    return program, ""


def _store(program: Any, path: Path) -> None:
    """Write the program atomically with its header (skipped when it cannot be serialised or written)."""
    import hashlib

    try:
        blob = bytes(program.serialize())
    except ImportError:  # flatbuffers is not installed: keep the program in this process only
        return
    header = _FILE_MAGIC + path.stem.encode() + b"\n" + hashlib.sha256(blob).hexdigest().encode() + b"\n"
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(header + blob)
        os.replace(tmp, path)
    except OSError as err:  # a read-only or full cache: this process keeps the program in memory
        with contextlib.suppress(OSError):
            tmp.unlink()
        _cache_unusable(path.parent, err)


_CACHE_WARNED: set[str] = set()


def _cache_unusable(where: Path, err: OSError) -> None:
    """Warn once per directory that the compile cache cannot be written."""
    import warnings

    if str(where) in _CACHE_WARNED:
        return
    _CACHE_WARNED.add(str(where))
    warnings.warn(f"the compile cache {where} cannot be written ({err.strerror or err}); running without it "
                  f"(programs are compiled again in every new process). Set {ENV_VAR} to a writable directory, "
                  f"or {ENV_VAR}=0", CompileCacheWarning, stacklevel=4)


class _CompileNotice:
    """Log one line, once per process, when compiling has taken more than a couple of seconds.

    JAX reports the start (a scalar event) and the end (a duration) of every backend compile,
    and, when the persistent cache is asked, the request and a hit. A program read back from
    the cache was not compiled: its time does not count, and a timer armed with the time left
    of the budget fires only while a compile is running. While the cache has not answered yet
    (a request without a hit so far), the timer waits up to ``grace`` seconds for it.
    """

    _EVENT = "/jax/core/compile/backend_compile_duration"

    def __init__(self, budget: float, grace: float = 1.0) -> None:
        self.left = budget
        self.grace = grace
        self.timer: threading.Timer | None = None
        self.done = False
        self.lock = threading.Lock()
        self.phase = "idle"  # idle | asking (start, cache not answered yet) | hit | compiling
        self.since = 0.0

    def _arm(self, delay: float) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.timer = threading.Timer(max(delay, 0.0), self.fire)
        self.timer.daemon = True
        self.timer.start()

    def start(self, event: str, value: float, **_: Any) -> None:
        if event != self._EVENT or self.done:
            return
        import time

        with self.lock:
            self.phase, self.since = "asking", time.monotonic()
            self._arm(self.left)

    def cache_event(self, event: str, **_: Any) -> None:
        import time

        with self.lock:
            if event == "/jax/compilation_cache/cache_hits":
                self.phase = "hit"
            elif event == "/jax/compilation_cache/compile_requests_use_cache":
                self.phase, self.since = "asking", time.monotonic()

    def end(self, event: str, duration: float, **_: Any) -> None:
        if event != self._EVENT:
            return
        with self.lock:
            compiled = self.phase != "hit"
            if compiled:
                self.left -= duration
            self.phase = "idle"
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
        if compiled and self.left <= 0.0:
            self.fire(final=True)

    def fire(self, final: bool = False) -> None:
        import time

        with self.lock:
            if self.done or (not final and self.phase in ("idle", "hit")):
                return
            waited = time.monotonic() - self.since
            if not final and self.phase == "asking" and waited < self.grace:
                self._arm(self.grace - waited)  # the cache may still be reading the program back
                return
            self.done = True
        import jax

        where = jax.config.jax_compilation_cache_dir
        tail = (f"kept in {where} for the next run ({ENV_VAR}=0 disables)" if where
                else f"the compile cache is off: set {ENV_VAR}=1 to keep them between runs")
        what = _subjects[-1] if _subjects else "once per machine for data of this shape"
        _log.warning("softirr_stats: compiling JAX programs %s; %s", what, tail)


_notice = _CompileNotice(_NOTICE_AFTER_SECS)

#: What the compile notice says is being compiled (innermost :func:`compiling` block last).
_subjects: list[str] = []


@contextmanager
def compiling(what: str) -> Iterator[None]:
    """Within the block, the compile notice names ``what`` is compiled and how often.

    ``what`` follows "compiling JAX programs", e.g. ``"for an SVI fit of mace (its
    optimisation steps and draws), once per machine and shape of data"``. Outside every block
    the notice says "once per machine for data of this shape". The notice is read by a timer
    thread while a compile runs, so the setting is the process's, not the thread's: a fit run
    in a worker thread is named by the block its caller opened.

    Examples
    --------
    >>> with compiling("for a NUTS fit of mace, once per shape of data"):
    ...     _subjects[-1]
    'for a NUTS fit of mace, once per shape of data'
    >>> _subjects
    []
    """
    _subjects.append(str(what))
    try:
        yield
    finally:
        _subjects.pop()


_initialised = threading.Event()
_init_lock = threading.Lock()


def _ensure_initialised() -> None:
    """At the first JAX use: the compile notice's listeners and the default compile cache."""
    if _initialised.is_set():
        return
    with _init_lock:
        if _initialised.is_set():
            return
        import jax
        from jax import monitoring

        monitoring.register_scalar_listener(_notice.start)
        monitoring.register_event_duration_secs_listener(_notice.end)
        monitoring.register_event_listener(_notice.cache_event)
        target = _from_env() if ENV_VAR in os.environ else (
            default_cache_dir() if jax.config.jax_compilation_cache_dir is None else False)
        if target is not False:  # a cache the user configured in JAX stays as it is
            try:
                if target is not None:
                    _check_writable(target)
                _apply(target)  # our variable wins; else on by default
            except OSError as err:  # a read-only cache home: run uncached, say so once
                _apply(None)
                _cache_unusable(target, err)  # type: ignore[arg-type]
        _initialised.set()


def _check_writable(target: Path) -> None:
    """Create ``target`` and write (then remove) a probe file in it; OSError when it cannot be."""
    target.mkdir(parents=True, exist_ok=True)
    probe = target / f".probe-{os.getpid()}"
    probe.write_bytes(b"")
    probe.unlink()
