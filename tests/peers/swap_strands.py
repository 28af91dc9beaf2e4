"""pytest plugin: Strands' storage and context-offloader tests with our storages.

* ``strands.storage.LocalFileStorage(base_dir)`` becomes
  ``WorkspaceKeyStorage(LocalWorkspace(base_dir))``;
* ``strands.storage.InMemoryStorage()`` becomes ``WorkspaceKeyStorage`` over an
  in-memory fsspec workspace;
* the context offloader's ``InMemoryStorage(evict_after_turns)`` becomes
  ``offloader.storage.InMemoryStorage`` and its ``FileStorage(artifact_dir)``
  becomes ``WorkspaceStorage(LocalWorkspace(artifact_dir))``.

Constructor arguments that select a Strands-only feature (a ``sandbox`` to route
I/O through, a pluggable ``search_strategy``) make the test n/a.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

import pytest
from _peers import mark_used, patch_names, swap_class, swapping
from strands.storage import InMemoryStorage as UnifiedMemory
from strands.storage import LocalFileStorage
from strands.vended_plugins.context_offloader.storage import FileStorage
from strands.vended_plugins.context_offloader.storage import InMemoryStorage as OffloaderMemory

from offloader.integrations.strands import WorkspaceKeyStorage
from offloader.storage import InMemoryStorage, WorkspaceStorage
from workspaces import LocalWorkspace
from workspaces.fsspec import FsspecWorkspace


def _refuse(kwargs: dict[str, Any], *names: str) -> None:
    for name in names:
        if kwargs.get(name) is not None:
            pytest.skip(f"n/a: `{name}=` selects a Strands-only feature of the class (see docs/compatibility.md)")


@pytest.fixture(autouse=True)
def _swap_storages(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    node = request.node

    def local_file(base_dir: str = "./.strands/", **kwargs: Any) -> Any:
        _refuse(kwargs, "sandbox", "search_strategy")
        mark_used(node)
        if not swapping():
            return LocalFileStorage(base_dir, **kwargs)
        return WorkspaceKeyStorage(LocalWorkspace(os.fspath(base_dir)))

    def unified_memory(**kwargs: Any) -> Any:
        _refuse(kwargs, "search_strategy")
        mark_used(node)
        if not swapping():
            return UnifiedMemory(**kwargs)
        return WorkspaceKeyStorage(FsspecWorkspace(f"memory://peers-{uuid.uuid4().hex}"))

    def offloader_memory(*args: Any, **kwargs: Any) -> Any:
        mark_used(node)
        return (InMemoryStorage if swapping() else OffloaderMemory)(*args, **kwargs)

    def file_storage(artifact_dir: str = "./artifacts", **kwargs: Any) -> Any:
        _refuse(kwargs, "sandbox")
        mark_used(node)
        if not swapping():
            return FileStorage(artifact_dir, **kwargs)
        return WorkspaceStorage(LocalWorkspace(os.fspath(artifact_dir)))

    patch_names(monkeypatch, LocalFileStorage, swap_class(LocalFileStorage, local_file, (WorkspaceKeyStorage,)))
    patch_names(monkeypatch, UnifiedMemory, swap_class(UnifiedMemory, unified_memory, (WorkspaceKeyStorage,)))
    patch_names(monkeypatch, OffloaderMemory, swap_class(OffloaderMemory, offloader_memory, (InMemoryStorage,)))
    patch_names(monkeypatch, FileStorage, swap_class(FileStorage, file_storage, (WorkspaceStorage,)))
