"""E2BWorkspace through the real e2b SDK (debug mode) against the envd protocol server.

No E2B endpoint is reachable from tests, so ``tests/envd_server.py`` stands in
for the sandbox; see its docstring for what it covers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from tests.conftest import require

NAME = "e2b"


@asynccontextmanager
async def open_workspace(tmp_path: Path) -> AsyncIterator[object]:
    try:
        from tests.envd_server import running_server
        from workspaces.e2b import E2BWorkspace
    except Exception as exc:  # an import failure: the backend cannot be tested here
        require("OFFLOAD_REQUIRE_E2B", f"the envd test server cannot start: {exc}")
        raise
    with running_server(tmp_path / "sandbox") as server:
        # ledger_batch=1: the suite reads the ledger right after an offload (batching is tested in test_e2b.py)
        async with E2BWorkspace(debug=True, sandbox_url=server.url, ledger_batch=1) as ws:
            yield ws
