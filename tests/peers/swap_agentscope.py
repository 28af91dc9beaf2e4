"""pytest plugin: AgentScope's workspace tests with our ``LocalWorkspace`` in place of theirs.

``agentscope.workspace.LocalWorkspace(workdir=D)`` becomes
``workspaces.LocalWorkspace(D, media_names="agentscope")``: the offload contract (``offload_context``,
``offload_data_block``, ``offload_tool_result``) is what AgentScope's agent calls.
Tests of AgentScope's own workspace features (its tool list, shells, MCP,
skills) are n/a: they are not part of the offload contract.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from _peers import mark_used, patch_names, swap_class, swapping
from agentscope.workspace import LocalWorkspace as TheirLocalWorkspace

from workspaces import LocalWorkspace


@pytest.fixture(autouse=True)
def _swap_workspace(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    node = request.node

    def build(workdir: Any = None, *args: Any, **kwargs: Any) -> Any:
        mark_used(node)
        if not swapping():
            return TheirLocalWorkspace(*args, **({"workdir": workdir} if workdir is not None else {}), **kwargs)
        return LocalWorkspace(os.fspath(workdir), media_names="agentscope")

    patch_names(monkeypatch, TheirLocalWorkspace, swap_class(TheirLocalWorkspace, build, (LocalWorkspace,)))
