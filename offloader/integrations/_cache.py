"""Remembers what a big tool result became, so a history re-sent every turn is offloaded once.

Frameworks whose hook sees the whole history before every model call (Pydantic AI,
the OpenAI Agents SDK) hand the same 5 MB tool output over again each turn. The
key is the call id, the tool name and a hash of the content, so an edited result
is offloaded anew; the value is only the new content (every other field comes
from the message at hand).
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from typing import Any

import anyio.to_thread

__all__ = ["OffloadCache"]

_LIMIT = 512
#: Content longer than this is hashed in a worker thread (5 MB takes ~5 ms of CPU).
_THREAD_CHARS = 256 * 1024


class OffloadCache:
    """A bounded LRU map ``(call id, tool name, content) -> replacement content``."""

    def __init__(self, limit: int = _LIMIT) -> None:
        self._limit = limit
        self._items: OrderedDict[tuple[str, str, str], Any] = OrderedDict()

    @staticmethod
    def key(call_id: str, tool_name: str, content: Any) -> tuple[str, str, str]:
        if isinstance(content, str):
            data = content.encode("utf-8", "surrogatepass")
        else:
            data = json.dumps(content, default=repr, sort_keys=True, ensure_ascii=False).encode(
                "utf-8", "surrogatepass"
            )
        return call_id, tool_name, hashlib.blake2b(data, digest_size=16).hexdigest()

    async def key_of(self, call_id: str, tool_name: str, content: Any) -> tuple[str, str, str]:
        """:meth:`key`, off the event loop for long content."""
        if isinstance(content, str) and len(content) < _THREAD_CHARS:
            return self.key(call_id, tool_name, content)
        return await anyio.to_thread.run_sync(self.key, call_id, tool_name, content)

    def get(self, key: tuple[str, str, str]) -> Any:
        value = self._items.get(key)
        if value is not None:
            self._items.move_to_end(key)
        return value

    def put(self, key: tuple[str, str, str], value: Any) -> None:
        self._items[key] = value
        while len(self._items) > self._limit:
            self._items.popitem(last=False)
