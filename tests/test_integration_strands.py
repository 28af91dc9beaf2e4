"""Strands Agents with OffloaderPlugin: a real ``strands.Agent``, a scripted model.

The model (the only stand-in: no API keys here) subclasses Strands' ``Model``
and streams fixed events; each step may look at the messages it receives, as a
real model would, and every input is recorded so the tests can assert what the
model saw: the preview instead of the big result, then the retrieved lines.
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("strands")

from strands import Agent, tool
from strands.models.model import Model
from strands.vended_plugins.context_offloader import ContextOffloader as StrandsContextOffloader

from offloader.integrations.strands import OffloaderPlugin, strands_tool
from offloader.storage import InMemoryStorage, Storage, WorkspaceStorage
from workspaces import LocalWorkspace, Tool

ERROR_LINE = 4187
Step = Callable[[list[dict[str, Any]]], "tuple[str, dict[str, Any], str] | str"]


def deploy_text() -> str:
    lines = [f"deploy step {i:05d} ok" for i in range(1, 20_001)]
    lines[ERROR_LINE - 1] = f"deploy step {ERROR_LINE:05d} ERROR certificate expired"
    return "\n".join(lines)


@tool
def deploy_log() -> str:
    """Return the deploy log (20,000 lines)."""
    return deploy_text()


@tool
def ping() -> str:
    """A small tool."""
    return "pong"


class ScriptedModel(Model):
    """A Strands model that streams one scripted step per call and records its inputs."""

    def __init__(self, steps: list[Step]) -> None:
        self.steps = steps
        self.seen: list[list[dict[str, Any]]] = []
        self.tool_names: list[list[str]] = []

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> dict[str, Any]:
        return {}

    async def structured_output(
        self, output_model: Any, prompt: Any, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[dict[str, Any], None]:
        raise NotImplementedError("not used")
        yield {}

    async def stream(
        self, messages: Any, tool_specs: Any = None, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[Any, None]:
        snapshot = json.loads(json.dumps(messages, default=str))
        self.seen.append(snapshot)
        self.tool_names.append(sorted(spec["name"] for spec in tool_specs or []))
        step = self.steps[len(self.seen) - 1](snapshot)
        yield {"messageStart": {"role": "assistant"}}
        if isinstance(step, str):
            yield {"contentBlockDelta": {"delta": {"text": step}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        name, args, tool_use_id = step
        yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": tool_use_id, "name": name}}}}
        yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(args)}}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


def tool_result(messages: list[dict[str, Any]], tool_use_id: str) -> dict[str, Any]:
    for msg in messages:
        for block in msg["content"]:
            if "toolResult" in block and block["toolResult"]["toolUseId"] == tool_use_id:
                return dict(block["toolResult"])
    raise AssertionError(f"no result for {tool_use_id}")


def result_text(messages: list[dict[str, Any]], tool_use_id: str) -> str:
    return "".join(b.get("text", "") for b in tool_result(messages, tool_use_id)["content"])


def reference(messages: list[dict[str, Any]]) -> str:
    text = result_text(messages, "t1")
    found = re.findall(r"^  (\S+) \(text/plain", text, re.M)
    assert found, text[-500:]
    return str(found[0])


async def run_agent(plugin: OffloaderPlugin, steps: list[Step], tools: list[Any] | None = None) -> ScriptedModel:
    model = ScriptedModel(steps)
    agent = Agent(model=model, tools=tools or [deploy_log, ping], plugins=[plugin], callback_handler=None)
    await agent.invoke_async("Why did the deploy fail?")
    return model


RETRIEVE_STEPS: list[Step] = [
    lambda m: ("deploy_log", {}, "t1"),
    lambda m: ("retrieve_offloaded_content", {"reference": reference(m), "pattern": "ERROR", "context_lines": 1}, "t2"),
    lambda m: "The deploy failed at step 4187: certificate expired.",
]


@pytest.fixture(params=["workspace", "memory", "workspace_storage"])
async def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    if request.param == "memory":
        return InMemoryStorage()
    ws = LocalWorkspace(tmp_path / "ws")
    await ws.open()
    return ws if request.param == "workspace" else WorkspaceStorage(ws, session_id="blocks")


@pytest.mark.anyio
async def test_model_sees_a_preview_with_references_instead_of_the_big_result(storage: Any) -> None:
    model = await run_agent(OffloaderPlugin(storage), RETRIEVE_STEPS)
    seen = result_text(model.seen[1], "t1")
    assert seen.startswith("[Offloaded: 1 blocks, ~")
    assert "retrieve_offloaded_content" in seen
    assert len(seen) < 8_000 < len(deploy_text())
    assert f"deploy step {ERROR_LINE:05d} ERROR certificate expired" in seen  # the preview keeps the signal
    assert "deploy step 20000 ok" in seen  # and the tail


@pytest.mark.anyio
async def test_retrieval_tool_returns_the_matching_lines_to_the_model(storage: Any) -> None:
    model = await run_agent(OffloaderPlugin(storage), RETRIEVE_STEPS)
    out = tool_result(model.seen[2], "t2")
    assert out["status"] == "success"
    text = out["content"][0]["text"]
    assert f"deploy step {ERROR_LINE:05d} ERROR certificate expired" in text
    assert f"deploy step {ERROR_LINE - 1:05d} ok" in text and f"deploy step {ERROR_LINE + 1:05d} ok" in text
    assert f"deploy step {ERROR_LINE - 2:05d} ok" not in text
    assert len(model.seen) == 3


@pytest.mark.anyio
async def test_whole_result_is_stored(storage: Any) -> None:
    model = await run_agent(OffloaderPlugin(storage), RETRIEVE_STEPS)
    ref = reference(model.seen[1])
    if isinstance(storage, LocalWorkspace):
        assert Path(ref).read_text() == deploy_text()
        assert Path(ref).parent.name == "default"  # the session folder is the agent's id
    else:
        got = await storage.retrieve(ref)
        assert (got.content.decode(), got.content_type) == (deploy_text(), "text/plain")


@pytest.mark.anyio
async def test_retrieval_tool_is_registered_and_sent_to_the_model(tmp_path: Path) -> None:
    model = await run_agent(OffloaderPlugin(LocalWorkspace(tmp_path / "ws")), RETRIEVE_STEPS)
    assert model.tool_names[0] == ["deploy_log", "ping", "retrieve_offloaded_content"]


@pytest.mark.anyio
async def test_small_results_pass_unchanged(tmp_path: Path) -> None:
    steps: list[Step] = [lambda m: ("ping", {}, "t1"), lambda m: "ok"]
    model = await run_agent(OffloaderPlugin(LocalWorkspace(tmp_path / "ws")), steps)
    assert tool_result(model.seen[1], "t1")["content"] == [{"text": "pong"}]
    assert not (tmp_path / "ws" / "sessions").exists()


@pytest.mark.anyio
async def test_file_tools_let_the_model_grep_the_offloaded_file(tmp_path: Path) -> None:
    steps: list[Step] = [
        lambda m: ("deploy_log", {}, "t1"),
        lambda m: ("Grep", {"pattern": "ERROR", "path": reference(m)}, "t2"),
        lambda m: "done",
    ]
    model = await run_agent(OffloaderPlugin(LocalWorkspace(tmp_path / "ws"), file_tools=True), steps)
    assert model.tool_names[0] == ["Glob", "Grep", "Read", "deploy_log", "ping", "retrieve_offloaded_content"]
    assert f"  {ERROR_LINE}: deploy step {ERROR_LINE:05d} ERROR" in result_text(model.seen[2], "t2")


@pytest.mark.anyio
async def test_should_offload_can_keep_a_result_in_context(tmp_path: Path) -> None:
    asked: list[tuple[str, int]] = []

    def only_other_tools(tool_name: str, tokens: int, **kwargs: Any) -> bool:
        asked.append((tool_name, tokens))
        return tool_name != "deploy_log"

    steps: list[Step] = [lambda m: ("deploy_log", {}, "t1"), lambda m: "ok"]
    model = await run_agent(OffloaderPlugin(LocalWorkspace(tmp_path / "ws"), should_offload=only_other_tools), steps)
    assert result_text(model.seen[1], "t1") == deploy_text()
    assert [name for name, _ in asked] == ["deploy_log"] and asked[0][1] > 2500


@pytest.mark.anyio
async def test_without_retrieval_tool_the_guidance_points_at_file_tools(tmp_path: Path) -> None:
    steps: list[Step] = [lambda m: ("deploy_log", {}, "t1"), lambda m: "ok"]
    model = await run_agent(
        OffloaderPlugin(LocalWorkspace(tmp_path / "ws"), include_retrieval_tool=False, file_tools=True), steps
    )
    assert "retrieve_offloaded_content" not in model.tool_names[0]
    seen = result_text(model.seen[1], "t1")
    assert "Read, Grep" in seen and "retrieve_offloaded_content" not in seen


@pytest.mark.anyio
async def test_in_memory_entries_are_evicted_after_idle_cycles() -> None:
    storage = InMemoryStorage(evict_after_turns=2)
    refs: list[str] = []

    def remember(m: list[dict[str, Any]]) -> tuple[str, dict[str, Any], str]:
        refs.append(reference(m))
        return ("ping", {}, "p1")

    steps: list[Step] = [
        lambda m: ("deploy_log", {}, "t1"),  # cycle 1: stored
        remember,  # cycle 2
        lambda m: ("ping", {}, "p2"),  # cycle 3
        lambda m: ("ping", {}, "p3"),  # cycle 4: idle for 3 cycles now, evicted before this call
        lambda m: ("retrieve_offloaded_content", {"reference": refs[0], "pattern": "ERROR"}, "t2"),
        lambda m: "gone",
    ]
    model = await run_agent(OffloaderPlugin(storage, evict_after_cycles=2), steps)
    out = tool_result(model.seen[5], "t2")
    assert out["status"] == "error"
    assert "unknown reference 'mem_1_t1_0'" in out["content"][0]["text"]
    assert await storage.list() == []


@pytest.mark.anyio
async def test_in_memory_entries_survive_within_the_eviction_window() -> None:
    storage = InMemoryStorage(evict_after_turns=2)
    steps: list[Step] = [
        lambda m: ("deploy_log", {}, "t1"),  # cycle 1: stored
        lambda m: ("ping", {}, "p1"),  # cycle 2
        lambda m: ("retrieve_offloaded_content", {"reference": reference(m), "pattern": "ERROR"}, "t2"),  # cycle 3
        lambda m: "found",
    ]
    model = await run_agent(OffloaderPlugin(storage, evict_after_cycles=2), steps)
    out = tool_result(model.seen[3], "t2")
    assert out["status"] == "success" and "ERROR certificate expired" in out["content"][0]["text"]


@pytest.mark.anyio
async def test_a_failing_storage_leaves_the_result_in_context(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the workspace folder should be")
    steps: list[Step] = [lambda m: ("deploy_log", {}, "t1"), lambda m: "ok"]
    model = await run_agent(OffloaderPlugin(LocalWorkspace(blocker / "ws")), steps)
    assert result_text(model.seen[1], "t1") == deploy_text()


def test_accepts_strands_context_offloader_arguments(tmp_path: Path) -> None:
    ours = inspect.signature(OffloaderPlugin)
    theirs = inspect.signature(StrandsContextOffloader)
    for name, param in theirs.parameters.items():
        assert name in ours.parameters, name
        assert ours.parameters[name].kind == param.kind, name
        if name != "storage":
            assert ours.parameters[name].default == param.default, name
    plugin = OffloaderPlugin(
        InMemoryStorage(),
        5_000,
        2_000,
        include_retrieval_tool=True,
        should_offload=lambda tool_name, token_count, **kw: True,
        evict_after_cycles=None,
    )
    assert (plugin.offloader.max_result_tokens, plugin.offloader.preview_tokens) == (5_000, 2_000)


def test_invalid_arguments_are_rejected_precisely() -> None:
    with pytest.raises(ValueError, match="preview_tokens"):
        OffloaderPlugin(InMemoryStorage(), max_result_tokens=100, preview_tokens=100)
    with pytest.raises(TypeError, match="file_tools=True needs a workspace"):
        OffloaderPlugin(InMemoryStorage(), file_tools=True)
    with pytest.raises(TypeError, match="Storage"):
        OffloaderPlugin(object())  # type: ignore[arg-type]


@pytest.mark.anyio
async def test_strands_tool_wraps_a_neutral_tool_with_error_status(tmp_path: Path) -> None:
    async def echo(text: str) -> str:
        return text

    wrapped = strands_tool(
        Tool(
            "Echo", "Echo.", {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}, echo
        )
    )
    assert wrapped.tool_spec["inputSchema"]["json"]["required"] == ["text"]
    events = [e async for e in wrapped.stream({"toolUseId": "x", "name": "Echo", "input": {}}, {})]
    result = events[-1].tool_result
    assert result["status"] == "error" and "missing required argument" in result["content"][0]["text"]
    assert isinstance(InMemoryStorage(), Storage)


@pytest.mark.anyio
async def test_every_workspace_backend_serves_as_plugin_storage(workspace: Any) -> None:
    model = await run_agent(OffloaderPlugin(workspace, file_tools=True), RETRIEVE_STEPS)
    assert await workspace.read_bytes(reference(model.seen[1])) == deploy_text().encode()
    assert "ERROR certificate expired" in result_text(model.seen[2], "t2")
