"""A BERT encoder read straight from a safetensors directory, without transformers' loader.

Loading a sentence-embedding model through ``transformers.AutoModel.from_pretrained`` costs
seconds of CPU before the first string is encoded: importing ``modeling_bert`` pulls in
transformers' generation, masking, kernel-hub and distributed-tensor modules. The encoder
itself is small: embeddings and ``num_hidden_layers`` post-norm transformer layers. This module
builds that forward pass from ``torch.nn.functional`` (attention by
``scaled_dot_product_attention``) and the tokenizer from ``tokenizer.json`` with the
``tokenizers`` library, for the directories it can read exactly: ``model_type`` "bert" with
absolute positions and the exact GELU, weights in ``model.safetensors``, a ``tokenizer.json``.
Anything else goes through transformers (:func:`readable` says which). The output equals
``BertModel(...).last_hidden_state`` to float rounding (``tests/equivalence/test_bert_encoder.py``).

torch, safetensors and tokenizers are imported inside the functions (the ``[transformers]``
extra).
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["readable", "load_bert"]

_NEEDS = {"model_type": "bert", "hidden_act": "gelu"}


def _config(path: str) -> dict[str, Any] | None:
    cfg = os.path.join(path, "config.json")
    if not os.path.isfile(cfg):
        return None
    with open(cfg, encoding="utf-8") as fh:
        return json.load(fh)


def readable(path: str | os.PathLike[str]) -> bool:
    """Whether :func:`load_bert` reads this model directory exactly (else use transformers).

    Examples
    --------
    >>> readable("/no/such/dir")
    False
    """
    path = os.fspath(path)
    if not os.path.isdir(path):
        return False
    cfg = _config(path)
    if cfg is None or any(cfg.get(k) != v for k, v in _NEEDS.items()):
        return False
    if cfg.get("position_embedding_type", "absolute") != "absolute" or cfg.get("is_decoder") \
            or cfg.get("add_cross_attention") or cfg.get("auto_map"):
        return False
    return all(os.path.isfile(os.path.join(path, f)) for f in ("model.safetensors", "tokenizer.json"))


class Config:
    """The few config fields the encoder and its callers read (``hidden_size``, ...)."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        self.hidden_size = int(cfg["hidden_size"])
        self.num_hidden_layers = int(cfg["num_hidden_layers"])
        self.num_attention_heads = int(cfg["num_attention_heads"])
        self.layer_norm_eps = float(cfg.get("layer_norm_eps", 1e-12))
        self.max_position_embeddings = int(cfg.get("max_position_embeddings", 512))
        self.pad_token_id = int(cfg.get("pad_token_id", 0) or 0)


class Output:
    """``last_hidden_state`` of a forward pass, as transformers' model output names it."""

    def __init__(self, last_hidden_state: Any) -> None:
        self.last_hidden_state = last_hidden_state


