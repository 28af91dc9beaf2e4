"""Fixtures for the documentation's snippets (used from ``<!-- snippet: setup ... -->`` comments).

Each helper takes the page's ``cleanups`` list and appends what undoes it, so a page
leaves no container, image tag, environment variable or bucket behind.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from typing import Any

from tests.conftest import require

__all__ = ["build_log_result", "docker_container", "docker_image", "s3_bucket", "scripted_model"]


def build_log_result(call_id: str = "call_7", lines: int = 20_000) -> dict[str, Any]:
    """An OpenAI tool message holding a build log with one compiler error in the middle."""
    out = [f"[{i:05}] compiling unit_{i}.c ... ok" for i in range(lines)]
    out[lines * 3 // 5] = "unit_77.c:41: error: use of undeclared identifier 'cfg'"
    return {"role": "tool", "tool_call_id": call_id, "content": "\n".join(out)}


def _engine() -> Any:
    from tests.docker_support import engine_client

    client = engine_client()
    if client is None:
        require("OFFLOAD_REQUIRE_DOCKER", "this page's snippets need a Docker engine")
    return client


def docker_image(tag: str, cleanups: list[Callable[[], Any]]) -> None:
    """Make the busybox test image available as ``tag`` (built locally, no registry)."""
    from tests.docker_support import build_image

    client = _engine()
    repository, _, version = tag.rpartition(":")
    client.images.get(build_image(client)).tag(repository, version)
    cleanups.append(lambda: _quietly(client.images.remove, tag))


def docker_container(name: str, cleanups: list[Callable[[], Any]], *, user: str | None = None) -> None:
    """Start an idle container called ``name`` from the busybox test image."""
    from tests.docker_support import build_image, remove_quietly, start_container

    client = _engine()
    with contextlib.suppress(Exception):
        client.containers.get(name).remove(force=True)
    container = start_container(client, build_image(client), name=name)
    if user is not None:
        container.exec_run(["sh", "-c", f"mkdir -p /workspace && chown {user} /workspace"])
    cleanups.append(lambda: remove_quietly(container))


def s3_bucket(name: str, cleanups: list[Callable[[], Any]]) -> None:
    """Create ``name`` on a local moto S3 server and point boto's usual settings at it."""
    from tests.s3_server import s3_server_or_skip

    server = s3_server_or_skip()
    with contextlib.suppress(Exception):
        server.client().create_bucket(Bucket=name)
    settings = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": server.endpoint_url,
    }
    saved = {k: os.environ.get(k) for k in settings}
    os.environ.update(settings)
    cleanups.append(lambda: _restore(saved))


def scripted_model(*replies: str) -> Callable[[str], Any]:
    """An ``async (prompt) -> str`` completion function answering from a script."""
    queue = list(replies)

    async def complete(prompt: str) -> str:
        return queue.pop(0) if queue else "[]"

    return complete


def _restore(saved: dict[str, str | None]) -> None:
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def _quietly(fn: Callable[..., Any], *args: Any) -> None:
    with contextlib.suppress(Exception):
        fn(*args)
