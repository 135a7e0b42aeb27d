"""A small JSON-over-HTTP POST with an overall deadline and a strict redirect policy.

Used by the OpenAI-compatible judge client. Standard library only (``http.client``).

- **Deadline.** ``timeout`` bounds the whole request (connect, send, headers, body), not one
  socket operation: a server that trickles a byte at a time cannot hold a call past it.
  A watchdog shuts the socket down when the deadline passes.
- **Redirects.** Not followed by default: a 3xx answer is an error naming both addresses.
  With ``follow_redirects=True`` only same-origin redirects (scheme, host and port equal)
  are followed, re-sending the same POST and body; a redirect to another origin is always
  refused, so the credential is never sent anywhere but the configured server.
- **Errors** name the URL. Connection errors, timeouts, 5xx and 429 answers, and 200 answers
  whose body is not JSON (an HTML error page from a proxy) are retried with back-off.
- **Secrets.** Every message (also a server's answer quoted in one, which may echo the
  ``Authorization`` header) has the caller's ``secrets`` replaced by ``***`` *before* it is
  cut to length (a fragment of a key left at the cut is masked too), the token after
  ``Bearer`` is always masked, and no exception chains to one that could hold them.
  :func:`clean_api_key` refuses keys with control characters (a CRLF ``.env`` file) before
  ``http.client`` could quote them in its own error.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import re
import socket
import threading
import time
import urllib.parse
from typing import Any

__all__ = ["HttpReplyError", "post_json", "redact", "redact_cut", "clean_api_key", "is_loopback"]

_REDIRECTS = (301, 302, 303, 307, 308)
_MAX_HOPS = 5
_MAX_BODY = 32 * 2**20
#: A fragment of a secret this long or longer, cut at either end of a quoted text, is masked.
_MIN_FRAGMENT = 4
_BEARER = re.compile(r"(?i)(\bbearer\s+)[^\s'\",;]+")


class HttpReplyError(ValueError):
    """The server answered, but not with a JSON document (after the retries)."""


def _forms(sec: str) -> list[str]:
    """The ways ``sec`` can appear in a message: as is, URL-encoded, JSON- and repr-escaped, stripped."""
    forms = {sec, sec.strip(), urllib.parse.quote(sec, safe=""), json.dumps(sec)[1:-1], repr(sec)[1:-1],
             repr(sec.encode("utf-8", "backslashreplace"))[2:-1]}
    return sorted((f for f in forms if f), key=len, reverse=True)  # longest first: no half-replaced form


def redact(text: str, secrets: Any) -> str:
    """``text`` with every secret (in every escaped form) and any ``Bearer`` token replaced by ``***``.

    Examples
    --------
    >>> redact("401: bad header 'Bearer sk-123'", ["sk-123"])
    "401: bad header 'Bearer ***'"
    >>> redact("Invalid header value b'Bearer sk-9\\\\r'", [])
    "Invalid header value b'Bearer ***'"
    """
    for sec in secrets or ():
        if not sec:
            continue
        for form in _forms(sec):
            text = text.replace(form, "***")
    return _BEARER.sub(r"\1***", text)


def redact_cut(text: str, secrets: Any, limit: int) -> str:
    """``text`` redacted (:func:`redact`), *then* cut to ``limit`` characters.

    A fragment of a secret (at least four characters) left at either end, by the cut or by
    a server that cut its own echo, is masked as well.

    Examples
    --------
    >>> redact_cut("x" * 8 + "sk-ABCDEFGH", ["sk-ABCDEFGH"], 12)
    'xxxxxxxx***'
    >>> redact_cut("echo: sk-ABCD", ["sk-ABCDEFGH"], 100)
    'echo: ***'
    """
    text = redact(text, secrets)[:limit]
    for sec in secrets or ():
        for form in _forms(sec) if sec else ():
            for k in range(len(form) - 1, _MIN_FRAGMENT - 1, -1):
                if text.endswith(form[:k]):
                    text = text[:-k] + "***"
                    break
            for k in range(len(form) - 1, _MIN_FRAGMENT - 1, -1):
                if text.startswith(form[-k:]):
                    text = "***" + text[k:]
                    break
    return text


def clean_api_key(key: str, where: str) -> str:
    """``key`` without surrounding whitespace; ``ValueError`` (never showing it) for control characters.

    A key read from a CRLF ``.env`` file ends in ``\\r``; surrounding whitespace (a line end) is
    removed. A control or non-Latin-1 character inside the key cannot travel in an HTTP
    header: refused with its position, not the key.

    Examples
    --------
    >>> clean_api_key("sk-123\\r\\n", "api_key")
    'sk-123'
    >>> clean_api_key("sk-1\\x0023", "api_key")
    Traceback (most recent call last):
    ...
    ValueError: api_key holds a control character (U+0000 at position 5 of 7); the key is not shown. Check how it was stored (a line end or a stray byte inside it)
    """
    stripped = key.strip()
    if not stripped:
        raise ValueError(f"{where} is empty (only whitespace)")
    for pos, ch in enumerate(stripped):
        code = ord(ch)
        if code < 32 or 127 <= code < 160 or code > 255:
            kind = "a control character" if code < 32 or 127 <= code < 160 else "a character outside Latin-1"
            raise ValueError(f"{where} holds {kind} (U+{code:04X} at position {pos + 1} of {len(stripped)}); "
                             f"the key is not shown. Check how it was stored (a line end or a stray byte inside it)")
    return stripped


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine (``localhost``, ``127.0.0.0/8``, ``::1``).

    Examples
    --------
    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("example.org")
    (True, True, False)
    """
    h = host.strip("[]").lower().rstrip(".")
    if h == "localhost" or h.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def _origin(url: str) -> tuple[str, str, int]:
    p = urllib.parse.urlsplit(url)
    return p.scheme, (p.hostname or "").lower(), p.port or (443 if p.scheme == "https" else 80)


