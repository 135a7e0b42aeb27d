"""LLM judges of semantic equivalence (seed paper eqs. 6-8 style).

Two modes:

- ``"logprob"``: ask a yes/no question and read the next-token distribution:
  ``P(a == b) = P(yes) / (P(yes) + P(no))``, where ``P(yes)`` sums the probabilities of the
  single-token variants of "yes" (" Yes", "Yes", "yes", ...), likewise for "no".
- ``"verbalised"``: ask for a probability, decode greedily (deterministic), and parse a
  JSON object ``{"probability": p}``, else the number after the last cue ("probability:",
  "answer:", "score:", ...), else a number in [0, 1] that ends the answer (a percentage is
  divided by 100). A negative number or one above 1 is refused, never read without its sign.
  Unparseable answers are counted in ``n_failures``/``failures`` and either raise
  (default) or give NaN with a warning; never a silent 0.

Backends: :class:`LlmJudge` (local transformers causal LM) and
:class:`OpenAICompatibleJudge` (HTTP client for an OpenAI-compatible server such as vLLM;
standard library only).
"""

from __future__ import annotations

import json
import math
import os
import re
import urllib.parse
import warnings
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

import numpy as np

from softirr_stats.equivalence._http import (
    HttpReplyError,
    clean_api_key,
    is_loopback,
    post_json,
    redact,
    redact_cut,
)
from softirr_stats.equivalence._protocol import BaseEstimator, check_strings, short_repr
from softirr_stats.equivalence._torch import (
    load_shared,
    model_identity,
    resolve_device,
    resolve_dtype,
    run_batches,
)

__all__ = ["LlmJudge", "OpenAICompatibleJudge", "LOGPROB_PROMPT", "VERBALISED_PROMPT",
           "parse_probability", "format_prompt"]

#: Default yes/no prompt (``{a}`` and ``{b}`` are replaced by the two labels).
LOGPROB_PROMPT = (
    "Two annotators labelled the same document independently.\n"
    "Annotation A: {a}\n"
    "Annotation B: {b}\n"
    "Do annotation A and annotation B mean the same thing (are they semantically equivalent)? "
    "Answer with one word: Yes or No."
)

#: Default verbalised-probability prompt.
VERBALISED_PROMPT = (
    "Two annotators labelled the same document independently.\n"
    "Annotation A: {a}\n"
    "Annotation B: {b}\n"
    "What is the probability that annotation A and annotation B mean the same thing "
    "(are semantically equivalent)? Reply with JSON only, in the form "
    '{"probability": p} with p a number between 0 and 1.'
)

YES_VARIANTS = ("Yes", " Yes", "yes", " yes", "YES", " YES")
NO_VARIANTS = ("No", " No", "no", " no", "NO", " NO")
_MODES = ("logprob", "verbalised")
_ON_FAILURE = ("nan", "raise")
_PLACEHOLDER = re.compile(r"\{(a|b)\}")
#: sign, number (a decimal point or comma), an optional ``/ denominator``, an optional percent sign.
_NUM = (r"([-+\u2212]?)\s*(\d+(?:[.,]\d+)?(?:[eE][-+]?\d+)?|[.,]\d+)"
        r"(?:\s*/\s*(\d+(?:\.\d+)?)(?!\d|[.,]\d))?\s*(%|percent\b)?")
#: A comma read as a decimal comma: not a thousands separator (``1,000``) and not a list (``0,8,9``).
_DECIMAL_COMMA = re.compile(r"(?:0?,\d+|[1-9]\d*,(?!\d{3}$)\d+)")
_NUMBER = re.compile(r"(?<![\w.])" + _NUM)
_JSON_OBJ = re.compile(r"\{[^{}]*\}")
_KEYS = ("probability", "prob", "p", "score", "equivalence", "similarity")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: Words after which a judge states its answer ("Probability: 0.05", "final answer is 0.8").
_CUE = re.compile(r"(?i)\b(?:probability|prob|likelihood|answer|score|confidence|p)\b"
                  r"(?:\s*\([^)]*\))?\s*(?:is|=|:|of|equals|would be|->)?\s*" + _NUM)
