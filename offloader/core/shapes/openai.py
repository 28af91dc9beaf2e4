"""OpenAI chat-completions dicts: content parts, assistant ``tool_calls`` and ``role="tool"`` messages.

Content parts ``text`` (read by the dispatcher, like every typed text part),
``image_url``, ``input_audio`` and ``file``; an assistant message's
``tool_calls`` (``function.arguments`` is JSON text); a tool message
(``role="tool"``, ``tool_call_id``) is one tool result. Every function here
answers None (or an empty list) for a dict of another shape.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..dataurl import data_from_url, decode_b64, parse_arguments
from ..messages import Block, DataBlock, ToolCallBlock, ToolResultBlock

__all__ = [
    "MEDIA_PARTS",
    "calls",
    "data_block",
    "is_tool_message",
    "rebuild_calls",
    "rebuild_tool_message",
    "to_tool_result",
    "with_data_url",
]

#: The ``type`` of an OpenAI media content part.
MEDIA_PARTS = frozenset({"image_url", "input_audio", "file"})


def is_tool_message(d: Mapping[str, Any]) -> bool:
    """A ``role="tool"`` message answering one tool call."""
    return d.get("role") == "tool" and "tool_call_id" in d


def data_block(d: Mapping[str, Any]) -> DataBlock | None:
    """An ``image_url``, ``input_audio`` or ``file`` part (inline data or a URL / file id)."""
    kind = d.get("type")
    if kind == "image_url":
        spec = d["image_url"]
        url = spec if isinstance(spec, str) else spec["url"]
        return data_from_url(url, None, None)
    if kind == "input_audio":
        spec = d["input_audio"]
        fmt = spec.get("format", "wav")
        return DataBlock(f"audio/{fmt}", data=decode_b64(spec["data"], "input_audio"))
    if kind == "file" and isinstance(d.get("file"), Mapping):
        spec = d["file"]
        name = spec.get("filename")
        if "file_data" in spec:
            return data_from_url(spec["file_data"], None, name)
        if "file_id" in spec:
            return DataBlock("application/octet-stream", url=f"openai-file:{spec['file_id']}", name=name)
    return None


def with_data_url(d: Mapping[str, Any], url: str, media_type: str) -> dict[str, Any] | None:
    """The part pointing at ``url``: ``image_url`` stays an image, audio and files become a ``file`` part."""
    kind = d.get("type")
    if kind == "image_url":
        return {"type": "image_url", "image_url": {"url": url}}
    if kind == "input_audio" or kind == "file":
        return {"type": "file", "file": {"file_url": url, "filename": d.get("file", {}).get("filename")}}
    return None


def to_tool_result(d: Mapping[str, Any], to_blocks: Callable[[Any], tuple[Block, ...]]) -> ToolResultBlock | None:
    """A tool message as a tool result (the tool's name only when the message carries one)."""
    if not is_tool_message(d):
        return None
    return ToolResultBlock(id=str(d["tool_call_id"]), name=str(d.get("name", "")), content=to_blocks(d.get("content")))


def calls(d: Mapping[str, Any]) -> list[ToolCallBlock]:
    """An assistant message's ``tool_calls``."""
    out = []
    for call in d.get("tool_calls") or ():
        fn = call.get("function", {})
        out.append(
            ToolCallBlock(id=str(call["id"]), name=str(fn.get("name", "")), input=parse_arguments(fn.get("arguments")))
        )
    return out


def rebuild_tool_message(original: Mapping[str, Any], block: ToolResultBlock) -> dict[str, Any]:
    """The tool message holding ``block``'s text (a str stays a str, parts stay parts)."""
    content: Any = block.text()
    if not isinstance(original.get("content"), str | None):
        content = [{"type": "text", "text": content}]
    return {**original, "content": content}


def rebuild_calls(original: Mapping[str, Any], replacements: Sequence[tuple[int, Block]]) -> list[Any]:
    """``tool_calls`` with the arguments of the calls at the given indexes replaced (JSON text)."""
    tool_calls = list(original.get("tool_calls") or ())
    for index, block in replacements:
        if not isinstance(block, ToolCallBlock):
            raise TypeError(f"an OpenAI tool call is rebuilt from a ToolCallBlock, not {type(block).__name__}")
        entry = dict(tool_calls[index])
        fn = dict(entry.get("function") or {})
        fn["arguments"] = json.dumps(block.input, ensure_ascii=False)
        entry["function"] = fn
        tool_calls[index] = entry
    return tool_calls


def call_names(d: Mapping[str, Any]) -> dict[str, str]:
    """Tool-call id -> tool name for an assistant message's ``tool_calls``."""
    names = {}
    for call in d.get("tool_calls") or ():
        if isinstance(call, Mapping) and "id" in call:
            names[str(call["id"])] = str((call.get("function") or {}).get("name", ""))
    return names
