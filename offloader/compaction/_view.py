"""Helpers shared by the compactor: markers, fingerprints, rendering, the working view.

Private to :mod:`offloader.compaction`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from offloader.core.messages import Block, DataBlock, JsonBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock

from ._state import Entry, normalise_id
from .policy import CompactionEntry, Level

__all__ = ["MILD_MARKER", "SUMMARY_MARKER", "TRUNCATED_MARKER"]

MILD_MARKER = "[Offloaded tool result | ref: "
SUMMARY_MARKER = "[Compacted conversation | ref: "
TRUNCATED_MARKER = "[Truncated "
_MEDIA_TOKENS = 1_000  # a picture or document costs roughly this many tokens in most APIs
_MESSAGE_OVERHEAD = 4
_ARG_STRING_CHARS = 200
_MIN_TRUNCATED_TOKENS = 64
_CACHE_LIMIT = 200_000
_OFFLOAD_CONCURRENCY = 16
_LEVELS: tuple[Level, ...] = ("none", "mild", "aggressive", "emergency")
#: ``json.dumps(value, ensure_ascii=False, default=str)`` without building an encoder per call
_dumps = json.JSONEncoder(ensure_ascii=False, default=str).encode


def _digest(parts: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def _fingerprint(obj: Any) -> str:
    """Stable content hash of a JSON-like value (sorted keys)."""
    raw = (
        obj
        if isinstance(obj, str)
        else json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=str)
    )
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def dict_fingerprint(obj: Any) -> str:
    """Content hash of a caller's dict message via ``repr`` (about twice as fast as JSON).

    Stable across processes for plain data; an object whose repr carries an
    address only costs a cache miss.
    """
    return "d" + hashlib.sha256(repr(obj).encode("utf-8", "surrogatepass")).hexdigest()[:31]


def _render(msg: Message) -> tuple[str, int]:
    """The text a model reads for ``msg``, plus tokens for media it cannot count."""
    parts: list[str] = [msg.role]
    media = _render_blocks(msg.content, parts)
    return "\n".join(parts), media


def _render_blocks(blocks: Sequence[Block], parts: list[str]) -> int:
    """Append the text of ``blocks`` (depth first) to ``parts``; return the media tokens."""
    media = 0
    for block in blocks:
        if isinstance(block, TextBlock):
            parts.append(block.text)
        elif isinstance(block, ToolResultBlock):
            parts.append(block.name)
            media += _render_blocks(block.content, parts)
        elif isinstance(block, ToolCallBlock):
            parts.append(block.name)
            parts.append(_dumps(block.input))
        elif isinstance(block, JsonBlock):
            parts.append(block.dumps())
        elif isinstance(block, DataBlock):
            media += _MEDIA_TOKENS
        else:  # anything else with a name and content, as a tool result
            parts.append(block.name)
            media += _render_blocks(block.content, parts)
    return media


def _is_user_turn(msg: Message) -> bool:
    return (
        msg.role == "user" and not msg.tool_results and any(isinstance(b, TextBlock | DataBlock) for b in msg.content)
    )


def _marked(block: ToolResultBlock) -> bool:
    text = block.text()
    return text.startswith(MILD_MARKER) or text.startswith(TRUNCATED_MARKER)


def _compact_args(value: Any, ref: str, limit: int = _ARG_STRING_CHARS) -> Any:
    """Shorten long strings (and long nested values) in tool arguments, keeping keys."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value
        return f"{value[:limit]}… [{len(value)} chars; full call in {ref}]"
    if isinstance(value, dict):
        return {k: _compact_args(v, ref, limit) for k, v in value.items()}
    rendered = _dumps(value)
    if len(rendered) <= limit:
        return value
    return f"[{type(value).__name__} of {len(rendered)} chars; full call in {ref}]"


class _View:
    """The conversation being compacted: originals, canonical forms, edits, tokens."""

    def __init__(self, originals: list[Any], canon: list[Message], fps: list[str], tokens: list[int]) -> None:
        self.originals = originals
        self.canon = canon
        self.fps = fps
        self.current = list(canon)
        self.tokens = tokens
        self.edits: list[dict[int, Block]] = [{} for _ in canon]
        self.cut: set[int] = set()
        self.summary_tokens = 0
        self.sum = sum(tokens)  # tokens of the messages not cut
        self._pairs: tuple[dict[tuple[int, int], tuple[int, int]], list[int]] | None = None

    def _pair(self) -> tuple[dict[tuple[int, int], tuple[int, int]], list[int]]:
        """Pair every tool call with the next result of the same (normalised) id (computed once)."""
        if self._pairs is None:
            partner: dict[tuple[int, int], tuple[int, int]] = {}
            reach = list(range(len(self.canon)))  # furthest message linked to message i by a pair
            open_calls: dict[str, tuple[int, int]] = {}
            for i, msg in enumerate(self.canon):
                for b, block in enumerate(msg.content):
                    if isinstance(block, ToolCallBlock):
                        open_calls[normalise_id(block.id)] = (i, b)
                    elif isinstance(block, ToolResultBlock):
                        call = open_calls.pop(normalise_id(block.id), None)
                        if call is not None:
                            partner[(i, b)] = call
                            partner[call] = (i, b)
                            reach[call[0]] = max(reach[call[0]], i)
            self._pairs = (partner, reach)
        return self._pairs

    @property
    def partner(self) -> dict[tuple[int, int], tuple[int, int]]:
        return self._pair()[0]

    @property
    def reach(self) -> list[int]:
        return self._pair()[1]

    @property
    def total(self) -> int:
        return self.sum + self.summary_tokens

    def add_cut(self, positions: Sequence[int]) -> None:
        for p in positions:
            if p not in self.cut:
                self.cut.add(p)
                self.sum -= self.tokens[p]

    def spans(self, start: int) -> list[tuple[int, int]]:
        """Closed runs ``[i, j]`` no call/result pair crosses, from ``start``."""
        out: list[tuple[int, int]] = []
        i, n, reach = start, len(self.canon), self.reach
        while i < n:
            end, j = reach[i], i
            while j <= end:
                if reach[j] > end:
                    end = reach[j]
                j += 1
            out.append((i, end))
            i = end + 1
        return out


def public_entry(e: Entry) -> CompactionEntry:
    return CompactionEntry(e.id, e.tool, e.summary, e.score, e.status, e.ref, e.degraded, e.failed)


def _block_fp(block: ToolResultBlock) -> str:
    """Content hash of a tool result: id, name, error flag, text and media references."""
    media = [b.media_type + (b.url or str(b.size)) for b in block.content if isinstance(b, DataBlock)]
    raw = "\x00".join([block.id, block.name, str(block.is_error), block.text(), *media])
    return "r" + hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()[:31]


def _args_len(block: ToolCallBlock) -> int:
    return len(_dumps(block.input))
