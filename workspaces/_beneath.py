"""Descriptor-relative access to a folder tree: nothing outside it is read, written or removed.

A path is never resolved by name from ``/``. (The file operations built on
this are in :mod:`workspaces._confined`.) :class:`Beneath` holds an open
descriptor of the root and reaches every folder below it one component at a
time with ``O_NOFOLLOW | O_DIRECTORY`` (Linux ``openat2`` with
``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`` does a deep walk in one call), then
acts relative to the verified parent's descriptor: ``openat``, ``mkdirat``,
``linkat``, ``renameat``, ``unlinkat``, ``fstatat`` and listings through
``scandir`` on a descriptor. A symlink anywhere on the path is refused, and a
process that swaps a folder for a symlink between two of our calls can only
make a call fail: there is no check-then-use gap to race.

Hot folders (the root's children and grandchildren: ``data/``, ``sessions/``,
``sessions/{sid}/``) keep their descriptors. Each use re-checks them cheaply:
``fstatat(parent, name)`` must still give the device and inode of the cached
descriptor, else the folder is walked again. Even a stale descriptor points
at a folder that was inside the tree when walked, so the check keeps writes
going to the current folder; confinement does not depend on it.

All methods block; callers run them in worker threads. Thread-safe.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import stat as stat_mod
import threading
from collections.abc import Callable, Iterator

from offloader.core.errors import PathOutsideWorkspace

__all__ = ["DIR_FLAGS", "Beneath"]

DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_HOT_DEPTH = 2  # folders this deep (data, sessions, sessions/{sid}) keep a cached descriptor
_MAX_CACHED = 128
_RESOLVE_NO_XDEV, _RESOLVE_NO_MAGICLINKS, _RESOLVE_NO_SYMLINKS, _RESOLVE_BENEATH = 0x01, 0x02, 0x04, 0x08
_OPENAT2_NR = {"x86_64": 437, "aarch64": 437, "armv7l": 437, "riscv64": 437, "ppc64le": 437, "s390x": 437}


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


class _Dir:
    """A cached folder descriptor; closed when retired and no call still uses it."""

    __slots__ = ("dev", "fd", "ino", "retired", "users")

    def __init__(self, fd: int) -> None:
        st = os.fstat(fd)
        self.fd, self.dev, self.ino = fd, st.st_dev, st.st_ino
        self.users = 0
        self.retired = False


class Beneath:
    """A folder tree reached only through descriptors (see the module doc).

    ``describe`` turns a tree-relative path into the name used in error messages.
    """

    def __init__(self, root: str, *, file_mode: int = 0o644, describe: Callable[[str], str] = str) -> None:
        self.root = root
        self.file_mode = file_mode
        self._describe = describe
        self._lock = threading.Lock()
        self._cache: dict[str, _Dir] = {}
        self._top: _Dir | None = None
        self._syscall: Callable[..., int] | None = None
        self._openat2 = platform.system() == "Linux" and platform.machine() in _OPENAT2_NR

    # ------------------------------------------------------------ lifecycle

    def open(self) -> None:
        """Create the root if missing and pin it by descriptor (the root path itself may be a symlink)."""
        os.makedirs(self.root, exist_ok=True)
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        with self._lock:
            self._top = _Dir(fd)

    def close(self) -> None:
        with self._lock:
            dirs = [*self._cache.values(), *([self._top] if self._top else [])]
            self._cache.clear()
            self._top = None
            for d in dirs:
                self._retire(d)

    # ------------------------------------------------------------ resolution

    @contextlib.contextmanager
    def folder(self, rel: str, *, create: bool = False) -> Iterator[int]:
        """A descriptor of folder ``rel`` (``""`` is the root), valid inside the ``with`` block.

        Raises PathOutsideWorkspace if a component is a symlink, FileNotFoundError
        if missing (unless ``create``), NotADirectoryError if a component is a file.
        The descriptor may be shared: use it only with ``*at`` calls, never for reading entries.
        """
        parts = rel.split("/") if rel else []
        for part in parts:
            if part in ("", ".", "..") or "\x00" in part:
                raise PathOutsideWorkspace(f"{self._describe(rel)}: not a plain relative path")
        hot = self._lease(parts[:_HOT_DEPTH], create)
        try:
            if len(parts) <= _HOT_DEPTH:
                yield hot.fd
                return
            fd = self._deep(hot.fd, parts[_HOT_DEPTH:], create, rel)
            try:
                yield fd
            finally:
                os.close(fd)
        finally:
            self._release(hot)

    def _lease(self, parts: list[str], create: bool) -> _Dir:
        with self._lock:
            cur = self._top
            if cur is None:
                raise ValueError("the folder tree is not open")
            key = ""
            for name in parts:
                key = f"{key}/{name}" if key else name
                cached = self._cache.get(key)
                if cached is not None:
                    if _same(cur.fd, name, cached):
                        cur = cached
                        continue
                    self._forget_locked(key)
                cur = _Dir(self._open_dir(cur.fd, name, create, key))
                self._cache[key] = cur
                if len(self._cache) > _MAX_CACHED:
                    self._evict_locked(keep=key)
            cur.users += 1
            return cur

    def _release(self, d: _Dir) -> None:
        with self._lock:
            d.users -= 1
            if d.retired and d.users == 0:
                os.close(d.fd)

    def _retire(self, d: _Dir) -> None:
        d.retired = True
        if d.users == 0:
            os.close(d.fd)

    def _forget_locked(self, key: str) -> None:
        """Drop ``key`` and every cached folder below it."""
        for k in [k for k in self._cache if k == key or k.startswith(key + "/")]:
            self._retire(self._cache.pop(k))

    def _evict_locked(self, keep: str) -> None:
        for k in list(self._cache)[: len(self._cache) // 4]:  # oldest first (insertion order)
            if k != keep and not keep.startswith(k + "/"):
                self._retire(self._cache.pop(k))

    def forget(self, rel: str) -> None:
        """Drop cached descriptors of ``rel`` and below (after removing it)."""
        with self._lock:
            self._forget_locked(rel)

    def _open_dir(self, parent: int, name: str, create: bool, rel: str) -> int:
        try:
            try:
                return os.open(name, DIR_FLAGS, dir_fd=parent)
            except FileNotFoundError:
                if not create:
                    raise
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o777, dir_fd=parent)
            return os.open(name, DIR_FLAGS, dir_fd=parent)
        except OSError as exc:
            raise self._refusal(parent, name, rel, exc) from None

    def _deep(self, fd: int, parts: list[str], create: bool, rel: str) -> int:
        """A new descriptor for ``parts`` below ``fd``: one ``openat2`` or a component walk."""
        if self._openat2:
            try:
                return self._resolve_beneath(fd, "/".join(parts))
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.EXDEV):
                    raise self._symlink(rel) from None
                if exc.errno in (errno.ENOSYS, errno.EPERM, errno.EINVAL, errno.E2BIG):
                    self._openat2 = False  # old kernel or a seccomp filter: walk instead
                elif exc.errno == errno.ENOENT and not create:
                    raise FileNotFoundError(errno.ENOENT, "no such folder", self._describe(rel)) from None
                # else (missing folders to create, a file or trailing link in the way, a
                # concurrent rename): the component walk creates them or names the cause
        cur = os.dup(fd)
        try:
            for name in parts:
                nxt = self._open_dir(cur, name, create, rel)
                os.close(cur)
                cur = nxt
        except BaseException:
            os.close(cur)
            raise
        return cur

    def _resolve_beneath(self, fd: int, path: str) -> int:
        if self._syscall is None:
            self._syscall = ctypes.CDLL(None, use_errno=True).syscall
        how = _OpenHow(DIR_FLAGS, 0, _RESOLVE_BENEATH | _RESOLVE_NO_SYMLINKS | _RESOLVE_NO_MAGICLINKS)
        nr = _OPENAT2_NR[platform.machine()]
        out = self._syscall(
            ctypes.c_long(nr), ctypes.c_int(fd), ctypes.c_char_p(os.fsencode(path)),
            ctypes.byref(how), ctypes.c_size_t(ctypes.sizeof(how)),
        )  # fmt: skip
        if out < 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code), path)
        return int(out)

    def _symlink(self, rel: str) -> PathOutsideWorkspace:
        return PathOutsideWorkspace(f"{self._describe(rel)}: a symlink on the path is not followed")

    def _refusal(self, parent: int, name: str, rel: str, exc: OSError) -> Exception:
        """Name the cause: a symlink is refused as outside; other errors pass through."""
        if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EEXIST):
            try:
                is_link = stat_mod.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
            except OSError:
                is_link = False
            if is_link or exc.errno == errno.ELOOP:
                return self._symlink(rel)
        if isinstance(exc, FileNotFoundError | NotADirectoryError):
            return type(exc)(exc.errno, exc.strerror, self._describe(rel))
        return exc

    @staticmethod
    def split(rel: str) -> tuple[str, str]:
        folder, _, name = rel.rpartition("/")
        return folder, name


def _same(parent: int, name: str, cached: _Dir) -> bool:
    try:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
    except OSError:
        return False
    return st.st_ino == cached.ino and st.st_dev == cached.dev
