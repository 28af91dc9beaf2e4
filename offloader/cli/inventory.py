"""What ``ls`` and ``stats`` count: items (a file, its index sidecars, its ledger lines), per session.

Interim copy of the item definition the retention module is about to share
(``workspaces.inventory``); the names and meanings match it so the CLI switches
by changing one import.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

if TYPE_CHECKING:
    from workspaces import FileInfo, Workspace

__all__ = ["Inventory", "Item", "SessionInventory", "inventory"]

_SIDECARS = (".lineidx",)
_META = frozenset({"context.jsonl", "ledger.jsonl", "state.json", "taskmap.mmd"})
_TEMP = ".tmp-"


@dataclass(slots=True)
class Item:
    """One offloaded item: its file, its sidecars and its ledger lines."""

    path: str
    file: FileInfo
    sidecars: list[FileInfo] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)

    @property
    def size(self) -> int:
        return self.file.size + sum(s.size for s in self.sidecars)

    @property
    def mtime(self) -> float:
        return self.file.mtime

    @property
    def status(self) -> str:
        status = ""
        for e in sorted(self.entries, key=lambda e: e.get("time") or 0):
            new = e.get("status")
            if isinstance(new, str) and new and not (new == "offloaded" and status not in ("", "removed")):
                status = new
        return status

    @property
    def tool(self) -> str:
        return next((str(e.get("tool", "")) for e in self.entries if e.get("kind") == "tool_result"), "")

    @property
    def tokens(self) -> int:
        for e in self.entries:
            if e.get("kind") == "tool_result" and isinstance(e.get("tokens"), int):
                return int(e["tokens"])
        return (self.file.size + 3) // 4


@dataclass(slots=True)
class SessionInventory:
    name: str
    items: dict[str, Item] = field(default_factory=dict)
    meta: dict[str, FileInfo] = field(default_factory=dict)
    orphans: list[FileInfo] = field(default_factory=list)
    ledger: list[dict[str, Any]] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)

    @property
    def files(self) -> list[FileInfo]:
        out = [f for item in self.items.values() for f in (item.file, *item.sidecars)]
        return [*out, *self.meta.values(), *self.orphans]

    @property
    def bytes(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def last_modified(self) -> float:
        return max((f.mtime for f in self.files), default=0.0)


@dataclass(slots=True)
class Inventory:
    sessions: dict[str, SessionInventory] = field(default_factory=dict)
    media: dict[str, Item] = field(default_factory=dict)


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


async def inventory(ws: Workspace, session: str | None = None) -> Inventory:
    """Sessions (only the folder ``session`` when given) as items; one listing, one read per ledger."""
    await ws._ready()
    listing = await ws._list(f"sessions/{session}" if session is not None else "sessions")
    inv = Inventory()
    sidecars: dict[tuple[str, str], list[FileInfo]] = {}
    for info in listing:
        parts = info.path.split("/")
        if len(parts) < 3 or parts[0] != "sessions" or parts[-1].startswith(_TEMP):
            continue
        s = inv.sessions.setdefault(parts[1], SessionInventory(parts[1]))
        if len(parts) == 3 and parts[2] in _META:
            s.meta[parts[2]] = info
        elif info.path.endswith(_SIDECARS):
            sidecars.setdefault((parts[1], info.path.rsplit(".", 1)[0]), []).append(info)
        else:
            s.items[info.path] = Item(info.path, info)
    for (name, base), side in sidecars.items():
        owner = inv.sessions[name].items.get(base)
        (owner.sidecars if owner is not None else inv.sessions[name].orphans).extend(side)
    if session is None:
        for f in await ws._list("data"):
            if f.path.startswith("data/") and not _basename(f.path).startswith(_TEMP):
                inv.media[f.path] = Item(f.path, f)
    limiter = anyio.CapacityLimiter(32)  # remote stores pay latency per call: overlap the reads

    async def load(s: SessionInventory) -> None:
        if "ledger.jsonl" in s.meta:
            async with limiter:
                raw = await ws._read(s.meta["ledger.jsonl"].path)
            s.ledger = _parse_jsonl(raw, s.meta["ledger.jsonl"].path, s.torn)
        by_name: dict[str, list[dict[str, Any]]] = {}
        for e in s.ledger:
            by_name.setdefault(_basename(str(e.get("ref", ""))), []).append(e)
        for item in s.items.values():
            item.entries = by_name.get(_basename(item.path), [])

    async with anyio.create_task_group() as tg:
        for s in inv.sessions.values():
            tg.start_soon(load, s)
    return inv


def _parse_jsonl(raw: bytes, path: str, torn: list[str]) -> list[dict[str, Any]]:
    """JSON objects of a JSONL log; an unparsable line is skipped and the log named in ``torn``."""
    out: list[dict[str, Any]] = []
    for line in raw.splitlines():
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            if path not in torn:
                torn.append(path)
            continue
        if isinstance(value, dict):
            out.append(value)
    return out
