"""AgentScope 2.x with a workspace as its ``offloader=``: a real Agent, a scripted model.

The only stand-in is the chat model (no API keys exist here): it subclasses
AgentScope's ``ChatModelBase`` and decides each step from the messages it is
given, exactly as a real model would see them. Everything else is AgentScope's
own code path: its truncation of a 300,000-character tool result, its context
compression, its image limit, its Read and Grep tools, plus this project's
Read / Grep as AgentScope tools.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
import zlib
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agentscope")

from agentscope.agent import Agent, ContextConfig, InjectionConfig
from agentscope.credential import OpenAICredential
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import Base64Source, DataBlock, TextBlock, ToolCallBlock, UserMsg
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.permission import PermissionBehavior, PermissionDecision, PermissionMode
from agentscope.tool import FunctionTool, ToolChunk, Toolkit
from agentscope.tool._builtin import Grep as AgentScopeGrep
from agentscope.tool._builtin import Read as AgentScopeRead
from pydantic import BaseModel, SecretStr

from offloader.integrations.agentscope import agentscope_tool, agentscope_tools
from workspaces import LocalWorkspace, Tool

N_LINES = 5000
NEEDLE_LINE = 4321  # 1-based line of the original output holding the needle
SUMMARY = {
    "task_overview": "inspect the build log",
    "current_state": "log fetched twice",
    "important_discoveries": "a NEEDLE line exists",
    "next_steps": "read the offloaded context",
    "context_to_preserve": "none",
}


def build_log() -> str:
    """300,000 characters: 5,000 numbered lines of 60 characters, one holding a needle."""
    lines = [f"step {i:05d} ok " + "." * 45 for i in range(1, N_LINES + 1)]
    lines[NEEDLE_LINE - 1] = f"step {NEEDLE_LINE:05d} NEEDLE failure in module zeta"
    lines[NEEDLE_LINE - 1] += "." * (59 - len(lines[NEEDLE_LINE - 1]))
    return "\n".join(lines) + "\n"


class _NoParams(BaseModel):
    pass


Step = Callable[[str], list[Any]]


class ScriptedModel(ChatModelBase):
    """AgentScope chat model answering from a script: one step per reasoning call.

    Each step receives the whole input it was sent (serialised) and returns the
    blocks of its reply. Compression requests (the forced
    ``generate_structured_output`` tool) get a fixed summary.
    """

    def __init__(self, steps: list[Step], *, context_size: int) -> None:
        super().__init__(
            OpenAICredential(api_key=SecretStr("unused")),
            "scripted",
            _NoParams(),
            stream=False,
            context_size=context_size,
        )
        self.formatter = OpenAIChatFormatter()
        self.steps = steps
        self.seen: list[str] = []
        self.compressions = 0

    async def _call_api(
        self,
        model_name: str,
        messages: list[Any],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        **kwargs: Any,
    ) -> ChatResponse:
        names = [t["function"]["name"] for t in tools or []]
        if "generate_structured_output" in names:
            self.compressions += 1
            call = ToolCallBlock(
                id=f"summary-{self.compressions}", name="generate_structured_output", input=json.dumps(SUMMARY)
            )
            return ChatResponse(content=[call], is_last=True)
        text = json.dumps([m.model_dump(mode="json") for m in messages])
        self.seen.append(text)
        step = self.steps[len(self.seen) - 1]
        return ChatResponse(content=step(text), is_last=True)


def _call(call_id: str, name: str, **arguments: Any) -> list[Any]:
    return [ToolCallBlock(id=call_id, name=name, input=json.dumps(arguments))]


def _kept_head(sent: str) -> str:
    """The head of the big ``fetch-1`` result that AgentScope kept in the context it sent."""
    (kept,) = [
        b
        for m in json.loads(sent)
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result" and b["id"] == "fetch-1"
    ]
    text: str = kept["output"][0]["text"]
    return text.split("\n<<<TRUNCATED>>>")[0]


def _truncated_path(text: str) -> str:
    found = re.findall(r"You can refer to the file in '([^']+)'", text)
    assert found, "the model never saw an offload reference"
    return str(found[-1])


def _context_path(text: str) -> str:
    found = re.findall(r"The compressed context is offloaded to '([^']+)'", text)
    assert found, "the model never saw the compressed-context reference"
    return str(found[-1])


def _allowed(func: Callable[..., Any]) -> FunctionTool:
    return FunctionTool(
        func, is_read_only=True, permission=PermissionDecision(behavior=PermissionBehavior.ALLOW, message="test tool")
    )


def big_log(part: int) -> str:
    """Fetch one part of the build log.

    Args:
        part (int): which part
    """
    return build_log()


class Run:
    """What one scripted agent run produced."""

    def __init__(self, workdir: Path, model: ScriptedModel, agent: Agent, reply: Any) -> None:
        self.workdir = workdir
        self.model = model
        self.agent = agent
        self.reply = reply

    def tool_output(self, name: str) -> str:
        for msg in self.agent.state.context:
            for block in msg.content:
                if block.type == "tool_result" and block.name == name:
                    return "".join(b.text for b in block.output if isinstance(b, TextBlock))
        for text in self.model.seen:  # compressed away: look in what the model was sent
            for msg in json.loads(text):
                for block in msg["content"] if isinstance(msg["content"], list) else []:
                    if block.get("type") == "tool_result" and block.get("name") == name:
                        return "".join(b["text"] for b in block["output"] if b["type"] == "text")
        raise AssertionError(f"no {name} result")

    def ledger(self) -> list[dict[str, Any]]:
        (session,) = list((self.workdir / "sessions").iterdir())
        return [json.loads(line) for line in (session / "ledger.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def run(tmp_path_factory: pytest.TempPathFactory, anyio_backend: str) -> AsyncIterator[Run]:
    """One agent run: fetch the log, Read and Grep it back, fetch again, get compressed, read the context log."""
    workdir = tmp_path_factory.mktemp("agentscope") / "ws"
    steps: list[Step] = [
        lambda text: _call("fetch-1", "big_log", part=1),
        lambda text: _call("read-1", "Read", file_path=_truncated_path(text), offset=10, limit=3),
        lambda text: _call(
            "grep-1", "Grep", pattern="NEEDLE", path=_truncated_path(text), output_mode="content", **{"-n": True}
        ),
        lambda text: _call("grep-2", "WorkspaceGrep", pattern="NEEDLE", path=_truncated_path(text)),
        lambda text: _call("fetch-2", "big_log", part=2),
        lambda text: _call("read-2", "WorkspaceRead", path=_context_path(text), limit=2),
        lambda text: [TextBlock(text="The failure is in module zeta.")],
    ]
    async with LocalWorkspace(workdir) as ws:
        model = ScriptedModel(steps, context_size=12_000)
        toolkit = Toolkit(
            tools=[_allowed(big_log), AgentScopeRead(), AgentScopeGrep(), *agentscope_tools(ws, prefix="Workspace")]
        )
        agent = Agent(
            "analyst",
            "You analyse build logs.",
            model,
            toolkit=toolkit,
            offloader=ws,
            context_config=ContextConfig(tool_result_limit=4_000, trigger_ratio=0.8, reserve_ratio=0.1),
            injection_config=InjectionConfig(inject_runtime_state=False),
        )
        agent.state.permission_context.mode = PermissionMode.EXPLORE
        reply = await agent.reply(UserMsg("user", "Why did the build fail?"))
        yield Run(workdir, model, agent, reply)


@pytest.mark.anyio
async def test_agent_finishes_the_script(run: Run) -> None:
    assert len(run.model.seen) == 7
    assert run.reply.get_text_content() == "The failure is in module zeta."


@pytest.mark.anyio
async def test_truncated_tool_result_is_offloaded_to_the_workspace(run: Run) -> None:
    entries = [e for e in run.ledger() if e["kind"] == "tool_result"]
    assert [e["tool_id"] for e in entries] == ["fetch-1", "fetch-2"]
    assert all(e["tool"] == "big_log" for e in entries)
    path = _truncated_path(run.model.seen[1])
    assert path == entries[0]["ref"]
    assert Path(path).is_relative_to(run.workdir)


@pytest.mark.anyio
async def test_context_plus_offloaded_file_is_the_whole_output(run: Run) -> None:
    """AgentScope keeps a head in context and offloads the rest: together, nothing is lost."""
    head = _kept_head(run.model.seen[1])
    stored = Path(_truncated_path(run.model.seen[1])).read_text()
    assert len(head) < 20_000
    assert head + stored == build_log()


@pytest.mark.anyio
async def test_agentscope_read_reads_the_offloaded_file(run: Run) -> None:
    stored = Path(_truncated_path(run.model.seen[1])).read_text().splitlines()
    out = run.tool_output("Read")
    for n in (10, 11, 12):
        assert f"{n}\t{stored[n - 1]}" in out
    assert stored[12] not in out


@pytest.mark.anyio
async def test_agentscope_grep_finds_the_needle_in_the_offloaded_file(run: Run) -> None:
    assert "NEEDLE failure in module zeta" in run.tool_output("Grep")


@pytest.mark.anyio
async def test_workspace_grep_tool_finds_the_needle_with_its_line_number(run: Run) -> None:
    stored = Path(_truncated_path(run.model.seen[1])).read_text().splitlines()
    line_no = next(i for i, line in enumerate(stored, 1) if "NEEDLE" in line)
    out = run.tool_output("WorkspaceGrep")
    assert out.startswith("[1 matching lines for /NEEDLE/ in 1 files]")
    assert f"{line_no:>6}: step {NEEDLE_LINE:05d} NEEDLE failure" in out


@pytest.mark.anyio
async def test_compression_offloads_the_compressed_messages_to_context_jsonl(run: Run) -> None:
    assert run.model.compressions >= 1
    (entry,) = [e for e in run.ledger() if e["kind"] == "context"][:1]
    assert entry["ref"].endswith("/context.jsonl")
    records = [json.loads(line) for line in Path(entry["ref"]).read_text().splitlines()]
    assert entry["messages"] <= len(records)
    assert records[0]["role"] == "user"
    assert records[0]["content"][0]["text"] == "Why did the build fail?"
    calls = [b["id"] for r in records for b in r["content"] if b["type"] == "tool_call"]
    assert calls[:2] == ["fetch-1", "read-1"]
    assert _context_path(run.model.seen[5]) == entry["ref"]


@pytest.mark.anyio
async def test_workspace_read_tool_reads_the_context_log(run: Run) -> None:
    out = run.tool_output("WorkspaceRead")
    assert out.splitlines()[0].startswith("     1\t{")
    assert "Why did the build fail?" in out
    assert re.search(r"\[line 2 is \d+ bytes; shown bytes 1-2000; read on with offset=2, limit=1, column=2001\]", out)


def _png(rgb: tuple[int, int, int]) -> bytes:
    """A valid 1x1 PNG of one colour."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = zlib.compress(b"\x00" + bytes(rgb))
    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


