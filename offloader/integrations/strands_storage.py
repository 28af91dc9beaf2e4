"""Strands' unified ``strands.storage.Storage`` over any workspace.

Strands 1.62 persists sessions, memory and offloaded content through one small
interface: ``write`` / ``read`` / ``delete`` / ``list`` / ``search`` over raw bytes
under ``/``-separated keys, plus ``namespace`` for scoped views.
:class:`WorkspaceKeyStorage` implements it over a workspace, so a Docker
container, an E2B sandbox or an S3 bucket can back Strands wherever it takes a
``Storage``::

    from strands.vended_plugins.context_offloader import ContextOffloader
    from offloader.integrations.strands import WorkspaceKeyStorage
    from workspaces import DockerWorkspace

    storage = WorkspaceKeyStorage(DockerWorkspace(image="python:3.12-slim"), root="strands")
    agent = Agent(plugins=[ContextOffloader(storage=storage)])

Key ``a/b.json`` is the file ``{root}/a/b.json`` in the workspace (readable by
Read/Grep/Glob); writes are atomic (the workspace's own). Keys follow the shipped
backends' rules: runs of ``/`` collapse, leading and trailing ``/`` are dropped,
an empty key, a backslash or a ``..`` segment raise ``StorageError``. Temp files
and line-index sidecars are never listed as keys.
"""

from __future__ import annotations

import builtins
import re

from strands.storage.search.keyword import KeywordSearchStrategy
from strands.storage.storage import _NAMESPACED, StorageSearchResult
from strands.types.exceptions import StorageError

from offloader.core.backend import WorkspaceProtocol
from offloader.core.errors import WorkspaceError

__all__ = ["WorkspaceKeyStorage"]


def _clean(value: str, *, what: str, empty_ok: bool) -> str:
    if not isinstance(value, str):
        raise StorageError(f"storage {what} must be a str, got {type(value).__name__}")
    if "\\" in value:
        raise StorageError(f"Invalid storage {what} '{value}': backslashes are not allowed")
    cleaned = re.sub(r"/+", "/", value)
    cleaned = cleaned.lstrip("/") if empty_ok else cleaned.strip("/")
    if not cleaned and not empty_ok:
        raise StorageError("Storage key must not be empty")
    if ".." in cleaned.split("/") or "\x00" in cleaned:
        raise StorageError(f"Invalid storage {what} '{value}': '..' path segments are not allowed")
    return cleaned


class WorkspaceKeyStorage:
    """``strands.storage.Storage`` whose keys are files under ``root`` in a workspace."""

    def __init__(self, workspace: WorkspaceProtocol, *, root: str = "") -> None:
        if not isinstance(workspace, WorkspaceProtocol):
            raise TypeError(f"WorkspaceKeyStorage needs a workspaces.Workspace, got {type(workspace).__name__}")
        self.workspace = workspace
        self.root = _clean(root, what="prefix", empty_ok=True).rstrip("/")

    def _path(self, key: str) -> str:
        normalized = _clean(key, what="key", empty_ok=False)
        return f"{self.root}/{normalized}" if self.root else normalized

    async def write(self, key: str, data: bytes) -> None:
        """Store ``data`` under ``key``, replacing any value (atomically)."""
        path = self._path(key)
        try:
            await self.workspace.write_bytes(path, bytes(data))
        except (WorkspaceError, OSError, ValueError, TypeError) as exc:
            raise StorageError(f"Failed to write '{key}'") from exc

    async def read(self, key: str) -> bytes | None:
        """The bytes under ``key``, or None when there are none."""
        path = self._path(key)
        try:
            return await self.workspace.read_bytes(path)
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return None
        except (WorkspaceError, OSError, ValueError) as exc:
            raise StorageError(f"Failed to read '{key}'") from exc

    async def delete(self, key: str) -> None:
        """Remove ``key``; a missing key is not an error."""
        path = self._path(key)
        try:
            if await self.workspace.stat(path) is not None:
                await self.workspace.remove(path)
        except (WorkspaceError, OSError, ValueError) as exc:
            raise StorageError(f"Failed to delete '{key}'") from exc

    async def list(self, query: str = "") -> builtins.list[str]:
        """Keys starting with ``query``, sorted."""
        prefix = _clean(query, what="prefix", empty_ok=True)
        folder = "/".join(prefix.split("/")[:-1])  # the deepest folder the prefix names
        start = "/".join(p for p in (self.root, folder) if p) or "."
        cut = len(self.root) + 1 if self.root else 0
        try:
            infos = await self.workspace.find_files(start)
        except FileNotFoundError:
            return []
        except (WorkspaceError, OSError, ValueError) as exc:
            raise StorageError(f"Failed to list keys with prefix '{query}'") from exc
        keys = (info.path[cut:] for info in infos if not self.root or info.path.startswith(self.root + "/"))
        return sorted(k for k in keys if k.startswith(prefix))

    async def search(self, query: str) -> builtins.list[StorageSearchResult]:
        """Keyword search over the stored values (Strands' default strategy)."""
        return await KeywordSearchStrategy().search(self, query)  # type: ignore[arg-type]

    def namespace(self, prefix: str) -> WorkspaceKeyStorage:
        """A view whose keys live under ``prefix`` (nests)."""
        sub = _clean(prefix, what="prefix", empty_ok=True).rstrip("/")
        scoped = WorkspaceKeyStorage(self.workspace, root="/".join(p for p in (self.root, sub) if p))
        scoped._namespaced = _NAMESPACED  # type: ignore[attr-defined]  # Strands' "already scoped" marker
        return scoped
