"""Converters from framework shapes to the canonical model, and back for media.

Accepted shapes (detected structurally, no framework is imported):

* the canonical dataclasses of :mod:`offloader.core.messages`;
* OpenAI chat dicts (``role``/``content``/``tool_calls``/``tool_call_id``; content
  parts ``text``, ``image_url``, ``input_audio``, ``file``);
* Anthropic content blocks (``text``, ``image``, ``document``, ``tool_use``,
  ``tool_result``);
* Strands dicts (``{"text"}``, ``{"json"}``, ``{"image"}``, ``{"document"}``,
  ``{"toolUse"}``, ``{"toolResult"}`` and bare ``toolResult`` dicts);
* AgentScope 2.x pydantic objects (``Msg``, ``TextBlock``, ``ThinkingBlock``,
  ``HintBlock``, ``DataBlock``, ``ToolCallBlock``, ``ToolResultBlock``) or their
  ``model_dump()`` dicts.

Anything else raises ``TypeError`` naming what is accepted: nothing is dropped
silently. Each shape is read by its own module in :mod:`offloader.core.shapes`;
this module decides which one applies, and writes the canonical records of
``context.jsonl`` (:func:`message_to_dict`, :func:`block_to_dict`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from .dataurl import decode_b64 as _decode_b64
from .messages import (
    Block,
    DataBlock,
    JsonBlock,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from .shapes import agentscope as _agentscope
from .shapes import anthropic as _anthropic
from .shapes import openai as _openai
from .shapes import pydantic_ai as _pai
from .shapes import responses as _responses
from .shapes import strands as _strands

__all__ = [
    "block_from_dict",
    "block_to_dict",
    "is_pydantic_model",
    "message_from_dict",
    "message_to_dict",
    "to_block",
    "to_blocks",
    "to_data_block",
    "to_message",
    "to_messages",
    "to_tool_result",
    "with_data_url",
]

_T = TypeVar("_T")

_BLOCK_SHAPES = (
    "a str, a canonical block (TextBlock, JsonBlock, DataBlock, ToolCallBlock, "
    "ToolResultBlock), an OpenAI content part (text, image_url, input_audio, file), "
    "an Anthropic block (text, image, document, tool_use, tool_result), a Strands "
    "block (text, json, image, document, toolUse, toolResult) or an AgentScope block "
    "(text, thinking, hint, data, tool_call, tool_result) or an OpenAI Responses part (input_text, "
    "output_text, refusal, input_image, input_file)"
)
_RESULT_SHAPES = (
    "a canonical ToolResultBlock, an AgentScope ToolResultBlock (type='tool_result', "
    "id, name, output), an Anthropic tool_result block (tool_use_id), a Strands "
    "toolResult (toolUseId), an OpenAI tool message (role='tool', tool_call_id), an OpenAI "
    "Responses function_call_output item or a Pydantic AI ToolReturnPart"
)
_MESSAGE_SHAPES = (
    "a canonical Message, an AgentScope Msg (role, content, model_dump_json), or a "
    "dict with 'role' and 'content' (OpenAI, Anthropic or Strands), an OpenAI Responses input item "
    "(function_call, function_call_output, message, reasoning, ...) or a Pydantic AI ModelRequest/ModelResponse"
)
#: A pydantic model instance (AgentScope's objects), told apart structurally.
is_pydantic_model = _agentscope.is_model


#: The dict shapes, in the order they are tried (each module answers None for a dict not of its shape).
_MEDIA_READERS = (_anthropic.data_block, _openai.data_block, _strands.data_block)
_MEDIA_WRITERS = (_anthropic.with_data_url, _openai.with_data_url, _strands.with_data_url)
_RESULT_READERS = (
    _strands.to_tool_result,
    _anthropic.to_tool_result,
    _agentscope.dict_to_tool_result,
    _openai.to_tool_result,
)


def _first_of(readers: Sequence[Callable[..., _T | None]], *args: Any) -> _T | None:
    """The answer of the first shape module that recognises its input (each answers None otherwise)."""
    for read in readers:
        out = read(*args)
        if out is not None:
            return out
    return None


# ---------------------------------------------------------------- blocks


def to_block(obj: Any) -> Block:
    """Convert one content block of any accepted shape."""
    if isinstance(obj, TextBlock | JsonBlock | DataBlock | ToolCallBlock | ToolResultBlock):
        return obj
    if isinstance(obj, str):
        return TextBlock(obj)
    if is_pydantic_model(obj):
        return _agentscope.to_block(obj, to_blocks, to_data_block, to_tool_result)
    if isinstance(obj, Mapping):
        return _dict_block(obj)
    raise TypeError(f"unsupported content block {type(obj).__name__}; expected {_BLOCK_SHAPES}")


def to_blocks(content: Any) -> tuple[Block, ...]:
    """Convert message or tool-result content (a str, None, or a list of blocks)."""
    if content is None:
        return ()
    if isinstance(content, str):
        return (TextBlock(content),) if content else ()
    if isinstance(content, Sequence) and not isinstance(content, bytes | bytearray):
        return tuple(to_block(item) for item in content)
    return (to_block(content),)


def _dict_block(d: Mapping[str, Any]) -> Block:
    kind = d.get("type")
    if kind == "text" and "text" in d:  # every typed dialect, and our records
        return TextBlock(str(d["text"]))
    if kind == "json" and "data" in d:  # our records
        return JsonBlock(d["data"])
    if kind == "thinking" and "thinking" in d:  # Anthropic, AgentScope dumps
        return TextBlock(str(d["thinking"]))
    if kind in _responses.PART_TYPES:
        return _responses.part_to_block(d)
    if kind in _anthropic.SOURCE_KINDS or kind in _openai.MEDIA_PARTS or _strands.is_media(d):
        return to_data_block(d)
    if kind == "tool_use" or kind == "tool_call":
        return _anthropic.to_tool_call(d)
    block = _strands.to_block(d)
    if block is not None:
        return block
    if kind == "tool_result" or "toolResult" in d or "toolUseId" in d:
        return to_tool_result(d)
    raise TypeError(f"unsupported content block dict with keys {sorted(d)}; expected {_BLOCK_SHAPES}")


# ---------------------------------------------------------------- media


def to_data_block(obj: Any) -> DataBlock:
    """Convert a media block of any accepted shape (inline bytes/base64 or URL)."""
    if isinstance(obj, DataBlock):
        return obj
    if is_pydantic_model(obj) and getattr(obj, "type", None) == "data":
        return _agentscope.to_data_block(obj)
    if isinstance(obj, Mapping):
        block = _dict_data_block(obj)
        if block is not None:
            return block
    raise TypeError(
        f"unsupported media block {type(obj).__name__}; expected a canonical DataBlock, an "
        "AgentScope DataBlock, an Anthropic image/document block, an OpenAI image_url/"
        "input_audio/file part or a Strands image/document/video block"
    )


def _dict_data_block(d: Mapping[str, Any]) -> DataBlock | None:
    return _first_of(_MEDIA_READERS, d)


def with_data_url(original: Any, url: str, media_type: str) -> Any:
    """Return a block of the same kind as ``original`` whose source is ``url``."""
    if isinstance(original, DataBlock):
        return dataclasses.replace(original, data=None, url=url)
    if is_pydantic_model(original):
        return _agentscope.with_data_url(original, url, media_type)
    if isinstance(original, Mapping) and (rebuilt := _first_of(_MEDIA_WRITERS, original, url, media_type)):
        return rebuilt
    raise TypeError(f"cannot rebuild media block of type {type(original).__name__}")


# ---------------------------------------------------------------- tool results


def to_tool_result(obj: Any) -> ToolResultBlock:
    """Convert a tool result of any accepted shape."""
    if isinstance(obj, ToolResultBlock):
        return obj
    if _pai.is_part(obj) and obj.part_kind in ("tool-return", "retry-prompt"):  # Pydantic AI
        return _pai.to_tool_result(obj)
    if isinstance(obj, Mapping) and obj.get("type") == "function_call_output":  # OpenAI Responses
        return _responses.to_tool_result(obj)
    if is_pydantic_model(obj) and getattr(obj, "type", None) == "tool_result":
        return _agentscope.to_tool_result(obj, to_blocks)
    if isinstance(obj, Mapping) and (result := _first_of(_RESULT_READERS, _strands.unwrap_result(obj), to_blocks)):
        return result
    raise TypeError(f"unsupported tool result {type(obj).__name__}; expected {_RESULT_SHAPES}")


# ---------------------------------------------------------------- messages


def to_message(obj: Any) -> Message:
    """Convert one message of any accepted shape."""
    if isinstance(obj, Message):
        return obj
    if _pai.is_message(obj):  # Pydantic AI ModelRequest / ModelResponse
        return _pai.to_message(obj)
    if isinstance(obj, Mapping) and _responses.is_item(obj):  # OpenAI Responses input item
        return _responses.to_message(obj)
    if is_pydantic_model(obj) and hasattr(obj, "role") and hasattr(obj, "content"):
        return _agentscope.to_message(obj, to_blocks)
    if isinstance(obj, Mapping) and "role" in obj:
        if _openai.is_tool_message(obj):
            return Message(role="tool", content=(to_tool_result(obj),), name=obj.get("name"))
        blocks = (*to_blocks(obj.get("content")), *_openai.calls(obj))
        return Message(role=str(obj["role"]), content=blocks, name=obj.get("name"), id=obj.get("id"))
    raise TypeError(f"unsupported message {type(obj).__name__}; expected {_MESSAGE_SHAPES}")


def to_messages(objs: Sequence[Any]) -> list[Message]:
    if isinstance(objs, str | bytes) or not isinstance(objs, Sequence):
        raise TypeError(f"expected a list of messages, got {type(objs).__name__}")
    return [to_message(m) for m in objs]


# ---------------------------------------------------------------- JSON (context.jsonl)


def block_to_dict(block: Block) -> dict[str, Any]:
    """A JSON-safe dict for a canonical block (inline media as base64)."""
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, JsonBlock):
        return {"type": "json", "data": block.data}
    if isinstance(block, DataBlock):
        d: dict[str, Any] = {"type": "data", "media_type": block.media_type}
        if block.url is not None:
            d["url"] = block.url
        if block.data is not None:
            d["base64"] = block.base64()
        if block.name is not None:
            d["name"] = block.name
        return d
    if isinstance(block, ToolCallBlock):
        return {"type": "tool_call", "id": block.id, "name": block.name, "input": block.input}
    return {
        "type": "tool_result",
        "id": block.id,
        "name": block.name,
        "is_error": block.is_error,
        "content": [block_to_dict(b) for b in block.content],
    }


def block_from_dict(d: Mapping[str, Any]) -> Block:
    """Inverse of :func:`block_to_dict`; a framework's own block dict is read by :func:`to_block`."""
    kind = d.get("type")
    if kind == "data" and "media_type" in d:
        data = _decode_b64(d["base64"], "data block") if "base64" in d else None
        return DataBlock(d["media_type"], data=data, url=d.get("url"), name=d.get("name"))
    if kind == "tool_result" and "is_error" in d and isinstance(d.get("content"), list):
        return ToolResultBlock(
            id=d["id"],
            name=d["name"],
            content=tuple(block_from_dict(b) for b in d.get("content", ())),
            is_error=bool(d.get("is_error")),
        )
    return to_block(d)


def message_to_dict(msg: Message) -> dict[str, Any]:
    d: dict[str, Any] = {"role": msg.role, "content": [block_to_dict(b) for b in msg.content]}
    if msg.name is not None:
        d["name"] = msg.name
    if msg.id is not None:
        d["id"] = msg.id
    return d


def message_from_dict(d: Mapping[str, Any]) -> Message:
    """Inverse of :func:`message_to_dict`; also reads the framework forms ``offload_context`` stores
    (AgentScope ``Msg.model_dump_json()``, Strands / OpenAI / Anthropic message dicts)."""
    content = d.get("content")
    if "role" not in d or not isinstance(content, list) or "tool_calls" in d or _responses.is_item(d):
        return to_message(d)
    return Message(
        role=d["role"],
        content=tuple(block_from_dict(b) for b in d.get("content", ())),
        name=d.get("name"),
        id=d.get("id"),
    )
