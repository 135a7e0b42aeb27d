"""Verbalised judge replies are read as the number they state, or as no answer; never a wrong
number (issue 35, row 13), and a reply nested too deeply is a failure, not a crash (row 20)."""

import json

import numpy as np
import pytest

from softirr_stats.equivalence import OpenAICompatibleJudge
from softirr_stats.equivalence._judge import parse_probability

# text -> the probability it states, or None when it cannot be read without guessing
REPLIES = [
    ("Probability: 0,8", 0.8),  # decimal comma
    ("Probability: 1/2", 0.5),  # fraction
    ("Probability: 3/4.", 0.75),
    ("Probability: 1 / 4", 0.25),
    ("probability = 0,25", 0.25),
    ("12,5%", 0.125),
    ("Probability: 0,75.", 0.75),
    ("The answer is 2/3", 2 / 3),
    ("Probability: 1,000", None),  # thousands or three decimals: ambiguous
    ("Probability: 0,8,9", None),  # a list
    ("Probability: 1/0", None),
    ("Probability: 3/2", None),  # above 1
    ("Probability: 1/2,5", None),  # neither a fraction nor a decimal: no guess
    ("Probability: 1/2%", None),
    ("Probability: -1/2", None),
    ("Probability: 0.8", 0.8),  # unchanged
    ("Step 1/3: compare. Probability: 0.2", 0.2),
    ('{"probability": 0.35}', 0.35),
]


@pytest.mark.parametrize("text, want", REPLIES, ids=[r[0] for r in REPLIES])
def test_verbalised_reply_is_the_stated_number_or_none(text, want):
    got = parse_probability(text)
    if want is None:
        assert got is None
    else:
        assert got == pytest.approx(want, abs=1e-12)


@pytest.fixture()
def serve(judge_server):
    """A stub judge answering every request with ``body``; its base URL."""
    return lambda body: judge_server(lambda h: h.reply(200, body))[1] + "/v1"


def _chat(content):
    return json.dumps({"choices": [{"message": {"content": content}}]}).encode()


@pytest.mark.parametrize("content, want", [("Probability: 0,8", 0.8), ("Probability: 1/2", 0.5),
                                           ("Probability: 1,000", None)])
def test_server_reply_with_a_comma_or_fraction(serve, content, want):
    judge = OpenAICompatibleJudge(serve(_chat(content)), "m", mode="verbalised", max_retries=0, on_failure="nan")
    if want is None:
        with pytest.warns(UserWarning, match="no probability could be read"):
            out = judge(["a"], ["b"])
        assert np.isnan(out).all() and judge.n_failures == 1
    else:
        assert judge(["a"], ["b"]).tolist() == pytest.approx([want])


DEEP = [
    ("array", ("[" * 100_000 + "]" * 100_000).encode()),
    ("object", ('{"a":' * 50_000 + "1" + "}" * 50_000).encode()),
    ("choices", ('{"choices": [{"message": {"content": ' + "[" * 5_000 + "]" * 5_000 + "}}]}").encode()),
    ("unclosed", ("[" * 200_000).encode()),
]


@pytest.mark.parametrize("mode", ["verbalised", "logprob"])
@pytest.mark.parametrize("name, body", DEEP, ids=[d[0] for d in DEEP])
def test_deeply_nested_reply_is_a_failure_not_a_crash(serve, mode, name, body):
    judge = OpenAICompatibleJudge(serve(body), "m", mode=mode, max_retries=0, on_failure="nan")
    with pytest.warns(UserWarning, match="no probability could be read"):
        out = judge(["a", "c"], ["b", "d"])
    assert np.isnan(out).all() and judge.n_failures == 2
    strict = OpenAICompatibleJudge(serve(body), "m", mode=mode, max_retries=0)
    with pytest.raises(ValueError):
        strict(["a"], ["b"])
