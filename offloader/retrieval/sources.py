"""Where retrieved content comes from: a workspace file (read by range) or a Storage entry (whole)."""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from ..core.backend import WorkspaceProtocol
from ..core.errors import WorkspaceError
from ..core.protocol import Storage
from ..core.text import binary_sample
from .index import IndexCache

__all__ = ["Document", "Meta", "UnknownReference"]

_PROBE = 8192
_TEXT_APPLICATION = ("json", "xml", "javascript", "yaml", "toml", "sql", "graphql", "csv", "x-ndjson", "jsonl")


class UnknownReference(WorkspaceError, LookupError):
    """Nothing is stored under this reference."""


@dataclass(frozen=True, slots=True)
class Meta:
    """What a retrieval needs to know about a piece of content before reading it."""

    size: int
    mtime: float
    binary: str | None  # a description when the content is not text


class Document:
    """Uniform access to one piece of content: its metadata, and bytes by range."""

    def __init__(self, source: WorkspaceProtocol | Storage, reference: str, cache: IndexCache) -> None:
        self.source = source
        self.reference = reference
        self.cache = cache
        self.meta = Meta(0, 0.0, None)
        self.data: bytes | None = None  # whole content, when the source only gives that
        self.starts: array[int] | None = None  # in-memory line index
        self.rel = ""

    async def load(self) -> None:
        """Stat the content (workspaces) or fetch it (Storage)."""
        source = self.source
        if isinstance(source, WorkspaceProtocol):
            self.rel = source.relative(self.reference)
            info = await source.stat(self.rel) if self.rel else None
            if info is None:
                raise UnknownReference(f"unknown reference {self.reference!r}: nothing is stored there")
            cached = self.cache.get(("meta", self.rel))
            if isinstance(cached, Meta) and (cached.size, cached.mtime) == (info.size, info.mtime):
                self.meta = cached
                return
            head = await source.read_bytes(self.rel, 0, min(info.size, _PROBE))
            binary = f"binary data, {info.size} bytes" if binary_sample(head) is not None else None
            self.meta = Meta(info.size, info.mtime, binary)
            self.cache.put(("meta", self.rel), self.meta)
            return
        try:
            stored = await source.retrieve(self.reference)
        except KeyError:
            raise UnknownReference(f"unknown reference {self.reference!r}: nothing is stored there") from None
        data = stored.content
        ctype = stored.content_type or "application/octet-stream"
        binary = None
        if not _is_text_type(ctype) or binary_sample(data[:_PROBE]) is not None:
            binary = f"{ctype}, {len(data)} bytes"
        self.data = data
        self.meta = Meta(len(data), 0.0, binary)

    async def read(self, start: int = 0, end: int | None = None) -> bytes:
        end = self.meta.size if end is None else min(end, self.meta.size)
        if start >= end:
            return b""
        if self.data is not None:
            return self.data[start:end] if (start, end) != (0, len(self.data)) else self.data
        assert isinstance(self.source, WorkspaceProtocol)
        return await self.source.read_bytes(self.rel, start, end)


def _is_text_type(content_type: str) -> bool:
    main, _, sub = content_type.partition(";")[0].strip().lower().partition("/")
    if main == "text":
        return True
    return main == "application" and (sub in _TEXT_APPLICATION or sub.endswith(("+json", "+xml")))
