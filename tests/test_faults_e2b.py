"""E2B network faults, injected by the envd test server under the real e2b SDK.

Bursts of 429 / 502 / 503 answers, connections dropped before or after the
request took effect, answers that start late and streams that stall. Each
operation either succeeds (retried where that is safe) or raises
:class:`BackendUnavailable` / :class:`CommandTimeout` within its time limit;
no line is torn or appended twice, nothing earlier is lost, no temp file stays.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from offloader.core.errors import BackendUnavailable, CommandTimeout
from offloader.core.messages import Message, TextBlock, ToolResultBlock

try:
    from tests.envd_server import EnvdServer, running_server
    from workspaces.e2b import E2BWorkspace
except ImportError as exc:  # pragma: no cover - the e2b extra is missing
    if os.environ.get("OFFLOAD_REQUIRE_E2B") == "1":
        raise
    pytest.skip(f"the e2b SDK or the test server cannot be imported: {exc}", allow_module_level=True)

pytestmark = pytest.mark.anyio

WORKDIR = "/home/user/workspace"
START = "/process.Process/Start"
CONTEXT = "sessions/s/context.jsonl"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[EnvdServer]:
    with running_server(tmp_path / "sandbox") as srv:
        yield srv


@pytest.fixture
async def ws(server: EnvdServer) -> AsyncIterator[E2BWorkspace]:
    async with E2BWorkspace(debug=True, sandbox_url=server.url, backoff=0.01, ledger_batch=1) as workspace:
        await workspace.offload_context("s", [_message("earlier")])
        server.clear()
        yield workspace


def _message(text: str) -> Message:
    return Message("user", (TextBlock(text),))


def _texts(server: EnvdServer) -> list[str]:
    """The context's messages, read on the host; a torn line fails to parse."""
    lines = server.host(f"{WORKDIR}/{CONTEXT}").read_text().splitlines()
    return [json.loads(line)["content"][0]["text"] for line in lines]


def _temps(server: EnvdServer) -> list[str]:
    return [p.name for p in server.host(WORKDIR).rglob(".tmp-*")]


async def _settled(server: EnvdServer, seconds: float = 10.0) -> None:
    """Wait until no command runs in the sandbox (a late request may still be working)."""
    with anyio.fail_after(seconds):
        while server.running_pids():
            await anyio.sleep(0.05)


@pytest.mark.parametrize("status", [429, 502, 503])
async def test_a_burst_of_refusals_is_retried_and_the_append_lands_once(
    ws: E2BWorkspace, server: EnvdServer, status: int
) -> None:
    await ws.offload_context("s", [_message("quiet")])
    quiet = server.count(lambda r: r.path == START)
    server.clear()
    server.fail_next(status, times=3, prefix=START)
    await ws.offload_context("s", [_message("after a burst")])
    assert _texts(server) == ["earlier", "quiet", "after a burst"]
    assert server.count(lambda r: r.path == START) == quiet + 3  # three refused, then the same as a quiet one


async def test_a_connection_dropped_before_the_append_took_effect_raises_and_appends_nothing(
    ws: E2BWorkspace, server: EnvdServer
) -> None:
    server.fault_next("drop", prefix=START)
    with pytest.raises(BackendUnavailable, match="dropped mid-request; it may or may not have taken effect"):
        await ws.offload_context("s", [_message("dropped")])
    assert server.count(lambda r: r.path == START) == 1  # not retried
    await ws.offload_context("s", [_message("next")])
    assert _texts(server) == ["earlier", "next"]
    assert not _temps(server)


async def test_an_answer_dropped_after_the_append_took_effect_is_not_retried_so_the_line_is_there_once(
    ws: E2BWorkspace, server: EnvdServer
) -> None:
    server.fault_next("drop_after", prefix=START)
    with pytest.raises(BackendUnavailable, match="may or may not have taken effect"):
        await ws.offload_context("s", [_message("applied")])
    assert server.count(lambda r: r.path == START) == 1  # a retry would have appended it again
    assert _texts(server) == ["earlier", "applied"]
    assert not _temps(server)


def _ops(ws: E2BWorkspace) -> dict[str, tuple[str, Callable[[], Awaitable[Any]]]]:
    """Idempotent operations and the request each one makes first."""
    big = "y" * 300_000  # above inline_limit: an upload of a temp file, then the commit

    def offload(tid: str, text: str) -> Awaitable[str]:
        return ws.offload_tool_result("s", ToolResultBlock(tid, "bash", (TextBlock(text),)))

    return {
        "read": ("/files", lambda: ws.read_bytes(CONTEXT)),
        "ranged read": (START, lambda: ws.read_bytes(CONTEXT, 0, 5)),
        "stat": ("/filesystem.Filesystem/Stat", lambda: ws.stat(CONTEXT)),
        "list": (START, lambda: ws._list("sessions")),
        "offload": (START, lambda: ws.offload_tool_result("s", ToolResultBlock("t1", "bash", (TextBlock("t1"),)))),
        "large offload": (
            "/files",
            lambda: ws.offload_tool_result("s", ToolResultBlock("t2", "bash", (TextBlock(big),))),
        ),
    }


