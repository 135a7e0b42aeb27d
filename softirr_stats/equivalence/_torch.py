"""Shared machinery for torch/transformers estimators (imported lazily).

``torch`` and ``transformers`` are imported inside functions only, so that
``import softirr_stats`` works without them (the ``[transformers]`` extra).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["resolve_device", "resolve_dtype", "load_pretrained", "load_shared", "clear_loaded_models",
           "run_batches", "model_identity", "check_token_limit"]

_LOADED: dict[tuple, tuple[Any, Any]] = {}
_LOAD_LOCK = threading.Lock()

_DTYPES = ("auto", "bf16", "fp16", "fp32")


def check_token_limit(max_length: Any, minimum: int, holds: str) -> None:
    """Refuse a ``max_length`` that is not None or a whole number of tokens >= ``minimum`` (what it ``holds``).

    >>> check_token_limit(None, 3, "a text")
    >>> check_token_limit(2, 3, "a text")
    Traceback (most recent call last):
    ...
    ValueError: max_length must be None (the model's limit) or a whole number of tokens >= 3 (a text); got 2
    """
    if max_length is not None and (isinstance(max_length, bool) or not isinstance(max_length, int)
                                   or max_length < minimum):
        raise ValueError(f"max_length must be None (the model's limit) or a whole number of tokens >= {minimum} "
                         f"({holds}); got {max_length!r}")


def _torch() -> Any:
    try:
        import torch
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError(
            "this estimator needs torch and transformers: pip install 'softirr-stats[transformers]'"
        ) from err
    return torch


def resolve_device(device: Any = None) -> Any:
    """``torch.device``: the given one, else the block's :func:`~softirr_stats.base._device.use_device`
    setting, else CUDA when available, else CPU. ``"auto"`` is the same as None.

    >>> resolve_device("cpu").type
    'cpu'
    """
    torch = _torch()
    if device is None or device == "auto":
        from softirr_stats.base._device import current_device

        device = current_device()
        if device == "auto":
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        out = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda', 'cuda:N' or another torch device; got {device!r}"
                         ) from None
    if out.type == "cuda" and not torch.cuda.is_available():
        build = "this torch build has no CUDA support" if torch.version.cuda is None else "torch sees no CUDA device"
        raise ValueError(f"device={device!r}: {build}; use device='cpu' (or 'auto', which picks CUDA when there "
                         "is one)")
    return out


def resolve_dtype(device: Any, dtype: Any = "auto") -> Any:
    """Compute dtype: bf16 on GPUs that support it, else fp16 on GPU; fp32 on CPU.

    ``dtype`` may be "auto", "bf16", "fp16", "fp32" or a ``torch.dtype``.
    """
    torch = _torch()
    if dtype is None or dtype == "auto":
        if device.type == "cuda":
            return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float16
        return torch.float32
    if isinstance(dtype, torch.dtype):
        return dtype
    table = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}
    if dtype not in table:
        raise ValueError(f"dtype must be one of {list(_DTYPES)} or a torch.dtype; got {dtype!r}")
    return table[dtype]


def model_identity(model: str | os.PathLike[str]) -> str:
    """Identity of a model for fingerprints: a hub name as given, or for a local
    directory its name plus a short hash of its config and weight-file sizes."""
    path = os.fspath(model)
    if not os.path.isdir(path):
        return path
    import hashlib

    h = hashlib.sha256()
    for fname in sorted(os.listdir(path)):
        full = os.path.join(path, fname)
        if fname.endswith(".json") and os.path.isfile(full):
            with open(full, "rb") as fh:
                h.update(fname.encode() + fh.read())
        elif os.path.isfile(full):
            h.update(f"{fname}:{os.path.getsize(full)}".encode())
    return f"{os.path.basename(os.path.normpath(path))}@{h.hexdigest()[:16]}"


def hub_unreachable(name: str, revision: str | None, *, timeout: float = 3.0) -> str | None:
    """Why the Hugging Face hub cannot be reached for a model not on this machine, else None.

    None too for a local directory, a model already in the cache, and offline mode (where
    ``from_pretrained`` fails at once by itself) or behind a proxy. A name that does not resolve or a host that
    does not answer within ``timeout`` seconds is reported in a few seconds instead of after
    the download's retries (about a minute).
    """
    if os.path.isdir(name):
        return None
    try:
        from huggingface_hub import constants, try_to_load_from_cache
    except ImportError:  # pragma: no cover - transformers depends on it
        return None
    proxied = any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
                                               "ALL_PROXY", "all_proxy"))
    if constants.HF_HUB_OFFLINE or proxied:  # behind a proxy a direct connection proves nothing
        return None
    try:
        if isinstance(try_to_load_from_cache(name, "config.json", revision=revision), str):
            return None
    except ValueError:  # not a repository id; from_pretrained says so itself
        return None
    import socket
    from urllib.parse import urlparse

    url = urlparse(constants.ENDPOINT)
    host, port = url.hostname or "", url.port or (80 if url.scheme == "http" else 443)
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as err:
        return f"{host}:{port}: {err.strerror or err}"
    return None


def load_pretrained(kind: str, model: str | os.PathLike[str], *, revision: str | None, dtype: Any,
                    trust_remote_code: bool, local_files_only: bool) -> tuple[Any, Any]:
    """Load ``(tokenizer, model)`` with safetensors only; clear error when unavailable.

    ``kind`` is "base", "sequence_classification" or "causal_lm". A "base" model in a local
    BERT directory (the bundled MiniLM) is read by :mod:`._bert` without transformers' loader
    (the same hidden states; a second or more of CPU less per process); every other model
    goes through ``from_pretrained``.
    """
    if kind == "base" and not trust_remote_code:
        from softirr_stats.equivalence._bert import load_bert, readable

        if readable(model):
            tok, enc = load_bert(model, dtype)
            return tok, enc.eval()
    import transformers as tf

    cls = {"base": tf.AutoModel, "sequence_classification": tf.AutoModelForSequenceClassification,
           "causal_lm": tf.AutoModelForCausalLM}[kind]
    name = os.fspath(model)
    common = dict(revision=revision, trust_remote_code=trust_remote_code, local_files_only=local_files_only)
    unreachable = None if local_files_only else hub_unreachable(name, revision)
    if unreachable:  # transformers would retry for about a minute before failing
        raise OSError(
            f"could not load model {name!r} (revision {revision!r}): it is neither a local directory nor in "
            f"the local Hugging Face cache, and the hub cannot be reached ({unreachable}). Pass a local model "
            "directory (saved with save_pretrained, safetensors weights), or download it first on a machine "
            "with network access"
        )
    try:
        tok = tf.AutoTokenizer.from_pretrained(name, **common)
        try:
            mdl = cls.from_pretrained(name, use_safetensors=True, dtype=dtype, **common)
        except TypeError:  # transformers 4.x spells it torch_dtype
            mdl = cls.from_pretrained(name, use_safetensors=True, torch_dtype=dtype, **common)
    except OSError as err:
        raise OSError(
            f"could not load model {name!r} (revision {revision!r}) with safetensors weights: it is "
            f"neither a local directory nor available in the local Hugging Face cache, and "
            f"downloading it needs network access. Pass a local model directory (saved with "
            f"save_pretrained, safetensors weights), or download it first. Original error: {err}"
        ) from err
    return tok, mdl.eval()


def load_shared(kind: str, model: str | os.PathLike[str], *, device: Any, revision: str | None, dtype: Any,
                trust_remote_code: bool, local_files_only: bool) -> tuple[Any, Any]:
    """:func:`load_pretrained` once per process for each model, revision, dtype and device.

    Estimators of the same model (a new ``Embedding()`` in each call of a loop, the report's
    and the coefficients' estimators) share one copy of the weights on the device instead of
    loading them again (seconds each, and a ``Loading weights`` bar on stderr every time). A
    local directory is keyed by its identity (:func:`model_identity`: name and a hash of its
    config and weight sizes), so a directory rewritten in place is loaded afresh. The models
    are in eval mode and only read; :func:`clear_loaded_models` frees them.

    Returns
    -------
    (tokenizer, model on ``device``)
    """
    key = (kind, model_identity(model), os.path.realpath(os.fspath(model)) if os.path.isdir(os.fspath(model))
           else os.fspath(model), revision, str(dtype), str(device), bool(trust_remote_code))
    with _LOAD_LOCK:
        hit = _LOADED.get(key)
        if hit is None:
            tok, mdl = load_pretrained(kind, model, revision=revision, dtype=dtype,
                                       trust_remote_code=trust_remote_code, local_files_only=local_files_only)
            hit = _LOADED[key] = (tok, mdl.to(device))
            from softirr_stats.base._device import note_model

            note_model(key[2], device, dtype)
    return hit


def clear_loaded_models() -> int:
    """Forget the models :func:`load_shared` keeps; returns how many there were."""
    with _LOAD_LOCK:
        n = len(_LOADED)
        _LOADED.clear()
    return n


def _is_oom(err: BaseException) -> bool:
    torch = _torch()
    if isinstance(err, getattr(torch.cuda, "OutOfMemoryError", ())):
        return True
    return isinstance(err, RuntimeError) and "out of memory" in str(err).lower()


def run_batches(fn: Callable[[np.ndarray], np.ndarray], lengths: Sequence[int] | np.ndarray, *, batch_size: int,
                desc: str, progress: bool | None = None, device: Any = None) -> tuple[np.ndarray, int]:
    """Apply ``fn(indices) -> rows`` over length-sorted batches; results in input order.

    Items are sorted by ``lengths`` (longest first, so a memory failure shows up at once)
    and cut into batches of ``batch_size``; on a CUDA out-of-memory error the batch size is
    halved and the batch retried. A tqdm bar is shown for more than one batch when
    ``progress`` is True, or when None as every bar of the package decides
    (:func:`softirr_stats.base._bars.bars_wanted`: on a terminal, not with ``SOFTIRR_PROGRESS=0``).
    Returns ``(rows, final_batch_size)``.
    """
    torch = _torch()
    n = len(lengths)
    order = np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")
    pieces: list[np.ndarray] = []
    done, bs = 0, int(batch_size)
    bar = None
    if progress is not False and n > bs:
        from softirr_stats.base._bars import progress_bar

        bar = progress_bar(n, desc, unit="item", show=progress, leave=True)
    try:
        while done < n:
            idx = order[done:done + bs]
            try:
                with torch.inference_mode():
                    rows = fn(idx)
            except Exception as err:  # noqa: BLE001 - only OOM is retried
                if not _is_oom(err) or bs == 1:
                    raise
                bs = max(1, bs // 2)
                if device is not None and getattr(device, "type", "") == "cuda":
                    torch.cuda.empty_cache()
                continue
            pieces.append(np.asarray(rows))
            done += idx.size
            if bar is not None:
                bar.update(idx.size)
    finally:
        if bar is not None:
            bar.close()
    if not pieces:
        return np.zeros((0,)), bs
    stacked = np.concatenate(pieces, axis=0)
    out = np.empty_like(stacked)
    out[order] = stacked
    return out, bs
