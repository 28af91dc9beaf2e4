"""Strands compatibility of our storages: its ContextOffloader with our storage, its unified Storage over workspaces."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("strands")

from strands import Agent
from strands.storage import Storage as StrandsStorage
from strands.types.exceptions import StorageError
from strands.vended_plugins.context_offloader import ContextOffloader as StrandsContextOffloader

from offloader.integrations.strands import WorkspaceKeyStorage
from offloader.storage import InMemoryStorage, StoredContent, WorkspaceStorage
from tests.test_integration_strands import ScriptedModel, deploy_log, result_text
from workspaces import LocalWorkspace


@pytest.mark.anyio
async def test_retrieved_content_unpacks_as_a_pair_and_keeps_its_names() -> None:
    storage = InMemoryStorage()
    ref = await storage.store("k", b"data", "application/json")
    content, content_type = await storage.retrieve(ref)
    got = await storage.retrieve(ref)
    assert (content, content_type) == (b"data", "application/json") == (got.content, got.content_type)
    assert got == StoredContent(b"data", "application/json")


@pytest.mark.anyio
async def test_missing_references_raise_strands_key_error_text(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        for storage in (InMemoryStorage(), WorkspaceStorage(ws)):
            with pytest.raises(KeyError, match="Reference not found: nope"):
                await storage.retrieve("nope")


@pytest.mark.anyio
async def test_workspace_storage_accepts_bare_file_names_and_stems(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        storage = WorkspaceStorage(ws)
        ref = await storage.store("report", b"{}", "application/json")
        name = ref.rpartition("/")[2]
        assert name == "report.json"
        assert await storage.retrieve(name) == (b"{}", "application/json")
        assert await storage.retrieve("report") == (b"{}", "application/json")
        await storage.delete(name)
        assert await storage.list() == []


@pytest.mark.anyio
async def test_strands_own_context_offloader_runs_on_our_storage(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        storage = WorkspaceStorage(ws)

        def retrieve(messages: list[dict[str, Any]]) -> tuple[str, dict[str, Any], str]:
            text = result_text(messages, "t1")
            ref = re.findall(r"(/\S+\.txt)", text)[0]
            return ("retrieve_offloaded_content", {"reference": ref}, "t2")

        model = ScriptedModel([lambda m: ("deploy_log", {}, "t1"), retrieve, lambda m: "done"])
        plugin = StrandsContextOffloader(storage=storage)
        agent = Agent(model=model, tools=[deploy_log], plugins=[plugin], callback_handler=None)
        await agent.invoke_async("Why did the deploy fail?")
        assert "certificate expired" not in result_text(model.seen[1], "t1")
        assert "certificate expired" in result_text(model.seen[2], "t2")
        assert len(await storage.list()) == 1


@pytest.mark.anyio
async def test_key_storage_implements_strands_unified_storage(workspace: Any) -> None:
    storage = WorkspaceKeyStorage(workspace, root="strands")
    assert isinstance(storage, StrandsStorage)
    await storage.write("//sessions/a/state.json", b'{"n": 1}')
    await storage.write("sessions/b/state.json", b"dark mode notes")
    await storage.write("other.txt", b"x")
    assert await storage.read("sessions/a/state.json") == b'{"n": 1}'
    assert await storage.read("missing") is None
    assert await storage.list("sessions/") == ["sessions/a/state.json", "sessions/b/state.json"]
    assert await storage.list("") == ["other.txt", "sessions/a/state.json", "sessions/b/state.json"]
    scoped = storage.namespace("sessions").namespace("a")
    assert await scoped.list() == ["state.json"]
    assert json.loads(await scoped.read("state.json") or b"") == {"n": 1}
    assert [r.key for r in await storage.search("dark mode")] == ["sessions/b/state.json"]
    await storage.delete("other.txt")
    await storage.delete("other.txt")  # missing is not an error
    assert await storage.read("other.txt") is None
    assert await workspace.read_bytes("strands/sessions/a/state.json") == b'{"n": 1}'
    for bad in ("", "/", "a/../b", "a\\b"):
        with pytest.raises(StorageError):
            await storage.write(bad, b"x")
