"""Line indexes for retrieval: the cache kept between calls, and finding a document's lines.

A workspace file's index lives beside it as ``{file}.lineidx`` (format:
:mod:`offloader.core.lineindex`), built on the first range read and rebuilt when
the content's size or mtime no longer matches; content from a Storage is
indexed in memory. Indexes of up to 8 MB (1,048,576 lines) are also kept in the
retriever's cache, 32 MB in all per retriever, so a repeated range read of an
unchanged file costs one stat and one content read.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from typing import TYPE_CHECKING

from ..core import lineindex, threads
from ..core.backend import WorkspaceProtocol
from ..core.errors import WorkspaceError
from ..core.layout import INDEX_SUFFIX

if TYPE_CHECKING:
    from .sources import Document

__all__ = ["IndexCache", "line_count", "line_starts"]

_HEADER = lineindex.HEADER
#: Texts larger than this get their line index built in a worker thread (the loop stays free).
_INDEX_INLINE = 256 << 10
#: A line index up to this size is kept in the cache; the kept indexes of one
#: retriever together stay under _INDEX_CACHE_BYTES.
_INDEX_KEEP_BYTES = 8 << 20
_INDEX_CACHE_BYTES = 32 << 20


class IndexCache:
    """Least-recently-used cache of metadata and line indexes, bounded in entries and index bytes."""

    def __init__(self, size: int) -> None:
        self._entries: OrderedDict[tuple[str, str], object] = OrderedDict()
        self._size = size
        self._kept: dict[tuple[str, str], int] = {}  # bytes of the line indexes kept in memory, by key

    def get(self, key: tuple[str, str]) -> object:
        value = self._entries.get(key)
        if value is not None:
            self._entries.move_to_end(key)
        return value

    def put(self, key: tuple[str, str], value: object, kept_bytes: int = 0) -> None:
        """Insert or refresh ``key``; evict the least recently used entries beyond ``size``
        entries or beyond ``_INDEX_CACHE_BYTES`` of kept workspace line indexes."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        self._kept.pop(key, None)
        if kept_bytes:
            self._kept[key] = kept_bytes
        while len(self._entries) > self._size or (
            len(self._entries) > 1 and sum(self._kept.values()) > _INDEX_CACHE_BYTES
        ):
            old, _ = self._entries.popitem(last=False)
            self._kept.pop(old, None)


async def line_starts(doc: Document, first: int, last: int) -> list[int]:
    """Start offsets of lines ``first..last`` plus the end of ``last`` (1-based); after :func:`line_count`."""
    if doc.starts is not None:
        return list(doc.starts[first - 1 : last + 1])
    assert isinstance(doc.source, WorkspaceProtocol)
    raw = await doc.source.read_bytes(
        doc.rel + INDEX_SUFFIX, _HEADER.size + 8 * (first - 1), _HEADER.size + 8 * (last + 1)
    )
    return list(lineindex.decode_entries(raw))


async def line_count(doc: Document, cache: IndexCache) -> int:
    """Number of lines of ``doc``, making sure a fresh line index exists first."""
    if doc.starts is not None:
        return len(doc.starts) - 1
    if doc.data is not None:
        cached = cache.get(("index", doc.reference))
        if isinstance(cached, tuple) and cached[0] is doc.data:
            doc.starts = cached[1]
        else:
            doc.starts = await _line_starts(doc.data)
            cache.put(("index", doc.reference), (doc.data, doc.starts))
        return len(doc.starts) - 1
    source = doc.source
    assert isinstance(source, WorkspaceProtocol)
    meta = doc.meta
    key = ("index", doc.rel)
    cached = cache.get(key)
    if isinstance(cached, tuple) and cached[:2] == (meta.size, meta.mtime):
        # the content is unchanged since the index was seen (the stat in load() says so)
        doc.starts = cached[3]
        return int(cached[2])
    idx_path = doc.rel + INDEX_SUFFIX
    try:
        # the header, and the whole index with it when it is small enough to keep in memory
        head = await source.read_bytes(idx_path, 0, _HEADER.size + _INDEX_KEEP_BYTES)
    except (OSError, WorkspaceError):
        head = b""
    lines = lineindex.parse_header(head, meta.size, meta.mtime)
    if lines is not None:
        starts: array[int] | None = None
        if len(head) == _HEADER.size + 8 * (lines + 1):
            starts = lineindex.decode_entries(head[_HEADER.size :])
        doc.starts = starts
        cache.put(key, (meta.size, meta.mtime, lines, starts), 0 if starts is None else 8 * len(starts))
        return lines
    starts = await _line_starts(await doc.read())
    lines = len(starts) - 1
    doc.starts = starts
    try:
        await source.write_bytes(idx_path, lineindex.encode(meta.size, meta.mtime, starts))
    except (OSError, WorkspaceError):
        return lines  # a read-only workspace still gets an exact, in-memory index
    kept = starts if 8 * len(starts) <= _INDEX_KEEP_BYTES else None
    cache.put(key, (meta.size, meta.mtime, lines, kept), 0 if kept is None else 8 * len(kept))
    return lines


async def _line_starts(data: bytes) -> array[int]:
    """Line starts of ``data``; a big text is indexed in a worker thread, off the event loop."""
    if len(data) <= _INDEX_INLINE:
        return lineindex.line_starts(data)
    return await threads.run_sync(lineindex.line_starts, data)
