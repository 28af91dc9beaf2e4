"""Strands Agents: a plugin that offloads big tool results with this project's ContextOffloader.

A drop-in for Strands' own ``ContextOffloader`` plugin (same arguments:
``storage``, ``max_result_tokens``, ``preview_tokens``, ``include_retrieval_tool``,
``should_offload``, ``evict_after_cycles``), with what this project adds: any
workspace as storage (a folder, a Docker container, an E2B sandbox, S3), the whole
result kept in one file, a preview that keeps error lines and the tail,
O(threshold) token decisions, and optionally Read / Grep / Glob as Strands tools::

    from strands import Agent
    from offloader.integrations.strands import OffloaderPlugin
    from workspaces import LocalWorkspace

    agent = Agent(tools=[...], plugins=[OffloaderPlugin(LocalWorkspace(".offload"), file_tools=True)])

After every tool call (``AfterToolCallEvent``) a result over ``max_result_tokens``
is stored and replaced by a preview plus references; the agent reads back with
``retrieve_offloaded_content``. With the default in-memory storage, entries idle
for ``evict_after_cycles`` agent-loop cycles are dropped before the next model
call; workspaces and other storages keep everything (their retention is
``Workspace.gc``'s job).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from offloader.core.extras import MissingExtra

try:
    from strands.hooks.events import AfterToolCallEvent, BeforeModelCallEvent
    from strands.plugins import Plugin, hook
    from strands.tools.tools import PythonAgentTool
    from strands.types.tools import AgentTool, ToolResult, ToolSpec, ToolUse
except ModuleNotFoundError as exc:
    raise MissingExtra("the Strands plugin", "strands", exc.name) from exc

from offloader.offloader import DEFAULT_EXCLUDED_TOOLS, ContextOffloader, ShouldOffload
from offloader.storage import InMemoryStorage, Storage
from offloader.tokens import TokenCounter
from workspaces import Tool, Workspace

from .strands_storage import WorkspaceKeyStorage

if TYPE_CHECKING:
    from strands import Agent

__all__ = ["OffloaderPlugin", "WorkspaceKeyStorage", "strands_tool", "strands_tools"]

_log = logging.getLogger("offloader.strands")


def strands_tool(tool: Tool) -> AgentTool:
    """A framework-neutral :class:`Tool` as a Strands tool (errors become ``status="error"`` results)."""
    spec: ToolSpec = {"name": tool.name, "description": tool.description, "inputSchema": {"json": tool.parameters}}

    async def run(tool_use: ToolUse, **invocation_state: Any) -> ToolResult:
        arguments = tool_use.get("input") or {}
        if not isinstance(arguments, dict):
            outcome_text, is_error = f"Error: arguments for {tool.name} must be a JSON object", True
        else:
            outcome = await tool.invoke(arguments)
            outcome_text, is_error = outcome.text, outcome.is_error
        return {
            "toolUseId": tool_use["toolUseId"],
            "status": "error" if is_error else "success",
            "content": [{"text": outcome_text}],
        }

    return PythonAgentTool(tool.name, spec, run)


def strands_tools(tools: Iterable[Tool]) -> list[AgentTool]:
    """Several tools at once, e.g. ``Agent(tools=strands_tools(workspace.tools()))``."""
    return [strands_tool(t) for t in tools]


class OffloaderPlugin(Plugin):
    """Offload oversized tool results of a Strands agent; see the module docstring.

    Args:
        storage: a workspace (whole result in ``sessions/{sid}/``) or any
            :class:`~offloader.storage.Storage`; default an
            :class:`~offloader.storage.InMemoryStorage` evicted by agent cycles.
        max_result_tokens: offload results over this many tokens (default 2,500).
        preview_tokens: preview left in context (default 1,000).
        include_retrieval_tool: register ``retrieve_offloaded_content`` (default True).
        should_offload: ``(tool_name, tokens, **kwargs) -> bool`` (sync or async),
            asked only for results over the threshold.
        evict_after_cycles: in-memory entries idle this many cycles are dropped
            (default 20, ``None`` never).
        file_tools: also register the workspace's Read / Grep / Glob (workspaces only).
        session_id: the workspace session folder (default: the agent's ``agent_id``).
        counter: token counter (default: the package's default counter).
        exclude_tools: tools never offloaded (default: retrieval, Read, Grep, Glob).
    """

    name = "offloader"

    def __init__(
        self,
        storage: Storage | Workspace | None = None,
        max_result_tokens: int = 2500,
        preview_tokens: int = 1000,
        *,
        include_retrieval_tool: bool = True,
        should_offload: ShouldOffload | None = None,
        evict_after_cycles: int | None = 20,
        file_tools: bool = False,
        session_id: str | None = None,
        counter: TokenCounter | None = None,
        exclude_tools: Iterable[str] = DEFAULT_EXCLUDED_TOOLS,
    ) -> None:
        if storage is None:
            storage = InMemoryStorage(evict_after_turns=evict_after_cycles)
        if file_tools and not isinstance(storage, Workspace):
            raise TypeError("file_tools=True needs a workspace as storage (Read/Grep/Glob read its files)")
        if session_id is not None and (not isinstance(session_id, str) or not session_id):
            raise ValueError(f"session_id must be a non-empty str, got {session_id!r}")
        self.offloader = ContextOffloader(
            storage,
            max_result_tokens,
            preview_tokens,
            counter,
            include_retrieval_tool=include_retrieval_tool,
            should_offload=should_offload,
            exclude_tools=exclude_tools,
        )
        self.storage = storage
        self.session_id = session_id
        super().__init__()
        extra: list[Tool] = list(self.offloader.tools())
        if file_tools and isinstance(storage, Workspace):
            extra.extend(storage.tools())
        self._tools.extend(strands_tools(extra))  # type: ignore[arg-type]  # plain AgentTools register fine

    def _session(self, agent: Agent) -> str:
        return self.session_id or str(getattr(agent, "agent_id", "") or "strands")

    @hook  # type: ignore[call-overload]  # strands types hook() for functions, its own plugins use methods
    async def _evict(self, event: BeforeModelCallEvent) -> None:
        """Drop idle in-memory entries as the agent loop advances."""
        if isinstance(self.storage, InMemoryStorage):
            evicted = self.storage.on_cycle(event.agent.event_loop_metrics.cycle_count)
            if evicted:
                _log.debug("evicted %d idle offloaded entries", len(evicted))

    @hook  # type: ignore[call-overload]  # strands types hook() for functions, its own plugins use methods
    async def _offload(self, event: AfterToolCallEvent) -> None:
        """Replace an oversized result by a preview plus references (unchanged if storing fails)."""
        if event.cancel_message is not None:
            return
        if getattr(event.selected_tool, "delegate", False):  # an agent-as-tool's answer is the final answer
            return
        name = str(event.tool_use.get("name", ""))
        event.result = await self.offloader.process_tool_result(
            self._session(event.agent), event.result, tool_name=name
        )
