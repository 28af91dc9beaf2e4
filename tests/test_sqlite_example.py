"""The worked custom backend in ``examples/sqlite_workspace.py`` passes the shipped conformance suite."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from workspaces import Workspace
from workspaces.testing import WorkspaceSuite

_PATH = Path(__file__).resolve().parent.parent / "examples" / "sqlite_workspace.py"


def _load() -> Any:
    spec = importlib.util.spec_from_file_location("sqlite_workspace_example", _PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


SqliteWorkspace = _load().SqliteWorkspace


class TestSqliteWorkspace(WorkspaceSuite):
    @pytest.fixture
    async def workspace(self, tmp_path: Path) -> AsyncIterator[Workspace]:
        async with SqliteWorkspace(tmp_path / "offload.db") as ws:
            yield ws

    @pytest.fixture
    async def full_workspace(self, tmp_path: Path) -> AsyncIterator[Workspace]:
        async with SqliteWorkspace(tmp_path / "small.db", max_bytes=1 << 20) as ws:
            yield ws
