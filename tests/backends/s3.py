"""FsspecWorkspace on S3: s3fs against moto's S3 server on loopback, a new bucket per test."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from tests.s3_server import s3_server_or_skip
from workspaces.fsspec import FsspecWorkspace

NAME = "s3"


@asynccontextmanager
async def open_workspace(tmp_path: Path) -> AsyncIterator[FsspecWorkspace]:
    server = s3_server_or_skip()
    bucket = server.new_bucket()
    async with FsspecWorkspace(f"s3://{bucket}/agents/run-1", **server.storage_options()) as ws:
        yield ws
