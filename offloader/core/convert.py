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
silently.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from . import convert_agentscope as _agentscope
from . import convert_pydantic_ai as _pai
from . import convert_responses as _responses
from .dataurl import data_from_url as _data_from_url
from .dataurl import decode_b64 as _decode_b64
from .dataurl import parse_arguments as _parse_arguments
from .messages import (
    Block,
    DataBlock,
    JsonBlock,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)

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
_DOC_FORMATS = {
    "pdf": "application/pdf",
    "csv": "text/csv",
    "txt": "text/plain",
    "md": "text/markdown",
    "html": "text/html",
    "json": "application/json",
    "doc": "application/msword",
    "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    "xls": "application/vnd.ms-excel",
    "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
}


def _get(obj: Any, key: str, default: Any = None) -> Any:
    if isinstance(obj, Mapping):
        return obj.get(key, default)
    return getattr(obj, key, default)


def is_pydantic_model(obj: Any) -> bool:
    """A pydantic model instance (AgentScope's objects), told apart structurally."""
    return hasattr(obj, "model_dump") and not isinstance(obj, Mapping)


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
    if kind == "text" and "text" in d:
        return TextBlock(str(d["text"]))
    if kind is None and "text" in d and len(d) == 1:  # Strands
        return TextBlock(str(d["text"]))
    if kind == "json" and "data" in d:
        return JsonBlock(d["data"])
    if kind is None and "json" in d and len(d) == 1:  # Strands
        return JsonBlock(d["json"])
    if kind == "thinking" and "thinking" in d:
        return TextBlock(str(d["thinking"]))
    if kind in _responses.PART_TYPES:  # OpenAI Responses content part
        return _responses.part_to_block(d)
    if kind in {"image", "document", "data", "image_url", "input_audio", "file", "audio"}:
        return to_data_block(d)
    if kind is None and len(d) == 1 and ("image" in d or "document" in d or "video" in d):
        return to_data_block(d)
    if kind == "tool_use" or kind == "tool_call":
        return ToolCallBlock(id=str(d["id"]), name=str(d["name"]), input=_parse_arguments(d.get("input")))
    if kind is None and "toolUse" in d:
        use = d["toolUse"]
        return ToolCallBlock(id=str(use["toolUseId"]), name=str(use["name"]), input=_parse_arguments(use.get("input")))
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
    kind = d.get("type")
    if kind in {"image", "document", "data", "audio"} and isinstance(d.get("source"), Mapping):
        src = d["source"]
        media_type = src.get("media_type") or src.get("mediaType")
        name = d.get("name") or d.get("title")
        if src.get("type") == "base64":
            return DataBlock(media_type or "application/octet-stream", data=_decode_b64(src["data"], kind), name=name)
        if src.get("type") == "text":  # Anthropic plain-text document
            return DataBlock(media_type or "text/plain", data=str(src.get("data", "")).encode(), name=name)
        if "url" in src:
            return _data_from_url(str(src["url"]), media_type, name)
    if kind == "image_url":
        spec = d["image_url"]
        url = spec if isinstance(spec, str) else spec["url"]
        return _data_from_url(url, None, None)
    if kind == "input_audio":
        spec = d["input_audio"]
        fmt = spec.get("format", "wav")
        return DataBlock(f"audio/{fmt}", data=_decode_b64(spec["data"], "input_audio"))
    if kind == "file" and isinstance(d.get("file"), Mapping):
        spec = d["file"]
        name = spec.get("filename")
        if "file_data" in spec:
            return _data_from_url(spec["file_data"], None, name)
        if "file_id" in spec:
            return DataBlock("application/octet-stream", url=f"openai-file:{spec['file_id']}", name=name)
    for key in ("image", "document", "video"):
        if kind is None and isinstance(d.get(key), Mapping):
            spec = d[key]
            fmt = str(spec.get("format", "bin")).lower()
            if key == "image":
                media_type = f"image/{'jpeg' if fmt == 'jpg' else fmt}"
            elif key == "video":
                media_type = f"video/{fmt}"
            else:
                media_type = _DOC_FORMATS.get(fmt, f"application/{fmt}")
            src = spec.get("source", {})
            name = spec.get("name")
            if "bytes" in src:
                raw = src["bytes"]
                data = bytes(raw) if isinstance(raw, bytes | bytearray) else _decode_b64(raw, key)
                return DataBlock(media_type, data=data, name=name)
            location = src.get("location") or src.get("s3Location")
            if isinstance(location, Mapping) and "uri" in location:
                return DataBlock(media_type, url=str(location["uri"]), name=name)
    return None


def with_data_url(original: Any, url: str, media_type: str) -> Any:
    """Return a block of the same kind as ``original`` whose source is ``url``."""
    if isinstance(original, DataBlock):
        return dataclasses.replace(original, data=None, url=url)
    if is_pydantic_model(original):
        return _agentscope.with_data_url(original, url, media_type)
    if isinstance(original, Mapping):
        d = dict(original)
        kind = d.get("type")
        if kind in {"image", "document", "data", "audio"}:
            d["source"] = {"type": "url", "url": url, "media_type": media_type}
            return d
        if kind == "image_url":
            return {"type": "image_url", "image_url": {"url": url}}
        if kind == "input_audio" or kind == "file":
            return {"type": "file", "file": {"file_url": url, "filename": d.get("file", {}).get("filename")}}
        for key in ("image", "document", "video"):
            if isinstance(d.get(key), Mapping):
                spec = {k: v for k, v in d[key].items() if k != "source"}
                spec["source"] = {"location": {"type": "url", "uri": url}}
                return {key: spec}
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
    if isinstance(obj, Mapping):
        if "toolResult" in obj and isinstance(obj["toolResult"], Mapping):
            obj = obj["toolResult"]
        if "toolUseId" in obj:  # Strands
            return ToolResultBlock(
                id=str(obj["toolUseId"]),
                name=str(obj.get("name", "")),
                content=to_blocks(obj.get("content")),
                is_error=obj.get("status") == "error",
            )
        if obj.get("type") == "tool_result" and "tool_use_id" in obj:  # Anthropic
            return ToolResultBlock(
                id=str(obj["tool_use_id"]),
                name=str(obj.get("name", "")),
                content=to_blocks(obj.get("content")),
                is_error=bool(obj.get("is_error", False)),
            )
        if obj.get("type") == "tool_result" and "id" in obj:  # AgentScope dump / canonical dict
            return ToolResultBlock(
                id=str(obj["id"]),
                name=str(obj.get("name", "")),
                content=to_blocks(obj.get("output", obj.get("content"))),
                is_error=bool(obj.get("is_error")) or obj.get("state") == "error",
            )
        if obj.get("role") == "tool" and "tool_call_id" in obj:  # OpenAI
            return ToolResultBlock(
                id=str(obj["tool_call_id"]),
                name=str(obj.get("name", "")),
                content=to_blocks(obj.get("content")),
            )
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
        role = str(obj["role"])
        if role == "tool" and "tool_call_id" in obj:  # OpenAI tool message
            return Message(role="tool", content=(to_tool_result(obj),), name=obj.get("name"))
        blocks = list(to_blocks(obj.get("content")))
        for call in obj.get("tool_calls") or ():  # OpenAI assistant tool calls
            fn = call.get("function", {})
            blocks.append(
                ToolCallBlock(
                    id=str(call["id"]), name=str(fn.get("name", "")), input=_parse_arguments(fn.get("arguments"))
                )
            )
        return Message(role=role, content=tuple(blocks), name=obj.get("name"), id=obj.get("id"))
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
