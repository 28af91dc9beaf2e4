"""The preview ``offload run`` prints for large output: head, signal lines and tail, in bounded memory.

Kept in one module so the preview engine can be swapped without touching the command.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

__all__ = ["CHUNK", "StreamPreview", "scan_for_preview"]

_SIGNAL = re.compile(
    rb"(?i)\b(error|errors|fail|failed|failure|fatal|exception|traceback|panic|abort(ed)?|denied|"
    rb"segmentation fault|timed? ?out|warning|assert(ion)?)\b"
)
#: Bytes read per call when scanning a stored output.
CHUNK = 1 << 20
_MAX_LINE_SHOWN = 400


@dataclass
class StreamPreview:
    """Head, signal lines and tail of a file, gathered in one bounded-memory pass."""

    budget: int
    lines: int = 0
    head: list[tuple[int, str]] = field(default_factory=list)
    signals: list[tuple[int, str]] = field(default_factory=list)
    signal_count: int = 0
    tail: deque[tuple[int, str]] = field(default_factory=deque)
    _head_used: int = 0
    _tail_used: int = 0
    _signal_used: int = 0
    _head_full: bool = False

    def add(self, no: int, raw: bytes, length: int) -> None:
        text = raw.decode("utf-8", "replace")
        if length > len(raw):
            text += f" [... {length} bytes]"
        cost = len(text) + 8
        if not self._head_full:
            if self._head_used + cost <= self.budget * 2 // 5 or not self.head:
                self.head.append((no, text))
                self._head_used += cost
                return
            self._head_full = True
        if _SIGNAL.search(raw):
            self.signal_count += 1
            if self._signal_used + cost <= self.budget // 5:
                self.signals.append((no, text))
                self._signal_used += cost
        self.tail.append((no, text))
        self._tail_used += cost
        while self._tail_used > self.budget * 2 // 5 and len(self.tail) > 1:
            self._tail_used -= len(self.tail.popleft()[1]) + 8

    def render(self) -> list[str]:
        tail = list(self.tail)
        first_tail = tail[0][0] if tail else self.lines + 1
        signals = [s for s in self.signals if s[0] < first_tail]
        out: list[str] = []
        last = 0
        for no, text in [*self.head, *signals, *tail]:
            if no > last + 1:
                out.append(f"... [lines {last + 1}-{no - 1} omitted] ...")
            out.append(f"{no:>6}\t{text}")
            last = no
        return out


def scan_for_preview(path: str, preview_tokens: int) -> StreamPreview:
    """One streaming pass over ``path``: O(preview) memory whatever the file size."""
    preview = StreamPreview(budget=preview_tokens * 4)
    no = 0
    carry = b""
    carry_len = 0
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                piece = chunk[start:] if nl < 0 else chunk[start:nl]
                if len(carry) < _MAX_LINE_SHOWN:
                    carry += piece[: _MAX_LINE_SHOWN - len(carry)]
                carry_len += len(piece)
                if nl < 0:
                    break
                no += 1
                preview.add(no, carry, carry_len)
                carry, carry_len = b"", 0
                start = nl + 1
    if carry_len:
        no += 1
        preview.add(no, carry, carry_len)
    preview.lines = no
    return preview
