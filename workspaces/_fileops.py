"""The public file operations of a workspace: confined, opened, then one primitive each.

Code outside ``workspaces`` (retrieval, storages, compaction, the CLI,
integrations) uses these, never the primitives.
"""

from __future__ import annotations

import errno
from collections.abc import Sequence
from typing import TYPE_CHECKING

from offloader.core.backend import ExecResult, FileInfo
from offloader.core.errors import PathOutsideWorkspace, UnsupportedOperation

from .contract import Backend

__all__ = ["FileOps"]


class FileOps(Backend):
    """Mixin: ``read_bytes``, ``write_bytes``, ``write_files``, ``append_bytes``, ``list_files``,
    ``find_files``, ``remove``, ``is_dir``, ``stat`` and ``exec``; the workdir guards live here."""

    if TYPE_CHECKING:

        async def _candidate_files(self, rel: str, glob: str | None) -> list[FileInfo]: ...

    async def read_bytes(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        """Raw bytes ``[start, end)`` of a file (path, reference or ``workspace:///`` URL).

        FileNotFoundError if it is missing; an empty range costs one stat, no read.
        """
        await self._ready()
        rel = self.relative(path)
        if end is not None and end <= start:
            if await self._stat(rel) is None:
                raise FileNotFoundError(errno.ENOENT, "no such file", self.reference(rel))
            return b""
        return await self._read(rel, start, end)

    async def write_bytes(self, path: str, data: bytes) -> str:
        """Write one file atomically (replacing it); returns its reference."""
        rel = self._target(path)
        await self.write_files([(rel, data)])
        return self.reference(rel)

    async def write_files(self, files: Sequence[tuple[str, bytes]], *, exclusive: bool = False) -> list[bool]:
        """Write a batch, each file atomically, creating folders.

        With ``exclusive`` an existing file is left untouched. Returns, per file,
        whether this call wrote it.
        """
        await self._ready()
        return await self._write([(self._target(p), bytes(d)) for p, d in files], exclusive=exclusive)

    async def append_bytes(self, path: str, data: bytes) -> None:
        """Append whole lines to a file as one unit (concurrent appends never interleave)."""
        await self._ready()
        await self._append(self._target(path), bytes(data))

    async def list_files(self, path: str = ".") -> list[FileInfo]:
        """Every regular file under ``path``, recursively, hidden ones included; [] if none."""
        await self._ready()
        return await self._list(self.relative(path))

    async def find_files(self, path: str = ".", glob: str | None = None) -> list[FileInfo]:
        """The files Glob and Grep see: ``path`` itself if it is a file, else the visible files
        under it (no temp files, no line indexes) matching ``glob``, sorted by path."""
        await self._ready()
        return await self._candidate_files(self.relative(path), glob)

    async def remove(self, path: str, *, recursive: bool = False) -> None:
        """Remove a file, or a folder tree with ``recursive``; missing is not an error."""
        await self._ready()
        rel = self.relative(path)
        if not rel:
            raise PathOutsideWorkspace("refusing to remove the workdir itself")
        await self._remove(rel, recursive=recursive)

    async def is_dir(self, path: str) -> bool:
        """Whether ``path`` is a folder (the workdir itself is one)."""
        await self._ready()
        rel = self.relative(path)
        return not rel or await self._isdir(rel)

    async def stat(self, path: str) -> FileInfo | None:
        """Size and mtime of a regular file; None if it is missing or a folder."""
        await self._ready()
        return await self._stat(self.relative(path))

    def _target(self, path: str) -> str:
        """The workdir-relative path to write to; the workdir itself is refused."""
        rel = self.relative(path)
        if not rel:
            raise PathOutsideWorkspace("cannot write to the workdir itself")
        return rel

    async def exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60.0) -> ExecResult:
        """Run a command in the workspace (cwd = workdir); UnsupportedOperation without ``capabilities.exec``."""
        await self._ready()
        if not self.capabilities.exec:
            raise UnsupportedOperation(f"{type(self).__name__} cannot run commands")
        if not argv:
            raise ValueError("argv must not be empty")
        return await self._exec(list(argv), stdin=stdin, timeout=timeout)
