"""How retrieved lines are shown: numbered, long lines windowed, under an output budget."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..core import text as _text

if TYPE_CHECKING:
    from .sources import Document

__all__ = ["Output", "Scanner", "range_answer", "render_line"]


def render_line(
    no: int, width: int, text: bytes, length: int, match: tuple[int, int] | None, limit: int
) -> tuple[str, bool]:
    """One numbered line (``>`` when it matched); a long line shows a window, around the match."""
    mark = ">" if match is not None else " "
    if length <= limit:
        return f"{mark} {no:>{width}}| {text.decode('utf-8', 'replace')}", False
    start = max(0, match[0] - limit // 4) if match is not None else 0
    body, lo, hi = _text.line_window(text, start, limit)
    prefix = f"[col {lo + 1}] " if lo else ""
    suffix = f" [... line continues, {length} bytes]" if hi < length else ""
    return f"{mark} {no:>{width}}| {prefix}{body}{suffix}", True


def range_answer(
    doc: Document, out: Output, first: int, shown: int, last: int, total: int, full: bool, width: int
) -> str:
    """Lines ``first..shown`` of ``last`` asked for, under a header, with how to read on."""
    parts = [f"[lines {first}-{shown} of {total} in {doc.reference}]", *out.lines, *out.notes(width)]
    if shown < last or (full and shown < total):
        nxt = shown + 1
        why = "output capped" if shown < last else "showing the beginning only"
        parts.append(
            f"[{why}: {total} lines, {doc.meta.size} bytes in total. Read on with line_range "
            f'{{"start": {nxt}, "end": {min(total, nxt + max(shown - first, 49))}}}, '
            "or narrow your search with a pattern]"
        )
    return "\n".join(parts)


class Output:
    """Collects rendered lines under a character budget, always cutting at a line boundary."""

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.lines: list[str] = []
        self.used = 0
        self.long_lines = False

    def add(self, line: str, long_line: bool = False) -> bool:
        if self.used + len(line) + 1 > self.budget and self.lines:
            return False
        self.lines.append(line)
        self.used += len(line) + 1
        self.long_lines |= long_line
        return True

    def extend(self, lines: list[str]) -> int:
        """:meth:`add` for short lines in order, stopping at the first that does not fit; how many fit."""
        used, kept = self.used, 0
        for line in lines:
            cost = len(line) + 1
            if used + cost > self.budget and (self.lines or kept):
                break
            used += cost
            kept += 1
        self.lines.extend(lines[:kept])
        self.used = used
        return kept

    def notes(self, width: int) -> list[str]:
        if not self.long_lines:
            return []
        return [f"[long lines are shown {width} bytes at a time; a pattern shows the part around each match]"]


_Line = tuple[int, bytes, int, "tuple[int, int] | None"]


class Scanner:
    """Display lines in order, lazily: (line_no, bytes, length, match span or None).

    A gap between non-adjacent lines is yielded as line number 0. Scanning stops
    as soon as the consumer stops, so a capped search costs what it shows. After
    iteration, ``line_no`` is the number of the line starting at ``counted_to``
    (newlines are counted once, only as far as the scan went).
    """

    def __init__(self, data: bytes, regex: object, context: int) -> None:
        self.data = data
        self.regex = regex
        self.context = context
        self.line_no = 1
        self.counted_to = 0

    def __iter__(self) -> Iterator[_Line]:
        data, context = self.data, self.context
        search = self.regex.search  # type: ignore[attr-defined]
        end = len(data)
        pos = 0
        last_no, last_end = 0, -1  # last line yielded and the offset of its terminating newline
        after_until = 0
        while pos < end:
            m = search(data, pos, end)
            if m is None:
                break
            ms = m.start()
            ls = data.rfind(b"\n", 0, ms) + 1
            le = data.find(b"\n", ms)
            le = end if le < 0 else le
            self.line_no += data.count(b"\n", self.counted_to, ls)
            self.counted_to = ls
            line_no = self.line_no
            s, n = last_end + 1, last_no
            while n < min(after_until, line_no - 1) and s < end:  # trailing context of the previous match
                e = data.find(b"\n", s)
                e = end if e < 0 else e
                n += 1
                yield n, data[s:e], e - s, None
                s = e + 1
            last_no = n
            first_ctx = max(line_no - context, last_no + 1, 1)
            if last_no and first_ctx > last_no + 1:
                yield 0, b"", 0, None
            before: list[tuple[int, int, int]] = []
            s = ls
            for n in range(line_no - 1, first_ctx - 1, -1):
                ps = data.rfind(b"\n", 0, s - 1) + 1
                before.append((n, ps, s - 1))
                s = ps
            for n, a, b in reversed(before):
                yield n, data[a:b], b - a, None
            yield line_no, data[ls:le], le - ls, (ms - ls, max(m.end(), ms) - ls)
            last_no, last_end = line_no, le
            after_until = line_no + context
            pos = le + 1
        s, n = last_end + 1, last_no
        while n < after_until and s < end:
            e = data.find(b"\n", s)
            e = end if e < 0 else e
            n += 1
            yield n, data[s:e], e - s, None
            s = e + 1
