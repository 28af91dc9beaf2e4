"""The Docker engine killed (SIGKILL) and restarted in the middle of appends and offloads.

A private engine of the test's own (``tests/private_engine.py``) is killed while
four tasks append messages and offload results through one DockerWorkspace;
the shared engine is never touched. Observed and asserted:

* every operation either succeeded or raised :class:`BackendUnavailable`
  (the engine unreachable); an operation in flight when the engine died has an
  unknown outcome (its command may have finished inside the container), so its
  line or file is there whole or not at all, never torn, never twice;
* everything acknowledged before the crash is intact; buffered ledger lines are
  written by the next ``flush()``;
* after the restart the same workspace object works again;
* no temp file is left once the engine is back (``live_restore``), or once gc
  collected the debris of commands killed with their container (plain engine).

What the container does depends on the engine's ``live-restore`` setting:
with it the container and its running commands survive the restart; without it
(dockerd's default) the engine stops the container when it comes back, and only
a restart policy (``always`` / ``unless-stopped``) brings it up again; a
container without one stays stopped and the workspace says so.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

import anyio
import anyio.to_thread
import pytest

from offloader.core.messages import Message, TextBlock, ToolResultBlock
from tests.conftest import require
from tests.docker_support import build_image, start_container
from workspaces import BackendUnavailable
from workspaces.inventory import inventory
from workspaces.retention import RetentionPolicy

try:
    from tests.private_engine import PrivateEngine
    from workspaces.docker import DockerWorkspace
except ImportError as exc:  # pragma: no cover - the docker extra is missing
    if os.environ.get("OFFLOAD_REQUIRE_DOCKER") == "1":
        raise
    pytest.skip(f"the docker SDK is missing: {exc}", allow_module_level=True)

pytestmark = pytest.mark.anyio

_PAD = "x" * 3000  # a line is one write() well under a page: a SIGKILL cannot split it


@pytest.fixture(params=[True, False], ids=["live-restore", "plain"])
def engine(request: pytest.FixtureRequest) -> Iterator[PrivateEngine]:
    if shutil.which("dockerd") is None or os.geteuid() != 0:
        require("OFFLOAD_REQUIRE_DOCKER", "a private Docker engine needs dockerd and root")
    started = PrivateEngine(live_restore=request.param)
    try:
        started.start()
    except RuntimeError as exc:
        started.stop()
        require("OFFLOAD_REQUIRE_DOCKER", f"a private Docker engine cannot start: {exc}")
    yield started
    started.stop()


def _payload(tid: str) -> str:
    return f"{tid} {_PAD}"


def _wait_running(container: Any, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while True:
        container.reload()
        if container.status == "running" or time.monotonic() > deadline:
            return
        time.sleep(0.1)


async def test_the_engine_killed_mid_append_and_restarted_loses_nothing(engine: PrivateEngine) -> None:
    client = await anyio.to_thread.run_sync(engine.client)
    image = await anyio.to_thread.run_sync(build_image, client)
    always = {} if engine.live_restore else {"restart_policy": {"Name": "always"}}
    container = await anyio.to_thread.run_sync(lambda: start_container(client, image, network_mode="none", **always))
    idle = None if engine.live_restore else await anyio.to_thread.run_sync(start_container, client, image)
    async with DockerWorkspace(container.id, workdir="/ws", client=client, timeout=8) as ws:
        early = await ws.offload_tool_result("s", ToolResultBlock("early", "bash", (TextBlock(_payload("early")),)))
        await ws.offload_context("s", [Message("user", (TextBlock("early"),))])
        await ws.flush()

        acked: list[str] = []
        refs: dict[str, str] = {}
        failures: list[BaseException] = []
        busy = anyio.Event()

        async def appender(k: int) -> None:
            for i in range(10_000):
                try:
                    await ws.offload_context("s", [Message("user", (TextBlock(f"m{k}-{i} {_PAD}"),))])
                except Exception as exc:
                    failures.append(exc)
                    return
                acked.append(f"m{k}-{i}")
                if len(acked) >= 6:
                    busy.set()

        async def offloader(k: int) -> None:
            for i in range(10_000):
                tid = f"r{k}-{i}"
                try:
                    block = ToolResultBlock(tid, "bash", (TextBlock(_payload(tid)),))
                    refs[tid] = await ws.offload_tool_result("s", block)
                except Exception as exc:
                    failures.append(exc)
                    return

        async with anyio.create_task_group() as tg:
            for k in range(2):
                tg.start_soon(appender, k)
                tg.start_soon(offloader, k)
            with anyio.fail_after(60):
                await busy.wait()
            await anyio.to_thread.run_sync(engine.kill)  # four operations are in flight or about to start

        assert len(failures) == 4, failures
        assert all(isinstance(exc, BackendUnavailable) for exc in failures), failures
        assert all("engine" in str(exc) or "container" in str(exc) for exc in failures), failures

        await anyio.to_thread.run_sync(engine.start)
        await anyio.to_thread.run_sync(_wait_running, container)
        await ws.offload_context("s", [Message("user", (TextBlock("after"),))])  # the same workspace works again
        await ws.flush()  # ledger lines buffered before the crash

        if not engine.live_restore:  # commands killed with their container may leave temp files: gc's to collect
            await ws.gc(RetentionPolicy(temp_grace=0))
        with anyio.fail_after(20):  # live-restore: commands cut off from the dead engine end on their own
            while temps := [f.path for f in await ws._list("") if "/.tmp-" in f"/{f.path}"]:
                await anyio.sleep(0.2)
        assert not temps

        lines = (await ws.read_bytes("sessions/s/context.jsonl")).decode().splitlines()
        seen = Counter(json.loads(line)["content"][0]["text"].split(" ")[0] for line in lines)  # torn: raises
        assert seen["early"] == seen["after"] == 1
        assert all(seen[m] == 1 for m in acked), [m for m in acked if seen[m] != 1]
        assert max(seen.values()) == 1  # an operation with an unknown outcome landed at most once
        assert await ws.read_bytes(early) == _payload("early").encode()
        for tid, ref in refs.items():
            assert await ws.read_bytes(ref) == _payload(tid).encode()
        stored = [f.path for f in await ws._list("sessions/s") if f.path.rsplit("/", 1)[-1].startswith("tool_result-")]
        for path in stored:  # including those whose offload raised: whole or absent
            tid = path.rsplit("tool_result-", 1)[1].removesuffix(".txt")
            assert await ws.read_bytes(path) == _payload(tid).encode()
        ledger = {e["ref"] for e in (await inventory(ws)).sessions["s"].ledger if e.get("kind") == "tool_result"}
        assert set(refs.values()) | {early} <= ledger

    if idle is not None:  # no restart policy: the engine stopped it on its way back up, and says so
        with pytest.raises(BackendUnavailable, match="exited, not running"):
            await DockerWorkspace(idle.id, client=client, workdir="/ws").open()
