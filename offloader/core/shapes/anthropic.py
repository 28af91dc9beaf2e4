"""Anthropic content blocks: ``image`` / ``document`` sources, ``tool_use`` and ``tool_result``.

A media block carries a ``source`` (``base64``, plain ``text`` or ``url``);
AgentScope's dumped ``data`` and ``audio`` blocks use the same source form, so
they are read here too. Every function answers None for a dict of another shape.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ..dataurl import data_from_url, decode_b64, parse_arguments
from ..messages import Block, DataBlock, ToolCallBlock, ToolResultBlock

__all__ = [
    "SOURCE_KINDS",
    "call_name",
    "data_block",
    "is_tool_result",
    "to_tool_call",
    "to_tool_result",
    "with_data_url",
]

#: Block types whose media sits in a ``source`` mapping.
SOURCE_KINDS = frozenset({"image", "document", "data", "audio"})


def data_block(d: Mapping[str, Any]) -> DataBlock | None:
    """A block with a ``source``: inline base64, plain text (a text document) or a URL."""
    kind = d.get("type")
    src = d.get("source")
    if kind not in SOURCE_KINDS or not isinstance(src, Mapping):
        return None
    media_type = src.get("media_type") or src.get("mediaType")
    name = d.get("name") or d.get("title")
    if src.get("type") == "base64":
        return DataBlock(media_type or "application/octet-stream", data=decode_b64(src["data"], kind), name=name)
    if src.get("type") == "text":
        return DataBlock(media_type or "text/plain", data=str(src.get("data", "")).encode(), name=name)
    if "url" in src:
        return data_from_url(str(src["url"]), media_type, name)
    return None


def with_data_url(d: Mapping[str, Any], url: str, media_type: str) -> dict[str, Any] | None:
    """The same block with a URL source."""
    if d.get("type") not in SOURCE_KINDS:
        return None
    return {**d, "source": {"type": "url", "url": url, "media_type": media_type}}


def to_tool_call(d: Mapping[str, Any]) -> ToolCallBlock:
    """A ``tool_use`` block (and the ``tool_call`` dicts of AgentScope dumps and our records: same fields)."""
    return ToolCallBlock(id=str(d["id"]), name=str(d["name"]), input=parse_arguments(d.get("input")))


def is_tool_result(d: Mapping[str, Any]) -> bool:
    """A ``tool_result`` block answering a ``tool_use`` (``tool_use_id``)."""
    return d.get("type") == "tool_result" and "tool_use_id" in d


def to_tool_result(d: Mapping[str, Any], to_blocks: Callable[[Any], tuple[Block, ...]]) -> ToolResultBlock | None:
    """A ``tool_result`` block as a tool result."""
    if not is_tool_result(d):
        return None
    return ToolResultBlock(
        id=str(d["tool_use_id"]),
        name=str(d.get("name", "")),
        content=to_blocks(d.get("content")),
        is_error=bool(d.get("is_error", False)),
    )


def call_name(d: Mapping[str, Any]) -> tuple[str, str] | None:
    """``(id, tool name)`` of a ``tool_use`` block (its ``tool_result`` carries no name)."""
    if d.get("type") != "tool_use" or "id" not in d:
        return None
    return str(d["id"]), str(d.get("name", ""))
