"""DockerWorkspace for the shared suite: one container for the whole run, a fresh workdir per test.

Starting a container costs ~0.3 s on the CI machine, so tests share one (built
from the local busybox image) and each gets its own ``/ws/<unique>`` workdir,
which is as isolated as a new container for every behaviour the suite checks.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from tests.conftest import require
from tests.docker_support import SharedContainer, engine_client
from workspaces.docker import DockerWorkspace

NAME = "docker"

_SHARED = SharedContainer()


@asynccontextmanager
async def open_workspace(tmp_path: Path) -> AsyncIterator[DockerWorkspace]:
    if engine_client() is None:
        require("OFFLOAD_REQUIRE_DOCKER", "no Docker engine answers (start one with .ci/docker-up.sh)")
    container = _SHARED.get()
    workdir = f"/ws/{tmp_path.name[:40]}-{secrets.token_hex(3)}"
    # ledger_batch=1: the suite reads the ledger right after an offload; batching
    # (the Docker default) is covered by its own suite test and tests/test_docker.py.
    async with DockerWorkspace(container, workdir=workdir, client=container.client, ledger_batch=1) as ws:
        yield ws
