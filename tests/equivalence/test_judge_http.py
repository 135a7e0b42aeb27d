"""The OpenAI-compatible judge client against loopback stub servers: redirects, deadlines,
malformed replies (the stub server of tests/equivalence/conftest.py). No torch needed; no network
beyond 127.0.0.1."""

import json
import math
import time

import numpy as np
import pytest

from softirr_stats.equivalence import OpenAICompatibleJudge

GOOD = {"choices": [{"message": {"content": " Yes"}, "logprobs": {"content": [{"token": " Yes", "top_logprobs": [
    {"token": " Yes", "logprob": math.log(0.6)}, {"token": " No", "logprob": math.log(0.2)}]}]}}]}


def test_cross_origin_redirect_never_receives_the_key(judge_server):
    evil, evil_url = judge_server({"*": lambda h: h.reply(200, GOOD)})
    _, url = judge_server({"*": lambda h: h.reply(302, b"", [("Location", evil_url + "/v1/chat/completions")])})
    for follow in (False, True):
        judge = OpenAICompatibleJudge(url + "/v1", "m", api_key="SECRET", follow_redirects=follow)
        with pytest.raises(RuntimeError, match="another origin.*refused"):
            judge(["a"], ["b"])
    assert evil.log == []  # neither the key nor anything else reached the other origin


def test_same_origin_redirect_only_when_asked_and_keeps_the_post(judge_server):
    srv, url = judge_server({
        "/v1/chat/completions": lambda h: h.reply(307, b"", [("Location", "/v2/chat/completions")]),
        "/v2/chat/completions": lambda h: h.reply(200, GOOD)})
    with pytest.raises(RuntimeError, match="redirecting to .*v2/chat/completions; redirects are not followed"):
        OpenAICompatibleJudge(url + "/v1", "m", api_key="K")(["a"], ["b"])
    srv.log.clear()
    s = OpenAICompatibleJudge(url + "/v1", "m", api_key="K", follow_redirects=True)(["a"], ["b"])
    assert s[0] == pytest.approx(0.75)
    assert [(r["method"], r["path"]) for r in srv.log] == [("POST", "/v1/chat/completions"),
                                                          ("POST", "/v2/chat/completions")]
    assert srv.log[1]["body"] == srv.log[0]["body"] and srv.log[1]["auth"] == "Bearer K"


def _trickle(handler):
    handler.send_response(200)
    handler.send_header("Content-Length", "1000")
    handler.end_headers()
    try:
        for _ in range(1000):
            handler.wfile.write(b" ")
            handler.wfile.flush()
            time.sleep(0.4)
    except OSError:
        pass


def test_overall_deadline_against_a_trickling_server(judge_server):
    _, url = judge_server({"*": _trickle})
    judge = OpenAICompatibleJudge(url + "/v1", "m", timeout=1.0, max_retries=0)
    t0 = time.monotonic()
    with pytest.raises(ConnectionError, match=r"no complete answer within timeout=1 s"):
        judge(["a"], ["b"])
    assert time.monotonic() - t0 < 3.0  # was 6 s+ with a per-read timeout


@pytest.mark.parametrize("reply, fragment", [
    (b"<html><body>502 Bad Gateway</body></html>", "not JSON"),
    (b"", "not JSON"),
    ({"choices": ["yes"]}, "no choices list of objects"),
    ({"error": "overloaded"}, "no choices list of objects"),
    ({"choices": [{"logprobs": {"content": [{"top_logprobs": ["yes", 3]}]}}]}, "list of objects"),
    ({"choices": [{"logprobs": {"content": [{"top_logprobs": [{"token": "yes", "logprob": "abc"}]}]}}]},
     'logprob "abc" is not a number'),
    ({"choices": [{"logprobs": {"content": [{"top_logprobs": [{"token": "yes", "logprob": 1000}]}]}}]},
     "logprob 1000 is not a number <= 0"),
])
def test_malformed_replies_name_url_and_pair_and_honour_on_failure(judge_server, reply, fragment):
    srv, url = judge_server({"*": lambda h: h.reply(200, reply)})
    judge = OpenAICompatibleJudge(url + "/v1", "m", max_retries=1)
    with pytest.raises(ValueError, match=fragment) as info:
        judge(["heart attack"], ["MI"])
    msg = str(info.value)
    assert url in msg and "'heart attack'" in msg and "'MI'" in msg
    retried = 2 if fragment == "not JSON" else 1  # a body that is not JSON may be a transient proxy page
    assert len(srv.log) == retried
    soft = OpenAICompatibleJudge(url + "/v1", "m", max_retries=0, on_failure="nan")
    with pytest.warns(UserWarning, match="these pairs are NaN"):
        out = soft(["heart attack", "x"], ["MI", "y"])
    assert np.isnan(out).all() and soft.n_failures == 2 and url in soft.failures[0]["output"]


