"""``retrieve_offloaded_content``: read back offloaded content by pattern or line range.

Works over any :class:`workspaces.Workspace` (references are paths or URLs in the
workspace) and over any :class:`~offloader.storage.Storage` (references are what
``store`` returned). Modes:

* pattern: matching lines (``>``) with ``context_lines`` around them, ``---``
  between gaps, under a ``[N matches for /p/ in lines a-b]`` header;
* line range (1-based, inclusive), or a pattern searched within a range;
* head: ``context_lines`` alone gives the first lines;
* full (no arguments): a bounded slice plus how to read on, never 5 MB at once.

Patterns are RE2 (linear time, see :func:`offloader.core.text.compile_pattern`); an
invalid one is an error, never a silent literal search. A pattern search stops
scanning once the output budget is full, so a pattern that matches every line
costs as much as the lines it shows.

Range reads use a line-offset index: one little-endian ``uint64`` per line start
(plus a sentinel, see :mod:`offloader.core.lineindex`), built lazily on the first range read and stored beside the
content as ``{file}.lineidx`` for workspaces (kept in a small per-retriever cache
for Storage). An entry per line (rather than one per N lines) costs 8 bytes a
line but makes a range read exact: one read of ``8 * (lines + 1)`` index bytes,
one read of exactly the bytes of those lines, whatever the file size, even when
a line is megabytes long. The index header records the content's size and mtime;
a mismatch rebuilds it. An index of up to 8 MB (1,048,576 lines; 32 MB in all per
retriever) is also kept in the retriever's cache per (path, size, mtime), so a repeated range read of an unchanged
file costs one stat and one content read; every call still stats, so a rewritten
file is never served from a stale index. The shared Read tool uses a fresh sidecar
to jump to a deep offset instead of scanning from byte 0.
"""

from __future__ import annotations

import operator
from array import array
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .core import lineindex
from .core import text as _text
from .core.backend import WorkspaceProtocol
from .core.errors import WorkspaceError
from .core.layout import INDEX_SUFFIX
from .core.protocol import Storage
from .core.tools import Tool

__all__ = [
    "INDEX_SUFFIX",
    "TOOL_NAME",
    "Retriever",
    "UnknownReference",
    "retrieval_tool",
    "retrieve",
]

TOOL_NAME = "retrieve_offloaded_content"

_HEADER = lineindex.HEADER
_PROBE = 8192
_READ_CAP = 1 << 20  # a range read never fetches more than this many bytes
#: A line index up to this size (1,048,576 lines) is kept in the retriever's cache,
#: so a repeated range read of an unchanged file costs one stat and one content read;
#: the kept indexes of one retriever together stay under _INDEX_CACHE_BYTES.
_INDEX_KEEP_BYTES = 8 << 20
_INDEX_CACHE_BYTES = 32 << 20
_TEXT_APPLICATION = ("json", "xml", "javascript", "yaml", "toml", "sql", "graphql", "csv", "x-ndjson", "jsonl")


class UnknownReference(WorkspaceError, LookupError):
    """Nothing is stored under this reference."""


@dataclass(frozen=True, slots=True)
class _Meta:
    """What a retrieval needs to know about a piece of content before reading it."""

    size: int
    mtime: float
    binary: str | None  # a description when the content is not text