#: A number that ends the answer (only punctuation, a closing bracket or quote may follow).
_TRAILING = re.compile(r"(?<![\w.])" + _NUM + r"[\s.!)\]}\"'*`]*$")


def format_prompt(template: str, a: str, b: str) -> str:
    """Replace ``{a}`` and ``{b}`` in one pass (other braces, e.g. JSON, are kept).

    Examples
    --------
    >>> format_prompt('A={a}; B={b}; {"p": 1}', "x {b}", "y")
    'A=x {b}; B=y; {"p": 1}'
    """
    return _PLACEHOLDER.sub(lambda m: a if m.group(1) == "a" else b, template)


def _as_probability(m: re.Match[str]) -> float:
    """The matched number as a probability; NaN (refused) when negative or above 1."""
    sign, digits, denom, pct = m.group(1), m.group(2), m.group(3), m.group(4)
    tail = m.string[m.end(2):m.end(2) + 2]
    if tail[:1] == "," and tail[1:].isdigit():  # "0,8,9": a list, not one number
        return math.nan
    if denom is None and re.match(r"\s*/\s*[\d.,]", m.string[m.end(2):]):  # "1/2,5": not a fraction read
        return math.nan
    if "," in digits:  # "0,8" is 0.8; "1,000" is ambiguous (thousands or decimals): refused
        if not _DECIMAL_COMMA.fullmatch(digits):
            return math.nan
        digits = digits.replace(",", ".")
    v = float(digits)
    if denom is not None:  # "1/2": a fraction, read as one (never as its numerator)
        d = float(denom)
        if d == 0.0 or pct:
            return math.nan
        v = v / d
    v = v / (100.0 if pct else 1.0)
    if sign in ("-", "\u2212") and v != 0.0:
        return math.nan
    return v if 0.0 <= v <= 1.0 and math.isfinite(v) else math.nan


def parse_probability(text: str) -> float | None:
    """Probability in [0, 1] from a verbalised answer, or None when there is none.

    In order: a JSON object with a key among ``probability, prob, p, score, equivalence,
    similarity`` (the last such object); the number after the last cue word
    ("probability", "answer", "score", "confidence", "likelihood"), so that reasoning steps
    ("Step 1: ...") are never read as the answer; a number that ends the answer. A
    percentage is divided by 100. A negative number or one above 1 is refused (None), never
    read without its sign.

    Parameters
    ----------
    text : str
        The judge's answer.

    Examples
    --------
    >>> parse_probability('Sure. {"probability": 0.8}')
    0.8
    >>> parse_probability("I'd say 85%."), parse_probability("0.3"), parse_probability("yes")
    (0.85, 0.3, None)
    >>> parse_probability("Step 1: compare the labels. Step 2: weigh them. Probability: 0.05")
    0.05
    >>> parse_probability("-0.5") is None
    True

    A decimal comma and a fraction are read as such; an ambiguous comma (``1,000``) is no answer:

    >>> parse_probability("Probability: 0,8"), parse_probability("Probability: 1/2")
    (0.8, 0.5)
    >>> parse_probability("Probability: 1,000") is None
    True
    """
    if not isinstance(text, str):
        return None
    for obj in reversed(_JSON_OBJ.findall(text)):
        try:
            d = json.loads(obj)
        except ValueError:
            continue
        if isinstance(d, dict):
            for k in _KEYS:
                v = d.get(k)
                if isinstance(v, (int, float)) and not isinstance(v, bool):
                    return float(v) if 0.0 <= v <= 1.0 else None
    cues = list(_CUE.finditer(text))
    if cues:
        v = _as_probability(cues[-1])
        return None if math.isnan(v) else v
    m = _TRAILING.search(text.strip())
    if m is None:
        return None
    v = _as_probability(m)
    return None if math.isnan(v) else v


