"""Offloading: layout, naming, dedup, the context log, media and the ledger."""

from __future__ import annotations

import json

import anyio
import pytest

from offloader.core.messages import DataBlock, TextBlock, ToolResultBlock
from offloader.core.protocol import Offloader

from ..base import Workspace
from ._common import ANYIO, PNG, result


class OffloadTests:
    """The three Offloader calls and the files they leave."""

    pytestmark = ANYIO

    async def test_workspace_satisfies_the_offloader_protocol(self, workspace: Workspace) -> None:
        assert isinstance(workspace, Offloader)

    async def test_offload_tool_result_stores_the_whole_text_under_the_session(self, workspace: Workspace) -> None:
        text = "\n".join(f"line {i}" for i in range(1, 5001))
        ref = await workspace.offload_tool_result("s1", result("call_1", text))
        assert ref == workspace.reference("sessions/s1/tool_result-call_1.txt")
        assert (await workspace.read_bytes(ref)).decode() == text

    async def test_offload_tool_result_keeps_every_block_in_order_with_media_tags(self, workspace: Workspace) -> None:
        mixed = ToolResultBlock(
            id="mixed",
            name="screenshot",
            content=(TextBlock("before"), DataBlock("image/png", data=PNG, name="shot.png"), TextBlock("after")),
        )
        ref = await workspace.offload_tool_result("s1", mixed)
        body = (await workspace.read_bytes(ref)).decode()
        before, tag, after = body.split("\n")
        assert before == "before" and after == "after"
        assert tag.startswith("<data url='workspace:///data/") and "media_type='image/png'/>" in tag  # AgentScope's
        url = tag.split("url='", 1)[1].split("'", 1)[0]
        assert await workspace.read_bytes(url) == PNG

    async def test_same_id_and_same_content_returns_the_same_reference(self, workspace: Workspace) -> None:
        first = await workspace.offload_tool_result("s1", result("dup", "same"))
        second = await workspace.offload_tool_result("s1", result("dup", "same"))
        assert first == second

    async def test_same_id_with_different_content_never_overwrites(self, workspace: Workspace) -> None:
        first = await workspace.offload_tool_result("s1", result("dup", "one"))
        second = await workspace.offload_tool_result("s1", result("dup", "two"))
        assert first != second
        assert await workspace.read_bytes(first) == b"one"
        assert await workspace.read_bytes(second) == b"two"

    async def test_offload_context_appends_one_json_line_per_message(self, workspace: Workspace) -> None:
        ref = await workspace.offload_context("s1", [{"role": "user", "content": "hello"}])
        ref2 = await workspace.offload_context(
            "s1", [{"role": "assistant", "content": "hi"}, {"role": "user", "content": "bye"}]
        )
        assert ref == ref2 == workspace.reference("sessions/s1/context.jsonl")
        lines = (await workspace.read_bytes(ref)).decode().splitlines()
        # each message as its framework serializes it: these dicts as they are
        assert [json.loads(line) for line in lines] == [
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "hi"},
            {"role": "user", "content": "bye"},
        ]

    async def test_concurrent_offload_context_calls_lose_nothing(self, workspace: Workspace) -> None:
        async with anyio.create_task_group() as tg:
            for i in range(40):
                tg.start_soon(workspace.offload_context, "busy", [{"role": "user", "content": f"m{i}" * 50}])
        lines = (await workspace.read_bytes("sessions/busy/context.jsonl")).decode().splitlines()
        texts = sorted(json.loads(line)["content"] for line in lines)
        assert texts == sorted(f"m{i}" * 50 for i in range(40))

    async def test_offload_data_block_writes_media_once_named_by_hash(self, workspace: Workspace) -> None:
        block = DataBlock("image/png", data=PNG)
        first = await workspace.offload_data_block(block)
        second = await workspace.offload_data_block(block)
        assert isinstance(first, DataBlock) and first.data is None
        assert first.url == second.url and first.url is not None
        assert first.url.startswith("workspace:///data/") and first.url.endswith(".png")
        assert await workspace.read_bytes(first.url) == PNG

    async def test_sessions_lists_and_purge_removes_only_that_session(self, workspace: Workspace) -> None:
        await workspace.offload_tool_result("keep", result("k", "k"))
        await workspace.offload_tool_result("drop", result("d", "d"))
        assert await workspace.sessions() == ["drop", "keep"]
        await workspace.purge_session("drop")
        assert await workspace.sessions() == ["keep"]
        assert await workspace.read_bytes("sessions/keep/tool_result-k.txt") == b"k"

    async def test_ledger_records_each_offload(self, workspace: Workspace) -> None:
        await workspace.offload_tool_result("s1", result("l1", "x" * 1000, name="fetch"))
        await workspace.flush()  # backends that batch ledger lines write them now
        lines = (await workspace.read_bytes("sessions/s1/ledger.jsonl")).decode().splitlines()
        entry = json.loads(lines[-1])
        assert entry["tool"] == "fetch" and entry["bytes"] == 1000 and entry["tokens"] > 0
        assert entry["ref"] == workspace.reference("sessions/s1/tool_result-l1.txt")

    async def test_batched_ledger_lines_are_written_on_flush_and_never_lost(self, workspace: Workspace) -> None:
        workspace.ledger_batch = 3  # instance override of the class default
        await workspace.offload_tool_result("lb", result("a", "a"))
        await workspace.offload_tool_result("lb", result("b", "b"))
        with pytest.raises(FileNotFoundError):
            await workspace.read_bytes("sessions/lb/ledger.jsonl")
        await workspace.offload_tool_result("lb", result("c", "c"))  # third entry fills the batch
        await workspace.offload_tool_result("lb", result("d", "d"))
        await workspace.flush()
        lines = (await workspace.read_bytes("sessions/lb/ledger.jsonl")).decode().splitlines()
        assert [json.loads(line)["tool_id"] for line in lines] == ["a", "b", "c", "d"]

    async def test_invalid_utf8_and_binary_content_is_kept_byte_exact(self, workspace: Workspace) -> None:
        text = "ok \udcff surrogate"  # a lone surrogate, as from errors="surrogateescape" decoding
        ref = await workspace.offload_tool_result("s1", result("bin", text))
        assert len(await workspace.read_bytes(ref)) > 0
        raw = bytes(range(256)) * 10
        ref2 = await workspace.write_bytes("sessions/s1/blob.bin", raw)
        assert await workspace.read_bytes(ref2) == raw
        assert "binary" in await workspace.read(ref2)

    @pytest.mark.parametrize("anyio_backend", ["trio"])
    async def test_offload_and_read_back_under_trio(self, workspace: Workspace) -> None:
        ref = await workspace.offload_tool_result("t", result("t1", "alpha\nbeta\n"))
        await workspace.offload_context("t", [{"role": "user", "content": "hi"}])
        await workspace.flush()
        assert await workspace.read_bytes(ref, 6, 10) == b"beta"
        assert "beta" in await workspace.grep("beta")
        assert await workspace.sessions() == ["t"]