class _Doc:
    """Uniform access to one piece of content: bytes by range, line starts by index."""

    def __init__(self, retriever: Retriever, reference: str) -> None:
        self.r = retriever
        self.reference = reference
        self.meta = _Meta(0, 0.0, None)
        self._data: bytes | None = None  # whole content, when the source only gives that
        self._starts: array[int] | None = None  # in-memory index
        self._rel = ""

    async def load(self) -> None:
        """Stat the content (workspaces) or fetch it (Storage)."""
        source = self.r.source
        if isinstance(source, WorkspaceProtocol):
            self._rel = source.relative(self.reference)
            info = await source.stat(self._rel) if self._rel else None
            if info is None:
                raise UnknownReference(f"unknown reference {self.reference!r}: nothing is stored there")
            cached = self.r._cache_get(("meta", self._rel))
            if isinstance(cached, _Meta) and (cached.size, cached.mtime) == (info.size, info.mtime):
                self.meta = cached
                return
            head = await source.read_bytes(self._rel, 0, min(info.size, _PROBE))
            binary = f"binary data, {info.size} bytes" if b"\x00" in head else None
            self.meta = _Meta(info.size, info.mtime, binary)
            self.r._cache_put(("meta", self._rel), self.meta)
            return
        try:
            stored = await source.retrieve(self.reference)
        except KeyError:
            raise UnknownReference(f"unknown reference {self.reference!r}: nothing is stored there") from None
        data = stored.content
        ctype = stored.content_type or "application/octet-stream"
        binary = None
        if not _is_text_type(ctype) or b"\x00" in data[:_PROBE]:
            binary = f"{ctype}, {len(data)} bytes"
        self._data = data
        self.meta = _Meta(len(data), 0.0, binary)

    async def read(self, start: int = 0, end: int | None = None) -> bytes:
        end = self.meta.size if end is None else min(end, self.meta.size)
        if start >= end:
            return b""
        if self._data is not None:
            return self._data[start:end] if (start, end) != (0, len(self._data)) else self._data
        assert isinstance(self.r.source, WorkspaceProtocol)
        return await self.r.source.read_bytes(self._rel, start, end)

    async def line_starts(self, first: int, last: int) -> list[int]:
        """Start offsets of lines ``first..last`` plus the end of ``last`` (1-based)."""
        if self._starts is not None:
            return list(self._starts[first - 1 : last + 1])
        return await self._read_entries(first, last)

    async def _read_entries(self, first: int, last: int) -> list[int]:
        assert isinstance(self.r.source, WorkspaceProtocol)
        raw = await self.r.source.read_bytes(
            self._rel + INDEX_SUFFIX, _HEADER.size + 8 * (first - 1), _HEADER.size + 8 * (last + 1)
        )
        return list(lineindex.decode_entries(raw))

    async def line_count(self) -> int:
        """Number of lines, making sure a fresh line index exists first."""
        if self._starts is not None:
            return len(self._starts) - 1
        if self._data is not None:
            cached = self.r._cache_get(("index", self.reference))
            if isinstance(cached, tuple) and cached[0] is self._data:
                self._starts = cached[1]
            else:
                self._starts = lineindex.line_starts(self._data)
                self.r._cache_put(("index", self.reference), (self._data, self._starts))
            return len(self._starts) - 1
        source = self.r.source
        assert isinstance(source, WorkspaceProtocol)
        key = ("index", self._rel)
        cached = self.r._cache_get(key)
        if isinstance(cached, tuple) and cached[:2] == (self.meta.size, self.meta.mtime):
            # the content is unchanged since the index was seen (the stat in load() says so)
            self._starts = cached[3]
            return int(cached[2])
        idx_path = self._rel + INDEX_SUFFIX
        try:
            # the header, and the whole index with it when it is small enough to keep in memory
            head = await source.read_bytes(idx_path, 0, _HEADER.size + _INDEX_KEEP_BYTES)
        except (OSError, WorkspaceError):
            head = b""
        lines = lineindex.parse_header(head, self.meta.size, self.meta.mtime)
        if lines is not None:
            starts: array[int] | None = None
            if len(head) == _HEADER.size + 8 * (lines + 1):
                starts = lineindex.decode_entries(head[_HEADER.size :])
            self._starts = starts
            self.r._cache_put(
                key, (self.meta.size, self.meta.mtime, lines, starts), 0 if starts is None else 8 * len(starts)
            )
            return lines
        starts = lineindex.line_starts(await self.read())
        lines = len(starts) - 1
        self._starts = starts
        try:
            await source.write_bytes(idx_path, lineindex.encode(self.meta.size, self.meta.mtime, starts))
        except (OSError, WorkspaceError):
            return lines  # a read-only workspace still gets an exact, in-memory index
        kept = starts if 8 * len(starts) <= _INDEX_KEEP_BYTES else None
        self.r._cache_put(key, (self.meta.size, self.meta.mtime, lines, kept), 0 if kept is None else 8 * len(kept))
        return lines


def _is_text_type(content_type: str) -> bool:
    main, _, sub = content_type.partition(";")[0].strip().lower().partition("/")
    if main == "text":
        return True
    return main == "application" and (sub in _TEXT_APPLICATION or sub.endswith(("+json", "+xml")))