class BertEncoder:
    """Forward pass of a BERT encoder (eval mode, no pooler) over the weights of a state dict."""

    def __init__(self, weights: dict[str, Any], config: Config) -> None:
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in weights else ""
        self.w = {k[len(prefix):]: v for k, v in weights.items() if k.startswith(prefix)}
        self.config = config
        missing = [k for k in ("embeddings.word_embeddings.weight", "embeddings.position_embeddings.weight",
                               "embeddings.LayerNorm.weight", f"encoder.layer.{config.num_hidden_layers - 1}"
                               ".output.LayerNorm.bias") if k not in self.w]
        if missing:
            raise ValueError(f"the safetensors weights lack {missing}: not a BERT encoder")
        self.device = self.w["embeddings.word_embeddings.weight"].device

    def to(self, device: Any) -> BertEncoder:
        self.w = {k: v.to(device) for k, v in self.w.items()}
        self.device = device
        return self

    def eval(self) -> BertEncoder:
        return self

    def _ln(self, x: Any, name: str) -> Any:
        import torch.nn.functional as F

        return F.layer_norm(x, (x.shape[-1],), self.w[f"{name}.weight"], self.w[f"{name}.bias"],
                            self.config.layer_norm_eps)

    def _lin(self, x: Any, name: str) -> Any:
        import torch.nn.functional as F

        return F.linear(x, self.w[f"{name}.weight"], self.w[f"{name}.bias"])

    def __call__(self, input_ids: Any, attention_mask: Any, token_type_ids: Any = None) -> Output:
        import torch

        with torch.inference_mode():
            return Output(self._forward(input_ids, attention_mask, token_type_ids))

    def _forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
        import torch
        import torch.nn.functional as F

        w, cfg = self.w, self.config
        batch, seq = input_ids.shape
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        pos = torch.arange(seq, device=input_ids.device)
        h = (F.embedding(input_ids, w["embeddings.word_embeddings.weight"])
             + F.embedding(token_type_ids, w["embeddings.token_type_embeddings.weight"])
             + F.embedding(pos, w["embeddings.position_embeddings.weight"])[None])
        h = self._ln(h, "embeddings.LayerNorm")
        heads = cfg.num_attention_heads
        size = cfg.hidden_size // heads
        mask = attention_mask[:, None, None, :].to(torch.bool)  # keys a query may attend to

        def split(x: Any) -> Any:
            return x.view(batch, seq, heads, size).transpose(1, 2)

        for i in range(cfg.num_hidden_layers):
            p = f"encoder.layer.{i}"
            q, k, v = (split(self._lin(h, f"{p}.attention.self.{n}")) for n in ("query", "key", "value"))
            ctx = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
            ctx = ctx.transpose(1, 2).reshape(batch, seq, cfg.hidden_size)
            h = self._ln(self._lin(ctx, f"{p}.attention.output.dense") + h, f"{p}.attention.output.LayerNorm")
            inner = F.gelu(self._lin(h, f"{p}.intermediate.dense"))
            h = self._ln(self._lin(inner, f"{p}.output.dense") + h, f"{p}.output.LayerNorm")
        return h


class Tokenizer:
    """``tokenizer.json`` through the ``tokenizers`` library, with the two calls the estimators make."""

    def __init__(self, path: str, model_max_length: int) -> None:
        from tokenizers import Tokenizer as Fast

        self.backend = Fast.from_file(os.path.join(path, "tokenizer.json"))
        self.backend.no_truncation()
        self.backend.no_padding()
        self.model_max_length = model_max_length
        self.pad_token_id = 0

    def __call__(self, texts: list[str], truncation: bool = False, padding: bool = False,
                 add_special_tokens: bool = True) -> dict[str, list[list[int]]]:
        if truncation or padding:
            raise ValueError("this tokenizer only encodes (no truncation or padding here; see pad)")
        return {"input_ids": [e.ids for e in self.backend.encode_batch(texts, add_special_tokens=add_special_tokens)]}

    def pad(self, enc: dict[str, list[list[int]]], return_tensors: str = "pt") -> dict[str, Any]:
        import torch

        ids = enc["input_ids"]
        width = max((len(x) for x in ids), default=0)
        out = torch.full((len(ids), width), self.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(ids), width), dtype=torch.long)
        for row, x in enumerate(ids):  # one row per string of a batch (at most batch_size rows)
            out[row, :len(x)] = torch.tensor(x, dtype=torch.long)
            mask[row, :len(x)] = 1
        return {"input_ids": out, "attention_mask": mask}


def load_bert(path: str | os.PathLike[str], dtype: Any = None) -> tuple[Tokenizer, BertEncoder]:
    """``(tokenizer, encoder)`` of a directory :func:`readable` accepts (weights: safetensors only)."""
    from safetensors.torch import load_file

    path = os.fspath(path)
    if not readable(path):
        raise ValueError(f"{path!r} is not a BERT directory this loader reads (use transformers)")
    cfg = _config(path) or {}
    weights = load_file(os.path.join(path, "model.safetensors"))
    if dtype is not None:
        weights = {k: (v.to(dtype) if v.is_floating_point() else v) for k, v in weights.items()}
    limit = 512
    tcfg = os.path.join(path, "tokenizer_config.json")
    if os.path.isfile(tcfg):
        with open(tcfg, encoding="utf-8") as fh:
            limit = int(json.load(fh).get("model_max_length", 512) or 512)
    tok = Tokenizer(path, min(limit, 10**6))
    tok.pad_token_id = int(cfg.get("pad_token_id", 0) or 0)
    return tok, BertEncoder(weights, Config(cfg))
