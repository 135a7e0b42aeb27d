"""Secrets are redacted before anything is cut, formatted or raised (issue 35, rows 2-3).

An API key with a line end (a CRLF ``.env`` file), a server echoing the key across the cut of
a quoted body, a malformed reply quoting it across the 300-character cut: the key (or any
fragment of four characters or more) never reaches a message, ``judge.failures``, the CLI's
stderr, or an exception chain. Loopback stub servers only (tests/equivalence/conftest.py).
"""

import json
import math

import numpy as np
import pytest

from softirr_stats.cli import main
from softirr_stats.equivalence import OpenAICompatibleJudge
from softirr_stats.equivalence._http import clean_api_key, redact, redact_cut
from softirr_stats.equivalence._spec import to_spec

KEY = "sk-THIS-IS-THE-SECRET-KEY-0123456789abcdef"
GOOD = {"choices": [{"message": {"content": " Yes"}, "logprobs": {"content": [{"token": " Yes", "top_logprobs": [
    {"token": " Yes", "logprob": math.log(0.6)}, {"token": " No", "logprob": math.log(0.2)}]}]}}]}


@pytest.fixture()
def serve(judge_server):
    """A stub judge at ``url`` answering ``answer(the request's Authorization header) -> (status, body)``."""
    def make(answer):
        srv, url = judge_server(lambda h: h.reply(*answer(h.headers.get("Authorization") or "")))
        return srv, url + "/v1"

    return make


def sent_auth(srv):
    """The Authorization header of every request the stub received."""
    return [r["auth"] for r in srv.log]


def fragments(key, n=6):
    """Every substring of ``key`` of ``n`` characters: none may appear anywhere."""
    return {key[i:i + n] for i in range(len(key) - n + 1)}


def assert_clean(text, key=KEY):
    leaked = sorted(f for f in fragments(key) if f in text)
    assert not leaked, f"key fragments in the text: {leaked[:3]}"


# --- row 2: a key with a line end or a control character -----------------------------------------
LINE_ENDS = ["\r", "\n", "\r\n", " \r\n", "\t"]


@pytest.mark.parametrize("end", LINE_ENDS, ids=repr)
@pytest.mark.parametrize("how", ["api_key", "api_key_env"])
def test_key_with_a_line_end_is_sent_without_it(serve, monkeypatch, end, how):
    srv, url = serve(lambda auth: (200, json.dumps(GOOD).encode()))
    monkeypatch.setenv("SIRR_JUDGE_KEY_VAR", KEY + end)
    kw = {"api_key": KEY + end} if how == "api_key" else {"api_key_env": "SIRR_JUDGE_KEY_VAR"}
    judge = OpenAICompatibleJudge(url, "m", max_retries=0, **kw)
    assert judge(["a"], ["b"]).tolist() == pytest.approx([0.75])
    assert sent_auth(srv) == [f"Bearer {KEY}"]


@pytest.mark.parametrize("bad", ["\r", "\n", "\x00", "\x1b", "\x7f", "\u2028", "\u200b\u00a0"], ids=repr)
@pytest.mark.parametrize("how", ["api_key", "api_key_env"])
def test_key_with_a_control_character_inside_is_refused_without_showing_it(serve, monkeypatch, bad, how):
    srv, url = serve(lambda auth: (200, json.dumps(GOOD).encode()))
    if how == "api_key_env" and bad == "\x00":  # an environment cannot hold NUL
        bad = "\x01"
    key = KEY[:20] + bad + KEY[20:]
    if how == "api_key_env":
        monkeypatch.setenv("SIRR_JUDGE_KEY_VAR", key)
    with pytest.raises(ValueError, match="position 21 of") as info:
        kw = {"api_key": key} if how == "api_key" else {"api_key_env": "SIRR_JUDGE_KEY_VAR"}
        OpenAICompatibleJudge(url, "m", max_retries=0, **kw)(["a"], ["b"])
    assert_clean(str(info.value))
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert sent_auth(srv) == []  # nothing was sent


