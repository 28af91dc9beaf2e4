"""Read, Grep and Glob over a workspace.

The operations are methods of every workspace (``await ws.read(...)``); ``ws.tools()``
wraps them as :class:`~offloader.core.tools.Tool` objects (an async callable plus a
JSON schema) that any agent framework can register.
"""

from __future__ import annotations

import functools

import anyio
import anyio.to_thread

from offloader.core import lineindex
from offloader.core import text as _text
from offloader.core.backend import FileInfo
from offloader.core.layout import is_hidden
from offloader.core.tools import Tool

from .contract import Backend

__all__ = ["FileTools"]

_CHUNK = 1 << 20
#: Files larger than this are scanned by Grep in a worker thread (a scan is linear; the loop stays free).
_SCAN_INLINE = 256 << 10
_BINARY_PROBE = 8192


def _is_binary(head: bytes) -> bool:
    return b"\x00" in head[:_BINARY_PROBE]


class FileTools(Backend):
    """Mixin giving a workspace its Read / Grep / Glob operations."""

    max_line_bytes: int = 2000
    max_output_chars: int = 40_000
    match_window_bytes: int = 400

    # ------------------------------------------------------------ Read

    async def read(self, path: str, offset: int = 1, limit: int = 2000, column: int = 1) -> str:
        """Numbered lines ``offset..offset+limit-1`` of a file.

        Lines longer than ``max_line_bytes`` show one window and say how to read
        on with ``column``; a single 5 MB line is read piece by piece.
        """
        await self._ready()
        _positive(offset=offset, limit=limit, column=column)
        rel = self.relative(path)
        info = await self._stat(rel)
        ref = self.reference(rel)
        if info is None:
            if rel == "" or await self._list(rel):
                raise IsADirectoryError(ref)
            raise FileNotFoundError(ref)
        if info.size == 0:
            return f"[{ref} is empty]"
        line_no, pos = 1, 0
        first_chunk: bytes | None = None
        # A file of one chunk is read whole in one call anyway: the index only helps past that.
        jump = await self._indexed_start(rel, info, offset) if offset > 1 and info.size > _CHUNK else None
        if jump is not None:  # a fresh retrieval line index: start at the line, not at byte 0
            pos, total = jump
            if offset > total:
                return f"[{ref} has {total} lines; offset {offset} is past the end]"
            line_no = offset
        else:
            first_chunk = await self._read(rel, 0, min(info.size, _CHUNK))  # also the binary probe
            if _is_binary(first_chunk):
                return f"[{ref} is a binary file of {info.size} bytes; it cannot be shown as text]"
        width = self.max_line_bytes
        out: list[str] = []
        chars = 0
        shown_last: int | None = None
        more_after = False
        notes: list[str] = []
        pending = b""  # bytes of the current line kept so far (at most column-1+width)
        line_len = 0
        started = False  # the current line has bytes (counted even before ``offset``)
        while pos < info.size:
            chunk = (
                first_chunk
                if pos == 0 and first_chunk is not None
                else await self._read(rel, pos, min(info.size, pos + _CHUNK))
            )
            if not chunk:
                break
            pos += len(chunk)
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                piece = chunk[start:] if nl < 0 else chunk[start:nl]
                if line_no >= offset:
                    keep = column - 1 + width + 4
                    if len(pending) < keep:
                        pending += piece[: keep - len(pending)]
                    line_len += len(piece)
                if nl < 0:
                    started = started or bool(piece)
                    break
                if line_no >= offset:
                    if shown_last is not None and line_no - offset >= limit:
                        more_after = True
                        break
                    text, note = self._render_line(ref, line_no, pending, line_len, column)
                    if chars + len(text) > self.max_output_chars and out:
                        more_after = True
                        break
                    out.append(text)
                    chars += len(text)
                    shown_last = line_no
                    if note:
                        notes.append(note)
                pending, line_len, started = b"", 0, False
                line_no += 1
                start = nl + 1
            if more_after:
                break
        if not more_after and line_no >= offset and (pending or line_len):
            if shown_last is not None and line_no - offset >= limit:
                more_after = True
            else:
                text, note = self._render_line(ref, line_no, pending, line_len, column)
                out.append(text)
                shown_last = line_no
                if note:
                    notes.append(note)
        if shown_last is None:
            total = line_no if (pending or line_len or started) else line_no - 1
            return f"[{ref} has {total} lines; offset {offset} is past the end]"
        footer = notes[:3]
        if more_after:
            footer.append(f"[more lines follow; continue with offset={shown_last + 1}]")
        return "\n".join(out + footer)

    async def _indexed_start(self, rel: str, info: FileInfo, line: int) -> tuple[int, int] | None:
        """(byte offset of ``line``, line count) from a fresh retrieval line index, else None."""
        return await lineindex.indexed_line_start(self._read, rel, info.size, info.mtime, line)

    def _render_line(self, ref: str, line_no: int, data: bytes, length: int, column: int) -> tuple[str, str | None]:
        width = self.max_line_bytes
        if length <= width and column == 1:
            return f"{line_no:>6}\t{data.decode('utf-8', 'replace')}", None
        text, lo, hi = _text.line_window(data, column - 1, width)
        note = None
        if hi < length:
            note = (
                f"[line {line_no} is {length} bytes; shown bytes {lo + 1}-{hi}; read on with "
                f"offset={line_no}, limit=1, column={hi + 1}]"
            )
        prefix = f"{line_no:>6}\t" + (f"[col {lo + 1}] " if lo else "")
        return prefix + text, note

    # ------------------------------------------------------------ Grep

    async def grep(
        self,
        pattern: str,
        path: str = ".",
        glob: str | None = None,
        context: int = 0,
        ignore_case: bool = False,
        max_matches: int = 100,
    ) -> str:
        """Numbered matching lines with ``context`` lines around them (RE2: linear time)."""
        await self._ready()
        _positive(max_matches=max_matches)
        if context < 0 or context > 50:
            raise ValueError("context must be between 0 and 50")
        regex = _text.compile_pattern(pattern, ignore_case=ignore_case)
        rel = self.relative(path)
        files = await self._candidate_files(rel, glob)
        native = (
            await self._grep_native(pattern, rel, ignore_case=ignore_case, glob=glob)
            if self.capabilities.native_grep
            else None
        )
        if native is not None:
            allowed = set(native)
            files = [f for f in files if f.path in allowed]
        blocks: list[str] = []
        total = shown = n_files = 0
        chars = 0
        truncated = False
        binary: list[str] = []
        for info in files:
            data = await self._read(info.path)
            if _is_binary(data):
                probe = functools.partial(regex.search, data)  # type: ignore[attr-defined]
                if await anyio.to_thread.run_sync(probe) if len(data) > _SCAN_INLINE else probe():
                    binary.append(self.reference(info.path))
                continue
            budget = max_matches - shown
            scan = functools.partial(_text.search, data, regex, context=context, max_matches=max(budget, 0))
            # a big file is scanned in a worker thread: the event loop keeps serving other tasks
            hits, count = await anyio.to_thread.run_sync(scan) if len(data) > _SCAN_INLINE else scan()
            if not count:
                continue
            total += count
            n_files += 1
            if budget <= 0:
                truncated = True
                continue
            lines = [self.reference(info.path)]
            prev = None
            for hit in hits:
                if prev is not None and hit.line_no > prev + 1:
                    lines.append("--")
                lines.append(self._render_hit(hit))
                prev = hit.line_no
            block = "\n".join(lines)
            if chars + len(block) > self.max_output_chars:
                truncated = True
                break
            blocks.append(block)
            chars += len(block)
            shown += min(count, budget)
            if count > budget:
                truncated = True
        header = f"[{total} matching lines for /{pattern}/ in {n_files} files]"
        if not total and not binary:
            return f"[no matches for /{pattern}/ under {self.reference(rel)}]"
        out = [header, *blocks]
        if binary:
            out.append("binary files that match (not shown): " + ", ".join(binary[:20]))
        if truncated:
            out.append(
                f"[output capped: showing {shown} of {total} matching lines; narrow the search "
                "with a more specific pattern, a path, or a glob]"
            )
        return "\n".join(out)

    def _render_hit(self, hit: _text.Hit) -> str:
        sep = ":" if hit.match is not None else "-"
        data = hit.text
        window = self.match_window_bytes
        if len(data) <= window:
            return f"{hit.line_no:>6}{sep} {data.decode('utf-8', 'replace')}"
        center = hit.match[0] if hit.match else 0
        start = max(0, center - window // 4)
        text, lo, hi = _text.line_window(data, start, window)
        pre = f"[col {lo + 1}] " if lo else ""
        post = f" [... line continues, {len(data)} bytes]" if hi < len(data) else ""
        return f"{hit.line_no:>6}{sep} {pre}{text}{post}"

    # ------------------------------------------------------------ Glob

    async def glob(self, pattern: str, path: str = ".", max_results: int = 200) -> str:
        """Files matching a glob under ``path``, newest first."""
        await self._ready()
        _positive(max_results=max_results)
        rel = self.relative(path)
        files = await self._candidate_files(rel, pattern)
        if not files:
            return f"[no files match {pattern!r} under {self.reference(rel)}]"
        files.sort(key=lambda f: (-f.mtime, f.path))
        lines = [self.reference(f.path) for f in files[:max_results]]
        if len(files) > max_results:
            lines.append(f"[{len(files) - max_results} more files; narrow the pattern or path]")
        return "\n".join(lines)

    async def _candidate_files(self, rel: str, glob: str | None) -> list[FileInfo]:
        info = await self._stat(rel) if rel else None
        if info is not None:
            return [info]
        # temp files of atomic writes and line-index sidecars of retrieval are never shown
        files = [f for f in await self._list(rel) if not is_hidden(f.path)]
        if glob:
            matcher = _text.glob_matcher(glob)
            cut = len(rel) + 1 if rel else 0
            files = [f for f in files if matcher.match(f.path[cut:])]
        files.sort(key=lambda f: f.path)
        return files

    # ------------------------------------------------------------ tools

    def _file_tools(self) -> list[Tool]:
        where = f"the workspace at {self.workdir}"
        return [
            Tool(
                "Read",
                f"Read a text file in {where} as numbered lines. Use offset/limit to page through "
                "large files; very long lines are shown in windows (use column to read on).",
                {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "Path or reference of the file"},
                        "offset": {"type": "integer", "minimum": 1, "default": 1, "description": "First line, 1-based"},
                        "limit": {"type": "integer", "minimum": 1, "default": 2000, "description": "Lines to show"},
                        "column": {
                            "type": "integer",
                            "minimum": 1,
                            "default": 1,
                            "description": "First byte of each line",
                        },
                    },
                    "required": ["path"],
                },
                self.read,
            ),
            Tool(
                "Grep",
                f"Search files in {where} with a regular expression (RE2 syntax); returns numbered "
                "matching lines with optional context.",
                {
                    "type": "object",
                    "properties": {
                        "pattern": {"type": "string", "description": "Regular expression"},
                        "path": {"type": "string", "default": ".", "description": "File or folder to search"},
                        "glob": {"type": "string", "description": "Only files matching this glob, e.g. *.txt"},
                        "context": {"type": "integer", "minimum": 0, "maximum": 50, "default": 0},
                        "ignore_case": {"type": "boolean", "default": False},
                        "max_matches": {"type": "integer", "minimum": 1, "default": 100},
                    },
                    "required": ["pattern"],
                },
                self.grep,
            ),
            Tool(
                "Glob",
                f"List files in {where} matching a glob (e.g. **/*.txt), newest first.",
                {
                    "type": "object",
                    "properties": {
                        "pattern": {"type": "string", "description": "Glob pattern"},
                        "path": {"type": "string", "default": ".", "description": "Folder to search"},
                        "max_results": {"type": "integer", "minimum": 1, "default": 200},
                    },
                    "required": ["pattern"],
                },
                self.glob,
            ),
        ]


def _positive(**values: int) -> None:
    for name, value in values.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
