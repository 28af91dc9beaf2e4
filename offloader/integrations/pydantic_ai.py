"""Pydantic AI: offloading and compaction before every model request, and the read-back tools.

:class:`OffloadHistory` is a history processor: big ``ToolReturnPart`` contents
become the offloader's preview plus references, then the conversation is
compacted to the window. It returns pydantic-ai's own message types, never
mutates the messages it is given, and is deterministic: the output for
``history + one turn`` starts with the output for ``history``, so provider
prompt caches stay valid. :meth:`OffloadHistory.capability` installs it for an
agent, together with Read / Grep / Glob / ``retrieve_offloaded_content``::

    from pydantic_ai import Agent
    from offloader.integrations.pydantic_ai import OffloadHistory
    from workspaces import LocalWorkspace

    history = OffloadHistory(LocalWorkspace(".offload"), session_id="chat-1", window=128_000)
    agent = Agent("openai:gpt-5", capabilities=[history.capability()])

The capability rewrites only what is sent (``ModelRequestContext.messages``):
the run's own history (``result.all_messages()``) keeps every tool result
whole. ``ProcessHistory(history)`` also works; pydantic-ai then stores the
processed list as the run's history.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from offloader.core.extras import MissingExtra

try:
    from pydantic_ai import RunContext
    from pydantic_ai.capabilities import AbstractCapability
    from pydantic_ai.exceptions import ToolFailed
    from pydantic_ai.messages import ModelMessage, ModelRequest
    from pydantic_ai.models import ModelRequestContext
    from pydantic_ai.tools import Tool as PydanticTool
    from pydantic_ai.toolsets import FunctionToolset
except ImportError as exc:  # pragma: no cover - exercised by tests/test_extras.py in a subprocess
    raise MissingExtra("offloader.integrations.pydantic_ai", "pydantic-ai", exc.name) from exc

from offloader.core.shapes import pydantic_ai as pydantic_ai_shape
from offloader.integrations._session import SessionSetup
from workspaces import Tool

__all__ = ["OffloadHistory", "pydantic_ai_tool", "pydantic_ai_toolset"]


def pydantic_ai_tool(tool: Tool) -> PydanticTool[Any]:
    """A framework-neutral :class:`Tool` as a pydantic-ai tool (errors become failed tool returns)."""

    async def run(**arguments: Any) -> str:
        outcome = await tool.invoke(arguments)
        if outcome.is_error:
            raise ToolFailed(outcome.text)
        return outcome.text

    return PydanticTool.from_schema(run, name=tool.name, description=tool.description, json_schema=tool.parameters)


def pydantic_ai_toolset(tools: Sequence[Tool]) -> FunctionToolset[Any]:
    """Several tools as one toolset, e.g. ``Agent(toolsets=[pydantic_ai_toolset(ws.tools())])``."""
    return FunctionToolset([pydantic_ai_tool(t) for t in tools])


class OffloadHistory(SessionSetup):
    """ContextOffloader + ContextCompactor as a pydantic-ai history processor; see the module doc.

    Arguments as for :class:`~offloader.integrations._session.SessionSetup`: a workspace (whole results
    in ``sessions/{sid}/``; also enables Read / Grep / Glob) or any Storage, and a session id.
    """

    # ------------------------------------------------------------ tools

    def toolset(self) -> FunctionToolset[Any]:
        """:meth:`tools` as a pydantic-ai toolset."""
        return pydantic_ai_toolset(self.tools())

    def capability(self, *, tools: bool = True) -> AbstractCapability[Any]:
        """A capability that runs this processor on each request (request only) and adds :meth:`toolset`."""
        return _OffloadCapability(self, self.toolset() if tools else None)

    # ------------------------------------------------------------ processing

    async def __call__(self, messages: Sequence[ModelMessage]) -> list[ModelMessage]:
        """The messages to send: tool returns offloaded, then compacted. ``messages`` is left untouched."""
        if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
            raise TypeError(f"messages must be a list of pydantic-ai messages, got {type(messages).__name__}")
        out: list[ModelMessage] = []
        for msg in messages:
            out.append(await self._offload_message(msg) if isinstance(msg, ModelRequest) else msg)
        if self.compactor is None:
            return out
        self.last_compaction = await self.compactor.compact(self.session_id, out)
        return list(self.last_compaction.messages)

    async def _offload_message(self, msg: ModelRequest) -> ModelRequest:
        parts = [await self._offload_part(p) if pydantic_ai_shape.is_tool_return(p) else p for p in msg.parts]
        if all(a is b for a, b in zip(parts, msg.parts, strict=True)):
            return msg
        new: ModelRequest = _replace(msg, parts=parts)
        return new

    async def _offload_part(self, part: Any) -> Any:
        """The part as sent; the new content of a big part is remembered by its id and content hash."""
        key = await self._done.key_of(str(part.tool_call_id), str(part.tool_name), part.content)
        content = self._done.get(key)
        if content is not None:
            return _replace(part, content=content)
        new = await self.offloader.process_tool_result(self.session_id, part)
        if new is not part:
            self._done.put(key, new.content)
        return new


def _replace(obj: Any, **changes: Any) -> Any:
    return dataclasses.replace(obj, **changes)


class _OffloadCapability(AbstractCapability[Any]):
    """Runs an :class:`OffloadHistory` on what each model request sends; the run's history is untouched."""

    def __init__(self, history: OffloadHistory, toolset: FunctionToolset[Any] | None) -> None:
        self.history = history
        self.toolset = toolset

    def get_toolset(self) -> FunctionToolset[Any] | None:
        return self.toolset

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        request_context.messages = await self.history(list(request_context.messages))
        return request_context
