"""What a workspace holds, as *items*: the one notion ``gc``, ``ls`` and ``stats`` share.

An **item** is one piece of offloaded content together with everything that
belongs to it:

* its file (``sessions/{sid}/tool_result-*.txt``, any other content file in a
  session folder, or a media file ``data/{sha256}{ext}``);
* its index sidecars (``{file}.lineidx``: derived, rebuilt on demand) -- an
  item's ``size`` counts them and they are removed with it;
* the ledger lines that name it (``ref`` ends with the file's name), folded into
  one ``status`` by :func:`fold_status`.

A session's bookkeeping files (``context.jsonl``, ``ledger.jsonl``,
``state.json``, ``taskmap.mmd``, ``state.json.invalid-*``) are not items; they
are listed in :attr:`SessionInventory.meta`. Temp files of writes in flight
(``.tmp-*``) are listed apart, and a sidecar whose file is gone is an *orphan*.

Use :func:`inventory` (one listing, one read per ledger) wherever numbers about
a workspace are reported, so every report counts the same things.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from offloader.core.backend import FileInfo
from offloader.core.layout import (
    CONTEXT_FILE,
    DATA_DIR,
    INDEX_SUFFIX,
    LEDGER_FILE,
    SESSIONS_DIR,
    STATE_FILE,
    TASKMAP_FILE,
    TMP_PREFIX,
)
from offloader.core.naming import safe_name

if TYPE_CHECKING:
    from .base import Workspace

__all__ = [
    "PIN_STATUSES",
    "REMOVED",
    "SIDECAR_SUFFIXES",
    "Inventory",
    "Item",
    "SessionInventory",
    "check_folder_name",
    "fold_status",
    "inventory",
    "is_item_file",
    "parse_jsonl",
]

#: Ledger statuses that pin an item: ``pinned`` (a user), ``mild`` / ``truncated``
#: (compaction: the context holds only a summary plus this reference).
PIN_STATUSES = frozenset({"pinned", "mild", "truncated"})
#: The status gc records when it removes an item.
REMOVED = "removed"
#: Derived files kept beside an item; they count with it and go with it.
SIDECAR_SUFFIXES = (INDEX_SUFFIX,)
_OFFLOADED = "offloaded"
_TEMP = TMP_PREFIX
_META = frozenset({CONTEXT_FILE, LEDGER_FILE, STATE_FILE, TASKMAP_FILE})
_META_PREFIXES = (f"{STATE_FILE}.invalid-",)


@dataclass(slots=True)
class Item:
    """One offloaded item: its file, its sidecars and its ledger lines."""

    path: str
    file: FileInfo
    sidecars: list[FileInfo] = field(default_factory=list)
    entries: list[dict[str, Any]] = field(default_factory=list)

    @property
    def size(self) -> int:
        """Bytes of the file and its sidecars."""
        return self.file.size + sum(s.size for s in self.sidecars)

    @property
    def mtime(self) -> float:
        """Last modification of the item's content (sidecars are derived and do not count)."""
        return self.file.mtime

    @property
    def files(self) -> list[FileInfo]:
        """The file first, then its sidecars."""
        return [self.file, *self.sidecars]

    @property
    def status(self) -> str:
        """The folded ledger status (see :func:`fold_status`); ``""`` with no ledger line."""
        return fold_status(self.entries)

    @property
    def pinned(self) -> bool:
        return self.status in PIN_STATUSES

    @property
    def tool(self) -> str:
        for e in self.entries:
            if e.get("kind") == "tool_result":
                return str(e.get("tool", ""))
        return ""

    @property
    def tokens(self) -> int:
        """Tokens kept out of context (the offload line's figure, else bytes / 4)."""
        for e in self.entries:
            if e.get("kind") == "tool_result" and isinstance(e.get("tokens"), int):
                return int(e["tokens"])
        return (self.file.size + 3) // 4


@dataclass(slots=True)
class SessionInventory:
    """One session folder: its items, bookkeeping files, temp files and parsed ledger."""

    name: str
    items: dict[str, Item] = field(default_factory=dict)
    meta: dict[str, FileInfo] = field(default_factory=dict)
    temps: list[FileInfo] = field(default_factory=list)
    orphans: list[FileInfo] = field(default_factory=list)
    ledger: list[dict[str, Any]] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)
    state: bytes = b""

    @property
    def files(self) -> list[FileInfo]:
        """Every file of the session except temp files."""
        out = [f for item in self.items.values() for f in item.files]
        return [*out, *self.meta.values(), *self.orphans]

    @property
    def bytes(self) -> int:
        return sum(f.size for f in self.files)

    @property
    def last_modified(self) -> float:
        return max((f.mtime for f in self.files), default=0.0)

    def entries_for(self, name: str) -> list[dict[str, Any]]:
        """Ledger lines whose ``ref`` names the file ``name`` of this session."""
        return [e for e in self.ledger if _basename(str(e.get("ref", ""))) == name]


@dataclass(slots=True)
class Inventory:
    """Sessions (by folder name) and media (``data/``) of a workspace."""

    sessions: dict[str, SessionInventory] = field(default_factory=dict)
    media: dict[str, Item] = field(default_factory=dict)
    media_temps: list[FileInfo] = field(default_factory=list)
    scanned: int = 0

    def items(self) -> Iterable[tuple[str, Item]]:
        """Every item with its session name (``""`` for media)."""
        for s in self.sessions.values():
            for item in s.items.values():
                yield s.name, item
        for item in self.media.values():
            yield "", item


