"""A hand-written agent loop (no framework) kept small by one call between turns.

``TurnContext.prepare(messages)`` offloads oversized tool results (the model
sees a preview plus a reference) and compacts old turns once the window fills,
without mutating your list and without losing anything: it is all in the
workspace. The "model" here is a scripted function speaking OpenAI's chat
format, so the loop runs offline; swap in a real client call. Run::

    python examples/plain_loop.py [--workdir DIR]

Install (from a checkout): ``pip install -e .``.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from typing import Any

import anyio

from offloader.integrations.plain import TurnContext, openai_tools
from workspaces import LocalWorkspace


def slow_query_log() -> str:
    """The database's slow-query log: 20,000 lines, one of them the culprit."""
    lines = [
        f"2026-11-30T04:{i % 60:02d}:00 duration=12ms query=SELECT * FROM users WHERE id={i}" for i in range(20_000)
    ]
    lines[15_321] = "2026-11-30T04:21:00 duration=9120ms query=SELECT * FROM orders ORDER BY created_at"
    return "\n".join(lines)


def scripted_model(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> dict[str, Any]:
    """Stands in for ``client.chat.completions.create``: decides from what it is sent."""
    last = messages[-1]
    if last["role"] == "user":
        return _call("q1", "slow_query_log", {})
    text = str(last.get("content", ""))
    if "[Offloaded:" in text:
        ref = re.search(r"^\s+(\S+) \(text/plain", text, re.M)
        assert ref, "the preview names where the full log is"
        return _call("q2", "retrieve_offloaded_content", {"reference": ref.group(1), "pattern": r"duration=\d{4,}ms"})
    table = re.search(r"FROM (\w+) ORDER BY (\w+)", text)
    assert table, "the retrieval found the slow query"
    return {"role": "assistant", "content": f"The slow query is the one on {table[1]}.{table[2]}."}


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    call = {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
    return {"role": "assistant", "content": None, "tool_calls": [call]}


async def main(workdir: str) -> None:
    async with LocalWorkspace(workdir) as ws:
        ctx = TurnContext(ws, session_id="ops-chat", window=8_000)
        tools = openai_tools(ctx.tools())
        history: list[dict[str, Any]] = []
        for i in range(30):  # an earlier, chatty conversation
            history.append({"role": "user", "content": f"Earlier question {i}: " + "context " * 60})
            history.append({"role": "assistant", "content": f"Earlier answer {i}: " + "details " * 60})
        history.append({"role": "user", "content": "Which query made the database slow?"})
        while True:
            sent = await ctx.prepare(history)  # offload big results, compact old turns
            reply = scripted_model(sent, tools)
            history.append(reply)
            if not reply.get("tool_calls"):
                break
            for call in reply["tool_calls"]:
                name, args = call["function"]["name"], call["function"]["arguments"]
                # your own tools run as usual; the workspace's tools go through ctx.call_tool
                output = slow_query_log() if name == "slow_query_log" else (await ctx.call_tool(name, args)).text
                history.append({"role": "tool", "tool_call_id": call["id"], "content": output})
                print(f"--- {name}: {len(output):,} characters returned")
        sent_chars = sum(len(json.dumps(m)) for m in sent)
        kept_chars = sum(len(json.dumps(m)) for m in history)
        print(
            f"--- last request: {len(sent)} messages, {sent_chars:,} characters "
            f"(the full history is {len(history)} messages, {kept_chars:,} characters)"
        )
        if ctx.last_compaction is not None:
            print(
                f"--- compaction level this turn: {ctx.last_compaction.trigger}; references: "
                f"{', '.join(ctx.last_compaction.references) or 'none'}"
            )
        print("--- answer:", history[-1]["content"])


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default=None, help="workspace folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        anyio.run(main, args.workdir or tmp)