class _JudgeBase(BaseEstimator):
    """Prompting, parsing and failure accounting shared by the judge backends."""

    def _init_common(self, mode: str, prompt: str | None, system: str | None, on_failure: str,
                     symmetric: bool) -> None:
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {list(_MODES)}; got {mode!r}")
        if on_failure not in _ON_FAILURE:
            raise ValueError(f"on_failure must be one of {list(_ON_FAILURE)}; got {on_failure!r}")
        template = prompt if prompt is not None else (LOGPROB_PROMPT if mode == "logprob" else VERBALISED_PROMPT)
        if "{a}" not in template or "{b}" not in template:
            raise ValueError("prompt must contain the placeholders {a} and {b}; got " + repr(template[:200]))
        self.mode, self.prompt, self.system = mode, template, system
        self.on_failure = on_failure
        self.symmetric = bool(symmetric)
        self._allow_nan = on_failure == "nan"
        self.n_failures = 0
        self.failures: list[dict[str, Any]] = []

    def _check_inputs(self, a: np.ndarray, b: np.ndarray) -> None:
        check_strings(a, "a", type(self).__name__)
        check_strings(b, "b", type(self).__name__)

    def _messages(self, a: str, b: str) -> list[dict[str, str]]:
        msgs = [{"role": "system", "content": self.system}] if self.system else []
        return msgs + [{"role": "user", "content": format_prompt(self.prompt, a, b)}]

    def _finish(self, a: np.ndarray, b: np.ndarray, p: np.ndarray, raw: Sequence[Any]) -> np.ndarray:
        bad = np.flatnonzero(np.isnan(p))
        if bad.size:
            self.n_failures += int(bad.size)
            new = [{"a": a[i], "b": b[i], "output": raw[i]} for i in bad.tolist()]
            self.failures.extend(new)
            k = int(bad[0])
            msg = (f"{self.name}: no probability could be read for {bad.size} of {p.size} pairs "
                   f"(n_failures={self.n_failures} so far); first: pair ({short_repr(a[k])}, "
                   f"{short_repr(b[k])}) -> output {short_repr(raw[k], 200)}")
            if self.on_failure == "raise":
                raise ValueError(msg + ". Use on_failure='nan' to get NaN instead, or adjust the prompt")
            warnings.warn(msg + "; these pairs are NaN", stacklevel=3)
        return p

    def _common_settings(self) -> dict[str, Any]:
        return {"mode": self.mode, "prompt": self.prompt, "system": self.system,
                "symmetric": self.symmetric}


