"""Compaction cost: 1,000 messages / ~200k tokens, cold vs. one new turn.

Run: ``python benchmarks/bench_compaction.py`` (about a minute). Prints markdown
tables. For each scenario (fill level) and token counter it measures:

Scenarios: fill 70 % (mild), fill 120 % (emergency; mild alone reaches the
target here because tool results dominate), and fill 120 % with mild disabled
(``protect_recent_ratio=1``) so the cut runs.

* **cold** -- a fresh compactor and workspace compacting the whole conversation
  (every message tokenized, summarized, decided and offloaded);
* **turn** -- the same compactor compacting ``history + 1 new turn`` afterwards
  (the per-turn cost: cached token counts, replayed decisions);
* **cold, no storage** -- the cold run against an offloader that stores
  nothing, so the workspace's own Python work is not on the event loop: the
  compactor alone;
* **resume** -- a new compactor (a new process) on the same workspace compacting
  ``history + 1 new turn``: loads ``state.json``, counts every message again.

Time is split by wrapping the real parts: the summarizer (extractive), the
workspace (offloads, state and ledger writes) and the tokenizer. Each column is
the median over runs of a per-run figure:

* "compactor + workspace CPU" is the main thread's CPU time minus summarizer and
  tokenizer time: it includes the workspace's own Python work on the event loop
  (rendering, JSON, path checks, handing work to its threads) but not waiting
  for disk;
* "workspace CPU (event loop)" is the main thread's CPU time while a workspace
  call is in flight (the compactor only awaits then);
* **compactor CPU** is the first minus the second -- the compactor's own work,
  the figure the compaction target bounds at 50 ms. The "cold, no storage" row measures it
  directly (nothing to subtract) and cross-checks the split.
"""

from __future__ import annotations

import inspect
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio

from offloader.compaction import CallSummary, CompactionPolicy, ContextCompactor, ExtractiveSummarizer, ToolExchange
from offloader.core.messages import Message
from offloader.tokens import HeuristicCounter, TokenCounter, default_counter
from workspaces import LocalWorkspace

REPEATS = 3


class Clock:
    """Time per part: CPU time for the tokenizer and summarizer (on the event-loop thread, and
    apart from it in worker threads; CPU time is robust to other processes on the machine), wall-clock busy time for
    workspace I/O (offloads run concurrently in worker threads), and the event-loop thread's
    CPU time while a workspace call is in flight (the workspace's own Python work: rendering,
    JSON, path checks, worker-thread hand-offs; the compactor only awaits then)."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = {}
        self._active = 0
        self._since = 0.0
        self._cpu_since = 0.0

    def add(self, key: str, seconds: float) -> None:
        self.spent[key] = self.spent.get(key, 0.0) + seconds

    def io_start(self) -> None:
        if self._active == 0:
            self._since = time.perf_counter()
            self._cpu_since = time.thread_time()
        self._active += 1

    def io_end(self) -> None:
        self._active -= 1
        if self._active == 0:
            self.add("workspace I/O", time.perf_counter() - self._since)
            self.add("workspace CPU", time.thread_time() - self._cpu_since)


def _thread_part(key: str) -> str:
    """``key`` on the event-loop (main) thread, ``key + " (worker)"`` in a worker thread."""
    return key if threading.current_thread() is threading.main_thread() else f"{key} (worker)"


class TimedCounter:
    def __init__(self, inner: TokenCounter, clock: Clock) -> None:
        self.inner, self.clock, self.name = inner, clock, inner.name

    def count(self, text: str) -> int:
        start = time.thread_time()
        try:
            return self.inner.count(text)
        finally:
            self.clock.add(_thread_part("tokenizer"), time.thread_time() - start)


class _TimedExtractive(ExtractiveSummarizer):
    """The extractive summarizer, its per-call CPU time recorded in whichever thread makes it."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock

    def summarize_call(self, call: ToolExchange) -> CallSummary:
        start = time.thread_time()
        try:
            return super().summarize_call(call)
        finally:
            if threading.current_thread() is not threading.main_thread():  # the loop's own time: TimedSummarizer
                self.clock.add("summarizer (worker)", time.thread_time() - start)


