"""OpenAI Responses-API input items (the OpenAI Agents SDK's history) in the canonical model, and back.

Items are plain dicts with a ``type``; detected structurally, nothing is imported:

* ``function_call`` (``call_id``, ``name``, ``arguments`` JSON) -> an assistant
  message with one tool call;
* ``function_call_output`` (``call_id``, ``output`` str or content list) -> a
  ``tool`` message with one tool result (the item carries no tool name: the
  caller supplies it from the matching call);
* ``message`` items and easy messages (``role`` + ``content`` str or parts
  ``input_text``, ``output_text``, ``refusal``, ``input_image``, ``input_file``)
  -> a message of that role (``developer`` counts as ``system``);
* ``reasoning`` and every other item (hosted tool calls, references, ...) -> an
  assistant message holding the item as JSON: counted, kept, never edited.

:func:`rebuild_item` and :func:`rebuild_output` return edited copies; the
caller's dicts are never mutated.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..dataurl import data_from_url, parse_arguments
from ..messages import Block, JsonBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock

__all__ = [
    "PART_TYPES",
    "call_names",
    "is_item",
    "part_to_block",
    "rebuild_item",
    "rebuild_output",
    "to_message",
    "to_tool_result",
]

#: Content-part types of Responses messages and tool outputs.
PART_TYPES = frozenset({"input_text", "output_text", "refusal", "input_image", "input_file"})
_TEXT_KEYS = {"input_text": "text", "output_text": "text", "refusal": "refusal"}
_ROLES = {"developer": "system"}
_OTHER_ITEMS = frozenset(
    {
        "reasoning",
        "item_reference",
        "compaction",
        "tool_search_output",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
    }
)


def is_item(obj: Mapping[str, Any]) -> bool:
    """True for a Responses input item this module handles (not a plain ``role``/str-content chat dict)."""
    kind = obj.get("type")
    if isinstance(kind, str) and kind != "message":
        return kind in _OTHER_ITEMS or kind.endswith(("_call", "_call_output"))
    if obj.get("role") == "developer":
        return True
    content = obj.get("content")
    return isinstance(content, list) and any(isinstance(p, Mapping) and p.get("type") in PART_TYPES for p in content)


def part_to_block(part: Mapping[str, Any]) -> Block:
    """One Responses content part as a canonical block."""
    kind = part.get("type")
    if kind in _TEXT_KEYS:
        return TextBlock(str(part.get(_TEXT_KEYS[kind], "")))
    if kind == "input_image":
        if isinstance(part.get("image_url"), str):
            return data_from_url(part["image_url"], None, None)
        if part.get("file_id"):
            return data_from_url(f"openai-file:{part['file_id']}", "image/*", None)
    if kind == "input_file":
        name = part.get("filename")
        for key in ("file_data", "file_url"):
            if isinstance(part.get(key), str):
                return data_from_url(part[key], None, name)
        if part.get("file_id"):
            return data_from_url(f"openai-file:{part['file_id']}", None, name)
    return JsonBlock(dict(part))


def _blocks(content: Any) -> tuple[Block, ...]:
    if content is None:
        return ()
    if isinstance(content, str):
        return (TextBlock(content),) if content else ()
    if isinstance(content, Sequence):
        return tuple(part_to_block(p) if isinstance(p, Mapping) else TextBlock(str(p)) for p in content)
    return (JsonBlock(content),)


def to_tool_result(item: Mapping[str, Any], name: str = "") -> ToolResultBlock:
    """A ``function_call_output`` item as a canonical tool result."""
    return ToolResultBlock(str(item.get("call_id", "")), name, _blocks(item.get("output")))


def to_message(item: Mapping[str, Any]) -> Message:
    """One input item as a canonical message (see the module doc)."""
    kind = item.get("type")
    ident = item.get("id") if isinstance(item.get("id"), str) else None
    if kind == "function_call":
        call = ToolCallBlock(
            str(item.get("call_id", "")), str(item.get("name", "")), parse_arguments(item.get("arguments"))
        )
        return Message("assistant", (call,), id=ident)
    if kind == "function_call_output":
        return Message("tool", (to_tool_result(item),))
    if kind in (None, "message") and "role" in item:
        role = str(item["role"])
        return Message(_ROLES.get(role, role), _blocks(item.get("content")), id=ident)
    return Message("assistant", (JsonBlock(dict(item)),), id=ident)


def call_names(items: Sequence[Any]) -> dict[str, str]:
    """``call_id`` -> tool name for every ``function_call`` in ``items``."""
    return {
        str(i["call_id"]): str(i.get("name", ""))
        for i in items
        if isinstance(i, Mapping) and i.get("type") == "function_call" and "call_id" in i
    }


def rebuild_output(original: Mapping[str, Any], items: Sequence[str | int]) -> dict[str, Any]:
    """A ``function_call_output`` copy whose output is ``items`` (str: new text, int: kept part)."""
    output = original.get("output")
    if all(isinstance(i, str) for i in items):
        return {**original, "output": "\n".join(i for i in items if isinstance(i, str))}
    parts = list(output) if isinstance(output, list) else []
    new = [{"type": "input_text", "text": i} if isinstance(i, str) else parts[i] for i in items]
    return {**original, "output": new}


def _edit_part(part: Any, block: Block) -> Any:
    if isinstance(block, TextBlock):
        if isinstance(part, Mapping) and part.get("type") in _TEXT_KEYS:
            return {**part, _TEXT_KEYS[part["type"]]: block.text}
        if isinstance(part, str):
            return block.text
    raise TypeError(f"cannot put a canonical {type(block).__name__} into Responses content {part!r:.80}")


def rebuild_item(original: Mapping[str, Any], replacements: Mapping[int, Block]) -> dict[str, Any]:
    """A copy of ``original`` with canonical blocks ``replacements`` (by block index) swapped in."""
    out = dict(original)
    kind = original.get("type")
    for index, block in replacements.items():
        if kind == "function_call" and isinstance(block, ToolCallBlock):
            out["arguments"] = json.dumps(block.input, ensure_ascii=False)
        elif kind == "function_call_output" and isinstance(block, ToolResultBlock):
            out["output"] = (
                block.text()
                if isinstance(original.get("output"), str | None)
                else [{"type": "input_text", "text": block.text()}]
            )
        elif kind in (None, "message") and isinstance(original.get("content"), str) and index == 0:
            out["content"] = _edit_part(original["content"], block)
        elif kind in (None, "message") and isinstance(original.get("content"), list):
            content = list(out["content"])
            content[index] = _edit_part(content[index], block)
            out["content"] = content
        else:
            raise TypeError(f"cannot put a canonical {type(block).__name__} into a Responses {kind} item")
    return out
