"""Retention: which offloaded files to remove, and removing them safely.

Works on any :class:`~workspaces.base.Workspace` through its primitives only
(``_list``, ``_read``, ``_stat``, ``_remove``, ``_append``), so every backend gets
the same garbage collector. Use it as ``await workspace.gc(RetentionPolicy(...))``.

Rules, in order (``now`` is the time the collection starts):

1. Scope. Only files under ``sessions/`` and ``data/`` are ever considered;
   ``skills/`` and anything else in the workdir is never touched. With
   ``session=...`` only that session's folder is considered, and ``data/`` is
   left alone (media are shared between sessions).
2. Writers in flight. Temp files (``.tmp-*``, a write not yet renamed into
   place) younger than ``temp_grace`` seconds are left alone; older ones are
   debris of a crashed writer and are swept. Any other file younger than
   ``temp_grace`` is never removed, whatever the limits, and every file is
   re-stat'ed just before removal and kept if it changed since the scan.
3. Pinning. An offloaded item (``tool_result-*.txt``) is *pinned* while its
   session is live when its file name appears in the session's ``state.json``
   (the compactor's live state still points at it), or when the latest ledger
   status for its reference is one of :data:`PIN_STATUSES` (``pinned`` set by a
   user; ``mild`` / ``truncated`` set by compaction: the context holds only a
   summary plus this reference). Pinned items are never removed by
   ``max_bytes`` / ``max_files`` / per-item ``max_age``.
4. Age. With ``max_age``, a session whose newest item, ``context.jsonl`` and
   ``state.json`` are all older than ``max_age`` is *expired* and removed whole
   (its live state is stale, so its pins lapse) -- unless a ledger entry says
   ``pinned`` (a user pin outlives expiry). In a live session, unpinned items
   older than ``max_age`` are removed; ``context.jsonl``, ``ledger.jsonl`` and
   ``state.json`` of a live session are never removed.
5. Media. A ``data/`` file is *referenced* when a kept tool result or a kept
   ``context.jsonl`` contains its ``workspace:///data/...`` URL; referenced media
   stay. Unreferenced media follow ``max_age`` and the size limits like items
   (they may still be held in an agent's memory, so they are not dropped on
   sight).
6. Limits. Then, while more than ``max_files`` items+media remain, or more than
   ``max_bytes`` bytes remain under ``sessions/`` and ``data/``, the oldest
   removable item or medium goes first. When pins alone exceed a limit, the
   report says so in ``over_limit``.

A derived ``{item}.lineidx`` (the retrieval index) is removed with its item.
Each removed item gets a ``{"kind": "gc", "status": "removed"}`` line in its
session's ledger (not when the whole session goes), so the ledger keeps
matching the files.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from offloader.core.backend import FileInfo
from offloader.core.layout import (
    CONTEXT_FILE,
    DATA_DIR,
    DATA_URL_PREFIX,
    INDEX_SUFFIX,
    LEDGER_FILE,
    SESSION_META_FILES,
    SESSIONS_DIR,
    STATE_FILE,
    TMP_PREFIX,
)
from offloader.core.naming import safe_name

if TYPE_CHECKING:
    from .base import Workspace

__all__ = ["PIN_STATUSES", "GcReport", "RemovedFile", "RetentionPolicy", "collect_garbage"]

#: Ledger statuses that pin an item while its session is live.
PIN_STATUSES = frozenset({"pinned", "mild", "truncated"})
_USER_PIN = "pinned"
_META = SESSION_META_FILES
_TEMP = TMP_PREFIX
_DATA_URL = f"{DATA_URL_PREFIX}{DATA_DIR}/".encode()
#: Derived files kept beside an item (the retrieval line index); they follow their item.
_SIDECARS = (INDEX_SUFFIX,)


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    """What to keep. Every limit is optional; with none set only stale temp files go.

    ``max_age``: seconds since last modification; ``max_bytes``: total bytes under
    ``sessions/`` + ``data/``; ``max_files``: offloaded items + media files;
    ``session``: restrict to one session id (as given to ``offload_*``);
    ``temp_grace``: seconds a ``.tmp-*`` file (or any fresh file) is protected.
    """

    max_age: float | None = None
    max_bytes: int | None = None
    max_files: int | None = None
    session: str | None = None
    temp_grace: float = 600.0

    def __post_init__(self) -> None:
        for name in ("max_age", "max_bytes", "max_files"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value < 0):
                raise ValueError(f"{name} must be a non-negative number or None, got {value!r}")
        if isinstance(self.temp_grace, bool) or not isinstance(self.temp_grace, int | float) or self.temp_grace < 0:
            raise ValueError(f"temp_grace must be a non-negative number, got {self.temp_grace!r}")
        if self.session is not None and (not isinstance(self.session, str) or not self.session):
            raise ValueError("session must be a non-empty str or None")


@dataclass(frozen=True, slots=True)
class RemovedFile:
    """One file the collection removed (or would remove with ``dry_run``), and why."""

    path: str
    size: int
    reason: str  # "expired-session" | "age" | "max-files" | "max-bytes" | "stale-temp" | "orphan-sidecar"


@dataclass(slots=True)
class GcReport:
    """What a collection did: removed files, what was pinned, what remains."""

    dry_run: bool
    removed: list[RemovedFile] = field(default_factory=list)
    scanned: int = 0
    pinned: int = 0
    kept_files: int = 0
    kept_bytes: int = 0
    over_limit: list[str] = field(default_factory=list)
    skipped_changed: int = 0

    @property
    def removed_bytes(self) -> int:
        return sum(r.size for r in self.removed)

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "scanned": self.scanned,
            "removed_files": len(self.removed),
            "removed_bytes": self.removed_bytes,
            "pinned": self.pinned,
            "kept_files": self.kept_files,
            "kept_bytes": self.kept_bytes,
            "over_limit": self.over_limit,
            "skipped_changed": self.skipped_changed,
            "removed": [{"path": r.path, "size": r.size, "reason": r.reason} for r in self.removed],
        }


@dataclass(slots=True)
class _Session:
    name: str
    files: list[FileInfo] = field(default_factory=list)
    items: list[FileInfo] = field(default_factory=list)
    meta: dict[str, FileInfo] = field(default_factory=dict)
    sidecars: dict[str, list[FileInfo]] = field(default_factory=dict)
    pinned: set[str] = field(default_factory=set)
    user_pinned: bool = False
    expired: bool = False


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


async def collect_garbage(
    ws: Workspace,
    policy: RetentionPolicy,
    *,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
    now: float | None = None,
) -> GcReport:
    """Apply ``policy`` to ``ws``; return what was (or, with ``dry_run``, would be) removed.

    ``progress(done, total)`` is called while removing (for a progress bar).
    """
    await ws._ready()
    now = time.time() if now is None else now
    report = GcReport(dry_run=dry_run)
    only = f"{SESSIONS_DIR}/{safe_name(policy.session)}" if policy.session is not None else None
    listing = await ws._list(only or SESSIONS_DIR)
    media = [] if only else [f for f in await ws._list(DATA_DIR) if f.path.startswith(f"{DATA_DIR}/")]
    report.scanned = len(listing) + len(media)

    victims: list[RemovedFile] = []
    temps: list[FileInfo] = []
    sessions: dict[str, _Session] = {}
    for info in listing:
        parts = info.path.split("/")
        if len(parts) < 3 or parts[0] != SESSIONS_DIR:
            continue
        if _basename(info.path).startswith(_TEMP):
            temps.append(info)
            continue
        s = sessions.setdefault(parts[1], _Session(parts[1]))
        s.files.append(info)
        if len(parts) == 3 and parts[2] in _META:
            s.meta[parts[2]] = info
        elif info.path.endswith(_SIDECARS):
            s.sidecars.setdefault(info.path.rsplit(".", 1)[0], []).append(info)
        else:
            s.items.append(info)
    media_temps = [f for f in media if _basename(f.path).startswith(_TEMP)]
    media = [f for f in media if not _basename(f.path).startswith(_TEMP)]
    for t in [*temps, *media_temps]:
        if now - t.mtime > policy.temp_grace:
            victims.append(RemovedFile(t.path, t.size, "stale-temp"))

    limiter = anyio.CapacityLimiter(32)  # overlap the per-session reads (remote stores pay latency per call)

    async def pins(s: _Session) -> None:
        async with limiter:
            await _load_pins(ws, s)

    async with anyio.create_task_group() as tg:
        for s in sessions.values():
            tg.start_soon(pins, s)
    for s in sessions.values():
        if policy.max_age is not None:
            activity = [f.mtime for f in s.items] + [s.meta[m].mtime for m in (CONTEXT_FILE, STATE_FILE) if m in s.meta]
            if not activity:
                activity = [f.mtime for f in s.files]
            newest = max(activity, default=now)
            s.expired = now - newest > policy.max_age and not s.user_pinned

    fresh = policy.temp_grace
    candidates: list[tuple[FileInfo, str]] = []  # removable by limits, oldest first later
    kept: list[FileInfo] = []
    for s in sessions.values():
        if s.expired:
            victims.extend(RemovedFile(f.path, f.size, "expired-session") for f in s.files)
            continue
        kept.extend(s.meta.values())
        for f in s.items:
            if _basename(f.path) in s.pinned:
                report.pinned += 1
                kept.append(f)
            elif now - f.mtime <= fresh:
                kept.append(f)
            elif policy.max_age is not None and now - f.mtime > policy.max_age:
                victims.append(RemovedFile(f.path, f.size, "age"))
            else:
                candidates.append((f, s.name))
                kept.append(f)

    doomed = {v.path for v in victims}
    item_paths = {f.path for s in sessions.values() for f in s.items}
    for s in sessions.values():
        if s.expired:
            continue
        for base, side in s.sidecars.items():
            if base not in item_paths and all(now - f.mtime > fresh for f in side):
                victims.extend(RemovedFile(f.path, f.size, "orphan-sidecar") for f in side)
            elif base not in doomed:
                kept.extend(side)

    if media:
        referenced = await _referenced_media(ws, sessions, {v.path for v in victims})
        for f in media:
            if f.path in referenced or now - f.mtime <= fresh:
                kept.append(f)
            elif policy.max_age is not None and now - f.mtime > policy.max_age:
                victims.append(RemovedFile(f.path, f.size, "age"))
            else:
                candidates.append((f, ""))
                kept.append(f)

    _apply_limits(policy, kept, candidates, victims, report)
    report.kept_files = len(kept)
    report.kept_bytes = sum(f.size for f in kept)
    await _remove_all(ws, victims, report, dry_run=dry_run, progress=progress, sessions=sessions)
    return report


def _apply_limits(
    policy: RetentionPolicy,
    kept: list[FileInfo],
    candidates: list[tuple[FileInfo, str]],
    victims: list[RemovedFile],
    report: GcReport,
) -> None:
    """Evict the oldest candidates until ``max_files`` / ``max_bytes`` hold."""
    if policy.max_files is None and policy.max_bytes is None:
        return
    n_files = sum(1 for f in kept if _basename(f.path) not in _META)
    n_bytes = sum(f.size for f in kept)
    gone: set[str] = set()
    for f, _ in sorted(candidates, key=lambda c: (c[0].mtime, c[0].path)):
        over_files = policy.max_files is not None and n_files > policy.max_files
        over_bytes = policy.max_bytes is not None and n_bytes > policy.max_bytes
        if not (over_files or over_bytes):
            break
        victims.append(RemovedFile(f.path, f.size, "max-files" if over_files else "max-bytes"))
        gone.add(f.path)
        n_files -= 1
        n_bytes -= f.size
    kept[:] = [f for f in kept if f.path not in gone]
    if policy.max_files is not None and n_files > policy.max_files:
        report.over_limit.append(f"{n_files} files kept (pinned or fresh) > max_files {policy.max_files}")
    if policy.max_bytes is not None and n_bytes > policy.max_bytes:
        report.over_limit.append(f"{n_bytes} bytes kept (pinned or fresh) > max_bytes {policy.max_bytes}")


async def _load_pins(ws: Workspace, s: _Session) -> None:
    """Pinned item names of a session, from ``state.json`` and the ledger's latest statuses."""
    names = {_basename(f.path) for f in s.items}
    if STATE_FILE in s.meta:
        try:
            state = (await ws._read(s.meta[STATE_FILE].path)).decode("utf-8", "replace")
        except FileNotFoundError:
            state = ""
        s.pinned.update(n for n in names if n in state)
    if LEDGER_FILE in s.meta:
        try:
            raw = await ws._read(s.meta[LEDGER_FILE].path)
        except FileNotFoundError:
            raw = b""
        latest: dict[str, str] = {}
        for line in raw.splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a torn final line
            if isinstance(entry, dict) and isinstance(entry.get("ref"), str):
                latest[_basename(entry["ref"])] = str(entry.get("status", ""))
        for name, status in latest.items():
            if status in PIN_STATUSES and name in names:
                s.pinned.add(name)
            if status == _USER_PIN:
                s.user_pinned = True