class TimedSummarizer:
    """The event loop's CPU time in the summarizer ("summarizer"), and its workers' ("summarizer (worker)")."""

    def __init__(self, clock: Clock) -> None:
        self.inner, self.clock = _TimedExtractive(clock), clock

    async def summarize_calls(
        self, calls: Sequence[ToolExchange], *, recent: Sequence[Message] = ()
    ) -> list[CallSummary]:
        start = time.thread_time()
        try:
            return await self.inner.summarize_calls(calls, recent=recent)
        finally:
            self.clock.add("summarizer", time.thread_time() - start)

    async def summarize_span(self, messages: Sequence[Message]) -> str:
        start = time.thread_time()
        try:
            return await self.inner.summarize_span(messages)
        finally:
            self.clock.add("summarizer", time.thread_time() - start)


class TimedWorkspace:
    """The real LocalWorkspace, with the time spent in its async calls recorded.

    Every other attribute is the workspace's own, so the compactor sees a workspace (the
    ``WorkspaceProtocol`` check) and keeps its state, ledger and task map in it, as it does
    for the LocalWorkspace itself: a resumed run then replays what the cold run decided.
    """

    def __init__(self, ws: LocalWorkspace, clock: Clock) -> None:
        self.ws, self.clock = ws, clock

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.ws, name)
        if not inspect.iscoroutinefunction(attr):
            return attr

        async def timed(*args: Any, **kwargs: Any) -> Any:
            self.clock.io_start()
            try:
                return await attr(*args, **kwargs)
            finally:
                self.clock.io_end()

        return timed


