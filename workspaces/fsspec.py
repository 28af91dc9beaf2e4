"""FsspecWorkspace and FsspecStorage: offloaded content in any fsspec store.

``FsspecWorkspace("s3://bucket/prefix")``, ``("memory://ws")``, ``("file:///tmp/ws")``
... References are full URLs (``s3://bucket/prefix/sessions/...``); anything
outside the URL prefix is refused. Filesystems with an async API (s3fs, gcsfs)
are called through it when running on asyncio; others (and every filesystem
under trio) run in worker threads.

Writes: an object-store PUT is atomic; ``file://`` writes go to a temp file
renamed into place. Exclusive writes use S3's conditional PUT (``If-None-Match:
*``) through s3fs ``mode="create"``, a hard link on ``file://``, and an
existence check under a lock on other stores (best effort across processes).

Appends: object stores cannot append, and rewriting a growing ``context.jsonl``
on every call would cost O(size) per append. Each append is a new numbered
segment object written exclusively (``context.jsonl.d/000000000001``, ...), so
an append is one PUT and concurrent writers never overwrite each other (a lost
race retries with the next number). Reads, stats and listings present the
segments as the single file ``context.jsonl``, so Read, Grep and retrieval see
one coherent log. The trade-off: reading a log costs one LIST plus one GET per
segment it touches, so logs with thousands of appends read slower than one
object would; appends stay O(1).

No commands run here (``exec`` raises UnsupportedOperation); Grep runs in-process.
"""

from __future__ import annotations

import contextlib
import errno
import re
import secrets
from collections.abc import Sequence
from typing import Any

import anyio
import anyio.to_thread

from offloader.core.backend import Capabilities, FileInfo
from offloader.core.naming import safe_name
from offloader.core.protocol import StoredContent

from ._fsspec_store import SEGMENTS, Store, mtime_of, remove_local
from .base import Workspace

__all__ = ["FsspecStorage", "FsspecWorkspace"]

_SEGMENT_RE = re.compile(r"^(.+)\.d/(\d{12})$")
_TYPES_DIR = ".types"


