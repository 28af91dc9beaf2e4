"""FsspecWorkspace over fsspec's in-memory filesystem, a fresh folder per test."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import fsspec

from workspaces.fsspec import FsspecWorkspace

NAME = "fsspec_memory"


@asynccontextmanager
async def open_workspace(tmp_path: Path) -> AsyncIterator[FsspecWorkspace]:
    folder = f"offload-{secrets.token_hex(6)}"
    try:
        async with FsspecWorkspace(f"memory://{folder}") as ws:
            yield ws
    finally:
        fs = fsspec.filesystem("memory")
        if fs.exists(f"/{folder}"):
            fs.rm(f"/{folder}", recursive=True)
