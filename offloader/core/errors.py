"""Exceptions raised by workspaces. Each names its cause precisely."""

from __future__ import annotations

__all__ = [
    "BackendUnavailable",
    "CommandTimeout",
    "InvalidPattern",
    "NotEnoughSpace",
    "PathOutsideWorkspace",
    "UnsupportedOperation",
    "WorkspaceClosed",
    "WorkspaceError",
    "WorkspaceReadOnly",
]


class WorkspaceError(Exception):
    """Base class of every workspace error."""


class PathOutsideWorkspace(WorkspaceError, ValueError):
    """A path, reference, glob or symlink would leave the workdir."""


class InvalidPattern(WorkspaceError, ValueError):
    """A regex or glob pattern that cannot be compiled."""


class WorkspaceClosed(WorkspaceError, RuntimeError):
    """The workspace was used after ``close()``."""


class BackendUnavailable(WorkspaceError, ConnectionError):
    """The engine, container, sandbox or store behind a workspace is gone or unreachable."""


class NotEnoughSpace(WorkspaceError, OSError):
    """The workspace's filesystem is full; nothing was left half-written."""


class CommandTimeout(WorkspaceError, TimeoutError):
    """A command inside the workspace did not finish within its time limit."""


class UnsupportedOperation(WorkspaceError, NotImplementedError):
    """The backend cannot do this (e.g. run commands on an object store)."""


class WorkspaceReadOnly(WorkspaceError, PermissionError):
    """The workspace cannot be changed (a read-only filesystem or missing permission); nothing was removed."""
