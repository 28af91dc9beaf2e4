"""Helpers for the compaction tests: conversations in every shape, restoring, pairing.

No tests live here; ``test_compaction*.py`` import these.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from offloader.compaction import MILD_MARKER
from offloader.core.convert import message_from_dict, message_to_dict, to_message
from offloader.core.messages import Message, TextBlock, ToolCallBlock, ToolResultBlock

SHAPES = ["openai", "anthropic", "strands", "agentscope", "canonical"]


@dataclass
class Call:
    id: str
    name: str
    args: dict[str, Any]
    result: str
    is_error: bool = False


@dataclass
class Turn:
    user: str
    calls: list[Call] = field(default_factory=list)
    reply: str = ""


def log_lines(tag: str, n: int, *, error_at: int | None = None) -> str:
    lines = [f"{tag} line {i}: compiled module_{i}.py ok in {i % 7}ms" for i in range(n)]
    if error_at is not None:
        lines[error_at] = f"{tag} ERROR: test_{error_at} failed with AssertionError"
    return "\n".join(lines)


def scripted_turns(n: int, *, lines: int = 120, start: int = 0, big_args: bool = False) -> list[Turn]:
    """A deterministic agent session: each turn one user request, one or two tool calls, a reply."""
    turns = []
    for t in range(start, start + n):
        calls = [Call(f"call_{t}_a", "run_tests", {"path": f"tests/t{t}", "verbose": True}, log_lines(f"t{t}", lines))]
        if t % 3 == 0:
            args = {"pattern": "def ", "glob": "*.py"}
            if big_args:
                args["content"] = "x = 1\n" * 400
            calls.append(Call(f"call_{t}_b", "grep", args, json.dumps({"matches": [f"m{i}" for i in range(lines)]})))
        turns.append(Turn(f"Please fix failing test {t}.", calls, f"Fixed test {t}; all green."))
    return turns


def build(turns: list[Turn], shape: str, *, system: str | None = "You are a coding agent.") -> list[Any]:
    """The conversation in one of SHAPES."""
    out: list[Any] = []
    if shape == "agentscope":
        from agentscope.message import Msg
        from agentscope.message import TextBlock as ASText
        from agentscope.message import ToolCallBlock as ASCall
        from agentscope.message import ToolResultBlock as ASResult

        if system:
            out.append(Msg(name="system", role="system", content=[ASText(text=system)]))
        for t in turns:
            out.append(Msg(name="user", role="user", content=[ASText(text=t.user)]))
            if t.calls:
                out.append(
                    Msg(
                        name="agent",
                        role="assistant",
                        content=[ASCall(id=c.id, name=c.name, input=json.dumps(c.args)) for c in t.calls],
                    )
                )
                for c in t.calls:
                    out.append(
                        Msg(name="agent", role="assistant", content=[ASResult(id=c.id, name=c.name, output=c.result)])
                    )
            if t.reply:
                out.append(Msg(name="agent", role="assistant", content=[ASText(text=t.reply)]))
        return out
    if system:
        out.append(_system(shape, system))
    for t in turns:
        out.append(_user(shape, t.user))
        if t.calls:
            out.extend(_calls(shape, t.calls))
        if t.reply:
            out.append(_assistant(shape, t.reply))
    return out


def _system(shape: str, text: str) -> Any:
    if shape == "canonical":
        return Message("system", (TextBlock(text),))
    if shape == "strands":
        return {"role": "system", "content": [{"text": text}]}
    return {"role": "system", "content": text}


def _user(shape: str, text: str) -> Any:
    if shape == "canonical":
        return Message("user", (TextBlock(text),))
    if shape == "strands":
        return {"role": "user", "content": [{"text": text}]}
    if shape == "anthropic":
        return {"role": "user", "content": [{"type": "text", "text": text}]}
    return {"role": "user", "content": text}


def _assistant(shape: str, text: str) -> Any:
    if shape == "canonical":
        return Message("assistant", (TextBlock(text),))
    if shape == "strands":
        return {"role": "assistant", "content": [{"text": text}]}
    if shape == "anthropic":
        return {"role": "assistant", "content": [{"type": "text", "text": text}]}
    return {"role": "assistant", "content": text}


def _calls(shape: str, calls: list[Call]) -> list[Any]:
    if shape == "canonical":
        return [
            Message("assistant", tuple(ToolCallBlock(c.id, c.name, c.args) for c in calls)),
            *[Message("tool", (ToolResultBlock(c.id, c.name, (TextBlock(c.result),), c.is_error),)) for c in calls],
        ]
    if shape == "openai":
        return [
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.args)}}
                    for c in calls
                ],
            },
            *[{"role": "tool", "tool_call_id": c.id, "content": c.result} for c in calls],
        ]
    if shape == "anthropic":
        return [
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.args} for c in calls],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": c.id, "content": c.result, "is_error": c.is_error}
                    for c in calls
                ],
            },
        ]
    assert shape == "strands"
    return [
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": c.id, "name": c.name, "input": c.args}} for c in calls],
        },
        {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": c.id,
                        "status": "error" if c.is_error else "success",
                        "content": [{"text": c.result}],
                    }
                }
                for c in calls
            ],
        },
    ]


# ---------------------------------------------------------------- checks


def pairing_errors(messages: list[Any]) -> list[str]:
    """Orphan tool results and calls without results, in API order."""
    errors: list[str] = []
    open_calls: dict[str, int] = {}
    for i, msg in enumerate(to_message(m) for m in messages):
        for block in msg.content:
            if isinstance(block, ToolCallBlock):
                open_calls[block.id] = i
            elif isinstance(block, ToolResultBlock):
                if block.id not in open_calls:
                    errors.append(f"orphan result {block.id} at {i}")
                else:
                    del open_calls[block.id]
    errors += [f"call {cid} at {i} has no result" for cid, i in open_calls.items()]
    return errors


async def context_log(ws: Any, session_id: str) -> list[Message]:
    try:
        raw = await ws.read_bytes(f"sessions/{session_id}/context.jsonl")
    except FileNotFoundError:
        return []
    return [message_from_dict(json.loads(line)) for line in raw.decode().splitlines() if line.strip()]


async def _resolve(ws: Any, msg: Message, log: list[Message]) -> Message:
    by_id = {m.id: m for m in log if m.id}
    blocks = []
    for block in msg.content:
        if isinstance(block, ToolResultBlock):
            text = block.text()
            if text.startswith(MILD_MARKER) or text.startswith("[Truncated tool result | ref: "):
                ref = text.split("ref: ", 1)[1].split("]", 1)[0].split(" | ", 1)[0]
                full = (await ws.read_bytes(ref)).decode()
                block = ToolResultBlock(block.id, block.name, (TextBlock(full),) if full else (), block.is_error)
        elif isinstance(block, TextBlock) and block.text.startswith("[Truncated message | original: "):
            mid = block.text.split("(message id ", 1)[1].split(")", 1)[0]
            original = by_id[mid]
            return Message(
                original.role, original.content, original.name, None if mid.startswith("truncated-") else mid
            )
        elif isinstance(block, ToolCallBlock) and "full call in " in json.dumps(block.input):
            for logged in log:
                for other in logged.tool_calls:
                    if other.id == block.id and "full call in " not in json.dumps(other.input):
                        block = other
        blocks.append(block)
    return Message(msg.role, tuple(blocks), msg.name, msg.id)


async def unrestorable(ws: Any, session_id: str, original: list[Any], output: list[Any]) -> list[int]:
    """Indexes of original messages found neither in the output nor via the references."""
    log = await context_log(ws, session_id)
    pool = [await _resolve(ws, to_message(m), log) for m in output]
    pool += [await _resolve(ws, m, log) for m in log]
    keys = {json.dumps(message_to_dict(m), sort_keys=True) for m in pool}
    return [i for i, m in enumerate(original) if json.dumps(message_to_dict(to_message(m)), sort_keys=True) not in keys]
