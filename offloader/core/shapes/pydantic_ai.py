"""Pydantic AI messages in the canonical model, and back.

Pydantic AI's messages are dataclasses: a ``ModelRequest`` (``kind="request"``)
or ``ModelResponse`` (``kind="response"``) holding ``parts`` with a
``part_kind``. They are detected structurally, so this module never imports
pydantic-ai except to build a brand-new message (:func:`text_message`).

Mapping (one canonical :class:`~offloader.messages.Message` per pydantic-ai message):

* ``ModelRequest`` -> role ``system`` when it holds a ``SystemPromptPart``
  (so compaction never cuts the system prompt), else ``user``;
  ``ModelResponse`` -> ``assistant``.
* ``SystemPromptPart``, ``TextPart``, ``ThinkingPart``, ``RetryFeedbackPart`` ->
  text; ``UserPromptPart`` -> one block per content item (text or media);
  ``ToolCallPart`` -> tool call; ``ToolReturnPart`` and ``RetryPromptPart`` ->
  tool result (``outcome`` ``failed``/``retried`` is an error); ``FilePart`` -> media.
* Other parts (instruction deltas, native tool parts, cache points) carry no
  block: they are kept as they are and never edited.

Edits come back through :func:`rebuild_message` / :func:`rebuild_tool_return`,
which copy the original with ``dataclasses.replace``: the caller's objects are
never mutated.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from ..messages import Block, DataBlock, JsonBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock

__all__ = [
    "is_message",
    "is_part",
    "is_tool_return",
    "rebuild_message",
    "rebuild_tool_return",
    "text_message",
    "to_message",
    "to_tool_result",
]

_TEXT_PARTS = frozenset({"system-prompt", "text", "thinking", "retry-feedback"})
_ERROR_OUTCOMES = frozenset({"failed", "retried"})
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# One canonical block's origin: (part index, index inside UserPromptPart/ToolReturnPart content or None).
_Origin = tuple[int, int | None]


def is_message(obj: Any) -> bool:
    """True for a pydantic-ai ``ModelRequest`` / ``ModelResponse`` (structurally)."""
    return (
        dataclasses.is_dataclass(obj)
        and not isinstance(obj, type)
        and getattr(obj, "kind", None) in ("request", "response")
        and isinstance(getattr(obj, "parts", None), Sequence)
    )


def is_part(obj: Any) -> bool:
    """True for any pydantic-ai message part (it has a ``part_kind``)."""
    return dataclasses.is_dataclass(obj) and isinstance(getattr(obj, "part_kind", None), str)


def is_tool_return(obj: Any) -> bool:
    """True for a ``ToolReturnPart`` (not a native/builtin tool return)."""
    return is_part(obj) and obj.part_kind == "tool-return"


# ---------------------------------------------------------------- to canonical


def _media(item: Any) -> DataBlock | None:
    kind = getattr(item, "kind", None)
    if kind in ("binary", "image", "audio", "video", "document") and isinstance(getattr(item, "data", None), bytes):
        return DataBlock(str(item.media_type), data=item.data, name=getattr(item, "identifier", None))
    if isinstance(kind, str) and kind.endswith("-url") and isinstance(getattr(item, "url", None), str):
        try:
            media_type = str(item.media_type)
        except Exception:  # pydantic-ai raises when it cannot infer the type from the URL
            media_type = "application/octet-stream"
        return DataBlock(media_type, url=item.url)
    return None


def _content_blocks(content: Any, *, structured: bool) -> list[tuple[Block, int | None]]:
    """Blocks of a UserPromptPart / ToolReturnPart ``content`` with their index inside it."""
    if content is None:
        return []
    if isinstance(content, str):
        return [(TextBlock(content), None)] if content else []
    media = _media(content)
    if media is not None:
        return [(media, None)]
    if isinstance(content, list | tuple) and any(_media(c) is not None or isinstance(c, str) for c in content):
        out: list[tuple[Block, int | None]] = []
        for i, item in enumerate(content):
            block = _media(item)
            if block is not None:
                out.append((block, i))
            elif isinstance(item, str):
                out.append((TextBlock(item), i))
            elif getattr(item, "kind", None) in ("text-content", "structured-content"):
                out.append((TextBlock(str(item.content)), i))
            elif structured:
                out.append((JsonBlock(item), i))
        return out
    if getattr(content, "kind", None) in ("text-content", "structured-content"):
        return [(TextBlock(str(content.content)), None)]
    if structured:
        return [(JsonBlock(_jsonable(content)), None)]
    return [(TextBlock(str(content)), None)]


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if hasattr(value, "model_dump") and not isinstance(value, Mapping):
        return value.model_dump(mode="json")
    return value


def _retry_text(part: Any) -> str:
    render = getattr(part, "model_response", None)
    if callable(render):
        return str(render())
    return str(part.content)


def to_tool_result(part: Any) -> ToolResultBlock:
    """A ``ToolReturnPart`` (or ``RetryPromptPart``) as a canonical tool result."""
    if part.part_kind == "retry-prompt":
        return ToolResultBlock(str(part.tool_call_id), str(part.tool_name or ""), (TextBlock(_retry_text(part)),), True)
    blocks = tuple(b for b, _ in _content_blocks(part.content, structured=True))
    is_error = getattr(part, "outcome", "success") in _ERROR_OUTCOMES
    return ToolResultBlock(str(part.tool_call_id), str(part.tool_name), blocks, is_error)


def _blocks(msg: Any) -> tuple[list[Block], list[_Origin]]:
    blocks: list[Block] = []
    origins: list[_Origin] = []
    for p, part in enumerate(msg.parts):
        kind = getattr(part, "part_kind", None)
        found: list[tuple[Block, int | None]] = []
        if kind == "retry-feedback":
            found = [(TextBlock(_retry_text(part)), None)]
        elif kind in _TEXT_PARTS:
            found = [(TextBlock(str(part.content)), None)]
        elif kind == "user-prompt":
            found = _content_blocks(part.content, structured=False)
        elif kind == "tool-call":
            found = [(ToolCallBlock(str(part.tool_call_id), str(part.tool_name), dict(part.args_as_dict())), None)]
        elif kind in ("tool-return", "retry-prompt") and getattr(part, "tool_name", None):
            found = [(to_tool_result(part), None)]
        elif kind == "retry-prompt":
            found = [(TextBlock(_retry_text(part)), None)]
        elif kind == "file":
            media = _media(part.content)
            found = [(media, None)] if media is not None else []
        for block, sub in found:
            blocks.append(block)
            origins.append((p, sub))
    return blocks, origins


def to_message(msg: Any) -> Message:
    """A ``ModelRequest`` / ``ModelResponse`` as one canonical message (see the module doc)."""
    blocks, _ = _blocks(msg)
    if msg.kind == "response":
        role = "assistant"
    else:
        role = "system" if any(getattr(p, "part_kind", None) == "system-prompt" for p in msg.parts) else "user"
    return Message(role=role, content=tuple(blocks))


# ---------------------------------------------------------------- back


def rebuild_tool_return(original: Any, items: Sequence[str | int]) -> Any:
    """A copy of ``original`` whose content is ``items`` (str: new text, int: kept content element)."""
    content = original.content
    if all(isinstance(i, str) for i in items):
        return dataclasses.replace(original, content="\n".join(i for i in items if isinstance(i, str)))
    elements = list(content) if isinstance(content, list | tuple) else [content]
    return dataclasses.replace(original, content=[i if isinstance(i, str) else elements[i] for i in items])


def _edit_part(part: Any, sub: int | None, block: Block) -> Any:
    kind = part.part_kind
    if isinstance(block, TextBlock):
        if sub is not None and kind == "user-prompt":
            content = list(part.content)
            content[sub] = block.text
            return dataclasses.replace(part, content=content)
        if kind in _TEXT_PARTS or kind == "user-prompt" or kind == "retry-prompt":
            changes: dict[str, Any] = {"content": block.text}
            if kind in ("text", "thinking") and getattr(part, "id", None) is not None:
                changes["id"] = None  # the Responses API would otherwise replay its stored copy
            return dataclasses.replace(part, **changes)
    if isinstance(block, ToolCallBlock) and kind == "tool-call":
        return dataclasses.replace(part, args=dict(block.input))
    if isinstance(block, ToolResultBlock) and kind in ("tool-return", "retry-prompt"):
        return dataclasses.replace(part, content=block.text())
    raise TypeError(f"cannot put a canonical {type(block).__name__} into a pydantic-ai {kind} part")


def rebuild_message(original: Any, replacements: Mapping[int, Block]) -> Any:
    """A copy of ``original`` with canonical blocks ``replacements`` (by block index) swapped in."""
    if not replacements:
        return original
    _, origins = _blocks(original)
    parts = list(original.parts)
    for index in sorted(replacements):
        p, sub = origins[index]
        parts[p] = _edit_part(parts[p], sub, replacements[index])
    return dataclasses.replace(original, parts=parts)


def text_message(like: Any, role: str, text: str) -> Any:
    """A new ``ModelRequest`` (``ModelResponse`` for ``role="assistant"``) holding ``text``.

    Timestamps come from ``like`` so the same summary always builds an equal message.
    """
    from pydantic_ai.messages import ModelRequest, ModelResponse, SystemPromptPart, TextPart, UserPromptPart

    stamp = getattr(like, "timestamp", None) or _EPOCH
    if role == "assistant":
        return ModelResponse(parts=[TextPart(text)], timestamp=stamp)
    part: Any = SystemPromptPart(text, timestamp=stamp) if role == "system" else UserPromptPart(text, timestamp=stamp)
    return ModelRequest(parts=[part], timestamp=stamp)
