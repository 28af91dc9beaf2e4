"""Pydantic AI with OffloadHistory: a real ``pydantic_ai.Agent``, pydantic-ai's own offline models.

``FunctionModel`` plays the model: each call looks at the messages it receives,
as a real model would, and every input is recorded so the tests can assert what
the model saw. ``TestModel`` calls every tool with arguments generated from its
schema, which proves the toolset's schemas pass pydantic-ai's machinery.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.models.test import TestModel

from offloader.core.convert import to_message, to_tool_result
from offloader.core.messages import TextBlock, ToolCallBlock, ToolResultBlock
from offloader.core.shapes.pydantic_ai import rebuild_message
from offloader.integrations.pydantic_ai import OffloadHistory
from offloader.storage import InMemoryStorage
from tests import loop_support as loop
from workspaces import LocalWorkspace

pytestmark = pytest.mark.anyio


def _dump(messages: list[ModelMessage]) -> str:
    return ModelMessagesTypeAdapter.dump_json(messages).decode()


def _scripted(read_back: str, seen: list[list[ModelMessage]]) -> FunctionModel:
    """Turn 1: run the build. Turn 2: read the failure back by reference. Turn 3: answer."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        if len(seen) == 1:
            return ModelResponse(parts=[ToolCallPart("run_build", {}, tool_call_id="call-build")])
        text = str(last.parts[0].content)
        if len(seen) == 2:
            args = loop.read_back_arguments(read_back, loop.reference_in(text))
            return ModelResponse(parts=[ToolCallPart(read_back, args, tool_call_id="call-read")])
        line = next(line for line in text.splitlines() if "ERROR test_" in line)
        return ModelResponse(parts=[TextPart(f"The build failed: {line.strip()}")])

    return FunctionModel(respond)


