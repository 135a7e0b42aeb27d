"""A loaded transformer is reused within a process: one load per model, dtype and device."""

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
