"""OpenAI Agents SDK with OffloadModelInput and WorkspaceSession: a 5 MB build log stays out of the input.

``RunConfig(call_model_input_filter=...)`` replaces the big tool output by a
preview plus a reference before every model call and compacts old turns; the
model then asks ``retrieve_offloaded_content`` for the failing lines. The
conversation itself is kept, append-only, in the workspace by
``WorkspaceSession``, so a second run continues it. The model is the SDK's
``ScriptedModel`` acting like an LLM (no API key needed). Run::

    python examples/openai_agents.py [--workdir DIR]

Install (from a checkout): ``pip install -e '.[openai-agents]'``.
"""

from __future__ import annotations

import argparse
import re
import tempfile
from typing import Any

import anyio
from agents import Agent, RunConfig, Runner, function_tool
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message
from agents.testing import function_call as call

from offloader.integrations.openai_agents import OffloadModelInput
from offloader.integrations.openai_agents_session import WorkspaceSession
from workspaces import LocalWorkspace


@function_tool
def run_build() -> str:
    """Run the build and return its log."""
    lines = [f"[{i:06d}] compiling src/module_{i % 977:04d}.c with -O2 -Wall ... ok" for i in range(88_000)]
    lines[44_000] = "FAILED test_refund_rounding: expected 10.00, got 9.99 (payments/refund.py:212)"
    return "\n".join(lines)


def last_output(model_call: ModelCall) -> str:
    outputs = [i for i in model_call.input if isinstance(i, dict) and i.get("type") == "function_call_output"]
    return str(outputs[-1]["output"])


def read_back(model_call: ModelCall) -> Any:
    """Stands in for an LLM that reads the preview and asks for the failing lines."""
    seen = last_output(model_call)
    print(f"--- the model sees {len(seen):,} characters of the build's output:")
    print(seen[:700] + " ...")
    ref = re.findall(r"^  (\S+) \(text/plain", seen, re.M)[-1]
    return [
        call("retrieve_offloaded_content", {"reference": ref, "pattern": "FAILED", "context_lines": 0}, call_id="read")
    ]


def answer(model_call: ModelCall) -> Any:
    found = re.search(r"FAILED (test_\w+): (.+)", last_output(model_call))
    assert found
    return [assistant_message(f"{found[1]} failed: {found[2].strip()}")]


def follow_up(model_call: ModelCall) -> Any:
    asked = [i.get("content") for i in model_call.input if isinstance(i, dict) and i.get("role") == "user"]
    return [assistant_message(f"This conversation has {len(asked)} questions so far.")]


async def main(workdir: str) -> None:
    async with LocalWorkspace(workdir) as ws:
        offload = OffloadModelInput(ws, session_id="build-42", window=128_000)
        model = ScriptedModel(
            [
                [call("run_build", {}, call_id="build")],
                ModelStep.respond(read_back),
                ModelStep.respond(answer),
                ModelStep.respond(follow_up),
            ]
        )
        agent = Agent(name="builder", model=model, tools=[run_build, *offload.function_tools()])
        config = RunConfig(call_model_input_filter=offload, tracing_disabled=True)
        session = WorkspaceSession(ws, "build-42")
        result = await Runner.run(agent, "Why did the build fail?", session=session, run_config=config)
        print("--- answer:", result.final_output)
        later = await Runner.run(agent, "Thanks. How many questions so far?", session=session, run_config=config)
        print("--- later:", later.final_output)
        items = await session.get_items()
        print(f"--- the session keeps {len(items)} items in {session.path}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default=None, help="workspace folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        anyio.run(main, args.workdir or tmp)