class Retriever:
    """Retrieval over one source, with a small cache of line indexes between calls.

    ``max_output_chars`` (default 10,000, about 2,500 tokens) bounds every answer;
    ``max_line_chars`` (default 500) bounds how much of one line is shown (a
    match in a 5 MB line is shown around the match); ``full_lines`` (default
    200) is the slice returned when nothing but the reference is given.
    """

    def __init__(
        self,
        source: WorkspaceProtocol | Storage,
        *,
        max_output_chars: int = 10_000,
        max_line_chars: int = 500,
        full_lines: int = 200,
        cache_size: int = 16,
    ) -> None:
        if not isinstance(source, WorkspaceProtocol | Storage):
            raise TypeError(f"source must be a Workspace or a Storage, got {type(source).__name__}")
        for name, value in (
            ("max_output_chars", max_output_chars),
            ("max_line_chars", max_line_chars),
            ("full_lines", full_lines),
            ("cache_size", cache_size),
        ):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        self.source = source
        self.max_output_chars = max_output_chars
        self.max_line_chars = max_line_chars
        self.full_lines = full_lines
        self._cache: OrderedDict[tuple[str, str], object] = OrderedDict()
        self._cache_size = cache_size
        self._kept: dict[tuple[str, str], int] = {}  # bytes of the line indexes kept in memory, by key

    def _cache_get(self, key: tuple[str, str]) -> object:
        value = self._cache.get(key)
        if value is not None:
            self._cache.move_to_end(key)
        return value

    def _cache_put(self, key: tuple[str, str], value: object, kept_bytes: int = 0) -> None:
        """Insert or refresh ``key``; evict the least recently used entries beyond ``cache_size``
        entries or beyond ``_INDEX_CACHE_BYTES`` of kept workspace line indexes."""
        self._cache[key] = value
        self._cache.move_to_end(key)
        self._kept.pop(key, None)
        if kept_bytes:
            self._kept[key] = kept_bytes
        while len(self._cache) > self._cache_size or (
            len(self._cache) > 1 and sum(self._kept.values()) > _INDEX_CACHE_BYTES
        ):
            old, _ = self._cache.popitem(last=False)
            self._kept.pop(old, None)

    async def retrieve(
        self,
        reference: str,
        *,
        pattern: str | None = None,
        line_range: Mapping[str, Any] | tuple[int, int] | list[int] | None = None,
        context_lines: int | None = None,
        ignore_case: bool = False,
    ) -> str:
        """Content at ``reference``, by pattern, range, both, head, or a bounded full slice."""
        if not isinstance(reference, str) or not reference:
            raise ValueError("reference must be a non-empty string")
        span = _parse_range(line_range)
        if context_lines is not None and (
            not isinstance(context_lines, int) or isinstance(context_lines, bool) or not 0 <= context_lines <= 100
        ):
            raise ValueError(f"context_lines must be an integer from 0 to 100, got {context_lines!r}")
        regex = _text.compile_pattern(pattern, ignore_case=bool(ignore_case)) if pattern is not None else None
        doc = _Doc(self, reference)
        await doc.load()
        searching = regex is not None or span is not None or context_lines is not None
        if doc.meta.binary is not None:
            if searching:
                raise ValueError(
                    f"{reference} holds binary content ({doc.meta.binary}); pattern, line_range and "
                    "context_lines work on text only. Omit them to get a description."
                )
            return f"[{reference} holds binary content ({doc.meta.binary}); it cannot be shown as text]"
        if doc.meta.size == 0:
            return f"[{reference} is empty (0 lines)]"
        if regex is not None:
            assert pattern is not None
            return await self._by_pattern(doc, regex, pattern, span, 5 if context_lines is None else context_lines)
        if span is not None:
            return await self._by_range(doc, span, full=False)
        if context_lines is not None:
            return await self._by_range(doc, (1, max(1, context_lines)), full=False)
        return await self._by_range(doc, (1, self.full_lines), full=True)

    # ------------------------------------------------------------ range

    async def _by_range(self, doc: _Doc, span: tuple[int, int], *, full: bool) -> str:
        total = await doc.line_count()
        first, last = span
        if first > total:
            raise ValueError(f"line_range start {first} is past the end of {doc.reference} ({total} lines)")
        last = min(last, total)
        starts = await doc.line_starts(first, last)
        base = starts[0]
        data = await doc.read(base, min(starts[-1], base + _READ_CAP))
        out = _Output(self.max_output_chars)
        width = len(str(last))
        shown = first - 1
        if starts[-1] - base == len(data) and max(map(operator.sub, starts[1:], starts)) <= self.max_line_chars:
            # fast path, every line short and read whole: decode once, split once, render in one go
            decoded = data.decode("utf-8", "replace").split("\n")
            numbered = zip(range(first, last + 1), decoded, strict=False)  # split leaves a last ""
            rendered = [f"  {no:>{width}}| {line}" for no, line in numbered]
            shown = first - 1 + out.extend(rendered)
            return self._range_answer(doc, out, first, shown, last, total, full)
        for i in range(last - first + 1):
            a, b = starts[i] - base, starts[i + 1] - base
            if a >= len(data) and b > a:
                break
            text = data[a:b]
            length = b - a
            if text.endswith(b"\n"):
                text, length = text[:-1], length - 1
            elif b > len(data):
                length -= 1  # cut by the read cap; the line (almost surely) ends with a newline
            if not out.add(*self._render(first + i, width, text, length, None)):
                break
            shown = first + i
        return self._range_answer(doc, out, first, shown, last, total, full)

    def _range_answer(self, doc: _Doc, out: _Output, first: int, shown: int, last: int, total: int, full: bool) -> str:
        parts = [f"[lines {first}-{shown} of {total} in {doc.reference}]", *out.lines, *out.notes(self.max_line_chars)]
        if shown < last or (full and shown < total):
            nxt = shown + 1
            why = "output capped" if shown < last else "showing the beginning only"
            parts.append(
                f"[{why}: {total} lines, {doc.meta.size} bytes in total. Read on with line_range "
                f'{{"start": {nxt}, "end": {min(total, nxt + max(shown - first, 49))}}}, '
                "or narrow your search with a pattern]"
            )
        return "\n".join(parts)

    # ------------------------------------------------------------ pattern

    async def _by_pattern(
        self, doc: _Doc, regex: object, pattern: str, span: tuple[int, int] | None, context: int
    ) -> str:
        if span is not None:
            total = await doc.line_count()
            first, last = span
            if first > total:
                raise ValueError(f"line_range start {first} is past the end of {doc.reference} ({total} lines)")
            last = min(last, total)
            starts = await doc.line_starts(first, last)
            data = await doc.read(starts[0], starts[-1])
        else:
            data = await doc.read()
            first = last = 1
        offset = first - 1
        # Lines are numbered while scanning; the width of the numbers is only known at
        # the end, so the budget is checked with an upper bound and lines rendered last.
        bound = len(str(offset + len(data) + 1))
        out = _Output(self.max_output_chars)
        shown: list[tuple[int, bytes, int, tuple[int, int] | None]] = []
        matches = 0
        capped = False
        scanner = _Scanner(data, regex, context)
        for no, text, length, match in scanner:
            line = "---" if no == 0 else self._render(no + offset, bound, text, length, match)[0]
            if not out.add(line):
                capped = True
                break
            shown.append((no, text, length, match))
            matches += match is not None
        if span is None:  # finish counting lines from where the scan stopped: one pass in all
            last = scanner.line_no + data.count(b"\n", scanner.counted_to) - (1 if data.endswith(b"\n") else 0)
        width = len(str(last))
        out = _Output(self.max_output_chars)
        last_shown = offset
        for no, text, length, match in shown:
            if no == 0:
                out.add("---")
                continue
            out.add(*self._render(no + offset, width, text, length, match))
            last_shown = no + offset
        where = f"in lines {first}-{last}"
        if not matches and not capped:
            return f"[no matches for /{pattern}/ {where} of {doc.reference}]"
        count = f"{matches}+" if capped else str(matches)
        parts = [f"[{count} match{'' if count == '1' else 'es'} for /{pattern}/ {where}]", *out.lines]
        parts += out.notes(self.max_line_chars)
        if capped:
            parts.append(
                f"[output capped after line {last_shown}: narrow your search with a more specific pattern "
                f'or a line_range, or continue with line_range {{"start": {last_shown + 1}, "end": {last}}}]'
            )
        return "\n".join(parts)

    def _render(self, no: int, width: int, text: bytes, length: int, match: tuple[int, int] | None) -> tuple[str, bool]:
        """One numbered line (``>`` when it matched); a long line shows a window, around the match."""
        mark = ">" if match is not None else " "
        limit = self.max_line_chars
        if length <= limit:
            return f"{mark} {no:>{width}}| {text.decode('utf-8', 'replace')}", False
        start = max(0, match[0] - limit // 4) if match is not None else 0
        body, lo, hi = _text.line_window(text, start, limit)
        prefix = f"[col {lo + 1}] " if lo else ""
        suffix = f" [... line continues, {length} bytes]" if hi < length else ""
        return f"{mark} {no:>{width}}| {prefix}{body}{suffix}", True


class _Output:
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


class _Scanner:
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


def _parse_range(value: Mapping[str, Any] | tuple[int, int] | list[int] | None) -> tuple[int, int] | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        unknown = set(value) - {"start", "end"}
        if unknown or "start" not in value:
            raise ValueError('line_range must be {"start": N, "end": M} (1-based, inclusive)')
        start, end = value["start"], value.get("end", value["start"])
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        start, end = value
    else:
        raise ValueError('line_range must be {"start": N, "end": M} (1-based, inclusive)')
    for name, v in (("start", start), ("end", end)):
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise ValueError(f"line_range {name} must be a positive integer (lines are 1-based), got {v!r}")
    if start > end:
        raise ValueError(f"line_range start ({start}) must not be after end ({end})")
    return start, end


async def retrieve(
    source: WorkspaceProtocol | Storage,
    reference: str,
    *,
    pattern: str | None = None,
    line_range: Mapping[str, Any] | tuple[int, int] | list[int] | None = None,
    context_lines: int | None = None,
    ignore_case: bool = False,
) -> str:
    """One-shot retrieval (see :class:`Retriever`; keep a Retriever to reuse its index cache)."""
    return await Retriever(source).retrieve(
        reference, pattern=pattern, line_range=line_range, context_lines=context_lines, ignore_case=ignore_case
    )


def retrieval_tool(source: WorkspaceProtocol | Storage, **options: Any) -> Tool:
    """The Strands-compatible ``retrieve_offloaded_content`` tool bound to ``source``."""
    retriever = Retriever(source, **options)

    async def retrieve_offloaded_content(
        reference: str,
        pattern: str | None = None,
        line_range: Mapping[str, Any] | None = None,
        context_lines: int | None = None,
        ignore_case: bool = False,
    ) -> str:
        return await retriever.retrieve(
            reference, pattern=pattern, line_range=line_range, context_lines=context_lines, ignore_case=ignore_case
        )

    return Tool(
        TOOL_NAME,
        "Read back content that was offloaded from the conversation, by its reference. "
        "With pattern: matching lines (marked >) with context_lines around them. With line_range: "
        "exactly those lines (1-based, inclusive); combine both to search within a range. With "
        "context_lines alone: the first lines. With only the reference: the beginning plus how to "
        "read on. Line numbers in the output can be used in a follow-up line_range.",
        {
            "type": "object",
            "properties": {
                "reference": {"type": "string", "description": "The reference from the offload placeholder"},
                "pattern": {"type": "string", "description": "Regular expression (RE2 syntax) to search for"},
                "line_range": {
                    "type": "object",
                    "description": "Only these lines (1-based, inclusive)",
                    "properties": {
                        "start": {"type": "integer", "minimum": 1},
                        "end": {"type": "integer", "minimum": 1},
                    },
                    "required": ["start", "end"],
                },
                "context_lines": {
                    "type": "integer",
                    "minimum": 0,
                    "maximum": 100,
                    "default": 5,
                    "description": "Lines before and after each match; alone, the number of first lines to show",
                },
                "ignore_case": {"type": "boolean", "default": False},
            },
            "required": ["reference"],
        },
        retrieve_offloaded_content,
    )
