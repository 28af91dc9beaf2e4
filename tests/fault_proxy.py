"""A fault-injecting HTTP proxy on loopback, in front of the moto S3 server.

Requests pass through unchanged unless a fault is queued: an HTTP error status
(500, 503 or S3's ``SlowDown``) returned instead of forwarding, or the
connection dropped half-way through reading a request body (a PUT cut by the
network). Faults are queued per HTTP method and consumed in order. A hook
(``before``) runs just before the next request of a method is forwarded: a
writer acting in the gap between a client's last check and its request.
"""

from __future__ import annotations

import http.client
import threading
from collections import deque
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

__all__ = ["FaultProxy"]

_ERRORS = {
    "500": (500, "InternalError", "We encountered an internal error. Please try again."),
    "503": (503, "ServiceUnavailable", "Please reduce your request rate."),
    "slowdown": (503, "SlowDown", "Please reduce your request rate."),
}


class FaultProxy:
    """``FaultProxy(upstream_url)``; ``.url`` to connect to; ``.inject(method, fault, times)``."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self._upstream = (parts.hostname or "127.0.0.1", parts.port or 80)
        self._faults: dict[str, deque[str]] = {}
        self._hooks: dict[str, list[tuple[str, Callable[[str], None]]]] = {}
        self._lock = threading.Lock()
        self.injected = 0
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _handle(self) -> None:
                fault = proxy._next(self.command)
                length = int(self.headers.get("Content-Length") or 0)
                if fault == "drop":
                    self.rfile.read(length // 2)  # half the body arrives, then the network fails
                    self.close_connection = True
                    self.connection.close()
                    return
                body = self.rfile.read(length) if length else b""
                if fault is not None:
                    status, code, message = _ERRORS[fault]
                    xml = f"<Error><Code>{code}</Code><Message>{message}</Message></Error>".encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/xml")
                    self.send_header("Content-Length", str(len(xml)))
                    self.end_headers()
                    self.wfile.write(xml)
                    return
                hook = proxy._hook(self.command, self.path)
                if hook is not None:
                    hook(self.path)
                conn = http.client.HTTPConnection(*proxy._upstream, timeout=30)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "expect")}
                    conn.request(self.command, self.path, body=body, headers=headers)
                    answer = conn.getresponse()
                    data = answer.read()
                    self.send_response(answer.status)
                    for key, value in answer.getheaders():
                        if key.lower() not in ("transfer-encoding", "connection", "content-length", "server", "date"):
                            self.send_header(key, value)
                    length = answer.getheader("Content-Length") if self.command == "HEAD" else None
                    self.send_header("Content-Length", length or str(len(data)))  # HEAD: the object's size
                    self.end_headers()
                    if self.command != "HEAD":
                        self.wfile.write(data)
                finally:
                    conn.close()

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _handle

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def inject(self, method: str, fault: str, times: int = 1) -> None:
        """Queue ``fault`` ("500", "503", "slowdown" or "drop") for the next ``times`` ``method`` requests."""
        with self._lock:
            self._faults.setdefault(method, deque()).extend([fault] * times)

    def before(self, method: str, hook: Callable[[str], None], *, path_contains: str = "") -> None:
        """Call ``hook(path)`` just before the next ``method`` request whose path contains
        ``path_contains`` is forwarded (once)."""
        with self._lock:
            self._hooks.setdefault(method, []).append((path_contains, hook))

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()
            self._hooks.clear()

    def _hook(self, method: str, path: str) -> Callable[[str], None] | None:
        with self._lock:
            hooks = self._hooks.get(method, [])
            for i, (part, hook) in enumerate(hooks):
                if part in path:
                    del hooks[i]
                    return hook
            return None

    def _next(self, method: str) -> str | None:
        with self._lock:
            queue = self._faults.get(method)
            if queue:
                self.injected += 1
                return queue.popleft()
            return None

    def __enter__(self) -> FaultProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
