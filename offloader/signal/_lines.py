"""An output's lines around a position, read as a terminal shows them.

The ranking and the context rules look at the lines next to a candidate: the line before and
after it, a few lines up or down. Each is decoded from the output's bytes as a terminal shows it
(escape sequences removed, the last state of a carriage-return progress line), and a very long
line only around the place that matters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ._scan import Scan

__all__ = [
    "WINDOW",
    "as_shown",
    "decode_window",
    "indent_of",
    "line_after",
    "line_before",
    "lines_after",
    "lines_before",
    "neighbours",
    "strip_ansi",
    "text_of",
    "without_prefix",
]

#: Characters of a very long line looked at around its match (for classification and templates).
WINDOW = 2048
#: Terminal escape sequences (ECMA-48): control sequences (``ESC [ 1;31 m``), operating system commands
#: (``ESC ] 0;title BEL``), and the short ones: a final byte after any intermediate bytes, such as the character
#: set designation ``ESC ( B`` that ``tput sgr0`` and Rust's test runner write after a coloured word.
_ANSI = re.compile(r"\x1b\[[0-9;:?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-Z\\-~]")


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def decode_window(scan: Scan, start: int, end: int, focus: int) -> str:
    """The line at ``start``-``end`` as shown (a line longer than :data:`WINDOW`: the window around ``focus``),
    after its source's prefix (see :func:`without_prefix`)."""
    if end - start > WINDOW:
        start = max(start, focus - WINDOW // 2)
        end = min(end, start + WINDOW)
    # every carriage-return state of a progress line is read (the match may be in an earlier one)
    text = strip_ansi(bytes(scan.data[start:end]).decode("utf-8", "replace")).rstrip("\r").replace("\r", " ")
    return without_prefix(scan, text)


def without_prefix(scan: Scan, text: str) -> str:
    """``text`` (a line of ``scan``) after its source's prefix, in an output that interleaves sources."""
    if scan.prefix is not None and (prefix := scan.prefix.match(text)) is not None:
        return text[prefix.end() :]
    return text


def as_shown(line: str) -> str:
    """A line as a terminal shows it: no escapes, the last carriage-return state."""
    return strip_ansi(line).rstrip("\r").rsplit("\r", 1)[-1]


def line_before(scan: Scan, start: int) -> tuple[int, int] | None:
    """The bounds of the line above the one starting at ``start``, or None at the first line."""
    if start <= 0:
        return None
    return scan.data.rfind(b"\n", 0, start - 1) + 1, start - 1


def line_after(scan: Scan, end: int) -> tuple[int, int] | None:
    """The bounds of the line below the one ending at ``end``, or None at the last line."""
    if end >= scan.size:
        return None
    stop = scan.data.find(b"\n", end + 1, scan.size)
    return end + 1, scan.size if stop < 0 else stop


def text_of(scan: Scan, bounds: tuple[int, int]) -> str:
    """The line within ``bounds`` as shown."""
    start, end = bounds
    return decode_window(scan, start, end, start)


def neighbours(scan: Scan, start: int, end: int) -> tuple[str, str]:
    """The lines just above and below the line at ``start``-``end``, as shown ("" past the output's ends)."""
    before, after = line_before(scan, start), line_after(scan, end)
    return (text_of(scan, before) if before else ""), (text_of(scan, after) if after else "")


def lines_before(scan: Scan, start: int, limit: int) -> Iterator[tuple[int, tuple[int, int], str]]:
    """Up to ``limit`` lines upwards from the line starting at ``start``: (lines back, bounds, text)."""
    for back in range(1, limit + 1):
        bounds = line_before(scan, start)
        if bounds is None:
            return
        yield back, bounds, text_of(scan, bounds)
        start = bounds[0]


def lines_after(scan: Scan, end: int, limit: int) -> Iterator[tuple[int, tuple[int, int], str]]:
    """Up to ``limit`` lines downwards from the line ending at ``end``: (lines ahead, bounds, text)."""
    for ahead in range(1, limit + 1):
        bounds = line_after(scan, end)
        if bounds is None:
            return
        yield ahead, bounds, text_of(scan, bounds)
        end = bounds[1]


def indent_of(line: str) -> int:
    """How many spaces and tabs ``line`` starts with."""
    return len(line) - len(line.lstrip(" \t"))
