"""Pydantic AI with OffloadHistory: a 5 MB build log never enters the model's context.

Before every model request the capability replaces the big tool return by a
preview (head, error lines, tail) plus a reference, and compacts old turns; the
model then greps the stored log for the lines it needs. The agent's own history
keeps the whole log. The model is pydantic-ai's ``FunctionModel`` scripted to
act like an LLM (no API key needed). Run::

    python examples/pydantic_ai_agent.py [--workdir DIR]

Install (from a checkout): ``pip install -e '.[pydantic-ai]'``.
"""

from __future__ import annotations

import argparse
import re
import tempfile

import anyio
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from offloader.integrations.pydantic_ai import OffloadHistory
from workspaces import LocalWorkspace


def build_log() -> str:
    """About 5 MB of compiler output with one failing test in the middle."""
    lines = [f"[{i:06d}] compiling src/module_{i % 977:04d}.c with -O2 -Wall ... ok" for i in range(88_000)]
    lines[44_000] = "FAILED test_refund_rounding: expected 10.00, got 9.99 (payments/refund.py:212)"
    return "\n".join(lines)


def scripted_model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Stands in for an LLM: one tool call or answer per turn, chosen from what it sees."""
    returns = [p for m in messages for p in m.parts if isinstance(p, ToolReturnPart)]
    if not returns:
        return ModelResponse(parts=[ToolCallPart("run_build", {}, tool_call_id="build")])
    seen = str(returns[-1].content)
    if len(returns) == 1:
        print(f"--- the model sees {len(seen):,} characters of the build's output:")
        print(seen[:700] + " ...")
        ref = re.findall(r"^  (\S+) \(text/plain", seen, re.M)[-1]
        return ModelResponse(parts=[ToolCallPart("Grep", {"pattern": "FAILED", "path": ref}, tool_call_id="grep")])
    found = re.search(r"FAILED (test_\w+): (.+)", seen)
    assert found, seen
    return ModelResponse(parts=[TextPart(f"{found[1]} failed: {found[2]}")])


async def main(workdir: str) -> None:
    async with LocalWorkspace(workdir) as ws:
        history = OffloadHistory(ws, session_id="build-42", window=128_000)
        agent = Agent(FunctionModel(scripted_model), capabilities=[history.capability()])

        @agent.tool_plain
        def run_build() -> str:
            """Run the build and return its log."""
            return build_log()

        result = await agent.run("Why did the build fail?")
        kept = [p for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
        print(f"--- the agent's own history keeps all {len(str(kept[0].content)):,} characters")
        print("--- answer:", result.output)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default=None, help="workspace folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        anyio.run(main, args.workdir or tmp)
