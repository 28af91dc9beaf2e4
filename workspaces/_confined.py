"""File operations on a :class:`~workspaces._beneath.Beneath` tree: all relative to verified descriptors.

Reads, atomic and exclusive writes, locked appends, listings and removal for
LocalWorkspace and ``file://`` fsspec workspaces. Each call resolves its parent
folder through the tree (never following a symlink) and then uses only ``*at``
calls on that descriptor, so a folder swapped for a symlink mid-call can make
the call fail but never lets it touch anything outside the root.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import secrets
import stat as stat_mod
from collections.abc import Callable
from typing import TypeVar

from offloader.core.errors import NotEnoughSpace, PathOutsideWorkspace
from offloader.core.layout import TMP_PREFIX
from offloader.core.strbuf import ascii_view

from ._beneath import DIR_FLAGS, Beneath

__all__ = ["ConfinedTree", "Entry", "drop_torn_tail"]

_T = TypeVar("_T")
_SPACE = (errno.ENOSPC, errno.EDQUOT)

#: One listed file: tree-relative POSIX path, size, mtime.
Entry = tuple[str, int, float]


class ConfinedTree(Beneath):
    """A :class:`Beneath` tree with the file operations a workspace backend needs (blocking)."""

    def open_file(self, dirfd: int, name: str, flags: int, rel: str, mode: int = 0o644) -> int:
        """``openat`` that never follows a symlink in the last component."""
        try:
            return os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dirfd)
        except OSError as exc:
            raise self._refusal(dirfd, name, rel, exc) from None

    def _again(self, rel: str, op: Callable[[], _T]) -> _T:
        """Run ``op``; on FileNotFoundError drop the cached parent folder and run it once more.

        A cached descriptor can outlive its folder (another process removed it and made
        a new one that reuses the inode number); calls then fail with ENOENT.
        """
        try:
            return op()
        except FileNotFoundError:
            self.forget(self.split(rel)[0])
            return op()

    def read(self, rel: str, start: int = 0, end: int | None = None) -> bytes:
        """Bytes ``[start, end)`` of a regular file."""
        return self._again(rel, lambda: self._read(rel, start, end))

    def _read(self, rel: str, start: int, end: int | None) -> bytes:
        folder, name = self.split(rel)
        if not name:
            raise IsADirectoryError(errno.EISDIR, "is a directory", self._describe(rel))
        with self.folder(folder) as dirfd:
            fd = self.open_file(dirfd, name, os.O_RDONLY | os.O_NONBLOCK, rel)
        try:
            self._regular(fd, rel)
            if end is not None:
                return os.pread(fd, max(0, end - start), start)
            os.lseek(fd, start, os.SEEK_SET)
            with io.FileIO(fd, "rb", closefd=False) as f:
                return f.readall()
        finally:
            os.close(fd)

    def _regular(self, fd: int, rel: str) -> os.stat_result:
        st = os.fstat(fd)
        if stat_mod.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "is a directory", self._describe(rel))
        if not stat_mod.S_ISREG(st.st_mode):
            raise PermissionError(errno.EPERM, "not a regular file", self._describe(rel))
        return st

    def write(self, rel: str, data: bytes | str, *, exclusive: bool = False) -> bool:
        """Write a file atomically (temp file, then ``renameat``; ``linkat`` when exclusive).

        A str is stored as UTF-8, encoded piece by piece (no whole encoded copy).
        Returns False, writing nothing, if ``exclusive`` and the name exists.
        """
        return self._again(rel, lambda: self._write(rel, data, exclusive))

    def _write(self, rel: str, data: bytes | str, exclusive: bool) -> bool:
        folder, name = self.split(rel)
        with self.folder(folder, create=True) as dirfd:
            if exclusive and _exists(dirfd, name):
                return False
            tmp = f"{TMP_PREFIX}{secrets.token_hex(6)}"
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                             self.file_mode, dir_fd=dirfd)  # fmt: skip
                try:
                    _write_all(fd, data)
                finally:
                    os.close(fd)
                if not exclusive:
                    os.replace(tmp, name, src_dir_fd=dirfd, dst_dir_fd=dirfd)
                    return True
                try:
                    os.link(tmp, name, src_dir_fd=dirfd, dst_dir_fd=dirfd, follow_symlinks=False)
                except FileExistsError:
                    return False
                finally:
                    os.unlink(tmp, dir_fd=dirfd)
                return True
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(tmp, dir_fd=dirfd)
                if exc.errno in _SPACE:
                    raise NotEnoughSpace(exc.errno, f"no space left writing {self._describe(rel)}") from exc
                raise

    def append(self, rel: str, data: bytes) -> None:
        """Append whole lines with one ``O_APPEND`` write under ``flock``; a failure is truncated back."""
        fd = self._locked_for_append(rel)
        try:
            size = drop_torn_tail(fd, os.fstat(fd).st_size)
            try:
                _write_all(fd, data)
            except OSError as exc:
                os.ftruncate(fd, size)  # never leave a torn line behind
                if exc.errno in _SPACE:
                    raise NotEnoughSpace(exc.errno, f"no space left appending to {self._describe(rel)}") from exc
                raise
        finally:
            os.close(fd)  # releases the lock

    def _locked_for_append(self, rel: str) -> int:
        """An ``O_APPEND`` descriptor holding the append lock of the file that is *still* named ``rel``.

        gc moves a file aside under this lock before removing it; a writer that
        opened the old file and then waited for the lock opens the name again.
        """
        folder, name = self.split(rel)
        while True:
            fd = self._again(rel, lambda: self._open_for_append(rel))
            try:
                st = self._regular(fd, rel)
                fcntl.flock(fd, fcntl.LOCK_EX)
                with self.folder(folder, create=True) as dirfd:
                    try:
                        now: os.stat_result | None = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
                    except FileNotFoundError:
                        now = None
                if now is not None and (now.st_ino, now.st_dev) == (st.st_ino, st.st_dev):
                    return fd
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)

    def _open_for_append(self, rel: str) -> int:
        folder, name = self.split(rel)
        with self.folder(folder, create=True) as dirfd:
            flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK
            return self.open_file(dirfd, name, flags, rel, self.file_mode)

    def stat(self, rel: str) -> os.stat_result | None:
        """``lstat`` of ``rel`` (the root for ``""``); None if missing."""
        folder, name = self.split(rel)
        try:
            with self.folder(folder) as dirfd:
                return os.stat(name or ".", dir_fd=dirfd, follow_symlinks=False)
        except (FileNotFoundError, NotADirectoryError):
            return None

    def list(self, rel: str) -> list[Entry]:
        """Every regular file under folder ``rel``; symlinks are neither listed nor entered."""
        found: list[Entry] = []
        try:
            with self.folder(rel) as dirfd:
                top = os.open(".", DIR_FLAGS, dir_fd=dirfd)  # our own offset for scandir
        except (FileNotFoundError, NotADirectoryError):
            return found
        try:
            _walk(top, f"{rel}/" if rel else "", found)
        finally:
            os.close(top)
        return found

    def remove(self, rel: str, *, recursive: bool = False) -> None:
        """Unlink a file or link (never its target), or with ``recursive`` a folder tree.

        The tree is removed through descriptors opened with ``O_NOFOLLOW``: a folder
        swapped for a symlink mid-removal loses the link itself, never what it points at.
        Missing is not an error.
        """
        if not rel:
            raise PathOutsideWorkspace("refusing to remove the workdir itself")
        folder, name = self.split(rel)
        try:
            with self.folder(folder) as dirfd:
                st = os.stat(name, dir_fd=dirfd, follow_symlinks=False)
                if not stat_mod.S_ISDIR(st.st_mode):
                    os.unlink(name, dir_fd=dirfd)
                    return
                if not recursive:
                    raise IsADirectoryError(errno.EISDIR, "is a directory", self._describe(rel))
                self.forget(rel)
                _remove_tree(dirfd, name)
        except (FileNotFoundError, NotADirectoryError):
            return


def _exists(dirfd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=dirfd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


#: A str is written this many characters at a time: one ``write()`` of 2 MB or more is paced
#: by the kernel's dirty-page throttling (5 MB in one call 10 ms, in 1 MB pieces 1 ms on the
#: test disk), and a text that is not ASCII is encoded piece by piece, the pieces staying in
#: the CPU cache and in reused heap memory (one encoded copy of 50 MB costs fresh pages).
_TEXT_PIECE = 1 << 20


def _write_all(fd: int, data: bytes | str | memoryview) -> None:
    if isinstance(data, str):
        in_place = ascii_view(data)  # an ASCII str is written from its own bytes, with no copy
        for lo in range(0, len(data), _TEXT_PIECE):
            hi = lo + _TEXT_PIECE
            _write_all(fd, data[lo:hi].encode("utf-8", "surrogatepass") if in_place is None else in_place[lo:hi])
        return
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _walk(fd: int, prefix: str, found: list[Entry]) -> None:
    """Depth-first, one open descriptor per level; entries that vanish or turn into links mid-walk are skipped."""
    with os.scandir(fd) as it:
        entries = list(it)
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                child = os.open(entry.name, DIR_FLAGS, dir_fd=fd)
                try:
                    _walk(child, f"{prefix}{entry.name}/", found)
                finally:
                    os.close(child)
            elif entry.is_file(follow_symlinks=False):
                st = entry.stat(follow_symlinks=False)
                found.append((prefix + entry.name, st.st_size, st.st_mtime))
        except OSError:
            continue


def _remove_tree(parent: int, name: str) -> None:
    """Empty and remove folder ``name`` of ``parent``, entering sub-folders only with ``O_NOFOLLOW``."""
    try:
        fd = os.open(name, DIR_FLAGS, dir_fd=parent)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        os.unlink(name, dir_fd=parent)  # swapped for a link or file meanwhile: remove that entry only
        return
    try:
        with os.scandir(fd) as it:
            entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
        for child, is_dir in entries:
            try:
                if is_dir:
                    _remove_tree(fd, child)
                else:
                    os.unlink(child, dir_fd=fd)
            except FileNotFoundError:
                continue
            except IsADirectoryError:
                _remove_tree(fd, child)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def drop_torn_tail(fd: int, size: int) -> int:
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
