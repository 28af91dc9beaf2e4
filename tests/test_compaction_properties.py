"""Property tests: whatever the conversation and window, compaction keeps every
tool call paired with its result and loses nothing (kept messages plus what the
references hold give back the original)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from offloader.compaction import CompactionPolicy, ContextCompactor
from offloader.tokens import HeuristicCounter
from tests.test_compaction_support import Call, Turn, build, pairing_errors, unrestorable
from workspaces import LocalWorkspace

_WORDS = st.sampled_from(["build", "ok", "ERROR", "test", "passed", "file.py", "λ", "数据", "{", "}", "\n"])


def _text(max_words: int) -> st.SearchStrategy[str]:
    return st.lists(_WORDS, min_size=1, max_size=max_words).map(" ".join)


@st.composite
def conversations(draw: st.DrawFn) -> list[Turn]:
    turns = []
    for t in range(draw(st.integers(1, 12))):
        calls = [
            Call(
                f"call_{t}_{k}",
                draw(st.sampled_from(["read", "grep", "bash"])),
                {"arg": draw(_text(draw(st.sampled_from([3, 400]))))},
                draw(_text(draw(st.sampled_from([5, 300, 1500])))),
                draw(st.booleans()),
            )
            for k in range(draw(st.integers(0, 3)))
        ]
        turns.append(
            Turn(draw(_text(draw(st.sampled_from([5, 2000])))), calls, draw(_text(20)) if draw(st.booleans()) else "")
        )
    return turns


async def _compact(
    turns: list[Turn],
    shape: str,
    fill: float,
    overflow: bool,
    policy: CompactionPolicy,
    extra: list[Turn],
    task_map: bool,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        async with LocalWorkspace(Path(tmp) / "ws") as ws:
            msgs = build(turns, shape)
            measure = ContextCompactor(ws, window=10**9, counter=HeuristicCounter())
            tokens = (await measure.compact("measure", msgs, system_tokens=0)).tokens_before
            window = max(1, int(tokens / fill))
            c = ContextCompactor(ws, window=window, counter=HeuristicCounter(), policy=policy, task_map=task_map)
            for conversation in (msgs, msgs + build(extra, shape, system=None)):
                before = json.dumps([repr(m) for m in conversation])
                result = await c.compact("s", conversation, system_tokens=0, overflow=overflow)
                assert json.dumps([repr(m) for m in conversation]) == before
                assert pairing_errors(result.messages) == []
                assert await unrestorable(ws, "s", conversation, result.messages) == []
                if result.target is not None and result.reason is None:
                    assert result.tokens_after < result.target
                assert any(m is conversation[0] for m in result.messages)  # the system message stays


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=conversations(),
    extra=conversations(),
    shape=st.sampled_from(["openai", "anthropic", "strands", "canonical"]),
    fill=st.sampled_from([0.3, 0.6, 0.7, 0.9, 0.97, 1.5, 4.0]),
    overflow=st.sampled_from([False, False, False, True]),
    protect=st.sampled_from([0.0, 0.3, 1.0]),
    keep=st.integers(1, 4),
    task_map=st.booleans(),
)
def test_compaction_keeps_pairs_and_loses_nothing(
    turns: list[Turn],
    extra: list[Turn],
    shape: str,
    fill: float,
    overflow: bool,
    protect: float,
    keep: int,
    task_map: bool,
) -> None:
    policy = CompactionPolicy(protect_recent_ratio=protect, min_messages_kept=keep)
    anyio.run(_compact, turns, shape, fill, overflow, policy, extra, task_map)
