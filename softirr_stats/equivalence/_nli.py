"""NLI mutual entailment ``sqrt(P(a => b) P(b => a))`` with a cross-encoder (seed paper eq. 5)."""

from __future__ import annotations

import os
import warnings
from typing import Any

import numpy as np

from softirr_stats.equivalence._protocol import (
    BaseEstimator,
    Labels,
    check_pair_inputs,
    check_strings,
)
from softirr_stats.equivalence._torch import (
    check_token_limit,
    load_shared,
    model_identity,
    resolve_device,
    resolve_dtype,
    run_batches,
)

__all__ = ["Nli", "entailment_index"]


def entailment_index(id2label: dict[Any, str], entailment_label: str | None = None) -> int:
    """Index of the entailment class in a model's ``config.id2label``.

    With ``entailment_label=None`` the label whose lower-cased name starts with "entail"
    (e.g. "ENTAILMENT", "entailment"); "not_entailment" does not count.

    Examples
    --------
    >>> entailment_index({0: "contradiction", 1: "entailment", 2: "neutral"})
    1
    >>> entailment_index({0: "ENTAILMENT", 1: "NOT_ENTAILMENT"})
    0
    """
    labels = {int(k): str(v) for k, v in id2label.items()}
    if entailment_label is not None:
        hits = [k for k, v in labels.items() if v == entailment_label]
    else:
        hits = [k for k, v in labels.items() if v.lower().startswith("entail")]
    if len(hits) != 1:
        raise ValueError(
            f"cannot identify the entailment class in config.id2label={labels}; pass "
            f"entailment_label=<one of {sorted(labels.values())}>"
        )
    return hits[0]




