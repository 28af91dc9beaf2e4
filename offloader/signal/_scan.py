"""One pass over the bytes: line count, candidate lines, binary detection.

The only work proportional to the whole output is C-speed: the prior scanner
(Hyperscan or RE2) and the count of the newlines (numpy when installed, else
``bytes.count``), which gives the line numbers. Python code touches candidate lines only.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..core.strbuf import ascii_view
from ..core.text import binary_sample
from ._multiplex import MULTIPLEX_REACH, PREFIX, is_multiplexed
from ._patterns import make_scanner

__all__ = ["BINARY_SAMPLE", "AsciiText", "Candidate", "Scan", "binary_reason", "scan"]

#: Bytes at the start (and end) of an output checked for NUL bytes and invalid UTF-8.
BINARY_SAMPLE = 64 * 1024
#: At most this many candidate lines are ranked (spread over the whole output beyond it).
MAX_CANDIDATES = 20_000


@dataclass(slots=True)
class Candidate:
    lineno: int
    start: int
    end: int
    focus: int  # byte offset of the first match in the line


@dataclass(slots=True)
class Scan:
    data: Any  # bytes-like (bytes, memoryview, mmap)
    size: int  # without a final newline
    lines: int
    candidates: list[Candidate] = field(default_factory=list)
    dropped: int = 0  # candidate lines beyond MAX_CANDIDATES, not ranked
    engine: str = ""
    mark: bytes | None = None  # lines starting with it are known stderr
    prefix: re.Pattern[str] | None = None  # each line's source's prefix, read past (see _multiplex)


def binary_reason(data: Any) -> str | None:
    """Why ``data`` is not text, read from its sampled start and end (see
    :func:`~offloader.core.text.binary_sample`), or None. Text is previewed as text: a stray NUL or an
    undecodable byte is shown as U+FFFD, never raw.
    """
    size = len(data)
    for lo, hi in ((0, min(size, BINARY_SAMPLE)), (max(BINARY_SAMPLE, size - 4096), size)):
        if lo < hi and (reason := binary_sample(bytes(data[lo:hi]), lo)) is not None:
            return reason
    return None


#: A memory-mapped file is scanned in windows of this size (cut at newlines), each released after.
WINDOW_BYTES = 4 << 20
#: An ASCII str is encoded for the scanner this many characters at a time (cut at newlines).
TEXT_WINDOW = 1 << 20


class AsciiText:
    """An ASCII str as the engine's bytes-like data: byte offsets are its character offsets.

    Only the slices the engine asks for are encoded, and the scanner sees the text
    in windows of :data:`TEXT_WINDOW`: a 50 MB output is never copied whole.
    """

    def __init__(self, text: str) -> None:
        self.text = text

    def __len__(self) -> int:
        return len(self.text)

    def __getitem__(self, index: slice) -> bytes:
        return self.text[index].encode("ascii")

    def find(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        return self.text.find(sub.decode("ascii"), start, end)

    def rfind(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        return self.text.rfind(sub.decode("ascii"), start, end)

    def count(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        return self.text.count(sub.decode("ascii"), start, end)

    def windows(self) -> Iterator[tuple[int, bytes | memoryview]]:
        """(offset, window's bytes) pieces covering the text, each ending after a newline (or at the end).

        The bytes are the str's own where it allows (see :func:`~offloader.core.strbuf.ascii_view`),
        else each window is encoded in turn.
        """
        text, lo = self.text, 0
        in_place = ascii_view(text)
        while lo < len(text):
            hi = text.find("\n", min(len(text), lo + TEXT_WINDOW))
            hi = len(text) if hi < 0 else hi + 1
            yield lo, text[lo:hi].encode("ascii") if in_place is None else in_place[lo:hi]
            lo = hi


@functools.cache
def newline_counter() -> Callable[[bytes | memoryview], int]:
    """``count(window)``: the newlines in a bytes-like window.

    numpy (the ``speed`` extra) compares a whole window at once and releases the GIL
    while it does (1 MB in 0.07 ms here); ``bytes.count`` looks at one byte at a time
    (0.22 ms) and holds the GIL.
    """
    try:
        import numpy as np
    except ImportError:
        return lambda window: bytes(window).count(b"\n")  # a copy of a memoryview window; none of bytes
    newline = np.uint8(ord("\n"))
    return lambda window: int(np.count_nonzero(np.frombuffer(window, dtype=np.uint8) == newline))


def _offsets(scanner: Any, data: Any) -> tuple[list[int], list[int], list[int], int | None]:
    """End offsets of prior matches, the windows read (their starts, the newlines before each), all newlines.

    Matches never span lines, so windows cut after a newline lose none. An
    :class:`AsciiText` counts each window's newlines while it is encoded, so line
    numbers later cost a count within one window at most, and the GIL is never held
    long (a store writing in another thread gets it back within a window).
    """
    if isinstance(data, AsciiText):
        ends: list[int] = []
        starts: list[int] = []
        before: list[int] = []
        newlines = 0
        count = newline_counter()
        for lo, window in data.windows():
            ends.extend(lo + pos for pos in scanner.offsets(window))
            starts.append(lo)
            before.append(newlines)
            newlines += count(window)
        return ends, starts, before, newlines
    raw = getattr(data, "raw", None)
    if raw is None:
        return scanner.offsets(data), [0], [0], None
    ends = []
    lo = 0
    view = memoryview(raw)
    try:
        while lo < len(raw):
            hi = raw.find(b"\n", min(len(raw), lo + WINDOW_BYTES))
            hi = len(raw) if hi < 0 else hi + 1
            ends.extend(lo + pos for pos in scanner.offsets(view[lo:hi]))
            data.release(lo, hi)
            lo = hi
    finally:
        view.release()
    return ends, [0], [0], None


class _LineNumbers:
    """1-based line numbers of offsets asked in increasing order, counted within one window.

    Each count runs from the last offset asked (or the window's start), or back from
    the window's end when that is nearer and the total is known (``newlines``).
    """

    def __init__(self, data: Any, starts: list[int], before: list[int], newlines: int | None) -> None:
        self.count = data.count
        self.starts, self.before = starts, before
        self.ends = [*starts[1:], len(data)]
        self.after = None if newlines is None else [*before[1:], newlines]
        self.window, self.pos, self.newlines = 0, 0, 0

    def at(self, pos: int) -> int:
        window = bisect.bisect_right(self.starts, pos) - 1
        if window != self.window:
            self.window, self.pos, self.newlines = window, self.starts[window], self.before[window]
        end = self.ends[window]
        if self.after is not None and end - pos < pos - self.pos:
            self.newlines = self.after[window] - self.count(b"\n", pos, end)
        else:
            self.newlines += self.count(b"\n", self.pos, pos)
        self.pos = pos
        return self.newlines + 1


def scan(data: Any, engine: str | None = None, mark: bytes | None = None) -> Scan:
    """Count the lines of ``data`` and find the lines that match an outcome prior (or start with ``mark``)."""
    size = len(data)
    if size and data[size - 1 : size] == b"\n":
        size -= 1
    prefixed = is_multiplexed(bytes(data[:MULTIPLEX_REACH]))
    scanner = make_scanner(engine, mark, prefixed=prefixed)
    ends, window_starts, newlines_before, newlines = _offsets(scanner, data)
    ends.sort()
    starts: list[tuple[int, int]] = []  # (line start, first match end); matches never span lines
    line_end = -1  # end of the previous candidate's line
    for pos in ends:
        if pos <= line_end or pos > size:
            continue  # on the line of the previous candidate
        last = pos - 1  # the match's last byte
        stop = data.find(b"\n", last, size)
        line_end = size if stop < 0 else stop
        starts.append((data.rfind(b"\n", 0, last) + 1, pos))
    dropped = 0
    if len(starts) > MAX_CANDIDATES:
        kept = _thin(data, starts, size)
        dropped = len(starts) - len(kept)
        starts = kept
    candidates: list[Candidate] = []
    numbers = _LineNumbers(data, window_starts, newlines_before, newlines)
    for start, pos in starts:
        end = data.find(b"\n", start, size)
        candidates.append(Candidate(numbers.at(start), start, size if end < 0 else end, max(start, pos - 1)))
    if not len(data):
        lines = 0
    elif newlines is not None:  # every newline was counted: those before ``size``, plus one
        lines = newlines - (size < len(data)) + 1
    else:
        lines = numbers.at(size)
    return Scan(data, size, lines, candidates, dropped, scanner.engine, mark, PREFIX if prefixed else None)


_DIGITS = bytes.maketrans(b"0123456789", b"0000000000")


def _thin(data: Any, starts: list[tuple[int, int]], size: int) -> list[tuple[int, int]]:
    """Too many candidate lines: keep every line of a rare shape, the first and last two of each
    frequent one (digits masked), so one error among thousands of matching lines is never dropped."""
    groups: dict[bytes, list[int]] = {}
    for i, (start, _) in enumerate(starts):
        end = data.find(b"\n", start, min(size, start + 160))
        key = bytes(data[start : end if end >= 0 else min(size, start + 160)]).translate(_DIGITS)
        groups.setdefault(key, []).append(i)
    keep: list[int] = []
    for members in groups.values():
        keep.extend(members if len(members) <= 5 else members[:2] + members[-2:])
    keep.sort()
    if len(keep) > MAX_CANDIDATES:  # thousands of distinct shapes: keep the ends and a spread
        quarter = MAX_CANDIDATES // 4
        middle = keep[quarter:-quarter]
        step = len(middle) / (MAX_CANDIDATES - 2 * quarter)
        keep = keep[:quarter] + [middle[int(i * step)] for i in range(MAX_CANDIDATES - 2 * quarter)] + keep[-quarter:]
    return [starts[i] for i in keep]