@pytest.mark.parametrize("read_back", ["Grep", "retrieve_offloaded_content"])
async def test_three_turn_loop_sends_the_preview_and_reads_the_failure_back(tmp_path: Path, read_back: str) -> None:
    history = OffloadHistory(LocalWorkspace(tmp_path / "ws"), "build-1", window=64_000)
    seen: list[list[ModelMessage]] = []
    agent = Agent(_scripted(read_back, seen), capabilities=[history.capability()])

    @agent.tool_plain
    def run_build() -> str:
        """Run the build and return its log."""
        return loop.LOG

    result = await agent.run("Why did the build fail?")

    assert len(seen) == 3
    second = _dump(seen[1])
    assert len(loop.LOG) >= loop.LOG_BYTES - 100 and len(second) < 20_000  # the preview, not the 5 MB
    assert "[Offloaded:" in second and "tool_result-call-build.txt" in second  # preview + reference
    assert loop.FAILURE in second  # the preview keeps the failure line
    read = seen[2][-1].parts[0]
    assert isinstance(read, ToolReturnPart) and read.tool_name == read_back
    assert loop.FAILURE in str(read.content) and len(_dump(seen[2])) < 30_000
    assert loop.FAILURE in result.output
    # The framework's own history still holds the whole log, untouched.
    returns = [p for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
    assert returns[0].tool_name == "run_build" and returns[0].content == loop.LOG
    stored = (tmp_path / "ws" / "sessions" / "build-1" / "tool_result-call-build.txt").read_text()
    assert stored == loop.LOG


async def test_a_caller_history_is_never_mutated_and_the_next_run_continues(tmp_path: Path) -> None:
    history = OffloadHistory(LocalWorkspace(tmp_path / "ws"), "build-2", window=64_000)
    seen: list[list[ModelMessage]] = []
    agent = Agent(_scripted("Grep", seen), capabilities=[history.capability()])

    @agent.tool_plain
    def run_build() -> str:
        """Run the build and return its log."""
        return loop.LOG

    first = await agent.run("Why did the build fail?")
    earlier = first.all_messages()
    snapshot = _dump(earlier)

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        return ModelResponse(parts=[TextPart("ok")])

    followup = Agent(FunctionModel(answer), capabilities=[history.capability()])
    await followup.run("Thanks", message_history=earlier)
    assert _dump(earlier) == snapshot  # the caller's messages are unchanged
    sent = _dump(seen[-1])
    assert loop.FAILURE in sent and len(sent) < 40_000 and loop.LOG not in sent
    # What was sent for the first run's last request is a prefix of what was sent now.
    assert _dump(seen[2]).rstrip("]") in sent


def _conversation(turns: int) -> list[ModelMessage]:
    """A long conversation: each turn a user prompt, a tool call and a 40 KB tool return."""
    messages: list[ModelMessage] = [ModelRequest(parts=[SystemPromptPart("You fix builds."), UserPromptPart("Go")])]
    for t in range(turns):
        body = "\n".join(f"turn {t} line {i} " + "x" * 60 for i in range(600))
        messages.append(
            ModelResponse(
                parts=[TextPart(f"step {t}"), ToolCallPart("shell", {"cmd": f"make {t}"}, tool_call_id=f"c{t}")]
            )
        )
        messages.append(ModelRequest(parts=[ToolReturnPart("shell", body, tool_call_id=f"c{t}")]))
        messages.append(ModelResponse(parts=[TextPart(f"done {t}: " + "the step passed its checks; " * 40)]))
        messages.append(ModelRequest(parts=[UserPromptPart(f"next {t}")]))
    return messages


async def test_history_plus_one_turn_is_a_stable_prefix(tmp_path: Path) -> None:
    messages = _conversation(12)
    history = OffloadHistory(LocalWorkspace(tmp_path / "ws"), "stable", compact=False, **loop.SMALL_PREVIEWS)
    before = _dump(messages)
    outputs = [await history(messages[:end]) for end in range(5, len(messages) + 1, 4)]  # each ends in a request
    assert _dump(messages) == before  # never mutated
    assert all(_dump(out).count("[Offloaded:") == (len(out) - 1) // 4 for out in outputs)
    for shorter, longer in itertools.pairwise(outputs):
        assert longer[: len(shorter)] == shorter


async def _tight_window(tmp_path: Path, conversation: list[Any]) -> int:
    """A window the offloaded conversation overflows by the end (whatever the preview's size)."""
    probe = OffloadHistory(LocalWorkspace(tmp_path / "probe"), "probe", window=loop.PROBE_WINDOW, **loop.SMALL_PREVIEWS)
    await probe(conversation)
    assert probe.last_compaction is not None
    return loop.window_to_overflow(probe.last_compaction)


async def test_compaction_keeps_the_prefix_between_its_steps_and_survives_a_restart(tmp_path: Path) -> None:
    messages = _conversation(16)
    settings: dict[str, Any] = {"window": await _tight_window(tmp_path, messages), **loop.SMALL_PREVIEWS}
    history = OffloadHistory(LocalWorkspace(tmp_path / "ws"), "stable", **settings)
    outputs, levels = [], []
    for end in range(5, len(messages) + 1, 4):
        outputs.append(await history(messages[:end]))
        assert history.last_compaction is not None
        levels.append(history.last_compaction.level)
    assert "mild" in levels and {"aggressive", "emergency"} & set(levels)  # results replaced, then a cut
    quiet = [i for i in range(1, len(outputs)) if levels[i] == "none"]
    assert len(quiet) >= 3
    for i in quiet:  # no new compaction step: the previous output is a prefix of this one
        assert outputs[i][: len(outputs[i - 1])] == outputs[i - 1]
    # A new process (fresh offloader and compactor, same workspace) sends the same thing.
    again = OffloadHistory(LocalWorkspace(tmp_path / "ws"), "stable", **settings)
    assert await again(messages) == outputs[-1]
    last = outputs[-1]
    assert len(last) < len(messages)
    assert isinstance(last[-1], ModelRequest)
    assert isinstance(last[0], ModelRequest) and isinstance(last[0].parts[0], SystemPromptPart)
    # Every tool call sent still has its return (compaction never splits a pair).
    calls = {p.tool_call_id for m in last for p in m.parts if isinstance(p, ToolCallPart)}
    returns = {p.tool_call_id for m in last for p in m.parts if isinstance(p, ToolReturnPart)}
    assert calls == returns
    ModelMessagesTypeAdapter.validate_json(_dump(last))  # pydantic-ai's own types, serialisable


async def test_compacted_history_runs_through_a_real_agent(tmp_path: Path) -> None:
    history = OffloadHistory(
        LocalWorkspace(tmp_path / "ws"),
        "agent",
        window=await _tight_window(tmp_path, _conversation(16)),
        max_result_tokens=800,
        preview_tokens=200,
    )
    seen: list[list[ModelMessage]] = []

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        return ModelResponse(parts=[TextPart("fine")])

    agent = Agent(FunctionModel(answer), capabilities=[history.capability()])
    earlier = _conversation(16)
    result = await agent.run("And now?", message_history=earlier)
    assert result.output == "fine"
    assert len(_dump(seen[0])) < len(_dump(earlier)) // 4
    assert len(result.all_messages()) == len(earlier) + 2  # the run's history keeps everything


async def test_process_history_capability_and_in_memory_storage() -> None:
    history = OffloadHistory(InMemoryStorage(), "mem", compact=False, max_result_tokens=300, preview_tokens=100)
    seen: list[list[ModelMessage]] = []

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        if len(seen) == 1:
            return ModelResponse(parts=[ToolCallPart("run_build", {}, tool_call_id="b")])
        return ModelResponse(parts=[TextPart("done")])

    agent = Agent(FunctionModel(respond), capabilities=[ProcessHistory(history)], toolsets=[history.toolset()])

    @agent.tool_plain
    def run_build() -> str:
        """Run the build."""
        return loop.LOG[:200_000]

    result = await agent.run("build")
    assert "[Offloaded:" in _dump(seen[1]) and len(_dump(seen[1])) < 10_000
    assert [t.name for t in history.tools()] == ["retrieve_offloaded_content"]
    # ProcessHistory writes the processed list back: the run's history then holds the preview.
    returns = [p for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)]
    assert str(returns[0].content).startswith("[Offloaded:")


async def test_every_tool_survives_test_model_generated_arguments(tmp_path: Path) -> None:
    history = OffloadHistory(LocalWorkspace(tmp_path / "ws"), "tm")
    agent = Agent(TestModel(), capabilities=[history.capability()])
    result = await agent.run("try every tool")
    called = {p.tool_name for m in result.all_messages() for p in m.parts if isinstance(p, ToolReturnPart)}
    assert called == {"Read", "Grep", "Glob", "retrieve_offloaded_content"}


def test_converter_maps_pydantic_ai_messages_and_rebuilds_copies() -> None:
    request = ModelRequest(
        parts=[
            SystemPromptPart("sys"),
            UserPromptPart(["look", BinaryContent(b"\x89PNG", media_type="image/png")]),
            ToolReturnPart("build", {"status": "failed"}, tool_call_id="c1", outcome="failed"),
        ]
    )
    canon = to_message(request)
    assert canon.role == "system"
    assert [b.type for b in canon.content] == ["text", "text", "data", "tool_result"]
    result = canon.content[3]
    assert isinstance(result, ToolResultBlock) and result.is_error and result.name == "build"
    response = ModelResponse(
        parts=[
            TextPart("hi", id="t1", provider_name="openai"),
            ToolCallPart("build", '{"target": "all"}', tool_call_id="c1"),
        ]
    )
    assert to_message(response).content[1] == ToolCallBlock("c1", "build", {"target": "all"})
    edited = rebuild_message(response, {0: TextBlock("short"), 1: ToolCallBlock("c1", "build", {"target": "x"})})
    assert edited.parts[0].content == "short" and edited.parts[0].id is None
    assert edited.parts[1].args == {"target": "x"} and response.parts[1].args == '{"target": "all"}'
    user = rebuild_message(request, {1: TextBlock("LOOK")})
    assert user.parts[1].content[0] == "LOOK" and request.parts[1].content[0] == "look"
    assert to_tool_result(ToolReturnPart("t", "x", tool_call_id="i")) == ToolResultBlock("i", "t", (TextBlock("x"),))


def _blocked(module: str) -> str:
    return (
        "import sys\n"
        "class Block:\n"
        f"    def find_spec(self, name, path=None, target=None):\n"
        f"        if name == {module!r} or name.startswith({module!r} + '.'):\n"
        "            raise ImportError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
    )


@pytest.mark.parametrize(
    ("module", "framework", "extra"),
    [
        ("offloader.integrations.pydantic_ai", "pydantic_ai", "pydantic-ai"),
        ("offloader.integrations.openai_agents", "agents", "openai-agents"),
        ("offloader.integrations.openai_agents_session", "agents", "openai-agents"),
    ],
)
def test_a_missing_extra_names_the_install_command(module: str, framework: str, extra: str) -> None:
    code = _blocked(framework) + f"import {module}\n"
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("offloader.core.extras.MissingExtra:") and f"pip install 'offloader[{extra}]'" in last
    lazy = subprocess.run(
        [sys.executable, "-c", _blocked(framework) + "import offloader, workspaces\n"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert lazy.returncode == 0, lazy.stderr  # the core never needs the framework


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_the_processor_works_under_trio(anyio_backend: str, tmp_path: Path) -> None:
    history = OffloadHistory(LocalWorkspace(tmp_path / "ws"), "trio", max_result_tokens=300, preview_tokens=100)
    messages = _conversation(2)
    out = await history(messages)
    assert _dump(out).count("[Offloaded:") == 2 and out[0] is messages[0]


def test_every_part_kind_has_a_canonical_form_and_unknown_parts_are_kept() -> None:
    from pydantic_ai.messages import FilePart, ImageUrl, RetryFeedbackPart, RetryInfo, ThinkingPart

    response = ModelResponse(
        parts=[
            ThinkingPart("let me think"),
            FilePart(BinaryContent(b"GIF89a", media_type="image/gif")),
            TextPart("here"),
        ]
    )
    canon = to_message(response)
    assert canon.role == "assistant" and [b.type for b in canon.content] == ["text", "data", "text"]
    request = ModelRequest(
        parts=[
            UserPromptPart([ImageUrl("https://example.invalid/a.png"), "what is it?"]),
            ToolReturnPart("shell", "exit 2", tool_call_id="r1", outcome="retried"),
            RetryFeedbackPart("answer in JSON", retry=RetryInfo(cause="model_retry")),
        ]
    )
    canon = to_message(request)
    assert canon.role == "user"
    image = canon.content[0]
    assert image.type == "data" and image.url == "https://example.invalid/a.png"  # type: ignore[union-attr]
    assert canon.content[2] == ToolResultBlock("r1", "shell", (TextBlock("exit 2"),), is_error=True)
    assert "answer in JSON" in canon.content[3].text  # type: ignore[union-attr]  # as the model reads it
    # Editing the tool result through the compactor's rebuild keeps every other part as it was.
    edited = rebuild_message(request, {2: ToolResultBlock("r1", "shell", (TextBlock("[offloaded]"),), True)})
    assert edited.parts[1].content == "[offloaded]" and edited.parts[1].outcome == "retried"
    assert edited.parts[0] is request.parts[0] and edited.parts[2] is request.parts[2]
    assert request.parts[1].content == "exit 2"
