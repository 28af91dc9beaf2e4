"""Strands Agents with OffloaderPlugin: a 20,000-line deploy log never enters the context.

The plugin stores the tool result in a workspace and leaves a preview (head,
error lines, tail) plus a reference; the model then asks
``retrieve_offloaded_content`` for just the lines it needs. The model is a
scripted stand-in for a real one (no API key needed). Run::

    python examples/strands_plugin.py [--workdir DIR]

Install (from a checkout): ``pip install -e '.[strands]'``.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
from collections.abc import AsyncGenerator
from typing import Any

import anyio
from strands import Agent, tool
from strands.models.model import Model

from offloader.integrations.strands import OffloaderPlugin
from workspaces import LocalWorkspace


@tool
def fetch_deploy_log() -> str:
    """Fetch the log of the last deployment."""
    lines = [f"step {i:05d} rollout node-{i % 40} ok" for i in range(1, 20_001)]
    lines[4186] = "step 04187 rollout node-27 FAILED: certificate expired"
    return "\n".join(lines)


class ScriptedModel(Model):
    """Stands in for an LLM: streams one tool call or answer per turn, chosen from what it sees."""

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> dict[str, Any]:
        return {}

    async def structured_output(
        self, output_model: Any, prompt: Any, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[dict[str, Any], None]:
        raise NotImplementedError
        yield {}

    async def stream(
        self, messages: Any, tool_specs: Any = None, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[Any, None]:
        results = [b["toolResult"] for m in messages for b in m["content"] if "toolResult" in b]
        seen = "\n".join(c.get("text", "") for r in results for c in r["content"])
        yield {"messageStart": {"role": "assistant"}}
        if not results:
            step: tuple[str, dict[str, Any]] | str = ("fetch_deploy_log", {})
        elif len(results) == 1:
            ref = re.findall(r"^  (\S+) \(text/plain", seen, re.M)[-1]
            step = ("retrieve_offloaded_content", {"reference": ref, "pattern": "FAILED", "context_lines": 1})
        else:
            found = re.search(r"step (\d+) rollout node-\d+ FAILED: ([a-z ]+)", seen)
            assert found
            step = f"The deploy failed at step {int(found[1])}: {found[2]}."
        if isinstance(step, str):
            yield {"contentBlockDelta": {"delta": {"text": step}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": f"call-{step[0]}", "name": step[0]}}}}
        yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(step[1])}}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


async def main(workdir: str) -> None:
    async with LocalWorkspace(workdir) as ws:
        plugin = OffloaderPlugin(ws, max_result_tokens=2_500, preview_tokens=600)
        agent = Agent(model=ScriptedModel(), tools=[fetch_deploy_log], plugins=[plugin], callback_handler=None)
        answer = await agent.invoke_async("Why did the deploy fail?")
        for msg in agent.messages:
            for block in msg["content"]:
                if "toolResult" in block:
                    text = "".join(c.get("text", "") for c in block["toolResult"]["content"])
                    print(f"--- {block['toolResult']['toolUseId']}: {len(text):,} characters in context")
                    print(text[:500] + (" ..." if len(text) > 500 else ""))
        print("--- answer:", str(answer).strip())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default=None, help="workspace folder (default: a temporary one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        anyio.run(main, args.workdir or tmp)
