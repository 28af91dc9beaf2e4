"""An OpenAI Agents SDK ``Session`` that keeps a conversation's items in any workspace.

``WorkspaceSession(workspace, "chat-1")`` stores the items of session
``chat-1`` in ``sessions/chat-1/agents-items.jsonl`` of a folder, a Docker
container, an E2B sandbox or S3. The file is append-only: ``add_items``
appends one record with the items, ``pop_item`` and ``clear_session`` append a
tombstone record (``{"op": "pop"}``, ``{"op": "clear"}``); nothing is ever
rewritten, so the whole history, including what was popped or cleared, stays
readable, and a crash can at worst leave a torn last line (skipped on read)::

    from agents import Runner
    from offloader.integrations.openai_agents_session import WorkspaceSession

    session = WorkspaceSession(LocalWorkspace(".offload"), "chat-1")
    await Runner.run(agent, "Hello", session=session)

The items are read back incrementally (only bytes appended since the last
read). Operations of one ``WorkspaceSession`` object are serialised; two
processes appending to one session interleave whole records, and a pop
removes whatever item is last when the log is replayed.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Sequence
from typing import Any

import anyio

from offloader.core.extras import MissingExtra

try:
    from agents.memory import SessionSettings
    from agents.memory.session_settings import resolve_session_limit
except ImportError as exc:  # pragma: no cover - exercised by tests/test_extras.py in a subprocess
    raise MissingExtra("offloader.integrations.openai_agents_session", "openai-agents", exc.name) from exc

from workspaces import Workspace

__all__ = ["ITEMS_FILE", "WorkspaceSession"]

#: The append-only log of one session's items, inside ``sessions/{sid}/``.
ITEMS_FILE = "agents-items.jsonl"

_log = logging.getLogger("offloader.openai_agents")
_OPS = ("add", "pop", "clear")


class WorkspaceSession:
    """A ``Session`` (``get_items``, ``add_items``, ``pop_item``, ``clear_session``) over a workspace.

    ``session_settings`` (an SDK ``SessionSettings``) gives ``get_items`` its
    default ``limit``.
    """

    def __init__(
        self, workspace: Workspace, session_id: str, *, session_settings: SessionSettings | None = None
    ) -> None:
        if not isinstance(workspace, Workspace):
            raise TypeError(f"workspace must be a workspaces.Workspace, got {type(workspace).__name__}")
        if not isinstance(session_id, str) or not session_id:
            raise ValueError(f"session_id must be a non-empty str, got {session_id!r}")
        self.workspace = workspace
        self.session_id = session_id
        self.session_settings = session_settings
        self.path = f"{workspace.session_dir(session_id)}/{ITEMS_FILE}"
        self._lock = anyio.Lock()
        self._items: list[Any] = []
        self._offset = 0  # bytes of the log already replayed into _items

    # ------------------------------------------------------------ Session protocol

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The live items, oldest first; with ``limit``, the newest ``limit`` of them."""
        limit = resolve_session_limit(limit, self.session_settings)
        async with self._lock:
            items = await self._replay()
        if limit is not None:
            items = items[-limit:] if limit > 0 else []
        return copy.deepcopy(items)  # the caller may edit them; the replayed log must not change

    async def add_items(self, items: list[Any]) -> None:
        """Append ``items`` (JSON-serialisable dicts or SDK/openai pydantic models) as one record."""
        if isinstance(items, str | bytes) or not isinstance(items, Sequence):
            raise TypeError(f"items must be a list of input items, got {type(items).__name__}")
        if not items:
            return
        record = {"op": "add", "items": [_jsonable(i) for i in items]}
        async with self._lock:
            await self._write(record)

    async def pop_item(self) -> Any | None:
        """Remove and return the newest item (a ``pop`` tombstone is appended); None when empty."""
        async with self._lock:
            items = await self._replay()
            if not items:
                return None
            last = copy.deepcopy(items[-1])
            await self._write({"op": "pop"})
            return last

    async def clear_session(self) -> None:
        """Remove every item (a ``clear`` tombstone is appended; the log itself stays)."""
        async with self._lock:
            await self._write({"op": "clear"})

    # ------------------------------------------------------------ log

    async def _write(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        await self.workspace.append_bytes(self.path, line.encode("utf-8"))

    async def _replay(self) -> list[Any]:
        """Bring ``_items`` up to date with the log (reads only what was appended since last time)."""
        info = await self.workspace.stat(self.path)
        size = 0 if info is None else info.size
        if size < self._offset:  # the log was removed (purge, gc): start over
            self._items, self._offset = [], 0
        if size == self._offset:
            return self._items
        data = await self.workspace.read_bytes(self.path, self._offset, size)
        end = data.rfind(b"\n") + 1  # a torn or still-growing last line waits for its newline
        for raw in data[:end].splitlines():
            self._apply(raw)
        self._offset += end
        return self._items

    def _apply(self, raw: bytes) -> None:
        if not raw.strip():
            return
        try:
            record = json.loads(raw)
            op = record["op"] if isinstance(record, dict) else None
        except (ValueError, KeyError):
            op = None
        if op not in _OPS:
            _log.warning("session %r: skipping an unreadable record in %s", self.session_id, self.path)
            return
        if op == "add":
            self._items.extend(record.get("items") or [])
        elif op == "pop":
            if self._items:
                self._items.pop()
        else:
            self._items.clear()


def _jsonable(item: Any) -> Any:
    if hasattr(item, "model_dump") and not isinstance(item, dict):
        return item.model_dump(mode="json", exclude_unset=True)
    return item
