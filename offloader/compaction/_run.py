"""One compaction pass: replay earlier decisions, then mild (``_mild``), cut and truncate (``_levels``).

Private to :mod:`offloader.compaction`; :class:`~.compactor.ContextCompactor`
creates one :class:`_Run` per ``compact`` call.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from typing import TYPE_CHECKING, Any

from offloader.core.convert import block_from_dict
from offloader.core.messages import (
    Block,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from offloader.core.reshape import rebuild_message, text_message

from ._levels import Shrink
from ._state import Entry, SessionState, normalise_id
from ._view import (
    _LEVELS,
    _block_fp,
    _digest,
    _marked,
    _View,
    public_entry,
)
from .policy import CompactionResult, Level
from .taskmap import task_map_text

if TYPE_CHECKING:
    from .compactor import ContextCompactor

__all__: list[str] = []


class _Run(Shrink):
    """State of one ``compact`` call."""

    def __init__(
        self,
        compactor: ContextCompactor,
        session_id: str,
        state: SessionState,
        originals: list[Any],
        canon: list[Message],
        fps: list[str],
        tokens: list[int],
        system_tokens: int | None,
        overflow: bool,
    ) -> None:
        self.c = compactor
        self.policy = compactor.policy
        self.window = compactor.window
        self.sid = session_id
        self.state = state
        self.view = _View(originals, canon, fps, tokens)
        self.overhead = (
            system_tokens if system_tokens is not None else int(self.window * self.policy.system_overhead_ratio)
        )
        self.overflow = overflow
        self._changed_keys: dict[str, Entry] = {}
        self.refs: list[str] = []
        self.applied: Level = "none"
        self.cut_replayed = False
        self.touched: set[int] = set()
        self.map_text: str | None = None
        self.map_tokens = 0
        if compactor.task_map:  # reserve room for the map as it stands
            self.map_text = self._task_map()
            self.map_tokens = self.c._count(Message("user", (TextBlock(self.map_text),))) if self.map_text else 0
            self.overhead += self.map_tokens

    # ------------------------------------------------------------ driver

    def total(self) -> int:
        return self.overhead + self.view.total

    def classify(self, total: int) -> Level:
        fill, p = total / self.window, self.policy
        if fill >= p.emergency_ratio:
            return "emergency"
        if fill >= p.aggressive_ratio:
            return "aggressive"
        return "mild" if fill >= p.mild_ratio else "none"

    async def execute(self) -> CompactionResult:
        v, p, w = self.view, self.policy, self.window
        before = self.overhead - self.map_tokens + sum(v.tokens)  # what the caller handed in
        if self.c.mode == "collect":
            await self._collect()
            return CompactionResult(
                list(v.originals),
                "none",
                before,
                before,
                w,
                entries=tuple(public_entry(e) for e in self.changed),
                trigger=self.classify(before),
                extra={"mode": "collect"},
            )
        self._replay()
        level: Level = "emergency" if self.overflow else self.classify(self.total())
        target: int | None = None
        reason: str | None = None
        if level != "none":
            mild_thr = math.floor(w * p.mild_ratio)
            target = {
                "mild": mild_thr,
                "aggressive": math.floor(w * p.aggressive_ratio),
                "emergency": math.floor(w * p.emergency_target_ratio),
            }[level]
            if self.overflow:  # our count was too low: cut at least a fifth of it
                target = min(target, math.floor(self.total() * 0.8))
            await self._mild(mild_thr)
            if level != "mild" and self.total() >= target:
                await self._cut(target, level)
            if level == "emergency" and self.total() >= target:
                await self._truncate(target)
            if self.total() >= target:
                reason = self._why(level, target)
        self._remember()
        if self.c.task_map:
            self.overhead -= self.map_tokens
            self.map_text = self._task_map()
            self.map_tokens = self.c._count(Message("user", (TextBlock(self.map_text),))) if self.map_text else 0
            self.overhead += self.map_tokens
            if target is not None and reason is None and self.total() >= target:
                reason = f"the task map ({self.map_tokens} tokens) grew during this call past the target {target}"
        return CompactionResult(
            self._output(),
            self.applied,
            before,
            self.total(),
            w,
            target,
            references=tuple(dict.fromkeys(self.refs)),
            entries=tuple(public_entry(e) for e in self.changed),
            reason=reason,
            trigger=level,
        )

    def _raise_level(self, level: Level) -> None:
        if _LEVELS.index(level) > _LEVELS.index(self.applied):
            self.applied = level

    def _set(self, i: int, edits: dict[int, Block]) -> None:
        v = self.view
        self.touched.add(i)
        v.edits[i].update(edits)
        blocks = list(v.canon[i].content)
        for b, block in v.edits[i].items():
            blocks[b] = block
        v.current[i] = dataclasses.replace(v.canon[i], content=tuple(blocks))
        tokens = self.c._count(v.current[i])
        if i not in v.cut:
            v.sum += tokens - v.tokens[i]
        v.tokens[i] = tokens

    def _changed(self, entry: Entry) -> None:
        self.state.dirty = True
        self._changed_keys.setdefault(entry.key, entry)

    @property
    def changed(self) -> list[Entry]:
        """Entries created or changed by this run, in order."""
        return list(self._changed_keys.values())

    # ------------------------------------------------------------ replay

    def _same(self, e: Entry, i: int, block: ToolResultBlock) -> bool:
        """Is ``block`` (in message ``i``) the result ``e`` was recorded for? Cheap check first."""
        return e.msg_fp == self.view.fps[i] or e.fp == _block_fp(block)

    def _replay(self) -> None:
        v, st = self.view, self.state
        if not (st.entries or st.cut or st.truncations):
            return  # nothing decided yet for this session
        cut = st.cut
        if cut is not None and cut.upto <= len(v.canon) and _digest(v.fps[: cut.upto]) == cut.digest:
            v.add_cut(cut.positions)
            v.summary_tokens = self.c._count(Message("user", (TextBlock(cut.text),)))
            self.cut_replayed = True
        memo = st.memo
        for i, msg in enumerate(v.canon):
            if i in v.cut:
                continue
            known = memo.get(v.fps[i], False)
            if known is None:
                continue  # seen before, nothing to replay
            if known is not False:
                edits_known, current, tokens = known
                v.edits[i] = dict(edits_known)
                v.current[i] = current
                v.sum += tokens - v.tokens[i]
                v.tokens[i] = tokens
                continue
            edits: dict[int, Block] = {}
            for b, block in enumerate(msg.content):
                if isinstance(block, ToolResultBlock):
                    e = st.entries.get(normalise_id(block.id))
                    if e and e.status == "mild" and e.text and not _marked(block) and self._same(e, i, block):
                        edits[b] = ToolResultBlock(block.id, block.name, (TextBlock(e.text),), block.is_error)
                elif isinstance(block, ToolCallBlock):
                    e = st.entries.get(normalise_id(block.id))
                    partner = v.partner.get((i, b))
                    if e and e.call_input is not None and partner is not None:
                        result = v.canon[partner[0]].content[partner[1]]
                        if isinstance(result, ToolResultBlock) and self._same(e, partner[0], result):
                            edits[b] = ToolCallBlock(block.id, block.name, e.call_input)
            trunc = st.truncations.get(v.fps[i])
            if trunc:
                edits.update({int(b): block_from_dict(d) for b, d in trunc["blocks"].items()})
            if edits:
                self._set(i, edits)

    def _remember(self) -> None:
        """Memoise each kept message's final form so the next turn replays it without work."""
        v, memo = self.view, self.state.memo
        if len(memo) > 200_000:
            memo.clear()
        for i, fp in enumerate(v.fps):
            if i not in v.cut and (i in self.touched or fp not in memo):
                memo[fp] = (dict(v.edits[i]), v.current[i], v.tokens[i]) if v.edits[i] else None

    # ------------------------------------------------------------ output

    def _why(self, level: Level, target: int) -> str:
        v = self.view
        total = self.total()
        if level == "mild":
            return (
                f"mild compaction stopped at {total} tokens (target {target}): no more replaceable tool "
                f"results outside the newest {self.policy.protect_recent_ratio:.0%} of messages "
                "(degraded summaries are never used)"
            )
        protected = self._protected()
        held = sum(v.tokens[i] for i in protected if i not in v.cut)
        return (
            f"{level} compaction stopped at {total} tokens (target {target}): the messages it may not "
            f"remove (system, the last user message, the newest {self.policy.min_messages_kept} and their "
            f"tool pairs) hold {held} tokens, the summary of the cut {v.summary_tokens}, and the system "
            f"overhead {self.overhead}"
        )

    def _output(self) -> list[Any]:
        v, out = self.view, []
        first = min(v.cut) if v.cut else None
        map_at = 0  # after the leading system messages and the cut summary
        for i, original in enumerate(v.originals):
            if i in v.cut:
                if i == first:
                    out.append(self._summary_message(original))
                    map_at = len(out)
                continue
            if v.canon[i].role == "system" and map_at == len(out):
                map_at += 1
            out.append(rebuild_message(original, v.canon[i], v.edits[i]) if v.edits[i] else original)
        if self.map_text and v.originals:
            like = v.originals[min(map_at, len(v.originals) - 1)]
            ident = f"taskmap-{hashlib.sha256(self.map_text.encode()).hexdigest()[:16]}"
            out.insert(map_at, text_message(like, "user", self.map_text, v.originals, ident=ident))
        return out

    def _task_map(self) -> str | None:
        steps = [public_entry(e) for e in self.state.entries.values()]
        if not steps:
            return None
        budget = math.floor(self.window * self.policy.task_map_ratio)
        return task_map_text(steps, budget, self.c.counter.count)

    def _summary_message(self, like: Any) -> Any:
        cut = self.state.cut
        assert cut is not None
        return text_message(like, "user", cut.text, self.view.originals, ident=f"compaction-{cut.digest[:16]}")
