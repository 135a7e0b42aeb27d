"""A loaded transformer is reused within a process: one load per model, dtype and device."""

import numpy as np

from softirr_stats.equivalence import (  # the [transformers] extra (test environment)
    Embedding,
    _torch,
)


def test_embeddings_of_one_model_share_the_loaded_weights(monkeypatch):
    _torch.clear_loaded_models()
    calls = []
    real = _torch.load_pretrained

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(_torch, "load_pretrained", counting)
    first, second = Embedding(), Embedding()
    a = first(["fever", "cough"], ["pyrexia", "cough"])
    b = second(["fever", "cough"], ["pyrexia", "cough"])
    assert len(calls) == 1  # the second estimator found the model already loaded
    assert first._mdl is second._mdl and first._tok is second._tok
    assert a.tolist() == b.tolist()
    other = Embedding(dtype="bf16")  # another dtype is another model in memory
    other(["fever"], ["pyrexia"])
    assert len(calls) == 2 and other._mdl is not first._mdl
    assert _torch.clear_loaded_models() == 2
    Embedding()(["fever"], ["pyrexia"])
    assert len(calls) == 3  # cleared: loaded again


def _tiny_causal_lm(root):
    """A 2-layer random Llama with a word-level tokenizer, saved to ``root`` (no download)."""
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    words = ["<|endoftext|>", "<unk>", "Yes", "No", "fever", "pyrexia", "cough", "A", "B", "?", ":", "."]
    wl = Tokenizer(models.WordLevel({t: i for i, t in enumerate(words)}, unk_token="<unk>"))
    wl.pre_tokenizer = pre_tokenizers.Whitespace()
    tok = PreTrainedTokenizerFast(tokenizer_object=wl, bos_token="<|endoftext|>", eos_token="<|endoftext|>",
                                  unk_token="<unk>", model_input_names=["input_ids", "attention_mask"])
    torch.manual_seed(0)
    LlamaForCausalLM(LlamaConfig(vocab_size=len(words), hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                                 num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=128,
                                 bos_token_id=0, eos_token_id=0)).save_pretrained(root)
    tok.save_pretrained(root)
    return str(root)


def test_llm_judges_of_one_model_share_the_loaded_weights(monkeypatch, tmp_path):
    from softirr_stats.equivalence import LlmJudge

    lm = _tiny_causal_lm(tmp_path / "tiny-llama")
    _torch.clear_loaded_models()
    calls = []
    real = _torch.load_pretrained

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(_torch, "load_pretrained", counting)
    first = LlmJudge(lm, progress=False)
    second = LlmJudge(lm, progress=False)
    a = first(["fever", "cough"], ["pyrexia", "fever"])  # no identical pair (those score 1 unscored)
    b = second(["fever", "cough"], ["pyrexia", "fever"])
    assert len(calls) == 1 and calls[0][0] == "causal_lm"  # the second judge found the model loaded
    assert first._mdl is second._mdl and first._tok is second._tok
    assert first._tok.padding_side == "left" and first._tok.pad_token_id is not None
    assert np.all((a > 0) & (a < 1)) and a.tolist() == b.tolist()
    verbal = LlmJudge(lm, mode="verbalised", max_new_tokens=2, on_failure="nan", progress=False)
    verbal.render("fever", "pyrexia")  # loads (a mode is not a model: the same weights)
    assert len(calls) == 1 and verbal._mdl is first._mdl
    other = LlmJudge(lm, dtype="bf16", progress=False)  # another dtype is another model in memory
    other.render("fever", "pyrexia")
    assert len(calls) == 2 and other._mdl is not first._mdl
    assert _torch.clear_loaded_models() == 2
