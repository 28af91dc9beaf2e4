"""What ``ls`` and ``stats`` count: sessions, their offloaded items, joined with their ledgers."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

if TYPE_CHECKING:
    from workspaces.base import Workspace


@dataclass
class _Item:
    path: str
    size: int
    mtime: float
    tool: str = ""
    tokens: int = 0
    status: str = ""


@dataclass
class _SessionInventory:
    name: str
    items: list[_Item] = field(default_factory=list)
    bytes: int = 0
    last: float = 0.0
    ledger: list[dict[str, Any]] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)


async def _inventory(ws: Workspace, session: str | None, *, check_torn: bool = False) -> list[_SessionInventory]:
    """Sessions with their offloaded items, joined with their ledgers (one listing, one read per ledger)."""
    from offloader.naming import safe_name

    await ws._ready()
    top = f"sessions/{safe_name(session)}" if session is not None else "sessions"
    found: dict[str, _SessionInventory] = {}
    ledgers: list[tuple[_SessionInventory, str]] = []
    for info in await ws._list(top):
        parts = info.path.split("/")
        if len(parts) < 3 or parts[-1].startswith(".tmp-"):
            continue
        inv = found.setdefault(parts[1], _SessionInventory(parts[1]))
        inv.bytes += info.size
        inv.last = max(inv.last, info.mtime)
        name = parts[-1]
        if len(parts) == 3 and name in ("ledger.jsonl", "context.jsonl", "state.json"):
            if name == "ledger.jsonl" or (name == "context.jsonl" and check_torn and info.size):
                ledgers.append((inv, info.path))
            continue
        if name.endswith(".lineidx"):
            continue
        inv.items.append(_Item(info.path, info.size, info.mtime, tokens=(info.size + 3) // 4))
    limiter = anyio.CapacityLimiter(32)  # reads overlap: remote stores pay latency per call

    async def load(inv: _SessionInventory, path: str) -> None:
        async with limiter:
            if path.endswith("ledger.jsonl"):
                inv.ledger = _parse_jsonl(await ws._read(path), path, inv.torn)
            else:
                info = await ws._stat(path)
                if info is not None and info.size and await ws._read(path, info.size - 1, info.size) != b"\n":
                    inv.torn.append(path)

    async with anyio.create_task_group() as tg:
        for inv, path in ledgers:
            tg.start_soon(load, inv, path)
    for inv in found.values():
        by_name = {_basename(e.get("ref", "")): e for e in inv.ledger if e.get("kind") == "tool_result"}
        for item in inv.items:
            entry = by_name.get(_basename(item.path))
            if entry:
                item.tool = str(entry.get("tool", ""))
                item.tokens = int(entry.get("tokens", item.tokens) or 0)
                item.status = str(entry.get("status", ""))
        for e in inv.ledger:  # later statuses (compaction, pins) override
            if e.get("kind") != "tool_result" and "status" in e:
                for item in inv.items:
                    if _basename(item.path) == _basename(str(e.get("ref", ""))):
                        item.status = str(e["status"])
    return sorted(found.values(), key=lambda s: s.name)


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _parse_jsonl(raw: bytes, path: str, torn: list[str]) -> list[dict[str, Any]]:
    """Parse JSON lines; a torn (unterminated, unparsable) final line is skipped and reported."""
    if raw.endswith(b"\n"):  # fast path: the whole log as one JSON array (one decoder call)
        try:
            parsed = json.loads(b"[" + raw[:-1].replace(b"\n", b",") + b"]")
            return [e for e in parsed if isinstance(e, dict)]
        except ValueError:
            pass  # a bad line somewhere: parse line by line below
    entries: list[dict[str, Any]] = []
    lines = raw.split(b"\n")
    for i, line in enumerate(lines):
        if not line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            if i == len(lines) - 1:
                torn.append(path)
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries
