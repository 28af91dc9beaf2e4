"""The mild level of a compaction pass, and the per-result summaries every level records.

Mild replaces the highest-scored older tool results by a marker naming the
offloaded file plus a short summary, and shortens the long arguments of their
calls (the originals go to ``context.jsonl`` first). The base of
:class:`~._levels.Shrink` and so of :class:`~._run._Run`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import anyio

from offloader.core.messages import Block, TextBlock, ToolCallBlock, ToolResultBlock

from ._state import Entry, SessionState, normalise_id
from ._view import _OFFLOAD_CONCURRENCY, MILD_MARKER, _args_len, _block_fp, _compact_args, _marked, _View
from .policy import CompactionPolicy, Level
from .summarizers import CallSummary, ToolExchange

if TYPE_CHECKING:
    from .compactor import ContextCompactor

__all__ = ["Mild"]


class Mild:
    """Summaries of tool results, and the mild level built on them."""

    c: ContextCompactor
    policy: CompactionPolicy
    sid: str
    state: SessionState
    view: _View
    refs: list[str]

    if TYPE_CHECKING:

        def total(self) -> int: ...
        def _same(self, e: Entry, i: int, block: ToolResultBlock) -> bool: ...
        def _set(self, i: int, edits: dict[int, Block]) -> None: ...
        def _changed(self, entry: Entry) -> None: ...
        def _raise_level(self, level: Level) -> None: ...

    async def _summaries(self, found: list[tuple[int, int, ToolResultBlock, str]]) -> None:
        """Create entries (summary + score) for tool results that have none."""
        v = self.view
        missing = [f for f in found if f[3] not in self.state.entries]
        if not missing:
            return
        exchanges = []
        for i, b, block, _key in missing:
            call = v.partner.get((i, b))
            call_block = v.canon[call[0]].content[call[1]] if call else None
            args = call_block.input if isinstance(call_block, ToolCallBlock) else {}
            name = block.name or (call_block.name if isinstance(call_block, ToolCallBlock) else "")
            exchanges.append(ToolExchange(block.id, name, args, block))
        recent = v.current[-6:]
        answers: dict[str, CallSummary] = {}
        for s in await self.c.summarizer.summarize_calls(exchanges, recent=recent):
            answers.setdefault(s.id, s)
        for (i, _b, block, key), ex in zip(missing, exchanges, strict=True):
            s = answers.get(ex.id) or CallSummary(ex.id, ex.result_text[:300], 0, degraded=True)
            entry = Entry(
                key=key,
                id=block.id,
                tool=ex.name,
                fp=_block_fp(block),
                msg_fp=v.fps[i],
                summary=s.summary,
                score=s.score,
                degraded=s.degraded,
                tokens=self.c.counter.count(ex.result_text),
                failed=block.is_error,
            )
            self.state.entries[key] = entry
            self._changed(entry)

    def _results(self, positions: Sequence[int]) -> list[tuple[int, int, ToolResultBlock, str]]:
        """Unreplaced tool results at ``positions``, first occurrence of each id only."""
        v, out, seen = self.view, [], set()
        for i in positions:
            for b, block in enumerate(v.current[i].content):
                if not isinstance(block, ToolResultBlock) or b in v.edits[i] or _marked(block):
                    continue
                key = normalise_id(block.id)
                if key in seen:
                    continue
                seen.add(key)
                e = self.state.entries.get(key)
                if e is not None and not self._same(e, i, block):
                    continue  # a different result reusing a recorded id: recorded once, left alone
                out.append((i, b, block, key))
        return out

    async def _collect(self) -> None:
        await self._summaries(self._results(range(len(self.view.canon))))

    # ------------------------------------------------------------ mild

    async def _mild(self, threshold: int) -> None:
        if self.total() < threshold:
            return
        v, st = self.view, self.state
        n = len(v.canon)
        protect_from = n - math.ceil(n * self.policy.protect_recent_ratio)
        found = self._results([i for i in range(protect_from) if i not in v.cut])
        found = [f for f in found if st.entries.get(f[3]) is None or st.entries[f[3]].status == "collected"]
        await self._summaries(found)
        order = sorted(found, key=lambda f: (-st.entries[f[3]].score, f[0], f[1]))
        calls: list[tuple[int, int, Entry]] = []
        ref_guess = len(str(getattr(self.c.offloader, "workdir", ""))) + 64
        summary_tokens: dict[str, int] = {}  # each summary tokenized once, not once per round
        while order and self.total() >= threshold:
            # Pick by estimated saving, offload the picks concurrently, then apply exactly.
            estimate, picked, rest = self.total(), [], []
            for cand in order:
                e = st.entries[cand[3]]
                if cand[3] not in summary_tokens:
                    summary_tokens[cand[3]] = self.c.counter.count(e.summary)
                saving = e.tokens - summary_tokens[cand[3]] - ref_guess // 3 - 8
                if estimate < threshold or e.degraded or saving <= 0:
                    if not (e.degraded or saving <= 0):
                        rest.append(cand)
                    continue
                picked.append(cand)
                estimate -= saving
            order = rest
            if not picked:
                break
            refs = await self._offload_results([cand[2] for cand in picked])
            for (i, b, block, key), ref in zip(picked, refs, strict=True):
                e = st.entries[key]
                calls.extend(self._replace_result(i, b, block, e, ref))
        if calls:
            await self._compact_calls(calls)

    async def _offload_results(self, blocks: list[ToolResultBlock]) -> list[str]:
        """Offload tool results concurrently (remote workspaces pay a round trip each)."""
        refs: list[str] = [""] * len(blocks)
        pending = iter(range(len(blocks)))  # shared by the workers: each index is taken once, in order

        async def worker() -> None:
            for k in pending:
                refs[k] = await self.c.offloader.offload_tool_result(self.sid, blocks[k])

        # A few long-lived workers instead of one task per result (task creation dominated).
        async with anyio.create_task_group() as tg:
            for _ in range(min(_OFFLOAD_CONCURRENCY, len(blocks))):
                tg.start_soon(worker)
        return refs

    def _replace_result(
        self, i: int, b: int, block: ToolResultBlock, e: Entry, ref: str
    ) -> list[tuple[int, int, Entry]]:
        """Swap a result for marker + summary; returns its call if its arguments need shortening."""
        v = self.view
        text = f"{MILD_MARKER}{ref}]\n{e.summary}"
        self._set(i, {b: ToolResultBlock(block.id, block.name, (TextBlock(text),), block.is_error)})
        self.refs.append(ref)
        e.status, e.ref, e.text = "mild", ref, text
        self._changed(e)
        self._raise_level("mild")
        call = v.partner.get((i, b))
        if call is not None:
            call_block = v.current[call[0]].content[call[1]]
            if isinstance(call_block, ToolCallBlock) and _args_len(call_block) > self.policy.large_arguments_chars:
                return [(call[0], call[1], e)]
        return []

    async def _compact_calls(self, calls: list[tuple[int, int, Entry]]) -> None:
        """Log the original calls to ``context.jsonl``, then shorten their long arguments."""
        v = self.view
        positions = sorted({ci for ci, _cb, _e in calls})
        ref = await self.c.offloader.offload_context(self.sid, [v.current[ci] for ci in positions])
        self.refs.append(ref)
        for ci, cb, e in calls:
            call_block = v.current[ci].content[cb]
            assert isinstance(call_block, ToolCallBlock)
            e.call_input = _compact_args(call_block.input, ref)
            self._set(ci, {cb: ToolCallBlock(call_block.id, call_block.name, e.call_input)})
