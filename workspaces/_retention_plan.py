"""Retention's decision: from one listing, which items and files a policy removes, and why.

Pure bookkeeping over an :class:`~workspaces.inventory.Inventory`; nothing here
changes the workspace. :mod:`workspaces._removal` carries the decision out.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from offloader.core.backend import FileInfo
from offloader.core.layout import CONTEXT_FILE, DATA_DIR, DATA_URL_PREFIX, LEDGER_FILE, STATE_FILE, TASKMAP_FILE

from .inventory import Inventory, Item, SessionInventory, is_item_file

if TYPE_CHECKING:
    from .base import Workspace
    from .retention import GcReport, RetentionPolicy

__all__ = ["Plan", "RemovedFile", "Victim", "plan_removals", "referenced_media"]

_USER_PIN = "pinned"
_DATA_URL = f"{DATA_URL_PREFIX}data/".encode()
_EXPIRED_META = (CONTEXT_FILE, TASKMAP_FILE)


@dataclass(frozen=True, slots=True)
class RemovedFile:
    """One file the collection removed (or would remove with ``dry_run``), and why."""

    path: str
    size: int
    reason: str  # "expired-session" | "age" | "max-files" | "max-bytes" | "stale-temp" | "orphan-sidecar"


@dataclass(slots=True)
class Victim:
    """One thing to remove: an item (file + sidecars) or a single file, and its session."""

    files: list[FileInfo]
    reason: str
    session: str = ""  # "" for media and temp files: no ledger line
    record: bool = True

    def removed(self) -> list[RemovedFile]:
        """The files this victim stands for, as the report lists them."""
        return [RemovedFile(f.path, f.size, self.reason) for f in self.files]


@dataclass(slots=True)
class Plan:
    """What one collection removes, keeps, and may evict to meet the limits (oldest first)."""

    victims: list[Victim] = field(default_factory=list)
    kept: list[FileInfo] = field(default_factory=list)
    candidates: list[tuple[Item, str]] = field(default_factory=list)


def _pinned(s: SessionInventory, item: Item) -> bool:
    name = item.path.rsplit("/", 1)[-1]
    return item.pinned or (bool(s.state) and name.encode() in s.state)


def _plan_session(s: SessionInventory, policy: RetentionPolicy, now: float, plan: Plan, report: GcReport) -> None:
    grace = policy.temp_grace

    def fresh(f: FileInfo) -> bool:
        return now - f.mtime <= grace

    def old(f: FileInfo) -> bool:
        return policy.max_age is not None and now - f.mtime > policy.max_age and not fresh(f)

    for t in s.temps:
        if not fresh(t):
            plan.victims.append(Victim([t], "stale-temp", record=False))
    everything = [*s.files, *s.temps]
    user_pinned = any(item.status == _USER_PIN for item in s.items.values())
    expired = bool(everything) and all(old(f) for f in everything) and not user_pinned
    kept_pins = False
    for item in s.items.values():
        if _pinned(s, item):
            report.pinned += 1
            kept_pins = True
            plan.kept.extend(item.files)
        elif fresh(item.file):
            plan.kept.extend(item.files)
        elif old(item.file):
            plan.victims.append(Victim(item.files, "expired-session" if expired else "age", s.name))
        else:
            plan.candidates.append((item, s.name))
            plan.kept.extend(item.files)
    for f in s.orphans:
        if not fresh(f):
            plan.victims.append(Victim([f], "orphan-sidecar", record=False))
    for name, f in s.meta.items():
        goes = expired and (name in _EXPIRED_META or name.startswith(f"{STATE_FILE}.invalid-"))
        goes = goes or (expired and name == STATE_FILE and not kept_pins)
        if name == LEDGER_FILE and expired and not kept_pins and set(s.meta) == {LEDGER_FILE} and not s.items:
            plan.victims.append(Victim([f], "expired-session", record=False))  # a tombstone alone: last step
        elif goes:
            plan.victims.append(Victim([f], "expired-session", s.name))
        else:
            plan.kept.append(f)


def plan_removals(inv: Inventory, policy: RetentionPolicy, now: float, report: GcReport, referenced: set[str]) -> Plan:
    plan = Plan()
    for s in inv.sessions.values():
        _plan_session(s, policy, now, plan, report)
    grace = policy.temp_grace
    for t in inv.media_temps:
        if now - t.mtime > grace:
            plan.victims.append(Victim([t], "stale-temp", record=False))
    for item in inv.media.values():
        if item.path in referenced or now - item.mtime <= grace:
            plan.kept.extend(item.files)
        elif policy.max_age is not None and now - item.mtime > policy.max_age:
            plan.victims.append(Victim(item.files, "age", record=False))
        else:
            plan.candidates.append((item, ""))
            plan.kept.extend(item.files)
    _apply_limits(policy, plan, report)
    return plan


def _apply_limits(policy: RetentionPolicy, plan: Plan, report: GcReport) -> None:
    """Evict the fewest, oldest candidates (item + sidecars) until ``max_files`` / ``max_bytes`` hold."""
    if policy.max_files is None and policy.max_bytes is None:
        return
    doomed = {f.path for v in plan.victims for f in v.files}
    counted = [f for f in plan.kept if f.path not in doomed]
    n_bytes = sum(f.size for f in counted)
    n_items = sum(1 for f in counted if is_item_file(f.path))
    gone: set[str] = set()
    for item, session in sorted(plan.candidates, key=lambda c: (c[0].mtime, c[0].path)):
        over_files = policy.max_files is not None and n_items > policy.max_files
        over_bytes = policy.max_bytes is not None and n_bytes > policy.max_bytes
        if not (over_files or over_bytes):
            break
        plan.victims.append(Victim(item.files, "max-files" if over_files else "max-bytes", session, bool(session)))
        gone.update(f.path for f in item.files)
        n_items -= 1
        n_bytes -= item.size
    plan.kept[:] = [f for f in plan.kept if f.path not in gone]
    if policy.max_files is not None and n_items > policy.max_files:
        report.over_limit.append(f"{n_items} items kept (pinned or fresh) > max_files {policy.max_files}")
    if policy.max_bytes is not None and n_bytes > policy.max_bytes:
        report.over_limit.append(f"{n_bytes} bytes kept (pinned or fresh) > max_bytes {policy.max_bytes}")


async def referenced_media(ws: Workspace, inv: Inventory) -> set[str]:
    """``data/`` paths whose URL appears in any item or ``context.jsonl`` (conservative: all are read)."""
    found: set[str] = set()
    for s in inv.sessions.values():
        files = [item.file for item in s.items.values()]
        if CONTEXT_FILE in s.meta:
            files.append(s.meta[CONTEXT_FILE])
        for f in files:
            try:
                data = await ws._read(f.path)
            except FileNotFoundError:
                continue
            pos = data.find(_DATA_URL)
            while pos >= 0:
                start = end = pos + len(_DATA_URL)
                while end < len(data) and data[end : end + 1] not in b"\"'<> \n\\)":
                    end += 1
                found.add(f"{DATA_DIR}/" + data[start:end].decode("utf-8", "replace"))
                pos = data.find(_DATA_URL, end)
    return found
