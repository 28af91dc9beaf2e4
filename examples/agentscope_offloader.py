"""AgentScope 2.x with a workspace as ``offloader=``: nothing the agent truncates is lost.

A scripted model (no API key needed) asks for a 300,000-character build log.
AgentScope keeps the head of it in context and hands the rest to the
workspace; the model then finds the failure with the workspace's Grep tool and
reads around it with Read. Run::

    python examples/agentscope_offloader.py [--workdir DIR]

Install (from a checkout): ``pip install -e '.[agentscope]'``.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from typing import Any

import anyio
from agentscope.agent import Agent, ContextConfig, InjectionConfig
from agentscope.credential import OpenAICredential
from agentscope.formatter import OpenAIChatFormatter
from agentscope.message import TextBlock, ToolCallBlock, UserMsg
from agentscope.model import ChatModelBase, ChatResponse
from agentscope.permission import PermissionBehavior, PermissionDecision
from agentscope.tool import FunctionTool, Toolkit
from pydantic import BaseModel, SecretStr

from offloader.integrations.agentscope import agentscope_tools
from workspaces import LocalWorkspace


def fetch_build_log() -> str:
    """Fetch the log of the last CI build."""
    lines = [f"[{i:05d}] compiling unit {i} ... ok" for i in range(1, 8001)]
    lines[6502] = "[06503] compiling unit 6503 ... ERROR: undefined symbol 'frobnicate'"
    return "\n".join(lines)


class _Params(BaseModel):
    pass


class ScriptedModel(ChatModelBase):
    """Stands in for an LLM: each reasoning step looks at the messages and picks a tool call."""

    def __init__(self) -> None:
        super().__init__(OpenAICredential(api_key=SecretStr("unused")), "scripted", _Params(), stream=False)
        self.formatter = OpenAIChatFormatter()
        self.step = 0

    async def _call_api(
        self,
        model_name: str,
        messages: list[Any],
        tools: list[dict[str, Any]] | None = None,
        tool_choice: Any = None,
        **kwargs: Any,
    ) -> ChatResponse:
        seen = json.dumps([m.model_dump(mode="json") for m in messages])
        self.step += 1
        if self.step == 1:
            return _call("c1", "fetch_build_log", {})
        ref = re.findall(r"refer to the file in '([^']+)'", seen)[-1]
        if self.step == 2:
            return _call("c2", "Grep", {"pattern": "ERROR", "path": ref})
        if self.step == 3:
            line = int(re.findall(r"(\d+): \[\d+\] compiling unit \d+ \.\.\. ERROR", seen)[-1])
            return _call("c3", "Read", {"path": ref, "offset": line - 1, "limit": 3})
        return ChatResponse(content=[TextBlock(text="Unit 6503 failed: undefined symbol 'frobnicate'.")], is_last=True)


def _call(call_id: str, name: str, args: dict[str, Any]) -> ChatResponse:
    return ChatResponse(content=[ToolCallBlock(id=call_id, name=name, input=json.dumps(args))], is_last=True)


async def main(workdir: str) -> None:
    async with LocalWorkspace(workdir) as ws:
        fetch = FunctionTool(
            fetch_build_log,
            is_read_only=True,  # type: ignore[arg-type]  # str results are fine
            permission=PermissionDecision(behavior=PermissionBehavior.ALLOW, message="demo"),
        )
        agent = Agent(
            "ci-doctor",
            "You diagnose CI failures.",
            ScriptedModel(),
            toolkit=Toolkit(tools=[fetch, *agentscope_tools(ws)]),
            offloader=ws,  # <- the whole integration
            context_config=ContextConfig(tool_result_limit=2_000),
            injection_config=InjectionConfig(inject_runtime_state=False),
        )
        reply = await agent.reply(UserMsg("user", "Why did the build fail?"))
        for msg in agent.state.context:
            for block in msg.content:
                if block.type == "tool_result":
                    text = "".join(b.text for b in block.output if isinstance(b, TextBlock))
                    print(f"--- {block.name}: {len(text):,} characters in context")
                    print(text[:300] + (" ..." if len(text) > 300 else ""))
        print("--- answer:", reply.get_text_content())
        print("--- workspace files:")
        print(await ws.glob("**"))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default=None, help="workspace folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        anyio.run(main, args.workdir or tmp)