class LlmJudge(_JudgeBase):
    """LLM judge with a local transformers causal LM (log-prob or verbalised).

    Parameters
    ----------
    model : str or path-like
        Local directory (or hub name, needing the HF cache or network) of a causal LM with
        safetensors weights. The tokenizer's chat template is used when it has one.
    mode : {"logprob", "verbalised"}, default "logprob"
    prompt : str, optional
        Template with ``{a}`` and ``{b}``; default :data:`LOGPROB_PROMPT` or
        :data:`VERBALISED_PROMPT`. Part of the fingerprint (cache key).
    system : str, optional
        System message for the chat template.
    yes_tokens, no_tokens : sequence of str
        Answer variants whose single-token encodings are summed (logprob mode).
    symmetric : bool, default False
        Whether to treat the judge as symmetric (score ``(a, b)`` and ``(b, a)`` once).
    on_failure : {"raise", "nan"}, default "raise"
        Verbalised answers without a probability: raise, or NaN plus a warning.
    batch_size : int, default 8
    max_new_tokens : int, default 24
        Verbalised mode only; decoding is greedy (deterministic).
    device, dtype, revision, trust_remote_code, local_files_only, progress
        As for :class:`~softirr_stats.equivalence.Embedding`.

    Examples
    --------
    The model is loaded when the first pair is scored, so a judge can be configured (and its
    settings written into a scoring spec) without it:

    >>> judge = LlmJudge("path/to/local-model", mode="verbalised", symmetric=True)
    >>> judge.name, judge.symmetric
    ('llm_judge', True)
    """

    name = "llm_judge"
    # the answer variants and the token budget enter the fingerprint through _settings, per mode
    _fingerprint_ignore = ("yes_tokens", "no_tokens", "max_new_tokens")

    def __init__(self, model: str | os.PathLike[str], *,
                 mode: Literal["logprob", "verbalised"] = "logprob", prompt: str | None = None,
                 system: str | None = None, yes_tokens: Sequence[str] = YES_VARIANTS,
                 no_tokens: Sequence[str] = NO_VARIANTS, symmetric: bool = False,
                 on_failure: Literal["raise", "nan"] = "raise", batch_size: int = 8,
                 max_new_tokens: int = 24, device: Any = None, dtype: Any = "auto",
                 revision: str | None = None, trust_remote_code: bool = False,
                 local_files_only: bool = False, progress: bool | None = None) -> None:
        if model is None:
            raise ValueError("LlmJudge needs model=<local directory or hub name of a causal LM>")
        self._init_common(mode, prompt, system, on_failure, symmetric)
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive integer; got {batch_size!r}")
        self.model = model
        self.yes_tokens, self.no_tokens = tuple(yes_tokens), tuple(no_tokens)
        self.batch_size, self.max_new_tokens = batch_size, int(max_new_tokens)
        self.device_arg, self.dtype_arg = device, dtype
        self.revision = revision
        self.trust_remote_code = bool(trust_remote_code)
        self.local_files_only = bool(local_files_only)
        self.progress = progress
        self._tok: Any = None
        self._mdl: Any = None

    def _settings(self) -> dict[str, Any]:
        extra = ({"yes": self.yes_tokens, "no": self.no_tokens} if self.mode == "logprob"
                 else {"max_new_tokens": self.max_new_tokens, "decoding": "greedy"})
        return {"model": model_identity(self.model), "revision": self.revision,
                **self._common_settings(), **extra}

    def _load(self) -> None:
        if self._mdl is not None:
            return
        self.device = resolve_device(self.device_arg)
        self.dtype = resolve_dtype(self.device, self.dtype_arg)
        # one load per process, model, dtype and device: judges of the same model share the weights
        tok, mdl = load_shared("causal_lm", self.model, device=self.device, revision=self.revision,
                               dtype=self.dtype, trust_remote_code=self.trust_remote_code,
                               local_files_only=self.local_files_only)
        # the same two settings for every judge, so the shared tokenizer stays consistent
        tok.padding_side = "left"
        if tok.pad_token_id is None:
            tok.pad_token = tok.eos_token
        self._tok, self._mdl = tok, mdl
        if self.mode == "logprob":
            self.yes_ids = self._single_ids(self.yes_tokens)
            self.no_ids = self._single_ids(self.no_tokens)
            if not self.yes_ids or not self.no_ids or set(self.yes_ids) & set(self.no_ids):
                raise ValueError(
                    f"LlmJudge(mode='logprob') needs distinct single-token answers: yes variants "
                    f"{self.yes_tokens} -> ids {self.yes_ids}, no variants {self.no_tokens} -> ids "
                    f"{self.no_ids}. Pass yes_tokens=/no_tokens= that the tokenizer encodes as one token")

    def _single_ids(self, variants: Sequence[str]) -> list[int]:
        ids = []
        for v in variants:
            enc = self._tok.encode(v, add_special_tokens=False)
            if len(enc) == 1 and enc[0] != self._tok.unk_token_id and enc[0] not in ids:
                ids.append(enc[0])
        return ids

    def render(self, a: str, b: str) -> str:
        """The exact text fed to the model for the pair ``(a, b)``."""
        self._load()
        tok = self._tok
        if getattr(tok, "chat_template", None):
            return tok.apply_chat_template(self._messages(a, b), add_generation_prompt=True, tokenize=False)
        sys_txt = (self.system + "\n\n") if self.system else ""
        return sys_txt + format_prompt(self.prompt, a, b) + "\n"

    def _encode(self, a: np.ndarray, b: np.ndarray) -> list[list[int]]:
        texts = [self.render(x, y) for x, y in zip(a.tolist(), b.tolist(), strict=False)]
        add_special = not getattr(self._tok, "chat_template", None)
        return self._tok(texts, add_special_tokens=add_special, padding=False)["input_ids"]

    def _batch(self, ids: list[list[int]], idx: np.ndarray) -> dict[str, Any]:
        batch = self._tok.pad({"input_ids": [ids[i] for i in idx.tolist()]}, return_tensors="pt")
        return {k: v.to(self.device) for k, v in batch.items()}

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self._load()
        ids = self._encode(a, b)
        lengths = [len(x) for x in ids]
        mdl = self._mdl
        if self.mode == "logprob":
            yes, no = list(self.yes_ids), list(self.no_ids)

            def fn(idx: np.ndarray) -> np.ndarray:
                batch = self._batch(ids, idx)
                mask = batch["attention_mask"]
                pos = (mask.long().cumsum(-1) - 1).clamp(min=0)  # left padding: real positions
                logits = mdl(input_ids=batch["input_ids"], attention_mask=mask, position_ids=pos).logits
                lp = logits[:, -1, :].float().log_softmax(-1)
                ly, ln = lp[:, yes].logsumexp(-1), lp[:, no].logsumexp(-1)
                return (ly - (ly.exp() + ln.exp()).log()).exp().cpu().numpy()

            p, _ = run_batches(fn, lengths, batch_size=self.batch_size, desc="llm judge",
                               progress=self.progress, device=self.device)
            return self._finish(a, b, p.astype(np.float64), ["<logits>"] * len(a))

        tok = self._tok

        def gen(idx: np.ndarray) -> np.ndarray:
            batch = self._batch(ids, idx)
            out = mdl.generate(**batch, do_sample=False, num_beams=1, max_new_tokens=self.max_new_tokens,
                               pad_token_id=tok.pad_token_id)
            new = out[:, batch["input_ids"].shape[1]:]
            texts = tok.batch_decode(new, skip_special_tokens=True)
            arr = np.empty(len(texts), dtype=object)
            arr[:] = texts
            return arr

        raw, _ = run_batches(gen, lengths, batch_size=self.batch_size, desc="llm judge",
                             progress=self.progress, device=self.device)
        p = np.array([np.nan if (v := parse_probability(t)) is None else v for t in raw], dtype=np.float64)
        return self._finish(a, b, p, list(raw))


