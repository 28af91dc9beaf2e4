"""Hand back what the caller gave: rebuild a message or a tool result in its own shape.

The offloader and the compactor reason on the canonical model
(:mod:`offloader.core.messages`) but return objects of the kind they were given
(OpenAI, Anthropic or Strands dicts, OpenAI Responses items, Pydantic AI parts
and messages, AgentScope objects, canonical dataclasses), with only the changed
content replaced and every other field kept. Originals are never mutated.

* :func:`rebuild_message`: a message with canonical blocks swapped in by index;
  :func:`text_message`: a new text message in the dialect of a conversation.
* :func:`rebuild_tool_result`: a tool result whose content becomes ``items`` (a
  ``str`` is a new text block, an ``int`` keeps the original element at that index).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from .messages import Block, Message, TextBlock, ToolCallBlock, ToolResultBlock
from .shapes import agentscope as _agentscope
from .shapes import openai as _openai
from .shapes import pydantic_ai as _pai
from .shapes import responses as _responses
from .shapes import strands as _strands
from .shapes.agentscope import is_model as _is_pydantic

__all__ = ["Item", "rebuild_message", "rebuild_tool_result", "text_message"]

#: New content of a tool result: a ``str`` is a new text block, an ``int`` keeps that original element.
Item = str | int


def rebuild_message(original: Any, canonical: Message, replacements: Mapping[int, Block]) -> Any:
    """A copy of ``original`` with canonical blocks ``replacements`` swapped in."""
    if not replacements:
        return original
    if isinstance(original, Message):
        blocks = list(original.content)
        for index, block in replacements.items():
            blocks[index] = block
        return dataclasses.replace(original, content=tuple(blocks))
    if _pai.is_message(original):
        return _pai.rebuild_message(original, replacements)
    if isinstance(original, Mapping) and _responses.is_item(original):
        return _responses.rebuild_item(original, replacements)
    if _is_pydantic(original):
        return _agentscope.rebuild_message(original, replacements, _element)
    if isinstance(original, Mapping):
        return _rebuild_dict(original, canonical, replacements)
    raise TypeError(f"cannot rebuild a message of type {type(original).__name__}")


def _rebuild_dict(original: Mapping[str, Any], canonical: Message, replacements: Mapping[int, Block]) -> dict[str, Any]:
    if _openai.is_tool_message(original):
        block = replacements[0]
        assert isinstance(block, ToolResultBlock)
        return _openai.rebuild_tool_message(original, block)
    out = dict(original)
    content = original.get("content")
    if isinstance(content, str):
        n_content = 1 if content else 0
    elif content is None:
        n_content = 0
    elif isinstance(content, Sequence):
        n_content = len(content)
    else:
        n_content = 1
    new_content: Any = content
    if any(i < n_content for i in replacements):
        if isinstance(content, str):
            block = replacements[0]
            new_content = block.text if isinstance(block, TextBlock) else _element(content, block)
        elif isinstance(content, Sequence):
            items = list(content)
            for index, block in replacements.items():
                if index < n_content:
                    items[index] = _element(items[index], block)
            new_content = items
        else:
            new_content = _element(content, replacements[0])
        out["content"] = new_content
    calls = [(i - n_content, b) for i, b in replacements.items() if i >= n_content]
    if calls:  # OpenAI: the calls follow the content
        out["tool_calls"] = _openai.rebuild_calls(original, calls)
    return out


def _element(orig: Any, new: Block) -> Any:
    """Rebuild one content element in ``orig``'s dialect from canonical ``new``."""
    if isinstance(orig, TextBlock | ToolCallBlock | ToolResultBlock) or dataclasses.is_dataclass(orig):
        return new
    rebuilt: Any = None
    if isinstance(orig, str) and isinstance(new, TextBlock):
        rebuilt = new.text
    elif _is_pydantic(orig):
        rebuilt = _agentscope.rebuild_element(orig, new)
    elif isinstance(orig, Mapping):
        rebuilt = _strands.rebuild_element(orig, new)
        if rebuilt is None:
            rebuilt = _typed_element(orig, new)
    if rebuilt is None:
        raise TypeError(f"cannot rebuild content element {type(orig).__name__} as {type(new).__name__}")
    return rebuilt


def _typed_element(orig: Mapping[str, Any], new: Block) -> dict[str, Any] | None:
    """A block with a ``type`` (Anthropic, OpenAI parts, AgentScope dumps) holding ``new``'s content."""
    if isinstance(new, TextBlock):
        return {**orig, "thinking" if orig.get("type") == "thinking" else "text": new.text}
    if isinstance(new, ToolCallBlock):  # arguments as JSON text where the original had text (AgentScope)
        as_text = isinstance(orig.get("input"), str)
        return {**orig, "input": json.dumps(new.input, ensure_ascii=False) if as_text else new.input}
    if isinstance(new, ToolResultBlock):
        text = new.text()
        key = "output" if "output" in orig and "tool_use_id" not in orig else "content"
        value = orig.get(key)
        return {**orig, key: text if isinstance(value, str | None) else [{"type": "text", "text": text}]}
    return None


def text_message(like: Any, role: str, text: str, conversation: Sequence[Any] = (), *, ident: str = "") -> Any:
    """A new text message shaped like ``like`` (and the rest of ``conversation``).

    ``ident`` is used where the shape needs ids (AgentScope), so the same
    summary always builds the same object.
    """
    if isinstance(like, Message):
        return Message(role=role, content=(TextBlock(text),))
    if _pai.is_message(like):
        return _pai.text_message(like, role, text)
    if _is_pydantic(like):
        return _agentscope.text_message(like, role, text, ident)
    if isinstance(like, Mapping):
        if _strands.is_conversation(conversation or [like]):
            return {"role": role, "content": [{"text": text}]}
        return {"role": role, "content": text}
    raise TypeError(f"cannot build a message shaped like {type(like).__name__}")


# ---------------------------------------------------------------- tool results


def rebuild_tool_result(original: Any, items: Sequence[Item], canonical: ToolResultBlock) -> Any:
    """``original`` with its content replaced by ``items`` (see module doc)."""
    if isinstance(original, ToolResultBlock):
        content = tuple(TextBlock(i) if isinstance(i, str) else original.content[i] for i in items)
        return ToolResultBlock(original.id, original.name, content, original.is_error)
    if _pai.is_tool_return(original):  # Pydantic AI ToolReturnPart
        return _pai.rebuild_tool_return(original, items)
    if _is_pydantic(original):
        return _agentscope.rebuild_tool_result(original, items)
    if isinstance(original, Mapping) and original.get("type") == "function_call_output":  # OpenAI Responses
        return _responses.rebuild_output(original, items)
    if isinstance(original, Mapping):
        strands = _strands.rebuild_tool_result(original, items)
        if strands is not None:
            return strands
        key = "output" if original.get("type") == "tool_result" and "output" in original else "content"
        return {**original, key: _typed_dict_content(original.get(key), items)}
    raise TypeError(f"cannot rebuild a tool result of type {type(original).__name__}")


def _typed_dict_content(content: Any, items: Sequence[Item]) -> Any:
    """Anthropic / OpenAI / AgentScope-dump content: a str stays a str when only text remains."""
    if (content is None or isinstance(content, str)) and all(isinstance(i, str) for i in items):
        return "\n".join(i for i in items if isinstance(i, str))
    original = [] if content is None or isinstance(content, str) else list(content)
    return [{"type": "text", "text": i} if isinstance(i, str) else original[i] for i in items]
