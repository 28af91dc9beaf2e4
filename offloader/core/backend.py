"""What the top layer may rely on from a workspace, typed without importing ``workspaces``.

:class:`WorkspaceProtocol` is the public surface of every ``workspaces.Workspace``
(content, references, file operations, offloading); ``ContextOffloader``,
retrieval, storages and compaction are written against it. :class:`FileInfo`
and :class:`ExecResult` are the values it returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = ["Capabilities", "ExecResult", "FileInfo", "WorkspaceProtocol"]


@dataclass(frozen=True, slots=True)
class Capabilities:
    """What a backend can do beyond the required primitives; the base class and the
    conformance suite (``workspaces.testing``) act on these declarations.

    ``exec``: runs commands (``_exec``); ``native_grep``: prefilters Grep next to the
    data (``_grep_native``); ``append``: appends natively (False: emulated, e.g.
    segment objects on a store); ``exclusive_write``: creates a file only if absent,
    atomically across processes (False: best effort within one process).
    """

    exec: bool = False
    native_grep: bool = False
    append: bool = True
    exclusive_write: bool = True


@dataclass(frozen=True, slots=True)
class FileInfo:
    """A file in the workspace: workdir-relative path, size in bytes, mtime (epoch seconds).

    ``tag`` is the store's version tag of the content where it keeps one (S3's
    ETag), else empty. It is not part of equality; gc uses it to see a rewrite
    that leaves size and mtime as they were (S3 stamps whole seconds).
    """

    path: str
    size: int
    mtime: float
    tag: str = field(default="", compare=False)


@dataclass(frozen=True, slots=True)
class ExecResult:
    """Exit code and output of a command run inside a workspace."""

    exit_code: int
    stdout: bytes
    stderr: bytes


@runtime_checkable
class WorkspaceProtocol(Protocol):
    """The public calls of a workspace (see ``workspaces.Workspace`` for their contracts)."""

    workdir: str
    capabilities: Capabilities

    @property
    def runs_commands(self) -> bool: ...

    def reference(self, path: str) -> str: ...
    def relative(self, path_or_reference: str) -> str: ...
    def session_dir(self, session_id: str) -> str: ...
    async def read_bytes(self, path: str, start: int = 0, end: int | None = None) -> bytes: ...
    async def write_bytes(self, path: str, data: bytes) -> str: ...
    async def write_files(self, files: Sequence[tuple[str, bytes]], *, exclusive: bool = False) -> list[bool]: ...
    async def append_bytes(self, path: str, data: bytes) -> None: ...
    async def list_files(self, path: str = ".") -> list[FileInfo]: ...
    async def find_files(self, path: str = ".", glob: str | None = None) -> list[FileInfo]: ...
    async def remove(self, path: str, *, recursive: bool = False) -> None: ...
    async def stat(self, path: str) -> FileInfo | None: ...
    async def is_dir(self, path: str) -> bool: ...
    async def exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60.0) -> ExecResult: ...
    async def record_ledger(self, session_id: str, entries: Sequence[dict[str, Any]]) -> None: ...
    async def offload_tool_result(self, session_id: str, tool_result: Any, **kwargs: Any) -> str: ...
    async def offload_context(self, session_id: str, msgs: Sequence[Any], **kwargs: Any) -> str: ...
    async def offload_data_block(self, block: Any, **kwargs: Any) -> Any: ...
