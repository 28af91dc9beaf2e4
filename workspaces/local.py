"""LocalWorkspace: a folder on this machine.

Every path is reached from an open descriptor of the workdir, one component at a
time, never following a symlink (:mod:`workspaces._beneath`, :mod:`workspaces._confined`):
nothing outside the workdir is read, written, listed or removed, even while another process swaps
folders for symlinks. Writes are atomic (temp file in the same folder, then
``rename``; exclusive writes use ``link``, which fails if the name exists).
Appends use ``O_APPEND`` with one ``write`` under ``flock``, so concurrent
processes never interleave lines, a failed append is truncated back, and a torn
tail left by a writer killed mid-append is cut before the next append. All disk
I/O runs in worker threads.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import secrets
import stat as stat_mod
from collections.abc import Callable, Sequence
from pathlib import Path

import anyio

from offloader.core import threads
from offloader.core.backend import Capabilities, ExecResult, FileInfo
from offloader.core.errors import CommandTimeout, UnsupportedOperation
from offloader.core.layout import MEDIA_NAMES, TMP_PREFIX

from ._confined import ConfinedTree
from .base import Workspace

__all__ = ["LocalWorkspace"]


class LocalWorkspace(Workspace):
    """Offloaded content in a host folder (created if missing).

    Files are confined to the workdir; commands are not. ``exec`` (and so
    deepagents' ``execute`` tool) runs host commands only with
    ``allow_host_commands=True``, and then unconfined: as this process's user,
    with this machine's files and network, cwd = workdir. For commands an agent
    chooses, use a sandbox: ``DockerWorkspace`` or ``E2BWorkspace``.

    ``media_names="agentscope"`` names media files as AgentScope's own
    workspace does (sha256 of the base64 text) instead of by the sha256 of the bytes.
    """

    def __init__(
        self,
        workdir: str | os.PathLike[str] = ".offload",
        *,
        file_mode: int = 0o644,
        allow_host_commands: bool = False,
        media_names: str = "sha256",
    ) -> None:
        if media_names not in MEDIA_NAMES:
            raise ValueError(f"media_names must be one of {MEDIA_NAMES}, got {media_names!r}")
        root = os.path.abspath(os.fspath(workdir))
        super().__init__(root)
        self._root = root
        self._file_mode = file_mode
        self._tree = ConfinedTree(root, file_mode=file_mode, describe=self.reference)
        self.allow_host_commands = allow_host_commands
        self.media_names = media_names

    #: It can run host commands, but only does with ``allow_host_commands`` (see ``runs_commands``).
    capabilities = Capabilities(exec=True)

    @property
    def race_free_confinement(self) -> bool:
        return True

    @property
    def runs_commands(self) -> bool:
        return self.allow_host_commands

    async def _open(self) -> None:
        await threads.run_sync(self._tree.open)

    async def _close(self) -> None:
        await threads.run_sync(self._tree.close)

    # ------------------------------------------------------------ primitives

    async def _read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        return await threads.run_sync(self._tree.read, path, start, end)

    async def _write(self, files: Sequence[tuple[str, bytes]], *, exclusive: bool = False) -> list[bool]:
        def write_all() -> list[bool]:
            return [self._tree.write(rel, data, exclusive=exclusive) for rel, data in files]

        return await threads.run_sync(write_all)

    async def _write_and_append(
        self, files: Sequence[tuple[str, bytes]], *, exclusive: bool, append: tuple[str, bytes]
    ) -> list[bool]:
        # one worker-thread hop instead of two
        return await threads.run_sync(self._write_and_append_sync, files, exclusive, append)

    def _write_and_append_sync(
        self, files: Sequence[tuple[str, bytes | str]], exclusive: bool, append: tuple[str, bytes]
    ) -> list[bool]:
        written = [self._tree.write(rel, data, exclusive=exclusive) for rel, data in files]
        if written and written[-1]:
            self._tree.append(*append)
        return written

    def _blocking_store(self) -> Callable[[Sequence[tuple[str, bytes | str]], tuple[str, bytes]], list[bool]]:
        return lambda files, append: self._write_and_append_sync(files, True, append)

    async def _append(self, path: str, data: bytes) -> None:
        await threads.run_sync(self._tree.append, path, data)

    async def _remove_if_unchanged(self, path: str, seen: FileInfo) -> bool:
        return await threads.run_sync(self._remove_if_unchanged_sync, path, seen)

    def _remove_if_unchanged_sync(self, path: str, seen: FileInfo) -> bool:
        """Under the append lock, move the file aside, verify it is ``seen``, then unlink it (or put it back).

        Appenders take the same lock and, once they hold it, check the name still
        leads to their file, so an append either lands before the move (and the
        verify sees it) or goes to the name's current file.
        """
        folder, name = self._tree.split(path)
        try:
            with self._tree.folder(folder) as dirfd:
                try:
                    fd = self._tree.open_file(dirfd, name, os.O_RDONLY | os.O_NONBLOCK, path)
                except (FileNotFoundError, NotADirectoryError):
                    return False
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)  # an append in flight finishes first; later ones wait
                    aside = f"{TMP_PREFIX}gc-{secrets.token_hex(6)}"
                    try:
                        os.rename(name, aside, src_dir_fd=dirfd, dst_dir_fd=dirfd)
                    except FileNotFoundError:
                        return False
                    st, moved = os.fstat(fd), os.stat(aside, dir_fd=dirfd, follow_symlinks=False)
                    same = (st.st_ino, st.st_dev) == (moved.st_ino, moved.st_dev) and stat_mod.S_ISREG(st.st_mode)
                    if same and (st.st_size, st.st_mtime) == (seen.size, seen.mtime):
                        os.unlink(aside, dir_fd=dirfd)
                        return True
                    self._put_back(dirfd, aside, name, path)
                    return False
                finally:
                    os.close(fd)
        except (FileNotFoundError, NotADirectoryError):
            return False

    def _put_back(self, dirfd: int, aside: str, name: str, path: str) -> None:
        """Return a file gc moved aside; if a writer created the name meanwhile, lose neither."""
        try:
            os.link(aside, name, src_dir_fd=dirfd, dst_dir_fd=dirfd, follow_symlinks=False)
        except FileExistsError:
            if name.endswith(".jsonl"):  # an appended log: ours holds the older lines, the new one continues it
                flags = os.O_RDWR | os.O_APPEND | os.O_NONBLOCK
                newer = self._tree.open_file(dirfd, name, flags, path)
                older = self._tree.open_file(dirfd, aside, flags, path)
                try:
                    fcntl.flock(newer, fcntl.LOCK_EX)
                    tail = os.pread(newer, os.fstat(newer).st_size, 0)
                    view = memoryview(tail)
                    while view:
                        view = view[os.write(older, view) :]
                    os.replace(aside, name, src_dir_fd=dirfd, dst_dir_fd=dirfd)
                    return
                finally:
                    os.close(older)
                    os.close(newer)
        os.unlink(aside, dir_fd=dirfd)  # restored, or a newer complete file now holds the name

    async def _refresh(self, path: str, data: bytes) -> None:
        def touch() -> None:
            folder, name = self._tree.split(path)
            try:
                with self._tree.folder(folder) as dirfd:
                    os.utime(name, dir_fd=dirfd, follow_symlinks=False)
                    return
            except (FileNotFoundError, NotADirectoryError):
                pass
            self._tree.write(path, data, exclusive=True)  # gc removed it since: store it again

        await threads.run_sync(touch)

    async def _list(self, path: str) -> list[FileInfo]:
        def walk() -> list[FileInfo]:
            return [FileInfo(rel, size, mtime) for rel, size, mtime in self._tree.list(path)]

        return await threads.run_sync(walk)

    async def _stat(self, path: str) -> FileInfo | None:
        def stat() -> FileInfo | None:
            st = self._tree.stat(path) if path else None
            if st is None or not stat_mod.S_ISREG(st.st_mode):
                return None
            return FileInfo(path, st.st_size, st.st_mtime)

        return await threads.run_sync(stat)

    async def _isdir(self, path: str) -> bool:
        def isdir() -> bool:
            st = self._tree.stat(path)
            return st is not None and stat_mod.S_ISDIR(st.st_mode)

        return await threads.run_sync(isdir)

    async def _remove(self, path: str, *, recursive: bool = False) -> None:
        """Remove a file or link (never its target) or, with ``recursive``, a folder tree.

        Race-free: the tree is walked through descriptors opened with ``O_NOFOLLOW``,
        so a folder swapped for a symlink mid-removal never leads outside the workdir.
        """
        await threads.run_sync(lambda: self._tree.remove(path, recursive=recursive))

    async def _exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60.0) -> ExecResult:
        if not self.allow_host_commands:
            raise UnsupportedOperation(
                "LocalWorkspace runs host commands only with allow_host_commands=True (unconfined: "
                "they run as this user on this machine); use DockerWorkspace or E2BWorkspace as a sandbox"
            )
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


class HeldFolder:
    """A workspace folder held by descriptor while a long-running writer fills a file in it.

    ``offload run`` streams a command's output into a temp file in the session
    folder while the command runs, and the command can write into the workdir.
    The folder is opened race-free (no symlink followed) before the command
    starts; afterwards every step goes through that descriptor (``path`` is its
    ``/proc/self/fd`` entry) and the stored file through a descriptor of its own
    (``pin``), so swapping a folder or the file's name for a symlink cannot send
    the link, the preview or a removal outside the workdir. Without ``/proc``
    the plain paths are used (not race-free).
    """

    def __init__(self, root: str, rel: str) -> None:
        self._tree = ConfinedTree(root)
        self._tree.open()
        self._root, self._rel = root, rel
        try:
            with self._tree.folder(rel, create=True) as dirfd:
                self._fd = os.dup(dirfd)
        except BaseException:
            self._tree.close()
            raise
        self._proc = os.path.isdir(f"/proc/self/fd/{self._fd}")
        self.path = f"/proc/self/fd/{self._fd}" if self._proc else os.path.join(root, rel)
        self._temp: str | None = None
        self._pinned: int | None = None

    def pin(self, temp: str) -> str:
        """Hold the just-created file ``temp`` (in this folder) by descriptor; returns a path no rename redirects."""
        self._temp = os.path.basename(temp)
        if not self._proc:
            return temp
        self._pinned = os.open(self._temp, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self._fd)
        return f"/proc/self/fd/{self._pinned}"

    def link(self, name: str) -> None:
        """Give the pinned file its final ``name`` in this folder (``linkat``; FileExistsError if taken)."""
        if self._pinned is None or self._temp is None:
            os.link(os.path.join(self.path, self._temp or ""), os.path.join(self.path, name))
            return
        os.link(f"/proc/self/fd/{self._pinned}", name, dst_dir_fd=self._fd, follow_symlinks=True)

    def unlink(self, name: str) -> None:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=self._fd)

    def discard_temp(self) -> None:
        if self._temp is not None:
            self.unlink(self._temp)

    def remove_empty(self, rels: Sequence[str]) -> None:
        """Remove the folders ``rels`` (deepest last in the list) while they are empty; "" is the workdir."""
        for rel in reversed(rels):
            parent, name = self._tree.split(rel)
            try:
                if not rel:
                    os.rmdir(self._root)
                else:
                    with self._tree.folder(parent) as dirfd:
                        os.rmdir(name, dir_fd=dirfd)  # never follows a link
                    self._tree.forget(rel)
            except (OSError, ValueError):
                break  # not empty: something was offloaded (or another writer is there)

    def __enter__(self) -> HeldFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        for fd in (self._pinned, self._fd):
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._pinned = None
        self._tree.close()