class Nli(BaseEstimator):
    """Mutual entailment ``sqrt(P(a => b) P(b => a))`` from an NLI cross-encoder.

    Parameters
    ----------
    model : str or path-like
        Local directory (or hub name, needing the HF cache or network) of a
        sequence-classification model with an entailment class in ``config.id2label``.
    entailment_label : str, optional
        Name of the entailment class when it cannot be found automatically.
    batch_size : int, default 64
        Directed pairs per forward pass (both directions of all pairs go into one
        length-sorted stream; halved on GPU out-of-memory).
    max_length : int, optional
        Token limit for a (premise, hypothesis) pair (default: the tokenizer's, at most
        512). Truncated pairs are counted in :attr:`n_truncated` and a warning is issued.
    device, dtype, revision, trust_remote_code, local_files_only, progress
        As for :class:`~softirr_stats.equivalence.Embedding`.

    Notes
    -----
    Symmetric by construction. :meth:`entailment` gives the directional
    ``P(premise => hypothesis)``. Equal strings score 1 without a model call.

    Examples
    --------
    The cross-encoder is loaded when the first pair is scored:

    >>> est = Nli("path/to/nli-model")
    >>> est.name, est.symmetric
    ('nli', True)
    """

    name = "nli"
    symmetric = True

    def __init__(self, model: str | os.PathLike[str], *, entailment_label: str | None = None,
                 batch_size: int = 64, max_length: int | None = None, device: Any = None,
                 dtype: Any = "auto", revision: str | None = None, trust_remote_code: bool = False,
                 local_files_only: bool = False, progress: bool | None = None) -> None:
        if model is None:
            raise ValueError("Nli needs model=<local directory or hub name of an NLI cross-encoder>; "
                             "no NLI weights ship with the package")
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}")
        check_token_limit(max_length, 5, "a pair needs its start, separator and end tokens and one of each text")
        self.model = model
        self.entailment_label = entailment_label
        self.batch_size = batch_size
        self.max_length = max_length
        self.device_arg, self.dtype_arg = device, dtype
        self.revision = revision
        self.trust_remote_code = bool(trust_remote_code)
        self.local_files_only = bool(local_files_only)
        self.progress = progress
        self.n_truncated = 0
        self.n_forward = 0
        self._tok: Any = None
        self._mdl: Any = None

    def _settings(self) -> dict[str, Any]:
        return {"model": model_identity(self.model), "revision": self.revision,
                "entailment_label": self.entailment_label, "max_length": self.max_length,
                "combine": "sqrt(p_ab*p_ba)"}

    def _load(self) -> None:
        if self._mdl is not None:
            return
        self.device = resolve_device(self.device_arg)
        self.dtype = resolve_dtype(self.device, self.dtype_arg)
        tok, mdl = load_shared("sequence_classification", self.model, device=self.device,
                               revision=self.revision, dtype=self.dtype,
                               trust_remote_code=self.trust_remote_code,
                               local_files_only=self.local_files_only)  # one load per process and device
        self._entail = entailment_index(mdl.config.id2label, self.entailment_label)
        pos = int(getattr(mdl.config, "max_position_embeddings", 512) or 512)
        tl = getattr(tok, "model_max_length", 512) or 512
        self._max_len = int(min(self.max_length, pos) if self.max_length else min(tl, pos, 512))
        self._tok, self._mdl = tok, mdl

    def entailment(self, premises: Labels, hypotheses: Labels) -> np.ndarray:
        """Directional ``P(premise_i => hypothesis_i)`` (float64), length-sorted batches."""
        pa, ph = check_pair_inputs(premises, hypotheses)
        check_strings(pa, "premises", "Nli", ". Use SetMatch(Nli(...)) for set-valued labels")
        check_strings(ph, "hypotheses", "Nli", ". Use SetMatch(Nli(...)) for set-valued labels")
        if pa.size == 0:
            return np.zeros(0)
        self._load()
        tok, mdl = self._tok, self._mdl
        P, H = pa.tolist(), ph.tolist()
        # token counts of each distinct string (cheap), so truncation is known without a
        # second pass over the pairs; then one tokenisation pass over all pairs
        uniq = list(dict.fromkeys(P + H))
        ulen = dict(zip(uniq, map(len, tok(uniq, add_special_tokens=False)["input_ids"]), strict=True))
        extra = tok.num_special_tokens_to_add(pair=True)
        lengths = np.fromiter((ulen[p] + ulen[h] + extra for p, h in zip(P, H, strict=True)),
                              dtype=np.int64, count=len(P))
        n_trunc = int((lengths > self._max_len).sum())
        if n_trunc:
            self.n_truncated += n_trunc
            warnings.warn(f"Nli: {n_trunc} of {len(P)} (premise, hypothesis) pairs exceed "
                          f"{self._max_len} tokens and were truncated (longest first); "
                          f"n_truncated={self.n_truncated} so far", stacklevel=3)
        enc = tok(P, H, truncation="longest_first" if n_trunc else False, max_length=self._max_len,
                  padding=False)
        keys = [k for k in ("input_ids", "token_type_ids", "attention_mask") if k in enc]

        def fn(idx: np.ndarray) -> np.ndarray:
            sel = idx.tolist()
            batch = tok.pad({k: [enc[k][i] for i in sel] for k in keys}, return_tensors="pt")
            batch = {k: v.to(self.device) for k, v in batch.items()}
            logits = mdl(**batch).logits.float()
            self.n_forward += 1
            return logits.log_softmax(-1)[:, self._entail].exp().cpu().numpy()

        out, _ = run_batches(fn, np.minimum(lengths, self._max_len), batch_size=self.batch_size,
                             desc="nli", progress=self.progress, device=self.device)
        return out.astype(np.float64)

    def _check_inputs(self, a: np.ndarray, b: np.ndarray) -> None:
        check_strings(a, "a", "Nli", ". Use SetMatch(Nli(...)) for set-valued labels")
        check_strings(b, "b", "Nli", ". Use SetMatch(Nli(...)) for set-valued labels")

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        n = a.shape[0]
        both = self.entailment(np.concatenate([a, b]), np.concatenate([b, a]))  # one stream
        return np.sqrt(np.clip(both[:n], 0, 1) * np.clip(both[n:], 0, 1))