async def _referenced_media(ws: Workspace, sessions: dict[str, _Session], removed: set[str]) -> set[str]:
    """``data/`` paths whose URL appears in a kept tool result or kept context log."""
    found: set[str] = set()
    for s in sessions.values():
        for f in s.files:
            name = _basename(f.path)
            if f.path in removed or name in (LEDGER_FILE, STATE_FILE) or name.endswith(_SIDECARS):
                continue
            try:
                data = await ws._read(f.path)
            except FileNotFoundError:
                continue
            pos = data.find(_DATA_URL)
            while pos >= 0:
                start = pos + len(_DATA_URL)
                end = start
                while end < len(data) and data[end : end + 1] not in b"\"'<> \n\\)":
                    end += 1
                found.add(f"{DATA_DIR}/" + data[start:end].decode("utf-8", "replace"))
                pos = data.find(_DATA_URL, end)
    return found


async def _remove_all(
    ws: Workspace,
    victims: list[RemovedFile],
    report: GcReport,
    *,
    dry_run: bool,
    progress: Callable[[int, int], None] | None,
    sessions: dict[str, _Session],
) -> None:
    """Remove victims (re-checking each is unchanged), recording removals in ledgers."""
    total = len(victims)
    mtimes = {f.path: f.mtime for s in sessions.values() for f in s.files}
    ledger_lines: dict[str, list[str]] = {}
    for i, victim in enumerate(victims, 1):
        if not dry_run:
            current = await ws._stat(victim.path)
            if current is None:
                continue
            if victim.path in mtimes and current.mtime != mtimes[victim.path]:
                report.skipped_changed += 1  # written to since the scan: a live writer
                continue
            await ws._remove(victim.path)
            for side in _SIDECARS:
                if not victim.path.endswith(side):
                    await ws._remove(victim.path + side)
            parts = victim.path.split("/")
            if victim.reason != "expired-session" and parts[0] == SESSIONS_DIR and not parts[-1].startswith(_TEMP):
                entry = {
                    "time": round(time.time(), 3),
                    "kind": "gc",
                    "ref": ws.reference(victim.path),
                    "status": "removed",
                    "reason": victim.reason,
                }
                ledger_lines.setdefault(parts[1], []).append(json.dumps(entry, separators=(",", ":")))
        report.removed.append(victim)
        if progress is not None:
            progress(i, total)
    for name, lines in ledger_lines.items():
        await ws._append(f"{SESSIONS_DIR}/{name}/{LEDGER_FILE}", ("\n".join(lines) + "\n").encode())
