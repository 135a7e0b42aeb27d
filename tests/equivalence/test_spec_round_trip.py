"""Shippable estimator specs: every built-in estimator round-trips; callables are refused."""

import json

import numpy as np
import pytest

from softirr_stats.equivalence import (
    BaseEstimator,
    Cached,
    Dice,
    Embedding,
    EstimatorSpec,
    Exact,
    Indel,
    Jaccard,
    Lcs,
    Levenshtein,
    LlmJudge,
    Masi,
    Nli,
    OpenAICompatibleJudge,
    SetMatch,
    as_estimator,
    from_spec,
    to_spec,
)
from softirr_stats.equivalence._string import whitespace_tokens

BUILT_INS = [
    Exact(), Levenshtein(), Indel(), Lcs(workers=1), Jaccard(), Dice(), Masi(exact=True),
    Jaccard(tokenizer=whitespace_tokens), SetMatch(Levenshtein(), assignment="greedy"),
    Embedding(rescale="affine", batch_size=8), Nli("/nonexistent/nli", device="cpu", dtype="fp32", batch_size=4),
    LlmJudge("/nonexistent/lm", mode="verbalised", yes_tokens=("Yes",), no_tokens=("No",), symmetric=True),
    OpenAICompatibleJudge("http://localhost:1", "served-model", concurrency=2, seed=3),
]


@pytest.mark.parametrize("est", BUILT_INS, ids=lambda e: type(e).__name__)
def test_built_in_round_trip_through_json(est):
    spec = to_spec(est)
    text = spec.to_json()
    json.loads(text)  # plain JSON, nothing pickled
    rebuilt = EstimatorSpec.from_json(text).build()
    assert type(rebuilt) is type(est)
    assert rebuilt.fingerprint == est.fingerprint
    assert rebuilt.symmetric == est.symmetric and rebuilt.name == est.name


def test_rebuilt_scores_equal():
    a, b = ["heart attack", "fever", "a b c"], ["heart atack", "high fever", "c b a"]
    for est in (Levenshtein(), Jaccard(), SetMatch(Indel())):
        np.testing.assert_array_equal(from_spec(to_spec(est))(a, b), est(a, b))


def test_device_and_dtype_are_kept_as_arguments():
    torch = pytest.importorskip("torch")
    est = Nli("/nonexistent/nli", device=torch.device("cpu"), dtype=torch.bfloat16)
    params = to_spec(est).params
    assert params["device"] == "cpu" and params["dtype"] == "bf16"
    assert from_spec(to_spec(est)).fingerprint == est.fingerprint


class _Unrecoverable(BaseEstimator):
    """Keeps a constructor argument under another name: refused."""

    def __init__(self, scale: float = 1.0) -> None:
        self._scale = scale

    def _score(self, a, b):
        return np.full(len(a), 0.5)


def test_refusals_name_the_reason():
    with pytest.raises(TypeError, match="arbitrary callable"):
        to_spec(as_estimator(lambda a, b: [0.0] * len(a), symmetric=True))
    with pytest.raises(TypeError, match="arbitrary callable"):
        to_spec(lambda a, b: a)
    with pytest.raises(TypeError, match=r"Cached .*\.base"):
        to_spec(Cached(Exact(), ":memory:"))
    with pytest.raises(TypeError, match="module level"):
        to_spec(Levenshtein(processor=lambda s: s.lower()))
    with pytest.raises(TypeError, match="no attribute 'scale'"):
        to_spec(_Unrecoverable())

    class Local(Exact):
        pass

    with pytest.raises(TypeError, match="module level"):
        to_spec(Local())


def test_from_spec_checks_class_and_fingerprint():
    with pytest.raises(ValueError, match="not on the allow-list"):  # checked before json is imported
        from_spec({"cls": "json:loads", "params": {}})
    with pytest.raises(ValueError, match="not on the allow-list"):
        from_spec({"cls": "softirr_stats.equivalence._string:Nope"})
    with pytest.raises(ValueError, match="module:QualName"):
        from_spec({"cls": "softirr_stats.equivalence.Exact"})
    with pytest.raises(ValueError, match="expects"):
        from_spec({"cls": "softirr_stats.equivalence._string:Jaccard", "params": {}, "fingerprint": "Jaccard:{}"})
    with pytest.raises(ValueError, match="unknown key"):
        from_spec({"cls": "softirr_stats.equivalence._string:Jaccard", "model": "x"})
    with pytest.raises(ValueError, match="not valid JSON"):
        from_spec("{cls:")
