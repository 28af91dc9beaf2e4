"""FsspecWorkspace and FsspecStorage: S3 for real (s3fs against moto's S3 server), memory:// and file://.

What the shared suite cannot see is checked here: how objects are laid out in
the bucket (segments for appends, metadata for content types), prefixes and
URL references, conditional writes racing, and confinement.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from offloader.retrieval import retrieve
from offloader.storage import Storage
from tests.s3_server import S3Server, s3_server_or_skip
from workspaces import PathOutsideWorkspace, UnsupportedOperation
from workspaces.fsspec import FsspecStorage, FsspecWorkspace

pytestmark = pytest.mark.anyio


@pytest.fixture
def s3() -> S3Server:
    return s3_server_or_skip()


@pytest.fixture
def bucket(s3: S3Server) -> str:
    return s3.new_bucket()


@pytest.fixture
async def ws(s3: S3Server, bucket: str) -> AsyncIterator[FsspecWorkspace]:
    async with FsspecWorkspace(f"s3://{bucket}/agents/run-1", **s3.storage_options()) as workspace:
        yield workspace


def _keys(s3: S3Server, bucket: str) -> list[str]:
    listing = s3.client().list_objects_v2(Bucket=bucket)
    return sorted(obj["Key"] for obj in listing.get("Contents", []))


def _result(tid: str, text: str) -> dict[str, Any]:
    return {"toolUseId": tid, "status": "success", "content": [{"text": text}]}


# ------------------------------------------------------------------ S3 layout and references


async def test_references_are_full_s3_urls_under_the_prefix(ws: FsspecWorkspace, s3: S3Server, bucket: str) -> None:
    ref = await ws.offload_tool_result("sess", _result("t1", "output"))
    assert ref == f"s3://{bucket}/agents/run-1/sessions/sess/tool_result-t1.txt"
    assert "agents/run-1/sessions/sess/tool_result-t1.txt" in _keys(s3, bucket)
    assert await ws.read_bytes(ref) == b"output"


async def test_references_outside_the_prefix_are_refused(ws: FsspecWorkspace, bucket: str) -> None:
    for bad in [
        f"s3://{bucket}/agents/other/x.txt",
        f"s3://{bucket}/agents/run-10/x.txt",
        "s3://another-bucket/agents/run-1/x.txt",
        f"s3://{bucket}/agents/run-1/../run-2/x.txt",
        "memory://agents/run-1/x.txt",
    ]:
        with pytest.raises(PathOutsideWorkspace):
            await ws.read_bytes(bad)
        with pytest.raises(PathOutsideWorkspace):
            await retrieve(ws, bad, pattern="x")


async def test_two_prefixes_in_one_bucket_do_not_see_each_other(s3: S3Server, bucket: str) -> None:
    async with (
        FsspecWorkspace(f"s3://{bucket}/a", **s3.storage_options()) as one,
        FsspecWorkspace(f"s3://{bucket}/ab", **s3.storage_options()) as two,
    ):
        await one.offload_tool_result("s1", _result("t", "one"))
        await two.offload_tool_result("s2", _result("t", "two"))
        assert await one.sessions() == ["s1"]
        assert await two.sessions() == ["s2"]
        assert "no files" in await one.glob("**/*", path="sessions/s2")


async def test_missing_keys_are_file_not_found(ws: FsspecWorkspace) -> None:
    with pytest.raises(FileNotFoundError):
        await ws.read_bytes("sessions/none/tool_result-x.txt")
    assert await ws.stat("sessions/none/tool_result-x.txt") is None
    assert "file not found" in (await ws.tools()[0].invoke({"path": "sessions/none/x.txt"})).text


async def test_appends_are_new_segment_objects_never_rewrites(ws: FsspecWorkspace, s3: S3Server, bucket: str) -> None:
    for i in range(3):
        await ws.offload_context("sess", [{"role": "user", "content": f"message {i}"}])
    keys = [k for k in _keys(s3, bucket) if "context.jsonl" in k]
    assert keys == [f"agents/run-1/sessions/sess/context.jsonl.d/{n:012d}" for n in (1, 2, 3)]
    text = (await ws.read_bytes("sessions/sess/context.jsonl")).decode()
    assert [line.count("message") for line in text.splitlines()] == [1, 1, 1]
    assert "message 2" in text.splitlines()[2]


async def test_a_segmented_log_reads_greps_and_lists_as_one_file(ws: FsspecWorkspace) -> None:
    for i in range(4):
        await ws.offload_context("sess", [{"role": "user", "content": f"turn {i}"}])
    ref = ws.reference("sessions/sess/context.jsonl")
    listing = await ws.glob("**/*")
    assert ref in listing.splitlines() and ".d/" not in listing
    assert "     4\t" in await ws.read(ref)
    assert "turn 3" in await ws.grep("turn 3", "sessions")
    out = await retrieve(ws, ref, line_range={"start": 2, "end": 3})
    assert "turn 1" in out and "turn 2" in out and "turn 0" not in out


async def test_concurrent_appenders_from_separate_instances_lose_nothing(s3: S3Server, bucket: str) -> None:
    url = f"s3://{bucket}/shared"
    async with (
        FsspecWorkspace(url, **s3.storage_options()) as one,
        FsspecWorkspace(url, **s3.storage_options()) as two,
    ):
        async with anyio.create_task_group() as tg:
            for i in range(10):
                tg.start_soon(one._append, "log.jsonl", b"one %d\n" % i)
                tg.start_soon(two._append, "log.jsonl", b"two %d\n" % i)
        lines = (await one.read_bytes("log.jsonl")).splitlines()
    assert sorted(lines) == sorted([b"one %d" % i for i in range(10)] + [b"two %d" % i for i in range(10)])


async def test_exclusive_writes_use_a_conditional_put(ws: FsspecWorkspace, s3: S3Server, bucket: str) -> None:
    s3.client().put_object(Bucket=bucket, Key="agents/run-1/data/x.bin", Body=b"first")
    assert await ws._write([("data/x.bin", b"second")], exclusive=True) == [False]
    assert await ws.read_bytes("data/x.bin") == b"first"


async def test_racing_exclusive_writers_have_exactly_one_winner(s3: S3Server, bucket: str) -> None:
    url = f"s3://{bucket}/race"
    results: list[bool] = []
    async with (
        FsspecWorkspace(url, **s3.storage_options()) as one,
        FsspecWorkspace(url, **s3.storage_options()) as two,
    ):

        async def write(ws: FsspecWorkspace, body: bytes) -> None:
            results.extend(await ws._write([("same.txt", body)], exclusive=True))

        assert one._fs.conditional_create  # If-None-Match: * on every exclusive PUT
        async with anyio.create_task_group() as tg:
            for i in range(6):
                tg.start_soon(write, one if i % 2 else two, b"writer %d" % i)
        assert results.count(True) == 1
        assert await one.read_bytes("same.txt") in {b"writer %d" % i for i in range(6)}


async def test_no_commands_run_on_an_object_store(ws: FsspecWorkspace) -> None:
    with pytest.raises(UnsupportedOperation):
        await ws.exec(["ls"])


async def test_range_retrieval_on_s3_builds_and_uses_the_index(ws: FsspecWorkspace, s3: S3Server, bucket: str) -> None:
    ref = await ws.write_bytes("sessions/s/tool_result-big.txt", b"".join(b"row %d\n" % i for i in range(1, 20_001)))
    out = await retrieve(ws, ref, line_range={"start": 19_999, "end": 20_000})
    assert out.splitlines()[1:] == ["  19999| row 19999", "  20000| row 20000"]
    assert "agents/run-1/sessions/s/tool_result-big.txt.lineidx" in _keys(s3, bucket)


# ------------------------------------------------------------------ FsspecStorage


async def test_s3_storage_keeps_the_content_type_in_object_metadata(s3: S3Server, bucket: str) -> None:
    store = FsspecStorage(f"s3://{bucket}/blocks", **s3.storage_options())
    try:
        assert isinstance(store, Storage)
        ref = await store.store("call/1", b'{"a": 1}', "application/json")
        again = await store.store("call/1", b"other", "text/plain")
        assert ref != again and ref.startswith(f"s3://{bucket}/blocks/")
        key = ref.removeprefix(f"s3://{bucket}/")
        assert s3.client().head_object(Bucket=bucket, Key=key)["ContentType"] == "application/json"
        assert _keys(s3, bucket) == sorted([key, again.removeprefix(f"s3://{bucket}/")])  # no sidecars
        got = await store.retrieve(ref)
        assert (got.content, got.content_type) == (b'{"a": 1}', "application/json")
        assert await store.list() == sorted([ref, again])
        await store.delete(ref)
        assert await store.list() == [again]
        with pytest.raises(KeyError):
            await store.retrieve(ref)
    finally:
        await store.aclose()


async def test_storage_refuses_references_it_did_not_issue(s3: S3Server, bucket: str) -> None:
    store = FsspecStorage(f"s3://{bucket}/blocks", **s3.storage_options())
    try:
        s3.client().put_object(Bucket=bucket, Key="elsewhere/secret", Body=b"s")
        for bad in [f"s3://{bucket}/elsewhere/secret", f"s3://{bucket}/blocks/../elsewhere/secret", "blocks/x", ""]:
            with pytest.raises(KeyError):
                await store.retrieve(bad)
        await store.delete(f"s3://{bucket}/elsewhere/secret")  # ignored, not deleted
        assert "elsewhere/secret" in _keys(s3, bucket)
    finally:
        await store.aclose()


async def test_memory_storage_keeps_types_in_per_object_sidecars_hidden_from_list() -> None:
    store = FsspecStorage(f"memory://store-{secrets.token_hex(4)}")
    refs = [await store.store(f"k{i}", b"x", "image/png" if i else "text/csv") for i in range(3)]
    assert await store.list() == sorted(refs)
    assert (await store.retrieve(refs[0])).content_type == "text/csv"
    assert (await store.retrieve(refs[2])).content_type == "image/png"
    await store.aclose()


# ------------------------------------------------------------------ other URLs


async def test_file_url_writes_are_atomic_and_leave_no_temp_files(tmp_path: Path) -> None:
    async with FsspecWorkspace(f"file://{tmp_path}/ws") as ws:
        for i in range(5):
            await ws.write_bytes("state.json", b"{}" * i)
        assert await ws._write([("state.json", b"new")], exclusive=True) == [False]
    assert sorted(os.listdir(tmp_path / "ws")) == ["state.json"]


async def test_file_url_refuses_a_symlink_that_leaves_the_workdir(tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("secret")
    (tmp_path / "ws").mkdir()
    os.symlink(tmp_path / "outside.txt", tmp_path / "ws" / "link.txt")
    async with FsspecWorkspace(f"file://{tmp_path}/ws") as ws:
        with pytest.raises(PathOutsideWorkspace):
            await ws.read_bytes("link.txt")


def test_a_url_naming_the_store_root_is_rejected() -> None:
    with pytest.raises(ValueError, match="root"):
        FsspecWorkspace("memory://")
    with pytest.raises(ValueError, match="root"):
        FsspecStorage("s3://")
