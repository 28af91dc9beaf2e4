"""FsspecWorkspace over a ``file://`` URL: the local-disk path through descriptors (race-free confinement)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from workspaces.fsspec import FsspecWorkspace

NAME = "fsspec_file"


@asynccontextmanager
async def open_workspace(tmp_path: Path) -> AsyncIterator[FsspecWorkspace]:
    async with FsspecWorkspace(f"file://{tmp_path}/ws") as ws:
        yield ws
