"""OpenAI Agents SDK with OffloadModelInput: a real ``Runner``, the SDK's own ``ScriptedModel``.

Each scripted step may look at the input it receives, as a real model would;
the model records every call, so the tests assert what the model saw: the
preview and the reference instead of the 5 MB log, then the failure line read
back with Grep or ``retrieve_offloaded_content``.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner
from agents import function_tool as sdk_function_tool
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call

from offloader.core.convert import to_message, to_tool_result
from offloader.core.messages import DataBlock, TextBlock, ToolCallBlock, ToolResultBlock
from offloader.core.shapes.responses import rebuild_item
from offloader.integrations.openai_agents import OffloadModelInput, WorkspaceSession, function_tool
from offloader.storage import InMemoryStorage
from tests import loop_support as loop
from workspaces import LocalWorkspace

pytestmark = pytest.mark.anyio


@sdk_function_tool
def run_build() -> str:
    """Run the build and return its log."""
    return loop.LOG


def _outputs(call: ModelCall) -> list[dict[str, Any]]:
    return [i for i in call.input if isinstance(i, dict) and i.get("type") == "function_call_output"]


def _script(read_back: str) -> ScriptedModel:
    """Turn 1: run the build. Turn 2: read the failure back by reference. Turn 3: answer."""

    def read(call: ModelCall) -> Any:
        ref = loop.reference_in(_outputs(call)[-1]["output"])
        return [function_call(read_back, loop.read_back_arguments(read_back, ref), call_id="call-read")]

    def answer(call: ModelCall) -> Any:
        line = next(x for x in _outputs(call)[-1]["output"].splitlines() if "ERROR test_" in x)
        return [assistant_message(f"The build failed: {line.strip()}")]

    return ScriptedModel(
        [
            [function_call("run_build", {}, call_id="call-build")],
            ModelStep.respond(read),
            ModelStep.respond(answer),
        ]
    )


@pytest.mark.parametrize("read_back", ["Grep", "retrieve_offloaded_content"])
async def test_three_turn_loop_sends_the_preview_and_reads_the_failure_back(tmp_path: Path, read_back: str) -> None:
    ws = LocalWorkspace(tmp_path / "ws")
    offload = OffloadModelInput(ws, "build-1", window=64_000)
    model = _script(read_back)
    agent = Agent(name="builder", model=model, tools=[run_build, *offload.function_tools()])
    config = RunConfig(call_model_input_filter=offload, tracing_disabled=True)
    session = WorkspaceSession(ws, "build-1")

    result = await Runner.run(agent, "Why did the build fail?", run_config=config, session=session)

    calls = model.calls
    assert len(calls) == 3
    second = json.dumps(calls[1].input)
    assert len(loop.LOG) >= loop.LOG_BYTES - 100 and len(second) < 20_000  # the preview, not the 5 MB
    assert "[Offloaded:" in second and "tool_result-call-build.txt" in second  # preview + reference
    assert loop.FAILURE in second  # the preview keeps the failure line
    read = _outputs(calls[2])[-1]
    assert read["call_id"] == "call-read" and loop.FAILURE in read["output"]
    assert len(json.dumps(calls[2].input)) < 30_000
    assert loop.FAILURE in str(result.final_output)
    # The SDK's own history still holds the whole log, untouched.
    own = [i for i in result.to_input_list() if isinstance(i, dict) and i.get("type") == "function_call_output"]
    assert own[0]["call_id"] == "call-build" and own[0]["output"] == loop.LOG
    kept = [i for i in await session.get_items() if i.get("type") == "function_call_output"]
    assert kept[0]["output"] == loop.LOG  # and so does the session
    stored = (tmp_path / "ws" / "sessions" / "build-1" / "tool_result-call-build.txt").read_text()
    assert stored == loop.LOG


def _conversation(turns: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [{"role": "developer", "content": "You fix builds."}]
    for t in range(turns):
        body = "\n".join(f"turn {t} line {i} " + "x" * 60 for i in range(600))
        items.append({"role": "user", "content": f"step {t}"})
        items.append(
            {
                "type": "function_call",
                "call_id": f"c{t}",
                "name": "shell",
                "arguments": json.dumps({"cmd": f"make {t}"}),
            }
        )
        items.append({"type": "function_call_output", "call_id": f"c{t}", "output": body})
        items.append(
            {
                "type": "message",
                "role": "assistant",
                "id": f"m{t}",
                "content": [
                    {
                        "type": "output_text",
                        "text": f"done {t}: " + "the step passed its checks; " * 40,
                        "annotations": [],
                    }
                ],
            }
        )
    return items


async def test_input_plus_one_turn_is_a_stable_prefix_and_the_input_is_untouched(tmp_path: Path) -> None:
    items = _conversation(12)
    before = json.dumps(items)
    offload = OffloadModelInput(LocalWorkspace(tmp_path / "ws"), "stable", compact=False, **loop.SMALL_PREVIEWS)
    outputs = [await offload.prepare(items[:end]) for end in range(5, len(items) + 1, 4)]
    assert json.dumps(items) == before
    for shorter, longer in itertools.pairwise(outputs):
        assert longer[: len(shorter)] == shorter
    assert all(isinstance(o, dict) for o in outputs[-1])
    assert json.dumps(outputs[-1]).count("[Offloaded:") == 12


async def _tight_window(tmp_path: Path, conversation: list[Any]) -> int:
    """A window the offloaded conversation overflows by the end (whatever the preview's size)."""
    probe = OffloadModelInput(
        LocalWorkspace(tmp_path / "probe"), "probe", window=loop.PROBE_WINDOW, **loop.SMALL_PREVIEWS
    )
    await probe.prepare(conversation)
    assert probe.last_compaction is not None
    return loop.window_to_overflow(probe.last_compaction)


async def test_compaction_of_responses_items_keeps_pairs_and_survives_a_restart(tmp_path: Path) -> None:
    items = _conversation(16)
    settings: dict[str, Any] = {"window": await _tight_window(tmp_path, items), **loop.SMALL_PREVIEWS}
    offload = OffloadModelInput(LocalWorkspace(tmp_path / "ws"), "compact", **settings)
    outputs, levels = [], []
    for end in range(5, len(items) + 1, 4):
        outputs.append(await offload.prepare(items[:end]))
        assert offload.last_compaction is not None
        levels.append(offload.last_compaction.level)
    assert "mild" in levels and {"aggressive", "emergency"} & set(levels)  # results replaced, then a cut
    for i in range(1, len(outputs)):
        if levels[i] == "none":
            assert outputs[i][: len(outputs[i - 1])] == outputs[i - 1]
    last = outputs[-1]
    assert len(last) < len(items) and last[0] == items[0]  # the developer message is kept
    calls = {i["call_id"] for i in last if i.get("type") == "function_call"}
    assert calls == {i["call_id"] for i in last if i.get("type") == "function_call_output"}
    again = OffloadModelInput(LocalWorkspace(tmp_path / "ws"), "compact", **settings)
    assert await again.prepare(items) == last
    # The compacted input runs through the SDK as the model's input.
    model = ScriptedModel([[assistant_message("fine")]])
    agent = Agent(name="a", model=model)
    result = await Runner.run(
        agent, items, run_config=RunConfig(call_model_input_filter=offload, tracing_disabled=True)
    )
    assert result.final_output == "fine" and len(json.dumps(model.calls[0].input)) < len(json.dumps(items)) // 4


async def test_structured_outputs_stay_structured_and_in_memory_storage_works() -> None:
    offload = OffloadModelInput(InMemoryStorage(), "mem", compact=False, max_result_tokens=300, preview_tokens=100)
    image = {"type": "input_image", "image_url": "https://example.invalid/chart.png"}
    output = [{"type": "input_text", "text": loop.LOG[:100_000]}, image]
    items = [
        {"type": "function_call", "call_id": "c", "name": "report", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c", "output": output},
    ]
    out = await offload.prepare(items)
    new = out[1]["output"]
    assert new[0]["type"] == "input_text" and new[0]["text"].startswith("[Offloaded:") and new[1] == image
    assert items[1]["output"] is output and output[0]["text"] == loop.LOG[:100_000]
    assert [t.name for t in offload.tools()] == ["retrieve_offloaded_content"]


async def test_function_tools_run_and_report_errors_as_text(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path / "ws")
    await ws.write_bytes("notes/a.txt", b"alpha\nbeta\n")
    grep = next(function_tool(t) for t in ws.tools() if t.name == "Grep")
    assert grep.name == "Grep" and grep.strict_json_schema is False
    found = await grep.on_invoke_tool(None, json.dumps({"pattern": "beta", "path": "notes"}))  # type: ignore[arg-type]
    assert "beta" in found
    bad = await grep.on_invoke_tool(None, "{not json")  # type: ignore[arg-type]
    assert bad.startswith("Error")


def test_converter_maps_responses_items_and_rebuilds_copies() -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "build", "arguments": '{"target": "all"}'}
    assert to_message(call).content == (ToolCallBlock("c1", "build", {"target": "all"}),)
    output = {"type": "function_call_output", "call_id": "c1", "output": "log"}
    assert to_message(output).role == "tool"
    assert to_tool_result(output) == ToolResultBlock("c1", "", (TextBlock("log"),))
    message = {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "see"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw=="},
        ],
    }
    canon = to_message(message)
    assert canon.role == "user" and isinstance(canon.content[1], DataBlock) and canon.content[1].data
    assert to_message({"role": "developer", "content": "rules"}).role == "system"
    assert to_message({"type": "reasoning", "id": "r1", "summary": []}).role == "assistant"
    edited = rebuild_item(message, {0: TextBlock("SEE")})
    assert edited["content"][0]["text"] == "SEE" and message["content"][0]["text"] == "see"
    assert json.loads(rebuild_item(call, {0: ToolCallBlock("c1", "build", {"target": "x"})})["arguments"]) == {
        "target": "x"
    }
    with pytest.raises(TypeError, match="Responses"):
        to_message({"type": "nonsense"})


def test_responses_parts_and_hosted_items_have_a_canonical_form() -> None:
    files = {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_file", "file_id": "file-1", "filename": "report.pdf"},
            {"type": "input_file", "file_data": "data:text/plain;base64,aGk=", "filename": "a.txt"},
            {"type": "input_image", "file_id": "file-2"},
        ],
    }
    blocks = to_message(files).content
    assert [b.type for b in blocks] == ["data", "data", "data"]
    assert blocks[0].url == "openai-file:file-1" and blocks[1].data == b"hi"  # type: ignore[union-attr]
    refusal = {"type": "message", "role": "assistant", "content": [{"type": "refusal", "refusal": "no"}]}
    assert to_message(refusal).content == (TextBlock("no"),)
    assert rebuild_item(refusal, {0: TextBlock("NO")})["content"][0] == {"type": "refusal", "refusal": "NO"}
    search = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
    assert to_message(search).content[0].type == "json"
    with pytest.raises(TypeError, match="Responses"):
        rebuild_item(search, {0: TextBlock("x")})
