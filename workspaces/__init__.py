"""Workspaces: where offloaded content lives, and the file tools bound to it.

``LocalWorkspace`` is exported here; the other backends are imported by their
own path so their SDKs load only when asked for::

    from workspaces.docker import DockerWorkspace
    from workspaces.e2b import E2BWorkspace
    from workspaces.fsspec import FsspecStorage, FsspecWorkspace

``workspaces`` depends only on ``offloader.core`` (never on the rest of
``offloader``).
"""

from __future__ import annotations

from offloader.core.backend import ExecResult, FileInfo
from offloader.core.errors import (
    BackendUnavailable,
    CommandTimeout,
    InvalidPattern,
    NotEnoughSpace,
    PathOutsideWorkspace,
    UnsupportedOperation,
    WorkspaceClosed,
    WorkspaceError,
    WorkspaceReadOnly,
)
from offloader.core.layout import DATA_URL_PREFIX
from offloader.core.tools import Tool, ToolOutcome

from .base import Workspace
from .local import LocalWorkspace

__all__ = [
    "DATA_URL_PREFIX",
    "BackendUnavailable",
    "CommandTimeout",
    "ExecResult",
    "FileInfo",
    "InvalidPattern",
    "LocalWorkspace",
    "NotEnoughSpace",
    "PathOutsideWorkspace",
    "Tool",
    "ToolOutcome",
    "UnsupportedOperation",
    "Workspace",
    "WorkspaceClosed",
    "WorkspaceError",
    "WorkspaceReadOnly",
]
