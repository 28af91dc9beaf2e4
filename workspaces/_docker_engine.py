"""The Docker engine plumbing under DockerWorkspace: error mapping and one hijacked exec stream."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from offloader.core.errors import BackendUnavailable, CommandTimeout

__all__ = ["close_quietly", "demux", "engine_errors", "read_all", "send_stdin"]


@contextlib.contextmanager
def engine_errors(name: str, doing: str) -> Iterator[None]:
    """Map docker SDK / transport errors to workspace errors naming the cause."""
    import docker.errors
    import requests.exceptions

    try:
        yield
    except (BackendUnavailable, CommandTimeout):
        raise
    except docker.errors.NotFound as exc:
        raise BackendUnavailable(f"container {name} no longer exists ({doing})") from exc
    except docker.errors.APIError as exc:
        if exc.status_code == 409:
            raise BackendUnavailable(f"container {name} is not running ({doing}): {exc.explanation}") from exc
        raise BackendUnavailable(f"the Docker engine refused {doing} for {name}: {exc}") from exc
    except requests.exceptions.Timeout as exc:
        raise CommandTimeout(f"the Docker engine did not answer in time ({doing})") from exc
    except (requests.exceptions.ConnectionError, docker.errors.DockerException, ConnectionError) as exc:
        raise BackendUnavailable(f"the Docker engine is unreachable ({doing}): {exc}") from exc


def send_stdin(sock: socket.socket, data: bytes) -> threading.Thread:
    """Feed stdin from a helper thread so a chatty command cannot deadlock us."""

    def send() -> None:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the reader sees the broken stream and reports it

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


#: Once the command has exited, the stream is read on until it is quiet this long (seconds): the engine
#: reports the exit before it has forwarded the command's last output.
DRAIN_SECONDS = 0.25


def read_all(sock: socket.socket, deadline: float, finished: Callable[[], bool] | None) -> bytes:
    """Read the stream to EOF. With ``finished``, stop once the command has exited and the stream has
    gone quiet (:data:`DRAIN_SECONDS`): an engine keeps the stream open while it still holds unread
    stdin, and may report the exit before the command's last output has come through."""
    chunks: list[bytes] = []
    exited = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        if finished is None:
            sock.settimeout(left)
        else:
            sock.settimeout(min(left, DRAIN_SECONDS if exited else 0.5))
        try:
            chunk = sock.recv(1 << 20)
        except TimeoutError:
            if exited:
                return b"".join(chunks)
            exited = finished is not None and finished()
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def demux(raw: bytes) -> tuple[bytes, bytes]:
    """Split Docker's multiplexed stream (8-byte frame headers) into stdout and stderr."""
    out: list[bytes] = []
    err: list[bytes] = []
    pos = 0
    view = memoryview(raw)
    while pos + 8 <= len(raw):
        kind, size = struct.unpack_from(">BxxxL", raw, pos)
        body = view[pos + 8 : pos + 8 + size]
        (err if kind == 2 else out).append(bytes(body))
        pos += 8 + size
    return b"".join(out), b"".join(err)


def close_quietly(stream: Any, sock: socket.socket) -> None:
    for obj in (stream, sock):
        with contextlib.suppress(Exception):
            obj.close()
