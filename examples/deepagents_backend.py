"""LangChain deepagents on a workspace backend: evicted tool results land in the workspace.

deepagents moves any tool result over its token limit to
``/large_tool_results/{tool_call_id}``; with ``deepagents_backend(workspace)``
that file lives in the workspace (here a local folder; a Docker container, an
E2B sandbox or S3 work the same). A scripted LangChain model (no API key)
greps the evicted file and reads around the match. Run::

    python examples/deepagents_backend.py [--workdir DIR]

Install (from a checkout): ``pip install -e '.[deepagents]'``.
"""

from __future__ import annotations

import argparse
import tempfile
from collections.abc import Sequence
from typing import Any

import anyio
from deepagents import create_deep_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, ToolMessage

from offloader.integrations.deepagents import deepagents_backend
from workspaces import LocalWorkspace


def query_orders() -> str:
    """Return every order of the month as CSV."""
    rows = [f"{i},customer-{i % 97},{(i * 37) % 1000}.00,paid" for i in range(1, 9001)]
    rows[7776] = "7777,customer-17,99999.00,REFUNDED"
    return "id,customer,amount,status\n" + "\n".join(rows)


class ScriptedModel(GenericFakeChatModel):
    """LangChain's fake chat model, willing to be bound to tools."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedModel:
        return self


def _call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


async def main(workdir: str) -> None:
    script = iter(
        [
            _call("query_orders", {}, "orders"),
            _call("grep", {"pattern": "REFUNDED", "path": "/large_tool_results", "output_mode": "content"}, "find"),
            _call("read_file", {"file_path": "/large_tool_results/orders", "offset": 7776, "limit": 3}, "look"),
            AIMessage(content="Order 7777 (customer-17, 99,999.00) was refunded."),
        ]
    )
    async with LocalWorkspace(workdir) as ws:
        agent = create_deep_agent(
            model=ScriptedModel(messages=script), tools=[query_orders], backend=deepagents_backend(ws)
        )
        result = await agent.ainvoke({"messages": [{"role": "user", "content": "Any refunds this month?"}]})
        for msg in result["messages"]:
            if isinstance(msg, ToolMessage):
                text = str(msg.content)
                print(f"--- {msg.name}: {len(text):,} characters in context")
                print(text[:400] + (" ..." if len(text) > 400 else ""))
        print("--- answer:", result["messages"][-1].content)
        evicted = await ws.stat("large_tool_results/orders")
        print(
            f"--- evicted file in the workspace: {ws.reference('large_tool_results/orders')} "
            f"({evicted.size if evicted else 0:,} bytes, the whole result)"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default=None, help="workspace folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        anyio.run(main, args.workdir or tmp)
