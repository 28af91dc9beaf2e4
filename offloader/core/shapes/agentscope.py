"""AgentScope 2.x pydantic objects (and their ``model_dump()`` dicts): blocks, media, tool results, ``Msg``.

Nothing of AgentScope is imported: objects are recognised by ``model_dump``
(:func:`is_model`) and their ``type``. Content inside a tool result or message may be of any accepted
shape, so the general converters are passed in (no import cycle).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..dataurl import data_from_url, decode_b64, parse_arguments
from ..messages import Block, DataBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock

__all__ = [
    "dict_to_tool_result",
    "is_model",
    "rebuild_element",
    "rebuild_message",
    "rebuild_tool_result",
    "text_message",
    "to_block",
    "to_data_block",
    "to_message",
    "to_tool_result",
    "with_data_url",
]

Blocks = Callable[[Any], tuple[Block, ...]]


def is_model(obj: Any) -> bool:
    """A pydantic model instance (AgentScope's objects), told apart structurally."""
    return hasattr(obj, "model_dump") and not isinstance(obj, Mapping)


def to_block(
    obj: Any,
    to_blocks: Blocks,
    to_data_block: Callable[[Any], DataBlock],
    to_tool_result: Callable[[Any], ToolResultBlock],
) -> Block:
    """One AgentScope block (``text``, ``thinking``, ``hint``, ``data``, ``tool_call``, ``tool_result``)."""
    kind = getattr(obj, "type", None)
    if kind == "text":
        return TextBlock(str(obj.text))
    if kind == "thinking":
        return TextBlock(str(obj.thinking))
    if kind == "hint":
        hint = obj.hint
        if isinstance(hint, str):
            return TextBlock(hint)
        return ToolResultBlock(id="hint", name="hint", content=to_blocks(hint))
    if kind == "data":
        return to_data_block(obj)
    if kind == "tool_call":
        return ToolCallBlock(id=str(obj.id), name=str(obj.name), input=parse_arguments(obj.input))
    if kind == "tool_result":
        return to_tool_result(obj)
    raise TypeError(f"unsupported pydantic block {type(obj).__name__} (type={kind!r}); expected an AgentScope block")


def to_data_block(obj: Any) -> DataBlock:
    """An AgentScope ``DataBlock`` (base64 or URL source)."""
    src = obj.source
    name = getattr(obj, "name", None)
    if getattr(src, "type", None) == "base64":
        return DataBlock(src.media_type, data=decode_b64(src.data, "DataBlock"), name=name)
    return data_from_url(str(src.url), src.media_type, name)


def with_data_url(original: Any, url: str, media_type: str) -> Any:
    """The same DataBlock with a URL source; every other field (id, name, created_at) kept."""
    fields = original.model_dump()
    fields["source"] = {"type": "url", "url": url, "media_type": media_type}
    return type(original).model_validate(fields)


def to_tool_result(obj: Any, to_blocks: Blocks) -> ToolResultBlock:
    """An AgentScope ``ToolResultBlock`` (``id``, ``name``, ``output``, ``state``)."""
    state = str(getattr(obj, "state", "") or "")
    return ToolResultBlock(
        id=str(obj.id),
        name=str(obj.name),
        content=to_blocks(obj.output),
        is_error=state in {"error", "ToolResultState.ERROR"},
    )


def to_message(obj: Any, to_blocks: Blocks) -> Message:
    """An AgentScope ``Msg``."""
    return Message(
        role=str(obj.role),
        content=to_blocks(obj.content),
        name=getattr(obj, "name", None),
        id=getattr(obj, "id", None),
    )


def dict_to_tool_result(d: Mapping[str, Any], to_blocks: Blocks) -> ToolResultBlock | None:
    """A dumped ``ToolResultBlock`` (``output``, ``state``), or our own record of one (``content``, ``is_error``)."""
    if d.get("type") != "tool_result" or "id" not in d:
        return None
    return ToolResultBlock(
        id=str(d["id"]),
        name=str(d.get("name", "")),
        content=to_blocks(d.get("output", d.get("content"))),
        is_error=bool(d.get("is_error")) or d.get("state") == "error",
    )


# ---------------------------------------------------------------- back to AgentScope


def rebuild_element(orig: Any, new: Block) -> Any | None:
    """A copy of the block ``orig`` holding ``new``'s text, arguments or output; None for media."""
    if isinstance(new, TextBlock):
        field = "thinking" if getattr(orig, "type", None) == "thinking" else "text"
        return orig.model_copy(update={field: new.text})
    if isinstance(new, ToolCallBlock):
        return orig.model_copy(update={"input": json.dumps(new.input, ensure_ascii=False)})
    if isinstance(new, ToolResultBlock):
        return orig.model_copy(update={"output": new.text()})
    return None


def rebuild_message(original: Any, replacements: Mapping[int, Block], rebuild: Callable[[Any, Block], Any]) -> Any:
    """A copy of the ``Msg`` whose blocks at the given indexes are rebuilt by ``rebuild`` (any content shape)."""
    content = list(original.content)
    for index, block in replacements.items():
        content[index] = rebuild(content[index], block)
    return original.model_copy(update={"content": content})


def rebuild_tool_result(original: Any, items: Sequence[str | int]) -> Any:
    """The result with its output replaced by ``items`` (text, or the original block at an index)."""
    output = original.output
    if isinstance(output, str) and all(isinstance(i, str) for i in items):
        new_output: Any = "\n".join(i for i in items if isinstance(i, str))
    else:
        new_output = [{"type": "text", "text": i} if isinstance(i, str) else output[i].model_dump() for i in items]
    data = original.model_dump()
    data["output"] = new_output
    return type(original).model_validate(data)


def text_message(like: Any, role: str, text: str, ident: str) -> Any:
    """A new ``Msg`` of ``like``'s class from ``name="compactor"``; ``ident`` makes its ids (same text, same ids)."""
    stamp = getattr(like, "created_at", None)
    block: dict[str, Any] = {"type": "text", "text": text, "id": f"{ident}-text"}
    msg: dict[str, Any] = {"name": "compactor", "role": role, "content": [block], "id": ident}
    if stamp is not None:
        block["created_at"] = msg["created_at"] = stamp
    return type(like).model_validate(msg)
