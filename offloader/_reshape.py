"""Rebuild a tool result in the shape it came in, with new content.

The offloader reasons about the canonical :class:`~offloader.core.messages.ToolResultBlock`
but must hand back what the framework gave it: an AgentScope ``ToolResultBlock``
stays one, a Pydantic AI ``ToolReturnPart`` and an OpenAI Responses
``function_call_output`` stay one, a Strands ``toolResult`` dict stays one (wrapped or bare), an OpenAI
tool message stays one, an Anthropic ``tool_result`` block stays one, canonical
stays canonical. Every other field of the original (ids, status, metadata) is kept.

New content is a list of items: a ``str`` is a new text block, an ``int`` keeps
the original content element at that index unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .core import convert_pydantic_ai as _pai
from .core import convert_responses as _responses
from .core.messages import TextBlock, ToolResultBlock

__all__ = ["Item", "rebuild"]

Item = str | int


def rebuild(original: Any, items: Sequence[Item], canonical: ToolResultBlock) -> Any:
    """``original`` with its content replaced by ``items`` (see module doc)."""
    if isinstance(original, ToolResultBlock):
        content = tuple(TextBlock(i) if isinstance(i, str) else original.content[i] for i in items)
        return ToolResultBlock(original.id, original.name, content, original.is_error)
    if _pai.is_tool_return(original):  # Pydantic AI ToolReturnPart
        return _pai.rebuild_tool_return(original, items)
    if hasattr(original, "model_dump") and not isinstance(original, Mapping):
        return _agentscope(original, items)
    if isinstance(original, Mapping) and original.get("type") == "function_call_output":  # OpenAI Responses
        return _responses.rebuild_output(original, items)
    if isinstance(original, Mapping):
        if "toolResult" in original and isinstance(original["toolResult"], Mapping):  # Strands, wrapped
            return {**original, "toolResult": _strands(original["toolResult"], items)}
        if "toolUseId" in original:  # Strands, bare
            return _strands(original, items)
        key = "output" if original.get("type") == "tool_result" and "output" in original else "content"
        return {**original, key: _typed_dict_content(original.get(key), items)}
    raise TypeError(f"cannot rebuild a tool result of type {type(original).__name__}")


def _agentscope(original: Any, items: Sequence[Item]) -> Any:
    output = original.output
    if isinstance(output, str) and all(isinstance(i, str) for i in items):
        new_output: Any = "\n".join(i for i in items if isinstance(i, str))
    else:
        new_output = [{"type": "text", "text": i} if isinstance(i, str) else output[i].model_dump() for i in items]
    data = original.model_dump()
    data["output"] = new_output
    return type(original).model_validate(data)


def _strands(result: Mapping[str, Any], items: Sequence[Item]) -> dict[str, Any]:
    content = result.get("content") or []
    return {**result, "content": [{"text": i} if isinstance(i, str) else content[i] for i in items]}


def _typed_dict_content(content: Any, items: Sequence[Item]) -> Any:
    """Anthropic / OpenAI / AgentScope-dump content: a str stays a str when only text remains."""
    if (content is None or isinstance(content, str)) and all(isinstance(i, str) for i in items):
        return "\n".join(i for i in items if isinstance(i, str))
    original = [] if content is None or isinstance(content, str) else list(content)
    return [{"type": "text", "text": i} if isinstance(i, str) else original[i] for i in items]
