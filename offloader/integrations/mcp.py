"""An MCP server exposing one workspace: Read, Grep, Glob, retrieval and offload.

Any MCP client (Claude Desktop, an IDE, another agent framework) can then keep
big content out of its context and read it back with the same confined,
capped tools the Python integrations use::

    offload mcp --workdir .offload                 # stdio
    offload mcp --workdir .offload --http 8765     # streamable HTTP on 127.0.0.1

Every call goes through :meth:`workspaces.Tool.invoke`, so unknown or missing
arguments, paths outside the workdir and invalid regexes come back as MCP tool
errors (``is_error``) and never reach the filesystem.
"""

from __future__ import annotations

import ipaddress
import os
import uuid
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from offloader.core.extras import MissingExtra

try:
    import mcp_types as types
    from mcp.server import Server
except ModuleNotFoundError as exc:
    raise MissingExtra("the MCP server (offload mcp)", "mcp", exc.name) from exc

from offloader.core.messages import TextBlock, ToolResultBlock
from offloader.retrieval import retrieval_tool
from workspaces import Tool, Workspace

__all__ = ["OFFLOAD_TOOL_NAME", "build_mcp_server", "mcp_tools", "offload_tool", "run_mcp_server"]

OFFLOAD_TOOL_NAME = "offload"
_DEFAULT_MAX_OFFLOAD_BYTES = 50 * 1024 * 1024
_READ_ONLY = types.ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
_APPEND_ONLY = types.ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False
)


def offload_tool(workspace: Workspace, *, session_id: str = "mcp", max_bytes: int = _DEFAULT_MAX_OFFLOAD_BYTES) -> Tool:
    """A tool that stores text in the workspace and returns its reference.

    The text is stored whole as a tool result of session ``session_id``
    (default ``"mcp"``); ``max_bytes`` (default 50 MB) refuses anything larger
    so one call cannot fill the disk.
    """
    if max_bytes < 1:
        raise ValueError("max_bytes must be positive")

    async def offload(content: str, name: str = "content", session: str | None = None) -> str:
        if not isinstance(content, str):
            raise TypeError("content must be a string")
        if not isinstance(name, str) or not name or len(name) > 200:
            raise ValueError("name must be a non-empty string of at most 200 characters")
        size = len(content.encode("utf-8", "surrogatepass"))
        if size > max_bytes:
            raise ValueError(f"content is {size} bytes; the limit is {max_bytes} bytes")
        sid = session_id if session is None else session
        if not isinstance(sid, str) or not sid:
            raise ValueError("session must be a non-empty string")
        result = ToolResultBlock(
            id=f"{OFFLOAD_TOOL_NAME}-{uuid.uuid4().hex[:12]}", name=name, content=(TextBlock(content),)
        )
        ref = await workspace.offload_tool_result(sid, result)
        lines = content.count("\n") + (0 if content.endswith("\n") or not content else 1)
        return f"Stored {size} bytes ({lines} lines) at {ref}\nRead it back with Read (offset/limit) or Grep."

    return Tool(
        OFFLOAD_TOOL_NAME,
        f"Store a large text in the workspace at {workspace.workdir} instead of keeping it in "
        "context; returns a reference to read back later with Read or Grep.",
        {
            "type": "object",
            "properties": {
                "content": {"type": "string", "description": "The text to store, whole"},
                "name": {
                    "type": "string",
                    "default": "content",
                    "description": "A label, e.g. the tool that produced it",
                },
                "session": {"type": "string", "description": f"Session id (default {session_id!r})"},
            },
            "required": ["content"],
        },
        offload,
    )


def mcp_tools(
    workspace: Workspace, *, session_id: str = "mcp", include_offload: bool = True, include_retrieval: bool = True
) -> list[Tool]:
    """The tools the server exposes: Read, Grep, Glob, ``retrieve_offloaded_content``, ``offload``."""
    tools = list(workspace.tools())
    if include_retrieval:
        tools.append(retrieval_tool(workspace))
    if include_offload:
        tools.append(offload_tool(workspace, session_id=session_id))
    names = [t.name for t in tools]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate tool names: {names}")
    return tools


def build_mcp_server(
    workspace: Workspace, tools: Sequence[Tool] | None = None, *, name: str = "offloader"
) -> Server[Any]:
    """A low-level MCP server answering ``tools/list`` and ``tools/call`` with ``tools``.

    ``tools`` defaults to :func:`mcp_tools` over ``workspace``. The workspace is
    opened when the server starts and closed when it stops.
    """
    chosen = list(tools) if tools is not None else mcp_tools(workspace)
    by_name = {t.name: t for t in chosen}
    listed = [
        types.Tool(
            name=t.name,
            description=t.description,
            input_schema=t.parameters,
            annotations=_APPEND_ONLY if t.name == OFFLOAD_TOOL_NAME else _READ_ONLY,
        )
        for t in chosen
    ]

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=listed)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        tool = by_name.get(params.name)
        if tool is None:
            text, is_error = f"Error: unknown tool {params.name!r}; available: {', '.join(by_name)}", True
        else:
            outcome = await tool.invoke(params.arguments or {})
            text, is_error = outcome.text, outcome.is_error
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=is_error)

    @asynccontextmanager
    async def lifespan(_: Server[Any]) -> AsyncIterator[dict[str, Any]]:
        await workspace.open()
        yield {}

    from offloader import __version__

    return Server(
        name,
        version=__version__,
        instructions=(
            f"Large content lives in the workspace at {workspace.workdir}. Use Grep to find lines, "
            "Read with offset/limit to page, Glob to list files, and offload to store big text."
        ),
        lifespan=lifespan,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


async def serve(
    workspace: Workspace,
    *,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = 8765,
    tools: Sequence[Tool] | None = None,
) -> None:
    """Serve ``workspace`` over stdio or streamable HTTP (loopback only) until stopped."""
    server = build_mcp_server(workspace, tools)
    try:
        if transport == "stdio":
            from mcp.server.stdio import stdio_server

            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())
        elif transport == "streamable-http":
            _require_loopback(host)
            import uvicorn

            app = server.streamable_http_app(host=host)
            await uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).serve()
        else:
            raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'streamable-http'")
    finally:
        await workspace.close()


def run_mcp_server(
    workdir: str | os.PathLike[str],
    transport: str = "stdio",
    *,
    host: str = "127.0.0.1",
    port: int = 8765,
) -> None:
    """Blocking entry point of ``offload mcp``: serve a LocalWorkspace at ``workdir``."""
    import anyio

    from workspaces import LocalWorkspace

    if transport not in ("stdio", "streamable-http"):
        raise ValueError(f"unknown transport {transport!r}; use 'stdio' or 'streamable-http'")
    if transport == "streamable-http":
        _require_loopback(host)
    workspace = LocalWorkspace(workdir)
    anyio.run(lambda: serve(workspace, transport=transport, host=host, port=port))


def _require_loopback(host: str) -> None:
    """The HTTP transport has no authentication, so it only listens on loopback."""
    if host == "localhost":
        return
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(f"refusing to serve on {host!r}: the HTTP transport listens on loopback only")
