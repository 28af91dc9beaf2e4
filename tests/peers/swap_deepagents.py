"""pytest plugin: deepagents' tests with ``FilesystemBackend(virtual_mode=True)`` built as our backend.

``FilesystemBackend(root_dir=D, virtual_mode=True)`` becomes
``deepagents_backend(LocalWorkspace(D))``. Non-virtual mode exposes host
absolute paths, which a workspace never does, so those tests are n/a.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from _peers import mark_used, patch_names, swap_class, swapping
from deepagents.backends.filesystem import FilesystemBackend

from offloader.integrations.deepagents import WorkspaceBackend, deepagents_backend
from workspaces import LocalWorkspace


@pytest.fixture(autouse=True)
def _swap_filesystem_backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    def build(root_dir: Any = None, virtual_mode: bool | None = None, max_file_size_mb: int = 10, **kwargs: Any) -> Any:
        if not virtual_mode:
            pytest.skip("n/a: non-virtual mode (host absolute paths; a workspace always confines to its workdir)")
        mark_used(request.node)
        if not swapping():
            return FilesystemBackend(root_dir=root_dir, virtual_mode=True, max_file_size_mb=max_file_size_mb, **kwargs)
        return deepagents_backend(LocalWorkspace(os.fspath(root_dir) if root_dir is not None else os.getcwd()))

    patch_names(monkeypatch, FilesystemBackend, swap_class(FilesystemBackend, build, (WorkspaceBackend,)))
