"""S3 faults, injected by a proxy on loopback in front of moto (tests/fault_proxy.py).

Each operation either succeeds (transient faults are retried: offloads are
idempotent, content-addressed PUTs) or raises a clear error; either way no torn
object, no lost earlier data, no temp debris and no ledger line without its file.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import anyio
import pytest

from offloader.core.messages import Message, TextBlock, ToolResultBlock
from tests.fault_proxy import FaultProxy
from tests.s3_server import S3Server, s3_server_or_skip
from workspaces.fsspec import FsspecWorkspace
from workspaces.inventory import inventory
from workspaces.retention import RetentionPolicy

pytestmark = pytest.mark.anyio


@pytest.fixture
def proxy() -> Iterator[tuple[FaultProxy, S3Server]]:
    server = s3_server_or_skip()
    with FaultProxy(server.endpoint_url) as p:
        yield p, server


@pytest.fixture
async def ws(proxy: tuple[FaultProxy, S3Server]) -> AsyncIterator[FsspecWorkspace]:
    p, server = proxy
    options = {**server.storage_options(), "endpoint_url": p.url}
    async with FsspecWorkspace(f"s3://{server.new_bucket()}/w", **options) as w:
        yield w


def _result(tid: str, text: str) -> ToolResultBlock:
    return ToolResultBlock(tid, "bash", (TextBlock(text),))


async def _consistent(ws: FsspecWorkspace) -> None:
    """Every ledger line names a whole file; no temp object anywhere."""
    inv = await inventory(ws)
    for s in inv.sessions.values():
        assert not s.temps
        for e in s.ledger:
            if e.get("kind") == "tool_result":
                assert (await ws.read_bytes(e["ref"])).decode().startswith(e["tool_id"])


@pytest.mark.parametrize("fault", ["500", "503", "slowdown"])
async def test_a_burst_of_errors_on_put_is_retried_and_the_offload_lands_whole(
    ws: FsspecWorkspace, proxy: tuple[FaultProxy, S3Server], fault: str
) -> None:
    p, _ = proxy
    p.inject("PUT", fault, times=2)
    ref = await ws.offload_tool_result("s", _result("t1", "t1 " + "x" * 5000))
    assert p.injected == 2
    assert await ws.read_bytes(ref) == ("t1 " + "x" * 5000).encode()
    await _consistent(ws)


async def test_errors_on_reads_are_retried(ws: FsspecWorkspace, proxy: tuple[FaultProxy, S3Server]) -> None:
    p, _ = proxy
    ref = await ws.offload_tool_result("s", _result("t1", "t1 body"))
    p.inject("GET", "503", times=2)
    assert await ws.read_bytes(ref) == b"t1 body"


async def test_a_connection_dropped_mid_put_loses_nothing(
    ws: FsspecWorkspace, proxy: tuple[FaultProxy, S3Server]
) -> None:
    p, _ = proxy
    first = await ws.offload_tool_result("s", _result("t0", "t0 earlier"))
    await ws.offload_context("s", [Message("user", (TextBlock("earlier"),))])
    p.inject("PUT", "drop", times=1)
    try:
        ref: str | None = await ws.offload_tool_result("s", _result("t1", "t1 " + "y" * 20000))
    except OSError:  # surfaced as a clear error: then nothing of it may be visible
        ref = None
    if ref is not None:
        assert await ws.read_bytes(ref) == ("t1 " + "y" * 20000).encode()
    assert await ws.read_bytes(first) == b"t0 earlier"
    assert b"earlier" in await ws.read_bytes("sessions/s/context.jsonl")
    await _consistent(ws)


async def test_a_store_that_keeps_failing_gives_a_clear_error_and_no_ledger_line(
    proxy: tuple[FaultProxy, S3Server],
) -> None:
    p, server = proxy
    options = {**server.storage_options(), "endpoint_url": p.url}
    options["config_kwargs"] = {"retries": {"max_attempts": 1}}
    async with FsspecWorkspace(f"s3://{server.new_bucket()}/w", **options) as ws:
        ws._fs.fs.retries = 1  # s3fs's own retry count (a class attribute, 5): 1 s here instead of 35 s
        await ws.offload_tool_result("s", _result("t0", "t0 earlier"))
        p.inject("PUT", "503", times=50)
        with pytest.raises(OSError):
            await ws.offload_tool_result("s", _result("t1", "t1 never"))
        p.clear()
        inv = await inventory(ws)
        assert sorted(inv.sessions["s"].items) == ["sessions/s/tool_result-t0.txt"]
        await _consistent(ws)


async def test_an_upload_between_gcs_last_check_and_its_delete_is_not_lost(
    ws: FsspecWorkspace, proxy: tuple[FaultProxy, S3Server]
) -> None:
    """gc's delete carries If-Match with the ETag it checked: a re-upload in the gap makes it fail (412)."""
    p, server = proxy
    ref = await ws.offload_tool_result("s", _result("t1", "t1 old"))
    bucket, _, key = ref.removeprefix("s3://").partition("/")
    replaced: list[str] = []

    def rewrite(path: str) -> None:  # a writer replacing the object just before gc's DELETE reaches S3
        server.client().put_object(Bucket=bucket, Key=key, Body=b"t1 new")
        replaced.append(path)

    p.before("DELETE", rewrite, path_contains="tool_result-t1.txt")
    await anyio.sleep(1.1)  # S3 stamps whole seconds: the item is now older than the zero grace period
    report = await ws.gc(RetentionPolicy(max_age=0, temp_grace=0))
    assert replaced, "gc never tried to delete the item"
    assert await ws.read_bytes(ref) == b"t1 new"
    assert "sessions/s/tool_result-t1.txt" not in [r.path for r in report.removed]