@pytest.mark.anyio
async def test_image_past_agentscope_limit_is_offloaded_once_to_data(tmp_path: Path) -> None:
    images = [_png((255, 0, 0)), _png((0, 0, 255))]
    steps: list[Step] = [lambda text: [TextBlock(text="two images seen")]]
    async with LocalWorkspace(tmp_path / "ws") as ws:
        model = ScriptedModel(steps, context_size=100_000)
        agent = Agent(
            "viewer",
            "You look at images.",
            model,
            offloader=ws,
            context_config=ContextConfig(max_image_num=1),
            injection_config=InjectionConfig(inject_runtime_state=False),
        )
        blocks = [
            DataBlock(
                name=f"img{i}.png", source=Base64Source(data=base64.b64encode(png).decode(), media_type="image/png")
            )
            for i, png in enumerate(images)
        ]
        await agent.reply(UserMsg("user", [TextBlock(text="Compare these."), *blocks]))
    first = tmp_path / "ws" / "data" / f"{hashlib.sha256(images[0]).hexdigest()}.png"
    assert first.read_bytes() == images[0]
    assert len(list((tmp_path / "ws" / "data").iterdir())) == 1  # only the image over the limit
    sent = model.seen[0]
    assert f"workspace:///data/{first.name}" in sent
    assert base64.b64encode(images[0]).decode() not in sent
    assert base64.b64encode(images[1]).decode() in sent


