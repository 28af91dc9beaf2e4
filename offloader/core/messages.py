"""The canonical, framework-neutral message model.

Every framework shape (OpenAI, Anthropic, Strands, AgentScope) is converted into
these frozen dataclasses by :mod:`offloader.core.convert`; the rest of the package
only ever reasons about them. Frozen so nothing downstream can mutate a
caller's conversation by accident.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, TypeAlias

__all__ = [
    "Block",
    "DataBlock",
    "JsonBlock",
    "Message",
    "Role",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "block_text",
    "extension_for",
    "kind_of",
]

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]

_EXTENSIONS = {
    "image/png": ".png",
    "image/jpeg": ".jpg",
    "image/jpg": ".jpg",
    "image/gif": ".gif",
    "image/webp": ".webp",
    "image/svg+xml": ".svg",
    "image/bmp": ".bmp",
    "image/tiff": ".tiff",
    "audio/wav": ".wav",
    "audio/x-wav": ".wav",
    "audio/mpeg": ".mp3",
    "audio/mp3": ".mp3",
    "audio/ogg": ".ogg",
    "audio/flac": ".flac",
    "audio/webm": ".webm",
    "video/mp4": ".mp4",
    "video/webm": ".webm",
    "application/pdf": ".pdf",
    "application/json": ".json",
    "application/zip": ".zip",
    "text/plain": ".txt",
    "text/csv": ".csv",
    "text/html": ".html",
    "text/markdown": ".md",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
}


def extension_for(media_type: str) -> str:
    """File extension (with dot) for a media type; ``.bin`` when unknown."""
    base = media_type.split(";", 1)[0].strip().lower()
    if base in _EXTENSIONS:
        return _EXTENSIONS[base]
    subtype = base.rpartition("/")[2]
    if subtype.isalnum() and 0 < len(subtype) <= 8:
        return "." + subtype
    return ".bin"


def kind_of(media_type: str) -> str:
    """``image``, ``audio``, ``video`` or ``document`` for a media type."""
    major = media_type.split("/", 1)[0].lower()
    return major if major in {"image", "audio", "video"} else "document"


@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str

    #: The block kind, as in the JSON form (``block_to_dict``).
    type: ClassVar[str] = "text"


@dataclass(frozen=True, slots=True)
class JsonBlock:
    """Structured data a tool returned; stored and previewed as JSON."""

    data: Any

    #: The block kind, as in the JSON form (``block_to_dict``).
    type: ClassVar[str] = "json"

    def dumps(self, *, indent: int | None = None) -> str:
        return json.dumps(self.data, ensure_ascii=False, indent=indent, default=str)


@dataclass(frozen=True, slots=True)
class DataBlock:
    """Media (image, audio, video, document): inline bytes or a URL."""

    media_type: str
    data: bytes | None = None
    url: str | None = None
    name: str | None = None

    def __post_init__(self) -> None:
        if self.data is None and self.url is None:
            raise ValueError("DataBlock needs data or url")

    #: The block kind, as in the JSON form (``block_to_dict``).
    type: ClassVar[str] = "data"

    @property
    def kind(self) -> str:
        return kind_of(self.media_type)

    @property
    def size(self) -> int | None:
        return None if self.data is None else len(self.data)

    def base64(self) -> str:
        if self.data is None:
            raise ValueError("DataBlock has no inline data")
        return base64.b64encode(self.data).decode("ascii")


@dataclass(frozen=True, slots=True)
class ToolCallBlock:
    id: str
    name: str
    input: dict[str, Any] = field(default_factory=dict)

    #: The block kind, as in the JSON form (``block_to_dict``).
    type: ClassVar[str] = "tool_call"


@dataclass(frozen=True, slots=True)
class ToolResultBlock:
    id: str
    name: str
    content: tuple[Block, ...] = ()
    is_error: bool = False

    #: The block kind, as in the JSON form (``block_to_dict``).
    type: ClassVar[str] = "tool_result"

    def text(self) -> str:
        """All text and JSON content joined by newlines (media skipped)."""
        return "\n".join(text for text in map(block_text, self.content) if text is not None)


Block: TypeAlias = TextBlock | JsonBlock | DataBlock | ToolCallBlock | ToolResultBlock


def block_text(block: Block) -> str | None:
    """A text block's text, a JSON block's indented JSON; None for any other block."""
    if isinstance(block, TextBlock):
        return block.text
    if isinstance(block, JsonBlock):
        return block.dumps(indent=2)
    return None


@dataclass(frozen=True, slots=True)
class Message:
    role: str
    content: tuple[Block, ...] = ()
    name: str | None = None
    id: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def text(self) -> str:
        return "\n".join(b.text for b in self.content if isinstance(b, TextBlock))

    @property
    def tool_calls(self) -> tuple[ToolCallBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ToolCallBlock))

    @property
    def tool_results(self) -> tuple[ToolResultBlock, ...]:
        return tuple(b for b in self.content if isinstance(b, ToolResultBlock))