@pytest.mark.parametrize("fault", ["drop", "drop_after"])
@pytest.mark.parametrize("op", ["read", "ranged read", "stat", "list", "offload", "large offload"])
async def test_an_idempotent_operation_is_retried_after_a_dropped_connection(
    ws: E2BWorkspace, server: EnvdServer, op: str, fault: str
) -> None:
    prefix, run = _ops(ws)[op]
    server.fault_next(fault, prefix=prefix)
    result = await run()
    assert server.count(lambda r: r.path == prefix) >= 2  # the drop, then the retry
    if op.endswith("offload"):
        assert (await ws.read_bytes(result)).startswith(b"t1" if op == "offload" else b"yyy")
    assert _texts(server) == ["earlier"]
    await _settled(server)
    assert not _temps(server)


async def test_drops_that_persist_give_up_after_the_bounded_retries(server: EnvdServer) -> None:
    async with E2BWorkspace(debug=True, sandbox_url=server.url, retries=2, backoff=0.01) as ws:
        await ws.write_bytes("a.txt", b"x")
        server.clear()
        server.fault_next("drop", times=10, prefix="/files")
        with pytest.raises(BackendUnavailable, match=r"dropped mid-request \(3 attempts\)"):
            await ws.read_bytes("a.txt")
        assert server.count(lambda r: r.is_download) == 3


@pytest.mark.parametrize("op", ["append", "read"])
async def test_a_late_answer_hits_the_request_timeout_with_a_clear_error(server: EnvdServer, op: str) -> None:
    async with E2BWorkspace(debug=True, sandbox_url=server.url, request_timeout=0.5) as ws:
        await ws.offload_context("s", [_message("earlier")])
        server.fault_next("slow", delay=3.0, prefix=START if op == "append" else "/files")
        began = time.monotonic()
        with anyio.fail_after(5), pytest.raises(BackendUnavailable, match="did not answer in time"):
            if op == "append":
                await ws.offload_context("s", [_message("late")])
            else:
                await ws.read_bytes(CONTEXT)
        assert time.monotonic() - began < 2.5  # the client's limit (0.5 s), not the server's delay (3 s)
        await anyio.sleep(3.0)
        await _settled(server)  # the late request may still take effect: whole, once, or not at all
        texts = _texts(server)
        assert texts[0] == "earlier" and texts[1:] in ([], ["late"])
        assert not _temps(server)


async def test_a_stream_that_stalls_hits_the_script_timeout(server: EnvdServer) -> None:
    async with E2BWorkspace(debug=True, sandbox_url=server.url, script_timeout=1.0) as ws:
        await ws.offload_context("s", [_message("earlier")])
        server.fault_next("stall", delay=5.0, prefix=START)
        with anyio.fail_after(4), pytest.raises(BackendUnavailable, match="did not answer"):
            await ws.offload_context("s", [_message("stalled")])
        await _settled(server)
        assert _texts(server) in (["earlier"], ["earlier", "stalled"])
        assert not _temps(server)


async def test_a_command_whose_stream_stalls_raises_command_timeout(ws: E2BWorkspace, server: EnvdServer) -> None:
    server.fault_next("stall", delay=5.0, prefix=START)
    with anyio.fail_after(4), pytest.raises(CommandTimeout):
        await ws.exec(["echo", "hi"], timeout=1.0)


@pytest.mark.parametrize("op", ["large append", "large replace"])
async def test_a_failed_operation_removes_the_temp_file_it_uploaded(
    ws: E2BWorkspace, server: EnvdServer, op: str
) -> None:
    """The upload landed, then the command that would use it (and remove it) was dropped before it ran."""
    big = b"z" * 300_000  # above inline_limit: uploaded as a temp file first
    server.fault_next("drop", prefix=START)
    with pytest.raises(BackendUnavailable):
        if op == "large append":
            await ws._append(CONTEXT, big + b"\n")
        else:
            await ws._write([("sessions/s/big.bin", big)])
    assert server.count(lambda r: r.is_upload) == 1
    assert _texts(server) == ["earlier"]
    assert not _temps(server)  # gc would never see a temp file at the workdir's root


async def test_an_append_after_a_dead_writers_torn_line_cuts_it_instead_of_fusing(
    ws: E2BWorkspace, server: EnvdServer
) -> None:
    with server.host(f"{WORKDIR}/{CONTEXT}").open("ab") as log:
        log.write(b'{"role": "user", "content": [{"type": "te')  # killed mid-line: never acknowledged
    await ws.offload_context("s", [_message("next")])
    assert _texts(server) == ["earlier", "next"]
