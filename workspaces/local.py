"""LocalWorkspace: a folder on this machine.

Writes are atomic (temp file in the same folder, then ``rename``; exclusive
writes use ``link``, which fails if the name exists). Appends use ``O_APPEND``
with one ``write`` under ``flock``, so concurrent processes never interleave
lines, a failed append is truncated back, and a torn tail left by a writer killed
mid-append is cut before the next append, so no torn line fuses with a good one. Every
path is checked after resolving symlinks: nothing outside the workdir is read,
written, listed or removed. All disk I/O runs in worker threads.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import shutil
import stat as stat_mod
from collections.abc import Sequence
from pathlib import Path

import anyio
import anyio.to_thread

from .base import ExecResult, FileInfo, Workspace
from .errors import CommandTimeout, NotEnoughSpace, PathOutsideWorkspace

__all__ = ["LocalWorkspace"]


class LocalWorkspace(Workspace):
    """Offloaded content in a host folder (created if missing)."""

    def __init__(self, workdir: str | os.PathLike[str] = ".offload", *, file_mode: int = 0o644) -> None:
        root = os.path.abspath(os.fspath(workdir))
        super().__init__(root)
        self._root = root
        self._real_root = ""
        self._file_mode = file_mode

    async def _open(self) -> None:
        def make() -> str:
            os.makedirs(self._root, exist_ok=True)
            return os.path.realpath(self._root)

        self._real_root = await anyio.to_thread.run_sync(make)

    # ------------------------------------------------------------ confinement

    def _inside(self, real: str) -> bool:
        return real == self._real_root or real.startswith(self._real_root + os.sep)

    def _checked(self, rel: str) -> str:
        """Host path for ``rel`` whose real location (symlinks resolved) is inside the workdir."""
        path = os.path.join(self._root, rel) if rel else self._root
        if not self._inside(os.path.realpath(path)):
            raise PathOutsideWorkspace(f"{self.reference(rel)} resolves outside the workdir")
        return path

    def _parent_dir(self, rel: str) -> str:
        """Create the parent folders of ``rel`` and check they are inside the workdir."""
        path = os.path.join(self._root, rel)
        parent = os.path.dirname(path)
        os.makedirs(parent, exist_ok=True)
        if not self._inside(os.path.realpath(parent)):
            raise PathOutsideWorkspace(f"{self.reference(rel)} resolves outside the workdir")
        return path

    # ------------------------------------------------------------ primitives

    async def _read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        def read() -> bytes:
            host = self._checked(path)
            fd = os.open(host, os.O_RDONLY | os.O_NOFOLLOW)
            try:
                if stat_mod.S_ISDIR(os.fstat(fd).st_mode):
                    raise IsADirectoryError(errno.EISDIR, "is a directory", self.reference(path))
                if end is None:
                    with os.fdopen(os.dup(fd), "rb") as f:
                        f.seek(start)
                        return f.read()
                return os.pread(fd, max(0, end - start), start)
            finally:
                os.close(fd)

        try:
            return await anyio.to_thread.run_sync(read)
        except FileNotFoundError:
            raise FileNotFoundError(errno.ENOENT, "no such file", self.reference(path)) from None

    async def _write(self, files: Sequence[tuple[str, bytes]], *, exclusive: bool = False) -> list[bool]:
        def write_all() -> list[bool]:
            return [self._write_one(rel, data, exclusive) for rel, data in files]

        return await anyio.to_thread.run_sync(write_all)

    def _write_one(self, rel: str, data: bytes, exclusive: bool) -> bool:
        target = self._parent_dir(rel)
        if exclusive and os.path.lexists(target):
            return False
        tmp = os.path.join(os.path.dirname(target), f".tmp-{secrets.token_hex(6)}")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, self._file_mode)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                os.close(fd)
            if exclusive:
                try:
                    os.link(tmp, target)
                except FileExistsError:
                    return False
                finally:
                    os.unlink(tmp)
            else:
                os.replace(tmp, target)
            return True
        except OSError as exc:
            if os.path.lexists(tmp):
                os.unlink(tmp)
            if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                raise NotEnoughSpace(exc.errno, f"no space left writing {self.reference(rel)}") from exc
            raise

    async def _write_and_append(
        self, files: Sequence[tuple[str, bytes]], *, exclusive: bool, append: tuple[str, bytes]
    ) -> list[bool]:
        def both() -> list[bool]:  # one worker-thread hop instead of two
            written = [self._write_one(rel, data, exclusive) for rel, data in files]
            if written and written[-1]:
                self._append_sync(*append)
            return written

        return await anyio.to_thread.run_sync(both)

    async def _append(self, path: str, data: bytes) -> None:
        await anyio.to_thread.run_sync(self._append_sync, path, data)

    def _append_sync(self, path: str, data: bytes) -> None:
        target = self._parent_dir(path)
        fd = os.open(target, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, self._file_mode)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            size = _drop_torn_tail(fd, os.fstat(fd).st_size)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            except OSError as exc:
                os.ftruncate(fd, size)  # never leave a torn line behind
                if exc.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise NotEnoughSpace(exc.errno, f"no space left appending to {self.reference(path)}") from exc
                raise
        finally:
            os.close(fd)  # releases the lock

    async def _list(self, path: str) -> list[FileInfo]:
        def walk() -> list[FileInfo]:
            top = self._checked(path)
            if not os.path.isdir(top):
                return []
            found: list[FileInfo] = []
            cut = len(self._root.rstrip(os.sep)) + 1
            for dirpath, dirnames, filenames in os.walk(top):
                # never descend through a symlink (os.walk does not follow them by default)
                dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
                for name in filenames:
                    full = os.path.join(dirpath, name)
                    try:
                        st = os.stat(full, follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    if not stat_mod.S_ISREG(st.st_mode):
                        continue
                    rel = full[cut:].replace(os.sep, "/")  # full starts with root + sep (faster than relpath)
                    found.append(FileInfo(rel, st.st_size, st.st_mtime))
            return found

        return await anyio.to_thread.run_sync(walk)

    async def _stat(self, path: str) -> FileInfo | None:
        def stat() -> FileInfo | None:
            try:
                host = self._checked(path)
                st = os.stat(host, follow_symlinks=False)
            except FileNotFoundError:
                return None
            if not stat_mod.S_ISREG(st.st_mode):
                return None
            return FileInfo(path, st.st_size, st.st_mtime)

        return await anyio.to_thread.run_sync(stat)

    async def _remove(self, path: str, *, recursive: bool = False) -> None:
        def remove() -> None:
            if not path:
                raise PathOutsideWorkspace("refusing to remove the workdir itself")
            host = os.path.join(self._root, path)
            parent = os.path.realpath(os.path.dirname(host))
            if not self._inside(parent):
                raise PathOutsideWorkspace(f"{self.reference(path)} resolves outside the workdir")
            if os.path.islink(host) or os.path.isfile(host):
                os.unlink(host)  # removes a link itself, never its target
            elif os.path.isdir(host):
                if not recursive:
                    raise IsADirectoryError(errno.EISDIR, "is a directory", self.reference(path))
                shutil.rmtree(host)  # rmtree does not follow symlinks

        with contextlib.suppress(FileNotFoundError):
            await anyio.to_thread.run_sync(remove)

    async def _exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60.0) -> ExecResult:
        try:
            with anyio.fail_after(timeout):
                done = await anyio.run_process(list(argv), input=stdin, check=False, cwd=self._root)
        except TimeoutError:
            raise CommandTimeout(f"{argv[0]!r} did not finish within {timeout} s") from None
        return ExecResult(done.returncode, done.stdout, done.stderr)

    @property
    def path(self) -> Path:
        """The workdir as a host path."""
        return Path(self._root)


def _drop_torn_tail(fd: int, size: int) -> int:
    """Cut an unterminated last line (a writer killed mid-append) back to the last newline.

    Called under the append lock: every writer takes it, so bytes after the last
    newline can only be a dead writer's unacknowledged partial line. Without this
    the next append would fuse onto it and corrupt a good line. Returns the new size.
    """
    if size == 0 or os.pread(fd, 1, size - 1) == b"\n":
        return size
    end = size
    while end > 0:
        start = max(0, end - 65536)
        nl = os.pread(fd, end - start, start).rfind(b"\n")
        if nl >= 0:
            end = start + nl + 1
            break
        end = start
    os.ftruncate(fd, end)
    return end
