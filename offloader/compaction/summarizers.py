"""Summaries for compaction: a protocol, an extractive default and an LLM adapter.

The compactor asks a :class:`Summarizer` two things: a short summary (at most
200 characters) plus a *replaceability score* 0-10 for each tool call it may
replace (higher = the summary stands in for the full result better, so it goes
first), and a summary of a span of messages it cuts away.

:class:`ExtractiveSummarizer` needs no model and is deterministic, so the same
conversation always compacts to the same bytes. :class:`LLMSummarizer` wraps
any ``async (prompt) -> str`` completion function, batches calls, tolerates
sloppy JSON and degrades (score 0, never used to replace) instead of failing.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import anyio.to_thread

from offloader.core.messages import JsonBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock
from offloader.signal import json_shape, outcome_lines

__all__ = [
    "MAX_SUMMARY_CHARS",
    "CallSummary",
    "ExtractiveSummarizer",
    "LLMSummarizer",
    "Summarizer",
    "ToolExchange",
    "parse_summaries",
]

_log = logging.getLogger(__name__)

MAX_SUMMARY_CHARS = 200
_DEGRADED_CHARS = 300


@dataclass(frozen=True, slots=True)
class ToolExchange:
    """One tool call with its result, as handed to a summarizer."""

    id: str
    name: str
    arguments: dict[str, Any]
    result: ToolResultBlock

    @property
    def result_text(self) -> str:
        return self.result.text()


@dataclass(frozen=True, slots=True)
class CallSummary:
    """A summary of one tool call. ``degraded`` entries are never used to replace."""

    id: str
    summary: str
    score: int
    degraded: bool = False


@runtime_checkable
class Summarizer(Protocol):
    """What the compactor needs from a summarizer."""

    async def summarize_calls(
        self, calls: Sequence[ToolExchange], *, recent: Sequence[Message] = ()
    ) -> list[CallSummary]:
        """One :class:`CallSummary` per call (same ids), summaries <= 200 characters."""
        ...

    async def summarize_span(self, messages: Sequence[Message]) -> str:
        """A short summary of messages that leave the context."""
        ...


# ---------------------------------------------------------------- extractive


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: max(0, limit - 1)] + "…"


def _short(value: Any, limit: int = 40) -> str:
    rendered = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return _clip(rendered, limit)


def _result_json(result: ToolResultBlock, text: str) -> Any:
    for block in result.content:
        if isinstance(block, JsonBlock):
            return block.data
    stripped = text.strip()
    if stripped[:1] in "[{" and len(stripped) < 2_000_000:
        try:
            return json.loads(stripped)
        except ValueError:
            return None
    return None


class ExtractiveSummarizer:
    """Deterministic summaries without a model.

    A call's summary names the tool and its key arguments, the result size, its
    outcome lines (errors first, then counts/status) and, for JSON, its shape.
    The score favours large, successful results (their summary plus reference
    replaces them well) over small ones and errors (the agent likely needs the
    exact text).
    """

    async def summarize_calls(
        self, calls: Sequence[ToolExchange], *, recent: Sequence[Message] = ()
    ) -> list[CallSummary]:
        """Each call's summary, made in one worker thread: reading every result with the signal engine
        is CPU work (about 0.9 ms per result of a few KB, 0.3 s for a cold compaction of 333 results)."""
        if not calls:
            return []
        return await anyio.to_thread.run_sync(lambda: [self.summarize_call(call) for call in calls])

    def summarize_call(self, call: ToolExchange) -> CallSummary:
        text = call.result_text
        args = ", ".join(f"{k}={_short(v, 30)}" for k, v in list(call.arguments.items())[:3])
        n_lines = text.count("\n") + 1 if text else 0
        parts = [f"{call.name}({args})" if call.name else f"call {call.id}"]
        parts.append(f"{'error, ' if call.result.is_error else ''}{n_lines} lines, {len(text)} chars")
        data = _result_json(call.result, text)
        failing = call.result.is_error
        if data is not None:
            parts.append(json_shape(data, max_keys=6))
        elif text:
            lines, failed = outcome_lines(text, limit=2)
            failing = failing or failed
            if lines:
                parts.append(" | ".join(_clip(line, 70) for line in lines))
        summary = _clip("; ".join(parts), MAX_SUMMARY_CHARS)
        return CallSummary(call.id, summary, _score(text, data is not None, failing))

    async def summarize_span(self, messages: Sequence[Message]) -> str:
        return span_summary(messages)


def _score(text: str, is_json: bool, failing: bool) -> int:
    size = len(text)
    score = 3 + (size > 2_000) * 2 + (size > 8_000) * 2 + (size > 40_000) + is_json
    if failing:
        score -= 3
    return max(0, min(10, score))


def span_summary(messages: Sequence[Message], limit: int = 1_200) -> str:
    """Deterministic summary of a span: roles, tools used, first request, last reply."""
    roles: dict[str, int] = {}
    tools: dict[str, int] = {}
    errors = 0
    first_user = last_assistant = ""
    for msg in messages:
        roles[msg.role] = roles.get(msg.role, 0) + 1
        for block in msg.content:
            if isinstance(block, ToolCallBlock):
                tools[block.name] = tools.get(block.name, 0) + 1
            elif isinstance(block, ToolResultBlock) and block.is_error:
                errors += 1
        text = msg.text().strip()
        if text and msg.role == "user" and not first_user:
            first_user = text
        if text and msg.role == "assistant":
            last_assistant = text
    parts = [f"{len(messages)} messages (" + ", ".join(f"{n} {r}" for r, n in sorted(roles.items())) + ")"]
    if tools:
        ranked = sorted(tools.items(), key=lambda t: (-t[1], t[0]))[:8]
        parts.append("tools: " + ", ".join(f"{name} x{n}" for name, n in ranked))
    if errors:
        parts.append(f"{errors} tool errors")
    if first_user:
        parts.append("first request: " + _clip(first_user, 300))
    if last_assistant:
        parts.append("last reply: " + _clip(last_assistant, 300))
    return _clip("; ".join(parts), limit)


# ---------------------------------------------------------------- LLM adapter

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",\s*([\]}])")


def _loads_lenient(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return json.loads(_TRAILING_COMMA.sub(r"\1", text))


def parse_summaries(raw: str) -> list[CallSummary]:
    """Parse a model's answer into summaries, tolerating common sloppiness.

    Tries plain JSON, then fenced code blocks, then the text between the first
    ``[`` and the last ``]``; each with trailing commas removed if needed.
    Accepts a list or ``{"results": [...]}``. Entries without a call id are
    dropped; a missing or non-numeric score becomes 5; scores clamp to 0-10.
    Raises ValueError when nothing parses.
    """
    candidates = [raw.strip()]
    candidates += [m.group(1).strip() for m in _FENCE.finditer(raw)]
    start, end = raw.find("["), raw.rfind("]")
    if 0 <= start < end:
        candidates.append(raw[start : end + 1])
    for candidate in candidates:
        try:
            data = _loads_lenient(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            data = next((v for v in data.values() if isinstance(v, list)), [data])
        if isinstance(data, list):
            return [entry for item in data if (entry := _entry(item)) is not None]
    raise ValueError(f"no JSON list of summaries in the model's answer: {raw[:120]!r}")


def _entry(item: Any) -> CallSummary | None:
    if not isinstance(item, dict):
        return None
    call_id = item.get("tool_call_id") or item.get("id") or item.get("call_id")
    if not call_id:
        return None
    raw_score = item.get("score")
    try:
        score = 5 if raw_score is None or isinstance(raw_score, bool) else round(float(raw_score))
    except (TypeError, ValueError):
        score = 5
    summary = _clip(str(item.get("summary") or ""), MAX_SUMMARY_CHARS)
    return CallSummary(str(call_id), summary, max(0, min(10, score)))


_CALLS_PROMPT = """You compress an AI agent's context. For each tool call below, write a summary
(at most 200 characters) that keeps what the agent needs later (facts, numbers, paths,
errors), and a replaceability score 0-10: how well the summary can replace the full
result (10 = the full result is no longer needed).
Answer with a JSON array only: [{{"tool_call_id": "...", "summary": "...", "score": 7}}]

