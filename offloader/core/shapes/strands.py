"""Strands content blocks: one-key dicts with no ``type`` (``text``, ``json``, ``image``,
``document``, ``video``, ``toolUse``, ``toolResult``) and bare ``toolResult`` dicts (``toolUseId``).

Every function answers None for a dict of another shape.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

from ..dataurl import decode_b64, parse_arguments
from ..messages import Block, DataBlock, JsonBlock, TextBlock, ToolCallBlock, ToolResultBlock

__all__ = [
    "MEDIA_KEYS",
    "call_name",
    "data_block",
    "is_conversation",
    "is_media",
    "is_result_block",
    "rebuild_element",
    "rebuild_tool_result",
    "to_block",
    "to_tool_result",
    "unwrap_result",
    "with_data_url",
]

#: The key of a Strands media block.
MEDIA_KEYS = ("image", "document", "video")
_DOC_FORMATS = MappingProxyType(
    {
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
)


def is_media(d: Mapping[str, Any]) -> bool:
    """A one-key ``image`` / ``document`` / ``video`` block."""
    return d.get("type") is None and len(d) == 1 and any(key in d for key in MEDIA_KEYS)


def to_block(d: Mapping[str, Any]) -> Block | None:
    """A ``text``, ``json`` or ``toolUse`` block (media and results have their own functions)."""
    if d.get("type") is not None:
        return None
    if "text" in d and len(d) == 1:
        return TextBlock(str(d["text"]))
    if "json" in d and len(d) == 1:
        return JsonBlock(d["json"])
    if "toolUse" in d:
        use = d["toolUse"]
        return ToolCallBlock(id=str(use["toolUseId"]), name=str(use["name"]), input=parse_arguments(use.get("input")))
    return None


def data_block(d: Mapping[str, Any]) -> DataBlock | None:
    """A media block: its ``format`` names the media type; inline ``bytes`` or an (S3) ``location``."""
    if d.get("type") is not None:
        return None
    for key in MEDIA_KEYS:
        spec = d.get(key)
        if not isinstance(spec, Mapping):
            continue
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
            data = bytes(raw) if isinstance(raw, bytes | bytearray) else decode_b64(raw, key)
            return DataBlock(media_type, data=data, name=name)
        location = src.get("location") or src.get("s3Location")
        if isinstance(location, Mapping) and "uri" in location:
            return DataBlock(media_type, url=str(location["uri"]), name=name)
    return None


def with_data_url(d: Mapping[str, Any], url: str, media_type: str) -> dict[str, Any] | None:
    """The same media block with its source a URL location."""
    for key in MEDIA_KEYS:
        if isinstance(d.get(key), Mapping):
            spec = {k: v for k, v in d[key].items() if k != "source"}
            spec["source"] = {"location": {"type": "url", "uri": url}}
            return {key: spec}
    return None


def unwrap_result(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    """The result inside a ``{"toolResult": {...}}`` content block; any other dict as it is."""
    inner = obj.get("toolResult")
    return inner if isinstance(inner, Mapping) else obj


def is_result_block(d: Mapping[str, Any]) -> bool:
    """A ``{"toolResult": {...}}`` content block."""
    return isinstance(d.get("toolResult"), Mapping)


def call_name(d: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(toolUseId, tool name)`` of a ``toolUse`` content block."""
    use = d.get("toolUse")
    if not isinstance(use, Mapping) or "toolUseId" not in use:
        return None
    return str(use["toolUseId"]), str(use.get("name", ""))


def to_tool_result(d: Mapping[str, Any], to_blocks: Callable[[Any], tuple[Block, ...]]) -> ToolResultBlock | None:
    """A bare tool result (``toolUseId``, ``status``, ``content``)."""
    if "toolUseId" not in d:
        return None
    return ToolResultBlock(
        id=str(d["toolUseId"]),
        name=str(d.get("name", "")),
        content=to_blocks(d.get("content")),
        is_error=d.get("status") == "error",
    )


# ---------------------------------------------------------------- back to Strands


def rebuild_element(orig: Mapping[str, Any], new: Block) -> dict[str, Any] | None:
    """A Strands block ``orig`` holding ``new``'s text, input or result; None for a typed block."""
    if isinstance(new, TextBlock) and "type" not in orig:
        return {"text": new.text}
    if isinstance(new, ToolCallBlock) and "toolUse" in orig:
        return {**orig, "toolUse": {**orig["toolUse"], "input": new.input}}
    if isinstance(new, ToolResultBlock):
        if isinstance(orig.get("toolResult"), Mapping):
            return {**orig, "toolResult": {**orig["toolResult"], "content": [{"text": new.text()}]}}
        if "toolUseId" in orig:
            return {**orig, "content": [{"text": new.text()}]}
    return None


def rebuild_tool_result(original: Mapping[str, Any], items: Sequence[str | int]) -> dict[str, Any] | None:
    """A tool result (bare or wrapped) whose content becomes ``items``; None for another shape."""
    inner = original.get("toolResult")
    if isinstance(inner, Mapping):
        return {**original, "toolResult": _with_content(inner, items)}
    if "toolUseId" in original:
        return _with_content(original, items)
    return None


def _with_content(result: Mapping[str, Any], items: Sequence[str | int]) -> dict[str, Any]:
    content = result.get("content") or []
    return {**result, "content": [{"text": i} if isinstance(i, str) else content[i] for i in items]}


def is_conversation(messages: Sequence[Any]) -> bool:
    """True when the first message with block content uses Strands blocks (no ``type`` key)."""
    for msg in messages:
        content = msg.get("content") if isinstance(msg, Mapping) else None
        if isinstance(content, list):
            for item in content:
                if isinstance(item, Mapping):
                    return "type" not in item
    return False
