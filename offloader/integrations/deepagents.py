"""LangChain deepagents: a backend over any workspace.

``create_deep_agent(model, tools, backend=deepagents_backend(workspace))`` makes
deepagents' filesystem tools (``ls``, ``read_file``, ``write_file``,
``edit_file``, ``glob``, ``grep``, ``delete``) and its large-tool-result
eviction (``/large_tool_results/{tool_call_id}``) read and write the workspace:
a host folder, a Docker container, an E2B sandbox or an fsspec store.

Commands: ``execute`` is offered only for workspaces that run commands
(``Workspace.runs_commands``). Docker and E2B workspaces are sandboxes; a
``LocalWorkspace`` runs host commands only when built with
``allow_host_commands=True``, and then unconfined (as this user, on this machine).

Paths: the workspace's workdir is the virtual root ``/`` (``/notes/a.md`` is
``{workdir}/notes/a.md``); a workspace reference (``{workdir}/sessions/...``, as
this project's offloader returns) is accepted too. Nothing can leave the workdir:
a path with ``..`` or one resolving outside raises ``ValueError``
(``PathOutsideWorkspace``), as deepagents' ``FilesystemBackend`` does; every
other failure comes back as an error in the result, in deepagents' wording.

Every operation is async on the workspace; the sync variants run the same
coroutine on the loop that owns the workspace when that loop runs in another
thread, and otherwise on a dedicated loop thread: they work from worker
threads, plain scripts and inside a running event loop (Jupyter, async agents).
"""

from __future__ import annotations

import shlex
from typing import Any

from offloader.core.extras import MissingExtra

try:
    from deepagents.backends.protocol import ExecuteResponse, SandboxBackendProtocol
except ModuleNotFoundError as exc:
    raise MissingExtra("the deepagents backend", "deepagents", exc.name) from exc

from offloader.core.errors import UnsupportedOperation
from workspaces import Workspace

from ._deepagents_files import WorkspaceBackend

__all__ = ["WorkspaceBackend", "WorkspaceSandboxBackend", "deepagents_backend"]


def deepagents_backend(workspace: Workspace, **options: Any) -> WorkspaceBackend:
    """The right backend for ``workspace``: with ``execute`` when it runs commands."""
    if workspace.runs_commands:
        return WorkspaceSandboxBackend(workspace, **options)
    return WorkspaceBackend(workspace, **options)


class WorkspaceSandboxBackend(WorkspaceBackend, SandboxBackendProtocol):
    """With ``execute``: ``sh -c COMMAND`` runs where the workspace runs commands (cwd = workdir).

    A sandbox for Docker and E2B workspaces; on a ``LocalWorkspace`` built with
    ``allow_host_commands=True`` the commands run on the host, unconfined (without
    the flag the workspace refuses them and ``execute`` answers an error).

    ``default_timeout`` (default 120 s) applies when deepagents passes none;
    ``max_output_bytes`` (default 1 MB) caps what comes back, flagged ``truncated``.
    """

    def __init__(
        self, workspace: Workspace, *, default_timeout: float = 120.0, max_output_bytes: int = 1 << 20, **options: Any
    ) -> None:
        super().__init__(workspace, **options)
        self.default_timeout = _positive_timeout(default_timeout)
        self.max_output_bytes = max_output_bytes

    @property
    def id(self) -> str:
        return f"{type(self.workspace).__name__}:{self.workspace.workdir}"

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        return self._sync(lambda: self.aexecute(command, timeout=timeout))

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run ``command``; a timeout of 0 or less raises ``ValueError`` (deepagents' contract)."""
        limit = self.default_timeout if timeout is None else _positive_timeout(timeout)
        if not isinstance(command, str) or not command.strip():
            return ExecuteResponse(output="Error: Command must be a non-empty string.", exit_code=1)
        try:
            await self._ready()
            result = await self.workspace.exec(["sh", "-c", command], timeout=limit)
        except UnsupportedOperation as exc:
            return ExecuteResponse(output=f"Error: {exc}", exit_code=None)
        except TimeoutError:
            return ExecuteResponse(
                output=f"Error: command timed out after {limit:g}s: {shlex.quote(command)}", exit_code=124
            )
        glue = b"\n" if result.stdout and result.stderr and not result.stdout.endswith(b"\n") else b""
        data = result.stdout + glue + result.stderr
        truncated = len(data) > self.max_output_bytes
        return ExecuteResponse(
            output=data[: self.max_output_bytes].decode("utf-8", "replace"),
            exit_code=result.exit_code,
            truncated=truncated,
        )


def _positive_timeout(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"timeout must be positive, got {value!r}")
    return float(value)