def _abort(conn: http.client.HTTPConnection) -> None:
    sock = conn.sock
    if sock is not None:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def _once(url: str, data: bytes, headers: dict[str, str], deadline: float) -> tuple[int, Any, bytes]:
    """One POST; (status, headers, body). Raises TimeoutError past ``deadline``."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError("deadline passed before the request was sent")
    p = urllib.parse.urlsplit(url)
    cls = http.client.HTTPSConnection if p.scheme == "https" else http.client.HTTPConnection
    conn = cls(p.hostname, p.port, timeout=remaining)
    watchdog = threading.Timer(remaining, _abort, (conn,))
    watchdog.daemon = True
    watchdog.start()
    try:
        conn.request("POST", (p.path or "/") + (f"?{p.query}" if p.query else ""), body=data, headers=headers)
        resp = conn.getresponse()
        body = resp.read(_MAX_BODY + 1)
        if time.monotonic() >= deadline:
            raise TimeoutError("the answer was not complete within the deadline")
        return resp.status, resp.headers, body
    except (OSError, http.client.HTTPException) as exc:
        if time.monotonic() >= deadline - 1e-3:
            raise TimeoutError("the answer was not complete within the deadline") from exc
        raise
    finally:
        watchdog.cancel()
        conn.close()


def post_json(url: str, body: Any, *, headers: dict[str, str], timeout: float, max_retries: int,
              follow_redirects: bool = False, secrets: Any = ()) -> Any:
    """POST ``body`` as JSON to ``url`` and return the decoded JSON answer.

    Raises ``RuntimeError`` for a refused redirect or a 4xx answer, ``ConnectionError`` when
    no answer came after the retries (each attempt bounded by ``timeout`` seconds in all),
    and :class:`HttpReplyError` when the answers were not JSON. ``secrets`` (the API key)
    are replaced by ``***`` in every message.
    """
    try:
        return _post_json(url, body, headers=headers, timeout=timeout, max_retries=max_retries,
                          follow_redirects=follow_redirects, secrets=secrets)
    except (RuntimeError, ConnectionError, ValueError, UnicodeError) as exc:  # ValueError: http.client's header check
        simple = (RuntimeError, ConnectionError, HttpReplyError, ValueError)
        cls = type(exc) if type(exc) in simple else (ValueError if isinstance(exc, ValueError) else RuntimeError)
        clean = redact(str(exc), secrets)
    raise cls(clean)  # raised outside the handler: no chained exception that could hold the key


def _post_json(url: str, body: Any, *, headers: dict[str, str], timeout: float, max_retries: int,
               follow_redirects: bool, secrets: Any = ()) -> Any:
    data = json.dumps(body).encode("utf-8")
    hdrs = {"Content-Type": "application/json", "Accept": "application/json", **headers}
    err: str = ""
    for attempt in range(max_retries + 1):
        if attempt:
            time.sleep(min(0.25 * 2 ** (attempt - 1), 4.0))
        target = url
        deadline = time.monotonic() + timeout
        try:
            for _ in range(_MAX_HOPS + 1):
                status, rh, raw = _once(target, data, hdrs, deadline)
                if status not in _REDIRECTS:
                    break
                location = urllib.parse.urljoin(target, rh.get("Location") or "")
                if _origin(location) != _origin(url):
                    raise RuntimeError(
                        f"{url} answered HTTP {status} redirecting to another origin ({location}); "
                        f"refused: the API key is only ever sent to the configured server. "
                        f"Set base_url to the final address")
                if not follow_redirects:
                    raise RuntimeError(
                        f"{url} answered HTTP {status} redirecting to {location}; redirects are not "
                        f"followed (set base_url to the final address, or follow_redirects=True for "
                        f"same-origin redirects)")
                target = location
            else:
                raise RuntimeError(f"{url}: more than {_MAX_HOPS} redirects")
        except TimeoutError:
            err = f"no complete answer within timeout={timeout:g} s"
            continue
        except (OSError, http.client.HTTPException) as exc:
            err = f"{type(exc).__name__}: {exc}"
            continue
        if status == 429 or status >= 500:
            err = f"HTTP {status}"
            continue
        if status >= 400:
            text = raw[:2**16].decode("utf-8", "replace")  # redacted whole, then cut: no key split by the cut
            raise RuntimeError(f"{target} answered HTTP {status}: {redact_cut(text, secrets, 500)}")
        if len(raw) > _MAX_BODY:
            raise HttpReplyError(f"{target} answered with more than {_MAX_BODY} bytes")
        try:
            return json.loads(raw.decode("utf-8"))
        except RecursionError:  # not a transient failure: no retry
            raise HttpReplyError(f"{target} answered with JSON nested too deeply to read ({len(raw)} bytes)") from None
        except (UnicodeDecodeError, json.JSONDecodeError):
            snippet = redact_cut(raw[:2**16].decode("utf-8", "replace"), secrets, 200)
            err = f"not JSON (HTTP {status}, {len(raw)} bytes: {snippet!r})"
            continue
    if err.startswith("not JSON"):
        raise HttpReplyError(f"{url} answered {err} after {max_retries + 1} attempts")
    raise ConnectionError(f"no answer from {url} after {max_retries + 1} attempts: {err}")
