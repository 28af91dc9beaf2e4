"""The preview ``offload run`` prints for large output, and its binary-output summary.

Kept in one module so the preview engine can be swapped without touching the
command: :func:`preview_output` is the one call ``offload run`` makes. The stored
file follows :mod:`offloader.streams` (stderr lines carry a mark; pass a line to
``split_stream`` to learn its stream).
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass, field

__all__ = ["CHUNK", "RunPreview", "StreamPreview", "preview_output", "scan_for_preview", "sniff_binary"]

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


#: Outputs up to this size get ``offloader.preview.make_preview`` (reads the file);
#: larger ones the streaming head / signal lines / tail preview in bounded memory.
_PREVIEW_IN_MEMORY = 8 << 20
#: Bytes looked at to decide whether an output is binary.
SNIFF_BYTES = 1 << 16
_MAGIC = (
    (b"\x1f\x8b", "gzip data"),
    (b"PK\x03\x04", "zip archive"),
    (b"\x89PNG", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF", "PDF document"),
    (b"\x7fELF", "ELF executable"),
    (b"BZh", "bzip2 data"),
    (b"\xfd7zXZ\x00", "xz data"),
    (b"(\xb5/\xfd", "zstd data"),
    (b"SQLite format 3\x00", "SQLite database"),
)
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\b\x1b")


@dataclass
class RunPreview:
    """What ``offload run`` prints under its header: the body lines, and what the scan found."""

    body: list[str]
    lines: int
    signal_count: int
    binary: str | None = None


def sniff_binary(head: bytes, total: int) -> str | None:
    """A one-line summary when ``head`` (the first bytes of a ``total``-byte output) is binary, else None."""
    if not head:
        return None
    kind = next((name for magic, name in _MAGIC if head.startswith(magic)), None)
    controls = sum(1 for b in head if b < 32 and b not in _TEXT_CONTROLS)
    undecodable = head.decode("utf-8", "replace").count("\ufffd") - 1  # the last character may be cut
    if kind is None and b"\0" not in head and controls * 20 < len(head) and undecodable * 50 < len(head):
        return None
    first = " ".join(f"{b:02x}" for b in head[:16])
    return f"[binary output: {total:,} bytes ({kind or 'binary data'}), not shown; first bytes: {first}]"


def preview_output(path: str, size: int, preview_tokens: int) -> RunPreview:
    """The preview of the stored output at ``path`` (``size`` bytes) within ``preview_tokens``."""
    with open(path, "rb") as f:
        binary = sniff_binary(f.read(SNIFF_BYTES), size)
    scan = scan_for_preview(path, preview_tokens)
    if binary is not None:
        return RunPreview([binary], scan.lines, 0, binary)
    body = scan.render()
    if size <= _PREVIEW_IN_MEMORY:  # small enough to read: the package's signal-keeping preview
        from offloader.preview import make_preview
        from offloader.tokens import default_counter

        with open(path, "rb") as f:
            text = f.read().decode("utf-8", "replace")
        body = make_preview(text, counter=default_counter(), preview_tokens=preview_tokens).splitlines()
    return RunPreview(body, scan.lines, scan.signal_count)
