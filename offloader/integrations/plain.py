"""For agents written without a framework: tool schemas, tool dispatch, and one call between turns.

* :func:`openai_tools` / :func:`anthropic_tools` export :class:`workspaces.Tool`
  definitions in the shape each API expects; :func:`call_tool` runs the call the
  model made (arguments as a dict or as the JSON string OpenAI sends).
* :class:`TurnContext` applies :class:`~offloader.ContextOffloader` (big tool
  results become a preview plus references) and
  :class:`~offloader.compaction.ContextCompactor` (old conversation leaves the
  window, restorably) to a plain message list before each model call::

      ctx = TurnContext(LocalWorkspace(".offload"), session_id="chat-1", window=128_000)
      tools = openai_tools(ctx.tools())
      while True:
          messages = await ctx.prepare(messages)        # never mutates your list
          reply = client.chat.completions.create(messages=messages, tools=tools, ...)
          ...

Messages may be OpenAI chat dicts (``role="tool"`` results), Anthropic messages
(``tool_result`` blocks), Strands messages (``toolResult`` blocks) or canonical
:class:`~offloader.Message` objects; anything else passes through untouched.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from offloader.core.messages import Message, ToolCallBlock, ToolResultBlock
from offloader.core.shapes import anthropic as _anthropic
from offloader.core.shapes import openai as _openai
from offloader.core.shapes import strands as _strands
from offloader.integrations._session import SessionSetup
from offloader.offloader import ContextOffloader
from workspaces import Tool, ToolOutcome, Workspace

__all__ = ["TurnContext", "anthropic_tools", "call_tool", "offload_tool_results", "openai_tools"]


def openai_tools(tools: Iterable[Tool]) -> list[dict[str, Any]]:
    """OpenAI function-calling definitions (``tools=`` of chat completions)."""
    return [t.openai_schema() for t in tools]


def anthropic_tools(tools: Iterable[Tool]) -> list[dict[str, Any]]:
    """Anthropic tool definitions (``tools=`` of the messages API)."""
    return [t.anthropic_schema() for t in tools]


async def call_tool(tools: Iterable[Tool], name: str, arguments: Mapping[str, Any] | str | None) -> ToolOutcome:
    """Run the tool the model called; unknown tools and malformed arguments are error outcomes."""
    by_name = {t.name: t for t in tools}
    tool = by_name.get(name)
    if tool is None:
        return ToolOutcome(f"Error: unknown tool {name!r}; available: {', '.join(sorted(by_name))}", True)
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            return ToolOutcome(f"Error: arguments for {name} are not valid JSON: {exc}", True)
    if arguments is not None and not isinstance(arguments, Mapping):
        return ToolOutcome(f"Error: arguments for {name} must be a JSON object", True)
    return await tool.invoke(arguments)


async def offload_tool_results(offloader: ContextOffloader, session_id: str, messages: Sequence[Any]) -> list[Any]:
    """``messages`` with every oversized tool result replaced by the offloader's preview.

    Results already small (including previews from an earlier turn) come back as
    the same objects; the caller's list and messages are never mutated.
    """
    names: dict[str, str] = {}
    out: list[Any] = []
    for msg in messages:
        _remember_calls(msg, names)
        out.append(await _offload_in_message(offloader, session_id, msg, names))
    return out


class TurnContext(SessionSetup):
    """ContextOffloader + ContextCompactor over one workspace and session, for a plain loop.

    Arguments as for :class:`~offloader.integrations._session.SessionSetup`: ``window``
    (default 200,000 tokens) is the model's context size; ``max_result_tokens`` (default
    2,500) / ``preview_tokens`` (default 1,000) configure the offloader; pass your own
    ``offloader`` or ``compactor`` to configure them fully. ``compact=False`` only
    offloads tool results.
    """

    @property
    def workspace(self) -> Workspace:
        """The workspace offloaded content lives in."""
        assert isinstance(self.storage, Workspace)
        return self.storage

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | str | None) -> ToolOutcome:
        """Run one of :meth:`tools` as the model asked."""
        return await call_tool(self.tools(), name, arguments)

    async def prepare(self, messages: Sequence[Any], *, system_tokens: int | None = None) -> list[Any]:
        """The list to send to the model now: big tool results offloaded, then compacted to the window."""
        if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
            raise TypeError(f"messages must be a list of messages, got {type(messages).__name__}")
        offloaded = await offload_tool_results(self.offloader, self.session_id, messages)
        if self.compactor is None:
            return offloaded
        self.last_compaction = await self.compactor.compact(self.session_id, offloaded, system_tokens=system_tokens)
        return self.last_compaction.messages


def _remember_calls(msg: Any, names: dict[str, str]) -> None:
    """Record tool-call ids -> tool names (results in OpenAI/Anthropic shapes carry no name)."""
    if isinstance(msg, Message):
        for block in msg.content:
            if isinstance(block, ToolCallBlock):
                names[block.id] = block.name
        return
    if not isinstance(msg, Mapping):
        return
    names.update(_openai.call_names(msg))
    content = msg.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, Mapping):
                call = _anthropic.call_name(block) or _strands.call_name(block)
                if call is not None:
                    names[call[0]] = call[1]


async def _offload_in_message(offloader: ContextOffloader, sid: str, msg: Any, names: dict[str, str]) -> Any:
    if isinstance(msg, Message):
        blocks = [
            await _offload_block(offloader, sid, b, names) if isinstance(b, ToolResultBlock) else b for b in msg.content
        ]
        if all(a is b for a, b in zip(blocks, msg.content, strict=True)):
            return msg
        return Message(msg.role, tuple(blocks), msg.name, msg.id)
    if not isinstance(msg, Mapping):
        return msg
    if _openai.is_tool_message(msg):
        return await _offload_block(offloader, sid, msg, names)
    content = msg.get("content")
    if not isinstance(content, list):
        return msg
    new = [await _offload_block(offloader, sid, b, names) if _is_result_block(b) else b for b in content]
    if all(a is b for a, b in zip(new, content, strict=True)):
        return msg
    return {**msg, "content": new}


def _is_result_block(block: Any) -> bool:
    return isinstance(block, Mapping) and (_anthropic.is_tool_result(block) or _strands.is_result_block(block))


async def _offload_block(offloader: ContextOffloader, sid: str, block: Any, names: dict[str, str]) -> Any:
    if isinstance(block, ToolResultBlock):
        call_id = block.id
    elif _strands.is_result_block(block):
        call_id = str(block["toolResult"].get("toolUseId", ""))
    else:
        call_id = str(block.get("tool_call_id") or block.get("tool_use_id") or "")
    name = names.get(call_id)
    return await offloader.process_tool_result(sid, block, tool_name=name or None)
