"""The Retriever: read back offloaded content by pattern, line range, head or a bounded slice."""

from __future__ import annotations

import operator
from collections.abc import Mapping
from typing import Any, TypedDict, Unpack

from ..core import text as _text
from ..core.backend import WorkspaceProtocol
from ..core.protocol import Storage
from ..core.tools import Tool
from .index import IndexCache, line_count, line_starts
from .rendering import Output, Scanner, range_answer, render_line
from .sources import Document

__all__ = ["TOOL_NAME", "Query", "Retriever", "retrieval_tool", "retrieve"]

TOOL_NAME = "retrieve_offloaded_content"
_READ_CAP = 1 << 20  # a range read never fetches more than this many bytes


class Query(TypedDict, total=False):
    """What to read back (see :meth:`Retriever.retrieve`)."""

    pattern: str | None
    line_range: Mapping[str, Any] | tuple[int, int] | list[int] | None
    context_lines: int | None
    ignore_case: bool


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
        self._cache = IndexCache(cache_size)

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
        doc = Document(self.source, reference, self._cache)
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

    async def _span(self, doc: Document, span: tuple[int, int]) -> tuple[int, int, int, list[int]]:
        """(first, last clipped to the end, line count, line starts) for a 1-based line span."""
        total = await line_count(doc, self._cache)
        first, last = span
        if first > total:
            raise ValueError(f"line_range start {first} is past the end of {doc.reference} ({total} lines)")
        last = min(last, total)
        return first, last, total, await line_starts(doc, first, last)

    async def _by_range(self, doc: Document, span: tuple[int, int], *, full: bool) -> str:
        first, last, total, starts = await self._span(doc, span)
        base = starts[0]
        data = await doc.read(base, min(starts[-1], base + _READ_CAP))
        out = Output(self.max_output_chars)
        width = len(str(last))
        shown = first - 1
        if starts[-1] - base == len(data) and max(map(operator.sub, starts[1:], starts)) <= self.max_line_chars:
            # fast path, every line short and read whole: decode once, split once, render in one go
            decoded = data.decode("utf-8", "replace").split("\n")
            numbered = zip(range(first, last + 1), decoded, strict=False)  # split leaves a last ""
            rendered = [f"  {no:>{width}}| {line}" for no, line in numbered]
            shown = first - 1 + out.extend(rendered)
            return range_answer(doc, out, first, shown, last, total, full, self.max_line_chars)
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
            if not out.add(*render_line(first + i, width, text, length, None, self.max_line_chars)):
                break
            shown = first + i
        return range_answer(doc, out, first, shown, last, total, full, self.max_line_chars)

    # ------------------------------------------------------------ pattern

    async def _by_pattern(
        self, doc: Document, regex: object, pattern: str, span: tuple[int, int] | None, context: int
    ) -> str:
        if span is not None:
            first, last, _, starts = await self._span(doc, span)
            data = await doc.read(starts[0], starts[-1])
        else:
            data = await doc.read()
            first = last = 1
        offset = first - 1
        # Lines are numbered while scanning; the width of the numbers is only known at
        # the end, so the budget is checked with an upper bound and lines rendered last.
        bound = len(str(offset + len(data) + 1))
        out = Output(self.max_output_chars)
        shown: list[tuple[int, bytes, int, tuple[int, int] | None]] = []
        matches = 0
        capped = False
        scanner = Scanner(data, regex, context)
        for no, text, length, match in scanner:
            line = "---" if no == 0 else render_line(no + offset, bound, text, length, match, self.max_line_chars)[0]
            if not out.add(line):
                capped = True
                break
            shown.append((no, text, length, match))
            matches += match is not None
        if span is None:  # finish counting lines from where the scan stopped: one pass in all
            last = scanner.line_no + data.count(b"\n", scanner.counted_to) - (1 if data.endswith(b"\n") else 0)
        width = len(str(last))
        out = Output(self.max_output_chars)
        last_shown = offset
        for no, text, length, match in shown:
            if no == 0:
                out.add("---")
                continue
            out.add(*render_line(no + offset, width, text, length, match, self.max_line_chars))
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


async def retrieve(source: WorkspaceProtocol | Storage, reference: str, **query: Unpack[Query]) -> str:
    """One-shot retrieval (see :meth:`Retriever.retrieve`; keep a Retriever to reuse its index cache)."""
    return await Retriever(source).retrieve(reference, **query)


def retrieval_tool(source: WorkspaceProtocol | Storage, **options: Any) -> Tool:
    """The Strands-compatible ``retrieve_offloaded_content`` tool bound to ``source``."""
    retriever = Retriever(source, **options)

    async def retrieve_offloaded_content(reference: str, **query: Unpack[Query]) -> str:
        return await retriever.retrieve(reference, **query)

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