## recent conversation
{recent}

## tool calls
{calls}"""

_SPAN_PROMPT = """Summarise these earlier messages of an AI agent's conversation in at most
{limit} characters: the user's goals, decisions, results and open problems. Plain text only.

{messages}"""


@dataclass
class LLMSummarizer:
    """Summaries from any ``async (prompt: str) -> str`` completion function.

    ``batch_size`` calls per request (default 5); each batch is tried
    ``attempts`` times (default 3), asking again only for the calls still
    missing; calls never answered get a degraded entry (score 0, the first 300
    characters of the result) that mild compaction never uses to replace. Span
    summaries fall back to the extractive one after the same number of failures.
    """

    complete: Callable[[str], Awaitable[str]]
    batch_size: int = 5
    attempts: int = 3
    result_chars: int = 2_000
    span_chars: int = 1_200
    _fallback: ExtractiveSummarizer = field(default_factory=ExtractiveSummarizer, repr=False)

    def __post_init__(self) -> None:
        if self.batch_size < 1 or self.attempts < 1:
            raise ValueError("batch_size and attempts must be >= 1")

    async def summarize_calls(
        self, calls: Sequence[ToolExchange], *, recent: Sequence[Message] = ()
    ) -> list[CallSummary]:
        recent_text = "\n".join(f"{m.role}: {_clip(m.text(), 300)}" for m in recent if m.text().strip()) or "(none)"
        out: dict[str, CallSummary] = {}
        for start in range(0, len(calls), self.batch_size):
            out.update(await self._batch(calls[start : start + self.batch_size], recent_text))
        return [out[call.id] for call in calls]

    async def _batch(self, batch: Sequence[ToolExchange], recent: str) -> dict[str, CallSummary]:
        done: dict[str, CallSummary] = {}
        for attempt in range(self.attempts):
            missing = [call for call in batch if call.id not in done]
            if not missing:
                break
            prompt = _CALLS_PROMPT.format(recent=recent, calls="\n\n".join(self._render(c) for c in missing))
            try:
                parsed = parse_summaries(await self.complete(prompt))
            except Exception as exc:  # a failing model must not stop compaction
                _log.warning("summarizer attempt %d failed: %s", attempt + 1, exc)
                continue
            wanted = {call.id for call in missing}
            done.update({entry.id: entry for entry in parsed if entry.id in wanted})
        for call in batch:
            if call.id not in done:
                done[call.id] = CallSummary(call.id, call.result_text[:_DEGRADED_CHARS], 0, degraded=True)
        return done

    def _render(self, call: ToolExchange) -> str:
        args = json.dumps(call.arguments, ensure_ascii=False, default=str)
        text = call.result_text
        body = text
        if len(text) > self.result_chars:
            body = text[: self.result_chars] + f"\n… [{len(text)} chars in total]"
        return f"### tool_call_id: {call.id}\ntool: {call.name}\narguments: {_clip(args, 500)}\nresult:\n{body}"

    async def summarize_span(self, messages: Sequence[Message]) -> str:
        rendered = "\n".join(f"{m.role}: {_clip(_message_text(m), 400)}" for m in messages)
        prompt = _SPAN_PROMPT.format(limit=self.span_chars, messages=rendered)
        for attempt in range(self.attempts):
            try:
                text = (await self.complete(prompt)).strip()
            except Exception as exc:
                _log.warning("span summary attempt %d failed: %s", attempt + 1, exc)
                continue
            if text:
                return _clip(text, self.span_chars)
        return await self._fallback.summarize_span(messages)


def _message_text(msg: Message) -> str:
    parts: list[str] = []
    for block in msg.content:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolCallBlock):
            parts.append(f"[call {block.name} {json.dumps(block.input, default=str)[:200]}]")
        elif isinstance(block, ToolResultBlock):
            parts.append(f"[result {block.name}: {block.text()[:200]}]")
    return " ".join(parts)
