"""The optional task map: a Mermaid flowchart of the task's steps, stored and injected."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from offloader.compaction import CompactionEntry, ContextCompactor
from offloader.compaction.taskmap import render_task_map, task_map_text
from offloader.core.convert import to_message
from offloader.tokens import HeuristicCounter
from tests.test_compaction_support import Call, Turn, build, log_lines, pairing_errors, scripted_turns
from workspaces import LocalWorkspace

COUNTER = HeuristicCounter()
pytestmark = pytest.mark.anyio


def _step(call_id: str, tool: str, summary: str, *, failed: bool = False) -> CompactionEntry:
    return CompactionEntry(call_id, tool, summary, 0, "collected", failed=failed)


@pytest.fixture
async def ws(tmp_path: Path) -> AsyncIterator[LocalWorkspace]:
    async with LocalWorkspace(tmp_path / "ws") as workspace:
        yield workspace


def test_one_node_per_step_with_done_doing_blocked_status() -> None:
    steps = [
        _step("1", "read", "read a.py"),
        _step("2", "test", 'ran "pytest"', failed=True),
        _step("3", "edit", "fixed"),
    ]
    source = render_task_map(steps)
    assert source.startswith("flowchart TD\n")
    assert '  S0["read: read a.py"]:::done' in source
    assert "  S1[\"test: ran 'pytest'\"]:::blocked" in source
    assert '  S2["edit: fixed"]:::doing' in source
    assert "  S0 --> S1" in source and "  S1 --> S2" in source


def test_the_meta_only_map_is_used_when_the_full_one_does_not_fit() -> None:
    steps = [_step(str(i), "bash", f"step {i} " + "details " * 20) for i in range(200)]
    full = task_map_text(steps, 10**6, COUNTER.count)
    assert full is not None and "S199" in full
    small = task_map_text(steps, 200, COUNTER.count)
    assert small is not None and "S1" not in small and "bash: 199 done" in small and "200 steps" in small
    assert COUNTER.count(small) <= 200
    assert task_map_text(steps, 5, COUNTER.count) is None


async def test_the_map_is_stored_and_injected_after_the_system_message(ws: LocalWorkspace) -> None:
    turns = [Turn(f"q{i}", [Call(f"c{i}", "build", {}, log_lines("b", 150), is_error=i == 3)], "ok") for i in range(12)]
    msgs = build(turns, "anthropic")  # Anthropic results carry an error flag
    measure = await ContextCompactor(ws, window=10**9, counter=COUNTER).compact("m", msgs, system_tokens=0)
    c = ContextCompactor(ws, window=int(measure.tokens_before / 0.7), counter=COUNTER, task_map=True)
    result = await c.compact("s", msgs, system_tokens=0)
    assert result.level == "mild"
    maps = [i for i, m in enumerate(result.messages) if to_message(m).text().startswith("[Task map |")]
    assert maps == [1] and result.messages[0] is msgs[0]
    stored = (await ws.read_bytes("sessions/s/taskmap.mmd")).decode()
    assert stored.startswith("flowchart TD") and stored in result.messages[1]["content"]
    assert ":::blocked" in stored  # the failed build
    assert COUNTER.count(result.messages[1]["content"]) <= result.window * 0.2
    assert not pairing_errors(result.messages)
    again = await c.compact("s", msgs, system_tokens=0)  # unchanged entries: the same map, the same bytes
    assert again.messages == result.messages


async def test_the_map_follows_the_cut_summary_and_never_splits_a_pair(ws: LocalWorkspace) -> None:
    from offloader.compaction import CompactionPolicy

    msgs = build(scripted_turns(20), "anthropic")
    measure = await ContextCompactor(ws, window=10**9, counter=COUNTER).compact("m", msgs, system_tokens=0)
    c = ContextCompactor(
        ws,
        window=int(measure.tokens_before / 1.0),
        counter=COUNTER,
        task_map=True,
        policy=CompactionPolicy(protect_recent_ratio=1.0),
    )
    result = await c.compact("s", msgs, system_tokens=0)
    texts: list[Any] = [to_message(m).text() for m in result.messages]
    summary = next(i for i, t in enumerate(texts) if t.startswith("[Compacted conversation"))
    assert texts[summary + 1].startswith("[Task map |")
    assert not pairing_errors(result.messages)


async def test_no_map_unless_asked(ws: LocalWorkspace) -> None:
    msgs = build(scripted_turns(12), "openai")
    result = await ContextCompactor(ws, window=20_000, counter=COUNTER).compact("s", msgs, system_tokens=0)
    assert not any("[Task map |" in str(m.get("content")) for m in result.messages)
    with pytest.raises(FileNotFoundError):
        await ws.read_bytes("sessions/s/taskmap.mmd")
