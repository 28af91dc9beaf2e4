"""Pydantic AI and the OpenAI Agents SDK, side by side: whole runs and the per-request hook.

Run: ``python benchmarks/bench_agent_frameworks.py [--reps N]`` (under a minute; prints markdown).

1. **Whole runs.** A real agent (pydantic-ai ``Agent`` with ``FunctionModel``;
   Agents SDK ``Runner`` with ``ScriptedModel``) calls a tool that returns a 5 MB
   build log with one failure line in the middle, then answers. Rows: no hook
   (the whole log is sent), the SDK's own ``ToolOutputTrimmer`` filter, and this
   project's ``OffloadHistory`` / ``OffloadModelInput`` on a ``LocalWorkspace``.
   Columns: median time of one run (ratio to no hook), characters the model
   received on the second call, and whether the failure line is in them. Both
   stand-in models serialise their input to JSON, as a real client does to send it.
2. **The hook alone, per request.** The history holding the 5 MB result is
   processed again before every model call. *first* is the call that offloads it,
   *next* a later call (the result is remembered by call id and content hash, so
   the cost is one hash of 5 MB), *restart* a new process on the same workspace
   (the stored file is found and compared, nothing is written).

Rows run round-robin so machine load hits them alike; medians of ``--reps`` runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FAILURE = "FAILED test_refund_rounding: expected 10.00, got 9.99 (payments/refund.py:212)"


def build_log() -> str:
    lines = [f"[{i:06d}] compiling src/module_{i % 977:04d}.c with -O2 -Wall ... ok" for i in range(88_000)]
    lines[44_000] = FAILURE
    return "\n".join(lines)


LOG = build_log()


async def pydantic_run(hook: str, workdir: str) -> tuple[float, str]:
    """One three-message run; returns (seconds, what the model received on its second call)."""
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelMessagesTypeAdapter, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    from offloader.integrations.pydantic_ai import OffloadHistory
    from workspaces import LocalWorkspace

    seen: list[str] = []

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(ModelMessagesTypeAdapter.dump_json(messages).decode())
        if len(seen) == 1:
            return ModelResponse(parts=[ToolCallPart("run_build", {}, tool_call_id="build")])
        return ModelResponse(parts=[TextPart("done")])

    capabilities: list[Any] = []
    if hook == "offloader":
        capabilities = [OffloadHistory(LocalWorkspace(workdir), "bench").capability(tools=False)]
    agent = Agent(FunctionModel(model), capabilities=capabilities)

    @agent.tool_plain
    def run_build() -> str:
        """Run the build."""
        return LOG

    start = time.perf_counter()
    await agent.run("Why did the build fail?")
    return time.perf_counter() - start, seen[1]


async def agents_run(hook: str, workdir: str) -> tuple[float, str]:
    from agents import Agent, RunConfig, Runner, function_tool
    from agents.extensions import ToolOutputTrimmer
    from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call

    from offloader.integrations.openai_agents import OffloadModelInput
    from workspaces import LocalWorkspace

    @function_tool
    def run_build() -> str:
        """Run the build."""
        return LOG

    seen: list[str] = []

    def respond(reply: Any) -> Callable[[ModelCall], Any]:
        def step(call: ModelCall) -> Any:
            seen.append(json.dumps(call.input))  # what a real client serialises to send
            return [reply]

        return step

    model = ScriptedModel(
        [
            ModelStep.respond(respond(function_call("run_build", {}, call_id="build"))),
            ModelStep.respond(respond(assistant_message("done"))),
        ]
    )
    filters: dict[str, Any] = {
        "none": None,
        "ToolOutputTrimmer": ToolOutputTrimmer(),
        "offloader": OffloadModelInput(LocalWorkspace(workdir), "bench"),
    }
    config = RunConfig(call_model_input_filter=filters[hook], tracing_disabled=True)
    start = time.perf_counter()
    await Runner.run(Agent(name="b", model=model, tools=[run_build]), "Why did the build fail?", run_config=config)
    return time.perf_counter() - start, seen[1]


async def whole_runs(reps: int) -> list[str]:
    rows: dict[tuple[str, str], list[float]] = {}
    sent: dict[tuple[str, str], str] = {}
    cases: list[tuple[str, str, Callable[[str, str], Awaitable[tuple[float, str]]]]] = [
        ("Pydantic AI", "none", pydantic_run),
        ("Pydantic AI", "offloader", pydantic_run),
        ("Agents SDK", "none", agents_run),
        ("Agents SDK", "ToolOutputTrimmer", agents_run),
        ("Agents SDK", "offloader", agents_run),
    ]
    for _ in range(reps):
        for framework, hook, run in cases:
            with tempfile.TemporaryDirectory() as tmp:
                seconds, text = await run(hook, tmp)
            rows.setdefault((framework, hook), []).append(seconds)
            sent[(framework, hook)] = text
    out = [
        "| framework | hook | median run | vs no hook | characters sent on call 2 | failure line in them |",
        "|---|---|---|---|---|---|",
    ]
    for framework, hook, _ in cases:
        median = statistics.median(rows[(framework, hook)])
        base = statistics.median(rows[(framework, "none")])
        text = sent[(framework, hook)]
        out.append(
            f"| {framework} | {hook} | {median * 1000:.0f} ms | {median / base:.2f}x | {len(text):,} | "
            f"{'yes' if FAILURE in text else 'no'} |"
        )
    return out


async def hook_alone(reps: int) -> list[str]:
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolCallPart, ToolReturnPart, UserPromptPart

    from offloader.integrations.openai_agents import OffloadModelInput
    from offloader.integrations.pydantic_ai import OffloadHistory
    from workspaces import LocalWorkspace

    history: list[Any] = [
        ModelRequest(parts=[UserPromptPart("Why did the build fail?")]),
        ModelResponse(parts=[ToolCallPart("run_build", {}, tool_call_id="build")]),
        ModelRequest(parts=[ToolReturnPart("run_build", LOG, tool_call_id="build")]),
    ]
    items: list[Any] = [
        {"role": "user", "content": "Why did the build fail?"},
        {"type": "function_call", "call_id": "build", "name": "run_build", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "build", "output": LOG},
    ]
    makers: dict[str, tuple[Callable[[str], Any], Any]] = {
        "Pydantic AI `OffloadHistory`": (lambda d: OffloadHistory(LocalWorkspace(d), "bench"), history),
        "Agents SDK `OffloadModelInput.prepare`": (
            lambda d: OffloadModelInput(LocalWorkspace(d), "bench").prepare,
            items,
        ),
    }
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(reps):
        for name, (make, payload) in makers.items():
            with tempfile.TemporaryDirectory() as tmp:
                hook = make(tmp)
                for phase in ("first", "next", "restart"):
                    if phase == "restart":
                        hook = make(tmp)
                    start = time.perf_counter()
                    await hook(payload)
                    times.setdefault((name, phase), []).append(time.perf_counter() - start)
    out = ["| hook | first (offloads 5 MB) | next request | restart (new process) |", "|---|---|---|---|"]
    for name in makers:
        cells = [f"{statistics.median(times[(name, p)]) * 1000:.1f} ms" for p in ("first", "next", "restart")]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out


async def main(reps: int) -> None:
    print(f"Log: {len(LOG):,} characters; medians of {reps} runs.\n")
    print("\n".join(await whole_runs(reps)))
    print()
    print("\n".join(await hook_alone(reps)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5)
    anyio.run(main, parser.parse_args().reps)
