"""The blocking detector every test runs under (tests/blocking.py) works on asyncio and on trio."""

from __future__ import annotations

from pathlib import Path

import anyio
import anyio.to_thread
import pytest
from blockbuster import BlockingError

from workspaces import LocalWorkspace


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
@pytest.mark.anyio
async def test_a_blocking_read_on_the_event_loop_fails_and_in_a_worker_thread_passes(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        await ws.write_bytes("a.txt", b"x")
        with pytest.raises(BlockingError):
            ws._tree.stat("a.txt")  # our code doing file I/O on the loop's own thread
        assert await anyio.to_thread.run_sync(ws._tree.stat, "a.txt") is not None
        assert await ws.read_bytes("a.txt") == b"x"