@pytest.mark.parametrize("end", ["\r", "\r\n", "\x01"], ids=repr)
def test_cli_never_prints_a_key_with_a_control_character(serve, monkeypatch, capsys, tmp_path, end):
    srv, url = serve(lambda auth: (401, f"bad key {auth}".encode()))
    data = tmp_path / "d.csv"
    data.write_text("item,rater,label\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n")
    monkeypatch.setenv("SIRR_JUDGE_KEY_VAR", KEY + end + ("tail" if end == "\x01" else ""))
    spec = to_spec(OpenAICompatibleJudge(url, "m", max_retries=0, api_key_env="SIRR_JUDGE_KEY_VAR")).to_json()
    with pytest.raises(SystemExit) as info:
        main(["agree", str(data), "-m", spec, "--bootstrap", "0"])
    err = capsys.readouterr().err
    assert info.value.code != 0 and "error:" in err
    assert ("401" in err and "Bearer ***" in err) if end != "\x01" else "control character" in err
    assert_clean(err)


def test_clean_api_key_table():
    assert clean_api_key(KEY + "\r\n", "k") == KEY
    for bad in ("", " \r\n"):
        with pytest.raises(ValueError, match="empty"):
            clean_api_key(bad, "k")
    with pytest.raises(ValueError, match="outside Latin-1"):
        clean_api_key("sk-\u4e2d", "k")


# --- row 3: redaction before the cut, fragments at the cut -----------------------------------------
@pytest.mark.parametrize("offset", [480, 490, 495, 498, 499, 500, 520])
def test_4xx_body_echoing_the_key_across_the_500_character_cut(serve, offset):
    _, url = serve(lambda auth: (400, ("x" * offset + auth + "y" * 50).encode()))
    judge = OpenAICompatibleJudge(url, "m", max_retries=0, api_key=KEY)
    with pytest.raises(RuntimeError, match="HTTP 400") as info:
        judge(["a"], ["b"])
    assert_clean(str(info.value))
    assert info.value.__cause__ is None and info.value.__context__ is None


@pytest.mark.parametrize("offset", [230, 250, 270, 280, 290, 299])
def test_malformed_reply_quoting_the_key_across_the_300_character_cut(serve, offset):
    def answer(auth):
        return 200, json.dumps({"error": "x" * offset + auth + "y" * 80}).encode()

    _, url = serve(answer)
    judge = OpenAICompatibleJudge(url, "m", max_retries=0, api_key=KEY, on_failure="nan")
    with pytest.warns(UserWarning) as rec:
        out = judge(["a"], ["b"])
    assert np.isnan(out).all()
    assert_clean(" ".join(str(w.message) for w in rec) + json.dumps(judge.failures))


@pytest.mark.parametrize("offset", [150, 180, 190, 199])
def test_non_json_body_echoing_the_key_across_the_200_character_cut(serve, offset):
    _, url = serve(lambda auth: (200, ("<html>" + "x" * offset + auth + "</html>").encode()))
    with pytest.raises(ValueError, match="not JSON") as info:
        OpenAICompatibleJudge(url, "m", max_retries=0, api_key=KEY)(["a"], ["b"])
    assert_clean(str(info.value))


@pytest.mark.parametrize("text, limit, want", [
    ("x" * 10 + KEY, 20, "x" * 10 + "***"),  # the cut leaves a fragment: masked
    ("x" * 10 + KEY[:12], 100, "x" * 10 + "***"),  # the server cut its own echo
    (KEY[-12:] + " rest", 100, "*** rest"),  # a fragment at the start
    ("Bearer abc\\r'", 100, "Bearer ***'"),  # any bearer token, escaped line end included
    (json.dumps(KEY + "\r")[1:-1], 100, "***"),  # the JSON-escaped form
    (repr((KEY + "\r").encode())[2:-1], 100, "***"),  # the bytes repr http.client uses
])
def test_redact_cut_table(text, limit, want):
    assert redact_cut(text, [KEY + "\r"] if "\\r" in text else [KEY], limit) == want


def test_redact_masks_every_escaped_form():
    key = 'sk-"q/\\uote'
    for form in (key, json.dumps(key)[1:-1], repr(key)[1:-1]):
        assert redact(f"a {form} b", [key]) == "a *** b"