class FsspecWorkspace(Workspace):
    """Offloaded content under any fsspec URL; ``storage_options`` go to the filesystem."""

    #: Appends are emulated by segment objects; exclusive writes are atomic across
    #: processes on ``file://`` and S3 (conditional PUT), best effort elsewhere.
    capabilities = Capabilities(append=False, exclusive_write=False)

    def __init__(self, url: str, **storage_options: Any) -> None:
        if not isinstance(url, str) or not url:
            raise ValueError("url must be a non-empty fsspec URL such as s3://bucket/prefix or memory://ws")
        self._fs = Store(url, storage_options)
        if not self._fs.root.strip("/"):
            raise ValueError(f"{url!r} names the root of the store; give a bucket or folder")
        super().__init__(url.rstrip("/"))
        self._next_segment: dict[str, int] = {}

    @property
    def race_free_confinement(self) -> bool:
        return self._fs.local is not None  # file://: descriptors; object stores have no symlinks to swap

    async def _open(self) -> None:
        await self._fs.open()
        exclusive = self._fs.local is not None or self._fs.conditional_create
        self.capabilities = Capabilities(append=False, exclusive_write=exclusive)

    async def _close(self) -> None:
        await self._fs.close()

    def _full(self, rel: str) -> str:
        return f"{self._fs.root}/{rel}" if rel else self._fs.root

    def _rel(self, name: str) -> str:
        root = self._fs.root.lstrip("/")
        name = name.lstrip("/")
        return name[len(root) + 1 :] if name.startswith(root + "/") else name

    # ------------------------------------------------------------ segments of appended logs

    async def _segments(self, rel: str) -> list[tuple[str, int, float]]:
        found = await self._fs.find(self._full(rel) + SEGMENTS)
        segs = [(name, int(info.get("size") or 0), mtime_of(info)) for name, info in found.items()]
        return sorted(s for s in segs if _SEGMENT_RE.match(self._rel(s[0])))

    async def _read_segments(self, segs: list[tuple[str, int, float]], start: int, end: int | None) -> bytes:
        parts: list[tuple[str, int, int]] = []
        pos = 0
        for name, size, _ in segs:
            lo, hi = max(start, pos), size + pos if end is None else min(end, size + pos)
            if lo < hi:
                parts.append((name, lo - pos, hi - pos))
            pos += size
        chunks: list[bytes] = [b""] * len(parts)

        async def fetch(i: int, name: str, a: int, b: int) -> None:
            chunks[i] = await self._fs.call("cat_file", name, start=a, end=b)

        async with anyio.create_task_group() as tg:
            for i, (name, a, b) in enumerate(parts):
                tg.start_soon(fetch, i, name, a, b)
        return b"".join(chunks)

    # ------------------------------------------------------------ primitives

    async def _read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        full = self._full(path)
        try:
            data: bytes = await self._fs.call("cat_file", full, start=start, end=end)
            return data
        except FileNotFoundError:
            pass
        except OSError as exc:  # a range past the end of the object
            if start > 0 and await self._stat(path) is not None:
                return b""
            raise exc
        segs = await self._segments(path)
        if not segs:
            if await self._fs.find(full):
                raise IsADirectoryError(errno.EISDIR, "is a directory", self.reference(path))
            raise FileNotFoundError(errno.ENOENT, "no such file", self.reference(path))
        return await self._read_segments(segs, start, end)

    async def _write(self, files: Sequence[tuple[str, bytes]], *, exclusive: bool = False) -> list[bool]:
        results = [False] * len(files)

        async def one(i: int, rel: str, data: bytes) -> None:
            results[i] = await self._fs.put(self._full(rel), data, exclusive=exclusive)
            if results[i] and not exclusive:
                await self._drop_segments(rel)  # a full write replaces an appended log

        if len(files) == 1:  # the common case: no task group, so an error surfaces as itself
            await one(0, *files[0])
            return results
        try:
            async with anyio.create_task_group() as tg:
                for i, (rel, data) in enumerate(files):
                    tg.start_soon(one, i, rel, data)
        except BaseExceptionGroup as group:  # a store that keeps failing: raise its (first) error, not a group
            raise group.exceptions[0] from group
        return results

    async def _drop_segments(self, rel: str) -> None:
        for name in await self._fs.find(self._full(rel) + SEGMENTS):
            await self._fs.call("rm_file", name)
        self._next_segment.pop(rel, None)

    async def _append(self, path: str, data: bytes) -> None:
        if path not in self._next_segment:
            first = await self._adopt_plain_object(path)
            self._next_segment.setdefault(path, first)
        while True:
            # claim a number before awaiting, so appends from this instance never collide
            n = self._next_segment.get(path, 1)
            self._next_segment[path] = n + 1
            if await self._fs.put(f"{self._full(path)}{SEGMENTS}/{n:012d}", data, exclusive=True):
                return
            segs = await self._segments(path)  # another writer took this number: skip past theirs
            last = int(segs[-1][0][-12:]) if segs else 0
            self._next_segment[path] = max(self._next_segment.get(path, 1), last + 1)

    async def _adopt_plain_object(self, path: str) -> int:
        """Next free segment number; a plain object at ``path`` becomes segment 0 first."""
        full = self._full(path)
        info = await self._fs.info(full)
        if info is not None and info.get("type") == "file":
            data = await self._fs.call("cat_file", full)
            await self._fs.put(f"{full}{SEGMENTS}/{0:012d}", data, exclusive=True)
            await self._fs.call("rm_file", full)
        segs = await self._segments(path)
        return int(segs[-1][0][-12:]) + 1 if segs else 1

    async def _list(self, path: str) -> list[FileInfo]:
        found = await self._fs.find(self._full(path))
        files: dict[str, FileInfo] = {}
        for name, info in found.items():
            rel = self._rel(name)
            size, mtime = int(info.get("size") or 0), mtime_of(info)
            seg = _SEGMENT_RE.match(rel)
            if seg:
                rel = seg.group(1)
                prev = files.get(rel)
                if prev is not None:
                    size, mtime = prev.size + size, max(prev.mtime, mtime)
            files[rel] = FileInfo(rel, size, mtime) if seg else FileInfo(rel, size, mtime, str(info.get("ETag") or ""))
        return sorted(files.values(), key=lambda f: f.path)

    async def _stat(self, path: str) -> FileInfo | None:
        if not path:
            return None
        info = await self._fs.info(self._full(path))
        if info is not None and info.get("type") == "file":
            return FileInfo(path, int(info.get("size") or 0), mtime_of(info), str(info.get("ETag") or ""))
        segs = await self._segments(path)
        if not segs:
            return None
        return FileInfo(path, sum(s[1] for s in segs), max(s[2] for s in segs))

    async def _refresh(self, path: str, data: bytes) -> None:
        if self._fs.local is not None:
            await super()._refresh(path, data)
            return
        await self._fs.refresh(self._full(path), data)  # on S3 a new ETag: gc's conditional delete then fails
        await self._drop_segments(path)

    async def _remove_if_unchanged(self, path: str, seen: FileInfo) -> bool:
        """Remove exactly what was seen: a plain object re-stat'ed just before (the same size,
        mtime and, where the store has one, ETag; on S3 deleted with ``If-Match`` on that
        ETag), or the listed segments.

        A segment appended after the check is never among those removed, so an
        append racing the removal starts the log again instead of being lost.
        """
        info = await self._fs.info(self._full(path))
        if info is not None and info.get("type") == "file":
            changed = (int(info.get("size") or 0), mtime_of(info)) != (seen.size, seen.mtime)
            if changed or (seen.tag and str(info.get("ETag") or "") != seen.tag):
                return False
            return await self._fs.remove_exact(self._full(path), info)
        segs = await self._segments(path)
        if not segs or (sum(s[1] for s in segs), max(s[2] for s in segs)) != (seen.size, seen.mtime):
            return False
        for name, _, _ in segs:
            await self._fs.call("rm_file", name)
        return True

    async def _remove(self, path: str, *, recursive: bool = False) -> None:
        if self._fs.local is not None:  # one descriptor walk: never follows a link, even mid-swap
            await anyio.to_thread.run_sync(remove_local, self._fs.local.tree, path, recursive, self.reference(path))
            self._next_segment.pop(path, None)
            return
        full = self._full(path)
        info = await self._fs.info(full)
        if info is not None and info.get("type") == "file":
            await self._fs.call("rm_file", full)
        elif info is not None or await self._fs.find(full):
            if not recursive and not await self._segments(path):
                raise IsADirectoryError(errno.EISDIR, "is a directory", self.reference(path))
            if recursive:
                for name in await self._fs.find(full):
                    await self._fs.call("rm_file", name)
        await self._drop_segments(path)


