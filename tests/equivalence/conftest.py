"""What the equivalence tests share: a loopback stub of an OpenAI-compatible judge server.

``judge_server(plan)`` starts a threaded HTTP server on 127.0.0.1 (a free port) and returns
``(server, base_url)``. ``plan`` maps a request path (or ``"*"``, any path) to a function of the
request handler that answers it, usually with ``handler.reply(status, data, headers)``; a bare
function is the plan for every path. ``server.log`` records every request (method, path,
Authorization header, body bytes) before it is answered. The servers stop when the test ends.
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Callable, Iterable

import pytest


class StubJudgeHandler(http.server.BaseHTTPRequestHandler):
    """Answers each request with the server's plan; records it in ``server.log`` first."""

    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def _serve(self, method: str) -> None:
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        self.server.log.append({"method": method, "path": self.path, "auth": self.headers.get("Authorization"),
                                "body": body})
        self.server.plan.get(self.path, self.server.plan.get("*"))(self)

    def do_POST(self):
        self._serve("POST")

    def do_GET(self):
        self._serve("GET")

    def reply(self, status: int, data: bytes | object, headers: Iterable[tuple[str, str]] = ()) -> None:
        """Answer ``status`` with ``data``: bytes as they are, anything else as JSON."""
        raw = data if isinstance(data, bytes) else json.dumps(data).encode()
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(raw)))
        self.end_headers()
        self.wfile.write(raw)


@pytest.fixture()
def judge_server():
    """Start stub judge servers: ``judge_server(plan) -> (server, "http://127.0.0.1:PORT")``."""
    made = []

    def make(plan: dict[str, Callable] | Callable) -> tuple[http.server.ThreadingHTTPServer, str]:
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StubJudgeHandler)
        srv.daemon_threads = True
        srv.plan, srv.log = (plan if isinstance(plan, dict) else {"*": plan}), []
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        made.append(srv)
        return srv, f"http://127.0.0.1:{srv.server_address[1]}"

    yield make
    for srv in made:
        srv.shutdown()
        srv.server_close()