def turn(t: int) -> list[dict[str, Any]]:
    """Four OpenAI messages, ~800 tokens: a request, a tool call, its log, a reply."""
    log = "\n".join(f"src/module_{t}/file_{i}.py:{i * 7}: checked {i * 13} symbols, ok" for i in range(48))
    return [
        {"role": "user", "content": f"Step {t}: check module {t} and report problems. " + "Context. " * 20},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": f"call_{t}",
                    "type": "function",
                    "function": {"name": "lint", "arguments": json.dumps({"path": f"src/module_{t}", "strict": True})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": f"call_{t}", "content": log},
        {"role": "assistant", "content": f"Module {t} is clean. " + "Details follow. " * 16},
    ]


def conversation(turns: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful agent."}]
    for t in range(turns):
        out += turn(t)
    return out


async def timed(
    compactor: ContextCompactor, clock: Clock, messages: list[dict[str, Any]]
) -> tuple[Any, dict[str, float]]:
    """Compact once; wall time, main-thread CPU time and the parts recorded by ``clock``."""
    clock.spent.clear()
    wall, cpu = time.perf_counter(), time.thread_time()
    result = await compactor.compact("s", messages, system_tokens=0)
    sample = {"total": time.perf_counter() - wall, "cpu": time.thread_time() - cpu, **clock.spent}
    return result, sample


async def measure(counter: TokenCounter, fill: float, protect: float, history: list[dict[str, Any]]) -> dict[str, Any]:
    tokens = (
        await ContextCompactor(_Nowhere(), 10**9, counter=counter).compact("m", history, system_tokens=0)
    ).tokens_before
    window = int(tokens / fill)
    rows: dict[str, list[dict[str, float]]] = {"cold": [], "turn": [], "resume": [], "cold, no storage": []}
    level = ""
    for r in range(REPEATS):
        with tempfile.TemporaryDirectory() as tmp:
            async with LocalWorkspace(Path(tmp) / "ws") as ws:
                clock = Clock()

                def make(clock: Clock = clock, ws: LocalWorkspace = ws) -> ContextCompactor:
                    return ContextCompactor(
                        TimedWorkspace(ws, clock),  # type: ignore[arg-type]
                        window=window,
                        counter=TimedCounter(counter, clock),
                        summarizer=TimedSummarizer(clock),
                        policy=CompactionPolicy(protect_recent_ratio=protect),
                    )

                compactor = make()
                result, sample = await timed(compactor, clock, history)
                rows["cold"].append(sample)
                level = result.level
                grown = history + turn(10_000 + r)
                rows["turn"].append((await timed(compactor, clock, grown))[1])
                rows["resume"].append((await timed(make(), clock, grown))[1])
        # The compactor alone: an offloader that stores nothing (no workspace code on the loop).
        clock = Clock()
        bare = ContextCompactor(
            _Memory(),
            window=window,
            counter=TimedCounter(counter, clock),
            summarizer=TimedSummarizer(clock),
            policy=CompactionPolicy(protect_recent_ratio=protect),
        )
        rows["cold, no storage"].append((await timed(bare, clock, history))[1])
    out: dict[str, Any] = {"tokens": tokens, "level": level, "messages": len(history)}
    for kind, samples in rows.items():
        for s in samples:
            s["with workspace"] = s["cpu"] - s.get("summarizer", 0.0) - s.get("tokenizer", 0.0)
            s["compaction"] = s["with workspace"] - s.get("workspace CPU", 0.0)
        keys = {"total", "cpu", "summarizer", "workspace I/O", "workspace CPU", "tokenizer", "with workspace"}
        keys |= {"summarizer (worker)", "tokenizer (worker)"}
        med = {k: statistics.median(s.get(k, 0.0) for s in samples) * 1000 for k in keys | {"compaction"}}
        out[kind] = med
    return out


class _Memory:
    """An offloader that returns references without storing anything: isolates the compactor."""

    async def offload_tool_result(self, session_id: str, tool_result: Any, **kwargs: Any) -> str:
        return f"/w/sessions/{session_id}/tool_result-{tool_result.id}.txt"

    async def offload_context(self, session_id: str, msgs: Sequence[Any], **kwargs: Any) -> str:
        return f"/w/sessions/{session_id}/context.jsonl"

    async def offload_data_block(self, block: Any, **kwargs: Any) -> Any:
        return block


class _Nowhere:
    """Measuring only (a huge window never offloads)."""

    async def offload_tool_result(self, session_id: str, tool_result: Any, **kwargs: Any) -> str:
        raise AssertionError

    async def offload_context(self, session_id: str, msgs: Sequence[Any], **kwargs: Any) -> str:
        raise AssertionError

    async def offload_data_block(self, block: Any, **kwargs: Any) -> Any:
        return block


async def main() -> None:
    history = conversation(250)
    counters: list[TokenCounter] = [HeuristicCounter(), default_counter()]
    print(f"# Compaction: {len(history)} messages, median of {REPEATS} runs, times in ms\n")
    print(
        "| counter | fill | mild allowed | level | tokens | run | wall | main-thread CPU "
        "| summarizer CPU (event loop / workers) | tokenizer CPU (event loop / workers) "
        "| workspace I/O (wall) | workspace CPU (event loop) "
        "| compactor + workspace CPU (excl. summarizer, tokenizer) "
        "| **compactor CPU** (excl. summarizer, tokenizer, workspace) | CPU vs cold |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for counter in counters:
        for fill, protect in ((0.7, 0.3), (1.2, 0.3), (1.2, 1.0)):
            m = await measure(counter, fill, protect, history)
            cold = m["cold"]["cpu"]
            for kind in ("cold", "cold, no storage", "turn", "resume"):
                d = m[kind]
                print(
                    f"| {counter.name} | {fill:.0%} | {'yes' if protect < 1 else 'no'} | {m['level']} "
                    f"| {m['tokens']:,} | {kind} | {d['total']:.1f} | {d['cpu']:.1f} "
                    f"| {d['summarizer']:.1f} / {d['summarizer (worker)']:.1f} "
                    f"| {d['tokenizer']:.1f} / {d['tokenizer (worker)']:.1f} "
                    f"| {d['workspace I/O']:.1f} | {d['workspace CPU']:.1f} "
                    f"| {d['with workspace']:.1f} | **{d['compaction']:.1f}** "
                    f"| {d['cpu'] / cold:.2f}x |"
                )


if __name__ == "__main__":
    anyio.run(main)
