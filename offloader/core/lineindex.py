"""The line-offset index format (``{file}.lineidx``): build, encode, and look a line up.

One little-endian ``uint64`` per line start plus a final sentinel (the content's
size), after a header recording the content's size and mtime; a header that
does not match the content's stat means a stale index. Written by retrieval;
read by it and by the Read tool to jump to a deep line.
"""

from __future__ import annotations

import re
import struct
import sys
from array import array
from collections.abc import Awaitable, Callable

from .errors import WorkspaceError
from .layout import INDEX_SUFFIX

__all__ = ["HEADER", "MAGIC", "decode_entries", "encode", "indexed_line_start", "line_starts", "parse_header"]

MAGIC = b"OFLIDX1\n"
HEADER = struct.Struct("<8sQdQ")  # magic, content size, content mtime, line count
#: Header and entry are read in one call when the entry is this near the start.
_ONE_READ_BYTES = 1 << 18
_NEWLINE = re.compile(rb"\n")

#: ``read(path, start, end)``: bytes of a workdir-relative file (FileNotFoundError if missing).
Reader = Callable[[str, int, int], Awaitable[bytes]]


def line_starts(data: bytes) -> array[int]:
    """Start offset of every line plus a final sentinel (= len(data))."""
    starts = array("Q", [0])
    starts.extend(m.end() for m in _NEWLINE.finditer(data))
    if starts[-1] != len(data):
        starts.append(len(data))
    return starts


def encode(size: int, mtime: float, starts: array[int]) -> bytes:
    """The whole index file for content of ``size`` bytes and ``mtime`` with these line starts."""
    body = starts
    if sys.byteorder != "little":
        body = array("Q", starts)
        body.byteswap()
    return HEADER.pack(MAGIC, size, mtime, len(starts) - 1) + body.tobytes()


def decode_entries(raw: bytes) -> array[int]:
    """Entries (little-endian uint64) as an array."""
    values = array("Q")
    values.frombytes(raw[: len(raw) - len(raw) % 8])
    if sys.byteorder != "little":
        values.byteswap()
    return values


def parse_header(head: bytes, size: int, mtime: float) -> int | None:
    """Line count from an index header, or None when it is not one or does not match ``size``/``mtime``."""
    if len(head) < HEADER.size:
        return None
    magic, isize, imtime, lines = HEADER.unpack_from(head)
    if magic != MAGIC or (isize, imtime) != (size, mtime):
        return None
    return int(lines)


async def indexed_line_start(read: Reader, rel: str, size: int, mtime: float, line: int) -> tuple[int, int] | None:
    """``(offset of line ``line``, line count)`` from a fresh ``.lineidx`` beside ``rel``, else None.

    Fresh means the header records exactly ``size`` and ``mtime`` (the caller's
    stat). An index exists only for text, so a fresh one also says the content is
    not binary. Past the last line the offset is ``size``. One read when the
    entry is near the start, else two small ones (header, entry).
    """
    path = rel + INDEX_SUFFIX
    entry_end = HEADER.size + 8 * min(line, size + 1)
    try:
        if entry_end <= _ONE_READ_BYTES:
            raw = await read(path, 0, entry_end)
            head, entry = raw[: HEADER.size], raw[entry_end - 8 : entry_end]
        else:
            head = await read(path, 0, HEADER.size)
            entry = b""
    except (OSError, WorkspaceError):
        return None
    lines = parse_header(head, size, mtime) if len(head) == HEADER.size else None
    if lines is None:
        return None
    if line > lines:
        return size, lines
    if not entry:
        try:
            entry = await read(path, entry_end - 8, entry_end)
        except (OSError, WorkspaceError):
            return None
    if len(entry) != 8:
        return None
    (start,) = struct.unpack("<Q", entry)
    return (int(start), lines) if start <= size else None
