from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from workspaces import LocalWorkspace

NAME = "local"


@asynccontextmanager
async def open_workspace(tmp_path: Path) -> AsyncIterator[LocalWorkspace]:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        yield ws