def fold_status(entries: Iterable[dict[str, Any]]) -> str:
    """One status from an item's ledger lines, in time order (ties: ledger order).

    Lines are ordered by their ``time`` stamp (when the event happened: gc stamps
    the moment of removal; a batched offload line the moment of the offload),
    since lines may reach the ledger late. Not simply the last line either: an
    ``offloaded`` line (an offload, perhaps written late from a batch, or the
    same result offloaded again) never overrides a
    status set by compaction or a user pin; it only starts a new life after a
    ``removed`` line (the item was offloaded again after gc removed it). Any
    other status (``mild``, ``truncated``, ``deleted``, ``collected``,
    ``pinned``, ``unpinned``, ``removed``) replaces the current one.
    """
    status = ""
    for e in sorted(entries, key=_when):
        new = e.get("status")
        if not isinstance(new, str) or not new:
            continue
        if new == _OFFLOADED and status not in ("", REMOVED):
            continue
        status = new
    return status


def parse_jsonl(raw: bytes, name: str, torn: list[str] | None = None) -> list[dict[str, Any]]:
    """JSON objects of a JSONL log; unparsable lines are skipped (named in ``torn``)."""
    out: list[dict[str, Any]] = []
    for line in raw.splitlines():
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            if torn is not None and name not in torn:
                torn.append(name)
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _when(entry: dict[str, Any]) -> float:
    t = entry.get("time")
    return float(t) if isinstance(t, int | float) and not isinstance(t, bool) else 0.0


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _is_meta(name: str) -> bool:
    return name in _META or name.startswith(_META_PREFIXES)


def is_item_file(path: str) -> bool:
    """True for an item's own file (not a sidecar, temp file or session bookkeeping file)."""
    name = _basename(path)
    if path.endswith(SIDECAR_SUFFIXES) or name.startswith(_TEMP):
        return False
    return not (path.startswith(f"{SESSIONS_DIR}/") and _is_meta(name))


def _classify(found: dict[str, SessionInventory], listing: Iterable[FileInfo]) -> None:
    sidecars: dict[tuple[str, str], list[FileInfo]] = {}
    for info in listing:
        parts = info.path.split("/")
        if len(parts) < 3 or parts[0] != SESSIONS_DIR:
            continue
        s = found.setdefault(parts[1], SessionInventory(parts[1]))
        name = parts[-1]
        if name.startswith(_TEMP):
            s.temps.append(info)
        elif len(parts) == 3 and _is_meta(name):
            s.meta[name] = info
        elif name.endswith(SIDECAR_SUFFIXES):
            sidecars.setdefault((parts[1], info.path.rsplit(".", 1)[0]), []).append(info)
        else:
            s.items[info.path] = Item(info.path, info)
    for (session, base), side in sidecars.items():
        s = found[session]
        if base in s.items:
            s.items[base].sidecars.extend(side)
        else:
            s.orphans.extend(side)


def check_folder_name(folder: str) -> str:
    """``folder`` if it is one session folder's name (as listed under ``sessions/``); else ValueError."""
    if not isinstance(folder, str) or not folder or "/" in folder or "\\" in folder or folder.startswith("."):
        raise ValueError(f"not a session folder name: {folder!r}")
    return folder


async def inventory(
    ws: Workspace, session: str | None = None, *, folder: str | None = None, read_state: bool = False
) -> Inventory:
    """List ``ws`` as items (one listing, one read per ledger, overlapped).

    ``session``: only that session (given as the id passed to ``offload_*``) and
    no media; ``folder``: only the session in that folder (its name as listed,
    e.g. by ``offload ls``). ``read_state``: also read each session's
    ``state.json`` (gc's pins).
    """
    await ws._ready()
    if folder is not None:
        only: str | None = f"{SESSIONS_DIR}/{check_folder_name(folder)}"
    else:
        only = f"{SESSIONS_DIR}/{safe_name(session)}" if session is not None else None
    listing = await ws._list(only or SESSIONS_DIR)
    media_listing = [] if only else [f for f in await ws._list(DATA_DIR) if f.path.startswith(f"{DATA_DIR}/")]
    inv = Inventory(scanned=len(listing) + len(media_listing))
    _classify(inv.sessions, listing)
    media_side: dict[str, list[FileInfo]] = {}
    for f in media_listing:
        if _basename(f.path).startswith(_TEMP):
            inv.media_temps.append(f)
        elif f.path.endswith(SIDECAR_SUFFIXES):
            media_side.setdefault(f.path.rsplit(".", 1)[0], []).append(f)
        else:
            inv.media[f.path] = Item(f.path, f)
    for base, side in media_side.items():
        if base in inv.media:
            inv.media[base].sidecars.extend(side)
    limiter = anyio.CapacityLimiter(32)  # remote stores pay latency per call: overlap the reads

    async def load(s: SessionInventory) -> None:
        async with limiter:
            if LEDGER_FILE in s.meta:
                path = s.meta[LEDGER_FILE].path
                try:
                    s.ledger = parse_jsonl(await ws._read(path), path, s.torn)
                except FileNotFoundError:
                    s.ledger = []
            if read_state and STATE_FILE in s.meta:
                try:
                    s.state = await ws._read(s.meta[STATE_FILE].path)
                except FileNotFoundError:
                    s.state = b""
        by_name: dict[str, list[dict[str, Any]]] = {}
        for e in s.ledger:
            by_name.setdefault(_basename(str(e.get("ref", ""))), []).append(e)
        for item in s.items.values():
            item.entries = by_name.get(_basename(item.path), [])

    async with anyio.create_task_group() as tg:
        for s in inv.sessions.values():
            tg.start_soon(load, s)
    return inv