async def test_a_refresh_of_the_same_bytes_between_gcs_last_check_and_its_delete_is_not_lost(
    ws: FsspecWorkspace, proxy: tuple[FaultProxy, S3Server]
) -> None:
    """A refresh (an offload finding its result already stored) gives the same bytes a new ETag."""
    p, server = proxy
    block = _result("t2", "t2 same bytes")
    ref = await ws.offload_tool_result("s", block)
    url = ref.rpartition("/sessions/")[0]
    refreshed: list[str] = []

    def refresh(path: str) -> None:  # another writer offloads the same result just before gc's DELETE reaches S3
        async def again() -> None:
            async with FsspecWorkspace(url, **server.storage_options()) as other:  # straight to S3, not the proxy
                assert await other.offload_tool_result("s", block) == ref

        anyio.run(again)
        refreshed.append(path)

    p.before("DELETE", refresh, path_contains="tool_result-t2.txt")
    await anyio.sleep(1.1)  # S3 stamps whole seconds: the item is now older than the zero grace period
    report = await ws.gc(RetentionPolicy(max_age=0, temp_grace=0))
    assert refreshed, "gc never tried to delete the item"
    assert await ws.read_bytes(ref) == b"t2 same bytes"
    assert "sessions/s/tool_result-t2.txt" not in [r.path for r in report.removed]


async def test_a_refresh_in_the_same_second_as_gcs_listing_keeps_the_item(ws: FsspecWorkspace) -> None:
    """S3 stamps whole seconds, so size and mtime cannot show this refresh; the ETag gc listed does."""
    block = _result("t3", "t3 same bytes")
    ref = await ws.offload_tool_result("s", block)
    rel = ws.relative(ref)
    for _ in range(5):  # until the listing and the refresh fall in one second (the case size and mtime miss)
        seen = await ws._stat(rel)
        assert seen is not None and seen.tag
        assert await ws.offload_tool_result("s", block) == ref  # finds it stored: a refresh
        now = await ws._stat(rel)
        assert now is not None
        if (now.size, now.mtime) == (seen.size, seen.mtime):
            break
    else:
        pytest.fail("no refresh fell in the second of its listing in five tries")
    assert now.tag != seen.tag
    assert not await ws._remove_if_unchanged(rel, seen)
    assert await ws.read_bytes(ref) == b"t3 same bytes"
