"""Framework-neutral helpers: tool schemas for OpenAI/Anthropic, tool dispatch, TurnContext."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from offloader.core.messages import Message, TextBlock, ToolCallBlock, ToolResultBlock
from offloader.integrations.plain import (
    TurnContext,
    anthropic_tools,
    call_tool,
    offload_tool_results,
    openai_tools,
)
from offloader.offloader import ContextOffloader
from workspaces import LocalWorkspace

BIG = "\n".join(f"row {i:05d} value={i * 7}" for i in range(20_000)).replace("row 12345 ", "row 12345 ERROR ")


def _refs(text: str) -> list[str]:
    return [line.split()[0] for line in text.splitlines() if line.startswith("  /")]


@pytest.mark.anyio
async def test_openai_schemas_are_function_definitions_with_the_tool_json_schema(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        tools = ws.tools()
        exported = openai_tools(tools)
    assert [e["function"]["name"] for e in exported] == ["Read", "Grep", "Glob"]
    for entry, tool in zip(exported, tools, strict=True):
        assert entry == {
            "type": "function",
            "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
        }
        assert entry["function"]["parameters"]["type"] == "object"
        assert set(entry["function"]["parameters"]["required"]) <= set(entry["function"]["parameters"]["properties"])
    json.dumps(exported)  # serialisable as sent over the wire


@pytest.mark.anyio
async def test_anthropic_schemas_carry_input_schema(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        ctx = TurnContext(ws, "s1")
        exported = anthropic_tools(ctx.tools())
    assert [e["name"] for e in exported] == ["Read", "Grep", "Glob", "retrieve_offloaded_content"]
    assert all(set(e) == {"name", "description", "input_schema"} for e in exported)
    assert exported[3]["input_schema"]["required"] == ["reference"]
    json.dumps(exported)


@pytest.mark.anyio
async def test_call_tool_accepts_openai_json_string_arguments(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        ref = await ws.write_bytes("notes.txt", b"alpha\nbeta\n")
        outcome = await call_tool(ws.tools(), "Grep", json.dumps({"pattern": "beta", "path": ref}))
    assert not outcome.is_error
    assert "     2: beta" in outcome.text


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("Delete", {}, "unknown tool 'Delete'"),
        ("Read", "{not json", "not valid JSON"),
        ("Read", "[1, 2]", "must be a JSON object"),
        ("Read", {"path": "../x"}, "outside the workdir"),
    ],
)
async def test_call_tool_turns_bad_calls_into_error_outcomes(
    tmp_path: Path, name: str, arguments: Any, message: str
) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        outcome = await call_tool(ws.tools(), name, arguments)
    assert outcome.is_error
    assert message in outcome.text


def _openai_history() -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": "Find the error."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "dump_table", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "c1", "content": BIG},
    ]


@pytest.mark.anyio
async def test_prepare_offloads_a_big_openai_tool_message_and_keeps_its_shape(tmp_path: Path) -> None:
    history = _openai_history()
    snapshot = copy.deepcopy(history)
    async with LocalWorkspace(tmp_path / "ws") as ws:
        sent = await TurnContext(ws, "s1", compact=False).prepare(history)
        (ref,) = _refs(sent[2]["content"])
        stored = await ws.read_bytes(ref)
    assert history == snapshot  # the caller's list is untouched
    assert sent[:2] == history[:2]
    assert sent[2]["role"] == "tool" and sent[2]["tool_call_id"] == "c1"
    assert sent[2]["content"].startswith("[Offloaded:")
    assert len(sent[2]["content"]) < 10_000
    assert stored.decode() == BIG


@pytest.mark.anyio
async def test_ledger_names_the_tool_from_the_assistant_call(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        await TurnContext(ws, "s1", compact=False).prepare(_openai_history())
    ledger = [json.loads(line) for line in (tmp_path / "ws/sessions/s1/ledger.jsonl").read_text().splitlines()]
    assert [(e["kind"], e["tool_id"]) for e in ledger] == [("tool_result", "c1")]


@pytest.mark.anyio
async def test_preparing_again_is_stable(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        ctx = TurnContext(ws, "s1", window=100_000)
        first = await ctx.prepare(_openai_history())
        second = await ctx.prepare(first)
    assert second == first


@pytest.mark.anyio
async def test_anthropic_and_strands_result_blocks_are_offloaded_in_place(tmp_path: Path) -> None:
    anthropic = [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "a1", "name": "dump", "input": {}}]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "a1", "content": BIG}, {"type": "text", "text": "and?"}],
        },
    ]
    strands = [
        {"role": "assistant", "content": [{"toolUse": {"toolUseId": "s1", "name": "dump", "input": {}}}]},
        {
            "role": "user",
            "content": [{"toolResult": {"toolUseId": "s1", "status": "success", "content": [{"text": BIG}]}}],
        },
    ]
    async with LocalWorkspace(tmp_path / "ws") as ws:
        offloader = ContextOffloader(ws)
        a = await offload_tool_results(offloader, "s", anthropic)
        s = await offload_tool_results(offloader, "s", strands)
    assert a[0] is anthropic[0]
    block = a[1]["content"][0]
    assert block["type"] == "tool_result" and block["tool_use_id"] == "a1"
    assert "[Offloaded:" in json.dumps(block["content"])
    assert a[1]["content"][1] == {"type": "text", "text": "and?"}
    result = s[1]["content"][0]["toolResult"]
    assert result["toolUseId"] == "s1" and result["status"] == "success"
    assert result["content"][0]["text"].startswith("[Offloaded:")


@pytest.mark.anyio
async def test_canonical_messages_are_offloaded_too(tmp_path: Path) -> None:
    msgs = [
        Message("assistant", (ToolCallBlock("k1", "dump", {}),)),
        Message("tool", (ToolResultBlock("k1", "dump", (TextBlock(BIG),)),)),
        Message("user", (TextBlock("small"),)),
    ]
    async with LocalWorkspace(tmp_path / "ws") as ws:
        out = await offload_tool_results(ContextOffloader(ws), "s", msgs)
    assert out[0] is msgs[0] and out[2] is msgs[2]
    (result,) = out[1].content
    assert isinstance(result, ToolResultBlock) and result.id == "k1"
    assert isinstance(result.content[0], TextBlock) and result.content[0].text.startswith("[Offloaded:")


@pytest.mark.anyio
async def test_prepare_compacts_old_turns_to_the_context_log(tmp_path: Path) -> None:
    history: list[dict[str, Any]] = []
    for i in range(60):
        history.append({"role": "user", "content": f"question {i} " + "lorem ipsum dolor " * 30})
        history.append({"role": "assistant", "content": f"answer {i} " + "sit amet consectetur " * 30})
    history.append({"role": "user", "content": "What was question 3?"})
    async with LocalWorkspace(tmp_path / "ws") as ws:
        ctx = TurnContext(ws, "long", window=6_000)
        sent = await ctx.prepare(history)
    assert ctx.last_compaction is not None and ctx.last_compaction.level in ("aggressive", "emergency")
    assert len(sent) < len(history)
    assert sent[-1] == history[-1]  # the last user message is kept
    log = (tmp_path / "ws/sessions/long/context.jsonl").read_text()
    assert "question 3 lorem" in log
    assert any("context.jsonl" in json.dumps(m) for m in sent)


@pytest.mark.anyio
async def test_retrieval_tool_reads_back_what_prepare_offloaded(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        ctx = TurnContext(ws, "s1", compact=False)
        sent = await ctx.prepare(_openai_history())
        (ref,) = _refs(sent[2]["content"])
        outcome = await ctx.call_tool("retrieve_offloaded_content", {"reference": ref, "pattern": "ERROR"})
    assert not outcome.is_error
    assert "row 12345 ERROR value=86415" in outcome.text


def test_turn_context_rejects_an_empty_session_id(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="session_id"):
        TurnContext(LocalWorkspace(tmp_path / "ws"), "")
