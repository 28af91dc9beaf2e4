"""Storage: InMemoryStorage (cycle eviction) and WorkspaceStorage over every workspace backend."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from offloader.storage import InMemoryStorage, Storage, StoredContent, WorkspaceStorage
from workspaces import LocalWorkspace

pytestmark = pytest.mark.anyio


# ------------------------------------------------------------ InMemoryStorage


async def test_in_memory_round_trip_keeps_bytes_and_content_type() -> None:
    storage = InMemoryStorage()
    ref = await storage.store("call-1_0", b"\x89PNG data", "image/png")
    assert await storage.retrieve(ref) == StoredContent(b"\x89PNG data", "image/png")


async def test_in_memory_references_are_unique_when_keys_repeat() -> None:
    storage = InMemoryStorage()
    first = await storage.store("same", b"one")
    second = await storage.store("same", b"two")
    assert first != second
    assert (await storage.retrieve(first)).content == b"one"
    assert (await storage.retrieve(second)).content == b"two"


async def test_in_memory_references_stay_short_for_hostile_keys() -> None:
    ref = await InMemoryStorage().store("../../" + "x" * 1500, b"data")
    assert len(ref) < 100
    assert "/" not in ref


async def test_in_memory_unknown_reference_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="mem_9_nope"):
        await InMemoryStorage().retrieve("mem_9_nope")


async def test_in_memory_delete_forgets_and_ignores_unknown() -> None:
    storage = InMemoryStorage()
    ref = await storage.store("k", b"v")
    await storage.delete(ref)
    await storage.delete("never-stored")
    assert await storage.list() == []


async def test_in_memory_list_names_every_reference() -> None:
    storage = InMemoryStorage()
    refs = [await storage.store(f"k{i}", b"v") for i in range(3)]
    assert await storage.list() == refs


async def test_entries_are_evicted_after_the_configured_idle_turns() -> None:
    storage = InMemoryStorage(evict_after_turns=2)
    ref = await storage.store("k", b"v")
    assert storage.advance_turn() == []
    assert storage.advance_turn() == []
    assert storage.advance_turn() == [ref]
    with pytest.raises(KeyError):
        await storage.retrieve(ref)


async def test_retrieving_refreshes_an_entry() -> None:
    storage = InMemoryStorage(evict_after_turns=2)
    ref = await storage.store("k", b"v")
    for _ in range(10):
        storage.advance_turn()
        await storage.retrieve(ref)
    assert await storage.list() == [ref]


async def test_on_cycle_follows_the_frameworks_cycle_counter() -> None:
    storage = InMemoryStorage(evict_after_turns=5)
    storage.on_cycle(3)
    ref = await storage.store("k", b"v")
    assert storage.on_cycle(8) == []
    assert storage.on_cycle(9) == [ref]
    assert storage.turn == 9


async def test_none_disables_eviction() -> None:
    storage = InMemoryStorage(evict_after_turns=None)
    ref = await storage.store("k", b"v")
    storage.on_cycle(10_000)
    assert (await storage.retrieve(ref)).content == b"v"


async def test_clear_drops_everything() -> None:
    storage = InMemoryStorage()
    await storage.store("a", b"1")
    await storage.store("b", b"2")
    storage.clear()
    assert await storage.list() == []
    assert len(storage) == 0


@pytest.mark.parametrize("value", [0, -3, True, 2.5, "20"])
async def test_invalid_eviction_setting_is_rejected(value: Any) -> None:
    with pytest.raises(ValueError, match="evict_after_turns"):
        InMemoryStorage(evict_after_turns=value)


@pytest.mark.parametrize(
    ("key", "content", "content_type", "error"),
    [("", b"x", "text/plain", ValueError), ("k", "text", "text/plain", TypeError), ("k", b"x", "plain", ValueError)],
)
async def test_invalid_store_arguments_are_rejected(key: Any, content: Any, content_type: Any, error: type) -> None:
    with pytest.raises(error):
        await InMemoryStorage().store(key, content, content_type)


async def test_both_storages_satisfy_the_protocol(tmp_path: Path) -> None:
    assert isinstance(InMemoryStorage(), Storage)
    async with LocalWorkspace(tmp_path / "ws") as ws:
        assert isinstance(WorkspaceStorage(ws), Storage)


# ------------------------------------------------------------ WorkspaceStorage, every backend


async def test_workspace_storage_round_trip(workspace: Any) -> None:
    storage = WorkspaceStorage(workspace, session_id="s1")
    ref = await storage.store("call-1_0", b'{"a": 1}', "application/json")
    assert ref == workspace.reference("sessions/s1/blocks/call-1_0.json")
    assert await storage.retrieve(ref) == StoredContent(b'{"a": 1}', "application/json")


async def test_workspace_storage_keeps_types_the_extension_cannot_carry(workspace: Any) -> None:
    storage = WorkspaceStorage(workspace, session_id="s1")
    ref = await storage.store("log", b"line\n", "text/x-build-log")
    assert ref.endswith(".txt")  # still a text file the agent can Grep
    assert (await storage.retrieve(ref)).content_type == "text/x-build-log"


async def test_workspace_storage_never_overwrites_a_repeated_key(workspace: Any) -> None:
    storage = WorkspaceStorage(workspace, session_id="s1")
    first = await storage.store("same", b"one")
    second = await storage.store("same", b"two")
    assert first != second
    assert (await storage.retrieve(first)).content == b"one"
    assert (await storage.retrieve(second)).content == b"two"
    assert sorted(await storage.list()) == sorted([first, second])


async def test_workspace_storage_refuses_references_outside_the_workspace(workspace: Any) -> None:
    storage = WorkspaceStorage(workspace, session_id="s1")
    for reference in ("/etc/passwd", "../../etc/passwd", "sessions/s1/blocks/missing.txt"):
        with pytest.raises(KeyError):
            await storage.retrieve(reference)


async def test_workspace_storage_delete_removes_block_and_sidecar(workspace: Any) -> None:
    storage = WorkspaceStorage(workspace, session_id="s1")
    ref = await storage.store("log", b"line\n", "text/x-build-log")
    await storage.delete(ref)
    assert await storage.list() == []
    assert await workspace.stat(ref + ".content-type") is None


# ------------------------------------------------------------ WorkspaceStorage, local specifics


async def test_workspace_storage_blocks_are_found_by_the_file_tools(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        storage = WorkspaceStorage(ws, session_id="s1")
        await storage.store("k", b"alpha\nneedle here\nomega\n")
        found = await ws.grep("needle", path="sessions/s1/blocks")
        assert "needle here" in found


async def test_workspace_storage_retrieves_whole_offloaded_results(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        ref = await ws.offload_tool_result("s1", {"toolUseId": "t1", "content": [{"text": "full output"}]})
        stored = await WorkspaceStorage(ws, session_id="s1").retrieve(ref)
        assert stored == StoredContent(b"full output", "text/plain")


async def test_workspace_storage_delete_leaves_whole_results_alone(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        ref = await ws.offload_tool_result("s1", {"toolUseId": "t1", "content": [{"text": "full output"}]})
        await WorkspaceStorage(ws, session_id="s1").delete(ref)
        assert await ws.stat(ref) is not None


async def test_workspace_storage_needs_a_workspace() -> None:
    with pytest.raises(TypeError, match="Workspace"):
        WorkspaceStorage(InMemoryStorage())  # type: ignore[arg-type]
