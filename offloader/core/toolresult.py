"""The tool-result file format, and media stripped out of messages into ``data/``.

A tool result is stored as one text file: text blocks as text, JSON blocks
indented, media as ``<data url='workspace:///data/...' name='...' media_type='...'/>``
tags (AgentScope's placeholder) whose bytes go to ``data/`` once.
"""

from __future__ import annotations

import json
from typing import Any

from .layout import DATA_URL_PREFIX, data_path
from .messages import DataBlock, Message, ToolCallBlock, ToolResultBlock, block_text, extension_for

__all__ = ["media_path", "render_tool_result", "render_tool_text", "strip_media"]


def render_tool_result(
    result: ToolResultBlock, sep: str = "\n", names: str = "sha256"
) -> tuple[list[tuple[str, bytes]], bytes]:
    """The text file of a tool result (blocks joined by ``sep``, media as ``<data/>`` tags) and its
    media files (named by ``names``, see ``layout.data_path``)."""
    media, text = render_tool_text(result, sep, names)
    return media, text.encode("utf-8", "surrogatepass")


def render_tool_text(
    result: ToolResultBlock, sep: str = "\n", names: str = "sha256"
) -> tuple[list[tuple[str, bytes]], str]:
    """:func:`render_tool_result` before encoding: the file's text (stored as UTF-8) and the media files."""
    media: dict[str, bytes] = {}
    parts: list[str] = []
    for block in result.content:
        text = block_text(block)
        if text is not None:
            parts.append(text)
        elif isinstance(block, DataBlock):
            if block.data is not None:
                rel = media_path(block, names)
                media[rel] = block.data
                url = DATA_URL_PREFIX + rel
            else:
                url = block.url or ""
            parts.append(_data_tag(url, block))
        elif isinstance(block, ToolCallBlock):
            parts.append(json.dumps({"tool_call": block.name, "id": block.id, "input": block.input}))
        elif isinstance(block, ToolResultBlock):
            inner_media, inner = render_tool_text(block, sep, names)
            media.update(inner_media)
            parts.append(inner)
    return sorted(media.items()), sep.join(parts)


def media_path(block: DataBlock, names: str = "sha256") -> str:
    """Where a media block's bytes are stored (content-addressed)."""
    assert block.data is not None
    return data_path(block.data, extension_for(block.media_type), names)


def _data_tag(url: str, block: DataBlock) -> str:
    """``<data url='...' name='...' media_type='...'/>``: AgentScope's placeholder, attribute for attribute."""
    attrs = {"url": url}
    if block.name:
        attrs["name"] = block.name
    attrs["media_type"] = block.media_type
    rendered = " ".join(f"{k}='{_xml_escape(v)}'" for k, v in attrs.items())
    return f"<data {rendered}/>"


def _xml_escape(value: str) -> str:
    return value.replace("&", "&amp;").replace("'", "&apos;").replace("<", "&lt;").replace(">", "&gt;")


def strip_media(msg: Message, media: dict[str, bytes], names: str = "sha256") -> Message:
    """Replace inline media in a message by ``workspace:///data`` URLs, collecting the bytes."""

    def strip(block: Any) -> Any:
        if isinstance(block, DataBlock) and block.data is not None:
            rel = media_path(block, names)
            media[rel] = block.data
            return DataBlock(block.media_type, url=DATA_URL_PREFIX + rel, name=block.name)
        if isinstance(block, ToolResultBlock):
            return ToolResultBlock(block.id, block.name, tuple(strip(b) for b in block.content), block.is_error)
        return block

    return Message(msg.role, tuple(strip(b) for b in msg.content), msg.name, msg.id)
