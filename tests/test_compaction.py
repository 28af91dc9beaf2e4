"""ContextCompactor: levels, shapes, stability, resumption (real LocalWorkspace files)."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from offloader.compaction import (
    MILD_MARKER,
    SUMMARY_MARKER,
    CallSummary,
    CompactionPolicy,
    ContextCompactor,
    ToolExchange,
)
from offloader.core.convert import to_message
from offloader.core.messages import Message, TextBlock, ToolCallBlock, ToolResultBlock
from offloader.tokens import HeuristicCounter
from tests.test_compaction_support import (
    SHAPES,
    Call,
    Turn,
    build,
    context_log,
    log_lines,
    pairing_errors,
    scripted_turns,
    unrestorable,
)
from workspaces import LocalWorkspace

pytestmark = pytest.mark.anyio
COUNTER = HeuristicCounter()


@pytest.fixture
async def ws(tmp_path: Path) -> AsyncIterator[LocalWorkspace]:
    async with LocalWorkspace(tmp_path / "ws") as workspace:
        yield workspace


def compactor(ws: Any, window: int, **kwargs: Any) -> ContextCompactor:
    return ContextCompactor(ws, window=window, counter=COUNTER, **kwargs)


async def tokens_of(ws: Any, messages: list[Any]) -> int:
    """Tokens of ``messages`` as the compactor counts them (a huge window: no compaction)."""
    result = await compactor(ws, 10**9).compact("measure", messages, system_tokens=0)
    return result.tokens_before


def serialise(messages: Sequence[Any]) -> list[str]:
    """The bytes a framework would send for each message (JSON, pydantic JSON or repr)."""
    out = []
    for m in messages:
        if isinstance(m, dict):
            out.append(json.dumps(m, sort_keys=True))
        elif hasattr(m, "model_dump_json"):
            out.append(m.model_dump_json())
        else:
            out.append(repr(m))
    return out


def texts(messages: Sequence[Any]) -> list[str]:
    out = []
    for m in messages:
        msg = to_message(m)
        out.append("\n".join([msg.text()] + [r.text() for r in msg.tool_results]))
    return out


# ---------------------------------------------------------------- policy


def test_policy_defaults_are_the_seed_thresholds() -> None:
    p = CompactionPolicy()
    assert (p.mild_ratio, p.aggressive_ratio, p.emergency_ratio, p.emergency_target_ratio) == (0.5, 0.85, 0.95, 0.6)
    assert (p.protect_recent_ratio, p.system_overhead_ratio, p.min_messages_kept) == (0.3, 0.12, 2)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"mild_ratio": 0.9},
        {"aggressive_ratio": 0.96},
        {"emergency_ratio": 1.1},
        {"mild_ratio": 0},
        {"emergency_target_ratio": 0.95},
        {"protect_recent_ratio": 1.5},
        {"min_messages_kept": 0},
    ],
)
def test_policy_rejects_inconsistent_thresholds(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        CompactionPolicy(**kwargs)


# ---------------------------------------------------------------- input validation


async def test_bad_arguments_raise_precise_errors(ws: LocalWorkspace) -> None:
    c = compactor(ws, 1000)
    with pytest.raises(TypeError, match="list of messages"):
        await c.compact("s", "hello")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="unsupported message"):
        await c.compact("s", [42])
    with pytest.raises(ValueError, match="empty"):
        await c.compact("", [])
    with pytest.raises(ValueError, match="window"):
        ContextCompactor(ws, window=0)
    with pytest.raises(ValueError, match="mode"):
        ContextCompactor(ws, mode="delete")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Offloader"):
        ContextCompactor(object())  # type: ignore[arg-type]


# ---------------------------------------------------------------- mild


async def test_under_the_mild_threshold_nothing_changes(ws: LocalWorkspace) -> None:
    msgs = build(scripted_turns(5), "openai")
    result = await compactor(ws, 10**7).compact("s", msgs)
    assert result.level == "none"
    assert all(a is b for a, b in zip(result.messages, msgs, strict=True))
    assert result.messages is not msgs
    assert result.tokens_after == result.tokens_before


async def test_mild_replaces_old_tool_results_by_reference_and_summary(ws: LocalWorkspace) -> None:
    msgs = build(scripted_turns(20), "openai")
    total = await tokens_of(ws, msgs)
    window = int(total / 0.7)
    result = await compactor(ws, window).compact("s", msgs, system_tokens=0)
    assert result.level == "mild"
    assert result.tokens_after < window * 0.5 <= result.tokens_before
    replaced = [
        m for m in result.messages if isinstance(m.get("content"), str) and m["content"].startswith(MILD_MARKER)
    ]
    assert replaced
    for msg in replaced:
        ref = msg["content"][len(MILD_MARKER) :].split("]", 1)[0]
        assert ref in result.references
        original = next(m for m in msgs if m.get("tool_call_id") == msg["tool_call_id"])
        assert (await ws.read_bytes(ref)).decode() == original["content"]
        assert "run_tests" in msg["content"] or "grep" in msg["content"]  # the summary names the tool
    assert not pairing_errors(result.messages)


async def test_mild_never_touches_the_newest_messages(ws: LocalWorkspace) -> None:
    msgs = build(scripted_turns(20), "openai")
    window = int(await tokens_of(ws, msgs) / 0.9)  # fill 0.9: mild alone cannot reach 0.5
    policy = CompactionPolicy(aggressive_ratio=0.95, emergency_ratio=0.99, protect_recent_ratio=0.7)
    result = await compactor(ws, window, policy=policy).compact("s", msgs, system_tokens=0)
    protected_from = len(msgs) - int(len(msgs) * 0.7 + 0.999)
    assert result.level == "mild"
    assert result.messages[protected_from:] == msgs[protected_from:]
    assert all(a is b for a, b in zip(result.messages[protected_from:], msgs[protected_from:], strict=True))
    assert result.reason is not None and "newest 70%" in result.reason


class ScoreBySize:
    """A real Summarizer: scores results by their size in KB (a test strategy, not a mock)."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def summarize_calls(
        self, calls: Sequence[ToolExchange], *, recent: Sequence[Message] = ()
    ) -> list[CallSummary]:
        self.seen += [c.id for c in calls]
        return [CallSummary(c.id, f"{c.name} summary", min(10, len(c.result_text) // 1000)) for c in calls]

    async def summarize_span(self, messages: Sequence[Message]) -> str:
        return f"{len(messages)} messages"


async def test_mild_replaces_highest_score_first_and_only_as_many_as_needed(ws: LocalWorkspace) -> None:
    turns = [
        Turn(f"q{i}", [Call(f"c{i}", "read", {"i": i}, log_lines(f"r{i}", 40 + 30 * (i % 4)))], "ok") for i in range(12)
    ]
    msgs = build(turns, "openai", system=None)
    total = await tokens_of(ws, msgs)
    window = int(total / 0.55)  # just over mild: a few replacements suffice
    result = await compactor(ws, window, summarizer=ScoreBySize()).compact("s", msgs, system_tokens=0)
    replaced = {m["tool_call_id"] for m in result.messages if str(m.get("content", "")).startswith(MILD_MARKER)}
    assert replaced
    sizes = {f"c{i}": 40 + 30 * (i % 4) for i in range(12)}
    # every replaced result is at least as large (scored) as every eligible one left alone
    eligible = [t.calls[0].id for t in turns[:8]]
    kept = [cid for cid in eligible if cid not in replaced]
    assert min(sizes[c] for c in replaced) >= max((sizes[c] for c in kept), default=0)
    # only as many as needed: undoing the last replacement would put the fill back over the threshold
    assert result.tokens_after < window * 0.5
    assert len(replaced) < len(eligible)


async def test_mild_shortens_the_paired_calls_large_arguments_keeping_id_and_name(ws: LocalWorkspace) -> None:
    turns = [
        Turn(f"q{i}", [Call(f"c{i}", "write", {"path": "a.py", "content": "x = 1\n" * 400}, log_lines("w", 150))], "ok")
        for i in range(12)
    ]
    msgs = build(turns, "anthropic")
    window = int(await tokens_of(ws, msgs) / 0.8)
    result = await compactor(ws, window).compact("s", msgs, system_tokens=0)
    shortened = [
        block
        for m in result.messages
        if m["role"] == "assistant" and isinstance(m["content"], list)
        for block in m["content"]
        if block.get("type") == "tool_use" and "full call in" in json.dumps(block["input"])
    ]
    assert shortened
    originals = {
        b["id"]: b for m in msgs if m["role"] == "assistant" for b in m["content"] if b.get("type") == "tool_use"
    }
    logged = {b.id: b for m in await context_log(ws, "s") for b in m.tool_calls}
    for block in shortened:
        assert block["name"] == originals[block["id"]]["name"]
        assert set(block["input"]) == set(originals[block["id"]]["input"])
        assert logged[block["id"]].input == originals[block["id"]]["input"]  # the full call is restorable
    assert not pairing_errors(result.messages)


class Degraded:
    """A Summarizer whose every entry is degraded (what LLMSummarizer yields after 3 failures)."""

    async def summarize_calls(
        self, calls: Sequence[ToolExchange], *, recent: Sequence[Message] = ()
    ) -> list[CallSummary]:
        return [CallSummary(c.id, c.result_text[:300], 0, degraded=True) for c in calls]

    async def summarize_span(self, messages: Sequence[Message]) -> str:
        return "span"


async def test_mild_never_replaces_with_a_degraded_summary(ws: LocalWorkspace) -> None:
    msgs = build(scripted_turns(12), "openai")
    window = int(await tokens_of(ws, msgs) / 0.7)
    result = await compactor(ws, window, summarizer=Degraded()).compact("s", msgs, system_tokens=0)
    assert result.level == "none"
    assert all(a is b for a, b in zip(result.messages, msgs, strict=True))
    assert result.reason is not None
    assert {e.status for e in result.entries} == {"collected"} and all(e.degraded for e in result.entries)


# ---------------------------------------------------------------- aggressive


async def test_aggressive_cuts_the_oldest_messages_into_one_summary(ws: LocalWorkspace) -> None:
    msgs = build(scripted_turns(20), "openai")
    window = int(await tokens_of(ws, msgs) / 0.9)
    policy = CompactionPolicy(protect_recent_ratio=1.0)  # mild may not help: force the cut
    result = await compactor(ws, window, policy=policy).compact("s", msgs, system_tokens=0)
    assert result.level == "aggressive"
    assert result.tokens_after < window * 0.85
    out = result.messages
    assert out[0] is msgs[0]  # the system message stays first
    summary = out[1]
    assert summary["role"] == "user" and summary["content"].startswith(SUMMARY_MARKER)
    ref = summary["content"][len(SUMMARY_MARKER) :].split("]", 1)[0]
    assert ref.endswith("sessions/s/context.jsonl") and ref in result.references
    assert sum(1 for m in out if str(m.get("content", "")).startswith(SUMMARY_MARKER)) == 1
    n_cut = len(msgs) - (len(out) - 1)
    logged = await context_log(ws, "s")
    assert [to_message(m) for m in msgs[1 : 1 + n_cut]] == logged  # the oldest, in order
    assert out[2:] == msgs[1 + n_cut :]
    assert not pairing_errors(out)


async def test_aggressive_keeps_the_last_user_message_and_system_message(ws: LocalWorkspace) -> None:
    # One user request, then a long tool loop: the request is the oldest non-system message.
    turns = scripted_turns(15)
    msgs = build(turns, "openai")
    request = msgs[1]
    loop = [m for m in msgs if m["role"] != "user" and m["role"] != "system"]
    msgs = [msgs[0], request, *loop]
    window = int(await tokens_of(ws, msgs) / 0.9)
    policy = CompactionPolicy(protect_recent_ratio=1.0)
    result = await compactor(ws, window, policy=policy).compact("s", msgs, system_tokens=0)
    assert result.level == "aggressive"
    assert any(m is request for m in result.messages)
    assert result.messages[0] is msgs[0]
    assert not pairing_errors(result.messages)


async def test_a_cut_never_separates_parallel_calls_from_their_results(ws: LocalWorkspace) -> None:
    # Two calls in one assistant message; their results in two later tool messages (OpenAI).
    turns = [
        Turn(f"q{i}", [Call(f"c{i}x", "a", {}, log_lines("x", 60)), Call(f"c{i}y", "b", {}, log_lines("y", 60))], "")
        for i in range(10)
    ]
    msgs = build(turns, "openai")
    for keep in range(2, 9):
        policy = CompactionPolicy(protect_recent_ratio=1.0, min_messages_kept=keep)
        window = int(await tokens_of(ws, msgs) / 0.9)
        result = await compactor(ws, window, policy=policy).compact(f"s{keep}", msgs, system_tokens=0)
        assert not pairing_errors(result.messages), keep


# ---------------------------------------------------------------- emergency


async def test_emergency_cuts_down_to_the_target(ws: LocalWorkspace) -> None:
    msgs = build(scripted_turns(20), "strands")
    window = int(await tokens_of(ws, msgs) / 1.2)
    policy = CompactionPolicy(protect_recent_ratio=1.0)  # mild may not help: force the cut
    result = await compactor(ws, window, policy=policy).compact("s", msgs, system_tokens=0)
    assert result.level == result.trigger == "emergency"
    assert result.target == int(window * 0.6)
    assert result.tokens_after < result.target and result.reason is None
    assert not pairing_errors(result.messages)
    assert await unrestorable(ws, "s", msgs, result.messages) == []


async def test_emergency_truncates_a_giant_message_in_place_with_a_reference(ws: LocalWorkspace) -> None:
    giant = "Here is the whole spec:\n" + "\n".join(
        f"requirement {i}: the system shall do thing {i}" for i in range(3000)
    )
    msgs = [{"role": "system", "content": "sys"}, {"role": "user", "content": giant}]
    window = int(await tokens_of(ws, msgs) / 1.5)
    result = await compactor(ws, window).compact("s", msgs, system_tokens=0)
    assert result.level == "emergency"
    assert len(result.messages) == 2 and result.messages[0] is msgs[0]
    text = result.messages[1]["content"]
    assert text.startswith("[Truncated message | original: ") and "requirement 0:" in text
    assert result.target is not None and result.tokens_after < result.target
    assert await unrestorable(ws, "s", msgs, result.messages) == []
    assert msgs[1]["content"] == giant


async def test_a_reported_overflow_forces_emergency_compaction(ws: LocalWorkspace) -> None:
    msgs = build(scripted_turns(10), "openai")
    window = int(await tokens_of(ws, msgs) / 0.3)  # our count says 30 %: the model disagreed
    result = await compactor(ws, window).compact("s", msgs, system_tokens=0, overflow=True)
    assert result.level == "emergency"
    assert result.tokens_after <= result.tokens_before * 0.8
    assert not pairing_errors(result.messages)


async def test_the_result_says_why_when_protected_messages_exceed_the_target(ws: LocalWorkspace) -> None:
    msgs = [{"role": "system", "content": "rules " * 4000}, {"role": "user", "content": "hi"}]
    result = await compactor(ws, 2000).compact("s", msgs, system_tokens=0)
    assert result.trigger == "emergency" and result.level == "none"
    assert result.tokens_after >= result.target  # type: ignore[operator]
    assert result.reason is not None and "may not remove" in result.reason
    assert result.messages[0] is msgs[0]


# ---------------------------------------------------------------- properties


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize(("fill", "protect", "marker"), [(0.7, 0.3, MILD_MARKER), (1.0, 1.0, SUMMARY_MARKER)])
async def test_output_has_the_callers_shape_and_untouched_messages_are_the_callers_objects(
    ws: LocalWorkspace, shape: str, fill: float, protect: float, marker: str
) -> None:
    msgs = build(scripted_turns(20, big_args=True), shape)
    window = int(await tokens_of(ws, msgs) / fill)
    policy = CompactionPolicy(protect_recent_ratio=protect)
    result = await compactor(ws, window, policy=policy).compact("s", msgs, system_tokens=0)
    originals = {id(m) for m in msgs}
    changed = [m for m in result.messages if id(m) not in originals]
    assert changed
    assert any(marker in t for t in texts(changed))
    for m in result.messages:
        assert type(m) is type(msgs[0])
        to_message(m)  # still a valid message of the caller's shape
    for m in changed:
        msg = to_message(m)
        if msg.text().startswith(SUMMARY_MARKER):
            assert msg.role == "user"
    assert not pairing_errors(result.messages)
    assert await unrestorable(ws, "s", msgs, result.messages) == []


@pytest.mark.parametrize("shape", SHAPES)
async def test_never_mutates_the_callers_list_or_messages(ws: LocalWorkspace, shape: str) -> None:
    msgs = build(scripted_turns(20, big_args=True), shape)
    snapshot = [to_message(m) for m in msgs]
    dumped = copy.deepcopy(msgs) if shape != "agentscope" else [m.model_dump() for m in msgs]
    listed = list(msgs)
    window = int(await tokens_of(ws, msgs) / 1.2)
    await compactor(ws, window).compact("s", msgs, system_tokens=0)
    assert msgs == listed and all(a is b for a, b in zip(msgs, listed, strict=True))
    assert [to_message(m) for m in msgs] == snapshot
    assert (copy.deepcopy(msgs) if shape != "agentscope" else [m.model_dump() for m in msgs]) == dumped


async def test_the_same_input_twice_gives_identical_output(tmp_path: Path) -> None:
    msgs = build(scripted_turns(20, big_args=True), "anthropic")
    outputs = []
    for name in ("a", "b"):
        async with LocalWorkspace(tmp_path / "shared") as ws:
            c = compactor(ws, 30_000)
            outputs.append((await c.compact(name, msgs, system_tokens=0)).messages)
            outputs.append((await c.compact(name, msgs, system_tokens=0)).messages)
    first = json.dumps(outputs[0]).replace("/sessions/a/", "/sessions/X/")
    assert all(
        json.dumps(o).replace(f"/sessions/{n}/", "/sessions/X/") == first for o, n in zip(outputs, "aabb", strict=True)
    )


@pytest.mark.parametrize("shape", ["openai", "agentscope"])
async def test_history_plus_a_new_turn_keeps_the_earlier_output_byte_identical(ws: LocalWorkspace, shape: str) -> None:
    c = compactor(ws, 40_000)
    history = build(scripted_turns(20), shape)
    first = await c.compact("s", history, system_tokens=0)
    assert first.level != "none"
    new_turn = build(scripted_turns(1, lines=5, start=100), shape, system=None)
    second = await c.compact("s", history + new_turn, system_tokens=0)
    assert second.level == "none"
    assert serialise(second.messages[: len(first.messages)]) == serialise(first.messages)
    assert second.messages[len(first.messages) :] == new_turn


async def test_a_replaced_message_stays_replaced_when_the_fill_drops(ws: LocalWorkspace) -> None:
    msgs = build(scripted_turns(20), "openai")
    c = compactor(ws, int(await tokens_of(ws, msgs) / 0.7))
    first = await c.compact("s", msgs, system_tokens=0)
    assert first.level == "mild"
    later = await c.compact("s", msgs[: len(msgs) - 10], system_tokens=0)  # fill now under mild
    assert later.level == "none"
    assert texts(later.messages) == texts(first.messages[: len(later.messages)])


async def test_a_new_process_resumes_with_the_same_decisions(tmp_path: Path) -> None:
    msgs = build(scripted_turns(20, big_args=True), "openai")
    async with LocalWorkspace(tmp_path / "ws") as ws:
        first = await compactor(ws, 30_000).compact("s", msgs, system_tokens=0)
    async with LocalWorkspace(tmp_path / "ws") as ws:  # another process: only the files remain
        assert json.loads(await ws.read_bytes("sessions/s/state.json"))["version"] == 1
        resumed = await compactor(ws, 30_000).compact("s", msgs, system_tokens=0)
        assert resumed.messages == first.messages
        assert resumed.level == "none" and resumed.references == ()
        ledger = [json.loads(line) for line in (await ws.read_bytes("sessions/s/ledger.jsonl")).decode().splitlines()]
    entries = [e for e in ledger if e.get("kind") == "compaction"]
    assert entries and {"tool_id", "tool", "summary", "score", "ref", "status", "time"} <= set(entries[0])
    assert {"mild", "deleted"} & {e["status"] for e in entries}


async def test_duplicate_tool_call_ids_are_recorded_once(ws: LocalWorkspace) -> None:
    turns = [
        Turn("q1", [Call("call_1", "read", {}, log_lines("first", 200))], "a"),
        Turn("q2", [Call("call-1", "read", {}, log_lines("first", 200))], "b"),  # same id after `_`/`-` folding
        Turn("q3", [Call("call_1", "read", {}, log_lines("other", 200))], "c"),  # id reused with new content
        *scripted_turns(8, lines=10),
    ]
    msgs = build(turns, "openai")
    c = ContextCompactor(ws, window=int(await tokens_of(ws, msgs) / 0.95), counter=COUNTER, mode="collect")
    result = await c.compact("s", msgs, system_tokens=0)
    ids = [e.id for e in result.entries]
    assert ids.count("call_1") + ids.count("call-1") == 1
    assert len(await c.state("s")) == len(ids)


async def test_collect_mode_records_summaries_and_never_changes_messages(ws: LocalWorkspace) -> None:
    msgs = build(scripted_turns(10), "openai")
    c = ContextCompactor(ws, window=1000, counter=COUNTER, mode="collect")
    result = await c.compact("s", msgs, system_tokens=0)
    assert result.level == "none" and result.trigger == "emergency"
    assert all(a is b for a, b in zip(result.messages, msgs, strict=True))
    assert len(result.entries) == sum(len(t.calls) for t in scripted_turns(10))
    assert {e.status for e in result.entries} == {"collected"}
    ledger = (await ws.read_bytes("sessions/s/ledger.jsonl")).decode()
    assert ledger.count('"status":"collected"') == len(result.entries)
    assert await context_log(ws, "s") == []


class CountingCounter(HeuristicCounter):
    """The heuristic counter, recording how many characters it was asked to count."""

    name = "counting"

    def __init__(self) -> None:
        self.chars = 0

    def count(self, text: str) -> int:
        self.chars += len(text)
        return super().count(text)


async def test_token_counts_are_cached_so_a_turn_costs_only_its_new_messages(ws: LocalWorkspace) -> None:
    counter = CountingCounter()
    c = ContextCompactor(ws, window=10**7, counter=counter)
    history = build(scripted_turns(30), "openai")
    await c.compact("s", history)
    cold = counter.chars
    counter.chars = 0
    new_turn = build(scripted_turns(1, lines=3, start=99), "openai", system=None)
    await c.compact("s", history + new_turn)
    assert 0 < counter.chars < cold / 50
    assert counter.chars < 2 * sum(len(json.dumps(m)) for m in new_turn)


async def test_an_unreadable_state_file_is_kept_and_compaction_starts_fresh(ws: LocalWorkspace) -> None:
    await ws.write_bytes("sessions/s/state.json", b"{not json")
    msgs = build(scripted_turns(20), "openai")
    result = await compactor(ws, 30_000).compact("s", msgs, system_tokens=0)
    assert result.level != "none"
    names = [f.path for f in await ws._list("sessions/s")]
    assert any(n.startswith("sessions/s/state.json.invalid-") for n in names)
    assert json.loads(await ws.read_bytes("sessions/s/state.json"))["version"] == 1


async def test_canonical_tool_result_blocks_keep_error_flags(ws: LocalWorkspace) -> None:
    turns = [
        Turn(f"q{i}", [Call(f"c{i}", "build", {}, log_lines("b", 150, error_at=3), is_error=True)], "")
        for i in range(8)
    ]
    msgs = build(turns, "canonical")
    result = await compactor(ws, int(await tokens_of(ws, msgs) / 0.7)).compact("s", msgs, system_tokens=0)
    replaced = [b for m in result.messages for b in m.tool_results if b.text().startswith(MILD_MARKER)]
    assert replaced and all(b.is_error for b in replaced)
    assert all("ERROR" in b.text() for b in replaced)  # the outcome line survives in the summary
    assert isinstance(result.messages[0], Message) and isinstance(replaced[0].content[0], TextBlock)
    assert all(
        isinstance(b, ToolCallBlock | TextBlock) for m in result.messages if m.role == "assistant" for b in m.content
    )
    assert all(isinstance(b, ToolResultBlock) for m in result.messages if m.role == "tool" for b in m.content)


@pytest.mark.parametrize("shape", SHAPES)
async def test_emergency_truncates_a_giant_recent_tool_result_keeping_the_pair(ws: LocalWorkspace, shape: str) -> None:
    turns = [Turn("Read the whole log.", [Call("c1", "read", {"path": "big.log"}, log_lines("big", 4000))], "")]
    msgs = build(turns, shape)
    window = int(await tokens_of(ws, msgs) / 2.0)
    result = await compactor(ws, window).compact("s", msgs, system_tokens=0)
    assert result.level == "emergency" and result.reason is None
    assert result.tokens_after < result.target  # type: ignore[operator]
    truncated = [r for m in result.messages for r in to_message(m).tool_results]
    assert len(truncated) == 1 and truncated[0].text().startswith("[Truncated tool result | ref: ")
    assert "big line 0:" in truncated[0].text()
    assert [e.status for e in result.entries] == ["truncated"]
    assert not pairing_errors(result.messages)
    assert await unrestorable(ws, "s", msgs, result.messages) == []
    again = await compactor(ws, window).compact("s", msgs, system_tokens=0)  # a new process replays it
    assert serialise(again.messages) == serialise(result.messages) and again.level == "none"


def test_the_example_compacts_a_scripted_conversation_offline() -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(
        [sys.executable, str(root / "examples" / "compaction.py")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if line.startswith("| ") and "trigger" not in line]
    assert [row.split(" | ")[1] for row in rows] == ["none", "mild", "aggressive", "emergency", "emergency"]
    assert "[Offloaded tool result | ref: $TMP/workspace/sessions/mild/tool_result-call_0.txt]" in done.stdout


async def test_mild_uses_llm_summaries_from_any_completion_function(ws: LocalWorkspace) -> None:
    from offloader.compaction import LLMSummarizer

    prompts: list[str] = []

    async def complete(prompt: str) -> str:  # a scripted model: answers for every call id it sees
        prompts.append(prompt)
        ids = [line.split(": ", 1)[1] for line in prompt.splitlines() if line.startswith("### tool_call_id: ")]
        return (
            "```json\n" + json.dumps([{"tool_call_id": i, "summary": f"model says {i} passed"} for i in ids]) + "\n```"
        )

    msgs = build(scripted_turns(20), "openai")
    c = compactor(ws, int(await tokens_of(ws, msgs) / 0.7), summarizer=LLMSummarizer(complete))
    result = await c.compact("s", msgs, system_tokens=0)
    replaced = [m["content"] for m in result.messages if str(m.get("content", "")).startswith(MILD_MARKER)]
    assert replaced and all("model says call_" in text for text in replaced)
    assert all(p.count("### tool_call_id:") <= 5 for p in prompts)
    assert {e.score for e in result.entries} == {5}  # the model gave no scores


@pytest.mark.parametrize("shape", ["openai", "anthropic", "agentscope"])
@pytest.mark.parametrize(("fill", "protect", "level"), [(0.7, 0.3, "mild"), (1.0, 1.0, "emergency")])
async def test_passing_the_compacted_list_back_changes_nothing(
    ws: LocalWorkspace, shape: str, fill: float, protect: float, level: str
) -> None:
    msgs = build(scripted_turns(20), shape)
    c = compactor(ws, int(await tokens_of(ws, msgs) / fill), policy=CompactionPolicy(protect_recent_ratio=protect))
    first = await c.compact("s", msgs, system_tokens=0)
    assert first.level == level
    again = await c.compact("s", first.messages, system_tokens=0)
    assert again.level == "none" and again.references == ()
    assert serialise(again.messages) == serialise(first.messages)


class ReferenceOnly:
    """An offloader with just the three protocol methods (no read/write): state stays in memory."""

    def __init__(self) -> None:
        self.results: dict[str, Any] = {}
        self.context: list[Any] = []

    async def offload_tool_result(self, session_id: str, tool_result: Any, **kwargs: Any) -> str:
        self.results[tool_result.id] = tool_result
        return f"mem://{session_id}/{tool_result.id}"

    async def offload_context(self, session_id: str, msgs: Sequence[Any], **kwargs: Any) -> str:
        self.context.extend(msgs)
        return f"mem://{session_id}/context"

    async def offload_data_block(self, block: Any, **kwargs: Any) -> Any:
        return block


async def test_any_offloader_works_without_persistence() -> None:
    store = ReferenceOnly()
    msgs = build(scripted_turns(20), "openai")
    c = ContextCompactor(store, window=20_000, counter=COUNTER)
    first = await c.compact("s", msgs, system_tokens=0)
    assert first.level != "none" and store.results
    assert "mem://s/" in json.dumps(first.messages)
    assert (await c.compact("s", msgs, system_tokens=0)).messages == first.messages
