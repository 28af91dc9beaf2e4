"""AgentScope 2.x: workspaces as ``offloader=``, and their tools as AgentScope tools.

Every :class:`workspaces.Workspace` already is an AgentScope offloader:
``Agent(..., offloader=LocalWorkspace("./ws"))`` works as is, because AgentScope
calls ``offload_tool_result``, ``offload_context`` and ``offload_data_block``
with its own pydantic objects and the workspaces accept them. This module adds
:func:`agentscope_tools`, which wraps the workspace's Read / Grep / Glob (and
any other :class:`workspaces.Tool`) as AgentScope ``FunctionTool`` objects, so
the agent can read offloaded content back on any backend (a Docker container,
an E2B sandbox, S3), not only on the host filesystem AgentScope's own tools see.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from offloader.core.extras import MissingExtra
from workspaces import Tool, Workspace

try:
    import agentscope  # noqa: F401 - imported where used; checked here so a missing extra fails at import
except ModuleNotFoundError as exc:
    raise MissingExtra("the AgentScope tools", "agentscope", exc.name) from exc

if TYPE_CHECKING:
    from agentscope.tool import FunctionTool, ToolChunk

__all__ = ["agentscope_tool", "agentscope_tools"]


def agentscope_tool(tool: Tool, *, name: str | None = None) -> FunctionTool:
    """One framework-neutral :class:`Tool` as an AgentScope ``FunctionTool``.

    The JSON schema is passed through unchanged; the tool is marked read-only and
    concurrency-safe, and allowed without asking (it can only read inside its
    workspace). Errors come back as an error tool result, never as an exception.
    """
    from agentscope.message import TextBlock, ToolResultState
    from agentscope.permission import PermissionBehavior, PermissionDecision
    from agentscope.tool import FunctionTool, ToolChunk

    async def call(**arguments: Any) -> ToolChunk:
        outcome = await tool.invoke(arguments)
        return ToolChunk(
            content=[TextBlock(text=outcome.text)],
            state=ToolResultState.ERROR if outcome.is_error else ToolResultState.SUCCESS,
            is_last=True,
        )

    return FunctionTool(
        call,
        name=name or tool.name,
        description=tool.description,
        input_schema=tool.parameters,
        is_concurrency_safe=True,
        is_read_only=True,
        permission=PermissionDecision(
            behavior=PermissionBehavior.ALLOW,
            message=f"{name or tool.name} only reads inside its workspace.",
        ),
    )


def agentscope_tools(workspace: Workspace, *, prefix: str = "", extra: Sequence[Tool] = ()) -> list[FunctionTool]:
    """The workspace's Read / Grep / Glob (plus ``extra`` tools) as AgentScope tools.

    ``prefix`` (default none) is prepended to each name, e.g. ``prefix="Workspace"``
    gives ``WorkspaceRead`` so the tools can sit next to AgentScope's own Read.
    """
    return [agentscope_tool(t, name=prefix + t.name) for t in [*workspace.tools(), *extra]]
