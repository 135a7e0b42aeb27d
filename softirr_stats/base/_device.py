"""Where the package computes: one device setting for torch scoring and JAX kernels and fits.

``device`` is ``"auto"`` (CUDA when torch or JAX sees one, else the CPU), ``"cpu"`` or ``"cuda"``.
An estimator's own ``device=`` argument wins; otherwise :func:`use_device` (the CLI's
``--device``) sets the default for the block. Nothing here imports torch or JAX at import time.

Examples
--------
>>> check_device("CPU")
'cpu'
>>> with use_device("cpu"):
...     current_device()
'cpu'
>>> current_device()
'auto'
"""

from __future__ import annotations

import contextvars
import functools
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

__all__ = ["DEVICES", "check_device", "current_device", "use_device", "jax_device_scope", "describe_compute",
           "note_model", "compute_record", "device_scoped"]

#: The accepted ``device`` names (the CLI's ``--device`` choices).
DEVICES = ("auto", "cpu", "cuda")

_DEVICE: contextvars.ContextVar[str] = contextvars.ContextVar("softirr_device", default="auto")
#: (model, device, dtype) of every torch model loaded in this process (recorded by the loader)
_MODELS: dict[tuple[str, str, str], None] = {}


def check_device(device: Any) -> str:
    """``device`` as one of :data:`DEVICES` (None is ``"auto"``); a clear error otherwise.

    >>> check_device(None)
    'auto'
    >>> check_device("gpu")
    Traceback (most recent call last):
    ...
    ValueError: device must be one of ['auto', 'cpu', 'cuda']; got 'gpu'
    """
    if device is None:
        return "auto"
    if not isinstance(device, str):
        raise TypeError(f"device must be a str, one of {list(DEVICES)}; got {type(device).__name__}")
    name = device.strip().lower()
    if name not in DEVICES:
        raise ValueError(f"device must be one of {list(DEVICES)}; got {device!r}")
    return name


def current_device() -> str:
    """The device set by the innermost :func:`use_device` block (``"auto"`` outside any)."""
    return _DEVICE.get()


@contextmanager
def use_device(device: Any) -> Iterator[str]:
    """Compute on ``device`` inside the block: the default of torch estimators and of JAX work.

    ``"cpu"`` before JAX is first imported keeps JAX on the CPU for the process
    (``JAX_PLATFORMS=cpu``), so a GPU is never initialised; after, JAX's default device is the CPU
    inside the block. ``"cuda"`` raises a clear error when no CUDA device is visible.
    """
    name = check_device(device)
    if name == "cuda":
        _require_cuda()
    if name == "cpu" and "jax" not in sys.modules:
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
    token = _DEVICE.set(name)
    try:
        with jax_device_scope(name):
            yield name
    finally:
        _DEVICE.reset(token)


def jax_device_scope(device: str) -> Any:
    """``jax.default_device`` for ``"cpu"`` / ``"cuda"`` when JAX is already loaded; else nothing."""
    if device == "auto" or "jax" not in sys.modules:
        return nullcontext()
    import jax

    platform = "gpu" if device == "cuda" else "cpu"
    try:
        dev = jax.devices(platform)[0]
    except RuntimeError:
        if device == "cpu":
            return nullcontext()
        raise ValueError("device='cuda': JAX sees no CUDA device (install jax[cuda] or use device='cpu')") from None
    return jax.default_device(dev)


def _require_cuda() -> None:
    """A clear error when no CUDA device can be visible, checked without importing torch or JAX.

    No NVIDIA driver (``/proc/driver/nvidia/version``) or ``CUDA_VISIBLE_DEVICES`` hiding every
    device means none; where torch or JAX is already loaded, their own answer is asked too. A
    build of torch or JAX without CUDA support still fails later, with its own message.
    """
    hidden = os.environ.get("CUDA_VISIBLE_DEVICES", None)
    seen = os.path.exists("/proc/driver/nvidia/version") and hidden not in ("", "-1")
    torch = sys.modules.get("torch")
    if seen and torch is not None and hasattr(torch, "cuda"):
        seen = bool(torch.cuda.is_available())
    jax = sys.modules.get("jax")
    if seen and torch is None and jax is not None and hasattr(jax, "devices"):
        try:
            seen = any(d.platform == "gpu" for d in jax.devices())
        except RuntimeError:  # pragma: no cover - a backend that cannot start
            seen = False
    if not seen:
        raise ValueError("device='cuda' but no CUDA device is visible (no NVIDIA driver, or CUDA_VISIBLE_DEVICES "
                         "hides every device); use device='cpu' or device='auto'")


def describe_compute(device: Any = None, dtype: Any = None) -> dict[str, str]:
    """``{"device": ..., "dtype": ...}`` as recorded in results (names, not objects).

    >>> describe_compute("cpu", "float32")
    {'device': 'cpu', 'dtype': 'float32'}
    """
    dev = str(getattr(device, "type", device) or current_device())
    dt = str(dtype).replace("torch.", "") if dtype is not None else "float64"
    return {"device": dev, "dtype": dt}


def note_model(model: str, device: Any, dtype: Any) -> None:
    """Record that ``model`` was loaded on ``device`` in ``dtype`` (for :func:`compute_record`)."""
    _MODELS[(str(model), str(getattr(device, "type", device)), str(dtype).replace("torch.", ""))] = None


def compute_record() -> dict[str, Any]:
    """Where this process computed: the device setting, JAX's backend (when JAX ran) and every torch
    model with its device and dtype; written into JSON results and the report's provenance.

    >>> sorted(compute_record())
    ['device', 'jax_backend', 'models']
    """
    jax_backend = None
    if "jax" in sys.modules:
        import jax

        try:
            jax_backend = jax.default_backend()
        except RuntimeError:  # pragma: no cover - no backend could start
            jax_backend = None
    models = [{"model": m, "device": d, "dtype": t} for m, d, t in _MODELS]
    return {"device": current_device(), "jax_backend": jax_backend, "models": models}


def device_scoped(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``fn`` inside :func:`use_device` of its ``device=`` keyword (nothing when None or absent).

    >>> @device_scoped
    ... def where(*, device=None):
    ...     return current_device()
    >>> where(device="cpu"), where()
    ('cpu', 'auto')
    """

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        device = kwargs.get("device")
        with nullcontext() if device is None else use_device(device):
            return fn(*args, **kwargs)

    return run
