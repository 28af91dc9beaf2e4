"""``context.jsonl`` records: each message in its own framework's serialization.

``offload_context`` writes one line per message. A message is stored the way
its framework serializes it, so that framework can load it back:

* an AgentScope ``Msg`` as ``Msg.model_dump_json()`` (``Msg.model_validate_json``
  reads it);
* a message dict (Strands, OpenAI chat, Anthropic, OpenAI Responses items) as
  that dict in JSON;
* anything else (Pydantic AI messages, our own :class:`Message`) in the
  canonical form of :func:`~offloader.core.convert.message_to_dict`.

Inline media never go into the log: they are written to ``data/`` and the
block points at them by ``workspace:///data/...`` URL, in the block's own shape.
:func:`read_record` reads every one of these forms back as a :class:`Message`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from .convert import message_from_dict, to_data_block, to_message, with_data_url
from .layout import DATA_URL_PREFIX, data_path
from .messages import DataBlock, Message, ToolResultBlock, extension_for

__all__ = ["native_record", "read_record"]


def _is_agentscope_msg(obj: Any) -> bool:
    return (
        type(obj).__module__.startswith("agentscope.")
        and hasattr(obj, "model_dump_json")
        and hasattr(obj, "role")
        and hasattr(obj, "content")
    )


def _store_media(block: Any, media: dict[str, bytes], names: str = "sha256") -> Any:
    """``block`` with inline media replaced by a data URL (bytes collected in ``media``)."""
    try:
        data = to_data_block(block)
    except (TypeError, ValueError, KeyError):
        return block
    if data.data is None:
        return block
    rel = data_path(data.data, extension_for(data.media_type), names)
    media[rel] = data.data
    return with_data_url(block, DATA_URL_PREFIX + rel, data.media_type)


def _agentscope_block(block: Any, media: dict[str, bytes], names: str) -> Any:
    kind = getattr(block, "type", None)
    if kind == "data":
        return _store_media(block, media, names)
    if kind == "tool_result" and isinstance(getattr(block, "output", None), list):
        return block.model_copy(update={"output": [_agentscope_block(b, media, names) for b in block.output]})
    return block


def _has_inline_media(msg: Message) -> bool:
    def inline(block: Any) -> bool:
        if isinstance(block, DataBlock):
            return block.data is not None
        if isinstance(block, ToolResultBlock):
            return any(inline(b) for b in block.content)
        return False

    return any(inline(b) for b in msg.content)


def native_record(original: Any, media: dict[str, bytes], names: str = "sha256") -> str | None:
    """The JSON line for ``original`` in its framework's serialization, or None to use the canonical form.

    Inline media are collected in ``media`` (path -> bytes), named by ``names`` (see ``layout.MEDIA_NAMES``).
    """
    if _is_agentscope_msg(original):
        content = original.content
        if isinstance(content, list):
            original = original.model_copy(update={"content": [_agentscope_block(b, media, names) for b in content]})
        return str(original.model_dump_json())
    if isinstance(original, Mapping) and "role" in original:
        record = dict(original)
        if isinstance(record.get("content"), list):
            record["content"] = [
                _store_media(b, media, names) if isinstance(b, Mapping) else b for b in record["content"]
            ]
        try:
            if _has_inline_media(to_message(record)):
                return None  # nested media this shape cannot point at by URL: canonical form
            return json.dumps(record, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError):
            return None
    return None


def read_record(line: str | bytes | Mapping[str, Any]) -> Message:
    """One ``context.jsonl`` line (or its parsed object) back as a :class:`Message`, whatever its form."""
    record = json.loads(line) if isinstance(line, str | bytes) else line
    if not isinstance(record, Mapping):
        raise TypeError(f"a context record is a JSON object, got {type(record).__name__}")
    return message_from_dict(record)