def test_client_errors_name_the_url_and_are_not_retried(judge_server):
    srv, url = judge_server({"*": lambda h: h.reply(401, {"error": "bad key"})})
    with pytest.raises(RuntimeError, match=r"chat/completions answered HTTP 401.*bad key"):
        OpenAICompatibleJudge(url + "/v1", "m", max_retries=3)(["a"], ["b"])
    assert len(srv.log) == 1
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        OpenAICompatibleJudge(url, "m", timeout=0)
    with pytest.raises(ValueError, match="max_retries must be an integer"):
        OpenAICompatibleJudge(url, "m", max_retries=-1)


# --- issue 20: the client's key never appears in a message ----------------------------------------
def _echo(status):
    """A server that quotes the request's Authorization header back (as some proxies do)."""
    def answer(h):
        h.reply(status, {"error": f"invalid header Authorization: {h.headers.get('Authorization')}"})
    return answer


def test_4xx_body_echoing_the_key_is_redacted(judge_server, monkeypatch):
    _, url = judge_server({"*": _echo(401)})
    for kw in ({"api_key": "sk-VERY-SECRET-1"}, {"api_key_env": "SIRR_TEST_KEY"}):
        monkeypatch.setenv("SIRR_TEST_KEY", "sk-VERY-SECRET-1")
        with pytest.raises(RuntimeError, match=r"HTTP 401.*Bearer \*\*\*") as info:
            OpenAICompatibleJudge(url + "/v1", "m", max_retries=0, **kw)(["a"], ["b"])
        assert "sk-VERY-SECRET-1" not in str(info.value)
        assert info.value.__cause__ is None and info.value.__context__ is None  # no chained copy of the key


def test_malformed_reply_echoing_the_key_is_redacted(judge_server):
    _, url = judge_server({"/v1/chat/completions": _echo(200)})  # valid JSON, no choices: a failure quoting it
    judge = OpenAICompatibleJudge(url + "/v1", "m", max_retries=0, api_key="sk-VERY-SECRET-2", on_failure="nan")
    with pytest.warns(UserWarning) as rec:
        out = judge(["a"], ["b"])
    assert np.isnan(out).all()
    text = " ".join(str(w.message) for w in rec) + json.dumps(judge.failures)
    assert "sk-VERY-SECRET-2" not in text and "Bearer ***" in text
    _, url2 = judge_server(lambda h: h.reply(200, f"<html>{h.headers.get('Authorization')}</html>".encode()))
    with pytest.raises(ValueError) as info:
        OpenAICompatibleJudge(url2 + "/v1", "m", max_retries=0, api_key="sk-VERY-SECRET-3")(["a"], ["b"])
    assert "sk-VERY-SECRET-3" not in str(info.value) and "not JSON" in str(info.value)


def test_env_key_is_sent_and_read_at_request_time(judge_server, monkeypatch):
    srv, url = judge_server({"*": lambda h: h.reply(200, GOOD)})
    judge = OpenAICompatibleJudge(url + "/v1", "m", api_key_env="SIRR_TEST_KEY2")
    monkeypatch.setenv("SIRR_TEST_KEY2", "k-123")
    assert judge(["a"], ["b"]).tolist() == pytest.approx([0.75])
    assert srv.log[-1]["auth"] == "Bearer k-123"
    monkeypatch.delenv("SIRR_TEST_KEY2")
    with pytest.raises(ValueError, match="SIRR_TEST_KEY2.*not set"):
        judge(["a"], ["c"])


@pytest.mark.parametrize("text, want", [
    ("Step 1: the labels differ in 2 words. Step 2: weigh them. Probability: 0.05", 0.05),
    ("Probability: 0.05. Step 1 was easy", 0.05),
    ("I compared 3 synonyms; final answer: 0.8", 0.8),
    ("score = 70%", 0.7),
    ('Thinking {"probability": 0.9} ... corrected: {"probability": 0.2}', 0.2),
    ("They mean the same thing with probability 0.95.", 0.95),
    ("1. Both are diseases\n2. Same organ\n0.6", 0.6),
    ("-0.5", None), ("Probability: -0.5", None), ("probability: 1.5", None), ("\u22120.3", None),
    ('{"probability": -0.2}', None), ("There are 3 differences between them", None), ("0.3", 0.3),
])
def test_parser_reads_the_answer_not_the_first_number(text, want):
    from softirr_stats.equivalence import parse_probability

    got = parse_probability(text)
    assert got == (pytest.approx(want) if want is not None else None), (text, got)


def test_negative_verbalised_answer_is_nan_with_a_warning_naming_the_reply(judge_server):
    reply = {"choices": [{"message": {"content": "Probability: -0.5"}}]}
    _, url = judge_server({"*": lambda h: h.reply(200, reply)})
    judge = OpenAICompatibleJudge(url + "/v1", "m", mode="verbalised", on_failure="nan", max_retries=0)
    with pytest.warns(UserWarning, match=r"Probability: -0\.5"):
        out = judge(["a"], ["b"])
    assert np.isnan(out).all()
    with pytest.raises(ValueError, match=r"Probability: -0\.5"):
        OpenAICompatibleJudge(url + "/v1", "m", mode="verbalised", max_retries=0)(["a"], ["b"])
