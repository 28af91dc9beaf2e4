"""Workspaces: where offloaded content lives, and the file tools bound to it.

``LocalWorkspace`` is always available; ``DockerWorkspace``, ``E2BWorkspace`` and
``FsspecWorkspace`` load on first use so their optional SDKs are only imported
when asked for.
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import DATA_URL_PREFIX, ExecResult, FileInfo, Workspace
from .errors import (
    BackendUnavailable,
    CommandTimeout,
    InvalidPattern,
    NotEnoughSpace,
    PathOutsideWorkspace,
    UnsupportedOperation,
    WorkspaceClosed,
    WorkspaceError,
)
from .local import LocalWorkspace
from .tools import Tool, ToolOutcome

__all__ = [
    "DATA_URL_PREFIX",
    "BackendUnavailable",
    "CommandTimeout",
    "DockerWorkspace",
    "E2BWorkspace",
    "ExecResult",
    "FileInfo",
    "FsspecWorkspace",
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
]

_LAZY = {
    "DockerWorkspace": ".docker",
    "E2BWorkspace": ".e2b",
    "FsspecWorkspace": ".fsspec",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