class FsspecStorage:
    """A :class:`offloader.storage.Storage` in any fsspec store.

    Each stored block is one object ``{url}/{key}-{random}``, so a store is one
    PUT and nothing grows. The content type travels as the object's own
    ``Content-Type`` on S3, and elsewhere in a per-object sidecar under
    ``{url}/.types/`` (written once, never a shared index).
    """

    def __init__(self, url: str, **storage_options: Any) -> None:
        if not isinstance(url, str) or not url:
            raise ValueError("url must be a non-empty fsspec URL such as s3://bucket/prefix or memory://store")
        self.url = url.rstrip("/")
        self._fs = Store(url, storage_options)
        if not self._fs.root.strip("/"):
            raise ValueError(f"{url!r} names the root of the store; give a bucket or folder")
        self._opened = False
        self._lock = anyio.Lock()

    @property
    def _metadata_in_object(self) -> bool:
        return self._fs.protocol in ("s3", "s3a")

    async def _ready(self) -> None:
        async with self._lock:
            if not self._opened:
                await self._fs.open()
                self._opened = True

    async def aclose(self) -> None:
        """Release the store's connections (S3 sessions)."""
        async with self._lock:
            if self._opened:
                await self._fs.close()
                self._opened = False

    def _name(self, reference: str) -> str:
        if not isinstance(reference, str):
            raise KeyError(f"Reference not found: {reference!r}")
        name = reference[len(self.url) + 1 :] if reference.startswith(self.url + "/") else reference
        if not name or "/" in name or name in (".", "..", _TYPES_DIR) or "\x00" in name:
            raise KeyError(f"Reference not found: {reference}")
        return name

    async def store(self, key: str, content: bytes, content_type: str = "text/plain") -> str:
        """Write ``content`` as a new object; returns its URL (unique even if ``key`` repeats)."""
        if not isinstance(content, (bytes, bytearray, memoryview)):
            raise TypeError(f"content must be bytes, got {type(content).__name__}")
        await self._ready()
        name = f"{safe_name(str(key))}-{secrets.token_hex(6)}"
        full = f"{self._fs.root}/{name}"
        if self._metadata_in_object:
            await self._fs.put(full, bytes(content), exclusive=False, ContentType=content_type)
        else:
            type_path = f"{self._fs.root}/{_TYPES_DIR}/{name}"
            await self._fs.put(type_path, content_type.encode("utf-8"), exclusive=False)
            await self._fs.put(full, bytes(content), exclusive=False)
        return f"{self.url}/{name}"

    async def retrieve(self, reference: str) -> StoredContent:
        await self._ready()
        name = self._name(reference)
        full = f"{self._fs.root}/{name}"
        try:
            content: bytes = await self._fs.call("cat_file", full)
        except FileNotFoundError:
            raise KeyError(f"Reference not found: {reference}") from None
        if self._metadata_in_object:
            info = await self._fs.info(full) or {}
            content_type = str(info.get("ContentType") or "application/octet-stream")
        else:
            try:
                raw: bytes = await self._fs.call("cat_file", f"{self._fs.root}/{_TYPES_DIR}/{name}")
                content_type = raw.decode("utf-8")
            except FileNotFoundError:
                content_type = "application/octet-stream"
        return StoredContent(content, content_type)

    async def delete(self, reference: str) -> None:
        await self._ready()
        try:
            name = self._name(reference)
        except KeyError:
            return
        for path in (f"{self._fs.root}/{name}", f"{self._fs.root}/{_TYPES_DIR}/{name}"):
            with contextlib.suppress(FileNotFoundError):
                await self._fs.call("rm_file", path)

    async def list(self) -> list[str]:
        await self._ready()
        root = self._fs.root.lstrip("/")
        refs = []
        for name in await self._fs.find(self._fs.root):
            rel = name.lstrip("/")[len(root) + 1 :]
            if rel and "/" not in rel:
                refs.append(f"{self.url}/{rel}")
        return sorted(refs)
