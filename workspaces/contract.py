"""The backend contract: what a workspace backend implements, documented in one class.

:class:`~workspaces.base.Workspace` inherits it; a backend subclasses
``Workspace``, declares :attr:`Backend.capabilities` and implements the
abstract primitives below (and the optional ones it can do better). The base
class confines every path first, so primitives receive normalised
workdir-relative POSIX paths, never raw ids, user paths, the workdir itself or
an empty read range. ``workspaces.testing.WorkspaceSuite`` checks the contract.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from offloader.core.backend import Capabilities, ExecResult, FileInfo
from offloader.core.errors import UnsupportedOperation

__all__ = ["Backend"]


class Backend(abc.ABC):
    """The primitives every workspace backend provides."""

    #: What this backend can do beyond the required primitives.
    capabilities: Capabilities = Capabilities()

    if TYPE_CHECKING:
        #: Absolute workdir in the workspace's own filesystem (or a URL root).
        workdir: str

        async def _ready(self) -> None: ...
        def relative(self, path_or_reference: str) -> str: ...
        def reference(self, path: str) -> str: ...

    @abc.abstractmethod
    async def _read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        """Bytes ``[start, end)`` of a file. FileNotFoundError if missing."""

    @abc.abstractmethod
    async def _write(self, files: Sequence[tuple[str, bytes]], *, exclusive: bool = False) -> list[bool]:
        """Write a batch atomically per file, creating parent folders.

        With ``exclusive=True`` an existing file is left untouched. Returns, per
        file, True if this call wrote it and False if it already existed.
        Readers never see a partially written file.
        """

    @abc.abstractmethod
    async def _append(self, path: str, data: bytes) -> None:
        """Append ``data`` (whole lines) as one unit, creating file and parents.

        Concurrent appends to one file must never interleave or lose data.
        """

    @abc.abstractmethod
    async def _list(self, path: str) -> list[FileInfo]:
        """Every regular file under ``path`` (recursive); [] if it does not exist."""

    @abc.abstractmethod
    async def _stat(self, path: str) -> FileInfo | None:
        """Info on one regular file, or None if missing (or a folder)."""

    @abc.abstractmethod
    async def _remove(self, path: str, *, recursive: bool = False) -> None:
        """Remove a file, or a folder tree with ``recursive``; missing is not an error."""

    async def _exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60.0) -> ExecResult:
        """Run a non-empty argv inside the workspace (cwd = workdir). Needs ``capabilities.exec``."""
        raise UnsupportedOperation(f"{type(self).__name__} cannot run commands")

    async def _isdir(self, path: str) -> bool:
        """Whether ``path`` is a folder. Default: it holds a file (object stores have no empty folders)."""
        return bool(await self._list(path))

    @property
    def race_free_confinement(self) -> bool:
        """Whether confinement holds while another process swaps folders for symlinks.

        True where every path is walked from a descriptor of the workdir (LocalWorkspace,
        ``file://`` fsspec); sandbox backends refuse planted symlinks but are best effort
        against a process racing inside the sandbox (docs: concepts/confinement.md).
        """
        return False

    @property
    def runs_commands(self) -> bool:
        """Whether ``exec`` runs commands here now: ``capabilities.exec``, unless the instance
        turned it off (``LocalWorkspace`` without ``allow_host_commands``)."""
        return self.capabilities.exec

    async def _grep_native(
        self, regex_source: str, path: str, *, ignore_case: bool, glob: str | None
    ) -> list[str] | None:
        """Prefilter (``capabilities.native_grep``): files under ``path`` that may match.

        Backends that can run a search engine next to the data (a container's
        grep) return candidate paths so the base reads only those; None means
        "search every file in-process". Never drop a file the RE2 regex matches:
        the shared policy is ``workspaces._posix.grep_prefilter`` (literals only).
        """
        return None

    async def _remove_if_unchanged(self, path: str, seen: FileInfo) -> bool:
        """Remove ``path`` only if it is still the file ``seen`` (same size and mtime); True if removed.

        gc's removal step. Backends make the check and the removal one step with
        respect to ``_append`` and ``_refresh`` (the append lock, or a move aside
        then a verify), so a writer's change in between is never lost. This
        default re-stats then removes; between the two a write can slip in.
        """
        current = await self._stat(path)
        if current is None or (current.size, current.mtime) != (seen.size, seen.mtime):
            return False
        await self._remove(path)
        return True

    async def _refresh(self, path: str, data: bytes) -> None:
        """Mark an existing file whose content is ``data`` as just written (gc then keeps it).

        Used when an offload finds its content already stored. The default
        rewrites it atomically (a new mtime); it is recreated if gc removed it meanwhile.
        """
        await self._write([(path, data)])

    async def _write_and_append(
        self, files: Sequence[tuple[str, bytes]], *, exclusive: bool, append: tuple[str, bytes]
    ) -> list[bool]:
        """``_write`` then, only if the batch's last file was written, ``_append``.

        Optional: a backend that can do both in one round trip overrides it (an
        offload plus its ledger line then cost one operation). The default makes
        two calls.
        """
        written = await self._write(files, exclusive=exclusive)
        if written and written[-1]:
            await self._append(*append)
        return written

    def _blocking_store(self) -> Callable[[Sequence[tuple[str, bytes | str]], tuple[str, bytes]], list[bool]] | None:
        """A blocking exclusive ``_write_and_append`` that may run in a worker thread, or None.

        Optional: a backend whose primitives are blocking calls returns one, and an
        offload then renders, writes and records in a single worker-thread hop
        (together with the caller's preview, see ``Workspace.offload_tool_result_with``).
        A file's content may come as a str, to be stored as UTF-8.
        """
        return None

    async def _open(self) -> None:
        """Acquire resources (create a container, connect to a store)."""
        return None

    async def _close(self) -> None:
        """Release what ``_open`` acquired."""
        return None
