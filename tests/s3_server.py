"""A real S3 endpoint for tests: moto's S3 server on 127.0.0.1, a random free port.

One server serves the whole test run (starting one costs about a second); every
test gets its own bucket, so tests stay isolated. s3fs talks to it over HTTP
exactly as it talks to AWS: credentials and ``endpoint_url`` are passed as
storage options, so no environment variable is changed.
"""

from __future__ import annotations

import atexit
import functools
import logging
import secrets
import socket
from dataclasses import dataclass
from typing import Any

from tests.conftest import require

__all__ = ["S3Server", "s3_server_or_skip", "shared_server"]

_KEY = "testing"  # moto accepts any credentials; these never reach AWS


@dataclass(frozen=True)
class S3Server:
    endpoint_url: str

    def storage_options(self) -> dict[str, Any]:
        """What ``FsspecWorkspace(url, **options)`` needs to reach this server."""
        return {
            "key": _KEY,
            "secret": _KEY,
            "endpoint_url": self.endpoint_url,
            "client_kwargs": {"region_name": "us-east-1"},
        }

    def client(self) -> Any:
        import boto3  # type: ignore[import-untyped]

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            aws_access_key_id=_KEY,
            aws_secret_access_key=_KEY,
            region_name="us-east-1",
        )

    def new_bucket(self, prefix: str = "offload") -> str:
        """Create a fresh, empty bucket and return its name."""
        name = f"{prefix}-{secrets.token_hex(6)}"
        self.client().create_bucket(Bucket=name)
        return name


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@functools.cache
def shared_server() -> S3Server:
    """Start moto's threaded S3 server once per process; stopped at exit."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    atexit.register(server.stop)
    return S3Server(f"http://127.0.0.1:{port}")


def s3_server_or_skip() -> S3Server:
    """The shared server, or a skip (a failure when CI sets OFFLOAD_REQUIRE_S3=1)."""
    try:
        server = shared_server()
        server.client().list_buckets()
    except Exception as exc:  # any reason moto cannot serve: missing package, port, werkzeug...
        require("OFFLOAD_REQUIRE_S3", f"moto's S3 server could not start: {exc!r}")
        raise
    return server
