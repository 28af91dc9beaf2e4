"""The two strong levels of a compaction pass (a base of :class:`~._run._Run`, built on :class:`~._mild.Mild`).

* cut: the oldest unprotected turns go to ``context.jsonl`` and are replaced by
  one summary message naming the file;
* truncate (emergency): the largest messages are cut down in place; each block is
  offloaded first (a tool result whole, a message via the context log) and
  replaced by its head plus the reference, so nothing is lost.
"""

from __future__ import annotations

import dataclasses
import json
from typing import TYPE_CHECKING

from offloader.core.convert import block_to_dict
from offloader.core.messages import Block, Message, TextBlock, ToolCallBlock, ToolResultBlock

from ._mild import Mild
from ._state import Cut, Entry, normalise_id
from ._view import (
    _MIN_TRUNCATED_TOKENS,
    SUMMARY_MARKER,
    TRUNCATED_MARKER,
    _args_len,
    _block_fp,
    _compact_args,
    _digest,
    _is_user_turn,
    _marked,
    _render,
)
from .policy import Level

if TYPE_CHECKING:
    pass

__all__ = ["Shrink"]


class Shrink(Mild):
    """Cut and truncate, over the state a compaction pass keeps; both record summaries as mild does."""

    cut_replayed: bool

    async def _truncate(self, target: int) -> None:
        v = self.view
        order = sorted(
            (i for i in range(len(v.canon)) if i not in v.cut and v.canon[i].role != "system"),
            key=lambda i: (-v.tokens[i], i),
        )
        for i in order:
            excess = self.total() - target + 1
            if excess <= 0:
                return
            await self._truncate_message(i, excess)

    async def _truncate_message(self, i: int, excess: int) -> None:
        v, st, c = self.view, self.state, self.c
        msg = v.current[i]
        sizes = []
        for b, block in enumerate(msg.content):
            if isinstance(block, TextBlock):
                sizes.append((c.counter.count(block.text), b))
            elif isinstance(block, ToolResultBlock) and not _marked(block):
                sizes.append((c.counter.count(block.text()), b))
            elif isinstance(block, ToolCallBlock) and _args_len(block) > self.policy.large_arguments_chars:
                sizes.append((c.counter.count(json.dumps(block.input, default=str)), b))
        edits: dict[int, Block] = {}
        original_ref: str | None = None
        mid = v.canon[i].id or f"truncated-{v.fps[i][:16]}"
        remaining = excess
        for size, b in sorted(sizes, reverse=True):
            if remaining <= 0 or size <= _MIN_TRUNCATED_TOKENS:
                break
            keep = max(size - remaining, _MIN_TRUNCATED_TOKENS)
            block = msg.content[b]
            new: Block
            if isinstance(block, ToolResultBlock):
                ref = await c.offloader.offload_tool_result(self.sid, block)
                text = block.text()
                new_text = f"{TRUNCATED_MARKER}tool result | ref: {ref} | {len(text)} chars]\n{self._head(text, keep)}"
                new = ToolResultBlock(block.id, block.name, (TextBlock(new_text),), block.is_error)
                self._truncated_entry(block, ref, new_text)
            else:
                if original_ref is None:
                    original = dataclasses.replace(v.canon[i], id=mid)
                    original_ref = await c.offloader.offload_context(self.sid, [original])
                    self.refs.append(original_ref)
                ref = original_ref
                if isinstance(block, TextBlock):
                    head = self._head(block.text, keep)
                    new = TextBlock(
                        f"{TRUNCATED_MARKER}message | original: {ref} (message id {mid}) | "
                        f"{len(block.text)} chars]\n{head}"
                    )
                else:
                    assert isinstance(block, ToolCallBlock)
                    new = ToolCallBlock(block.id, block.name, _compact_args(block.input, ref))
            self.refs.append(ref)
            edits[b] = new
            remaining -= size - c.counter.count(_render(Message(msg.role, (new,)))[0])
        if edits:
            self._set(i, edits)
            trunc = st.truncations.setdefault(v.fps[i], {"blocks": {}})
            trunc["blocks"].update({str(b): block_to_dict(blk) for b, blk in edits.items()})
            st.dirty = True
            self._raise_level("emergency")

    def _truncated_entry(self, block: ToolResultBlock, ref: str, text: str) -> None:
        key = normalise_id(block.id)
        e = self.state.entries.get(key)
        if e is None:
            e = Entry(
                key=key,
                id=block.id,
                tool=block.name,
                fp=_block_fp(block),
                summary=text[:200],
                score=0,
                failed=block.is_error,
            )
            self.state.entries[key] = e
        e.status, e.ref, e.text = "truncated", ref, text
        self._changed(e)

    def _head(self, text: str, tokens: int) -> str:
        chars = min(len(text), tokens * 3)
        while chars > 0 and self.c.counter.count(text[:chars]) > tokens:
            chars = int(chars * 0.8)
        return text[:chars]

    # ------------------------------------------------------------ cut

    def _protected(self) -> set[int]:
        v = self.view
        n = len(v.canon)
        keep = {i for i, m in enumerate(v.canon) if m.role == "system"}
        users = [i for i, m in enumerate(v.canon) if _is_user_turn(m)]
        if users:
            keep.add(users[-1])
        keep.update(range(max(0, n - self.policy.min_messages_kept), n))
        return keep

    async def _cut(self, target: int, level: Level) -> None:
        v, st = self.view, self.state
        protected = self._protected()
        spans = [s for s in v.spans(0) if not any(p in protected for p in range(s[0], s[1] + 1))]
        bodies = list(st.cut.bodies) if (st.cut and self.cut_replayed) else []
        reserve = self.policy.summary_chars // 3
        while self.total() >= target:
            estimate = self.total() - v.summary_tokens + reserve
            chosen: list[int] = []
            for a, z in spans:
                if estimate < target:
                    break
                fresh = [p for p in range(a, z + 1) if p not in v.cut]
                chosen.extend(fresh)
                estimate -= sum(v.tokens[p] for p in fresh)
            if not chosen:
                return
            moved = [v.current[p] for p in chosen]
            await self._summaries(self._results(chosen))
            ref = await self.c.offloader.offload_context(self.sid, moved)
            self.refs.append(ref)
            bodies.append(await self.c.summarizer.summarize_span(moved))
            v.add_cut(chosen)
            for p in chosen:
                for block in v.current[p].content:
                    e = st.entries.get(normalise_id(block.id)) if isinstance(block, ToolResultBlock) else None
                    if e is not None and e.status != "deleted":
                        e.status, e.ref = "deleted", e.ref or ref
                        self._changed(e)
            positions = sorted(v.cut)
            upto = positions[-1] + 1
            text = self._summary_text(ref, len(positions), bodies)
            st.cut = Cut(positions, upto, _digest(v.fps[:upto]), ref, bodies, text)
            st.dirty = True
            v.summary_tokens = self.c._count(Message("user", (TextBlock(text),)))
            self._raise_level(level)

    def _summary_text(self, ref: str, count: int, bodies: list[str]) -> str:
        header = (
            f"{SUMMARY_MARKER}{ref}]\n{count} earlier messages were moved to this file (one JSON "
            "message per line); search it with Grep or read it with Read when you need them.\n"
        )
        body = "\n".join(bodies)
        room = self.policy.summary_chars - len(header)
        if len(body) > room:
            body = "…" + body[-(room - 1) :]
        return header + body