def _text(chunk: ToolChunk) -> str:
    return "".join(b.text for b in chunk.content if isinstance(b, TextBlock))


@pytest.mark.anyio
async def test_workspace_tool_errors_become_agentscope_error_results(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        read = next(t for t in agentscope_tools(ws) if t.name == "Read")
        chunk = await read.call(path="../outside.txt")
    assert isinstance(chunk, ToolChunk)
    assert str(chunk.state) == "error"
    assert "outside the workdir" in _text(chunk)


@pytest.mark.anyio
async def test_agentscope_tool_keeps_the_json_schema_and_allows_without_asking() -> None:
    async def echo(text: str) -> str:
        return text

    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    wrapped = agentscope_tool(Tool("Echo", "Echo the text.", schema, echo), name="EchoTool")
    assert wrapped.name == "EchoTool"
    assert wrapped.input_schema == schema
    assert wrapped.is_read_only
    decision = await wrapped.check_permissions({"text": "x"}, None)
    assert decision.behavior == PermissionBehavior.ALLOW
    chunk = await wrapped.call(text="hello")
    assert isinstance(chunk, ToolChunk)
    assert _text(chunk) == "hello"


@pytest.mark.anyio
async def test_every_workspace_backend_is_a_drop_in_offloader(workspace: Any) -> None:
    """Truncation, compression and the image limit all land in the workspace, whatever the backend."""
    image = _png((0, 255, 0))
    steps: list[Step] = [
        lambda text: _call("fetch-1", "big_log", part=1),
        lambda text: _call("grep-1", "Grep", pattern="NEEDLE", path=_truncated_path(text)),
        lambda text: _call("fetch-2", "big_log", part=2),
        lambda text: _call("read-1", "Read", path=_context_path(text), limit=1),
        lambda text: [TextBlock(text="done")],
    ]
    model = ScriptedModel(steps, context_size=10_000)
    agent = Agent(
        "analyst",
        "You analyse build logs.",
        model,
        toolkit=Toolkit(tools=[_allowed(big_log), *agentscope_tools(workspace)]),
        offloader=workspace,
        context_config=ContextConfig(tool_result_limit=4_000, max_image_num=0),
        injection_config=InjectionConfig(inject_runtime_state=False),
    )
    agent.state.permission_context.mode = PermissionMode.EXPLORE
    picture = DataBlock(source=Base64Source(data=base64.b64encode(image).decode(), media_type="image/png"))
    await agent.reply(UserMsg("user", [TextBlock(text="Why did the build fail?"), picture]))

    assert len(model.seen) == 5
    head = _kept_head(model.seen[1])
    stored = await workspace.read_bytes(_truncated_path(model.seen[1]))
    assert head + stored.decode() == build_log()
    assert "NEEDLE failure in module zeta" in json.loads(model.seen[2])[-1]["content"][-1]["output"][0]["text"]
    context_log = await workspace.read_bytes(_context_path(model.seen[3]))
    assert b"Why did the build fail?" in context_log
    assert await workspace.read_bytes(f"data/{hashlib.sha256(image).hexdigest()}.png") == image