class OpenAICompatibleJudge(_JudgeBase):
    """LLM judge through an OpenAI-compatible chat-completions server (e.g. vLLM).

    Parameters
    ----------
    base_url : str
        Server root including the API prefix, e.g. ``"http://127.0.0.1:8000/v1"``;
        requests go to ``{base_url}/chat/completions``.
    model : str
        Model name the server serves (part of the fingerprint).
    mode : {"logprob", "verbalised"}, default "logprob"
        ``logprob`` asks for one token with ``top_logprobs`` and sums the "yes"/"no"
        variants (compared after stripping and lower-casing); ``verbalised`` parses the text.
    prompt, system, symmetric, on_failure
        As for :class:`LlmJudge`.
    api_key : str, optional
        Sent as a bearer token when given. Never part of the fingerprint, of a spec or of an
        error message (the key is replaced by ``***`` in every message, also in a server's
        answer that echoes it). Prefer ``api_key_env``.
    api_key_env : str, optional
        Name of an environment variable holding the key (e.g. ``"OPENAI_API_KEY"``), read
        when a request is sent, in the process that sends it (each Ray worker reads its own
        environment). An estimator spec carries this name, never a key.
    concurrency : int, default 8
        Requests in flight at once (the server batches them).
    timeout : float, default 60.0
        Overall deadline of one request in seconds (connect, send, headers and body); a
        server that trickles its answer cannot hold a call longer.
    max_retries : int, default 3
        Connection errors, timeouts, 5xx/429 answers and non-JSON bodies are retried with
        back-off; a 4xx answer or a refused redirect is not.
    follow_redirects : bool, default False
        Redirects are not followed by default (an error names the new address). When True,
        same-origin redirects are followed with the same POST and body; a redirect to another
        origin is always refused, so ``api_key`` never leaves the configured server.

    A key given for a plain ``http://`` address on another host than this one (not
    ``localhost``, ``127.0.0.0/8`` or ``::1``) gives a ``UserWarning``: it would travel in clear.

    Malformed replies (not JSON, no ``choices``, non-dict entries, a logprob that is not a
    number <= 0) are failures naming the URL and the pair, handled by ``on_failure``.

    Examples
    --------
    No request is sent until a pair is scored:

    >>> judge = OpenAICompatibleJudge("http://127.0.0.1:8000/v1", "my-model", concurrency=4)
    >>> judge.name, judge.symmetric
    ('openai_judge', False)
    """

    name = "openai_judge"
    _fingerprint_ignore = ("top_logprobs", "max_tokens")  # through _settings, per mode
    _secret_params = ("api_key",)

    def __init__(self, base_url: str, model: str, *, mode: Literal["logprob", "verbalised"] = "logprob",
                 prompt: str | None = None, system: str | None = None, symmetric: bool = False,
                 on_failure: Literal["raise", "nan"] = "raise", api_key: str | None = None,
                 concurrency: int = 8, timeout: float = 60.0, max_retries: int = 3,
                 top_logprobs: int = 20, max_tokens: int = 32, seed: int = 0,
                 follow_redirects: bool = False, api_key_env: str | None = None) -> None:
        self._init_common(mode, prompt, system, on_failure, symmetric)
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://; got {base_url!r}")
        parts = urllib.parse.urlsplit(base_url)
        if parts.username is not None or parts.password is not None:
            raise ValueError("base_url must not hold a user name or password (it enters the fingerprint, "
                             "which is stored in score caches); give the key as api_key_env='NAME'")
        if api_key is not None and (not isinstance(api_key, str) or not api_key.strip()):
            raise ValueError("api_key must be a non-empty string or None")
        if api_key is not None:
            api_key = clean_api_key(api_key, "api_key")
        if api_key_env is not None and (not isinstance(api_key_env, str) or not _ENV_NAME.fullmatch(api_key_env)):
            raise ValueError("api_key_env must be the name of an environment variable (e.g. 'OPENAI_API_KEY'), "
                             f"not the key itself; got a {type(api_key_env).__name__} that is not a variable name "
                             "(not shown, in case it is a key)")
        if api_key is not None and api_key_env is not None:
            raise ValueError("give api_key or api_key_env, not both")
        self.base_url = base_url.rstrip("/")
        self.model = model
        self.api_key = api_key
        self.api_key_env = api_key_env
        if (api_key is not None or api_key_env is not None) and parts.scheme == "http" \
                and not is_loopback(parts.hostname or ""):
            warnings.warn(f"OpenAICompatibleJudge: the API key would be sent in clear over plain http:// to "
                          f"{parts.hostname!r}, which is not this machine; use https:// (or a loopback address "
                          f"through an SSH tunnel)", UserWarning, stacklevel=2)
        self.concurrency = max(1, int(concurrency))
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not timeout > 0 \
                or not math.isfinite(timeout):
            raise ValueError(f"timeout must be a positive number of seconds; got {timeout!r}")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be an integer >= 0; got {max_retries!r}")
        self.timeout, self.max_retries = float(timeout), int(max_retries)
        self.follow_redirects = bool(follow_redirects)
        self.top_logprobs, self.max_tokens, self.seed = int(top_logprobs), int(max_tokens), int(seed)

    def _settings(self) -> dict[str, Any]:
        extra = {"top_logprobs": self.top_logprobs} if self.mode == "logprob" else {"max_tokens": self.max_tokens}
        return {"base_url": self.base_url, "model": self.model, **self._common_settings(), "temperature": 0,
                "seed": self.seed, **extra}

    def __repr__(self) -> str:
        return f"OpenAICompatibleJudge({self.base_url!r}, {self.model!r}, mode={self.mode!r})"

    @property
    def url(self) -> str:
        return self.base_url + "/chat/completions"

    def _key(self) -> str | None:
        if self.api_key_env is None:
            return self.api_key
        key = os.environ.get(self.api_key_env)
        if not key or not key.strip():
            raise ValueError(f"OpenAICompatibleJudge: api_key_env={self.api_key_env!r}, but that environment "
                             f"variable is not set (or empty) in this process (pid {os.getpid()}); set it where the "
                             f"judge runs (on Ray: runtime_env={{'env_vars': ...}} or the workers' environment)")
        return clean_api_key(key, f"the API key in ${self.api_key_env}")

    def _secrets(self) -> list[str]:
        """The key as given and as sent (for redaction); never raises."""
        raw = self.api_key if self.api_key_env is None else os.environ.get(self.api_key_env)
        return [k for k in {raw, raw.strip() if raw else None} if k]

    def _post(self, body: dict[str, Any]) -> Any:
        key = self._key()
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        return post_json(self.url, body, headers=headers, timeout=self.timeout,
                         max_retries=self.max_retries, follow_redirects=self.follow_redirects,
                         secrets=[key, *self._secrets()] if key else [])

    def _one(self, pair: tuple[str, str]) -> tuple[float, str]:
        body: dict[str, Any] = {"model": self.model, "messages": self._messages(*pair), "temperature": 0,
                                "seed": self.seed}
        if self.mode == "logprob":
            body.update(max_tokens=1, logprobs=True, top_logprobs=self.top_logprobs)
        else:
            body.update(max_tokens=self.max_tokens)
        try:
            resp = self._post(body)
        except HttpReplyError as exc:
            return np.nan, f"malformed reply: {exc}"
        p, why = self._read_reply(resp)
        return p, redact(why, self._secrets())  # a reply echoing the key never reaches a message

    def _malformed(self, why: str, part: Any) -> tuple[float, str]:
        try:
            shown = json.dumps(part, default=str)
        except RecursionError:
            shown = "(nested too deeply to show)"
        text = redact_cut(shown, self._secrets(), 300)  # redacted, then cut
        return np.nan, f"malformed reply from {self.url}: {why}: {text}"

    def _read_reply(self, resp: Any) -> tuple[float, str]:
        """Probability from a chat-completions answer, or (nan, why) naming the URL."""
        choices = resp.get("choices") if isinstance(resp, dict) else None
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            return self._malformed("no choices list of objects", resp)
        choice = choices[0]
        if self.mode == "verbalised":
            message = choice.get("message")
            text = message.get("content") if isinstance(message, dict) else None
            if not isinstance(text, str):
                return self._malformed("no text in choices[0].message.content", choice)
            v = parse_probability(text)
            return (np.nan if v is None else v), text
        try:
            top = choice["logprobs"]["content"][0]["top_logprobs"]
        except (KeyError, IndexError, TypeError):
            return self._malformed("no choices[0].logprobs.content[0].top_logprobs", choice)
        if not isinstance(top, list) or not all(isinstance(t, dict) for t in top):
            return self._malformed("top_logprobs must be a list of objects", top)
        lp = []
        for t in top:
            v = t.get("logprob")
            if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v > 1e-6:
                return self._malformed(f"logprob {json.dumps(v, default=str)} is not a number <= 0", top)
            lp.append(min(float(v), 0.0))
        py = sum(math.exp(v) for t, v in zip(top, lp, strict=True) if str(t.get("token", "")).strip().lower() == "yes")
        pn = sum(math.exp(v) for t, v in zip(top, lp, strict=True) if str(t.get("token", "")).strip().lower() == "no")
        if py + pn <= 0:
            return np.nan, "top tokens: " + ", ".join(repr(t.get("token")) for t in top)
        return py / (py + pn), ""

    def _score(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        pairs = list(zip(a.tolist(), b.tolist(), strict=False))
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            res = list(pool.map(self._one, pairs))
        p = np.array([r[0] for r in res], dtype=np.float64)
        return self._finish(a, b, p, [r[1] for r in res])
