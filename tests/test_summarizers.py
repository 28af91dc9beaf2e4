"""Summarizers: the extractive default and the LLM adapter with scripted completion functions.

The completion functions here are scripted stand-ins for a model (no model can
run offline); they are real ``async (prompt) -> str`` callables, the exact
contract LLMSummarizer wraps.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Awaitable, Callable

import pytest

from offloader.compaction import (
    CallSummary,
    ExtractiveSummarizer,
    LLMSummarizer,
    Summarizer,
    ToolExchange,
    parse_summaries,
    summarizers,
)
from offloader.core.messages import JsonBlock, Message, TextBlock, ToolResultBlock

pytestmark = pytest.mark.anyio


def exchange(i: int, text: str = "ok", *, name: str = "bash", error: bool = False, **args: object) -> ToolExchange:
    return ToolExchange(f"call_{i}", name, dict(args), ToolResultBlock(f"call_{i}", name, (TextBlock(text),), error))


def scripted(*answers: str | Exception) -> tuple[Callable[[str], Awaitable[str]], list[str]]:
    """A completion function answering from a script, recording every prompt."""
    prompts: list[str] = []
    queue = list(answers)

    async def complete(prompt: str) -> str:
        prompts.append(prompt)
        answer = queue.pop(0) if queue else RuntimeError("script exhausted")
        if isinstance(answer, Exception):
            raise answer
        return answer

    return complete, prompts


def echo_ids(score: int | None = 7) -> Callable[[str], Awaitable[str]]:
    """A completion function answering every call id it is asked about."""

    async def complete(prompt: str) -> str:
        ids = [line.split(": ", 1)[1] for line in prompt.splitlines() if line.startswith("### tool_call_id: ")]
        entries = [
            {"tool_call_id": i, "summary": f"summary of {i}", **({"score": score} if score is not None else {})}
            for i in ids
        ]
        return json.dumps(entries)

    return complete


# ---------------------------------------------------------------- protocol


def test_both_summarizers_satisfy_the_protocol() -> None:
    assert isinstance(ExtractiveSummarizer(), Summarizer)
    assert isinstance(LLMSummarizer(echo_ids()), Summarizer)


# ---------------------------------------------------------------- extractive


async def test_extractive_summary_names_tool_arguments_size_and_outcome() -> None:
    log = "\n".join(f"compiling module {i}" for i in range(500)) + "\nERROR: link failed\n3 tests passed, 1 failed"
    (s,) = await ExtractiveSummarizer().summarize_calls([exchange(1, log, name="make", target="all")])
    assert s.id == "call_1" and len(s.summary) <= 200
    assert "make(target=all)" in s.summary
    assert "502 lines" in s.summary
    assert "ERROR: link failed" in s.summary and "3 tests passed, 1 failed" in s.summary


async def test_extractive_summary_describes_json_shape() -> None:
    data = {"items": [{"id": i, "name": f"n{i}"} for i in range(50)], "total": 50, "next": None}
    ex = ToolExchange("c", "api", {}, ToolResultBlock("c", "api", (JsonBlock(data),)))
    (s,) = await ExtractiveSummarizer().summarize_calls([ex])
    assert "JSON object with 3 keys: items: array[50], total: number, next: null" in s.summary


async def test_extractive_summaries_are_deterministic_and_bounded() -> None:
    calls = [exchange(i, "x" * (i * 5000), path="/a/" + "b" * 300) for i in range(1, 6)]
    first = await ExtractiveSummarizer().summarize_calls(calls)
    assert first == await ExtractiveSummarizer().summarize_calls(calls)
    assert all(len(s.summary) <= 200 and 0 <= s.score <= 10 for s in first)


async def test_extractive_scores_large_successes_above_errors_and_small_results() -> None:
    big, small = "row ok\n" * 3000, "done"
    s_big, s_small, s_err = await ExtractiveSummarizer().summarize_calls(
        [exchange(1, big), exchange(2, small), exchange(3, big, error=True)]
    )
    assert s_big.score > s_small.score and s_big.score > s_err.score


async def test_extractive_span_summary_lists_roles_tools_and_requests() -> None:
    msgs = [
        Message("user", (TextBlock("Deploy the app to staging"),)),
        Message("assistant", (TextBlock("Deployed; URL is https://staging"),)),
    ]
    text = await ExtractiveSummarizer().summarize_span(msgs)
    assert "2 messages" in text and "Deploy the app to staging" in text and "https://staging" in text


# ---------------------------------------------------------------- parser


@pytest.mark.parametrize(
    "raw",
    [
        '[{"tool_call_id": "a", "summary": "s", "score": 8}]',
        'Here you go:\n```json\n[{"tool_call_id": "a", "summary": "s", "score": 8}]\n```\nDone.',
        'Sure! [{"tool_call_id": "a", "summary": "s", "score": 8},] hope this helps',
        '{"results": [{"tool_call_id": "a", "summary": "s", "score": "8"}]}',
        '```\n[{"tool_call_id": "a", "summary": "s", "score": 8,},]\n```',
    ],
)
def test_parser_tolerates_fences_prose_trailing_commas_and_wrappers(raw: str) -> None:
    assert parse_summaries(raw) == [CallSummary("a", "s", 8)]


def test_parser_drops_entries_without_id_and_defaults_missing_score_to_5() -> None:
    raw = '[{"summary": "no id", "score": 9}, {"tool_call_id": "b", "summary": "x"}, {"id": "c", "score": 42}, 7]'
    assert parse_summaries(raw) == [CallSummary("b", "x", 5), CallSummary("c", "", 10)]


def test_parser_raises_on_no_json() -> None:
    with pytest.raises(ValueError, match="no JSON list"):
        parse_summaries("I cannot help with that.")


# ---------------------------------------------------------------- LLM adapter


async def test_llm_summarizer_batches_five_calls_per_request() -> None:
    prompts: list[str] = []
    inner = echo_ids()

    async def complete(prompt: str) -> str:
        prompts.append(prompt)
        return await inner(prompt)

    calls = [exchange(i, f"result {i}") for i in range(12)]
    out = await LLMSummarizer(complete).summarize_calls(calls, recent=[Message("user", (TextBlock("fix it"),))])
    assert [s.id for s in out] == [c.id for c in calls]
    assert [p.count("### tool_call_id:") for p in prompts] == [5, 5, 2]
    assert all("fix it" in p for p in prompts)
    assert {s.score for s in out} == {7} and not any(s.degraded for s in out)


async def test_llm_summarizer_defaults_missing_scores_to_5() -> None:
    out = await LLMSummarizer(echo_ids(score=None)).summarize_calls([exchange(1)])
    assert out[0].score == 5


async def test_llm_summarizer_retries_malformed_answers_then_succeeds() -> None:
    good = json.dumps([{"tool_call_id": "call_1", "summary": "fine", "score": 6}])
    complete, prompts = scripted("not json at all", RuntimeError("rate limited"), good)
    (s,) = await LLMSummarizer(complete).summarize_calls([exchange(1)])
    assert s == CallSummary("call_1", "fine", 6) and len(prompts) == 3


async def test_llm_summarizer_asks_again_only_for_missing_calls() -> None:
    first = json.dumps([{"tool_call_id": "call_1", "summary": "one", "score": 4}])
    second = json.dumps([{"tool_call_id": "call_2", "summary": "two", "score": 3}])
    complete, prompts = scripted(first, second)
    out = await LLMSummarizer(complete).summarize_calls([exchange(1), exchange(2)])
    assert [(s.id, s.summary) for s in out] == [("call_1", "one"), ("call_2", "two")]
    assert "call_1" not in prompts[1]


async def test_after_three_failures_a_call_gets_a_degraded_entry() -> None:
    text = "important output " * 100
    complete, prompts = scripted(RuntimeError("down"), "garbage", '[{"summary": "no id"}]')
    (s,) = await LLMSummarizer(complete).summarize_calls([exchange(1, text)])
    assert len(prompts) == 3
    assert s.degraded and s.score == 0 and s.summary == text[:300]


async def test_llm_summaries_are_clipped_to_200_characters() -> None:
    complete, _ = scripted(json.dumps([{"tool_call_id": "call_1", "summary": "y" * 500, "score": 9}]))
    (s,) = await LLMSummarizer(complete).summarize_calls([exchange(1)])
    assert len(s.summary) <= 200


async def test_llm_span_summary_falls_back_to_extractive_after_failures() -> None:
    complete, prompts = scripted(RuntimeError("a"), RuntimeError("b"), RuntimeError("c"))
    msgs = [Message("user", (TextBlock("Plan the migration"),))]
    text = await LLMSummarizer(complete).summarize_span(msgs)
    assert len(prompts) == 3 and "Plan the migration" in text


async def test_llm_span_summary_uses_the_model_answer() -> None:
    complete, prompts = scripted("The user planned a migration.")
    text = await LLMSummarizer(complete).summarize_span([Message("user", (TextBlock("Plan the migration"),))])
    assert text == "The user planned a migration." and "Plan the migration" in prompts[0]


def test_llm_summarizer_rejects_bad_configuration() -> None:
    with pytest.raises(ValueError):
        LLMSummarizer(echo_ids(), batch_size=0)


async def test_extractive_summaries_are_made_off_the_event_loop(monkeypatch: pytest.MonkeyPatch) -> None:
    # the signal engine reads every result: CPU work that must not block the loop
    threads: list[int] = []
    real = summarizers.outcome_lines

    def recording(text: str, limit: int = 3) -> tuple[list[str], bool]:
        threads.append(threading.get_ident())
        return real(text, limit)

    monkeypatch.setattr(summarizers, "outcome_lines", recording)
    calls = [exchange(i, f"step {i}\nERROR: disk full\n") for i in range(3)]
    summaries = await ExtractiveSummarizer().summarize_calls(calls)
    assert [s.id for s in summaries] == ["call_0", "call_1", "call_2"]
    assert len(threads) == 3 and threading.get_ident() not in threads
    assert len(set(threads)) == 1  # one worker-thread hop for the batch
